import { assert, describe, it } from "@effect/vitest"
import * as Redactor from "../src/Redactor.js"
import * as SecretRules from "../src/SecretRules.js"
import { leakedWindow } from "./FakeSecrets.js"
import type { RuleSamples } from "./RuleSamples.js"
import { samples } from "./samples/index.js"

const redactor = Redactor.make()
const all: ReadonlyArray<RuleSamples> = samples

/** Each rule needs at least this many samples of each kind. */
const minPositives = 3
const minNegatives = 2

describe("rule samples", () => {
  for (const samples of all) {
    describe(samples.rule, () => {
      for (const [i, positive] of samples.positives.entries()) {
        it(`redacts positive ${i + 1}: ${JSON.stringify(positive.text.slice(0, 60))}`, () => {
          const out = redactor.redact(positive.text).text
          assert.isUndefined(leakedWindow(out, positive.secret), out)
          assert.include(out, Redactor.marker(samples.rule), out)
          if (positive.kept !== undefined) assert.include(out, positive.kept, out)
          assert.strictEqual(redactor.redact(out).text, out, "redacting twice changes nothing")
        })
      }
      for (const [i, negative] of samples.negatives.entries()) {
        it(`keeps negative ${i + 1}: ${JSON.stringify(negative.slice(0, 60))}`, () => {
          assert.strictEqual(redactor.redact(negative).text, negative)
        })
      }
    })
  }

  it("every rule of the catalogue has samples of both kinds", () => {
    const positives = new Map<string, number>()
    const negatives = new Map<string, number>()
    for (const s of all) {
      positives.set(s.rule, (positives.get(s.rule) ?? 0) + s.positives.length)
      negatives.set(s.rule, (negatives.get(s.rule) ?? 0) + s.negatives.length)
    }
    const ids = new Set(SecretRules.catalogue.map((d) => d.id))
    for (const rule of positives.keys()) assert.isTrue(ids.has(rule), `${rule} is not a catalogue rule`)
    for (const detector of SecretRules.catalogue) {
      assert.isAtLeast(positives.get(detector.id) ?? 0, minPositives, `${detector.id}: positives`)
      assert.isAtLeast(negatives.get(detector.id) ?? 0, minNegatives, `${detector.id}: negatives`)
    }
  })
})

describe("where a token starts", () => {
  const tokenRules = new Map(
    SecretRules.catalogue.flatMap((rule) =>
      rule.triggers.flatMap((trigger) => trigger._tag === "Prefix" ? [[rule.id, trigger.prefixes] as const] : [])
    )
  )

  it("a prefixed token is found after an underscore and after a percent-encoded byte, as after a space", () => {
    let checked = 0
    for (const s of all) {
      const prefixes = tokenRules.get(s.rule)
      if (prefixes === undefined) continue
      for (const positive of s.positives) {
        if (!prefixes.some((prefix) => positive.secret.startsWith(prefix))) continue
        // Only secrets found on their own: the others need the words their samples give.
        if (leakedWindow(redactor.redact(`a ${positive.secret} b`).text, positive.secret) !== undefined) continue
        for (const before of ["tool_", "X-Amz-Credential%3D", "path%2F", "%2f"]) {
          const text = `${before}${positive.secret}&b`
          const out = redactor.redact(text).text
          assert.isUndefined(leakedWindow(out, positive.secret), `${s.rule}: ${out}`)
        }
        checked++
      }
    }
    assert.isAbove(checked, 100)
  })

  it("the catalogue's order never decides between findings that start at different places", () => {
    const reversed = Redactor.make({ replaceDefaultRules: [...SecretRules.catalogue].reverse() })
    let differs = 0
    for (const s of all) {
      for (const positive of s.positives) {
        const forward = redactor.redact(positive.text).text
        const backward = reversed.redact(positive.text).text
        // Two rules may claim the same start; then the catalogue names it. Where the
        // findings start must not depend on the order.
        const shape = (out: string) => out.replace(/\[REDACTED:[a-z0-9-]+\]/g, "[REDACTED]")
        if (shape(forward) !== shape(backward)) differs++
        assert.strictEqual(shape(backward), shape(forward), `${s.rule}: ${JSON.stringify(positive.text.slice(0, 80))}`)
      }
    }
    assert.strictEqual(differs, 0)
  })
})

describe("the prefilter", () => {
  // A text up to 2,048 characters is first tested against a prefilter, and returned as it is when
  // no rule could hit it; a longer one is scanned. So the same text behind a long run of blank
  // lines, which no rule reads, shows what the scan decides without the prefilter.
  const pad = "\n".repeat(2_100)
  const unfiltered = (r: Redactor.Redactor, text: string): Redactor.Redaction => {
    const out = r.redact(pad + text)
    return { ...out, text: out.text.slice(pad.length) }
  }
  const withExtras = Redactor.make({
    secrets: ["hunter2-corp", "s3cr3t-value-9"],
    extraRules: [{ id: "acme-pin", keywords: ["acme"], pattern: /(pin=)(\d{6})/, keep: true }]
  })
  // Many known values: one pattern instead of a literal each.
  const manyKnown = Redactor.make({
    secrets: Array.from({ length: 12 }, (_, i) => `known-value-${i}-zq`),
    personalData: false
  })

  it("never returns a text unchanged that the scan would change, for every sample and every kind of rule", () => {
    const texts = [
      ...all.flatMap((s) => [...s.positives.map((p) => p.text), ...s.negatives]),
      "the acme pin=123456 is set",
      "pin=123456 without the word",
      "login hunter2-corp or s3cr3t-value-9 then \"hunter2-corp\"",
      "call +1 415 555 0100 or (415) 555-0101, mail ann@example.org",
      "known-value-3-zq and known-value-11-zq",
      "plain text with nothing to find at all"
    ]
    let changed = 0
    for (const text of texts) {
      assert.isAtMost(text.length, 2_048)
      for (const r of [redactor, withExtras, manyKnown]) {
        const filtered = r.redact(text)
        assert.deepStrictEqual(filtered, unfiltered(r, text), JSON.stringify(text.slice(0, 80)))
        if (filtered.text !== text) changed++
      }
    }
    // The law is not vacuous: most of these texts hold something.
    assert.isAbove(changed, texts.length)
  })

  it("lets a text with no trigger through untouched, and a redactor without rules keeps everything", () => {
    const none = Redactor.make({ replaceDefaultRules: [], personalData: false })
    const text = "password=Xk9$mQ2vLp7#nR4w AKIAIOSFODNN7EXAMPLE ann@example.org"
    assert.deepStrictEqual(none.redact(text), { text, count: 0, kinds: {} })
    assert.deepStrictEqual(none.redact(pad + text).text, pad + text)
    const plain = "nothing here"
    assert.strictEqual(redactor.redact(plain).text, plain)
  })
})

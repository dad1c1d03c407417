import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as Invisible from "../src/Invisible.js"
import * as Redactor from "../src/Redactor.js"
import { leakedWindow } from "./FakeSecrets.js"
import { samples } from "./samples/index.js"

/**
 * A character that shows as nothing (a zero-width space, a soft hyphen, a
 * bidirectional control, a tag character) inside a token once broke every
 * rule, and the token went out whole: `ghp_aB3d\u200bE5gH…` reads as the
 * token to anyone who copies it. The rules read the text without such
 * characters, so wherever they are put, the output without them is the
 * output for the text without them, and no 8-character window of a secret
 * survives.
 */

const redactor = Redactor.make()
const invisibles = ["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\ufeff", "\u202e", "\u2066", "\u{E0041}"]
const strip = (text: string) => text.replace(/\p{Cf}/gu, "")

const withInvisibles = (text: string, at: ReadonlyArray<readonly [number, number]>): string => {
  const cuts = [...at].map(([p, c]) => [Math.min(p, text.length), c] as const).sort((a, b) => a[0] - b[0])
  let out = ""
  let last = 0
  for (const [p, c] of cuts) {
    out += text.slice(last, p) + invisibles[c % invisibles.length]!
    last = p
  }
  return out + text.slice(last)
}

const positives = samples.flatMap((s) => s.positives.map((p) => ({ rule: s.rule, ...p })))
const sampleTexts = samples.flatMap((s) => [...s.positives.map((p) => p.text), ...s.negatives])

describe("invisible characters", () => {
  it("inside the secret of every positive sample, the secret is still redacted", () => {
    let checked = 0
    for (const positive of positives) {
      const secret = positive.secret
      const start = positive.text.indexOf(secret)
      if (start < 0 || secret.length < 8) continue
      for (const offset of [1, secret.length >> 1, secret.length - 1]) {
        for (const char of invisibles) {
          const text = positive.text.slice(0, start + offset) + char + positive.text.slice(start + offset)
          const out = redactor.redact(text).text
          const context = `${positive.rule} with ${JSON.stringify(char)} at ${offset}: ${JSON.stringify(out)}`
          assert.isUndefined(leakedWindow(strip(out), secret), context)
          assert.include(out, Redactor.marker(positive.rule), context)
          checked++
        }
      }
    }
    assert.isAbove(checked, 5_000)
  })

  it.prop(
    "wherever they are put, the output without them is the output for the text without them",
    {
      index: FastCheck.integer({ min: 0, max: sampleTexts.length - 1 }),
      at: FastCheck.array(FastCheck.tuple(FastCheck.nat(2_000), FastCheck.nat()), { minLength: 1, maxLength: 12 })
    },
    ({ at, index }) => {
      const text = sampleTexts[index]!
      const expected = redactor.redact(text)
      const got = redactor.redact(withInvisibles(text, at))
      assert.strictEqual(strip(got.text), expected.text)
      assert.strictEqual(got.count, expected.count)
      assert.deepStrictEqual(got.kinds, expected.kinds)
      // What is not part of a secret stays, invisible characters included.
      assert.strictEqual(redactor.redact(got.text).text, got.text, "redacting twice changes nothing")
    },
    { fastCheck: { numRuns: 400 } }
  )

  it.prop(
    "a stream gives the whole-text result, whatever the chunking",
    {
      from: FastCheck.integer({ min: 0, max: sampleTexts.length - 40 }),
      at: FastCheck.array(FastCheck.tuple(FastCheck.nat(40_000), FastCheck.nat()), { minLength: 1, maxLength: 200 }),
      chunk: FastCheck.oneof(FastCheck.integer({ min: 1, max: 16 }), FastCheck.integer({ min: 17, max: 5_000 })),
      batch: FastCheck.oneof(FastCheck.constant(undefined), FastCheck.integer({ min: 1, max: 600 }))
    },
    ({ at, batch, chunk, from }) => {
      const text = withInvisibles(sampleTexts.slice(from, from + 40).join("\n"), at)
      const whole = redactor.redact(text)
      const stream = redactor.stream({ batch })
      const parts: Array<string> = []
      let count = 0
      for (let i = 0; i < text.length; i += chunk) {
        const out = stream.push(text.slice(i, i + chunk))
        parts.push(out.text)
        count += out.count
      }
      const last = stream.end()
      parts.push(last.text)
      count += last.count
      assert.strictEqual(parts.join(""), whole.text)
      assert.strictEqual(count, whole.count)
    },
    { fastCheck: { numRuns: 60 } }
  )

  it("those next to a secret stay outside its marker, those inside it go with it", () => {
    const token = "ghp_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"
    const text = `a \u200b${token.slice(0, 9)}\u200d${token.slice(9)}\u2060\u200b b`
    assert.strictEqual(redactor.redact(text).text, `a \u200b${Redactor.marker("github-token")}\u2060\u200b b`)
  })

  it("a text dense with them streams as it redacts whole, in small batches and chunks", () => {
    const text = sampleTexts.slice(0, 300).join("\n").replace(/(.{3})/gs, "$1\u200b")
    const whole = redactor.redact(text)
    assert.isAbove(whole.count, 20)
    for (const [chunk, batch] of [[7, 50], [13, 500], [101, 1], [1_000, undefined]] as const) {
      const stream = redactor.stream({ batch })
      let out = ""
      for (let i = 0; i < text.length; i += chunk) out += stream.push(text.slice(i, i + chunk)).text
      out += stream.end().text
      assert.strictEqual(out, whole.text, `chunks of ${chunk}, batch ${batch}`)
    }
  })

  it("positions map back: each folded character is where it was", () => {
    const text = "a\u200bb\u200c\u200dc\u{E0041}d\u00ad"
    const folded = Invisible.fold(text)
    assert.strictEqual(folded.text, "abcd")
    assert.deepStrictEqual([0, 1, 2, 3, 4].map(folded.at), [0, 2, 5, 8, 10])
    assert.deepStrictEqual([0, 1, 2, 3, 4].map(folded.endAt), [0, 1, 3, 6, 9])
    const plain = Invisible.fold("abc")
    assert.strictEqual(plain.text, "abc")
    assert.strictEqual(plain.at(2), 2)
  })
})

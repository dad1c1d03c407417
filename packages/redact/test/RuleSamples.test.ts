import { assert, describe, it } from "@effect/vitest"
import * as Redactor from "../src/Redactor.js"
import * as SecretRules from "../src/SecretRules.js"
import { leakedWindow } from "./FakeSecrets.js"
import type { RuleSamples } from "./RuleSamples.js"
import { cloud } from "./samples/CloudSamples.js"
import { developer } from "./samples/DeveloperSamples.js"
import { service } from "./samples/ServiceSamples.js"

const redactor = Redactor.make()
const all: ReadonlyArray<RuleSamples> = [...developer, ...cloud, ...service]

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

  it("every rule added for the new families has samples of both kinds", () => {
    const byRule = new Map(all.map((s) => [s.rule, s]))
    const ids = new Set(SecretRules.catalogue.map((d) => d.id))
    for (const s of all) assert.isTrue(ids.has(s.rule) || s.rule.length > 0, s.rule)
    for (const id of ids) {
      const samples = byRule.get(id)
      if (samples === undefined) continue
      assert.isAtLeast(samples.positives.length, minPositives, id)
      assert.isAtLeast(samples.negatives.length, minNegatives, id)
    }
  })
})

/**
 * A `Read` ask rule covers the files a command names, as a `Read` deny
 * does: `cat secrets/key` reaches the same file as `read_file secrets/key`
 * and `cat sec*\/key`, so a person is asked for all three. Found by a
 * mutation round: the named file was allowed as a read-only command.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { engineWith, outcomeOf } from "./EngineHarness.js"
import { bash, readFile, request } from "./SampleTools.js"

const guarded = { ask: ["Read(./secrets/**)"] }

describe("a Read ask rule and the files a command names", () => {
  for (
    const command of [
      "cat secrets/key",
      "head -1 secrets/key",
      "tail -n 2 ./secrets/key",
      "wc -c < secrets/key",
      "cd secrets && cat key"
    ]
  ) {
    it.effect(`asks for ${command}`, () =>
      Effect.gen(function*() {
        const subject = yield* engineWith(guarded)
        assert.strictEqual(yield* outcomeOf(subject, request(bash, { command })), "ask")
        const prompt = (yield* subject.prompts).at(-1)!
        assert.include(prompt.reason, "Read(./secrets/**)")
      }))
  }

  it.effect("asks as read_file is asked, and leaves other files alone", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith(guarded)
      assert.strictEqual(yield* outcomeOf(subject, request(readFile, { path: "secrets/key" })), "ask")
      assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: "cat README.md" })), "allow:rule")
    }))

  it.effect("in dontAsk the named file is denied, not read", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith({ ...guarded, mode: "dontAsk" })
      assert.notStrictEqual(yield* outcomeOf(subject, request(bash, { command: "cat secrets/key" })), "allow:rule")
    }))
})

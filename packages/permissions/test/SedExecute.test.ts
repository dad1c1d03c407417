/**
 * sed runs a shell for its `e` command (`sed '1e rm -rf /'`), for the `e`
 * flag of `s` (the pattern space after the substitution runs), and for a
 * bare `e` (each input line runs). Deny rules and the destruction check read
 * the command text, and a running pattern space makes the input a script.
 * A script that runs nothing leaves sed the known program it is.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { engineWith, outcomeOf, unseenRemovals } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

describe("sed's e", () => {
  it.effect("runs a command: deny rules and the destruction check see it", () =>
    Effect.gen(function*() {
      const unseen = yield* unseenRemovals([
        "sed '1e rm -rf /' notes.txt",
        "sed -n '$e rm -rf /' notes.txt",
        "sed -ne '/x/e rm -rf /' notes.txt",
        "sed -e p -e '1,3e rm -rf /' notes.txt",
        "sed --expression='1e rm -rf /' notes.txt",
        "sed 's/.*/rm -rf \\//e' notes.txt",
        "echo x | sed 's|x|rm -rf /|e'",
        "sed e <<< 'rm -rf /'",
        "echo 'rm -rf /' | sed -n 'e'"
      ])
      assert.deepStrictEqual(unseen, [])
    }))

  it.effect("a script that runs nothing is read as before, and a script file asks", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith({ mode: "default", allow: ["Bash(sed:*)"] })
      for (
        const line of [
          "sed -i 's/a/b/' f",
          "sed -n '1,5p' f",
          "sed 's/e/E/g' f",
          "sed -e 's/x/y/' -e 's/tree/treE/' f",
          "sed -E 's/(e)+/x/' f"
        ]
      ) {
        assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: line })), "allow:rule", line)
      }
      assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: "sed -f run.sed f" })), "ask")
      assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: "sed '1e date' f" })), "ask")
    }))
})

/**
 * awk runs what it reads when its program hands input to a shell
 * (`awk '{system($0)}'`, `awk '{print | "sh"}'`): that input is read as a
 * script. And awk's own words never name a command: `awk '{print $1}'` was
 * read as an unknown program that might run `$1`, a command named by a
 * variable, which every deny rule denied in bypassPermissions.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { engineWith, outcomeOf, unseenRemovals } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

describe("awk", () => {
  it.effect("a program that hands its input to a shell runs that input", () =>
    Effect.gen(function*() {
      const unseen = yield* unseenRemovals([
        "awk '{system($0)}' <<< 'rm -rf /'",
        "echo 'rm -rf /' | awk '{print | \"sh\"}'",
        "echo 'rm -rf /' | gawk -F: '{ print $0 | \"/bin/bash\" }'",
        "printf 'rm -rf /\\n' | mawk '{ cmd = $0; system(cmd) }'"
      ])
      assert.deepStrictEqual(unseen, [])
    }))

  it.effect("a program that only prints runs, whatever variables it names", () =>
    Effect.gen(function*() {
      const denying = yield* engineWith({ mode: "bypassPermissions", deny: ["Bash(rm:*)"] })
      for (
        const line of [
          "awk '{print $1}' <<< 'rm -rf /'",
          "awk -F, '{print $2}' data.csv",
          "awk -v n=2 '$n > 0 { s += $n } END { print s }' data.txt",
          "awk 'BEGIN { system(\"date\") }' <<< 'rm -rf /'"
        ]
      ) {
        assert.strictEqual(yield* outcomeOf(denying, request(bash, { command: line })), "allow:mode", line)
      }
    }))
})

/**
 * A bash started with BASH_ENV set runs that file before its own commands
 * (an interactive sh does the same with ENV): with `/dev/stdin`, the
 * here-string or here-document a line gives it is a script that runs,
 * although `bash -c :` reads no script from its input. Deny rules and the
 * destruction check read that input as commands.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { engineWith, outcomeOf, unseenRemovals } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

const lines = [
  "BASH_ENV=/dev/stdin bash -c : <<< 'rm -rf /'",
  "env BASH_ENV=/dev/stdin bash -c : <<< 'rm -rf /'",
  "export BASH_ENV=/dev/stdin; bash -c : <<< 'rm -rf /'",
  "BASH_ENV=/dev/stdin bash -c true <<EOF\nrm -rf /\nEOF",
  "ENV=/dev/stdin sh -i <<< 'rm -rf /'",
  "BASH_ENV=/proc/self/fd/0 make <<< 'rm -rf /'"
]

describe("BASH_ENV and ENV", () => {
  it.effect("the input of a command run with one set is read as a script", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* unseenRemovals(lines), [])
      const denying = yield* engineWith({ mode: "bypassPermissions", deny: ["Bash(rm:*)"] })
      // Without it, `bash -c` reads no script from its input.
      assert.strictEqual(
        yield* outcomeOf(denying, request(bash, { command: "bash -c : <<< 'rm -rf /'" })),
        "allow:mode"
      )
    }))
})

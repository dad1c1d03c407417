/**
 * `xargs sh -c` takes its command string from what it reads, and
 * `xargs -I{} sh -c '{}'` puts what it reads into the script: the input the
 * line gives xargs (a here-string, a here-document, a pipe) is then a script
 * that runs, read as one after xargs removes its quotes. Deny rules and the
 * destruction check see its commands.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { engineWith, outcomeOf, unseenRemovals } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

describe("a shell xargs feeds", () => {
  it.effect("runs what xargs reads: deny rules and the destruction check see it", () =>
    Effect.gen(function*() {
      const unseen = yield* unseenRemovals([
        "xargs sh -c <<< \"'rm -rf /'\"",
        "echo \"'rm -rf /'\" | xargs bash -c",
        "printf '%s\\n' '\"rm -rf /\"' | xargs -r sh -c",
        "xargs -I{} sh -c '{}' <<< 'rm -rf /'",
        "xargs -I X bash -c 'X' <<< 'rm -rf /'",
        "xargs -0 sh -ec <<< 'rm -rf /'",
        "xargs -I{} /bin/sh -c 'cd /tmp && {}' <<EOF\nrm -rf /\nEOF"
      ])
      assert.deepStrictEqual(unseen, [])
    }))

  it.effect("a shell with a command string of its own, or another program, takes input as arguments only", () =>
    Effect.gen(function*() {
      const denying = yield* engineWith({ mode: "bypassPermissions", deny: ["Bash(rm:*)"] })
      for (const line of ["xargs sh -c 'echo \"$@\"' sh <<< 'rm -rf /'", "xargs echo <<< 'rm -rf /'"]) {
        assert.strictEqual(yield* outcomeOf(denying, request(bash, { command: line })), "allow:mode", line)
      }
    }))
})

/**
 * `echo cm0gLXJmIC8= | base64 -d | sh` runs `rm -rf /`: a shell reading a
 * pipe runs what the stages before it print, and a decoding stage (base64,
 * `openssl base64 -d`, `xxd -r -p`) prints the decoded text. Deny rules
 * and the destruction check read the decoded text as the shell does.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { engineWith, outcomeOf, unseenRemovals } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

const b64 = (text: string) => btoa(text)
const hex = (text: string) => [...new TextEncoder().encode(text)].map((b) => b.toString(16).padStart(2, "0")).join("")

describe("a pipe through a decoder into a shell", () => {
  it.effect("runs the decoded text: deny rules and the destruction check see it", () =>
    Effect.gen(function*() {
      const unseen = yield* unseenRemovals([
        `echo ${b64("rm -rf /")} | base64 -d | sh`,
        `echo ${b64("rm -rf /\n")} | base64 --decode | bash`,
        `printf '%s' '${b64("echo hi; rm -rf /")}' | base64 -d | cat | sh`,
        `base64 -d <<< ${b64("rm -rf /")} | sh`,
        `echo ${b64("rm -rf /")} | openssl base64 -d | sh`,
        `echo ${hex("rm -rf /")} | xxd -r -p | sh`,
        `echo ${b64(b64("rm -rf /"))} | base64 -d | base64 -d | sh`
      ])
      assert.deepStrictEqual(unseen, [])
    }))

  it.effect("a decoded text that is harmless, or one no shell reads, runs", () =>
    Effect.gen(function*() {
      const denying = yield* engineWith({ mode: "bypassPermissions", deny: ["Bash(rm:*)"] })
      for (const line of [`echo ${b64("echo hello")} | base64 -d | sh`, `echo ${b64("rm -rf /")} | base64 -d`]) {
        assert.strictEqual(yield* outcomeOf(denying, request(bash, { command: line })), "allow:mode", line)
      }
    }))
})

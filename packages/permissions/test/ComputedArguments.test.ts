/**
 * An argument bash computes from text the line holds is that text: `git
 * $(echo push)` and `echo push | xargs git` run `git push`. A deny rule for
 * `git push` sees each; the same lines with another word still run, and the
 * destruction check sees `rm` the same way.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { engineWith, type Outcome, outcomeOf, wrongOutcomes } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

const rows: ReadonlyArray<readonly [string, Outcome]> = [
  ["git $(echo push)", "deny:rule"],
  ["git `echo push`", "deny:rule"],
  ["git \"$(printf push)\" origin main", "deny:rule"],
  ["git $(echo pu)sh", "deny:rule"],
  ["git -C . $(echo push)", "deny:rule"],
  ["echo push | xargs git", "deny:rule"],
  ["xargs git <<< push", "deny:rule"],
  ["printf '%s\\n' push | xargs -n1 git", "deny:rule"],
  ["echo cHVzaA== | base64 -d | xargs git", "deny:rule"],
  ["git $(echo status)", "allow:mode"],
  ["echo status | xargs git", "allow:mode"],
  ["git status $(echo x)", "allow:mode"]
]

describe("arguments computed from the line's own text", () => {
  it.effect("are read as that text", () =>
    Effect.gen(function*() {
      const wrong = yield* wrongOutcomes({ mode: "bypassPermissions", deny: ["Bash(git push:*)"] }, rows)
      assert.deepStrictEqual(wrong, [])
      const bypass = yield* engineWith({ mode: "bypassPermissions" })
      for (const line of ["rm $(echo -rf /)", "echo / | xargs rm -rf", "rm -rf \"$(printf /)\""]) {
        assert.strictEqual(yield* outcomeOf(bypass, request(bash, { command: line })), "ask", line)
      }
    }))
})

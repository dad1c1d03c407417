/**
 * A deny rule matches the words as bash evaluates them, a variable the line
 * assigns included (README, step 2) — and bash evaluates a variable as the
 * line leaves it where the command runs: an assignment in a subshell, a
 * pipeline, a function, behind `||`/`&&`, before another command
 * (`X=1 cmd`), or undone by `unset`, may not be in force; `${X:-default}`
 * takes the default for an empty value, `${X+alt}` the alternative for a
 * set one. Each row's verdict was checked against bash 5 with an `rm` that
 * logs its runs on the PATH.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type engineWith, type Outcome, wrongOutcomes } from "./EngineHarness.js"

const outcomes = (config: Parameters<typeof engineWith>[0], rows: ReadonlyArray<readonly [string, Outcome]>) =>
  Effect.map(wrongOutcomes(config, rows), (wrong) => assert.deepStrictEqual(wrong, []))

// bypassPermissions: only the deny rule stands between the line and what it runs.
const config = { mode: "bypassPermissions", deny: ["Bash(rm:*)"] } as const

describe("variables the line assigns", () => {
  it.effect("a deny rule sees the command bash runs when the assignment is not in force", () =>
    outcomes(config, [
      ["X=rm; $X -f a", "deny:rule"],
      ["(X=echo); $X rm -f a", "deny:rule"],
      ["true || X=echo; $X rm -f a", "deny:rule"],
      ["if false; then X=echo; fi; $X rm -f a", "deny:rule"],
      ["for i in 1; do (X=echo); done; $X rm -f a", "deny:rule"],
      ["echo | X=echo; $X rm -f a", "deny:rule"],
      ["X=echo true; $X rm -f a", "deny:rule"],
      ["X=echo; unset X; $X rm -f a", "deny:rule"],
      ["(X=ls); ${X:-rm} -f a", "deny:rule"],
      ["false && X=ls; ${X:-rm} -f a", "deny:rule"],
      ["f() { local X=ls; }; f; ${X:-rm} -f a", "deny:rule"]
    ]))

  it.effect("a deny rule sees the default an empty value takes, and the alternative a set one takes", () =>
    outcomes(config, [
      ["X=; ${X:-rm} -f a", "deny:rule"],
      ["X=; ${X:=rm} -f a", "deny:rule"],
      ["X=; ${X+rm} -f a", "deny:rule"],
      ["X=ls; ${X:+rm} -f a", "deny:rule"],
      // An empty value without the colon is a value: bash runs `-f a`, no rm.
      ["X=; ${X-rm} -f a", "allow:mode"]
    ]))

  it.effect("an assignment surely in force is read as bash reads it, and denies nothing more", () =>
    outcomes(config, [
      ["X=ls; $X -la", "allow:mode"],
      ["X=ls; ${X:-rm} -la", "allow:mode"],
      ["X=ls && ${X:-rm} -la", "allow:mode"],
      ["export X=ls; ${X:-rm} -la", "allow:mode"],
      // The subshell's echo is gone; the ls before it is what runs.
      ["X=ls; (X=echo); $X rm -f a", "allow:mode"]
    ]))

  it.effect("a path deny rule sees the file a redirection writes when the assignment is not in force", () =>
    outcomes({ mode: "bypassPermissions", deny: ["Edit(.env)"] }, [
      ["(F=notes.txt); echo x > ${F:-.env}", "deny:rule"],
      ["true || F=notes.txt; echo x > ${F:-.env}", "deny:rule"],
      ["F=notes.txt; echo x > ${F:-.env}", "allow:mode"]
    ]))
})

/**
 * A command's paths are checked from every directory a `cd` in the line
 * could leave it in (README: "from every directory a `cd` in the line could
 * leave it in"): the path deny rules see a redirection's target as the file
 * tools' write from each of them, and the file commands `acceptEdits` runs
 * never write a protected place (`.git`, `.husky`…) from any of them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type engineWith, type Outcome, wrongOutcomes } from "./EngineHarness.js"

const outcomes = (config: Parameters<typeof engineWith>[0], rows: ReadonlyArray<readonly [string, Outcome]>) =>
  Effect.map(wrongOutcomes(config, rows), (wrong) => assert.deepStrictEqual(wrong, []))

describe("writes after a cd", () => {
  it.effect("a path deny rule denies a redirection into its tree from the directory a cd leads to", () =>
    Effect.gen(function*() {
      for (const mode of ["bypassPermissions", "acceptEdits"] as const) {
        for (const deny of ["Edit(./secrets/**)", "Read(./secrets/**)"]) {
          yield* outcomes({ mode, deny: [deny] }, [
            ["echo x > secrets/key", "deny:rule"],
            ["cd secrets; echo x > key", "deny:rule"],
            ["cd secrets && echo x > key", "deny:rule"],
            ["cd secrets && echo x >> key", "deny:rule"],
            ["cd src && echo x > ../secrets/key", "deny:rule"],
            ["cd src; echo x > key", mode === "bypassPermissions" ? "allow:mode" : "allow:rule"]
          ])
        }
      }
    }))

  it.effect("acceptEdits asks before a file command writes a protected place from where a cd leads", () =>
    outcomes({ mode: "acceptEdits" }, [
      ["touch .git/hooks/pre-commit", "ask"],
      ["cd .git && touch hooks/pre-commit", "ask"],
      ["cd .git; cp ../src/a.ts hooks/pre-commit", "ask"],
      ["cd .git/hooks && mv ../../src/a.ts pre-commit", "ask"],
      ["cd .husky && touch pre-commit", "ask"],
      ["cd .git && echo x > hooks/pre-commit", "ask"],
      ["cd src && touch new.ts", "allow:mode"],
      ["cd src; cp a.ts b.ts", "allow:mode"]
    ]))

  it.effect("a write is allowed only when an Edit rule allows it from every directory the line could be in", () =>
    outcomes({ mode: "default", allow: ["Bash(echo *)", "Bash(cd *)", "Bash(true)", "Edit(./src/**)"] }, [
      // The cd may fail: from the workspace, a.ts is outside ./src.
      ["cd src || true; echo x > a.ts", "ask"],
      ["cd src || true; echo x > /work/project/src/a.ts", "allow:rule"]
    ]))
})

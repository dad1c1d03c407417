/**
 * Two more ways to remove a tree (README: "a command that could destroy the
 * machine, the home directory or the workspace … is asked about in every
 * mode"): `tar --remove-files` deletes each file it archives, and
 * `git clean` / `git rm -r` delete from the working tree. Each is judged on
 * its targets as `rm -rf` is: a vital one asks, an ordinary one runs.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type Outcome, wrongOutcomes } from "./EngineHarness.js"

const rows: ReadonlyArray<readonly [string, Outcome]> = [
  ["tar --remove-files -cf /tmp/x.tar ~", "ask"],
  ["tar -cf /tmp/x.tar --remove-files /work/project", "ask"],
  ["tar --remove-f -cf out.tar .", "ask"],
  ["tar --remove-files -czf /tmp/etc.tgz /etc", "ask"],
  ["tar -C / --remove-files -cf /tmp/x.tar etc", "ask"],
  ["tar --directory=/ --remove-files -cf /tmp/x.tar usr", "ask"],
  ["tar --remove-files -cf out.tar build", "allow:mode"],
  ["tar -cf x.tar ~", "allow:mode"],
  ["git clean -ffdx", "ask"],
  ["git clean -fd .", "ask"],
  ["git clean -fdx ~", "ask"],
  ["git -C / clean -ffdx", "ask"],
  ["cd / && git clean -fdx", "ask"],
  ["git clean -ffdx build", "allow:mode"],
  ["git clean -n", "allow:mode"],
  ["git clean --dry-run -dx", "allow:mode"],
  ["git rm -rf .", "ask"],
  ["git rm -r -f ~", "ask"],
  ["git rm -r --cached .", "allow:mode"],
  ["git rm -rf src/old", "allow:mode"],
  ["git rm x", "allow:mode"]
]

describe("removals through tar and git", () => {
  it.effect("a vital target asks in bypassPermissions; an ordinary one runs", () =>
    Effect.gen(function*() {
      const wrong = yield* wrongOutcomes({ mode: "bypassPermissions", homeDirectory: "/home/dev" }, rows)
      assert.deepStrictEqual(wrong, [])
    }))
})

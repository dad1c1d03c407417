/**
 * A recursive removal of anything outside the workspace but the temporary
 * directories could destroy the home directory or the machine: it is asked
 * about in every mode, `bypassPermissions` included, whatever allows it
 * (`CommandRisk.destructive`; README step 5). Recursive however rm's
 * grammar spells it: `-r`, `-R`, combined with other short options in any
 * order, anywhere among the operands (GNU rm permutes), `--recursive` and
 * its unambiguous abbreviations down to `--r` (getopt_long), through a
 * wrapper. A removal that is not recursive is an ordinary one.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { engineWith, type Outcome, outcomeOf } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

const location = { workspaceRoot: "/home/dev/app", homeDirectory: "/home/dev" }
const target = "/home/dev/other"

/** Every spelling of a recursive removal of `target`. */
const recursive: ReadonlyArray<string> = [
  `rm -r ${target}`,
  `rm -R ${target}`,
  `rm -rf ${target}`,
  `rm -fr ${target}`,
  `rm -Rf ${target}`,
  `rm -fR ${target}`,
  `rm -vfR ${target}`,
  `rm -dRv ${target}`,
  `rm -iR ${target}`,
  `rm -f -R ${target}`,
  `rm -R -f ${target}`,
  `rm ${target} -R`,
  `rm -R -- ${target}`,
  `rm --recursive ${target}`,
  `rm --recursive --force ${target}`,
  `rm --force --recursive ${target}`,
  `rm --recur ${target}`,
  `rm --rec ${target}`,
  `rm --re ${target}`,
  `rm --r ${target}`,
  `rm -R ${target}/`,
  `rm -R ${target}/*`,
  `rm -R ~/other`,
  `rm -R ../other`,
  `sudo rm -R ${target}`,
  `command rm -R ${target}`,
  `timeout 5 rm -R ${target}`,
  `ls && rm -R ${target}`
]

const outcomes = (
  config: Parameters<typeof engineWith>[0],
  rows: ReadonlyArray<readonly [line: string, expected: Outcome]>
) =>
  Effect.gen(function*() {
    const subject = yield* engineWith({ ...location, ...config })
    const wrong: Array<string> = []
    for (const [line, expected] of rows) {
      const got = yield* outcomeOf(subject, request(bash, { command: line }))
      if (got !== expected) wrong.push(`${line}: ${got}, expected ${expected}`)
    }
    assert.deepStrictEqual(wrong, [])
  })

describe("a recursive removal outside the workspace", () => {
  it.effect("is asked about in bypassPermissions, however -r is spelled", () =>
    outcomes({ mode: "bypassPermissions" }, recursive.map((line) => [line, "ask"] as const)))

  it.effect("is asked about whatever allow rule covers it, and denied where no one is asked", () =>
    Effect.gen(function*() {
      yield* outcomes({ allow: ["Bash(rm:*)", "Bash(sudo:*)"] }, recursive.map((line) => [line, "ask"] as const))
      yield* outcomes(
        { mode: "dontAsk", allow: ["Bash(rm:*)", "Bash(sudo:*)", "Bash(command:*)", "Bash(timeout:*)"] },
        recursive.map((line) => [line, "deny:mode"] as const)
      )
    }))

  it.effect("the boundary: not recursive, or inside the workspace or a temporary directory, it runs in bypassPermissions", () =>
    outcomes({ mode: "bypassPermissions" }, [
      [`rm ${target}`, "allow:mode"],
      [`rm -f ${target}`, "allow:mode"],
      [`rm -fv ${target}`, "allow:mode"],
      [`rm -d ${target}`, "allow:mode"],
      [`rm --force ${target}`, "allow:mode"],
      ["rm -R build", "allow:mode"],
      ["rm -rf /home/dev/app/build", "allow:mode"],
      ["rm --recursive ./dist", "allow:mode"],
      ["rm -R /tmp/scratch", "allow:mode"],
      ["rm -rf /var/tmp/scratch", "allow:mode"]
    ]))

  it.effect("what reads its operands from input removes recursively whatever it reads", () =>
    outcomes({ mode: "bypassPermissions" }, [
      ["xargs rm -R", "ask"],
      ["xargs rm -fR", "ask"],
      ["xargs rm -r", "ask"],
      ["xargs rm -f", "allow:mode"]
    ]))
})

/**
 * A word's fields as bash makes them: quote removal inside double quotes
 * and `$"…"`, ANSI-C strings, parameter defaults and alternatives, and IFS
 * splitting of what a variable holds. A field read wrong is a command name
 * a deny rule does not see (`$"rm"`, `"r\<newline>m"`, `${1:-rm}`), or a
 * computed name taken as known, which would close a line that is open.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Approver from "../src/Approver.js"
import * as CommandLine from "../src/CommandLine.js"
import { engineWith, outcomeOf } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

const analyse = (line: string) => Effect.map(CommandLine.make, (service) => service.analyse(line))
const readings = (line: string) => Effect.map(analyse(line), (analysis) => analysis.readings)
const command = (line: string) => request(bash, { command: line })

describe("word fields", () => {
  it.effect("double-quoted and `$\"…\"` words lose their quotes and escapes as bash removes them", () =>
    Effect.gen(function*() {
      const table: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
        ["$\"rm\" -rf /tmp/a", ["rm", "-rf", "/tmp/a"]],
        ["\"r\\\nm\" -rf /tmp/a", ["rm", "-rf", "/tmp/a"]],
        ["cat \"a\\$b\" \"a\\\"b\"", ["cat", "a$b", "a\"b"]],
        ["X=rm; \"${X}\" -rf /tmp/a", ["rm", "-rf", "/tmp/a"]],
        ["echo $'a$'", ["echo", "a$"]],
        // A `$` with nothing to expand after it is kept: only the one before `"…"` is removed.
        ["echo \"a$\" \"$\"", ["echo", "a$", "$"]]
      ]
      for (const [line, expected] of table) assert.deepStrictEqual(yield* readings(line), [expected], line)
    }))

  it.effect("a default on a positional or special parameter is one reading (`${@:-rm}` runs rm with no arguments)", () =>
    Effect.gen(function*() {
      for (const line of ["${1:-rm} -rf /tmp/a", "${@:-rm} -rf /tmp/a", "${*:-rm} -rf /tmp/a"]) {
        assert.deepInclude(yield* readings(line), ["rm", "-rf", "/tmp/a"], line)
      }
    }))

  it.effect("an array element's default leaves the command name open: the element may hold any command", () =>
    Effect.gen(function*() {
      const analysis = yield* analyse("${a[0]:-ls} x")
      assert.isDefined(analysis.open)
    }))

  it.effect("a variable the line may leave unset expands to nothing, so the words after it are the command", () =>
    Effect.gen(function*() {
      const all = yield* readings("true || X=ls; $X rm -rf /tmp/a")
      assert.deepInclude(all, ["ls", "rm", "-rf", "/tmp/a"])
      assert.deepInclude(all, ["rm", "-rf", "/tmp/a"])
      // The unset expansion is an empty field, nothing made up in its place.
      assert.deepInclude(all, ["", "rm", "-rf", "/tmp/a"])
    }))

  it.effect("a default's value is split into fields as bash splits it", () =>
    Effect.gen(function*() {
      assert.deepInclude(yield* readings("Y='rm -rf'; ${X:-$Y} /tmp/a"), ["rm", "-rf", "/tmp/a"])
    }))

  it.effect("`${X:+alt}` is nothing when X is empty or unset, and the alternative when X may be set", () =>
    Effect.gen(function*() {
      const empty = yield* readings("X=; ${X:+rm} ls")
      assert.notDeepInclude(empty, ["rm", "ls"])
      assert.deepInclude(empty, ["", "ls"])
      const maybe = yield* readings("true || X=a; ${X:+rm} ls")
      assert.deepInclude(maybe, ["rm", "ls"])
      assert.deepInclude(maybe, ["", "ls"])
    }))

  it.effect("a value the engine cannot evaluate stays one word; a known value splits on runs of blanks", () =>
    Effect.gen(function*() {
      assert.deepInclude(yield* readings("rm ${X#a  b}"), ["rm", "${X#a  b}"])
      assert.deepStrictEqual(yield* readings("X='rm  -rf'; $X /tmp/a"), [["rm", "-rf", "/tmp/a"]])
    }))
})

describe("the fields of a default or an alternative", () => {
  // Each row checked with bash 5.2 (`set -- <word>; printf '[%s]' "$@"`): the blank between parts of the
  // word splits fields; a quoted part stays one field, blanks kept; an escaped blank does not split.
  it.effect("its unquoted blanks split fields and its quoted parts keep theirs", () =>
    Effect.gen(function*() {
      const table: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
        ["X=; ${X:-rm \"-rf\"} /tmp/a", ["rm", "-rf", "/tmp/a"]],
        ["X=; ${X:-rm '-rf'} /tmp/a", ["rm", "-rf", "/tmp/a"]],
        ["X=a; ${X:+rm \"-rf\"} /tmp/a", ["rm", "-rf", "/tmp/a"]],
        ["X=; ${X:-rm  \"-r  f\"e\\ x} /tmp/a", ["rm", "-r  fe x", "/tmp/a"]],
        // The blank before the closing brace ends a field: the word after the brace is one of its own.
        ["X=; ${X:-rm -rf }/tmp/a", ["rm", "-rf", "/tmp/a"]]
      ]
      for (const [line, expected] of table) assert.deepStrictEqual(yield* readings(line), [expected], line)
      // Within double quotes nothing splits: the command is named `rm -rf`.
      assert.deepInclude(yield* readings("X=; \"${X:-rm \"-rf\"}\" /tmp/a"), ["rm -rf", "/tmp/a"])
    }))

  it.effect("the deny rule sees the command, and the destruction check asks in bypassPermissions", () =>
    Effect.gen(function*() {
      const wrong: Array<string> = []
      for (const line of ["${X:-rm \"-rf\"} /", "X=; ${X:-rm \"-rf\"} /", "true || X=a; ${X:+rm \"-rf\"} /"]) {
        const bypass = yield* engineWith({ mode: "bypassPermissions" }, () => Approver.deny("no"))
        const got = yield* outcomeOf(bypass, command(line))
        if (got !== "ask") wrong.push(`bypassPermissions: ${JSON.stringify(line)} was ${got}`)
        for (const mode of ["default", "bypassPermissions"] as const) {
          const denying = yield* engineWith({ mode, deny: ["Bash(rm:*)"] }, () => Approver.deny("no"))
          const denied = yield* outcomeOf(denying, command(line))
          if (denied !== "deny:rule") wrong.push(`${mode}, deny Bash(rm:*): ${JSON.stringify(line)} was ${denied}`)
        }
      }
      assert.deepStrictEqual(wrong, [])
    }))
})

describe("brace expansion comes first, on the word as written", () => {
  it.effect("`${x}{m,}` is `${x}m` and `${x}`: the braces expand around a variable, then the variable", () =>
    Effect.gen(function*() {
      assert.deepInclude(yield* readings("x=r; ${x}{m,} -rf /tmp/a"), ["rm", "r", "-rf", "/tmp/a"])
      assert.deepInclude(yield* readings("x=r; y=m; ${x}{${y},\"$y\"} -rf /tmp/a"), ["rm", "rm", "-rf", "/tmp/a"])
      assert.deepInclude(yield* readings("echo {1..3}"), ["echo", "1", "2", "3"])
      // Braces inside quotes or an expansion are no brace expansion.
      assert.deepInclude(yield* readings("x=r; ${x}\"{m,}\""), ["r{m,}"])
    }))

  it.effect("the deny rule sees such a command, and the destruction check asks in bypassPermissions", () =>
    Effect.gen(function*() {
      const wrong: Array<string> = []
      for (const line of ["x=r; ${x}{m,} -rf /tmp/a", "x=r; y=m; ${x}{${y},} -rf /tmp/a", "x=-r; rm ${x}{f,} /tmp/a"]) {
        const denying = yield* engineWith({ mode: "default", deny: ["Bash(rm:*)"], allow: ["Bash(*)"] })
        const denied = yield* outcomeOf(denying, command(line))
        if (denied !== "deny:rule") wrong.push(`deny Bash(rm:*): ${JSON.stringify(line)} was ${denied}`)
        const bypass = yield* engineWith({ mode: "bypassPermissions" }, () => Approver.deny("no"))
        const got = yield* outcomeOf(bypass, command(line.replace("/tmp/a", "/")))
        if (got !== "ask") wrong.push(`bypassPermissions: ${JSON.stringify(line)} was ${got}`)
      }
      assert.deepStrictEqual(wrong, [])
    }))
})

describe("a `$` bash keeps", () => {
  it.effect("a Read deny rule sees the file a double-quoted name ending in `$` names", () =>
    Effect.gen(function*() {
      const wrong: Array<string> = []
      for (const mode of ["default", "bypassPermissions"] as const) {
        const denying = yield* engineWith({ mode, deny: ["Read(key$)"] }, () => Approver.deny("no"))
        const got = yield* outcomeOf(denying, command("cat \"key$\""))
        if (got !== "deny:rule") wrong.push(`${mode}: cat "key$" was ${got}`)
      }
      assert.deepStrictEqual(wrong, [])
    }))
})

/**
 * Code that bash runs from inside a command's words: a trap's action, a
 * completion callback, the `$(…)` and backquoted parts of an operand a
 * builtin evaluates (`let 'x[$(rm …)]'`), and the scripts a line hands on.
 * Each must be read as the command it is, with nothing made up around it:
 * a part read wrong is a command a deny rule or the destruction check does
 * not see, and a stray reading is a harmless line asked about.
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

describe("code a builtin keeps to run later", () => {
  it.effect("a trap's action is the first word that is not an option, even one ending or starting like `-p`", () =>
    Effect.gen(function*() {
      // The action ends in `-p`: it is no option, and the signal after it is no action.
      const tail = yield* readings("trap 'rm -rf /tmp/a-p' EXIT")
      assert.deepInclude(tail, ["rm", "-rf", "/tmp/a-p"])
      assert.notDeepInclude(tail, ["EXIT"])
      // After `--` an action may begin with `-p`: bash runs it, and the `rm` after it.
      const dashed = yield* readings("trap -- '-p;rm -rf /' EXIT")
      assert.deepInclude(dashed, ["rm", "-rf", "/"])
      assert.notDeepInclude(dashed, ["EXIT"])
    }))

  it.effect("`complete -C` runs the word after the flag, not the word after an argument that merely contains `-C`", () =>
    Effect.gen(function*() {
      const all = yield* readings("complete -W foo-C -C 'rm -rf /' cmd")
      assert.deepInclude(all, ["rm", "-rf", "/"])
      assert.notDeepInclude(all, ["-C"])
    }))

  it.effect("a trap's action is certain code, not a guess, and a guess inside a script stays a guess", () =>
    Effect.gen(function*() {
      const trap = yield* analyse("trap 'rm -rf /tmp/a' EXIT")
      assert.deepInclude(trap.readings, ["rm", "-rf", "/tmp/a"])
      assert.deepStrictEqual(trap.guesses, [])
      const plain = yield* analyse("bash -c 'ls'")
      assert.deepInclude(plain.readings, ["ls"])
      assert.deepStrictEqual(plain.guesses, [])
      // `taskset` is a program the engine does not know: only a guess says it runs `rm`.
      const guessed = yield* analyse("bash -c 'taskset 0x1 rm -rf /tmp/a'")
      assert.deepInclude(guessed.guesses, ["rm", "-rf", "/tmp/a"])
    }))

  it.effect("a kept script the engine cannot follow to the end leaves the whole line open", () =>
    Effect.gen(function*() {
      const deep = `${"(".repeat(300)}ls${")".repeat(300)}`
      const analysis = yield* analyse(`trap '${deep}' EXIT`)
      assert.isDefined(analysis.open)
    }))

  it.effect("glob-named commands in a kept script count against the same bound as the line's own", () =>
    Effect.gen(function*() {
      const outer = Array.from({ length: 60 }, (_, i) => `/y/b${i}*`).join(" ; ")
      const inner = Array.from({ length: 10 }, (_, i) => `/x/a${i}*`).join(" ; ")
      const analysis = yield* analyse(`${outer} ; trap '${inner}' EXIT`)
      assert.strictEqual(analysis.globNames.length, 64)
    }))
})

describe("substitutions in an operand a builtin evaluates", () => {
  it.effect("each `$(…)` is read to its own closing parenthesis, nested ones counted, and nothing else is read", () =>
    Effect.gen(function*() {
      const table: ReadonlyArray<readonly [string, ReadonlyArray<ReadonlyArray<string>>]> = [
        ["let 'x[$(rm -rf /tmp/a)]'", [["let", "x[$(rm -rf /tmp/a)]"], ["rm", "-rf", "/tmp/a"]]],
        // At the very start of the operand.
        ["let '$(rm -rf /tmp/a)'", [["let", "$(rm -rf /tmp/a)"], ["rm", "-rf", "/tmp/a"]]],
        // Two in one operand: the first ends at its own `)`, not at the last one.
        ["let 'x[$(ls)]+y[$(rm -rf /tmp/a)]'", [["let", "x[$(ls)]+y[$(rm -rf /tmp/a)]"], ["ls"], [
          "rm",
          "-rf",
          "/tmp/a"
        ]]],
        // A subshell inside: its `)` does not end the substitution.
        ["let 'x[$( (rm -rf /tmp/a) ; ls)]'", [["let", "x[$( (rm -rf /tmp/a) ; ls)]"], ["rm", "-rf", "/tmp/a"], [
          "ls"
        ]]]
      ]
      for (const [line, expected] of table) {
        const analysis = yield* analyse(line)
        assert.deepStrictEqual(analysis.readings, expected, line)
        assert.isUndefined(analysis.open, line)
      }
    }))

  it.effect("an unclosed `$(` or backquote is read to the end of the operand, last character included", () =>
    Effect.gen(function*() {
      assert.deepInclude(yield* readings("let '$(rm -rf /tmp/a'"), ["rm", "-rf", "/tmp/a"])
      assert.deepInclude(yield* readings("let '`rm -rf /tmp/a'"), ["rm", "-rf", "/tmp/a"])
      // A backslash ending the operand escapes nothing: the word before it is whole.
      assert.deepInclude(yield* readings("let '`rm -rf /tmp/a\\'"), ["rm", "-rf", "/tmp/a"])
    }))

  it.effect("a backquoted part is read as the command it is, a backslash before another character kept as bash keeps it", () =>
    Effect.gen(function*() {
      const table: ReadonlyArray<readonly [string, ReadonlyArray<ReadonlyArray<string>>]> = [
        ["let 'x[`ls`]'", [["let", "x[`ls`]"], ["ls"]]],
        ["let 'x[`\\rm -rf /tmp/a`]'", [["let", "x[`\\rm -rf /tmp/a`]"], ["rm", "-rf", "/tmp/a"]]]
      ]
      for (const [line, expected] of table) {
        const analysis = yield* analyse(line)
        assert.deepStrictEqual(analysis.readings, expected, line)
        assert.isUndefined(analysis.open, line)
      }
    }))

  it.effect("escaped backquotes in a double-quoted value bash evaluates later are each a substitution of their own", () =>
    Effect.gen(function*() {
      // `$((X))` would run both `rm -rf /tmp/a` and `ls`.
      const all = yield* readings("X=\"a[\\`rm -rf /tmp/a\\`\\`ls\\`]\"")
      assert.deepInclude(all, ["rm", "-rf", "/tmp/a"])
      assert.deepInclude(all, ["ls"])
    }))
})

describe("the end of a `$(…)` in an operand a builtin evaluates, found as bash finds it", () => {
  // Each runs `rm -rf /tmp/a` in bash 5.2 (checked with a harmless command in its place): the `)` that
  // ends a case pattern, or one quoted, commented out or in a here-document, does not end the substitution.
  const hidden: ReadonlyArray<string> = [
    "let 'x[$(case a in a) rm -rf /tmp/a;; esac)]'",
    "test -v 'x[$(case a in a) rm -rf /tmp/a;; esac)]'",
    "printf -v 'x[$(case a in a) rm -rf /tmp/a;; esac)]' %s 1",
    "let 'x[$(case b in (a) ls;; b|c) rm -rf /tmp/a;; esac)]'",
    "let 'x[$(case a in a) case b in b) ls;; esac;; esac; rm -rf /tmp/a)]'",
    "let 'x[$(case a in a) ls\nesac; rm -rf /tmp/a)]'",
    // After a redirection or an assignment `esac` is no reserved word: the case goes on.
    "let 'x[$(case b in a) >/dev/null esac;; b) rm -rf /tmp/a;; esac)]'",
    "let 'x[$(case b in a) X=1 esac;; b) rm -rf /tmp/a;; esac)]'",
    "let 'x[$(echo \")\"; rm -rf /tmp/a)]'",
    "let 'x[$(echo a # )\nrm -rf /tmp/a)]'",
    "let 'x[$(cat <<E\n)\nE\nrm -rf /tmp/a)]'",
    "let 'x[$(echo `echo \")\"`; rm -rf /tmp/a)]'",
    "let 'x[$(echo ${a:-)}; rm -rf /tmp/a)]'",
    "let 'x[$(echo $(echo \")\"); rm -rf /tmp/a)]'",
    "declare -i 'x=a[$(case a in a) rm -rf /tmp/a;; esac)]'",
    // Bash reads a declaration's operand once its quotes are removed: the `')'` is a quoted `)`.
    "declare 'a[$(echo '\\'')'\\'' ; rm -rf /tmp/a)]=1'",
    "local 'a[$(echo '\\'')'\\'';rm -rf /tmp/a)]=1'",
    "typeset -a \"a[\\$(echo ')'; rm -rf /tmp/a)]=1\"",
    // A `((` is arithmetic to bash only when its parentheses close together; here it is a group of
    // groups, where the grammar reads an expression and no command.
    "((echo a); (rm -rf /tmp/a) ) && x=1",
    "echo $((echo a); (rm -rf /tmp/a) )",
    "((echo a) | (rm -rf /tmp/a))",
    "let 'x[$(: ; ((echo a); (rm -rf /tmp/a) ) && x=1)]'",
    // The grammar leaves a backquoted part of a `${…}` operand as a plain word.
    "echo ${y:=`rm -rf /tmp/a`}",
    "echo \"${y:-`rm -rf /tmp/a`}\"",
    // Bash ends these here-documents at `EOF` (quotes removed; the body comes before the
    // command an operator at the end of the start line waits for): the `rm` is a command.
    "echo hi <<E\"OF\"\nEOF\nrm -rf /tmp/a\nE\"OF\"",
    "echo hi <<E'OF'\nEOF\nrm -rf /tmp/a\nE'OF'",
    "echo hi <<EOF &&\nEOF\nrm -rf /tmp/a\nEOF",
    "echo hi <<EOF |\nEOF\nrm -rf /tmp/a\nEOF"
  ]

  it.effect("the command after such a `)` is read", () =>
    Effect.gen(function*() {
      for (const line of hidden) {
        const analysis = yield* analyse(line)
        assert.deepInclude(analysis.readings, ["rm", "-rf", "/tmp/a"], line)
        assert.isUndefined(analysis.open, line)
      }
    }))

  it.effect("a `case` in a substitution is read as its commands, nothing of its patterns made a command", () =>
    Effect.gen(function*() {
      const table: ReadonlyArray<readonly [string, ReadonlyArray<ReadonlyArray<string>>]> = [
        ["let 'x[$(case a in a) rm -rf /tmp/a;; esac)]'", [["let", "x[$(case a in a) rm -rf /tmp/a;; esac)]"], [
          "rm",
          "-rf",
          "/tmp/a"
        ]]],
        // The substitution ends at the `)` after `esac`: a second one is read on its own.
        ["let 'x[$(case a in (a) ls;; esac)]+y[$(rm -rf /tmp/a)]'", [
          ["let", "x[$(case a in (a) ls;; esac)]+y[$(rm -rf /tmp/a)]"],
          ["ls"],
          ["rm", "-rf", "/tmp/a"]
        ]],
        // `((…))` closing together is arithmetic, not a group whose `)` ends the substitution.
        ["let 'x[$( ((1)) ; rm -rf /tmp/a)]'", [["let", "x[$( ((1)) ; rm -rf /tmp/a)]"], ["rm", "-rf", "/tmp/a"]]]
      ]
      for (const [line, expected] of table) {
        const analysis = yield* analyse(line)
        assert.deepStrictEqual(analysis.readings, expected, line)
        assert.isUndefined(analysis.open, line)
      }
    }))

  it.effect("where the scan may not end where bash does, the rest of the operand is read too", () =>
    Effect.gen(function*() {
      // `case` as an argument: bash ends the substitution at `a)`, the scan is not sure, and reads on.
      assert.deepInclude(yield* readings("let 'x[$(echo case a in a); rm -rf /tmp/a)]'"), ["rm", "-rf", "/tmp/a"])
      // A `case` never closed: the rest is the body.
      assert.deepInclude(yield* readings("let 'x[$(case a in a) ls;; b) rm -rf /tmp/a)]'"), ["rm", "-rf", "/tmp/a"])
    }))

  it.effect("the deny rule sees the command, and the destruction check asks in bypassPermissions", () =>
    Effect.gen(function*() {
      const wrong: Array<string> = []
      for (const line of hidden) {
        for (const mode of ["default", "bypassPermissions"] as const) {
          const denying = yield* engineWith({ mode, deny: ["Bash(rm:*)"] }, () => Approver.deny("no"))
          const got = yield* outcomeOf(denying, command(line))
          if (got !== "deny:rule") wrong.push(`${mode}, deny Bash(rm:*): ${JSON.stringify(line)} was ${got}`)
        }
        const destructive = line.replaceAll("/tmp/a", "/")
        const bypass = yield* engineWith({ mode: "bypassPermissions" }, () => Approver.deny("no"))
        const got = yield* outcomeOf(bypass, command(destructive))
        if (got !== "ask") wrong.push(`bypassPermissions: ${JSON.stringify(destructive)} was ${got}`)
      }
      assert.deepStrictEqual(wrong, [])
    }))
})

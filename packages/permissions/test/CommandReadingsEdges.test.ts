/**
 * The walk over a command line's tree at its edges: where it gives up the
 * tree (a line nested too deep, a here-document bash ends elsewhere than the
 * grammar), it must still read every command bash could run there, or a deny
 * rule and the destructive-command check miss it. Each line here runs
 * `rm -rf /` in bash (checked against bash 5.2 with a stub `rm`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Approver from "../src/Approver.js"
import * as CommandLine from "../src/CommandLine.js"
import type * as Mode from "../src/Mode.js"
import { engineWith, outcomeOf } from "./EngineHarness.js"
import { bash } from "./SampleTools.js"

const analysis = (line: string) => Effect.map(CommandLine.make, (service) => service.analyse(line))

const readings = (line: string) => Effect.map(analysis(line), (a) => a.readings.map((words) => words.join(" ")))

const command = (line: string) => ({
  callId: "c1",
  tool: bash,
  input: { command: line },
  subject: { _tag: "Command", command: line } as const
})

const outcome = (line: string, mode: Mode.Mode, deny: ReadonlyArray<string> = ["Bash(rm:*)"]) =>
  Effect.gen(function*() {
    const subject = yield* engineWith({ allow: ["Bash(ls:*)"], deny, mode }, () => Approver.deny("no"))
    return yield* outcomeOf(subject, command(line))
  })

describe("a line nested deeper than the walk follows", () => {
  // 210 subshells: past the walk's nesting bound of 200.
  const deep = `${"( ".repeat(210)}rm -rf /${" )".repeat(210)}`

  it.effect("still yields the command at the bottom, read lexically, and is open, saying it nests too deeply", () =>
    Effect.gen(function*() {
      const result = yield* analysis(deep)
      assert.include(result.readings.map((words) => words.join(" ")), "rm -rf /")
      assert.match(result.open ?? "", /nests too deeply/)
    }))
})

describe("a here-document bash ends before the grammar does", () => {
  // The grammar ends `<<$'EOF'` only at a line `$'EOF'`; bash, at `EOF`: the
  // lines between are commands to bash, not a body.
  it.effect("the lines after bash's end are read as commands, whatever quotes the body opened before", () =>
    Effect.gen(function*() {
      assert.include(yield* readings("cat <<$'EOF'\necho \"x\nEOF\nrm -rf /\necho \"\n$'EOF'"), "rm -rf /")
    }))

  it.effect("those lines are read as a script too: their words evaluated and their assignments in force", () =>
    Effect.gen(function*() {
      assert.include(yield* readings("cat <<$'EOF'\nbody\nEOF\n$'\\x72m' -rf /\n$'EOF'"), "rm -rf /")
      assert.include(yield* readings("cat <<$'EOF'\nbody\nEOF\nX=rm; $X -rf /\n$'EOF'"), "rm -rf /")
    }))
  it.effect("however the ANSI-C delimiter is written: with or without `-`, with or without blanks before it", () =>
    Effect.gen(function*() {
      for (const start of ["<<$'EOF'", "<< $'EOF'", "<<-$'EOF'", "<<- $'EOF'", "<<-\t$'EOF'"]) {
        const line = `cat ${start}\nbody\nEOF\nrm -rf /\n$'EOF'`
        assert.include(yield* readings(line), "rm -rf /", JSON.stringify(line))
      }
    }))
})

describe("several here-documents on a line", () => {
  // Bash gives the first body to `cat` and the second, `rm -rf /`, to `sh`,
  // which runs it; the grammar pairs them otherwise.
  it.effect("a body bash may hand to a shell is read as commands", () =>
    Effect.gen(function*() {
      assert.include(yield* readings("cat <<A; sh <<B\nA\nrm -rf /\nB"), "rm -rf /")
    }))
})

describe("a line that starts with a backslash", () => {
  // FOUND: the grammar glued `\rm -rf /` to the line before as more words of
  // `ls`, so `ls\n\rm -rf /` was allowed in bypassPermissions over `Bash(rm:*)`.
  const lines = ["ls\n\\rm -rf /", "ls x # note\n\\rm -rf /", "X=1\n\\rm -rf /", "ls\r\n\\rm -rf /"]

  it.effect("is a command of its own, as bash runs it", () =>
    Effect.gen(function*() {
      for (const line of lines) assert.include(yield* readings(line), "rm -rf /", JSON.stringify(line))
    }))

  it.effect("a deny rule denies it in every mode, and the destructive check asks where no rule names it", () =>
    Effect.gen(function*() {
      for (const line of lines) {
        assert.strictEqual(yield* outcome(line, "bypassPermissions"), "deny:rule", JSON.stringify(line))
        assert.strictEqual(yield* outcome(line, "default"), "deny:rule", JSON.stringify(line))
      }
      assert.strictEqual(yield* outcome("ls\n\\rm -rf /", "bypassPermissions", []), "ask")
    }))

  it.effect("a backslash-newline before it still joins the lines, as bash does: the word after it is no command", () =>
    Effect.gen(function*() {
      const got = yield* readings("ls \\\n\\rm x")
      assert.include(got, "ls rm x")
      assert.notInclude(got, "rm x")
    }))
})

describe("assignments that may not be in force", () => {
  it.effect("an `export` or `readonly` in a subshell, or behind `&&`, leaves the reading with the variable unset too", () =>
    Effect.gen(function*() {
      for (
        const line of [
          "(export X=echo); $X rm -rf /",
          "(readonly X=echo); $X rm -rf /",
          "true && export X=echo; $X rm -rf /"
        ]
      ) {
        const got = yield* readings(line)
        assert.include(got, "echo rm -rf /", line)
        assert.include(got, " rm -rf /", line)
      }
    }))

  it.effect("bash runs one of the two readings: the line is not open, so a deny rule for another command does not apply", () =>
    Effect.gen(function*() {
      const result = yield* analysis("(X=echo); $X ls")
      const got = result.readings.map((words) => words.join(" "))
      assert.include(got, "echo ls")
      assert.include(got, " ls")
      assert.isUndefined(result.open)
    }))

  it.effect("an IFS assignment that may not be in force leaves the other reading with the line's variables known", () =>
    Effect.gen(function*() {
      assert.include(yield* readings("(IFS=:); X=rm; $X -rf /"), "rm -rf /")
    }))

  it.effect("a default given to IFS (`${IFS:-x}`) does not make the line's variables unknown", () =>
    Effect.gen(function*() {
      for (const line of ["X=ls; $X ${IFS:-x}", "X=ls; $X ${IFS-}"]) {
        const result = yield* analysis(line)
        assert.isUndefined(result.open, line)
        assert.deepStrictEqual(result.readings.map((words) => words[0]), ["ls"], line)
      }
    }))
})

describe("backquotes within backquotes", () => {
  // Bash removes the escapes of a backquoted body and reads it again: the inner
  // `\`rm -rf /\`` runs, and what it prints is run with `x`.
  const line = "echo `\\`rm -rf /\\` x`"

  it.effect("the inner command is read as bash runs it, not with the outer closing backquote glued on", () =>
    Effect.gen(function*() {
      assert.include(yield* readings(line), "rm -rf /")
    }))
})

describe("the rest of a here-document's first line, which the grammar takes into the delimiter", () => {
  // `cat <<EOF;X=rm;…`: bash ends the delimiter at the operator and runs the rest;
  // the grammar reads `EOF;X=rm;…` as the delimiter.
  it.effect("is read as the script bash runs after the operator, its assignments in force", () =>
    Effect.gen(function*() {
      for (const operator of [";", "&&", ">x;"]) {
        const rest = "X=rm;$X${IFS}-rf${IFS}/"
        const line = `cat <<EOF${operator}${rest}\nbody\nEOF${operator}${rest}`
        assert.include(yield* readings(line), "rm -rf /", JSON.stringify(line))
      }
    }))

  it.effect("a here-document adds no reading of its own: its delimiter and body are no commands", () =>
    Effect.gen(function*() {
      const table: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
        ["cat <<EOF\nhello\nEOF", ["cat"]],
        ["cat <<EOF > out\nhello\nEOF", ["cat"]],
        ["cat <<EOF;ls\nbody\nEOF;ls", ["cat", "ls"]],
        ["cat <<EOF&&ls\nbody\nEOF&&ls", ["cat", "ls"]]
      ]
      for (const [line, expected] of table) {
        assert.deepStrictEqual(yield* readings(line), expected, JSON.stringify(line))
      }
    }))
})

describe("a here-document piped into a shell", () => {
  const body = "\nrm -rf /\nEOF"

  // FOUND: the grammar nests the stages after the first (`| grep r | sh`) in a
  // pipeline of their own, and the shell at the end was not seen: the line was
  // allowed in bypassPermissions over `Bash(rm:*)`.
  it.effect("its body is read as the script the shell runs, through any stages between", () =>
    Effect.gen(function*() {
      for (const pipe of ["| sh", "| grep r | sh", "| tee /dev/null | sh", "| grep r | tee x | bash"]) {
        const line = `cat <<EOF ${pipe}${body}`
        assert.include(yield* readings(line), "rm -rf /", JSON.stringify(line))
        assert.strictEqual(yield* outcome(line, "bypassPermissions"), "deny:rule", JSON.stringify(line))
      }
    }))

  it.effect("a body piped only into programs that do not run it is no command", () =>
    Effect.gen(function*() {
      for (const pipe of ["| sort", "| grep r | sort"]) {
        assert.notInclude(yield* readings(`cat <<EOF ${pipe}${body}`), "rm -rf /", pipe)
      }
    }))

  it.effect("what a known shell runs is no guess; what a program the engine does not know may run is", () =>
    Effect.gen(function*() {
      for (const pipe of ["| sh", "| grep r | sh"]) {
        const result = yield* analysis(`cat <<EOF ${pipe}${body}`)
        assert.notInclude(result.guesses.map((words) => words.join(" ")), "rm -rf /", pipe)
      }
      const guessed = yield* analysis(`cat <<EOF | taskset 1 sh${body}`)
      assert.include(guessed.guesses.map((words) => words.join(" ")), "rm -rf /")
    }))
})

describe("a `[[ … ]]` whose operand bash evaluates as arithmetic", () => {
  // Bash evaluates `'a[$(…)]'` as a subscript and runs the substitution; within it
  // `]]#` and `[[#` are words, not the test's brackets, and no comment starts.
  it.effect("the substitution is read as bash runs it, brackets within it kept", () =>
    Effect.gen(function*() {
      for (const inner of ["echo ]]#; rm -rf /", "echo [[#; rm -rf /"]) {
        const line = `[[ 1 -eq 'a[$(${inner})]' ]]`
        assert.include(yield* readings(line), "rm -rf /", line)
      }
    }))
})

/**
 * Issue 21, the command-line part: deny and ask rules read through programs
 * the engine does not know and through nested backquotes, and lines of
 * compound commands over allowed commands with literal words are allowed
 * without a question. Real bash (the oracle's sandbox of logging stubs) is the
 * witness where one is available.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Approver from "../src/Approver.js"
import * as CommandLine from "../src/CommandLine.js"
import * as BashOracle from "./differential/BashOracle.js"
import { engineWith, outcomeOf } from "./EngineHarness.js"
import { bash } from "./SampleTools.js"

const rules = {
  allow: ["Bash(ls:*)", "Bash(git status:*)", "Bash(npm test:*)", "Bash(echo:*)", "Bash(cat:*)"],
  deny: ["Bash(rm:*)", "Bash(curl:*)"]
}

const command = (line: string) => ({
  callId: "c1",
  tool: bash,
  input: { command: line },
  subject: { _tag: "Command", command: line } as const
})

const outcomes = (lines: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const subject = yield* engineWith({ ...rules, mode: "default" }, () => Approver.deny("no"))
    const out: Array<string> = []
    for (const line of lines) out.push(`${yield* outcomeOf(subject, command(line))} ${JSON.stringify(line)}`)
    return out
  })

const withParser = <A>(f: (analyse: (source: string) => CommandLine.Analysis) => A) =>
  Effect.map(CommandLine.make, (service) => f(service.analyse))

/** Programs the engine has no table for, each running its later words as a command. */
const unknownLaunchers: ReadonlyArray<string> = [
  "taskset 0x1 rm -rf /",
  "chrt 5 rm x",
  "ionice -c3 -X rm x",
  "strace rm x",
  "strace -f -o /tmp/t rm x",
  "gdb --args rm x",
  "firejail rm x",
  "proxychains rm x",
  "torsocks curl x",
  "ssh host rm -rf /",
  "setpriv --reuid=1000 rm x",
  "systemd-run --user rm x",
  "stdbuf -o0 -X rm x",
  "caffeinate rm x",
  "/usr/bin/taskset 0x1 sudo rm x",
  "taskset 0x1 nice -n 5 rm x",
  "taskset 0x1 bash -c 'rm x'",
  "npx rm x",
  "npm exec -- rm x",
  "git bisect run rm x",
  "echo x | chrt 5 xargs rm"
]

const unavailable = await BashOracle.unavailable()

describe("issue 21: readings through programs the engine does not know", () => {
  it.effect("a deny rule denies a denied command started by a program the engine has no table for", () =>
    Effect.gen(function*() {
      const got = yield* outcomes(unknownLaunchers)
      assert.deepStrictEqual(got, unknownLaunchers.map((line) => `deny:rule ${JSON.stringify(line)}`))
    }))

  it.effect("known programs do not read their arguments as commands; allow rules still name the program", () =>
    Effect.gen(function*() {
      const got = yield* outcomes([
        "git rm x",
        "git commit -m rm",
        "echo rm -rf /",
        "grep -r rm .",
        "man rm",
        "npm test -- rm",
        "type rm"
      ])
      assert.isFalse(got.some((line) => line.startsWith("deny")), got.join("\n"))
      // An unknown program is a command an allow rule must name: `Bash(ls:*)` does not allow `taskset 0x1 ls`.
      const subject = yield* engineWith(
        { allow: ["Bash(taskset:*)"], deny: [], mode: "default" },
        () => Approver.deny("no")
      )
      assert.strictEqual(yield* outcomeOf(subject, command("taskset 0x1 ls")), "allow:rule")
      const lsOnly = yield* engineWith({ allow: ["Bash(ls:*)"], deny: [], mode: "default" }, () => Approver.deny("no"))
      assert.strictEqual(yield* outcomeOf(lsOnly, command("taskset 0x1 ls")), "ask")
    }))

  it.effect("an ask rule asks about what an unknown program runs", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith(
        { allow: ["Bash(ssh:*)"], ask: ["Bash(git push:*)"], deny: [], mode: "default" },
        () => Approver.deny("no")
      )
      assert.strictEqual(yield* outcomeOf(subject, command("ssh host git push origin main")), "ask")
      assert.strictEqual(yield* outcomeOf(subject, command("ssh host git status")), "allow:rule")
    }))
})

describe("issue 21: nested backquotes", () => {
  const nested = [
    "ls `echo \\`rm -rf /\\``",
    "ls \"`echo \\`rm -rf /\\``\"",
    "ls `echo \\`echo \\\\\\`rm -rf /\\\\\\`\\``",
    "cat <<EOF\n`echo \\`rm -rf /\\``\nEOF"
  ]

  it.effect("the readings hold the command a backquote within a backquote runs, at any depth", () =>
    withParser((analyse) => {
      for (const line of nested) {
        assert.isTrue(
          analyse(line).readings.some((words) => words[0] === "rm" && words[1] === "-rf"),
          `${JSON.stringify(line)}: ${JSON.stringify(analyse(line).readings)}`
        )
      }
    }))

  it.effect("a deny rule denies them", () =>
    Effect.gen(function*() {
      const got = yield* outcomes(nested)
      assert.deepStrictEqual(got, nested.map((line) => `deny:rule ${JSON.stringify(line)}`))
    }))

  // The oracle's own bound is 30 s and 2 s a line: the timeout is above it.
  it.effect.skipIf(unavailable !== undefined)("bash runs the nested command of each", () =>
    Effect.gen(function*() {
      const results = yield* BashOracle.run(nested, { parallel: 1 })
      for (const result of results) {
        assert.isTrue(
          result.execs.some((exec) => exec.argv[0] === "rm"),
          `${JSON.stringify(result.line)} started ${JSON.stringify(result.execs.map((e) => e.argv))}`
        )
      }
    }), 120_000)
})

describe("issue 21: here-documents bash delimits otherwise than the grammar", () => {
  // Missed denies of the 100,000-line differential: bash ran the denied command in each.
  const tangled = [
    "npm test -r <<EOF; rm -rf /\nbody\nEOF; node -e 1",
    "tee -n <<EOF; rm -rf /\nbody\nEOF; make",
    "git status <<A <<B\nA\nmake\nB\rls <<'EOF'\n$(rm -rf /)\nEOF; make",
    "make <<EOF\nEOF \ngit status\nEOF \\\n&& make <<'EOF'\n$(rm -rf /)\nEOF"
  ]

  it.effect("a deny rule denies the command after the delimiter, or in a body bash reads as commands", () =>
    Effect.gen(function*() {
      const got = yield* outcomes(tangled)
      assert.deepStrictEqual(got, tangled.map((line) => `deny:rule ${JSON.stringify(line)}`))
    }))

  it.effect.skipIf(unavailable !== undefined)("bash runs rm for each", () =>
    Effect.gen(function*() {
      const results = yield* BashOracle.run(tangled, { parallel: 1 })
      for (const result of results) {
        assert.isTrue(result.execs.some((exec) => exec.argv[0] === "rm"), JSON.stringify(result.line))
      }
    }), 120_000)
})

/** Lines bash shows harmless, whose every command the rules allow. */
const harmless: ReadonlyArray<string> = [
  "ls {a,b}",
  "ls src/{a,b}.ts x{1,2}y",
  "(ls) && { git status; }",
  "( ls -la; echo x )",
  "if ls; then npm test; fi",
  "if ls; then npm test; elif cat x; then echo y; else ls -l; fi",
  "while ls; do echo x; done",
  "until ls; do echo x; done",
  "for x in a b; do echo $x; done",
  "for f in src README.md; do ls -la \"$f\" ${f}; cat \"$f.md\"; done",
  "for x in {a,b}; do echo $x; done",
  "ls <<< hi",
  "cat <<< 'a b'",
  "cat <<EOF\nhello world\nEOF",
  "cat <<'EOF'\n$(rm -rf /) `rm` $x\nEOF",
  "cat <<-\"EOF\"\n\t$(rm)\n\tEOF\nls",
  "npm test # comment",
  "ls && # c\ngit status",
  "ls # it's $(rm -rf /)"
]

/** Compound lines that must still be asked about: an expansion, a doubt, or what bash would run differently. */
const asked: ReadonlyArray<string> = [
  "for x in rm; do $x -rf y; done",
  "for x in a b; do echo $y; done",
  "for x in a; do echo x; done; echo $x",
  "for x in a; do for x in b; do echo $x; done; echo $x; done",
  "for x in a; do unset x; echo $x; done",
  "for PATH in /tmp; do ls; done",
  "for x in 'a b'; do ls $x; done",
  "for x in '*'; do ls $x; done",
  "for x; do ls $x; done",
  "select x in a; do ls; done",
  "while ls; do cd src; done",
  "ls {1..3}",
  "{ls,-la}",
  "ls {a,b}$X",
  "{ ls; } > out",
  "bash <<< 'ls'",
  "sh /dev/stdin <<< 'ls'",
  "cat <<EOF\n$(ls)\nEOF",
  "cat <<EOF\n\\$x\nEOF",
  "cat <<EOF && ls\nx\nEOF",
  "cat <<EOF\nx\nEOF2",
  "cat <<< $X",
  "cat <<< \"$(ls)\"",
  "(ls) &",
  "if rm x; then ls; fi"
]

describe("issue 21: compound lines of allowed commands with literal words", () => {
  it.effect("are allowed without a question", () =>
    Effect.gen(function*() {
      const got = yield* outcomes(harmless)
      assert.deepStrictEqual(got, harmless.map((line) => `allow:rule ${JSON.stringify(line)}`))
    }))

  it.effect("are provably simple, with the commands bash runs", () =>
    withParser((analyse) => {
      const commands = (line: string) => {
        const analysis = analyse(line)
        assert.isTrue(CommandLine.isCertain(analysis), `${JSON.stringify(line)}: ${analysis.doubts.join("; ")}`)
        return analysis.commands.map((c) => c.words.join(" "))
      }
      assert.deepStrictEqual(commands("ls {a,b}"), ["ls a b"])
      assert.deepStrictEqual(commands("ls src/{a,b}.ts x{1,2}y"), ["ls src/a.ts src/b.ts x1y x2y"])
      assert.deepStrictEqual(commands("(ls) && { git status; }"), ["ls", "git status"])
      assert.deepStrictEqual(commands("for f in a b; do ls \"$f\" ${f}.md; done"), ["ls a a.md", "ls b b.md"])
      assert.deepStrictEqual(commands("if ls; then npm test; else echo; fi"), ["ls", "npm test", "echo"])
      assert.deepStrictEqual(commands("cat <<EOF\nhi\nEOF\nls"), ["cat", "ls"])
      assert.deepStrictEqual(commands("npm test # rm -rf /"), ["npm test"])
    }))

  it.effect("are asked about when a word is not literal, a loop variable could differ, or bash reads more", () =>
    Effect.gen(function*() {
      const got = yield* outcomes(asked)
      assert.deepStrictEqual(
        got.filter((line) => line.startsWith("allow")),
        [],
        got.join("\n")
      )
    }))

  it.effect.skipIf(unavailable !== undefined)(
    "bash runs only allowed commands for each, and exactly those read",
    () =>
      Effect.gen(function*() {
        // `while ls` never ends under stubs that always succeed: the watchdog would cut it.
        const results = yield* BashOracle.run(harmless.filter((line) => !line.startsWith("while")), { parallel: 1 })
        const service = yield* CommandLine.make
        for (const result of results) {
          const analysis = service.analyse(result.line)
          const read = new Set(analysis.commands.flatMap((c) => c.covers.map((words) => JSON.stringify(words))))
          for (const exec of result.execs) {
            if (exec.transparent) continue
            assert.isTrue(
              read.has(JSON.stringify(exec.argv)),
              `${JSON.stringify(result.line)} started ${JSON.stringify(exec.argv)}, not among ${[...read].join(", ")}`
            )
          }
        }
      }),
    120_000
  )
})

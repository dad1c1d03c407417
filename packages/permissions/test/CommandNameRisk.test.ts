/**
 * A destructive command reaches a person in every mode, whatever names it:
 * a command name that is a glob (`/bin/r[m] -rf /`) runs whatever program it
 * matches, and one computed as the line runs (`$X -rf /`) could be any; a
 * line the engine stopped reading (too long, too deep, too many commands or
 * glob names) may hold one past where it stopped. Each was allowed unasked
 * in bypassPermissions. Everyday lines with such names still run.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as CommandLine from "../src/CommandLine.js"
import * as CommandRisk from "../src/CommandRisk.js"
import * as ReadingSet from "../src/ReadingSet.js"
import { allOutcomes, engineWith, lastPrompt, outcomeOf, outcomesOf } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

const outcomes = outcomesOf
const all = allOutcomes

/** 64 harmless glob-named commands: the most a line's glob names are kept. */
const manyGlobs = Array.from({ length: ReadingSet.maxGlobNames }, (_, i) => `zq${i}*`).join("; ")

describe("destructive commands named by a glob or a computed name", () => {
  it("a glob name is judged as each program it matches; a computed name as any program judged by its words", () => {
    const location = { workspaceRoot: "/w", homeDirectory: "/home/dev" }
    const table: ReadonlyArray<readonly [ReadonlyArray<string>, boolean]> = [
      [["/bin/r[m]", "-rf", "/"], true],
      [["r?", "-rf", "/etc"], true],
      [["/bin/r*", "-r", "/usr"], true],
      [["/sbin/reb??t"], true],
      [["/sbin/mkfs.e*", "/dev/sda1"], true],
      [["d[d]", "if=/dev/zero", "of=/dev/sda"], true],
      [["$X", "-rf", "/"], true],
      [["${RM}", "-rf", "~"], true],
      [["`which rm`", "-rf", "/"], true],
      [["$DIR/bin/tool", "-R", "777", "/"], true],
      // The same names with words that destroy nothing.
      [["/bin/r[m]", "-rf", "build"], false],
      [["r?", "notes.txt"], false],
      [["$EDITOR", "notes.txt"], false],
      [["$PYTHON", "-m", "pytest"], false],
      // A computed name is not taken for a program destructive by its name alone.
      [["$X"], false],
      [["./scripts/*.sh", "--all"], false],
      [["/usr/bin/py*", "-c", "print(1)"], false]
    ]
    for (const [words, expected] of table) {
      const why = CommandRisk.destructive(words, location)
      assert.strictEqual(why !== undefined, expected, `${words.join(" ")}: ${why}`)
    }
    // The reason names the program the name could be, and what it would do.
    assert.strictEqual(
      CommandRisk.destructive(["/bin/r[m]", "-rf", "/"], location),
      "its command could be rm: it removes / recursively"
    )
    assert.strictEqual(
      CommandRisk.destructive(["/sbin/reb??t"], location),
      "its command could be reboot: it stops the machine"
    )
  })

  it.effect("they reach a person in bypassPermissions; the same names with harmless words run", () =>
    Effect.gen(function*() {
      const destructive = [
        "/bin/r[m] -rf /",
        "/bin/r? -rf ~",
        "r[m] -rf /usr",
        "$X -rf /",
        "sudo $RM -rf /",
        "X=rm; $X -rf /etc",
        "/sbin/reb??t"
      ]
      assert.deepStrictEqual(yield* outcomes({ mode: "bypassPermissions" }, destructive), all(destructive, "ask"))
      const harmless = ["$EDITOR notes.txt", "/bin/r[m] -f build/out.o", "$X --version"]
      assert.deepStrictEqual(yield* outcomes({ mode: "bypassPermissions" }, harmless), all(harmless, "allow:mode"))
    }))

  it.effect("a glob name past the kept ones leaves the line open: the deny rule applies, bypassPermissions asks", () =>
    Effect.gen(function*() {
      const line = `${manyGlobs}; /bin/r[m] -rf /tmp/a`
      const service = yield* CommandLine.make
      assert.strictEqual(service.analyse(line).open, "it runs more commands named by globs than the engine follows")
      assert.isUndefined(service.analyse(`${manyGlobs}; ls`).open, "64 glob names are all kept")
      assert.deepStrictEqual(yield* outcomes({ deny: ["Bash(rm:*)"] }, [line]), { [line]: "deny:rule" })
      assert.deepStrictEqual(yield* outcomes({ mode: "bypassPermissions" }, [line]), { [line]: "ask" })
    }))

  it.effect("a glob name in a script the line runs counts against the same bound", () =>
    Effect.gen(function*() {
      const service = yield* CommandLine.make
      const line = `${manyGlobs}; bash -c '/bin/r[m] -rf /tmp/a'`
      assert.strictEqual(service.analyse(line).open, "it runs more commands named by globs than the engine follows")
    }))

  it.effect("a line the engine stopped reading reaches a person in bypassPermissions; a computed name alone does not stop it", () =>
    Effect.gen(function*() {
      const long = `echo ${"x".repeat(70_000)}`
      const deep = `${"bash -c \"".repeat(1)}${"eval '".repeat(8)}ls${"'".repeat(8)}"`
      const service = yield* CommandLine.make
      assert.isDefined(service.analyse(long).open)
      assert.isDefined(service.analyse(deep).open)
      assert.deepStrictEqual(yield* outcomes({ mode: "bypassPermissions" }, [long, deep]), all([long, deep], "ask"))
      // The person is told why: where the engine stopped, and what that means.
      const subject = yield* engineWith({ mode: "bypassPermissions" })
      yield* outcomeOf(subject, request(bash, { command: long }))
      assert.include(
        (yield* lastPrompt(subject)).reason,
        "it is too long to analyse, so it could run a destructive command the engine did not read"
      )
      assert.deepStrictEqual(yield* outcomes({ mode: "bypassPermissions" }, ["$CMD build"]), {
        "$CMD build": "allow:mode"
      })
    }))
})

describe("a command the grammar joins to the line before", () => {
  it.effect("after a three-stage pipeline, the next line's command is its own: the deny rule sees it, no allow rule decides", () =>
    Effect.gen(function*() {
      const lines = [
        "ls | cat | cat\nrm -rf / && ls",
        "ls | grep x | sort\nrm -rf build && echo done",
        "a | b | c\nd && e && f"
      ]
      const service = yield* CommandLine.make
      for (const line of lines) {
        const analysis = service.analyse(line)
        assert.isFalse(analysis.simple, line)
        const second = line.split("\n")[1]!.split(" && ")[0]!.split(" ")
        assert.deepInclude(analysis.readings, second, line)
      }
      const bypassed = yield* outcomes({ mode: "bypassPermissions" }, [lines[0]!])
      assert.deepStrictEqual(bypassed, { [lines[0]!]: "ask" })
      const denied = yield* outcomes(
        { allow: ["Bash(ls:*)", "Bash(cat:*)", "Bash(grep:*)", "Bash(sort:*)"], deny: ["Bash(rm:*)"] },
        lines.slice(0, 2)
      )
      assert.deepStrictEqual(denied, all(lines.slice(0, 2), "deny:rule"))
      // Found by the law in CommandLine.test (seed 91365597): a quoted word on the joined line
      // keeps its blank; the lexical reading alone split it (`a 'a b'` read as `a a b`).
      const quoted = service.analyse("a | a | a 'a b'\nrm 'x y' && a")
      assert.deepInclude(quoted.readings, ["a", "a b"])
      assert.deepInclude(quoted.readings, ["rm", "x y"])
      // A backslash-newline joins the lines for bash too: no misreading there.
      const joined = service.analyse("ls | cat | cat \\\n-n && ls")
      assert.notInclude(joined.doubts.join(), "two lines as one command")
      assert.deepInclude(joined.readings, ["cat", "-n"])
    }))
})

/**
 * How a command's words come to be what bash would run, at the edges of
 * each expansion the engine models: brace expansion (nested, escaped,
 * bounded), ANSI-C quoting (`$'\x72m'` is `rm`), and parameter defaults. A
 * word read wrong here is a command a deny rule does not see.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as CommandLine from "../src/CommandLine.js"
import * as CommandNodeReadings from "../src/CommandNodeReadings.js"
import * as EmbeddedScripts from "../src/EmbeddedScripts.js"
import * as LexicalReadings from "../src/LexicalReadings.js"
import * as ReadingSet from "../src/ReadingSet.js"
import * as WordFields from "../src/WordFields.js"

const readings = (line: string) =>
  Effect.map(CommandLine.make, (service) => service.analyse(line).readings.map((words) => words.join(" ")))

describe("command words at their edges", () => {
  it("brace expansion: alternatives, nesting, escapes, empty parts, and what is no expansion", () => {
    const table: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ["a{b,c}d", ["abd", "acd"]],
      ["{a,b}{1,2}", ["a1", "a2", "b1", "b2"]],
      ["x{a,{b,c}}", ["xa", "xb", "xc"]],
      ["{a,}", ["a", ""]],
      ["{,}", ["", ""]],
      ["{a}", ["{a}"]],
      ["{}", ["{}"]],
      ["a}b{", ["a}b{"]],
      ["\\{a,b}", ["\\{a,b}"]],
      ["{a\\,b,c}", ["a\\,b", "c"]],
      ["{a,b\\}c}", ["a", "b\\}c"]],
      ["{{a}b,c}", ["{a}b", "c"]],
      ["r{m,}", ["rm", "r"]],
      ["plain", ["plain"]],
      // Sequence expressions: numbers (padded when a bound is), letters, either way, with a step.
      ["{r..r}m", ["rm"]],
      ["r{l..n}", ["rl", "rm", "rn"]],
      ["{1..3}", ["1", "2", "3"]],
      ["{3..1}", ["3", "2", "1"]],
      ["{-1..1}", ["-1", "0", "1"]],
      ["{01..10..3}", ["01", "04", "07", "10"]],
      ["{a..e..2}", ["a", "c", "e"]],
      ["{a..c..-1}", ["a", "b", "c"]],
      ["x{1..2}{a..b}", ["x1a", "x1b", "x2a", "x2b"]],
      ["{1..3..0}", ["1", "2", "3"]],
      // Not sequences: read as written.
      ["{1..}", ["{1..}"]],
      ["{a..1}", ["{a..1}"]],
      ["{ab..c}", ["{ab..c}"]]
    ]
    for (const [word, expected] of table) assert.deepStrictEqual(WordFields.braceExpand(word), expected, word)
  })

  it("brace expansion is bounded: at most maxBraceFields fields, and huge or deeply braced words are read as written", () => {
    assert.strictEqual(WordFields.maxBraceFields, 64)
    const many = "{a,b}".repeat(7)
    assert.strictEqual(WordFields.braceExpand(many).length, 64)
    assert.deepStrictEqual(WordFields.braceExpand("{a,b}".repeat(6)).length, 64)
    assert.deepStrictEqual(WordFields.braceExpand("{a,b}".repeat(5)).length, 32)
    const long = `{a,b}${"x".repeat(996)}`
    assert.strictEqual(long.length, 1_001)
    assert.deepStrictEqual(WordFields.braceExpand(long), [long])
    const exactly = `{a,b}${"x".repeat(995)}`
    assert.deepStrictEqual(WordFields.braceExpand(exactly).length, 2)
    const braces = `${"{".repeat(17)}a,b${"}".repeat(17)}`
    assert.deepStrictEqual(WordFields.braceExpand(braces), [braces])
    const sixteen = `{${"{x}".repeat(15)}a,b}`
    assert.deepStrictEqual(WordFields.braceExpand(sixteen).length, 2)
    // A sequence stops at the bound too, however long it is written to be.
    assert.strictEqual(WordFields.braceExpand("{1..99999999999}").length, 64)
    assert.strictEqual(WordFields.braceExpand("x{1..9}{1..9}").length, 64)
  })

  it.effect("ANSI-C quoting: every escape bash decodes, so the command it names is seen", () =>
    Effect.gen(function*() {
      const table: ReadonlyArray<readonly [string, string]> = [
        ["$'\\x72m' -rf /", "rm -rf /"],
        ["$'\\x72'm x", "rm x"],
        ["$'\\162m' x", "rm x"],
        ["$'\\u0072m' x", "rm x"],
        ["$'\\U00000072m' x", "rm x"],
        ["$'r\\x6d' x", "rm x"],
        ["echo $'a\\tb'", "echo a\tb"],
        ["echo $'a\\nb'", "echo a\nb"],
        ["echo $'\\a\\b\\e\\E\\f\\r\\v'", "echo \u0007\b\u001b\u001b\f\r\v"],
        ["echo $'\\cA'", "echo \u0001"],
        ["echo $'\\q'", "echo q"],
        ["echo $'\\\\'", "echo \\"],
        ["echo $'\\''", "echo '"],
        ["echo $'\\x41\\x4a'", "echo AJ"],
        ["echo $'\\x4g'", "echo \u0004g"],
        ["echo $'\\101'", "echo A"],
        ["echo $'\\1011'", "echo A1"],
        ["echo $'\\501'", "echo A"]
      ]
      for (const [line, expected] of table) {
        assert.include(yield* readings(line), expected, line)
      }
    }))

  it.effect("parameter defaults: with the value unknown, the default is one reading; :+ gives the alternative", () =>
    Effect.gen(function*() {
      assert.include(yield* readings("${X:-rm} -rf /"), "rm -rf /")
      assert.include(yield* readings("${X-rm} -rf /"), "rm -rf /")
      assert.include(yield* readings("${X:=rm} -rf /"), "rm -rf /")
      assert.include(yield* readings("X=; ${X:-rm} x"), "rm x")
      assert.include(yield* readings("X=ls; ${X:-rm} x"), "ls x")
      assert.notInclude(yield* readings("X=ls; ${X:-rm} x"), "rm x")
      assert.include(yield* readings("X=1; ${X:+rm} x"), "rm x")
      assert.include(yield* readings("X=; ${X+rm} x"), "rm x")
      // PWD is always set: its value, not the default; unset, the default.
      assert.deepStrictEqual(yield* readings("rm -rf ${PWD:-/tmp} ${PWD=x}"), ["rm -rf $PWD $PWD"])
      assert.include(yield* readings("PWD=/etc; rm -rf ${PWD:-/tmp}"), "rm -rf /etc")
    }))

  it("code a builtin keeps to run later: each builtin, each spelling of its option", () => {
    const later = (line: string) => EmbeddedScripts.laterScripts(line.split(" "))
    const table: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ["trap rm INT", ["rm"]],
      ["trap -p", []],
      ["trap -l", []],
      ["trap -- rm INT", ["rm"]],
      ["trap -p -- rm", ["rm"]],
      ["trap", []],
      ["alias ll=rm x=y plain", ["rm", "y"]],
      ["alias a=b=c", ["b=c"]],
      ["alias", []],
      ["mapfile -C rm -c 1", ["rm"]],
      ["readarray -tC rm", ["rm"]],
      ["complete -Crm x", ["rm"]],
      ["compgen -aC rm", ["rm"]],
      ["compgen -C", []],
      ["complete -F f x", []],
      ["complete x", []],
      ["hash -p /bin/rm ls", ["/bin/rm"]],
      ["hash -p", []],
      ["hash -r", []],
      ["echo trap rm", []]
    ]
    for (const [line, expected] of table) assert.deepStrictEqual(later(line), expected, line)
  })

  it("a backquoted body is read again with its escapes removed, once for each quoting", () => {
    const again = EmbeddedScripts.backquoteScripts
    assert.deepStrictEqual(again("rm x"), [])
    assert.deepStrictEqual(again(String.raw`echo \$x`), ["echo $x"])
    assert.deepStrictEqual(again(String.raw`echo \`rm\``), ["echo `rm`"])
    assert.deepStrictEqual(again(String.raw`echo \\x`), [String.raw`echo \x`])
    // \" loses its backslash only inside double quotes: two readings.
    assert.deepStrictEqual(again(String.raw`echo \"a\"`), [`echo "a"`])
    assert.deepStrictEqual(again(String.raw`echo \$x \"a\"`), [String.raw`echo $x \"a\"`, `echo $x "a"`])
    // A backslash before anything else stays, and nothing is read again.
    assert.deepStrictEqual(again(String.raw`echo \n`), [])
  })

  it.effect("what evaluating builtins and later-run code hand to bash is read as commands", () =>
    Effect.gen(function*() {
      for (
        const line of [
          "printf %s \"$(rm -rf /)\"",
          "test -n \"`rm -rf /`\"",
          "declare x=\"$(rm -rf /)\"",
          "trap 'rm -rf /' EXIT",
          "alias ls='rm -rf /'",
          "echo `echo \\`rm -rf /\\``"
        ]
      ) {
        assert.include(yield* readings(line), "rm -rf /", line)
      }
    }))

  it("words that only set up the next command are stripped: noglob, and a bare xargs before a reader", () => {
    const strip = (line: string) => CommandNodeReadings.preliminary(line.split(" "))
    assert.deepStrictEqual(strip("noglob ls *"), ["ls", "*"])
    assert.deepStrictEqual(strip("noglob noglob ls"), ["ls"])
    assert.deepStrictEqual(strip("noglob"), ["noglob"])
    assert.deepStrictEqual(strip("xargs grep x"), ["grep", "x"])
    assert.deepStrictEqual(strip("noglob xargs cat"), ["cat"])
    assert.deepStrictEqual(strip("xargs rm"), ["xargs", "rm"])
    assert.deepStrictEqual(strip("xargs -0 cat"), ["xargs", "-0", "cat"])
    assert.deepStrictEqual(strip("xargs"), ["xargs"])
    for (const reader of ["ls", "cat", "head", "tail", "wc", "grep", "stat", "du", "diff", "echo", "file"]) {
      assert.deepStrictEqual(strip(`xargs ${reader}`), [reader], reader)
    }
  })

  it.effect("a script one stage prints, a here-document or a here-string feeds a shell: read as commands", () =>
    Effect.gen(function*() {
      for (
        const line of [
          "echo 'rm -rf /' | sh",
          "echo -n 'rm -rf /' | bash",
          "printf 'rm -rf /' | sh",
          "cat <<< 'rm -rf /' | sh",
          "sh <<< 'rm -rf /'",
          "bash <<EOF\nrm -rf /\nEOF",
          "cat <<EOF | sh\nrm -rf /\nEOF"
        ]
      ) {
        assert.include(yield* readings(line), "rm -rf /", line)
      }
      // A stage that does not run its input reads nothing of it.
      assert.notInclude(yield* readings("echo 'rm -rf /' | cat"), "rm -rf /")
      assert.notInclude(yield* readings("cat <<< 'rm -rf /'"), "rm -rf /")
    }))

  it("a region the grammar cannot parse is still read for deny rules: each stretch, quotes dropped, braces expanded", () => {
    const lexical = (text: string) => {
      const set = new ReadingSet.Readings()
      LexicalReadings.lexicalReadings(text, set)
      return { all: set.all.map((words) => words.join(" ")), open: set.open }
    }
    const read = lexical("ls 'a b'; rm -rf x && (cd y) | `id` $(who) <(w) >(v)\n{cp,-r,a,b} {x}")
    for (const expected of ["ls a b", "rm -rf x", "cd y", "id", "who", "w", "v", "cp -r a b"]) {
      assert.include(read.all, expected, expected)
    }
    assert.isUndefined(read.open)
    // Wrappers are unwrapped here too.
    assert.include(lexical("sudo rm -rf /").all, "rm -rf /")
    // Past the bound the region is open: deny and ask rules still apply.
    const many = lexical(Array.from({ length: ReadingSet.maxReadings + 5 }, (_, i) => `c${i}`).join(";"))
    assert.strictEqual(many.all.length, ReadingSet.maxReadings)
    assert.strictEqual(many.open, "it runs more commands than the engine follows")
  })

  it("a reading set is deduplicated, bounded, and knows computed and glob command names", () => {
    const set = new ReadingSet.Readings()
    set.add(["ls"])
    set.add(["ls"])
    set.add([])
    assert.deepStrictEqual(set.all, [["ls"]])
    set.add(["/bin/r[m]", "x"])
    set.add(["[", "-f", "x"])
    set.add(["[[", "x"])
    assert.deepStrictEqual(set.globs, ["/bin/r[m]"])
    assert.isUndefined(set.open)
    set.add(["$cmd", "x"])
    assert.strictEqual(set.open, "its command name is computed when it runs")
    // A guess stays a guess only while nothing reached the same words for sure.
    set.add(["rm", "x"], true)
    assert.deepStrictEqual(set.guesses, [["rm", "x"]])
    set.add(["rm", "x"])
    assert.deepStrictEqual(set.guesses, [])
    set.add(["mv", "x"], true)
    set.add(["mv", "x"], true)
    assert.deepStrictEqual(set.guesses, [["mv", "x"]])
  })
})

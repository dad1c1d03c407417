import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as InterpreterCode from "../src/InterpreterCode.js"

const lines = (words: ReadonlyArray<string>) => InterpreterCode.shellLines(words).lines

describe("InterpreterCode", () => {
  it("reads every kind of string literal, escapes removed, an unclosed one to the end", () => {
    assert.deepStrictEqual(InterpreterCode.stringLiterals(`a "b\\"c" 'd' \`e\` qx{f} qx(g) %x[h] qx<i> "j`), [
      "b\"c",
      "d",
      "e",
      "f",
      "g",
      "h",
      "i",
      "j"
    ])
    assert.deepStrictEqual(InterpreterCode.stringLiterals(`"a\\nb\\tc\\\\"`), ["a\nb\tc\\"])
    // `qx` needs a bracket; `%` and `q` alone open nothing.
    assert.deepStrictEqual(InterpreterCode.stringLiterals("qx y %q(z) 100%x"), [])
    assert.deepStrictEqual(InterpreterCode.stringLiterals(`"a" "b" "c"`, 2), ["a", "b"])
    assert.deepStrictEqual(InterpreterCode.stringLiterals(`"" ''`), ["", ""])
  })

  it("opens a literal only at a quote or at qx / %x with a bracket, and keeps a backslash that ends the text", () => {
    // `max(1, 2)` holds an `x(` that is no `qx(`: no literal.
    assert.deepStrictEqual(InterpreterCode.stringLiterals("max(1, 2); y = ax[0]"), [])
    assert.deepStrictEqual(InterpreterCode.stringLiterals(`"abc\\`), ["abc\\"])
    // Past 64 KB a word's code is unread, and none of it is read as a line.
    const lines = InterpreterCode.shellLines(["node", `"a"${" ".repeat(64 * 1024)}"rm -rf /"`])
    assert.isTrue(lines.unread)
    assert.deepStrictEqual(lines.lines, ["a"])
  })

  it("decodes the escapes that spell a character: hex, octal, \\u, \\u{…}, \\U", () => {
    // `os.system("\x72m -rf /")` runs rm in Python, Perl, Ruby and JavaScript alike.
    assert.deepStrictEqual(
      InterpreterCode.stringLiterals(
        `"\\x72m -rf /" '\\162m' "\\u0072m" "\\u{72}m" "\\U00000072m" "\\x7" "\\e[0m" "\\r\\0" "\\q"`
      ),
      ["rm -rf /", "rm", "rm", "rm", "rm", "\u0007", "\u001b[0m", "\r\u0000", "q"]
    )
    const lines = InterpreterCode.shellLines(["python3", "-c", `import os; os.system("\\x72\\x6d -rf /")`]).lines
    assert.include(lines, "rm -rf /")
    // An escape is read where the backslash is: a later `x2f` or `u002f` is text, not a slash.
    assert.deepStrictEqual(InterpreterCode.stringLiterals(`"\\tx2f" "\\tu002f" "\\tu{2f}" "\\tU0000002f"`), [
      "\tx2f",
      "\tu002f",
      "\tu{2f}",
      "\tU0000002f"
    ])
    // Past the last code point there is no character: nothing is made of it, and nothing throws.
    assert.deepStrictEqual(InterpreterCode.stringLiterals(`"a\\u{10ffff}" "b\\u{110000}c" "\\u{ffffff}"`), [
      "a\u{10ffff}",
      "bc",
      ""
    ])
  })

  it("hands on an interpreter's literals, joined with and without blanks first; nothing for other programs", () => {
    assert.deepStrictEqual(lines(["python3", "-c", `run(["rm", "-rf", "/"])`]), [
      "rm -rf /",
      "rm-rf/",
      "rm",
      "-rf",
      "/"
    ])
    assert.deepStrictEqual(lines(["awk", `BEGIN{system("rm -rf /")}`]), ["rm -rf /"])
    assert.deepStrictEqual(lines(["/usr/local/bin/gawk", `{print "a" "b"}`]), ["a b", "ab", "a", "b"])
    for (
      const name of [
        "perl5.36",
        "python3.12",
        "pypy3",
        "ruby3.2",
        "nodejs",
        "deno",
        "bun",
        "php8.2",
        "lua5.4",
        "mawk",
        "nawk"
      ]
    ) {
      assert.deepStrictEqual(lines([name, `"x"`]), ["x"], name)
    }
    for (const name of ["grep", "echo", "sed", "pythonic", "xawk", "nodes"]) {
      assert.deepStrictEqual(lines([name, `"rm -rf /"`]), [], name)
    }
    // Blank literals are no command, but keep their place in the joined lines.
    assert.deepStrictEqual(lines(["perl", `print "" . " "`]), [])
    assert.deepStrictEqual(lines(["perl", `"rm" . " " . "-rf"`]), ["rm   -rf", "rm -rf", "rm", "-rf"])
  })

  it("past eight scripts the rest come as one, a line each; past 64 literals or 64 KB the code is unread", () => {
    const many = Array.from({ length: 10 }, (_, i) => `"c${i}"`).join(",")
    const folded = lines(["node", many])
    assert.strictEqual(folded.length, 8)
    assert.strictEqual(folded.at(-1), ["c5", "c6", "c7", "c8", "c9"].join("\n"))
    assert.isFalse(InterpreterCode.shellLines(["node", many]).unread)
    const literals = (n: number) => Array.from({ length: n }, (_, i) => `"c${i}"`).join(",")
    assert.isFalse(InterpreterCode.shellLines(["node", literals(64)]).unread)
    const past = InterpreterCode.shellLines(["node", literals(60), literals(5)])
    assert.isTrue(past.unread)
    assert.include(past.lines.join("\n"), "c3\n")
    assert.isFalse(InterpreterCode.shellLines(["node", `"x"${" ".repeat(64 * 1024 - 3)}`]).unread)
    assert.isTrue(InterpreterCode.shellLines(["node", `"x"${" ".repeat(64 * 1024 - 2)}`]).unread)
    // Not an interpreter: nothing read, nothing unread.
    assert.isFalse(InterpreterCode.shellLines(["echo", literals(100)]).unread)
  })

  it("runs its own code: an interpreter unless only asked its version or help; git given configuration", () => {
    const runs = (line: string) => InterpreterCode.runsOwnCode(line.split(" "))
    for (
      const line of ["python3", "python3 -c x", "node x.js --version", "/usr/bin/perl -e 1", "awk 1", "ruby -v x.rb"]
    ) {
      assert.isTrue(runs(line), line)
    }
    for (const line of ["python3 --version", "node -v", "perl -V", "awk --help", "ruby -h", "java -version"]) {
      assert.isFalse(runs(line), line)
    }
    for (
      const line of [
        "git -c a.b=c log",
        "git -cfoo=bar status",
        "git --config-env=core.pager=X log",
        "git commit -c HEAD"
      ]
    ) {
      assert.isTrue(runs(line), line)
    }
    for (const line of ["git log -C", "git status", "gitk -c x", "echo -c", "git diff --cached", "git log x-c"]) {
      assert.isFalse(runs(line), line)
    }
  })

  it.prop("any text: at most the limit of literals, each no longer than the text", [
    FastCheck.string({ maxLength: 200 }),
    FastCheck.integer({ min: 0, max: 10 })
  ], ([text, limit]) => {
    const literals = InterpreterCode.stringLiterals(text, limit)
    assert.isAtMost(literals.length, limit)
    for (const literal of literals) assert.isAtMost(literal.length, text.length)
  })
})

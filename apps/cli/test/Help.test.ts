/**
 * The help pages as a user meets them: piped (80 columns, no escapes) and
 * in terminals of their own width, with and without `NO_COLOR`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Help from "../src/Help.js"
import * as CliProcess from "./CliProcess.js"

const timeout = CliProcess.timeout

const ansi = "\u001b["

/** Words of a text, whatever the line breaks: a word cut in two would not be found whole. */
const words = (text: string) => text.split(/\s+/).filter((w) => w !== "")

const assertContainsWords = (page: string, sentence: string) =>
  assert.include(words(page).join(" "), words(sentence).join(" "), `the page lacks: ${sentence}`)

describe("Help.wrap", () => {
  it("breaks at spaces only, within the width; a longer word keeps a line of its own", () => {
    assert.deepStrictEqual(Help.wrap("the quick brown fox jumps", 10), ["the quick", "brown fox", "jumps"])
    assert.deepStrictEqual(Help.wrap("a https://example.com/a/long/path b", 10), [
      "a",
      "https://example.com/a/long/path",
      "b"
    ])
    assert.deepStrictEqual(Help.wrap("one\ntwo three", 80), ["one", "two three"])
  })
})

describe("tool-runtime --help", () => {
  it("piped: plain text, lines within 80 columns, words whole, defaults shown", () => {
    const root = CliProcess.piped(["--help"], { env: { NO_COLOR: undefined } })
    assert.strictEqual(root.status, 0, root.stderr)
    const page = root.stdout
    assert.notInclude(page, ansi)
    for (const line of page.split("\n")) assert.isAtMost(line.length, 80, line)
    for (const name of ["demo", "run", "code", "permissions", "agent"]) {
      assert.match(page, new RegExp(`^  ${name}\\b`, "m"))
    }
    // A description starts under its command, not past the longest usage line.
    assert.match(page, /^ {2}demo\n {6}Runs the customer-support example:/m)
    assertContainsWords(
      page,
      "Runs a support-desk turn through the permission engine: --mode, --allow, --ask and --deny decide, " +
        "and a prompt in the terminal asks about the rest."
    )

    const agent = CliProcess.piped(["agent", "--help"], { env: { NO_COLOR: undefined } })
    assert.strictEqual(agent.status, 0, agent.stderr)
    assert.notInclude(agent.stdout, ansi)
    assert.match(agent.stdout, /^\$ tool-runtime agent \[--scripted\]/m)
    assert.match(agent.stdout, /^--max-turns integer\n( {2}.*\n)* {2}Default: 8$/m)
    assert.match(agent.stdout, /^--model text\n( {2}.*\n)* {2}Default: claude-sonnet-4-5$/m)
  }, timeout)

  it.live.skipIf(!CliProcess.hasTmux)(
    "in a terminal: wrapped to its width; bold unless NO_COLOR is set",
    () =>
      Effect.gen(function*() {
        const help = CliProcess.shellCommand(["permissions", "--help"])
        const size = { width: 60, height: 300 }
        // The test's own environment may set NO_COLOR: each shell says what it wants.
        const colored = yield* CliProcess.terminal("help-color", `env -u NO_COLOR ${help}; echo DONE; sleep 600`, size)
        const plain = yield* CliProcess.terminal("help-plain", `NO_COLOR=1 ${help}; echo DONE; sleep 600`, size)
        assert.include(yield* colored.waitFor("DONE", { escapes: true }), "\u001b[1mOPTIONS")
        const screen = yield* plain.waitFor("DONE", { escapes: true })
        const page = screen.slice(0, screen.indexOf("DONE"))
        assert.notInclude(page, ansi)
        assert.include(page, "USAGE")
        for (const line of page.split("\n")) assert.isAtMost(line.length, 60, line)
        assertContainsWords(page, "A rule whose calls run without asking, e.g. reply_to_customer or Bash(npm test:*).")
      }).pipe(Effect.scoped),
    timeout
  )
})

/**
 * A word's fields, asked of bash itself. `WordFields` evaluates a word as
 * far as the line tells (quotes, ANSI-C strings, variables the line set,
 * defaults and alternatives, splitting, braces): the words a rule is matched
 * against. Where its fields differ from bash's, a rule judges a command that
 * does not run. So each generated command is run by a real bash with a marker
 * function that logs its arguments, and bash's words must be among the
 * line's readings.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as CommandLine from "../src/CommandLine.js"
import * as BashEval from "./BashEval.js"

/** Runs of the law over several commands (bash runs 10 to 25 lines for each); `PROPERTY_RUNS=<n>` runs more. */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 12)

/** A separator no generated word holds, between the arguments bash logs. */
const unit = "\u001f"

/** The argument lists `mark` was called with when bash ran each line. */
const callsOf = (lines: ReadonlyArray<string>): ReadonlyArray<ReadonlyArray<ReadonlyArray<string>>> =>
  BashEval.loggedRuns(
    "mark() { local call=mark a; for a; do call+=$'\\x1f'$a; done; printf '%s\\n' \"$call\" >> \"$STUB_LOG\"; }",
    lines
  ).map((runs) => runs.map((run) => run.split(unit)))

/** Words whose fields the line itself decides (no glob, no unset variable bash would take from outside). */
const words: ReadonlyArray<string> = [
  "ab",
  "'a b'",
  "\"a b\"",
  "a\\ b",
  "$'a\\tb'",
  "$'a\\x41\\'b'",
  "{a,b}",
  "a{b,c}d",
  "{1..3}",
  "\"{a,b}\"",
  "'{a,b}'",
  "$x",
  "\"$x\"",
  "${x}",
  "a$x",
  "$y$x",
  "${x:-d e}",
  "${u:-d e}",
  "\"${u:-d e}\"",
  "${u:-'d e'}",
  "${u:-\"d\" e}",
  "${u-z}",
  "${e:-z}",
  "${x:+z w}",
  "${x:+\"z w\"}",
  "--opt=$y",
  "a=$x",
  "\"a\"'b'c",
  "\\$x",
  "'$x'",
  "\"\\$x\"",
  "\"a\\\\b\"",
  "\"$x\"'$x'$x",
  "\"${x}\"",
  "${y}{1,2}",
  "-rf",
  "/",
  "\"$z\"",
  "${a[@]}",
  "\"${b[@]}\"",
  "\"x${b[@]}y\"",
  "\"$x${b[@]}\"",
  "\"${b[@]}${b[@]}\"",
  "\"${b[*]}\"",
  "${b[*]}",
  "${u:-$x}",
  "${u:-${x}}",
  "{a,\"b c\"}",
  "\"q\"{a,b}",
  // A value that ends in `$` is split like any other; a blank a backslash escapes in a default is kept.
  "$d",
  // One element and three: the text around joins the first and the last.
  "\"x${c[@]}y\"",
  "\"x${t[@]}y\"",
  "${u:-a\\ b}",
  // A character the brace expansion uses as a stand-in for a quoted part, written in the word itself.
  "\ue001{a,b}\"q\"",
  "\"\"",
  "''"
]

/**
 * Arguments whose fields the engine reads otherwise than bash, on purpose or not yet, each with
 * bash's fields: an empty field an unquoted expansion leaves is kept (`${e-z}` with `e` empty,
 * the blanks around `$z`), so a reading has a `""` word more; `${u:+z}` with `u` not set by the
 * line is read as set (the environment may set it); an array's elements are joined and split
 * again, so `"${a[@]}"` splits `'l m'`; `${a[0]}` is not looked up (a command named by it is
 * open); `$"t"` as an argument is read as `$` and `t`; `${u:=v w}` sets `u` for the commands
 * after it, not for the later words of its own. None of these hides a command: a reading
 * without the first word is kept too, and an unknown name asks.
 */
const approximated: ReadonlyArray<string> = [
  "${e-z}",
  "${u:+z}",
  "$z",
  "\"${a[@]}\"",
  "${a[0]}",
  "$\"t\"",
  "${u:=v w} $u",
  // The grammar ends a brace expression at an escaped blank: `{a,b}\ c` is read as three words, bash's
  // `a c` and `b c` are not among the readings (a word with a blank in it names no command).
  "\"q\"{a,b}\\ c"
]

/** The assignments every line starts with: values with a blank, a plain one, an empty one, arrays of one to three elements. */
const prelude = "x='p q'; y=r; e=; z='  s   t  '; a=(k 'l m'); b=(k l); c=(z); t=(p q r); d='c d$'; "

const command = FastCheck.array(FastCheck.constantFrom(...words), { minLength: 1, maxLength: 4 })
  .map((chosen) => `mark ${chosen.join(" ")}`)

const missed = (
  analyse: (source: string) => CommandLine.Analysis,
  line: string,
  calls: ReadonlyArray<ReadonlyArray<string>>
) => {
  const read = new Set(analyse(line).readings.map((r) => JSON.stringify(r)))
  return calls.filter((call) => !read.has(JSON.stringify(call))).map((call) => JSON.stringify(call))
}

describe("a word's fields, as bash makes them", () => {
  it.effect(
    "each word alone: bash's words are one of the readings",
    () =>
      Effect.map(CommandLine.make, ({ analyse }) => {
        const lines = words.map((word) => `${prelude}mark ${word}`)
        const calls = callsOf(lines)
        const wrong = lines.flatMap((line, i) => {
          assert.strictEqual(calls[i]!.length, 1, `bash called mark once: ${JSON.stringify(line)}`)
          return missed(analyse, line, calls[i]!).map((call) => `${JSON.stringify(line)}: ${call}`)
        })
        assert.deepStrictEqual(wrong, [])
      }),
    60_000
  )

  it.effect("the words read otherwise are still read otherwise: one that agrees now belongs with the others", () =>
    Effect.map(CommandLine.make, ({ analyse }) => {
      const lines = approximated.map((word) => `${prelude}mark ${word}`)
      const calls = callsOf(lines)
      lines.forEach((line, i) => assert.isNotEmpty(missed(analyse, line, calls[i]!), JSON.stringify(line)))
    }))

  it.effect.prop(
    "commands of several words: bash's words are one of the readings",
    [FastCheck.array(command, { minLength: 10, maxLength: 25 })],
    ([commands]) =>
      Effect.map(CommandLine.make, ({ analyse }) => {
        const lines = commands.map((c) => `${prelude}${c}`)
        const calls = callsOf(lines)
        lines.forEach((line, i) => assert.deepStrictEqual(missed(analyse, line, calls[i]!), [], JSON.stringify(line)))
      }),
    // CI samples 12 (a fresh seed each run); `pnpm bench:laws` runs 200.
    { fastCheck: { numRuns: RUNS }, timeout: Math.max(120_000, RUNS * 5_000) }
  )
})

/**
 * Where a `$(…)` ends, asked of bash itself. In the operand of an evaluating
 * builtin (`let 'x[$(…)]'`, `declare 'a[$(…)]=1'`) and in an unquoted
 * here-document the grammar leaves the substitution as text, and
 * `EmbeddedScripts` finds its end with a scanner of its own: quotes,
 * comments, `case` patterns, here-documents, nested groups and arithmetic
 * all hold a `)` that ends nothing. An end found too early hides the
 * commands after it. So each generated body is run by a real bash with
 * stub programs that log every run, and every logged run must be among the
 * line's readings.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as CommandLine from "../src/CommandLine.js"
import * as EmbeddedScripts from "../src/EmbeddedScripts.js"
import * as BashEval from "./BashEval.js"

const markers = Array.from({ length: 10 }, (_, i) => `m${i}`)

/**
 * Runs of the law over several pieces: bash runs 40 to 100 lines for each, about a second on an idle
 * 2-core machine and ten times that on a loaded one. CI samples 6 (a fresh seed each run);
 * `pnpm bench:laws` runs 200.
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 6)

/** The marker runs of each line when bash runs it, each as its words joined by a space. */
const runsOf = (lines: ReadonlyArray<string>) =>
  BashEval.loggedRuns(
    // Extended patterns on, as in an interactive bash: some pieces hold them.
    [
      "shopt -s extglob",
      ...markers.map((name) =>
        `${name}() { local IFS=' '; printf '%s\\n' "\${FUNCNAME[0]}\${*:+ $*}" >> "$STUB_LOG"; }`
      )
    ].join("\n"),
    lines
  )

/**
 * Statements that hold a `)` (or a word) that a careless scan takes for the
 * end; `M` is a marker run that must be seen.
 */
const pieces: ReadonlyArray<string> = [
  "M",
  "case x in x) M;; esac",
  "case x in (x|y) M;; esac",
  "case x in\nx) M;;\nesac",
  "case x in x) echo ';;' ;& y) M;; esac",
  "case x in y) :;; x) M;;& *) M;; esac",
  "case x in x) echo esac;; esac",
  "case x in x) echo in case esac;; esac; M",
  "case x in y|esac) :;; x) M;; esac",
  "case x in x) M; esac",
  "function g { case x in x) M;; esac; }; g",
  "echo ')' ; M",
  "echo \")\" ; M",
  "echo \\) ; M",
  "echo $(M)",
  "echo $(echo ')'; M)",
  "echo `M`",
  "echo \"$(echo ')')\" ; M",
  "echo \"${x:-\"a)\"}\"; M",
  "echo ${x:-)} ; M",
  ": $((1+(2))) ; M",
  "((1)) ; M",
  "( (M) )",
  ": ; ((M); (M) )",
  "(M)",
  "{ M; }",
  "# a comment )\nM",
  "echo a#b ; M",
  "cat <<E >/dev/null\n)\nE\nM",
  "cat <<E >/dev/null\nx\n)\nE\nM",
  "cat <<E >/dev/null; M\nx\n)\nE\nM",
  // The grammar ends the here-document at `Ex )` and fails on the rest, which is then read word by word.
  "cat <<E >/dev/null\nEx )\nE\nM >/dev/null 2>&1; echo `}`",
  // …and pairs the backquotes after it wrongly: `m1` is in no ERROR node.
  "cat <<E >/dev/null\nEx )\nE\n: >/dev/null 2>&1; echo `}`\necho `M`",
  "cat <<-E >/dev/null\n\t)\n\tE\nM",
  "cat <<'E' >/dev/null\n$(\nE\nM",
  "cat <<\\E >/dev/null\n)\nE\nM",
  "cat <<<')' ; M",
  "f() { M; }; f",
  "function g { M; }; g",
  "cat <(M) >/dev/null",
  "cat < <(M)",
  "echo $'a\\')' ; M",
  "x=(a b) ; M",
  "echo case ; M",
  "echo esac ; M",
  "M >/dev/null 2>&1",
  "M &>/dev/null",
  "M & wait",
  "true && M",
  "if true; then M; fi",
  "while false; do :; done; M",
  "echo a \\\nb; M",
  // Escapes and quotes inside quotes and backquotes, a lone `$`, redirection operators.
  "echo \"a\\\")\" ; M",
  "echo \"`echo ')'`\" ; M",
  "echo `echo \\)` ; M",
  "echo $\"a)\" ; M",
  "echo $ ; M",
  "echo a >>/dev/null ; M",
  "echo a 2>&1 >/dev/null ; M",
  // A here-document whose delimiter the `)` closing the substitution follows at once.
  "echo $(cat <<E\nx\nE)$(M)",
  // Lines that start like the delimiter, or hold it after a tab, do not end a here-document.
  "cat <<E >/dev/null\nEx )\nE\nM",
  "cat <<-E >/dev/null\nE\t)\nE\nM",
  // A backslash-newline before a reserved word is removed: the word is still `case`.
  "true; \\\ncase x in x) M;; esac",
  // …and inside one: bash removes it before it splits words.
  "ca\\\nse x in x) M;; esac",
  // Bash takes a reserved word after a pattern's `)`, a newline, and the end of a compound command.
  "case x in x) case y in y) M;; esac;; esac",
  "case x in x) M\nesac",
  "case x in x) case y in y) M;; esac esac",
  "case x in x) case y in esac esac; M",
  "case x in x) if true; then M; fi esac",
  "case x in x) while false; do :; done esac; M",
  "case x in x) (M) esac",
  "case x in x) ((1)) esac; M",
  "case x in x) { M; } esac",
  "f() { case x in x) M;; esac; }; f",
  // …but not after a redirection: this `esac` is a command's name.
  "case x in x) >/dev/null esac;; esac; M",
  // A pattern that is `esac` after the optional `(`; extended patterns with parentheses of their own.
  "case x in (esac) :;; x) M;; esac",
  "case x in @(x|y)) M;; esac",
  "echo @(x|@(y)) ; M",
  // Reserved words and parentheses inside words: an array's elements, a double-quoted `(`.
  "x=(case in) ; M",
  "echo \"x(\" ; M",
  // Substitutions that hold a `case`, bare and in double quotes; a backquoted part holding quotes.
  "echo $(case x in x) M;; esac)",
  "echo \"$(case x in x) M;; esac)\"",
  "echo \"`echo \"a)\"`\" ; M",
  // Bash counts no `{` inside `${…}`: its first `}` ends it.
  "echo ${x:-{a} ; M",
  // Arithmetic holding parentheses and `<<`, which is no here-document; a subshell right after `$(`.
  "((y = 1 << 2)) ; M",
  "(( (1) << 2 )) ; M",
  ": $(( (1) << 2 )) ; M",
  "echo $((M); (M))",
  // Here-documents: a word glued to `<<`, two tabs stripped, a delimiter holding `)` or `#`, a here-string.
  "cat<<E >/dev/null\n)\nE\nM",
  "cat <<-E >/dev/null\n\t\t)\n\t\tE\nM",
  "cat <<'E)' >/dev/null\nx\nE)\nM",
  "echo $(cat <<'#'\nx\n#)$(M)",
  "cat <<<x >/dev/null\nM",
  // An escaped `;` before a `;`, which is no `;;`.
  "echo \\;; M",
  // A backslash-newline before a blank, which then separates words; tabs separate them too.
  "true; \\\n case x in x) M;; esac",
  "case\tx\tin x) M;; esac",
  // Arithmetic over two lines, whose `<<` would otherwise start a here-document.
  "((y = 1 << 2\n)) ; M",
  "(( (1) << 2\n)) ; M",
  ": $(( (1) << 2\n)) ; M",
  // A `case` after a pipe and in a process substitution for output.
  "echo a | case x in x) M;; esac",
  "echo >(case x in x) M;; esac)",
  // A here-document's delimiter is no command's name: the `esac` after it is one.
  "case x in x) <<E esac;; esac\nx\nE\nM",
  // Escaped backquotes inside backquotes; a `$` that ends a double-quoted string.
  "echo `echo \\`echo x\\`` ; M",
  "echo \"a$\" ; M",
  // A `}` escaped or quoted inside `${…}` ends nothing.
  "echo ${x:-\\})} ; M",
  "echo ${x:-'}'} ; M",
  "echo ${x:-\"}\"} ; M",
  "echo ${x:-`echo }`} ; M",
  // …whose backquotes the grammar pairs wrongly there: the line after it must still be read.
  "echo ${x:-`echo }`} ; echo `M`"
]

/** A body of one to four pieces, joined as bash joins statements, each marker made distinct. */
const body = FastCheck.tuple(
  FastCheck.array(FastCheck.constantFrom(...pieces), { minLength: 1, maxLength: 4 }),
  FastCheck.array(FastCheck.constantFrom("; ", "\n", " && "), { minLength: 4, maxLength: 4 })
).map(([chosen, separators]) => {
  let n = 0
  const marked = chosen.map((piece) => piece.replace(/\bM\b/g, () => `${markers[n % markers.length]} a${n++}`))
  return marked.map((piece, i) => (i === 0 ? piece : `${separators[i]}${piece}`)).join("")
})

/** `text` as one single-quoted word: each quote of its own closes, is escaped, and reopens. */
const quoted = (text: string) => `'${text.replace(/'/g, "'\\''")}'`

/**
 * Where bash runs a `$(…)` that the grammar leaves as text: the subscript of an operand that
 * `let` or `declare` evaluates, and an unquoted here-document.
 */
const contexts: ReadonlyArray<(body: string) => string> = [
  // The body as a line of its own: the grammar's reading, for comparison.
  (b) => b,
  (b) => `let ${quoted(`x[$(${b})]`)}`,
  (b) => `declare ${quoted(`a[$(${b})]=1`)}`,
  (b) => `cat <<EOF_Z9 >/dev/null\n$(${b})\nEOF_Z9`
]

const missed = (analyse: (source: string) => CommandLine.Analysis, line: string, runs: ReadonlyArray<string>) => {
  const read = new Set(analyse(line).readings.map((words) => words.join(" ")))
  return runs.filter((run) => !read.has(run))
}

/** Pieces where a `case` word stands where the scan expects none: it says it is unsure, on purpose. */
const unsurePieces = new Set(["echo case ; M", "case x in x) echo in case esac;; esac; M"])

describe("the end of a `$(…)` the grammar leaves as text", () => {
  // Every body here is complete bash, so bash ends its `$(…)` at the `)` written after it: the
  // scan must give exactly that end, and be unsure only where a piece makes it so. No bash is
  // needed to know the answer, so every pair of pieces is tried.
  it("the scan ends every body of one or two pieces exactly at its `)`, and is unsure only where it should", () => {
    const wrong: Array<string> = []
    const suffixes = [")]'", ") ; echo ')' esac", ")\nEOF_Z9\ncase x in x) m9;; esac"]
    const check = (b: string, unsure: boolean, suffix: string) => {
      const text = `$(${b}${suffix}`
      const found = EmbeddedScripts.substitutionEnd(text, 0)
      if (found.unsure !== unsure || (!found.unsure && found.end !== b.length + 3)) {
        wrong.push(`${JSON.stringify(text)}: end ${found.end} (expected ${b.length + 3}), unsure ${found.unsure}`)
      }
    }
    for (const first of pieces) {
      for (const suffix of suffixes) {
        check(`${first.replace(/\bM\b/g, "m1 a1")}; m2 a2`, unsurePieces.has(first), suffix)
      }
      for (const second of pieces) {
        for (const separator of ["; ", "\n"]) {
          const b = `${first.replace(/\bM\b/g, "m1 a1")}${separator}${second.replace(/\bM\b/g, "m2 a2")}`
          check(b, unsurePieces.has(first) || unsurePieces.has(second), suffixes[0]!)
        }
      }
    }
    assert.deepStrictEqual(wrong.slice(0, 20), [], `${wrong.length} bodies ended wrongly`)
  })

  it("a body bash rejects leaves the scan unsure, and one the text ends inside has no end", () => {
    // Syntax errors: where bash would stop is not certain, so the rest of the text is read too
    // (unsure, or no end found at all).
    const invalid = [
      "case x y) m1 a1;; esac",
      "case x y in x) m1 a1;; esac",
      "echo a;; m1 a1",
      "case x in x) m1 a1",
      "case x in x) m1 a1;;"
    ]
    for (const b of invalid) {
      const found = EmbeddedScripts.substitutionEnd(`$(${b})]'`, 0)
      assert.isTrue(found.unsure || found.end === undefined, JSON.stringify(b))
    }
    // Cut short inside a here-document, a comment, quotes or a nested part: no end at all.
    const cut = [
      "cat <<E\nx",
      "cat <<E\n",
      ": # x",
      "echo 'a",
      "echo \"a",
      "echo `a",
      "echo $'a",
      "echo ${a",
      "(a",
      "$(a"
    ]
    for (const b of cut) {
      assert.isUndefined(EmbeddedScripts.substitutionEnd(`$(${b}`, 0).end, JSON.stringify(b))
    }
  })

  it("100,000 nested groups, substitutions or expansions: the scan gives up without overflowing, and reads the rest", () => {
    const depth = 100_000
    const nested = [
      `$(${"( ".repeat(depth)}m1${")".repeat(depth)})`,
      `$(${"$(".repeat(depth)}m1${")".repeat(depth)})`,
      `$(${"${x:-".repeat(depth)}${"}".repeat(depth)})`,
      `$(${"\"$(".repeat(depth)}${")\"".repeat(depth)})`
    ]
    for (const text of nested) {
      assert.deepStrictEqual(EmbeddedScripts.substitutionEnd(text, 0), { end: undefined, unsure: false })
    }
  })

  it.effect(
    "each piece, in each context, has every command bash runs read",
    () =>
      Effect.map(CommandLine.make, ({ analyse }) => {
        const lines = pieces.flatMap((piece) => {
          const b = `${piece.replace(/\bM\b/g, "m1 a1")}; m2 a2`
          return contexts.map((context) => context(b))
        })
        const runs = runsOf(lines)
        lines.forEach((line, i) => assert.deepStrictEqual(missed(analyse, line, runs[i]!), [], JSON.stringify(line)))
        // The marker after each piece is run by bash in some context: each piece is a real case.
        pieces.forEach((piece, p) => {
          const ran = runs.slice(p * contexts.length, (p + 1) * contexts.length).some((r) => r.includes("m2 a2"))
          assert.isTrue(ran, JSON.stringify(piece))
        })
      }),
    60_000
  )

  it.effect("where the scan is sure of the end, nothing past it is read as a command", () =>
    Effect.map(CommandLine.make, ({ analyse }) => {
      // The text after the end is `)]'`: a reading holding `]` other than the builtin's own line
      // came from past the end. A `case` word where the scan expects none makes it unsure
      // on purpose (bash may read a `case` there), and it reads the rest too.
      const unsure = new Set(["echo case ; M", "case x in x) echo in case esac;; esac; M"])
      // A command named by the closer, or a marker given it as an argument. (Other readings may quote
      // the closer in an argument: the operand's quotes are read more than one way.)
      const runsPast = (words: ReadonlyArray<string>) =>
        words[0]!.includes("]") || (/^m\d$/.test(words[0]!) && words.some((w) => w.includes("]")))
      // Where the grammar fails on the line (a here-document it ends early, a backquote in `${…}`), or
      // on the operand (a `<<` in arithmetic), the whole of it is also read word by word, what follows
      // the end included: over-reading that is not the scan's. Those lines are left out, and most are not.
      const wordByWord = (piece: string) => /\(\([^]*<</.test(piece)
      const parses = (line: string) => {
        const analysis = analyse(line)
        return analysis.doubts.includes("it does not parse as bash") ? undefined : analysis
      }
      const sure = pieces.filter((piece) => !unsure.has(piece) && !wordByWord(piece))
      const checked = { let: 0, heredoc: 0 }
      const past = sure.flatMap((piece) => {
        const b = `${piece.replace(/\bM\b/g, "m1 a1")}; m2 a2`
        // In `let`'s operand: `declare`'s is also read in other ways, some of which run past on purpose.
        const line = contexts[1]!(b)
        const analysis = parses(line)
        if (analysis !== undefined) checked.let++
        return (analysis?.readings ?? []).filter(runsPast).map((words) =>
          `${JSON.stringify(line)}: ${JSON.stringify(words)}`
        )
      })
      assert.deepStrictEqual(past, [])
      // The same in an unquoted here-document, where what follows the end is the delimiter's line.
      const pastInHeredoc = sure.flatMap((piece) => {
        const line = contexts[3]!(`${piece.replace(/\bM\b/g, "m1 a1")}; m2 a2`)
        const analysis = parses(line)
        if (analysis !== undefined) checked.heredoc++
        return (analysis?.readings ?? []).filter((words) => words.some((w) => w.includes("EOF_Z9"))).map((words) =>
          `${JSON.stringify(line)}: ${JSON.stringify(words)}`
        )
      })
      assert.deepStrictEqual(pastInHeredoc, [])
      assert.isAbove(checked.let, sure.length * 0.9)
      assert.isAbove(checked.heredoc, sure.length * 0.8)
      // The unsure ones do read past it: the check sees over-reading where there is some.
      for (const piece of unsure) {
        const line = contexts[1]!(`${piece.replace(/\bM\b/g, "m1 a1")}; m2 a2`)
        assert.isTrue(analyse(line).readings.some(runsPast), piece)
      }
    }))

  it.effect.prop(
    "bodies of several pieces: nothing bash runs goes unread",
    [FastCheck.array(body, { minLength: 10, maxLength: 25 })],
    ([bodies]) =>
      Effect.map(CommandLine.make, ({ analyse }) => {
        const lines = bodies.flatMap((b) => contexts.map((context) => context(b)))
        const runs = runsOf(lines)
        lines.forEach((line, i) => assert.deepStrictEqual(missed(analyse, line, runs[i]!), [], JSON.stringify(line)))
      }),
    // A failure shrinks by running bash again: the bound leaves room for it.
    { fastCheck: { numRuns: RUNS }, timeout: Math.max(120_000, RUNS * 10_000) }
  )
})

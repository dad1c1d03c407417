/**
 * EmbeddedScripts: code inside a command's words that bash runs too: the
 * `$(…)` and backquoted parts a builtin evaluates, the code a builtin keeps
 * to run later (`trap`, `alias`, `complete -C`), and any script the line
 * hands on, analysed as a line of its own. Apart because it is where the
 * walk recurses, through the {@link BashSyntax.Analyse} callback.
 *
 * @since 0.4.0
 */
import type * as BashSyntax from "./BashSyntax.js"
import * as ReadingSet from "./ReadingSet.js"

/**
 * Code a builtin keeps to run later, which a deny rule must see now: a trap's
 * action, an alias's value, `mapfile -C`'s and `complete -C`'s callback, and
 * the program `hash -p` binds to a name.
 */
export const laterScripts = (words: ReadonlyArray<string>): ReadonlyArray<string> => {
  const args = words.slice(1)
  switch (words[0]) {
    case "trap": {
      const action = args.find((w) => !/^-[lp]$/.test(w) && w !== "--")
      return action === undefined ? [] : [action]
    }
    case "alias":
      return args.filter((w) => w.includes("=")).map((w) => w.slice(w.indexOf("=") + 1))
    case "mapfile":
    case "readarray":
    case "complete":
    case "compgen": {
      const i = args.findIndex((w) => /^-[A-Za-z]*C/.test(w))
      if (i < 0) return []
      const flag = args[i]!
      return flag.endsWith("C")
        ? (args[i + 1] === undefined ? [] : [args[i + 1]!])
        : [flag.slice(flag.indexOf("C") + 1)]
    }
    case "hash": {
      const i = args.indexOf("-p")
      return i >= 0 && args[i + 1] !== undefined ? [args[i + 1]!] : []
    }
    default:
      return []
  }
}

export const evaluating = new Set([
  "printf",
  "test",
  "[",
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "read",
  "let",
  "unset",
  "mapfile",
  "readarray",
  "wait",
  "getopts"
])

/**
 * Commands in the `$(…)` and backquoted parts of a text, read as scripts
 * whatever quotes surround them: in the operand of an evaluating builtin or
 * an unquoted here-document, bash runs them.
 */
export const substitutionReadings = (
  analyse: BashSyntax.Analyse,
  text: string,
  readings: ReadingSet.Readings,
  depth: number
) => {
  if (!text.includes("$(") && !text.includes("`")) return
  for (const inner of substitutions(text)) scriptReadings(analyse, inner, readings, depth)
}

/**
 * What bash reads again of a backquoted body once its escapes are removed
 * (`\$`, `\``, `\\`; and `\"` when the backquotes are inside double quotes):
 * empty when that changes nothing, since the grammar read the body as it is.
 */
export const backquoteScripts = (body: string): ReadonlyArray<string> => {
  if (!body.includes("\\")) return []
  const plain = body.replace(/\\([$`\\])/g, "$1")
  const quoted = body.replace(/\\([$`\\"])/g, "$1")
  return [...new Set([plain, quoted])].filter((script) => script !== body)
}

/**
 * Each backquoted part of a text, read as bash reads one: a backslash before
 * `$`, `` ` `` or `\\` escapes it, so an escaped backquote is inside the part.
 */
const backquoted = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = text.indexOf("`"); i >= 0 && out.length < 64; i = text.indexOf("`", i + 1)) {
    const part = backquotedAt(text, i)
    out.push(part.body)
    i = part.close
  }
  return out
}

/** The part whose opening backquote is at `at`: its body as bash reads it, and where its closing backquote is (the text's length when none). */
const backquotedAt = (text: string, at: number): { readonly body: string; readonly close: number } => {
  let body = ""
  let j = at + 1
  for (; j < text.length && text[j] !== "`"; j++) {
    if (text[j] === "\\" && j + 1 < text.length) {
      const next = text[++j]!
      body += /[$`\\]/.test(next) ? next : `\\${next}`
    } else body += text[j]
  }
  return { body, close: j }
}

/**
 * The text with each backquoted part, paired as bash pairs them (an escaped
 * backquote inside a part), written as `$(…)`. The grammar loses its way on
 * a backquoted part inside `${…}` (in `${x:-`echo }`}` it ends the expansion
 * at the `}` inside the backquotes) and misreads the rest of the line;
 * the same line in this form it reads as bash does. Backquotes inside
 * single quotes are rewritten too: a reading more, never one less.
 */
export const backquotesAsSubstitutions = (text: string): string => {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "\\") {
      out += text.slice(i, i + 2)
      i++
    } else if (c !== "`") out += c
    else {
      const { body, close } = backquotedAt(text, i)
      // An unclosed part is left as it is: bash reads it as an error.
      out += close < text.length ? `$(${body})` : text.slice(i)
      i = close
    }
  }
  return out
}

/**
 * Where the `$(…)` opening at `at` ends (the index just past its `)`, or
 * undefined when the text ends first), and whether the scan is unsure of it.
 *
 * @internal exported for the exact-end law of `SubstitutionEnds.test`
 */
export const substitutionEnd = (
  text: string,
  at: number
): { readonly end: number | undefined; readonly unsure: boolean } => {
  const scan: Scan = { unsure: false }
  const end = listEnd(text, at + 2, 0, scan)
  return { end, unsure: scan.unsure }
}

const substitutions = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  // Pairs of backquotes as they come, and the parts bash reads (escaped backquotes inside):
  // a wrong split only adds a reading.
  for (const match of text.matchAll(/`([^`]*)`/g)) out.push(match[1]!)
  out.push(...backquoted(text))
  for (let i = text.indexOf("$("); i >= 0 && out.length < 64; i = text.indexOf("$(", i + 2)) {
    const scan: Scan = { unsure: false }
    const end = listEnd(text, i + 2, 0, scan)
    // Unclosed, the body is the rest of the text; where the end found may not be bash's, the rest is read too.
    if (end !== undefined) out.push(text.slice(i + 2, end - 1))
    if (end === undefined || scan.unsure) out.push(text.slice(i + 2))
  }
  return out
}

/**
 * How the end of a `$(…)` was found: `unsure` when the scan met something it
 * may have read otherwise than bash (a `case` it did not take for one, a
 * syntax error), so the end it gives may come too early.
 */
interface Scan {
  unsure: boolean
}

/** Nesting past which the scan stops: the text is read to its end instead. */
const maxNesting = 200

/**
 * Words after which bash still takes a reserved word (its
 * `reserved_word_acceptable`): the openers, and the closers of compound
 * commands (`case x in x) { :; } esac` closes the `case`).
 */
const reservedBefore = new Set([
  "if",
  "then",
  "else",
  "elif",
  "do",
  "while",
  "until",
  "!",
  "{",
  "}",
  "fi",
  "done",
  "time",
  "coproc"
])

/**
 * Where the command list that starts at `start` (just after `$(` or a
 * subshell's `(`) ends, as bash's parser finds it: the index just past its
 * closing `)`, or undefined when the text ends first. A `)` is not the end
 * inside quotes, a nested `$(…)`, `${…}`, a backquoted part, a comment, a
 * here-document, a nested group, or where it ends a `case` pattern.
 */
const listEnd = (text: string, start: number, nesting: number, scan: Scan): number | undefined => {
  if (nesting > maxNesting) return undefined
  // Each `case` not yet closed, innermost last: where in it the scan is, and whether a pattern has begun.
  const cases: Array<{ phase: "subject" | "in" | "pattern" | "body"; started: boolean }> = []
  const heredocs: Array<{ readonly delimiter: string; readonly tabs: boolean }> = []
  let heredoc: { readonly tabs: boolean } | undefined
  // Whether a reserved word (`case`, `esac`) would be one here: where unsure, not, so that a
  // `case` is read past (the rest of the text) and an `esac` does not end one early.
  let commandStart = true
  let functionName = false
  let wordStart = -1
  const endWord = (end: number) => {
    if (wordStart < 0) return
    // Bash removes a backslash-newline before it splits words: `ca\<newline>se` is `case`. A
    // quoted or escaped word keeps its quote or backslash here, so it is never taken for a reserved one.
    const word = text.slice(wordStart, end).replace(/\\\n/g, "")
    wordStart = -1
    if (heredoc !== undefined) {
      heredocs.push({ delimiter: word.replace(/\\(.)|["']/gs, "$1"), tabs: heredoc.tabs })
      heredoc = undefined
      return
    }
    const top = cases.at(-1)
    if (top?.phase === "subject") {
      top.phase = "in"
      return
    }
    if (top?.phase === "in") {
      if (word === "in") top.phase = "pattern"
      else scan.unsure = true
      return
    }
    if (top?.phase === "pattern") {
      if (!top.started && word === "esac") {
        cases.pop()
        commandStart = true
      } else top.started = true
      return
    }
    if (functionName) {
      functionName = false
      commandStart = true
      return
    }
    if (!commandStart) {
      // A `case` where the scan expects none: bash may see one, whose patterns' `)` end nothing.
      if (word === "case") scan.unsure = true
      return
    }
    // (Until a case's patterns begin, and after `function`, the next word is not a command's.)
    if (word === "case") cases.push({ phase: "subject", started: false })
    else if (word === "esac") cases.pop()
    else if (word === "function") functionName = true
    else if (reservedBefore.has(word)) commandStart = true
    // After any other word, an assignment (`X=1 esac`) included, bash takes no reserved word.
    else commandStart = false
  }
  const startWord = (i: number) => {
    if (wordStart < 0) wordStart = i
  }
  let i = start
  while (i < text.length) {
    const c = text[i]!
    if (c === " " || c === "\t") {
      endWord(i)
      i++
    } else if (c === "\n") {
      endWord(i)
      commandStart = true
      i++
      // Here-documents begin on the next line: each body ends at its delimiter's line.
      for (const { delimiter, tabs } of heredocs.splice(0)) {
        for (;;) {
          if (i >= text.length) return undefined
          const eol = text.indexOf("\n", i)
          const lineEnd = eol < 0 ? text.length : eol
          const line = text.slice(i, lineEnd)
          const body = tabs ? line.replace(/^\t+/, "") : line
          if (body === delimiter) {
            i = Math.min(lineEnd + 1, text.length)
            break
          }
          // Bash also ends a here-document at its delimiter followed by the `)` closing the substitution.
          if (body.startsWith(delimiter) && body[delimiter.length] === ")") {
            i = lineEnd - body.length + delimiter.length
            break
          }
          i = lineEnd + 1
        }
      }
    } else if (c === "#" && wordStart < 0) {
      const eol = text.indexOf("\n", i)
      i = eol < 0 ? text.length : eol
    } else if (c === "\\") {
      // A backslash-newline joins the lines; any other escapes the next character.
      if (text[i + 1] !== "\n") startWord(i)
      i += 2
    } else if (c === "'" || c === "\"" || c === "`" || c === "$") {
      startWord(i)
      const next = quotedEnd(text, i, nesting, scan)
      if (next === undefined) return undefined
      i = next
    } else if (c === "(") {
      const top = cases.at(-1)
      if (top?.phase === "pattern" && wordStart < 0 && !top.started) {
        // The optional `(` before a pattern.
        top.started = true
        i++
        continue
      }
      if (top?.phase !== "pattern" && /^\(\s*\)/.test(text.slice(i, i + 64))) {
        // `name ()`: a function's body, a command, follows.
        endWord(i)
        i = text.indexOf(")", i) + 1
        commandStart = true
        continue
      }
      if (wordStart >= 0 || top?.phase === "pattern") {
        // Inside a word (`@(a|b)`, `x=(a b)`) or a pattern: a matched pair, part of the word.
        startWord(i)
        const next = matchedEnd(text, i + 1, "(", ")", nesting, scan)
        if (next === undefined) return undefined
        i = next
        continue
      }
      if (text[i + 1] === "(") {
        // `((…))` is arithmetic when its parentheses close together; otherwise a group in a group.
        const inner = matchedEnd(text, i + 2, "(", ")", nesting, scan)
        if (inner !== undefined && text[inner] === ")") {
          // After a compound command bash takes a reserved word: `case x in x) ((1)) esac`.
          i = inner + 1
          commandStart = true
          continue
        }
      }
      const next = listEnd(text, i + 1, nesting + 1, scan)
      if (next === undefined) return undefined
      i = next
      commandStart = true
    } else if (c === ")") {
      endWord(i)
      const top = cases.at(-1)
      if (top?.phase === "pattern") {
        top.phase = "body"
        commandStart = true
        i++
        continue
      }
      // A `case` still open here is a syntax error: where bash would stop is not certain.
      if (cases.length > 0) scan.unsure = true
      return i + 1
    } else if (c === ";" || c === "&" || c === "|") {
      endWord(i)
      const top = cases.at(-1)
      if (c === ";" && (text[i + 1] === ";" || text[i + 1] === "&")) {
        // `;;`, `;&`, `;;&` end a case's commands: a pattern follows. (The `&` of `;;&`, read as
        // one of its own, changes nothing: in a pattern, a word's place does not matter.)
        if (top?.phase === "body") {
          top.phase = "pattern"
          top.started = false
        } else scan.unsure = true
        i += 2
        continue
      }
      // (The `&` of `&>` too: the `>` after it is a redirection.)
      commandStart = true
      i++
    } else if (c === "<" || c === ">") {
      // The `(` of a process substitution, `<(…)`, is then read as a subshell's: the same list.
      endWord(i)
      // After a redirection bash takes no reserved word: `>f esac` runs a command named esac.
      commandStart = false
      if (text.startsWith("<<", i) && text[i + 2] !== "<") {
        heredoc = { tabs: text[i + 2] === "-" }
        i += heredoc.tabs ? 3 : 2
      } else {
        // (`<<<` is `<<` then `<`, which ends the same.)
        i += /[<>&|]/.test(text.charAt(i + 1)) ? 2 : 1
      }
    } else {
      startWord(i)
      i++
    }
  }
  return undefined
}

/**
 * Where a quoted or expanded part that starts at `i` (`'…'`, `"…"`, a
 * backquoted part, `$'…'`, `$"…"`, `$(…)`, `${…}`, or a lone `$`) ends, or
 * undefined when the text ends first.
 */
const quotedEnd = (text: string, i: number, nesting: number, scan: Scan): number | undefined => {
  const c = text[i]!
  if (c === "'") {
    const close = text.indexOf("'", i + 1)
    return close < 0 ? undefined : close + 1
  }
  if (c === "`") {
    for (let j = i + 1; j < text.length; j++) {
      if (text[j] === "\\") j++
      else if (text[j] === "`") return j + 1
    }
    return undefined
  }
  if (c === "\"") {
    for (let j = i + 1; j < text.length;) {
      const d = text[j]!
      if (d === "\"") return j + 1
      if (d === "\\") j += 2
      else if ((d === "$" && /[({]/.test(text.charAt(j + 1))) || d === "`") {
        const next = quotedEnd(text, j, nesting, scan)
        if (next === undefined) return undefined
        j = next
      } else j++
    }
    return undefined
  }
  // `$`
  const next = text[i + 1]
  if (next === "'") {
    for (let j = i + 2; j < text.length; j++) {
      if (text[j] === "\\") j++
      else if (text[j] === "'") return j + 1
    }
    return undefined
  }
  if (next === "\"") return quotedEnd(text, i + 1, nesting, scan)
  // Bash counts no `{` inside `${…}`: the first `}` not quoted or expanded ends it (`${x:-{a}b}` is `{a` then `b}`).
  if (next === "{") return matchedEnd(text, i + 2, undefined, "}", nesting, scan)
  if (next === "(") {
    // `$((…))` is arithmetic when its parentheses close together; otherwise a substitution.
    if (text[i + 2] === "(") {
      const inner = matchedEnd(text, i + 3, "(", ")", nesting, scan)
      if (inner !== undefined && text[inner] === ")") return inner + 1
    }
    return listEnd(text, i + 2, nesting + 1, scan)
  }
  return i + 1
}

/**
 * Whether bash reads the `((` at `at` as arithmetic: only when the `)` that
 * closes its inner parenthesis is followed at once by another. Otherwise
 * (`((a); (b) )`) it is a group in a group, and what it holds are commands.
 */
export const arithmeticAt = (text: string, at: number): boolean => {
  const inner = matchedEnd(text, at + 2, "(", ")", 0, { unsure: false })
  return inner !== undefined && text[inner] === ")"
}

/**
 * Where a pair of `open` and `close` whose opening is just before `i` ends
 * (nested pairs counted where there is an `open`, quoted and expanded parts
 * skipped), or undefined when the text ends first.
 */
const matchedEnd = (
  text: string,
  i: number,
  open: string | undefined,
  close: string,
  nesting: number,
  scan: Scan
): number | undefined => {
  if (nesting > maxNesting) return undefined
  let depth = 1
  for (let j = i; j < text.length;) {
    const c = text[j]!
    if (c === "\\") j += 2
    else if (c === "'" || c === "\"" || c === "`" || c === "$") {
      const next = quotedEnd(text, j, nesting + 1, scan)
      if (next === undefined) return undefined
      j = next
    } else {
      if (c === open) depth++
      else if (c === close && --depth === 0) return j + 1
      j++
    }
  }
  return undefined
}

export const scriptReadings = (
  analyse: BashSyntax.Analyse,
  script: string,
  readings: ReadingSet.Readings,
  depth: number,
  guess = false
) => {
  const inner = analyse(script, depth + 1)
  readings.open ??= inner.open
  readings.addGlobs(inner.globNames)
  const guessed = new Set(inner.guesses)
  for (const words of inner.readings) readings.add(words, guess || guessed.has(words))
  readings.writes.push(...inner.writes.slice(0, ReadingSet.maxReadings - readings.writes.length))
}

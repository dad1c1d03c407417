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
    let body = ""
    let j = i + 1
    for (; j < text.length && text[j] !== "`"; j++) {
      if (text[j] === "\\" && j + 1 < text.length) {
        const next = text[++j]!
        body += /[$`\\]/.test(next) ? next : `\\${next}`
      } else body += text[j]
    }
    out.push(body)
    i = j
  }
  return out
}

const substitutions = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  // Pairs of backquotes as they come, and the parts bash reads (escaped backquotes inside):
  // a wrong split only adds a reading.
  for (const match of text.matchAll(/`([^`]*)`/g)) out.push(match[1]!)
  out.push(...backquoted(text))
  for (let i = text.indexOf("$("); i >= 0 && out.length < 64; i = text.indexOf("$(", i + 2)) {
    let depth = 1
    let j = i + 2
    for (; j < text.length && depth > 0; j++) {
      if (text[j] === "(") depth++
      else if (text[j] === ")") depth--
    }
    out.push(text.slice(i + 2, depth === 0 ? j - 1 : j))
  }
  return out
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

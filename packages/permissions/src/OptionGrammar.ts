/**
 * OptionGrammar: a command's options read the way getopt and getopt_long
 * read them. Short flags combine (`-ec`), a value is attached (`-uroot`) or
 * the next word (`-u root`), an optional value is only ever attached
 * (`-E` vs `-Evar`), `--` ends the options, a long option takes its value
 * after `=` or as the next word, and any unambiguous prefix of a long name
 * stands for it (`--pres` for `--preserve-env`). A grammar may also permute
 * (GNU getopt without `+`: options after operands) or accept nice's obsolete
 * numeric adjustments.
 *
 * It exists because a wrapper's command starts where its options end, and
 * only the wrapper's real grammar says where that is: in `sudo -u root rm`
 * the word `root` is a value, not the command, and a guess that gets this
 * wrong lets a deny rule miss what runs. Parsing never throws: an option the
 * grammar cannot read is reported as `bad` so the caller can doubt.
 *
 * Internal to the package (not exported from its index): it serves
 * Wrappers, and its shape follows what those wrappers need rather
 * than a general command-line library.
 *
 * @since 0.3.0
 */

type Arity = "none" | "required" | "optional" | "host"

interface OptionSpec {
  readonly name: string
  readonly arity: Arity
}

/**
 * The options one command accepts, keyed by short letter and long name.
 *
 * @since 0.3.0
 * @category models
 */
export interface OptionGrammar {
  readonly short: ReadonlyMap<string, OptionSpec>
  readonly long: ReadonlyMap<string, OptionSpec>
  /** GNU getopt without `+`: options may follow operands (su, script). */
  readonly permute: boolean
  /** nice's obsolete `-N` / `--N` / `-+N` adjustments. */
  readonly numeric: boolean
}

const arityOf = (colons: string): Arity => colons === "" ? "none" : colons === ":" ? "required" : "optional"

/**
 * A grammar in getopt's notation: `"u:g:h::E"` for short options (`:` takes
 * a value, `::` an attached optional one), and long names mapped to the
 * short letter they alias plus the same colons (`""` for the long name itself).
 * `host` names the letter that reads as sudo's `-h`: a value when one follows,
 * help otherwise.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (
  short: string,
  long: Readonly<Record<string, string>> = {},
  options: { readonly permute?: boolean; readonly numeric?: boolean; readonly host?: string } = {}
): OptionGrammar => {
  const shorts = new Map<string, OptionSpec>()
  for (const [, letter, colons] of short.matchAll(/([^:])(:{0,2})/g)) {
    shorts.set(letter!, { name: letter!, arity: letter === options.host ? "host" : arityOf(colons!) })
  }
  const longs = new Map<string, OptionSpec>()
  for (const [key, value] of Object.entries(long)) {
    const [, name, colons] = /^([^:]*)(:{0,2})$/.exec(value)!
    longs.set(key, { name: name === "" ? key : name!, arity: arityOf(colons!) })
  }
  return { short: shorts, long: longs, permute: options.permute ?? false, numeric: options.numeric ?? false }
}

/**
 * One option as given: the short letter it aliases (or its long name) and
 * its value, if any.
 *
 * @since 0.3.0
 * @category models
 */
export interface Given {
  readonly name: string
  readonly value: string | undefined
}

/**
 * A word the grammar cannot read, where it is, and why.
 *
 * @since 0.3.0
 * @category models
 */
export interface Bad {
  readonly word: string
  readonly at: number
  readonly why: string
}

/**
 * A command's words read with a grammar.
 *
 * @since 0.3.0
 * @category models
 */
export interface Parsed {
  readonly given: ReadonlyArray<Given>
  readonly operands: ReadonlyArray<string>
  /** Where the operands start (a non-permuting grammar), or the word after a stop option. */
  readonly end: number
  readonly bad: Bad | undefined
  /** The option that stopped parsing, when `stopAt` matched. */
  readonly stopped: Given | undefined
}

// GNU getopt_long accepts any unambiguous prefix of a long option.
const lookupLong = (g: OptionGrammar, name: string): OptionSpec | undefined => {
  const exact = g.long.get(name)
  if (exact !== undefined) return exact
  const matches = [...g.long.entries()].filter(([key]) => key.startsWith(name))
  const names = new Set(matches.map(([, spec]) => spec.name))
  return names.size === 1 ? matches[0]![1] : undefined
}

/**
 * Reads `words` from index `from` with the grammar. Stops at the first
 * operand (unless the grammar permutes), at `--`, at a word it cannot read
 * (reported in `bad`), or right after an option `stopAt` accepts (reported
 * in `stopped`), which lets env re-read what its `-S` splits.
 *
 * @since 0.3.0
 * @category parsing
 */
export const parse = (
  g: OptionGrammar,
  words: ReadonlyArray<string>,
  from: number,
  stopAt?: (name: string) => boolean
): Parsed => {
  const given: Array<Given> = []
  const operands: Array<string> = []
  const result = (end: number, bad?: Bad, stopped?: Given): Parsed => ({
    given,
    operands: g.permute ? operands : words.slice(end),
    end,
    bad,
    stopped
  })
  let i = from
  while (i < words.length) {
    const word = words[i]!
    if (word === "--") {
      if (g.permute) operands.push(...words.slice(i + 1))
      return result(g.permute ? words.length : i + 1)
    }
    if (g.numeric && /^-[-+]?\d+$/.test(word)) {
      given.push({ name: "adjustment", value: word.slice(1) })
      i++
      continue
    }
    if (!word.startsWith("-") || word === "-") {
      if (!g.permute) return result(i)
      operands.push(word)
      i++
      continue
    }
    if (word.startsWith("--")) {
      const eq = word.indexOf("=")
      const name = eq < 0 ? word.slice(2) : word.slice(2, eq)
      const spec = lookupLong(g, name)
      if (spec === undefined) return result(i, { word, at: i, why: "unknown option" })
      let value: string | undefined = eq < 0 ? undefined : word.slice(eq + 1)
      if (spec.arity === "none" && value !== undefined) {
        return result(i, { word, at: i, why: "option takes no value" })
      }
      if ((spec.arity === "required" || spec.arity === "host") && value === undefined) {
        if (i + 1 >= words.length) return result(i, { word, at: i, why: "option is missing its value" })
        value = words[++i]
      }
      const option = { name: spec.name, value }
      given.push(option)
      i++
      if (stopAt?.(spec.name) === true) return result(i, undefined, option)
      continue
    }
    let stop: Given | undefined
    for (let k = 1; k < word.length; k++) {
      const spec = g.short.get(word[k]!)
      if (spec === undefined) return result(i, { word, at: i, why: "unknown option" })
      const attached = word.slice(k + 1)
      if (spec.arity === "none") {
        given.push({ name: spec.name, value: undefined })
        if (stopAt?.(spec.name) === true) stop = given[given.length - 1]
        continue
      }
      let value: string | undefined = attached === "" ? undefined : attached
      if (value === undefined && spec.arity === "required") {
        if (i + 1 >= words.length) return result(i, { word, at: i, why: "option is missing its value" })
        value = words[++i]
      }
      // sudo reads `-h host` as a host, `-h` alone (or before an option) as help.
      if (value === undefined && spec.arity === "host" && i + 1 < words.length && !words[i + 1]!.startsWith("-")) {
        value = words[++i]
      }
      given.push({ name: spec.name, value })
      if (stopAt?.(spec.name) === true) stop = given[given.length - 1]
      break
    }
    i++
    if (stop !== undefined) return result(i, undefined, stop)
  }
  return result(words.length)
}

/**
 * Whether any of the named options was given.
 *
 * @since 0.3.0
 * @category queries
 */
export const has = (parsed: Parsed, ...names: ReadonlyArray<string>): boolean =>
  parsed.given.some((option) => names.includes(option.name))

/**
 * The value of the named option's last occurrence, as getopt's callers keep it.
 *
 * @since 0.3.0
 * @category queries
 */
export const lastValue = (parsed: Parsed, name: string): string | undefined =>
  parsed.given.filter((option) => option.name === name).pop()?.value

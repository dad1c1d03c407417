/**
 * The two shapes most secret rules take, as detectors:
 *
 * - `token`: a credential recognised by its documented prefix, length and
 *   alphabet alone (`ghp_…`, `glpat-…`). It needs no context.
 * - `keyed`: a credential with no prefix of its own (a Heroku key is a
 *   UUID, a Datadog key 32 hex digits), recognised by the service's name in
 *   the key it is assigned to (`HEROKU_API_KEY=…`, `"datadogApiKey": "…"`,
 *   `--sentry-auth-token …`). The name must be a word or a part of the
 *   identifier (`heroku` in `MY_HEROKU_KEY` or `herokuKey`, not in
 *   `api.heroku.com/` or a path), and only the value is removed.
 *
 * Both read a bounded window from their hit, so they keep the engine
 * linear and streamable.
 *
 * @since 0.3.0
 */
import * as Detector from "./Detector.js"
import { isPlaceholder } from "./Values.js"

/**
 * @since 0.3.0
 * @category models
 */
export interface TokenOptions {
  readonly id: string
  /** Case-sensitive literals the token starts with. */
  readonly prefixes: ReadonlyArray<string>
  /** A sticky pattern for the whole token from its prefix on. */
  readonly body: RegExp
  /** The most characters `body` reads, a trailing look-ahead included. */
  readonly maxLength: number
  /** Vetoes a match (a checksum, a documented example). */
  readonly accept?: ((token: string) => boolean) | undefined
}

/**
 * A token rule: the prefix must start a token (`Detector.startsToken`), and
 * `body` must match from it.
 *
 * @since 0.3.0
 * @category constructors
 */
export const token = (options: TokenOptions): Detector.Detector => ({
  id: options.id,
  triggers: [Detector.prefix(...options.prefixes)],
  // `%3D` before the prefix: three characters.
  before: 3,
  after: options.maxLength + 1,
  verify: (context, hit) => {
    if (!Detector.startsToken(context, hit.start)) return undefined
    const match = Detector.matchAt(options.body, context.text, hit.start)
    if (match === null) return undefined
    if (options.accept !== undefined && !options.accept(match[0])) return undefined
    return { start: hit.start, end: hit.start + match[0].length }
  }
})

/**
 * @since 0.3.0
 * @category models
 */
export interface KeyedOptions {
  readonly id: string
  /**
   * Names of the service, lower case, at least four characters: one must be
   * one or more whole parts of the key (`newrelic` is a part of
   * `NEW_RELIC_LICENSE_KEY` and of `newRelicKey`).
   */
  readonly keywords: ReadonlyArray<string>
  /**
   * A sticky pattern for the value. It must not match a longer value's
   * beginning: end it with a look-ahead such as `(?![A-Za-z0-9_-])`.
   */
  readonly value: RegExp
  /** The most characters `value` reads. */
  readonly maxLength: number
  /** Vetoes a value (a checksum, a documented example). */
  readonly accept?: ((value: string) => boolean) | undefined
}

/** How far an identifier may extend on either side of the keyword. */
const identifierReach = 48
/** Operator, quotes and spaces between the key and its value. */
const operatorReach = 96

const isLower = (code: number): boolean => code >= 97 && code <= 122
const isUpper = (code: number): boolean => code >= 65 && code <= 90
const isIdentifierChar = (code: number): boolean => Detector.isWordChar(code) || code === 45 || code === 46
const isSeparator = (code: number): boolean => code === 95 || code === 45 || code === 46

// Between the key and its value: a closing quote or bracket, a type (`var
// herokuKey string = …`), the operator (`=`, `:`, `:=`, `::=`, `:::=`,
// `?=`, `.=`, `+=`, `=>`, `,` as in `setProperty("KEY", "…")`, `>` as in
// `<key>…`, also with the value on the next line), or only spaces after a
// command-line flag, then an opening quote, escaped or not.
const operator =
  /(?:\\?["'\]]){0,2}(?:[ \t]{1,3}(?:string|String|str|var)\b)?[ \t]{0,5}(?::=|:::=|::=|\?=|\.=|\+=|=>|>[ \t]{0,40}\r?\n[ \t]{0,40}|[:=,>]|(?<=-[A-Za-z0-9_-]{2,48})[ \t](?=[ \t]{0,3}["'A-Za-z0-9]))[ \t]{0,5}(?:\\?["'`])?/y

const isBlank = (code: number): boolean => code === 32 || code === 9

/** The length of the match of a sticky `pattern` at `at`, or -1: a test, which builds no match. */
const lengthAt = (pattern: RegExp, text: string, at: number): number => {
  pattern.lastIndex = at
  return pattern.test(text) ? pattern.lastIndex - at : -1
}

/**
 * Whether {@link operator} can match at `at`, at the cost of a few loads:
 * past its closing quotes or brackets (at most two) and at most five
 * spaces or tabs (the most it allows before its type or its sign), every
 * match has a sign or starts a type; or, after a flag (`--sentry-auth-token
 * v`), a space right at `at`. Most credential words in logs and code are
 * followed by none of these, and skip the expression.
 */
const mayAssign = (text: string, at: number): boolean => {
  let i = at
  for (let k = 0; k < 2; k++) {
    const escape = text.charCodeAt(i) === 92 ? 1 : 0
    const code = text.charCodeAt(i + escape)
    if (code !== 34 && code !== 39 && code !== 93) break
    i += escape + 1
  }
  if (i === at && isBlank(text.charCodeAt(at)) && followsFlag(text, at)) return true
  const from = i
  while (i < from + 5 && isBlank(text.charCodeAt(i))) i++
  const code = text.charCodeAt(i)
  // `:` `=` `,` `>` `?` `.` `+`, and `string`, `String`, `str`, `var`.
  return code === 58 || code === 61 || code === 44 || code === 62 || code === 63 || code === 46 || code === 43 ||
    code === 115 || code === 83 || code === 118
}

/** Whether `-[A-Za-z0-9_-]{2,48}` ends at `at`: the look-behind of {@link operator}'s space after a flag. */
const followsFlag = (text: string, at: number): boolean => {
  for (let i = at - 1; i >= 0 && at - i <= 49; i--) {
    const code = text.charCodeAt(i)
    if (code === 45 && at - i >= 3) return true
    if (!(Detector.isWordChar(code) || code === 45)) return false
  }
  return false
}

/**
 * The words that name a credential in a key. Every keyed rule is tried
 * from these rather than from its own service names: the service names of
 * a hundred rules would make the keyword pass several times slower, and a
 * key that holds a credential says so (`HEROKU_API_KEY`, `snykToken`,
 * `linear-client-secret`).
 */
const credentialWords = ["key", "token", "secret", "pass", "pwd", "auth", "cred"] as const

/**
 * The identifier around a hit, its parts lower-cased and joined
 * (`NEW_RELIC_KEY` is `newrelickey`), and where each part starts in the
 * joined form. `undefined` when the identifier is a part of a path or a URL.
 */
interface Identifier {
  readonly start: number
  readonly end: number
  readonly joined: string
  /** Offsets in `joined` where a part starts, and its length at the end. */
  readonly boundaries: ReadonlyArray<number>
}

/** Where the identifier around a hit ends. */
const identifierEnd = (text: string, hit: Detector.Hit): number => {
  let end = hit.end
  while (end < text.length && end - hit.end < identifierReach && isIdentifierChar(text.charCodeAt(end))) end++
  return end
}

const separators = /[_.-]/
const separatorsAll = /[_.-]/g

/** Where the identifier around a hit starts; -1 when it is a part of a path, a URL or an address. */
const identifierStart = (context: Detector.Context, hit: Detector.Hit): number => {
  const text = context.text
  let start = hit.start
  while (
    start > context.floor && hit.start - start < identifierReach && isIdentifierChar(text.charCodeAt(start - 1)) &&
    !Detector.isEscapedWhitespace(context, start - 1)
  ) {
    start--
  }
  const outside = start > context.floor ? text.charCodeAt(start - 1) : 32
  return outside === 47 || outside === 92 || outside === 64 ? -1 : start
}

/**
 * Whether a part of the identifier from `start` to `end` starts at `i`,
 * where `code` is (no separator) after `previous`.
 */
const startsPart = (text: string, start: number, end: number, i: number, code: number, previous: number): boolean =>
  i === start || isSeparator(previous) || (isUpper(code) && !isUpper(previous)) ||
  // The `K` of `APIKey` starts a part.
  (isUpper(code) && isUpper(previous) && i + 1 < end && isLower(text.charCodeAt(i + 1))) ||
  (Detector.isDigit(code) !== Detector.isDigit(previous))

const identifierAround = (text: string, start: number, end: number): Identifier => {
  // The identifier's characters are ASCII letters, digits and separators: joined, its letters lower-cased
  // and its separators left out, built at once rather than a character at a time.
  let joined = text.slice(start, end)
  if (separators.test(joined)) joined = joined.replace(separatorsAll, "")
  joined = joined.toLowerCase()
  const boundaries: Array<number> = []
  let length = 0
  let previous = 32
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i)
    if (isSeparator(code)) {
      previous = code
      continue
    }
    if (startsPart(text, start, end, i, code, previous)) boundaries.push(length)
    length++
    previous = code
  }
  boundaries.push(length)
  return { start, end, joined, boundaries }
}

/**
 * The first {@link headLength} characters of an identifier's joined form
 * from `i` on (lower-cased, separators left out) as a number, 7 bits a
 * character; -1 when fewer are left before `end`.
 */
const headAt = (text: string, i: number, end: number): number => {
  let head = 0
  let n = 0
  for (let k = i; k < end && n < headLength; k++) {
    const code = text.charCodeAt(k)
    if (isSeparator(code)) continue
    head = head * 128 + (isUpper(code) ? code + 32 : code)
    n++
  }
  return n === headLength ? head : -1
}

/** A name's head as {@link headAt} reads it from a key; undefined for a head no key can hold. */
const headOf = (name: string): number | undefined => {
  let head = 0
  for (let k = 0; k < headLength; k++) {
    const code = name.charCodeAt(k)
    if (!(code < 128) || isSeparator(code)) return undefined
    head = head * 128 + code
  }
  return head
}

const keyedSpecs = new WeakMap<Detector.Detector, KeyedOptions>()

const longestValue = (specs: ReadonlyArray<KeyedOptions>): number => Math.max(...specs.map((s) => s.maxLength))

/** How many characters of a service name index it. */
const headLength = 4

/** The detector for a list of keyed rules, tried in order at each hit of `words`. */
const dispatch = (id: string, specs: ReadonlyArray<KeyedOptions>, words: ReadonlyArray<string>): Detector.Detector => {
  // The service names by their first characters: each part of a key costs
  // one lookup, whatever the number of rules.
  const byHead = new Map<string, Array<{ readonly name: string; readonly order: number }>>()
  const short: Array<{ readonly name: string; readonly order: number }> = []
  specs.forEach((spec, order) => {
    for (const name of spec.keywords) {
      if (name.length < headLength) short.push({ name, order })
      else {
        const head = name.slice(0, headLength)
        byHead.set(head, [...(byHead.get(head) ?? []), { name, order }])
      }
    }
  })
  // The heads of the names, as numbers: a key none of whose parts starts with one names no service, which
  // is told without building its joined form (most keys: `key`, `password`, `api_token`). Only while every
  // name is indexed by its head.
  const heads = short.length > 0 ? undefined : new Set<number>()
  for (const head of byHead.keys()) {
    const code = headOf(head)
    if (code !== undefined) heads?.add(code)
  }
  const mayName = (text: string, start: number, end: number): boolean => {
    if (heads === undefined) return true
    let previous = 32
    for (let i = start; i < end; i++) {
      const code = text.charCodeAt(i)
      if (isSeparator(code)) {
        previous = code
        continue
      }
      if (startsPart(text, start, end, i, code, previous) && heads.has(headAt(text, i, end))) return true
      previous = code
    }
    return false
  }
  const named = (identifier: Identifier): ReadonlyArray<number> => {
    const { boundaries, joined } = identifier
    const orders: Array<number> = []
    for (let i = 0; i < boundaries.length - 1; i++) {
      const at = boundaries[i]!
      const candidates = byHead.get(joined.slice(at, at + headLength))
      for (const list of candidates === undefined ? [short] : [candidates, short]) {
        for (const { name, order } of list) {
          if (joined.startsWith(name, at) && boundaries.includes(at + name.length) && !orders.includes(order)) {
            orders.push(order)
          }
        }
      }
    }
    return orders.sort((a, b) => a - b)
  }
  return {
    id,
    triggers: [Detector.keyword(...words)],
    before: identifierReach + 1,
    after: 2 * identifierReach + operatorReach + longestValue(specs) + 1,
    verify: (context, hit) => {
      // The operator first: most credential words in code are not a key being assigned.
      const end = identifierEnd(context.text, hit)
      const op = mayAssign(context.text, end) ? lengthAt(operator, context.text, end) : -1
      if (op < 0 || op > operatorReach) return undefined
      const from = identifierStart(context, hit)
      if (from < 0 || !mayName(context.text, from, end)) return undefined
      const orders = named(identifierAround(context.text, from, end))
      if (orders.length === 0) return undefined
      const start = end + op
      for (const order of orders) {
        const spec = specs[order]!
        const match = Detector.matchAt(spec.value, context.text, start)
        if (match === null || isPlaceholder(match[0])) continue
        if (spec.accept !== undefined && !spec.accept(match[0])) continue
        return { start, end: start + match[0].length, id: spec.id }
      }
      return undefined
    }
  }
}

/**
 * A value assigned to a key that names the service. Returns the value's
 * span: the key and the operator stay.
 *
 * @since 0.3.0
 * @category constructors
 */
export const keyed = (options: KeyedOptions): Detector.Detector => {
  const detector = dispatch(options.id, [options], options.keywords)
  keyedSpecs.set(detector, options)
  return detector
}

/**
 * The rules with every `keyed` rule among them merged into one detector,
 * at the place of the first: it is tried at each credential word (`key`,
 * `token`, `secret`…) and looks up the services the key names, so any
 * number of keyed rules costs one keyword pass over the text and one
 * identifier scan per hit. `Redactor.make` merges the rules it is given.
 * A key that names a service but no credential word (`heroku: <uuid>`) is
 * then not read: a key that holds a credential says so.
 *
 * @since 0.3.0
 * @category combinators
 */
export const mergeKeyed = (rules: ReadonlyArray<Detector.Detector>): ReadonlyArray<Detector.Detector> => {
  const specs = rules.flatMap((rule) => {
    const spec = keyedSpecs.get(rule)
    return spec === undefined ? [] : [spec]
  })
  if (specs.length < 2) return rules
  const merged = dispatch("keyed-credential", specs, credentialWords)
  let placed = false
  return rules.flatMap((rule) => {
    if (!keyedSpecs.has(rule)) return [rule]
    if (placed) return []
    placed = true
    return [merged]
  })
}

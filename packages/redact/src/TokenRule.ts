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
 * A token rule: the prefix must start a word (or follow an escape such as
 * `\n`), and `body` must match from it.
 *
 * @since 0.3.0
 * @category constructors
 */
export const token = (options: TokenOptions): Detector.Detector => ({
  id: options.id,
  triggers: [Detector.prefix(...options.prefixes)],
  before: 2,
  after: options.maxLength + 1,
  verify: (context, hit) => {
    if (!Detector.separatedBefore(context, hit.start)) return undefined
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
  /** Names of the service, lower case, at least four characters: one must be a part of the key. */
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
const identifierReach = 40
/** Operator, quotes and spaces between the key and its value. */
const operatorReach = 24

const isLower = (code: number): boolean => code >= 97 && code <= 122
const isUpper = (code: number): boolean => code >= 65 && code <= 90
const isIdentifierChar = (code: number): boolean => Detector.isWordChar(code) || code === 45 || code === 46

/**
 * Where the identifier around a keyword hit starts, or -1 when the keyword
 * is not a part of it (`xheroku`), or the identifier is inside a path or a
 * URL (`/heroku`, `api.heroku.com/…` is judged by what follows it).
 */
const identifierStart = (context: Detector.Context, hit: Detector.Hit): number => {
  const text = context.text
  const before = hit.start > context.floor ? text.charCodeAt(hit.start - 1) : 32
  // The keyword starts the identifier, follows a separator, or starts a camel-case part.
  if (
    isIdentifierChar(before) && before !== 95 && before !== 45 && before !== 46 &&
    !(isUpper(text.charCodeAt(hit.start)) && (isLower(before) || Detector.isDigit(before))) &&
    !Detector.isEscapedWhitespace(context, hit.start - 1)
  ) {
    return -1
  }
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

/** Whether the keyword ends a part of the identifier: a separator, a camel-case part, a digit or its end follows. */
const endsPart = (text: string, end: number): boolean => {
  const after = text.charCodeAt(end)
  if (!isIdentifierChar(after)) return true
  return after === 95 || after === 45 || after === 46 || Detector.isDigit(after) ||
    (isUpper(after) && isLower(text.charCodeAt(end - 1)))
}

// Between the key and its value: a closing quote or bracket, a type (`var
// herokuKey string = …`), the operator (`=`, `:`, `:=`, `::=`, `?=`, `=>`,
// `,` as in `setProperty("KEY", "…")`, `>` as in `<key>…`), or only spaces
// after a command-line flag, then an opening quote, escaped or not.
const operator =
  /["'\]]{0,2}(?:[ \t]{1,3}(?:string|String|str|var)\b)?[ \t]{0,5}(?::=|::=|\?=|=>|[:=,>]|(?<=-[A-Za-z0-9_-]{2,40})[ \t](?=[ \t]{0,3}["'A-Za-z0-9]))[ \t]{0,5}(?:\\?["'`])?/y

/**
 * A value assigned to a key that names the service. Returns the value's
 * span: the key and the operator stay.
 *
 * @since 0.3.0
 * @category constructors
 */
export const keyed = (options: KeyedOptions): Detector.Detector => ({
  id: options.id,
  triggers: [Detector.keyword(...options.keywords)],
  before: identifierReach + 1,
  after: 2 * identifierReach + operatorReach + options.maxLength + 1,
  verify: (context, hit) => {
    const text = context.text
    if (identifierStart(context, hit) < 0 || !endsPart(text, hit.end)) return undefined
    let end = hit.end
    while (end < text.length && end - hit.end < identifierReach && isIdentifierChar(text.charCodeAt(end))) end++
    const op = Detector.matchAt(operator, text, end)
    if (op === null || op[0].length > operatorReach) return undefined
    const start = end + op[0].length
    const match = Detector.matchAt(options.value, text, start)
    if (match === null || isPlaceholder(match[0])) return undefined
    if (options.accept !== undefined && !options.accept(match[0])) return undefined
    return { start, end: start + match[0].length }
  }
})

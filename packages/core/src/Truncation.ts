/**
 * Cutting text to a limit without lying about it. Cuts land on a line
 * boundary when one is near, never inside a surrogate pair, and the caller
 * always adds a marker that says what was cut.
 *
 * @since 0.1.0
 */

/** How far back (as a share of the budget) a cut may move to reach a newline. */
const lineSlack = 0.2

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

/**
 * The first at most `max` characters, ending after a newline when one is
 * within reach.
 *
 * @since 0.1.0
 * @category truncation
 */
export const head = (text: string, max: number): string => {
  if (text.length <= max) return text
  // Below one character nothing fits: a newline at the start must not be kept for a budget of 0.5.
  if (!(max >= 1)) return ""
  let end = max
  const newline = text.lastIndexOf("\n", end - 1)
  if (newline >= 0 && newline + 1 >= end - Math.floor(max * lineSlack)) end = newline + 1
  else if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1))) end--
  return text.slice(0, end)
}

/**
 * The last at most `max` characters, starting after a newline when one is
 * within reach.
 *
 * @since 0.1.0
 * @category truncation
 */
export const tail = (text: string, max: number): string => {
  if (text.length <= max) return text
  if (!(max >= 1)) return ""
  let start = text.length - max
  const newline = text.indexOf("\n", start)
  if (newline >= 0 && newline < start + Math.floor(max * lineSlack)) start = newline + 1
  else if (start < text.length && isLowSurrogate(text.charCodeAt(start))) start++
  return text.slice(start)
}

/**
 * @since 0.1.0
 * @category models
 */
export interface HeadTail {
  readonly head: string
  readonly tail: string
  readonly omitted: number
}

/**
 * Keeps the head and the tail of a text within `max` characters in all;
 * the tail gets the larger share, because errors are usually at the end.
 *
 * @since 0.1.0
 * @category truncation
 */
export const headTail = (text: string, max: number, headShare = 0.3): HeadTail => {
  if (text.length <= max) return { head: text, tail: "", omitted: 0 }
  const headPart = head(text, Math.floor(max * headShare))
  const tailPart = tail(text, max - headPart.length)
  return { head: headPart, tail: tailPart, omitted: text.length - headPart.length - tailPart.length }
}

/**
 * What a tool's output limit counts. Tokens are estimated, not counted: a
 * character of a script written without spaces (CJK) is about one token,
 * about four other characters make one.
 *
 * @since 0.1.0
 * @category models
 */
export type Unit = "chars" | "tokens"

const isWide = (code: number) =>
  (code >= 0x2e80 && code <= 0x9fff) || (code >= 0xac00 && code <= 0xd7af) || (code >= 0xf900 && code <= 0xfaff) ||
  (code >= 0xff00 && code <= 0xffef)

/**
 * Approximate tokens in a text.
 *
 * @since 0.1.0
 * @category measuring
 */
export const estimateTokens = (text: string): number => {
  let narrow = 0
  let wide = 0
  for (let i = 0; i < text.length; i++) {
    if (isWide(text.charCodeAt(i))) wide++
    else narrow++
  }
  return wide + Math.ceil(narrow / 4)
}

/**
 * The size of a text in a unit.
 *
 * @since 0.1.0
 * @category measuring
 */
export const measure = (text: string, unit: Unit): number => unit === "chars" ? text.length : estimateTokens(text)

/**
 * How many characters of `text` fit in `amount` of `unit`, from its start.
 *
 * @since 0.1.0
 * @category measuring
 */
export const charsWithin = (text: string, amount: number, unit: Unit): number => {
  if (unit === "chars") return Math.min(amount, text.length)
  let narrow = 0
  let tokens = 0
  for (let i = 0; i < text.length; i++) {
    if (isWide(text.charCodeAt(i))) tokens++
    else if (++narrow % 4 === 1) tokens++
    if (tokens > amount) return i
  }
  return text.length
}

/** Lines that say what went wrong: kept even when the middle of a failure is cut. */
// Substrings, not words: `AssertionError`, `TestFailure` and `FAILED` all count.
const errorLine =
  /error|exception|fail|fatal|traceback|panic|assert|segmentation fault|exit (?:code|status)|exited with/i

/**
 * The lines of the part of a failure that a cut drops which carry the
 * error, at most `maxLines`, each bounded, without repeats. The scan is a
 * single pass over the dropped part.
 *
 * @since 0.1.0
 * @category truncation
 */
export const errorLines = (omitted: string, maxLines = 20, maxLineChars = 300): ReadonlyArray<string> => {
  const found: Array<string> = []
  const seen = new Set<string>()
  let start = 0
  while (start < omitted.length && found.length < maxLines) {
    let end = omitted.indexOf("\n", start)
    if (end < 0) end = omitted.length
    // Only the line's beginning is tested: a pathological single line costs no more than its bound.
    const line = omitted.slice(start, Math.min(end, start + 2000)).trim()
    if (line !== "" && errorLine.test(line)) {
      const bounded = line.length > maxLineChars ? `${head(line, maxLineChars)}…` : line
      if (!seen.has(bounded)) {
        seen.add(bounded)
        found.push(bounded)
      }
    }
    start = end + 1
  }
  return found
}

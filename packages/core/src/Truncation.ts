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
  let end = Math.max(0, max)
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
  let start = text.length - Math.max(0, max)
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
  const headPart = head(text, Math.floor(max * headShare))
  const tailPart = tail(text, max - headPart.length)
  return { head: headPart, tail: tailPart, omitted: text.length - headPart.length - tailPart.length }
}

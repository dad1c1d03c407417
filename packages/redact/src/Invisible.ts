/**
 * Invisible: the text the rules read, without the characters that show as
 * nothing. A zero-width space, a soft hyphen or a bidirectional control
 * inside a token (`ghp_aB3d\u200bE5gH…`, pasted from a chat or planted)
 * broke every pattern, and the token went out whole to a reader who does
 * not see the character. The rules read the text with them removed; each
 * finding is mapped back to the original, and the output keeps every
 * character that is not part of a secret.
 *
 * @since 0.4.0
 */

/**
 * The Unicode format characters (general category Cf, Unicode 17): the
 * zero-width space, joiners and non-joiners, the word joiner, the soft
 * hyphen, bidirectional controls, the BOM, tag characters; first and last
 * code point of each range. Spelled out rather than `\p{Cf}` so that every
 * engine folds the same characters whatever its Unicode version, and so
 * that the text scan (`TextScan`), which looks for them in its one pass
 * over the text, tests the same set: a test holds it to the engine's
 * `\p{Cf}`.
 *
 * @since 0.4.0
 * @category characters
 */
export const formatRanges: ReadonlyArray<readonly [number, number]> = [
  [0xad, 0xad],
  [0x600, 0x605],
  [0x61c, 0x61c],
  [0x6dd, 0x6dd],
  [0x70f, 0x70f],
  [0x890, 0x891],
  [0x8e2, 0x8e2],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0xfeff, 0xfeff],
  [0xfff9, 0xfffb],
  [0x110bd, 0x110bd],
  [0x110cd, 0x110cd],
  [0x13430, 0x1343f],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0001, 0xe0001],
  [0xe0020, 0xe007f]
]

const hex = (code: number): string => `\\u{${code.toString(16)}}`
const formatClass = `[${
  formatRanges.map(([first, last]) => first === last ? hex(first) : `${hex(first)}-${hex(last)}`).join("")
}]`
const format = new RegExp(formatClass, "gu")
const anyFormat = new RegExp(formatClass, "u")

/**
 * Whether `text` holds a format character.
 *
 * @since 0.4.0
 * @category characters
 */
export const hasFormat = (text: string): boolean => anyFormat.test(text)

/**
 * A text as the rules read it: `text` without the format characters, and
 * where each of its positions is in the original.
 *
 * @since 0.4.0
 * @category models
 */
export interface Folded {
  readonly text: string
  /** The original position of the folded character at `i`; the original's length at the folded end. */
  readonly at: (i: number) => number
  /** The original position just past the folded character before `i` (an end, exclusive). */
  readonly endAt: (i: number) => number
}

/**
 * The text without its format characters; the text itself (and positions
 * unchanged) when it holds none, which is the usual case and costs one test.
 *
 * @since 0.4.0
 * @category constructors
 */
export const fold = (text: string): Folded => {
  if (!anyFormat.test(text)) return unchanged(text)
  // Each removed run: the folded position it sat at, and how many characters
  // were removed up to and including it.
  const positions: Array<number> = []
  const removed: Array<number> = []
  const parts: Array<string> = []
  let last = 0
  let total = 0
  for (const match of text.matchAll(format)) {
    const start = match.index
    if (start > last) parts.push(text.slice(last, start))
    const folded = start - total
    total += match[0].length
    if (positions.length > 0 && positions[positions.length - 1] === folded) removed[removed.length - 1] = total
    else {
      positions.push(folded)
      removed.push(total)
    }
    last = start + match[0].length
  }
  parts.push(text.slice(last))
  const originalLength = text.length
  const foldedLength = originalLength - total
  // How many characters were removed before the folded position `i` (runs at `i` or before it).
  const before = (i: number): number => {
    let lo = 0
    let hi = positions.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (positions[mid]! <= i) lo = mid + 1
      else hi = mid
    }
    return lo === 0 ? 0 : removed[lo - 1]!
  }
  return {
    text: parts.join(""),
    at: (i) => i >= foldedLength ? originalLength : i + before(i),
    endAt: (i) => i <= 0 ? 0 : i - 1 + before(i - 1) + 1
  }
}

const identity = (i: number): number => i

/**
 * A text known to hold no format character (the text scan found none), as
 * the rules read it: itself.
 *
 * @since 0.4.0
 * @category constructors
 */
export const unchanged = (text: string): Folded => ({ text, at: identity, endAt: identity })

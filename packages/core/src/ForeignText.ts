/**
 * Text that comes from outside the runtime (a tool name or call id the model
 * sent, a key of its arguments, the message of an error a handler or a
 * library threw) and that the runtime quotes in its own messages.
 *
 * Before it is quoted it is made printable: every character that acts on a
 * terminal or hides text from a reader is replaced by "?" (C0 and C1
 * controls, DEL, line and paragraph separators, bidirectional controls,
 * zero-width and other invisible formatting characters, Unicode tag
 * characters, lone surrogates), and it is bounded in length, so a
 * 100,000-character name cannot flood a message and `\u009b31m` cannot
 * recolour the harness's terminal. A replacement, not a removal: the reader
 * should see that something was there.
 *
 * @since 0.2.0
 */

// Cc: C0, DEL, C1. Cf: soft hyphen, bidi controls, zero-width characters,
// the BOM, most tag characters. Cs: lone surrogates (with the `u` flag a
// valid pair is one code point). Zl, Zp: U+2028, U+2029. U+E0000 and U+E007F
// close the tag block.
const unsafe = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u{E0000}-\u{E007F}]/u
const unsafeAll = new RegExp(unsafe.source, "gu")
// The same, but line breaks and tabs stay: multi-line details keep their shape.
const unsafeKeepLines = /(?![\n\t])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u{E0000}-\u{E007F}]/gu

/**
 * The default bound of quoted text, in characters.
 *
 * @since 0.2.0
 * @category defaults
 */
export const defaultMax = 200

/**
 * True when the text holds none of the characters {@link printable} replaces.
 *
 * @since 0.2.0
 * @category guards
 */
export const isClean = (text: string): boolean => !unsafe.test(text)

/**
 * Cuts text to at most `max` characters, ellipsis included, never between
 * the two halves of a surrogate pair.
 *
 * @since 0.2.0
 * @category formatting
 */
export const bound = (text: string, max: number = defaultMax): string => text.length <= max ? text : ellipsis(text, max)

const ellipsis = (text: string, max: number): string => {
  let end = Math.max(0, max - 1)
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${text.slice(0, end)}…`
}

/**
 * One line of foreign text, ready to quote: unsafe characters (line breaks
 * and tabs included) replaced by "?", at most `max` characters.
 *
 * @since 0.2.0
 * @category formatting
 */
export const printable = (text: string, max: number = defaultMax): string => {
  // Only what can be shown is cleaned: the scan never reads past the bound.
  const head = text.length > max ? text.slice(0, max) : text
  const cleaned = unsafe.test(head) ? head.replace(unsafeAll, "?") : head
  // A replacement never lengthens the text, so only a cut needs the ellipsis.
  return head.length < text.length ? ellipsis(cleaned, max) : cleaned
}

/**
 * Foreign text of several lines (a failure's detail), cleaned the same way
 * but keeping line breaks and tabs (a lone carriage return is replaced:
 * it rewrites the line in a terminal). Not bounded: the shaping stage
 * truncates whole results, after redaction.
 *
 * @since 0.2.0
 * @category formatting
 */
export const clean = (text: string): string =>
  unsafe.test(text) ? text.replace(/\r\n/g, "\n").replace(unsafeKeepLines, "?") : text

/**
 * A string for any value at all, for a message: strings as they are, other
 * primitives by `String`, and objects by their `message` when it is a
 * string. Never throws, whatever the value does on property access.
 * The result is not yet cleaned or bounded.
 *
 * @since 0.2.0
 * @category formatting
 */
export const describe = (u: unknown): string => {
  switch (typeof u) {
    case "string":
      return u
    case "undefined":
      return "undefined"
    case "symbol":
      return "a symbol"
    case "function":
      return "a function"
    case "object": {
      if (u === null) return "null"
      const message = read(u, "message")
      return typeof message === "string" && message !== "" ? message : "an object without a message"
    }
    default:
      return String(u)
  }
}

/**
 * Reads a property of a foreign object, or `undefined` when reading it
 * throws (a getter, a `Proxy` trap): the one place a foreign read may fail.
 *
 * @since 0.2.0
 * @category reading
 */
export const read = (u: unknown, key: PropertyKey): unknown => {
  if ((typeof u !== "object" && typeof u !== "function") || u === null) return undefined
  try {
    return (u as Record<PropertyKey, unknown>)[key]
  } catch {
    return undefined
  }
}

/**
 * What a model should see of a process's raw output. Terminal programs write
 * for terminals: color escapes, progress bars that redraw one line with
 * carriage returns, sometimes binary data or bytes that are not UTF-8. Passed
 * through as is, that costs context and hides the text that matters.
 *
 * Everything here is pure and platform-free (only the standard
 * `TextDecoder`): the process runner keeps raw bytes, and only the view made
 * for the model goes through these functions. A stored full output keeps the
 * bytes exactly as they were written.
 *
 * @since 0.1.0
 */
/* eslint-disable no-control-regex -- matching control characters is what this module is for */

/**
 * Escape sequences, in the order they must be tried: OSC (ends with BEL or
 * ST, may hold a title or a hyperlink), CSI (colors, cursor motion), the
 * 8-bit CSI introducer, DCS/PM/APC strings and the two-character escapes.
 * A string sequence never runs past a newline: one cut in half by truncation
 * has no terminator and must not swallow the rest of the output.
 */
const escapes =
  /\u001b\][^\u0007\u001b\n]*(?:\u0007|\u001b\\)?|\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b[P^_][^\u001b\n]*(?:\u001b\\)?|\u001b[ -/]*[0-~]/g

/** C0 controls and DEL, except tab, newline and carriage return (handled apart), after escapes are gone. */
const controls = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g

/**
 * Removes ANSI escape sequences and the stray control characters they leave
 * (a sequence cut in half by truncation, a bell).
 *
 * @since 0.1.0
 * @category hygiene
 */
export const stripAnsi = (text: string): string =>
  // The common case (plain text) costs one scan and no allocation.
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u009b]/.test(text)
    ? text.replace(escapes, "").replace(controls, "")
    : text

/**
 * Collapses carriage-return redraws to what a terminal would finally show
 * for each line: the last non-empty segment. A CRLF line ending stays a
 * plain newline.
 *
 * @since 0.1.0
 * @category hygiene
 */
export const collapseCarriageReturns = (text: string): string => {
  if (!text.includes("\r")) return text
  return text.replace(/\r+\n/g, "\n").split("\n").map((line) => {
    if (!line.includes("\r")) return line
    const segments = line.split("\r")
    for (let i = segments.length - 1; i >= 0; i--) {
      if (segments[i] !== "") return segments[i]!
    }
    return ""
  }).join("\n")
}

/**
 * The model's view of decoded output: escapes stripped, redraws collapsed.
 *
 * @since 0.1.0
 * @category hygiene
 */
export const clean = (text: string): string => collapseCarriageReturns(stripAnsi(text))

/**
 * Binary data: a NUL byte in the sample (what git and grep use), or a
 * sample that is mostly not text (undecodable bytes and control
 * characters other than whitespace and escapes make up more than a tenth).
 *
 * @since 0.1.0
 * @category detection
 */
export const looksBinary = (bytes: Uint8Array, sampleBytes = 8192): boolean => {
  const end = Math.min(bytes.length, sampleBytes)
  if (end === 0) return false
  let suspicious = 0
  for (let i = 0; i < end; i++) {
    const b = bytes[i]!
    if (b === 0) return true
    // Tab, newline, form feed, carriage return, backspace and escape are text.
    if (b < 32 && b !== 9 && b !== 10 && b !== 12 && b !== 13 && b !== 8 && b !== 27) suspicious++
  }
  if (suspicious * 10 > end) return true
  // The sample may start or end inside a character: that is a cut, not bad data.
  const replaced = countReplacements(decodeHead(skipContinuation(bytes.subarray(0, end))))
  return replaced * 10 > end
}

/** Skips the continuation bytes of a character cut at the start (at most three). */
const skipContinuation = (bytes: Uint8Array): Uint8Array => {
  let start = 0
  while (start < 3 && start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++
  return bytes.subarray(start)
}

/**
 * U+FFFD characters in a text: what the decoder put where bytes were not
 * valid UTF-8.
 *
 * @since 0.1.0
 * @category detection
 */
export const countReplacements = (text: string): number => {
  let count = 0
  let at = text.indexOf("\ufffd")
  while (at !== -1) {
    count++
    at = text.indexOf("\ufffd", at + 1)
  }
  return count
}

/**
 * Decodes a complete byte sequence; invalid bytes become U+FFFD.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeAll = (bytes: Uint8Array): string => new TextDecoder("utf-8", { fatal: false }).decode(bytes)

/**
 * Decodes the first bytes of a longer output: an incomplete character at
 * the cut is left out instead of turning into U+FFFD.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeHead = (bytes: Uint8Array): string =>
  new TextDecoder("utf-8", { fatal: false }).decode(bytes, { stream: true })

/**
 * Decodes the last bytes of a longer output: continuation bytes of a
 * character cut at the start are skipped instead of turning into U+FFFD.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeTail = (bytes: Uint8Array): string => decodeAll(skipContinuation(bytes))

/**
 * Decodes a stream chunk by chunk: a character split across chunks comes
 * out whole, when its last byte arrives.
 *
 * @since 0.1.0
 * @category decoding
 */
export class StreamDecoder {
  private decoder = new TextDecoder("utf-8", { fatal: false })

  /** Decodes the next chunk; bytes of an unfinished character wait for the next call. */
  write(bytes: Uint8Array): string {
    return this.decoder.decode(bytes, { stream: true })
  }

  /** Bytes were lost before the next chunk: what was pending cannot be completed. */
  reset(): void {
    this.decoder = new TextDecoder("utf-8", { fatal: false })
  }

  /** The stream ended: an unfinished character becomes U+FFFD. */
  end(): string {
    return this.decoder.decode()
  }
}

/**
 * A byte count for people: `512 B`, `1.2 KiB`, `3.4 MiB`, `1 GiB`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatBytes = (bytes: number): string => {
  if (bytes < 1024) return `${bytes} B`
  const units = ["KiB", "MiB", "GiB", "TiB"] as const
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${Number(value.toFixed(1))} ${units[unit]}`
}

/**
 * What was kept of one output stream: its first bytes, its last bytes and
 * how many bytes between them were not kept.
 *
 * @since 0.1.0
 * @category models
 */
export interface Captured {
  readonly head: Uint8Array
  readonly tail: Uint8Array
  readonly omittedBytes: number
  readonly totalBytes: number
}

/**
 * The model's view of one captured stream.
 *
 * @since 0.1.0
 * @category models
 */
export interface View {
  readonly text: string
  readonly binary: boolean
  /** U+FFFD characters standing for bytes that were not valid UTF-8. */
  readonly invalidSequences: number
}

/**
 * Renders captured output for the model: binary data is summarized, text is
 * decoded without breaking characters at the cuts, cleaned, and a cut in the
 * middle is marked with the number of bytes left out.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (captured: Captured): View => {
  const { head, omittedBytes, tail, totalBytes } = captured
  if (totalBytes === 0) return { text: "", binary: false, invalidSequences: 0 }
  const binary = { text: `[binary output: ${formatBytes(totalBytes)}, not shown]`, binary: true, invalidSequences: 0 }
  let decoded: string
  if (omittedBytes === 0) {
    // Head and tail are contiguous: decode them as one, so a character on the seam stays whole.
    const all = new Uint8Array(head.length + tail.length)
    all.set(head, 0)
    all.set(tail, head.length)
    if (looksBinary(all) || looksBinary(all.subarray(Math.max(0, all.length - 8192)))) return binary
    decoded = decodeAll(all)
  } else {
    if (looksBinary(head) || looksBinary(tail)) return binary
    decoded = `${decodeHead(head)}\n[… ${formatBytes(omittedBytes)} (${
      omittedBytes.toLocaleString("en-US")
    } bytes) omitted …]\n${decodeTail(tail)}`
  }
  return { text: clean(decoded), binary: false, invalidSequences: countReplacements(decoded) }
}

/**
 * How the file tools see and show text: what a file is from its first bytes,
 * cutting without splitting a character, numbered lines, counted nouns.
 *
 * Apart because reading, editing and searching all show text the same way,
 * so a line looks alike in `read_file`, an `edit_file` excerpt and a `grep`
 * match.
 *
 * @since 0.4.0
 */
import { isUtf8 } from "node:buffer"

export const count = (n: number) => n.toLocaleString("en-US")

export const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`

const signatures: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
  ["a PNG image", [0x89, 0x50, 0x4e, 0x47]],
  ["a JPEG image", [0xff, 0xd8, 0xff]],
  ["a GIF image", [0x47, 0x49, 0x46, 0x38]],
  ["a PDF document", [0x25, 0x50, 0x44, 0x46]],
  ["a ZIP archive", [0x50, 0x4b, 0x03, 0x04]],
  ["a gzip archive", [0x1f, 0x8b]],
  ["an ELF executable", [0x7f, 0x45, 0x4c, 0x46]],
  ["a WebAssembly module", [0x00, 0x61, 0x73, 0x6d]]
]

/** Drops a multi-byte character cut off at the end of a sample. */
const completeUtf8 = (bytes: Uint8Array): Uint8Array => {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!
    if (byte < 0x80) return bytes
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2
      return length > back ? bytes.subarray(0, bytes.length - back) : bytes
    }
  }
  return bytes
}

/**
 * What a file is, from its first bytes, when it is not UTF-8 text:
 * a known format, "binary data" (a NUL byte) or "not UTF-8 text".
 *
 * @since 0.1.0
 * @category text
 */
export const sniff = (head: Uint8Array): string | undefined => {
  for (const [kind, magic] of signatures) {
    if (head.length >= magic.length && magic.every((byte, i) => head[i] === byte)) return kind
  }
  const sample = head.subarray(0, 8192)
  if (sample.includes(0)) return "binary data"
  return isUtf8(completeUtf8(sample)) ? undefined : "not UTF-8 text"
}

/** Cuts at `max` UTF-16 units without leaving half a surrogate pair. */
export const cut = (text: string, max: number): string => {
  if (text.length <= max) return text
  const code = text.charCodeAt(max - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)
}

export const numbered = (line: number, text: string) => `${String(line).padStart(6, " ")}\t${text}`

export const decoder = new TextDecoder("utf-8")

export const encoder = new TextEncoder()

/**
 * The text scan: the one pass over a text that finds where every pass of
 * the engine (`TriggerScan`) may have a hit, for all of them at once. It
 * reads each character once and sorts what it finds into channels:
 *
 * - 0: the positions where a pair of a word's ends (the trigger scan's
 *   table of character pairs: every prefix, keyword and literal of two or
 *   more characters);
 * - 1: the pairs of the literals that gate pattern passes (`kind` of a
 *   Kubernetes manifest), so that a gate costs no pass of its own;
 * - 2 to 7: the occurrences of one-character literals (`@`, `(`, `+`, `|`);
 * - 8: the starts of the number shapes personal data takes
 *   ({@link TriggerScan.numberShapes}).
 *
 * and it says whether the text holds a format character (`Invisible`), in
 * which case the rules read the text without them and it is scanned again.
 * Secrets and personal data are found in this one pass: the passes then
 * only walk their channel. The gate channel also holds where a marker of
 * an earlier redaction may open (`[R`), so that whether the text holds one
 * costs no search of its own.
 *
 * The loop runs in WebAssembly with SIMD where the runtime has it (the
 * AssemblyScript source is `assembly/scan.ts`, its bytes are embedded in
 * `TextScanWasm`), over the text copied into the module's memory a segment
 * at a time: its UTF-16 units as the runtime holds them, where the runtime
 * can copy them (a Node-style `Buffer`: a memory copy), else its UTF-8
 * bytes (`TextEncoder`: an encoding pass, which costs as much as the scan);
 * elsewhere the same loop runs here in TypeScript over `charCodeAt`. All
 * three give the same channels for every text: the tests compare them on
 * random and hostile texts. A character that is not ASCII makes no pair:
 * read as UTF-8 it ends in a continuation byte, so the pair it makes with
 * the next character is `0x80` and that character, whose flags are those
 * of the one-character literals alone; read as UTF-16 or in TypeScript,
 * the character counts as `0x80` in that pair.
 *
 * @since 0.4.0
 */
import * as Invisible from "./Invisible.js"
import * as TextScanWasm from "./TextScanWasm.js"

/** The channel of the pairs of the trigger scan's words. */
export const pairChannel = 0
/** The channel of the pairs of gate literals. */
export const gateChannel = 1
/** The first channel of a one-character literal; there are six. */
export const firstLiteralChannel = 2
export const literalChannels = 6
/** The channel of number shapes. */
export const numberChannel = 8
const channelCount = 9

/** What a scan looks for, compiled once per engine. */
export interface Plan {
  /** Flags of each pair of bytes, indexed `current << 8 | previous`: bit `c` for channel `c` below 8. */
  readonly table: Uint8Array
  /** For a word pair, the set of the characters that may follow it (0: any), by the same index. */
  readonly followers: Uint8Array
  /** Those sets: 256 bits each, set 0 unused. */
  readonly followerSets: Uint8Array
  readonly numbers: boolean
}

/** The byte pair a word or a literal is looked for from. */
export interface PairKey {
  readonly previous: number
  readonly current: number
  /**
   * For a word pair, the characters (ASCII) that may follow it in some word
   * of the pair; undefined when any may (a word that ends with the pair).
   */
  readonly followers?: ReadonlyArray<number> | undefined
}

/** How many sets of followers the scan's memory holds. */
const followerSetCount = 256

/**
 * A plan from the pairs of the trigger scan's words (ASCII, `previous` any
 * byte for a one-character word), the pairs of gate literals, and the
 * one-character literals (ASCII), one channel each in the order given.
 */
export const plan = (
  pairs: Iterable<PairKey>,
  gates: Iterable<PairKey>,
  literals: ReadonlyArray<number>,
  numbers: boolean
): Plan => {
  const table = new Uint8Array(65_536)
  const followers = new Uint8Array(65_536)
  const followerSets = new Uint8Array(followerSetCount * 32)
  const sets = new Map<string, number>()
  const set = (key: PairKey, bit: number): void => {
    if (key.current >= 0x80 || key.previous > 0xff) throw new Error(`not a pair of bytes the scan reads: ${key}`)
    table[(key.current << 8) | key.previous]! |= bit
  }
  for (const key of pairs) {
    set(key, 1 << pairChannel)
    // Past the number of sets the memory holds, a pair stops the scan whatever follows it.
    const next = key.followers
    if (next === undefined || next.some((code) => code >= 0x80)) continue
    const name = [...new Set(next)].sort((a, b) => a - b).join(",")
    let index = sets.get(name)
    if (index === undefined && sets.size + 1 < followerSetCount) {
      index = sets.size + 1
      sets.set(name, index)
      for (const code of next) followerSets[index * 32 + (code >> 3)]! |= 1 << (code & 7)
    }
    if (index !== undefined) followers[(key.current << 8) | key.previous] = index
  }
  for (const key of gates) set(key, 1 << gateChannel)
  literals.forEach((code, i) => {
    for (let previous = 0; previous < 256; previous++) set({ previous, current: code }, 1 << (firstLiteralChannel + i))
  })
  // After a character that is not ASCII the scan in TypeScript uses 0x80 for the byte before, the
  // WebAssembly scan the character's last byte: they agree only if every such byte has the same flags.
  for (let current = 0; current < 0x80; current++) {
    for (let previous = 0x81; previous < 0x100; previous++) {
      if (table[(current << 8) | previous] !== table[(current << 8) | 0x80]) {
        throw new Error("a pair that is not ASCII on both sides is in the scan's table")
      }
    }
  }
  return { table, followers, followerSets, numbers }
}

/** A channel's positions (UTF-16 indexes, ascending), and where a pass walking them is. */
export interface Candidates {
  readonly positions: Int32Array
  readonly length: number
  cursor: number
}

export interface Index {
  /** Whether the text holds a format character: then the channels are empty. */
  readonly format: boolean
  /** Where the scan started: the channels hold nothing before it. */
  readonly from: number
  readonly channels: ReadonlyArray<Candidates>
}

/**
 * The index of the first candidate at or after `from`, which becomes the
 * cursor. Passes search forward, so this is mostly a step or two from the
 * cursor; a jump (past a long finding) gallops, a step back searches.
 */
export const seek = (candidates: Candidates, from: number): number => {
  const positions = candidates.positions
  let lo = candidates.cursor
  let hi = candidates.length
  if (lo > 0 && positions[lo - 1]! >= from) {
    hi = lo
    lo = 0
  } else if (lo < hi && positions[lo]! < from) {
    // Gallop: `positions[lo]` stays below `from`, `hi` ends at or past the first that is not.
    let step = 1
    let probe = lo + 1
    while (probe < hi && positions[probe]! < from) {
      lo = probe
      step *= 2
      probe = lo + step
    }
    hi = Math.min(probe, hi)
    lo++
  } else {
    hi = lo
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (positions[mid]! < from) lo = mid + 1
    else hi = mid
  }
  candidates.cursor = lo
  return lo
}

// ---------------------------------------------------------------------------
// collecting events
// ---------------------------------------------------------------------------

interface Growing {
  data: Int32Array
  length: number
}

const none = new Int32Array(0)
// Empty until the first position: a stream scans a few characters at a time, most channels get none.
const growing = (): Growing => ({ data: none, length: 0 })

const push = (list: Growing, position: number): void => {
  if (list.length === list.data.length) {
    const bigger = new Int32Array(Math.max(64, list.data.length * 2))
    bigger.set(list.data)
    list.data = bigger
  }
  list.data[list.length++] = position
}

/** Appends the first `n` positions of `from`. */
const append = (list: Growing, from: Int32Array, n: number): void => {
  if (list.length + n > list.data.length) {
    const bigger = new Int32Array(Math.max(64, list.data.length * 2, list.length + n))
    bigger.set(list.data.subarray(0, list.length))
    list.data = bigger
  }
  list.data.set(from.subarray(0, n), list.length)
  list.length += n
}

const indexOf = (lists: ReadonlyArray<Growing>, from: number): Index => ({
  format: false,
  from,
  channels: lists.map((list) => ({ positions: list.data, length: list.length, cursor: 0 }))
})

const formatFound = (from: number): Index => ({
  format: true,
  from,
  channels: Array.from({ length: channelCount }, () => ({ positions: new Int32Array(0), length: 0, cursor: 0 }))
})

/** Sorts one event (a position and its flags) into the channels. */
const sort = (lists: ReadonlyArray<Growing>, position: number, flags: number): void => {
  for (let rest = flags; rest !== 0; rest &= rest - 1) push(lists[31 - Math.clz32(rest & -rest)]!, position)
}

// ---------------------------------------------------------------------------
// format characters
// ---------------------------------------------------------------------------

/** The format characters below U+10000, a bit each. */
const formatBits = new Uint8Array(8_192)
const supplementaryFormats: Array<readonly [number, number]> = []
for (const [first, last] of Invisible.formatRanges) {
  if (first >= 0x10000) supplementaryFormats.push([first, last])
  else for (let code = first; code <= last; code++) formatBits[code >> 3]! |= 1 << (code & 7)
}

const isFormat = (code: number): boolean => {
  if (code < 0x10000) return ((formatBits[code >> 3]! >> (code & 7)) & 1) !== 0
  for (const [first, last] of supplementaryFormats) if (code >= first && code <= last) return true
  return false
}

// ---------------------------------------------------------------------------
// the scan in TypeScript
// ---------------------------------------------------------------------------

/**
 * The scan over `charCodeAt`, from `from`: what the WebAssembly scan gives,
 * where it cannot run. A number shape is found when its last character is
 * read: eleven digits in a row (it starts ten back), or three digits after
 * a separator that follows three or more (it starts six back).
 */
export const scanChars = (plan: Plan, text: string, from: number): Index => {
  const lists = Array.from({ length: channelCount }, growing)
  const { followerSets, followers, numbers, table } = plan
  const length = text.length
  const before = from > 0 ? text.charCodeAt(from - 1) : 0
  let previous = before < 0x80 ? before : 0x80
  // The digits in a row up to here, and before the last separator.
  let run = 0
  let runBefore = 0
  let separator = -2
  for (let i = from; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) {
      const key = (code << 8) | previous
      let flags = table[key]!
      if ((flags & 1) !== 0 && followers[key] !== 0) {
        // The word pair's flag only if the next character can follow it (not ASCII: 0x80; none: 0).
        const after = i + 1 < length ? text.charCodeAt(i + 1) : 0
        const next = after < 0x80 ? after : 0x80
        if (((followerSets[followers[key]! * 32 + (next >> 3)]! >> (next & 7)) & 1) === 0) flags &= ~1
      }
      if (flags === 1) push(lists[pairChannel]!, i)
      else if (flags !== 0) sort(lists, i, flags)
      previous = code
      if (!numbers) continue
      if (code >= 48 && code <= 57) {
        run++
        if (run >= 11) push(lists[numberChannel]!, i - 10)
        else if (run === 3 && separator === i - 3 && runBefore >= 3) push(lists[numberChannel]!, i - 6)
      } else if (code === 32 || code === 46 || code === 45) {
        runBefore = run
        separator = i
        run = 0
      } else {
        run = 0
      }
      continue
    }
    previous = 0x80
    run = 0
    let point = code
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < length) {
      const low = text.charCodeAt(i + 1)
      if (low >= 0xdc00 && low <= 0xdfff) {
        point = ((code - 0xd800) << 10) + (low - 0xdc00) + 0x10000
        i++
      }
    }
    if (isFormat(point)) return formatFound(from)
  }
  return indexOf(lists, from)
}

// ---------------------------------------------------------------------------
// the scan in WebAssembly
// ---------------------------------------------------------------------------

// The package's TypeScript library is bare ES2022, which declares neither
// WebAssembly nor TextEncoder: what the scan uses of them.
interface WasmApi {
  readonly validate: (bytes: Uint8Array) => boolean
  readonly Module: new(bytes: Uint8Array) => object
  readonly Instance: new(module: object, imports: object) => { readonly exports: object }
}
interface WasmExports {
  readonly scan: (
    text: number,
    start: number,
    n: number,
    unit: number,
    previous: number,
    positions: number,
    flags: number,
    pairs: number,
    capacity: number,
    numbers: number
  ) => number
  readonly scan16: WasmExports["scan"]
  readonly memory: { readonly buffer: ArrayBuffer; readonly grow: (pages: number) => number }
}
interface Utf8Encoder {
  readonly encodeInto: (text: string, into: Uint8Array) => { readonly read: number; readonly written: number }
}
/** What the scan uses of a Node-style `Buffer`, where the runtime has one (Node, Bun): a view that takes UTF-16. */
interface BufferApi {
  readonly from: (buffer: ArrayBuffer, offset: number, length: number) => {
    readonly ucs2Write?: ((text: string, offset: number) => number) | undefined
  }
}

// The module's memory (bytes): its own tables and results (see
// `assembly/scan.ts`), then the events of one call, then one segment of text.
const bmpAt = 65_536
const supplementaryAt = 73_728
const resultAt = 73_792
const followersAt = 81_920
const followerSetsAt = 147_456
const maxCapacity = 1 << 15
const positionsAt = 155_648
const flagsAt = positionsAt + maxCapacity * 4
const pairsAt = flagsAt + maxCapacity * 2
const textAt = pairsAt + maxCapacity * 4
/** The UTF-16 units of text written into the memory at a time: the memory stays about 1 MiB whatever the text. */
const maxSegment = 1 << 18
/** Units encoded past a segment, for the number shapes that start near its end (they read 10 bytes on). */
const lookahead = 16

interface Machine {
  readonly scan: WasmExports["scan"]
  readonly scan16: WasmExports["scan"]
  /**
   * Copies a string's UTF-16 units into the memory at the text's place, and
   * returns how many: undefined where the runtime has no such copy.
   */
  readonly writeUnits: ((text: string) => number) | undefined
  readonly units: Uint16Array
  readonly bytes: Uint8Array
  readonly positions: Int32Array
  readonly flags: Uint16Array
  /** The word pairs' positions of a call, apart from the other events: copied at once. */
  readonly pairs: Int32Array
  readonly results: Int32Array
  readonly encoder: Utf8Encoder
  /** The plan whose table is in the memory. */
  loaded: Plan | undefined
}

const base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
/** Decodes base64 without `atob` or `Buffer`, which not every runtime the package serves has. */
const fromBase64 = (text: string): Uint8Array => {
  const clean = text.replace(/=+$/, "")
  const out = new Uint8Array((clean.length * 3) >> 2)
  let bits = 0
  let value = 0
  let at = 0
  for (let i = 0; i < clean.length; i++) {
    value = (value << 6) | base64.indexOf(clean[i]!)
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out[at++] = (value >> bits) & 255
    }
  }
  return out
}

/**
 * The copy of a string's UTF-16 units into `buffer` at `at` (up to `length`
 * bytes), where the runtime has one: a Node-style `Buffer` writes them as
 * the runtime holds them, a memory copy, where encoding the text to UTF-8
 * costs a pass of its own (in Node 20, as much as the scan, a sixth of all
 * a clean text's redaction). Only the runtime's own: a `Buffer` a bundle
 * puts on `globalThis` for a browser writes a character at a time, slower
 * than `TextEncoder`. Only if a probe lands unit for unit, lone surrogates
 * too, in the order the module reads (little-endian). Else undefined, and
 * the scan reads UTF-8.
 */
const unitWriter = (buffer: ArrayBuffer, at: number, length: number): ((text: string) => number) | undefined => {
  const api = (globalThis as { readonly Buffer?: BufferApi }).Buffer
  if (typeof api?.from !== "function") return undefined
  try {
    const view = api.from(buffer, at, length)
    const write = view.ucs2Write
    if (typeof write !== "function" || !Function.prototype.toString.call(write).includes("[native code]")) {
      return undefined
    }
    const probe = "a\u00e9\u2028\ud83d\ude00\udc00\ud800z"
    const written = write.call(view, probe, 0)
    const bytes = new Uint8Array(buffer, at, 2 * probe.length)
    for (let i = 0; i < probe.length; i++) {
      const code = probe.charCodeAt(i)
      if (bytes[2 * i] !== (code & 255) || bytes[2 * i + 1] !== code >> 8) return undefined
    }
    if (written !== 2 * probe.length) return undefined
    return (text) => write.call(view, text, 0) >> 1
  } catch {
    return undefined
  }
}

/** The module, instantiated with its memory laid out; undefined where WebAssembly with SIMD cannot run. */
const instantiate = (): Machine | undefined => {
  const api = (globalThis as { readonly WebAssembly?: WasmApi }).WebAssembly
  const Encoder = (globalThis as { readonly TextEncoder?: new() => Utf8Encoder }).TextEncoder
  if (api === undefined || Encoder === undefined) return undefined
  try {
    const binary = fromBase64(TextScanWasm.binary)
    // Without SIMD the module does not validate.
    if (!api.validate(binary)) return undefined
    const exports = new api.Instance(new api.Module(binary), {}).exports as WasmExports
    const need = textAt + 3 * (maxSegment + lookahead) + 64
    const have = exports.memory.buffer.byteLength
    if (need > have) exports.memory.grow(Math.ceil((need - have) / 65_536))
    const buffer = exports.memory.buffer
    const bytes = new Uint8Array(buffer)
    bytes.set(formatBits, bmpAt)
    const ranges = new Uint32Array(buffer, supplementaryAt, 16)
    // Unused ranges hold nothing: first past last.
    for (let k = 0; k < 8; k++) {
      ranges[2 * k] = supplementaryFormats[k]?.[0] ?? 0xffffffff
      ranges[2 * k + 1] = supplementaryFormats[k]?.[1] ?? 0
    }
    if (supplementaryFormats.length > 8) return undefined
    return {
      scan: exports.scan,
      scan16: exports.scan16,
      writeUnits: unitWriter(buffer, textAt, 2 * (maxSegment + lookahead)),
      units: new Uint16Array(buffer, textAt, maxSegment + lookahead + 64),
      bytes,
      positions: new Int32Array(buffer, positionsAt, maxCapacity),
      flags: new Uint16Array(buffer, flagsAt, maxCapacity),
      pairs: new Int32Array(buffer, pairsAt, maxCapacity),
      results: new Int32Array(buffer, resultAt, 3),
      encoder: new Encoder(),
      loaded: undefined
    }
  } catch {
    // A runtime that forbids compiling WebAssembly from bytes (some edge workers): the scan in TypeScript.
    return undefined
  }
}

let machine: Machine | undefined | null = null
/** The WebAssembly scan, instantiated on first use; undefined where it cannot run. */
const wasm = (): Machine | undefined => machine === null ? (machine = instantiate()) : machine

/** How the scan runs: the tests and the benchmark force one or the other. */
let backend: "auto" | "wasm" | "typescript" = "auto"
/** What the WebAssembly scan reads: the text's UTF-16 units where they can be copied (`auto`), or its UTF-8 bytes. */
let input: "auto" | "utf-8" = "auto"
let segmentUnits = maxSegment
let capacity = maxCapacity

/**
 * Chooses how the scan runs (`auto`: WebAssembly where it can), and for the
 * tests, how much text is written into the module's memory at a time and
 * how many events it writes before it returns: small values cross every
 * boundary the loop has. Returns whether WebAssembly can run.
 *
 * @since 0.4.0
 */
export const configure = (options: {
  readonly backend?: "auto" | "wasm" | "typescript" | undefined
  readonly input?: "auto" | "utf-8" | undefined
  readonly segment?: number | undefined
  readonly capacity?: number | undefined
}): boolean => {
  backend = options.backend ?? "auto"
  input = options.input ?? "auto"
  segmentUnits = Math.max(2, Math.min(maxSegment, options.segment ?? maxSegment))
  capacity = Math.max(32, Math.min(maxCapacity, options.capacity ?? maxCapacity))
  return wasm() !== undefined
}

/** The module with the plan's tables in its memory. */
const loaded = (plan: Plan): Machine => {
  const m = wasm()
  if (m === undefined) throw new Error("WebAssembly with SIMD is not available here")
  if (m.loaded !== plan) {
    m.bytes.set(plan.table, 0)
    m.bytes.set(plan.followers, followersAt)
    m.bytes.set(plan.followerSets, followerSetsAt)
    m.loaded = plan
  }
  return m
}

/** Takes the events of a call of the module into the channels: the word pairs' at once, the others one by one. */
const take = (m: Machine, lists: ReadonlyArray<Growing>): void => {
  const { flags, positions, results } = m
  append(lists[pairChannel]!, m.pairs, results[2]!)
  const count = results[0]!
  for (let k = 0; k < count; k++) sort(lists, positions[k]!, flags[k]!)
}

/** Whether this runtime copies a text's UTF-16 units into the module's memory, for {@link scanUnits}. */
export const copiesUnits = (): boolean => wasm()?.writeUnits !== undefined

/** Where the segment from `start` ends: a surrogate pair stays whole, as its code point may be a format character. */
const segmentEnd = (text: string, start: number): number => {
  const end = Math.min(text.length, start + segmentUnits)
  if (end === text.length) return end
  const last = text.charCodeAt(end - 1)
  return last >= 0xd800 && last <= 0xdbff ? end - 1 : end
}

/**
 * The scan over the text's UTF-16 units in WebAssembly, a segment at a
 * time, where the runtime copies them into the memory
 * ({@link copiesUnits}).
 */
export const scanUnits = (plan: Plan, text: string, from: number): Index => {
  const m = loaded(plan)
  const write = m.writeUnits
  if (write === undefined) throw new Error("this runtime cannot copy UTF-16 into the WebAssembly memory")
  const { units } = m
  const lists = Array.from({ length: channelCount }, growing)
  const length = text.length
  const numbers = plan.numbers ? 1 : 0
  for (let start = from; start < length;) {
    const end = segmentEnd(text, start)
    // The segment and the units after it a number shape or a pair reads on into, then zeros.
    const stop = Math.min(length, end + lookahead)
    const written = write(start === 0 && stop === length ? text : text.slice(start, stop))
    units.fill(0, written, written + 32)
    const n = end - start
    let at = 0
    for (;;) {
      const before = start + at > 0 ? text.charCodeAt(start + at - 1) : 0
      const reached = m.scan16(
        textAt,
        at,
        n,
        start + at,
        before < 0x80 ? before : 0x80,
        positionsAt,
        flagsAt,
        pairsAt,
        capacity,
        numbers
      )
      take(m, lists)
      if (reached < 0) return formatFound(from)
      if (reached >= n) break
      at = reached
    }
    start = end
  }
  return indexOf(lists, from)
}

/** The scan over the text's UTF-8 bytes in WebAssembly, a segment at a time. */
export const scanBytes = (plan: Plan, text: string, from: number): Index => {
  const m = loaded(plan)
  const { bytes, encoder, results } = m
  const lists = Array.from({ length: channelCount }, growing)
  const length = text.length
  const numbers = plan.numbers ? 1 : 0
  for (let start = from; start < length;) {
    const end = segmentEnd(text, start)
    const segment = start === 0 && end === length ? text : text.slice(start, end)
    const n = encoder.encodeInto(segment, bytes.subarray(textAt, textAt + 3 * segment.length)).written
    const ahead = encoder.encodeInto(text.slice(end, end + lookahead), bytes.subarray(textAt + n)).written
    bytes.fill(0, textAt + n + ahead, textAt + n + ahead + 32)
    const before = start > 0 ? text.charCodeAt(start - 1) : 0
    let previous = before < 0x80 ? before : 0x80
    let at = 0
    let unit = start
    for (;;) {
      const reached = m.scan(textAt, at, n, unit, previous, positionsAt, flagsAt, pairsAt, capacity, numbers)
      take(m, lists)
      if (reached < 0) return formatFound(from)
      if (reached >= n) break
      at = reached
      unit = results[1]!
      previous = bytes[textAt + at - 1]!
    }
    start = end
  }
  return indexOf(lists, from)
}

/**
 * Scans `text` from `from` (the passes need nothing before it) with the
 * plan: in WebAssembly where it can run, else in TypeScript.
 */
export const index = (plan: Plan, text: string, from: number): Index => {
  if (backend === "typescript") return scanChars(plan, text, from)
  // A few characters (a stream's step) cost less here than a call into the module and a copy.
  if (backend === "wasm" || (text.length - from >= wasmFrom && wasm() !== undefined)) {
    return input === "auto" && copiesUnits() ? scanUnits(plan, text, from) : scanBytes(plan, text, from)
  }
  return scanChars(plan, text, from)
}

/** The least text the WebAssembly scan is called for. */
const wasmFrom = 256

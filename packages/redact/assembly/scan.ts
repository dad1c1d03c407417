// The byte loop of the text scan (`src/TextScan.ts`), in AssemblyScript,
// compiled to WebAssembly with SIMD by `scripts/build-wasm.mjs` and embedded
// in `src/TextScanWasm.ts`. Edit this file, never the embedded bytes: a test
// holds the two together.
//
// It reads the UTF-8 bytes of a text once and writes an event for every
// position where some pass of the redactor may have a hit: the flags of the
// byte pair that ends there (a pair of a word's, a one-character literal, a
// gate's literal), and whether a number of the shapes personal data takes
// starts there. `src/TextScan.ts` holds the same loop in TypeScript, which
// must give the same events: the tests compare the two.
//
// Why WebAssembly: the pair-table loop costs about a third of what it costs
// in JavaScript (no bounds checks, two 8-byte loads give 16 pair keys), and
// SIMD classifies 16 bytes at once for what the table cannot hold: digits
// and separators for number shapes, and whether a block is all ASCII (then
// a byte is a UTF-16 unit and no character can be a format character).
//
// Memory, at fixed offsets (bytes); the caller writes the tables and the text:
//   0       flags of each byte pair, indexed (current << 8 | previous): 65,536 bytes
//   65536   the format characters (Unicode Cf) below U+10000, a bit each: 8,192 bytes
//   73728   the format characters above U+FFFF: 8 ranges, pairs of u32 (first, last)
//   73792   the results of a call: [0] events written, [1] UTF-16 index reached
//   73856   a 16-byte scratch area
//   81920   for each pair key of a word, the set of characters that may follow the pair (0: any): 65,536 bytes
//   147456  those sets, 32 bytes (256 bits) each, set 0 unused: 8,192 bytes

const TABLE: usize = 0
const BMP: usize = 65536
const SUPPLEMENTARY: usize = 73728
const RESULT: usize = 73792
const SCRATCH: usize = 73856
const FOLLOWERS: usize = 81920
const FOLLOWER_SETS: usize = 147456
/** The event flag of a number shape; the table's flags take the low 8 bits. */
const NUMBER: u32 = 256

function isFormat(cp: u32): bool {
  if (cp < 0x10000) return ((<u32> load<u8>(BMP + (cp >> 3)) >> (cp & 7)) & 1) != 0
  for (let k: usize = 0; k < 8; k++) {
    if (cp >= load<u32>(SUPPLEMENTARY + k * 8) && cp <= load<u32>(SUPPLEMENTARY + k * 8 + 4)) return true
  }
  return false
}

/** A bit for each byte of `v` that is an ASCII digit. */
function digitsOf(v: v128): i32 {
  return i8x16.bitmask(i8x16.lt_u(i8x16.sub(v, i8x16.splat(48)), i8x16.splat(10)))
}

/** A bit for each byte of `v` that separates the groups of a number: space, `.` or `-`. */
function separatorsOf(v: v128): i32 {
  return i8x16.bitmask(
    v128.or(v128.or(i8x16.eq(v, i8x16.splat(32)), i8x16.eq(v, i8x16.splat(46))), i8x16.eq(v, i8x16.splat(45)))
  )
}

/** The pair key of the byte `shift / 8` of `w` and the byte after it. */
function pairOf(w: u64, shift: u64): usize {
  return <usize> (<u32> (w >> shift) & 0xffff)
}

function flagsAt(key: usize): u8 {
  return load<u8>(TABLE + key)
}

/**
 * The flags of the pair `key` that ends at `at`, less the word pair's flag
 * when the character after it can follow the pair in none of its words:
 * `da` of `dapi` stops the scan at `data` no more. A character that is not
 * ASCII counts as 0x80, which no word has.
 */
function checked(flags: u32, key: usize, at: usize): u32 {
  if ((flags & 1) == 0) return flags
  const set = <usize> load<u8>(FOLLOWERS + key)
  if (set == 0) return flags
  let next = <u32> load<u8>(at + 1)
  if (next >= 0x80) next = 0x80
  return ((<u32> load<u8>(FOLLOWER_SETS + (set << 5) + (next >> 3)) >> (next & 7)) & 1) != 0 ? flags : flags & ~1
}

/**
 * Scans bytes [start, n) of the text at `text`. `start` is where the text's
 * bytes start or where the last call stopped; `unit` is the UTF-16 index of
 * byte `start` and `previous` the byte before it (0 at the start of the
 * text). The bytes from `n` to `n + 32` must be readable: the text's next
 * characters (a number shape reads ten bytes on) or zeros where it ends.
 *
 * Writes events, positions (UTF-16 indexes) at `positions` and their flags
 * (u16) at `flags`, and returns where it stopped: `n`; or, when fewer than
 * 17 of the `capacity` events are free, the start of the next 16-byte
 * block, to be called again from there once the caller has taken the
 * events; or -1 at the first format character, where the caller folds the
 * text (`Invisible`) and scans the result.
 */
export function scan(
  text: usize,
  start: i32,
  n: i32,
  unit: i32,
  previous: u32,
  positions: usize,
  flags: usize,
  capacity: i32,
  numbers: i32
): i32 {
  let i = start
  let u = unit
  let count = 0
  let prev = previous
  const limit = capacity - 17
  // Digits and separators of the block after the current one: a shape starting
  // in this block reads on into the next.
  let digitsNext = 0
  let separatorsNext = 0
  if (numbers != 0) {
    const v = v128.load(text + i)
    digitsNext = digitsOf(v)
    separatorsNext = separatorsOf(v)
  }
  while (i < n && count <= limit) {
    const p = text + i
    const high = i8x16.bitmask(v128.load(p))
    const end = n - i < 16 ? n - i : 16
    // Number shapes starting in the block: eleven digits, or three digits, a separator and three digits.
    let shapes = 0
    if (numbers != 0) {
      const v = v128.load(p + 16)
      const d = digitsNext | (digitsOf(v) << 16)
      const s = separatorsNext | (separatorsOf(v) << 16)
      digitsNext = d >>> 16
      separatorsNext = s >>> 16
      const d3 = d & (d >>> 1) & (d >>> 2)
      shapes = ((d3 & (d3 >>> 3) & (d3 >>> 6) & (d >>> 9) & (d >>> 10)) | (d3 & (s >>> 3) & (d3 >>> 4))) &
        ((1 << end) - 1)
    }
    if (high == 0) {
      // All ASCII: a byte is a unit. The flags of the 16 pair keys, read from two 8-byte words; most
      // blocks have none, which their union says. Otherwise they are gathered in a vector through the
      // scratch area: one test for the block.
      const w0 = load<u64>(p)
      const w1 = load<u64>(p + 8)
      const f0 = <u32> flagsAt(<usize> (<u32> ((w0 << 8) | <u64> prev) & 0xffff))
      const f1 = <u32> flagsAt(pairOf(w0, 0))
      const f2 = <u32> flagsAt(pairOf(w0, 8))
      const f3 = <u32> flagsAt(pairOf(w0, 16))
      const f4 = <u32> flagsAt(pairOf(w0, 24))
      const f5 = <u32> flagsAt(pairOf(w0, 32))
      const f6 = <u32> flagsAt(pairOf(w0, 40))
      const f7 = <u32> flagsAt(pairOf(w0, 48))
      const f8 = <u32> flagsAt(<usize> (<u32> (w0 >> 56) | (<u32> (w1 & 0xff) << 8)))
      const f9 = <u32> flagsAt(pairOf(w1, 0))
      const f10 = <u32> flagsAt(pairOf(w1, 8))
      const f11 = <u32> flagsAt(pairOf(w1, 16))
      const f12 = <u32> flagsAt(pairOf(w1, 24))
      const f13 = <u32> flagsAt(pairOf(w1, 32))
      const f14 = <u32> flagsAt(pairOf(w1, 40))
      const f15 = <u32> flagsAt(pairOf(w1, 48))
      const any = (f0 | f1 | f2 | f3) | (f4 | f5 | f6 | f7) | (f8 | f9 | f10 | f11) | (f12 | f13 | f14 | f15)
      if ((any | shapes) == 0) {
        prev = <u32> (w1 >> 56)
        u += end
        i += 16
        continue
      }
      store<u8>(SCRATCH, f0)
      store<u8>(SCRATCH + 1, f1)
      store<u8>(SCRATCH + 2, f2)
      store<u8>(SCRATCH + 3, f3)
      store<u8>(SCRATCH + 4, f4)
      store<u8>(SCRATCH + 5, f5)
      store<u8>(SCRATCH + 6, f6)
      store<u8>(SCRATCH + 7, f7)
      store<u8>(SCRATCH + 8, f8)
      store<u8>(SCRATCH + 9, f9)
      store<u8>(SCRATCH + 10, f10)
      store<u8>(SCRATCH + 11, f11)
      store<u8>(SCRATCH + 12, f12)
      store<u8>(SCRATCH + 13, f13)
      store<u8>(SCRATCH + 14, f14)
      store<u8>(SCRATCH + 15, f15)
      let stops = (i8x16.bitmask(i8x16.ne(v128.load(SCRATCH), i8x16.splat(0))) | shapes) & ((1 << end) - 1)
      while (stops != 0) {
        const j = ctz(stops)
        stops &= stops - 1
        const before = j == 0 ? prev : <u32> load<u8>(p + j - 1)
        const key = <usize> ((<u32> load<u8>(p + j) << 8) | before)
        const f = checked(<u32> load<u8>(SCRATCH + j), key, p + j) | (((<u32> shapes >>> j) & 1) * NUMBER)
        if (f == 0) continue
        store<i32>(positions + (<usize> count << 2), u + j)
        store<u16>(flags + (<usize> count << 1), f)
        count++
      }
      u += end
    } else {
      // Some byte is not ASCII: a byte at a time, counting UTF-16 units (one for a character of
      // up to three bytes, two for four) and decoding each character's code point.
      let q = prev
      for (let j = 0; j < end; j++) {
        const b = <u32> load<u8>(p + j)
        const key = <usize> ((b << 8) | q)
        const f = checked(<u32> flagsAt(key), key, p + j) | (((<u32> shapes >>> j) & 1) * NUMBER)
        q = b
        if (f != 0) {
          store<i32>(positions + (<usize> count << 2), u)
          store<u16>(flags + (<usize> count << 1), f)
          count++
        }
        if (b < 0x80) {
          u++
        } else if (b >= 0xc0) {
          let cp: u32
          if (b >= 0xf0) {
            cp = ((b & 7) << 18) | ((<u32> load<u8>(p + j + 1) & 63) << 12) | ((<u32> load<u8>(p + j + 2) & 63) << 6) |
              (<u32> load<u8>(p + j + 3) & 63)
            u += 2
          } else if (b >= 0xe0) {
            cp = ((b & 15) << 12) | ((<u32> load<u8>(p + j + 1) & 63) << 6) | (<u32> load<u8>(p + j + 2) & 63)
            u++
          } else {
            cp = ((b & 31) << 6) | (<u32> load<u8>(p + j + 1) & 63)
            u++
          }
          if (isFormat(cp)) {
            store<i32>(RESULT, count)
            store<i32>(RESULT + 4, u)
            return -1
          }
        }
      }
    }
    prev = <u32> load<u8>(p + 15)
    i += 16
  }
  store<i32>(RESULT, count)
  store<i32>(RESULT + 4, u)
  return i < n ? i : n
}

// The byte loop of the text scan (`src/TextScan.ts`), in AssemblyScript,
// compiled to WebAssembly with SIMD by `scripts/build-wasm.mjs` and embedded
// in `src/TextScanWasm.ts`. Edit this file, never the embedded bytes: a test
// holds the two together.
//
// It reads a text once and writes an event for every position where some
// pass of the redactor may have a hit: the flags of the byte pair that ends
// there (a pair of a word's, a one-character literal, a gate's literal), and
// whether a number of the shapes personal data takes starts there. `scan16`
// reads the text's UTF-16 units, where the runtime copies them into the
// memory at the cost of a memory copy; `scan` its UTF-8 bytes, elsewhere.
// `src/TextScan.ts` holds the same loop in TypeScript, which must give the
// same events: the tests compare the three.
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
//   73792   the results of a call: [0] events written, [1] UTF-16 index reached, [2] word pairs written
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

/** The events of the call so far: in the lists of {@link emit}. */
let count: i32 = 0
let pairCount: i32 = 0

/**
 * Writes the event of the position (a UTF-16 index) `at` with flags `f`:
 * the word pairs' channel, the most frequent by far, as a position in a
 * list of its own at `pairs`, which the caller copies at once; the other
 * flags, if any, as a position at `positions` and its flags (u16) at
 * `flags`, which the caller sorts into channels one by one.
 */
function emit(positions: usize, flags: usize, pairs: usize, at: i32, f: u32): void {
  if ((f & 1) != 0) {
    store<i32>(pairs + (<usize> pairCount << 2), at)
    pairCount++
  }
  const rest = f & ~1
  if (rest != 0) {
    store<i32>(positions + (<usize> count << 2), at)
    store<u16>(flags + (<usize> count << 1), rest)
    count++
  }
}

/**
 * Scans bytes [start, n) of the text at `text`. `start` is where the text's
 * bytes start or where the last call stopped; `unit` is the UTF-16 index of
 * byte `start` and `previous` the byte before it (0 at the start of the
 * text). The bytes from `n` to `n + 32` must be readable: the text's next
 * characters (a number shape reads ten bytes on) or zeros where it ends.
 *
 * Writes events (see {@link emit}) and returns where it stopped: `n`; or,
 * when fewer than 17 of the `capacity` places of either list are free, the
 * start of the next 16-byte block, to be called again from there once the
 * caller has taken the events; or -1 at the first format character, where
 * the caller folds the text (`Invisible`) and scans the result.
 */
export function scan(
  text: usize,
  start: i32,
  n: i32,
  unit: i32,
  previous: u32,
  positions: usize,
  flags: usize,
  pairs: usize,
  capacity: i32,
  numbers: i32
): i32 {
  let i = start
  let u = unit
  count = 0
  pairCount = 0
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
  while (i < n && count <= limit && pairCount <= limit) {
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
      // blocks have none, which their union says. Otherwise they are packed into two words, one vector
      // and one test for the block (built in registers: a vector loaded from the 16 bytes just stored
      // waits for them), and the words kept in the scratch area for the stops to read.
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
      const lo = <u64> f0 | (<u64> f1 << 8) | (<u64> f2 << 16) | (<u64> f3 << 24) | (<u64> f4 << 32) |
        (<u64> f5 << 40) | (<u64> f6 << 48) | (<u64> f7 << 56)
      const hi = <u64> f8 | (<u64> f9 << 8) | (<u64> f10 << 16) | (<u64> f11 << 24) | (<u64> f12 << 32) |
        (<u64> f13 << 40) | (<u64> f14 << 48) | (<u64> f15 << 56)
      store<u64>(SCRATCH, lo)
      store<u64>(SCRATCH + 8, hi)
      const all = i64x2.replace_lane(i64x2.splat(lo), 1, hi)
      let stops = (i8x16.bitmask(i8x16.ne(all, i8x16.splat(0))) | shapes) & ((1 << end) - 1)
      while (stops != 0) {
        const j = ctz(stops)
        stops &= stops - 1
        const before = j == 0 ? prev : <u32> load<u8>(p + j - 1)
        const key = <usize> ((<u32> load<u8>(p + j) << 8) | before)
        const f = checked(<u32> load<u8>(SCRATCH + j), key, p + j) | (((<u32> shapes >>> j) & 1) * NUMBER)
        if (f == 0) continue
        emit(positions, flags, pairs, u + j, f)
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
          emit(positions, flags, pairs, u, f)
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
            store<i32>(RESULT + 8, pairCount)
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
  store<i32>(RESULT + 8, pairCount)
  store<i32>(RESULT + 4, u)
  return i < n ? i : n
}

/**
 * The flags of the word pair `key` that ends at the unit at `at`, as
 * {@link checked} but over UTF-16 units: the unit after it is read.
 */
function checked16(flags: u32, key: usize, at: usize): u32 {
  if ((flags & 1) == 0) return flags
  const set = <usize> load<u8>(FOLLOWERS + key)
  if (set == 0) return flags
  let next = <u32> load<u16>(at + 2)
  if (next >= 0x80) next = 0x80
  return ((<u32> load<u8>(FOLLOWER_SETS + (set << 5) + (next >> 3)) >> (next & 7)) & 1) != 0 ? flags : flags & ~1
}

/**
 * The 16 units at `p` as bytes: an ASCII unit as itself; saturating, any
 * other as 0x80 to 0xff, or 0 (above 0x7fff), neither a digit nor a
 * separator.
 */
function narrowed(p: usize): v128 {
  return i8x16.narrow_i16x8_u(v128.load(p), v128.load(p + 16))
}

/**
 * The same scan as {@link scan}, over the text's UTF-16 code units as the
 * runtime holds them (little-endian, two bytes each), where the runtime can
 * copy them into the memory at once: no encoding to UTF-8 first. `start`
 * and `n` count units, and so does the result; `previous` is the unit
 * before `start` (0x80 for one that is not ASCII, 0 at the start of the
 * text). The 32 units from `n` must be readable: the text's next units, or
 * zeros where it ends. A unit that is not ASCII has no pair, and counts as
 * 0x80 in the pair it makes with the next, as in the scan in TypeScript.
 * Writes its events and returns as {@link scan} does, counting units.
 */
export function scan16(
  text: usize,
  start: i32,
  n: i32,
  unit: i32,
  previous: u32,
  positions: usize,
  flags: usize,
  pairs: usize,
  capacity: i32,
  numbers: i32
): i32 {
  let i = start
  let u = unit
  count = 0
  pairCount = 0
  let prev = previous
  const limit = capacity - 17
  let digitsNext = 0
  let separatorsNext = 0
  if (numbers != 0) {
    const v = narrowed(text + (<usize> i << 1))
    digitsNext = digitsOf(v)
    separatorsNext = separatorsOf(v)
  }
  while (i < n && count <= limit && pairCount <= limit) {
    const p = text + (<usize> i << 1)
    const a = v128.load(p)
    const b = v128.load(p + 16)
    const wide = v128.any_true(v128.and(v128.or(a, b), i16x8.splat(<i16> 0xff80)))
    const end = n - i < 16 ? n - i : 16
    let shapes = 0
    if (numbers != 0) {
      const v = narrowed(p + 32)
      const d = digitsNext | (digitsOf(v) << 16)
      const s = separatorsNext | (separatorsOf(v) << 16)
      digitsNext = d >>> 16
      separatorsNext = s >>> 16
      const d3 = d & (d >>> 1) & (d >>> 2)
      shapes = ((d3 & (d3 >>> 3) & (d3 >>> 6) & (d >>> 9) & (d >>> 10)) | (d3 & (s >>> 3) & (d3 >>> 4))) &
        ((1 << end) - 1)
    }
    if (!wide) {
      // All ASCII: the units narrowed are the bytes the scan over UTF-8 reads, and its loop runs.
      const bytes = i8x16.narrow_i16x8_u(a, b)
      const w0 = i64x2.extract_lane(bytes, 0)
      const w1 = i64x2.extract_lane(bytes, 1)
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
      const lo = <u64> f0 | (<u64> f1 << 8) | (<u64> f2 << 16) | (<u64> f3 << 24) | (<u64> f4 << 32) |
        (<u64> f5 << 40) | (<u64> f6 << 48) | (<u64> f7 << 56)
      const hi = <u64> f8 | (<u64> f9 << 8) | (<u64> f10 << 16) | (<u64> f11 << 24) | (<u64> f12 << 32) |
        (<u64> f13 << 40) | (<u64> f14 << 48) | (<u64> f15 << 56)
      store<u64>(SCRATCH, lo)
      store<u64>(SCRATCH + 8, hi)
      const all = i64x2.replace_lane(i64x2.splat(lo), 1, hi)
      let stops = (i8x16.bitmask(i8x16.ne(all, i8x16.splat(0))) | shapes) & ((1 << end) - 1)
      while (stops != 0) {
        const j = ctz(stops)
        stops &= stops - 1
        const before = j == 0 ? prev : <u32> load<u16>(p + ((<usize> j - 1) << 1))
        const key = <usize> ((<u32> load<u16>(p + (<usize> j << 1)) << 8) | before)
        const f = checked16(<u32> load<u8>(SCRATCH + j), key, p + (<usize> j << 1)) |
          (((<u32> shapes >>> j) & 1) * NUMBER)
        if (f == 0) continue
        emit(positions, flags, pairs, u + j, f)
      }
      prev = <u32> (w1 >> 56)
    } else {
      // Some unit is not ASCII: a unit at a time, each surrogate pair's code point tested for a format character.
      let q = prev
      for (let j = 0; j < end; j++) {
        const at = p + (<usize> j << 1)
        const c = <u32> load<u16>(at)
        if (c < 0x80) {
          const key = <usize> ((c << 8) | q)
          const f = checked16(<u32> flagsAt(key), key, at) | (((<u32> shapes >>> j) & 1) * NUMBER)
          q = c
          if (f != 0) {
            emit(positions, flags, pairs, u + j, f)
          }
          continue
        }
        q = 0x80
        let cp = c
        if (c >= 0xd800 && c <= 0xdbff) {
          const low = <u32> load<u16>(at + 2)
          if (low >= 0xdc00 && low <= 0xdfff) cp = ((c - 0xd800) << 10) + (low - 0xdc00) + 0x10000
        }
        if (isFormat(cp)) {
          store<i32>(RESULT, count)
          store<i32>(RESULT + 8, pairCount)
          store<i32>(RESULT + 4, u + j)
          return -1
        }
      }
      prev = q
    }
    u += end
    i += 16
  }
  store<i32>(RESULT, count)
  store<i32>(RESULT + 8, pairCount)
  store<i32>(RESULT + 4, u)
  return i < n ? i : n
}

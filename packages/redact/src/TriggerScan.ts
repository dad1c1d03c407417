/**
 * The scan: the passes that find where a rule could have something to say
 * (its hits), before any rule is asked. One scan over a table of character
 * pairs finds every token prefix, context word and literal of two or more
 * characters, whatever their number; one substring search runs per
 * one-character literal and one pass per pattern. A pass only says where to
 * look and which detectors to ask, in catalogue order: the rule runner
 * (`RuleRunner`) decides.
 *
 * It is apart from the runner because it is the hot loop, tuned for the
 * machine (UTF-8 bytes read in place of `charCodeAt`, a 64 KiB table that
 * stays in cache) and knows nothing of rules, findings or streams; the
 * runner knows nothing of how a pass finds its hits.
 *
 * @since 0.4.0
 */
import * as Detector from "./Detector.js"

/**
 * A hit of one pass: where it starts, where the pass searches next, and the
 * detectors to try on it in catalogue order. A prefix hit can stand for
 * prefixes that start at different places (`hits[i]` goes with
 * `detectors[i]`); other hits share one `hit`.
 */
export interface Found {
  readonly start: number
  readonly resume: number
  readonly hit: Detector.Hit
  readonly hits: ReadonlyArray<Detector.Hit> | undefined
  readonly detectors: ReadonlyArray<Detector.Detector>
}

export interface Pass {
  /** A hit at `start` is decided once the text up to `start + reach` is known. */
  readonly reach: number
  /** The most characters a trigger reads from where its hit starts: a search finds every hit that fits. */
  readonly trigger: number
  /** How far before the search position a hit can start. */
  readonly back: number
  /** In whole texts, the pass is skipped unless this matches. */
  readonly gate: RegExp | undefined
  readonly find: (text: string, from: number) => Found | undefined
}

export const isAscii = (text: string): boolean => [...text].every((ch) => ch.charCodeAt(0) < 0x80)

// Printable ASCII from the most to the least frequent in tool output, as
// measured on a mix of logs (timestamps, JSON lines, access logs, stack
// traces) and source code, with `_` moved up for snake_case code. A
// character not listed (any non-ASCII) counts as the rarest.
const frequency = " etasinrocd01.l2pu/fmh-_:4\"3*=6,5bg79y8()kETvxR>`AOwI[]S@NCMD<{}FZLGPHqW;BK?j$z|Y#U+X'&!V\\J^Q%~"
const rarity = (ch: string): number => {
  const rank = frequency.indexOf(ch)
  return rank < 0 ? frequency.length : rank
}

export interface PrefixEntry {
  readonly prefix: string
  readonly detector: Detector.Detector
  /** A literal trigger's prefilter, tested where the literal occurs (sticky). */
  readonly filter?: RegExp | undefined
  /** Whether the entry comes from a literal trigger, which names no value for a contextual rule. */
  readonly literal?: boolean | undefined
}

/** A word the trigger scan looks for: a prefix (exact case) or a keyword (any case). */
interface Word {
  readonly text: string
  readonly caseless: boolean
  /** Where in the word the scan's bigram is. */
  readonly offset: number
  /** For a prefix, its detector; for a keyword, the detectors of every keyword it starts with, in catalogue order. */
  readonly detectors: ReadonlyArray<Detector.Detector>
  readonly order: number
  /** The first character's code, lower-cased for a keyword. */
  readonly first: number
  /** Tested where the word occurs (a literal's prefilter). */
  readonly filter: RegExp | undefined
}

// The 500 most frequent pairs of adjacent printable characters in the
// same mix of logs and code, the most frequent first.
const commonPairs = [
  "aterinontesttiesthreoretleeddeseeckemetsic20heckiondusctcoenan.0--nengex14taaromodisalra0.ro26nseant",
  "itce02peidno00ilfe03\":litomscancpaunaccht.ha-1aprs3-6-ursitrtuff-0utelfivert.1rief:\"\",,\"4Ts=10pompas",
  "llulotrn_iueemladuppryrrT1s/12**pi11ade.//gebema\"ts:immo/a2..3plupopd=24a===ifdaay/tpt1..tam7.09sh=>",
  "ttag53ho37ie36prsuvi1/EfINNFFOquhina/vfa:0di.2rcol40ss13t/04/5/1ou9::2eglov1:1lyRewaain__m/**/:3s\"50",
  "cud\"@s<Anuht:4rdeqabGEETdo:55.rutps)4.ltCod,``iat:DEERaf/slubyepauum=4ev-ago=22:-4sp643.ps1816fr1917",
  "Th@c15866:30/2nlvaxpfor.soniigofsltykbeypdnnmbl\"ytxte(e/3:0]b-yprvs.0:d_e_4h1:Mat__aee:/HTANsr23y.=/",
  "n==vlsblh=ew22Ine:bi21ebs,ipsyxar/01oolf[1.6crmi25ynChnf))(s):42>(xeksds4149sce-47=148.e459.v22844ak",
  "43324627wi29A,ow3435.9Do333831Se39fuoge,/n/o.c-sROnpt<uc.i51r]Ar52ccf:OR5456.4bo58ga57.j55js6.59\"sRu",
  "ibg\"[a8.c/.lh-nk.52)Li08ci.8.7pu\")Opx.800678/i600705=P-i73A>6576i-6362751\"70t\"84hr696785716661687274",
  "dd897987828188gi8377-gsair996\"959096T0979392),Er91Ou94E,98Satl().s\"2/k4/4)Ge2/2,zildy\"e)wh+0baMoAp\"l"
].join("")
const pairCost = new Map<string, number>()
for (let i = 0; i + 1 < commonPairs.length; i += 2) {
  const pair = commonPairs.slice(i, i + 2)
  if (!pairCost.has(pair)) pairCost.set(pair, 10_000 - i)
}

/** The farthest into a word its pair may be. */
const maxPairOffset = 12

/**
 * Where a word is looked for from: the two adjacent characters that are
 * rarest together (a pair outside the common ones, of the rarest
 * characters), so that the scan stops as seldom as it can.
 */
const bigramOffset = (word: string, caseless: boolean): number => {
  let best = 0
  let cost = Infinity
  // Within the first few characters: the scan looks back that far from every pair it finds.
  for (let i = 0; i + 1 < word.length && i < maxPairOffset; i++) {
    const pair = caseless ? word.slice(i, i + 2).toLowerCase() : word.slice(i, i + 2)
    // A pair with a space is commoner than any in the table, which leaves spaces out.
    const spaced = pair[0] === " " || pair[1] === " "
    const here = pairCost.get(pair) ?? (spaced ? 11_000 : 2 * frequency.length - rarity(pair[0]!) - rarity(pair[1]!))
    if (here < cost) {
      cost = here
      best = i
    }
  }
  return best
}

/**
 * The UTF-8 bytes of the last text scanned: the scan reads bytes several
 * times faster than `charCodeAt`, and finds the runtime's encoder copies a
 * string at memory speed. A position in the text (a UTF-16 index) is kept
 * with the matching byte offset, moved forward or back one character at a
 * time from where the scan last stopped.
 */
const scanned: {
  text: string | undefined
  bytes: Uint8Array | undefined
  length: number
  /** The cursor: a byte offset where a character starts, and that character's UTF-16 index. */
  byte: number
  unit: number
  /** Whether every character is one byte: then a byte offset is a UTF-16 index. */
  ascii: boolean
} = { text: undefined, bytes: undefined, length: 0, byte: 0, unit: 0, ascii: false }
/** Buffers up to this size are kept between texts. */
const keptBuffer = 1 << 24
let buffer = new Uint8Array(0)
interface Utf8Encoder {
  readonly encodeInto: (text: string, into: Uint8Array) => { readonly read: number; readonly written: number }
}
// Every runtime has one (the WHATWG encoding standard); the package's
// TypeScript library is bare ES2022, which does not declare it. Without one,
// the scan reads `charCodeAt`.
const Encoder = (globalThis as { readonly TextEncoder?: new() => Utf8Encoder }).TextEncoder
const encoder: Utf8Encoder | undefined = Encoder === undefined ? undefined : new Encoder()
/** Above this length, a text that needs more than an eighth more bytes than units is not copied. */
const hugeText = 1 << 22
/** Below this length a copy costs more than it saves. */
const copyFrom = 256

/** A buffer of at least `size` bytes: the kept one when it is large enough. */
const room = (size: number): Uint8Array => {
  if (buffer.length >= size) return buffer
  const fresh = new Uint8Array(size)
  if (size <= keptBuffer) buffer = fresh
  return fresh
}

const bytesOf = (text: string): Uint8Array | undefined => {
  if (encoder === undefined || text.length < copyFrom) return undefined
  if (text === scanned.text) return scanned.bytes
  // The kept buffer is about to be written over: the bytes of the text it held are gone.
  scanned.text = undefined
  // Room for a few non-ASCII characters first; a text with more is encoded
  // again with room for the worst case, three bytes per UTF-16 unit.
  let target = room(text.length + (text.length >> 3) + 64)
  let { read, written } = encoder.encodeInto(text, target)
  if (read < text.length) {
    // A long text that is mostly not ASCII is read with `charCodeAt` rather than copied at three bytes a unit.
    if (text.length > hugeText) return undefined
    target = room(3 * text.length)
    ;({ read, written } = encoder.encodeInto(text, target))
  }
  scanned.text = text
  scanned.bytes = target
  scanned.length = written
  scanned.ascii = written === text.length
  scanned.byte = 0
  scanned.unit = 0
  return scanned.bytes
}

/** Moves the cursor to the character at UTF-16 index `unit` (or just past it, inside a surrogate pair). */
const seek = (bytes: Uint8Array, unit: number): void => {
  if (scanned.ascii) {
    scanned.byte = unit
    scanned.unit = unit
    return
  }
  // Nearer the start than the cursor (a new scan of the same text): from the start.
  if (unit < scanned.unit - unit) {
    scanned.byte = 0
    scanned.unit = 0
  }
  while (scanned.unit < unit && scanned.byte < scanned.length) {
    const lead = bytes[scanned.byte]!
    if (lead < 0x80) {
      scanned.byte++
      scanned.unit++
    } else {
      scanned.byte += lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2
      scanned.unit += lead >= 0xf0 ? 2 : 1
    }
  }
  while (scanned.unit > unit && scanned.byte > 0) {
    scanned.byte--
    while (scanned.byte > 0 && (bytes[scanned.byte]! & 0xc0) === 0x80) scanned.byte--
    scanned.unit -= bytes[scanned.byte]! >= 0xf0 ? 2 : 1
  }
}

/** The table key of the pair that ends at `i`. */
const pairAt = (text: string, i: number): number =>
  (i > 0 ? (text.charCodeAt(i - 1) & 255) << 8 : 0) | (text.charCodeAt(i) & 255)

// The two hot loops, kept small and monomorphic: the first position from
// `from` whose pair has an entry in the table, or -1.
// `present` has a 1 for every pair with an entry: 64 KiB, which stays in
// the processor's cache where the 256 KiB table of buckets would not. The
// pairs are of ASCII characters, so only an ASCII byte can end one; a
// multi-byte character advances the UTF-16 index once (twice for four
// bytes, a surrogate pair) at its lead byte. Returns the UTF-16 index of
// the first stop before `end`, or -1, and leaves the cursor there.
const scanBytes = (bytes: Uint8Array, present: Uint8Array, end: number): number => {
  // Locals only inside the loop: the compiler keeps them in registers.
  let unit = scanned.unit
  let i = scanned.byte
  const length = scanned.length
  let key = i > 0 ? bytes[i - 1]! : 0
  if (scanned.ascii) {
    const stop = end < length ? end : length
    for (; i < stop; i++) {
      key = ((key & 255) << 8) | bytes[i]!
      if (present[key] !== 0) break
    }
    scanned.byte = i
    scanned.unit = i
    return i < stop ? i : -1
  }
  for (; unit < end && i < length; i++) {
    const code = bytes[i]!
    key = ((key & 255) << 8) | code
    if (code < 0x80) {
      if (present[key] !== 0) break
      unit++
    } else if (code >= 0xc0) {
      unit += code >= 0xf0 ? 2 : 1
    }
  }
  scanned.byte = i
  scanned.unit = unit
  return unit < end && i < length ? unit : -1
}
const scanChars = (text: string, present: Uint8Array, from: number, end: number): number => {
  let key = from > 0 ? text.charCodeAt(from - 1) & 255 : 0
  for (let i = from; i < end; i++) {
    key = ((key & 255) << 8) | (text.charCodeAt(i) & 255)
    if (present[key] !== 0) return i
  }
  return -1
}

/**
 * One scan for every prefix and every keyword, whatever their number: a
 * table of the character pairs the words are looked for from says, at each
 * position, whether any word could be there, and only then are the words
 * of that pair compared. An ASCII text is read as bytes (one copy with the
 * runtime's encoder, then a tight loop); any other text with `charCodeAt`,
 * where a pair of characters above 255 shares its entry with an ASCII pair
 * and is ruled out by the comparison. Adding a rule adds entries to the
 * table, not a pass over the text.
 *
 * Hits come out in the order of their starts. Where several words start at
 * the same place, the prefixes come first (in catalogue order), then the
 * longest keyword, which stands for the keywords it starts with.
 */
export const triggerPass = (
  prefixes: ReadonlyArray<PrefixEntry>,
  keywordDetectors: ReadonlyArray<Detector.Detector>
): Pass => {
  const words: Array<Word> = []
  prefixes.forEach((entry, order) => {
    words.push({
      text: entry.prefix,
      caseless: false,
      offset: bigramOffset(entry.prefix, false),
      detectors: [entry.detector],
      order,
      first: entry.prefix.charCodeAt(0),
      filter: entry.filter
    })
  })
  const keywords = new Set<string>()
  for (const d of keywordDetectors) {
    for (const t of d.triggers) if (t._tag === "Keyword") { for (const k of t.keywords) keywords.add(k) }
  }
  for (const k of keywords) {
    const detectors = keywordDetectors.filter((d) =>
      d.triggers.some((t) => t._tag === "Keyword" && t.keywords.some((w) => k.startsWith(w)))
    )
    words.push({
      text: k,
      caseless: true,
      offset: bigramOffset(k, true),
      detectors,
      order: prefixes.length + 1_000 - k.length,
      first: k.charCodeAt(0),
      filter: undefined
    })
  }
  // The pair table: bucket + 1 of the words looked for from each pair of
  // (low bytes of) characters, 0 for none. A one-character word is looked
  // for from every pair it ends.
  const table = new Int32Array(65_536)
  const buckets: Array<Array<Word>> = []
  const add = (key: number, word: Word): void => {
    if (table[key] === 0) {
      buckets.push([])
      table[key] = buckets.length
    }
    buckets[table[key]! - 1]!.push(word)
  }
  const variants = (ch: string, caseless: boolean): ReadonlyArray<number> =>
    caseless && ch.toLowerCase() !== ch.toUpperCase() ?
      [ch.toLowerCase().charCodeAt(0) & 255, ch.toUpperCase().charCodeAt(0) & 255] :
      [ch.charCodeAt(0) & 255]
  let longest = 0
  let maxOffset = 0
  for (const word of words) {
    // A literal's filter reads past the literal: a streaming redactor must hold that much back.
    longest = Math.max(longest, word.text.length + (word.filter === undefined ? 0 : filterReach))
    if (word.text.length === 1) {
      const one: Word = { ...word, offset: -1 }
      for (const code of variants(word.text, word.caseless)) {
        for (let before = 0; before < 256; before++) add((before << 8) | code, one)
      }
      continue
    }
    maxOffset = Math.max(maxOffset, word.offset + 1)
    for (const first of variants(word.text[word.offset]!, word.caseless)) {
      for (const second of variants(word.text[word.offset + 1]!, word.caseless)) add((first << 8) | second, word)
    }
  }
  for (const bucket of buckets) bucket.sort((a, b) => a.order - b.order)
  // The byte scan needs words of ASCII characters, which every built-in rule has.
  const byteScan = words.every((word) => isAscii(word.text))
  const present = new Uint8Array(65_536)
  for (let key = 0; key < 65_536; key++) present[key] = table[key] === 0 ? 0 : 1
  const matches = (text: string, word: Word, start: number): boolean => {
    if (start < 0) return false
    // The first character before the whole word: most stops fail there, at the cost of one load.
    const code = text.charCodeAt(start)
    if (word.caseless) {
      return (code >= 65 && code <= 90 ? code + 32 : code) === word.first &&
        Detector.startsWithCaseless(text, start, word.text)
    }
    if (code !== word.first || !text.startsWith(word.text, start)) return false
    if (word.filter === undefined) return true
    word.filter.lastIndex = start
    return word.filter.test(text)
  }
  // Where `next` last stopped: the position at which it saw its word.
  let seenAt = 0
  /** The earliest start, at `min` or later, of the words in the bucket seen at `i`; -1 if none. */
  const check = (text: string, bucket: ReadonlyArray<Word>, i: number, min: number): number => {
    let found = -1
    for (const word of bucket) {
      const start = i - 1 - word.offset
      if (start >= min && (found < 0 || start < found) && matches(text, word, start)) found = start
    }
    return found
  }
  /**
   * The start of the first word seen at a position from `from` on (where
   * the word's pair ends, `offset + 1` after its start) that starts at
   * `min` or later; -1 if none.
   */
  const next = (text: string, from: number, min: number, limit: number): number => {
    // An integer bound: a loop compared against `Infinity` runs on doubles.
    const end = limit < text.length ? limit : text.length
    const bytes = byteScan ? bytesOf(text) : undefined
    if (bytes !== undefined) {
      seek(bytes, from)
      for (;;) {
        const i = scanBytes(bytes, present, end)
        if (i < 0) return -1
        const found = check(text, buckets[table[pairAt(text, i)]! - 1]!, i, min)
        if (found >= 0) {
          seenAt = i
          return found
        }
        // Past the stop, an ASCII character: one byte, one unit.
        scanned.byte++
        scanned.unit++
      }
    }
    for (let i = from; i < end; i++) {
      i = scanChars(text, present, i, end)
      if (i < 0) return -1
      const found = check(text, buckets[table[pairAt(text, i)]! - 1]!, i, min)
      if (found >= 0) {
        seenAt = i
        return found
      }
    }
    return -1
  }
  /**
   * The words of `bucket` seen at `i` (each starts `offset + 1` before),
   * as one hit list: prefixes in catalogue order, then at each start the
   * longest keyword, which stands for the keywords it starts with.
   */
  const at = (text: string, bucket: ReadonlyArray<Word>, i: number): Found => {
    if (bucket.length === 1) {
      // The usual case: one word for the pair, whose list of detectors the hit shares.
      const word = bucket[0]!
      const start = i - 1 - word.offset
      const end = start + word.text.length
      return { start, resume: i + 1, hit: { start, end, match: undefined }, hits: undefined, detectors: word.detectors }
    }
    let hits: Array<Detector.Hit> | undefined
    let detectors: Array<Detector.Detector> | undefined
    let keywords: Array<Word> | undefined
    let first = i
    for (const word of bucket) {
      const start = i - 1 - word.offset
      if (!matches(text, word, start)) continue
      if (start < first) first = start
      if (word.caseless) {
        const same = keywords?.findIndex((k) => i - 1 - k.offset === start) ?? -1
        if (same < 0) (keywords ??= []).push(word)
        else if (word.text.length > keywords![same]!.text.length) keywords![same] = word
        continue
      }
      ;(hits ??= []).push({ start, end: start + word.text.length, match: undefined })
      ;(detectors ??= []).push(word.detectors[0]!)
    }
    if (keywords !== undefined) {
      for (const keyword of keywords) {
        const start = i - 1 - keyword.offset
        const hit: Detector.Hit = { start, end: start + keyword.text.length, match: undefined }
        // The usual case, a keyword alone, shares its list of detectors.
        if (hits === undefined && keywords.length === 1) {
          return { start, resume: i + 1, hit, hits: undefined, detectors: keyword.detectors }
        }
        for (const detector of keyword.detectors) {
          ;(hits ??= []).push(hit)
          ;(detectors ??= []).push(detector)
        }
      }
    }
    return { start: first, resume: i + 1, hit: hits![0]!, hits, detectors: detectors! }
  }
  return {
    reach: Math.max(longest, ...words.flatMap((word) => word.detectors.map((d) => d.after))),
    trigger: longest,
    // A word is seen where its pair ends, up to `maxOffset` after its start:
    // a later stop can hold a word that starts earlier, as the engine allows.
    back: maxOffset,
    gate: undefined,
    find: (text, from) => {
      // Every word seen from `from` on, wherever it starts: one that starts
      // before `from` is the engine's to discard.
      if (next(text, from, 0, Infinity) < 0) return undefined
      return at(text, buckets[table[pairAt(text, seenAt)]! - 1]!, seenAt)
    }
  }
}

/** How far past its literal a trigger's filter may read (`\([2-9]\d\d\)` reads five characters). */
const filterReach = 32

/**
 * One literal, found with the runtime's substring search. When the trigger
 * has a tighter prefilter, it is checked at each occurrence before anything
 * is allocated: most `(` and `+` in logs are not the start of a phone
 * number.
 */
export const literalPass = (
  literal: string,
  filter: string | undefined,
  detectors: ReadonlyArray<Detector.Detector>
): Pass => {
  const sticky = filter === undefined ? undefined : new RegExp(filter, "y")
  return {
    reach: Math.max(literal.length, ...detectors.map((d) => d.after)),
    trigger: literal.length + (filter === undefined ? 0 : filterReach),
    back: 0,
    gate: undefined,
    find: (text, from) => {
      for (let at = text.indexOf(literal, from); at >= 0; at = text.indexOf(literal, at + 1)) {
        if (sticky !== undefined) {
          sticky.lastIndex = at
          if (!sticky.test(text)) continue
        }
        const hit: Detector.Hit = { start: at, end: at + literal.length, match: undefined }
        return { start: at, resume: at + literal.length, hit, hits: undefined, detectors }
      }
      return undefined
    }
  }
}

export const patternPass = (
  pattern: RegExp,
  maxLength: number,
  overlapping: boolean,
  detectors: ReadonlyArray<Detector.Detector>,
  gate: RegExp | undefined
): Pass => {
  const regex = pattern.global && !pattern.sticky ?
    pattern :
    new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, "") + "g")
  return {
    reach: Math.max(maxLength, ...detectors.map((d) => d.after)),
    trigger: maxLength,
    back: 0,
    gate,
    find: (text, from) => {
      regex.lastIndex = from
      for (;;) {
        const match = regex.exec(text)
        if (match === null) return undefined
        if (match[0].length === 0) {
          regex.lastIndex++
          continue
        }
        const hit: Detector.Hit = { start: match.index, end: match.index + match[0].length, match }
        let resume = hit.end
        if (overlapping) {
          resume = hit.start + 1
          while (resume < hit.end && Detector.isWordChar(text.charCodeAt(resume))) resume++
        }
        return { start: hit.start, resume, hit, hits: undefined, detectors }
      }
    }
  }
}

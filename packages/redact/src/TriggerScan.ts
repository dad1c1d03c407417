/**
 * The scan: the passes that find where a rule could have something to say
 * (its hits), before any rule is asked. One scan over a table of character
 * pairs finds every token prefix, context word and literal of two or more
 * characters, whatever their number; one substring search runs per
 * one-character literal and one pass per pattern. A pass only says where to
 * look and which detectors to ask, in catalogue order: the rule runner
 * (`RuleRunner`) decides.
 *
 * On a text of some length the passes read no text of their own: the text
 * scan (`TextScan`) has found, in one pass for all of them, the positions
 * each pass walks (its candidates), and a pass only checks those. On a
 * short text, or for a pass the text scan cannot serve, a pass searches
 * the text itself, with the same results.
 *
 * It is apart from the runner because it knows nothing of rules, findings
 * or streams; the runner knows nothing of how a pass finds its hits.
 *
 * @since 0.4.0
 */
import * as Detector from "./Detector.js"
import * as TextScan from "./TextScan.js"

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
  /**
   * The first hit from `from` on. With `candidates`, the text scan's
   * positions for this pass in this text, it checks only those (and finds
   * the same hits).
   */
  readonly find: (text: string, from: number, candidates?: TextScan.Candidates) => Found | undefined
}

/** What the text scan looks for on behalf of a trigger pass: the byte pairs its words are looked for from. */
export interface TriggerPass extends Pass {
  /** Undefined when a word is not ASCII: the scan reads bytes, and such a pass searches the text itself. */
  readonly pairs: ReadonlyArray<TextScan.PairKey> | undefined
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
  /**
   * For a prefix, its detector, or the detectors of a run of rules with the
   * same prefix ({@link mergeRuns}); for a keyword, the detectors of every
   * keyword it starts with, in catalogue order.
   */
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
export const bigramOffset = (word: string, caseless: boolean): number => {
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
 * A bucket (in catalogue order) with each run of the same prefix, the same
 * literal of several rules (`://`), made one word with the run's detectors:
 * its hits then share one hit and one list of detectors, where apart each
 * took a hit and a place in lists of its own (most of what the scan
 * allocated). Only a run: the order of the detectors at a start stays the
 * catalogue's.
 */
const mergeRuns = (bucket: ReadonlyArray<Word>): Array<Word> => {
  const out: Array<Word> = []
  for (const word of bucket) {
    const last = out[out.length - 1]
    if (
      last !== undefined && !word.caseless && !last.caseless && last.text === word.text &&
      last.offset === word.offset && last.filter?.source === word.filter?.source
    ) {
      out[out.length - 1] = { ...last, detectors: [...last.detectors, ...word.detectors] }
    } else {
      out.push(word)
    }
  }
  return out
}

/** The table key of the pair that ends at `i`. */
const pairAt = (text: string, i: number): number =>
  (i > 0 ? (text.charCodeAt(i - 1) & 255) << 8 : 0) | (text.charCodeAt(i) & 255)

// The hot loop of a search of the text itself: the first position from
// `from` whose pair has an entry in the table, or -1. `present` has a 1 for
// every pair with an entry: 64 KiB, which stays in the processor's cache
// where the 256 KiB table of buckets would not.
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
 * of that pair compared. The table is read by the text scan (`TextScan`)
 * over the text's bytes, or here over `charCodeAt`, where a pair of
 * characters above 255 shares its entry with an ASCII pair and is ruled out
 * by the comparison. Adding a rule adds entries to the table, not a pass
 * over the text.
 *
 * Hits come out in the order of their starts. Where several words start at
 * the same place, the prefixes come first (in catalogue order), then the
 * longest keyword, which stands for the keywords it starts with.
 */
export const triggerPass = (
  prefixes: ReadonlyArray<PrefixEntry>,
  keywordDetectors: ReadonlyArray<Detector.Detector>
): TriggerPass => {
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
  for (let b = 0; b < buckets.length; b++) buckets[b] = mergeRuns(buckets[b]!.sort((x, y) => x.order - y.order))
  const present = new Uint8Array(65_536)
  for (let key = 0; key < 65_536; key++) present[key] = table[key] === 0 ? 0 : 1
  // The text scan reads UTF-8 bytes: it serves words of ASCII characters, which every built-in rule has.
  const pairs: Array<TextScan.PairKey> | undefined = words.every((word) => isAscii(word.text)) ? [] : undefined
  if (pairs !== undefined) {
    for (let key = 0; key < 65_536; key++) {
      if (table[key] === 0) continue
      // The characters that may follow the pair: the one after it in each word, in both cases for a
      // keyword; any, for a word that ends with it (a one-character word too).
      let followers: Array<number> | undefined = []
      for (const word of buckets[table[key]! - 1]!) {
        const after = word.offset + 2
        if (word.offset < 0 || after >= word.text.length) {
          followers = undefined
          break
        }
        followers.push(...variants(word.text[after]!, word.caseless))
      }
      pairs.push({ previous: key >> 8, current: key & 255, followers })
    }
  }
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
  // Where `next` last stopped: the position at which it saw its word, and the bucket of the pair there.
  let seenAt = 0
  let seen: ReadonlyArray<Word> = []
  /** The earliest start, at `min` or later, of the words in the bucket seen at `i`; -1 if none. */
  const check = (text: string, bucket: ReadonlyArray<Word>, i: number, min: number): number => {
    let found = -1
    for (let w = 0; w < bucket.length; w++) {
      const word = bucket[w]!
      const start = i - 1 - word.offset
      if (start >= min && (found < 0 || start < found) && matches(text, word, start)) found = start
    }
    return found
  }
  // The bucket of each pair key, empty for none: one load per stop of the text scan.
  const noWords: ReadonlyArray<Word> = []
  const bucketOf: Array<ReadonlyArray<Word>> = Array.from(
    { length: 65_536 },
    (_, key) => table[key] === 0 ? noWords : buckets[table[key]! - 1]!
  )
  /**
   * The start of the first word seen at a position from `from` on (where
   * the word's pair ends, `offset + 1` after its start); -1 if none. The
   * positions are the text scan's candidates when given: every position
   * whose pair has an entry, and maybe more (a pair after a character that
   * is not ASCII); else the table is read over the text from `from`.
   */
  const next = (text: string, from: number, candidates: TextScan.Candidates | undefined): number => {
    if (candidates !== undefined) {
      const positions = candidates.positions
      for (let k = TextScan.seek(candidates, from); k < candidates.length; k++) {
        const i = positions[k]!
        const bucket = bucketOf[((text.charCodeAt(i - 1) & 255) << 8) | (text.charCodeAt(i) & 255)]!
        const found = check(text, bucket, i, 0)
        if (found >= 0) {
          candidates.cursor = k
          seenAt = i
          seen = bucket
          return found
        }
      }
      candidates.cursor = candidates.length
      return -1
    }
    const end = text.length
    for (let i = from; i < end; i++) {
      i = scanChars(text, present, i, end)
      if (i < 0) return -1
      const bucket = buckets[table[pairAt(text, i)]! - 1]!
      const found = check(text, bucket, i, 0)
      if (found >= 0) {
        seenAt = i
        seen = bucket
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
    // The longest keyword at each start, in the order their starts are first seen: while there is
    // one start (the usual case), it is kept apart and no list is allocated.
    let keyword: Word | undefined
    let keywords: Array<Word> | undefined
    let first = i
    for (const word of bucket) {
      const start = i - 1 - word.offset
      if (!matches(text, word, start)) continue
      if (start < first) first = start
      if (word.caseless) {
        if (keywords === undefined) {
          if (keyword === undefined) {
            keyword = word
            continue
          }
          if (i - 1 - keyword.offset === start) {
            if (word.text.length > keyword.text.length) keyword = word
            continue
          }
          keywords = [keyword]
        }
        let same = -1
        for (let k = 0; k < keywords.length && same < 0; k++) if (i - 1 - keywords[k]!.offset === start) same = k
        if (same < 0) keywords.push(word)
        else if (word.text.length > keywords[same]!.text.length) keywords[same] = word
        continue
      }
      const hit: Detector.Hit = { start, end: start + word.text.length, match: undefined }
      for (const detector of word.detectors) {
        ;(hits ??= []).push(hit)
        ;(detectors ??= []).push(detector)
      }
    }
    if (keyword !== undefined && keywords === undefined && hits === undefined) {
      // The usual case, a keyword alone, shares its list of detectors.
      const start = i - 1 - keyword.offset
      const hit: Detector.Hit = { start, end: start + keyword.text.length, match: undefined }
      return { start, resume: i + 1, hit, hits: undefined, detectors: keyword.detectors }
    }
    for (const found of keywords ?? (keyword === undefined ? [] : [keyword])) {
      const start = i - 1 - found.offset
      const hit: Detector.Hit = { start, end: start + found.text.length, match: undefined }
      for (const detector of found.detectors) {
        ;(hits ??= []).push(hit)
        ;(detectors ??= []).push(detector)
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
    find: (text, from, candidates) => {
      // Every word seen from `from` on, wherever it starts: one that starts
      // before `from` is the engine's to discard.
      if (next(text, from, candidates) < 0) return undefined
      return at(text, seen, seenAt)
    },
    pairs
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
  const passes = (text: string, at: number): boolean => {
    if (sticky === undefined) return true
    sticky.lastIndex = at
    return sticky.test(text)
  }
  /** The first occurrence from `from` that passes the filter, or -1. */
  const search = (text: string, from: number): number => {
    for (let at = text.indexOf(literal, from); at >= 0; at = text.indexOf(literal, at + 1)) {
      if (passes(text, at)) return at
    }
    return -1
  }
  /** The same, from the text scan's candidates: the occurrences of a one-character literal. */
  const walk = (text: string, from: number, candidates: TextScan.Candidates): number => {
    for (let k = TextScan.seek(candidates, from); k < candidates.length; k++) {
      const at = candidates.positions[k]!
      if (passes(text, at)) {
        candidates.cursor = k
        return at
      }
    }
    candidates.cursor = candidates.length
    return -1
  }
  return {
    reach: Math.max(literal.length, ...detectors.map((d) => d.after)),
    trigger: literal.length + (filter === undefined ? 0 : filterReach),
    back: 0,
    gate: undefined,
    find: (text, from, candidates) => {
      const at = candidates === undefined ? search(text, from) : walk(text, from, candidates)
      if (at < 0) return undefined
      const hit: Detector.Hit = { start: at, end: at + literal.length, match: undefined }
      return { start: at, resume: at + literal.length, hit, hits: undefined, detectors }
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
  // Tried where the text scan's candidates say a match may start (`numberShapes` alone has them).
  const sticky = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, "") + "y")
  return {
    reach: Math.max(maxLength, ...detectors.map((d) => d.after)),
    trigger: maxLength,
    back: 0,
    gate,
    find: (text, from, candidates) => {
      regex.lastIndex = from
      let k = candidates === undefined ? 0 : TextScan.seek(candidates, from)
      for (;;) {
        let match: RegExpExecArray | null = null
        if (candidates === undefined) match = regex.exec(text)
        else {
          // The leftmost match from `from` is the first candidate where the pattern matches.
          for (; k < candidates.length && match === null; k++) {
            sticky.lastIndex = candidates.positions[k]!
            match = sticky.exec(text)
          }
          candidates.cursor = k
        }
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

/**
 * The number shapes personal data takes, the trigger of every digit-based
 * category: eleven digits in a row, or three digits, a separator, three to
 * seven digits and another separator and a digit (every grouped shape:
 * cards 4-4-4 and 4-6-4, phones 3-3-4 and 3-4-4, IDs 6-8-4). A match can
 * start up to three digits into the number; the detectors back up to its
 * start. Spelled out digit by digit on purpose: fixed-length runs let the
 * regular-expression engine skip ahead, which `\d{11}` does not, and the
 * three digits both shapes start with are matched once.
 *
 * The one pattern the text scan knows: it finds where a match may start
 * (eleven digits, or three digits, a separator and three digits) in its
 * one pass, so a pattern trigger with this very expression costs no pass
 * of its own.
 *
 * @since 0.4.0
 */
export const numberShapes = /\d\d\d(?:\d\d\d\d\d\d\d\d|[ .-]\d\d\d\d?\d?\d?\d?\d?[ .-]\d)/g

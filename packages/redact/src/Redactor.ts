/**
 * Removes secrets and personal data from text before it reaches the model,
 * the logs, the traces or the artifact store.
 *
 * Each finding is replaced by a marker that names what was removed
 * (`[REDACTED:github-token]`), so the model knows something was there; the
 * result counts the findings, in total and by rule. The rules are the
 * catalogues in `SecretRules` and `PersonalData`, the values of secrets the
 * application knows, and rules the application adds.
 *
 * The engine reads the text a fixed number of times whatever the number of
 * rules: one scan finds every token prefix, context word and literal of two
 * or more characters (a table of the character pairs they are looked for
 * from, read over the text's bytes), one substring search runs per
 * one-character literal (`@`, `(`) and one pass per pattern. Keyed rules
 * share one detector, which looks up the services a key names. Each hit is
 * verified by its rules in a bounded
 * window; findings are committed in the order of their starts, a finding
 * moves every pass past its end, and the output is assembled once. No
 * pattern can backtrack without bound, and no rule rescans its window from
 * every hit of a long run, so the time is linear in the text. A short text
 * with no trigger at all is returned after a few cheap tests (about 100 ns).
 *
 * Verifiers read the text left of a hit as the output will show it (the
 * previous finding as its marker) and never treat an earlier marker as a
 * secret, so redacting twice gives what redacting once gives. And because
 * every rule reads a bounded window, a streaming redactor can hold back a
 * bounded tail of the text between chunks and decide exactly as on the
 * whole: a secret split across chunks is still removed, and any chunking
 * gives the same output. A stream emits the text before its point of
 * commitment, before which no later text can change the output: no hit yet
 * to be decided starts before it or reads further back than the longest
 * look-behind of any rule, no finding can start before it, and none waits
 * there. It keeps that look-behind (the context) before the point, and a
 * hit found in one scan and decided in a later one moves, with its match,
 * as the stream forgets text. With the built-in rules a stream holds back
 * at most about 34,400 characters (22,402 that a Kubernetes entry is
 * decided on after it, 12,004 of look-behind) besides what a batch
 * accumulates.
 *
 * @since 0.3.0
 */
import * as Detector from "./Detector.js"
import * as PersonalData from "./PersonalData.js"
import * as SecretRules from "./SecretRules.js"
import * as TokenRule from "./TokenRule.js"

/**
 * @since 0.3.0
 * @category models
 */
export interface Redaction {
  readonly text: string
  /** How many secrets were removed. */
  readonly count: number
  /** How many of each rule id. */
  readonly kinds: Readonly<Record<string, number>>
}

/**
 * An application's own rule: a regular expression gated by keywords. A
 * match counts only when one of the keywords (case-insensitive) occurs in
 * it or in the 64 characters before it. When `keep` is set, the match's
 * first capture group (a prefix such as `pin=`) stays. `accept` can veto a
 * match; it sees the second capture group if there is one, else the match
 * without the kept prefix.
 *
 * @since 0.3.0
 * @category models
 */
export interface Rule {
  readonly id: string
  /** Lower-case substrings of which at least one must occur in or just before the match. */
  readonly keywords: ReadonlyArray<string>
  readonly pattern: RegExp
  readonly keep?: boolean | undefined
  readonly accept?: ((secret: string) => boolean) | undefined
  /** The longest a match can be (default 1,024): a streaming redactor holds this much back. */
  readonly maxLength?: number | undefined
}

/**
 * Redacts a text that arrives in chunks. `push` returns the part of the
 * output that is final; `end` returns the rest. The concatenated outputs
 * equal what `redact` gives for the whole text. After `end` the redactor
 * is empty and can take a new text.
 *
 * @since 0.3.0
 * @category models
 */
export interface StreamRedactor {
  readonly push: (chunk: string) => Redaction
  readonly end: () => Redaction
}

/**
 * @since 0.3.0
 * @category models
 */
export interface StreamOptions {
  /**
   * Characters to accumulate before scanning again (default: the farthest
   * any rule reads ahead of a hit, 22,402 characters with the built-in
   * rules). Smaller values emit sooner and rescan more; the output is the
   * same.
   */
  readonly batch?: number | undefined
}

/**
 * A compiled redactor. Building one compiles its rules once; it holds no
 * state between calls, so one instance serves every text and every thread
 * of work.
 *
 * @since 0.3.0
 * @category models
 */
export interface Redactor {
  readonly redact: (text: string) => Redaction
  /** A fresh streaming redactor with the same rules. */
  readonly stream: (options?: StreamOptions) => StreamRedactor
}

/**
 * @since 0.3.0
 * @category constructors
 */
export const marker = (id: string): string => `[REDACTED:${id}]`

/**
 * @since 0.3.0
 * @category rules
 */
export const looksRandom: (value: string) => boolean = SecretRules.looksRandom

/**
 * The built-in secret rules.
 *
 * @since 0.3.0
 * @category rules
 */
export const defaultRules: ReadonlyArray<Detector.Detector> = SecretRules.catalogue

/**
 * @since 0.3.0
 * @category models
 */
export interface Options {
  /** The secret rules, replacing the built-in catalogue ({@link defaultRules}). */
  readonly rules?: ReadonlyArray<Rule | Detector.Detector> | undefined
  /** Rules added to the secret rules. */
  readonly extraRules?: ReadonlyArray<Rule | Detector.Detector> | undefined
  /** The values of secrets the application knows: removed wherever they appear. */
  readonly secrets?: ReadonlyArray<string> | undefined
  /** Which personal data to remove: all categories unless switched off; `false` switches all off. */
  readonly personalData?: PersonalData.Options | false | undefined
}

// ---------------------------------------------------------------------------
// rules into detectors
// ---------------------------------------------------------------------------

const escape = (literal: string): string => literal.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")

/** A case-insensitive source for a word, without the `i` flag: `[kK][eE][yY]`. */
const caseless = (word: string): string =>
  [...word].map((ch) => ch.toLowerCase() === ch.toUpperCase() ? escape(ch) : `[${ch.toLowerCase()}${ch.toUpperCase()}]`)
    .join("")

/** How far before a match a custom rule's keyword may be. */
const keywordWindow = 64

const fromRule = (rule: Rule): Detector.Detector => {
  const keywords = rule.keywords.map((k) => k.toLowerCase())
  const maxLength = rule.maxLength ?? 1_024
  const flags = rule.pattern.flags.replace(/[gy]/g, "") + "g"
  return {
    id: rule.id,
    triggers: [
      Detector.pattern(
        new RegExp(rule.pattern.source, flags),
        maxLength,
        keywords.length === 0 ? undefined : keywords.map(caseless).join("|")
      )
    ],
    before: keywordWindow,
    after: maxLength,
    verify: (context, hit) => {
      const match = hit.match!
      if (keywords.length > 0) {
        const around = context.text.slice(Math.max(0, hit.start - keywordWindow), hit.end).toLowerCase()
        if (!keywords.some((k) => around.includes(k))) return undefined
      }
      const kept = rule.keep === true && typeof match[1] === "string" ? match[1].length : 0
      const secret = typeof match[2] === "string" ? match[2] : match[0].slice(kept)
      if (rule.accept !== undefined && !rule.accept(secret)) return undefined
      return { start: hit.start + kept, end: hit.end }
    }
  }
}

const isRule = (rule: Rule | Detector.Detector): rule is Rule => "pattern" in rule

/** Secrets shorter than this would blank common text. */
const minSecretLength = 4
/** Up to this many known values, each is searched on its own (fast substring search); above, in one pattern. */
const literalSecrets = 8

const knownSecrets = (secrets: ReadonlyArray<string>): ReadonlyArray<string> => {
  const values = new Set<string>()
  for (const value of secrets) {
    if (value.length < minSecretLength) continue
    values.add(value)
    // The same value as it appears inside JSON and inside a URL.
    values.add(JSON.stringify(value).slice(1, -1))
    values.add(encodeURIComponent(value))
  }
  // Longest first, so a secret that contains another is removed whole.
  return [...values].sort((a, b) => b.length - a.length)
}

const knownSecretId = "known-secret"
const isAscii = (text: string): boolean => [...text].every((ch) => ch.charCodeAt(0) < 0x80)

const knownSecretDetector = (values: ReadonlyArray<string>): Detector.Detector => {
  const longest = values[0]!.length
  return {
    id: knownSecretId,
    triggers: values.length <= literalSecrets
      ? values.map((value) => Detector.literal(value))
      : [Detector.pattern(new RegExp(values.map(escape).join("|"), "g"), longest, values.map(escape).join("|"))],
    before: 0,
    after: longest,
    verify: (_, hit) => ({ start: hit.start, end: hit.end })
  }
}

// ---------------------------------------------------------------------------
// the engine
// ---------------------------------------------------------------------------

/**
 * A hit of one pass: where it starts, where the pass searches next, and the
 * detectors to try on it in catalogue order. A prefix hit can stand for
 * prefixes that start at different places (`hits[i]` goes with
 * `detectors[i]`); other hits share one `hit`.
 */
interface Found {
  readonly start: number
  readonly resume: number
  readonly hit: Detector.Hit
  readonly hits: ReadonlyArray<Detector.Hit> | undefined
  readonly detectors: ReadonlyArray<Detector.Detector>
}

interface Pass {
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

/** One test of the prefilter: whether some pass could hit the text. */
type Check = (text: string) => boolean

/**
 * `gate` is cheap; `then`, when present, is the tighter test that runs only
 * once the gate matched (the `@` of an email is cheap to look for; the
 * shape around it is not).
 */
const regexCheck = (gate: RegExp, then: RegExp | undefined): Check => (text) =>
  gate.test(text) && (then === undefined || then.test(text))

interface Finding {
  readonly start: number
  readonly end: number
  readonly id: string
  /** The detector that reads on from `end` once this is committed (`Span.continues`). */
  readonly continues?: Detector.Detector | undefined
  /** The rest of the previous finding, which its marker already stands for: removed with no marker of its own. */
  readonly silent?: boolean | undefined
}

interface Engine {
  readonly passes: ReadonlyArray<Pass>
  /** A text in which some pass could hit passes one of these; undefined when no such test exists. */
  readonly prefilter: ReadonlyArray<Check> | undefined
  readonly maxBefore: number
  /** Characters a stream keeps before the point up to which it has emitted. */
  readonly context: number
  /** Characters a stream accumulates between scans. */
  readonly batch: number
  readonly classify: (context: Detector.Context, at: number) => Detector.Span | undefined
}

// Printable ASCII from the most to the least frequent in tool output, as
// measured on a mix of logs (timestamps, JSON lines, access logs, stack
// traces) and source code, with `_` moved up for snake_case code. A
// character not listed (any non-ASCII) counts as the rarest.
const frequency = " etasinrocd01.l2pu/fmh-_:4\"3*=6,5bg79y8()kETvxR>`AOwI[]S@NCMD<{}FZLGPHqW;BK?j$z|Y#U+X'&!V\\J^Q%~"
const rarity = (ch: string): number => {
  const rank = frequency.indexOf(ch)
  return rank < 0 ? frequency.length : rank
}

interface PrefixEntry {
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
const triggerPass = (
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
const literalPass = (
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

const patternPass = (
  pattern: RegExp,
  maxLength: number,
  overlapping: boolean,
  detectors: ReadonlyArray<Detector.Detector>,
  gate: RegExp | undefined
): Pass => {
  const regex = pattern.global && !pattern.sticky ?
    pattern :
    new RegExp(pattern.source, pattern.flags.replace("y", "") + "g")
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

/** Texts up to this length are tested against the prefilter before any pass runs. */
const prefilterLimit = 2_048
/** The least window a contextual rule's value is classified in: the lead of the `Q~` rule and more; longer prefixes widen it. */
const minClassifyWindow = 24

const compile = (
  detectors: ReadonlyArray<Detector.Detector>,
  known: ReadonlyArray<string>
): Engine => {
  const prefixes: Array<PrefixEntry> = []
  const keywords: Array<Detector.Detector> = []
  const literals = new Map<string, { filter: string | undefined; detectors: Array<Detector.Detector> }>()
  const patterns = new Map<
    RegExp,
    { maxLength: number; overlapping: boolean; detectors: Array<Detector.Detector> }
  >()
  // Prefilter parts: one-character literals (a cheap gate, then their
  // tighter filters) and pattern filters; the trigger scan tests the rest.
  const gates = new Set<string>()
  const filters = new Set<string>()
  const shapes = new Set<string>()
  let filterable = true
  let maxBefore = 0
  let longestPrefix = 0
  for (const detector of detectors) {
    maxBefore = Math.max(maxBefore, detector.before)
    for (const trigger of detector.triggers) {
      switch (trigger._tag) {
        case "Prefix": {
          for (const prefix of trigger.prefixes) {
            prefixes.push({ prefix, detector })
            longestPrefix = Math.max(longestPrefix, prefix.length)
          }
          break
        }
        case "Keyword": {
          if (!keywords.includes(detector)) keywords.push(detector)
          break
        }
        case "Literal": {
          // Literals of two or more ASCII characters are words of the trigger scan: no pass of
          // their own. Not the known secrets: any characters, and one that contains another must
          // be tried first, which their own passes (longest first) guarantee.
          if (trigger.literal.length >= 2 && detector.id !== knownSecretId && isAscii(trigger.literal)) {
            const filter = trigger.prefilter === undefined ? undefined : new RegExp(trigger.prefilter, "y")
            prefixes.push({ prefix: trigger.literal, detector, filter, literal: true })
            break
          }
          const entry = literals.get(trigger.literal) ?? { filter: trigger.prefilter, detectors: [] }
          // Detectors that share a literal share its filter only if they all have it.
          if (entry.filter !== trigger.prefilter) entry.filter = undefined
          if (!entry.detectors.includes(detector)) entry.detectors.push(detector)
          literals.set(trigger.literal, entry)
          gates.add(escape(trigger.literal))
          filters.add(trigger.prefilter ?? escape(trigger.literal))
          break
        }
        case "Pattern": {
          const entry = patterns.get(trigger.pattern) ?? { maxLength: 0, overlapping: false, detectors: [] }
          entry.maxLength = Math.max(entry.maxLength, trigger.maxLength)
          entry.overlapping ||= trigger.overlapping === true
          if (!entry.detectors.includes(detector)) entry.detectors.push(detector)
          patterns.set(trigger.pattern, entry)
          if (trigger.prefilter !== undefined) shapes.add(trigger.prefilter)
          else filterable = false
          break
        }
      }
    }
  }
  const passes: Array<Pass> = []
  const trigger = prefixes.length === 0 && keywords.length === 0 ? undefined : triggerPass(prefixes, keywords)
  if (trigger !== undefined) passes.push(trigger)
  for (const [literal, { detectors: list, filter }] of literals) passes.push(literalPass(literal, filter, list))
  for (const [pattern, { detectors: list, maxLength, overlapping }] of patterns) {
    const sources = list.flatMap((d) =>
      d.triggers.flatMap((t) => t._tag === "Pattern" && t.pattern === pattern ? [t.prefilter] : [])
    )
    const gate = sources.every((g) => g !== undefined) ? new RegExp([...new Set(sources)].join("|")) : undefined
    passes.push(patternPass(pattern, maxLength, overlapping, list, gate))
  }
  const holdBack = Math.max(0, ...passes.map((p) => p.reach))
  const classifyWindow = Math.max(minClassifyWindow, longestPrefix + 6)
  // Only prefixes name what a contextual rule found: a keyword there is the next assignment, not its value.
  const named = prefixes.filter((entry) => entry.literal !== true)
  const prefixTrigger = named.length === 0 ? undefined : triggerPass(named, [])
  const classify = (context: Detector.Context, at: number): Detector.Span | undefined => {
    const text = context.text
    if (prefixTrigger !== undefined) {
      const window = text.slice(at, at + classifyWindow)
      for (
        let found = prefixTrigger.find(window, 0);
        found !== undefined;
        found = prefixTrigger.find(window, found.resume)
      ) {
        for (let i = 0; i < found.detectors.length; i++) {
          const local = found.hits?.[i] ?? found.hit
          const detector = found.detectors[i]!
          const span = detector.verify(context, { start: at + local.start, end: at + local.end, match: undefined })
          if (span !== undefined && span.start === at) return { ...span, id: span.id ?? detector.id }
        }
      }
    }
    for (const value of known) {
      if (text.startsWith(value, at)) return { start: at, end: at + value.length, id: "known-secret" }
    }
    return undefined
  }
  const checks: Array<Check> = [
    ...(gates.size === 0 ? [] : [regexCheck(new RegExp([...gates].join("|")), new RegExp([...filters].join("|")))]),
    // Shapes one by one: joined, they cost more than apart.
    ...[...shapes].map((shape) => regexCheck(new RegExp(shape), undefined)),
    ...(trigger === undefined ? [] : [(text: string) => trigger.find(text, 0) !== undefined])
  ]
  return {
    passes,
    prefilter: filterable ? checks : undefined,
    maxBefore: Math.max(maxBefore, markerIdLength + markerOpening.length) + 2,
    context: Math.max(maxBefore, longestPrefix, keywordWindow, markerIdLength + markerOpening.length) + 4,
    batch: Math.max(4_096, holdBack),
    classify
  }
}

interface PassState {
  next: Found | undefined
  from: number
  blocked: boolean
  done: boolean
  gate: boolean | undefined
}

interface ScanState {
  readonly passes: Array<PassState>
  /** Per detector, the position before which its hits are known to hold nothing (`Context.skip`). */
  readonly skips: Map<Detector.Detector, number>
  /** The end of the last committed finding. */
  floor: number
  /** Findings verified but not committed yet, by start: a hit before their start may still come first. */
  readonly pending: Array<Finding>
  /**
   * Where the last committed finding goes on (`Span.continues`), while the
   * text there is not all known yet: nothing is committed past it first.
   */
  continuation: Continuation | undefined
}

interface Continuation {
  readonly at: number
  readonly detector: Detector.Detector
  /** The id of the finding it continues, whose marker stands for it. */
  readonly id: string
}

/** Verifies at `at` what a committed finding goes on into, or says it cannot yet: the text there is not all known. */
type Resume = (detector: Detector.Detector, at: number) => Detector.Span | undefined | "later"

const freshState = (engine: Engine): ScanState => ({
  passes: engine.passes.map(() => ({ next: undefined, from: 0, blocked: false, done: false, gate: undefined })),
  skips: new Map(),
  floor: 0,
  pending: [],
  continuation: undefined
})

/** Keeps `pending` sorted by start; of two with the same start, the first found wins. */
const defer = (pending: Array<Finding>, finding: Finding): void => {
  let i = pending.length
  while (i > 0 && pending[i - 1]!.start > finding.start) i--
  pending.splice(i, 0, finding)
}

/**
 * Commits the pending findings that start at or before `horizon`, in order,
 * each followed by what it goes on into (`Span.continues`); while that waits
 * for text, nothing after it. A finding that starts inside a committed one
 * is dropped at once, whatever its start: it can never be committed, and
 * left pending it would hold a stream's point of commitment inside the
 * committed finding, whose tail would then be emitted as text.
 */
const commit = (state: ScanState, horizon: number, findings: Array<Finding>, resume: Resume): boolean => {
  // Whether anything changed: the caller looks again at what may come next.
  let committed = extend(state, findings, resume)
  for (;;) {
    while (state.pending.length > 0 && state.pending[0]!.start < state.floor) state.pending.shift()
    if (state.continuation !== undefined || state.pending.length === 0 || state.pending[0]!.start > horizon) break
    const finding = state.pending.shift()!
    findings.push(finding)
    state.floor = finding.end
    committed = true
    if (finding.continues !== undefined) {
      state.continuation = { at: finding.end, detector: finding.continues, id: finding.id }
      extend(state, findings, resume)
    }
  }
  return committed
}

/**
 * Commits what the last committed finding goes on into, piece after piece,
 * before anything else: it starts where that finding ends, so nothing can
 * come first. Stops where a piece waits for text not known yet. Returns
 * whether it decided anything (a piece, or that nothing goes on): what was
 * held back behind it is free.
 */
const extend = (state: ScanState, findings: Array<Finding>, resume: Resume): boolean => {
  let decided = false
  for (let next = state.continuation; next !== undefined; next = state.continuation) {
    const span = resume(next.detector, next.at)
    if (span === "later") break
    state.continuation = undefined
    decided = true
    if (span === undefined || span.start !== next.at || span.end <= next.at) break
    findings.push({ start: next.at, end: span.end, id: next.id, silent: true })
    state.floor = span.end
    if (span.continues !== undefined) state.continuation = { at: span.end, detector: span.continues, id: next.id }
  }
  return decided
}

/**
 * Processes hits in text order and commits findings in the order of their
 * starts, appending them to `findings`. A contextual rule can find its
 * secret well after its trigger (`curl … -u user:PASSWORD`); that finding
 * waits until every hit before its start has been processed, so an email
 * address between the two is still found, as it would be once the password
 * is a marker.
 *
 * With `final`, the text is complete; otherwise a hit is processed only
 * once the text holds its whole window. Returns the position before which
 * the output is final.
 */
const scan = (
  engine: Engine,
  text: string,
  state: ScanState,
  final: boolean,
  findings: Array<Finding>
): number => {
  const passes = engine.passes
  const length = text.length
  let verifying: Detector.Detector | undefined
  const context = {
    text,
    floor: state.floor,
    classify: (at: number) => {
      // A verification inside another one records nothing: its hit is not one of the pass's.
      const outer = verifying
      verifying = undefined
      const span = engine.classify(context, at)
      verifying = outer
      return span
    },
    skip: (until: number) => {
      if (verifying !== undefined && until > (state.skips.get(verifying) ?? 0)) state.skips.set(verifying, until)
    }
  }
  const resume: Resume = (detector, at) => {
    if (!final && at + detector.after > length) return "later"
    context.floor = state.floor
    const span = detector.verify(context, { start: at, end: at, match: undefined })
    // Idempotence, as for any finding: an earlier marker ends what goes on.
    const marker = span === undefined || !holdsMarker ? -1 : text.slice(at, span.end).indexOf(markerOpening)
    return marker < 0 ? span : { start: at, end: at + marker }
  }
  // The passes that may still hit: a finished one is dropped from the loop
  // that runs once per hit.
  const live: Array<number> = []
  for (let i = 0; i < passes.length; i++) {
    state.passes[i]!.blocked = false
    if (!state.passes[i]!.done) live.push(i)
  }
  // Text without a marker (any text redacted for the first time) has no
  // hit inside one: the walk back over the word of every hit is skipped.
  // `ACTED:` is searched rather than the whole opening: on two-byte text
  // V8 finds a six-character needle several times faster than a longer one.
  const holdsMarker = text.includes(markerOpening.slice(4))
  let horizon = Infinity
  const gates = new Map<string, boolean>()
  for (;;) {
    let best: PassState | undefined
    let bestStart = Infinity
    let blockedAt = Infinity
    for (let j = 0; j < live.length; j++) {
      const pass = passes[live[j]!]!
      const ps = state.passes[live[j]!]!
      if (ps.next !== undefined && ps.next.start < state.floor) {
        // The hit overlaps a finding: search again from the finding's end,
        // since another hit may start inside what this one matched.
        ps.next = undefined
        ps.from = state.floor
      }
      if (ps.next === undefined && !ps.done && !ps.blocked) {
        if (final && pass.gate !== undefined && ps.gate === undefined) {
          // Passes with the same gate (one rule's variants) test the text once.
          ps.gate = gates.get(pass.gate.source) ?? pass.gate.test(text)
          gates.set(pass.gate.source, ps.gate)
        }
        const from = Math.max(ps.from, state.floor)
        const found = ps.gate === false || from >= length ? undefined : pass.find(text, from)
        if (found === undefined) {
          if (final) {
            ps.done = true
            live.splice(j--, 1)
            continue
          } else {
            // No trigger fits before the end; one may start in its last characters.
            ps.blocked = true
            ps.from = Math.max(from, length - pass.trigger + 1)
          }
        } else if (!final && found.start + pass.reach > length) {
          // Not decided yet. A later search finds no hit before this one but
          // one that reads past the end of the text so far: it can resume
          // there, and until then nothing before it is held back for this pass.
          ps.blocked = true
          ps.from = Math.max(from, Math.min(found.start, length - pass.trigger + 1))
        } else {
          ps.next = found
          ps.from = found.resume
        }
      }
      if (ps.next !== undefined) {
        if (ps.next.start < bestStart) {
          best = ps
          bestStart = ps.next.start
        }
      } else if (ps.blocked && ps.from - pass.back < blockedAt) {
        blockedAt = ps.from - pass.back
      }
    }
    // What the last finding goes on into comes first, once its text is known.
    if (state.continuation !== undefined && state.continuation.at < blockedAt) blockedAt = state.continuation.at
    // No hit remains before `horizon`: pending findings up to there are settled.
    horizon = Math.min(bestStart, blockedAt)
    if (commit(state, horizon, findings, resume)) continue
    if (best === undefined || bestStart >= blockedAt) break
    const found = best.next!
    best.next = undefined
    context.floor = state.floor
    for (let i = 0; i < found.detectors.length; i++) {
      const hit = found.hits?.[i] ?? found.hit
      const detector = found.detectors[i]!
      if (
        hit.start < state.floor || (state.skips.size > 0 && hit.start < (state.skips.get(detector) ?? 0)) ||
        (holdsMarker && insideMarker(text, hit.start))
      ) {
        continue
      }
      verifying = detector
      const span = detector.verify(context, hit)
      verifying = undefined
      if (span === undefined || span.start < state.floor || span.end <= span.start) continue
      // Idempotence: a marker left by an earlier redaction is never (part of) a secret.
      if (holdsMarker && (insideMarker(text, span.start) || text.slice(span.start, span.end).includes(markerOpening))) {
        continue
      }
      defer(state.pending, { start: span.start, end: span.end, id: span.id ?? detector.id, continues: span.continues })
      break
    }
  }
  if (final) {
    commit(state, Infinity, findings, resume)
    return length
  }
  // No later hit starts before `horizon` or reads further back than
  // `maxBefore` from its start, and none can start a finding before the
  // floor; a pending finding (which starts at or after the floor) may still
  // lose to a hit before it. Before that point no later text can change the
  // output.
  const settled = Math.max(state.floor, horizon - engine.maxBefore)
  // Pending findings start at or after the floor (`commit` drops the others).
  return Math.min(length, state.pending.length > 0 ? Math.min(settled, state.pending[0]!.start) : settled)
}

/** The longest marker id a hit inside a marker is recognised behind. */
const markerIdLength = 40
const markerOpening = "[REDACTED:"

/**
 * Whether `at` is inside the id of a marker left by an earlier redaction:
 * `secret` in `[REDACTED:aws-secret-access-key]` must not start a finding,
 * or redacting twice would differ from redacting once.
 */
const insideMarker = (text: string, at: number): boolean => {
  let start = at
  while (start > 0 && at - start < markerIdLength && isMarkerIdChar(text.charCodeAt(start - 1))) start--
  return start >= markerOpening.length && text.startsWith(markerOpening, start - markerOpening.length)
}
const isMarkerIdChar = (code: number): boolean => Detector.isWordChar(code) || code === 45 || code === 46

const empty: Readonly<Record<string, number>> = Object.freeze({})

const markers = new Map<string, string>()
const markerOf = (id: string): string => {
  let m = markers.get(id)
  if (m === undefined) {
    m = marker(id)
    markers.set(id, m)
  }
  return m
}

/** The text from `from` to `to` with the findings (all inside it) replaced by markers. */
const assemble = (text: string, findings: ReadonlyArray<Finding>, from: number, to: number): Redaction => {
  if (findings.length === 0) {
    return { text: from === 0 && to === text.length ? text : text.slice(from, to), count: 0, kinds: empty }
  }
  const parts: Array<string> = []
  const kinds: Record<string, number> = {}
  let at = from
  let count = 0
  for (const finding of findings) {
    parts.push(text.slice(at, finding.start))
    at = finding.end
    // The rest of a finding goes with its marker, which may have gone out already.
    if (finding.silent === true) continue
    parts.push(markerOf(finding.id))
    kinds[finding.id] = (kinds[finding.id] ?? 0) + 1
    count++
  }
  parts.push(text.slice(at, to))
  return { text: parts.join(""), count, kinds }
}

// A hit found in one scan of a stream and verified in a later one moves
// with the text the stream forgets in between: its match too, whose
// `index` a verifier reads as the hit's position (a Kubernetes entry is
// verified only where its match starts, so a match left behind made the
// entry fail and leak).
const shiftHit = (hit: Detector.Hit, by: number): Detector.Hit => ({
  start: hit.start - by,
  end: hit.end - by,
  match: hit.match === undefined ? undefined : shiftMatch(hit.match, by)
})

const shiftMatch = (match: RegExpExecArray, by: number): RegExpExecArray => {
  const shifted = match.slice() as RegExpExecArray
  shifted.index = match.index - by
  shifted.input = match.input
  if (match.groups !== undefined) shifted.groups = match.groups
  return shifted
}

const shiftFound = (found: Found, by: number): Found => ({
  start: found.start - by,
  resume: found.resume - by,
  hit: shiftHit(found.hit, by),
  hits: found.hits?.map((hit) => shiftHit(hit, by)),
  detectors: found.detectors
})

const streamOf = (engine: Engine, options: StreamOptions | undefined): StreamRedactor => {
  const batch = Math.max(1, options?.batch ?? engine.batch)
  let buffer = ""
  let emitted = 0
  let scanned = 0
  let state = freshState(engine)
  const step = (final: boolean): Redaction => {
    const findings: Array<Finding> = []
    const commit = scan(engine, buffer, state, final, findings)
    const out = assemble(buffer, findings, emitted, commit)
    if (final) {
      buffer = ""
      emitted = 0
      scanned = 0
      state = freshState(engine)
      return out
    }
    // Everything before `commit` is settled; keep a little of it as context
    // for look-behinds and word boundaries, and forget the rest.
    const drop = Math.max(0, commit - engine.context)
    for (const ps of state.passes) {
      ps.from = Math.max(ps.from, commit) - drop
      if (ps.next !== undefined) ps.next = shiftFound(ps.next, drop)
    }
    state.floor = Math.max(0, state.floor - drop)
    for (const [detector, until] of state.skips) {
      if (until - drop <= 0) state.skips.delete(detector)
      else state.skips.set(detector, until - drop)
    }
    for (let i = 0; i < state.pending.length; i++) {
      const finding = state.pending[i]!
      state.pending[i] = { ...finding, start: finding.start - drop, end: finding.end - drop }
    }
    if (state.continuation !== undefined) {
      state.continuation = { ...state.continuation, at: state.continuation.at - drop }
    }
    buffer = buffer.slice(drop)
    emitted = commit - drop
    scanned = buffer.length
    return out
  }
  return {
    push: (chunk) => {
      buffer += chunk
      return buffer.length - scanned < batch ? { text: "", count: 0, kinds: empty } : step(false)
    },
    end: () => step(true)
  }
}

const mayHit = (engine: Engine, text: string): boolean => {
  const tests = engine.prefilter
  if (tests === undefined) return true
  for (let i = 0; i < tests.length; i++) if (tests[i]!(text)) return true
  return false
}

/**
 * Builds a redactor from the built-in catalogues (or `rules`), the
 * application's extra rules, and the actual values of secrets it knows
 * (its own API keys), which are removed wherever they appear, whatever
 * their shape, also JSON-escaped or URL-encoded.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (options?: Options): Redactor => {
  const known = knownSecrets(options?.secrets ?? [])
  const rules = [...(options?.rules ?? SecretRules.catalogue), ...(options?.extraRules ?? [])]
  const detectors: Array<Detector.Detector> = [
    ...(known.length === 0 ? [] : [knownSecretDetector(known)]),
    ...TokenRule.mergeKeyed(rules.map((rule) => isRule(rule) ? fromRule(rule) : rule)),
    ...PersonalData.detectors(options?.personalData)
  ]
  const engine = compile(detectors, known)
  return {
    redact: (text) => {
      if (engine.passes.length === 0 || (text.length <= prefilterLimit && !mayHit(engine, text))) {
        return { text, count: 0, kinds: empty }
      }
      const findings: Array<Finding> = []
      scan(engine, text, freshState(engine), true, findings)
      return assemble(text, findings, 0, text.length)
    },
    stream: (options) => streamOf(engine, options)
  }
}

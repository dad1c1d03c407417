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
 * rules: one scan (`TextScan`, in WebAssembly with SIMD where it can run)
 * finds every token prefix, context word and literal (a table of the
 * character pairs they are looked for from, read over the text's bytes),
 * every one-character literal (`@`, `(`), the number shapes personal data
 * takes, the literal that gates a pattern, and whether the text holds a
 * character that shows as nothing; then one pass runs per other pattern (an
 * application's rules, Kubernetes manifests where their gate matched). Keyed
 * rules share one detector, which looks up the services a key names. Each
 * hit is verified by its rules in a bounded window; findings are committed in the order of their starts, a finding
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
 * The face is this module: the rules an application gives, turned into
 * detectors, the output assembled with its markers, and the stream. The
 * engine behind it is three modules: the one pass over the text
 * (`TextScan`), the passes that turn what it found into hits
 * (`TriggerScan`), and the rule runner that verifies them and commits the
 * findings (`RuleRunner`).
 *
 * @since 0.3.0
 */
import * as Detector from "./Detector.js"
import * as Invisible from "./Invisible.js"
import * as PersonalData from "./PersonalData.js"
import * as RuleRunner from "./RuleRunner.js"
import * as SecretRules from "./SecretRules.js"
import * as TokenRule from "./TokenRule.js"
import type * as TriggerScan from "./TriggerScan.js"

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
  /**
   * Replaces the built-in secret catalogue ({@link defaultRules}) with these
   * rules: every format they do not cover is then kept (`[]` removes no
   * secret at all). For a catalogue of your own that covers the built-in
   * one; to add rules, use `extraRules`.
   */
  readonly replaceDefaultRules?: ReadonlyArray<Rule | Detector.Detector> | undefined
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

/** A case-insensitive source for a word, without the `i` flag: `[kK][eE][yY]`. */
const caseless = (word: string): string =>
  [...word].map((ch) =>
    ch.toLowerCase() === ch.toUpperCase() ? RuleRunner.escape(ch) : `[${ch.toLowerCase()}${ch.toUpperCase()}]`
  )
    .join("")

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
    before: RuleRunner.keywordWindow,
    after: maxLength,
    verify: (context, hit) => {
      const match = hit.match!
      if (keywords.length > 0) {
        const around = context.text.slice(Math.max(0, hit.start - RuleRunner.keywordWindow), hit.end).toLowerCase()
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

const knownSecretDetector = (values: ReadonlyArray<string>): Detector.Detector => {
  const longest = values[0]!.length
  return {
    id: RuleRunner.knownSecretId,
    triggers: values.length <= literalSecrets
      ? values.map((value) => Detector.literal(value))
      : [
        Detector.pattern(
          new RegExp(values.map(RuleRunner.escape).join("|"), "g"),
          longest,
          values.map(RuleRunner.escape).join("|")
        )
      ],
    before: 0,
    after: longest,
    verify: (_, hit) => ({ start: hit.start, end: hit.end })
  }
}

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
const assemble = (text: string, findings: ReadonlyArray<RuleRunner.Finding>, from: number, to: number): Redaction => {
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

const shiftFound = (found: TriggerScan.Found, by: number): TriggerScan.Found => ({
  start: found.start - by,
  resume: found.resume - by,
  hit: shiftHit(found.hit, by),
  hits: found.hits?.map((hit) => shiftHit(hit, by)),
  detectors: found.detectors
})

// The findings of a scan of the folded text, in the original's positions: a
// finding covers the invisible characters inside it, not those around it.
const unfold = (
  findings: ReadonlyArray<RuleRunner.Finding>,
  folded: Invisible.Folded
): ReadonlyArray<RuleRunner.Finding> =>
  folded.at === folded.endAt ? findings : findings.map((finding) => {
    const start = folded.at(finding.start)
    return { ...finding, start, end: Math.max(start, folded.endAt(finding.end)) }
  })

const streamOf = (engine: RuleRunner.Engine, options: StreamOptions | undefined): StreamRedactor => {
  const batch = Math.max(1, options?.batch ?? engine.batch)
  let buffer = ""
  let emitted = 0
  let scanned = 0
  let state = RuleRunner.freshState(engine)
  // Whether the buffer may hold a format character: each chunk is tested as
  // it comes (with the character before it, which may be the first half of
  // a pair), and the buffer is folded only while one may be there.
  let formats = false
  // The last character pushed: read from the buffer, it would flatten the string built by appending.
  let last = ""
  // `buffer`, `emitted` and `scanned` count the original text; the scan's
  // state counts the folded text the rules read.
  const step = (final: boolean): Redaction => {
    const findings: Array<RuleRunner.Finding> = []
    const folded = formats ? Invisible.fold(buffer) : Invisible.unchanged(buffer)
    formats = folded.text !== buffer
    const commit = RuleRunner.scan(engine, folded.text, state, final, findings)
    const committed = folded.at(commit)
    const out = assemble(buffer, unfold(findings, folded), emitted, committed)
    if (final) {
      buffer = ""
      emitted = 0
      scanned = 0
      formats = false
      last = ""
      state = RuleRunner.freshState(engine)
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
    // The folded text of what is kept is the folded text past `drop`: the
    // invisible characters before it go with what is forgotten.
    const dropped = folded.at(drop)
    buffer = buffer.slice(dropped)
    emitted = committed - dropped
    scanned = buffer.length
    return out
  }
  return {
    push: (chunk) => {
      formats ||= Invisible.hasFormat(last + chunk)
      if (chunk.length > 0) last = chunk[chunk.length - 1]!
      buffer += chunk
      return buffer.length - scanned < batch ? { text: "", count: 0, kinds: empty } : step(false)
    },
    end: () => step(true)
  }
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
  const rules = [...(options?.replaceDefaultRules ?? SecretRules.catalogue), ...(options?.extraRules ?? [])]
  const detectors: Array<Detector.Detector> = [
    ...(known.length === 0 ? [] : [knownSecretDetector(known)]),
    ...TokenRule.mergeKeyed(rules.map((rule) => isRule(rule) ? fromRule(rule) : rule)),
    ...PersonalData.detectors(options?.personalData)
  ]
  const engine = RuleRunner.compile(detectors, known)
  return {
    redact: (text) => {
      if (engine.passes.length === 0) return { text, count: 0, kinds: empty }
      // One scan finds every pass's candidates and whether the text holds a format character;
      // only then is the text folded, and the folded text scanned again.
      let index = RuleRunner.index(engine, text)
      const folded = index === undefined || index.format ? Invisible.fold(text) : Invisible.unchanged(text)
      const view = folded.text
      if (index?.format === true) index = RuleRunner.index(engine, view)
      // A short text is first tested for any trigger at all; a scanned one has its candidates.
      if (index === undefined && view.length <= RuleRunner.prefilterLimit && !RuleRunner.mayHit(engine, view)) {
        return { text, count: 0, kinds: empty }
      }
      const findings: Array<RuleRunner.Finding> = []
      RuleRunner.scan(engine, view, RuleRunner.freshState(engine), true, findings, index)
      return assemble(text, unfold(findings, folded), 0, text.length)
    },
    stream: (options) => streamOf(engine, options)
  }
}

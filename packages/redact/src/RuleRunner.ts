/**
 * The rule runner: compiles detectors into the scan's passes and a
 * prefilter, then takes the hits the passes find in text order, asks their
 * rules to verify each in its bounded window, and commits the findings in
 * the order of their starts. Whether a text is complete (`final`) or part of
 * a stream, it says up to where the output can no longer change.
 *
 * It is apart from `Redactor` because it is the engine behind the face: the
 * face builds detectors from an application's rules and secrets and
 * assembles the output, the runner decides what is a finding. It is apart
 * from the scan (`TriggerScan`) because deciding and committing findings is
 * a different concern from finding hits fast.
 *
 * @since 0.4.0
 */
import * as Detector from "./Detector.js"
import * as TextScan from "./TextScan.js"
import * as TriggerScan from "./TriggerScan.js"

export const escape = (literal: string): string => literal.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")

/** How far before a match a custom rule's keyword may be. */
export const keywordWindow = 64

export const knownSecretId = "known-secret"

/** One test of the prefilter: whether some pass could hit the text. */
type Check = (text: string) => boolean

/**
 * `gate` is cheap; `then`, when present, is the tighter test that runs only
 * once the gate matched (the `@` of an email is cheap to look for; the
 * shape around it is not).
 */
const regexCheck = (gate: RegExp, then: RegExp | undefined): Check => (text) =>
  gate.test(text) && (then === undefined || then.test(text))

export interface Finding {
  readonly start: number
  readonly end: number
  readonly id: string
  /** The detector that reads on from `end` once this is committed (`Span.continues`). */
  readonly continues?: Detector.Detector | undefined
  /** The rest of the previous finding, which its marker already stands for: removed with no marker of its own. */
  readonly silent?: boolean | undefined
}

export interface Engine {
  readonly passes: ReadonlyArray<TriggerScan.Pass>
  /** What the text scan looks for on behalf of the passes; undefined when no pass can use it. */
  readonly plan: TextScan.Plan | undefined
  /** The text scan's channel that holds each pass's candidates, if one does. */
  readonly channels: ReadonlyArray<number | undefined>
  /** The gates the text scan finds the literal start of, by source. */
  readonly gateLiterals: ReadonlyMap<string, GateLiteral>
  /** A text in which some pass could hit passes one of these; undefined when no such test exists. */
  readonly prefilter: ReadonlyArray<Check> | undefined
  readonly maxBefore: number
  /** Characters a stream keeps before the point up to which it has emitted. */
  readonly context: number
  /** Characters a stream accumulates between scans. */
  readonly batch: number
  readonly classify: (context: Detector.Context, at: number) => Detector.Span | undefined
}

/** Texts up to this length are tested against the prefilter before any pass runs. */
export const prefilterLimit = 2_048
/** From this length on, the passes walk the text scan's candidates: below, scanning costs more than it saves. */
export const indexFrom = 512

/**
 * A gate whose every match starts with a literal of two or more characters
 * (`kind` for a Kubernetes manifest): the text scan finds where the
 * literal's pair ends, and the gate is tried only there.
 */
export interface GateLiteral {
  readonly literal: string
  /** Where in the literal its pair is (`TriggerScan.bigramOffset`). */
  readonly offset: number
  readonly sticky: RegExp
}

/**
 * The literal every match of a gate starts with, when the source says so
 * beyond doubt: no alternation anywhere, and a run of letters, digits and
 * `_` at its start, less a last character a quantifier follows. Anything
 * else keeps its test over the whole text: a literal wrongly read would
 * skip a pass, and with it a secret.
 */
export const gateLiteral = (source: string): GateLiteral | undefined => {
  if (source.includes("|")) return undefined
  const run = /^[A-Za-z0-9_]*/.exec(source)![0]
  const literal = /^[?*+{]/.test(source.slice(run.length)) ? run.slice(0, -1) : run
  if (literal.length < 2) return undefined
  return { literal, offset: TriggerScan.bigramOffset(literal, false), sticky: new RegExp(source, "y") }
}
/** The least window a contextual rule's value is classified in: the lead of the `Q~` rule and more; longer prefixes widen it. */
const minClassifyWindow = 24

export const compile = (
  detectors: ReadonlyArray<Detector.Detector>,
  known: ReadonlyArray<string>
): Engine => {
  const prefixes: Array<TriggerScan.PrefixEntry> = []
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
          if (trigger.literal.length >= 2 && detector.id !== knownSecretId && TriggerScan.isAscii(trigger.literal)) {
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
  const passes: Array<TriggerScan.Pass> = []
  // The text scan's channels of the passes it serves, and what it looks for.
  const channels: Array<number | undefined> = []
  const characters: Array<number> = []
  const gateLiterals = new Map<string, GateLiteral>()
  let numbers = false
  const trigger = prefixes.length === 0 && keywords.length === 0
    ? undefined
    : TriggerScan.triggerPass(prefixes, keywords)
  if (trigger !== undefined) {
    passes.push(trigger)
    channels.push(trigger.pairs === undefined ? undefined : TextScan.pairChannel)
  }
  for (const [literal, { detectors: list, filter }] of literals) {
    passes.push(TriggerScan.literalPass(literal, filter, list))
    // One ASCII character has a channel while there are channels left; any other literal searches the text.
    const code = literal.charCodeAt(0)
    const served = literal.length === 1 && code > 0 && code < 0x80 && characters.length < TextScan.literalChannels
    channels.push(served ? TextScan.firstLiteralChannel + characters.push(code) - 1 : undefined)
  }
  for (const [pattern, { detectors: list, maxLength, overlapping }] of patterns) {
    const sources = list.flatMap((d) =>
      d.triggers.flatMap((t) => t._tag === "Pattern" && t.pattern === pattern ? [t.prefilter] : [])
    )
    const gate = sources.every((g) => g !== undefined) ? new RegExp([...new Set(sources)].join("|")) : undefined
    passes.push(TriggerScan.patternPass(pattern, maxLength, overlapping, list, gate))
    const served = pattern === TriggerScan.numberShapes
    numbers ||= served
    channels.push(served ? TextScan.numberChannel : undefined)
    const literal = gate === undefined || served ? undefined : gateLiteral(gate.source)
    if (literal !== undefined) gateLiterals.set(gate!.source, literal)
  }
  const plan = channels.every((channel) => channel === undefined) ? undefined : TextScan.plan(
    trigger?.pairs ?? [],
    [
      ...[...gateLiterals.values()].map(({ literal, offset }) => ({
        previous: literal.charCodeAt(offset),
        current: literal.charCodeAt(offset + 1)
      })),
      markerPair
    ],
    characters,
    numbers
  )
  const holdBack = Math.max(0, ...passes.map((p) => p.reach))
  const classifyWindow = Math.max(minClassifyWindow, longestPrefix + 6)
  // Only prefixes name what a contextual rule found: a keyword there is the next assignment, not its value.
  const named = prefixes.filter((entry) => entry.literal !== true)
  const prefixTrigger = named.length === 0 ? undefined : TriggerScan.triggerPass(named, [])
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
    plan,
    channels,
    gateLiterals,
    prefilter: filterable ? checks : undefined,
    maxBefore: Math.max(maxBefore, markerIdLength + markerOpening.length) + 2,
    context: Math.max(maxBefore, longestPrefix, keywordWindow, markerIdLength + markerOpening.length) + 4,
    batch: Math.max(4_096, holdBack),
    classify
  }
}

interface PassState {
  next: TriggerScan.Found | undefined
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

export const freshState = (engine: Engine): ScanState => ({
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
export const scan = (
  engine: Engine,
  text: string,
  state: ScanState,
  final: boolean,
  findings: Array<Finding>,
  scanned?: TextScan.Index | undefined
): number => {
  const passes = engine.passes
  const length = text.length
  // The text scan's candidates, from where the earliest pass searches on (a stream's passes are
  // past the text it keeps for context). A text it found a format character in is read by the
  // passes themselves: `Invisible` left it there on purpose (two halves of a pair it joined).
  const index = scanned ?? (engine.plan !== undefined && length >= indexFrom ? indexOf(engine, text, state) : undefined)
  const candidates = index === undefined || index.format ? undefined : index.channels
  let verifying: Detector.Detector | undefined
  // The farthest any detector's skip reaches: a hit past it is past every one, and needs no lookup.
  let skipped = 0
  for (const until of state.skips.values()) if (until > skipped) skipped = until
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
      if (verifying !== undefined && until > (state.skips.get(verifying) ?? 0)) {
        state.skips.set(verifying, until)
        if (until > skipped) skipped = until
      }
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
  // Where the text scan read the whole text, it found where a marker's
  // opening may be (the gate channel), which a search of the text would
  // cost a pass of its own to find. Else `ACTED:` is searched rather than
  // the whole opening: on two-byte text V8 finds a six-character needle
  // several times faster than a longer one.
  const holdsMarker = index !== undefined && !index.format && index.from === 0 ?
    markerAmong(text, index.channels[TextScan.gateChannel]!) :
    text.includes(markerOpening.slice(4))
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
        const channel = candidates === undefined ? undefined : engine.channels[live[j]!]
        if (final && pass.gate !== undefined && ps.gate === undefined && channel === undefined) {
          // Passes with the same gate (one rule's variants) test the text once. A pass the text
          // scan serves needs none: a gate spares a pass over the text, and it makes none.
          ps.gate = gates.get(pass.gate.source) ?? gateOf(engine, pass.gate, text, candidates, index)
          gates.set(pass.gate.source, ps.gate)
        }
        const from = Math.max(ps.from, state.floor)
        // A pass that searches from before where the text scan started (a stream's pass whose hit
        // waited) searches the text itself up to its next hit.
        const found = ps.gate === false || from >= length ?
          undefined :
          pass.find(text, from, channel === undefined || from < index!.from ? undefined : candidates![channel])
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
    // The first detector to verify wins, but not over a hit that starts before its
    // finding: `shippo_live_…` holds GoCardless's `live_` at the same scan position, and
    // the finding that starts first must be the one committed, whatever the catalogue's order.
    let claimed = Infinity
    for (let i = 0; i < found.detectors.length; i++) {
      const hit = found.hits?.[i] ?? found.hit
      const detector = found.detectors[i]!
      if (
        hit.start >= claimed ||
        hit.start < state.floor || (hit.start < skipped && hit.start < (state.skips.get(detector) ?? 0)) ||
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
      claimed = span.start
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

/**
 * The text scan of `text` from where the earliest pass it serves searches
 * on: a stream's passes are near the end of its buffer (they search on
 * from where the last scan left them), and the scan reads only what they
 * will search. A pass that holds a hit from an earlier scan searches on
 * from before that only once the hit is taken, on its own.
 */
const indexOf = (engine: Engine, text: string, state: ScanState): TextScan.Index => {
  let from = text.length
  state.passes.forEach((ps, i) => {
    if (!ps.done && ps.next === undefined && engine.channels[i] !== undefined) from = Math.min(from, ps.from)
  })
  return TextScan.index(engine.plan!, text, Math.max(0, state.floor, from))
}

/**
 * The text scan of a whole text from its start, before any pass: whether
 * it holds a format character, and then the candidates of every pass.
 *
 * @since 0.4.0
 */
export const index = (engine: Engine, text: string): TextScan.Index | undefined =>
  engine.plan === undefined || text.length < indexFrom ? undefined : TextScan.index(engine.plan, text, 0)

/**
 * Whether `gate` matches somewhere in `text`: where the text scan found its
 * literal when it scanned the whole text, else by a search of the text.
 */
const gateOf = (
  engine: Engine,
  gate: RegExp,
  text: string,
  candidates: ReadonlyArray<TextScan.Candidates> | undefined,
  index: TextScan.Index | undefined
): boolean => {
  const literal = engine.gateLiterals.get(gate.source)
  if (literal === undefined || candidates === undefined || index?.from !== 0) return gate.test(text)
  const stops = candidates[TextScan.gateChannel]!
  for (let k = 0; k < stops.length; k++) {
    const start = stops.positions[k]! - 1 - literal.offset
    if (start < 0 || !text.startsWith(literal.literal, start)) continue
    literal.sticky.lastIndex = start
    if (literal.sticky.test(text)) return true
  }
  return false
}

/** The longest marker id a hit inside a marker is recognised behind. */
const markerIdLength = 40
const markerOpening = "[REDACTED:"

/**
 * The pair a marker's opening is found from by the text scan, in the gate
 * channel with the gates' literals: its first. In logs the capitals of
 * `REDACTED` pair up often (`DATABASE`, `CREATED`), a bracket and an `R`
 * seldom.
 */
const markerPair: TextScan.PairKey = { previous: 91, current: 82 }

/** Whether a marker's opening starts at one of the gate channel's stops ({@link markerPair}): every one in the text does. */
const markerAmong = (text: string, stops: TextScan.Candidates): boolean => {
  for (let k = 0; k < stops.length; k++) {
    const start = stops.positions[k]! - 1
    if (start >= 0 && text.startsWith(markerOpening, start)) return true
  }
  return false
}

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

export const mayHit = (engine: Engine, text: string): boolean => {
  const tests = engine.prefilter
  if (tests === undefined) return true
  for (let i = 0; i < tests.length; i++) if (tests[i]!(text)) return true
  return false
}

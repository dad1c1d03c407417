// The scan's promise, against a search that looks at every position: every
// occurrence of a word is a hit exactly once, whatever the text's characters
// (the byte scan for ASCII, the re-encoded bytes for a little non-ASCII, the
// `charCodeAt` loop for short texts), wherever a search starts, and however
// searches of different texts interleave (the scan keeps the last text's
// bytes and a cursor into them).
import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import type * as Detector from "../src/Detector.js"
import * as TriggerScan from "../src/TriggerScan.js"

const detector = (id: string, triggers: ReadonlyArray<Detector.Trigger> = []): Detector.Detector => ({
  id,
  triggers,
  before: 0,
  after: 40,
  verify: () => undefined
})

// Words of every length class, sharing letters and pairs so that buckets hold several words;
// some rare pairs, some of the commonest (`te`, `in`), a one-character word, a keyword that
// starts another.
const prefixWords = ["ghp_", "AKIA", "sk-", "xoxb-", "te", "Q", "tes", "inte", "zz9", "a_b", "ey"]
const keywordWords = ["pass", "password", "token", "secret", "key", "te"]
const prefixes: ReadonlyArray<TriggerScan.PrefixEntry> = prefixWords.map((prefix, i) => ({
  prefix,
  detector: detector(`p${i}:${prefix}`)
}))
// One detector per keyword, and one that has two of them.
const keywordDetectors = [
  ...keywordWords.map((k) => detector(`k:${k}`, [{ _tag: "Keyword", keywords: [k] }])),
  detector("k:pass+key", [{ _tag: "Keyword", keywords: ["pass", "key"] }])
]
// Built inside each test, not once at load: a mutation run attributes to a test only the code
// that test runs, and a table built at load would be counted as no test's.
const makePass = () => TriggerScan.triggerPass(prefixes, keywordDetectors)

const foldAscii = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase())

/** Every (start, detector) a complete search must report: prefixes exactly, the longest keyword at each start. */
const expected = (text: string): Set<string> => {
  const out = new Set<string>()
  const folded = foldAscii(text)
  for (let start = 0; start < text.length; start++) {
    for (const entry of prefixes) {
      if (text.startsWith(entry.prefix, start)) out.add(`${start}:${entry.detector.id}`)
    }
    const here = keywordWords.filter((k) => folded.startsWith(k, start))
    if (here.length === 0) continue
    const longest = here.reduce((a, b) => (b.length > a.length ? b : a))
    for (const d of keywordDetectors) {
      const hasOne = d.triggers.some((t) => t._tag === "Keyword" && t.keywords.some((w) => longest.startsWith(w)))
      if (hasOne) out.add(`${start}:${d.id}`)
    }
  }
  return out
}

/** Every hit from `from` on, following each hit's resume; checks each hit as it goes. */
const search = (text: string, from: number): Array<string> => {
  const out: Array<string> = []
  const pass = makePass()
  for (let found = pass.find(text, from); found !== undefined; found = pass.find(text, found.resume)) {
    assert.isAbove(found.resume, from - 1)
    for (let i = 0; i < found.detectors.length; i++) {
      const hit = found.hits?.[i] ?? found.hit
      const id = found.detectors[i]!.id
      const word = id.slice(id.indexOf(":") + 1)
      if (id.startsWith("p")) assert.strictEqual(text.slice(hit.start, hit.end), word, `${id} at ${hit.start}`)
      else assert.strictEqual(hit.end - hit.start > 0, true)
      assert.isAtLeast(hit.start, found.start, "a hit starts at or after its found's start")
      out.push(`${hit.start}:${id}`)
    }
    if (out.length > 100_000) assert.fail("the search does not end")
  }
  return out
}

const piece = FastCheck.oneof(
  { weight: 6, arbitrary: FastCheck.constantFrom(...prefixWords, ...keywordWords) },
  { weight: 2, arbitrary: FastCheck.constantFrom("PASSWORD", "Token", "SeCrEt", "KEY", "Pass", "TE") },
  { weight: 4, arbitrary: FastCheck.constantFrom(" ", "=", "_", "-", "\n", "x", "te", "in", "ghp", "AKI") },
  // Characters of two, three and four UTF-8 bytes, and low bytes that collide with ASCII pairs (0x170 & 255 = "p").
  { weight: 2, arbitrary: FastCheck.constantFrom("é", "\u0170", "\u0165", "字", "\u2028", "😀", "\uD83D", "\u0100") },
  { weight: 2, arbitrary: FastCheck.string({ maxLength: 12 }) }
)
const text = FastCheck.record({
  parts: FastCheck.array(piece, { maxLength: 160 }),
  // Long enough for the byte scan (256 and more) or not, ASCII or not.
  pad: FastCheck.constantFrom(0, 40, 300, 900)
}).map(({ pad, parts }) => "-".repeat(pad) + parts.join(""))

const sorted = (values: Iterable<string>) => [...values].sort()

describe("TriggerScan.triggerPass against a search at every position", () => {
  it.prop("a search from the start reports every occurrence, a prefix's exactly once", [text], ([t]) => {
    const found = search(t, 0)
    assert.deepStrictEqual(sorted(new Set(found)), sorted(expected(t)))
    // Two keywords at one start (`pass`, `password`) may be seen at two positions, each with its
    // detectors: the runner drops the second finding at the same start. A prefix is seen once.
    const prefixHits = found.filter((h) => /^\d+:p\d/.test(h))
    assert.strictEqual(new Set(prefixHits).size, prefixHits.length, "no prefix occurrence twice")
  }, { fastCheck: { numRuns: 300 } })

  it.prop(
    "from anywhere, in any order of texts: every occurrence that starts there or later, none from further back than a pair reaches",
    [FastCheck.array(FastCheck.tuple(text, FastCheck.nat()), { minLength: 1, maxLength: 6 })],
    ([searches]) => {
      // The same texts again, searched from elsewhere: the cursor goes back and forth in kept bytes.
      for (const [t, seed] of [...searches, ...searches.slice().reverse()]) {
        const from = t.length === 0 ? 0 : seed % (t.length + 1)
        const all = expected(t)
        const found = new Set(search(t, from))
        for (const occurrence of all) {
          const start = Number(occurrence.slice(0, occurrence.indexOf(":")))
          if (start >= from) assert.isTrue(found.has(occurrence), `${occurrence} from ${from}`)
        }
        for (const hit of found) {
          assert.isTrue(all.has(hit), `${hit} is an occurrence`)
          assert.isAtLeast(Number(hit.slice(0, hit.indexOf(":"))), from - 13, hit)
        }
      }
    },
    { fastCheck: { numRuns: 150 } }
  )

  it("a long text that is mostly not ASCII is read with charCodeAt and gives the same hits", () => {
    const unit = "字字字 ghp_ x PassWord 😀 AKIA=é te"
    const long = unit.repeat(Math.ceil((1 << 22) / unit.length) + 1)
    const found = search(long, long.length - unit.length * 3)
    const tail = search(unit.repeat(3), 0)
    const shift = long.length - unit.length * 3
    assert.deepStrictEqual(
      sorted(found.filter((h) => Number(h.slice(0, h.indexOf(":"))) >= shift)),
      sorted(tail.map((h) => `${Number(h.slice(0, h.indexOf(":"))) + shift}${h.slice(h.indexOf(":"))}`))
    )
  })

  it("reach, trigger and back: a stream holds back the longest word and the farthest rule, and looks back as far as a pair", () => {
    const only = TriggerScan.triggerPass([{ prefix: "abcdefghijklmnopqrstu", detector: detector("p") }], [])
    assert.strictEqual(only.trigger, 21)
    assert.strictEqual(only.reach, 40)
    assert.isAtMost(only.back, 13)
    assert.isAtLeast(only.back, 1)
    // A literal's filter reads past the literal.
    const filtered = TriggerScan.triggerPass([{ prefix: "ab", detector: detector("p"), filter: /ab\d/y }], [])
    assert.strictEqual(filtered.trigger, 2 + 32)
    assert.isUndefined(filtered.gate)
  })
  it("two keywords seen at one pair and one start give one hit: the longer, for the detectors of both", () => {
    // `qz` is the rarest pair of both words, so both are looked for from it, at the same offset.
    const short = detector("k:qz", [{ _tag: "Keyword", keywords: ["qz"] }])
    const long = detector("k:qzqzv", [{ _tag: "Keyword", keywords: ["qzqzv"] }])
    for (const order of [[short, long], [long, short]]) {
      const both = TriggerScan.triggerPass([], order)
      const found = both.find("..QZqzv..", 0)!
      assert.isDefined(found)
      const hits = found.detectors.map((d, i) => {
        const hit = found.hits?.[i] ?? found.hit
        return `${d.id}@${hit.start}-${hit.end}`
      })
      // In catalogue order, each with the longer word's hit.
      assert.deepStrictEqual(hits, order.map((d) => `${d.id}@2-7`))
    }
  })

  it("two keywords seen at one pair but starting at different places give a hit each", () => {
    // `qz` is the rarest pair of both: `xqz` is looked for from its second character, `qz` from its first.
    const outer = detector("k:xqz", [{ _tag: "Keyword", keywords: ["xqz"] }])
    const inner = detector("k:qz", [{ _tag: "Keyword", keywords: ["qz"] }])
    // Reported together or one after the other (which depends on the pair chosen), each comes once.
    const scan = TriggerScan.triggerPass([], [outer, inner])
    const hits: Array<string> = []
    for (let found = scan.find("..xqz..", 0); found !== undefined; found = scan.find("..xqz..", found.resume)) {
      found.detectors.forEach((d, i) => {
        const hit = found!.hits?.[i] ?? found!.hit
        hits.push(`${d.id}@${hit.start}-${hit.end}`)
      })
    }
    assert.deepStrictEqual(hits.sort(), ["k:qz@3-5", "k:xqz@2-5"])
  })

  it("a detector with a keyword among other triggers is asked at its keyword", () => {
    const mixed = detector("k:mixed", [{ _tag: "Prefix", prefixes: ["zz9"] }, { _tag: "Keyword", keywords: ["qzv"] }])
    const found = TriggerScan.triggerPass([], [mixed]).find(".. QZV ..", 0)
    assert.deepStrictEqual(found?.detectors.map((d) => d.id), ["k:mixed"])
    assert.strictEqual(found?.hit.start, 3)
  })

  it("prefixes at one start come out in catalogue order, before the keywords there", () => {
    const a = detector("p:qz1"), b = detector("p:qz")
    const k = detector("k:qz", [{ _tag: "Keyword", keywords: ["qz"] }])
    for (
      const entries of [[{ prefix: "qz1", detector: a }, { prefix: "qz", detector: b }], [
        { prefix: "qz", detector: b },
        { prefix: "qz1", detector: a }
      ]]
    ) {
      const scan = TriggerScan.triggerPass(entries, [k])
      const found = scan.find("xx qz1 ", 0)!
      assert.deepStrictEqual(found.detectors.map((d) => d.id), [...entries.map((e) => e.detector.id), "k:qz"])
    }
  })
})

describe("the literal and pattern passes", () => {
  it("a literal pass finds each occurrence that passes its filter, and resumes after it", () => {
    const plus = TriggerScan.literalPass("+", "\\+[1-9]", [detector("phone")])
    const t = "a+0 b+1 ++2 +"
    const starts: Array<number> = []
    for (let f = plus.find(t, 0); f !== undefined; f = plus.find(t, f.resume)) {
      assert.strictEqual(f.resume, f.start + 1)
      assert.deepStrictEqual([f.hit.start, f.hit.end], [f.start, f.start + 1])
      starts.push(f.start)
    }
    assert.deepStrictEqual(starts, [5, 9])
    assert.strictEqual(plus.trigger, 1 + 32)
    assert.strictEqual(plus.reach, 40)
    const at = TriggerScan.literalPass("://", undefined, [detector("url")])
    assert.deepStrictEqual(at.find("x://y://", 2)?.start, 5)
    assert.strictEqual(at.trigger, 3)
  })

  it("a pattern pass skips empty matches, and an overlapping one resumes after the match's first word", () => {
    const words = TriggerScan.patternPass(/[a-z]*/g, 30, false, [detector("w")], undefined)
    const found = words.find("12ab cd", 0)
    assert.deepStrictEqual([found?.start, found?.hit.end, found?.resume], [2, 4, 4])
    const pairs = TriggerScan.patternPass(/\w+=\w+/g, 30, true, [detector("kv")], /=/)
    const kv = pairs.find("ab=cd=ef", 0)
    assert.deepStrictEqual([kv?.start, kv?.hit.end, kv?.resume], [0, 5, 2])
    assert.strictEqual(kv?.hit.match?.[0], "ab=cd")
    assert.strictEqual(pairs.find("ab=cd=ef", kv!.resume)?.start, 3)
    const closed = TriggerScan.patternPass(/\w+=\w+/g, 30, false, [detector("kv")], undefined)
    assert.strictEqual(closed.find("ab=cd=ef", 0)?.resume, 5)
    // A sticky or non-global pattern is searched globally all the same.
    const sticky = TriggerScan.patternPass(/b/y, 1, false, [detector("b")], undefined)
    assert.strictEqual(sticky.find("aab", 0)?.start, 2)
    for (const pattern of [/b/, /b/y, /b/gy, /b/g]) {
      const pass = TriggerScan.patternPass(pattern, 1, false, [detector("b")], undefined)
      const starts: Array<number> = []
      for (let f = pass.find("bab b", 1); f !== undefined; f = pass.find("bab b", f.resume)) starts.push(f.start)
      assert.deepStrictEqual(starts, [2, 4], pattern.flags)
    }
    assert.strictEqual(pairs.gate?.source, "=")
    assert.deepStrictEqual([words.trigger, words.reach, words.back], [30, 40, 0])
  })

  it("isAscii is true exactly for text below U+0080", () => {
    assert.isTrue(TriggerScan.isAscii("abc\u007f"))
    assert.isFalse(TriggerScan.isAscii("abc\u0080"))
    assert.isTrue(TriggerScan.isAscii(""))
  })
})

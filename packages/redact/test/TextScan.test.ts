// The text scan's promise: one pass over the text finds every candidate of
// every pass, the same in WebAssembly (over the text's UTF-8 bytes and over
// its UTF-16 units) and in TypeScript, whatever the text
// (ASCII or not, lone surrogates, format characters, millions of units),
// wherever the scan starts and however the WebAssembly scan is cut into
// segments and calls; and a pass that walks its candidates finds exactly
// the hits it finds searching the text itself. The embedded WebAssembly is
// what its AssemblyScript source builds to.
import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Detector from "../src/Detector.js"
import * as Invisible from "../src/Invisible.js"
import * as PersonalData from "../src/PersonalData.js"
import * as Redactor from "../src/Redactor.js"
import * as RuleRunner from "../src/RuleRunner.js"
import * as SecretRules from "../src/SecretRules.js"
import * as TextScan from "../src/TextScan.js"
import * as TextScanWasm from "../src/TextScanWasm.js"
import * as TokenRule from "../src/TokenRule.js"
import { noise } from "./FakeSecrets.js"
import { samples } from "./samples/index.js"

const packageDir = Path.join(import.meta.dirname, "..")
// The default redactor's engine, as `Redactor.make()` compiles it.
const engine = RuleRunner.compile([...TokenRule.mergeKeyed(SecretRules.catalogue), ...PersonalData.detectors()], [])
const plan = engine.plan!
// The secrets-only engine's plan looks for no number shape: the scans skip that work, alike.
const secretsPlan = RuleRunner.compile(TokenRule.mergeKeyed(SecretRules.catalogue), []).plan!
// A plan whose word pairs are also other channels' events: a marker's pair (`[R`), one-character literals
// (`@`, `(`, `+`) and the first digit of number shapes (`a1`). The WebAssembly scan lists word pairs apart
// from the other events: a position with both must be in both.
const overlapping = RuleRunner.compile([
  ...PersonalData.detectors(),
  {
    id: "overlap",
    triggers: [Detector.prefix("k@", "q(", "z+", "a1", "[R")],
    before: 0,
    after: 4,
    verify: () => undefined
  }
], []).plan!

/** Runs `f` with the scan configured so, and the default configuration back after. */
const configured = <A>(options: Parameters<typeof TextScan.configure>[0], f: () => A): A => {
  TextScan.configure(options)
  try {
    return f()
  } finally {
    TextScan.configure({})
  }
}

const plain = (index: TextScan.Index) => ({
  format: index.format,
  from: index.from,
  channels: index.channels.map((c) => Array.from(c.positions.subarray(0, c.length)))
})

/**
 * Asserts that the scans give the same channels: in TypeScript, and in
 * WebAssembly over the text's UTF-8 bytes and over its UTF-16 units.
 * Returns the TypeScript scan's.
 */
const same = (text: string, from: number, segment?: number, capacity?: number, planned = plan) => {
  const expected = plain(TextScan.scanChars(planned, text, from))
  const where = `from ${from}, segments of ${segment}, ${capacity} events a call`
  const bytes = configured({ segment, capacity }, () => plain(TextScan.scanBytes(planned, text, from)))
  agree(bytes, expected, `UTF-8, ${where}`)
  const units = configured({ segment, capacity }, () => plain(TextScan.scanUnits(planned, text, from)))
  agree(units, expected, `UTF-16, ${where}`)
  return expected
}

/**
 * Asserts that two scans' channels are equal, showing where they first
 * differ: a diff of two channels of a million positions would take the
 * assertion minutes to print.
 */
const agree = (got: ReturnType<typeof plain>, expected: ReturnType<typeof plain>, message: string) => {
  assert.deepStrictEqual([got.format, got.from], [expected.format, expected.from], message)
  got.channels.forEach((channel, c) => {
    const other = expected.channels[c]!
    let k = 0
    while (k < channel.length && k < other.length && channel[k] === other[k]) k++
    const around = (list: ReadonlyArray<number>) => list.slice(Math.max(0, k - 2), k + 6)
    assert.deepStrictEqual(around(channel), around(other), `${message}: channel ${c}, from its position ${k}`)
    assert.strictEqual(channel.length, other.length, `${message}: channel ${c}'s length`)
  })
}

const piece = FastCheck.oneof(
  {
    weight: 6,
    arbitrary: FastCheck.constantFrom(
      "ghp_",
      "AKIA",
      "sk-",
      "password",
      "PassWord",
      "token",
      "secret",
      "kind: Secret",
      "kind",
      "://",
      "hooks.slack.com/",
      ".ingest.",
      "-us12 ",
      "%7C",
      "xoxb-",
      "k@",
      "q(",
      "z+",
      "a1",
      "[REDACTED:"
    )
  },
  {
    weight: 5,
    arbitrary: FastCheck.constantFrom(
      "123-456-7890",
      "13812345678",
      "4111 1111 1111 1111",
      "123.4567",
      "12345678901234567",
      "1-2-3",
      "123 456",
      "123-456 ",
      "(415) 555-0134",
      "+44 20 7946 0958",
      "0123456789"
    )
  },
  { weight: 5, arbitrary: FastCheck.constantFrom("@", "(", "+", "|", " ", ".", "-", "\n", "_", "x", "7") },
  // Two, three and four UTF-8 bytes; low bytes that collide with ASCII pairs (0x170 & 255 = "p").
  { weight: 3, arbitrary: FastCheck.constantFrom("é", "字", "😀", "\u0170", "\u2028", "✓", "\u0100", "\u0740") },
  // Halves of surrogate pairs on their own.
  { weight: 2, arbitrary: FastCheck.constantFrom("\uD83D", "\uDC00", "\uDBFF", "\uDB40") },
  // Format characters, which stop the scan: rarely, so that most texts are scanned through.
  { weight: 1, arbitrary: FastCheck.constantFrom("\u200b", "\u00ad", "\u{E0041}", "\ufeff", "\u202e", "\u{110BD}") },
  { weight: 2, arbitrary: FastCheck.string16bits({ maxLength: 8 }) },
  { weight: 2, arbitrary: FastCheck.fullUnicodeString({ maxLength: 8 }) },
  { weight: 2, arbitrary: FastCheck.string({ maxLength: 20 }) }
)
const hostile = FastCheck.array(piece, { maxLength: 200 }).map((parts) => parts.join(""))

describe("TextScan: the WebAssembly scan and the TypeScript scan", () => {
  it("WebAssembly with SIMD runs here, and copies UTF-16 into its memory, so the tests compare the three", () => {
    assert.isTrue(TextScan.configure({}))
    assert.isTrue(TextScan.copiesUnits())
  })

  it.prop(
    "give the same channels on random and hostile text, from anywhere, in segments and calls of any size",
    [hostile, FastCheck.nat(), FastCheck.integer({ min: 2, max: 64 }), FastCheck.integer({ min: 32, max: 100 })],
    ([text, seed, segment, capacity]) => {
      const from = seed % (text.length + 1)
      same(text, 0)
      same(text, from)
      same(text, from, segment, capacity)
      same(text, from, segment, capacity, secretsPlan)
      same(text, from, segment, capacity, overlapping)
    },
    { fastCheck: { numRuns: 400 } }
  )

  it("find what a search of every position finds", () => {
    // The oracle: the pair of each position, the characters, and the number shapes as a regular expression.
    const text = "x ghp_ pass 123-456-7890 a@b +44 (415) 555-0134 |x kind: é😀ghp_ 13812345678 \uD83Dp@"
    const index = same(text, 0)
    const pairs: Array<number> = []
    const characters: Array<Array<number>> = [[], [], [], []]
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i)
      const before = i === 0 ? 0 : text.charCodeAt(i - 1)
      if (code >= 0x80) continue
      const key = (code << 8) | (before < 0x80 ? before : 0x80)
      const set = plan.followers[key]!
      const after = i + 1 < text.length ? text.charCodeAt(i + 1) : 0
      const next = after < 0x80 ? after : 0x80
      const follows = set === 0 || ((plan.followerSets[set * 32 + (next >> 3)]! >> (next & 7)) & 1) === 1
      if ((plan.table[key]! & 1) !== 0 && follows) pairs.push(i)
      "|@+(".split("").forEach((c, k) => {
        if (text[i] === c) characters[k]!.push(i)
      })
    }
    assert.deepStrictEqual(index.channels[TextScan.pairChannel], pairs)
    const literalChannels = engine.channels.flatMap((channel) =>
      channel !== undefined && channel >= TextScan.firstLiteralChannel && channel < TextScan.numberChannel ?
        [index.channels[channel]!] :
        []
    )
    assert.deepStrictEqual(literalChannels.map((c) => c.length).sort(), characters.map((c) => c.length).sort())
    const shapes = [...text.matchAll(/(?=\d\d\d(?:\d{8}|[ .-]\d\d\d))/g)].map((m) => m.index)
    assert.deepStrictEqual(index.channels[TextScan.numberChannel], shapes)
    assert.isAbove(pairs.length, 3)
    assert.isAbove(shapes.length, 3)
  })

  it("record a position that is a word pair's and another channel's in both", () => {
    // `[R`, `k@`, `q(`, `z+` in the table; `a1` where a number shape starts at its digit.
    const both = Array.from(overlapping.table).filter((flags) => (flags & 1) !== 0 && flags !== 1).length
    assert.strictEqual(both, 4)
    const text = "k@x q(415) 555-0134 z+44 20 7946 0958 a13812345678 a123-456-7890 [REDACTED:x] ".repeat(20)
    const index = same(text, 0, undefined, undefined, overlapping)
    same(text, 3, 50, 32, overlapping)
    const pairs = index.channels[TextScan.pairChannel]!
    for (const word of ["k@", "q(", "z+", "a1", "[R"]) assert.include(pairs, text.indexOf(word) + 1, word)
    assert.include(index.channels[TextScan.numberChannel]!, text.indexOf("a1") + 1)
  })

  it("a character that is not ASCII makes no pair with the next, whatever its low byte", () => {
    // Read as UTF-16, U+0170 holds the byte of `p`, and a lone U+DC70 too: the pair either makes with
    // the next character is that of any character that is not ASCII, as in TypeScript. Before every
    // pair of the table, with a character that may follow it.
    const parts: Array<string> = []
    for (const built of [plan, secretsPlan, overlapping]) {
      for (let key = 0; key < 65_536; key++) {
        const previous = key & 255
        const current = key >> 8
        if (built.table[key] === 0 || previous >= 0x80) continue
        const set = built.followers[key]!
        let follower = 120
        for (let code = 0; set !== 0 && code < 0x80; code++) {
          if (((built.followerSets[set * 32 + (code >> 3)]! >> (code & 7)) & 1) === 1) {
            follower = code
            break
          }
        }
        for (const high of [0x100, 0x7f00, 0xdc00]) {
          parts.push(String.fromCharCode(high + previous, current, follower, 32))
        }
      }
    }
    const text = parts.join("")
    for (const built of [plan, secretsPlan, overlapping]) {
      same(text, 0, undefined, undefined, built)
      same(text, 1, 100, 40, built)
    }
  })

  it("on texts of four million units, ASCII and not, with a format character at the end or none", () => {
    const unit = `ts=2026 ghp_${noise(36, 1)} 字 user@corp.io 138-1234-5678 (415) 555-0134 😀 password=x|y\n`
    const long = unit.repeat(Math.ceil(4_000_000 / unit.length))
    assert.isAtLeast(long.length, 4_000_000)
    const index = same(long, 0)
    assert.isFalse(index.format)
    assert.isAbove(index.channels[TextScan.numberChannel]!.length, 20_000)
    same(long, 1_234_567)
    same(long, 7, undefined, undefined, secretsPlan)
    // Dense with events, more of each kind in one segment than a call of the WebAssembly scan can list.
    const dense = "token|pass@key(".repeat(300_000)
    assert.isAbove(same(dense, 0).channels[TextScan.pairChannel]!.length, 600_000)
    same(dense, 5, undefined, undefined, secretsPlan)
    assert.isTrue(same(long + "\u200b", 0).format)
    assert.isTrue(same("\u{E0041}" + long, 0).format)
  })

  it("the format characters are the engine's \\p{Cf}", () => {
    const listed = new Set<number>()
    for (const [first, last] of Invisible.formatRanges) for (let c = first; c <= last; c++) listed.add(c)
    const engineCf: Array<number> = []
    for (let c = 0; c < 0x110000; c++) if (/\p{Cf}/u.test(String.fromCodePoint(c))) engineCf.push(c)
    assert.deepStrictEqual([...listed].sort((a, b) => a - b), engineCf)
    for (const c of engineCf.filter((_, i) => i % 7 === 0)) {
      assert.isTrue(same(`ab ${String.fromCodePoint(c)} cd`, 0).format, c.toString(16))
    }
  })
})

describe("TextScan: passes that walk their candidates", () => {
  /** Every hit of a pass from 0, following each hit's resume: start, resume and detectors. */
  const hits = (pass: (typeof engine.passes)[number], text: string, candidates?: TextScan.Candidates) => {
    const out: Array<string> = []
    for (let f = pass.find(text, 0, candidates); f !== undefined; f = pass.find(text, f.resume, candidates)) {
      out.push(`${f.start}-${f.resume}:${f.detectors.map((d) => d.id).join(",")}:${f.hit.start}-${f.hit.end}`)
    }
    return out
  }

  it.prop(
    "find exactly the hits of a search of the text",
    [hostile],
    ([text]) => {
      const index = TextScan.scanBytes(plan, text, 0)
      if (index.format) return
      engine.passes.forEach((pass, i) => {
        const channel = engine.channels[i]
        if (channel === undefined) return
        assert.deepStrictEqual(hits(pass, text, index.channels[channel]), hits(pass, text), `pass ${i}`)
      })
    },
    { fastCheck: { numRuns: 300 } }
  )

  it("serve the default rules: the trigger scan, the one-character literals and the number shapes", () => {
    const served = engine.channels.filter((c) => c !== undefined).sort()
    assert.deepStrictEqual(served, [0, 2, 3, 4, 5, 8])
    // The Kubernetes passes keep their expressions; their gate is found by the scan.
    assert.deepStrictEqual([...engine.gateLiterals.values()].map((g) => g.literal), ["kind"])
  })

  it("read a gate's literal only where the source leaves no doubt", () => {
    assert.strictEqual(RuleRunner.gateLiteral("kind(?:\\\\?\")?[ \\t]*:")?.literal, "kind")
    assert.strictEqual(RuleRunner.gateLiteral("kinds?x")?.literal, "kind")
    assert.strictEqual(RuleRunner.gateLiteral("abc*")?.literal, "ab")
    for (const source of ["kind|other", "[kK]ind", "a", "ab?", "(?:kind)", "\\bkind", "^kind"]) {
      assert.isUndefined(RuleRunner.gateLiteral(source), source)
    }
  })
})

describe("TextScan: redaction in WebAssembly and in TypeScript", () => {
  const redactor = Redactor.make()
  const sampleText = samples.flatMap((s) => [...s.positives.map((p) => p.text), ...s.negatives]).join("\n")
  const both = (f: () => Redactor.Redaction) => {
    const wasm = configured({ backend: "wasm", segment: 4_096, capacity: 64 }, f)
    const utf8 = configured({ backend: "wasm", input: "utf-8", segment: 4_096, capacity: 64 }, f)
    const typescript = configured({ backend: "typescript" }, f)
    assert.deepStrictEqual(wasm, typescript)
    assert.deepStrictEqual(utf8, typescript)
    return wasm
  }

  it("give the same output on every rule sample, with a secret across every segment boundary", () => {
    const whole = both(() => redactor.redact(sampleText))
    assert.isAbove(whole.count, 1_000)
    const token = `ghp_${noise(36, 7)}`
    const padded = Array.from({ length: 40 }, (_, i) => "é".repeat(4_090 - (i % 40)) + " " + token + " ").join("")
    const out = both(() => redactor.redact(padded))
    assert.strictEqual(out.kinds["github-token"], 40)
    assert.notInclude(out.text, token)
  })

  it("tell where a text holds an earlier marker, for a hit inside its id to start nothing", () => {
    // Whether a long text holds a marker is read from the scan's gate channel, not searched for: a
    // marker missed there would let `TOK` inside its id be redacted, and redacting twice would differ.
    const tok = Redactor.make({
      replaceDefaultRules: [{
        id: "tok",
        triggers: [Detector.prefix("TOK")],
        before: 0,
        after: 10,
        verify: (_, hit) => ({ start: hit.start, end: hit.start + 10 })
      }],
      personalData: false
    })
    const filler = "a log line with nothing to find in it [R]\n".repeat(30)
    for (const marker of ["[REDACTED:TOK1234567]", `[REDACTED:${"a".repeat(40)}TOK1234567]`]) {
      for (const text of [marker + filler, filler + marker, `${filler}${marker} é ${filler}`]) {
        assert.strictEqual(both(() => tok.redact(text)).text, text)
      }
    }
    const once = both(() => tok.redact(`${filler} TOK1234567 ${filler}`)).text
    assert.include(once, "[REDACTED:tok]")
    assert.strictEqual(both(() => tok.redact(once)).text, once)
  })

  it.prop(
    "a stream in WebAssembly gives the whole text's output in TypeScript, whatever the chunking",
    {
      parts: FastCheck.array(FastCheck.oneof(hostile, FastCheck.constantFrom(...sampleText.split("\n"))), {
        maxLength: 300
      }),
      chunk: FastCheck.integer({ min: 1, max: 3_000 }),
      batch: FastCheck.oneof(FastCheck.constant(undefined), FastCheck.integer({ min: 1, max: 2_000 })),
      input: FastCheck.constantFrom("auto" as const, "utf-8" as const)
    },
    ({ batch, chunk, input, parts }) => {
      const text = parts.join("\n")
      const whole = configured({ backend: "typescript" }, () => redactor.redact(text))
      const streamed = configured({ backend: "wasm", input, segment: 1_000, capacity: 40 }, () => {
        const stream = redactor.stream({ batch })
        let out = ""
        let count = 0
        for (let i = 0; i < text.length; i += chunk) {
          const r = stream.push(text.slice(i, i + chunk))
          out += r.text
          count += r.count
        }
        const last = stream.end()
        return { text: out + last.text, count: count + last.count }
      })
      assert.strictEqual(streamed.text, whole.text)
      assert.strictEqual(streamed.count, whole.count)
    },
    { fastCheck: { numRuns: 60 } }
  )
})

describe("TextScan: the embedded WebAssembly", () => {
  it("was built from the AssemblyScript source as it is now", () => {
    const source = Fs.readFileSync(Path.join(packageDir, "assembly", "scan.ts"), "utf8")
    assert.strictEqual(TextScanWasm.sourceHash, createHash("sha256").update(source).digest("hex"))
  })

  it("is exactly what a fresh build of that source gives", () => {
    const check = spawnSync(process.execPath, ["scripts/build-wasm.mjs", "--check"], {
      cwd: packageDir,
      encoding: "utf8"
    })
    assert.strictEqual(check.status, 0, `${check.stdout}${check.stderr}`)
  }, 120_000)
})

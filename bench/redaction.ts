/**
 * Redaction throughput and worst cases, as medians of repeated runs:
 *
 * - 10 MiB of realistic mixed log text (application and access logs, JSON
 *   lines, stack traces, git log, build and test output, SQL, Kubernetes)
 *   with secrets rare: whole-text `redact` with the default rules, with
 *   secrets only, and the streaming redactor fed 64 KiB chunks;
 * - a text holding 20,000 token-shaped strings, once all real-format fake
 *   secrets (20,000 findings) and once near misses (hashes, UUIDs, base64,
 *   prefixes one character short: 20,000 hits, no finding);
 * - the cost of redacting the tiny strings the runtime redacts on every call
 *   (ids, names, short outputs), next to the previous engine's prefilter.
 *
 * Texts come from a seeded generator, so every run measures the same input.
 * Cases run round-robin, so a noisy neighbour slows them alike.
 *
 * Run: pnpm bench:redaction (BENCH_ROUNDS=n for more rounds, BENCH_ONLY=text
 * to run the cases whose name contains it, BENCH_DUMP=path to write the log
 * text out for experiments).
 */
import { Redactor } from "@tool-runtime/core"
import * as Redacted from "effect/Redacted"

const MiB = 1024 * 1024
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15)
/** Runs only the cases whose name contains this. */
const ONLY = process.env.BENCH_ONLY
const selected = (name: string) => ONLY === undefined || name.includes(ONLY)

// ---------------------------------------------------------------------------
// a seeded generator (mulberry32)
// ---------------------------------------------------------------------------

const seeded = (seed: number) => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[int(xs.length)]!
  const chars = (n: number, alphabet: string) => {
    let out = ""
    for (let i = 0; i < n; i++) out += alphabet[int(alphabet.length)]
    return out
  }
  return { next, int, pick, chars }
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const hexDigits = "0123456789abcdef"
const base32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

type Rng = ReturnType<typeof seeded>

/** Fake secrets: a vendor prefix glued to generated characters. */
const fakeSecret = (r: Rng, kind: number): string => {
  switch (kind % 12) {
    case 0:
      return "gh" + "p_" + r.chars(36, alnum)
    case 1:
      return "AK" + "IA" + r.chars(16, base32)
    case 2:
      return "sk-" + "proj-" + r.chars(48, alnum)
    case 3:
      return "sk-" + "ant-api03-" + r.chars(80, alnum)
    case 4:
      return "xo" + "xb-" + r.chars(12, "0123456789") + "-" + r.chars(24, alnum)
    case 5:
      return "np" + "m_" + r.chars(36, alnum)
    case 6:
      return "AI" + "za" + r.chars(35, alnum)
    case 7:
      return "gl" + "pat-" + r.chars(20, alnum)
    case 8:
      return "sk" + "_live_" + r.chars(24, alnum)
    case 9:
      return "ey" + "J" + r.chars(20, alnum) + ".ey" + "J" + r.chars(40, alnum) + "." + r.chars(43, alnum)
    case 10:
      return "h" + "f_" + r.chars(34, alnum)
    default:
      return "SG." + r.chars(22, alnum) + "." + r.chars(43, alnum)
  }
}

const services = ["api-gateway", "tickets", "billing", "search-indexer", "auth", "notifier", "kb-sync"]
const routes = ["/v1/tickets", "/v1/tickets/{id}", "/v1/customers/{id}/orders", "/v1/kb/search", "/healthz"]
const messages = [
  "cache miss",
  "cache hit",
  "retrying request",
  "connection reset by peer",
  "job finished",
  "scheduled reindex",
  "loaded configuration",
  "token bucket refilled",
  "session expired",
  "password policy check passed",
  "rotating api key in 3 days",
  "secret store reachable"
]

/** Realistic mixed log text of about `size` characters; one line in ~1,500 holds a secret. */
const logText = (size: number, seed: number): string => {
  const r = seeded(seed)
  const hex = (n: number) => r.chars(n, hexDigits)
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`
  let millis = Date.UTC(2026, 2, 14, 9, 0, 0)
  const ts = () => new Date(millis += r.int(900)).toISOString()
  const lines: Array<string> = []
  let length = 0
  while (length < size) {
    const route = r.pick(routes).replace("{id}", String(r.int(99999)))
    const svc = r.pick(services)
    let line: string
    switch (r.int(14)) {
      case 0:
      case 1:
        line = `${ts()} ${r.pick(["INFO ", "DEBUG", "WARN ", "ERROR"])} [${svc}] request_id=${uuid()} method=${
          r.pick(["GET", "POST", "PUT"])
        } path=${route} status=${r.pick([200, 201, 204, 304, 400, 401, 404, 500])} duration_ms=${r.int(2000)} bytes=${
          r.int(100000)
        }`
        break
      case 2:
        line = `10.${r.int(255)}.${r.int(255)}.${r.int(255)} - - [14/Mar/2026:09:${
          String(r.int(60)).padStart(2, "0")
        }:${String(r.int(60)).padStart(2, "0")} +0000] "GET ${route} HTTP/1.1" ${r.pick([200, 304, 404])} ${
          r.int(90000)
        } "https://app.example.com/tickets" "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"`
        break
      case 3:
        line = `{"ts":"${ts()}","level":"${r.pick(["debug", "info", "warn"])}","msg":"${
          r.pick(messages)
        }","key":"ticket:${r.int(99999)}","ttl":${r.int(3600)},"trace_id":"${hex(32)}","span_id":"${hex(16)}"}`
        break
      case 4:
        line = `    at ${
          r.pick(["Object.handler", "processTicksAndRejections", "Server.emit", "TicketService.load"])
        } (/srv/app/node_modules/@acme/${svc}/dist/index.js:${r.int(900)}:${r.int(80)})`
        break
      case 5:
        line = r.int(8) === 0
          ? `commit ${hex(40)}\nAuthor: ${r.pick(["Jane Doe", "Wei Zhang", "Bob Smith"])} <${
            r.pick(["jane", "wei", "bob"])
          }@example.com>\nDate:   Sat Mar 14 09:26:53 2026 +0000\n\n    ${
            r.pick(["fix token refresh", "bump typescript@5.9.3", "add retry to kb-sync"])
          }`
          : `${hex(7)} ${
            r.pick(["fix token refresh", "bump typescript@5.9.3", "add retry to kb-sync", "rotate secret names"])
          }`
        break
      case 6:
        line = `[${r.int(200)}/200] Compiling src/${svc}/${r.pick(["handler", "schema", "index", "client"])}.ts (${
          (r.next() * 900).toFixed(1)
        } ms)`
        break
      case 7:
        line = `pod/${svc}-${hex(9)}-${hex(5)}   1/1   Running   ${r.int(5)}   ${r.int(30)}d${r.int(24)}h   10.${
          r.int(255)
        }.${r.int(255)}.${r.int(255)}   node-${r.int(40)}`
        break
      case 8:
        line =
          `SELECT id, status, updated_at FROM tickets WHERE customer_id = $1 AND status = ANY($2) ORDER BY updated_at DESC LIMIT 50 -- ${
            (r.next() * 40).toFixed(2)
          } ms`
        break
      case 9:
        line = `npm warn deprecated ${
          r.pick(["inflight@1.0.6", "glob@7.2.3", "rimraf@3.0.2"])
        }: This module is not supported, and leaks memory. Do not use it.`
        break
      case 10:
        line = ` ✓ packages/${svc}/test/${r.pick(["Redactor", "Pipeline", "Registry"])}.test.ts (${r.int(200)} tests) ${
          r.int(2000)
        }ms`
        break
      case 11:
        line = `${ts()} INFO  [${svc}] GET https://api.internal/v2/orders/${r.int(999999)}?page=${r.int(9)} -> ${
          r.pick([200, 404])
        } in ${r.int(900)}ms`
        break
      default:
        line = `${ts()} INFO  [${svc}] user ${r.int(99999)} opened ticket #${r.int(999999)} via ${
          r.pick(["email", "chat", "phone"])
        }; sla=${r.pick(["4h", "24h"])} version=v${r.int(3)}.${r.int(20)}.${r.int(10)} sha=${hex(7)}`
    }
    if (r.int(1500) === 0) line += ` env ${r.pick(["TOKEN", "KEY", "AUTH"])}_VALUE=${fakeSecret(r, r.int(12))}`
    lines.push(line)
    length += line.length + 1
  }
  return lines.join("\n")
}

/** 20,000 token-shaped strings, one a line, in a small log-like frame. */
const tokenText = (kind: "secrets" | "near misses", seed: number): string => {
  const r = seeded(seed)
  const lines: Array<string> = []
  for (let i = 0; i < 20_000; i++) {
    let value: string
    if (kind === "secrets") value = fakeSecret(r, i)
    else {
      switch (i % 8) {
        case 0:
          value = "gh" + "p_" + r.chars(35, alnum)
          break
        case 1:
          value = r.chars(40, hexDigits)
          break
        case 2:
          value = `${r.chars(8, hexDigits)}-${r.chars(4, hexDigits)}-${r.chars(4, hexDigits)}-${
            r.chars(4, hexDigits)
          }-${r.chars(12, hexDigits)}`
          break
        case 3:
          value = Buffer.from(r.chars(30, "abcdefghij klmnop qrstuvwxyz")).toString("base64")
          break
        case 4:
          value = "AK" + "IA" + r.chars(15, base32)
          break
        case 5:
          value = "password=" + r.pick(["hunter", "correcthorse", "changeme", "${DB_PASSWORD}"])
          break
        case 6:
          value = "eyJ" + r.chars(40, alnum)
          break
        default:
          value = "sk-" + r.chars(20, alnum)
      }
    }
    lines.push(`${i} item=${value} ok`)
  }
  return lines.join("\n")
}

// ---------------------------------------------------------------------------
// measuring
// ---------------------------------------------------------------------------

const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const measure = (rounds: number, run: () => unknown): number => {
  for (let i = 0; i < 3; i++) run()
  const samples: Array<number> = []
  for (let i = 0; i < rounds; i++) {
    const start = performance.now()
    run()
    samples.push(performance.now() - start)
  }
  return median(samples)
}

const defaults = Redactor.make()
const secretsOnly = Redactor.make({ personalData: false })
const withKnown = Redactor.make({
  secrets: [Redacted.make("corp-vault-4f9a7Qe"), Redacted.make("s3cr3t-deploy-" + "token-00991")]
})

const log = logText(10 * MiB, 1)
if (process.env.BENCH_DUMP !== undefined) (await import("node:fs")).writeFileSync(process.env.BENCH_DUMP, log)
const mib = log.length / MiB
console.log(`log text: ${mib.toFixed(2)} MiB (${log.length.toLocaleString("en-US")} characters), ${ROUNDS} rounds`)
const findings = defaults.redact(log)
console.log(`findings with the default rules: ${findings.count} ${JSON.stringify(findings.kinds)}`)

const streamed = (redactor: Redactor.Service, text: string, chunk: number) => () => {
  const stream = redactor.stream()
  let length = 0
  for (let i = 0; i < text.length; i += chunk) length += stream.push(text.slice(i, i + chunk)).text.length
  return length + stream.end().text.length
}

/**
 * Runs the cases round-robin, so that a noisy neighbour slows them all
 * alike, and reports per case the median and the best round.
 */
const interleaved = (cases: ReadonlyArray<readonly [string, () => unknown]>) => {
  const chosen = cases.filter(([name]) => selected(name))
  const samples = chosen.map(() => [] as Array<number>)
  for (let round = 0; round < ROUNDS + 3; round++) {
    chosen.forEach(([, run], i) => {
      const start = performance.now()
      run()
      if (round >= 3) samples[i]!.push(performance.now() - start)
    })
  }
  return chosen.map(([name], i) => ({ name, median: median(samples[i]!), best: Math.min(...samples[i]!) }))
}

const personalOnly = Redactor.make({ rules: [] })
console.log("\nthroughput on realistic log text (median, best round)")
for (
  const { best, median: ms, name } of interleaved([
    ["redact, default rules (secrets + personal data)", () => defaults.redact(log)],
    ["redact, secrets only", () => secretsOnly.redact(log)],
    ["redact, personal data only", () => personalOnly.redact(log)],
    ["redact, default rules + 2 known secrets", () => withKnown.redact(log)],
    ["stream, default rules, 64 KiB chunks", streamed(defaults, log, 64 * 1024)]
  ])
) {
  console.log(
    `  ${name.padEnd(50)} ${ms.toFixed(1).padStart(7)} ms ${(mib / (ms / 1000)).toFixed(0).padStart(5)} MiB/s   (best ${
      (mib / (best / 1000)).toFixed(0)
    } MiB/s)`
  )
}

// What any engine pays on this text before it decides anything, when it
// finds triggers with V8's regular expressions and returns a new string:
// the output copy, and one pass per kind of trigger whose characters are
// common (context words, digits, token prefixes). The keyword and digit
// expressions restate what the engine builds (`SecretRules` keywords,
// `PersonalData` digit shapes); the prefix pass is stood for by the
// cheapest pass there is, a class of three characters the text lacks.
const bare = (pattern: RegExp) => () => {
  pattern.lastIndex = 0
  let n = 0
  while (pattern.test(log)) n++
  return n
}
const half = log.length >> 1
console.log("\nfloors on the same text: what the engine cannot go below (median, best round)")
const floors = interleaved([
  [
    "floor: copy into a new string with one marker",
    () => [log.slice(0, half), "[REDACTED:x]", log.slice(half + 5)].join("")
  ],
  ["floor: keyword pass alone", bare(/secret|bearer|token|auth|pass|curl|key|pwd/gi)],
  ["floor: digit-shape pass alone", bare(/\d\d\d\d\d\d\d\d\d\d\d|\d\d\d[ .-]\d\d\d\d?\d?\d?\d?\d?[ .-]\d/g)],
  ["floor: cheapest pass (a class of absent characters)", bare(/[`^|]/g)]
])
for (const { best, median: ms, name } of floors) {
  console.log(`  ${name.padEnd(52)} ${ms.toFixed(1).padStart(7)} ms   (best ${best.toFixed(1)} ms)`)
}
if (floors.length === 4) {
  const sum = floors.reduce((total, floor) => total + floor.median, 0)
  console.log(
    `  ${"sum: the floor of any such engine".padEnd(52)} ${sum.toFixed(1).padStart(7)} ms ${
      (mib / (sum / 1000)).toFixed(0).padStart(5)
    } MiB/s at most`
  )
}

console.log("\n20,000 token-shaped strings (median, best round)")
const tokenTexts = (["secrets", "near misses"] as const).map((kind) => [kind, tokenText(kind, 2)] as const)
for (
  const { best, median: ms, name } of interleaved(tokenTexts.map(([kind, text]) => [kind, () => defaults.redact(text)]))
) {
  const text = tokenTexts.find(([kind]) => kind === name)![1]
  console.log(
    `  ${name.padEnd(12)} ${(text.length / 1024).toFixed(0).padStart(5)} KiB ${ms.toFixed(1).padStart(7)} ms (best ${
      best.toFixed(1)
    } ms)   findings ${defaults.redact(text).count}`
  )
}

// The previous engine's prefilter: one case-insensitive test over its keywords.
const previous =
  /private key|akia|asia|abia|acca|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|sk-ant-|sk-|xox|hooks\.slack\.com|_live_|_test_|aiza|npm_|hf_|eyj|:\/\/|authorization|bearer|pass|pwd|secret|key|token/i
const tiny = [
  "call_0",
  "toolu_01A09q90qw90lq917835lq9",
  "call_abc123XYZ",
  "read_file",
  "query_ticket",
  "{\"ok\":true,\"count\":3}",
  "ticket 48213 closed",
  "Running 12 tests"
]
console.log("\ntiny strings (median ns per call)")
const perCall = (run: () => unknown, n = 200_000) =>
  (measure(ROUNDS, () => {
    for (let i = 0; i < n; i++) run()
  }) * 1e6) / n
let sink = 0
for (const s of selected("tiny") ? tiny : []) {
  const now = perCall(() => (sink += defaults.redact(s).count))
  const before = perCall(() => (sink += previous.test(s) ? 1 : 0))
  console.log(
    `  ${JSON.stringify(s).padEnd(34)} ${now.toFixed(0).padStart(5)} ns   (previous prefilter ${
      before.toFixed(0).padStart(4)
    } ns)`
  )
}
if (sink < 0) console.log(sink)

/**
 * Redaction throughput and worst cases, as medians of repeated runs:
 *
 * - ours against secretlint (`@secretlint/core`'s `lintSource` with the
 *   recommended preset), on the same texts in this one process: (a) 10 MiB
 *   of clean mixed text (application and access logs, JSON lines, stack
 *   traces, git log, build and test output, SQL, Kubernetes, and source code
 *   and configuration in several languages), (b) the same text with a
 *   secret line about every 100 KiB, (c) 10 MiB of logs with a secret line
 *   one line in four (tokens of many families, `password=` assignments,
 *   URLs with credentials, Authorization headers, AWS secret keys, PEM
 *   keys). The engines do different work: ours returns the redacted text,
 *   secretlint returns findings and no text (masking them is extra, and is
 *   measured apart); secretlint has no personal-data rules, so ours runs
 *   with and without them; and ours again with its text scan in TypeScript,
 *   as where WebAssembly with SIMD is missing (the figures before and after
 *   the scan moved to WebAssembly), and with the WebAssembly scan over UTF-8,
 *   as where the runtime cannot copy UTF-16 into its memory (no `Buffer`),
 *   and the issue's targets checked against the medians;
 * - whole-text `redact` on (b) with the default rules, with secrets only,
 *   with personal data only, with known secrets, and the streaming redactor
 *   fed 64 KiB chunks (and 4 KiB ones with a batch of 500), next to the
 *   floors an engine of regular-expression passes pays (this one, none);
 * - the stream's promise over the rule samples: 108 settings of batch and
 *   chunking, tiny ones included, each exactly the whole-text result;
 * - a text holding 20,000 token-shaped strings, once all real-format fake
 *   secrets (20,000 findings) and once near misses (hashes, UUIDs, base64,
 *   prefixes one character short: 20,000 hits, no finding); each must stay
 *   under 200 ms;
 * - the cost of redacting the tiny strings the runtime redacts on every call
 *   (ids, names, short outputs), next to the previous engine's prefilter.
 *
 * It also counts the default catalogue: its rules and the formats they
 * know (distinct token prefixes, plus the rules with no prefix trigger).
 *
 * Texts come from a seeded generator, so every run measures the same input.
 * Cases run round-robin, so a noisy neighbour slows them alike.
 *
 * Run: pnpm bench:redaction (BENCH_ROUNDS=n for more rounds, BENCH_ONLY=text
 * to run the cases whose name contains it, BENCH_DUMP=path to write text (b)
 * out for experiments). secretlint's packages stay external to the bundle:
 * its `debug` dependency is CommonJS that requires Node built-ins.
 */
import { lintSource } from "@secretlint/core"
import { creator as secretlintPreset } from "@secretlint/secretlint-rule-preset-recommend"
import { Redactor } from "@tool-runtime/core"
import { PersonalData, Redactor as RedactEngine, SecretRules } from "@tool-runtime/redact"
import * as TextScan from "@tool-runtime/redact/TextScan"
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

/**
 * Realistic log lines (application and access logs, JSON lines, stack
 * traces, git log, build and test output, SQL, Kubernetes), none holding a
 * secret, and the clock they are stamped with.
 */
const logLines = (r: Rng) => {
  const hex = (n: number) => r.chars(n, hexDigits)
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`
  let millis = Date.UTC(2026, 2, 14, 9, 0, 0)
  const ts = () => new Date(millis += r.int(900)).toISOString()
  const next = (): string => {
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
    return line
  }
  return { next, ts }
}

/**
 * Source code and configuration of the kinds an agent reads (TypeScript,
 * Python, Go, Java, Rust, shell, Dockerfile, YAML, TOML, JSON, INI, .env
 * with placeholders), none holding a secret: words like `token`, `password`
 * and `key` appear as identifiers, as they do in real code.
 */
const codeBlocks = (r: Rng) => {
  const hex = (n: number) => r.chars(n, hexDigits)
  const ident = () => r.pick(["ticket", "customer", "order", "session", "token", "cache", "user", "index", "queue"])
  const Ident = () => {
    const i = ident()
    return i[0]!.toUpperCase() + i.slice(1)
  }
  const n = () => r.int(1000)
  return (): string => {
    const a = ident()
    const A = Ident()
    switch (r.int(12)) {
      case 0:
        return `import { ${A}Service } from "../services/${a}.js"
import type { Request, Response } from "express"

export async function get${A}(req: Request, res: Response): Promise<void> {
  const id = Number(req.params.id)
  const ${a} = await ${A}Service.find(id, { includeDeleted: false, limit: ${n()} })
  if (${a} === undefined) {
    res.status(404).json({ error: "not_found", message: \`${a} \${id} does not exist\` })
    return
  }
  const token = req.headers.authorization?.split(" ")[1] ?? ""
  if (!verifyToken(token)) return void res.status(401).end()
  res.json(${a})
}`
      case 1:
        return `class ${A}Repository:
    """Loads ${a} rows and caches them for ${n()} seconds."""

    def __init__(self, pool: ConnectionPool, cache_ttl: int = ${n()}) -> None:
        self._pool = pool
        self._cache: dict[int, ${A}] = {}
        self.password_min_length = 12

    async def get(self, ${a}_id: int) -> ${A} | None:
        if ${a}_id in self._cache:
            return self._cache[${a}_id]
        row = await self._pool.fetchrow("SELECT * FROM ${a}s WHERE id = $1", ${a}_id)
        return None if row is None else ${A}.from_row(row)`
      case 2:
        return `func (s *${A}Server) Handle(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), ${n()}*time.Millisecond)
	defer cancel()
	key := r.URL.Query().Get("key")
	item, err := s.store.Get(ctx, key)
	if err != nil {
		log.Printf("get %s: %v", key, err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	_ = json.NewEncoder(w).Encode(item)
}`
      case 3:
        return `@Service
public class ${A}Service {
    private static final Logger LOG = LoggerFactory.getLogger(${A}Service.class);
    private final ${A}Repository repository;

    public ${A}Service(${A}Repository repository) {
        this.repository = repository;
    }

    public Optional<${A}> find(long id) {
        LOG.debug("loading ${a} {}", id);
        return repository.findById(id).filter(t -> !t.isDeleted());
    }
}`
      case 4:
        return `impl ${A}Store {
    pub fn get(&self, id: u64) -> Result<Option<${A}>, StoreError> {
        let guard = self.inner.read().map_err(|_| StoreError::Poisoned)?;
        Ok(guard.get(&id).cloned())
    }

    pub fn insert(&mut self, ${a}: ${A}) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.inner.write().unwrap().insert(id, ${a});
        id
    }
}`
      case 5:
        return `#!/usr/bin/env bash
set -euo pipefail
: "\${DATABASE_URL:?set DATABASE_URL}"
for f in migrations/*.sql; do
  echo "applying $f"
  psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -f "$f"
done
kubectl rollout restart deployment/${a}-api -n prod
kubectl rollout status deployment/${a}-api -n prod --timeout=${n()}s`
      case 6:
        return `FROM node:20-alpine AS build
WORKDIR /app
COPY package.json pnpm-lock.yaml ./
RUN corepack enable && pnpm install --frozen-lockfile
COPY . .
RUN pnpm build
FROM node:20-alpine
ENV NODE_ENV=production PORT=${8000 + r.int(1000)}
COPY --from=build /app/dist ./dist
CMD ["node", "dist/server.js"]`
      case 7:
        return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${a}-api
  labels: { app: ${a}-api, version: v${r.int(4)}.${r.int(20)}.${r.int(10)} }
spec:
  replicas: ${1 + r.int(6)}
  template:
    spec:
      containers:
        - name: api
          image: registry.internal/${a}-api@sha256:${hex(64)}
          env:
            - name: DB_PASSWORD
              valueFrom: { secretKeyRef: { name: ${a}-db, key: password } }
          resources: { limits: { cpu: "${r.int(4)}", memory: ${r.int(2048)}Mi } }`
      case 8:
        return `[package]
name = "${a}-store"
version = "0.${r.int(20)}.${r.int(10)}"
edition = "2021"

[dependencies]
serde = { version = "1.0", features = ["derive"] }
tokio = { version = "1.${r.int(40)}", features = ["full"] }
tracing = "0.1"`
      case 9:
        return `{
  "name": "@acme/${a}",
  "version": "${r.int(4)}.${r.int(20)}.${r.int(10)}",
  "scripts": { "build": "tsc -b", "test": "vitest run", "lint": "eslint ." },
  "dependencies": { "express": "^4.19.2", "zod": "^3.23.8", "pg": "^8.${r.int(12)}.0" },
  "devDependencies": { "typescript": "^5.9.3", "vitest": "^3.2.4" }
}`
      case 10:
        return `[server]
host = 0.0.0.0
port = ${8000 + r.int(1000)}
workers = ${1 + r.int(16)}

[database]
url = postgres://app@db.internal:5432/${a}
pool_size = ${r.int(50)}
password = \${DB_PASSWORD}`
      default:
        return `# .env.example: copy to .env and fill in
NODE_ENV=development
PORT=${8000 + r.int(1000)}
DATABASE_URL=postgres://app:<password>@localhost:5432/${a}
REDIS_URL=redis://localhost:6379/0
API_TOKEN=<your-token>
SESSION_SECRET=changeme
LOG_LEVEL=debug`
    }
  }
}

/**
 * Clean mixed text of about `size` characters: log lines, with a block of
 * code or configuration between them about one unit in eight (about a third
 * of the characters).
 */
const mixedText = (size: number, seed: number): string => {
  const r = seeded(seed)
  const log = logLines(r)
  const code = codeBlocks(r)
  const parts: Array<string> = []
  let length = 0
  while (length < size) {
    const part = r.int(8) === 0 ? code() : log.next()
    parts.push(part)
    length += part.length + 1
  }
  return parts.join("\n")
}

/** A line holding a secret, of one of many kinds, the way one shows up in tool output. */
const secretLine = (r: Rng, ts: () => string): string => {
  const password = () => r.chars(3, alnum) + r.int(10) + r.chars(12, alnum + "!#%")
  switch (r.int(16)) {
    case 0:
    case 1:
    case 2:
      return `export ${r.pick(["GITHUB_TOKEN", "API_KEY", "ACCESS_TOKEN", "SERVICE_AUTH"])}=${fakeSecret(r, r.int(12))}`
    case 3:
    case 4:
      return `${ts()} WARN  [deploy] using ${fakeSecret(r, r.int(12))} for the upload (attempt ${r.int(4)})`
    case 5:
      return `{"ts":"${ts()}","level":"debug","msg":"config","token":"${fakeSecret(r, r.int(12))}"}`
    case 6:
      return `DB_PASSWORD=${password()}`
    case 7:
      return `  password: "${password()}"`
    case 8:
      return `${ts()} DEBUG login user=bob password=${password()} ok`
    case 9:
      return `DATABASE_URL=${r.pick(["postgres", "mysql", "mongodb+srv", "redis", "amqp"])}://app:${password()}@db${
        r.int(9)
      }.internal:5432/app`
    case 10:
      return `${ts()} INFO  connecting to https://deploy:${password()}@registry.internal/v2/_catalog`
    case 11:
      return `Authorization: Bearer ${r.chars(40, alnum + "._-")}`
    case 12:
      return `curl -sS -H "Authorization: Basic ${
        Buffer.from(`ci:${password()}`).toString("base64")
      }" https://api.internal/v1`
    case 13:
      return `aws_secret_access_key = ${r.chars(40, alnum + "/+")}`
    case 14:
      return "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T" + r.chars(10, base32) + "/B" + r.chars(10, base32) +
        "/" + r.chars(24, alnum)
    default:
      return `-----BEGIN RSA PRIVATE KEY-----\n${
        Array.from({ length: 4 }, () => r.chars(64, alnum + "+/")).join("\n")
      }\n-----END RSA PRIVATE KEY-----`
  }
}

/** `text` with a secret line inserted at a line end about every `every` characters (jittered), and how many. */
const withSecrets = (
  text: string,
  every: number,
  seed: number
): { readonly text: string; readonly planted: number } => {
  const r = seeded(seed)
  const { ts } = logLines(r)
  const parts: Array<string> = []
  let at = 0
  let planted = 0
  for (;;) {
    const cut = text.indexOf("\n", at + Math.floor(every * (0.5 + r.next())))
    if (cut < 0) break
    parts.push(text.slice(at, cut + 1), secretLine(r, ts), "\n")
    planted++
    at = cut + 1
  }
  parts.push(text.slice(at))
  return { text: parts.join(""), planted }
}

/** Logs of about `size` characters with a secret line every few lines (one in four). */
const denseText = (size: number, seed: number): { readonly text: string; readonly planted: number } => {
  const r = seeded(seed)
  const log = logLines(r)
  const lines: Array<string> = []
  let length = 0
  let planted = 0
  while (length < size) {
    const secret = r.int(4) === 0
    const line = secret ? secretLine(r, log.ts) : log.next()
    if (secret) planted++
    lines.push(line)
    length += line.length + 1
  }
  return { text: lines.join("\n"), planted }
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

// ---------------------------------------------------------------------------
// the catalogue
// ---------------------------------------------------------------------------

{
  const catalogue = RedactEngine.defaultRules
  const prefixes = new Set<string>()
  let unprefixed = 0
  for (const rule of catalogue) {
    let prefixed = false
    for (const trigger of rule.triggers) {
      if (trigger._tag === "Prefix") {
        prefixed = true
        for (const p of trigger.prefixes) prefixes.add(p)
      }
    }
    if (!prefixed) unprefixed++
  }
  console.log(
    `default catalogue: ${catalogue.length} secret rules (SecretRules.catalogue: ${SecretRules.catalogue.length}), ${prefixes.size} distinct token prefixes + ${unprefixed} rules without a prefix trigger (keywords, literals) = ${
      prefixes.size + unprefixed
    } formats; ${PersonalData.detectors().length} personal-data rules`
  )
}

// ---------------------------------------------------------------------------
// the texts, and secretlint
// ---------------------------------------------------------------------------

const clean = mixedText(10 * MiB, 1)
const rare = withSecrets(clean, 100 * 1024, 3)
const dense = denseText(10 * MiB, 4)
if (process.env.BENCH_DUMP !== undefined) (await import("node:fs")).writeFileSync(process.env.BENCH_DUMP, rare.text)
const texts: ReadonlyArray<{ readonly name: string; readonly text: string; readonly planted: number }> = [
  { name: "(a) clean logs + code/config", text: clean, planted: 0 },
  { name: "(b) (a) + a secret per ~100 KiB", ...rare },
  { name: "(c) secret-dense logs (1 line in 4)", ...dense }
]
const log = rare.text
const mib = log.length / MiB

/** secretlint with its recommended preset, through the library API (`@secretlint/core`'s `lintSource`). */
const secretlintConfig = { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: secretlintPreset }] }
const secretlint = (content: string) =>
  lintSource({
    source: { content, filePath: "/bench/output.log", contentType: "text" },
    options: { config: secretlintConfig }
  })

/** secretlint's findings replaced by markers: the step from its findings to a redacted text like ours. */
const mask = (text: string, messages: ReadonlyArray<{ readonly range: readonly [number, number] }>): string => {
  const ranges = messages.map((m) => m.range).sort((a, b) => a[0] - b[0])
  const parts: Array<string> = []
  let at = 0
  for (const [start, end] of ranges) {
    if (end <= at) continue
    parts.push(text.slice(at, Math.max(at, start)), "[REDACTED:secretlint]")
    at = end
  }
  parts.push(text.slice(at))
  return parts.join("")
}

console.log(`${ROUNDS} rounds; texts:`)
for (const { name, planted, text } of texts) {
  const ours = defaults.redact(text)
  const theirs = await secretlint(text)
  const byRule: Record<string, number> = {}
  for (const m of theirs.messages) {
    const id = m.ruleId.replace("@secretlint/secretlint-rule-", "")
    byRule[id] = (byRule[id] ?? 0) + 1
  }
  // A preset whose rules failed to load would report nothing and look fast.
  if (planted > 0 && theirs.messages.length === 0) throw new Error(`secretlint found nothing in ${name}`)
  const masking = measure(ROUNDS, () => mask(text, theirs.messages))
  console.log(`  ${name}: ${(text.length / MiB).toFixed(2)} MiB, ${planted} secret lines planted`)
  console.log(`    findings, ours:       ${ours.count} ${JSON.stringify(ours.kinds)}`)
  console.log(`    findings, secretlint: ${theirs.messages.length} ${JSON.stringify(byRule)}`)
  console.log(`    masking secretlint's findings into a text would add ${masking.toFixed(1)} ms`)
}

const streamed = (redactor: Redactor.Service, text: string, chunk: number, batch?: number) => () => {
  const stream = redactor.stream(batch === undefined ? undefined : { batch })
  let length = 0
  for (let i = 0; i < text.length; i += chunk) length += stream.push(text.slice(i, i + chunk)).text.length
  return length + stream.end().text.length
}

/**
 * Runs the cases round-robin, so that a noisy neighbour slows them all
 * alike, and reports per case the median and the best round. A case may
 * return a promise (secretlint's API is asynchronous): it is awaited
 * inside its timing.
 */
const interleaved = async (cases: ReadonlyArray<readonly [string, () => unknown]>) => {
  const chosen = cases.filter(([name]) => selected(name))
  const samples = chosen.map(() => [] as Array<number>)
  for (let round = 0; round < ROUNDS + 3; round++) {
    for (const [i, [, run]] of chosen.entries()) {
      const start = performance.now()
      await run()
      if (round >= 3) samples[i]!.push(performance.now() - start)
    }
  }
  return chosen.map(([name], i) => ({ name, median: median(samples[i]!), best: Math.min(...samples[i]!) }))
}

console.log(
  "\nours vs secretlint (recommended preset), same texts, one process, round-robin (median)\n" +
    "  ours returns the redacted text; secretlint returns findings (ranges) and produces no text: masking them is extra\n" +
    "  secretlint has no personal-data rules: `ours, secrets only` is the like-for-like engine, `ours, default` adds them"
)
/**
 * Runs `run` with the text scan in TypeScript, as where WebAssembly with
 * SIMD is missing: the figures before and after the scan moved to
 * WebAssembly, in the same run.
 */
const inTypeScript = <A>(run: () => A): A => {
  TextScan.configure({ backend: "typescript" })
  try {
    return run()
  } finally {
    TextScan.configure({})
  }
}
/**
 * Runs `run` with the WebAssembly scan over the text's UTF-8 bytes, as
 * where the runtime cannot copy UTF-16 into the module's memory (no
 * `Buffer`: browsers, Deno): the figure the runtimes without it get.
 */
const overUtf8 = <A>(run: () => A): A => {
  TextScan.configure({ input: "utf-8" })
  try {
    return run()
  } finally {
    TextScan.configure({})
  }
}
if (!TextScan.configure({})) console.log("  (WebAssembly with SIMD is not available: both scans run in TypeScript)")
else if (!TextScan.copiesUnits()) {
  console.log("  (no copy of UTF-16 into WebAssembly here: the scan reads UTF-8 in both)")
}
const engines = [
  ["ours, default", (text: string) => defaults.redact(text)],
  ["ours, secrets only", (text: string) => secretsOnly.redact(text)],
  ["ours, default, TS scan", (text: string) => inTypeScript(() => defaults.redact(text))],
  ["ours, secrets, TS scan", (text: string) => inTypeScript(() => secretsOnly.redact(text))],
  ["ours, secrets, UTF-8", (text: string) => overUtf8(() => secretsOnly.redact(text))],
  ["secretlint", (text: string) => secretlint(text)]
] as const
const compared = await interleaved(
  texts.flatMap(({ name, text }) => engines.map(([engine, run]) => [`${name} | ${engine}`, () => run(text)] as const))
)
const at = (text: string, engine: string) => compared.find((c) => c.name === `${text} | ${engine}`)
console.log(
  `  ${"text".padEnd(38)}${engines.map(([engine]) => engine.padStart(23)).join("")}   speedup (secretlint / ours)`
)
const cell = (ms: number | undefined, size: number) =>
  ms === undefined
    ? "-".padStart(23)
    : `${ms.toFixed(1).padStart(11)} ms ${(size / MiB / (ms / 1000)).toFixed(0).padStart(4)} MiB/s`
const speedups: Record<string, Record<string, number>> = {}
for (const { name, text } of texts) {
  const medians = engines.map(([engine]) => at(name, engine)?.median)
  const theirs = medians[engines.length - 1]
  const ratios = engines.slice(0, -1).map(([engine], i) => {
    const ours = medians[i]
    if (ours === undefined || theirs === undefined) return "-"
    ;(speedups[name] ??= {})[engine] = theirs / ours
    return `${(theirs / ours).toFixed(2)}x`
  })
  console.log(`  ${name.padEnd(38)}${medians.map((ms) => cell(ms, text.length)).join("")}   ${ratios.join(", ")}`)
}
// What the redaction issue asked of the engine, each checked against this run's medians.
const [cleanName, rareName, denseName] = texts.map((t) => t.name)
const speedup = (text: string | undefined) => speedups[text!]?.["ours, default"]
const secretsClean = at(cleanName!, "ours, secrets only")?.median
const targets = [
  { name: "(a) default rules at least as fast as secretlint", value: speedup(cleanName), floor: 1, unit: "x" },
  { name: "(b) default rules at least as fast as secretlint", value: speedup(rareName), floor: 1, unit: "x" },
  { name: "(c) default rules at least 4x secretlint", value: speedup(denseName), floor: 4, unit: "x" },
  {
    name: "(a) secrets only at least 200 MiB/s",
    value: secretsClean === undefined ? undefined : clean.length / MiB / (secretsClean / 1000),
    floor: 200,
    unit: " MiB/s"
  }
]
if (targets.every((target) => target.value !== undefined)) {
  console.log("  targets:")
  for (const { floor, name, unit, value } of targets) {
    const figure = unit === "x" ? value!.toFixed(2) : value!.toFixed(0)
    console.log(`    ${value! >= floor ? "met   " : "MISSED"} ${name}: ${figure}${unit}`)
  }
}

const personalOnly = Redactor.make({ replaceDefaultRules: [] })
console.log("\nthroughput on (b), 10 MiB with rare secrets (median, best round)")
for (
  const { best, median: ms, name } of await interleaved([
    ["redact, default rules (secrets + personal data)", () => defaults.redact(log)],
    ["redact, default rules, the text scan in TypeScript", () => inTypeScript(() => defaults.redact(log))],
    ["redact, secrets only", () => secretsOnly.redact(log)],
    ["redact, personal data only", () => personalOnly.redact(log)],
    ["redact, default rules + 2 known secrets", () => withKnown.redact(log)],
    ["stream, default rules, 64 KiB chunks", streamed(defaults, log, 64 * 1024)],
    ["stream, default rules, batch 500, 4 KiB chunks", streamed(defaults, log, 4 * 1024, 500)]
  ])
) {
  console.log(
    `  ${name.padEnd(50)} ${ms.toFixed(1).padStart(7)} ms ${(mib / (ms / 1000)).toFixed(0).padStart(5)} MiB/s   (best ${
      (mib / (best / 1000)).toFixed(0)
    } MiB/s)`
  )
}

// The stream's promise, exhaustively: the rule samples of every rule put
// together (about 165,000 characters, Kubernetes manifests and PEM keys
// among them) streamed in every class of batch against every class of
// chunking must give exactly the whole-text result, text, count and kinds.
// The tests run 30 of these settings; the ones where batch and chunks are
// both tiny (a rescan of the buffer almost every character) take seconds
// each, and run here. A setting that differs fails the run.
if (selected("stream exactness")) {
  // The samples live with the tests, outside this project's sources: the
  // bundler takes them in from the pattern, the type checker leaves them be.
  const module = "index.ts"
  const { samples } = (await import(`../packages/redact/test/samples/${module}`)) as {
    readonly samples: ReadonlyArray<{
      readonly positives: ReadonlyArray<{ readonly text: string }>
      readonly negatives: ReadonlyArray<string>
    }>
  }
  const text = samples.flatMap((s) => [...s.positives.map((p) => p.text), ...s.negatives]).join("\n")
  const whole = defaults.redact(text)
  const kinds = (r: Redactor.Redaction) =>
    JSON.stringify(Object.entries(r.kinds).sort(([a], [b]) => a.localeCompare(b)))
  const batches = [1, 2, 3, 7, 13, 16, 64, 100, 500, 4_096, undefined, 100_000]
  const chunkings = [[1], [2], [7], [13], [64], [1_000], [65_536], [Infinity], [997, 3, 1, 5_000, 64]]
  const differ: Array<string> = []
  const times: Array<readonly [string, number]> = []
  for (const batch of batches) {
    for (const sizes of chunkings) {
      const name = `batch ${batch ?? "default"}, chunks ${JSON.stringify(sizes).replace("null", "whole")}`
      const start = performance.now()
      const stream = defaults.stream(batch === undefined ? undefined : { batch })
      const parts: Array<string> = []
      const counted: Record<string, number> = {}
      let count = 0
      const take = (r: Redactor.Redaction) => {
        parts.push(r.text)
        count += r.count
        for (const [k, n] of Object.entries(r.kinds)) counted[k] = (counted[k] ?? 0) + n
      }
      for (let at = 0, i = 0; at < text.length; i++) {
        const size = Math.min(sizes[i % sizes.length]!, text.length - at)
        take(stream.push(text.slice(at, at + size)))
        at += size
      }
      take(stream.end())
      times.push([name, performance.now() - start])
      const out = parts.join("")
      if (out !== whole.text || count !== whole.count || kinds({ text: out, count, kinds: counted }) !== kinds(whole)) {
        let i = 0
        while (i < out.length && out.charCodeAt(i) === whole.text.charCodeAt(i)) i++
        differ.push(`${name}: differs at ${i}, ${count} markers streamed, ${whole.count} whole`)
      }
    }
  }
  const settings = batches.length * chunkings.length
  const total = times.reduce((sum, [, ms]) => sum + ms, 0)
  console.log(
    `\nstream exactness over the rule samples (${text.length} characters, ${whole.count} findings): ${
      settings - differ.length
    } of ${settings} settings give the whole-text result (${(total / 1000).toFixed(1)} s)`
  )
  for (const line of differ) console.log(`  DIFFERS ${line}`)
  for (const [name, ms] of [...times].sort((a, b) => b[1] - a[1]).slice(0, 5)) {
    console.log(`  slowest: ${name.padEnd(44)} ${ms.toFixed(0).padStart(6)} ms`)
  }
  if (differ.length > 0) process.exitCode = 1
}

// What any engine pays on this text before it decides anything, when it
// finds triggers with V8's regular expressions and returns a new string:
// the output copy, and one pass per kind of trigger whose characters are
// common (context words, digits, token prefixes). The keyword and digit
// expressions restate what the engine looks for (`SecretRules` keywords,
// `PersonalData` digit shapes); the prefix pass is stood for by the
// cheapest pass there is, a class of three characters the text lacks.
// This engine pays none of them: it finds every trigger in its one text
// scan, and returns a text it found nothing in as it is. They stay as the
// bar a design of regular-expression passes could not pass.
const bare = (pattern: RegExp) => () => {
  pattern.lastIndex = 0
  let n = 0
  while (pattern.test(log)) n++
  return n
}
const half = log.length >> 1
console.log(
  "\nfloors on the same text: what an engine of regular-expression passes that copies the text cannot go below (median, best round)"
)
const floors = await interleaved([
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

console.log("\n20,000 token-shaped strings (median, best round; budget 200 ms each)")
const tokenTexts = (["secrets", "near misses"] as const).map((kind) => [kind, tokenText(kind, 2)] as const)
for (
  const { best, median: ms, name } of await interleaved(
    tokenTexts.map(([kind, text]) => [kind, () => defaults.redact(text)])
  )
) {
  const text = tokenTexts.find(([kind]) => kind === name)![1]
  console.log(
    `  ${name.padEnd(12)} ${(text.length / 1024).toFixed(0).padStart(5)} KiB ${ms.toFixed(1).padStart(7)} ms (best ${
      best.toFixed(1)
    } ms)   findings ${defaults.redact(text).count}   ${ms < 200 ? "within budget" : "OVER BUDGET"}`
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

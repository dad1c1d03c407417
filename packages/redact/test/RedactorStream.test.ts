import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as Redactor from "../src/Redactor.js"
import { alnum, noise } from "./FakeSecrets.js"
import { samples } from "./samples/index.js"

/**
 * The promise of `Redactor.stream`: whatever the chunking and the batch,
 * the outputs put together are exactly what `redact` gives for the whole
 * text, markers, count and kinds alike.
 *
 * These laws test it where it is hard to keep. A stream forgets the text it
 * has emitted, all but a context of about 12,000 characters, and holds back
 * what a rule may still decide (a Kubernetes entry is decided on up to
 * 22,000 characters after it): texts shorter than both together never make
 * it forget anything, so the texts here are long (40,000 to 90,000
 * characters), made of the rule samples and of multi-line structures whose
 * decisions read far back or far ahead: Kubernetes `Secret` manifests (YAML
 * with `kind` before or after `data`, block scalars, pretty JSON, a
 * manifest serialized in a string, a `List`), PEM blocks (plain, indented,
 * escaped), here-documents of assignments, `key = value` sections and
 * multi-line JSON.
 */

const redactor = Redactor.make()

/** Every sample text of every rule, positives and negatives, in catalogue order. */
const sampleTexts: ReadonlyArray<string> = samples.flatMap((s) => [...s.positives.map((p) => p.text), ...s.negatives])
/**
 * All of them, one after the other, about 164,000 characters. Streamed with a
 * batch of 500 in chunks of 13, as the shell tool can, these once came out
 * with a Kubernetes `tls.key` value left in, and in 14 of the table's 30
 * settings with markers that differed from the whole text's.
 */
const concatenated = sampleTexts.join("\n")

/**
 * `text` pushed in chunks of `sizes` (cycled; `Infinity` is the rest of the
 * text at once) through a fresh stream with `batch`, and the outputs put
 * together.
 */
const streamed = (text: string, sizes: ReadonlyArray<number>, batch: number | undefined): Redactor.Redaction => {
  const stream = redactor.stream(batch === undefined ? undefined : { batch })
  const parts: Array<string> = []
  const kinds: Record<string, number> = {}
  let count = 0
  const take = (r: Redactor.Redaction) => {
    parts.push(r.text)
    count += r.count
    for (const [k, n] of Object.entries(r.kinds)) kinds[k] = (kinds[k] ?? 0) + n
  }
  let at = 0
  for (let i = 0; at < text.length; i++) {
    const size = Math.min(sizes[i % sizes.length]!, text.length - at)
    take(stream.push(text.slice(at, at + size)))
    at += size
  }
  take(stream.end())
  return { text: parts.join(""), count, kinds }
}

/**
 * How `result` differs from `expected`, or undefined when it does not: the
 * first differing character with what surrounds it on both sides (the
 * texts are too long to print whole), and the counts.
 */
const difference = (expected: Redactor.Redaction, result: Redactor.Redaction): string | undefined => {
  const a = expected.text
  const b = result.text
  if (a === b) {
    return result.count === expected.count &&
        JSON.stringify(sorted(result.kinds)) === JSON.stringify(sorted(expected.kinds))
      ? undefined
      : `same text, counts ${result.count} and ${expected.count}`
  }
  let i = 0
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return `at ${i} of ${a.length}, whole ${JSON.stringify(a.slice(i - 80, i + 80))}, streamed ${
    JSON.stringify(b.slice(i - 80, i + 80))
  }; markers ${result.count} streamed, ${expected.count} whole`
}
const sorted = (kinds: Readonly<Record<string, number>>) => Object.entries(kinds).sort(([x], [y]) => x.localeCompare(y))

// ---------------------------------------------------------------------------
// multi-line structures
// ---------------------------------------------------------------------------

const base64 = alnum + "+/"
/** A base64 value of `length` characters from `seed`, as a Secret's `data` holds. */
const base64Of = (length: number, seed: number) => noise(length, seed, base64)
const seed = FastCheck.integer({ min: 1, max: 1 << 30 })
const key = FastCheck.constantFrom("password", "tls.key", "tls.crt", "api-key", "token", "ca.crt", "DB_PASSWORD", "x")
/** Lines between an entry and its manifest's `kind`: up to past the 6,000 characters a rule looks. */
const padding = FastCheck.integer({ min: 0, max: 90 }).chain((lines) =>
  FastCheck.constant(Array.from({ length: lines }, (_, i) => `    note-${i}: build ${i} of the release train, ok`))
)

/** A YAML `Secret`: `kind` before or after `data`, entries plain, quoted or block scalars, padded apart. */
const yamlSecret = FastCheck.record({
  kindFirst: FastCheck.boolean(),
  stringData: FastCheck.boolean(),
  indent: FastCheck.constantFrom("  ", "    "),
  entries: FastCheck.array(
    FastCheck.tuple(
      key,
      FastCheck.constantFrom("plain", "quoted", "block"),
      // Now and then longer than the 8,000 characters a verification reads of a value.
      FastCheck.oneof(
        { arbitrary: FastCheck.integer({ min: 12, max: 2_000 }), weight: 6 },
        { arbitrary: FastCheck.integer({ min: 7_900, max: 20_000 }), weight: 1 }
      ),
      seed
    ),
    { minLength: 1, maxLength: 6 }
  ),
  padding,
  list: FastCheck.boolean()
}).map(({ entries, indent, kindFirst, list, padding, stringData }) => {
  const body = entries.map(([name, shape, length, s]) => {
    const value = base64Of(length, s)
    if (shape === "quoted") return `${indent}${name}: "${value}"`
    if (shape === "plain") return `${indent}${name}: ${value}`
    const lines = value.match(/.{1,64}/g)!.map((line) => `${indent}  ${line}`)
    return `${indent}${name}: |\n${lines.join("\n")}`
  }).join("\n")
  const meta = `metadata:\n  name: app\n  annotations:\n${padding.join("\n")}`
  const data = `${stringData ? "stringData" : "data"}:\n${body}`
  const manifest = kindFirst
    ? `apiVersion: v1\nkind: Secret\n${meta}\n${data}\n`
    : `apiVersion: v1\n${data}\n${meta}\nkind: Secret\n`
  if (!list) return manifest
  // The same manifest as an item of a `List`: every line two deeper, the first behind `- `.
  const item = manifest.trimEnd().split("\n").map((line, i) => (i === 0 ? "- " : "  ") + line).join("\n")
  return `apiVersion: v1\nitems:\n${item}\nkind: List\n`
})

/** A `Secret` as `kubectl get -o json` prints it, and the same serialized into a tool's JSON output. */
const jsonSecret = FastCheck.tuple(
  FastCheck.array(FastCheck.tuple(key, FastCheck.integer({ min: 12, max: 400 }), seed), { minLength: 1, maxLength: 5 }),
  FastCheck.boolean(),
  FastCheck.boolean()
).map(([entries, kindFirst, serialized]) => {
  const data = Object.fromEntries(entries.map(([name, length, s]) => [name, base64Of(length, s)]))
  const manifest = kindFirst
    ? { apiVersion: "v1", kind: "Secret", metadata: { name: "db" }, data }
    : { apiVersion: "v1", data, kind: "Secret", metadata: { name: "db" } }
  const pretty = JSON.stringify(manifest, null, 4)
  if (!serialized) return pretty
  const yaml = `apiVersion: v1\nkind: Secret\ndata:\n${
    entries.map(([name, length, s]) => `  ${name}: "${base64Of(length, s)}"`).join("\n")
  }`
  return JSON.stringify({ stdout: yaml, exitCode: 0 })
})

/**
 * A PEM private key: plain, as a YAML block scalar, escaped in JSON, or
 * joined by spaces; now and then longer than the 12,000 characters of body
 * a verification reads.
 */
const pemBlock = FastCheck.tuple(
  FastCheck.constantFrom(
    "RSA PRIVATE KEY",
    "PRIVATE KEY",
    "EC PRIVATE KEY",
    "OPENSSH PRIVATE KEY",
    "ENCRYPTED PRIVATE KEY"
  ),
  FastCheck.oneof(
    { arbitrary: FastCheck.integer({ min: 1, max: 130 }), weight: 6 },
    { arbitrary: FastCheck.integer({ min: 180, max: 400 }), weight: 1 }
  ),
  seed,
  FastCheck.constantFrom("plain", "yaml", "json", "spaced")
).map(([label, lines, s, shape]) => {
  const body = Array.from({ length: lines }, (_, i) => base64Of(64, s + i)).join("\n")
  const pem = `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`
  switch (shape) {
    case "plain":
      return pem
    case "yaml":
      return `tls:\n  key: |\n    ${pem.replaceAll("\n", "\n    ")}\n  cert: server.crt`
    case "json":
      return JSON.stringify({ type: "service_account", private_key: pem + "\n", client_email: "ci@demo.iam" })
    default:
      return `loaded ${pem.replaceAll("\n", " ")} from disk`
  }
})

/** A value of a service's format, or random enough to be a password. */
const secretValue = FastCheck.tuple(FastCheck.integer({ min: 0, max: 5 }), seed).map(([kind, s]) => {
  switch (kind) {
    case 0:
      return "gh" + "p_" + noise(36, s)
    case 1:
      return "AK" + "IA" + noise(16, s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    case 2:
      return "sk-" + "proj-" + noise(48, s)
    case 3:
      return noise(32, s, "0123456789abcdef")
    case 4:
      return noise(40, s, base64)
    default:
      return noise(14, s) + "7"
  }
})
const assignedKey = FastCheck.constantFrom(
  "DB_PASSWORD",
  "API_TOKEN",
  "HEROKU_API_KEY",
  "DATADOG_API_KEY",
  "aws_secret_access_key",
  "client_secret",
  "GITHUB_TOKEN",
  "password"
)

/** A here-document that writes assignments into a file, as a shell command's output echoes it. */
const heredoc = FastCheck.tuple(
  FastCheck.array(FastCheck.tuple(assignedKey, secretValue), { minLength: 1, maxLength: 8 }),
  FastCheck.constantFrom("EOF", "'EOF'", "\"END\"", "-EOF")
).map(([lines, tag]) => {
  const end = tag.replace(/['"-]/g, "")
  const indent = tag.startsWith("-") ? "\t" : ""
  return `$ cat <<${tag} > .env\n${
    lines.map(([k, v]) => `${indent}${k}=${v}`).join("\n")
  }\n${indent}${end}\n$ source .env`
})

/** `key = value` sections (INI, TOML, `.pypirc`, AWS credentials) and multi-line JSON. */
const keyedShapes = FastCheck.tuple(
  FastCheck.array(FastCheck.tuple(assignedKey, secretValue), { minLength: 1, maxLength: 6 }),
  FastCheck.constantFrom("ini", "toml", "json", "yaml")
).map(([pairs, shape]) => {
  switch (shape) {
    case "ini":
      return `[default]\n${pairs.map(([k, v]) => `${k} = ${v}`).join("\n")}\nregion = eu-west-1`
    case "toml":
      return `[server.auth]\n${pairs.map(([k, v]) => `${k} = "${v}"`).join("\n")}`
    case "json":
      return JSON.stringify({ service: { auth: Object.fromEntries(pairs), retries: 3 } }, null, 2)
    default:
      return `service:\n  auth:\n${pairs.map(([k, v]) => `    ${k}: ${v}`).join("\n")}\n  retries: 3`
  }
})

/** A long line of base64 (a bundle, an image), which no rule reads as a whole. */
const longLine = FastCheck.tuple(FastCheck.integer({ min: 1_000, max: 12_000 }), seed).map(([n, s]) => base64Of(n, s))

/**
 * YAML inside a tool's JSON output, a `Secret` or another manifest: every
 * line of it is a hit of the serialized-manifest rule, which is decided as
 * far ahead as the plain one, so the two hold each other's hits back.
 */
const serializedYaml = FastCheck.oneof(
  yamlSecret,
  FastCheck.constantFrom(
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n        - name: api\n          image: registry.internal/api:1.2.3",
    "service:\n  host: 0.0.0.0\n  port: 8080\n  retries: 3\n  timeout: 30s"
  )
).map((yaml) => JSON.stringify({ stdout: yaml, exitCode: 0 }))

const structure = FastCheck.oneof(
  { arbitrary: yamlSecret, weight: 4 },
  { arbitrary: serializedYaml, weight: 3 },
  { arbitrary: jsonSecret, weight: 2 },
  { arbitrary: pemBlock, weight: 2 },
  { arbitrary: heredoc, weight: 1 },
  { arbitrary: keyedShapes, weight: 1 },
  { arbitrary: longLine, weight: 1 }
)
const sample = FastCheck.integer({ min: 0, max: sampleTexts.length - 1 }).map((i) => sampleTexts[i]!)
const separator = FastCheck.constantFrom("\n", "\n\n", " ", "", "\n---\n", "\r\n")

/**
 * A long text: the rule samples and multi-line structures, shuffled and
 * repeated, cut to 40,000 to 90,000 characters (a cut can fall inside a
 * structure, as the end of a stream can).
 */
const longText = FastCheck.tuple(
  FastCheck.array(
    FastCheck.tuple(FastCheck.oneof({ arbitrary: sample, weight: 3 }, { arbitrary: structure, weight: 1 }), separator),
    { minLength: 300, maxLength: 600 }
  ),
  FastCheck.integer({ min: 40_000, max: 90_000 })
).map(([parts, length]) => parts.map(([part, sep]) => part + sep).join("").slice(0, length))

/** Batch sizes by class: tiny, mid, the shell tool's 500, large, and the default. */
const batch = FastCheck.oneof(
  FastCheck.integer({ min: 1, max: 16 }),
  FastCheck.integer({ min: 17, max: 499 }),
  FastCheck.constant(500),
  FastCheck.integer({ min: 4_096, max: 100_000 }),
  FastCheck.constant(undefined)
)
/** Chunkings by class: one character, 2 to 16, 13, 64 and more, irregular splits, the whole text at once. */
const chunking = FastCheck.oneof(
  FastCheck.constant([1]),
  FastCheck.integer({ min: 2, max: 16 }).map((n) => [n]),
  FastCheck.constant([13]),
  FastCheck.integer({ min: 64, max: 20_000 }).map((n) => [n]),
  FastCheck.array(FastCheck.integer({ min: 1, max: 5_000 }), { minLength: 2, maxLength: 40 }),
  FastCheck.constant([Infinity])
)

/**
 * A stream with a tiny batch and tiny chunks scans its whole buffer (up to
 * 50,000 characters) at almost every character: those settings run on the
 * first 24,000 characters, to keep the law's time bounded; the table below
 * runs them over longer texts.
 */
const affordable = (text: string, sizes: ReadonlyArray<number>, batch: number | undefined) =>
  (batch ?? Infinity) < 8 && Math.min(...sizes) < 8 ? text.slice(0, 24_000) : text

describe("Redactor.stream", () => {
  describe("laws over long texts of samples and multi-line structures", () => {
    it.prop(
      "any batch and any chunking give exactly what redacting the whole gives",
      { text: longText, batch, chunking },
      ({ batch, chunking, text }) => {
        const input = affordable(text, chunking, batch)
        const expected = redactor.redact(input)
        const diff = difference(expected, streamed(input, chunking, batch))
        assert.isUndefined(diff, `batch ${batch}, chunks ${JSON.stringify(chunking.slice(0, 8))}: ${diff}`)
        // A text cut short (a manifest before its `kind: Secret`, only the
        // rule samples' negatives) can hold no secret: it is checked all the
        // same, but not counted, so that each counted run streams secrets.
        FastCheck.pre(expected.count > 0)
      },
      { timeout: 120_000, fastCheck: { numRuns: 40, endOnFailure: true } }
    )

    it.prop(
      "a structure streamed whole or cut anywhere gives what redacting the whole gives",
      {
        parts: FastCheck.array(FastCheck.tuple(FastCheck.oneof(structure, sample), separator), {
          minLength: 1,
          maxLength: 12
        }),
        cuts: FastCheck.array(FastCheck.integer({ min: 1, max: 4_000 }), { minLength: 1, maxLength: 6 }),
        batch
      },
      ({ batch, cuts, parts }) => {
        const text = parts.map(([part, sep]) => part + sep).join("")
        const diff = difference(redactor.redact(text), streamed(text, cuts, batch))
        assert.isUndefined(diff, `batch ${batch}, chunks ${JSON.stringify(cuts)}: ${diff}`)
      },
      { timeout: 120_000, fastCheck: { numRuns: 150 } }
    )
  })

  describe("the concatenated samples, in a table of batches and chunkings", () => {
    // [batch, chunk sizes]: every class of batch against every class of
    // chunking. A stream rescans its buffer (up to about 60,000
    // characters) every `max(batch, chunk)` characters: the settings where
    // both are tiny cost seconds each over this text, and run, with many
    // more, in the stream section of `pnpm bench:redaction`.
    const settings: ReadonlyArray<readonly [number | undefined, ReadonlyArray<number>]> = [
      [1, [64]],
      [1, [997, 3, 1, 5_000, 64]],
      [3, [29]],
      [7, [13]],
      [16, [1]],
      [16, [5]],
      [16, [16]],
      [64, [1]],
      [64, [13]],
      [64, [64]],
      [64, [1_000]],
      [100, [37]],
      [500, [1]],
      [500, [13]],
      [500, [64]],
      [500, [500]],
      [500, [4_096]],
      [500, [Infinity]],
      [4_096, [2]],
      [4_096, [13]],
      [4_096, [4_096]],
      [4_096, [1, 7_000, 13, 300]],
      [undefined, [3]],
      [undefined, [13]],
      [undefined, [64]],
      [undefined, [65_536]],
      [undefined, [Infinity]],
      [100_000, [13]],
      [100_000, [40_000, 1, 17]],
      [1_000_000, [1]]
    ]
    const expected = redactor.redact(concatenated)

    it("holds the samples of every rule, Kubernetes manifests and PEM keys among them", () => {
      assert.isAbove(concatenated.length, 150_000)
      assert.isAbove(expected.kinds["kubernetes-secret"] ?? 0, 10)
      assert.isAbove(expected.kinds["private-key"] ?? 0, 5)
    })

    it(`gives the whole-text result in each of ${settings.length} settings`, () => {
      const differ = settings.flatMap(([batch, sizes]) => {
        const diff = difference(expected, streamed(concatenated, sizes, batch))
        return diff === undefined ? [] : [`batch ${batch}, chunks ${JSON.stringify(sizes)}: ${diff}`]
      })
      assert.deepStrictEqual(differ, [])
    }, 120_000)
  })
})

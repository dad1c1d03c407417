/**
 * Removes secrets from text before it reaches the model, the logs, the
 * traces or the artifact store.
 *
 * Each rule names what it removes (`[REDACTED:github-token]`) so the model
 * knows something was there. Rules carry keywords: a rule's pattern runs
 * only on text that contains one of them, which keeps the common case (no
 * secret at all) to a few substring searches. Patterns use bounded
 * quantifiers only, so no input can make them backtrack without end.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

/**
 * @since 0.1.0
 * @category models
 */
export interface Redaction {
  readonly text: string
  readonly count: number
}

/**
 * A detection rule. `pattern` must be global. When `keep` is given, the
 * match's first capture group (a prefix such as `Authorization: Bearer `)
 * stays. `accept` can veto a match (an entropy check, an allow-list).
 *
 * @since 0.1.0
 * @category models
 */
export interface Rule {
  readonly id: string
  /** Lower-case substrings of which at least one must occur for the pattern to run. */
  readonly keywords: ReadonlyArray<string>
  readonly pattern: RegExp
  readonly keep?: boolean | undefined
  readonly accept?: ((secret: string) => boolean) | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly redact: (text: string) => Redaction
}

/**
 * @since 0.1.0
 * @category tags
 */
export class Redactor extends Context.Tag("@tool-runtime/core/Redactor")<Redactor, Service>() {}

/**
 * @since 0.1.0
 * @category constructors
 */
export const marker = (id: string): string => `[REDACTED:${id}]`

/** Bits of entropy per character: separates `hunter2hunter2` from `kX9#pQ2vL8`. */
const entropy = (value: string): number => {
  const counts = new Map<string, number>()
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  let bits = 0
  for (const n of counts.values()) {
    const p = n / value.length
    bits -= p * Math.log2(p)
  }
  return bits
}

/**
 * A value assigned to a secret-looking key counts as a secret when it looks
 * random: long enough, varied enough, and not a plain word or placeholder.
 *
 * @since 0.1.0
 * @category rules
 */
export const looksRandom = (value: string): boolean =>
  value.length >= 8 &&
  entropy(value) >= 3 &&
  /[0-9]/.test(value) !== /^[0-9]+$/.test(value) &&
  !/^(?:\$\{?[A-Z_]+\}?|<[^>]+>|x{3,}|\*{3,}|changeme|password|example.*)$/i.test(value)

const awsExampleKeys = new Set(["AKIAIOSFODNN7EXAMPLE", "AKIAI44QH8DHBEXAMPLE"])

/**
 * The most common token shapes, each with a prefix specific enough that
 * ordinary text never matches.
 *
 * @since 0.1.0
 * @category rules
 */
export const defaultRules: ReadonlyArray<Rule> = [
  {
    id: "private-key",
    keywords: ["private key"],
    pattern:
      /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[A-Za-z0-9+/=\s\\]{0,20000}(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?/g
  },
  {
    id: "aws-access-key-id",
    keywords: ["akia", "asia", "abia", "acca"],
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b/g,
    accept: (key) => !awsExampleKeys.has(key)
  },
  {
    id: "github-token",
    keywords: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g
  },
  { id: "anthropic-key", keywords: ["sk-ant-"], pattern: /\bsk-ant-[A-Za-z0-9_-]{20,300}/g },
  {
    id: "openai-key",
    keywords: ["sk-"],
    pattern: /\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,300}|[A-Za-z0-9]{32,200}\b)/g
  },
  { id: "slack-token", keywords: ["xox"], pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,250}/g },
  {
    id: "slack-webhook",
    keywords: ["hooks.slack.com"],
    pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9_/]{20,200}/g
  },
  { id: "stripe-key", keywords: ["_live_", "_test_"], pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,200}\b/g },
  { id: "google-api-key", keywords: ["aiza"], pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { id: "npm-token", keywords: ["npm_"], pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { id: "huggingface-token", keywords: ["hf_"], pattern: /\bhf_[A-Za-z0-9]{34,40}\b/g },
  {
    id: "jwt",
    keywords: ["eyj"],
    pattern: /\beyJ[A-Za-z0-9_-]{8,4000}\.eyJ[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{8,2000}/g
  },
  {
    id: "url-credentials",
    keywords: ["://"],
    pattern: /(\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}:\/\/[^\s:/@]{1,256}:)[^\s@/]{1,256}(?=@)/g,
    keep: true
  },
  {
    id: "authorization-header",
    keywords: ["authorization", "bearer"],
    pattern: /((?:authorization\s{0,5}[:=]\s{0,5}["']?)?(?:bearer|basic|token)\s{1,5})[A-Za-z0-9._~+/-]{12,4000}=*/gi,
    keep: true
  },
  {
    id: "secret-assignment",
    keywords: ["pass", "pwd", "secret", "key", "token"],
    pattern:
      /(\b[A-Za-z0-9_.-]{0,40}(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|access[_-]?token|private[_-]?key)["']?\s{0,5}[:=]\s{0,5}["']?)([^\s"',;]{8,500})/gi,
    keep: true,
    accept: looksRandom
  }
]

/**
 * Builds a redactor from rules and from the actual values of secrets the
 * application knows (its own API keys), which are removed wherever they
 * appear, whatever their shape.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: {
  readonly rules?: ReadonlyArray<Rule> | undefined
  readonly secrets?: ReadonlyArray<Redacted.Redacted<string>> | undefined
}): Service => {
  const rules = options?.rules ?? defaultRules
  // One pass over the text tells whether any rule can match at all: the
  // common case (no secret) then costs a single regular-expression test.
  const keywords = rules.flatMap((rule) => rule.keywords)
  const prefilter = keywords.length === 0
    ? undefined
    : new RegExp(keywords.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "i")
  // Longest first, so a secret that contains another is removed whole.
  const known = (options?.secrets ?? [])
    .map(Redacted.value)
    .filter((value) => value.length >= 4)
    .sort((a, b) => b.length - a.length)
  return {
    redact: (input) => {
      let text = input
      let count = 0
      for (const value of known) {
        if (text.includes(value)) {
          const parts = text.split(value)
          count += parts.length - 1
          text = parts.join(marker("known-secret"))
        }
      }
      if (prefilter === undefined || !prefilter.test(text)) return { text, count }
      let lower: string | undefined
      for (const rule of rules) {
        lower ??= text.toLowerCase()
        if (!rule.keywords.some((keyword) => lower!.includes(keyword))) continue
        const replacement = marker(rule.id)
        let changed = false
        const next = text.replace(rule.pattern, (match: string, prefix?: unknown, secret?: unknown) => {
          const kept = rule.keep === true && typeof prefix === "string" ? prefix : ""
          const candidate = typeof secret === "string" ? secret : match.slice(kept.length)
          if (rule.accept !== undefined && !rule.accept(candidate)) return match
          count++
          changed = true
          return kept + replacement
        })
        if (changed) {
          text = next
          lower = undefined
        }
      }
      return { text, count }
    }
  }
}

/**
 * The default rules.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDefault: Layer.Layer<Redactor> = Layer.succeed(Redactor, make())

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Parameters<typeof make>[0]): Layer.Layer<Redactor> =>
  Layer.succeed(Redactor, make(options))

/**
 * True- and false-positive samples per rule, the way gitleaks validates
 * each of its rules: every rule of the default catalogue has texts it must
 * redact and texts it must leave alone, in the syntaxes tool output is made
 * of. `RuleSamples.test.ts` runs them all and checks every rule has some.
 */

/** A text that holds `secret`: after redaction no 8-character window of it may survive, and `rule`'s marker must be there. */
export interface Positive {
  readonly text: string
  readonly secret: string
  /** What must still be there after redaction (the key, the scheme). */
  readonly kept?: string | undefined
}

export interface RuleSamples {
  /** The rule id the marker names: `[REDACTED:<rule>]`. */
  readonly rule: string
  readonly positives: ReadonlyArray<Positive>
  /** Texts that must come out of the default redactor unchanged. */
  readonly negatives: ReadonlyArray<string>
}

/**
 * The same secret assigned to `key` in the syntaxes of config files and
 * code: each is one positive sample.
 */
export const assigned = (key: string, secret: string): ReadonlyArray<Positive> => [
  { text: `${key}=${secret}\nREGION=eu-west-1\n`, secret, kept: `${key}=` },
  { text: `export ${key}="${secret}"`, secret, kept: `export ${key}="` },
  { text: `{"${key}": "${secret}", "region": "eu-west-1"}`, secret, kept: `{"${key}": "` },
  { text: `service:\n  ${key}: ${secret}\n  retries: 3\n`, secret, kept: `  ${key}: ` },
  { text: `const config = { ${key}: '${secret}', timeout: 30 }`, secret, kept: `${key}: '` }
]

/** The secret in free text with no announcing key: for rules that need none. */
export const bare = (secret: string): ReadonlyArray<Positive> => [
  { text: `2026-03-14T09:26:53Z WARN [deploy] using ${secret} (attempt 2)`, secret },
  { text: `"${secret}"`, secret },
  { text: `curl -H "X-Token: ${secret}" https://api.internal/v1`, secret },
  { text: `line one\\n${secret}\\nline three`, secret }
]

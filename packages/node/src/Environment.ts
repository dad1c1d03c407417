/**
 * Which environment variables of the program running the tools reach the
 * commands it starts, confined or not.
 *
 * Without a policy every variable would: the database password of a
 * developer's shell, the agent's own `ANTHROPIC_API_KEY`, a `GITHUB_TOKEN`
 * that can push. A sandbox that hides `~/.aws` but hands over
 * `AWS_SECRET_ACCESS_KEY` confines nothing, so the runner applies a policy
 * to every command, and each result says how many variables it withheld
 * (a count, never names or values: a name such as `ACME_PROD_DB_PASSWORD`
 * already tells who the user works for, and the model needs only to know
 * that something was withheld to explain a failing login).
 *
 * A policy is applied in this order:
 *
 * 1. `inherit`: `all` (the default), `core` (only {@link coreNames}: what
 *    shells, compilers and package managers need to run) or `none`;
 * 2. {@link defaultExclude} is removed, except names that `allow` lists;
 * 3. `exclude` is removed (never overridden by `allow`);
 * 4. with `includeOnly`, only the names it matches stay;
 * 5. `set` sets values last: what it names is never counted as withheld.
 *
 * A call's own variables (a tool's `NO_COLOR`) go on top of the result.
 *
 * Patterns are globs over whole names, `*` for any run of characters and
 * `?` for one, compared case-insensitively. The default excludes are
 * substrings on purpose (`*KEY*`, `*TOKEN*`): secrets are named by people
 * (`MY_STRIPE_KEY`, `APIKEY`, `SERVICE_TOKEN_2`), and withholding a
 * harmless `KEYBOARD_LAYOUT`, `MONKEY` or `TOKENIZERS_PARALLELISM` costs
 * far less than passing on a key. Such a false positive is counted in the
 * result like any other; `allow` lets it through. `*AUTH*` would withhold
 * `GIT_AUTHOR_NAME` and break commits, so the authentication patterns are
 * `AUTH_*`, `*_AUTH` and `*_AUTH_*` (`SSH_AUTH_SOCK`, `DOCKER_AUTH_CONFIG`).
 *
 * @since 0.4.0
 */
import * as Schema from "effect/Schema"

// ---------------------------------------------------------------------------
// models
// ---------------------------------------------------------------------------

/**
 * @since 0.4.0
 * @category models
 */
export type Inherit = "all" | "core" | "none"

/**
 * @since 0.4.0
 * @category models
 */
export interface Policy {
  /** Default `all`. */
  readonly inherit?: Inherit | undefined
  /** Removed as well as {@link defaultExclude}. */
  readonly exclude?: ReadonlyArray<string> | undefined
  /** Names let through despite {@link defaultExclude} (not despite `exclude`). */
  readonly allow?: ReadonlyArray<string> | undefined
  /** When set, only the names these patterns match are kept. */
  readonly includeOnly?: ReadonlyArray<string> | undefined
  /** Set last, whatever the other fields say. */
  readonly set?: Readonly<Record<string, string>> | undefined
}

/**
 * The policy of a runner nobody configured: everything but the secrets.
 *
 * @since 0.4.0
 * @category defaults
 */
export const defaultPolicy: Policy = { inherit: "all" }

/**
 * How strict each `inherit` is, for merging: the stricter one wins.
 *
 * @since 0.4.0
 * @category models
 */
export const strictness: Readonly<Record<Inherit, number>> = { all: 0, core: 1, none: 2 }

/**
 * What `inherit: "core"` keeps: the variables that say who and where the
 * user is and how text is shown, none of which holds a secret.
 *
 * @since 0.4.0
 * @category defaults
 */
export const coreNames: ReadonlyArray<string> = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "COLORTERM",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TZ",
  "TMPDIR",
  "PWD",
  "HOSTNAME",
  "EDITOR",
  "VISUAL",
  "PAGER"
]

/**
 * Withheld unless a policy's `allow` names them: the shapes of secret names,
 * and well-known credentials whose names do not look like one
 * (`DATABASE_URL` holds a password, `SSH_AUTH_SOCK` reaches an agent that
 * signs with the user's keys).
 *
 * @since 0.4.0
 * @category defaults
 */
export const defaultExclude: ReadonlyArray<string> = [
  "*KEY*",
  "*SECRET*",
  "*TOKEN*",
  "*PASSWORD*",
  "*PASSWD*",
  "*CREDENTIAL*",
  "AUTH_*",
  "*_AUTH",
  "*_AUTH_*",
  "*_DSN",
  "*DATABASE_URL",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "NPM_TOKEN",
  "NODE_AUTH_TOKEN",
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
  "PGPASSWORD",
  "MYSQL_PWD",
  "REDIS_URL",
  "MONGODB_URI",
  "MONGO_URL",
  "DOCKER_AUTH_CONFIG",
  "SSH_AUTH_SOCK",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "AZURE_CLIENT_SECRET",
  "VAULT_TOKEN"
]

// ---------------------------------------------------------------------------
// schema
// ---------------------------------------------------------------------------

const Patterns = Schema.Array(Schema.String)

/**
 * The `environment` object of the sandbox settings.
 *
 * @since 0.4.0
 * @category schemas
 */
export const PolicySchema = Schema.Struct({
  inherit: Schema.optionalWith(Schema.Literal("all", "core", "none"), { exact: true }),
  exclude: Schema.optionalWith(Patterns, { exact: true }),
  allow: Schema.optionalWith(Patterns, { exact: true }),
  includeOnly: Schema.optionalWith(Patterns, { exact: true }),
  set: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { exact: true })
}).annotations({ identifier: "EnvironmentPolicy" })

// ---------------------------------------------------------------------------
// matching
// ---------------------------------------------------------------------------

const compiled = new Map<string, RegExp>()

const regexOf = (pattern: string): RegExp => {
  let regex = compiled.get(pattern)
  if (regex === undefined) {
    const body = pattern.split("").map((c) =>
      c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&")
    )
      .join("")
    regex = new RegExp(`^${body}$`, "is")
    compiled.set(pattern, regex)
  }
  return regex
}

/**
 * Whether a variable's name matches any of the patterns (case-insensitive globs).
 *
 * @since 0.4.0
 * @category matching
 */
export const matches = (name: string, patterns: ReadonlyArray<string>): boolean =>
  patterns.some((pattern) => regexOf(pattern).test(name))

// ---------------------------------------------------------------------------
// applying
// ---------------------------------------------------------------------------

/**
 * An environment for a command, and how many of the source's variables it left out.
 *
 * @since 0.4.0
 * @category models
 */
export interface Applied {
  readonly env: Readonly<Record<string, string>>
  readonly withheld: number
}

/**
 * Whether a variable of the source reaches commands under the policy,
 * before `set`.
 *
 * @since 0.4.0
 * @category applying
 */
export const passes = (policy: Policy, name: string): boolean => {
  const inherit = policy.inherit ?? "all"
  if (inherit === "none") return false
  if (inherit === "core" && !matches(name, coreNames)) return false
  if (matches(name, defaultExclude) && !matches(name, policy.allow ?? [])) return false
  if (matches(name, policy.exclude ?? [])) return false
  if (policy.includeOnly !== undefined && !matches(name, policy.includeOnly)) return false
  return true
}

/**
 * The environment a command starts with, from `source` (the runner's own,
 * `process.env` by default).
 *
 * @since 0.4.0
 * @category applying
 */
export const apply = (policy: Policy, source: Readonly<Record<string, string | undefined>>): Applied => {
  const env: Record<string, string> = {}
  let withheld = 0
  const set = policy.set ?? {}
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue
    if (passes(policy, name)) env[name] = value
    else if (!Object.hasOwn(set, name)) withheld++
  }
  return { env: Object.assign(env, set), withheld }
}

/**
 * The clause of a sandbox line: `3 environment variables withheld`.
 *
 * @since 0.4.0
 * @category rendering
 */
export const describeWithheld = (withheld: number): string =>
  withheld === 1 ? "1 environment variable withheld" : `${withheld} environment variables withheld`

// ---------------------------------------------------------------------------
// merging
// ---------------------------------------------------------------------------

const hasWildcard = (pattern: string) => pattern.includes("*") || pattern.includes("?")

/**
 * Patterns that match only names both lists match. Two different
 * wildcard patterns cannot be intersected as globs, so such a pair keeps
 * nothing: never looser than either list, sometimes stricter.
 */
const intersect = (
  a: ReadonlyArray<string> | undefined,
  b: ReadonlyArray<string> | undefined
): ReadonlyArray<string> | undefined => {
  if (a === undefined) return b
  if (b === undefined) return a
  const lower = (list: ReadonlyArray<string>) => new Set(list.map((pattern) => pattern.toLowerCase()))
  const inA = lower(a)
  const inB = lower(b)
  const kept = [
    ...a.filter((p) => inB.has(p.toLowerCase()) || (!hasWildcard(p) && matches(p, b))),
    ...b.filter((q) => !inA.has(q.toLowerCase()) && !hasWildcard(q) && matches(q, a))
  ]
  return [...new Set(kept)]
}

/**
 * A project's policy on top of the user's: it can only tighten. `inherit`
 * takes the stricter of the two, excludes add up, `includeOnly` keeps the
 * patterns both list; `allow` and `set` come from the user only (the
 * settings refuse them in a project's file: `set` could give a command
 * `LD_PRELOAD` or `GIT_SSH_COMMAND`, `allow` hands over a secret).
 *
 * @since 0.4.0
 * @category combinators
 */
export const tighten = (user: Policy | undefined, project: Policy | undefined): Policy | undefined => {
  if (project === undefined) return user
  const base = user ?? defaultPolicy
  const inherit = [base.inherit ?? "all", project.inherit ?? "all"].reduce((a, b) =>
    strictness[b] > strictness[a] ? b : a
  )
  const exclude = [...new Set([...(base.exclude ?? []), ...(project.exclude ?? [])])]
  const includeOnly = intersect(base.includeOnly, project.includeOnly)
  return {
    inherit,
    ...(exclude.length > 0 ? { exclude } : {}),
    ...(base.allow === undefined ? {} : { allow: base.allow }),
    ...(includeOnly === undefined ? {} : { includeOnly }),
    ...(base.set === undefined ? {} : { set: base.set })
  }
}

/**
 * Permission settings as the leading agents keep them, in a JSON file:
 *
 * ```json
 * { "permissions": { "allow": ["Bash(npm test:*)"], "ask": ["Bash(git push:*)"],
 *                    "deny": ["Read(.env)"], "defaultMode": "acceptEdits" } }
 * ```
 *
 * Files are read at two levels, the user's and the project's. When both set
 * the mode, the project wins; rule lists are combined, so neither level can
 * remove a deny or an ask rule of the other (combining only ever adds
 * safety), and the allow rules of both apply. Other keys of the file belong
 * to other parts of the agent and are ignored; inside `permissions`, an
 * unknown key is an error, so a typo (`"alow"`) cannot silently drop rules.
 *
 * A file that does not decode fails with a `SettingsError` naming the file,
 * the field and what was expected there.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Mode from "./Mode.js"
import * as Rule from "./Rule.js"

const Rules = Schema.Array(Rule.FromString).annotations({
  message: (issue) => `expected a list of rules, for example ["Bash(npm test:*)"]; got ${JSON.stringify(issue.actual)}`
})

const ModeSetting = Mode.Mode.annotations({
  message: (issue) => ({
    message: `expected one of ${Mode.all.map((mode) => JSON.stringify(mode)).join(", ")}; got ${
      JSON.stringify(issue.actual)
    }`,
    override: true
  })
})

/**
 * The `permissions` object of a settings file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Permissions = Schema.Struct({
  // Exact: JSON has no undefined, and an error about the union with it would
  // hide the one about the value.
  allow: Schema.optionalWith(Rules, { exact: true }),
  ask: Schema.optionalWith(Rules, { exact: true }),
  deny: Schema.optionalWith(Rules, { exact: true }),
  defaultMode: Schema.optionalWith(ModeSetting, { exact: true }),
  /** `"disable"`: no settings file may make bypassPermissions the default mode. */
  disableBypassPermissionsMode: Schema.optionalWith(Schema.Literal("disable"), { exact: true })
}).annotations({ identifier: "Permissions" })

/**
 * A settings file: only `permissions` is read here.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SettingsFile = Schema.Struct({
  permissions: Schema.optionalWith(Schema.Unknown, { exact: true })
}).annotations({ identifier: "SettingsFile" })

/**
 * Settings after loading and merging.
 *
 * @since 0.1.0
 * @category models
 */
export interface Settings {
  readonly allow: ReadonlyArray<Rule.Rule>
  readonly ask: ReadonlyArray<Rule.Rule>
  readonly deny: ReadonlyArray<Rule.Rule>
  readonly defaultMode: Mode.Mode | undefined
  /** Some file said `disableBypassPermissionsMode: "disable"`. */
  readonly bypassDisabled: boolean
  /** The files that were read, lowest precedence first. */
  readonly sources: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const empty: Settings = {
  allow: [],
  ask: [],
  deny: [],
  defaultMode: undefined,
  bypassDisabled: false,
  sources: []
}

/**
 * One problem in a settings file.
 *
 * @since 0.1.0
 * @category models
 */
export interface Issue {
  /** Where in the file: `permissions.allow[2]`, or `(file)` for the file as a whole. */
  readonly field: string
  /** What was expected there, and what was found. */
  readonly expected: string
}

/**
 * @since 0.1.0
 * @category errors
 */
export class SettingsError extends Data.TaggedError("SettingsError")<{
  readonly file: string
  readonly issues: ReadonlyArray<Issue>
}> {
  override get message() {
    return `Invalid settings file ${this.file}:\n${
      this.issues.map((issue) => `  ${issue.field}: ${issue.expected}`).join("\n")
    }`
  }
}

const fieldOf = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (field, key) =>
      typeof key === "number" ? `${field}[${key}]` : field === "" ? String(key) : `${field}.${String(key)}`,
    ""
  )

const issuesOf = (error: ParseResult.ParseError, prefix: ReadonlyArray<PropertyKey>): ReadonlyArray<Issue> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    field: fieldOf([...prefix, ...issue.path]) || "(file)",
    expected: issue._tag === "Unexpected"
      ? "is not a known permissions setting (expected allow, ask, deny, defaultMode or disableBypassPermissionsMode)"
      : issue._tag === "Missing"
      ? "is required"
      : issue.message
  }))

const decodeFile = Schema.decodeUnknownEither(Schema.parseJson(SettingsFile))
const decodePermissions = Schema.decodeUnknownEither(Permissions, { errors: "all", onExcessProperty: "error" })

/**
 * Decodes the text of one settings file.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (file: string, text: string): Either.Either<Settings, SettingsError> => {
  const parsed = decodeFile(text)
  if (Either.isLeft(parsed)) {
    const issues = issuesOf(parsed.left, [])
    // A JSON syntax error comes as one issue about the whole file.
    return Either.left(
      new SettingsError({
        file,
        issues: issues.map((issue) =>
          issue.field === "(file)" && !issue.expected.startsWith("Expected")
            ? { field: "(file)", expected: `expected a JSON object: ${issue.expected}` }
            : issue
        )
      })
    )
  }
  if (parsed.right.permissions === undefined) return Either.right({ ...empty, sources: [file] })
  const permissions = decodePermissions(parsed.right.permissions)
  if (Either.isLeft(permissions)) {
    return Either.left(new SettingsError({ file, issues: issuesOf(permissions.left, ["permissions"]) }))
  }
  const p = permissions.right
  return Either.right({
    allow: p.allow ?? [],
    ask: p.ask ?? [],
    deny: p.deny ?? [],
    defaultMode: p.defaultMode,
    bypassDisabled: p.disableBypassPermissionsMode === "disable",
    sources: [file]
  })
}

const union = (a: ReadonlyArray<Rule.Rule>, b: ReadonlyArray<Rule.Rule>): ReadonlyArray<Rule.Rule> => {
  const seen = new Set(a.map(Rule.print))
  return [...a, ...b.filter((rule) => !seen.has(Rule.print(rule)))]
}

/**
 * Merges settings, lowest precedence first (user, then project): the last
 * mode set wins; rule lists are combined. Once any file disables
 * bypassPermissions, no file can make it the default: a repository's
 * settings must not switch off the user's safety.
 *
 * @since 0.1.0
 * @category combinators
 */
export const merge = (layers: ReadonlyArray<Settings>): Settings =>
  layers.reduce((merged, next) => {
    const bypassDisabled = merged.bypassDisabled || next.bypassDisabled
    const mode = next.defaultMode ?? merged.defaultMode
    return {
      allow: union(merged.allow, next.allow),
      ask: union(merged.ask, next.ask),
      deny: union(merged.deny, next.deny),
      defaultMode: bypassDisabled && mode === "bypassPermissions"
        ? (merged.defaultMode === "bypassPermissions" ? undefined : merged.defaultMode)
        : mode,
      bypassDisabled,
      sources: [...merged.sources, ...next.sources]
    }
  }, empty)

/**
 * Reads one file; a file that does not exist gives empty settings.
 *
 * @since 0.1.0
 * @category loading
 */
export const loadFile = (file: string): Effect.Effect<Settings, SettingsError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const unreadable = (error: { readonly message: string }) =>
      new SettingsError({ file, issues: [{ field: "(file)", expected: `a readable file: ${error.message}` }] })
    if (!(yield* Effect.mapError(fs.exists(file), unreadable))) return empty
    const text = yield* Effect.mapError(fs.readFileString(file), unreadable)
    return yield* decode(file, text)
  })

/**
 * Loads and merges the user's and the project's settings files (either may
 * be absent), the project's taking precedence.
 *
 * @since 0.1.0
 * @category loading
 */
export const load = (files: {
  readonly user?: string | undefined
  readonly project?: string | undefined
}): Effect.Effect<Settings, SettingsError, FileSystem.FileSystem> =>
  Effect.map(
    Effect.forEach([files.user, files.project].filter((file) => file !== undefined), loadFile),
    merge
  )

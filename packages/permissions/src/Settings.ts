/**
 * Permission settings as the leading agents keep them, in a JSON file:
 *
 * ```json
 * { "permissions": { "allow": ["Bash(npm test:*)"], "ask": ["Bash(git push:*)"],
 *                    "deny": ["Read(.env)"], "defaultMode": "acceptEdits" } }
 * ```
 *
 * The top-level `sandbox` object is shared with the node package's sandbox
 * settings; only `autoAllowSandboxedCommands` is read here (see
 * `SandboxRules`), and its other keys are the sandbox's business, ignored
 * here rather than reported:
 *
 * ```json
 * { "sandbox": { "autoAllowSandboxedCommands": true, "network": { "allow": ["registry.npmjs.org"] } } }
 * ```
 *
 * Files are read at two levels, the user's and the project's. When both set
 * the mode, the project wins; rule lists are combined, so neither level can
 * remove a deny or an ask rule of the other (combining only ever adds
 * safety), and the allow rules of both apply. Auto-allowing sandboxed
 * commands is on only when the user's file turns it on and no file turns it
 * off: a repository may switch it off for itself, never on, since it must not
 * grant itself commands that run without asking. Other keys of the file
 * belong to other parts of the agent and are ignored; inside `permissions`,
 * an unknown key is an error, so a typo (`"alow"`) cannot silently drop rules.
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
 * What this package reads of the `sandbox` object of a settings file. The
 * object's other keys belong to the node package's sandbox settings: they
 * are ignored here, not errors.
 *
 * @since 0.3.0
 * @category schemas
 */
export const Sandbox = Schema.Struct({
  autoAllowSandboxedCommands: Schema.optionalWith(
    Schema.Boolean.annotations({
      message: (issue) => ({ message: `expected true or false; got ${JSON.stringify(issue.actual)}`, override: true })
    }),
    { exact: true }
  )
}).annotations({ identifier: "Sandbox" })

/**
 * A settings file: only `permissions` and `sandbox` are read here.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SettingsFile = Schema.Struct({
  permissions: Schema.optionalWith(Schema.Unknown, { exact: true }),
  /** @since 0.3.0 */
  sandbox: Schema.optionalWith(Schema.Unknown, { exact: true })
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
  /**
   * `sandbox.autoAllowSandboxedCommands`; `undefined` when no file said.
   * After {@link merge}, `false` once any file said `false`.
   *
   * @since 0.3.0
   */
  readonly autoAllowSandboxedCommands: boolean | undefined
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
  autoAllowSandboxedCommands: undefined,
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
const decodeSandbox = Schema.decodeUnknownEither(Sandbox, { errors: "all", onExcessProperty: "ignore" })

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
  const permissions = parsed.right.permissions === undefined
    ? Either.right<typeof Permissions.Type>({})
    : decodePermissions(parsed.right.permissions)
  const sandbox = parsed.right.sandbox === undefined
    ? Either.right<typeof Sandbox.Type>({})
    : decodeSandbox(parsed.right.sandbox)
  // Every problem at once, in both objects.
  const issues = [
    ...(Either.isLeft(permissions) ? issuesOf(permissions.left, ["permissions"]) : []),
    ...(Either.isLeft(sandbox) ? sandboxIssuesOf(sandbox.left) : [])
  ]
  if (Either.isLeft(permissions) || Either.isLeft(sandbox)) return Either.left(new SettingsError({ file, issues }))
  const p = permissions.right
  // What only an allow rule may not say (a tool-name wildcard that could grant tools nobody has seen).
  const allowIssues = (p.allow ?? []).flatMap((rule, i) => {
    const problem = Rule.allowProblem(rule)
    return problem === undefined
      ? []
      : [{ field: `permissions.allow[${i}]`, expected: `${JSON.stringify(Rule.print(rule))}: ${problem}` }]
  })
  if (allowIssues.length > 0) return Either.left(new SettingsError({ file, issues: allowIssues }))
  return Either.right({
    allow: p.allow ?? [],
    ask: p.ask ?? [],
    deny: p.deny ?? [],
    defaultMode: p.defaultMode,
    bypassDisabled: p.disableBypassPermissionsMode === "disable",
    autoAllowSandboxedCommands: sandbox.right.autoAllowSandboxedCommands,
    sources: [file]
  })
}

const sandboxIssuesOf = (error: ParseResult.ParseError): ReadonlyArray<Issue> =>
  issuesOf(error, ["sandbox"]).map((issue) =>
    // Only a `sandbox` that is not an object fails at the top.
    issue.field === "sandbox" ? { field: "sandbox", expected: "expected an object" } : issue
  )

/**
 * What a project's file may say: settings only the user may grant are
 * dropped. A repository can switch `autoAllowSandboxedCommands` off for
 * itself, never on, and cannot make `bypassPermissions` its default mode
 * (a cloned repository, or a command that wrote the file, would otherwise
 * start the next session with every question switched off); any other
 * mode it may choose. {@link load} applies it to the project's file;
 * callers merging files themselves must too.
 *
 * @since 0.3.0
 * @category combinators
 */
export const fromProject = (settings: Settings): Settings => ({
  ...settings,
  autoAllowSandboxedCommands: settings.autoAllowSandboxedCommands === true
    ? undefined
    : settings.autoAllowSandboxedCommands,
  defaultMode: settings.defaultMode === "bypassPermissions" ? undefined : settings.defaultMode
})

const union = (a: ReadonlyArray<Rule.Rule>, b: ReadonlyArray<Rule.Rule>): ReadonlyArray<Rule.Rule> => {
  const seen = new Set(a.map(Rule.print))
  return [...a, ...b.filter((rule) => !seen.has(Rule.print(rule)))]
}

/**
 * Merges settings, lowest precedence first (user, then project): the last
 * mode set wins; rule lists are combined. Once any file disables
 * bypassPermissions, no file can make it the default: a repository's
 * settings must not switch off the user's safety. Likewise a `false` for
 * `autoAllowSandboxedCommands` wins over a `true` in either order; pass a
 * project's settings through {@link fromProject} so that it cannot turn it on.
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
      autoAllowSandboxedCommands:
        merged.autoAllowSandboxedCommands === false || next.autoAllowSandboxedCommands === false
          ? false
          : next.autoAllowSandboxedCommands ?? merged.autoAllowSandboxedCommands,
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
 * be absent), the project's taking precedence, except that the project's
 * file cannot turn `autoAllowSandboxedCommands` on (see {@link fromProject}).
 *
 * @since 0.1.0
 * @category loading
 */
export const load = (files: {
  readonly user?: string | undefined
  readonly project?: string | undefined
}): Effect.Effect<Settings, SettingsError, FileSystem.FileSystem> =>
  Effect.map(
    Effect.all([
      files.user === undefined ? Effect.succeed(empty) : loadFile(files.user),
      files.project === undefined ? Effect.succeed(empty) : Effect.map(loadFile(files.project), fromProject)
    ]),
    merge
  )

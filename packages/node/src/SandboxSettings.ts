/**
 * The sandbox's part of the settings files: the `sandbox` object beside
 * `permissions`, in the user's file and the project's.
 *
 * ```json
 * { "sandbox": { "policy": "workspace-write",
 *                "writablePaths": ["~/.cache/pip"],
 *                "denyRead": ["secrets/"],
 *                "network": { "allowedDomains": ["registry.npmjs.org", "*.github.com"] },
 *                "fallback": "refuse",
 *                "environment": { "inherit": "core", "exclude": ["MY_*"] },
 *                "writableGitMetadata": false } }
 * ```
 *
 * A repository's settings must not loosen the user's sandbox, so a project
 * file can only tighten: a stricter policy, more denied paths, a network
 * more closed than the user's (an allowlist narrows to the rules both
 * files list). What only widens is refused there with an error naming the
 * field: `danger-full-access`, `writablePaths`, `fallback: "unconfined"`,
 * `allowUnsandboxedCommands: true`, `writableGitMetadata: true`, a network
 * wider than the user's, and an `environment` with `set` or `allow`.
 *
 * `environment` is the policy of {@link Environment}. A project's
 * `inherit` counts where it is stricter, its excludes add to the user's,
 * its `includeOnly` is intersected with the user's. It cannot `set` a
 * variable at all: a value set for a command is trusted like the user's
 * own, and `LD_PRELOAD`, `BASH_ENV`, `GIT_SSH_COMMAND` or `PATH` would run
 * the repository's code in every command (and outside the sandbox in
 * `danger-full-access`); telling harmless names from those is a list that
 * could never be complete. Nor can it `allow` a secret through.
 *
 * Unknown keys are errors, so a typo cannot silently drop a restriction;
 * `autoAllowSandboxedCommands` belongs to the permission engine
 * (`@tool-runtime/permissions`) and is left to it. The files themselves are
 * denied to commands for reading (and so for writing), so a command cannot
 * read or change the rules it runs under.
 *
 * @since 0.3.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as Environment from "./Environment.js"
import * as Sandbox from "./Sandbox.js"

const Strings = Schema.Array(Schema.String)

/**
 * The `sandbox` object of a settings file.
 *
 * @since 0.3.0
 * @category schemas
 */
export const Section = Schema.Struct({
  policy: Schema.optionalWith(Sandbox.Policy, { exact: true }),
  writablePaths: Schema.optionalWith(Strings, { exact: true }),
  denyRead: Schema.optionalWith(Strings, { exact: true }),
  network: Schema.optionalWith(
    Schema.Union(
      Schema.Literal("off", "on"),
      Schema.Struct({
        allowedDomains: Strings,
        deniedDomains: Schema.optionalWith(Strings, { exact: true })
      })
    ).annotations({
      message: () => ({
        message: "expected \"off\", \"on\" or { \"allowedDomains\": [...], \"deniedDomains\": [...] }",
        override: true
      })
    }),
    { exact: true }
  ),
  fallback: Schema.optionalWith(Schema.Literal("refuse", "unconfined"), { exact: true }),
  allowUnsandboxedCommands: Schema.optionalWith(Schema.Boolean, { exact: true }),
  environment: Schema.optionalWith(Environment.PolicySchema, { exact: true }),
  writableGitMetadata: Schema.optionalWith(Schema.Boolean, { exact: true }),
  /** The permission engine's key: read there, not here. */
  autoAllowSandboxedCommands: Schema.optionalWith(Schema.Unknown, { exact: true })
}).annotations({ identifier: "SandboxSettings" })

/**
 * Sandbox settings after loading and merging.
 *
 * @since 0.3.0
 * @category models
 */
export interface Settings {
  readonly policy: Sandbox.Policy | undefined
  readonly writablePaths: ReadonlyArray<string>
  readonly denyRead: ReadonlyArray<string>
  readonly network: Sandbox.Network | undefined
  readonly fallback: Sandbox.Fallback | undefined
  readonly allowUnsandboxedCommands: boolean
  /** The environment policy; `undefined`: the default. */
  readonly environment: Environment.Policy | undefined
  /** `true` only from the user's file (see `Sandbox.Config.writableGitMetadata`). */
  readonly writableGitMetadata: boolean | undefined
  /** The files read, lowest precedence first: denied to commands. */
  readonly sources: ReadonlyArray<string>
}

/**
 * @since 0.3.0
 * @category constructors
 */
export const empty: Settings = {
  policy: undefined,
  writablePaths: [],
  denyRead: [],
  network: undefined,
  fallback: undefined,
  allowUnsandboxedCommands: false,
  environment: undefined,
  writableGitMetadata: undefined,
  sources: []
}

/**
 * @since 0.3.0
 * @category errors
 */
export class SettingsError extends Data.TaggedError("SandboxSettingsError")<{
  readonly file: string
  readonly issues: ReadonlyArray<{ readonly field: string; readonly expected: string }>
}> {
  override get message() {
    return `Invalid sandbox settings in ${this.file}:\n${
      this.issues.map((issue) => `  ${issue.field}: ${issue.expected}`).join("\n")
    }`
  }
}

/**
 * Which file a setting came from: a project's file may only tighten.
 *
 * @since 0.3.0
 * @category models
 */
export type Level = "user" | "project"

const decodeFile = Schema.decodeUnknownEither(Schema.parseJson(Schema.Struct({
  sandbox: Schema.optionalWith(Schema.Unknown, { exact: true })
})))
const decodeSection = Schema.decodeUnknownEither(Section, { errors: "all", onExcessProperty: "error" })

const fieldOf = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (field, key) => typeof key === "number" ? `${field}[${key}]` : `${field}.${String(key)}`,
    "sandbox"
  )

const networkOf = (input: typeof Section.Type["network"]): Sandbox.Network | undefined =>
  input === undefined
    ? undefined
    : input === "off"
    ? { _tag: "Off" }
    : input === "on"
    ? { _tag: "On" }
    : { _tag: "Allowlist", allowedDomains: input.allowedDomains, deniedDomains: input.deniedDomains ?? [] }

/**
 * Decodes one settings file's `sandbox` object.
 *
 * @since 0.3.0
 * @category decoding
 */
export const decode = (file: string, text: string, level: Level): Either.Either<Settings, SettingsError> => {
  const parsed = decodeFile(text)
  if (Either.isLeft(parsed)) {
    return Either.left(new SettingsError({ file, issues: [{ field: "(file)", expected: "expected a JSON object" }] }))
  }
  if (parsed.right.sandbox === undefined) return Either.right({ ...empty, sources: [file] })
  const section = decodeSection(parsed.right.sandbox)
  if (Either.isLeft(section)) {
    return Either.left(
      new SettingsError({
        file,
        // A union reports once per member it tried: one issue per field is enough.
        issues: ParseResult.ArrayFormatter.formatErrorSync(section.left).map((issue) => ({
          field: fieldOf(issue.path),
          expected: issue._tag !== "Unexpected"
            ? issue.message
            : issue.path[0] === "environment" && issue.path.length === 2
            ? "is not an environment setting (expected inherit, exclude, allow, includeOnly or set)"
            : "is not a sandbox setting (expected policy, writablePaths, denyRead, network, fallback, allowUnsandboxedCommands, environment or writableGitMetadata)"
        })).filter((issue, i, all) => all.findIndex((other) => other.field === issue.field) === i)
      })
    )
  }
  const s = section.right
  if (level === "project") {
    const widening: Array<{ field: string; expected: string }> = []
    const userOnly = (field: string, what: string) =>
      widening.push({ field: `sandbox.${field}`, expected: `${what} can only be set in the user's settings` })
    if (s.policy === "danger-full-access") userOnly("policy", "danger-full-access")
    if (s.writablePaths !== undefined && s.writablePaths.length > 0) userOnly("writablePaths", "writable paths")
    if (s.fallback === "unconfined") userOnly("fallback", "running unconfined")
    if (s.allowUnsandboxedCommands === true) userOnly("allowUnsandboxedCommands", "commands outside the sandbox")
    if (s.writableGitMetadata === true) userOnly("writableGitMetadata", "writable git hooks and configuration")
    if (s.environment?.set !== undefined) userOnly("environment.set", "variables set for commands")
    if (s.environment?.allow !== undefined) userOnly("environment.allow", "variables let through the default excludes")
    if (widening.length > 0) return Either.left(new SettingsError({ file, issues: widening }))
  }
  return Either.right({
    policy: s.policy,
    writablePaths: s.writablePaths ?? [],
    denyRead: s.denyRead ?? [],
    network: networkOf(s.network),
    fallback: s.fallback,
    allowUnsandboxedCommands: s.allowUnsandboxedCommands ?? false,
    environment: s.environment,
    writableGitMetadata: s.writableGitMetadata,
    sources: [file]
  })
}

const networkStrictness = (network: Sandbox.Network): number =>
  network._tag === "Off" ? 2 : network._tag === "Allowlist" ? 1 : 0

const stricterPolicy = (a: Sandbox.Policy | undefined, b: Sandbox.Policy | undefined) =>
  a === undefined ? b : b === undefined ? a : Sandbox.strictness[b] > Sandbox.strictness[a] ? b : a

const union = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => [...new Set([...a, ...b])]

/**
 * The project's network, as far as it tightens the user's (default off):
 * a wider one is an error naming the field.
 */
const mergeNetwork = (
  user: Sandbox.Network | undefined,
  project: Sandbox.Network | undefined,
  file: string
): Either.Either<Sandbox.Network | undefined, SettingsError> => {
  if (project === undefined) return Either.right(user)
  const base = user ?? { _tag: "Off" as const }
  if (base._tag === "Allowlist" && project._tag === "Allowlist") {
    return Either.right({
      _tag: "Allowlist",
      allowedDomains: base.allowedDomains.filter((rule) => project.allowedDomains.includes(rule)),
      deniedDomains: union(base.deniedDomains, project.deniedDomains)
    })
  }
  if (networkStrictness(project) >= networkStrictness(base)) return Either.right(project)
  return Either.left(
    new SettingsError({
      file,
      issues: [{
        field: "sandbox.network",
        expected: `a project's settings cannot open the network wider than the user's (${
          base._tag === "Off" ? "off" : "an allowlist"
        })`
      }]
    })
  )
}

/**
 * Merges the user's settings with the project's: the project can only
 * tighten (see the module's description).
 *
 * @since 0.3.0
 * @category combinators
 */
export const merge = (
  user: Settings,
  project: Settings,
  projectFile = project.sources[0] ?? "(project)"
): Either.Either<Settings, SettingsError> =>
  Either.map(mergeNetwork(user.network, project.network, projectFile), (network) => ({
    policy: stricterPolicy(user.policy, project.policy),
    writablePaths: user.writablePaths,
    denyRead: union(user.denyRead, project.denyRead),
    network,
    fallback: project.fallback === "refuse" ? "refuse" : user.fallback,
    allowUnsandboxedCommands: user.allowUnsandboxedCommands && project.allowUnsandboxedCommands !== false,
    environment: Environment.tighten(user.environment, project.environment),
    writableGitMetadata: user.writableGitMetadata === true && project.writableGitMetadata !== false
      ? true
      : user.writableGitMetadata === undefined && project.writableGitMetadata === undefined
      ? undefined
      : false,
    sources: [...user.sources, ...project.sources]
  }))

const readIfPresent = (file: string) =>
  Effect.tryPromise({
    try: () => NodeFs.promises.readFile(file, "utf8").then((text): string | undefined => text),
    catch: (error) => error as NodeJS.ErrnoException
  }).pipe(
    Effect.catchAll((error) =>
      error.code === "ENOENT"
        ? Effect.succeed(undefined)
        : Effect.fail(
          new SettingsError({
            file,
            issues: [{ field: "(file)", expected: `cannot be read (${error.code ?? "error"})` }]
          })
        )
    )
  )

/**
 * Reads and merges the user's and the project's files; a missing file
 * counts as empty.
 *
 * @since 0.3.0
 * @category loading
 */
export const load = (
  files: { readonly user?: string | undefined; readonly project?: string | undefined }
): Effect.Effect<Settings, SettingsError> =>
  Effect.gen(function*() {
    const read = (file: string | undefined, level: Level) =>
      file === undefined ? Effect.succeed(empty) : Effect.flatMap(readIfPresent(file), (text) =>
        text === undefined
          ? Effect.succeed({ ...empty, sources: [file] })
          : decode(file, text, level))
    const user = yield* read(files.user, "user")
    const project = yield* read(files.project, "project")
    return yield* merge(user, project)
  })

/**
 * The sandbox configuration of merged settings, for a workspace. The
 * settings files are denied to commands.
 *
 * @since 0.3.0
 * @category constructors
 */
export const toConfig = (
  settings: Settings,
  options: Omit<
    Sandbox.Config,
    "policy" | "writablePaths" | "network" | "fallback" | "environment" | "writableGitMetadata"
  >
): Sandbox.Config => ({
  ...options,
  policy: settings.policy,
  writablePaths: settings.writablePaths,
  denyRead: [...(options.denyRead ?? []), ...settings.denyRead, ...settings.sources],
  network: settings.network,
  fallback: settings.fallback,
  environment: settings.environment,
  writableGitMetadata: settings.writableGitMetadata
})

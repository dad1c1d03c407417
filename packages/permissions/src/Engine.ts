/**
 * The permission engine: core's `Policy`, built from rules, a mode, hooks
 * and a person to ask. The runtime calls it after validation, so nobody is
 * ever asked to approve an invalid call.
 *
 * A call is decided by the first of these that has an answer:
 *
 * 1. before-call hooks run (they may rewrite the input; the rest of the
 *    evaluation sees the rewritten call);
 * 2. deny rules: a match on any reading of the call denies, whatever a hook,
 *    the mode or the person would say (for a command, every command any
 *    reading of the line could run, `CommandLine`; for a path, the path as
 *    written and after symbolic links; a Read deny also covers the files a
 *    command names and the tools that write);
 * 3. a hook's deny;
 * 4. ask rules and a hook's ask: the person is asked, in every mode
 *    (`dontAsk` denies, saying why);
 * 5. a command that could destroy the machine, the home directory or the
 *    workspace (`CommandRisk`): asked about in every mode;
 * 6. a hook's allow;
 * 7. a URL: only a domain rule lets it run without a question;
 * 8. a write to a protected path (`.git`, `.claude`, `.bashrc`…): asked
 *    about except in `bypassPermissions`;
 * 9. the mode: it may allow (reads, everything in `bypassPermissions`) or
 *    deny (edits in `plan`);
 * 10. allow rules, those the person added with "always allow" in this
 *    session, and the read-only commands (`ReadOnlyCommands`); in
 *    `acceptEdits`, the file commands inside the workspace. A command line
 *    is allowed by rules only when it is provably simple and every command
 *    in it, and every command its wrappers run, is covered;
 * 11. with `autoAllowSandboxedCommands`, a command confined to the OS
 *    sandbox, in `default` and `acceptEdits` (see `SandboxRules`);
 * 12. the person, through the `Approver`. What asking means depends on the
 *    mode: `dontAsk` denies, `bypassPermissions` allows, `plan` denies
 *    edits; with no one to ask, the call is denied and the model is told
 *    why.
 *
 * A command that asks to run outside the sandbox (`sandbox: "unconfined"`
 * on its subject) always reaches the person: a hook's allow, the mode's
 * allow and allow rules only add to the trail, `bypassPermissions` asks, and
 * where no one can be asked it is denied, saying why.
 *
 * "Always allow" stores exactly the rules the person was shown: one exact
 * rule per command not yet allowed, never a rule for the compound as a
 * whole, and none at all when the command could not be read with certainty.
 *
 * Every decision is reported to `onDecision` and recorded on a span, with
 * the arguments redacted. The span ends with its exit redacted too (see
 * `CallTrace.redactExit`): an exporting tracer writes the exit into the
 * span's status and events, and a hook's failure can quote anything.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as CallTrace from "@tool-runtime/core/CallTrace"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as StableJson from "@tool-runtime/core/StableJson"
import type * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Approver from "./Approver.js"
import * as CommandLine from "./CommandLine.js"
import * as CommandRisk from "./CommandRisk.js"
import * as Mode from "./Mode.js"
import * as PathRule from "./PathRule.js"
import * as PermissionAudit from "./PermissionAudit.js"
import * as PermissionHooks from "./PermissionHooks.js"
import * as ReadOnlyCommands from "./ReadOnlyCommands.js"
import * as Rule from "./Rule.js"
import * as SandboxRules from "./SandboxRules.js"
import type * as Settings from "./Settings.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Config {
  /** Relative paths and path rules resolve against it. */
  readonly workspaceRoot: string
  /** Where `~/` in path rules points. Rules that use `~` fail to load without it. */
  readonly homeDirectory?: string | undefined
  /**
   * Compare paths without case, as the file system does. Default: on macOS
   * and Windows, whose default file systems do.
   *
   * @since 0.3.0
   */
  readonly caseInsensitivePaths?: boolean | undefined
  /** Default: `default`. */
  readonly mode?: Mode.Mode | undefined
  readonly allow?: ReadonlyArray<string | Rule.Rule> | undefined
  readonly ask?: ReadonlyArray<string | Rule.Rule> | undefined
  readonly deny?: ReadonlyArray<string | Rule.Rule> | undefined
  /**
   * Registry names each rule name stands for, merged over {@link defaultTools}
   * (a key given here replaces that key). A rule may always use a registry
   * name directly.
   */
  readonly tools?: Readonly<Record<string, ReadonlyArray<string>>> | undefined
  readonly hooks?: ReadonlyArray<PermissionHooks.Before> | undefined
  readonly onDecision?: PermissionAudit.Listener | undefined
  /**
   * Allow without asking a command its tool confines to the OS sandbox
   * (`sandbox: "confined"` on the subject) when no deny rule, ask rule,
   * hook, mode or allow rule decided it, in `default` and `acceptEdits`.
   * Default: off. It never allows a command that asks to leave the sandbox.
   *
   * @since 0.3.0
   */
  readonly autoAllowSandboxedCommands?: boolean | undefined
}

/**
 * The rule names users know, mapped to the registry names of the node
 * package's tools and the usual names of shell and fetch tools.
 *
 * @since 0.1.0
 * @category defaults
 */
export const defaultTools: Readonly<Record<string, ReadonlyArray<string>>> = {
  Bash: ["bash", "shell", "run_command"],
  Read: ["read_file", "list_directory", "glob", "grep"],
  Edit: ["write_file", "edit_file"],
  Write: ["write_file"],
  WebFetch: ["web_fetch", "fetch_url"]
}

/**
 * An engine configuration from loaded settings; `options` adds what a
 * settings file does not say (the workspace, hooks, a listener) and may
 * override the mode and `autoAllowSandboxedCommands` (command-line flags).
 *
 * @since 0.1.0
 * @category constructors
 */
export const configFromSettings = (
  settings: Settings.Settings,
  options: Omit<Config, "allow" | "ask" | "deny">
): Config => ({
  ...options,
  mode: options.mode ?? settings.defaultMode,
  autoAllowSandboxedCommands: options.autoAllowSandboxedCommands ?? settings.autoAllowSandboxedCommands,
  allow: settings.allow,
  ask: settings.ask,
  deny: settings.deny
})

/**
 * @since 0.1.0
 * @category models
 */
export interface Service extends Policy.Service {
  readonly mode: Effect.Effect<Mode.Mode>
  readonly setMode: (mode: Mode.Mode) => Effect.Effect<void>
  /** The rules "always allow" answers stored in this session, as they were displayed. */
  readonly sessionRules: Effect.Effect<ReadonlyArray<string>>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class Engine extends Context.Tag("@tool-runtime/permissions/Engine")<Engine, Service>() {}

// ---------------------------------------------------------------------------
// rules, compiled
// ---------------------------------------------------------------------------

interface Compiled {
  readonly rule: Rule.Rule
  readonly text: string
  readonly command: Either.Either<Rule.CommandPattern, string> | undefined
  readonly path: Either.Either<PathRule.PathPattern, string> | undefined
  readonly domain: Either.Either<(host: string) => boolean, string> | undefined
  /** A further check on a command's words (the simple form of a read-only command). */
  readonly guard?: ((words: ReadonlyArray<string>) => boolean) | undefined
}

type List = "allow" | "ask" | "deny"

/**
 * Where a relative path rule applies, as documented: a bare name (`.env`,
 * `*.env`) at any depth; one directory with everything in it (`secrets/**`)
 * at any depth for deny and ask rules, where a wider match protects more,
 * and only in the current directory for allow rules; any other relative
 * shape (`src/components/**`) at the current directory.
 */
const anchorPath = (specifier: string, list: List): string => {
  if (/^(?:\/|~|\.\/|\.\.\/|\*\*\/)/.test(specifier) || !specifier.replace(/\/+$/, "").includes("/")) return specifier
  const oneDirectory = /^[^/]+\/(?:\*\*)?$/.test(specifier)
  return oneDirectory && list !== "allow" ? specifier : `./${specifier}`
}

const compile = (rule: Rule.Rule, location: Rule.Location, list: List): Either.Either<Compiled, Rule.InvalidRule> => {
  const text = Rule.print(rule)
  const specifier = rule.specifier
  // A wildcard tool name that could cover tools nobody has seen yet may restrict,
  // never grant: the documented allow form stops at a server (mcp__server__*).
  const problem = list === "allow" ? Rule.allowProblem(rule) : undefined
  if (problem !== undefined) return Either.left(new Rule.InvalidRule({ rule: text, reason: problem }))
  if (specifier === undefined) {
    return Either.right({ rule, text, command: undefined, path: undefined, domain: undefined })
  }
  // An allow rule's `src/**` means the current directory's src; a deny or ask
  // rule's matches at any depth, as the documentation has it. A bare name
  // without a slash (`.env`) matches at any depth in both.
  const anchored = anchorPath(specifier.trim(), list)
  const path = Rule.pathPattern(anchored, location)
  // Rules meant for paths must resolve now: a deny rule that silently never
  // matched would be worse than a settings error.
  if (Rule.pathRuleNames.has(rule.tool) && Either.isLeft(path)) {
    return Either.left(new Rule.InvalidRule({ rule: text, reason: path.left }))
  }
  return Either.right({
    rule,
    text,
    command: Rule.commandPattern(specifier),
    path,
    domain: specifier.startsWith("domain:") ? Rule.domainPattern(specifier) : Either.left("not a domain rule")
  })
}

const compileAll = (
  rules: ReadonlyArray<string | Rule.Rule> | undefined,
  location: Rule.Location,
  list: List
): Either.Either<ReadonlyArray<Compiled>, Rule.InvalidRule> =>
  Either.all(
    (rules ?? []).map((rule) =>
      Either.flatMap(
        typeof rule === "string" ? Rule.parse(rule) : Either.right(rule),
        (r) => compile(r, location, list)
      )
    )
  )

// ---------------------------------------------------------------------------
// what a call acts on, analysed once
// ---------------------------------------------------------------------------

type Target =
  | { readonly _tag: "None" }
  | {
    readonly _tag: "Command"
    readonly command: string
    readonly analysis: CommandLine.Analysis
    readonly sandbox: SandboxRules.Placement
  }
  | {
    readonly _tag: "Path"
    readonly path: string
    /** The path as written and after resolving symbolic links: deny rules match either, allow rules must match both. */
    readonly paths: ReadonlyArray<string>
    readonly access: "read" | "write"
    readonly inside: boolean
  }
  | { readonly _tag: "Url"; readonly url: string; readonly host: string | undefined }

const analyse = (subject: Policy.Subject, location: Rule.Location, commandLine: CommandLine.Service): Target => {
  switch (subject._tag) {
    case "None":
      return subject
    case "Command":
      return {
        _tag: "Command",
        command: subject.command,
        analysis: commandLine.analyse(subject.command),
        sandbox: subject.sandbox
      }
    case "Path": {
      const path = Rule.resolve(subject.path, location)
      return {
        _tag: "Path",
        path,
        paths: [path],
        access: subject.access,
        inside: Rule.isInside(path, location.workspaceRoot)
      }
    }
    case "Url":
      return { _tag: "Url", url: subject.url, host: Rule.hostOf(subject.url) }
  }
}

const factsOf = (tool: Tool.Any, target: Target): Mode.Facts => ({
  readOnly: tool.readOnly,
  risk: tool.risk,
  edit: target._tag === "Path" && target.access === "write" ? (target.inside ? "inside" : "outside") : undefined,
  readsOutside: target._tag === "Path" && target.access === "read" && !target.inside,
  command: target._tag === "Command"
})

interface Match {
  readonly rule: string
  /** What of the call matched, for the reason given to the model. */
  readonly detail: string | undefined
}

/**
 * Deny and ask rules: where the engine cannot tell (the tool does not say
 * what it acts on, the URL does not parse), the rule applies.
 */
const restrictiveMatch = (rule: Compiled, target: Target): Match | undefined => {
  if (rule.rule.specifier === undefined) return { rule: rule.text, detail: undefined }
  switch (target._tag) {
    case "None":
      return { rule: rule.text, detail: "the tool does not say what the call acts on, so the rule applies" }
    case "Command": {
      const pattern = rule.command
      if (pattern === undefined || Either.isLeft(pattern)) return { rule: rule.text, detail: undefined }
      // A command the engine cannot name could be the one the rule names.
      if (target.analysis.open !== undefined) {
        return { rule: rule.text, detail: `${target.analysis.open}, and the rule could match it` }
      }
      const head = pattern.right.head
      if (
        head === undefined ?
          target.analysis.globNames.length > 0 :
          target.analysis.globNames.some((glob) =>
            globMatches(glob, head) || globMatches(glob.split("/").pop() ?? glob, head)
          )
      ) {
        return { rule: rule.text, detail: "its command name is a glob that could name the command the rule names" }
      }
      // Every reading counts: a deny rule that could match what bash runs denies.
      const readings = target.analysis.readings
      for (const words of readings) {
        if (Rule.matchesCommand(pattern.right, words)) {
          return {
            rule: rule.text,
            detail: readings.length > 1 ? `it matches the command ${CommandLine.print(words)}` : undefined
          }
        }
      }
      return undefined
    }
    case "Path": {
      if (rule.path === undefined || Either.isLeft(rule.path)) return { rule: rule.text, detail: undefined }
      const pattern = rule.path.right
      const hit = target.paths.find((path) => pattern.test(path))
      return hit === undefined
        ? undefined
        : { rule: rule.text, detail: hit === target.path ? undefined : `the path leads to ${hit}` }
    }
    case "Url":
      return target.host === undefined || rule.domain === undefined || Either.isLeft(rule.domain) ||
          rule.domain.right(target.host)
        ? { rule: rule.text, detail: target.host === undefined ? "the URL has no host" : undefined }
        : undefined
  }
}

/** Allow rules covering one exact command, path or URL; `undefined` when none does. */
const allowingRule = (rules: ReadonlyArray<Compiled>, target: Target, words?: ReadonlyArray<string>) =>
  rules.find((rule) => {
    if (rule.rule.specifier === undefined) return true
    switch (target._tag) {
      case "None":
        return false
      case "Command":
        return rule.command !== undefined && Either.isRight(rule.command) && words !== undefined &&
          Rule.matchesCommand(rule.command.right, words) && rule.guard?.(words) !== false
      case "Path": {
        const pattern = rule.path !== undefined && Either.isRight(rule.path) ? rule.path.right : undefined
        return pattern !== undefined && target.paths.every((path) => pattern.test(path))
      }
      case "Url":
        return target.host !== undefined && rule.domain !== undefined && Either.isRight(rule.domain) &&
          rule.domain.right(target.host)
    }
  })

/**
 * Allow rules: the call is allowed only when the engine is sure. A command
 * line is allowed when it is provably simple and every command in it (and
 * every command its wrappers run) is allowed by some rule, names no path
 * outside the workspace, and could not destroy anything. Returns the rules
 * that allowed it.
 */
const allowMatch = (
  rules: ReadonlyArray<Compiled>,
  target: Target,
  location: Rule.Location,
  writable: (path: string) => boolean = () => false
): ReadonlyArray<string> | undefined => {
  if (rules.length === 0) return undefined
  const whole = rules.find((rule) => rule.rule.specifier === undefined)
  if (whole !== undefined) return [whole.text]
  if (target._tag !== "Command") {
    const rule = allowingRule(rules, target)
    return rule === undefined ? undefined : [rule.text]
  }
  const analysis = target.analysis
  if (!analysis.simple || analysis.commands.length === 0 || analysis.doubts.length > 0) return undefined
  const used = new Set<string>()
  // Every directory a later command could run in: `cd a || cat ../x` runs cat in
  // either, so a path must be inside the workspace from each.
  const cwds = [Rule.normalize(location.workspaceRoot)]
  const inside = (words: ReadonlyArray<string>) =>
    cwds.every((cwd) => CommandRisk.pathsOutside(words, { ...location, cwd }).length === 0)
  const covered = (line: CommandLine.Analysis): boolean =>
    line.doubts.length === 0 && line.commands.every((command) => {
      const name = command.words[0] ?? ""
      if (name === "git" && cwds.length > 1) return false
      if (!inside(command.words) || !command.covers.every(inside) || !inside(["<", ...command.reads])) return false
      for (const path of command.writes) {
        if (path === "/dev/null") continue
        if (!cwds.every((cwd) => writable(Rule.resolve(path, { ...location, workspaceRoot: cwd })))) return false
      }
      // An exact rule names this invocation whole: what its words do is what the person allowed.
      const exact = rules.find((rule) =>
        rule.guard === undefined && rule.command !== undefined && Either.isRight(rule.command) &&
        rule.command.right.exact !== undefined && Rule.matchesCommand(rule.command.right, command.words)
      )
      if (exact !== undefined) used.add(exact.text)
      else {
        if (command.doubts.length > 0) return false
        if (command.globs && !CommandRisk.takesGlobs(command.covers)) return false
        for (const words of command.covers) {
          const rule = allowingRule(rules, target, words)
          if (rule === undefined) return false
          used.add(rule.text)
        }
        if (!command.scripts.every(covered)) return false
      }
      // `cd`, and `builtin cd`, `command cd`, `time cd`: wrappers that only change how it runs.
      for (const words of [command.words, ...command.covers]) {
        const head = words[0]
        if (head !== "cd" && head !== "pushd" && head !== "popd") continue
        const operands = words.slice(1)
        let i = 0
        while (i < operands.length && /^-[LPe@]+$/.test(operands[i]!)) i++
        if (operands[i] === "--") i++
        const to = i === operands.length - 1 ? operands[i] : undefined
        // No operand (home), `-`, `~x`, `popd`, several operands: somewhere the line does not
        // say; nothing relative is inside from there.
        if (to === undefined || to === "-" || to.startsWith("~") || head === "popd") cwds.push("/")
        else for (const cwd of [...cwds]) cwds.push(Rule.resolve(to, { ...location, workspaceRoot: cwd }))
      }
      return true
    })
  return covered(analysis) ? [...used] : undefined
}

/** Whether a shell glob (`*`, `?`, `[…]`) matches a name. */
const globMatches = (glob: string, name: string): boolean => {
  let source = ""
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === "*") source += ".*"
    else if (c === "?") source += "."
    else if (c === "[") {
      const close = glob.indexOf("]", i + 2)
      if (close < 0) source += "\\["
      else {
        source += `[${glob.slice(i + 1, close).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`
        i = close
      }
    } else source += c.replace(/[.+^${}()|\\/]/g, "\\$&")
  }
  try {
    return new RegExp(`^${source}$`).test(name)
  } catch {
    return true
  }
}

/** Directories and files that hold a repository's machinery, or settings that run code. */
const protectedDirectories = new Set([
  ".git",
  ".claude",
  ".vscode",
  ".idea",
  ".husky",
  ".cargo",
  ".devcontainer",
  ".yarn",
  ".mvn",
  ".tool-runtime"
])
const protectedFiles = new Set([
  ".gitconfig",
  ".gitmodules",
  ".gitattributes",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".profile",
  ".envrc",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pnp.cjs",
  "bunfig.toml",
  ".bazelrc",
  ".pre-commit-config.yaml",
  "lefthook.yml",
  ".lefthook.yml",
  "gradle-wrapper.properties",
  "maven-wrapper.properties",
  ".devcontainer.json",
  ".ripgreprc",
  "pyrightconfig.json",
  ".mcp.json",
  ".claude.json"
])

/** The protected directory or file a path lands in, if any. */
const protectedIn = (path: string, location: Rule.Location): string | undefined => {
  const root = Rule.normalize(location.workspaceRoot)
  const relative = Rule.isInside(path, root) ? path.slice(root.length) : path
  const segments = relative.split("/").filter((segment) => segment !== "")
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    // `.claude/worktrees` is where agents keep their checkouts, not settings.
    if (segment === ".claude" && segments[i + 1] === "worktrees") return undefined
    if (protectedDirectories.has(segment) && i < segments.length - 1) return segment
    if (segment === ".config" && segments[i + 1] === "git") return ".config/git"
    if (protectedDirectories.has(segment) || protectedFiles.has(segment)) return segment
  }
  return undefined
}

/** The protected place a write lands in, if any. */
const protectedPath = (target: Target, location: Rule.Location): string | undefined => {
  if (target._tag === "Path") {
    if (target.access !== "write") return undefined
    for (const path of target.paths) {
      const hit = protectedIn(path, location)
      if (hit !== undefined) return hit
    }
    return undefined
  }
  if (target._tag === "Command") {
    for (const path of target.analysis.writes) {
      const hit = protectedIn(Rule.resolve(path, location), location)
      if (hit !== undefined) return hit
    }
  }
  return undefined
}

/** Why a command line must reach a person whatever rules and modes allow: it could destroy the machine. */
const destructionOf = (target: Target, location: Rule.Location): string | undefined => {
  if (target._tag !== "Command") return undefined
  for (const words of target.analysis.readings) {
    const why = CommandRisk.destructive(words, location)
    if (why !== undefined) return `${why} (${CommandLine.print(words)})`
  }
  return CommandRisk.destructiveLine(
    target.command,
    target.analysis.readings,
    target.analysis.writes.map((path) => Rule.normalize(path))
  )
}

/**
 * The rules "always allow" would store: the narrowest rule naming exactly
 * what the call acts on, by its registry name. For a command line, one exact
 * rule per command not yet allowed, and none at all unless every command
 * was read with certainty.
 */
const suggest = (
  tool: Tool.Any,
  target: Target,
  allowed: ReadonlyArray<Compiled>,
  location: Rule.Location
): ReadonlyArray<string> => {
  const exact = (specifier: string | undefined): ReadonlyArray<string> => {
    const rule = { tool: tool.name, specifier }
    // Only what parses back to itself is offered: the stored rule is the shown one.
    const parsed = Rule.parse(Rule.print(rule))
    return Either.isRight(parsed) && Rule.print(parsed.right) === Rule.print(rule) ? [Rule.print(rule)] : []
  }
  switch (target._tag) {
    case "None":
      return exact(undefined)
    case "Path":
      return exact(Rule.exactPathSpecifier(target.path, location))
    case "Url":
      return target.host === undefined ? [] : exact(`domain:${target.host}`)
    case "Command": {
      const analysis = target.analysis
      // Nothing is offered for a line that a rule could not allow next time either.
      if (!CommandLine.isCertain(analysis) || analysis.commands.some((c) => c.scripts.length > 0)) return []
      const rules = new Set<string>()
      for (const command of analysis.commands) {
        // A rule for the command would not cover where it writes or reads next time either.
        if (CommandRisk.pathsOutside(command.words, location).length > 0) return []
        if (command.writes.some((path) => path !== "/dev/null") || command.globs) return []
        if (command.words[0] === "cd") return []
        for (const words of command.covers) {
          if (allowingRule(allowed, target, words) !== undefined) continue
          const rule = exact(CommandLine.print(words))
          if (rule.length === 0) return []
          rules.add(rule[0]!)
        }
      }
      return [...rules]
    }
  }
}

const describeSubject = (target: Target): string | undefined => {
  switch (target._tag) {
    case "None":
      return undefined
    case "Command":
      return `command: ${target.command}${
        target.sandbox === "confined"
          ? " (in the sandbox)"
          : target.sandbox === "unconfined"
          ? " (asks to run outside the sandbox)"
          : ""
      }`
    case "Path":
      return `${target.access === "write" ? "writes" : "reads"} ${target.path}`
    case "Url":
      return `url: ${target.url}`
  }
}

const maxInputChars = 2_000

// ---------------------------------------------------------------------------
// the engine
// ---------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  config: Config
): Effect.Effect<Service, Rule.InvalidRule | CommandLine.ParserUnavailable, Redactor.Redactor | Approver.Approver> =>
  Effect.gen(function*() {
    const redactor = yield* Redactor.Redactor
    const approver = yield* Approver.Approver
    const commandLine = yield* CommandLine.make
    const location: Rule.Location = {
      workspaceRoot: Rule.normalize(config.workspaceRoot),
      homeDirectory: config.homeDirectory,
      caseInsensitive: config.caseInsensitivePaths ??
        PathRule.defaultCaseInsensitive(globalThis.process?.platform ?? "")
    }
    const denyRules = yield* compileAll(config.deny, location, "deny")
    const askRules = yield* compileAll(config.ask, location, "ask")
    const allowRules = yield* compileAll(config.allow, location, "allow")
    const readOnlyRules = (yield* compileAll(ReadOnlyCommands.rules, location, "allow")).map((rule) => ({
      ...rule,
      guard: ReadOnlyCommands.simpleForm
    }))
    const fileSystem = yield* Effect.serviceOption(FileSystem.FileSystem)
    // Symbolic links are followed where a file system is at hand; the node
    // file tools report real paths already.
    const withLinks = (target: Target): Effect.Effect<Target> =>
      target._tag !== "Path" || Option.isNone(fileSystem)
        ? Effect.succeed(target)
        : Effect.map(
          PathRule.candidates(target.path).pipe(Effect.provideService(FileSystem.FileSystem, fileSystem.value)),
          (paths) => ({
            ...target,
            paths: paths.length === 0 ? [target.path] : paths,
            inside: paths.every((path) => Rule.isInside(path, location.workspaceRoot))
          })
        )
    const aliases = new Map(
      Object.entries({ ...defaultTools, ...config.tools }).map(([name, tools]) => [name, new Set(tools)])
    )
    const readDenies = denyRules.filter((rule) => rule.rule.tool === "Read" && rule.rule.specifier !== undefined)
    const pathDenies = denyRules.filter((rule) =>
      Rule.pathRuleNames.has(rule.rule.tool) && rule.rule.specifier !== undefined
    )
    const editAllows = allowRules.filter((rule) =>
      (rule.rule.tool === "Edit" || rule.rule.tool === "Write") && rule.path !== undefined && Either.isRight(rule.path)
    )
    const acceptEditsRules = (yield* compileAll(CommandRisk.fileCommandRules, location, "allow")).map((rule) => ({
      ...rule,
      guard: (words: ReadonlyArray<string>) =>
        CommandRisk.fileCommandForm(words) &&
        words.slice(1).every((word) => protectedIn(Rule.resolve(word, location), location) === undefined)
    }))
    const hooks = config.hooks ?? []
    const modeRef = yield* Ref.make<Mode.Mode>(config.mode ?? "default")
    const session = yield* Ref.make<ReadonlyArray<Compiled>>([])
    // One question at a time: a terminal cannot show two prompts at once, and
    // an answer may make the next question unnecessary.
    const asking = yield* Effect.makeSemaphore(1)

    const redact = (text: string) => redactor.redact(text).text
    const forTool = (rules: ReadonlyArray<Compiled>, name: string) =>
      rules.filter((rule) => Rule.namesTool(rule.rule, name, aliases))

    // Made by hand rather than with `Effect.withSpan`, which would end the
    // span with the raw exit.
    const traced = <A, E, R>(request: Policy.Request, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.flatMap(
        Effect.makeSpan("permissions.authorize", {
          attributes: { "tool.name": request.tool.name },
          kind: "internal",
          captureStackTrace: false
        }),
        (span) =>
          effect.pipe(
            Effect.withParentSpan(span),
            Effect.onExit((exit) =>
              Effect.flatMap(
                Clock.currentTimeNanos,
                (now) => Effect.sync(() => span.end(now, CallTrace.redactExit(exit, redact)))
              )
            )
          )
      )

    const authorize = (request: Policy.Request) =>
      Effect.gen(function*() {
        const mode = yield* Ref.get(modeRef)
        const tool = request.tool
        const trail: Array<string> = []
        // Set once a sandbox rule applies, for the audit.
        let sandboxRule: PermissionAudit.SandboxRule | undefined = undefined
        const inputText = (input: unknown) => {
          const text = redact(StableJson.stringify(input))
          return text.length > maxInputChars ? `${text.slice(0, maxInputChars)}… (${text.length} characters)` : text
        }

        const record = (
          outcome: "allow" | "deny",
          decidedBy: PermissionAudit.DecidedBy,
          reason: string,
          details: {
            readonly input: unknown
            readonly target: Target | undefined
            readonly rewritten: boolean
            readonly asked?: boolean
            readonly stored?: ReadonlyArray<string>
          }
        ) =>
          Effect.gen(function*() {
            const subject = details.target === undefined ? undefined : describeSubject(details.target)
            const decision: PermissionAudit.Decision = {
              callId: redact(request.callId),
              toolName: tool.name,
              outcome,
              rewritten: details.rewritten,
              decidedBy,
              reason: redact(reason),
              trail: trail.map(redact),
              mode,
              asked: details.asked ?? false,
              stored: (details.stored ?? []).map(redact),
              subject: subject === undefined ? undefined : redact(subject),
              ...(details.target?._tag === "Command" && details.target.sandbox !== undefined
                ? { sandbox: details.target.sandbox }
                : {}),
              ...(sandboxRule === undefined ? {} : { sandboxRule }),
              input: inputText(details.input),
              at: yield* Clock.currentTimeMillis
            }
            yield* Effect.annotateCurrentSpan({
              "permission.outcome": decision.outcome,
              "permission.decided_by": decision.decidedBy._tag,
              "permission.rule": decidedByRule(decidedBy),
              "permission.reason": decision.reason,
              "permission.asked": decision.asked,
              "permission.rewritten": decision.rewritten,
              "permission.subject": decision.subject ?? "",
              "permission.sandbox_rule": decision.sandboxRule ?? "",
              "permission.input": decision.input
            })
            if (config.onDecision !== undefined) {
              // A broken listener must not turn a decision into a crash of the turn.
              yield* Effect.catchAllCause(
                config.onDecision(decision),
                (cause) => Effect.logWarning(`the permission audit listener failed: ${redact(Cause.pretty(cause))}`)
              )
            }
          })

        const denied = (
          decidedBy: PermissionAudit.DecidedBy,
          reason: string,
          details: { readonly input: unknown; readonly target: Target | undefined; readonly asked?: boolean },
          stopTurn?: boolean
        ) =>
          Effect.zipRight(
            record("deny", decidedBy, reason, { ...details, rewritten: false }),
            Effect.fail(
              new ToolError.PermissionDenied({
                toolName: tool.name,
                reason: redact(reason),
                decidedBy: redact(PermissionAudit.describe(decidedBy)),
                ...(stopTurn === true ? { stopTurn: true } : {})
              })
            )
          )

        // 1. Before-call hooks: what follows judges the call as they left it.
        const before = yield* PermissionHooks.runBefore(hooks, request).pipe(
          Effect.tapError((error) =>
            record("deny", { _tag: "Hook", hook: error.hook }, error.message, {
              input: request.input,
              target: undefined,
              rewritten: false
            })
          )
        )
        const verdict = (notes: ReadonlyArray<string>, input: unknown, rewritten: boolean): Policy.Verdict =>
          rewritten ? { _tag: "Rewrite", input, note: notes.join("; ") } : Policy.allow
        const allowed = (
          decidedBy: PermissionAudit.DecidedBy,
          reason: string,
          target: Target,
          extra?: { readonly asked?: boolean; readonly stored?: ReadonlyArray<string> }
        ) =>
          Effect.as(
            record("allow", decidedBy, reason, {
              input: before.input,
              target,
              rewritten: before.rewritten,
              ...extra
            }),
            verdict(before.notes, before.input, before.rewritten)
          )

        if (Either.isLeft(before.decoded)) {
          // The runtime validates a rewritten input before it runs, and this one
          // does not decode: it will be rejected, so there is nothing to decide.
          return yield* Effect.as(
            record("allow", { _tag: "Hook", hook: "before-call hooks" }, "the rewritten input is invalid", {
              input: before.input,
              target: undefined,
              rewritten: true
            }),
            verdict(before.notes, before.input, true)
          )
        }

        const target = yield* withLinks(analyse(before.subject, location, commandLine))
        // Where a redirection may write without a question: an Edit allow rule covers it,
        // or acceptEdits covers edits inside the workspace; never a protected place.
        const writable = (path: string) =>
          protectedIn(path, location) === undefined &&
          ((mode === "acceptEdits" && Rule.isInside(path, location.workspaceRoot)) ||
            (Rule.isInside(path, location.workspaceRoot) &&
              editAllows.some((rule) => Either.isRight(rule.path!) && rule.path.right.test(path))))
        const facts = factsOf(tool, target)
        const placement = target._tag === "Command" ? target.sandbox : undefined
        const unconfined = placement === "unconfined"
        const checkDeny = (t: Target) => {
          // A Read deny keeps the path from the tools that write it too.
          const denying = t._tag === "Path" && t.access === "write"
            ? [
              ...forTool(denyRules, tool.name),
              ...readDenies.filter((rule) => !Rule.namesTool(rule.rule, tool.name, aliases))
            ]
            : forTool(denyRules, tool.name)
          for (const rule of denying) {
            const match = restrictiveMatch(rule, t)
            if (match !== undefined) return match
          }
          // A command's arguments name files: a Read deny keeps them from `cat` as from read_file.
          if (t._tag === "Command" && readDenies.length > 0) {
            for (const words of t.analysis.readings) {
              for (const word of words.slice(1)) {
                const path = /^--?[A-Za-z0-9][A-Za-z0-9-]*=/.test(word) ? word.slice(word.indexOf("=") + 1) : word
                if (path === "" || path.startsWith("-") || path.includes("\u0000")) continue
                const absolute = Rule.resolve(
                  path.startsWith("~/") && location.homeDirectory !== undefined
                    ? `${location.homeDirectory}${path.slice(1)}`
                    : path,
                  location
                )
                const rule = readDenies.find((r) =>
                  r.path !== undefined && Either.isRight(r.path) && r.path.right.test(absolute)
                )
                if (rule !== undefined) return { rule: rule.text, detail: `it names ${path}` }
              }
            }
          }
          // A redirection writes a file: the path deny rules see it as the file tools' write.
          if (t._tag === "Command") {
            for (const path of t.analysis.writes) {
              const absolute = Rule.resolve(path, location)
              const rule = pathDenies.find((r) =>
                r.path !== undefined && Either.isRight(r.path) && r.path.right.test(absolute)
              )
              if (rule !== undefined) return { rule: rule.text, detail: `it writes ${path}` }
            }
          }
          return undefined
        }

        // 2. Deny rules win over everything that follows, hooks included.
        const denyMatch = checkDeny(target)
        if (denyMatch !== undefined) {
          return yield* denied(
            { _tag: "Rule", list: "deny", rules: [denyMatch.rule] },
            `the deny rule ${denyMatch.rule} forbids it${
              denyMatch.detail === undefined ? "" : ` (${denyMatch.detail})`
            }`,
            { input: before.input, target }
          )
        }

        // 3. Hooks that decided.
        const hook = before.decision
        if (hook._tag === "Deny") {
          return yield* denied(
            { _tag: "Hook", hook: hook.hook },
            `the ${hook.hook} hook denied it: ${hook.reason}`,
            { input: before.input, target },
            hook.stopTurn
          )
        }

        /** `required`: the mode may deny the question but never answer it with an allow. */
        const askPerson = (why: string, offer: boolean, required = false) =>
          Effect.gen(function*() {
            if (unconfined) sandboxRule = "unsandboxed-always-asks"
            const answer = required && !unconfined
              ? Mode.onRequiredAsk(mode, facts, why)
              : SandboxRules.onAsk(mode, facts, placement)
            if (answer._tag === "Allow") return yield* allowed({ _tag: "Mode", mode }, answer.reason, target)
            if (answer._tag === "Deny") {
              return yield* denied({ _tag: "Mode", mode }, answer.reason, { input: before.input, target })
            }
            return yield* asking.withPermits(1)(Effect.gen(function*() {
              if (offer) {
                // Another call's "always allow" may have covered this one while it waited.
                const rules = allowMatch(forTool(yield* Ref.get(session), tool.name), target, location, writable)
                if (rules !== undefined) {
                  return yield* allowed(
                    { _tag: "Rule", list: "session", rules },
                    "allowed for the session by the person",
                    target
                  )
                }
              }
              const suggested = offer
                ? suggest(tool, target, forTool([...allowRules, ...(yield* Ref.get(session))], tool.name), location)
                : []
              // A rule that would hold a secret is not offered: it would be shown,
              // stored and logged, and redacting it would make it match nothing.
              const rules = suggested.some((rule) => redactor.redact(rule).count > 0) ? [] : suggested
              const subject = describeSubject(target)
              const prompt: Approver.Prompt = {
                callId: redact(request.callId),
                toolName: tool.name,
                description: tool.description,
                risk: tool.risk,
                readOnly: tool.readOnly,
                input: inputText(before.input),
                subject: subject === undefined ? undefined : redact(subject),
                reason: redact(why),
                rules
              }
              trail.push(`asked: ${why}`)
              const reply = yield* approver.ask(prompt).pipe(
                // A prompt that crashes is no one to ask: the call is denied, the turn goes on.
                Effect.catchAllDefect(() =>
                  Effect.fail(new Approver.Unavailable({ reason: "the approval prompt failed" }))
                ),
                Effect.either
              )
              if (Either.isLeft(reply)) {
                return yield* denied(
                  { _tag: "NoApprover" },
                  `it needs approval (${why}) and ${reply.left.reason}. Use tools the permission rules allow, or tell the user what you need`,
                  { input: before.input, target }
                )
              }
              const answer = reply.right
              switch (answer._tag) {
                case "AllowOnce":
                  return yield* allowed(
                    { _tag: "Approver", answer: "allow_once" },
                    "the person allowed it once",
                    target,
                    { asked: true }
                  )
                case "AllowAlways": {
                  // Exactly the displayed rules: nothing the person did not see.
                  const stored = yield* compileAll(rules, location, "allow").pipe(Effect.orDie)
                  yield* Ref.update(session, (current) => {
                    const known = new Set(current.map((rule) => rule.text))
                    return [...current, ...stored.filter((rule) => !known.has(rule.text))]
                  })
                  return yield* allowed(
                    { _tag: "Approver", answer: rules.length === 0 ? "allow_once" : "allow_always" },
                    rules.length === 0
                      ? "the person allowed it (no rule could be stored for it)"
                      : `the person allowed it always: ${rules.join(", ")}`,
                    target,
                    { asked: true, stored: rules }
                  )
                }
                case "AllowWithInput": {
                  const note = answer.note === undefined || answer.note === ""
                    ? "the person approving the call changed it"
                    : `the person approving the call changed it: ${answer.note}`
                  const decoded = tool.decode(answer.input)
                  // A changed input is checked against the deny rules again:
                  // deny wins over the person too. One that does not decode is
                  // rejected by the runtime's validation before it runs.
                  const changed = Either.isRight(decoded)
                    ? yield* withLinks(analyse(tool.subject(decoded.right), location, commandLine))
                    : undefined
                  const match = changed === undefined ? undefined : checkDeny(changed)
                  if (match !== undefined) {
                    return yield* denied(
                      { _tag: "Rule", list: "deny", rules: [match.rule] },
                      `the deny rule ${match.rule} forbids the changed input${
                        match.detail === undefined ? "" : ` (${match.detail})`
                      }`,
                      { input: answer.input, target: changed, asked: true }
                    )
                  }
                  yield* record("allow", { _tag: "Approver", answer: "allow_with_input" }, note, {
                    input: answer.input,
                    target: changed,
                    rewritten: true,
                    asked: true
                  })
                  return verdict([...before.notes, note], answer.input, true)
                }
                case "Deny":
                  return yield* denied(
                    { _tag: "Approver", answer: "deny" },
                    answer.message.trim() === "" ? "the user denied it" : `the user denied it: ${answer.message}`,
                    { input: before.input, target, asked: true },
                    answer.stopTurn
                  )
              }
            }))
          })

        // A command leaving the sandbox: nothing below may allow it without a question.
        const sandboxNote = unconfined ? `; ${SandboxRules.unconfinedReason}` : ""

        // 4. Ask rules, and hooks that want a person to decide. They come before
        // every allow (a hook's, a mode's, a rule's): in bypassPermissions too.
        for (const rule of forTool(askRules, tool.name)) {
          const match = restrictiveMatch(rule, target)
          if (match !== undefined) {
            trail.push(`ask rule ${match.rule}`)
            return yield* askPerson(
              `the ask rule ${match.rule} matches${
                match.detail === undefined ? "" : ` (${match.detail})`
              }${sandboxNote}`,
              false,
              true
            )
          }
        }
        if (hook._tag === "Ask") {
          trail.push(`hook ${hook.hook}`)
          return yield* askPerson(`the ${hook.hook} hook asks: ${hook.reason}${sandboxNote}`, false, true)
        }

        // 5. A command that could destroy the machine, the home directory or the
        // workspace reaches a person in every mode, whatever allows it.
        const destruction = destructionOf(target, location)
        if (destruction !== undefined) {
          trail.push(`destructive: ${destruction}`)
          return yield* askPerson(`${destruction}, and such a command always needs a person's approval`, false, true)
        }

        // 6. A hook's allow.
        if (hook._tag === "Allow") {
          if (!unconfined) return yield* allowed({ _tag: "Hook", hook: hook.hook }, hook.reason, target)
          trail.push(`hook ${hook.hook} allows it`)
          return yield* askPerson(SandboxRules.unconfinedReason, false)
        }

        // 7. A fetch sends what it asks for off the machine: only a domain rule lets
        // it run without a question, in every mode.
        if (target._tag === "Url") {
          const byDomain = allowMatch(forTool(allowRules, tool.name), target, location, writable) ??
            allowMatch(forTool(yield* Ref.get(session), tool.name), target, location, writable)
          if (byDomain !== undefined) {
            return yield* allowed({ _tag: "Rule", list: "allow", rules: byDomain }, "an allow rule matches", target)
          }
          if (Mode.decide(mode, facts)._tag === "Deny") {
            return yield* denied({ _tag: "Mode", mode }, Mode.decide(mode, facts).reason, {
              input: before.input,
              target
            })
          }
          trail.push("no domain rule allows the URL")
          return yield* askPerson(
            target.host === undefined ? "the URL has no host" : `no allow rule covers the domain ${target.host}`,
            true
          )
        }

        // 8. Writes to the directories that hold a repository's machinery and the
        // editors' and agents' settings are asked about: no allow rule and no
        // mode but bypassPermissions pre-approves them.
        const guarded = protectedPath(target, location)
        if (guarded !== undefined && mode !== "bypassPermissions") {
          trail.push(`protected path ${guarded}`)
          return yield* askPerson(`it writes inside ${guarded}, which always needs a person's approval`, false, true)
        }

        // 9. The mode.
        const step = Mode.decide(mode, facts)
        if (step._tag === "Deny") {
          return yield* denied({ _tag: "Mode", mode }, step.reason, { input: before.input, target })
        }
        if (unconfined) {
          trail.push(`mode ${mode}: ${step.reason}`)
          const byRule = allowMatch(forTool(allowRules, tool.name), target, location, writable)
          if (byRule !== undefined) trail.push(`allow rule ${byRule.join(", ")} matches`)
          return yield* askPerson(SandboxRules.unconfinedReason, false)
        }
        if (step._tag === "Allow") return yield* allowed({ _tag: "Mode", mode }, step.reason, target)

        // 6. Allow rules, then those stored this session.
        const byRule = allowMatch(forTool(allowRules, tool.name), target, location, writable)
        if (byRule !== undefined) {
          return yield* allowed({ _tag: "Rule", list: "allow", rules: byRule }, "an allow rule matches", target)
        }
        const withBuiltins = allowMatch(
          forTool([...allowRules, ...(yield* Ref.get(session)), ...readOnlyRules], tool.name),
          target,
          location,
          writable
        )
        if (withBuiltins !== undefined) {
          const builtin = withBuiltins.every((rule) => ReadOnlyCommands.texts.has(rule))
          return yield* allowed(
            { _tag: "Rule", list: builtin ? "builtin" : "allow", rules: withBuiltins },
            builtin ? ReadOnlyCommands.reason : "allow rules and read-only commands cover it",
            target
          )
        }
        const bySession = allowMatch(forTool(yield* Ref.get(session), tool.name), target, location, writable)
        if (bySession !== undefined) {
          return yield* allowed(
            { _tag: "Rule", list: "session", rules: bySession },
            "allowed for the session by the person",
            target
          )
        }

        // acceptEdits runs the everyday file commands too, on paths inside the workspace.
        if (mode === "acceptEdits" && target._tag === "Command") {
          const byEdits = allowMatch(
            forTool([...allowRules, ...readOnlyRules, ...acceptEditsRules], tool.name),
            target,
            location,
            writable
          )
          if (byEdits !== undefined) {
            return yield* allowed({ _tag: "Mode", mode }, "acceptEdits runs file commands inside the workspace", target)
          }
        }

        // 7. A sandboxed command, when the engine auto-allows them.
        if (SandboxRules.autoAllows(mode, config.autoAllowSandboxedCommands === true, placement)) {
          sandboxRule = "sandbox-auto-allow"
          return yield* allowed({ _tag: "Sandbox" }, SandboxRules.autoAllowReason, target)
        }

        // 8. Nothing decided: ask.
        trail.push(`mode ${mode}: ${step.reason}`)
        return yield* askPerson(`${step.reason} and no rule allows it`, true)
      }).pipe((decide) => traced(request, decide))

    return {
      authorize,
      mode: Ref.get(modeRef),
      setMode: (mode) => Ref.set(modeRef, mode),
      sessionRules: Effect.map(Ref.get(session), (rules) => rules.map((rule) => rule.text))
    } satisfies Service
  })

const decidedByRule = (decidedBy: PermissionAudit.DecidedBy): string =>
  decidedBy._tag === "Rule" ? decidedBy.rules.join(", ") : ""

/**
 * The engine as both its own tag and core's `Policy`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  config: Config
): Layer.Layer<
  Engine | Policy.Policy,
  Rule.InvalidRule | CommandLine.ParserUnavailable,
  Redactor.Redactor | Approver.Approver
> =>
  Layer.effectContext(
    Effect.map(make(config), (engine) => Context.make(Engine, engine).pipe(Context.add(Policy.Policy, engine)))
  )

/**
 * What a call acts on and how rules meet it. A call's target is analysed
 * once (a command line in every reading the shell could give it, a path as
 * written and after symbolic links, a URL's host) and each rule is compiled
 * once; a rule list then meets a target in one of three ways:
 *
 * - a restrictive match, for deny and ask rules: where the engine is in
 *   doubt (the tool does not say what it acts on, a command it cannot name,
 *   a URL with no host), the rule applies;
 * - an allow match, for allow rules: only when the engine is sure that every
 *   command, path and URL the call reaches is covered;
 * - the rules "always allow" may offer: the narrowest rule for exactly what
 *   the call acts on, and none when it could not be read with certainty.
 *
 * It also knows where a write must never land unasked (`protectedPath`) and
 * which command lines could destroy the machine (`destructionOf`).
 *
 * `Engine` keeps the order of the evaluation; this module keeps what each
 * step compares, so that each reads as one concept. It is internal to the
 * package: the index does not export it, and its shapes change with the
 * engine's.
 *
 * @since 0.3.0
 */
import type * as Policy from "@tool-runtime/core/Policy"
import type * as Tool from "@tool-runtime/core/Tool"
import * as Either from "effect/Either"
import * as CommandLine from "./CommandLine.js"
import * as CommandRisk from "./CommandRisk.js"
import type * as Mode from "./Mode.js"
import type * as PathRule from "./PathRule.js"
import * as ReadReach from "./ReadReach.js"
import * as Rule from "./Rule.js"

// ---------------------------------------------------------------------------
// rules, compiled
// ---------------------------------------------------------------------------

/**
 * A rule parsed and compiled once: its command, path and domain patterns,
 * or why each does not apply.
 *
 * @since 0.3.0
 * @category models
 */
export interface Compiled {
  readonly rule: Rule.Rule
  readonly text: string
  readonly command: Either.Either<Rule.CommandPattern, string> | undefined
  readonly path: Either.Either<PathRule.PathPattern, string> | undefined
  readonly domain: Either.Either<(host: string) => boolean, string> | undefined
  /**
   * A further check on a command's words (the simple form of a read-only
   * command), told where the command could run and where paths lead.
   */
  readonly guard?: ((words: ReadonlyArray<string>, where: Where) => boolean) | undefined
}

/**
 * Where a command of a line could run (every directory a `cd` before it
 * could leave it in) and where the paths the line names lead.
 *
 * @since 0.4.0
 * @category models
 */
export interface Where {
  readonly cwds: ReadonlyArray<string>
  readonly leadsTo: (absolutePath: string) => ReadonlyArray<string>
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

/**
 * Parses and compiles a rule list; the first rule that is invalid fails it.
 *
 * @since 0.3.0
 * @category constructors
 */
export const compileAll = (
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

/**
 * What a call acts on, analysed once: a command line, a path, a URL, or
 * nothing the tool says.
 *
 * @since 0.3.0
 * @category models
 */
export type Target =
  | { readonly _tag: "None" }
  | {
    readonly _tag: "Command"
    readonly command: string
    readonly analysis: CommandLine.Analysis
    /** Where the command runs, as its tool says (`SandboxRules.Placement`). */
    readonly sandbox: Extract<Policy.Subject, { readonly _tag: "Command" }>["sandbox"]
    /**
     * Where an absolute path the line names or writes ({@link linePaths})
     * leads: the path itself and, when it goes through symbolic links, its
     * real path. Path rules and the workspace's bounds hold for each.
     */
    readonly leadsTo: (absolutePath: string) => ReadonlyArray<string>
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

/**
 * The target of a call's subject, with relative paths resolved against the
 * workspace (symbolic links are the engine's to follow).
 *
 * @since 0.3.0
 * @category constructors
 */
export const analyse = (subject: Policy.Subject, location: Rule.Location, commandLine: CommandLine.Service): Target => {
  switch (subject._tag) {
    case "None":
      return subject
    case "Command":
      return {
        _tag: "Command",
        command: subject.command,
        analysis: commandLine.analyse(subject.command),
        sandbox: subject.sandbox,
        leadsTo: asWritten
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

const asWritten = (path: string): ReadonlyArray<string> => [path]

/**
 * Every directory a command of the line could run in: the workspace and
 * wherever a `cd` in any reading could lead.
 *
 * @since 0.4.0
 * @category constructors
 */
export const lineCwds = (analysis: CommandLine.Analysis, location: Rule.Location): ReadonlyArray<string> =>
  ReadReach.afterCd([Rule.normalize(location.workspaceRoot)], analysis.readings, location)

/**
 * The files the line's redirections write, absolute, from every directory
 * a `cd` in it could leave the redirection in.
 *
 * @since 0.4.0
 * @category constructors
 */
export const lineWrites = (analysis: CommandLine.Analysis, location: Rule.Location): ReadonlyArray<string> => {
  const cwds = lineCwds(analysis, location)
  return [
    ...new Set(
      analysis.writes.flatMap((path) => cwds.map((cwd) => Rule.resolve(path, { ...location, workspaceRoot: cwd })))
    )
  ]
}

/**
 * The absolute paths of a command line whose symbolic links the engine
 * follows: what it names (`ReadReach.namedPaths`) and what it writes.
 *
 * @since 0.4.0
 * @category constructors
 */
export const linePaths = (analysis: CommandLine.Analysis, location: Rule.Location): ReadonlyArray<string> => [
  ...new Set([
    ...ReadReach.namedPaths(analysis, location).map((entry) => entry.path),
    ...lineWrites(analysis, location)
  ])
]

/**
 * What the mode needs to know about a call.
 *
 * @since 0.3.0
 * @category constructors
 */
export const factsOf = (tool: Tool.Any, target: Target): Mode.Facts => ({
  readOnly: tool.readOnly,
  risk: tool.risk,
  edit: target._tag === "Path" && target.access === "write" ? (target.inside ? "inside" : "outside") : undefined,
  readsOutside: target._tag === "Path" && target.access === "read" && !target.inside,
  command: target._tag === "Command"
})

// ---------------------------------------------------------------------------
// how a rule list meets a target
// ---------------------------------------------------------------------------

interface Match {
  readonly rule: string
  /** What of the call matched, for the reason given to the model. */
  readonly detail: string | undefined
}

/**
 * Deny and ask rules: where the engine cannot tell (the tool does not say
 * what it acts on, the URL does not parse), the rule applies.
 *
 * @since 0.3.0
 * @category matching
 */
export const restrictiveMatch = (rule: Compiled, target: Target): Match | undefined => {
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
const allowingRule = (
  rules: ReadonlyArray<Compiled>,
  target: Target,
  words?: ReadonlyArray<string>,
  where?: Where
) =>
  rules.find((rule) => {
    if (rule.rule.specifier === undefined) return true
    switch (target._tag) {
      case "None":
        return false
      case "Command":
        return rule.command !== undefined && Either.isRight(rule.command) && words !== undefined &&
          Rule.matchesCommand(rule.command.right, words) &&
          (rule.guard === undefined || (where !== undefined && rule.guard(words, where)))
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
 * Why no allow rule decided a call: the real cause, and what the model can
 * do instead.
 *
 * @since 0.4.0
 * @category models
 */
export interface Gap {
  readonly cause: string
  readonly hint: string
}

const noRule = "Use tools the permission rules allow, or tell the user what you need"

/** A command's name as the reason shows it: the program, and its subcommand when it has one. */
const commandName = (words: ReadonlyArray<string>): string =>
  CommandLine.print(/^[a-z][a-z0-9-]*$/.test(words[1] ?? "") ? words.slice(0, 2) : words.slice(0, 1))

/**
 * Allow rules: the call is allowed only when the engine is sure. A command
 * line is allowed when it is provably simple and every command in it (and
 * every command its wrappers run) is allowed by some rule, names no path
 * outside the workspace, and could not destroy anything. Returns the rules
 * that allowed it.
 *
 * @since 0.3.0
 * @category matching
 */
export const allowMatch = (
  rules: ReadonlyArray<Compiled>,
  target: Target,
  location: Rule.Location,
  writable: (path: string) => boolean = () => false
): ReadonlyArray<string> | undefined =>
  rules.length === 0 ? undefined : Either.getOrUndefined(allowOrGap(rules, target, location, writable))

/**
 * {@link allowMatch}, or why it does not allow the call (a command that
 * names a path outside the workspace, a line that is not simple, a command
 * no rule covers…).
 *
 * @since 0.4.0
 * @category matching
 */
export const allowOrGap = (
  rules: ReadonlyArray<Compiled>,
  target: Target,
  location: Rule.Location,
  writable: (path: string) => boolean = () => false
): Either.Either<ReadonlyArray<string>, Gap> => {
  const whole = rules.find((rule) => rule.rule.specifier === undefined)
  if (whole !== undefined) return Either.right([whole.text])
  if (target._tag !== "Command") {
    const rule = allowingRule(rules, target)
    return rule === undefined ? Either.left({ cause: "no rule allows it", hint: noRule }) : Either.right([rule.text])
  }
  const analysis = target.analysis
  const leadsTo = target.leadsTo
  const plainOnly = "Write it as plain commands of literal words, or tell the user what you need"
  if (analysis.doubts.length > 0) return Either.left({ cause: analysis.doubts[0]!, hint: plainOnly })
  if (!analysis.simple || analysis.commands.length === 0) {
    return Either.left({ cause: "it is not a plain command", hint: plainOnly })
  }
  const used = new Set<string>()
  // Every directory a later command could run in: `cd a || cat ../x` runs cat in
  // either, so a path must be inside the workspace from each.
  let cwds: ReadonlyArray<string> = [Rule.normalize(location.workspaceRoot)]
  let gap: Gap | undefined = undefined
  const fail = (cause: string, hint: string) => {
    gap ??= { cause, hint }
    return false
  }
  const inside = (words: ReadonlyArray<string>) => {
    for (const cwd of cwds) {
      // A link inside the workspace that leads out of it names a path outside.
      const outside = CommandRisk.pathsOutside(words, { ...location, cwd }, leadsTo)[0]
      if (outside !== undefined) {
        return fail(
          words[0] === "<"
            ? `it reads ${outside}, outside the workspace`
            : `it names ${outside}, outside the workspace${cwds.length > 1 ? " (from a directory a cd leads to)" : ""}`,
          "Work with paths inside the workspace, or tell the user what you need outside it"
        )
      }
    }
    return true
  }
  const covered = (line: CommandLine.Analysis): boolean =>
    (line.doubts.length === 0 || fail(line.doubts[0]!, plainOnly)) && line.commands.every((command) => {
      const name = command.words[0] ?? ""
      if (name === "git" && cwds.length > 1) {
        return fail("it runs git after changing directory", "Run git from the workspace, in a command of its own")
      }
      if (!inside(command.words) || !command.covers.every(inside) || !inside(["<", ...command.reads])) return false
      for (const path of command.writes) {
        if (path === "/dev/null") continue
        // Where the file is written and where a link leads: an Edit rule must allow both.
        if (!cwds.every((cwd) => leadsTo(Rule.resolve(path, { ...location, workspaceRoot: cwd })).every(writable))) {
          return fail(
            `it writes ${path}, and no Edit rule allows writing there`,
            "Write files with the file tools, or tell the user what you need"
          )
        }
      }
      // An exact rule names this invocation whole: what its words do is what the person allowed.
      const exact = rules.find((rule) =>
        rule.guard === undefined && rule.command !== undefined && Either.isRight(rule.command) &&
        rule.command.right.exact !== undefined && Rule.matchesCommand(rule.command.right, command.words)
      )
      if (exact !== undefined) used.add(exact.text)
      else {
        if (command.doubts.length > 0) {
          return fail(
            command.doubts[0]!,
            "Run the command itself, without the wrapper or option in doubt, or tell the user what you need"
          )
        }
        if (command.globs && !CommandRisk.takesGlobs(command.covers)) {
          return fail(
            `${commandName(command.words)} is given a glob, which could expand to one of its options`,
            "Name the files instead of a glob, or tell the user what you need"
          )
        }
        for (const words of command.covers) {
          const rule = allowingRule(rules, target, words, { cwds, leadsTo })
          if (rule === undefined) {
            return fail(`${commandName(words)} is not read-only and no rule allows it`, noRule)
          }
          used.add(rule.text)
        }
        if (!command.scripts.every(covered)) return false
      }
      // `cd`, and `builtin cd`, `command cd`, `time cd`: wrappers that only change how it runs.
      cwds = ReadReach.afterCd(cwds, [command.words, ...command.covers], location)
      return true
    })
  return covered(analysis)
    ? Either.right([...used])
    : Either.left(gap ?? { cause: "it is not read-only and no rule allows it", hint: noRule })
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

/**
 * The protected directory or file a path lands in, if any.
 *
 * @since 0.3.0
 * @category protected paths
 */
export const protectedIn = (path: string, location: Rule.Location): string | undefined => {
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

/**
 * The protected place a write lands in, if any.
 *
 * @since 0.3.0
 * @category protected paths
 */
export const protectedPath = (target: Target, location: Rule.Location): string | undefined => {
  if (target._tag === "Path") {
    if (target.access !== "write") return undefined
    for (const path of target.paths) {
      const hit = protectedIn(path, location)
      if (hit !== undefined) return hit
    }
    return undefined
  }
  if (target._tag === "Command") {
    // From every directory a `cd` could leave the redirection in, and where a link leads.
    for (const path of lineWrites(target.analysis, location)) {
      for (const lead of target.leadsTo(path)) {
        const hit = protectedIn(lead, location)
        if (hit !== undefined) return hit
      }
    }
  }
  return undefined
}

/**
 * Why a command line must reach a person whatever rules and modes allow: it
 * could destroy the machine.
 *
 * @since 0.3.0
 * @category risk
 */
export const destructionOf = (target: Target, location: Rule.Location): string | undefined => {
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
 *
 * @since 0.3.0
 * @category suggestions
 */
export const suggest = (
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
        if (CommandRisk.pathsOutside(command.words, location, target.leadsTo).length > 0) return []
        if (command.writes.some((path) => path !== "/dev/null") || command.globs) return []
        if (command.words[0] === "cd") return []
        for (const words of command.covers) {
          const where = { cwds: [Rule.normalize(location.workspaceRoot)], leadsTo: target.leadsTo }
          if (allowingRule(allowed, target, words, where) !== undefined) continue
          const rule = exact(CommandLine.print(words))
          if (rule.length === 0) return []
          rules.add(rule[0]!)
        }
      }
      return [...rules]
    }
  }
}

/**
 * What the call acts on, in the words the prompt and the audit show.
 *
 * @since 0.3.0
 * @category formatting
 */
export const describeSubject = (target: Target): string | undefined => {
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

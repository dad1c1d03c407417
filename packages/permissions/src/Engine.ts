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
 *    command names, through links too, and the tools that write; the path
 *    deny rules cover what a redirection writes, through links and from
 *    every directory a `cd` leads to: `DenyCheck`);
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
 *    in it, and every command its wrappers run, is covered, no path it
 *    names or writes leads outside the workspace or into a protected place
 *    (as written or through a symbolic link), and never when
 *    it could read files a Read rule guards without naming them (a glob, a
 *    recursive read, git printing the repository: `ReadReach`);
 * 11. with `autoAllowSandboxedCommands`, a command confined to the OS
 *    sandbox, in `default` and `acceptEdits` (see `SandboxRules`);
 * 12. the person, through the `Approver`. What asking means depends on the
 *    mode: `dontAsk` denies, `bypassPermissions` allows, `plan` denies
 *    edits; with no one to ask, the call is denied and the model is told
 *    the real cause and what to do instead (`AskReason`).
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
 * This module keeps that order; what a call acts on, and how a rule list
 * meets it at each step, are `RuleMatch`'s.
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
import * as AskReason from "./AskReason.js"
import * as CommandLine from "./CommandLine.js"
import * as CommandRisk from "./CommandRisk.js"
import * as DenyCheck from "./DenyCheck.js"
import * as Mode from "./Mode.js"
import * as PathRule from "./PathRule.js"
import * as PermissionAudit from "./PermissionAudit.js"
import * as PermissionHooks from "./PermissionHooks.js"
import * as ReadOnlyCommands from "./ReadOnlyCommands.js"
import * as ReadReach from "./ReadReach.js"
import * as Rule from "./Rule.js"
import * as RuleMatch from "./RuleMatch.js"
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

const maxInputChars = 2_000

// ---------------------------------------------------------------------------
// the engine
// ---------------------------------------------------------------------------

/**
 * The engine. It needs a `FileSystem` to follow symbolic links: a path rule
 * compares paths as text, so without the real path `link -> secrets` would
 * carry `Read(./secrets/**)`'s files under another name. (The node
 * package's `NodeContext.layer` provides one.)
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  config: Config
): Effect.Effect<
  Service,
  Rule.InvalidRule | CommandLine.ParserUnavailable,
  Redactor.Redactor | Approver.Approver | FileSystem.FileSystem
> => Effect.flatMap(FileSystem.FileSystem, (fileSystem) => makeWith(config, Option.some(fileSystem)))

/**
 * The engine without following symbolic links, for a host with no file
 * system to ask. **Path rules can then be bypassed through links**: with
 * `Read(./secrets/**)` denied, `link -> secrets` reads `link/key` and
 * `alias -> .` reads `alias/secrets/key`, for the file tools and for the
 * paths a command names. Use it only where the tools cannot meet links, or
 * where an OS sandbox masks the denied files.
 *
 * @since 0.4.0
 * @category constructors
 */
export const makeIgnoringSymlinks = (
  config: Config
): Effect.Effect<Service, Rule.InvalidRule | CommandLine.ParserUnavailable, Redactor.Redactor | Approver.Approver> =>
  makeWith(config, Option.none())

const makeWith = (
  config: Config,
  fileSystem: Option.Option<FileSystem.FileSystem>
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
    const denyRules = yield* RuleMatch.compileAll(config.deny, location, "deny")
    const askRules = yield* RuleMatch.compileAll(config.ask, location, "ask")
    const allowRules = yield* RuleMatch.compileAll(config.allow, location, "allow")
    const readOnlyRules = (yield* RuleMatch.compileAll(ReadOnlyCommands.rules, location, "allow")).map((rule) => ({
      ...rule,
      guard: ReadOnlyCommands.simpleForm
    }))
    // The paths a path leads to through symbolic links (the path itself when
    // links are ignored).
    const linked = (path: string): Effect.Effect<ReadonlyArray<string>> =>
      Option.isNone(fileSystem)
        ? Effect.succeed([path])
        : PathRule.candidates(path).pipe(Effect.provideService(FileSystem.FileSystem, fileSystem.value))
    // A path, and every path a command line names or writes, as written and where links lead.
    const withLinks = (target: RuleMatch.Target): Effect.Effect<RuleMatch.Target> => {
      switch (target._tag) {
        case "Path":
          return Effect.map(linked(target.path), (paths) => ({
            ...target,
            paths: paths.length === 0 ? [target.path] : paths,
            inside: paths.every((path) => Rule.isInside(path, location.workspaceRoot))
          }))
        case "Command":
          return Option.isNone(fileSystem) ? Effect.succeed(target) : Effect.map(
            Effect.forEach(
              RuleMatch.linePaths(target.analysis, location),
              (path) => Effect.map(linked(path), (paths) => [path, paths] as const)
            ),
            (pairs) => {
              const leads = new Map(pairs.filter(([path, paths]) => paths.length > 1 || paths[0] !== path))
              return leads.size === 0 ? target : { ...target, leadsTo: (path) => leads.get(path) ?? [path] }
            }
          )
        default:
          return Effect.succeed(target)
      }
    }
    const aliases = new Map(
      Object.entries({ ...defaultTools, ...config.tools }).map(([name, tools]) => [name, new Set(tools)])
    )
    const editAllows = allowRules.filter((rule) =>
      (rule.rule.tool === "Edit" || rule.rule.tool === "Write") && rule.path !== undefined && Either.isRight(rule.path)
    )
    const acceptEditsRules = (yield* RuleMatch.compileAll(CommandRisk.fileCommandRules, location, "allow")).map((
      rule
    ) => ({
      ...rule,
      // No file command writes a protected place: from every directory a `cd` could leave
      // it in, nor where a link leads.
      guard: (words: ReadonlyArray<string>, where: RuleMatch.Where) =>
        CommandRisk.fileCommandForm(words) &&
        words.slice(1).every((word) =>
          where.cwds.every((cwd) =>
            where.leadsTo(Rule.resolve(word, { ...location, workspaceRoot: cwd })).every((path) =>
              RuleMatch.protectedIn(path, location) === undefined
            )
          )
        )
    }))
    const hooks = config.hooks ?? []
    const modeRef = yield* Ref.make<Mode.Mode>(config.mode ?? "default")
    const session = yield* Ref.make<ReadonlyArray<RuleMatch.Compiled>>([])
    // One question at a time: a terminal cannot show two prompts at once, and
    // an answer may make the next question unnecessary.
    const asking = yield* Effect.makeSemaphore(1)

    const redact = (text: string) => redactor.redact(text).text
    // Each list's rules for a tool, filtered once: the lists are fixed, and the
    // session's is replaced (not changed) when the person adds a rule.
    const byTool = new WeakMap<ReadonlyArray<RuleMatch.Compiled>, Map<string, ReadonlyArray<RuleMatch.Compiled>>>()
    const forTool = (rules: ReadonlyArray<RuleMatch.Compiled>, name: string): ReadonlyArray<RuleMatch.Compiled> => {
      let names = byTool.get(rules)
      if (names === undefined) byTool.set(rules, names = new Map())
      let found = names.get(name)
      if (found === undefined) names.set(name, found = rules.filter((rule) => Rule.namesTool(rule.rule, name, aliases)))
      return found
    }
    const denyCheck = DenyCheck.make({
      deny: denyRules,
      ask: askRules,
      location,
      aliases,
      forTool
    })
    const allowTexts = new Set(allowRules.map((rule) => rule.text))
    const acceptEditsTexts = new Set(acceptEditsRules.map((rule) => rule.text))

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
            readonly target: RuleMatch.Target | undefined
            readonly rewritten: boolean
            readonly asked?: boolean
            readonly stored?: ReadonlyArray<string>
          }
        ) =>
          Effect.gen(function*() {
            const subject = details.target === undefined ? undefined : RuleMatch.describeSubject(details.target)
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
          details: { readonly input: unknown; readonly target: RuleMatch.Target | undefined; readonly asked?: boolean },
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
          target: RuleMatch.Target,
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

        const target = yield* withLinks(RuleMatch.analyse(before.subject, location, commandLine))
        // Where a redirection may write without a question: an Edit allow rule covers it,
        // or acceptEdits covers edits inside the workspace; never a protected place.
        const writable = (path: string) =>
          RuleMatch.protectedIn(path, location) === undefined &&
          ((mode === "acceptEdits" && Rule.isInside(path, location.workspaceRoot)) ||
            (Rule.isInside(path, location.workspaceRoot) &&
              editAllows.some((rule) => Either.isRight(rule.path!) && rule.path.right.test(path))))
        const facts = RuleMatch.factsOf(tool, target)
        const placement = target._tag === "Command" ? target.sandbox : undefined
        const unconfined = placement === "unconfined"
        // 2. Deny rules win over everything that follows, hooks included.
        const denyMatch = denyCheck.match(tool.name, target)
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

        /**
         * `required`: the mode may deny the question but never answer it with an
         * allow. `hint`: what the model can do instead, told when no one answers.
         */
        const askPerson = (why: string, offer: boolean, required = false, hint?: string) =>
          Effect.gen(function*() {
            if (unconfined) sandboxRule = "unsandboxed-always-asks"
            const answer = required && !unconfined
              ? Mode.onRequiredAsk(mode, facts, why)
              : SandboxRules.onAsk(
                mode,
                facts,
                placement,
                hint === undefined ? undefined : { cause: why, hint }
              )
            if (answer._tag === "Allow") return yield* allowed({ _tag: "Mode", mode }, answer.reason, target)
            if (answer._tag === "Deny") {
              return yield* denied({ _tag: "Mode", mode }, answer.reason, { input: before.input, target })
            }
            return yield* asking.withPermits(1)(Effect.gen(function*() {
              if (offer) {
                // Another call's "always allow" may have covered this one while it waited.
                const rules = RuleMatch.allowMatch(
                  forTool(yield* Ref.get(session), tool.name),
                  target,
                  location,
                  writable
                )
                if (rules !== undefined) {
                  return yield* allowed(
                    { _tag: "Rule", list: "session", rules },
                    "allowed for the session by the person",
                    target
                  )
                }
              }
              const suggested = offer
                ? RuleMatch.suggest(
                  tool,
                  target,
                  [...forTool(allowRules, tool.name), ...forTool(yield* Ref.get(session), tool.name)],
                  location
                )
                : []
              // A rule that would hold a secret is not offered: it would be shown,
              // stored and logged, and redacting it would make it match nothing.
              const rules = suggested.some((rule) => redactor.redact(rule).count > 0) ? [] : suggested
              const subject = RuleMatch.describeSubject(target)
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
                  `it needs approval (${why}) and ${reply.left.reason}. ${
                    hint ?? "Use tools the permission rules allow, or tell the user what you need"
                  }`,
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
                  const stored = yield* RuleMatch.compileAll(rules, location, "allow").pipe(Effect.orDie)
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
                    ? yield* withLinks(RuleMatch.analyse(tool.subject(decoded.right), location, commandLine))
                    : undefined
                  const match = changed === undefined ? undefined : denyCheck.match(tool.name, changed)
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
          const match = RuleMatch.restrictiveMatch(rule, target)
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
        const destruction = RuleMatch.destructionOf(target, location)
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
          const byDomain = RuleMatch.allowMatch(forTool(allowRules, tool.name), target, location, writable) ??
            RuleMatch.allowMatch(forTool(yield* Ref.get(session), tool.name), target, location, writable)
          if (byDomain !== undefined) {
            return yield* allowed({ _tag: "Rule", list: "allow", rules: byDomain }, "an allow rule matches", target)
          }
          const step = Mode.decide(mode, facts)
          if (step._tag === "Deny") {
            return yield* denied({ _tag: "Mode", mode }, step.reason, { input: before.input, target })
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
        const guarded = RuleMatch.protectedPath(target, location)
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
          const byRule = RuleMatch.allowMatch(forTool(allowRules, tool.name), target, location, writable)
          if (byRule !== undefined) trail.push(`allow rule ${byRule.join(", ")} matches`)
          return yield* askPerson(SandboxRules.unconfinedReason, false)
        }
        if (step._tag === "Allow") return yield* allowed({ _tag: "Mode", mode }, step.reason, target)

        // 10. Allow rules, those stored this session, the read-only commands and, in
        // acceptEdits, the file commands: one match over all of them (each command
        // takes the first list that covers it), named after the lists it used.
        // A line that could read files a Read rule guards without naming them (a
        // glob, a recursive read, git printing the repository) is not: no rule
        // names what it will read.
        const reach = target._tag === "Command"
          ? ReadReach.find(target.analysis, denyCheck.readGuards, location)
          : undefined
        const sessionRules = yield* Ref.get(session)
        const allowedBy = reach !== undefined ? undefined : RuleMatch.allowOrGap(
          [
            ...forTool(allowRules, tool.name),
            ...forTool(sessionRules, tool.name),
            ...forTool(readOnlyRules, tool.name),
            ...(mode === "acceptEdits" ? forTool(acceptEditsRules, tool.name) : [])
          ],
          target,
          location,
          writable
        )
        if (allowedBy !== undefined && Either.isRight(allowedBy)) {
          const used = allowedBy.right
          const sessionTexts = new Set(sessionRules.map((rule) => rule.text))
          const from = (texts: ReadonlySet<string>) => used.every((rule) => texts.has(rule))
          if (used.some((rule) => acceptEditsTexts.has(rule) && !allowTexts.has(rule) && !sessionTexts.has(rule))) {
            return yield* allowed({ _tag: "Mode", mode }, "acceptEdits runs file commands inside the workspace", target)
          }
          if (from(allowTexts)) {
            return yield* allowed({ _tag: "Rule", list: "allow", rules: used }, "an allow rule matches", target)
          }
          if (from(sessionTexts)) {
            return yield* allowed(
              { _tag: "Rule", list: "session", rules: used },
              "allowed for the session by the person",
              target
            )
          }
          const builtin = from(ReadOnlyCommands.texts)
          return yield* allowed(
            { _tag: "Rule", list: builtin ? "builtin" : "allow", rules: used },
            builtin ? ReadOnlyCommands.reason : "allow rules and read-only commands cover it",
            target
          )
        }

        // 11. A sandboxed command, when the engine auto-allows them; not one that could
        // read a guarded file from git's history, which no mask hides.
        const history = target._tag === "Command" && denyCheck.readGuards.length > 0 &&
          ReadReach.throughHistory(target.analysis, reach)
        if (history) trail.push("it could read guarded files from the repository's history")
        if (!history && SandboxRules.autoAllows(mode, config.autoAllowSandboxedCommands === true, placement)) {
          sandboxRule = "sandbox-auto-allow"
          return yield* allowed({ _tag: "Sandbox" }, SandboxRules.autoAllowReason, target)
        }

        // 12. Nothing decided: ask, naming the real cause.
        trail.push(`mode ${mode}: ${step.reason}`)
        if (history && reach === undefined) {
          return yield* askPerson(
            `it runs git (or a command named only when it runs), which could print files the Read rules guard from the repository's history, where the sandbox cannot hide them (${
              denyCheck.readGuards.map((guard) => guard.rule).join(", ")
            })`,
            false,
            false,
            "Use git status, add, commit or log without patches, or read files by name with the file tools"
          )
        }
        if (reach !== undefined) {
          trail.push(`it could reach ${reach.guard.rule}`)
          // No rule is offered: none could allow the line next time either.
          const why = AskReason.ofReach(reach)
          return yield* askPerson(why.cause, false, false, why.hint)
        }
        const gap = AskReason.of(
          target,
          step.reason,
          allowedBy !== undefined && Either.isLeft(allowedBy) ? allowedBy.left : undefined
        )
        return yield* askPerson(gap.cause, true, false, gap.hint)
      }).pipe((decide) => traced(request, decide))

    return {
      authorize,
      checkPath: denyCheck.checkPath,
      mode: Ref.get(modeRef),
      setMode: (mode) => Ref.set(modeRef, mode),
      sessionRules: Effect.map(Ref.get(session), (rules) => rules.map((rule) => rule.text))
    } satisfies Service
  })

const decidedByRule = (decidedBy: PermissionAudit.DecidedBy): string =>
  decidedBy._tag === "Rule" ? decidedBy.rules.join(", ") : ""

/**
 * The engine as both its own tag and core's `Policy`; it follows symbolic
 * links with the `FileSystem` it is given (see {@link make}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  config: Config
): Layer.Layer<
  Engine | Policy.Policy,
  Rule.InvalidRule | CommandLine.ParserUnavailable,
  Redactor.Redactor | Approver.Approver | FileSystem.FileSystem
> => Layer.effectContext(Effect.map(make(config), contextOf))

/**
 * The engine as a layer that does not follow symbolic links: **path rules
 * can then be bypassed through links** (see {@link makeIgnoringSymlinks}).
 *
 * @since 0.4.0
 * @category layers
 */
export const layerIgnoringSymlinks = (
  config: Config
): Layer.Layer<
  Engine | Policy.Policy,
  Rule.InvalidRule | CommandLine.ParserUnavailable,
  Redactor.Redactor | Approver.Approver
> => Layer.effectContext(Effect.map(makeIgnoringSymlinks(config), contextOf))

const contextOf = (engine: Service) => Context.make(Engine, engine).pipe(Context.add(Policy.Policy, engine))

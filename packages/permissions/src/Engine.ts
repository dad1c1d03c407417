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
 * meets it at each step, are `RuleMatch`'s. The configuration is
 * `EngineConfig`'s, the rule lists compiled once `RuleBook`'s, following
 * links `TargetLinks`', reporting a decision `DecisionRecord`'s, and asking
 * the person `AskPerson`'s.
 *
 * Every decision is reported to `onDecision` and recorded on a span, with
 * the arguments redacted. The span ends with its exit redacted too (see
 * `CallTrace.redactExit`): an exporting tracer writes the exit into the
 * span's status and events, and a hook's failure can quote anything. Under
 * Effect's built-in tracer, which exports nothing, an allow inside which
 * nothing runs (no hook, no listener, no link to follow) makes no span:
 * nobody could ever see it.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import type * as ToolError from "@tool-runtime/core/ToolError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Approver from "./Approver.js"
import * as AskPerson from "./AskPerson.js"
import * as AskReason from "./AskReason.js"
import * as CommandLine from "./CommandLine.js"
import * as DecisionRecord from "./DecisionRecord.js"
import type * as DenyCheck from "./DenyCheck.js"
import type * as EngineConfig from "./EngineConfig.js"
import * as Mode from "./Mode.js"
import type * as PermissionAudit from "./PermissionAudit.js"
import * as PermissionHooks from "./PermissionHooks.js"
import * as ReadOnlyCommands from "./ReadOnlyCommands.js"
import * as ReadReach from "./ReadReach.js"
import * as Rule from "./Rule.js"
import * as RuleBook from "./RuleBook.js"
import * as RuleMatch from "./RuleMatch.js"
import * as SandboxRules from "./SandboxRules.js"
import * as TargetLinks from "./TargetLinks.js"

/**
 * What an engine is made from, and the rule names users know: see
 * `EngineConfig`.
 *
 * @since 0.1.0
 */
export type { Config } from "./EngineConfig.js"
/** @since 0.1.0 */
export { configFromSettings, defaultTools } from "./EngineConfig.js"

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
  config: EngineConfig.Config
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
  config: EngineConfig.Config
): Effect.Effect<Service, Rule.InvalidRule | CommandLine.ParserUnavailable, Redactor.Redactor | Approver.Approver> =>
  makeWith(config, Option.none())

const makeWith = (
  config: EngineConfig.Config,
  fileSystem: Option.Option<FileSystem.FileSystem>
): Effect.Effect<Service, Rule.InvalidRule | CommandLine.ParserUnavailable, Redactor.Redactor | Approver.Approver> =>
  Effect.gen(function*() {
    const redactor = yield* Redactor.Redactor
    const approver = yield* Approver.Approver
    const commandLine = yield* CommandLine.make
    const {
      acceptEditsTexts,
      allowRules,
      allowSet,
      allowTexts,
      askRules,
      denyCheck,
      editAllows,
      forTool,
      location
    } = yield* RuleBook.make(config)
    const withLinks = TargetLinks.make(fileSystem, location)
    const hooks = config.hooks ?? []
    let currentMode: Mode.Mode = config.mode ?? "default"
    // The rules "always allow" stored: replaced, never changed, when the person adds one
    // (RuleBook keeps a rule set per version, by identity).
    let sessionRules: ReadonlyArray<RuleMatch.Compiled> = []
    const sessions: AskPerson.Session = {
      get: () => sessionRules,
      set: (rules) => {
        sessionRules = rules
      }
    }
    // One question at a time: a terminal cannot show two prompts at once, and
    // an answer may make the next question unnecessary.
    const asking = yield* Effect.makeSemaphore(1)

    const redact = (text: string) => redactor.redact(text).text
    const verdict = DecisionRecord.verdict

    /**
     * Steps 2 to 12, once the hooks ran and the target's links were followed:
     * synchronous up to a person, a listener or a denial, which it returns as
     * the effect that decides. An allow is returned as such ({@link Allowed}):
     * where nothing else is to run, the engine records it without a step.
     */
    const evaluate = (
      request: Policy.Request,
      mode: Mode.Mode,
      recorder: DecisionRecord.Recorder,
      before: PermissionHooks.BeforeOutcome,
      target: RuleMatch.Target
    ) => {
      const tool = request.tool
      const { denied, setSandboxRule, trail } = recorder
      const allowedNow = (
        decidedBy: PermissionAudit.DecidedBy,
        reason: string,
        target: RuleMatch.Target,
        extra?: { readonly asked?: boolean; readonly stored?: ReadonlyArray<string> }
      ) => allowedEffect(recorder, before, decidedBy, reason, target, extra)
      const allowed = (decidedBy: PermissionAudit.DecidedBy, reason: string, target: RuleMatch.Target) =>
        new Allowed(decidedBy, reason, target)
      // Where the command starts (the shell tool's `cwd`): its relative paths resolve from there.
      const here = RuleMatch.locationOf(target, location)
      // Where a redirection may write without a question: an Edit allow rule covers it,
      // or acceptEdits covers edits inside the workspace; never a protected place.
      const writable = (path: string) =>
        RuleMatch.protectedIn(path, here) === undefined &&
        ((mode === "acceptEdits" && Rule.isInside(path, here.workspaceRoot)) ||
          (Rule.isInside(path, here.workspaceRoot) &&
            editAllows.some((rule) => Either.isRight(rule.path!) && rule.path.right.test(path))))
      const facts = RuleMatch.factsOf(tool, target)
      const placement = target._tag === "Command" ? target.sandbox : undefined
      const unconfined = placement === "unconfined"
      // 2. Deny rules win over everything that follows, hooks included.
      const denyMatch = denyCheck.match(tool.name, target)
      if (denyMatch !== undefined) {
        return denied(
          { _tag: "Rule", list: "deny", rules: [denyMatch.rule] },
          `the deny rule ${denyMatch.rule} forbids it${denyMatch.detail === undefined ? "" : ` (${denyMatch.detail})`}`,
          { input: before.input, target }
        )
      }

      // 3. Hooks that decided.
      const hook = before.decision
      if (hook._tag === "Deny") {
        return denied(
          { _tag: "Hook", hook: hook.hook },
          `the ${hook.hook} hook denied it: ${hook.reason}`,
          { input: before.input, target },
          hook.stopTurn
        )
      }

      // Made only when a person is to be asked.
      const askPerson = (why: string, offer: boolean, required?: boolean, hint?: string) =>
        AskPerson.make({
          request,
          mode,
          facts,
          target,
          placement,
          unconfined,
          before,
          writable,
          recorder,
          allowed: allowedNow,
          verdict,
          asking,
          session: sessions,
          forTool,
          allowRules,
          location: here,
          redactor,
          redact,
          approver,
          withLinks,
          commandLine,
          denyCheck
        })(why, offer, required, hint)

      // A command leaving the sandbox: nothing below may allow it without a question.
      const sandboxNote = unconfined ? `; ${SandboxRules.unconfinedReason}` : ""

      // 4. Ask rules, and hooks that want a person to decide. They come before
      // every allow (a hook's, a mode's, a rule's): in bypassPermissions too.
      // A Read ask covers the files a command names, as a Read deny does.
      let asked: DenyCheck.Match | undefined
      for (const rule of forTool(askRules, tool.name)) {
        asked = RuleMatch.restrictiveMatch(rule, target)
        if (asked !== undefined) break
      }
      asked ??= denyCheck.askNamed(target)
      if (asked !== undefined) {
        trail.push(`ask rule ${asked.rule}`)
        return askPerson(
          `the ask rule ${asked.rule} matches${asked.detail === undefined ? "" : ` (${asked.detail})`}${sandboxNote}`,
          false,
          true
        )
      }
      if (hook._tag === "Ask") {
        trail.push(`hook ${hook.hook}`)
        return askPerson(`the ${hook.hook} hook asks: ${hook.reason}${sandboxNote}`, false, true)
      }

      // 5. A command that could destroy the machine, the home directory or the
      // workspace reaches a person in every mode, whatever allows it.
      const destruction = RuleMatch.destructionOf(target, here)
      if (destruction !== undefined) {
        trail.push(`destructive: ${destruction}`)
        return askPerson(`${destruction}, and such a command always needs a person's approval`, false, true)
      }

      // 6. A hook's allow.
      if (hook._tag === "Allow") {
        if (!unconfined) return allowed({ _tag: "Hook", hook: hook.hook }, hook.reason, target)
        trail.push(`hook ${hook.hook} allows it`)
        return askPerson(SandboxRules.unconfinedReason, false)
      }

      // 7. A fetch sends what it asks for off the machine: only a domain rule lets
      // it run without a question, in every mode.
      if (target._tag === "Url") {
        const byDomain = RuleMatch.allowMatch(forTool(allowRules, tool.name), target, here, writable) ??
          RuleMatch.allowMatch(forTool(sessionRules, tool.name), target, here, writable)
        if (byDomain !== undefined) {
          return allowed({ _tag: "Rule", list: "allow", rules: byDomain }, "an allow rule matches", target)
        }
        const step = Mode.decide(mode, facts)
        if (step._tag === "Deny") {
          return denied({ _tag: "Mode", mode }, step.reason, { input: before.input, target })
        }
        trail.push("no domain rule allows the URL")
        return askPerson(
          target.host === undefined ? "the URL has no host" : `no allow rule covers the domain ${target.host}`,
          true
        )
      }

      // 8. Writes to the directories that hold a repository's machinery and the
      // editors' and agents' settings are asked about: no allow rule and no
      // mode but bypassPermissions pre-approves them.
      const guarded = RuleMatch.protectedPath(target, here)
      if (guarded !== undefined && mode !== "bypassPermissions") {
        trail.push(`protected path ${guarded}`)
        return askPerson(`it writes inside ${guarded}, which always needs a person's approval`, false, true)
      }

      // 9. The mode.
      const step = Mode.decide(mode, facts)
      if (step._tag === "Deny") {
        return denied({ _tag: "Mode", mode }, step.reason, { input: before.input, target })
      }
      if (unconfined) {
        trail.push(`mode ${mode}: ${step.reason}`)
        const byRule = RuleMatch.allowMatch(forTool(allowRules, tool.name), target, here, writable)
        if (byRule !== undefined) trail.push(`allow rule ${byRule.join(", ")} matches`)
        return askPerson(SandboxRules.unconfinedReason, false)
      }
      if (step._tag === "Allow") return allowed({ _tag: "Mode", mode }, step.reason, target)

      // 10. Allow rules, those stored this session, the read-only commands and, in
      // acceptEdits, the file commands: one match over all of them (each command
      // takes the first list that covers it), named after the lists it used.
      // A line that could read files a Read rule guards without naming them (a
      // glob, a recursive read, git printing the repository) is not: no rule
      // names what it will read.
      const reach = target._tag === "Command"
        ? ReadReach.find(target.analysis, denyCheck.readGuards, here)
        : undefined
      const allowedBy = reach !== undefined ? undefined : RuleMatch.allowOrGap(
        allowSet(sessionRules, tool.name, mode === "acceptEdits"),
        target,
        here,
        writable
      )
      if (allowedBy !== undefined && Either.isRight(allowedBy)) {
        const used = allowedBy.right
        const sessionTexts = new Set(sessionRules.map((rule) => rule.text))
        const from = (texts: ReadonlySet<string>) => used.every((rule) => texts.has(rule))
        if (used.some((rule) => acceptEditsTexts.has(rule) && !allowTexts.has(rule) && !sessionTexts.has(rule))) {
          return allowed({ _tag: "Mode", mode }, "acceptEdits runs file commands inside the workspace", target)
        }
        if (from(allowTexts)) {
          return allowed({ _tag: "Rule", list: "allow", rules: used }, "an allow rule matches", target)
        }
        if (from(sessionTexts)) {
          return allowed(
            { _tag: "Rule", list: "session", rules: used },
            "allowed for the session by the person",
            target
          )
        }
        const builtin = from(ReadOnlyCommands.texts)
        return allowed(
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
        setSandboxRule("sandbox-auto-allow")
        return allowed({ _tag: "Sandbox" }, SandboxRules.autoAllowReason, target)
      }

      // 12. Nothing decided: ask, naming the real cause.
      trail.push(`mode ${mode}: ${step.reason}`)
      if (history && reach === undefined) {
        return askPerson(
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
        return askPerson(why.cause, false, false, why.hint)
      }
      const gap = AskReason.of(
        target,
        step.reason,
        allowedBy !== undefined && Either.isLeft(allowedBy) ? allowedBy.left : undefined
      )
      return askPerson(gap.cause, true, false, gap.hint)
    }

    /** An allow recorded, and the verdict: the input as the hooks left it. */
    const allowedEffect = (
      recorder: DecisionRecord.Recorder,
      before: PermissionHooks.BeforeOutcome,
      decidedBy: PermissionAudit.DecidedBy,
      reason: string,
      target: RuleMatch.Target,
      extra?: { readonly asked?: boolean; readonly stored?: ReadonlyArray<string> }
    ): Effect.Effect<Policy.Verdict> =>
      Effect.as(
        recorder.record("allow", decidedBy, reason, {
          input: before.input,
          target,
          rewritten: before.rewritten,
          ...extra
        }),
        verdict(before.notes, before.input, before.rewritten)
      )

    const settle = (
      recorder: DecisionRecord.Recorder,
      before: PermissionHooks.BeforeOutcome,
      step: ReturnType<typeof evaluate>
    ) => step instanceof Allowed ? allowedEffect(recorder, before, step.decidedBy, step.reason, step.target) : step

    // The whole evaluation as effects: with hooks to run or links to follow.
    const stepwise = (request: Policy.Request, mode: Mode.Mode, recorder: DecisionRecord.Recorder) =>
      Effect.gen(function*() {
        // 1. Before-call hooks: what follows judges the call as they left it.
        const before = yield* PermissionHooks.runBefore(hooks, request).pipe(
          Effect.tapError((error) =>
            recorder.record("deny", { _tag: "Hook", hook: error.hook }, error.message, {
              input: request.input,
              target: undefined,
              rewritten: false
            })
          )
        )
        if (Either.isLeft(before.decoded)) {
          // The runtime validates a rewritten input before it runs, and this one
          // does not decode: it will be rejected, so there is nothing to decide.
          return yield* Effect.as(
            recorder.record(
              "allow",
              { _tag: "Hook", hook: "before-call hooks" },
              "the rewritten input is invalid",
              { input: before.input, target: undefined, rewritten: true }
            ),
            verdict(before.notes, before.input, true)
          )
        }
        const target = yield* withLinks(RuleMatch.analyse(before.subject, location, commandLine))
        return yield* settle(recorder, before, evaluate(request, mode, recorder, before, target))
      })

    const spanned = (request: Policy.Request) =>
      Effect.flatMap(DecisionRecord.start(request), (trace) => {
        const mode = currentMode
        const recorder = DecisionRecord.make(request, mode, redact, config, trace)
        // No hook applies: the call is judged as it came, and where no link is to be followed
        // the evaluation runs at once, without a step; an allow nobody listens for is recorded
        // on the span and returned.
        const before = PermissionHooks.unhooked(hooks, request)
        if (before === undefined) return DecisionRecord.within(trace, redact, stepwise(request, mode, recorder))
        try {
          const analysed = RuleMatch.analyse(before.subject, location, commandLine)
          if (!TargetLinks.unchanged(fileSystem, analysed)) {
            return DecisionRecord.within(
              trace,
              redact,
              Effect.flatMap(
                withLinks(analysed),
                (target) => settle(recorder, before, evaluate(request, mode, recorder, before, target))
              )
            )
          }
          const step = evaluate(request, mode, recorder, before, analysed)
          if (step instanceof Allowed && recorder.quiet) {
            recorder.recordNow("allow", step.decidedBy, step.reason, {
              input: before.input,
              target: step.target,
              rewritten: before.rewritten
            })
            const exit = Exit.succeed(verdict(before.notes, before.input, before.rewritten))
            DecisionRecord.end(trace, redact, exit)
            return exit
          }
          return DecisionRecord.within(trace, redact, settle(recorder, before, step))
        } catch (defect) {
          // What the span would end with had the evaluation run as a step: the defect, redacted.
          DecisionRecord.end(trace, redact, Exit.die(defect))
          throw defect
        }
      })

    const authorize = (request: Policy.Request) =>
      Effect.withFiberRuntime<Policy.Verdict, ToolError.PermissionDenied | ToolError.HookFailed>((fiber) => {
        // With no hook, no listener and no link to follow, nothing runs inside an allow's span: when
        // no tracer exports it either, nobody could ever see it, and it is left out (it was about a
        // fifth of what a typical decision adds to the parse). A hook or a link opens it first.
        const before = config.onDecision === undefined && !DecisionRecord.exported(fiber)
          ? PermissionHooks.unhooked(hooks, request)
          : undefined
        if (before === undefined || !TargetLinks.unchanged(fileSystem, before.subject)) return spanned(request)
        const mode = currentMode
        const recorder = DecisionRecord.make(request, mode, redact, config, undefined)
        const step = evaluate(request, mode, recorder, before, RuleMatch.analyse(before.subject, location, commandLine))
        if (step instanceof Allowed) return Exit.succeed(verdict(before.notes, before.input, before.rewritten))
        // A denial, or a person to ask (the approver may read `Effect.currentSpan`): the span is
        // opened now, the evaluation done, and what is left runs in it.
        return Effect.flatMap(DecisionRecord.start(request), (trace) => {
          recorder.open(trace)
          return DecisionRecord.within(trace, redact, step)
        })
      })

    return {
      authorize,
      checkPath: denyCheck.checkPath,
      mode: Effect.sync(() => currentMode),
      setMode: (mode) =>
        Effect.sync(() => {
          currentMode = mode
        }),
      sessionRules: Effect.sync(() => sessionRules.map((rule) => rule.text))
    } satisfies Service
  })

/**
 * The engine as both its own tag and core's `Policy`; it follows symbolic
 * links with the `FileSystem` it is given (see {@link make}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  config: EngineConfig.Config
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
  config: EngineConfig.Config
): Layer.Layer<
  Engine | Policy.Policy,
  Rule.InvalidRule | CommandLine.ParserUnavailable,
  Redactor.Redactor | Approver.Approver
> => Layer.effectContext(Effect.map(makeIgnoringSymlinks(config), contextOf))

const contextOf = (engine: Service) => Context.make(Engine, engine).pipe(Context.add(Policy.Policy, engine))

/** An allow the evaluation reached: recorded by the engine, at once or as a step. */
class Allowed {
  constructor(
    readonly decidedBy: PermissionAudit.DecidedBy,
    readonly reason: string,
    readonly target: RuleMatch.Target
  ) {}
}

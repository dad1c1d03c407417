/**
 * How permissions meet the OS sandbox. A shell tool that runs its commands
 * inside a sandbox (the node package's bubblewrap one) says so on the call's
 * subject: `confined` when the sandbox bounds what the command can touch,
 * `unconfined` when the call asks to run outside the sandbox in force, with
 * full access. Two rules follow, and the engine applies them:
 *
 * - **Sandboxed commands may run without asking.** With
 *   `autoAllowSandboxedCommands` on, a confined command that no deny rule,
 *   ask rule, hook, mode or allow rule decided is allowed instead of asked
 *   about, in `default` and `acceptEdits`. Not in `plan`: plan mode is
 *   read-only, and the engine cannot tell whether the sandbox's policy is.
 *   Not in `dontAsk`: unattended runs do only what rules allow, so write
 *   allow rules for the commands they need. (`bypassPermissions` already
 *   runs them.)
 * - **Leaving the sandbox always asks.** An unconfined command is asked
 *   about even when an allow rule or a hook allows it, and in every mode:
 *   `bypassPermissions` asks too, and where no one can be asked (`dontAsk`,
 *   no approver) it is denied with a reason saying it asked to run outside
 *   the sandbox. Deny rules still deny, and `plan` still denies what is not
 *   read-only. No "always allow" is offered: an allow rule could not answer
 *   the question next time either.
 *
 * A command whose tool does not say (no sandbox in use, or unknown) is
 * decided as before.
 *
 * The sandbox, in turn, enforces the path deny rules: {@link mirror} gives
 * it the `Read` deny rules as paths to mask and the `Edit`/`Write` deny
 * rules as paths to keep read-only, in a shape it accepts without
 * importing this package. What a command reads by a glob, a walk or a
 * symbolic link is then masked whatever the engine allowed.
 *
 * @since 0.3.0
 */
import type * as Policy from "@tool-runtime/core/Policy"
import * as Either from "effect/Either"
import * as Mode from "./Mode.js"
import * as PathRule from "./PathRule.js"
import type * as Rule from "./Rule.js"
import * as RuleMatch from "./RuleMatch.js"
import type * as Settings from "./Settings.js"

/**
 * Where a command will run, as its tool says: the `sandbox` of core's
 * `Command` subject.
 *
 * @since 0.3.0
 * @category models
 */
export type Placement = Extract<Policy.Subject, { readonly _tag: "Command" }>["sandbox"]

/**
 * The modes in which `autoAllowSandboxedCommands` allows a confined command.
 *
 * @since 0.3.0
 * @category rules
 */
export const autoAllowModes: ReadonlySet<Mode.Mode> = new Set<Mode.Mode>(["default", "acceptEdits"])

/**
 * Whether a confined command that nothing else decided runs without asking.
 *
 * @since 0.3.0
 * @category rules
 */
export const autoAllows = (mode: Mode.Mode, enabled: boolean, placement: Placement): boolean =>
  enabled && placement === "confined" && autoAllowModes.has(mode)

/**
 * Why a sandboxed command ran without asking.
 *
 * @since 0.3.0
 * @category messages
 */
export const autoAllowReason = "the command runs inside the sandbox, and sandboxed commands are allowed without asking"

/**
 * Why a command that leaves the sandbox is asked about.
 *
 * @since 0.3.0
 * @category messages
 */
export const unconfinedReason =
  "the command asks to run outside the sandbox, with full access, and that always needs a person's approval"

/**
 * What the model is told when a command that leaves the sandbox cannot be
 * asked about because the mode never asks.
 *
 * @since 0.3.0
 * @category messages
 */
export const unconfinedDontAskReason =
  "the command asks to run outside the sandbox, which always needs a person's approval, and the permission mode is dontAsk, where no one is asked. Run it inside the sandbox, or tell the user what you need"

/**
 * What "ask" comes to for a command in this mode: {@link Mode.onAsk},
 * except that a command leaving the sandbox is never allowed without a
 * question (`bypassPermissions` asks) and, in `dontAsk`, is denied with a
 * reason saying why.
 *
 * @since 0.3.0
 * @category rules
 */
export const onAsk = (
  mode: Mode.Mode,
  facts: Mode.Facts,
  placement: Placement,
  why?: { readonly cause: string; readonly hint: string } | undefined
): ReturnType<typeof Mode.onAsk> => {
  if (placement !== "unconfined") return Mode.onAsk(mode, facts, why)
  switch (mode) {
    case "dontAsk":
      return { _tag: "Deny", reason: unconfinedDontAskReason }
    case "bypassPermissions":
      return { _tag: "Ask" }
    case "default":
    case "acceptEdits":
    case "plan":
      return Mode.onAsk(mode, facts)
  }
}

// ---------------------------------------------------------------------------
// the deny rules, mirrored for the OS sandbox
// ---------------------------------------------------------------------------

/**
 * One path deny rule as the OS sandbox applies it. The node package's
 * sandbox accepts this shape structurally.
 *
 * @since 0.4.0
 * @category mirror
 */
export interface PathMatcher {
  /**
   * Absolute path under which every match lies (the literal prefix of the
   * rule: the workspace for `*.env`, `<ws>/secret` for `./secret/**`,
   * `~/.ssh` expanded, `/etc` for `//etc/**`). On a case-insensitive
   * workspace it is spelled as the rule spells it.
   */
  readonly base: string
  /** The base itself matches (a rule naming one file or a whole directory: no walk needed). */
  readonly exact: boolean
  /** Whether an absolute path under `base` matches (a directory matching covers what is under it). */
  readonly test: (absolutePath: string) => boolean
  /** The rule as written, for messages. */
  readonly rule: string
}

/**
 * The deny rules the sandbox enforces: `read`, the `Read` deny rules with
 * a path (to mask: nothing under them can be read, and so nothing written
 * either); `write`, the `Edit` and `Write` deny rules with a path (to keep
 * read-only). A `Read` deny is in `read` only.
 *
 * @since 0.4.0
 * @category mirror
 */
export interface Mirror {
  readonly read: ReadonlyArray<PathMatcher>
  readonly write: ReadonlyArray<PathMatcher>
}

const writeTools = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"])

/**
 * The path deny rules, mirrored for the OS sandbox, resolved as the engine
 * resolves them (a bare `secrets/**` matches at any depth below the
 * workspace, so its base is the workspace). Rules without a path, and
 * rules of other tools, are not mirrored. Fails on a rule the engine would
 * refuse to load.
 *
 * @since 0.4.0
 * @category mirror
 */
export const mirror = (
  rules: { readonly deny: ReadonlyArray<string | Rule.Rule> },
  location: Rule.Location
): Either.Either<Mirror, Rule.InvalidRule> =>
  Either.map(RuleMatch.compileAll(rules.deny, location, "deny"), (compiled) => {
    const matchers = (tools: (tool: string) => boolean): ReadonlyArray<PathMatcher> =>
      compiled.flatMap((rule) => {
        if (!tools(rule.rule.tool) || rule.path === undefined || Either.isLeft(rule.path)) return []
        const pattern: PathRule.PathPattern = rule.path.right
        return [{ base: pattern.base, exact: pattern.exact, test: pattern.test, rule: rule.text }]
      })
    return { read: matchers((tool) => tool === "Read"), write: matchers((tool) => writeTools.has(tool)) }
  })

/**
 * {@link mirror} of loaded settings, for a workspace. Paths compare without
 * case where the platform's file system does, unless `caseInsensitive`
 * says otherwise (as `Engine.Config.caseInsensitivePaths`).
 *
 * @since 0.4.0
 * @category mirror
 */
export const mirrorSettings = (
  settings: Pick<Settings.Settings, "deny"> | { readonly deny: ReadonlyArray<string | Rule.Rule> },
  workspace: {
    readonly workspaceRoot: string
    readonly homeDirectory?: string | undefined
    readonly caseInsensitive?: boolean | undefined
  }
): Either.Either<Mirror, Rule.InvalidRule> =>
  mirror(settings, {
    workspaceRoot: PathRule.normalize(workspace.workspaceRoot),
    homeDirectory: workspace.homeDirectory,
    caseInsensitive: workspace.caseInsensitive ??
      PathRule.defaultCaseInsensitive(globalThis.process?.platform ?? "")
  })

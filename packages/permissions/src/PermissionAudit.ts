/**
 * The audit trail of the permission stage: one record per decision, saying
 * what was decided, who or what decided it (a rule, the mode, a hook, the
 * person) and why. Every string in a record has been through the redactor:
 * the trail goes to logs and traces, where secrets must never land.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Mode from "./Mode.js"

/**
 * @since 0.1.0
 * @category models
 */
export type DecidedBy =
  | {
    readonly _tag: "Rule"
    /** `builtin`: the read-only commands that need no rule (`ReadOnlyCommands`). */
    readonly list: "allow" | "deny" | "session" | "builtin"
    readonly rules: ReadonlyArray<string>
  }
  | { readonly _tag: "Mode"; readonly mode: Mode.Mode }
  | { readonly _tag: "Hook"; readonly hook: string }
  | {
    readonly _tag: "Approver"
    readonly answer: "allow_once" | "allow_always" | "allow_with_input" | "deny"
  }
  | { readonly _tag: "NoApprover" }
  /**
   * A command confined to the OS sandbox, allowed without asking because the
   * engine auto-allows sandboxed commands (`autoAllowSandboxedCommands`).
   *
   * @since 0.3.0
   */
  | { readonly _tag: "Sandbox" }

/**
 * Which sandbox rule shaped a decision, when one did:
 *
 * - `sandbox-auto-allow`: a confined command no rule decided was allowed
 *   without asking;
 * - `unsandboxed-always-asks`: the command asked to run outside the sandbox,
 *   so a person was asked (or, where no one can be, it was denied) whatever
 *   an allow rule, a hook's allow or the mode would have said.
 *
 * @since 0.3.0
 * @category models
 */
export type SandboxRule = "sandbox-auto-allow" | "unsandboxed-always-asks"

/**
 * @since 0.1.0
 * @category models
 */
export interface Decision {
  readonly callId: string
  readonly toolName: string
  readonly outcome: "allow" | "deny"
  /** The call runs with an input a hook or the person changed. */
  readonly rewritten: boolean
  readonly decidedBy: DecidedBy
  readonly reason: string
  /** The steps before the last one, in order ("ask rule Bash(git push:*)", "hook audit"). */
  readonly trail: ReadonlyArray<string>
  readonly mode: Mode.Mode
  /** A person was asked. */
  readonly asked: boolean
  /** Rules stored by an "always allow" answer. */
  readonly stored: ReadonlyArray<string>
  readonly subject: string | undefined
  /**
   * Where the command was to run, as the tool said (`confined`, `unconfined`);
   * absent when it did not say or the call is not a command.
   *
   * @since 0.3.0
   */
  readonly sandbox?: "confined" | "unconfined" | undefined
  /**
   * The sandbox rule that shaped the decision; absent when none did (a deny
   * rule, for one, decides before any sandbox rule).
   *
   * @since 0.3.0
   */
  readonly sandboxRule?: SandboxRule | undefined
  readonly input: string
  /** Milliseconds since the epoch, from `Clock`. */
  readonly at: number
}

/**
 * A listener for decisions, e.g. a logger or a UI.
 *
 * @since 0.1.0
 * @category models
 */
export type Listener = (decision: Decision) => Effect.Effect<void>

/**
 * `deny rule Bash(rm:*)`, `mode plan`, `approver (allow once)`, `sandbox auto-allow`…
 *
 * @since 0.1.0
 * @category formatting
 */
export const describe = (decidedBy: DecidedBy): string => {
  switch (decidedBy._tag) {
    case "Rule":
      return decidedBy.list === "builtin"
        ? `read-only command ${decidedBy.rules.join(", ")}`
        : `${decidedBy.list === "session" ? "session allow" : decidedBy.list} rule ${decidedBy.rules.join(", ")}`
    case "Mode":
      return `mode ${decidedBy.mode}`
    case "Hook":
      return `hook ${decidedBy.hook}`
    case "Approver":
      return `approver (${decidedBy.answer.replace(/_/g, " ")})`
    case "NoApprover":
      return "no approver available"
    case "Sandbox":
      return "sandbox auto-allow"
  }
}

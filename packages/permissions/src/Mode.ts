/**
 * Permission modes: what happens to a call that no rule decides, and what
 * "ask" means. Users switch modes more often than they edit rules, so each
 * mode is one sentence they can predict:
 *
 * - `default`: read-only calls run; anything else asks.
 * - `acceptEdits`: like default, and file edits inside the workspace run.
 * - `plan`: read-only tools run; a shell command outside the read-only set is
 *   asked about; everything else is denied with a reason telling the model
 *   it is planning.
 * - `bypassPermissions`: everything runs except what a deny rule forbids.
 * - `dontAsk`: whatever would ask is denied instead (for unattended runs).
 *
 * Risk levels from the registry feed the defaults: a high-risk tool is
 * never run on a mode's default alone, even when it only reads.
 *
 * @since 0.1.0
 */
import type * as Tool from "@tool-runtime/core/Tool"
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category models
 */
export const Mode = Schema.Literal("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk").annotations({
  identifier: "PermissionMode"
})

/**
 * @since 0.1.0
 * @category models
 */
export type Mode = typeof Mode.Type

/**
 * @since 0.1.0
 * @category models
 */
export const all: ReadonlyArray<Mode> = Mode.literals

/**
 * What a mode needs to know about a call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Facts {
  readonly readOnly: boolean
  readonly risk: Tool.Risk
  /** The call writes a file: inside or outside the workspace. */
  readonly edit: "inside" | "outside" | undefined
  /** The call reads a path outside the workspace. */
  readonly readsOutside: boolean
  /** The call runs a shell command (plan mode asks about those instead of refusing them). */
  readonly command?: boolean | undefined
}

/**
 * A mode's step in the evaluation: decide, or let the allow rules and then
 * the approver decide (`reason` says why the call would need approval).
 *
 * @since 0.1.0
 * @category models
 */
export type Step =
  | { readonly _tag: "Allow"; readonly reason: string }
  | { readonly _tag: "Deny"; readonly reason: string }
  | { readonly _tag: "Continue"; readonly reason: string }

/**
 * What the model is told in plan mode: it is a state to leave, not an error.
 *
 * @since 0.1.0
 * @category messages
 */
export const planReason =
  "the session is in plan mode, where only read-only tools run. Finish exploring, present your plan and wait for the user to approve it before making changes"

const dontAskReason =
  "the permission mode is dontAsk: a call that no rule allows is denied instead of asking. Use tools the rules allow, or tell the user what you need"

/** The default's answer: low- and medium-risk reads inside the workspace run. */
const byDefault = (facts: Facts): Step =>
  !facts.readOnly
    ? { _tag: "Continue", reason: "it is not read-only" }
    : facts.risk === "high"
    ? { _tag: "Continue", reason: "its risk is high" }
    : facts.readsOutside
    ? { _tag: "Continue", reason: "it reads outside the workspace" }
    : { _tag: "Allow", reason: "read-only calls run" }

/**
 * The mode's step, for a call no deny or ask rule matched.
 *
 * @since 0.1.0
 * @category evaluation
 */
export const decide = (mode: Mode, facts: Facts): Step => {
  switch (mode) {
    case "bypassPermissions":
      return { _tag: "Allow", reason: "bypassPermissions runs every call no deny rule forbids" }
    case "plan":
      return facts.readOnly
        ? byDefault(facts)
        : facts.command === true
        ? { _tag: "Continue", reason: "plan mode asks before a command outside the read-only set" }
        : { _tag: "Deny", reason: planReason }
    case "acceptEdits":
      return facts.edit === "inside" && facts.risk !== "high"
        ? { _tag: "Allow", reason: "acceptEdits allows file edits inside the workspace" }
        : byDefault(facts)
    case "default":
    case "dontAsk":
      return byDefault(facts)
  }
}

/**
 * What "ask" comes to in this mode: a question, or an answer the mode
 * gives without one. `why` is what needed approval and what the model can
 * do instead: `dontAsk`'s denial says both.
 *
 * @since 0.1.0
 * @category evaluation
 */
export const onAsk = (
  mode: Mode,
  facts: Facts,
  why?: { readonly cause: string; readonly hint: string } | undefined
):
  | { readonly _tag: "Ask" }
  | { readonly _tag: "Allow"; readonly reason: string }
  | { readonly _tag: "Deny"; readonly reason: string } =>
{
  switch (mode) {
    case "dontAsk":
      return {
        _tag: "Deny",
        reason: why === undefined
          ? dontAskReason
          : `it needs a person's approval (${why.cause}) and the permission mode is dontAsk, where no one is asked. ${why.hint}`
      }
    case "bypassPermissions":
      return { _tag: "Allow", reason: "bypassPermissions runs every call no deny rule forbids, without asking" }
    case "plan":
      return facts.readOnly || facts.command === true ? { _tag: "Ask" } : { _tag: "Deny", reason: planReason }
    case "default":
    case "acceptEdits":
      return { _tag: "Ask" }
  }
}

/**
 * What "ask" comes to for a question that must reach a person (an ask
 * rule matched, the command could destroy the machine, a URL no domain
 * rule allows): no mode answers it with an allow. `bypassPermissions` asks
 * too; `dontAsk`, where no one is asked, denies and says what needed
 * approval; `plan` still denies what is not read-only.
 *
 * @since 0.3.0
 * @category evaluation
 */
export const onRequiredAsk = (mode: Mode, facts: Facts, why: string): ReturnType<typeof onAsk> => {
  switch (mode) {
    case "dontAsk":
      return {
        _tag: "Deny",
        reason:
          `it needs a person's approval (${why}) and the permission mode is dontAsk, where no one is asked. Use tools the rules allow, or tell the user what you need`
      }
    case "plan":
      return facts.readOnly || facts.command === true ? { _tag: "Ask" } : { _tag: "Deny", reason: planReason }
    case "bypassPermissions":
    case "default":
    case "acceptEdits":
      return { _tag: "Ask" }
  }
}

/**
 * One line per mode, for help texts.
 *
 * @since 0.1.0
 * @category messages
 */
export const describe = (mode: Mode): string => {
  switch (mode) {
    case "default":
      return "read-only calls run; anything else asks"
    case "acceptEdits":
      return "like default, and file edits inside the workspace run"
    case "plan":
      return "only read-only tools run; the model is told it is planning"
    case "bypassPermissions":
      return "everything runs except what a deny rule forbids"
    case "dontAsk":
      return "whatever would ask is denied"
  }
}

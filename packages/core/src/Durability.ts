/**
 * Where a runtime that outlives its process records the calls it runs: a
 * journal asked right before each handler starts (the call validated and
 * authorized, its locks and slot taken) and told each result once it is
 * shaped. With it, a call whose result is recorded is never run again (the
 * recorded result is its answer), and a call that started in a process that
 * died is whatever the journal rules: run again, retried with the same
 * idempotency key, or answered "outcome unknown" without running.
 *
 * Core only asks; the rules and the storage are the journal's
 * (`@tool-runtime/cluster`'s `CallJournal`). A runtime with no `Journal` in
 * its context records nothing. Calls that fail before their handler would
 * start (unknown tool, invalid arguments, a denial) are not recorded: sent
 * again, they are judged again.
 *
 * @since 0.5.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Tool from "./Tool.js"
import type * as ToolResult from "./ToolResult.js"

/**
 * A call about to run, as the journal keys it.
 *
 * @since 0.5.0
 * @category models
 */
export interface Call {
  readonly sessionId: string
  readonly turnId: string
  readonly callId: string
  /** The call's place in its turn. */
  readonly index: number
  readonly tool: Tool.Any
  /** The decoded input the handler will be given. */
  readonly input: unknown
  /** What the handler will read as `context.idempotencyKey`. */
  readonly idempotencyKey: string
}

/**
 * What the journal allows: run the handler (attempt `attempt`, after
 * `delayMillis`), or answer with a result it holds, and run nothing.
 *
 * @since 0.5.0
 * @category models
 */
export type Begun =
  | { readonly _tag: "Run"; readonly attempt: number; readonly delayMillis: number }
  | { readonly _tag: "Recorded"; readonly result: ToolResult.ToolResult }

/**
 * The journal could not be read or written. The call is then not run: a
 * start that cannot be recorded is a start nobody could account for.
 *
 * @since 0.5.0
 * @category errors
 */
export class JournalUnavailable extends Data.TaggedError("JournalUnavailable")<{ readonly reason: string }> {}

/**
 * @since 0.5.0
 * @category models
 */
export interface Service {
  readonly begin: (call: Call) => Effect.Effect<Begun, JournalUnavailable>
  /**
   * The result of a call begun with `Run`, as the model is given it. A
   * failure to record it is the journal's to report: the model still gets
   * the result.
   */
  readonly finish: (call: Call, attempt: number, result: ToolResult.ToolResult) => Effect.Effect<void>
}

/**
 * @since 0.5.0
 * @category tags
 */
export class Journal extends Context.Tag("@tool-runtime/core/Durability/Journal")<Journal, Service>() {}

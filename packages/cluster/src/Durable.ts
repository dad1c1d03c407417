/**
 * The resume rule of a durable call, as a pure function.
 *
 * A call is delivered to a runner, and delivered again when the runner that
 * had it died. Before its handler runs, the runner asks `decide` what the
 * journal's row of the call (none, or the one an earlier delivery left)
 * allows:
 *
 * - no row: the call never started; run attempt 1.
 * - a recorded result (`finished`, `outcome_unknown`, `gave_up`): replay it,
 *   byte for byte; nothing runs again.
 * - `started`, a read-only call: nothing it did can have changed anything;
 *   run it again, up to `maxReadAttempts` attempts, then give up (a tool
 *   that crashes its runner must not crash every runner in turn).
 * - `started`, an idempotent call: run attempt + 1 with the same idempotency
 *   key after a backoff, up to `maxAttempts` attempts; past that its outcome
 *   is unknown.
 * - `started`, any other call: its side effect may or may not have happened;
 *   record `outcome_unknown` and never run it again.
 *
 * Kept free of storage and time so the property test can check it against a
 * model of a call's history; `CallJournal` applies it inside a transaction.
 *
 * @since 0.5.0
 */
import * as IdempotencyKey from "@tool-runtime/core/IdempotencyKey"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"

/**
 * What running a call again can do: nothing (`read`), the same as running it
 * once (`idempotent`), or something that must not happen twice (`effect`).
 *
 * @since 0.5.0
 * @category models
 */
export type Kind = "read" | "idempotent" | "effect"

/**
 * The kind of a core tool: read-only tools read, tools declared
 * `idempotent: true` are idempotent, every other tool has effects.
 *
 * @since 0.5.0
 * @category constructors
 */
export const kindOf = (tool: { readonly readOnly: boolean; readonly idempotent?: boolean | undefined }): Kind =>
  tool.readOnly ? "read" : tool.idempotent === true ? "idempotent" : "effect"

const strictness: Record<Kind, number> = { read: 0, idempotent: 1, effect: 2 }

/**
 * The stricter of two kinds. A started row keeps the kind its call started
 * with; if the tool was redeclared since, the rule of the stricter one
 * applies, so a change of declaration can never re-run a started effect.
 *
 * @since 0.5.0
 * @category combinators
 */
export const stricter = (a: Kind, b: Kind): Kind => strictness[a] >= strictness[b] ? a : b

/**
 * Where a call is in the journal. Every state but `started` holds the
 * call's one result.
 *
 * @since 0.5.0
 * @category models
 */
export type State = "started" | "finished" | "outcome_unknown" | "gave_up"

/**
 * A call's identity: the turn's session and id, and the call's id within
 * the turn.
 *
 * @since 0.5.0
 * @category models
 */
export interface Key {
  readonly sessionId: string
  readonly turnId: string
  readonly callId: string
}

/**
 * The key every attempt of a call hands its handler: core's
 * `IdempotencyKey`, so the journal's `idem_key` is the very key the tool
 * sees as `context.idempotencyKey`. It depends on the call's identity only,
 * never on the attempt.
 *
 * @since 0.5.0
 * @category constructors
 */
export const idempotencyKey = (key: Key): string =>
  IdempotencyKey.make({ sessionId: key.sessionId, turnId: key.turnId }, key.callId)

/**
 * What `decide` reads of a journal row.
 *
 * @since 0.5.0
 * @category models
 */
export type Row =
  | { readonly state: "started"; readonly kind: Kind; readonly attempt: number }
  | {
    readonly state: Exclude<State, "started">
    readonly kind: Kind
    readonly attempt: number
    /** The recorded `ToolResult`, as the JSON text stored. */
    readonly result: string
  }

/**
 * How a retried idempotent call waits: `base * factor^(attempt - 1)`, at
 * most `cap`.
 *
 * @since 0.5.0
 * @category models
 */
export interface Backoff {
  readonly baseMillis: number
  readonly factor: number
  readonly capMillis: number
}

/**
 * @since 0.5.0
 * @category models
 */
export interface Limits {
  /** Attempts a read-only call gets in all, the first included. At least 1. */
  readonly maxReadAttempts: number
  /** Attempts an idempotent call gets in all, the first included. At least 1. */
  readonly maxAttempts: number
  readonly backoff: Backoff
}

/**
 * Three attempts for reads and for idempotent calls; 0.2 s, 0.4 s… at most
 * 10 s between idempotent attempts.
 *
 * @since 0.5.0
 * @category constructors
 */
export const defaultLimits: Limits = {
  maxReadAttempts: 3,
  maxAttempts: 3,
  backoff: { baseMillis: 200, factor: 2, capMillis: 10_000 }
}

/**
 * Which rule a decision applied. The journal records it with each decision,
 * so a call's history says why it ran again, or did not.
 *
 * @since 0.5.0
 * @category models
 */
export type Rule =
  | "first_run"
  | "replay"
  | "rerun_read"
  | "retry_idempotent"
  | "effect_started"
  | "attempts_exhausted"
  | "reads_exhausted"

/**
 * - `Run`: start `attempt` after `delay` (record `started` first).
 * - `Replay`: answer with the recorded result.
 * - `OutcomeUnknown`: record and answer an `outcome_unknown` result.
 * - `GiveUp`: record and answer a `gave_up` result (a read that kept losing
 *   its runner; it changed nothing).
 *
 * @since 0.5.0
 * @category models
 */
export type Decision = Data.TaggedEnum<{
  Run: {
    readonly attempt: number
    readonly delay: Duration.Duration
    readonly rule: "first_run" | "rerun_read" | "retry_idempotent"
  }
  Replay: { readonly state: Exclude<State, "started">; readonly result: string; readonly rule: "replay" }
  OutcomeUnknown: { readonly attempt: number; readonly rule: "effect_started" | "attempts_exhausted" }
  GiveUp: { readonly attempt: number; readonly rule: "reads_exhausted" }
}>

/**
 * @since 0.5.0
 * @category constructors
 */
export const Decision = Data.taggedEnum<Decision>()

/**
 * The backoff before attempt `attempt + 1`, from the attempt that was lost:
 * pure, so a replayed history waits the same. Jitter, if wanted, is
 * {@link jittered}.
 *
 * @since 0.5.0
 * @category constructors
 */
export const backoff = (attempt: number, policy: Backoff): Duration.Duration => {
  const millis = policy.baseMillis * Math.pow(policy.factor, Math.max(0, attempt - 1))
  return Duration.millis(Math.min(policy.capMillis, millis))
}

/**
 * A delay drawn uniformly from its upper half, through `Random`: runners
 * that lost calls together do not retry in lockstep, and a test that fixes
 * the seed sees the same delays.
 *
 * @since 0.5.0
 * @category combinators
 */
export const jittered = (delay: Duration.Duration): Effect.Effect<Duration.Duration> =>
  Effect.map(Random.next, (u) => Duration.millis(Duration.toMillis(delay) * (0.5 + u / 2)))

/**
 * The resume rule. `kind` is what the call is declared as now; for a
 * started row the stricter of it and the row's kind applies.
 *
 * @since 0.5.0
 * @category decisions
 */
export const decide = (row: Row | undefined, kind: Kind, limits: Limits): Decision => {
  if (row === undefined) return Decision.Run({ attempt: 1, delay: Duration.zero, rule: "first_run" })
  if (row.state !== "started") return Decision.Replay({ state: row.state, result: row.result, rule: "replay" })
  switch (stricter(row.kind, kind)) {
    case "read":
      return row.attempt < limits.maxReadAttempts
        ? Decision.Run({ attempt: row.attempt + 1, delay: Duration.zero, rule: "rerun_read" })
        : Decision.GiveUp({ attempt: row.attempt, rule: "reads_exhausted" })
    case "idempotent":
      return row.attempt < limits.maxAttempts
        ? Decision.Run({
          attempt: row.attempt + 1,
          delay: backoff(row.attempt, limits.backoff),
          rule: "retry_idempotent"
        })
        : Decision.OutcomeUnknown({ attempt: row.attempt, rule: "attempts_exhausted" })
    case "effect":
      return Decision.OutcomeUnknown({ attempt: row.attempt, rule: "effect_started" })
  }
}

/**
 * The event a decision appends to the call's history.
 *
 * @since 0.5.0
 * @category models
 */
export type DecisionEvent = "started" | "replayed" | "rerun_read" | "retry_idempotent" | "outcome_unknown" | "gave_up"

/**
 * @since 0.5.0
 * @category getters
 */
export const eventOf = (decision: Decision): DecisionEvent => {
  switch (decision._tag) {
    case "Run":
      return decision.rule === "first_run" ? "started" : decision.rule
    case "Replay":
      return "replayed"
    case "OutcomeUnknown":
      return "outcome_unknown"
    case "GiveUp":
      return "gave_up"
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/**
 * The result recorded for a call whose side effects may or may not have
 * happened: an error the model reads as such, with how to find out.
 *
 * @since 0.5.0
 * @category constructors
 */
export const outcomeUnknownResult = (
  call: { readonly key: Key; readonly toolName: string },
  attempt: number,
  why: "effect_started" | "attempts_exhausted" | "interrupted"
): ToolResult.ToolResult => {
  const key = idempotencyKey(call.key)
  const text = why === "attempts_exhausted"
    ? `${call.toolName} was started ${plural(attempt, "time")}, and each time the runner executing it stopped ` +
      `before it recorded a result. Every attempt carried the idempotency key ${key}, so a system that honours ` +
      `the key applied it at most once, but whether it was applied is unknown. It was not run again.`
    : why === "interrupted"
    ? `${call.toolName} was stopped while it ran, before it recorded a result: whether its changes were made is ` +
      `unknown. It was not run again.`
    : `${call.toolName} had started when the runner executing it stopped, before it recorded a result: whether ` +
      `its changes were made is unknown. It was not run again, so that nothing happens twice.`
  return {
    callId: call.key.callId,
    toolName: call.toolName,
    content: [{ _tag: "text", text }],
    isError: true,
    error: {
      code: "outcome_unknown",
      retryable: false,
      hint: `Check whether the change was made (read back what ${call.toolName} would have changed) before ` +
        `calling it again; a new call gets a new idempotency key.`,
      outcomeUnknown: true
    },
    meta: { durationMillis: 0, redactions: 0 }
  }
}

/**
 * The result recorded for a read-only call that lost its runner on every
 * attempt: nothing changed, and it is not tried again so that it cannot
 * stop yet another runner.
 *
 * @since 0.5.0
 * @category constructors
 */
export const gaveUpResult = (
  call: { readonly key: Key; readonly toolName: string },
  attempt: number
): ToolResult.ToolResult => ({
  callId: call.key.callId,
  toolName: call.toolName,
  content: [{
    _tag: "text",
    text: `${call.toolName} was started ${plural(attempt, "time")}, and each time the runner executing it stopped ` +
      `before it finished. It only reads, so nothing was changed; it was not tried again.`
  }],
  isError: true,
  error: {
    code: "gave_up",
    retryable: false,
    hint: `Calling ${call.toolName} the same way may stop its runner again: narrow the call (a smaller input, ` +
      `a shorter range) or use another tool.`,
    outcomeUnknown: false
  },
  meta: { durationMillis: 0, redactions: 0 }
})

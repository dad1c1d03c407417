/**
 * Hooks: the application's own code around a call. Before a call a hook may
 * allow it, deny it, ask the person, or rewrite its input (the model is told
 * of every rewrite); after a call it may replace or annotate the output,
 * which is then shaped (redacted, truncated) like any other.
 *
 * Hooks are Effects with their own time limit. One that fails, dies or
 * hangs becomes a `hook_failed` result for that call, never a crash: before
 * the call it does not run; after it, its effects stand and the model is
 * told to check them.
 *
 * Before-call hooks run first in the permission engine, yet a deny rule
 * still wins over any of them: a hook cannot allow what the user forbade.
 *
 * @since 0.1.0
 */
import * as Hooks from "@tool-runtime/core/Hooks"
import type * as Pipeline from "@tool-runtime/core/Pipeline"
import * as Policy from "@tool-runtime/core/Policy"
import type * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"

/**
 * How long a hook may run unless it says otherwise.
 *
 * @since 0.1.0
 * @category defaults
 */
export const defaultTimeout: Duration.Duration = Duration.seconds(30)

// ---------------------------------------------------------------------------
// before the call
// ---------------------------------------------------------------------------

/**
 * What a before-call hook sees: the decoded input and what the call acts on.
 *
 * @since 0.1.0
 * @category models
 */
export interface BeforeCall {
  readonly callId: string
  readonly tool: Tool.Any
  readonly input: unknown
  readonly subject: Policy.Subject
}

/**
 * @since 0.1.0
 * @category models
 */
export type BeforeDecision =
  | { readonly _tag: "Continue" }
  | { readonly _tag: "Allow"; readonly reason: string }
  | { readonly _tag: "Ask"; readonly reason: string }
  | { readonly _tag: "Deny"; readonly reason: string; readonly stopTurn?: boolean | undefined }
  /** `input` is in the form the model sends (it is decoded and validated again). */
  | { readonly _tag: "Rewrite"; readonly input: unknown; readonly note: string }

/**
 * @since 0.1.0
 * @category constructors
 */
export const proceed: BeforeDecision = { _tag: "Continue" }

/**
 * @since 0.1.0
 * @category constructors
 */
export const allow = (reason: string): BeforeDecision => ({ _tag: "Allow", reason })

/**
 * @since 0.1.0
 * @category constructors
 */
export const ask = (reason: string): BeforeDecision => ({ _tag: "Ask", reason })

/**
 * @since 0.1.0
 * @category constructors
 */
export const deny = (reason: string, options?: { readonly stopTurn?: boolean | undefined }): BeforeDecision => ({
  _tag: "Deny",
  reason,
  stopTurn: options?.stopTurn
})

/**
 * @since 0.1.0
 * @category constructors
 */
export const rewrite = (input: unknown, note: string): BeforeDecision => ({ _tag: "Rewrite", input, note })

/**
 * Tool names a hook applies to: one name, a `*` pattern (`mcp__*`), or a
 * list of them. Absent: every tool.
 *
 * @since 0.1.0
 * @category models
 */
export type Matcher = string | ReadonlyArray<string>

/**
 * @since 0.1.0
 * @category models
 */
export interface Before {
  readonly name: string
  readonly tools?: Matcher | undefined
  readonly timeout?: Duration.DurationInput | undefined
  readonly run: (call: BeforeCall) => Effect.Effect<BeforeDecision, unknown>
}

/**
 * What the before-call hooks came to, together.
 *
 * @since 0.1.0
 * @category models
 */
export interface BeforeOutcome {
  /** The most restrictive decision: deny over ask over allow over none. */
  readonly decision:
    | { readonly _tag: "None" }
    | { readonly _tag: "Allow"; readonly hook: string; readonly reason: string }
    | { readonly _tag: "Ask"; readonly hook: string; readonly reason: string }
    | { readonly _tag: "Deny"; readonly hook: string; readonly reason: string; readonly stopTurn: boolean }
  /** The input to run with: the model's, or the last rewrite (in the form the model sends). */
  readonly input: unknown
  /** Whether a hook rewrote the input. */
  readonly rewritten: boolean
  /** The rewritten input decoded, when it decodes; rules are checked against its subject. */
  readonly decoded: Either.Either<unknown, void>
  readonly subject: Policy.Subject
  /** One line per rewrite, for the model. */
  readonly notes: ReadonlyArray<string>
}

const matches = (matcher: Matcher | undefined) => {
  if (matcher === undefined) return () => true
  const patterns = (typeof matcher === "string" ? [matcher] : matcher).map(Policy.matchName)
  return (name: string) => patterns.some((match) => match(name))
}

/** Why a hook failed, in one line; shaping redacts it before the model sees it. */
const describeCause = (cause: Cause.Cause<unknown>): string => {
  if (Cause.isInterruptedOnly(cause)) return "it was interrupted"
  const error = Cause.squash(cause)
  if (Predicate.hasProperty(error, "message") && typeof error.message === "string" && error.message !== "") {
    return `it failed: ${error.message.split("\n")[0]}`
  }
  return `it failed: ${String(error)}`
}

/**
 * Runs a hook under its time limit; every way it can go wrong becomes a
 * `HookFailed`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const guard = <A>(
  hook: string,
  toolName: string,
  timeout: Duration.DurationInput | undefined,
  outcomeUnknown: boolean,
  effect: Effect.Effect<A, unknown>
): Effect.Effect<A, ToolError.HookFailed> =>
  Effect.suspend(() => effect).pipe(
    Effect.catchAllCause((cause) => {
      const failure = Cause.failureOption(cause)
      return Effect.fail(
        Option.isSome(failure) && failure.value instanceof ToolError.HookFailed
          ? failure.value
          : new ToolError.HookFailed({ toolName, hook, reason: describeCause(cause), outcomeUnknown })
      )
    }),
    Hooks.withTimeout(hook, toolName, timeout ?? defaultTimeout, outcomeUnknown)
  )

/** The call as it came, nothing decided: what the hooks start from. */
const unchanged = (request: Policy.Request): BeforeOutcome => ({
  decision: { _tag: "None" },
  input: request.input,
  rewritten: false,
  decoded: Either.right(request.input),
  subject: request.subject,
  notes: []
})

/**
 * What {@link runBefore} returns when no hook applies to the call (the call
 * as it came, nothing decided), made at once; `undefined` when a hook
 * applies, and `runBefore` must run them.
 *
 * @since 0.4.0
 * @category running
 */
export const unhooked = (hooks: ReadonlyArray<Before>, request: Policy.Request): BeforeOutcome | undefined =>
  hooks.some((hook) => matches(hook.tools)(request.tool.name)) ? undefined : unchanged(request)

/**
 * Runs the hooks that apply to the call, in order. A rewrite is seen by the
 * hooks after it; a denial ends the run; a rewrite that no longer decodes
 * ends it too (the runtime then reports the invalid input to the model).
 *
 * @since 0.1.0
 * @category running
 */
export const runBefore = (
  hooks: ReadonlyArray<Before>,
  request: Policy.Request
): Effect.Effect<BeforeOutcome, ToolError.HookFailed> => {
  const tool = request.tool
  const applicable = hooks.filter((hook) => matches(hook.tools)(tool.name))
  const initial = unchanged(request)
  if (applicable.length === 0) return Effect.succeed(initial)
  return Effect.gen(function*() {
    let outcome = initial
    for (const hook of applicable) {
      if (outcome.decision._tag === "Deny" || Either.isLeft(outcome.decoded)) break
      const decision = yield* guard(
        hook.name,
        tool.name,
        hook.timeout,
        false,
        hook.run({ callId: request.callId, tool, input: outcome.decoded.right, subject: outcome.subject })
      )
      switch (decision._tag) {
        case "Continue":
          break
        case "Rewrite": {
          const decoded = tool.decode(decision.input)
          outcome = {
            ...outcome,
            input: decision.input,
            rewritten: true,
            decoded: Either.isRight(decoded) ? Either.right(decoded.right) : Either.left(undefined),
            subject: Either.isRight(decoded) ? tool.subject(decoded.right) : outcome.subject,
            notes: [...outcome.notes, `the ${hook.name} hook changed it: ${decision.note}`]
          }
          break
        }
        case "Deny":
          outcome = {
            ...outcome,
            decision: { _tag: "Deny", hook: hook.name, reason: decision.reason, stopTurn: decision.stopTurn === true }
          }
          break
        case "Ask":
          if (outcome.decision._tag !== "Ask") {
            outcome = { ...outcome, decision: { _tag: "Ask", hook: hook.name, reason: decision.reason } }
          }
          break
        case "Allow":
          if (outcome.decision._tag === "None") {
            outcome = { ...outcome, decision: { _tag: "Allow", hook: hook.name, reason: decision.reason } }
          }
          break
      }
    }
    return outcome
  })
}

// ---------------------------------------------------------------------------
// after the call
// ---------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category models
 */
export type AfterDecision =
  | { readonly _tag: "Keep" }
  /** The model sees this value instead (shaped like any output). */
  | { readonly _tag: "Replace"; readonly value: unknown }
  /** A line shown before a successful output. A failed call keeps its error as it is. */
  | { readonly _tag: "Annotate"; readonly note: string }

/**
 * @since 0.1.0
 * @category constructors
 */
export const keep: AfterDecision = { _tag: "Keep" }

/**
 * @since 0.1.0
 * @category constructors
 */
export const replace = (value: unknown): AfterDecision => ({ _tag: "Replace", value })

/**
 * @since 0.1.0
 * @category constructors
 */
export const annotate = (note: string): AfterDecision => ({ _tag: "Annotate", note })

/**
 * @since 0.1.0
 * @category models
 */
export interface After {
  readonly name: string
  readonly tools?: Matcher | undefined
  readonly timeout?: Duration.DurationInput | undefined
  readonly run: (call: Hooks.AfterCall) => Effect.Effect<AfterDecision, unknown>
}

const apply = (outcome: Pipeline.Outcome, decision: AfterDecision): Pipeline.Outcome => {
  switch (decision._tag) {
    case "Keep":
      return outcome
    case "Replace":
      return { _tag: "Success", value: decision.value, note: outcome._tag === "Success" ? outcome.note : undefined }
    case "Annotate":
      return outcome._tag === "Success"
        ? { ...outcome, note: outcome.note === undefined ? decision.note : `${outcome.note}\n${decision.note}` }
        : outcome
  }
}

/**
 * The after-call hooks as core's `Hooks` service: each applicable hook, in
 * order, sees the outcome the previous one left.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeAfter = (hooks: ReadonlyArray<After>): Hooks.Service => ({
  after: (call) => {
    const applicable = hooks.filter((hook) => matches(hook.tools)(call.tool.name))
    if (applicable.length === 0) return Effect.succeed(call.outcome)
    return Effect.reduce(applicable, call.outcome, (outcome, hook) =>
      Effect.map(
        // The tool has run: whatever the hook does, its effects stand.
        guard(hook.name, call.tool.name, hook.timeout, true, hook.run({ ...call, outcome })),
        (decision) => apply(outcome, decision)
      ))
  }
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layerAfter = (hooks: ReadonlyArray<After>): Layer.Layer<Hooks.Hooks> =>
  Layer.succeed(Hooks.Hooks, makeAfter(hooks))

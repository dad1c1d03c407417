/**
 * DecisionRecord: how a decision is reported: to the audit listener, on
 * the call's span, and to the model as a redacted `PermissionDenied`.
 * Apart from the evaluation order so each step there only names who
 * decided and why, and every report is redacted in one place.
 *
 * @since 0.4.0
 */
import * as CallTrace from "@tool-runtime/core/CallTrace"
import * as Policy from "@tool-runtime/core/Policy"
import * as StableJson from "@tool-runtime/core/StableJson"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import type * as Tracer from "effect/Tracer"
import type * as EngineConfig from "./EngineConfig.js"
import type * as Mode from "./Mode.js"
import * as PermissionAudit from "./PermissionAudit.js"
import * as RuleMatch from "./RuleMatch.js"

const maxInputChars = 2_000

/**
 * The call's span, the `TraceValues` setting and the clock, read once when
 * the decision starts.
 *
 * @since 0.4.0
 * @category tracing
 */
export interface Trace {
  readonly span: Tracer.Span
  /** Whether the call's arguments, and the reason and subject that quote them, may go on the span. */
  readonly values: boolean
  readonly clock: Clock.Clock
}

/**
 * Opens the call's span. It is made by hand rather than with
 * `Effect.withSpan`, which would end the span with the raw exit: see
 * {@link end} and {@link within}.
 *
 * @since 0.4.0
 * @category tracing
 */
export const start = (request: Policy.Request): Effect.Effect<Trace> =>
  Effect.flatMap(
    Effect.makeSpan("permissions.authorize", {
      attributes: { "tool.name": request.tool.name },
      kind: "internal",
      captureStackTrace: false
    }),
    (span) =>
      Effect.flatMap(CallTrace.TraceValues, (values) => Effect.map(Effect.clock, (clock) => ({ span, values, clock })))
  )

/**
 * Whether anyone could see a span the fiber makes: tracing is on and the
 * tracer exports. Effect's built-in tracer keeps its spans in memory and
 * exports nothing, so under it (or with tracing off) a span is seen only by
 * what runs inside it, through `Effect.currentSpan`.
 *
 * @since 0.4.0
 * @category tracing
 */
export const exported = (fiber: Fiber.RuntimeFiber<unknown, unknown>): boolean =>
  fiber.getFiberRef(FiberRef.currentTracerEnabled) && CallTrace.isExporting(fiber.currentTracer)

/**
 * Ends the call's span with its exit redacted.
 *
 * @since 0.4.0
 * @category tracing
 */
export const end = (
  trace: Trace,
  redact: (text: string) => string,
  exit: Exit.Exit<unknown, unknown>
): void =>
  trace.span.end(trace.clock.unsafeCurrentTimeNanos(), CallTrace.redactExit(exit, redact, { values: trace.values }))

/**
 * Runs the rest of a decision under the call's span, and ends the span with
 * its exit redacted.
 *
 * @since 0.4.0
 * @category tracing
 */
export const within = <A, E, R>(
  trace: Trace,
  redact: (text: string) => string,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  effect.pipe(
    Effect.withParentSpan(trace.span),
    Effect.onExit((exit) => Effect.sync(() => end(trace, redact, exit)))
  )

/**
 * The reports of one call: its trail, and how it records an allow or a deny.
 * Made without a span (`undefined`), it records nothing until one is given
 * (`open`): the engine opens a decision's span only once something is to
 * run inside it, when nothing else could see it (see {@link exported}).
 *
 * @since 0.4.0
 * @category constructors
 */
export const make = (
  request: Policy.Request,
  mode: Mode.Mode,
  redact: (text: string) => string,
  config: Pick<EngineConfig.Config, "onDecision">,
  opened: Trace | undefined
) => {
  let trace = opened
  const tool = request.tool
  const trail: Array<string> = []
  // Set once a sandbox rule applies, for the audit.
  let sandboxRule: PermissionAudit.SandboxRule | undefined = undefined
  const inputText = (input: unknown) => {
    const text = redact(StableJson.stringify(input))
    return text.length > maxInputChars ? `${text.slice(0, maxInputChars)}… (${text.length} characters)` : text
  }
  const listener = config.onDecision

  /**
   * Records a decision on the call's span now; what is left, the audit
   * listener's call, is returned (`undefined` with no listener). The redacted
   * texts are made only for what reads them: the span when `TraceValues` is
   * on, and the listener's record.
   */
  const recordNow = (
    outcome: "allow" | "deny",
    decidedBy: PermissionAudit.DecidedBy,
    reason: string,
    details: Details
  ): Effect.Effect<void> | undefined => {
    const current = trace
    if (current === undefined) throw new Error("a decision was recorded before its span was opened")
    const span = current.span
    // The call's span is the current span of everything the decision runs.
    span.attribute("permission.outcome", outcome)
    span.attribute("permission.decided_by", decidedBy._tag)
    span.attribute("permission.rule", decidedByRule(decidedBy))
    span.attribute("permission.asked", details.asked ?? false)
    span.attribute("permission.rewritten", details.rewritten)
    span.attribute("permission.sandbox_rule", sandboxRule ?? "")
    if (!current.values && listener === undefined) return undefined
    const described = details.target === undefined ? undefined : RuleMatch.describeSubject(details.target)
    const redactedReason = redact(reason)
    const subject = described === undefined ? undefined : redact(described)
    const input = inputText(details.input)
    // The call's arguments, and the reason and subject that quote them (a command line, a path):
    // user data no redactor recognizes, recorded only when the application asks (`TraceValues`).
    if (current.values) {
      span.attribute("permission.reason", redactedReason)
      span.attribute("permission.subject", subject ?? "")
      span.attribute("permission.input", input)
    }
    if (listener === undefined) return undefined
    const decision = {
      callId: redact(request.callId),
      toolName: tool.name,
      outcome,
      rewritten: details.rewritten,
      decidedBy,
      reason: redactedReason,
      trail: trail.map(redact),
      mode,
      asked: details.asked ?? false,
      stored: (details.stored ?? []).map(redact),
      subject,
      ...(details.target?._tag === "Command" && details.target.sandbox !== undefined
        ? { sandbox: details.target.sandbox }
        : {}),
      ...(sandboxRule === undefined ? {} : { sandboxRule })
    }
    return Effect.flatMap(Clock.currentTimeMillis, (at) =>
      // A broken listener must not turn a decision into a crash of the turn.
      Effect.catchAllCause(
        listener({ ...decision, input, at } satisfies PermissionAudit.Decision),
        (cause) => Effect.logWarning(`the permission audit listener failed: ${redact(Cause.pretty(cause))}`)
      ))
  }

  const record = (
    outcome: "allow" | "deny",
    decidedBy: PermissionAudit.DecidedBy,
    reason: string,
    details: Details
  ): Effect.Effect<void> => Effect.suspend(() => recordNow(outcome, decidedBy, reason, details) ?? Effect.void)

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

  const setSandboxRule = (rule: PermissionAudit.SandboxRule) => {
    sandboxRule = rule
  }
  const open = (opening: Trace) => {
    trace = opening
  }
  return { trail, inputText, record, recordNow, quiet: listener === undefined, denied, setSandboxRule, open }
}

/**
 * What a decision's record says of the call.
 *
 * @since 0.4.0
 * @category models
 */
export interface Details {
  readonly input: unknown
  readonly target: RuleMatch.Target | undefined
  readonly rewritten: boolean
  readonly asked?: boolean | undefined
  readonly stored?: ReadonlyArray<string> | undefined
}

/**
 * The reports of one call.
 *
 * @since 0.4.0
 * @category models
 */
export type Recorder = ReturnType<typeof make>

/**
 * What the runtime is told to run: the input as the hooks left it.
 *
 * @since 0.4.0
 * @category constructors
 */
export const verdict = (notes: ReadonlyArray<string>, input: unknown, rewritten: boolean): Policy.Verdict =>
  rewritten ? { _tag: "Rewrite", input, note: notes.join("; ") } : Policy.allow

const decidedByRule = (decidedBy: PermissionAudit.DecidedBy): string =>
  decidedBy._tag === "Rule" ? decidedBy.rules.join(", ") : ""

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
import type * as EngineConfig from "./EngineConfig.js"
import type * as Mode from "./Mode.js"
import * as PermissionAudit from "./PermissionAudit.js"
import * as RuleMatch from "./RuleMatch.js"

const maxInputChars = 2_000

/**
 * The call's span, ended with its exit redacted.
 *
 * @since 0.4.0
 * @category tracing
 */
export const traced = (redact: (text: string) => string) => {
  // Made by hand rather than with `Effect.withSpan`, which would end the
  // span with the raw exit.
  const traced = <A, E, R>(request: Policy.Request, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(
      Effect.zip(
        Effect.makeSpan("permissions.authorize", {
          attributes: { "tool.name": request.tool.name },
          kind: "internal",
          captureStackTrace: false
        }),
        CallTrace.TraceValues
      ),
      ([span, values]) =>
        effect.pipe(
          Effect.withParentSpan(span),
          Effect.onExit((exit) =>
            Effect.flatMap(
              Clock.currentTimeNanos,
              (now) => Effect.sync(() => span.end(now, CallTrace.redactExit(exit, redact, { values })))
            )
          )
        )
    )
  return traced
}

/**
 * The reports of one call: its trail, and how it records an allow or a deny.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make = (
  request: Policy.Request,
  mode: Mode.Mode,
  redact: (text: string) => string,
  config: Pick<EngineConfig.Config, "onDecision">
) => {
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
        "permission.asked": decision.asked,
        "permission.rewritten": decision.rewritten,
        "permission.sandbox_rule": decision.sandboxRule ?? ""
      })
      // The call's arguments, and the reason and subject that quote them (a command line, a path):
      // user data no redactor recognizes, recorded only when the application asks (`TraceValues`).
      if (yield* CallTrace.TraceValues) {
        yield* Effect.annotateCurrentSpan({
          "permission.reason": decision.reason,
          "permission.subject": decision.subject ?? "",
          "permission.input": decision.input
        })
      }
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

  const setSandboxRule = (rule: PermissionAudit.SandboxRule) => {
    sandboxRule = rule
  }
  return { trail, inputText, record, denied, setSandboxRule }
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

/**
 * The client side of a cluster: a `ToolRuntime` whose `runTurn` sends the
 * turn to the runner that holds its session and waits for the answer.
 *
 * `runTurn` keeps core's promise, one result per call, in call order,
 * never a failure, across everything a cluster adds: a send the storage
 * refuses for a moment (the mailbox full, the turn already being run, a
 * busy file) is sent again after a pause, which the turn id makes safe; a
 * runner's death only delays the answer; and a turn that gets no answer
 * within `turnTimeout`, or that `interruptWhen` ends, is answered from the
 * journal, call by call: what was recorded, what had started and has no
 * result yet, what never started.
 *
 * @since 0.5.0
 */
import type { Sharding } from "@effect/cluster/Sharding"
import * as ToolError from "@tool-runtime/core/ToolError"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolResultSchema from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as CallJournal from "./CallJournal.js"
import type * as Durable from "./Durable.js"
import * as SessionEntity from "./SessionEntity.js"

/**
 * @since 0.5.0
 * @category models
 */
export interface Options {
  /** Largest arguments sent, in characters; keep it at the runners' `maxInputChars`. Default 1,000,000. */
  readonly maxInputChars?: number | undefined
  /**
   * How long a turn may go unanswered (no runner up, storage unreachable, a
   * turn that runs long) before its calls are answered from the journal and
   * the turn is interrupted on its runner. Default 30 minutes.
   */
  readonly turnTimeout?: Duration.DurationInput | undefined
  /**
   * Once a turn is stopped (`interruptWhen`, `turnTimeout`), how long to wait
   * for its runner to stop the calls still running and record how they
   * ended, before answering with what the journal holds. Keep it above the
   * runners' `cleanupTimeout` (5 s by default). Default 6 seconds.
   */
  readonly settleTimeout?: Duration.DurationInput | undefined
  /** The journal's resume rules; the same in every process of a cluster. */
  readonly limits?: Durable.Limits | undefined
  /** The options of the local runtime that answers `plan`, `redact` and `readArtifact`. */
  readonly runtime?: ToolRuntime.Options | undefined
}

const decodeResult = Schema.decodeSync(Schema.parseJson(ToolResultSchema.ToolResult))

const result = (
  callId: string,
  toolName: string,
  text: string,
  error: ToolResult.ErrorInfo
): ToolResult.ToolResult => ({
  callId,
  toolName,
  content: [{ _tag: "text", text }],
  isError: true,
  error,
  meta: { durationMillis: 0, redactions: 0 }
})

const notSent = (callId: string, toolName: string, reason: string): ToolResult.ToolResult => {
  const error = new ToolError.NotExecuted({ toolName, reason })
  return result(callId, toolName, error.message, {
    code: error.code,
    retryable: error.retryable,
    hint: error.hint,
    outcomeUnknown: false
  })
}

const failureKind = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  if (failure._tag === "Some") {
    const tag = (failure.value as { readonly _tag?: unknown } | null)?._tag
    return typeof tag === "string" ? ToolError.printableName(tag) : "an error"
  }
  return Cause.isInterruptedOnly(cause) ? "interrupted" : "a defect"
}

/**
 * The client's `ToolRuntime`, over the local one (for `plan`, `registry`,
 * `redact`, `readArtifact`), the cluster's `Sharding` and the journal.
 *
 * @since 0.5.0
 * @category constructors
 */
export const make = (
  options?: Options
): Effect.Effect<ToolRuntime.Service, never, ToolRuntime.ToolRuntime | Sharding | CallJournal.CallJournal> =>
  Effect.gen(function*() {
    const local = yield* ToolRuntime.ToolRuntime
    const journal = yield* CallJournal.CallJournal
    const sessions = yield* SessionEntity.SessionEntity.client
    const maxInputChars = options?.maxInputChars ?? 1_000_000
    const turnTimeout = Duration.decode(options?.turnTimeout ?? "30 minutes")
    const settleTimeout = Duration.decode(options?.settleTimeout ?? "6 seconds")
    // Sent again until it is stored: the turn id makes a second send of a stored turn the same turn.
    const resend = Schedule.exponential("50 millis").pipe(Schedule.union(Schedule.spaced("2 seconds")))

    const shown = (name: string) => name === "" ? "the call" : ToolError.printableName(name)
    const writes = (name: string) => local.registry.get(name)?.tool.readOnly !== true

    /** Each call's answer from the journal, when the cluster gave none: `why` says what happened. */
    const fromJournal = (
      sessionId: string,
      turnId: string,
      wire: ReadonlyArray<SessionEntity.WireCall>,
      why: string
    ): Effect.Effect<ReadonlyArray<ToolResult.ToolResult>> =>
      Effect.forEach(wire, (call) =>
        journal.get({ sessionId, turnId, callId: call.id }).pipe(
          Effect.map((found): ToolResult.ToolResult => {
            const record = Option.getOrUndefined(found)
            if (record?.result != null) {
              return { ...decodeResult(record.result), callId: call.id }
            }
            if (record === undefined) {
              return notSent(call.id, call.name, `${why}, and the call had not started`)
            }
            const unknown = record.kind !== "read"
            return result(
              call.id,
              call.name,
              `${shown(call.name)} ${why}. It had started (attempt ${record.attempt}) and has no recorded result ` +
                `yet: ${unknown ? "whether its changes were made is unknown" : "it only reads, so nothing changed"}.`,
              {
                code: "cluster_unavailable",
                retryable: !unknown,
                hint: unknown
                  ? `Its result is recorded once it ends: list the session's calls (\`cluster calls --session ` +
                    `${JSON.stringify(sessionId)}\`) before calling it again.`
                  : "Call it again.",
                outcomeUnknown: unknown
              }
            )
          }),
          Effect.catchAllCause(() =>
            Effect.succeed(
              writes(call.name)
                ? result(
                  call.id,
                  call.name,
                  `${shown(call.name)} ${why}, and the journal could not be read: whether it ran is unknown.`,
                  {
                    code: "cluster_unavailable",
                    retryable: false,
                    hint: "Check whether the change was made before calling it again.",
                    outcomeUnknown: true
                  }
                )
                : notSent(call.id, call.name, `${why}, and the journal could not be read`)
            )
          )
        ))

    /**
     * Waits, up to `settleTimeout`, until none of the turn's calls is still
     * running on a runner. Stopping the turn's message sends the runner an
     * interrupt without waiting for it to act: the runner then stops the
     * handlers (each may take its cleanup time) and records how each ended,
     * and that record is a better answer than "still running".
     */
    const settled = (sessionId: string, turnId: string, wire: ReadonlyArray<SessionEntity.WireCall>) =>
      Effect.forEach(wire, (call) => journal.get({ sessionId, turnId, callId: call.id })).pipe(
        Effect.map((rows) => rows.some((row) => Option.isSome(row) && row.value.state === "started")),
        Effect.repeat({ while: (running) => running, schedule: Schedule.spaced("100 millis") }),
        Effect.timeout(settleTimeout),
        Effect.ignore
      )

    const runTurn: ToolRuntime.Service["runTurn"] = (calls, turnOptions) =>
      Effect.suspend(() => {
        const sessionId = turnOptions?.sessionId ?? ""
        const turnId = turnOptions?.turnId ?? ""
        const wire = calls.map((call) => SessionEntity.toWire(call, maxInputChars))
        if (sessionId === "" || turnId === "") {
          return Effect.succeed(wire.map((call) =>
            notSent(call.id, call.name, "the turn has no sessionId and turnId to run it under on the cluster")
          ))
        }
        const sent: SessionEntity.WireOptions = {
          ...(turnOptions?.concurrency === undefined ? {} : { concurrency: turnOptions.concurrency }),
          ...(turnOptions?.parallel === undefined ? {} : { parallel: turnOptions.parallel }),
          ...(turnOptions?.stopOnError === undefined ? {} : { stopOnError: turnOptions.stopOnError }),
          ...(turnOptions?.outputBudget === undefined ? {} : { outputBudget: turnOptions.outputBudget })
        }
        const answer = sessions(sessionId).RunTurn({ turnId, calls: wire, options: sent }).pipe(
          Effect.retry(resend),
          Effect.exit,
          Effect.map((exit) => ({ _tag: "Answered" as const, exit }))
        )
        const ended = turnOptions?.interruptWhen === undefined
          ? []
          : [Effect.map(turnOptions.interruptWhen, (reason) => ({ _tag: "Ended" as const, reason }))]
        const timedOut = Effect.as(Effect.sleep(turnTimeout), { _tag: "TimedOut" as const })
        return Effect.raceAll([answer, timedOut, ...ended]).pipe(
          Effect.flatMap((outcome) => {
            if (outcome._tag === "TimedOut") {
              return Effect.zipRight(
                settled(sessionId, turnId, wire),
                fromJournal(
                  sessionId,
                  turnId,
                  wire,
                  `got no answer from the cluster within ${Duration.format(turnTimeout)}`
                )
              )
            }
            if (outcome._tag === "Ended") {
              return Effect.zipRight(
                settled(sessionId, turnId, wire),
                fromJournal(sessionId, turnId, wire, `was stopped: ${ToolError.printableName(outcome.reason)}`)
              )
            }
            const exit = outcome.exit
            if (Exit.isSuccess(exit)) {
              if (exit.value.length === wire.length) {
                return Effect.succeed(exit.value)
              }
              return fromJournal(sessionId, turnId, wire, "was answered by a runner with another turn's results")
            }
            return Effect.zipRight(
              // The error's kind only: a storage error's text may quote a URL with its password.
              Effect.logWarning(`a turn sent to the cluster failed: ${failureKind(exit.cause)}`),
              fromJournal(
                sessionId,
                turnId,
                wire,
                Cause.isInterruptedOnly(exit.cause)
                  ? "was interrupted on its runner"
                  : "could not be run by the cluster"
              )
            )
          }),
          Effect.tap((results) => {
            const onEvent = turnOptions?.onEvent
            // Runners keep their events; the client reports each call's end once the turn's answer is here.
            return onEvent === undefined
              ? Effect.void
              : Effect.forEach(
                results,
                (result, index) =>
                  onEvent({ _tag: "CallFinished", index, result }).pipe(Effect.catchAllCause(Effect.logWarning)),
                {
                  discard: true
                }
              )
          }),
          Effect.annotateLogs({ sessionId, turnId })
        )
      })

    return {
      ...local,
      runTurn,
      runCall: (call, turnOptions) => Effect.map(runTurn([call], turnOptions), (results) => results[0]!)
    } satisfies ToolRuntime.Service
  })

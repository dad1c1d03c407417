/**
 * The one-call runner: one call of a turn through the six stages of the
 * pipeline (parse, look up, validate, authorize, execute, shape), with what
 * the runtime adds around them: the call's spans, the hooks after
 * execution, the resource locks, the redaction of names and of schema issues
 * that would quote a secret, and the net that turns a defect into the
 * call's result.
 *
 * Apart from the turn scheduler (`TurnScheduler`) because it knows nothing
 * of batches, order or calls that never ran: it is the scheduler's
 * {@link TurnScheduler.Runner}, and hands each result back through
 * {@link TurnScheduler.finish}.
 *
 * @since 0.4.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Tracer from "effect/Tracer"
import * as CallLimits from "./CallLimits.js"
import * as CallTrace from "./CallTrace.js"
import type * as Durability from "./Durability.js"
import * as ForeignText from "./ForeignText.js"
import type * as Hooks from "./Hooks.js"
import * as IdempotencyKey from "./IdempotencyKey.js"
import * as Pipeline from "./Pipeline.js"
import type * as Policy from "./Policy.js"
import type * as Redactor from "./Redactor.js"
import type * as Registry from "./Registry.js"
import * as ResourceLocks from "./ResourceLocks.js"
import * as Steps from "./Steps.js"
import type * as Tool from "./Tool.js"
import * as ToolError from "./ToolError.js"
import type * as ToolResult from "./ToolResult.js"
import * as TurnScheduler from "./TurnScheduler.js"

/**
 * A JSON value with every string and key redacted, and how many secrets
 * were removed; `undefined` when the value cannot be read (a getter threw).
 */
const redactJson = (
  value: unknown,
  redactor: Redactor.Service
): { readonly value: unknown; readonly count: number } | undefined => {
  let count = 0
  const text = (s: string) => {
    const redaction = redactor.redact(s)
    count += redaction.count
    return redaction.text
  }
  const walk = (u: unknown, depth: number): unknown => {
    if (typeof u === "string") return text(u)
    if (typeof u !== "object" || u === null) return u
    if (depth > 100) {
      // Too deep to walk: counted as a secret, so that nothing of it is quoted.
      count++
      return null
    }
    if (Array.isArray(u)) return u.map((item) => walk(item, depth + 1))
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(u)) {
      // Defined, not assigned: a key named `__proto__` stays a key.
      Object.defineProperty(out, text(key), {
        value: walk(item, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true
      })
    }
    return out
  }
  const walked = Either.try(() => walk(value, 0))
  return Either.isLeft(walked) ? undefined : { value: walked.right, count }
}

/**
 * The call with its name replaced, for a name that is not registered and
 * held a secret; the call as it is when its input cannot be read.
 */
const renamed = (call: unknown, id: string, name: string): unknown => {
  const input = Either.try(() => (call as { readonly input?: unknown }).input)
  return Either.isLeft(input) ? call : { id, name, input: input.right }
}

/** The services and settings of the runtime that a call's stages read. */
export interface Env {
  readonly registry: Registry.Service
  readonly policy: Policy.Service
  readonly redactor: Redactor.Service
  /** Optional: a runtime without hooks runs none. */
  readonly hooks: Hooks.Service | undefined
  /** Optional: a runtime without a journal records nothing (see `Durability`). */
  readonly journal: Durability.Service | undefined
  readonly shapeEnv: Pipeline.ShapeEnv
  /** Largest arguments accepted, in characters. */
  readonly maxInputChars: number
}

/**
 * The runner of a runtime: made once, it holds the resource locks that every
 * turn's calls share.
 */
export const make = (
  { hooks, journal, maxInputChars, policy, redactor, registry, shapeEnv }: Env
): TurnScheduler.Runner => {
  const redactText = (text: string) => redactor.redact(text).text
  /**
   * The name a result, a message or a span may show: a registered name as
   * it is (names are checked at registration), any other redacted, since
   * the model can put anything in it.
   */
  const shownName = (name: string) => registry.get(name) === undefined ? redactText(name) : name
  /**
   * Schema issues quote the arguments, cut short (a key, the start of a
   * value), and a secret cut short is one redaction no longer recognizes.
   * So the error for arguments that hold a secret is made again from the
   * arguments with every string and key redacted.
   */
  const redactIssues = (
    entry: Registry.Entry,
    input: unknown,
    error: ToolError.InvalidArguments
  ): ToolError.InvalidArguments => {
    const redacted = redactJson(input, redactor)
    if (redacted !== undefined && redacted.count === 0) return error
    const decoded = redacted === undefined ? undefined : entry.tool.decode(redacted.value)
    return new ToolError.InvalidArguments({
      toolName: error.toolName,
      issues: decoded !== undefined && Either.isLeft(decoded)
        ? Pipeline.formatIssues(decoded.left)
        : [{ path: "", message: "do not match the parameter schema (they hold a secret, which is not quoted here)" }]
    })
  }
  const locks = new ResourceLocks.ResourceLocks()
  /** Each tool's description as spans show it: redacted once per tool, not once per call. */
  const descriptions = new WeakMap<Tool.Any, string>()
  const describedAs = (tool: Tool.Any): string => {
    let shown = descriptions.get(tool)
    if (shown === undefined) {
      shown = redactText(tool.description)
      descriptions.set(tool, shown)
    }
    return shown
  }
  /** Each tool's `maxConcurrent` and `rate`, shared by every turn of the runtime. */
  const limits = new CallLimits.CallLimits()

  /**
   * Shapes a call's outcome and records its result; in a turn with an output
   * budget, the result goes with the way to cut it, which the budget may use.
   */
  const record = (
    turn: TurnScheduler.Turn,
    index: number,
    tool: Tool.Any | undefined,
    callId: string,
    shown: string,
    outcome: Pipeline.Outcome,
    durationMillis: number,
    trace?: CallTrace.CallTrace
  ): Effect.Effect<void> => {
    const fitting: Pipeline.Fitting | undefined = turn.budget === undefined ? undefined : { fit: undefined }
    return Steps.flatMap(
      Pipeline.shape(shapeEnv, tool, callId, shown, outcome, durationMillis, fitting),
      (result) => {
        if (trace !== undefined) {
          trace.stage("shape")
          trace.end(result)
        }
        return TurnScheduler.finish(turn, index, result, fitting?.fit)
      }
    )
  }

  const fail = (turn: TurnScheduler.Turn, index: number, error: ToolError.ToolError, startedAt: number) =>
    record(
      turn,
      index,
      registry.get(Pipeline.toolNameOf(turn.calls[index]))?.tool,
      Pipeline.callIdOf(turn.calls[index]),
      shownName(Pipeline.toolNameOf(turn.calls[index])),
      { _tag: "Failure", error },
      turn.clock.unsafeCurrentTimeMillis() - startedAt
    )

  /**
   * One call through every stage; the result lands in `turn.results[index]`.
   * A defect anywhere in them (a tool's `resources` or `subject` that
   * throws, a value no stage could read) becomes that call's result, never
   * the turn's death: the calls beside it keep theirs.
   *
   * The call starts when this is called, not when the effect runs (see
   * {@link TurnScheduler.Runner}): stages done at once (a handler that
   * returns its Effect done, the common case) leave an `Exit`, and a
   * one-call turn then takes no step of the run loop for its call.
   */
  const runOne = (turn: TurnScheduler.Turn, index: number): Effect.Effect<void> => {
    const startedAt = turn.clock.unsafeCurrentTimeMillis()
    let stages: Effect.Effect<void>
    try {
      stages = runStages(turn, index, startedAt)
    } catch (defect) {
      // What `Effect.suspend` made of a throw: the net below catches it.
      stages = Exit.die(defect)
    }
    return Steps.catchAllDefect(stages, (defect) => {
      if (turn.results[index] !== undefined) return Effect.void
      const toolName = Pipeline.toolNameOf(turn.calls[index])
      const error = new ToolError.ToolDefect({
        toolName: shownName(toolName),
        detail: `the call could not be completed: ${ForeignText.clean(ForeignText.describe(defect))}`,
        // It may have failed after a write ran.
        outcomeUnknown: registry.get(toolName)?.tool.readOnly === false
      })
      return fail(turn, index, error, startedAt)
    })
  }

  /** The stages of one call, started now: only `runOne` calls it, inside its net. */
  const runStages = (turn: TurnScheduler.Turn, index: number, startedAt: number): Effect.Effect<void> => {
    const call = turn.calls[index]
    const clock = turn.clock
    const callId = Pipeline.callIdOf(call)
    const toolName = Pipeline.toolNameOf(call)
    const shown = shownName(toolName)
    const trace = turn.tracer === undefined
      ? undefined
      : new CallTrace.CallTrace(
        turn.tracer,
        clock,
        turn.parentSpan,
        redactText(callId),
        // A name the model made up is a value like its arguments: shown only
        // when values may be, and then printable and short.
        shown === toolName && registry.get(toolName) !== undefined
          ? toolName
          : turn.traceValues
          ? ToolError.printableName(shown)
          : CallTrace.unknownToolName,
        turn.stageSpans,
        redactText,
        turn.traceValues
      )
    // The stage running since the last boundary; `undefined` while one
    // that has a span of its own (authorize) is open.
    let current: CallTrace.Stage | undefined = "parse"
    const next = (stage: CallTrace.Stage) => {
      if (current !== undefined) trace?.stage(current)
      current = stage
    }
    // Set when the journal let the handler run: the call's result is then recorded.
    let begun: { readonly call: Durability.Call; readonly attempt: number } | undefined
    // Set when the journal held the call's result: it is the answer, and nothing ran.
    let replayed: ToolResult.ToolResult | undefined
    const complete = (tool: Tool.Any | undefined, outcome: Pipeline.Outcome): Effect.Effect<void> => {
      if (replayed !== undefined) {
        trace?.end(replayed)
        return TurnScheduler.finish(turn, index, { ...replayed, callId })
      }
      const recorded = record(
        turn,
        index,
        tool,
        callId,
        shown,
        outcome,
        clock.unsafeCurrentTimeMillis() - startedAt,
        trace
      )
      const started = begun
      return started === undefined || journal === undefined
        ? recorded
        : Effect.zipRight(
          recorded,
          Effect.suspend(() => journal.finish(started.call, started.attempt, turn.results[index]!))
        )
    }
    // The journal's say, right before the handler would start.
    // `now`: nothing waits before the handler (no lock, slot or rate), so it may be called at once.
    const run = (
      entry: Registry.Entry,
      input: unknown,
      note: string | undefined,
      now: boolean
    ): Effect.Effect<Pipeline.Outcome> => {
      if (journal === undefined) return runHandler(entry, input, note, now)
      const durable: Durability.Call = {
        sessionId: turn.env.keyScope.sessionId,
        turnId: turn.env.keyScope.turnId,
        callId,
        index,
        tool: entry.tool,
        input,
        idempotencyKey: IdempotencyKey.make(turn.env.keyScope, callId)
      }
      return Effect.matchEffect(journal.begin(durable), {
        onFailure: (unavailable) =>
          Effect.succeed<Pipeline.Outcome>({
            _tag: "Failure",
            error: new ToolError.NotExecuted({
              toolName: entry.tool.name,
              // Shaping redacts the reason, as every message of a result.
              reason: `its start could not be recorded in the call journal (${unavailable.reason})`
            })
          }),
        onSuccess: (decision) => {
          if (decision._tag === "Recorded") {
            replayed = decision.result
            // Never read: `complete` answers with the recorded result.
            return Effect.succeed<Pipeline.Outcome>({ _tag: "Success", value: undefined, note: undefined })
          }
          begun = { call: durable, attempt: decision.attempt }
          // Here the effect runs as it is built: only a delay must keep the handler for later.
          const delayed = decision.delayMillis > 0
          const handler = runHandler(entry, input, note, !delayed, decision.attempt)
          return delayed ? Effect.delay(handler, decision.delayMillis) : handler
        }
      })
    }
    const runHandler = (
      entry: Registry.Entry,
      input: unknown,
      note: string | undefined,
      now: boolean,
      attempt = 1
    ) => {
      next("execute")
      const span = trace?.open("execute")
      const sandbox = entry.tool.sandbox?.(input)
      const onInterrupted = (error: ToolError.Interrupted | ToolError.Timeout) => {
        if (span !== undefined) trace!.close(span, Exit.fail(error))
        return complete(entry.tool, { _tag: "Failure", error, sandbox })
      }
      const parent = span ?? trace?.span
      const executed = Steps.match(
        now
          ? Pipeline.executeNow(entry, callId, input, turn.env, parent, onInterrupted, attempt)
          : Pipeline.execute(entry, callId, input, turn.env, parent, onInterrupted, attempt),
        {
          onFailure: (error): Pipeline.Outcome => {
            if (span !== undefined) trace!.close(span, Exit.fail(error))
            return { _tag: "Failure", error, sandbox }
          },
          onSuccess: (value): Pipeline.Outcome => {
            if (span !== undefined) trace!.close(span, Exit.void)
            return { _tag: "Success", value, note, sandbox }
          }
        }
      )
      return hooks === undefined ?
        executed :
        Effect.flatMap(executed, (outcome) =>
          hooks.after({ callId, tool: entry.tool, input, outcome }).pipe(
            Effect.catchAll((error) => Effect.succeed<Pipeline.Outcome>({ _tag: "Failure", error }))
          ))
    }
    // Waiting for a resource happens before the deadlines start.
    const locked = (entry: Registry.Entry, input: unknown, note: string | undefined) => {
      const tool = entry.tool
      const resources = tool.resources(input)
      // The rate counts starts, so it is the last wait: a call let through
      // and then held by a lock would start later than its place says.
      const limit = tool.maxConcurrent
      const now = tool.rate === undefined && resources.length === 0 && limit === undefined
      const started = tool.rate === undefined
        ? run(entry, input, note, now)
        : limits.admitted(tool, tool.rate, clock, tool.timeoutFor(input), run(entry, input, note, false))
      const body = resources.length === 0 ? started : locks.with(resources, started)
      return limit === undefined ? body : limits.withSlot(tool, limit, tool.timeoutFor(input), body)
    }
    const settle = (error: ToolError.ToolError) => {
      if (current !== undefined) trace?.stage(current, Exit.fail(error))
      return complete(undefined, { _tag: "Failure", error })
    }
    const guard = (effect: Effect.Effect<void>) =>
      trace === undefined ? effect : Effect.onInterrupt(effect, () =>
        Effect.sync(() => {
          if (turn.results[index] === undefined) trace.interrupted()
        }))
    // The policy's own spans nest under the authorize stage's span.
    const authorizing = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> => {
      const span = trace?.open("authorize")
      if (span === undefined) return effect
      current = undefined
      return effect.pipe(
        Effect.provideService(Tracer.ParentSpan, span),
        Effect.onExit((exit) => Effect.sync(() => trace!.close(span, exit)))
      )
    }
    // Parse and lookup are pure: they run here, outside the effect machinery.
    // A name that held a secret is redacted before any message quotes it.
    const parsed = Pipeline.parse(shown === toolName ? call : renamed(call, callId, shown), maxInputChars)
    if (Either.isLeft(parsed)) return settle(parsed.left)
    trace?.arguments(parsed.right.input)
    next("lookup")
    const entry = registry.get(parsed.right.toolName)
    if (entry !== undefined && trace !== undefined) trace.describe(describedAs(entry.tool))
    if (entry === undefined) {
      return Effect.matchEffect(Pipeline.lookup(registry, parsed.right.toolName), {
        onFailure: settle,
        onSuccess: () => Effect.void
      })
    }
    next("validate")
    // The arguments being validated, for an error that must quote them redacted.
    let validating: unknown = parsed.right.input
    const stages = Steps.flatMap(Pipeline.validate(entry, parsed.right.input), (input) => {
      next("authorize")
      const request = { callId, tool: entry.tool, input, subject: entry.tool.subject(input) }
      return Steps.flatMap(authorizing(Pipeline.authorize(policy, request)), (verdict) => {
        if (verdict._tag === "Allow") return locked(entry, input, undefined)
        // A rewritten input is validated again before it runs.
        next("validate")
        validating = verdict.input
        return Effect.flatMap(
          Pipeline.validate(entry, verdict.input),
          (rewritten) => locked(entry, rewritten, `Note: your input was changed before running: ${verdict.note}`)
        )
      })
    })
    return guard(Steps.flatMap(
      // catchAllCause rather than catchAll, which adds a step to every
      // success: this runs once per call, and it pays for runOne's net.
      Steps.catchAllCause(stages, (cause) => {
        const failure = Cause.failureOrCause(cause)
        if (Either.isRight(failure)) return Effect.failCause(failure.right)
        const raw = failure.left
        const error = raw._tag === "InvalidArguments" ? redactIssues(entry, validating, raw) : raw
        if (current !== undefined) trace?.stage(current, Exit.fail(error))
        if (error._tag === "PermissionDenied" && error.stopTurn === true && turn.stoppedBy === undefined) {
          turn.stoppedBy = index
        }
        return Effect.succeed<Pipeline.Outcome>({ _tag: "Failure", error })
      }),
      (outcome) => complete(entry.tool, outcome)
    ))
  }

  return { runOne, fail, shownName, redactText }
}

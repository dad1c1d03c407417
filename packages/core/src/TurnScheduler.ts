/**
 * The turn scheduler: the return stage, which takes the calls of one model
 * turn and returns exactly one `ToolResult` per call, in call order, paired
 * by id, whatever happens.
 *
 * Scheduling follows the tools' read-only marks: consecutive read-only
 * calls form a batch that runs concurrently; any other call waits for what
 * runs before it and runs alone. Calls that never run (the turn was
 * interrupted, an earlier failure stopped the turn, a duplicate id) still get
 * a result saying why, so the conversation sent back to the provider is
 * never malformed.
 *
 * Apart from the one-call runner (`CallRunner`) because it knows nothing of
 * the stages a call goes through: it reaches the runner only through the
 * small {@link Runner} interface, and the runner hands each result back
 * through {@link finish}. It holds the turn's public models too, which
 * `ToolRuntime` re-exports.
 *
 * @since 0.4.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Tracer from "effect/Tracer"
import * as CallTrace from "./CallTrace.js"
import * as ClientRequests from "./ClientRequests.js"
import * as IdempotencyKey from "./IdempotencyKey.js"
import * as OutputBudget from "./OutputBudget.js"
import * as Pipeline from "./Pipeline.js"
import type * as Redactor from "./Redactor.js"
import type * as Registry from "./Registry.js"
import * as Steps from "./Steps.js"
import type * as ToolCall from "./ToolCall.js"
import * as ToolError from "./ToolError.js"
import type * as ToolResult from "./ToolResult.js"
import * as Watchdog from "./Watchdog.js"

/**
 * Progress and completion, for a UI or a log. Messages are redacted.
 *
 * @since 0.1.0
 * @category models
 */
export type Event =
  | { readonly _tag: "BatchStarted"; readonly indices: ReadonlyArray<number>; readonly concurrent: boolean }
  | {
    readonly _tag: "Progress"
    readonly callId: string
    readonly toolName: string
    readonly message: string | undefined
    /** Work done so far, when the handler said. */
    readonly progress?: number | undefined
    /** Work in all, when the handler said. */
    readonly total?: number | undefined
  }
  | { readonly _tag: "CallFinished"; readonly index: number; readonly result: ToolResult.ToolResult }

/**
 * @since 0.1.0
 * @category models
 */
export interface TurnOptions {
  /** Most read-only calls running at once. Default 8. */
  readonly concurrency?: number | undefined
  /** `false` runs every call alone, in order (`parallel_tool_calls: false`). Default `true`. */
  readonly parallel?: boolean | undefined
  /** Skip the calls after a batch that produced an error result. Default `false`. */
  readonly stopOnError?: boolean | undefined
  /**
   * Ends the turn when it completes, with the reason it yields: running
   * handlers are interrupted, calls not started get "not executed".
   */
  readonly interruptWhen?: Effect.Effect<string> | undefined
  readonly onEvent?: ((event: Event) => Effect.Effect<void>) | undefined
  /** How handlers reach the user and the client's model (`context.elicit`, `context.sample`). */
  readonly client?: ClientRequests.Channel | undefined
  /**
   * The most text all the turn's results together may hold: characters, or
   * approximate tokens (`{ tokens: 20_000 }`). Shared out as results are
   * shaped; a result cut for it says so and keeps its full output stored.
   * A budget below 240 characters (64 tokens) a call is raised to that
   * (a negative or NaN one too); `Infinity` is no budget. Default: none (each result has only its tool's `outputLimit`). See
   * `OutputBudget`.
   *
   * @since 0.4.0
   */
  readonly outputBudget?: OutputBudget.Option | undefined
  /**
   * The conversation the turn belongs to, and the turn itself: with the call
   * ids they make each call's `context.idempotencyKey`, so a turn sent again
   * with the same ids hands its handlers the same keys. Default: `""` each
   * (the keys then come from the call ids alone). A durable runtime
   * (`@tool-runtime/cluster`) needs both: it refuses a turn without them, as
   * call ids alone repeat from turn to turn.
   *
   * @since 0.5.0
   */
  readonly sessionId?: string | undefined
  /** See `sessionId`. @since 0.5.0 */
  readonly turnId?: string | undefined
}

/**
 * A batch of the plan: call indices, and whether they run together.
 *
 * @since 0.1.0
 * @category models
 */
export interface Batch {
  readonly indices: ReadonlyArray<number>
  readonly concurrent: boolean
}

/**
 * Groups calls into batches: runs of read-only calls, and every other call
 * alone. Calls whose tool is unknown or whose envelope is broken never
 * execute, so they do not split a run of reads.
 *
 * @since 0.1.0
 * @category scheduling
 */
export const planTurn = (
  calls: ReadonlyArray<unknown>,
  isReadOnly: (call: unknown) => boolean,
  skip: ReadonlySet<number>,
  parallel: boolean
): ReadonlyArray<Batch> => {
  const batches: Array<Batch> = []
  let run: Array<number> = []
  const flush = () => {
    if (run.length > 0) batches.push({ indices: run, concurrent: run.length > 1 })
    run = []
  }
  for (let i = 0; i < calls.length; i++) {
    if (skip.has(i)) continue
    if (parallel && isReadOnly(calls[i])) {
      run.push(i)
    } else {
      flush()
      batches.push({ indices: [i], concurrent: false })
    }
  }
  flush()
  return batches
}

/**
 * Later calls that reuse an earlier call's id, with that id.
 *
 * @since 0.1.0
 * @category scheduling
 */
export const duplicateIds = (calls: ReadonlyArray<unknown>): ReadonlyMap<number, string> => {
  const duplicates = new Map<number, string>()
  const seen = new Set<string>()
  for (let i = 0; i < calls.length; i++) {
    const id = Pipeline.callIdOf(calls[i])
    if (id === "") continue
    if (seen.has(id)) duplicates.set(i, id)
    else seen.add(id)
  }
  return duplicates
}

/**
 * What a turn reads from the fiber that runs it, once, in one step: read
 * one by one, the five cost more than a one-call turn's stages.
 */
const turnContext = Effect.withFiberRuntime<
  readonly [Runtime.Runtime<never>, Clock.Clock, Tracer.Tracer, boolean, Option.Option<Tracer.AnySpan>]
>((fiber, status) => {
  const context = fiber.currentContext
  return Effect.succeed(
    [
      Runtime.make({ context, runtimeFlags: status.runtimeFlags, fiberRefs: fiber.getFiberRefs() }),
      Context.get(fiber.currentDefaultServices, Clock.Clock),
      fiber.currentTracer,
      fiber.getFiberRef(FiberRef.currentTracerEnabled),
      Context.getOption(context, Tracer.ParentSpan)
    ] as const
  )
})

const noDuplicates: ReadonlyMap<number, string> = new Map()
const noSkips: ReadonlySet<number> = new Set()

/** `Effect.suspend(f)` evaluated now, where the effect is built as it runs: a throw is a defect. */
const now = <A>(f: () => Effect.Effect<A>): Effect.Effect<A> => {
  try {
    return f()
  } catch (defect) {
    return Exit.die(defect)
  }
}

/** The state of one turn, shared by the scheduler and the runner of its calls. */
export interface Turn {
  readonly calls: ReadonlyArray<unknown>
  readonly results: Array<ToolResult.ToolResult | undefined>
  readonly clock: Clock.Clock
  readonly options: TurnOptions | undefined
  readonly tracer: Tracer.Tracer | undefined
  readonly parentSpan: Option.Option<Tracer.AnySpan>
  readonly stageSpans: boolean
  /** {@link CallTrace.TraceValues} of the fiber that runs the turn. */
  readonly traceValues: boolean
  readonly env: Pipeline.ExecuteEnv
  /** The turn's `outputBudget`, as it is spent. */
  readonly budget: OutputBudget.Budget | undefined
  interruptReason: string | undefined
  /** The call whose denial stopped the turn. */
  stoppedBy: number | undefined
  failedAt: number | undefined
}

/** What the scheduler needs from the one-call runner. */
export interface Runner {
  /**
   * One call through every stage; the result lands in `turn.results[index]`,
   * through {@link finish}. It never fails: whatever happens is the result.
   * The call starts when this is called, so it is called only where the
   * effect is built as it runs (as with `Steps`): a call done at once then
   * leaves an `Exit`, which costs the run loop nothing.
   */
  readonly runOne: (turn: Turn, index: number) => Effect.Effect<void>
  /** Shapes an error into the call's result and finishes the call with it. */
  readonly fail: (turn: Turn, index: number, error: ToolError.ToolError, startedAt: number) => Effect.Effect<void>
  /** The name a result, a message or a span may show. */
  readonly shownName: (name: string) => string
  readonly redactText: (text: string) => string
}

/** What a scheduler is made of: the runner, and the few settings it reads itself. */
export interface Env {
  readonly runner: Runner
  readonly registry: Registry.Service
  readonly redactor: Redactor.Service
  /** How long an interrupted handler may take to clean up, in milliseconds. */
  readonly cleanupMillis: number
}

/** A scheduler: the turn side of the runtime's `Service`. */
export interface Scheduler {
  readonly runTurn: (
    calls: ReadonlyArray<ToolCall.Input>,
    turnOptions?: TurnOptions
  ) => Effect.Effect<ReadonlyArray<ToolResult.ToolResult>>
  readonly plan: (calls: ReadonlyArray<ToolCall.Input>, turnOptions?: TurnOptions) => ReadonlyArray<Batch>
}

/**
 * Records a call's result in its place, the one way a result reaches the
 * turn. In a turn with an output budget, a result the budget holds back
 * (it may be cut once every size is known) is in place already, so nothing
 * counts it missing, but its `CallFinished` waits for the cut.
 */
export const finish = (
  turn: Turn,
  index: number,
  result: ToolResult.ToolResult,
  fit?: OutputBudget.Fit
): Effect.Effect<void> => {
  turn.results[index] = result
  if (result.isError && turn.failedAt === undefined) turn.failedAt = index
  if (fit !== undefined && turn.budget !== undefined && !turn.budget.offer(index, result, fit)) return Effect.void
  const onEvent = turn.options?.onEvent
  return onEvent === undefined ? Effect.void : onEvent({ _tag: "CallFinished", index, result })
}

/** Cuts the results the budget held back, and sends their events, in call order. */
const settleBudget = (turn: Turn): Effect.Effect<void> => {
  const budget = turn.budget
  if (budget === undefined) return Effect.void
  return Effect.flatMap(budget.settle(), (settled) => {
    const onEvent = turn.options?.onEvent
    const inOrder = [...settled].sort(([a], [b]) => a - b)
    for (const [index, result] of inOrder) turn.results[index] = result
    return onEvent === undefined ? Effect.void : Effect.forEach(
      inOrder,
      ([index, result]) => onEvent({ _tag: "CallFinished", index, result }),
      { discard: true }
    )
  })
}

/** The scheduler of a runtime, running each call through `runner`. */
export const make = ({ cleanupMillis, redactor, registry, runner }: Env): Scheduler => {
  const { fail, redactText, runOne, shownName } = runner
  // One function for the runtime's life: the loggers it wraps are kept by it.
  const redactLog = (text: string) => redactor.redact(text).text

  const isReadOnly = (call: unknown) => {
    const name = Pipeline.toolNameOf(call)
    const entry = registry.get(name)
    return entry === undefined ? true : entry.tool.readOnly
  }

  const runBatch = (turn: Turn, batch: Batch, concurrency: number): Effect.Effect<void> => {
    const onEvent = turn.options?.onEvent
    const started = onEvent === undefined
      ? Effect.void
      : onEvent({ _tag: "BatchStarted", indices: batch.indices, concurrent: batch.concurrent })
    if (!batch.concurrent) return Steps.flatMap(started, () => runOne(turn, batch.indices[0]!))
    return Effect.zipRight(started, pool(turn, batch.indices, Math.max(1, Math.min(concurrency, batch.indices.length))))
  }

  /**
   * Workers pulling the next index, at most `max` of them, started only
   * when needed: the batch's own fiber is the first, and another is started
   * only when calls are still left at the end of the job in which a worker
   * took one (the worker then waits in a call: for its handler, a lock, a
   * slot, a question). A
   * turn of calls that finish at once starts no fiber at all; forking the
   * whole pool up front was most of a short turn's cost.
   */
  const pool = (turn: Turn, indices: ReadonlyArray<number>, max: number): Effect.Effect<void> =>
    Effect.flatMap(Effect.runtime<never>(), (runtime) => {
      let next = 0
      let active = 1
      // Set once the batch is interrupted: a worker not yet started must not start then.
      let stopped = false
      const extra = new Set<Fiber.RuntimeFiber<void>>()
      const done = Deferred.unsafeMake<void>(FiberId.none)
      const finished = () => {
        if (--active === 0) Deferred.unsafeDone(done, Exit.void)
      }
      const spawn = () => {
        active++
        const fiber = Runtime.runFork(runtime)(worker)
        extra.add(fiber)
        fiber.addObserver((exit) => {
          extra.delete(fiber)
          // A worker's calls always answer; a defect is the batch's, not lost.
          if (Exit.isFailure(exit) && !Exit.isInterrupted(exit)) Deferred.unsafeDone(done, exit)
        })
      }
      const worker: Effect.Effect<void> = Effect.suspend(() => {
        if (next >= indices.length) {
          finished()
          return Effect.void
        }
        const index = indices[next++]!
        if (active < max && next < indices.length) {
          // Runs once the current job is over. By then the worker either waits in this call, or
          // has gone on to the next ones and waits in one of them, or has run them all: calls
          // left means a call waits, and a worker started now takes the next.
          void Promise.resolve().then(() => {
            if (!stopped && active < max && next < indices.length) spawn()
          })
        }
        return Steps.flatMap(runOne(turn, index), () => worker)
      })
      return worker.pipe(
        Effect.zipRight(Deferred.await(done)),
        Effect.onInterrupt(() => {
          stopped = true
          return Fiber.interruptAll(extra)
        })
      )
    })

  const runTurn = (
    calls: ReadonlyArray<ToolCall.Input>,
    turnOptions?: TurnOptions
  ): Effect.Effect<ReadonlyArray<ToolResult.ToolResult>> =>
    Effect.flatMap(turnContext, ([runtime, clock, tracer, tracerEnabled, parentSpan]) => {
      // Effect's built-in tracer exports nothing: under it no span of a turn
      // could ever be read, and making them is a third of a short turn's cost.
      const traced = tracerEnabled && CallTrace.isExporting(tracer)
      const turnTrace = traced
        ? tracer.span(
          "tool_runtime.turn",
          parentSpan,
          Context.empty(),
          [],
          clock.unsafeCurrentTimeNanos(),
          "internal"
        )
        : undefined
      turnTrace?.attribute("tool.calls", calls.length)
      const traceValues = Context.get(runtime.context, CallTrace.TraceValues)
      const watchdog = new Watchdog.Watchdog(clock, cleanupMillis)
      let handlers: Runtime.Runtime<never> | undefined
      const onEvent = turnOptions?.onEvent
      const env: Pipeline.ExecuteEnv = {
        watchdog,
        redactor,
        runtime: () => (handlers ??= Pipeline.handlerRuntime(runtime, redactLog)),
        onProgress: onEvent === undefined
          ? undefined
          : (callId, toolName, report) => onEvent({ _tag: "Progress", callId, toolName, ...report }),
        // Read when a handler is interrupted, by which time `turn` exists.
        interruptReason: () => turn.interruptReason ?? "the turn was interrupted",
        client: turnOptions?.client,
        keyScope: turnOptions?.sessionId === undefined && turnOptions?.turnId === undefined
          ? IdempotencyKey.unscoped
          : { sessionId: turnOptions.sessionId ?? "", turnId: turnOptions.turnId ?? "" }
      }
      const turn: Turn = {
        calls,
        results: new Array(calls.length),
        clock,
        options: turnOptions,
        tracer: traced ? tracer : undefined,
        parentSpan: turnTrace === undefined ? parentSpan : Option.some(turnTrace),
        stageSpans: CallTrace.isExporting(tracer),
        traceValues,
        env,
        budget: OutputBudget.isUnbounded(turnOptions?.outputBudget)
          ? undefined
          : new OutputBudget.Budget(turnOptions!.outputBudget!, calls.length),
        interruptReason: undefined,
        failedAt: undefined,
        stoppedBy: undefined
      }
      // A turn of one call has no duplicate, and most turns none: no set to make for them.
      const duplicates = calls.length < 2 ? noDuplicates : duplicateIds(calls)
      const batches = planTurn(
        calls,
        isReadOnly,
        duplicates.size === 0 ? noSkips : new Set(duplicates.keys()),
        turnOptions?.parallel ?? true
      )
      const concurrency = turnOptions?.concurrency ?? 8
      const stopOnError = turnOptions?.stopOnError ?? false

      // Most turns are one batch (one call, or reads together): nothing to stop before it.
      const runAll = () =>
        batches.length === 1
          ? runBatch(turn, batches[0]!, concurrency)
          : Effect.forEach(batches, (batch) => {
            if (turn.stoppedBy !== undefined || (stopOnError && turn.failedAt !== undefined)) return Effect.void
            return runBatch(turn, batch, concurrency)
          }, { discard: true })

      const interruptWhen = turnOptions?.interruptWhen
      const client = turnOptions?.client
      // A turn starts its calls now: this runs as the turn runs, and calls done at once leave an
      // `Exit` (see `Runner.runOne`). What they do later (an effect, such as a policy reading the
      // client channel) still runs inside the turn's wrappers below. A turn with a race starts
      // them in the race's own fiber, as it always did, the one its end interrupts. A throw is
      // what `Effect.suspend` makes of it.
      const loop = interruptWhen === undefined ? now(runAll) : Effect.suspend(runAll)
      const body = interruptWhen === undefined ? loop : Effect.raceFirst(
        loop,
        Effect.flatMap(interruptWhen, (reason) =>
          Effect.sync(() => {
            turn.interruptReason = reason
          }))
      )

      // What is left once the calls are done: a result for each call that has none, the budget's cuts.
      const fill = (): Effect.Effect<void> | undefined => {
        let pending: Array<Effect.Effect<void>> | undefined
        for (let i = 0; i < calls.length; i++) {
          if (turn.results[i] !== undefined) continue
          const toolName = shownName(Pipeline.toolNameOf(calls[i]))
          const duplicate = duplicates.get(i)
          const error = duplicate !== undefined
            ? new ToolError.DuplicateCallId({ toolName, callId: redactText(duplicate) })
            : new ToolError.NotExecuted({
              toolName,
              reason: turn.interruptReason !== undefined
                ? `the turn was interrupted before it started (${turn.interruptReason})`
                : turn.stoppedBy !== undefined
                ? `the user stopped the turn when denying an earlier call (${
                  ToolError.printableName(redactText(Pipeline.callIdOf(calls[turn.stoppedBy])))
                })`
                : turn.failedAt !== undefined
                ? `an earlier call (${
                  ToolError.printableName(redactText(Pipeline.callIdOf(calls[turn.failedAt])))
                }) failed and this turn stops at the first failure`
                : "the turn ended before it started"
            }) // A call that never ran took no time.
          ;(pending ??= []).push(fail(turn, i, error, clock.unsafeCurrentTimeMillis()))
        }
        return pending === undefined ? undefined : Effect.all(pending, { discard: true })
      }
      const results = turn.results as ReadonlyArray<ToolResult.ToolResult>
      const done = Effect.succeed(results)
      const finish = () => {
        const filled = fill()
        if (filled === undefined && turn.budget === undefined) return done
        return Effect.as(Effect.zipRight(filled ?? Effect.void, settleBudget(turn)), results)
      }

      // Calls all done at once started no handler fiber, hence no sleeper: nothing to end, no
      // interruption to guard against, and the results are known now.
      const ran = Exit.isExit(body as unknown) && watchdog.closeIfIdle()
        ? Steps.flatMap(body, () => now(finish))
        : Effect.flatMap(
          Effect.ensuring(
            client === undefined ? body : Effect.locally(body, ClientRequests.currentChannel, client),
            watchdog.close()
          ),
          () => Effect.suspend(finish)
        )
      return turnTrace === undefined ? ran : Effect.onExit(ran, (exit) =>
        Effect.sync(() =>
          turnTrace.end(
            clock.unsafeCurrentTimeNanos(),
            CallTrace.redactExit(exit, redactText, { values: traceValues })
          )
        ))
    })

  return {
    runTurn,
    plan: (calls, turnOptions) =>
      planTurn(calls, isReadOnly, new Set(duplicateIds(calls).keys()), turnOptions?.parallel ?? true)
  }
}

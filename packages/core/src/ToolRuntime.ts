/**
 * The runtime: takes the calls of one model turn and returns exactly one
 * `ToolResult` per call, in call order, whatever happens.
 *
 * Scheduling follows the tools' read-only marks: consecutive read-only
 * calls form a batch that runs concurrently; any other call waits for what
 * runs before it and runs alone. Calls that never run (the turn was
 * interrupted, an earlier failure stopped the turn, a duplicate id) still get
 * a result saying why, so the conversation sent back to the provider is
 * never malformed.
 *
 * It is past the house's ~600 lines because `make` holds two concepts that
 * are not apart yet: the turn scheduler (`runTurn`, `runBatch`) and the
 * one-call runner (`runOne`, `runStages`). They share the closures of
 * `make` (the services, the locks, the shaping settings) and the `Turn`,
 * whose type names the public `TurnOptions`; parting them means passing
 * that state by hand and choosing where the turn's public types live, a
 * change of shape rather than a move of code, left to an issue of its own.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import * as ArtifactStore from "./ArtifactStore.js"
import * as CallTrace from "./CallTrace.js"
import * as ForeignText from "./ForeignText.js"
import * as Hooks from "./Hooks.js"
import * as Pipeline from "./Pipeline.js"
import * as Policy from "./Policy.js"
import * as Redactor from "./Redactor.js"
import * as Registry from "./Registry.js"
import * as ResourceLocks from "./ResourceLocks.js"
import type * as Tool from "./Tool.js"
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
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Largest arguments accepted, in characters. Default 1,000,000. */
  readonly maxInputChars?: number | undefined
  /** How long an interrupted handler may take to clean up before it is abandoned. Default 5 s. */
  readonly cleanupTimeout?: Duration.DurationInput | undefined
  /** Preview of a truncated success, in characters. Default 2,000. */
  readonly previewChars?: number | undefined
  /** Head plus tail kept of a truncated failure, in characters. Default 10,000. */
  readonly failureKeepChars?: number | undefined
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
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly runTurn: (
    calls: ReadonlyArray<ToolCall.Input>,
    options?: TurnOptions
  ) => Effect.Effect<ReadonlyArray<ToolResult.ToolResult>>
  readonly runCall: (call: ToolCall.Input, options?: TurnOptions) => Effect.Effect<ToolResult.ToolResult>
  /** How a turn would be scheduled, without running it. */
  readonly plan: (calls: ReadonlyArray<ToolCall.Input>, options?: TurnOptions) => ReadonlyArray<Batch>
  readonly registry: Registry.Service
}

/**
 * @since 0.1.0
 * @category tags
 */
export class ToolRuntime extends Context.Tag("@tool-runtime/core/ToolRuntime")<ToolRuntime, Service>() {}

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

/** What a turn reads from the fiber that runs it, once. */
const turnContext = Effect.all([
  Effect.runtime<never>(),
  Effect.clock,
  Effect.tracer,
  FiberRef.get(FiberRef.currentTracerEnabled),
  Effect.serviceOption(Tracer.ParentSpan)
])

interface Turn {
  readonly calls: ReadonlyArray<unknown>
  readonly results: Array<ToolResult.ToolResult | undefined>
  readonly clock: Clock.Clock
  readonly options: TurnOptions | undefined
  readonly tracer: Tracer.Tracer | undefined
  readonly parentSpan: Option.Option<Tracer.AnySpan>
  readonly stageSpans: boolean
  readonly env: Pipeline.ExecuteEnv
  interruptReason: string | undefined
  /** The call whose denial stopped the turn. */
  stoppedBy: number | undefined
  failedAt: number | undefined
}

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

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<
  Service,
  never,
  Registry.Registry | Policy.Policy | Redactor.Redactor | ArtifactStore.ArtifactStore
> =>
  Effect.gen(function*() {
    const registry = yield* Registry.Registry
    const policy = yield* Policy.Policy
    const redactor = yield* Redactor.Redactor
    const store = yield* ArtifactStore.ArtifactStore
    // Optional: a runtime without hooks runs none.
    const hooks = Option.getOrUndefined(yield* Effect.serviceOption(Hooks.Hooks))
    const maxInputChars = options?.maxInputChars ?? 1_000_000
    const cleanupMillis = Duration.toMillis(options?.cleanupTimeout ?? Duration.seconds(5))
    const shapeEnv: Pipeline.ShapeEnv = {
      redactor,
      store,
      previewChars: options?.previewChars ?? 2_000,
      failureKeepChars: options?.failureKeepChars ?? 10_000,
      defaultLimit: 30_000,
      readToolName: registry.get(ArtifactStore.readToolName) === undefined ? undefined : ArtifactStore.readToolName
    }

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

    const isReadOnly = (call: unknown) => {
      const name = Pipeline.toolNameOf(call)
      const entry = registry.get(name)
      return entry === undefined ? true : entry.tool.readOnly
    }

    const finish = (turn: Turn, index: number, result: ToolResult.ToolResult): Effect.Effect<void> => {
      turn.results[index] = result
      if (result.isError && turn.failedAt === undefined) turn.failedAt = index
      const onEvent = turn.options?.onEvent
      return onEvent === undefined ? Effect.void : onEvent({ _tag: "CallFinished", index, result })
    }

    const fail = (turn: Turn, index: number, error: ToolError.ToolError, startedAt: number) =>
      Effect.flatMap(
        Pipeline.shape(
          shapeEnv,
          registry.get(Pipeline.toolNameOf(turn.calls[index]))?.tool,
          Pipeline.callIdOf(turn.calls[index]),
          shownName(Pipeline.toolNameOf(turn.calls[index])),
          { _tag: "Failure", error },
          turn.clock.unsafeCurrentTimeMillis() - startedAt
        ),
        (result) => finish(turn, index, result)
      )

    /**
     * One call through every stage; the result lands in `turn.results[index]`.
     * A defect anywhere in them (a tool's `resources` or `subject` that
     * throws, a value no stage could read) becomes that call's result, never
     * the turn's death: the calls beside it keep theirs.
     */
    const runOne = (turn: Turn, index: number): Effect.Effect<void> =>
      Effect.suspend(() => {
        const startedAt = turn.clock.unsafeCurrentTimeMillis()
        return Effect.catchAllDefect(runStages(turn, index, startedAt), (defect) => {
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
      })

    const runStages = (turn: Turn, index: number, startedAt: number): Effect.Effect<void> =>
      Effect.suspend(() => {
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
            shown,
            turn.stageSpans,
            redactText
          )
        // The stage running since the last boundary; `undefined` while one
        // that has a span of its own (authorize) is open.
        let current: CallTrace.Stage | undefined = "parse"
        const next = (stage: CallTrace.Stage) => {
          if (current !== undefined) trace?.stage(current)
          current = stage
        }
        const complete = (tool: Tool.Any | undefined, outcome: Pipeline.Outcome) =>
          Effect.flatMap(
            Pipeline.shape(shapeEnv, tool, callId, shown, outcome, clock.unsafeCurrentTimeMillis() - startedAt),
            (result) => {
              if (trace !== undefined) {
                trace.stage("shape")
                trace.end(result)
              }
              return finish(turn, index, result)
            }
          )
        const run = (entry: Registry.Entry, input: unknown, note: string | undefined) => {
          next("execute")
          const span = trace?.open("execute")
          const sandbox = entry.tool.sandbox?.(input)
          return Pipeline.execute(entry, callId, input, turn.env, span ?? trace?.span, (error) => {
            if (span !== undefined) trace!.close(span, Exit.fail(error))
            return complete(entry.tool, { _tag: "Failure", error, sandbox })
          }).pipe(
            Effect.match({
              onFailure: (error): Pipeline.Outcome => {
                if (span !== undefined) trace!.close(span, Exit.fail(error))
                return { _tag: "Failure", error, sandbox }
              },
              onSuccess: (value): Pipeline.Outcome => {
                if (span !== undefined) trace!.close(span, Exit.void)
                return { _tag: "Success", value, note, sandbox }
              }
            }),
            (executed) =>
              hooks === undefined ?
                executed :
                Effect.flatMap(executed, (outcome) =>
                  hooks.after({ callId, tool: entry.tool, input, outcome }).pipe(
                    Effect.catchAll((error) => Effect.succeed<Pipeline.Outcome>({ _tag: "Failure", error }))
                  ))
          )
        }
        // Waiting for a resource happens before the deadlines start.
        const locked = (entry: Registry.Entry, input: unknown, note: string | undefined) => {
          const resources = entry.tool.resources(input)
          return resources.length === 0 ? run(entry, input, note) : locks.with(resources, run(entry, input, note))
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
        next("lookup")
        const entry = registry.get(parsed.right.toolName)
        if (entry === undefined) {
          return Effect.matchEffect(Pipeline.lookup(registry, parsed.right.toolName), {
            onFailure: settle,
            onSuccess: () => Effect.void
          })
        }
        next("validate")
        // The arguments being validated, for an error that must quote them redacted.
        let validating: unknown = parsed.right.input
        const stages = Effect.flatMap(Pipeline.validate(entry, parsed.right.input), (input) => {
          next("authorize")
          const request = { callId, tool: entry.tool, input, subject: entry.tool.subject(input) }
          return Effect.flatMap(authorizing(Pipeline.authorize(policy, request)), (verdict) => {
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
        return guard(Effect.flatMap(
          // catchAllCause rather than catchAll, which adds a step to every
          // success: this runs once per call, and it pays for runOne's net.
          Effect.catchAllCause(stages, (cause) => {
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
      })

    const runBatch = (turn: Turn, batch: Batch, concurrency: number): Effect.Effect<void> => {
      const onEvent = turn.options?.onEvent
      const started = onEvent === undefined
        ? Effect.void
        : onEvent({ _tag: "BatchStarted", indices: batch.indices, concurrent: batch.concurrent })
      if (!batch.concurrent) return Effect.zipRight(started, runOne(turn, batch.indices[0]!))
      // A fixed pool of workers pulling the next index: one fiber per worker,
      // not per call.
      let next = 0
      const indices = batch.indices
      const worker = Effect.whileLoop({
        while: () => next < indices.length,
        body: () => runOne(turn, indices[next++]!),
        step: () => {}
      })
      const workers = Math.max(1, Math.min(concurrency, indices.length))
      return Effect.zipRight(
        started,
        Effect.all(Array.from({ length: workers }, () => worker), { concurrency: "unbounded", discard: true })
      )
    }

    const runTurn = (
      calls: ReadonlyArray<ToolCall.Input>,
      turnOptions?: TurnOptions
    ): Effect.Effect<ReadonlyArray<ToolResult.ToolResult>> =>
      Effect.flatMap(turnContext, ([runtime, clock, tracer, tracerEnabled, parentSpan]) => {
        const turnTrace = tracerEnabled
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
        const watchdog = new Watchdog.Watchdog(clock, cleanupMillis)
        const onEvent = turnOptions?.onEvent
        const env: Pipeline.ExecuteEnv = {
          watchdog,
          redactor,
          runtime,
          onProgress: onEvent === undefined
            ? undefined
            : (callId, toolName, message) => onEvent({ _tag: "Progress", callId, toolName, message }),
          // Read when a handler is interrupted, by which time `turn` exists.
          interruptReason: () => turn.interruptReason ?? "the turn was interrupted"
        }
        const turn: Turn = {
          calls,
          results: new Array(calls.length),
          clock,
          options: turnOptions,
          tracer: tracerEnabled ? tracer : undefined,
          parentSpan: turnTrace === undefined ? parentSpan : Option.some(turnTrace),
          stageSpans: CallTrace.isExporting(tracer),
          env,
          interruptReason: undefined,
          failedAt: undefined,
          stoppedBy: undefined
        }
        const duplicates = duplicateIds(calls)
        const batches = planTurn(calls, isReadOnly, new Set(duplicates.keys()), turnOptions?.parallel ?? true)
        const concurrency = turnOptions?.concurrency ?? 8
        const stopOnError = turnOptions?.stopOnError ?? false

        const loop = Effect.forEach(batches, (batch) => {
          if (turn.stoppedBy !== undefined || (stopOnError && turn.failedAt !== undefined)) return Effect.void
          return runBatch(turn, batch, concurrency)
        }, { discard: true })

        const interruptWhen = turnOptions?.interruptWhen
        const body = interruptWhen === undefined ? loop : Effect.raceFirst(
          loop,
          Effect.flatMap(interruptWhen, (reason) =>
            Effect.sync(() => {
              turn.interruptReason = reason
            }))
        )

        const fill = Effect.suspend(() => {
          const pending: Array<Effect.Effect<void>> = []
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
              })
            // A call that never ran took no time.
            pending.push(fail(turn, i, error, clock.unsafeCurrentTimeMillis()))
          }
          return Effect.all(pending, { discard: true })
        })

        return body.pipe(
          Effect.ensuring(watchdog.close()),
          Effect.zipRight(fill),
          Effect.onExit((exit) =>
            Effect.sync(() => turnTrace?.end(clock.unsafeCurrentTimeNanos(), CallTrace.redactExit(exit, redactText)))
          ),
          Effect.map(() => turn.results as ReadonlyArray<ToolResult.ToolResult>)
        )
      })

    return {
      registry,
      runTurn,
      runCall: (call, turnOptions) => Effect.map(runTurn([call], turnOptions), (results) => results[0]!),
      plan: (calls, turnOptions) =>
        planTurn(calls, isReadOnly, new Set(duplicateIds(calls).keys()), turnOptions?.parallel ?? true)
    } satisfies Service
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<
  ToolRuntime,
  never,
  Registry.Registry | Policy.Policy | Redactor.Redactor | ArtifactStore.ArtifactStore
> => Layer.effect(ToolRuntime, make(options))

/**
 * The runtime over the given tools, with the in-memory artifact store, the
 * default redactor and an allow-all policy. To use other services, compose
 * {@link layer} with your own layers instead.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDefault = <const Tools extends ReadonlyArray<Tool.Any>>(
  tools: Tools,
  options?: Options
): Layer.Layer<
  ToolRuntime,
  Registry.InvalidRegistry,
  Exclude<Tool.Requirements<Tools[number]>, ArtifactStore.ArtifactStore | Policy.Policy>
> => {
  // One store and one policy, shared by the runtime and by the tools that
  // page through the store or ask the policy about the paths they meet.
  const store = ArtifactStore.layerMemory()
  return layer(options).pipe(
    Layer.provide([Registry.layer(withReadTool(tools)), store, Redactor.layerDefault, Policy.layerAllowAll]),
    Layer.provide([store, Policy.layerAllowAll])
  )
}

/**
 * The tools with `read_output` added when it is not among them: a
 * truncation marker points to it, and a marker pointing to a tool the model
 * cannot call is a dead end.
 *
 * @since 0.4.0
 * @category tools
 */
export const withReadTool = <const Tools extends ReadonlyArray<Tool.Any>>(
  tools: Tools
): ReadonlyArray<Tools[number] | typeof ArtifactStore.readTool> =>
  tools.some((tool) => tool.name === ArtifactStore.readToolName) ? tools : [...tools, ArtifactStore.readTool]

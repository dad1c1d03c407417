/**
 * Tools whose handler runs in a worker thread (`isolation: "worker"`): a
 * deadline or an interruption ends the thread, so even a handler that never
 * yields (`while (true) {}`) is stopped, and the process stays responsive
 * while it runs.
 *
 * `make` takes the options of `Tool.make` and the URL of the module that
 * defines the tool (`import.meta.url`). On the main thread it returns an
 * ordinary `Tool` whose handler runs nothing of yours: it hands the call to
 * a worker of the tool's pool, which imports that module, where the same
 * `make` registers the real handler. Only data crosses: the input in its
 * encoded form (decoded again in the worker), the output encoded by the
 * `success` schema (or structured-cloned, without one), a typed failure as
 * its message, a defect as words. A worker that crashes, runs out of heap,
 * exits or is ended becomes an error result of that call, never of the
 * process, and the next call gets a fresh worker.
 *
 * Core stays free of Node: this module is the Node counterpart of an
 * isolation flag on `Tool.make`.
 *
 * @since 0.4.0
 */
import * as ForeignText from "@tool-runtime/core/ForeignText"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Runtime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as NodeUrl from "node:url"
import * as WorkerThreads from "node:worker_threads"
import * as WorkerHost from "./WorkerHost.js"

/**
 * V8 limits for each worker of a tool, in megabytes. A worker that reaches
 * its heap limit is ended by Node and the call is a `tool_defect`.
 *
 * @since 0.4.0
 * @category models
 */
export interface ResourceLimits {
  /** The old generation: most of the heap. */
  readonly maxOldGenerationSizeMb?: number | undefined
  readonly maxYoungGenerationSizeMb?: number | undefined
  readonly codeRangeSizeMb?: number | undefined
  /** The thread's stack; Node's default is 4 MB. */
  readonly stackSizeMb?: number | undefined
}

/**
 * The options of `Tool.make`, with a handler that runs in a worker and what
 * the worker needs to find it.
 *
 * @since 0.4.0
 * @category constructors
 */
export interface Options<Input, Output, E, R2> extends Omit<Tool.Options<Input, Output, E, never, R2>, "handler"> {
  /**
   * The module that defines this tool, as a URL (`import.meta.url`) or an
   * absolute path: each worker imports it. It must be importable on its own
   * (its top level should define tools, not start programs), and it must be
   * loadable by plain Node in a worker: a TypeScript module needs a loader,
   * given through `execArgv`.
   */
  readonly module: string | URL
  /** Limits of each worker's heap and stack. Default: Node's (no limit below the process's). */
  readonly resourceLimits?: ResourceLimits | undefined
  /**
   * How many idle workers are kept for the next calls. Each running call has
   * a worker of its own; calls beyond the pool start more, which end with
   * their call. Bound the number at once with `maxConcurrent`. Default 1.
   */
  readonly poolSize?: number | undefined
  /**
   * Node options for the workers (`["--import", "./register-loader.mjs"]`).
   * Default: the process's own.
   */
  readonly execArgv?: ReadonlyArray<string> | undefined
  /**
   * Runs the call, in the worker. It may return an Effect (run there with no
   * services) or a Promise: in a worker even a Promise can be stopped. Its
   * context reports progress and output, and asks the user or the client's
   * model, through the main thread.
   */
  readonly handler: (input: Input, context: Tool.Context) => Effect.Effect<Output, E> | PromiseLike<Output>
}

/**
 * A typed failure of the handler, as it crossed the boundary: its message,
 * and whether it said it is retryable or that its outcome is unknown. The
 * runtime reports it as `tool_failed`.
 *
 * @since 0.4.0
 * @category errors
 */
export class HandlerFailed extends Data.TaggedError("HandlerFailed")<{
  readonly detail: string
  readonly retryable: boolean
  readonly outcomeUnknown: boolean
}> {
  override get message() {
    return this.detail
  }
}

/**
 * The handler threw, died, or returned what cannot cross the boundary; the
 * worker lives on. A defect: the runtime reports it as `tool_defect`.
 *
 * @since 0.4.0
 * @category errors
 */
export class HandlerDied extends Data.TaggedError("HandlerDied")<{ readonly detail: string }> {
  override get message() {
    return this.detail
  }
  // The detail already names the error the handler threw (`TypeError: …`).
  override get name() {
    return "Error"
  }
}

/**
 * The worker itself ended before answering: it crashed, ran out of heap,
 * exited, or its module did not load. A defect (`tool_defect`); the pool
 * starts a fresh worker for the next call.
 *
 * @since 0.4.0
 * @category errors
 */
export class WorkerCrashed extends Data.TaggedError("WorkerCrashed")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
  // The reason says it was the worker: the result reads as a sentence.
  override get name() {
    return "Error"
  }
}

/**
 * What the handler of a worker tool fails with on the main thread.
 *
 * @since 0.4.0
 * @category models
 */
export type Failure = HandlerFailed | ToolError.RuleViolation

type ParametersInput = Schema.Schema<any, any> | Schema.Struct.Fields

type ParametersType<P> = P extends Schema.Schema<infer A, any> ? A
  : P extends Schema.Struct.Fields ? Schema.Struct.Type<P>
  : never

interface Settings {
  readonly name: string
  readonly module: string
  readonly poolSize: number
  readonly resourceLimits: WorkerThreads.ResourceLimits | undefined
  readonly execArgv: Array<string> | undefined
}

/** What the running call does with its worker's messages and its end. */
interface Listener {
  readonly message: (message: WorkerHost.FromWorker) => void
  readonly lost: (reason: string) => void
}

interface Slot {
  readonly worker: WorkerThreads.Worker
  readonly generation: number
  call: Listener | undefined
  /** The worker has loaded the tool's module. */
  ready: boolean
  /** Why the worker is ending, as first seen: an `error` event comes before the `exit`. */
  crash: string | undefined
  /** Its last call left work running in it: it ends instead of serving another call. */
  retire: boolean
}

const describeError = (e: unknown): string => {
  const text = ForeignText.describe(e)
  const name = ForeignText.read(e, "name")
  return typeof name === "string" && name !== "" && name !== "Error" ? `${name}: ${text}` : text
}

const text = (u: unknown, otherwise: string): string => typeof u === "string" ? u : otherwise

/**
 * The workers of one tool. Every worker has its listeners from birth, idle
 * or not: a worker that dies between calls (a timer its last call left)
 * would otherwise emit an `error` nobody handles, which ends the process.
 */
class Pool {
  private readonly idle: Array<Slot> = []
  private generation = 0

  constructor(private readonly settings: Settings) {}

  /** An idle worker, or a new one; it holds the process open while the call runs. */
  take(): Slot {
    let slot = this.idle.pop()
    // A worker that is already ending (its `error` came, its `exit` not yet) is left to end.
    while (slot !== undefined && slot.crash !== undefined) slot = this.idle.pop()
    slot ??= this.spawn()
    slot.worker.ref()
    return slot
  }

  private spawn(): Slot {
    const { execArgv, module, name, resourceLimits } = this.settings
    const workerData: WorkerHost.WorkerData = { [WorkerHost.key]: true, module, name }
    const worker = new WorkerThreads.Worker(WorkerHost.bootstrap, {
      workerData,
      ...(resourceLimits === undefined ? {} : { resourceLimits }),
      ...(execArgv === undefined ? {} : { execArgv })
    })
    const slot: Slot = {
      worker,
      generation: this.generation,
      call: undefined,
      ready: false,
      crash: undefined,
      retire: false
    }
    worker.on("message", (message: unknown) => {
      if (typeof message !== "object" || message === null) return
      const type = (message as WorkerHost.FromWorker).type
      if (type === "ready") slot.ready = true
      if (type === "leftover") {
        slot.retire = true
        return
      }
      if (type === "fatal") {
        // The module did not load: this worker can never answer. Its `exit` ends the call.
        slot.crash ??= text((message as { readonly detail?: unknown }).detail, "the worker cannot run the tool")
        void worker.terminate()
        return
      }
      slot.call?.message(message as WorkerHost.FromWorker)
    })
    worker.on("messageerror", (e) => {
      slot.crash ??= `a message from the worker could not be read: ${describeError(e)}`
      void worker.terminate()
    })
    worker.on("error", (e) => {
      slot.crash ??= ForeignText.read(e, "code") === "ERR_WORKER_OUT_OF_MEMORY"
        ? `the worker ran out of memory${
          resourceLimits?.maxOldGenerationSizeMb === undefined
            ? ""
            : ` (its heap limit is ${resourceLimits.maxOldGenerationSizeMb} MB)`
        }`
        : `the worker crashed with an error nothing caught: ${describeError(e)}`
    })
    worker.on("exit", (code) => {
      this.forget(slot)
      const call = slot.call
      slot.call = undefined
      call?.lost(slot.crash ?? `the worker exited with code ${code} before answering`)
    })
    return slot
  }

  /**
   * Starts workers until the pool is full, without waiting for them to load.
   * Best effort: a thread that cannot start is the next call's error, said there.
   */
  warm(): void {
    try {
      while (this.idle.length < this.settings.poolSize) {
        const slot = this.spawn()
        slot.worker.unref()
        this.idle.push(slot)
      }
    } catch {
      return
    }
  }

  /** A worker whose call ended with an answer, or never got it: kept for the next call while there is room. */
  give(slot: Slot): void {
    slot.call = undefined
    slot.worker.unref()
    const reusable = slot.crash === undefined && !slot.retire && slot.generation === this.generation
    if (reusable && this.idle.length < this.settings.poolSize) {
      this.idle.push(slot)
    } else {
      void slot.worker.terminate()
      if (slot.retire) this.replace(slot)
    }
  }

  /**
   * A fresh worker in place of one ended on purpose (a deadline, an
   * interruption, work left running), so the next call does not pay a
   * thread's start inside its own time limit. Not after a crash: a module
   * that cannot load would be started again and again.
   */
  private replace(ended: Slot): void {
    if (ended.generation === this.generation) this.warm()
  }

  /** Ends a worker and waits until its thread is gone: only then has the call stopped. */
  kill(slot: Slot): Effect.Effect<void> {
    return Effect.suspend(() => {
      slot.call = undefined
      this.forget(slot)
      return Effect.promise(() => slot.worker.terminate().then(() => undefined, () => undefined)).pipe(
        Effect.tap(() => this.replace(slot))
      )
    })
  }

  /** Ends the idle workers; those running calls end with their call. */
  close(): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.generation++
      const idle = this.idle.splice(0)
      return Effect.forEach(idle, (slot) => this.kill(slot), { concurrency: "unbounded", discard: true })
    })
  }

  private forget(slot: Slot): void {
    const i = this.idle.indexOf(slot)
    if (i >= 0) this.idle.splice(i, 1)
  }
}

const pools = new WeakMap<Tool.Any, Pool>()

const moduleUrl = (module: string | URL): string => {
  if (typeof module !== "string") return module.href
  // A bare absolute path, on any platform; URLs (`file:`, `data:`) as they are.
  return /^[a-z][a-z0-9+.-]+:/i.test(module) ? module : NodeUrl.pathToFileURL(module).href
}

const limitsOf = (limits: ResourceLimits | undefined): WorkerThreads.ResourceLimits | undefined => {
  if (limits === undefined) return undefined
  const defined = Object.entries(limits).filter(([, value]) => value !== undefined)
  return defined.length === 0 ? undefined : Object.fromEntries(defined)
}

/**
 * The main thread's side of a call: hand it to a worker, forward what the
 * worker reports to the call's context, and end with its answer. When the
 * call is interrupted (its deadline, its idle limit, its turn), the worker
 * is ended and the fiber waits for the thread to be gone, so the runtime's
 * `stopped: "proven"` means what it says.
 */
const dispatch = <Output>(
  pool: Pool,
  idleMillis: number | undefined,
  encodeInput: (input: unknown) => Either.Either<unknown, ParseResult.ParseError>,
  decodeOutput: ((output: unknown) => Either.Either<Output, ParseResult.ParseError>) | undefined
) =>
(input: unknown, context: Tool.Context): Effect.Effect<Output, Failure> =>
  Effect.suspend(() => {
    const encoded = encodeInput(input)
    if (Either.isLeft(encoded)) {
      return Effect.die(
        new HandlerDied({
          detail: `its input cannot be encoded for the worker: ${
            ParseResult.TreeFormatter.formatErrorSync(encoded.left)
          }`
        })
      )
    }
    return Effect.flatMap(Effect.runtime<never>(), (runtime) =>
      Effect.async<Output, Failure>((resume) => {
        let slot: Slot
        try {
          slot = pool.take()
        } catch (e) {
          resume(Effect.die(new WorkerCrashed({ reason: `the worker could not be started: ${describeError(e)}` })))
          return
        }
        // Reports and questions run as fibers of their own, ended with the call.
        const running = new Set<Fiber.RuntimeFiber<unknown, unknown>>()
        const fork = (effect: Effect.Effect<unknown>) => {
          const fiber = Runtime.runFork(runtime)(effect)
          running.add(fiber)
          fiber.addObserver(() => running.delete(fiber))
        }
        const end = () => {
          slot.call = undefined
          for (const fiber of running) fiber.unsafeInterruptAsFork(FiberId.none)
        }
        const answer = (effect: Effect.Effect<Output, Failure>) => {
          end()
          pool.give(slot)
          resume(effect)
        }
        // A worker starting (Node, then the module) is not a handler gone silent:
        // the idle clock counts from `ready`. The total limit still holds.
        let starting: Fiber.RuntimeFiber<unknown, unknown> | undefined
        if (!slot.ready && idleMillis !== undefined) {
          starting = Runtime.runFork(runtime)(
            Effect.repeat(context.output(""), Schedule.spaced(Duration.millis(Math.max(1, idleMillis / 4))))
          )
          running.add(starting)
        }
        // The call goes out only once the worker has loaded the module: a call
        // stopped before that never reached it, and the worker is kept.
        let posted = false
        const post = (): void => {
          posted = true
          try {
            slot.worker.postMessage(
              {
                type: "call",
                callId: context.callId,
                idempotencyKey: context.idempotencyKey,
                attempt: context.attempt,
                input: encoded.right
              } satisfies WorkerHost.ToWorker
            )
          } catch (e) {
            end()
            slot.crash ??= `the input cannot be sent to the worker: ${describeError(e)}`
            void slot.worker.terminate()
            resume(Effect.die(new HandlerDied({ detail: slot.crash })))
          }
        }
        const reply = (ask: number, ok: boolean, value: unknown) =>
          Effect.sync(() => {
            try {
              slot.worker.postMessage({ type: "answer", ask, ok, value } satisfies WorkerHost.ToWorker)
            } catch {
              // The worker is gone; its call ends through `exit`.
            }
          })
        slot.call = {
          message: (message) => {
            switch (message.type) {
              case "ready":
                if (starting !== undefined) {
                  running.delete(starting)
                  starting.unsafeInterruptAsFork(FiberId.none)
                }
                fork(context.output(""))
                return post()
              case "progress":
                return fork(context.progress(message.update))
              case "output":
                return fork(context.output(""))
              case "elicit":
                return fork(Effect.flatMap(
                  context.elicit({
                    message: text(message.message, ""),
                    schema: Schema.Unknown,
                    requestedSchema: message.requestedSchema
                  }),
                  (answer) => reply(message.ask, true, answer)
                ))
              case "sample":
                return fork(Effect.matchEffect(context.sample(message.request), {
                  onFailure: (error) => reply(message.ask, false, error.reason),
                  onSuccess: (sample) => reply(message.ask, true, sample)
                }))
              case "success": {
                if (decodeOutput === undefined) return answer(Effect.succeed(message.output as Output))
                const decoded = decodeOutput(message.output)
                return answer(
                  Either.isRight(decoded) ? Effect.succeed(decoded.right) : Effect.die(
                    new HandlerDied({
                      detail: `its output did not decode on the main thread: ${
                        ParseResult.TreeFormatter.formatErrorSync(decoded.left)
                      }`
                    })
                  )
                )
              }
              case "failure":
                return answer(Effect.fail(
                  new HandlerFailed({
                    detail: text(message.detail, "it failed"),
                    retryable: message.retryable === true,
                    outcomeUnknown: message.outcomeUnknown === true
                  })
                ))
              case "rule":
                return answer(Effect.fail(
                  new ToolError.RuleViolation({
                    reason: text(message.reason, "a rule was broken"),
                    ...(typeof message.fix === "string" ? { fix: message.fix } : {})
                  })
                ))
              case "defect":
                return answer(Effect.die(new HandlerDied({ detail: text(message.detail, "it died") })))
              case "fatal":
                // Seen by the pool, which ends the worker: the call ends with its `exit`.
                return
            }
          },
          lost: (reason) => {
            end()
            resume(Effect.die(new WorkerCrashed({ reason })))
          }
        }
        if (slot.ready) post()
        return Effect.suspend(() => {
          end()
          if (posted) return pool.kill(slot)
          pool.give(slot)
          return Effect.void
        })
      }))
  })

/**
 * Defines a tool whose handler runs in a worker thread. Call it at the top
 * level of the module `module` names, with the same arguments on both
 * threads: the main thread gets a `Tool` for the registry, and a worker
 * that imports the module gets the handler registered under `name`.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make = <
  const Name extends string,
  const P extends ParametersInput,
  Output,
  E = never,
  R2 = never
>(
  name: Name,
  options: Options<ParametersType<P>, Output, E, R2> & { readonly parameters: P }
): Tool.Tool<Name, ParametersType<P>, Output, Failure, R2> => {
  const { execArgv, handler, module, poolSize, resourceLimits, ...common } = options
  if (WorkerHost.isToolWorker()) {
    const tool = Tool.make(name, { ...common, handler: handler as any }) as Tool.Any
    WorkerHost.register(name, { parameters: tool.parameters, success: options.success, handler })
    return tool as unknown as Tool.Tool<Name, ParametersType<P>, Output, Failure, R2>
  }
  const pool = new Pool({
    name,
    module: moduleUrl(module),
    poolSize: Math.max(0, Math.floor(poolSize ?? 1)),
    resourceLimits: limitsOf(resourceLimits),
    execArgv: execArgv === undefined ? undefined : [...execArgv]
  })
  // The handler is the dispatcher, which needs the tool's own parameters schema.
  const tool = Tool.make(
    name,
    { ...common, handler: (input: unknown, context: Tool.Context) => run(input, context) } as any
  ) as Tool.Any
  const run = dispatch<Output>(
    pool,
    tool.idleTimeoutMillis,
    Schema.encodeEither(tool.parameters),
    options.success === undefined ? undefined : Schema.decodeUnknownEither(options.success)
  )
  pools.set(tool, pool)
  return tool as unknown as Tool.Tool<Name, ParametersType<P>, Output, Failure, R2>
}

/**
 * Ends the idle workers of a tool made by {@link make} (other tools are
 * ignored); workers running calls end with their call. The tool stays
 * usable: a later call starts a fresh worker.
 *
 * @since 0.4.0
 * @category lifecycle
 */
export const close = (tool: Tool.Any): Effect.Effect<void> => pools.get(tool)?.close() ?? Effect.void

/**
 * Starts the workers of a tool made by {@link make} (as many as its
 * `poolSize`) without waiting for them, so that its first call does not
 * pay for a thread's start and the module's loading within its time limit.
 *
 * @since 0.4.0
 * @category lifecycle
 */
export const warm = (tool: Tool.Any): Effect.Effect<void> => Effect.sync(() => pools.get(tool)?.warm())

/**
 * A layer that owns the tools' worker pools: building it starts their
 * workers ({@link warm}), releasing it (the runtime shutting down) ends
 * them. Idle workers never hold the process open, so without it a program
 * still exits, and a first call starts its worker.
 *
 * @since 0.4.0
 * @category lifecycle
 */
export const layerPools = (tools: Iterable<Tool.Any>): Layer.Layer<never> => {
  const all = [...tools]
  return Layer.scopedDiscard(
    Effect.acquireRelease(
      Effect.forEach(all, warm, { discard: true }),
      () => Effect.forEach(all, close, { discard: true })
    )
  )
}

/**
 * The worker side of `WorkerTool`: the table of handlers a module registers
 * when a worker thread imports it, the loop that runs one call at a time,
 * and the messages that go back to the main thread.
 *
 * Everything a handler hands over here may be hostile (a Proxy whose every
 * trap throws, a getter that throws, a value that cannot be cloned): it is
 * read only through guards and described in words inside the worker, so
 * that only plain strings, numbers and already-encoded outputs cross the
 * boundary. Whatever still goes wrong ends the worker, which the main
 * thread sees as a crash of the call, never of the process.
 *
 * @since 0.4.0
 */
import * as ClientRequests from "@tool-runtime/core/ClientRequests"
import * as ForeignText from "@tool-runtime/core/ForeignText"
import * as StableJson from "@tool-runtime/core/StableJson"
import type * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as WorkerThreads from "node:worker_threads"

/**
 * The key of the marker in a worker's `workerData`, and of the host on the
 * worker's `globalThis`: a registered symbol, so two copies of this library
 * (a bundle and a dependency) share one table.
 *
 * @since 0.4.0
 * @category protocol
 */
export const key = "@tool-runtime/node/WorkerTool"

/**
 * What a worker is started with.
 *
 * @since 0.4.0
 * @category protocol
 */
export interface WorkerData {
  readonly [key]: true
  /** The module URL to import: it registers the handler. */
  readonly module: string
  /** The tool whose calls this worker runs. */
  readonly name: string
}

/**
 * Messages to the worker: a call, or the answer to a question the handler
 * asked through its context.
 *
 * @since 0.4.0
 * @category protocol
 */
export type ToWorker =
  | {
    readonly type: "call"
    readonly callId: string
    readonly idempotencyKey: string
    readonly attempt: number
    readonly input: unknown
  }
  | { readonly type: "answer"; readonly ask: number; readonly ok: boolean; readonly value: unknown }

/**
 * Messages from the worker: `ready` once its module has loaded; signs of
 * life and questions while a call runs, then exactly one ending. `fatal` says the worker cannot run the tool at
 * all (its module did not load); the main thread then ends the worker.
 *
 * @since 0.4.0
 * @category protocol
 */
export type FromWorker =
  | { readonly type: "ready" }
  | { readonly type: "progress"; readonly update: string | Tool.Progress | undefined }
  | { readonly type: "output" }
  | {
    readonly type: "elicit"
    readonly ask: number
    readonly message: string
    readonly requestedSchema: ClientRequests.RequestedSchema
  }
  | { readonly type: "sample"; readonly ask: number; readonly request: ClientRequests.SampleRequest }
  | { readonly type: "success"; readonly output: unknown }
  | { readonly type: "failure"; readonly detail: string; readonly retryable: boolean; readonly outcomeUnknown: boolean }
  | { readonly type: "rule"; readonly reason: string; readonly fix: string | undefined }
  | { readonly type: "defect"; readonly detail: string }
  | { readonly type: "fatal"; readonly detail: string }
  /** Sent before a call's answer when the call left work running (a timer, a socket): its worker is not reused. */
  | { readonly type: "leftover"; readonly resources: ReadonlyArray<string> }

/**
 * A handler as the worker keeps it, with the schemas that carry its input in
 * and its output out.
 *
 * @since 0.4.0
 * @category models
 */
export interface Registered {
  readonly parameters: Schema.Schema<any, any>
  readonly success: Schema.Schema<any, any> | undefined
  readonly handler: (input: any, context: Tool.Context) => unknown
}

interface Host {
  readonly tools: Map<string, Registered>
  readonly serve: (name: string) => void
}

const hostKey = Symbol.for(key)

/**
 * Whether this thread is a worker started by `WorkerTool` (not a worker the
 * application started for its own ends).
 *
 * @since 0.4.0
 * @category guards
 */
export const isToolWorker = (): boolean =>
  !WorkerThreads.isMainThread && ForeignText.read(WorkerThreads.workerData, key) === true

/**
 * Records a handler in this worker's table; the bootstrap then serves the
 * one its worker was started for.
 *
 * @since 0.4.0
 * @category constructors
 */
export const register = (name: string, registered: Registered): void => {
  const global = globalThis as { [hostKey]?: Host }
  const host = global[hostKey] ??= { tools: new Map(), serve }
  host.tools.set(name, registered)
}

/**
 * The worker's entry point, as an ES module source: it imports the tool's
 * module (which registers the handler through `WorkerTool.make`) and starts
 * the host. It is a `data:` URL rather than a file so that a bundle of the
 * library still finds it, and it reaches the host through `globalThis`
 * because the module may have loaded another copy of this library.
 *
 * @since 0.4.0
 * @category protocol
 */
export const bootstrap = new URL(
  `data:text/javascript,${
    encodeURIComponent(`import { parentPort, workerData } from "node:worker_threads"
const say = (e) => {
  try {
    const m = typeof e === "object" && e !== null ? e.message : e
    return typeof m === "string" ? m : String(m)
  } catch {
    return "an error that cannot be read"
  }
}
try {
  await import(workerData.module)
  const host = globalThis[Symbol.for(${JSON.stringify(key)})]
  if (host === undefined) {
    parentPort.postMessage({ type: "fatal", detail: "the module " + workerData.module + " defines no worker tool" })
  } else {
    host.serve(workerData.name)
  }
} catch (e) {
  parentPort.postMessage({ type: "fatal", detail: "the module " + workerData.module + " could not be loaded: " + say(e) })
}`)
  }`
)

// Descriptions, in the worker, of whatever a handler ended with. Core
// describes in-process failures the same way; here the words are all that
// crosses, so a hostile value never reaches the main thread.

/** A thrown or rejected value, in words: `name: message` for errors, JSON for other values. */
export const describeThrown = (u: unknown): string => {
  if (u === undefined || u === null) return `${u} (no error value)`
  if (typeof u === "string") return u === "" ? "an empty string" : u
  if (typeof u !== "object") return ForeignText.describe(u)
  if (ForeignText.read(u, "_tag") === "UnknownException") {
    const wrapped = ForeignText.read(u, "message")
    return `${typeof wrapped === "string" ? wrapped : "it failed"}: ${describeThrown(ForeignText.read(u, "error"))}`
  }
  const message = ForeignText.read(u, "message")
  if (typeof message === "string" && message !== "") {
    const name = ForeignText.read(u, "name")
    return typeof name === "string" && name !== "" && name !== "Error" ? `${name}: ${message}` : message
  }
  const json = guarded(() => StableJson.stringify(u), "\"[unreadable]\"")
  return json === "\"[unreadable]\"" ? "a value that cannot be read" : json
}

const guarded = <A>(f: () => A, otherwise: A): A => {
  try {
    return f()
  } catch {
    return otherwise
  }
}

const describeFailure = (failure: unknown): FromWorker => {
  if (isInstance(failure, ToolError.RuleViolation)) {
    const violation = failure as ToolError.RuleViolation
    const reason = ForeignText.read(violation, "reason")
    const fix = ForeignText.read(violation, "fix")
    return {
      type: "rule",
      reason: typeof reason === "string" ? reason : "a rule was broken",
      fix: typeof fix === "string" ? fix : undefined
    }
  }
  const detail = typeof failure === "string"
    ? failure
    : failure === undefined || failure === null
    ? `it failed with ${failure} (no error value)`
    : describeThrown(failure)
  return {
    type: "failure",
    detail: detail === "a value that cannot be read" ? "it failed with a value that cannot be read" : detail,
    retryable: ForeignText.read(failure, "retryable") === true,
    outcomeUnknown: ForeignText.read(failure, "outcomeUnknown") === true
  }
}

const isInstance = (u: unknown, constructor: abstract new(...args: never) => unknown): boolean =>
  guarded(() => u instanceof constructor, false)

const number = (u: unknown): number | undefined => typeof u === "number" ? u : undefined

/** A progress report as plain data: the handler's own may be any value, a Proxy among them. */
const progressOf = (update: unknown): string | Tool.Progress | undefined => {
  if (typeof update === "string") return update
  if (typeof update !== "object" || update === null) return undefined
  const message = ForeignText.read(update, "message")
  return {
    message: typeof message === "string" ? message : undefined,
    progress: number(ForeignText.read(update, "progress")),
    total: number(ForeignText.read(update, "total"))
  }
}

/**
 * A rejection, already in words. Effect's own `die` reads the value it is
 * given (`in`), which throws on a hostile Proxy inside a promise callback:
 * the call would never end. Described first, nothing hostile reaches it.
 */
class Rejected extends Error {}

/** What the handler returned, as an Effect: in a worker a Promise can be stopped too, by ending the thread. */
const toEffect = (returned: unknown): Effect.Effect<unknown, unknown> => {
  if (guarded(() => Effect.isEffect(returned), false)) return returned as Effect.Effect<unknown, unknown>
  const then = ForeignText.read(returned, "then")
  if (typeof then === "function") {
    return Effect.async((resume) => {
      const rejected = (e: unknown) =>
        resume(Effect.die(new Rejected(guarded(() => describeThrown(e), "a value that cannot be read"))))
      try {
        Promise.resolve(returned as PromiseLike<unknown>).then((value) => resume(Effect.succeed(value)), rejected)
      } catch (e) {
        rejected(e)
      }
    })
  }
  return Effect.die(
    new TypeError(`the handler returned ${returned === null ? "null" : typeof returned}, not an Effect or a Promise`)
  )
}

const fromExit = (entry: Registered, exit: Exit.Exit<unknown, unknown>): FromWorker => {
  if (Exit.isSuccess(exit)) {
    if (entry.success === undefined) return { type: "success", output: exit.value }
    const encoded = Schema.encodeEither(entry.success)(exit.value)
    return Either.isRight(encoded)
      ? { type: "success", output: encoded.right }
      : {
        type: "defect",
        detail: `its output does not match its success schema: ${
          ParseResult.TreeFormatter.formatErrorSync(encoded.left)
        }`
      }
  }
  const failure = Cause.failureOption(exit.cause)
  if (failure._tag === "Some") return describeFailure(failure.value)
  const defect = Cause.dieOption(exit.cause)
  return {
    type: "defect",
    detail: defect._tag === "Some" ? describeThrown(defect.value) : "the handler interrupted itself"
  }
}

const activeResources = (): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1)
  return counts
}

/** The kinds of resource the thread holds beyond `baseline`. */
const leftover = (baseline: Map<string, number>): ReadonlyArray<string> => {
  const left: Array<string> = []
  for (const [kind, count] of activeResources()) if (count > (baseline.get(kind) ?? 0)) left.push(kind)
  return left
}

const serve = (name: string): void => {
  const port = WorkerThreads.parentPort
  if (port === null) return
  const host = (globalThis as { [hostKey]?: Host })[hostKey]
  const entry = host?.tools.get(name)
  const pending = new Map<number, (ok: boolean, value: unknown) => void>()
  let asks = 0
  /** Posts a message; what went wrong when it cannot be cloned (a function inside), which throws here, in the worker. */
  const post = (message: FromWorker): unknown => {
    try {
      port.postMessage(message)
      return undefined
    } catch (e) {
      return guarded(() => describeThrown(e), "a value that cannot be read")
    }
  }
  const finish = (message: FromWorker): void => {
    const failed = post(message)
    if (failed !== undefined) {
      post({ type: "defect", detail: `its result cannot be sent to the main thread: ${String(failed)}` })
    }
  }
  const ask = <A>(
    message: (ask: number) => FromWorker,
    answer: (ok: boolean, value: unknown) => Effect.Effect<A, ClientRequests.SampleError>
  ): Effect.Effect<A, ClientRequests.SampleError> =>
    Effect.flatten(Effect.async<Effect.Effect<A, ClientRequests.SampleError>>((resume) => {
      const id = ++asks
      pending.set(id, (ok, value) => resume(Effect.succeed(answer(ok, value))))
      const failed = post(message(id))
      if (failed !== undefined) {
        pending.delete(id)
        resume(Effect.succeed(answer(false, `the request cannot be sent to the main thread: ${String(failed)}`)))
      }
      return Effect.sync(() => pending.delete(id))
    }))
  const context = (callId: string, idempotencyKey: string, attempt: number): Tool.Context => ({
    callId,
    toolName: name,
    idempotencyKey,
    attempt,
    progress: (update) => Effect.sync(() => void post({ type: "progress", update: progressOf(update) })),
    output: () => Effect.sync(() => void post({ type: "output" })),
    elicit: <A, I>(question: ClientRequests.Question<A, I>) =>
      Effect.suspend(() => {
        const requestedSchema = Either.try(() =>
          question.requestedSchema ?? ClientRequests.requestedSchemaOf(question.schema)
        )
        if (Either.isLeft(requestedSchema)) return Effect.die(requestedSchema.left)
        const decode = Schema.decodeUnknownEither(question.schema, { errors: "all", onExcessProperty: "ignore" })
        return ask<ClientRequests.Answer<A>>(
          (id) => ({
            type: "elicit",
            ask: id,
            message: String(question.message),
            requestedSchema: requestedSchema.right
          }),
          (ok, value) => {
            if (!ok) return Effect.succeed({ action: "cancel", reason: String(value) })
            const answer = value as ClientRequests.Answer<unknown>
            if (answer.action !== "accept") return Effect.succeed(answer)
            const decoded = decode(answer.content)
            return Effect.succeed(
              Either.isRight(decoded)
                ? { action: "accept", content: decoded.right }
                : {
                  action: "cancel",
                  reason: `the answer did not match the question: ${
                    ParseResult.TreeFormatter.formatErrorSync(decoded.left)
                  }`
                }
            )
          }
        ).pipe(Effect.orDie)
      }),
    sample: (request) =>
      ask<ClientRequests.Sample>(
        (id) => ({ type: "sample", ask: id, request }),
        (ok, value) =>
          ok
            ? Effect.succeed(value as ClientRequests.Sample)
            : Effect.fail(new ClientRequests.SampleError({ reason: String(value) }))
      )
  })
  const run = async (callId: string, idempotencyKey: string, attempt: number, input: unknown): Promise<FromWorker> => {
    if (entry === undefined) {
      return { type: "defect", detail: `its module defines no worker tool named ${JSON.stringify(name)}` }
    }
    const decoded = Schema.decodeUnknownEither(entry.parameters)(input)
    if (Either.isLeft(decoded)) {
      return {
        type: "defect",
        detail: `its input did not decode in the worker: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`
      }
    }
    const exit = await Effect.runPromiseExit(
      Effect.suspend(() => toEffect(entry.handler(decoded.right, context(callId, idempotencyKey, attempt))))
    )
    return fromExit(entry, exit)
  }
  post({ type: "ready" })
  port.on("message", (message: ToWorker) => {
    if (message.type === "answer") {
      const resume = pending.get(message.ask)
      pending.delete(message.ask)
      resume?.(message.ok, message.value)
      return
    }
    if (message.type !== "call") return
    // What the thread holds open before the call (its port, the module's own
    // handles): a call that leaves more behind (a timer, a socket) would end
    // or disturb whichever call runs next in this worker.
    const baseline = activeResources()
    const answer = (result: FromWorker) => {
      const left = leftover(baseline)
      if (left.length > 0) post({ type: "leftover", resources: left })
      finish(result)
    }
    run(message.callId, message.idempotencyKey, message.attempt, message.input).then(
      answer,
      (e) => answer({ type: "defect", detail: guarded(() => describeThrown(e), "a value that cannot be read") })
    )
  })
}

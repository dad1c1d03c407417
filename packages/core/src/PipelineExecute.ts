/**
 * The execute stage: runs a tool's handler in its own fiber under its time
 * limits, and turns whatever the handler ends with (a value, a failure, a
 * defect, an interruption) into one of the stage's errors. It is apart
 * because it is the one stage that runs foreign code: the fiber, the
 * watchdog and the guarded reading of what a handler threw belong together
 * and to no other stage.
 *
 * @since 0.4.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Runtime from "effect/Runtime"
import * as Tracer from "effect/Tracer"
import * as ClientRequests from "./ClientRequests.js"
import * as ForeignText from "./ForeignText.js"
import * as HandlerLogs from "./HandlerLogs.js"
import * as IdempotencyKey from "./IdempotencyKey.js"
import type * as Redactor from "./Redactor.js"
import type * as Registry from "./Registry.js"
import * as StableJson from "./StableJson.js"
import type * as Tool from "./Tool.js"
import * as ToolError from "./ToolError.js"
import * as Watchdog from "./Watchdog.js"

/**
 * @since 0.1.0
 * @category models
 */
export type ExecuteError =
  | ToolError.Timeout
  | ToolError.IdleTimeout
  | ToolError.ToolFailed
  | ToolError.ToolDefect
  | ToolError.RuleViolation

/**
 * What execution needs from the turn around it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExecuteEnv {
  readonly watchdog: Watchdog.Watchdog
  readonly redactor: Redactor.Service
  /**
   * The turn's runtime, through {@link handlerRuntime}: handlers run with its
   * fiber refs (clock, logger, tracer). Made on first use: a turn whose
   * handlers all return their Effect done forks none.
   */
  readonly runtime: () => Runtime.Runtime<never>
  readonly onProgress:
    | ((callId: string, toolName: string, report: ProgressReport) => Effect.Effect<void>)
    | undefined
  readonly interruptReason: () => string
  /** How a handler reaches the user and the client's model, when the caller gave a way. */
  readonly client: ClientRequests.Channel | undefined
  /** The turn's session and turn ids, for each call's idempotency key. */
  readonly keyScope: IdempotencyKey.Scope
}

/**
 * A handler's progress as it leaves the call: the message redacted and
 * cleaned, the numbers only when they are finite and at least zero.
 *
 * @since 0.4.0
 * @category models
 */
export interface ProgressReport {
  readonly message: string | undefined
  readonly progress?: number | undefined
  readonly total?: number | undefined
}

const amount = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined

/** Reads a handler's report once, through guards: it may be any value, a getter that throws among them. */
const readReport = (update: unknown, redact: (text: string) => string): ProgressReport => {
  const field = (name: string): unknown => {
    const read = Either.try(() => (update as Record<string, unknown>)[name])
    return Either.isRight(read) ? read.right : undefined
  }
  const raw = typeof update === "string" ? update : Predicate.isObject(update) ? field("message") : undefined
  const message = typeof raw === "string" ? ForeignText.printable(redact(raw), ForeignText.defaultMax) : undefined
  if (!Predicate.isObject(update)) return { message }
  const progress = amount(field("progress"))
  const total = amount(field("total"))
  return {
    message,
    ...(progress === undefined ? {} : { progress }),
    ...(total === undefined ? {} : { total })
  }
}

// Failure and defect details are not redacted here: the error only ever
// leaves the runtime through `shape`, which redacts (and counts) everything.
// Whatever a handler or a library hands over may throw on every read (a
// getter, a Proxy trap): these descriptions read it only through guards.
// They are cleaned but not cut: a cut before redaction could split a secret
// so that no rule sees it. Shaping redacts first, then truncates the whole
// error text.

/**
 * What a handler returned, as the Effect the types promise. A JavaScript
 * handler (or one cast past the types) may return a Promise: it is already
 * running and cannot be stopped, and if it rejects with nobody awaiting it,
 * Node ends the whole process. It is marked handled and the call fails
 * with how to wrap it.
 */
const handlerEffect = <A, E, R>(returned: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  if (Effect.isEffect(returned)) return returned
  const value: unknown = returned
  const thenable = typeof value === "object" && value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  if (thenable) Promise.resolve(value as PromiseLike<unknown>).then(undefined, () => undefined)
  return Effect.die(
    new TypeError(
      thenable
        ? "the handler returned a Promise, not an Effect (wrap it in Effect.tryPromise); it may still be running"
        : `the handler returned ${value === null ? "null" : typeof value}, not an Effect`
    )
  )
}

/**
 * Calls the handler once: what it returned done (an `Exit`, which is what
 * `Effect.succeed` and `Effect.fail` make), a throw as a defect, or the
 * effect still to run.
 */
const callHandler = (
  tool: Tool.Any,
  input: unknown,
  context: Tool.Context
): Exit.Exit<unknown, unknown> | ReturnType<Tool.Any["handler"]> => {
  let returned: ReturnType<Tool.Any["handler"]>
  try {
    returned = tool.handler(input, context)
  } catch (defect) {
    return Exit.die(defect)
  }
  try {
    if (Exit.isExit(returned)) return returned
  } catch {
    // A value whose every read throws: the fiber reads it again, and dies of it.
  }
  return Effect.suspend(() => handlerEffect(returned))
}

const isInstance = (u: unknown, constructor: abstract new(...args: never) => unknown): boolean => {
  try {
    return u instanceof constructor
  } catch {
    return false
  }
}

/** A thrown or rejected value, in words: `name: message` for errors, JSON for other values. */
const describeThrown = (u: unknown): string => {
  if (u === undefined || u === null) return `${u} (no error value)`
  if (typeof u === "string") return u === "" ? "an empty string" : u
  if (typeof u !== "object") return ForeignText.describe(u)
  const message = ForeignText.read(u, "message")
  if (typeof message === "string" && message !== "") {
    const name = ForeignText.read(u, "name")
    return typeof name === "string" && name !== "" && name !== "Error" ? `${name}: ${message}` : message
  }
  const json = StableJson.stringify(u)
  return json === "\"[unreadable]\"" ? "a value that cannot be read" : json
}

/** Effect's own wrapper of a thrown or rejected value says nothing of it: the value does. */
const describeUnknownException = (u: unknown): string | undefined => {
  if (ForeignText.read(u, "_tag") !== "UnknownException") return undefined
  const message = ForeignText.read(u, "message")
  const cause = describeThrown(ForeignText.read(u, "error"))
  return message === "An unknown error occurred in Effect.tryPromise"
    ? `a promise it awaited was rejected: ${cause}`
    : message === "An unknown error occurred in Effect.try"
    ? `a function it called threw: ${cause}`
    : `${typeof message === "string" ? message : "it failed"}: ${cause}`
}

const describeDefect = (defect: unknown): string => {
  if (defect === undefined || defect === null) return `it died with ${defect} (no error value)`
  const unknown = describeUnknownException(defect)
  return ForeignText.clean(unknown ?? describeThrown(defect))
}

const describeFailure = (
  failure: unknown
): { readonly detail: string; readonly retryable: boolean; readonly outcomeUnknown: boolean } => {
  if (typeof failure === "string") {
    return { detail: ForeignText.clean(failure), retryable: false, outcomeUnknown: false }
  }
  if (failure === undefined || failure === null) {
    return { detail: `it failed with ${failure} (no error value)`, retryable: false, outcomeUnknown: false }
  }
  // A failure may say it is retryable, or that the tool stopped part-way.
  const retryable = ForeignText.read(failure, "retryable") === true
  const outcomeUnknown = ForeignText.read(failure, "outcomeUnknown") === true
  const unknown = describeUnknownException(failure)
  if (unknown !== undefined) return { detail: ForeignText.clean(unknown), retryable, outcomeUnknown }
  const message = ForeignText.read(failure, "message")
  if (typeof message === "string" && message !== "") {
    return { detail: ForeignText.clean(message), retryable, outcomeUnknown }
  }
  const json = StableJson.stringify(failure)
  return {
    detail: json === "\"[unreadable]\"" ? "it failed with a value that cannot be read" : ForeignText.clean(json),
    retryable,
    outcomeUnknown
  }
}

/** Runs an effect with the watched call's idle clock stopped: the call waits on a person. */
const holding = (watchdog: Watchdog.Watchdog, watch: Watchdog.Watch): ClientRequests.Hold => (effect) =>
  Effect.acquireUseRelease(
    Effect.sync(() => watchdog.hold(watch)),
    () => effect,
    () => watchdog.release(watch)
  )

/**
 * The runtime handlers run in, made once per turn from the turn's own: its
 * fibers fail without Effect's "Fiber terminated with an unhandled error"
 * log line. A handler's failure is always observed and becomes a result,
 * redacted, whereas that line would print the raw cause (a server's error
 * quoting a token) to the log. What a handler logs reaches the turn's
 * loggers redacted with `redact` (see `HandlerLogs`).
 *
 * @internal
 */
export const handlerRuntime = (
  runtime: Runtime.Runtime<never>,
  redact: (text: string) => string
): Runtime.Runtime<never> =>
  Runtime.make({
    context: runtime.context,
    runtimeFlags: runtime.runtimeFlags,
    fiberRefs: FiberRefs.updateManyAs(runtime.fiberRefs, {
      entries: [
        [FiberRef.unhandledErrorLogLevel, [[FiberId.runtime(0, 0), Option.none()]]],
        [
          FiberRef.currentLoggers,
          [[
            FiberId.runtime(0, 0),
            HandlerLogs.redactingAll(FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentLoggers), redact)
          ]]
        ]
      ]
    })
  })

/**
 * What a handler is given. A class, for its key: a hash made on first read,
 * and a getter in an object literal made per call cost as much as the rest
 * of a one-call turn.
 */
class CallContext implements Tool.Context {
  private key: string | undefined = undefined
  constructor(
    readonly callId: string,
    readonly toolName: string,
    private readonly scope: IdempotencyKey.Scope,
    readonly attempt: number,
    readonly progress: Tool.Context["progress"],
    readonly output: Tool.Context["output"],
    readonly elicit: Tool.Context["elicit"],
    readonly sample: Tool.Context["sample"]
  ) {}
  get idempotencyKey(): string {
    return this.key ??= IdempotencyKey.make(this.scope, this.callId)
  }
}

/**
 * Stage 5: runs the handler in its own fiber under the tool's total and
 * idle limits. Both limits stop the handler by interrupting its fiber, so
 * its finalizers run; the turn being interrupted does the same, and
 * `onInterrupted` then records the result. A handler that is not read-only
 * and did not finish reports its outcome as unknown.
 *
 * The handler is called on the current thread: one that returns its Effect
 * done costs no fiber, and one that completes synchronously in its fiber
 * no scheduling and no deadline bookkeeping.
 *
 * @since 0.1.0
 * @category stages
 */
export const execute = (
  entry: Registry.Entry,
  callId: string,
  input: unknown,
  env: ExecuteEnv,
  span: Tracer.AnySpan | undefined,
  onInterrupted: (error: ToolError.Interrupted | ToolError.Timeout) => Effect.Effect<void>,
  /** The handler's `context.attempt`. */
  attempt = 1
): Effect.Effect<unknown, ExecuteError> =>
  Effect.suspend(() => executeNow(entry, callId, input, env, span, onInterrupted, attempt))

/**
 * {@link execute}, started now: the handler is called before this returns,
 * and a handler that returns its Effect done gives the stage's outcome as
 * an `Exit`, with no step of the run loop. For callers that build the
 * effect as it runs (see `Steps`), where the handler may start at once.
 *
 * @internal
 */
export const executeNow = (
  entry: Registry.Entry,
  callId: string,
  input: unknown,
  env: ExecuteEnv,
  span: Tracer.AnySpan | undefined,
  onInterrupted: (error: ToolError.Interrupted | ToolError.Timeout) => Effect.Effect<void>,
  attempt: number
): Effect.Effect<unknown, ExecuteError> => {
  const tool = entry.tool
  const watchdog = env.watchdog
  const timeoutMillis = tool.timeoutFor(input)
  const watch = watchdog.watch(timeoutMillis, tool.idleTimeoutMillis)
  const touch = Effect.sync(() => watchdog.touch(watch))
  const onProgress = env.onProgress
  const context = new CallContext(
    callId,
    tool.name,
    env.keyScope,
    attempt,
    onProgress === undefined
      ? () => touch
      : (update) =>
        Effect.zipRight(
          touch,
          // A progress line goes to a UI, often a terminal: redacted, then cleaned and bounded.
          Effect.suspend(() => onProgress(callId, tool.name, readReport(update, (t) => env.redactor.redact(t).text)))
        ),
    () => touch,
    // Built only when a handler asks: the hot path pays for two closures, not for the machinery.
    (question) =>
      ClientRequests.elicit(
        env.client,
        question,
        (text) => env.redactor.redact(text).text,
        holding(watchdog, watch)
      ),
    (request) =>
      ClientRequests.sample(
        env.client,
        request,
        holding(watchdog, watch),
        (text) => env.redactor.redact(text).text
      )
  )
  const outcomeUnknown = !tool.readOnly
  const fromOutcome = (outcome: Watchdog.Outcome): Effect.Effect<unknown, ExecuteError> => {
    if (Watchdog.isExit(outcome) && Exit.isSuccess(outcome)) return Effect.succeed(outcome.value)
    if (watch.stopped === "timeout" || watch.stopped === "idle" || !Watchdog.isExit(outcome)) {
      const cleanupAbandoned = !Watchdog.isExit(outcome)
      return Effect.fail(
        watch.stopped === "idle"
          ? new ToolError.IdleTimeout({
            toolName: tool.name,
            idleMillis: tool.idleTimeoutMillis ?? 0,
            outcomeUnknown,
            cleanupAbandoned
          })
          : new ToolError.Timeout({
            toolName: tool.name,
            timeoutMillis,
            outcomeUnknown,
            cleanupAbandoned
          })
      )
    }
    const failure = Cause.failureOption(outcome.cause)
    // A rule that can only be checked while the tool runs (under its lock,
    // against the file as it is now) is still a rule the model can act on.
    if (failure._tag === "Some" && isInstance(failure.value, ToolError.RuleViolation)) {
      const violation = failure.value as ToolError.RuleViolation
      return Effect.fail(
        violation.toolName === undefined
          ? new ToolError.RuleViolation({ ...violation, toolName: tool.name })
          : violation
      )
    }
    // A tool that enforces its own time limit (a command stopped by its
    // runner) reports a timeout, not a failure of its own.
    if (failure._tag === "Some" && isInstance(failure.value, ToolError.Timeout)) {
      const timedOut = failure.value as ToolError.Timeout
      return Effect.fail(
        new ToolError.Timeout({
          toolName: tool.name,
          timeoutMillis: timedOut.timeoutMillis,
          outcomeUnknown: timedOut.outcomeUnknown || outcomeUnknown,
          cleanupAbandoned: timedOut.cleanupAbandoned,
          detail: timedOut.detail
        })
      )
    }
    if (failure._tag === "Some") {
      const { detail, outcomeUnknown, retryable } = describeFailure(failure.value)
      return Effect.fail(
        new ToolError.ToolFailed({ toolName: tool.name, detail, retryable, outcomeUnknown })
      )
    }
    const defect = Cause.dieOption(outcome.cause)
    return Effect.fail(
      new ToolError.ToolDefect({
        toolName: tool.name,
        detail: defect._tag === "Some"
          ? describeDefect(defect.value)
          : "the handler interrupted itself",
        outcomeUnknown: outcomeUnknown && defect._tag === "None"
      })
    )
  }
  // A handler that did its work when called and returned it done
  // (`Effect.succeed`, `Effect.fail`) has nothing left to run: no fiber,
  // no deadline. Anything else, a throw or a value that cannot be read
  // included, runs in the handler's own fiber as before.
  const called = callHandler(tool, input, context)
  if (Exit.isExit(called)) return fromOutcome(called)
  // From the fork on, nothing may stop this fiber before the handler's fiber is watched.
  return Effect.uninterruptibleMask((restore) => {
    // The handler gets the services captured with the registry, and the
    // execute span as its parent so its own spans nest under the call.
    const services = span === undefined ? entry.context : Context.add(entry.context, Tracer.ParentSpan, span)
    const handlers = env.runtime()
    const fiber = Runtime.runFork(
      Runtime.make({ context: services, fiberRefs: handlers.fiberRefs, runtimeFlags: handlers.runtimeFlags })
    )(called)
    const done = fiber.unsafePoll()
    if (done !== null) return fromOutcome(done)
    // The call interrupted while it waits: the handler is stopped, waited for, and the call
    // recorded as interrupted. What `Effect.onInterrupt` does, without its own mask: this
    // runs masked already, and the mask's four steps are a tenth of a forked call's.
    const stopped = Effect.flatMap(watchdog.stop(watch, fiber), (outcome) =>
      onInterrupted(
        watch.stopped === "interrupt" || watch.stopped === undefined
          ? new ToolError.Interrupted({
            toolName: tool.name,
            reason: env.interruptReason(),
            outcomeUnknown,
            cleanupAbandoned: !Watchdog.isExit(outcome)
          })
          : new ToolError.Timeout({
            toolName: tool.name,
            timeoutMillis,
            outcomeUnknown,
            cleanupAbandoned: !Watchdog.isExit(outcome)
          })
      ))
    return Effect.matchCauseEffect(restore(watchdog.run(watch, fiber)), {
      onFailure: (cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.matchCauseEffect(stopped, {
            onFailure: (cleanup) => Effect.failCause(Cause.sequential(cause, cleanup)),
            onSuccess: () => Effect.failCause(cause)
          })
          : Effect.failCause(cause),
      onSuccess: fromOutcome
    })
  })
}

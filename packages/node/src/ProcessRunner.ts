/**
 * Runs child processes so that a call can neither hang nor leak: the
 * process runner behind the shell tool and background jobs.
 *
 * Built on `node:child_process` directly rather than `@effect/platform`'s
 * `Command`, which never escalates to SIGKILL, waits without bound after
 * SIGTERM, leaves grandchildren alive after a clean exit and collects output
 * quadratically. Here:
 *
 * - Each child leads its own process group (`detached: true`, so also its
 *   own session, without a controlling terminal); signals go to the whole
 *   group. Stdin is `/dev/null` unless input is given.
 * - Stdout and stderr are read continuously, so a full pipe never blocks the
 *   child. Each keeps a bounded head and a bounded tail of bytes (never the
 *   whole stream; see {@link Capture}) and, when asked, a byte-exact spill
 *   file. Output counts as activity for the idle limit and is reported to
 *   `onOutput`: at once when the last report is older than the throttle
 *   interval (default 100 ms), otherwise once at the end of the interval,
 *   so output is never left unreported for longer than the interval.
 * - Stopping (total or idle limit, interruption, scope close): SIGTERM to the
 *   group, a grace period (default 2 s), SIGKILL to the group. The call
 *   settles on the child's `exit` event, not on end-of-file: a grandchild
 *   holding the pipe open cannot keep it waiting. Whatever is left in the
 *   group is then killed, and the pipes are drained for at most 2 s before
 *   they are closed.
 * - After a normal exit, processes still running in the group are killed
 *   too, and the result counts them. Zombies do not count: where PID 1 does
 *   not reap orphans (containers), they stay forever and run nothing.
 * - Every child belongs to a `Scope`; the service's own scope kills every
 *   group still alive when the runtime shuts down. As a last resort, when
 *   the program exits without closing its scopes, a synchronous
 *   `process.on("exit")` hook does the same, and so does a SIGTERM, SIGINT
 *   or SIGHUP that nothing else in the program handles (the program then
 *   still dies of that signal). A program that handles the signal
 *   (`NodeRuntime.runMain`) is left to do so: its finalizers run, closing
 *   the runner's scope stops the groups, and it exits with its own code.
 *
 * Limits. A descendant that leaves the group (`setsid`, `setpgid`) is not
 * reached by group signals. While the child is alive such escapees are
 * found through `/proc` by their parent chain and signalled too; once the
 * child has exited they have been re-parented and cannot be told apart
 * from unrelated processes, so they survive. If one holds a pipe, the drain
 * bound stops the wait, and the result says the pipes were forced closed.
 * A program killed by SIGKILL cannot run any hook: its groups survive it.
 * Without `/proc` (macOS) escapees are not looked for, and a group left
 * behind after a normal exit counts as one process.
 *
 * Failing to start (missing program, missing working directory, permission)
 * is a typed {@link SpawnError}; a non-zero exit is a normal result with its
 * exit code.
 *
 * The runner is four modules: this one, the Effect side (starting,
 * watching, stopping, settling); `ProcessSpawn`, one child as Node's
 * callbacks see it; `OutputCapture`, the bytes kept of each stream; and
 * `KillLedger`, the process groups and the last-resort hooks that kill them.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as NodeFs from "node:fs"
import * as Environment from "./Environment.js"
import { lingering } from "./KillLedger.js"
import type { LiveOutput } from "./OutputCapture.js"
import { Child, defaults } from "./ProcessSpawn.js"
import type { Result, RunOptions, StopReason } from "./ProcessSpawn.js"
import * as Sandbox from "./Sandbox.js"

export { Capture, type LiveOutput, type Output, type Spill, type Window } from "./OutputCapture.js"
export { defaults, type Result, type RunOptions, type StopReason } from "./ProcessSpawn.js"

/**
 * A process that was started and is (or was) running.
 *
 * @since 0.1.0
 * @category models
 */
export interface Running {
  readonly pid: number
  /** Waits until the process has exited, its group is dead and its output is drained. */
  readonly result: Effect.Effect<Result>
  /** The result, once settled. */
  readonly poll: Effect.Effect<Option.Option<Result>>
  /**
   * Stops the process (SIGTERM to the group, the grace period, SIGKILL) and
   * waits for its result. Stopping a process that already exited only
   * waits.
   */
  readonly stop: (reason?: StopReason) => Effect.Effect<Result>
  readonly stdout: LiveOutput
  readonly stderr: LiveOutput
}

// ---------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------

/**
 * The process could not be started.
 *
 * @since 0.1.0
 * @category errors
 */
export class SpawnError extends Schema.TaggedError<SpawnError>()("SpawnError", {
  /** The program; never its arguments, which may hold secrets. */
  command: Schema.String,
  reason: Schema.Literal(
    "not_found",
    "no_working_directory",
    "permission_denied",
    "resource_limit",
    "shutdown",
    "sandbox",
    "failed"
  ),
  /** The system error code (`ENOENT`, `EACCES`…). */
  errno: Schema.String,
  /** For `sandbox`: why the command could not be confined, and what to do. */
  detail: Schema.optional(Schema.String)
}) {
  /** Only a momentary lack of resources can pass by itself. */
  get retryable(): boolean {
    return this.reason === "resource_limit"
  }
  override get message(): string {
    const program = JSON.stringify(this.command.length > 200 ? `${this.command.slice(0, 200)}…` : this.command)
    switch (this.reason) {
      case "not_found":
        return `Could not start ${program}: no such program (not on PATH, or the path does not exist).`
      case "no_working_directory":
        return `Could not start ${program}: the working directory does not exist or is not a directory.`
      case "permission_denied":
        return `Could not start ${program}: permission denied (the program is not executable, or the working directory is not accessible).`
      case "resource_limit":
        return `Could not start ${program}: the system is out of processes or file descriptors (${this.errno}); try again shortly.`
      case "shutdown":
        return `Could not start ${program}: the program running the tools is shutting down.`
      case "sandbox":
        return `Could not start ${program}: ${this.detail ?? "it could not be confined in the sandbox."}`
      case "failed":
        return `Could not start ${program} (${this.errno}).`
    }
  }
}

// ---------------------------------------------------------------------------
// service
// ---------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * Starts a process tied to the current scope: closing the scope stops it
   * (grace, then SIGKILL) if it is still running.
   */
  readonly start: (options: RunOptions) => Effect.Effect<Running, SpawnError, Scope.Scope>
  /**
   * Runs a process to completion. Interrupting the fiber stops the process
   * group before the interruption completes.
   */
  readonly run: (options: RunOptions) => Effect.Effect<Result, SpawnError>
  /** Processes started by this runner that have not settled yet. */
  readonly liveCount: Effect.Effect<number>
  /** The sandbox every command runs in; `undefined` for an unconfined runner. */
  readonly sandbox: Sandbox.Service | undefined
}

/**
 * @since 0.1.0
 * @category tags
 */
export class ProcessRunner extends Context.Tag("@tool-runtime/node/ProcessRunner")<ProcessRunner, Service>() {}

const classify = (command: string, cwd: string | undefined, error: unknown): Effect.Effect<SpawnError> => {
  const errno = (error as NodeJS.ErrnoException | undefined)?.code ?? "UNKNOWN"
  const make = (reason: SpawnError["reason"]) => Effect.succeed(new SpawnError({ command, reason, errno }))
  switch (errno) {
    case "ENOENT":
      // Node reports a missing working directory as a missing program: look.
      return cwd === undefined ? make("not_found") : Effect.flatMap(
        Effect.promise(() => NodeFs.promises.stat(cwd).then((stat) => stat.isDirectory(), () => false)),
        (isDirectory) => make(isDirectory ? "not_found" : "no_working_directory")
      )
    case "ENOTDIR":
      return make("no_working_directory")
    case "EACCES":
    case "EPERM":
      return make("permission_denied")
    case "EAGAIN":
    case "EMFILE":
    case "ENFILE":
    case "ENOMEM":
      return make("resource_limit")
    default:
      return make("failed")
  }
}

const millis = (input: Duration.DurationInput | undefined, fallback: Duration.DurationInput): number =>
  Duration.toMillis(input ?? fallback)

/**
 * How a runner builds each command's environment.
 *
 * @since 0.4.0
 * @category models
 */
export interface Options {
  /**
   * Which of the runner's variables reach commands. Default: the sandbox's
   * (`Sandbox.Config.environment`), and {@link Environment.defaultPolicy}
   * without a sandbox or when it sets none.
   */
  readonly environment?: Environment.Policy | undefined
  /** The variables the policy is applied to. Default `process.env`, read at each start. */
  readonly baseEnvironment?: Readonly<Record<string, string | undefined>> | undefined
}

/** The call's variables on top of what the policy left; `undefined` removes one. */
const environmentOf = (
  applied: Environment.Applied,
  env: Readonly<Record<string, string | undefined>> | undefined
): Record<string, string> => {
  const merged: Record<string, string> = { ...applied.env }
  for (const [name, value] of Object.entries(env ?? {})) {
    if (value === undefined) delete merged[name]
    else merged[name] = value
  }
  return merged
}

/** A confinement that also says how many variables the command did not get. */
const withWithheld = (confinement: Sandbox.Confinement, withheld: number): Sandbox.Confinement => ({
  ...confinement,
  withheldVariables: withheld,
  summary: withheld === 0 ? confinement.summary : `${confinement.summary}, ${Environment.describeWithheld(withheld)}`
})

/**
 * A runner that confines every command with `sandbox` (none: unconfined),
 * and gives each the environment its policy allows.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makeWith = (
  sandbox: Sandbox.Service | undefined,
  runnerOptions?: Options | undefined
): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function*() {
    const environment = runnerOptions?.environment ?? sandbox?.environment ?? Environment.defaultPolicy
    const live = new Set<Child>()
    /** This runner's children that still owe escapees a SIGKILL (see `lingering`). */
    const owed = new Set<Child>()
    const killWait = Duration.toMillis(defaults.killWait)

    /** Waits for the exit, the lost group, the drained pipes; then the result. */
    const lifecycle = (child: Child, drainMillis: number): Effect.Effect<void> =>
      Effect.gen(function*() {
        yield* Effect.raceFirst(Deferred.await(child.exited), Deferred.await(child.gaveUp))
        if (child.exit !== undefined) {
          child.reapGroup()
          // Not a repeat of reapGroup's scan: a process that left the group between that scan and the
          // group's SIGKILL is outside now, and only this one finds it (KillTrials catches that race
          // in about half its runs when this scan is skipped for an exit that looked clean).
          yield* awaitMarked(child, child.clock.unsafeCurrentTimeMillis() + killWait)
        }
        const drain = yield* Effect.raceAll([
          Effect.as(Deferred.await(child.pipesClosed), "closed" as const),
          Effect.as(Deferred.await(child.discarded), "discarded" as const),
          Effect.as(Effect.sleep(drainMillis), "timeout" as const)
        ])
        if (drain !== "closed") {
          child.pipesForcedClosed = drain === "timeout"
          child.destroyPipes()
        }
        yield* Deferred.succeed(child.settled, child.finish())
      })

    /**
     * Kills, until `until` and until none is left, what carries the child's
     * mark outside its group (one may leave the group between `reapGroup`'s
     * scan and its SIGKILL); what is left then is counted, and the result
     * does not claim the command stopped.
     */
    const awaitMarked = (child: Child, until: number, confirmed = !child.unsettledAtReap): Effect.Effect<void> =>
      Effect.suspend(() => {
        const left = child.killMarkedOutside()
        if (left === 0) {
          return confirmed ? Effect.void : Effect.zipRight(Effect.sleep(20), awaitMarked(child, until, true))
        }
        if (child.clock.unsafeCurrentTimeMillis() >= until) {
          child.survivors = left
          return Effect.void
        }
        return Effect.zipRight(Effect.sleep(20), awaitMarked(child, until))
      })

    /**
     * Waits, until `until`, for the escapees signalled with the leader to
     * die; the leader dying first (it may exit at once on SIGTERM) must not
     * spare an escapee that ignores SIGTERM its SIGKILL.
     */
    const awaitEscapees = (child: Child, until: number): Effect.Effect<void> =>
      Effect.suspend(() => {
        const wait = until - child.clock.unsafeCurrentTimeMillis()
        if (wait <= 0 || child.liveEscapees().length === 0) return Effect.void
        return Effect.zipRight(Effect.sleep(Math.min(wait, 20)), awaitEscapees(child, until))
      })

    /** SIGTERM, grace, SIGKILL: runs once per child, whoever asks first. */
    const killSequence = (child: Child, graceMillis: number): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (child.exit !== undefined) return
        const graceEnd = child.clock.unsafeCurrentTimeMillis() + graceMillis
        child.signal("SIGTERM")
        const exited = yield* Effect.timeoutOption(Deferred.await(child.exited), graceMillis)
        if (Option.isSome(exited)) {
          if (child.escaped.size === 0) return
          lingering.add(child)
          owed.add(child)
          return yield* awaitEscapees(child, graceEnd).pipe(
            Effect.ensuring(Effect.sync(() => {
              child.signalEscaped("SIGKILL")
              lingering.delete(child)
              owed.delete(child)
            }))
          )
        }
        child.signal("SIGKILL")
        const killed = yield* Effect.timeoutOption(Deferred.await(child.exited), killWait)
        if (Option.isNone(killed)) yield* Deferred.succeed(child.gaveUp, undefined)
      })

    /** Starts the kill sequence unless it runs already or the child is gone; does not wait. */
    const beginStop = (child: Child, reason: StopReason, graceMillis: number): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (child.stopping !== undefined || child.exit !== undefined) return Effect.void
        child.stopReason ??= reason
        // Forked interruptible: a fiber inherits the uninterruptible region it
        // is forked from, and its timeouts could then never cancel their waits.
        return Effect.flatMap(
          Effect.forkDaemon(Effect.interruptible(killSequence(child, graceMillis))),
          (fiber) =>
            Effect.sync(() => {
              child.stopping = fiber
            })
        )
      }).pipe(Effect.uninterruptible)

    const stop = (child: Child, reason: StopReason, graceMillis: number): Effect.Effect<Result> =>
      Effect.zipRight(beginStop(child, reason, graceMillis), Deferred.await(child.settled))

    /** Stops the process on timeout or silence; ends when the process exits. */
    const watch = (child: Child, timeoutMillis: number, idleMillis: number, graceMillis: number) => {
      const deadline = child.startedAt + timeoutMillis
      const loop: Effect.Effect<void> = Effect.suspend(() => {
        if (child.exit !== undefined || child.stopping !== undefined) return Effect.void
        const now = child.clock.unsafeCurrentTimeMillis()
        const idleAt = child.lastActivity + idleMillis
        // Only starts the sequence: whoever waits for the result waits for its end.
        if (now >= deadline) return beginStop(child, "timeout", graceMillis)
        if (now >= idleAt) return beginStop(child, "idle", graceMillis)
        return Effect.zipRight(Effect.sleep(Math.min(deadline, idleAt) - now), loop)
      })
      return Effect.raceFirst(loop, Effect.asVoid(Deferred.await(child.exited)))
    }

    // Untraced: a span would end with the command line (which may hold a secret) in its status; the
    // call's own execute span, whose exit the runtime redacts, covers the process.
    const start = Effect.fnUntraced(function*(options: RunOptions) {
      // After shutdown nothing may start: a child could no longer be tracked or killed.
      if (closed) return yield* new SpawnError({ command: options.command, reason: "shutdown", errno: "ESHUTDOWN" })
      const runtime = yield* Effect.runtime<never>()
      const clock = yield* Effect.clock
      const graceMillis = millis(options.killGrace, defaults.killGrace)
      const drainMillis = millis(options.drainTimeout, defaults.drainTimeout)
      const applied = Environment.apply(environment, runnerOptions?.baseEnvironment ?? process.env)
      const env = environmentOf(applied, options.env)
      const launch = sandbox === undefined
        ? undefined
        : yield* Effect.mapError(
          sandbox.prepare(
            { command: options.command, args: options.args ?? [], cwd: options.cwd, env },
            options.policy
          ),
          (error) =>
            new SpawnError({
              command: options.command,
              reason: "sandbox",
              errno: "ESANDBOX",
              detail: error.reason === "unavailable"
                ? `it must run in a sandbox, and none is available here. ${error.detail}`
                : error.reason === "setup_failed"
                ? `the sandbox could not be set up. ${error.detail}`
                : error.detail
            })
        )
      const acquire = Effect.flatMap(
        Effect.try({
          try: () =>
            new Child(
              options,
              launch ?? { command: options.command, args: options.args ?? [], cwd: options.cwd, env },
              withWithheld(launch?.confinement ?? Sandbox.unconfinedRunner, applied.withheld),
              launch?.pidNamespace ?? false,
              clock,
              runtime,
              live
            ),
          catch: (error) => error
        }),
        (child) =>
          Deferred.await(child.spawned).pipe(
            // Within the acquisition, which nothing interrupts: the release waits for the
            // result the lifecycle settles, and an interruption landing between the two
            // would leave it waiting for a lifecycle that never started.
            Effect.zipRight(Effect.forkDaemon(Effect.interruptible(lifecycle(child, drainMillis)))),
            Effect.as(child),
            Effect.tapError(() => Effect.sync(() => child.destroyPipes()))
          )
      ).pipe(Effect.catchAll((error) => Effect.flip(classify(options.command, options.cwd, error))))
      const child = yield* Effect.acquireRelease(acquire, (child, exit) =>
        Effect.suspend(() => {
          if (child.result !== undefined) return Effect.void
          // Nobody will read this output: do not wait for the pipes.
          Deferred.unsafeDone(child.discarded, Exit.void)
          return Effect.asVoid(stop(child, Exit.isInterrupted(exit) ? "interrupted" : "stopped", graceMillis))
        }))
      const timeoutMillis = options.timeout === undefined ? Infinity : Duration.toMillis(options.timeout)
      const idleMillis = options.idleTimeout === undefined ? Infinity : Duration.toMillis(options.idleTimeout)
      if (timeoutMillis !== Infinity || idleMillis !== Infinity) {
        yield* Effect.forkScoped(watch(child, timeoutMillis, idleMillis, graceMillis))
      }
      return {
        pid: child.pid,
        result: Deferred.await(child.settled),
        poll: Effect.sync(() => Option.fromNullable(child.result)),
        stop: (reason = "stopped") => stop(child, reason, graceMillis),
        stdout: child.stdout,
        stderr: child.stderr
      } satisfies Running
    })

    // The runtime is shutting down: no grace, every group gets SIGKILL.
    let closed = false
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closed = true
        const children = Array.from(live)
        for (const child of children) {
          child.stopReason ??= "shutdown"
          Deferred.unsafeDone(child.discarded, Exit.void)
          child.signal("SIGKILL")
        }
        // No grace is left for escapees still owed their SIGKILL either.
        for (const child of owed) child.signalEscaped("SIGKILL")
        // The wait is interruptible: a finalizer runs uninterruptibly, and the
        // timeout could then never end the wait for a child that does not die.
        return Effect.forEach(
          children,
          (child) => Effect.timeoutOption(Effect.interruptible(Deferred.await(child.settled)), killWait),
          { concurrency: "unbounded", discard: true }
        )
      })
    )

    return {
      start,
      run: (options: RunOptions) => Effect.scoped(Effect.flatMap(start(options), (running) => running.result)),
      liveCount: Effect.sync(() => live.size),
      sandbox
    } satisfies Service
  })

/**
 * A runner that confines every command with the {@link Sandbox.Sandbox} it
 * is given.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Service, never, Scope.Scope | Sandbox.Sandbox> = Effect.flatMap(
  Sandbox.Sandbox,
  makeWith
)

/**
 * A runner without a sandbox: every command runs with the full access of
 * this program, and each result says so (`sandbox: none (unconfined…)`). A
 * descendant that calls `setsid` and is re-parented before the runner looks
 * cannot be found and killed. For trusted, scripted commands only.
 *
 * @since 0.4.0
 * @category constructors
 */
export const makeUnconfined: Effect.Effect<Service, never, Scope.Scope> = makeWith(undefined)

/**
 * The runner, owning every process it starts: closing the layer kills
 * whatever still runs. Every command is confined by the
 * {@link Sandbox.Sandbox} it is given; see {@link layerUnconfined} for the
 * loudly named other choice.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<ProcessRunner, never, Sandbox.Sandbox> = Layer.scoped(ProcessRunner, make)

/**
 * {@link layer} with a say in each command's environment (see {@link Options}).
 *
 * @since 0.4.0
 * @category layers
 */
export const layerWith = (options: Options): Layer.Layer<ProcessRunner, never, Sandbox.Sandbox> =>
  Layer.scoped(ProcessRunner, Effect.flatMap(Sandbox.Sandbox, (sandbox) => makeWith(sandbox, options)))

/**
 * The runner without a sandbox (see {@link makeUnconfined}): commands run
 * unconfined, and every result says so.
 *
 * @since 0.4.0
 * @category layers
 */
export const layerUnconfined: Layer.Layer<ProcessRunner> = Layer.scoped(ProcessRunner, makeUnconfined)

/**
 * {@link layerUnconfined} with an environment policy (default
 * {@link Environment.defaultPolicy}): without a sandbox it is the one
 * thing still kept from commands.
 *
 * @since 0.4.0
 * @category layers
 */
export const layerUnconfinedWith = (options: Options): Layer.Layer<ProcessRunner> =>
  Layer.scoped(ProcessRunner, makeWith(undefined, options))

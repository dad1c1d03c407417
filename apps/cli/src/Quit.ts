/**
 * Ending the program early, from inside it, the way Ctrl-C does from
 * outside: the whole program is interrupted, so every finalizer runs (a
 * temporary workspace is removed, the terminal leaves raw mode, child
 * processes are killed) before the process exits.
 *
 * Two things ask for it. Ctrl-C at a prompt, where the terminal is in raw
 * mode and the key arrives as input rather than as SIGINT; and a closed
 * stdout (`tool-runtime code | head -2`), after which every write fails with
 * EPIPE and nothing the program prints can reach anyone.
 *
 * Exit codes follow the shell's conventions: 130 when interrupted (SIGINT,
 * or Ctrl-C at a prompt), 1 on a failure, 0 otherwise. A closed stdout ends
 * with 0, as in ripgrep: the reader stopped because it had what it wanted,
 * which is not a failure of the program.
 *
 * @since 0.2.0
 */
import type * as Runtime from "@effect/platform/Runtime"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"

/**
 * Why the program ends early.
 *
 * @since 0.2.0
 * @category models
 */
export type Reason = "interrupted" | "output_closed"

/**
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Ends the program; the caller is interrupted with the rest of it, so this never returns. */
  readonly request: (reason: Reason) => Effect.Effect<never>
}

/**
 * @since 0.2.0
 * @category tags
 */
export class Quit extends Context.Tag("@tool-runtime/cli/Quit")<Quit, Service>() {}

/**
 * Runs the program until it ends or a quit is requested, then interrupts
 * it and waits for its finalizers. A quit for `"interrupted"` leaves the
 * result interrupted (exit 130); a closed output ends quietly.
 *
 * Also watches stdout and stderr: a write that fails (EPIPE when the reader
 * went away) requests `"output_closed"` instead of crashing the process
 * with an unhandled `'error'` event.
 *
 * @since 0.2.0
 * @category running
 */
export const run = <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<void, E, Exclude<R, Quit>> =>
  Effect.gen(function*() {
    const requested = yield* Deferred.make<Reason>()
    yield* Effect.sync(() => {
      const closed = () => Deferred.unsafeDone(requested, Exit.succeed("output_closed"))
      // Never removed: a write made while the program winds down can fail
      // after any release would have run, and an 'error' event nobody
      // listens to kills the process with a stack trace.
      process.stdout.on("error", closed)
      process.stderr.on("error", closed)
    })
    const quit: Service = {
      request: (reason) => Effect.zipRight(Deferred.succeed(requested, reason), Effect.never)
    }
    const reason = yield* Effect.raceFirst(
      Effect.as(Effect.provideService(program, Quit, quit), undefined),
      Deferred.await(requested)
    )
    if (reason === "interrupted") return yield* Effect.interrupt
  })

/**
 * The exit code of the program's end, for `runMain`.
 *
 * @since 0.2.0
 * @category running
 */
export const teardown: Runtime.Teardown = (exit, onExit) =>
  onExit(Exit.isSuccess(exit) ? 0 : Cause.isInterruptedOnly(exit.cause) ? 130 : 1)

/**
 * Deadlines for running handlers, enforced by one sleeping fiber per turn
 * instead of one race per call.
 *
 * `Effect.timeout` forks a sleeper and races it against every call: that
 * costs more than the rest of the pipeline together. Here a call registers
 * its deadlines in a set (a few field writes); a single sleeper wakes at the
 * earliest deadline, interrupts the handler fibers that are late, and sleeps
 * again. Reporting progress only moves a timestamp forward; the sleeper
 * notices when it wakes. Time comes from `Clock`, so `TestClock` drives it.
 *
 * The sleeper also bounds cleanup: a handler that was interrupted gets
 * `cleanupMillis` to run its finalizers, after which whoever waits for it is
 * released, so a finalizer that hangs can never hang the turn.
 *
 * @since 0.1.0
 */
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Steps from "./Steps.js"

/**
 * Why a watched handler was stopped.
 *
 * @since 0.1.0
 * @category models
 */
export type Stop = "timeout" | "idle" | "interrupt"

/**
 * One running handler under watch.
 *
 * @since 0.1.0
 * @category models
 */
export interface Watch {
  readonly deadline: number
  readonly idleMillis: number | undefined
  lastActivity: number
  /** Waits on a person in progress: while above zero, the idle clock is stopped. */
  holds: number
  stopped: Stop | undefined
  abandonAt: number
  abandoned: boolean
  fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined
  release: (() => void) | undefined
}

/**
 * What waiting for a watched handler yields.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome = Exit.Exit<unknown, unknown> | "abandoned"

/**
 * @since 0.1.0
 * @category models
 */
export class Watchdog {
  private readonly watches = new Set<Watch>()
  private sleeper: Fiber.RuntimeFiber<void> | undefined
  private wakeAt = Infinity
  private closed = false
  /** Only the newest sleeper may act: an older one can still wake after it was replaced. */
  private generation = 0

  constructor(
    readonly clock: Clock.Clock,
    readonly cleanupMillis: number
  ) {}

  /** Starts watching: deadlines count from now. */
  watch(timeoutMillis: number, idleMillis: number | undefined): Watch {
    const now = this.clock.unsafeCurrentTimeMillis()
    return {
      deadline: now + timeoutMillis,
      idleMillis,
      lastActivity: now,
      holds: 0,
      stopped: undefined,
      abandonAt: Infinity,
      abandoned: false,
      fiber: undefined,
      release: undefined
    }
  }

  /** The handler showed signs of life. */
  touch(watch: Watch): void {
    if (watch.holds === 0) watch.lastActivity = this.clock.unsafeCurrentTimeMillis()
  }

  /**
   * The handler waits on a person (a question to the user): silence is then
   * not a sign of a stuck tool, so the idle clock stops until the matching
   * `release`, which restarts it. The total limit still holds.
   */
  hold(watch: Watch): void {
    watch.holds++
    watch.lastActivity = Infinity
  }

  release(watch: Watch): Effect.Effect<void> {
    return Effect.suspend(() => {
      watch.holds = Math.max(0, watch.holds - 1)
      if (watch.holds > 0) return Effect.void
      watch.lastActivity = this.clock.unsafeCurrentTimeMillis()
      // The sleeper may be set for the total limit: the idle deadline is now earlier.
      return this.watches.has(watch) ? this.schedule(due(watch)) : Effect.void
    })
  }

  /**
   * Registers the handler fiber and waits for it: its exit, or
   * `"abandoned"` when it was stopped and did not finish its cleanup in
   * time. The waiting itself never interrupts the handler; see `stop`.
   */
  run(watch: Watch, fiber: Fiber.RuntimeFiber<unknown, unknown>): Effect.Effect<Outcome> {
    watch.fiber = fiber
    this.watches.add(watch)
    // The sleeper is mostly set already (`Effect.void`): waiting then starts without a step.
    return Steps.flatMap(this.schedule(due(watch)), () => this.wait(watch, fiber))
  }

  /**
   * Stops a running handler from outside (the turn was interrupted) and
   * waits, at most `cleanupMillis`, for it to finish.
   */
  stop(watch: Watch, fiber: Fiber.RuntimeFiber<unknown, unknown>): Effect.Effect<Outcome> {
    return Effect.suspend(() => {
      if (watch.stopped === undefined) {
        watch.stopped = "interrupt"
        watch.abandonAt = this.clock.unsafeCurrentTimeMillis() + this.cleanupMillis
        fiber.unsafeInterruptAsFork(FiberId.none)
      }
      this.watches.add(watch)
      return Effect.zipRight(this.schedule(watch.abandonAt), this.wait(watch, fiber))
    })
  }

  /**
   * Closes the watchdog now when no sleeper was ever started (every handler
   * of the turn was done when called), and says whether it did: otherwise
   * `close` must end the sleeper.
   */
  closeIfIdle(): boolean {
    if (this.sleeper !== undefined || this.generation !== 0) return false
    this.closed = true
    this.generation++
    return true
  }

  /** Ends the turn's sleeper; handlers still watched are left to their callers. */
  close(): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.closed = true
      this.generation++
      const sleeper = this.sleeper
      this.sleeper = undefined
      this.wakeAt = Infinity
      return sleeper === undefined ? Effect.void : Effect.asVoid(sleeper.interruptAsFork(FiberId.none))
    })
  }

  private wait(watch: Watch, fiber: Fiber.RuntimeFiber<unknown, unknown>): Effect.Effect<Outcome> {
    return Effect.async<Outcome>((resume) => {
      let done = false
      const finish = (outcome: Outcome) => {
        if (done) return
        done = true
        fiber.removeObserver(observer)
        this.watches.delete(watch)
        watch.release = undefined
        resume(Effect.succeed(outcome))
      }
      const observer = (exit: Exit.Exit<unknown, unknown>) => finish(exit)
      watch.release = () => finish("abandoned")
      fiber.addObserver(observer)
      return Effect.sync(() => {
        done = true
        fiber.removeObserver(observer)
        watch.release = undefined
      })
    })
  }

  /** Makes sure the sleeper wakes no later than `at`. */
  private schedule(at: number): Effect.Effect<void> {
    if (at >= this.wakeAt || this.closed || at === Infinity) return Effect.void
    return Effect.suspend(() => {
      const previous = this.sleeper
      const generation = ++this.generation
      this.wakeAt = at
      const delay = Math.max(0, at - this.clock.unsafeCurrentTimeMillis())
      return Effect.flatMap(Effect.forkDaemon(this.sleep(delay, generation)), (fiber) => {
        this.sleeper = fiber
        if (previous !== undefined) previous.unsafeInterruptAsFork(FiberId.none)
        return Effect.void
      })
    })
  }

  private sleep(delay: number, generation: number): Effect.Effect<void> {
    return Effect.flatMap(Effect.sleep(Duration.millis(delay)), () => {
      if (generation !== this.generation) return Effect.void
      const next = this.tick()
      if (next === Infinity || this.closed) {
        this.wakeAt = Infinity
        this.sleeper = undefined
        return Effect.void
      }
      this.wakeAt = next
      return this.sleep(Math.max(0, next - this.clock.unsafeCurrentTimeMillis()), generation)
    })
  }

  /** Stops what is late, releases what overran its cleanup; returns the next wake-up time. */
  private tick(): number {
    const now = this.clock.unsafeCurrentTimeMillis()
    let next = Infinity
    for (const watch of this.watches) {
      if (watch.stopped === undefined) {
        const idleDeadline = watch.idleMillis === undefined ? Infinity : watch.lastActivity + watch.idleMillis
        if (now >= watch.deadline || now >= idleDeadline) {
          watch.stopped = now >= watch.deadline ? "timeout" : "idle"
          watch.abandonAt = now + this.cleanupMillis
          watch.fiber?.unsafeInterruptAsFork(FiberId.none)
        }
      } else if (now >= watch.abandonAt) {
        watch.abandoned = true
        this.watches.delete(watch)
        watch.release?.()
        continue
      }
      const at = due(watch)
      if (at < next) next = at
    }
    return next
  }
}

const due = (watch: Watch): number =>
  watch.stopped !== undefined
    ? watch.abandonAt
    : watch.idleMillis === undefined
    ? watch.deadline
    : Math.min(watch.deadline, watch.lastActivity + watch.idleMillis)

/**
 * @since 0.1.0
 * @category guards
 */
export const isExit = (outcome: Outcome): outcome is Exit.Exit<unknown, unknown> => outcome !== "abandoned"

/**
 * The limits a tool declares beyond one call: how many of its calls run at
 * once (`maxConcurrent`) and how many start in any window of time (`rate`),
 * both counted across every turn of one runtime, under the tool's
 * `limitGroup` (its name unless tools share one).
 *
 * A call over a limit never runs: it waits for room within its own time
 * limit, and gets `not_executed` (no slot came free) or `rate_limited` (with
 * when to retry) when there is none. The rate is a sliding window over the
 * moments calls were let through, so no window of `per` ever holds more
 * than `calls` starts, wherever the window is placed.
 *
 * @since 0.4.0
 */
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Tool from "./Tool.js"
import * as ToolError from "./ToolError.js"

/**
 * The starts of the last `calls` admitted calls, oldest first once full: a
 * ring, so admitting costs no allocation.
 */
class Window {
  private readonly starts: Array<number> = []
  private next = 0
  constructor(readonly calls: number, readonly perMillis: number) {}
  /** How long until a call may start at `now`; 0 when it may now. */
  waitAt(now: number): number {
    if (this.starts.length < this.calls) return 0
    // The oldest of the last `calls` starts: one more now would put
    // `calls + 1` of them in a window of `perMillis` until it ages out.
    return Math.max(0, this.starts[this.next]! + this.perMillis - now)
  }
  admit(now: number): void {
    if (this.starts.length < this.calls) this.starts.push(now)
    else {
      this.starts[this.next] = now
      this.next = (this.next + 1) % this.calls
    }
  }
}

/**
 * The slots and windows of one runtime.
 *
 * @since 0.4.0
 * @category models
 */
export class CallLimits {
  private readonly slots = new Map<string, Effect.Semaphore>()
  private readonly windows = new Map<string, Window>()

  /**
   * Runs `body` in one of the tool's `maxConcurrent` slots, waiting for one
   * at most `waitMillis`.
   */
  withSlot<A, E>(
    tool: Tool.Any,
    limit: number,
    waitMillis: number,
    body: Effect.Effect<A, E>
  ): Effect.Effect<A, E | ToolError.NotExecuted> {
    let semaphore = this.slots.get(tool.limitGroup)
    if (semaphore === undefined) {
      semaphore = Effect.unsafeMakeSemaphore(limit)
      this.slots.set(tool.limitGroup, semaphore)
    }
    const slot = semaphore
    return Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(
        restore(Effect.timeoutOption(slot.take(1), Math.max(0, waitMillis))),
        (taken): Effect.Effect<A, E | ToolError.NotExecuted> =>
          Option.isNone(taken)
            ? Effect.fail(
              new ToolError.NotExecuted({
                toolName: tool.name,
                reason: `at most ${limit} call${limit === 1 ? "" : "s"} of ${
                  tool.limitGroup === tool.name ? "it" : `its group "${ToolError.printableName(tool.limitGroup)}"`
                } run at once, and no slot came free within its ${ToolError.formatMillis(waitMillis)} limit`
              })
            )
            : Effect.ensuring(restore(body), slot.release(1))
      )
    )
  }

  /**
   * Lets `body` start once the tool's `rate` has room, waiting at most
   * `waitMillis` (and not at all when it rejects). The check and the record of
   * a start happen in one synchronous step, so two calls can never both take
   * the last place; a waiter that wakes to find it taken waits again.
   */
  admitted<A, E>(
    tool: Tool.Any,
    rate: Tool.Rate,
    clock: Clock.Clock,
    waitMillis: number,
    body: Effect.Effect<A, E>
  ): Effect.Effect<A, E | ToolError.RateLimited> {
    let window = this.windows.get(tool.limitGroup)
    if (window === undefined) {
      window = new Window(rate.calls, rate.perMillis)
      this.windows.set(tool.limitGroup, window)
    }
    const w = window
    const until = clock.unsafeCurrentTimeMillis() + Math.max(0, waitMillis)
    const attempt: Effect.Effect<A, E | ToolError.RateLimited> = Effect.suspend(() => {
      const now = clock.unsafeCurrentTimeMillis()
      const wait = w.waitAt(now)
      if (wait === 0) {
        w.admit(now)
        return body
      }
      if (rate.whenLimited === "reject" || now + wait > until) {
        return Effect.fail(
          new ToolError.RateLimited({
            toolName: tool.name,
            calls: rate.calls,
            perMillis: rate.perMillis,
            retryAfterMillis: Math.ceil(wait)
          })
        )
      }
      return Effect.zipRight(Effect.sleep(wait), attempt)
    })
    return attempt
  }
}

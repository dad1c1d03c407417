/**
 * A tool's `rate`: at most `calls` starts in any window of `per`, across
 * every turn of one runtime and every tool of its limit group. A call over
 * the rate waits for its turn within its own time limit, or is answered
 * `rate_limited` with when to retry; either way one that cannot start in
 * time never runs.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"

const recorder = () => {
  const starts: Array<number> = []
  return {
    starts,
    start: Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => starts.push(now)))
  }
}

const quota = (
  name: string,
  rec: ReturnType<typeof recorder>,
  rate: Tool.Options<any, any, never, never, never>["rate"],
  options?: {
    readonly timeout?: string
    readonly readOnly?: boolean
    readonly limitGroup?: string
    readonly work?: number
  }
) =>
  Tool.make(name, {
    description: "An API with a quota.",
    parameters: { n: Schema.Number },
    readOnly: options?.readOnly ?? true,
    rate,
    limitGroup: options?.limitGroup,
    timeout: (options?.timeout ?? "60 seconds") as "60 seconds",
    handler: ({ n }) => Effect.zipRight(rec.start, Effect.as(Effect.sleep(options?.work ?? 3), `done ${n}`))
  })

/**
 * Runs `effect` to its end, moving the test clock on in steps: the test
 * clock wakes each sleeper at its own instant, so a step never blurs a start.
 */
const drive = <A>(effect: Effect.Effect<A>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    for (;;) {
      const exit = yield* Fiber.poll(fiber)
      if (Option.isSome(exit)) return yield* exit.value
      yield* TestClock.adjust(50)
    }
  })

/** The largest number of starts in any window of `per` (half-open, so a start `per` later is outside it). */
const busiestWindow = (starts: ReadonlyArray<number>, per: number): number => {
  const sorted = [...starts].sort((a, b) => a - b)
  let most = 0
  let first = 0
  for (let last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= per) first++
    most = Math.max(most, last - first + 1)
  }
  return most
}

const turnsOf = (sizes: ReadonlyArray<number>, name: string) =>
  sizes.map((size, t) => Array.from({ length: size }, (_, i) => ({ id: `${t}.${i}`, name, input: { n: i } })))

describe("rate", () => {
  it.effect.prop(
    "never exceeded over any window across concurrent turns; every call answered, in order, and run",
    [
      FastCheck.integer({ min: 1, max: 3 }),
      FastCheck.integer({ min: 20, max: 80 }),
      FastCheck.array(FastCheck.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 4 }),
      FastCheck.boolean(),
      FastCheck.integer({ min: 0, max: 30 })
    ],
    ([calls, per, sizes, readOnly, work]) =>
      Effect.gen(function*() {
        const rec = recorder()
        const runtime = yield* ToolRuntime.ToolRuntime.pipe(
          Effect.provide(ToolRuntime.layerDefault([quota("quota", rec, { calls, per }, { readOnly, work })]))
        )
        const results = yield* drive(
          Effect.forEach(turnsOf(sizes, "quota"), (turn) => runtime.runTurn(turn), { concurrency: "unbounded" })
        )
        const total = sizes.reduce((sum, size) => sum + size, 0)
        assert.strictEqual(rec.starts.length, total)
        assert.isAtMost(busiestWindow(rec.starts, per), calls)
        // The rate is used, not met by running one call at a time (reads
        // all ask at once; writes of one turn run one after another).
        if (readOnly) assert.strictEqual(busiestWindow(rec.starts, per), Math.min(calls, total))
        results.forEach((turn, t) => {
          assert.deepStrictEqual(turn.map((r) => r.callId), turn.map((_, i) => `${t}.${i}`))
          for (const [i, result] of turn.entries()) assert.strictEqual(ToolResult.text(result), `done ${i}`)
        })
      }),
    { fastCheck: { numRuns: 25 } }
  )

  it.effect.prop(
    "with whenLimited reject: a refused call never ran, says when to retry, and a call at that moment starts",
    [
      FastCheck.integer({ min: 1, max: 3 }),
      FastCheck.integer({ min: 10, max: 500 }),
      FastCheck.array(FastCheck.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 12 })
    ],
    ([calls, per, gaps]) =>
      Effect.gen(function*() {
        const rec = recorder()
        const runtime = yield* ToolRuntime.ToolRuntime.pipe(
          Effect.provide(
            ToolRuntime.layerDefault([quota("quota", rec, { calls, per, whenLimited: "reject" }, { work: 0 })])
          )
        )
        let ran = 0
        for (const [i, gap] of gaps.entries()) {
          yield* TestClock.adjust(gap)
          const [result] = yield* runtime.runTurn([{ id: `c${i}`, name: "quota", input: { n: i } }])
          if (!result!.isError) {
            ran++
            continue
          }
          assert.strictEqual(result!.error?.code, "rate_limited")
          assert.isFalse(result!.error!.outcomeUnknown)
          const after = result!.error!.retryAfterMillis!
          assert.isAbove(after, 0)
          assert.isAtMost(after, per)
          assert.include(ToolResult.text(result!), `${calls} call`)
          // A moment earlier is still refused; at `after`, the call starts.
          if (after > 1) {
            yield* TestClock.adjust(after - 1)
            const [early] = yield* runtime.runTurn([{ id: `e${i}`, name: "quota", input: { n: i } }])
            assert.strictEqual(early!.error?.code, "rate_limited")
            assert.strictEqual(early!.error?.retryAfterMillis, 1)
            yield* TestClock.adjust(1)
          } else {
            yield* TestClock.adjust(after)
          }
          const [retried] = yield* runtime.runTurn([{ id: `r${i}`, name: "quota", input: { n: i } }])
          assert.isFalse(retried!.isError)
          ran++
        }
        assert.strictEqual(rec.starts.length, ran)
        assert.isAtMost(busiestWindow(rec.starts, per), calls)
      }),
    { fastCheck: { numRuns: 40 } }
  )

  it.effect("a wait longer than the call's own limit is answered at once, not after waiting for nothing", () =>
    Effect.gen(function*() {
      const rec = recorder()
      const runtime = yield* ToolRuntime.ToolRuntime.pipe(
        Effect.provide(
          ToolRuntime.layerDefault([quota("quota", rec, { calls: 1, per: "10 seconds" }, { timeout: "2 seconds" })])
        )
      )
      const results = yield* drive(runtime.runTurn([
        { id: "a", name: "quota", input: { n: 0 } },
        { id: "b", name: "quota", input: { n: 1 } }
      ]))
      assert.isFalse(results[0]!.isError)
      assert.strictEqual(results[1]!.error?.code, "rate_limited")
      assert.strictEqual(rec.starts.length, 1)
      // Answered when it was refused (after the first call's 3 ms of work), not 2 s later.
      assert.isAtMost(results[1]!.meta.durationMillis, 10)
      assert.isAbove(results[1]!.error!.retryAfterMillis!, 9_000)
      assert.include(ToolResult.text(results[1]!), "was not executed")
    }))

  it.effect("a wait within the call's limit is waited out", () =>
    Effect.gen(function*() {
      const rec = recorder()
      const runtime = yield* ToolRuntime.ToolRuntime.pipe(
        Effect.provide(ToolRuntime.layerDefault([quota("quota", rec, { calls: 1, per: "1 second" })]))
      )
      const results = yield* drive(runtime.runTurn([
        { id: "a", name: "quota", input: { n: 0 } },
        { id: "b", name: "quota", input: { n: 1 } }
      ]))
      assert.deepStrictEqual(results.map(ToolResult.text), ["done 0", "done 1"])
      assert.deepStrictEqual(rec.starts, [0, 1000])
    }))

  it.effect("tools of one limit group share its rate", () =>
    Effect.gen(function*() {
      const rec = recorder()
      const rate = { calls: 2, per: "1 second" } as const
      const runtime = yield* ToolRuntime.ToolRuntime.pipe(
        Effect.provide(ToolRuntime.layerDefault([
          quota("search_issues", rec, rate, { limitGroup: "github" }),
          quota("get_issue", rec, rate, { limitGroup: "github" }),
          quota("elsewhere", rec, rate)
        ]))
      )
      const results = yield* drive(runtime.runTurn([
        { id: "a", name: "search_issues", input: { n: 0 } },
        { id: "b", name: "get_issue", input: { n: 1 } },
        { id: "c", name: "elsewhere", input: { n: 2 } },
        { id: "d", name: "get_issue", input: { n: 3 } }
      ]))
      assert.isTrue(results.every((r) => !r.isError))
      // The third call of the group waits for the first to age out; the other tool's does not.
      assert.deepStrictEqual(rec.starts, [0, 0, 0, 1000])
    }))

  it.effect("the registry refuses a broken rate or maxConcurrent, and a group whose tools disagree", () =>
    Effect.gen(function*() {
      const rec = recorder()
      for (
        const [tools, words] of [
          [[quota("a", rec, { calls: 0, per: "1 second" })], "positive whole number"],
          [[quota("a", rec, { calls: 1.5, per: "1 second" })], "positive whole number"],
          [[quota("a", rec, { calls: 1, per: 0 })], "positive whole number"],
          ...[0, -1, 0.5, NaN, Infinity].map((slots) =>
            [
              [Tool.make("a", { description: "x", parameters: {}, maxConcurrent: slots, handler: () => Effect.void })],
              "maxConcurrent that is a positive whole number"
            ] as const
          ),
          [[
            quota("a", rec, { calls: 1, per: "1 second" }, { limitGroup: "g" }),
            quota("b", rec, undefined, { limitGroup: "g" })
          ], "different limits"],
          [[
            quota("a", rec, { calls: 1, per: "1 second" }, { limitGroup: "g" }),
            quota("b", rec, { calls: 1, per: "1 second", whenLimited: "reject" }, { limitGroup: "g" })
          ], "different limits"]
        ] as const
      ) {
        const error = yield* Effect.flip(
          ToolRuntime.ToolRuntime.pipe(Effect.provide(ToolRuntime.layerDefault(tools as ReadonlyArray<Tool.Any>)))
        )
        assert.include(String(error), words)
      }
    }))
})

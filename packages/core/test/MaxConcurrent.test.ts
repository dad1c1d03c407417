/**
 * A tool's `maxConcurrent`: at most that many of its calls run at once,
 * across every turn of one runtime, whatever the turns and their batching;
 * a call over the limit waits for a slot within its own time limit, and one
 * that gets none is answered `not_executed` without its handler ever running.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"

const gauge = () => {
  let now = 0
  let max = 0
  let runs = 0
  return {
    enter: Effect.sync(() => {
      runs++
      now++
      max = Math.max(max, now)
    }),
    leave: Effect.sync(() => {
      now--
    }),
    get max() {
      return max
    },
    get runs() {
      return runs
    }
  }
}

const limited = (
  limit: number,
  g: ReturnType<typeof gauge>,
  options?: { readonly readOnly?: boolean }
) =>
  Tool.make("fetch_page", {
    description: "An API that takes few connections at once.",
    parameters: { n: Schema.Number },
    readOnly: options?.readOnly ?? true,
    maxConcurrent: limit,
    handler: ({ n }) =>
      Effect.zipRight(g.enter, Effect.sleep("4 millis")).pipe(Effect.ensuring(g.leave), Effect.as(`page ${n}`))
  })

describe("maxConcurrent", () => {
  it.live.prop(
    "never exceeded across concurrent turns, read-only batches included; every call answered, in order",
    [
      FastCheck.integer({ min: 1, max: 3 }),
      FastCheck.array(FastCheck.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 4 }),
      FastCheck.boolean()
    ],
    ([limit, turns, readOnly]) =>
      Effect.gen(function*() {
        const g = gauge()
        const runtime = yield* ToolRuntime.ToolRuntime.pipe(
          Effect.provide(ToolRuntime.layerDefault([limited(limit, g, { readOnly })]))
        )
        const results = yield* Effect.forEach(
          turns,
          (size, t) =>
            runtime.runTurn(
              Array.from({ length: size }, (_, i) => ({ id: `${t}.${i}`, name: "fetch_page", input: { n: i } }))
            ),
          { concurrency: "unbounded" }
        )
        assert.isAtMost(g.max, limit)
        const total = turns.reduce((sum, size) => sum + size, 0)
        assert.strictEqual(g.runs, total)
        results.forEach((turn, t) => {
          assert.deepStrictEqual(turn.map((r) => r.callId), turn.map((_, i) => `${t}.${i}`))
          for (const [i, result] of turn.entries()) assert.strictEqual(ToolResult.text(result), `page ${i}`)
        })
        // The limit is reached when there is work enough: the law is not met by running one at a time.
        if (readOnly && turns.some((size) => size > limit)) assert.strictEqual(g.max, limit)
      }),
    { fastCheck: { numRuns: Number(process.env.PROPERTY_RUNS ?? 25) } }
  )

  it.live("a turn interrupted while its call waits for a slot leaves the slot to the next call", () =>
    Effect.gen(function*() {
      const g = gauge()
      const runtime = yield* ToolRuntime.ToolRuntime.pipe(
        Effect.provide(ToolRuntime.layerDefault([limited(1, g)]))
      )
      const first = yield* Effect.fork(runtime.runTurn([{ id: "a", name: "fetch_page", input: { n: 1 } }]))
      yield* Effect.sleep("1 millis")
      const waiting = yield* Effect.fork(runtime.runTurn([{ id: "b", name: "fetch_page", input: { n: 2 } }]))
      yield* Effect.sleep("1 millis")
      yield* waiting.interruptAsFork(waiting.id())
      yield* first.await
      const [later] = yield* runtime.runTurn([{ id: "c", name: "fetch_page", input: { n: 3 } }]).pipe(
        Effect.timeoutFail({
          duration: "5 seconds",
          onTimeout: () => new Error("the slot leaked: the next call waits forever")
        })
      )
      assert.strictEqual(ToolResult.text(later!), "page 3")
      assert.isAtMost(g.max, 1)
    }))

  it.live("a call that gets no slot within its time limit is not_executed, its handler never run", () =>
    Effect.gen(function*() {
      const g = gauge()
      const slow = Tool.make("slow_api", {
        description: "Holds its one connection.",
        parameters: {},
        readOnly: true,
        maxConcurrent: 1,
        timeout: "300 millis",
        handler: () =>
          Effect.zipRight(g.enter, Effect.sleep("250 millis")).pipe(Effect.ensuring(g.leave), Effect.as("done"))
      })
      const runtime = yield* ToolRuntime.ToolRuntime.pipe(Effect.provide(ToolRuntime.layerDefault([slow])))
      const results = yield* runtime.runTurn([
        { id: "a", name: "slow_api", input: {} },
        { id: "b", name: "slow_api", input: {} },
        { id: "c", name: "slow_api", input: {} }
      ])
      // One ran; the next got the slot after 250 ms, within its 300 ms; the third waited past its limit.
      assert.deepStrictEqual(results.map((r) => r.error?.code), [undefined, undefined, "not_executed"])
      assert.match(
        ToolResult.text(results[2]!),
        /at most 1 call of it run at once, and no slot came free within its 300 ms limit/
      )
      assert.strictEqual(g.runs, 2)
    }))

  it.live("tools of one limit group share its slots", () =>
    Effect.gen(function*() {
      const g = gauge()
      const member = (name: string) =>
        Tool.make(name, {
          description: "One of several tools in front of an API that takes one connection.",
          parameters: { n: Schema.Number },
          readOnly: true,
          maxConcurrent: 1,
          limitGroup: "api",
          handler: ({ n }) =>
            Effect.zipRight(g.enter, Effect.sleep("4 millis")).pipe(Effect.ensuring(g.leave), Effect.as(`page ${n}`))
        })
      const runtime = yield* ToolRuntime.ToolRuntime.pipe(
        Effect.provide(ToolRuntime.layerDefault([member("search"), member("fetch")]))
      )
      const results = yield* runtime.runTurn(
        Array.from({ length: 6 }, (_, i) => ({ id: `c${i}`, name: i % 2 === 0 ? "search" : "fetch", input: { n: i } }))
      )
      assert.isTrue(results.every((r) => !r.isError))
      assert.strictEqual(g.runs, 6)
      assert.strictEqual(g.max, 1)
    }))
})

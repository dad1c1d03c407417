/**
 * The workers of a batch of reads start only when a call waits: a turn of
 * calls that finish at once runs on the turn's own fiber, and the pool still
 * keeps to `concurrency`, stops with the turn, and answers every call.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as Supervisor from "effect/Supervisor"
import * as Tool from "../src/Tool.js"
import * as ToolResult from "../src/ToolResult.js"
import * as ToolRuntime from "../src/ToolRuntime.js"

const state = { running: 0, most: 0, interrupted: 0, ran: 0 }

/** A read that waits `millis` (0: answers at once), counting how many run together. */
const wait = Tool.make("wait", {
  description: "Waits, then answers.",
  parameters: { millis: Schema.Number },
  readOnly: true,
  handler: ({ millis }) =>
    Effect.gen(function*() {
      state.ran++
      state.running++
      state.most = Math.max(state.most, state.running)
      if (millis > 0) yield* Effect.sleep(millis)
      return `waited ${millis}`
    }).pipe(
      Effect.onInterrupt(() => Effect.sync(() => state.interrupted++)),
      Effect.ensuring(Effect.sync(() => state.running--))
    )
})

/** A read that answers when called: its Effect is done. */
const instant = Tool.make("instant", {
  description: "Answers at once.",
  parameters: { n: Schema.Number },
  readOnly: true,
  handler: ({ n }) => Effect.succeed(`answer ${n}`)
})

/** Counts the fibers started under it. */
class Counting extends Supervisor.AbstractSupervisor<void> {
  started = 0
  get value() {
    return Effect.void
  }
  override onStart() {
    this.started++
  }
}

const reset = () => Object.assign(state, { running: 0, most: 0, interrupted: 0, ran: 0 })

const runtime = ToolRuntime.ToolRuntime.pipe(Effect.provide(ToolRuntime.layerDefault([wait, instant])))

describe("a batch's workers", () => {
  it.live("never run more calls at once than the turn's concurrency, and answer every call in order", () =>
    Effect.gen(function*() {
      const service = yield* runtime
      yield* Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(
            FastCheck.array(FastCheck.constantFrom(0, 0, 5, 15), { minLength: 1, maxLength: 14 }),
            FastCheck.integer({ min: 1, max: 6 }),
            async (waits, concurrency) => {
              reset()
              const results = await Effect.runPromise(service.runTurn(
                waits.map((millis, i) => ({ id: `c${i}`, name: "wait", input: { millis } })),
                { concurrency }
              ))
              assert.strictEqual(results.length, waits.length)
              results.forEach((result, i) => {
                assert.strictEqual(result.callId, `c${i}`)
                assert.strictEqual(ToolResult.text(result), `waited ${waits[i]}`)
              })
              assert.isAtMost(state.most, concurrency)
              assert.strictEqual(state.ran, waits.length)
            }
          ),
          { numRuns: 40 }
        )
      )
    }))

  it.live("run waiting calls together, up to the limit: 6 calls of 100 ms at concurrency 3 take two rounds", () =>
    Effect.gen(function*() {
      const service = yield* runtime
      reset()
      const started = yield* Clock.currentTimeMillis
      yield* service.runTurn(
        Array.from({ length: 6 }, (_, i) => ({ id: `c${i}`, name: "wait", input: { millis: 100 } })),
        { concurrency: 3 }
      )
      const took = (yield* Clock.currentTimeMillis) - started
      assert.strictEqual(state.most, 3)
      assert.isAtLeast(took, 190)
      assert.isBelow(took, 1_000)
    }))

  it.live("start no fiber for calls that finish at once, and one worker more for each call that waits", () =>
    Effect.gen(function*() {
      const service = yield* runtime
      const quiet = new Counting()
      const answers = yield* service.runTurn(
        Array.from({ length: 10 }, (_, i) => ({ id: `c${i}`, name: "instant", input: { n: i } })),
        { concurrency: 4 }
      ).pipe(Effect.supervised(quiet))
      assert.deepStrictEqual(answers.map(ToolResult.text), Array.from({ length: 10 }, (_, i) => `answer ${i}`))
      assert.strictEqual(quiet.started, 0)
      // Three waiting calls at concurrency 4: each runs in its handler's fiber (3), the second and
      // third in a worker started for them (2), the instant one between in none; and the turn's
      // deadlines have one sleeper (1).
      const busy = new Counting()
      yield* service.runTurn(
        [5, 0, 5, 5].map((millis, i) => ({
          id: `w${i}`,
          name: i === 1 ? "instant" : "wait",
          input: i === 1 ? { n: 1 } : { millis }
        })),
        { concurrency: 4 }
      ).pipe(Effect.supervised(busy))
      assert.strictEqual(busy.started, 3 + 2 + 1)
    }))

  it.live("stop with the turn: an interrupted turn interrupts every worker's call, and none runs after", () =>
    Effect.gen(function*() {
      const service = yield* runtime
      reset()
      const results = yield* service.runTurn(
        Array.from({ length: 8 }, (_, i) => ({ id: `c${i}`, name: "wait", input: { millis: 60_000 } })),
        { concurrency: 4, interruptWhen: Effect.as(Effect.sleep("150 millis"), "the user pressed stop") }
      ).pipe(Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the turn did not stop") }))
      assert.strictEqual(results.length, 8)
      assert.isTrue(results.every((result) => result.isError))
      assert.strictEqual(state.ran, 4)
      assert.strictEqual(state.interrupted, 4)
      assert.strictEqual(state.running, 0)
      yield* Effect.sleep("200 millis")
      assert.strictEqual(state.ran, 4)
    }))
})

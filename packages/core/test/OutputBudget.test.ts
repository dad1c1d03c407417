/**
 * `runTurn`'s `outputBudget`: all the text a turn returns together stays
 * within it, whatever the sizes, the failures, the wrappers and the order
 * results finish in; small results are kept whole, large ones share the
 * rest; every result cut for it says so and keeps its full output stored.
 */
import { assert, describe, it } from "@effect/vitest"
import * as OutputBudget from "@tool-runtime/core/OutputBudget"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"

/** `size` characters of numbered lines: a cut shows where it cut. */
const payload = (seed: number, size: number): string => {
  let text = ""
  for (let line = 0; text.length < size; line++) text += `line ${line} of output ${seed}: lorem ipsum dolor\n`
  return text.slice(0, size)
}

const parameters = {
  seed: Schema.Number,
  size: Schema.Number,
  fail: Schema.Boolean,
  delay: Schema.Number
}

const handler = ({ delay, fail, seed, size }: { seed: number; size: number; fail: boolean; delay: number }) =>
  Effect.zipRight(
    Effect.sleep(delay),
    fail ? Effect.fail(payload(seed, size)) : Effect.succeed(payload(seed, size))
  )

const tools = [
  Tool.make("emit", { description: "Prints.", parameters, readOnly: true, handler }),
  Tool.make("emit_tail", {
    description: "Prints; its summary is at the end.",
    parameters,
    readOnly: true,
    truncation: { success: "tail" },
    handler
  }),
  Tool.make("emit_write", { description: "Prints, and writes.", parameters, handler }),
  Tool.make("fetch_page", { description: "Fetches a page.", parameters, readOnly: true, untrusted: true, handler }),
  Tool.make("fetch_marked", {
    description: "Fetches a page, marked word by word.",
    parameters,
    readOnly: true,
    untrusted: "datamark",
    handler
  })
] as const

const names = tools.map((tool) => tool.name)

const runtimeOf = ToolRuntime.ToolRuntime.pipe(Effect.provide(ToolRuntime.layerDefault(tools)))

const cutForBudget = (result: ToolResult.ToolResult) => result.meta.truncation?.reason === "budget"

const total = (results: ReadonlyArray<ToolResult.ToolResult>, unit: "chars" | "tokens") =>
  results.reduce((sum, result) => sum + OutputBudget.sizeOf(result, unit), 0)

const arbitraryCall = FastCheck.record({
  tool: FastCheck.integer({ min: 0, max: names.length - 1 }),
  size: FastCheck.oneof(FastCheck.integer({ min: 0, max: 300 }), FastCheck.integer({ min: 0, max: 8_000 })),
  fail: FastCheck.boolean(),
  delay: FastCheck.integer({ min: 0, max: 4 })
})

describe("outputBudget", () => {
  it.live.prop(
    "a turn's text never passes its budget; every cut says so and keeps its artifact; small results stay whole",
    [
      FastCheck.array(arbitraryCall, { minLength: 1, maxLength: 8 }),
      FastCheck.oneof(
        FastCheck.integer({ min: -10, max: 30_000 }),
        FastCheck.record({ tokens: FastCheck.integer({ min: 0, max: 8_000 }) })
      )
    ],
    ([plans, budget]) =>
      Effect.gen(function*() {
        const runtime = yield* runtimeOf
        const calls = plans.map((plan, i) => ({
          id: `c${i}`,
          name: names[plan.tool]!,
          input: { seed: i, size: plan.size, fail: plan.fail, delay: plan.delay }
        }))
        const unit = typeof budget === "number" ? "chars" : "tokens"
        const asked = typeof budget === "number" ? budget : budget.tokens
        const inForce = Math.max(asked, OutputBudget.floor[unit] * calls.length)
        const events: Array<{ index: number; result: ToolResult.ToolResult }> = []
        const natural = yield* runtime.runTurn(calls)
        const results = yield* runtime.runTurn(calls, {
          outputBudget: budget,
          onEvent: (event) =>
            Effect.sync(() => {
              if (event._tag === "CallFinished") events.push({ index: event.index, result: event.result })
            })
        })
        assert.deepStrictEqual(results.map((r) => r.callId), calls.map((c) => c.id))
        assert.isAtMost(total(results, unit), inForce)
        // One event per call, carrying the result the turn returns.
        assert.deepStrictEqual(events.map((e) => e.index).sort((a, b) => a - b), calls.map((_, i) => i))
        for (const { index, result } of events) assert.strictEqual(result, results[index])

        const naturalTotal = total(natural, unit)
        if (naturalTotal <= inForce) assert.isFalse(results.some(cutForBudget), "a turn within budget is cut")
        for (const [i, result] of results.entries()) {
          const size = OutputBudget.sizeOf(natural[i]!, unit)
          if (!cutForBudget(result)) {
            // Whole: the same text as without a budget (the untrusted boundary is drawn anew).
            assert.strictEqual(OutputBudget.sizeOf(result, unit), size)
            continue
          }
          assert.isAbove(size, Math.floor(inForce / calls.length), "a result below the even share was cut")
          assert.strictEqual(result.isError, natural[i]!.isError)
          // (In a datamarked result the marker's words are joined like the rest.)
          assert.match(ToolResult.text(result), /turn's.output.budget/)
          assert.isDefined(result.meta.artifact)
          const stored = yield* runtime.readArtifact(result.meta.artifact!, 0, 1_000_000)
          assert.strictEqual(stored.totalLength, result.meta.truncation!.originalLength)
          // The model still sees what it may act on: the error code, and where the rest is.
          if (result.isError) assert.strictEqual(result.error?.code, natural[i]!.error?.code)
          if (!result.isError && plans[i]!.size > 0) {
            assert.include(stored.text, payload(i, plans[i]!.size))
          }
        }
      }),
    { fastCheck: { numRuns: Number(process.env.PROPERTY_RUNS ?? 60) } }
  )

  it.effect("small results are kept whole and the large ones share the rest evenly", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeOf
      const results = yield* runtime.runTurn([
        { id: "big1", name: "emit", input: { seed: 1, size: 10_000, fail: false, delay: 0 } },
        { id: "small", name: "emit", input: { seed: 2, size: 100, fail: false, delay: 0 } },
        { id: "big2", name: "emit", input: { seed: 3, size: 10_000, fail: false, delay: 0 } }
      ], { outputBudget: 5_000 })
      assert.strictEqual(ToolResult.text(results[1]!), payload(2, 100))
      assert.isTrue(cutForBudget(results[0]!) && cutForBudget(results[2]!))
      // (5,000 - 100) / 2 each: the first cut gets its half, the second what the first left.
      assert.isAtMost(ToolResult.text(results[0]!).length + ToolResult.text(results[2]!).length, 4_900)
      for (const big of [results[0]!, results[2]!]) {
        const size = ToolResult.text(big).length
        assert.isAtMost(size, 2_500)
        assert.isAtLeast(size, 2_300)
        assert.isTrue(ToolResult.text(big).startsWith("line 0 of output"))
        assert.match(ToolResult.text(big), /showing 2,\d{3} of 10,000 characters/)
      }
    }))

  it.effect("a failure keeps its head and its tail, and an untrusted result keeps its wrapper whole", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeOf
      const [failed, page] = yield* runtime.runTurn([
        { id: "f", name: "emit", input: { seed: 1, size: 20_000, fail: true, delay: 0 } },
        { id: "p", name: "fetch_page", input: { seed: 2, size: 20_000, fail: false, delay: 0 } }
      ], { outputBudget: 4_000 })
      assert.strictEqual(failed!.error?.code, "tool_failed")
      const text = ToolResult.text(failed!)
      assert.isTrue(text.startsWith("emit failed"), text.slice(0, 80))
      assert.isTrue(text.endsWith(failed!.error!.hint), text.slice(-80))
      const shown = ToolResult.text(page!)
      assert.isTrue(page!.meta.untrusted === true && cutForBudget(page!))
      assert.match(shown, /<untrusted-content boundary="(\w+)">[\s\S]*<\/untrusted-content boundary="\1">$/)
      assert.isAtMost(text.length + shown.length, 4_000)
    }))

  it.effect("a budget below the floor is raised to it: each result is then a note of where its output went", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeOf
      const calls = Array.from({ length: 4 }, (_, i) => ({
        id: `c${i}`,
        name: "fetch_marked",
        input: { seed: i, size: 5_000, fail: false, delay: 0 }
      }))
      const results = yield* runtime.runTurn(calls, { outputBudget: { tokens: 1 } })
      assert.isAtMost(total(results, "tokens"), OutputBudget.floor.tokens * 4)
      for (const result of results) {
        assert.isTrue(cutForBudget(result))
        assert.isDefined(result.meta.artifact)
      }
    }))

  it.live("a write run alone and the reads beside it share one budget", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeOf
      const results = yield* runtime.runTurn([
        { id: "r1", name: "emit", input: { seed: 1, size: 3_000, fail: false, delay: 2 } },
        { id: "w", name: "emit_write", input: { seed: 2, size: 3_000, fail: false, delay: 0 } },
        { id: "r2", name: "emit_tail", input: { seed: 3, size: 3_000, fail: false, delay: 0 } }
      ], { outputBudget: 3_000 })
      assert.isAtMost(total(results, "chars"), 3_000)
      assert.isTrue(results.every(cutForBudget))
      // A tool that keeps its end keeps it under the budget too.
      assert.isTrue(ToolResult.text(results[2]!).endsWith(payload(3, 3_000).slice(-200)))
    }))

  it.live("a result within its even share is delivered at once; one that may be cut waits for the others", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeOf
      const order: Array<string> = []
      const results = yield* runtime.runTurn([
        { id: "slow_big", name: "emit", input: { seed: 1, size: 10_000, fail: false, delay: 60 } },
        { id: "fast_fit", name: "emit", input: { seed: 2, size: 1_400, fail: false, delay: 0 } },
        { id: "fast_big", name: "emit", input: { seed: 3, size: 9_000, fail: false, delay: 0 } }
      ], {
        outputBudget: 4_500,
        onEvent: (event) =>
          Effect.sync(() => {
            if (event._tag === "CallFinished") order.push(event.result.callId)
          })
      })
      // 1,400 is within 4,500 / 3: it cannot be cut whatever the others are.
      assert.deepStrictEqual(order, ["fast_fit", "slow_big", "fast_big"])
      assert.isFalse(cutForBudget(results[1]!))
      assert.isTrue(cutForBudget(results[0]!) && cutForBudget(results[2]!))
    }))

  it.effect("an Infinity budget is no budget: nothing is cut", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeOf
      const results = yield* runtime.runTurn([
        { id: "a", name: "emit", input: { seed: 1, size: 20_000, fail: false, delay: 0 } },
        { id: "b", name: "emit", input: { seed: 2, size: 20_000, fail: false, delay: 0 } }
      ], { outputBudget: Infinity })
      assert.isFalse(results.some(cutForBudget))
      assert.strictEqual(ToolResult.text(results[0]!), payload(1, 20_000))
    }))
})

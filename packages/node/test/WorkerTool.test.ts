/**
 * Worker tools, run through the real runtime with real worker threads: a
 * handler that never yields is stopped by its deadline with the process
 * responsive throughout and nothing of it left running; every way a worker
 * can end badly (its heap, a hostile Proxy, a throw, an exit) is an error
 * result of that call, and the next call of the tool works.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import type * as ClientRequests from "@tool-runtime/core/ClientRequests"
import * as IdempotencyKey from "@tool-runtime/core/IdempotencyKey"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import type * as TurnScheduler from "@tool-runtime/core/TurnScheduler"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as NodeChild from "node:child_process"
import * as NodeFs from "node:fs"
import * as WorkerTool from "../src/WorkerTool.js"
import { slowStart } from "./fixtures/worker/SlowStart.js"
import { typed } from "./fixtures/worker/TypeScriptTool.js"
import { unloadable } from "./fixtures/worker/Unloadable.js"
import { ask, block, chatty, echo, hog, misbehave, spin } from "./fixtures/worker/WorkerTools.js"
import { waitUntil } from "./Processes.js"

const tools = [echo, spin, hog, misbehave, chatty, block, ask] as const
afterAll(() => Effect.runPromise(Effect.forEach(tools, WorkerTool.close, { discard: true })))

const runtimeWith = (options?: ToolRuntime.Options) =>
  ToolRuntime.ToolRuntime.pipe(Effect.provide(ToolRuntime.layerDefault(tools, options)))
const runtime = runtimeWith()

const call = (name: string, input: unknown, options?: TurnScheduler.TurnOptions, service = runtime) =>
  Effect.flatMap(service, (service) => service.runTurn([{ id: "1", name, input }], options)).pipe(
    Effect.map((results) => results[0]!)
  )

/** Processes whose command line holds `marker`, alive (not zombies). */
const survivors = (marker: string): ReadonlyArray<string> =>
  NodeChild.execFileSync("ps", ["-e", "-o", "stat=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(marker) && !line.trim().startsWith("Z") && !line.includes("ps -e"))

/** A timer on the main thread: the gaps between its ticks show whether the event loop was ever held. */
const ticker = () => {
  const ticks: Array<number> = []
  const timer = setInterval(() => ticks.push(performance.now()), 5)
  return {
    stop: () => clearInterval(timer),
    /** Ticks in a window, and the longest gap between two of them (or the window's ends). */
    during: (from: number, to: number) => {
      const inside = ticks.filter((t) => t >= from && t <= to)
      const points = [from, ...inside, to]
      const gaps = points.slice(1).map((t, i) => t - points[i]!)
      return { count: inside.length, longestGap: Math.max(...gaps) }
    }
  }
}

/** CPU time the whole process spends over a short wait: a thread still spinning would use most of it. */
const sampleShare = (millis: number) =>
  Effect.gen(function*() {
    const before = process.cpuUsage()
    yield* Effect.sleep(millis)
    const used = process.cpuUsage(before)
    return (used.user + used.system) / 1000 / millis
  })

/**
 * The process's CPU share, the lowest of up to three samples: a thread still
 * spinning keeps every sample at a full core or more, while a passing burst
 * (garbage collection, a compilation, the machine's other load) does not.
 */
const busyShare = (millis: number) =>
  Effect.gen(function*() {
    let lowest = Infinity
    for (let sample = 0; sample < 3 && lowest >= 0.5; sample++) {
      lowest = Math.min(lowest, yield* sampleShare(millis))
    }
    return lowest
  })

describe("WorkerTool", { timeout: 60_000 }, () => {
  it.effect("the handler in the worker gets the call's idempotency key, the one the main thread made", () =>
    Effect.gen(function*() {
      const scope = { sessionId: "s", turnId: "t" }
      const result = yield* call("echo", { text: "key?" }, scope)
      const output = JSON.parse(ToolResult.text(result)) as { readonly key?: string; readonly attempt?: number }
      assert.strictEqual(output.key, IdempotencyKey.make(scope, "1"))
      assert.strictEqual(output.attempt, 1)
    }))

  it.live("a handler that never yields is stopped within its deadline plus 50 ms, the process stays responsive throughout, and the next call succeeds", () =>
    Effect.gen(function*() {
      // A warm worker: the deadline then measures the stop, not a thread's start.
      const warm = yield* call("spin", { loop: false })
      assert.strictEqual(ToolResult.text(warm), "not spinning")

      // Three trials, judged by their medians: a loop run in process would hang every one of them and
      // silence the timer for good; a busy machine can still stall any single trial.
      const deadline = 400
      const overruns: Array<number> = []
      const gaps: Array<number> = []
      for (let trial = 0; trial < 3; trial++) {
        if (trial > 0) assert.strictEqual(ToolResult.text(yield* call("spin", { loop: false })), "not spinning")
        const timer = ticker()
        const start = performance.now()
        const result = yield* call("spin", { loop: true, timeout_ms: deadline })
        const elapsed = performance.now() - start
        timer.stop()
        const { count, longestGap } = timer.during(start, start + elapsed)

        assert.strictEqual(result.error?.code, "timeout", ToolResult.text(result))
        assert.strictEqual(result.error?.stopped, "proven")
        assert.include(ToolResult.text(result), "it has stopped: nothing of it still runs")
        assert.isAtLeast(elapsed, deadline)
        // A 5 ms timer kept firing while the loop ran.
        assert.isAtLeast(count, deadline / 100, `${count} ticks`)
        overruns.push(elapsed - deadline)
        gaps.push(longestGap)
        // The claim, checked: no thread of the call still spins.
        assert.isBelow(yield* busyShare(300), 0.5)
      }
      const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[1]!
      const report = `stopped ${overruns.map((ms) => ms.toFixed(1)).join(", ")} ms past the deadline; ` +
        `the timer's longest gaps ${gaps.map((ms) => ms.toFixed(1)).join(", ")} ms`
      assert.isAtMost(median(overruns), 50, report)
      assert.isBelow(median(gaps), deadline / 2, report)

      const next = yield* call("spin", { loop: false })
      assert.isFalse(next.isError, ToolResult.text(next))
      assert.strictEqual(ToolResult.text(next), "not spinning")
    }))

  it.live("an interrupted turn ends its worker: stopped \"proven\", and nothing of it still runs", () =>
    Effect.gen(function*() {
      const spinning = yield* Deferred.make<void>()
      const stop = yield* Deferred.make<string>()
      const onEvent = (event: TurnScheduler.Event) =>
        event._tag === "Progress" && event.message === "spinning" ? Deferred.succeed(spinning, undefined) : Effect.void
      const turn = yield* Effect.fork(
        call("spin", { loop: true }, { onEvent, interruptWhen: Deferred.await(stop) })
      )
      // The progress report comes just before the loop starts: the worker is spinning now.
      yield* Deferred.await(spinning)
      yield* Effect.sleep("100 millis")
      const start = performance.now()
      yield* Deferred.succeed(stop, "the user pressed Escape")
      const result = yield* turn.await.pipe(Effect.flatten)
      const elapsed = performance.now() - start

      assert.strictEqual(result.error?.code, "interrupted", ToolResult.text(result))
      assert.strictEqual(result.error?.stopped, "proven")
      assert.isBelow(elapsed, 1_000)
      assert.isBelow(yield* busyShare(300), 0.5)

      const next = yield* call("spin", { loop: false })
      assert.strictEqual(ToolResult.text(next), "not spinning")
    }))

  it.live("a thread blocked in a synchronous call is reported stopped only once it is gone, or abandoned past the cleanup bound", () =>
    Effect.gen(function*() {
      const marker = `worker-block-${process.pid}`
      // Warm workers: the limit then falls while the child runs, not while a thread starts.
      const warm = call("block", { marker, seconds: 0, timeout_ms: 20_000 })
      assert.isFalse((yield* warm).isError)
      const started = performance.now()
      const stopped = yield* call("block", { marker: `${marker}-a`, seconds: 1.5, timeout_ms: 300 })
      assert.strictEqual(stopped.error?.code, "timeout", ToolResult.text(stopped))
      assert.strictEqual(stopped.error?.stopped, "proven")
      // The thread could only end once its child did: the result waited for both.
      assert.deepStrictEqual(survivors(`${marker}-a`), [])
      assert.isAtLeast(performance.now() - started, 1_400)

      assert.isFalse((yield* warm).isError)
      const short = runtimeWith({ cleanupTimeout: "300 millis" })
      const abandoned = yield* call("block", { marker: `${marker}-b`, seconds: 3, timeout_ms: 300 }, undefined, short)
      assert.strictEqual(abandoned.error?.code, "timeout", ToolResult.text(abandoned))
      assert.strictEqual(abandoned.error?.stopped, "abandoned")
      assert.include(ToolResult.text(abandoned), "it may still be running")
      assert.lengthOf(survivors(`${marker}-b`), 1)
      yield* waitUntil(() => survivors(`${marker}-b`).length === 0, "the blocked call ended", 10_000)
    }))

  it.live("a handler that exhausts its heap is an error result, and the pool recovers", () =>
    Effect.gen(function*() {
      const result = yield* call("hog", { eat: true })
      assert.strictEqual(result.error?.code, "tool_defect", ToolResult.text(result))
      assert.include(ToolResult.text(result), "the worker ran out of memory (its heap limit is 24 MB)")

      const next = yield* call("hog", { eat: false })
      assert.isFalse(next.isError, ToolResult.text(next))
      assert.strictEqual(ToolResult.text(next), "still hungry")
    }))

  it.live("a hostile Proxy, rejected, failed, died with or thrown uncaught, is an error result; the process never sees it", () =>
    Effect.gen(function*() {
      const unhandled: Array<unknown> = []
      const record = (e: unknown) => unhandled.push(e)
      process.on("unhandledRejection", record)
      yield* Effect.addFinalizer(() => Effect.sync(() => process.off("unhandledRejection", record)))

      const expected = {
        "reject-proxy": ["tool_defect", "a value that cannot be read"],
        "die-proxy": ["tool_defect", "a value that cannot be read"],
        "fail-proxy": ["tool_failed", "it failed with a value that cannot be read"],
        "uncaught-proxy": ["tool_defect", "the worker crashed"]
      } as const
      for (const [how, [code, text]] of Object.entries(expected)) {
        const result = yield* call("misbehave", { how })
        assert.strictEqual(result.error?.code, code, `${how}: ${ToolResult.text(result)}`)
        assert.include(ToolResult.text(result), text, `${how}: ${ToolResult.text(result)}`)
      }
      const next = yield* call("misbehave", { how: "ok" })
      assert.strictEqual(ToolResult.text(next), "behaved")
      assert.deepStrictEqual(unhandled, [])
    }).pipe(Effect.scoped))

  it.live("a throw, a typed failure, a rule, an exit and an output that cannot cross are each the result they would be in process", () =>
    Effect.gen(function*() {
      const thrown = yield* call("misbehave", { how: "throw" })
      assert.strictEqual(thrown.error?.code, "tool_defect")
      assert.include(ToolResult.text(thrown), "misbehave crashed with an internal error: TypeError: the handler threw")

      const failed = yield* call("misbehave", { how: "fail" })
      assert.strictEqual(failed.error?.code, "tool_failed")
      assert.isTrue(failed.error?.retryable)
      assert.include(ToolResult.text(failed), "misbehave failed: the service said no")

      const rule = yield* call("misbehave", { how: "rule" })
      assert.strictEqual(rule.error?.code, "rule_violation")
      assert.include(ToolResult.text(rule), "misbehave refused the call: only on Tuesdays")
      assert.include(ToolResult.text(rule), "Wait for Tuesday.")

      const exited = yield* call("misbehave", { how: "exit" })
      assert.strictEqual(exited.error?.code, "tool_defect")
      assert.include(ToolResult.text(exited), "the worker exited with code 7 before answering")

      const unclonable = yield* call("misbehave", { how: "unclonable" })
      assert.strictEqual(unclonable.error?.code, "tool_defect")
      assert.include(ToolResult.text(unclonable), "its result cannot be sent to the main thread")

      const next = yield* call("misbehave", { how: "ok" })
      assert.strictEqual(ToolResult.text(next), "behaved")
    }))

  it.live("a worker that ends while idle in the pool (a timer its call left) is replaced; the process never sees it", () =>
    Effect.gen(function*() {
      for (const how of ["exit-later", "throw-later"]) {
        const answered = yield* call("misbehave", { how })
        assert.strictEqual(ToolResult.text(answered), "answered", how)
        yield* Effect.sleep("200 millis")
        const next = yield* call("misbehave", { how: "ok" })
        assert.isFalse(next.isError, `${how}: ${ToolResult.text(next)}`)
        assert.strictEqual(ToolResult.text(next), "behaved")
      }
    }))

  it.live("a call that leaves work running (a timer) gets its own worker retired: the next call is not blamed for it", () =>
    Effect.gen(function*() {
      const answered = yield* call("misbehave", { how: "throw-much-later" })
      assert.strictEqual(ToolResult.text(answered), "answered")
      // Its timer throws 100 ms later, while this call runs: in the same worker it would end this one.
      const next = yield* call("misbehave", { how: "slow" })
      assert.isFalse(next.isError, ToolResult.text(next))
      assert.strictEqual(ToolResult.text(next), "slow behaved")
    }))

  it.live("progress from the worker reaches the turn and keeps the idle clock from firing", () =>
    Effect.gen(function*() {
      const reports: Array<string | undefined> = []
      const onEvent = (event: TurnScheduler.Event) =>
        Effect.sync(() => {
          if (event._tag === "Progress") reports.push(event.message)
        })
      // Six reports 100 ms apart: 600 ms in all, twice the idle limit.
      const result = yield* call("chatty", { reports: 6 }, { onEvent })
      assert.isFalse(result.isError, ToolResult.text(result))
      assert.strictEqual(ToolResult.text(result), "6 reports")
      assert.deepStrictEqual(reports, ["step 0", "step 1", "step 2", "step 3", "step 4", "step 5"])
    }))

  it.live("a question and a sample go through the main thread to the client; the answer is decoded in the worker", () =>
    Effect.gen(function*() {
      const asked: Array<unknown> = []
      const client: ClientRequests.Channel = {
        elicit: (request) =>
          Effect.sync(() => {
            asked.push(request)
            return { action: "accept", content: { proceed: true, times: "3" } }
          }),
        sample: (request) => Effect.succeed({ text: `hi (${request.messages[0]!.text})`, model: "scripted" })
      }
      const result = yield* call("ask", {}, { client })
      assert.isFalse(result.isError, ToolResult.text(result))
      assert.deepStrictEqual(JSON.parse(ToolResult.text(result)), {
        answer: { proceed: true, times: 3 },
        sample: "hi (Say hi)"
      })
      assert.deepStrictEqual(asked, [{
        message: "Proceed?",
        requestedSchema: {
          type: "object",
          properties: {
            proceed: { type: "boolean" },
            times: { type: "string", description: "a string to be decoded into a number" }
          },
          required: ["proceed", "times"]
        }
      }])

      // Without a client: the question is declined and the sample fails, as in process.
      const alone = yield* call("ask", {})
      assert.deepStrictEqual(JSON.parse(ToolResult.text(alone)), {
        answer: "decline",
        sample:
          "The client's model could not be asked: the runtime is not serving a client that lends its model (MCP sampling)"
      })
    }))

  /** Threads of this process: each worker is one. */
  const threads = () => NodeFs.readdirSync("/proc/self/task").length

  it.live("the pool's layer starts its workers ahead of the first call and ends them when released; workers are reused", () =>
    Effect.gen(function*() {
      yield* WorkerTool.close(echo)
      const before = threads()
      const scope = yield* Scope.make()
      yield* Layer.buildWithScope(WorkerTool.layerPools([echo]), scope)
      // The echo tool keeps two idle workers: both started, with no call made.
      assert.strictEqual(threads(), before + 2)
      const thread = (text: string) =>
        Effect.map(call("echo", { text }), (result) => JSON.parse(ToolResult.text(result)) as { thread: number })
      const first = yield* thread("a")
      const second = yield* thread("b")
      assert.strictEqual(second.thread, first.thread)
      assert.strictEqual(threads(), before + 2)
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(threads(), before)
      const third = yield* thread("c")
      assert.notStrictEqual(third.thread, first.thread)
    }))

  it.live("a call stopped while its worker loads never reached it: that worker is kept for the next call", () =>
    Effect.gen(function*() {
      yield* WorkerTool.close(echo)
      const before = threads()
      const stopped = yield* call("echo", { text: "a", timeout_ms: 1 })
      assert.strictEqual(stopped.error?.code, "timeout", ToolResult.text(stopped))
      assert.strictEqual(stopped.error?.stopped, "proven")
      // The worker it started lives on, and answers the next call: no other starts.
      assert.strictEqual(threads(), before + 1)
      const next = yield* call("echo", { text: "b" })
      assert.isFalse(next.isError, ToolResult.text(next))
      assert.strictEqual(threads(), before + 1)
    }))

  it.live("a worker's start is not silence: the idle clock counts from the module loaded", () =>
    Effect.gen(function*() {
      const service = yield* ToolRuntime.ToolRuntime.pipe(Effect.provide(ToolRuntime.layerDefault([slowStart])))
      const [result] = yield* service.runTurn([{ id: "1", name: "slow_start", input: {} }])
      assert.isFalse(result!.isError, ToolResult.text(result!))
      assert.strictEqual(ToolResult.text(result!), "loaded")
      yield* WorkerTool.close(slowStart)
    }))

  it.live("a module that does not load in its worker is an error result of each call, never a hang", () =>
    Effect.gen(function*() {
      const service = yield* ToolRuntime.ToolRuntime.pipe(Effect.provide(ToolRuntime.layerDefault([unloadable])))
      for (const id of ["1", "2"]) {
        const [result] = yield* service.runTurn([{ id, name: "unloadable", input: {} }])
        assert.strictEqual(result!.error?.code, "tool_defect", ToolResult.text(result!))
        assert.include(ToolResult.text(result!), "could not be loaded: this module refuses to load in a worker")
      }
    }))

  it.live("a TypeScript module loads in its workers through a loader given in execArgv", () =>
    Effect.gen(function*() {
      const service = yield* ToolRuntime.ToolRuntime.pipe(Effect.provide(ToolRuntime.layerDefault([typed])))
      const [result] = yield* service.runTurn([{ id: "1", name: "typed", input: { text: "hello" } }])
      assert.isFalse(result!.isError, ToolResult.text(result!))
      assert.strictEqual(ToolResult.text(result!), "HELLO")
      yield* WorkerTool.close(typed)
    }))

  it.live.prop(
    "concurrent calls each get exactly one result, their own, in order",
    [FastCheck.array(FastCheck.string({ maxLength: 20 }), { minLength: 1, maxLength: 6 })],
    ([texts]) =>
      Effect.gen(function*() {
        const service = yield* runtime
        const results = yield* service.runTurn(texts.map((text, i) => ({ id: `c${i}`, name: "echo", input: { text } })))
        assert.deepStrictEqual(results.map((r) => r.callId), texts.map((_, i) => `c${i}`))
        results.forEach((result, i) => {
          assert.isFalse(result.isError, ToolResult.text(result))
          assert.strictEqual((JSON.parse(ToolResult.text(result)) as { echoed: string }).echoed, texts[i])
        })
      }),
    { fastCheck: { numRuns: 5 } }
  )
})

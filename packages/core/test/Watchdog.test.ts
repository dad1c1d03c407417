import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as ArtifactStore from "../src/ArtifactStore.js"
import * as Policy from "../src/Policy.js"
import * as Redactor from "../src/Redactor.js"
import * as Registry from "../src/Registry.js"
import * as Tool from "../src/Tool.js"
import * as ToolResult from "../src/ToolResult.js"
import * as ToolRuntime from "../src/ToolRuntime.js"
import * as Watchdog from "../src/Watchdog.js"

// Deadline laws are asserted at the instant they must hold: a fiber is
// polled right before and right at its bound, so a broken law fails with a
// message instead of hanging until the test's own timeout.

/** Lets forked fibers and observers run after the clock moved. */
const settle = Effect.repeatN(Effect.yieldNow(), 20)

/** The fiber's exit once the clock reached `at`, `null` while it still runs. */
const pollAt = <A, E>(fiber: Fiber.RuntimeFiber<A, E>) => Effect.as(settle, fiber.unsafePoll())

const runtimeWith = <const Tools extends ReadonlyArray<Tool.Any>>(tools: Tools, options?: ToolRuntime.Options) => {
  const store = ArtifactStore.layerMemory()
  return ToolRuntime.ToolRuntime.pipe(
    Effect.provide(
      ToolRuntime.layer(options).pipe(
        Layer.provide([Registry.layer(tools), store, Redactor.layerDefault, Policy.layerAllowAll]),
        Layer.provide(store)
      )
    )
  )
}

describe("Watchdog", () => {
  it.effect("the total limit stops a handler that keeps reporting progress, at the limit", () =>
    Effect.gen(function*() {
      const watchdog = new Watchdog.Watchdog(yield* Effect.clock, 1_000)
      const watch = watchdog.watch(5_000, 1_000)
      // Progress every 100 ms: the idle limit never runs out.
      const handler = yield* Effect.fork(
        Effect.forever(Effect.zipRight(Effect.sleep("100 millis"), Effect.sync(() => watchdog.touch(watch))))
      )
      const waiting = yield* Effect.fork(watchdog.run(watch, handler))
      yield* TestClock.adjust("4999 millis")
      assert.isNull(yield* pollAt(waiting), "still running just before the total limit")
      assert.isUndefined(watch.stopped)
      yield* TestClock.adjust("1 millis")
      const outcome = yield* pollAt(waiting)
      assert.isNotNull(outcome, "the total limit passed while progress kept arriving, and nothing stopped the handler")
      assert.strictEqual(watch.stopped, "timeout")
      assert.isTrue(Exit.isInterrupted(handler.unsafePoll()!), "the handler itself was interrupted")
      yield* watchdog.close()
    }))

  it.effect("the idle limit counts from the last progress", () =>
    Effect.gen(function*() {
      const watchdog = new Watchdog.Watchdog(yield* Effect.clock, 1_000)
      const watch = watchdog.watch(60_000, 1_000)
      const handler = yield* Effect.fork(Effect.never)
      const waiting = yield* Effect.fork(watchdog.run(watch, handler))
      yield* TestClock.adjust("900 millis")
      watchdog.touch(watch)
      yield* TestClock.adjust("999 millis")
      assert.isNull(yield* pollAt(waiting), "progress at 900 ms moved the idle limit to 1900 ms")
      yield* TestClock.adjust("1 millis")
      assert.isNotNull(yield* pollAt(waiting), "stopped as idle at 1900 ms")
      assert.strictEqual(watch.stopped, "idle")
      yield* watchdog.close()
    }))

  it.effect("a handler whose cleanup hangs is abandoned after the cleanup bound, and the sleeper ends", () =>
    Effect.flatMap(Deferred.make<void>(), (testEnds) =>
      Effect.gen(function*() {
        const watchdog = new Watchdog.Watchdog(yield* Effect.clock, 300)
        const watch = watchdog.watch(1_000, undefined)
        // The cleanup lasts until the test ends, long after it was abandoned.
        const handler = yield* Effect.forkDaemon(Effect.never.pipe(Effect.ensuring(Deferred.await(testEnds))))
        const waiting = yield* Effect.forkDaemon(watchdog.run(watch, handler))
        yield* TestClock.adjust("1299 millis")
        assert.isNull(yield* pollAt(waiting))
        yield* TestClock.adjust("1 millis")
        const outcome = yield* pollAt(waiting)
        assert.isNotNull(outcome, "not released at timeout + cleanup bound")
        assert.deepStrictEqual(Exit.isSuccess(outcome!) ? outcome.value : undefined, "abandoned")
        assert.isTrue(watch.abandoned)
        // Nothing is left to watch: no sleeper keeps a timer for this call.
        assert.isUndefined((watchdog as unknown as { sleeper: unknown }).sleeper)
        assert.isNull(handler.unsafePoll(), "the handler itself is still in its cleanup")
        yield* watchdog.close()
      }).pipe(Effect.ensuring(Deferred.succeed(testEnds, undefined)))))

  it.live("abandoned calls leave no timer of the runtime's behind", () => {
    // Core has no Node types; the tests run on Node.
    const node = globalThis as unknown as { process: { getActiveResourcesInfo(): ReadonlyArray<string> } }
    const timers = () => node.process.getActiveResourcesInfo().filter((name) => name === "Timeout").length
    // A cleanup that hangs without a timer of its own (`Effect.never` would
    // hold one: its keep-alive interval, which only its fiber can clear).
    const hung = Tool.make("hung", {
      description: "its cleanup hangs",
      parameters: {},
      timeout: "50 millis",
      handler: () => Effect.never.pipe(Effect.ensuring(Effect.async<void>(() => {})))
    })
    return Effect.gen(function*() {
      const runtime = yield* runtimeWith([hung], { cleanupTimeout: "50 millis" })
      const before = timers()
      // Bounded: an abandon that never comes fails here, in seconds. The bound's own timer is
      // cleared when it returns, before the count.
      const results = yield* Effect.forEach(["1", "2", "3"], (id) => runtime.runCall({ id, name: "hung", input: {} }))
        .pipe(
          Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("a hung call was not abandoned") })
        )
      for (const result of results) {
        assert.strictEqual(result.error?.code, "timeout")
        assert.include(ToolResult.text(result), "abandoned")
      }
      assert.isAtMost(timers(), before, "a timer outlived its call")
    })
  })

  describe("an interrupted turn whose handler's cleanup hangs", () => {
    /** A tool whose cleanup lasts until the test ends, long after it was abandoned. */
    const stubborn = (testEnds: Deferred.Deferred<void>) =>
      Tool.make("stubborn", {
        description: "its cleanup hangs",
        parameters: {},
        timeout: "6 seconds",
        handler: () => Effect.never.pipe(Effect.ensuring(Deferred.await(testEnds)))
      })

    /** Runs the test body, then lets the abandoned cleanup finish, pass or fail. */
    const withStubborn = <A, E, R>(body: (tool: ReturnType<typeof stubborn>) => Effect.Effect<A, E, R>) =>
      Effect.flatMap(
        Deferred.make<void>(),
        (testEnds) => Effect.ensuring(body(stubborn(testEnds)), Deferred.succeed(testEnds, undefined))
      )

    it.effect("through interruptWhen: answered at the cleanup bound, not at the tool's timeout", () =>
      withStubborn((tool) =>
        Effect.gen(function*() {
          const runtime = yield* runtimeWith([tool], { cleanupTimeout: "300 millis" })
          const stop = yield* Deferred.make<string>()
          const turn = yield* Effect.forkDaemon(
            runtime.runTurn([{ id: "s", name: "stubborn", input: {} }], { interruptWhen: Deferred.await(stop) })
          )
          yield* TestClock.adjust("1 second")
          yield* Deferred.succeed(stop, "the user pressed Escape")
          yield* TestClock.adjust("299 millis")
          assert.isNull(yield* pollAt(turn), "the cleanup bound is not over yet")
          yield* TestClock.adjust("1 millis")
          const exit = yield* pollAt(turn)
          assert.isNotNull(exit, "the turn did not end at the cleanup bound (0.3 s after the interruption)")
          const [result] = Exit.isSuccess(exit!) ? exit.value : []
          assert.strictEqual(result?.error?.code, "interrupted")
          assert.strictEqual(result?.error?.stopped, "abandoned")
          assert.include(ToolResult.text(result!), "was abandoned: it may still be running")
        })
      ))

    it.effect("through interrupting the turn's fiber: it ends at the cleanup bound", () =>
      withStubborn((tool) =>
        Effect.gen(function*() {
          const runtime = yield* runtimeWith([tool], { cleanupTimeout: "300 millis" })
          const turn = yield* Effect.forkDaemon(runtime.runTurn([{ id: "s", name: "stubborn", input: {} }]))
          yield* TestClock.adjust("1 second")
          const interrupting = yield* Effect.forkDaemon(Fiber.interrupt(turn))
          yield* TestClock.adjust("299 millis")
          assert.isNull(yield* pollAt(interrupting), "the cleanup bound is not over yet")
          yield* TestClock.adjust("1 millis")
          assert.isNotNull(yield* pollAt(interrupting), "the interruption did not complete at the cleanup bound")
        })
      ))
  })
})

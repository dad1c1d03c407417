import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as TestServices from "effect/TestServices"
import * as ArtifactStore from "../src/ArtifactStore.js"
import * as ForeignText from "../src/ForeignText.js"
import * as Hooks from "../src/Hooks.js"
import * as Pipeline from "../src/Pipeline.js"
import * as Policy from "../src/Policy.js"
import * as Redactor from "../src/Redactor.js"
import * as Registry from "../src/Registry.js"
import * as ResourceLocks from "../src/ResourceLocks.js"
import * as Tool from "../src/Tool.js"
import * as ToolError from "../src/ToolError.js"
import * as ToolResult from "../src/ToolResult.js"
import * as ToolRuntime from "../src/ToolRuntime.js"

const runtimeWith = (
  tools: ReadonlyArray<Tool.Any>,
  options?: {
    readonly policy?: Layer.Layer<Policy.Policy>
    readonly runtime?: ToolRuntime.Options
  }
) => {
  const store = ArtifactStore.layerMemory()
  return ToolRuntime.ToolRuntime.pipe(
    Effect.provide(
      ToolRuntime.layer(options?.runtime).pipe(
        Layer.provide([
          Registry.layer(tools),
          store,
          Redactor.layerDefault,
          options?.policy ?? Policy.layerAllowAll
        ]),
        Layer.provide(store)
      )
    )
  )
}

const echo = Tool.make("echo", {
  description: "Echoes its text.",
  parameters: { text: Schema.String },
  readOnly: true,
  handler: ({ text }) => Effect.succeed(text)
})

const call = (id: string, name: string, input: unknown) => ({ id, name, input })

/** Records when each handler ran, in virtual time. */
const recorder = Effect.map(
  Ref.make<ReadonlyArray<{ readonly id: string; readonly start: number; readonly end: number }>>([]),
  (log) => ({
    log,
    span: (id: string, millis: number) =>
      Effect.gen(function*() {
        const start = yield* Clock.currentTimeMillis
        yield* Effect.sleep(millis)
        const end = yield* Clock.currentTimeMillis
        yield* Ref.update(log, (entries) => [...entries, { id, start, end }])
      })
  })
)

/**
 * `effect`, which must end once the virtual clock has passed its deadline,
 * bounded in real time: a missed deadline fails in seconds, with a message,
 * instead of leaving the test waiting on a clock nobody moves until its own
 * timeout.
 */
const bounded = <A, E, R>(effect: Effect.Effect<A, E, R>, what: string) =>
  TestServices.provideWithLive(
    effect,
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error(`${what} had not ended by its deadline`) })
  )

/** The result of a forked turn or call whose deadline the test clock has passed. */
const ended = <A, E>(fiber: Fiber.Fiber<A, E>) => bounded(Fiber.join(fiber), "the forked turn")

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  a.start < b.end && b.start < a.end

describe("ToolRuntime", () => {
  it.effect("a tool's sandbox line lands in meta.sandbox of every call that ran, and of none that did not", () =>
    Effect.gen(function*() {
      const shell = Tool.make("shell", {
        description: "Runs a command.",
        parameters: { command: Schema.String, full: Schema.optional(Schema.Boolean) },
        sandbox: ({ full }) => full === true ? "sandbox: none (danger-full-access)" : "sandbox: read-only (bubblewrap)",
        handler: ({ command }) => command === "fail" ? Effect.fail("it failed") : Effect.succeed(command)
      })
      const runtime = yield* runtimeWith([shell, echo])
      const results = yield* runtime.runTurn([
        call("a", "shell", { command: "ls" }),
        call("b", "shell", { command: "rm", full: true }),
        call("c", "shell", { command: "fail" }),
        call("d", "shell", { command: 42 }),
        call("e", "echo", { text: "hi" })
      ])
      assert.deepStrictEqual(results.map((result) => result.meta.sandbox), [
        "sandbox: read-only (bubblewrap)",
        "sandbox: none (danger-full-access)",
        "sandbox: read-only (bubblewrap)",
        undefined,
        undefined
      ])
      assert.isTrue(results[2]!.isError)
    }))

  it.effect("returns exactly one result per call, in call order, paired by id", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeWith([echo])
      const results = yield* runtime.runTurn([
        call("a", "echo", { text: "one" }),
        call("b", "nope", {}),
        call("c", "echo", "{\"text\": \"three\"}"),
        call("d", "echo", { text: 4 }),
        call("e", "echo", "{not json")
      ])
      assert.deepStrictEqual(results.map((r) => r.callId), ["a", "b", "c", "d", "e"])
      assert.deepStrictEqual(results.map((r) => r.isError), [false, true, false, true, true])
      assert.deepStrictEqual(results.map((r) => r.error?.code), [
        undefined,
        "unknown_tool",
        undefined,
        "invalid_arguments",
        "malformed_arguments"
      ])
      assert.strictEqual(ToolResult.text(results[0]!), "one")
      assert.strictEqual(ToolResult.text(results[2]!), "three")
    }))

  it.effect("runs consecutive read-only calls together and every other call alone", () =>
    Effect.gen(function*() {
      const { log, span } = yield* recorder
      const read = Tool.make("read", {
        description: "reads",
        parameters: { id: Schema.String },
        readOnly: true,
        handler: ({ id }) => span(id, 1000)
      })
      const write = Tool.make("write", {
        description: "writes",
        parameters: { id: Schema.String },
        handler: ({ id }) => span(id, 1000)
      })
      const runtime = yield* runtimeWith([read, write])
      const calls = [
        call("1", "read", { id: "r1" }),
        call("2", "read", { id: "r2" }),
        call("3", "write", { id: "w1" }),
        call("4", "write", { id: "w2" }),
        call("5", "read", { id: "r3" }),
        call("6", "read", { id: "r4" })
      ]
      assert.deepStrictEqual(runtime.plan(calls).map((b) => b.indices), [[0, 1], [2], [3], [4, 5]])
      const fiber = yield* Effect.fork(runtime.runTurn(calls))
      yield* TestClock.adjust("10 seconds")
      const results = yield* ended(fiber)
      assert.isTrue(results.every((r) => !r.isError))
      const byId = new Map((yield* Ref.get(log)).map((e) => [e.id, e]))
      assert.isTrue(overlaps(byId.get("r1")!, byId.get("r2")!))
      assert.isTrue(overlaps(byId.get("r3")!, byId.get("r4")!))
      for (const w of ["w1", "w2"]) {
        for (const [other, entry] of byId) {
          if (other !== w) assert.isFalse(overlaps(byId.get(w)!, entry), `${w} overlapped ${other}`)
        }
      }
      assert.strictEqual(byId.get("w1")!.start, 1000)
      assert.strictEqual(byId.get("r3")!.start, 3000)
    }))

  it.effect("calls that write one resource never overlap, even when a tool is wrongly marked read-only", () =>
    Effect.gen(function*() {
      const { log, span } = yield* recorder
      const touch = (name: string, access: "read" | "write") =>
        Tool.make(name, {
          description: `${access}s a file`,
          parameters: { id: Schema.String, path: Schema.String },
          // Marked read-only by mistake for the writer: the resource still serializes it.
          readOnly: true,
          resources: ({ path }) => [access === "write" ? ResourceLocks.writes(path) : ResourceLocks.reads(path)],
          handler: ({ id }) => span(id, 1000)
        })
      const runtime = yield* runtimeWith([touch("edit", "write"), touch("view", "read")])
      const fiber = yield* Effect.fork(runtime.runTurn([
        call("1", "edit", { id: "e1", path: "a.txt" }),
        call("2", "edit", { id: "e2", path: "a.txt" }),
        call("3", "view", { id: "v1", path: "a.txt" }),
        call("4", "edit", { id: "e3", path: "b.txt" }),
        call("5", "view", { id: "v2", path: "c.txt" })
      ]))
      yield* TestClock.adjust("10 seconds")
      yield* ended(fiber)
      const starts = Object.fromEntries((yield* Ref.get(log)).map((e) => [e.id, e.start]))
      // Same file: one writer after the other, the reader after both. Other files: at once.
      assert.deepStrictEqual(starts, { e1: 0, e2: 1000, v1: 2000, e3: 0, v2: 0 })
    }))

  it.effect("a handler that works when called is not called before its lock or its slot let it", () =>
    Effect.gen(function*() {
      const events: Array<string> = []
      // Does its work in the handler function itself, before any Effect runs: only the
      // moment the runtime calls it tells whether the lock was held.
      const guarded = (name: string, maxConcurrent: number | undefined) =>
        Tool.make(name, {
          description: "works when called",
          parameters: { id: Schema.String },
          readOnly: true,
          ...(maxConcurrent === undefined ? { resources: () => [ResourceLocks.writes("a.txt")] } : { maxConcurrent }),
          handler: ({ id }) => {
            events.push(`${name} ${id} called`)
            return id === "1"
              ? Effect.as(
                Effect.zipRight(Effect.sleep("1 second"), Effect.sync(() => events.push(`${name} 1 done`))),
                "ok"
              )
              : Effect.succeed("ok")
          }
        })
      const runtime = yield* runtimeWith([guarded("locked", undefined), guarded("slotted", 1)])
      for (const name of ["locked", "slotted"]) {
        const fiber = yield* Effect.fork(runtime.runTurn([call("1", name, { id: "1" }), call("2", name, { id: "2" })]))
        yield* TestClock.adjust("10 seconds")
        yield* ended(fiber)
      }
      assert.deepStrictEqual(events, [
        "locked 1 called",
        "locked 1 done",
        "locked 2 called",
        "slotted 1 called",
        "slotted 1 done",
        "slotted 2 called"
      ])
    }))

  it.effect("parallel: false runs every call alone", () =>
    Effect.gen(function*() {
      const { log, span } = yield* recorder
      const read = Tool.make("read", {
        description: "reads",
        parameters: { id: Schema.String },
        readOnly: true,
        handler: ({ id }) => span(id, 1000)
      })
      const runtime = yield* runtimeWith([read])
      const fiber = yield* Effect.fork(
        runtime.runTurn([call("1", "read", { id: "a" }), call("2", "read", { id: "b" })], { parallel: false })
      )
      yield* TestClock.adjust("5 seconds")
      yield* ended(fiber)
      const entries = yield* Ref.get(log)
      assert.deepStrictEqual(entries.map((e) => [e.id, e.start]), [["a", 0], ["b", 1000]])
    }))

  it.effect("bounds the number of read-only calls running at once", () =>
    Effect.gen(function*() {
      const { log, span } = yield* recorder
      const read = Tool.make("read", {
        description: "reads",
        parameters: { id: Schema.String },
        readOnly: true,
        handler: ({ id }) => span(id, 1000)
      })
      const runtime = yield* runtimeWith([read])
      const calls = Array.from({ length: 5 }, (_, i) => call(`c${i}`, "read", { id: `c${i}` }))
      const fiber = yield* Effect.fork(runtime.runTurn(calls, { concurrency: 2 }))
      yield* TestClock.adjust("10 seconds")
      yield* ended(fiber)
      const starts = (yield* Ref.get(log)).map((e) => e.start).sort((a, b) => a - b)
      assert.deepStrictEqual(starts, [0, 0, 1000, 1000, 2000])
    }))

  it.effect("stops a handler at its total timeout, runs its finalizers, and says so", () =>
    Effect.gen(function*() {
      const finalized = yield* Ref.make(-1)
      const slow = Tool.make("slow_write", {
        description: "never finishes",
        parameters: {},
        timeout: "5 seconds",
        handler: () =>
          Effect.never.pipe(
            Effect.onInterrupt(() => Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.set(finalized, now)))
          )
      })
      const runtime = yield* runtimeWith([slow])
      const fiber = yield* Effect.fork(runtime.runCall(call("t", "slow_write", {})))
      yield* TestClock.adjust("4999 millis")
      assert.isNull(fiber.unsafePoll())
      yield* TestClock.adjust("1 millis")
      const result = yield* ended(fiber)
      assert.strictEqual(result.error?.code, "timeout")
      assert.strictEqual(yield* Ref.get(finalized), 5000)
      assert.strictEqual(result.meta.durationMillis, 5000)
      // A write that was cut off may have happened: the model must check.
      assert.isTrue(result.error?.outcomeUnknown)
      assert.isFalse(result.error?.retryable)
      assert.include(ToolResult.text(result), "timed out after 5 s")
      assert.include(ToolResult.text(result), "check whether it did")
    }))

  it.effect("a call can ask for a shorter limit than its tool's, never a longer one", () =>
    Effect.gen(function*() {
      const wait = Tool.make("wait", {
        description: "waits",
        parameters: { timeout_ms: Schema.Number },
        readOnly: true,
        timeout: "10 seconds",
        timeoutFor: ({ timeout_ms }) => timeout_ms,
        handler: () => Effect.never
      })
      const runtime = yield* runtimeWith([wait])
      const fiber = yield* Effect.fork(runtime.runTurn([
        call("short", "wait", { timeout_ms: 2_000 }),
        call("long", "wait", { timeout_ms: 60_000 })
      ]))
      yield* TestClock.adjust("1 minute")
      const [short, long] = yield* ended(fiber)
      assert.strictEqual(short!.meta.durationMillis, 2_000)
      assert.include(ToolResult.text(short!), "timed out after 2 s")
      assert.strictEqual(long!.meta.durationMillis, 10_000)
      assert.include(ToolResult.text(long!), "timed out after 10 s")
    }))

  it.effect("a read-only tool's timeout is retryable and its outcome known", () =>
    Effect.gen(function*() {
      const slow = Tool.make("slow_read", {
        description: "never finishes",
        parameters: {},
        readOnly: true,
        timeout: "2 seconds",
        handler: () => Effect.never
      })
      const runtime = yield* runtimeWith([slow])
      const fiber = yield* Effect.fork(runtime.runCall(call("t", "slow_read", {})))
      yield* TestClock.adjust("2 seconds")
      const result = yield* ended(fiber)
      assert.strictEqual(result.error?.code, "timeout")
      assert.isFalse(result.error?.outcomeUnknown)
      assert.isTrue(result.error?.retryable)
    }))

  it.effect("the idle clock restarts whenever the handler reports progress", () =>
    Effect.gen(function*() {
      const finalized = yield* Ref.make(false)
      const chatty = Tool.make("chatty", {
        description: "reports for five seconds, then goes silent",
        parameters: {},
        readOnly: true,
        timeout: "1 minute",
        idleTimeout: "2 seconds",
        handler: (_, context) =>
          Effect.gen(function*() {
            for (let i = 0; i < 5; i++) {
              yield* Effect.sleep("1 second")
              yield* context.progress(`step ${i}`)
            }
            return yield* Effect.never
          }).pipe(Effect.ensuring(Ref.set(finalized, true)))
      })
      const runtime = yield* runtimeWith([chatty])
      const fiber = yield* Effect.fork(runtime.runCall(call("i", "chatty", {})))
      yield* TestClock.adjust("6900 millis")
      assert.isNull(fiber.unsafePoll())
      yield* TestClock.adjust("100 millis")
      const result = yield* ended(fiber)
      assert.strictEqual(result.error?.code, "idle_timeout")
      assert.strictEqual(result.meta.durationMillis, 7000)
      assert.isTrue(yield* Ref.get(finalized))
    }))

  it.effect("a finalizer that hangs is abandoned after the cleanup timeout: the turn still ends", () =>
    Effect.gen(function*() {
      const stubborn = Tool.make("stubborn", {
        description: "cleanup never ends",
        parameters: {},
        timeout: "1 second",
        handler: () => Effect.never.pipe(Effect.ensuring(Effect.never))
      })
      const runtime = yield* runtimeWith([stubborn], { runtime: { cleanupTimeout: "3 seconds" } })
      const fiber = yield* Effect.fork(runtime.runCall(call("s", "stubborn", {})))
      yield* TestClock.adjust("3999 millis")
      assert.isNull(fiber.unsafePoll())
      yield* TestClock.adjust("1 millis")
      const result = yield* ended(fiber)
      assert.strictEqual(result.error?.code, "timeout")
      assert.strictEqual(result.error?.stopped, "abandoned")
      assert.include(
        ToolResult.text(result),
        "did not stop within the cleanup bound and was abandoned: it may still be running"
      )
    }))

  it.effect("handler failures and defects become results; defect messages are redacted", () =>
    Effect.gen(function*() {
      const token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
      const failing = Tool.make("failing", {
        description: "fails",
        parameters: {},
        handler: () => Effect.fail({ message: "ticket is locked", retryable: true })
      })
      const dying = Tool.make("dying", {
        description: "dies",
        parameters: {},
        handler: () => Effect.die(new Error(`request with ${token} failed`))
      })
      const throwing = Tool.make("throwing", {
        description: "throws",
        parameters: {},
        handler: (): Effect.Effect<string> => {
          throw new TypeError("cannot read properties of undefined")
        }
      })
      const runtime = yield* runtimeWith([failing, dying, throwing])
      const [failed, died, threw] = yield* runtime.runTurn([
        call("1", "failing", {}),
        call("2", "dying", {}),
        call("3", "throwing", {})
      ])
      assert.strictEqual(failed!.error?.code, "tool_failed")
      assert.isTrue(failed!.error?.retryable)
      assert.include(ToolResult.text(failed!), "ticket is locked")
      assert.strictEqual(died!.error?.code, "tool_defect")
      assert.notInclude(ToolResult.text(died!), token)
      assert.include(ToolResult.text(died!), "[REDACTED:github-token]")
      assert.strictEqual(threw!.error?.code, "tool_defect")
      assert.include(ToolResult.text(threw!), "TypeError: cannot read properties of undefined")
    }))

  it.effect("a handler that fails with a rule violation reaches the model as one, not as a tool failure", () =>
    Effect.gen(function*() {
      const edit = Tool.make("edit", {
        description: "edits",
        parameters: {},
        handler: () =>
          Effect.fail(
            new ToolError.RuleViolation({ reason: "old_string was found 3 times", fix: "Add surrounding lines." })
          )
      })
      const runtime = yield* runtimeWith([edit])
      const result = yield* runtime.runCall(call("1", "edit", {}))
      assert.strictEqual(result.error?.code, "rule_violation")
      assert.include(
        ToolResult.text(result),
        "edit refused the call: old_string was found 3 times\nAdd surrounding lines."
      )
    }))

  it.effect("interruptWhen stops running handlers and answers calls that never ran", () =>
    Effect.gen(function*() {
      const finalized = yield* Ref.make(false)
      const started = yield* Ref.make<ReadonlyArray<string>>([])
      const write = Tool.make("write", {
        description: "slow write",
        parameters: { id: Schema.String },
        timeout: "1 minute",
        handler: ({ id }) =>
          Ref.update(started, (s) => [...s, id]).pipe(
            Effect.zipRight(Effect.sleep("10 seconds")),
            Effect.onInterrupt(() => Ref.set(finalized, true))
          )
      })
      const runtime = yield* runtimeWith([write])
      const stop = yield* Deferred.make<string>()
      const fiber = yield* Effect.fork(
        runtime.runTurn([call("1", "write", { id: "a" }), call("2", "write", { id: "b" })], {
          interruptWhen: Deferred.await(stop)
        })
      )
      yield* TestClock.adjust("1 second")
      yield* Deferred.succeed(stop, "the user pressed Escape")
      const [first, second] = yield* ended(fiber)
      assert.deepStrictEqual(yield* Ref.get(started), ["a"])
      assert.isTrue(yield* Ref.get(finalized))
      assert.strictEqual(first!.error?.code, "interrupted")
      assert.isTrue(first!.error?.outcomeUnknown)
      assert.include(ToolResult.text(first!), "the user pressed Escape")
      // Its finalizer ran and its fiber ended: the result may say so.
      assert.strictEqual(first!.error?.stopped, "proven")
      assert.include(ToolResult.text(first!), "it has stopped: nothing of it still runs")
      assert.strictEqual(second!.error?.code, "not_executed")
      // It never started: there is nothing to have stopped.
      assert.isUndefined(second!.error?.stopped)
      assert.include(ToolResult.text(second!), "the user pressed Escape")
    }))

  it.effect("interrupting the fiber that runs the turn interrupts its handlers", () =>
    Effect.gen(function*() {
      const finalized = yield* Ref.make(false)
      const write = Tool.make("write", {
        description: "slow write",
        parameters: {},
        handler: () => Effect.never.pipe(Effect.onInterrupt(() => Ref.set(finalized, true)))
      })
      const runtime = yield* runtimeWith([write])
      const fiber = yield* Effect.fork(runtime.runTurn([call("1", "write", {})]))
      yield* TestClock.adjust("1 second")
      yield* bounded(Fiber.interrupt(fiber), "the interruption")
      assert.isTrue(yield* Ref.get(finalized))
    }))

  it.effect("a repeated call id gets an error result and does not run twice", () =>
    Effect.gen(function*() {
      const count = yield* Ref.make(0)
      const bump = Tool.make("bump", {
        description: "counts",
        parameters: {},
        handler: () => Ref.updateAndGet(count, (n) => n + 1)
      })
      const runtime = yield* runtimeWith([bump])
      const results = yield* runtime.runTurn([call("x", "bump", {}), call("x", "bump", {})])
      assert.deepStrictEqual(results.map((r) => r.error?.code), [undefined, "duplicate_call_id"])
      assert.deepStrictEqual(results.map((r) => r.callId), ["x", "x"])
      assert.strictEqual(yield* Ref.get(count), 1)
    }))

  it.effect("stopOnError skips the calls after a failed batch, saying which call failed", () =>
    Effect.gen(function*() {
      const note = Tool.make("note", {
        description: "writes a note",
        parameters: { text: Schema.String },
        handler: ({ text }) => Effect.succeed(text)
      })
      const runtime = yield* runtimeWith([note])
      const calls = [call("bad", "note", {}), call("ok", "note", { text: "hi" })]
      const skipping = yield* runtime.runTurn(calls, { stopOnError: true })
      assert.strictEqual(skipping[1]!.error?.code, "not_executed")
      assert.include(ToolResult.text(skipping[1]!), "(bad) failed")
      const continuing = yield* runtime.runTurn(calls)
      assert.isFalse(continuing[1]!.isError)
    }))

  it.effect("a denied call never runs its handler", () =>
    Effect.gen(function*() {
      const ran = yield* Ref.make(false)
      const rm = Tool.make("delete_file", {
        description: "deletes",
        parameters: { path: Schema.String },
        risk: "high",
        handler: () => Ref.set(ran, true)
      })
      const runtime = yield* runtimeWith([rm], {
        policy: Policy.layerDenyByRule([{ tool: "delete_*", reason: "deleting files is not allowed here" }])
      })
      const result = yield* runtime.runCall(call("d", "delete_file", { path: "a.txt" }))
      assert.strictEqual(result.error?.code, "permission_denied")
      assert.include(ToolResult.text(result), "deleting files is not allowed here")
      assert.isFalse(yield* Ref.get(ran))
    }))

  it.effect("a denial that stops the turn leaves the later calls not executed, saying why", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<ReadonlyArray<Policy.Subject>>([])
      const shell = Tool.make("bash", {
        description: "runs a command",
        parameters: { command: Schema.String },
        subject: ({ command }) => ({ _tag: "Command", command }),
        handler: ({ command }) => Effect.succeed(`ran ${command}`)
      })
      const stopper = Layer.succeed(Policy.Policy, {
        checkPath: () => undefined,
        authorize: (request) =>
          Effect.zipRight(
            Ref.update(seen, (s) => [...s, request.subject]),
            request.subject._tag === "Command" && request.subject.command.startsWith("rm")
              ? Effect.fail(
                new ToolError.PermissionDenied({
                  toolName: request.tool.name,
                  reason: "the user said no",
                  decidedBy: "user",
                  stopTurn: true
                })
              )
              : Effect.succeed(Policy.allow)
          )
      })
      const runtime = yield* runtimeWith([shell], { policy: stopper })
      const results = yield* runtime.runTurn([
        call("1", "bash", { command: "ls" }),
        call("2", "bash", { command: "rm -rf build" }),
        call("3", "bash", { command: "make" })
      ])
      assert.deepStrictEqual(results.map((r) => r.error?.code), [undefined, "permission_denied", "not_executed"])
      assert.include(ToolResult.text(results[2]!), "the user stopped the turn when denying an earlier call (2)")
      // The policy saw what each call acts on, as the tool described it.
      assert.deepStrictEqual(yield* Ref.get(seen), [
        { _tag: "Command", command: "ls" },
        { _tag: "Command", command: "rm -rf build" }
      ])
    }))

  it.effect("after-call hooks may replace the output before it is shaped; a failing or hanging hook is a result", () =>
    Effect.gen(function*() {
      const hooks = Layer.succeed(Hooks.Hooks, {
        after: ({ input, outcome, tool }) => {
          const text = (input as { readonly text: string }).text
          if (text === "annotate" && outcome._tag === "Success") {
            return Effect.succeed({ ...outcome, value: `${outcome.value}\n(checked by the audit hook)` })
          }
          if (text === "boom") {
            return Effect.fail(
              new ToolError.HookFailed({
                toolName: tool.name,
                hook: "audit",
                reason: "the audit service is down",
                outcomeUnknown: true
              })
            )
          }
          if (text === "hang") {
            return Effect.never.pipe(Hooks.withTimeout("audit", tool.name, "2 seconds", true))
          }
          return Effect.succeed(outcome)
        }
      })
      const store = ArtifactStore.layerMemory()
      const runtime = yield* ToolRuntime.ToolRuntime.pipe(
        Effect.provide(
          ToolRuntime.layer().pipe(
            Layer.provide([Registry.layer([echo]), store, Redactor.layerDefault, Policy.layerAllowAll, hooks])
          )
        )
      )
      const fiber = yield* Effect.fork(runtime.runTurn([
        call("1", "echo", { text: "annotate" }),
        call("2", "echo", { text: "boom" }),
        call("3", "echo", { text: "hang" }),
        call("4", "echo", { text: "plain" })
      ]))
      yield* TestClock.adjust("3 seconds")
      const [annotated, boom, hang, plain] = yield* ended(fiber)
      assert.strictEqual(ToolResult.text(annotated!), "annotate\n(checked by the audit hook)")
      assert.strictEqual(boom!.error?.code, "hook_failed")
      assert.include(ToolResult.text(boom!), "the audit service is down")
      assert.isTrue(boom!.error?.outcomeUnknown)
      assert.strictEqual(hang!.error?.code, "hook_failed")
      assert.include(ToolResult.text(hang!), "did not finish within 2s")
      assert.strictEqual(ToolResult.text(plain!), "plain")
    }))

  it.effect("a policy's rewritten input is validated again and the model is told", () =>
    Effect.gen(function*() {
      const rewrite = (input: unknown) =>
        Layer.succeed(Policy.Policy, {
          checkPath: () => undefined,
          authorize: () => Effect.succeed({ _tag: "Rewrite" as const, input, note: "the limit was lowered" })
        })
      const runtime = yield* runtimeWith([echo], { policy: rewrite({ text: "changed" }) })
      const ok = yield* runtime.runCall(call("1", "echo", { text: "original" }))
      assert.include(ToolResult.text(ok), "the limit was lowered")
      assert.include(ToolResult.text(ok), "changed")
      const invalid = yield* runtimeWith([echo], { policy: rewrite({ text: 1 }) })
      const bad = yield* invalid.runCall(call("2", "echo", { text: "original" }))
      assert.strictEqual(bad.error?.code, "invalid_arguments")
    }))

  it.effect("business rules run after the schema and before the policy", () =>
    Effect.gen(function*() {
      const asked = yield* Ref.make(0)
      const write = Tool.make("write_file", {
        description: "writes",
        parameters: { path: Schema.String },
        validate: ({ path }) =>
          path.startsWith("/workspace/")
            ? Effect.void
            : Effect.fail(
              new ToolError.RuleViolation({
                reason: `the path ${path} is outside the workspace`,
                fix: "Use a path under /workspace/."
              })
            ),
        handler: () => Effect.succeed("written")
      })
      const countingPolicy = Layer.succeed(Policy.Policy, {
        checkPath: () => undefined,
        authorize: () => Effect.as(Ref.update(asked, (n) => n + 1), Policy.allow)
      })
      const runtime = yield* runtimeWith([write], { policy: countingPolicy })
      const [outside, inside] = yield* runtime.runTurn([
        call("1", "write_file", { path: "/etc/passwd" }),
        call("2", "write_file", { path: "/workspace/a.txt" })
      ])
      assert.strictEqual(outside!.error?.code, "rule_violation")
      assert.include(ToolResult.text(outside!), "write_file refused the call: the path /etc/passwd is outside")
      assert.include(ToolResult.text(outside!), "Use a path under /workspace/.")
      assert.isFalse(inside!.isError)
      assert.strictEqual(yield* Ref.get(asked), 1)
    }))

  it.effect("a large success is stored whole and previewed; the read tool pages through the rest", () =>
    Effect.gen(function*() {
      const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join("\n")
      const big = Tool.make("big", {
        description: "big output",
        parameters: {},
        readOnly: true,
        outputLimit: 5_000,
        handler: () => Effect.succeed(lines)
      })
      const runtime = yield* runtimeWith([big, ArtifactStore.readTool])
      const result = yield* runtime.runCall(call("b", "big", {}))
      const text = ToolResult.text(result)
      assert.isFalse(result.isError)
      assert.strictEqual(result.meta.truncation?.strategy, "head")
      assert.strictEqual(result.meta.truncation?.originalLength, lines.length)
      assert.isAtMost(result.meta.truncation!.shownLength, 2_000)
      assert.isTrue(text.startsWith("line 0\nline 1\n"))
      assert.include(text, `of ${lines.length.toLocaleString("en-US")} characters`)
      // The preview ends on a line boundary.
      assert.isTrue(text.slice(0, result.meta.truncation!.shownLength).endsWith("\n"))
      const id = /"id": "([^"]+)"/.exec(text)![1]!
      const rest = yield* runtime.runCall(
        call("r", "read_output", { id, offset: result.meta.truncation!.shownLength, length: 20 })
      )
      assert.isFalse(rest.isError, ToolResult.text(rest))
      assert.include(ToolResult.text(rest), lines.slice(result.meta.truncation!.shownLength).slice(0, 20))
    }))

  it.effect("a large failure keeps its head and its tail, where the error is", () =>
    Effect.gen(function*() {
      const log = Array.from({ length: 3000 }, (_, i) => `compiling module ${i}`).join("\n") +
        "\nerror: build failed in module 2999"
      const build = Tool.make("build", {
        description: "builds",
        parameters: {},
        outputLimit: 4_000,
        handler: () => Effect.fail(log)
      })
      const runtime = yield* runtimeWith([build])
      const result = yield* runtime.runCall(call("b", "build", {}))
      const text = ToolResult.text(result)
      assert.strictEqual(result.meta.truncation?.strategy, "head-tail")
      assert.include(text, "compiling module 0")
      assert.include(text, "error: build failed in module 2999")
      assert.include(text, "characters omitted")
      assert.isAtMost(result.meta.truncation!.shownLength, 4_000)
    }))

  it.effect("output exactly at the limit is returned whole, without a marker", () =>
    Effect.gen(function*() {
      const exact = Tool.make("exact", {
        description: "exact",
        parameters: { n: Schema.Number },
        readOnly: true,
        outputLimit: 100,
        handler: ({ n }) => Effect.succeed("x".repeat(n))
      })
      const runtime = yield* runtimeWith([exact])
      const [at, over] = yield* runtime.runTurn([call("1", "exact", { n: 100 }), call("2", "exact", { n: 101 })])
      assert.strictEqual(ToolResult.text(at!), "x".repeat(100))
      assert.isUndefined(at!.meta.truncation)
      assert.isDefined(over!.meta.truncation)
    }))

  it.effect("secrets in output are redacted and counted", () =>
    Effect.gen(function*() {
      const env = Tool.make("show_env", {
        description: "prints the environment",
        parameters: {},
        readOnly: true,
        handler: () =>
          Effect.succeed(
            "PATH=/usr/bin\nOPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz012345\nAWS=AKIAZ4Q7XJ2M6N3P5R7T\n"
          )
      })
      const runtime = yield* runtimeWith([env])
      const result = yield* runtime.runCall(call("e", "show_env", {}))
      const text = ToolResult.text(result)
      assert.notInclude(text, "sk-proj-abcdefghijklmnopqrstuvwxyz012345")
      assert.notInclude(text, "AKIAZ4Q7XJ2M6N3P5R7T")
      assert.include(text, "PATH=/usr/bin")
      assert.strictEqual(result.meta.redactions, 2)
    }))

  it.effect("structured output is serialized deterministically through the success schema", () =>
    Effect.gen(function*() {
      const ticket = Tool.make("ticket", {
        description: "a ticket",
        parameters: {},
        readOnly: true,
        success: Schema.Struct({ opened: Schema.DateFromString, status: Schema.String, id: Schema.Number }),
        handler: () => Effect.succeed({ status: "open", id: 7, opened: new Date("2026-01-02T03:04:05.000Z") })
      })
      const runtime = yield* runtimeWith([ticket])
      const result = yield* runtime.runCall(call("t", "ticket", {}))
      assert.strictEqual(
        ToolResult.text(result),
        "{\"id\":7,\"opened\":\"2026-01-02T03:04:05.000Z\",\"status\":\"open\"}"
      )
    }))

  it.effect("a tool without parameters takes exactly an empty object, and shows the model a closed object", () =>
    Effect.gen(function*() {
      const ping = Tool.make("ping", {
        description: "pings",
        parameters: {},
        readOnly: true,
        handler: () => Effect.succeed("pong")
      })
      assert.deepStrictEqual(ping.inputSchema, {
        type: "object",
        required: [],
        properties: {},
        additionalProperties: false
      })
      const runtime = yield* runtimeWith([ping])
      const [ok, extra] = yield* runtime.runTurn([call("1", "ping", {}), call("2", "ping", { verbose: true })])
      assert.isFalse(ok!.isError)
      assert.strictEqual(extra!.error?.code, "invalid_arguments")
      assert.include(ToolResult.text(extra!), "- verbose: is not a parameter of this tool; remove it")
    }))

  it.effect("calls that are not call objects still get results", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeWith([echo])
      const results = yield* runtime.runTurn([
        null as never,
        { id: 7, name: "echo", input: {} } as never,
        { id: "n", name: "", input: {} },
        { id: "p", name: "__proto__", input: {} },
        { id: "t", name: "toString", input: {} }
      ])
      assert.strictEqual(results.length, 5)
      assert.deepStrictEqual(results.map((r) => r.error?.code), [
        "malformed_call",
        "malformed_call",
        "malformed_call",
        "unknown_tool",
        "unknown_tool"
      ])
    }))
})

describe("ToolRuntime on hostile calls and values", () => {
  const thrower = () => {
    throw new Error("trap")
  }
  const trapAll = new Proxy({}, {
    get: thrower,
    has: thrower,
    ownKeys: thrower,
    getPrototypeOf: thrower,
    getOwnPropertyDescriptor: thrower
  })
  const deepValue = JSON.parse("[".repeat(100_000) + "]".repeat(100_000))
  const returning = (name: string, handler: () => Effect.Effect<unknown, unknown>) =>
    Tool.make(name, { description: name, parameters: {}, readOnly: true, handler })

  it.effect("deeply nested arguments and output are results of their own call; the calls beside them keep theirs", () =>
    Effect.gen(function*() {
      const deep = returning("deep", () => Effect.succeed(deepValue))
      const runtime = yield* runtimeWith([echo, deep])
      const results = yield* runtime.runTurn([
        call("1", "echo", `{"text":"x","count":${"[".repeat(100_000)}${"]".repeat(100_000)}}`),
        call("2", "echo", { text: "beside" }),
        call("3", "deep", {})
      ])
      assert.deepStrictEqual(results.map((r) => r.error?.code), ["invalid_input", undefined, "tool_defect"])
      assert.include(ToolResult.text(results[0]!), "nested deeper than")
      assert.strictEqual(ToolResult.text(results[1]!), "beside")
      assert.include(ToolResult.text(results[2]!), "nested deeper than 256 levels")
    }))

  it.effect("failures, defects and values that throw on every read become results, never defects of the turn", () =>
    Effect.gen(function*() {
      const tools = [
        returning("getter", () =>
          Effect.fail({
            get message(): string {
              return thrower()
            }
          })),
        returning("proxy_fail", () => Effect.fail(trapAll)),
        returning("proxy_die", () => Effect.die(trapAll)),
        returning("proxy_value", () => Effect.succeed(trapAll)),
        Tool.make("bad_resources", {
          description: "its resources function throws",
          parameters: {},
          resources: thrower,
          handler: () => Effect.succeed("ran")
        })
      ]
      const runtime = yield* runtimeWith([echo, ...tools])
      const calls = [...tools.map((tool, i) => call(`c${i}`, tool.name, {})), call("last", "echo", { text: "ok" })]
      const results = yield* runtime.runTurn([trapAll as never, ...calls])
      assert.deepStrictEqual(results.map((r) => r.error?.code), [
        "malformed_call",
        "tool_failed",
        "tool_defect",
        "tool_defect",
        "tool_defect",
        "tool_defect",
        undefined
      ])
      assert.deepStrictEqual(results.slice(1).map((r) => r.callId), calls.map((c) => c.id))
      assert.include(ToolResult.text(results[4]!), "it returned a value that cannot be read")
      assert.include(ToolResult.text(results[5]!), "the call could not be completed: trap")
    }))

  it.effect("a rejected promise's own message reaches the model; an undefined rejection is said plainly", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeWith([
        returning("reject", () => Effect.tryPromise(() => Promise.reject(new Error("disk full")))),
        returning("reject_undefined", () => Effect.tryPromise(() => Promise.reject(undefined))),
        returning("die_undefined", () => Effect.promise(() => Promise.reject(undefined)))
      ])
      const [reject, rejectUndefined, dieUndefined] = yield* runtime.runTurn([
        call("1", "reject", {}),
        call("2", "reject_undefined", {}),
        call("3", "die_undefined", {})
      ])
      assert.strictEqual(reject!.error?.code, "tool_failed")
      assert.include(ToolResult.text(reject!), "reject failed: a promise it awaited was rejected: disk full")
      assert.include(ToolResult.text(rejectUndefined!), "was rejected: undefined (no error value)")
      assert.include(ToolResult.text(dieUndefined!), "it died with undefined (no error value)")
      assert.notInclude(ToolResult.text(dieUndefined!), "null")
    }))

  it.effect("nothing is a success saying so; a symbol or a function is a defect, never the text null", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeWith([
        returning("nothing", () => Effect.void),
        returning("symbol", () => Effect.succeed(Symbol("s"))),
        returning("function", () => Effect.succeed(() => 1))
      ])
      const [nothing, symbol, fn] = yield* runtime.runTurn([
        call("1", "nothing", {}),
        call("2", "symbol", {}),
        call("3", "function", {})
      ])
      assert.isFalse(nothing!.isError)
      assert.strictEqual(ToolResult.text(nothing!), Pipeline.noOutput)
      assert.strictEqual(symbol!.error?.code, "tool_defect")
      assert.include(ToolResult.text(symbol!), "it returned a symbol, which cannot be shown to the model")
      assert.include(ToolResult.text(fn!), "it returned a function, which cannot be shown to the model")
    }))

  it.effect("unknown-tool and duplicate-id messages echo the model's text only cleaned and bounded", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeWith([echo])
      const hostile = "\u009b31m\u202Eevil\u200B\u{E0041}" + "y".repeat(100_000)
      const results = yield* runtime.runTurn([
        call(hostile, "echo", { text: "a" }),
        call(hostile, "echo", { text: "b" }),
        call("3", hostile, {})
      ])
      assert.deepStrictEqual(results.map((r) => r.error?.code), [undefined, "duplicate_call_id", "unknown_tool"])
      for (const result of results.slice(1)) {
        const text = ToolResult.text(result)
        assert.isTrue(text.split("\n").every(ForeignText.isClean), text)
        assert.isBelow(text.length, 400)
      }
    }))
})

describe("ToolRuntime progress events", () => {
  it.effect("a handler's progress message reaches the UI redacted, cleaned and bounded", () =>
    Effect.gen(function*() {
      const token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
      const reporting = Tool.make("reporting", {
        description: "reports progress",
        parameters: {},
        readOnly: true,
        handler: (_, context) =>
          Effect.as(context.progress(`\u001b[2J\u009b31m ${token} ${"x".repeat(10_000)}`), "done")
      })
      const runtime = yield* runtimeWith([reporting])
      const messages: Array<string | undefined> = []
      yield* runtime.runTurn([call("1", "reporting", {})], {
        onEvent: (event) =>
          Effect.sync(() => {
            if (event._tag === "Progress") messages.push(event.message)
          })
      })
      assert.strictEqual(messages.length, 1)
      const message = messages[0]!
      assert.isTrue(ForeignText.isClean(message), JSON.stringify(message.slice(0, 40)))
      assert.isAtMost(message.length, ForeignText.defaultMax)
      assert.notInclude(message, token)
      assert.include(message, "[REDACTED:github-token]")
    }))

  it.effect("a count and a total go on as given; numbers that are not amounts, and reports that throw, are dropped", () =>
    Effect.gen(function*() {
      const token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
      const throwing = new Proxy({}, {
        get: () => {
          throw new Error(`trap ${token}`)
        }
      })
      const reports: ReadonlyArray<unknown> = [
        { progress: 2, total: 10 },
        { message: `token ${token}`, progress: 3 },
        { progress: Number.NaN, total: Number.POSITIVE_INFINITY, message: "odd numbers" },
        { progress: -1, total: "ten" },
        {
          get progress() {
            throw new Error("getter")
          },
          total: 5
        },
        throwing,
        undefined
      ]
      const reporting = Tool.make("reporting", {
        description: "reports progress",
        parameters: {},
        readOnly: true,
        handler: (_, context) =>
          Effect.as(Effect.forEach(reports, (report) => context.progress(report as Tool.Progress)), "done")
      })
      const runtime = yield* runtimeWith([reporting])
      const events: Array<unknown> = []
      const [result] = yield* runtime.runTurn([call("1", "reporting", {})], {
        onEvent: (event) =>
          Effect.sync(() => {
            if (event._tag === "Progress") {
              const { callId: _c, toolName: _t, _tag, ...report } = event
              events.push(report)
            }
          })
      })
      assert.isFalse(result!.isError)
      assert.deepStrictEqual(events, [
        { message: undefined, progress: 2, total: 10 },
        { message: "token [REDACTED:github-token]", progress: 3 },
        { message: "odd numbers" },
        { message: undefined },
        { message: undefined, total: 5 },
        { message: undefined },
        { message: undefined }
      ])
    }))
})

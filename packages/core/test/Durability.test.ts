import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as ArtifactStore from "../src/ArtifactStore.js"
import * as Durability from "../src/Durability.js"
import * as IdempotencyKey from "../src/IdempotencyKey.js"
import * as Policy from "../src/Policy.js"
import * as Redactor from "../src/Redactor.js"
import * as Registry from "../src/Registry.js"
import * as Tool from "../src/Tool.js"
import * as ToolError from "../src/ToolError.js"
import * as ToolResult from "../src/ToolResult.js"
import * as ToolRuntime from "../src/ToolRuntime.js"
import { leakedWindow, noise } from "./FakeSecrets.js"

/**
 * A journal in memory with the simplest durable rule: a recorded result is
 * the answer; a call begun and never finished is not run again. What it was
 * asked is kept for the assertions.
 */
const memoryJournal = (
  options?: { readonly failBegin?: string; readonly delayMillis?: number; readonly attempt?: number }
) => {
  const recorded = new Map<string, ToolResult.ToolResult>()
  const started = new Set<string>()
  const begins: Array<Durability.Call> = []
  const finishes: Array<
    { readonly call: Durability.Call; readonly attempt: number; readonly result: ToolResult.ToolResult }
  > = []
  const service: Durability.Service = {
    begin: (call) =>
      Effect.suspend(() => {
        begins.push(call)
        if (options?.failBegin !== undefined) {
          return Effect.fail(new Durability.JournalUnavailable({ reason: options.failBegin }))
        }
        const result = recorded.get(call.idempotencyKey)
        if (result !== undefined) return Effect.succeed<Durability.Begun>({ _tag: "Recorded", result })
        if (started.has(call.idempotencyKey)) {
          return Effect.succeed<Durability.Begun>({
            _tag: "Recorded",
            result: ToolResult.make({
              callId: call.callId,
              toolName: call.tool.name,
              content: [ToolResult.textBlock("outcome unknown: it started before and never ended")],
              isError: true,
              error: { code: "outcome_unknown", retryable: false, hint: "check first", outcomeUnknown: true },
              meta: { durationMillis: 0, redactions: 0 }
            })
          })
        }
        started.add(call.idempotencyKey)
        return Effect.succeed<Durability.Begun>({
          _tag: "Run",
          attempt: options?.attempt ?? 1,
          delayMillis: options?.delayMillis ?? 0
        })
      }),
    finish: (call, attempt, result) =>
      Effect.sync(() => {
        finishes.push({ call, attempt, result })
        recorded.set(call.idempotencyKey, result)
      })
  }
  return { service, begins, finishes, recorded }
}

let sends = 0
const keysSeen: Array<string> = []
const attemptsSeen: Array<number> = []
const send = Tool.make("send_email", {
  description: "Sends an email.",
  parameters: { to: Schema.String },
  validate: ({ to }) =>
    to.includes("@") ? Effect.void : Effect.fail(new ToolError.RuleViolation({ reason: "not an address" })),
  handler: ({ to }, context) =>
    Effect.sync(() => {
      sends++
      keysSeen.push(context.idempotencyKey)
      attemptsSeen.push(context.attempt)
      return `sent to ${to} (#${sends})`
    })
})
const forbidden = Tool.make("forbidden", { description: "Denied.", parameters: {}, handler: () => Effect.void })
const hang = Tool.make("hang", {
  description: "Never ends.",
  parameters: {},
  handler: (_, context) => Effect.zipRight(context.progress("started"), Effect.never)
})

const denyForbidden: Policy.Service = {
  checkPath: () => undefined,
  authorize: (request) =>
    request.tool.name === "forbidden"
      ? Effect.fail(new ToolError.PermissionDenied({ toolName: "forbidden", reason: "no", decidedBy: "test" }))
      : Effect.succeed(Policy.allow)
}

const runtimeWith = (journal: Durability.Service) =>
  ToolRuntime.ToolRuntime.pipe(
    Effect.provide(
      ToolRuntime.layer().pipe(
        Layer.provide([
          Registry.layer([send, forbidden, hang]),
          ArtifactStore.layerMemory(),
          Redactor.layerDefault,
          Layer.succeed(Policy.Policy, denyForbidden),
          Layer.succeed(Durability.Journal, journal)
        ])
      )
    )
  )

const scope = { sessionId: "session-1", turnId: "turn-1" }
const turn = [
  { id: "a", name: "send_email", input: { to: "ada@example.com" } },
  { id: "b", name: "send_email", input: { to: "nobody" } },
  { id: "c", name: "forbidden", input: {} },
  { id: "d", name: "send_email", input: { to: "grace@example.com" } }
]

describe("Durability", () => {
  it.effect("a turn sent again is answered from the journal: no handler runs twice, the results are the same", () =>
    Effect.gen(function*() {
      const journal = memoryJournal()
      const runtime = yield* runtimeWith(journal.service)
      const before = sends
      const first = yield* runtime.runTurn(turn, scope)
      assert.strictEqual(sends - before, 2)
      const again = yield* runtime.runTurn(turn, scope)
      assert.strictEqual(sends - before, 2, "nothing ran the second time")
      assert.deepStrictEqual(again.map(ToolResult.text), first.map(ToolResult.text))
      assert.deepStrictEqual(again.map((result) => result.callId), ["a", "b", "c", "d"])
      // Only calls that reached their handler were asked about: not the invalid one, not the denied one.
      assert.deepStrictEqual(journal.begins.map((call) => [call.callId, call.index]), [["a", 0], ["d", 3], ["a", 0], [
        "d",
        3
      ]])
      assert.deepStrictEqual(journal.finishes.map((finish) => [finish.call.callId, finish.attempt]), [["a", 1], [
        "d",
        1
      ]])
      // The journal's key is the one the handler read.
      assert.deepStrictEqual(keysSeen.slice(-2), [
        IdempotencyKey.make(scope, "a"),
        IdempotencyKey.make(scope, "d")
      ])
      assert.deepStrictEqual(journal.begins.map((call) => call.idempotencyKey).slice(0, 2), keysSeen.slice(-2))
      // What was recorded is the result the model was given, shaped.
      assert.deepStrictEqual(journal.finishes[0]!.result, first[0])
      // Another turn is another call.
      const other = yield* runtime.runTurn([turn[0]!], { ...scope, turnId: "turn-2" })
      assert.strictEqual(sends - before, 3)
      assert.isUndefined(other[0]!.error)
    }))

  it.effect("a call the journal holds as started is answered as it says, and its handler never runs", () =>
    Effect.gen(function*() {
      const journal = memoryJournal()
      const runtime = yield* runtimeWith(journal.service)
      // A process that died mid-call: begun, never finished.
      const call = journal.begins.length
      yield* journal.service.begin({
        ...scope,
        callId: "z",
        index: 0,
        tool: send,
        input: { to: "x@example.com" },
        idempotencyKey: IdempotencyKey.make(scope, "z")
      })
      assert.strictEqual(journal.begins.length, call + 1)
      const before = sends
      const [result] = yield* runtime.runTurn([{ id: "z", name: "send_email", input: { to: "x@example.com" } }], scope)
      assert.strictEqual(sends, before)
      assert.strictEqual(result!.error?.code, "outcome_unknown")
      assert.include(ToolResult.text(result!), "never ended")
      assert.strictEqual(result!.callId, "z")
    }))

  it.effect("a journal that cannot record the start: the call is not run, and the reason is redacted", () =>
    Effect.gen(function*() {
      const secret = `ghp_${noise(36, 11)}`
      const journal = memoryJournal({ failBegin: `connection refused for postgres://app:${secret}@db/x` })
      const runtime = yield* runtimeWith(journal.service)
      const before = sends
      const [result] = yield* runtime.runTurn([turn[0]!], scope)
      assert.strictEqual(sends, before)
      assert.strictEqual(result!.error?.code, "not_executed")
      assert.include(ToolResult.text(result!), "could not be recorded in the call journal")
      assert.isUndefined(leakedWindow(JSON.stringify(result), secret))
      assert.strictEqual(journal.finishes.length, 0)
    }))

  it.effect("the handler is told which attempt the journal gave it", () =>
    Effect.gen(function*() {
      const runtime = yield* runtimeWith(memoryJournal({ attempt: 3 }).service)
      yield* runtime.runTurn([turn[0]!], { ...scope, turnId: "retried" })
      assert.strictEqual(attemptsSeen.at(-1), 3)
      const plain = yield* ToolRuntime.ToolRuntime.pipe(Effect.provide(ToolRuntime.layerDefault([send])))
      yield* plain.runTurn([turn[0]!])
      assert.strictEqual(attemptsSeen.at(-1), 1)
    }))

  it.effect("the journal's delay comes before the handler starts", () =>
    Effect.gen(function*() {
      const journal = memoryJournal({ delayMillis: 5_000 })
      const runtime = yield* runtimeWith(journal.service)
      const before = sends
      const fiber = yield* Effect.fork(runtime.runTurn([turn[0]!], { ...scope, turnId: "delayed" }))
      yield* TestClock.adjust("4 seconds")
      assert.strictEqual(sends, before)
      yield* TestClock.adjust("2 seconds")
      const [result] = yield* Fiber.join(fiber)
      assert.strictEqual(sends, before + 1)
      assert.isUndefined(result!.error)
    }))

  it.effect("a call interrupted mid-run is recorded with the result that says so", () =>
    Effect.gen(function*() {
      const journal = memoryJournal()
      const runtime = yield* runtimeWith(journal.service)
      const running = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(runtime.runTurn([{ id: "h", name: "hang", input: {} }], {
        ...scope,
        onEvent: (event) => event._tag === "Progress" ? Deferred.succeed(running, undefined) : Effect.void,
        interruptWhen: Effect.as(Deferred.await(running), "the user pressed stop")
      }))
      const [result] = yield* Fiber.join(fiber)
      assert.strictEqual(result!.error?.code, "interrupted")
      assert.strictEqual(result!.error?.outcomeUnknown, true)
      assert.strictEqual(journal.finishes.length, 1)
      assert.deepStrictEqual(journal.finishes[0]!.result, result)
    }))
})

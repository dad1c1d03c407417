import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import type * as Durability from "@tool-runtime/core/Durability"
import * as IdempotencyKey from "@tool-runtime/core/IdempotencyKey"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as CallJournal from "../src/CallJournal.js"
import * as Durable from "../src/Durable.js"
import * as DurableRuntime from "../src/DurableRuntime.js"
import { tempDb } from "./fixtures/Files.js"

let runs = 0
const gates = new Map<string, Deferred.Deferred<void>>()
const send = Tool.make("send", {
  description: "Writes.",
  parameters: { to: Schema.String },
  handler: ({ to }) => Effect.sync(() => `sent to ${to} (#${++runs})`)
})
/** Waits for the gate of its call id, when there is one. */
const look = Tool.make("look", {
  description: "Reads.",
  parameters: {},
  readOnly: true,
  handler: (_, context) =>
    Effect.as(Effect.suspend(() => gates.get(context.callId)?.pipe(Deferred.await) ?? Effect.void), "looked")
})
const hang = Tool.make("hang", { description: "Never ends.", parameters: {}, handler: () => Effect.never })

const services = Layer.mergeAll(
  Registry.layer([send, look, hang]),
  ArtifactStore.layerMemory(),
  Redactor.layerDefault,
  Policy.layerAllowAll
)

/** `DurableRuntime.layer` over a fresh file; the logs at debug and above kept in `logs`. */
const withRuntime = <A, E>(
  body: (logs: Array<string>) => Effect.Effect<A, E, ToolRuntime.ToolRuntime | CallJournal.CallJournal>
) =>
  Effect.scoped(Effect.gen(function*() {
    const file = yield* tempDb
    const logs: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => logs.push(`${logLevel.label} ${String(message)}`))
    return yield* Effect.provide(
      body(logs),
      Layer.mergeAll(
        DurableRuntime.layer({ filename: file, runnerId: "r1", sqlite: { synchronous: "normal" } }).pipe(
          Layer.provide(services)
        ),
        Logger.replace(Logger.defaultLogger, logger),
        Logger.minimumLogLevel(LogLevel.Debug)
      )
    )
  }))

const scope = { sessionId: "s1", turnId: "t1" }

/** Once the call has a row (polled: SQLite is synchronous, a tight loop would starve the timers). */
const recorded = (journal: CallJournal.Service, key: Durable.Key) =>
  Effect.repeat(journal.get(key), { until: Option.isSome, schedule: Schedule.spaced("5 millis") })

describe("DurableRuntime", () => {
  it.live("records each call's result, and answers a turn sent again from the journal without running it", () =>
    withRuntime(() =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const journal = yield* CallJournal.CallJournal
        const turn = [{ id: "a", name: "send", input: { to: "ada" } }, { id: "b", name: "look", input: {} }]
        const before = runs
        const first = yield* runtime.runTurn(turn, scope)
        const again = yield* runtime.runTurn(turn, scope)
        assert.strictEqual(runs - before, 1)
        assert.strictEqual(JSON.stringify(again), JSON.stringify(first))
        const calls = yield* journal.listSession("s1")
        assert.deepStrictEqual(calls.map((c) => [c.key.callId, c.seq, c.kind, c.state, c.runner]), [
          ["a", 0, "effect", "finished", "r1"],
          ["b", 1, "read", "finished", "r1"]
        ])
        assert.strictEqual(calls[0]!.idempotencyKey, IdempotencyKey.make(scope, "a"))
        assert.deepStrictEqual(JSON.parse(calls[0]!.result!), first[0])
      })
    ))

  it.live("refuses to run a call of a turn with no sessionId and turnId, and records nothing", () =>
    withRuntime(() =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const journal = yield* CallJournal.CallJournal
        const before = runs
        const [result] = yield* runtime.runTurn([{ id: "a", name: "send", input: { to: "ada" } }])
        assert.strictEqual(runs, before)
        assert.strictEqual(result!.error?.code, "not_executed")
        assert.include(ToolResult.text(result!), "no sessionId and turnId")
        assert.deepStrictEqual(yield* journal.listSession(""), [])
      })
    ))

  it.live("answers a started call of another runner by its kind: the write's outcome is unknown, the read runs", () =>
    withRuntime(() =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const journal = yield* CallJournal.CallJournal
        // A runner that died mid-turn left both calls started.
        for (const [callId, kind, seq] of [["a", "effect", 0], ["b", "read", 1]] as const) {
          yield* journal.begin(
            { key: { ...scope, callId }, toolName: kind === "read" ? "look" : "send", kind, seq },
            "r0"
          )
        }
        const before = runs
        const [a, b] = yield* runtime.runTurn([
          { id: "a", name: "send", input: { to: "ada" } },
          { id: "b", name: "look", input: {} }
        ], scope)
        assert.strictEqual(runs, before)
        assert.strictEqual(a!.callId, "a")
        assert.strictEqual(a!.error?.code, "outcome_unknown")
        assert.isTrue(a!.error?.outcomeUnknown)
        assert.isUndefined(b!.error)
        const record = Option.getOrThrow(yield* journal.get({ ...scope, callId: "b" }))
        assert.deepStrictEqual([record.state, record.attempt, record.runner], ["finished", 2, "r1"])
      })
    ))

  it.live("retries a started idempotent call with the next attempt after the journal's backoff", () =>
    withRuntime(() =>
      Effect.gen(function*() {
        const durable = yield* DurableRuntime.makeJournal({ runnerId: "r1" })
        const put = Tool.make("put", {
          description: "Puts.",
          parameters: {},
          idempotent: true,
          handler: () => Effect.void
        })
        const call: Durability.Call = {
          ...scope,
          callId: "p",
          index: 2,
          tool: put,
          input: {},
          idempotencyKey: IdempotencyKey.make(scope, "p")
        }
        assert.deepStrictEqual(yield* durable.begin(call), { _tag: "Run", attempt: 1, delayMillis: 0 })
        assert.deepStrictEqual(yield* durable.begin(call), {
          _tag: "Run",
          attempt: 2,
          delayMillis: Durable.defaultLimits.backoff.baseMillis
        })
        const record = Option.getOrThrow(yield* (yield* CallJournal.CallJournal).get({ ...scope, callId: "p" }))
        assert.deepStrictEqual([record.kind, record.seq, record.runner], ["idempotent", 2, "r1"])
      })
    ))

  it.live("a finish that lost its fence: the model still gets its result, the journal keeps the newer one", () =>
    withRuntime((logs) =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const journal = yield* CallJournal.CallJournal
        const gate = yield* Deferred.make<void>()
        gates.set("slow", gate)
        const fiber = yield* Effect.fork(runtime.runTurn([{ id: "slow", name: "look", input: {} }], scope))
        const key = { ...scope, callId: "slow" }
        yield* recorded(journal, key)
        // Another runner takes the call over (attempt 2) and records its result first.
        const taken = yield* journal.begin({ key, toolName: "look", kind: "read", seq: 0 }, "r2")
        assert.deepInclude(taken, { _tag: "Run", attempt: 2 })
        const theirs: ToolResult.ToolResult = {
          callId: "slow",
          toolName: "look",
          content: [{ _tag: "text", text: "r2 looked" }],
          isError: false,
          meta: { durationMillis: 1, redactions: 0 }
        }
        assert.isTrue(yield* journal.finish(key, 2, theirs, "r2"))
        yield* Deferred.succeed(gate, undefined)
        const [mine] = yield* Fiber.join(fiber)
        assert.strictEqual(ToolResult.text(mine!), "looked")
        assert.strictEqual(Option.getOrThrow(yield* journal.get(key)).result, JSON.stringify(theirs))
        assert.isTrue(logs.some((line) => line.startsWith("DEBUG a newer attempt owns the call")), logs.join("\n"))
      })
    ))

  it.live("a call interrupted mid-write is recorded as outcome_unknown, and answered so when sent again", () =>
    withRuntime(() =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const journal = yield* CallJournal.CallJournal
        const key = { ...scope, callId: "h" }
        const [result] = yield* runtime.runTurn([{ id: "h", name: "hang", input: {} }], {
          ...scope,
          interruptWhen: Effect.as(Effect.orDie(recorded(journal, key)), "stop")
        })
        assert.strictEqual(result!.error?.code, "interrupted")
        const record = Option.getOrThrow(yield* journal.get(key))
        assert.strictEqual(record.state, "outcome_unknown")
        assert.deepStrictEqual(JSON.parse(record.result!), result)
        const [again] = yield* runtime.runTurn([{ id: "h", name: "hang", input: {} }], scope)
        assert.strictEqual(JSON.stringify(again), JSON.stringify(result))
      })
    ))

  it.effect("a storage failure: the call is not run, and the reason gives the error's code, never its text", () =>
    Effect.gen(function*() {
      const secret = "postgres://app:hunter2@db.internal:5432/tools"
      const failing = CallJournal.CallJournal.of({
        begin: () =>
          Effect.fail(
            new SqlError({ message: `could not reach ${secret}`, cause: { code: "ECONNREFUSED", message: secret } })
          ),
        finish: () => Effect.succeed(true),
        recordUnknown: () => Effect.succeed(true),
        get: () => Effect.succeed(Option.none()),
        listSession: () => Effect.succeed([])
      })
      const journal = yield* DurableRuntime.makeJournal({ runnerId: "r1" }).pipe(
        Effect.provideService(CallJournal.CallJournal, failing)
      )
      const call: Durability.Call = {
        ...scope,
        callId: "a",
        index: 0,
        tool: send,
        input: { to: "ada" },
        idempotencyKey: Durable.idempotencyKey({ ...scope, callId: "a" })
      }
      const error = yield* Effect.flip(journal.begin(call))
      assert.strictEqual(error.reason, "the journal's storage failed (ECONNREFUSED)")
      const died = yield* DurableRuntime.makeJournal({ runnerId: "r1" }).pipe(
        Effect.provideService(CallJournal.CallJournal, { ...failing, begin: () => Effect.die(new Error(secret)) }),
        Effect.flatMap((j) => Effect.flip(j.begin(call)))
      )
      assert.notInclude(died.reason, "hunter2")
    }))
})

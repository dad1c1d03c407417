/**
 * The client side on its own: what a call becomes on the wire, and what
 * the client answers when the cluster gives no answer. No runner runs here
 * (the cluster's tests with real runners are `ClusterChaos.test.ts`): a
 * turn sent to a cluster without runners waits in the message storage, so
 * the client's own answers (from the journal, or for a turn it refuses)
 * are what these tests read.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as CallJournal from "../src/CallJournal.js"
import * as ClusterRuntime from "../src/ClusterRuntime.js"
import * as SessionEntity from "../src/SessionEntity.js"
import { tempDb } from "./fixtures/Files.js"

let runs = 0
const echo = Tool.make("echo", {
  description: "Echoes its arguments.",
  parameters: {
    text: Schema.String,
    n: Schema.optional(Schema.Number),
    tags: Schema.optional(Schema.Array(Schema.String))
  },
  handler: (input) => Effect.sync(() => (runs++, JSON.stringify(input)))
})
const send = Tool.make("send", {
  description: "Writes.",
  parameters: { to: Schema.String },
  handler: ({ to }) => Effect.sync(() => (runs++, `sent to ${to}`))
})
const look = Tool.make("look", {
  description: "Reads.",
  parameters: {},
  readOnly: true,
  handler: () => Effect.sync(() => (runs++, "looked"))
})

const services = Layer.mergeAll(
  Registry.layer([echo, send, look]),
  ArtifactStore.layerMemory(),
  Redactor.layerDefault,
  Policy.layerAllowAll
)

const stripTimes = (results: ReadonlyArray<ToolResult.ToolResult>) =>
  results.map((result) => ({ ...result, meta: { ...result.meta, durationMillis: 0 } }))

describe("SessionEntity wire", () => {
  const local = ToolRuntime.layer().pipe(Layer.provide(services))

  it.effect.prop(
    "a call of JSON data (what providers send) gets the same result through the wire as in process",
    [fc.array(
      fc.record({
        id: fc.oneof(fc.constant("c1"), fc.string({ maxLength: 6 })),
        name: fc.constantFrom("echo", "send", "nope", ""),
        input: fc.oneof(
          fc.record({ text: fc.string(), n: fc.integer() }, { requiredKeys: ["text"] }),
          fc.jsonValue({ maxDepth: 3 }),
          fc.json({ maxDepth: 3 }),
          fc.constantFrom("", "  ", "{\"text\":", "{\"text\":\"a\"}", "[1,2]")
        ),
        truncated: fc.constantFrom("max_tokens", "")
      }, { requiredKeys: ["id", "name", "input"] }),
      { maxLength: 5 }
    )],
    ([calls]) =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const direct = yield* runtime.runTurn(calls)
        const wired = yield* runtime.runTurn(
          calls.map((call) => SessionEntity.fromWire(SessionEntity.toWire(call, 1_000_000)))
        )
        assert.deepStrictEqual(stripTimes(wired), stripTimes(direct))
      }).pipe(Effect.provide(local)),
    { fastCheck: { numRuns: Number(process.env.PROPERTY_RUNS ?? 100) } }
  )

  it.effect("arguments the client cannot read are refused on the runner, never run", () =>
    Effect.gen(function*() {
      const runtime = yield* ToolRuntime.ToolRuntime
      const cycle: Record<string, unknown> = { text: "a" }
      cycle.self = cycle
      let deep: unknown = { text: "x" }
      for (let i = 0; i < 100_000; i++) deep = { inner: deep }
      const getter = Object.defineProperty({}, "text", {
        enumerable: true,
        get() {
          throw new Error("sk-live-0123456789abcdef")
        }
      })
      const proxy = new Proxy({}, {
        ownKeys() {
          throw new Error("trap")
        }
      })
      const hostileCall = new Proxy({ id: "h5", name: "echo" }, {
        get(target, key) {
          if (key === "input") throw new Error("trap")
          return Reflect.get(target, key)
        }
      })
      const calls = [
        { id: "h1", name: "echo", input: cycle },
        { id: "h2", name: "echo", input: deep },
        { id: "h3", name: "echo", input: getter },
        { id: "h4", name: "echo", input: proxy },
        hostileCall,
        { id: "h6", name: "echo", input: () => 1 },
        { id: "h7", name: "echo", input: 10n }
      ]
      const wire = calls.map((call) => SessionEntity.toWire(call, 1_000_000))
      assert.deepStrictEqual(wire.map((call) => [call.id, call.unreadable]), [
        ["h1", true],
        ["h2", true],
        ["h3", true],
        ["h4", true],
        ["h5", true],
        ["h6", true],
        ["h7", true]
      ])
      const before = runs
      const results = yield* runtime.runTurn(wire.map(SessionEntity.fromWire))
      assert.strictEqual(runs, before)
      assert.deepStrictEqual(results.map((result) => [result.callId, result.error?.code]), [
        ["h1", "invalid_input"],
        ["h2", "invalid_input"],
        ["h3", "invalid_input"],
        ["h4", "invalid_input"],
        ["h5", "invalid_input"],
        ["h6", "invalid_input"],
        ["h7", "invalid_input"]
      ])
      // The getter's message (a secret) is nowhere in what the model reads.
      assert.notInclude(JSON.stringify(results), "sk-live")
    }).pipe(Effect.provide(local)))

  it.effect("arguments past maxInputChars are cut just past it and refused as too large", () =>
    Effect.gen(function*() {
      const runtime = yield* ToolRuntime.ToolRuntime
      const call = { id: "big", name: "echo", input: { text: "x".repeat(5_000_000) } }
      const wire = SessionEntity.toWire(call, 1_000_000)
      assert.strictEqual(wire.input!.length, 1_000_001)
      const [wired] = yield* runtime.runTurn([SessionEntity.fromWire(wire)])
      const [direct] = yield* runtime.runTurn([call])
      assert.strictEqual(wired!.error?.code, "input_too_large")
      assert.deepStrictEqual(stripTimes([wired!]), stripTimes([direct!]))
    }).pipe(Effect.provide(local)))
})

describe("SessionClient without an answer", () => {
  /** A client over a fresh file, with no runner anywhere. */
  const withClient = <A, E>(
    turnTimeout: Duration.DurationInput,
    body: Effect.Effect<A, E, ToolRuntime.ToolRuntime | CallJournal.CallJournal>
  ) =>
    Effect.scoped(Effect.gen(function*() {
      const file = yield* tempDb
      return yield* Effect.provide(
        body,
        ClusterRuntime.layerClient({
          storage: { _tag: "Sqlite", filename: file },
          timing: ClusterRuntime.fastTiming,
          turnTimeout,
          settleTimeout: "500 millis",
          sqlite: { synchronous: "normal" }
        }).pipe(Layer.provide(services))
      )
    }))

  it.live("a turn without sessionId and turnId is refused at once, every call not_executed", () =>
    withClient(
      "10 seconds",
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const started = performance.now()
        const results = yield* runtime.runTurn([
          { id: "a", name: "send", input: { to: "x" } },
          { id: "b", name: "look", input: {} }
        ], { sessionId: "s1" })
        assert.isBelow(performance.now() - started, 1_000)
        assert.deepStrictEqual(results.map((result) => [result.callId, result.error?.code]), [
          ["a", "not_executed"],
          ["b", "not_executed"]
        ])
        assert.include(results[0]!.content[0]!._tag === "text" ? results[0]!.content[0]!.text : "", "sessionId")
      })
    ), 30_000)

  it.live(
    "no answer within turnTimeout: recorded results come from the journal, a started write is outcome unknown, the rest not_executed",
    () =>
      withClient(
        "1500 millis",
        Effect.gen(function*() {
          const runtime = yield* ToolRuntime.ToolRuntime
          const journal = yield* CallJournal.CallJournal
          const key = (callId: string) => ({ sessionId: "s1", turnId: "t1", callId })
          // What runners recorded before the cluster went quiet: c1 finished, c2 (a write) started, c3 (a read) started.
          const begun = yield* journal.begin({ key: key("c1"), toolName: "send", kind: "effect", seq: 0 }, "r1")
          assert.strictEqual(begun._tag, "Run")
          const recorded: ToolResult.ToolResult = {
            callId: "c1",
            toolName: "send",
            content: [{ _tag: "text", text: "sent to ada" }],
            isError: false,
            meta: { durationMillis: 3, redactions: 0 }
          }
          assert.isTrue(yield* journal.finish(key("c1"), 1, recorded, "r1"))
          yield* journal.begin({ key: key("c2"), toolName: "send", kind: "effect", seq: 1 }, "r1")
          yield* journal.begin({ key: key("c3"), toolName: "look", kind: "read", seq: 2 }, "r1")

          const started = performance.now()
          const results = yield* runtime.runTurn([
            { id: "c1", name: "send", input: { to: "ada" } },
            { id: "c2", name: "send", input: { to: "bob" } },
            { id: "c3", name: "look", input: {} },
            { id: "c4", name: "send", input: { to: "eve" } }
          ], { sessionId: "s1", turnId: "t1" })
          const waited = performance.now() - started
          // The turn timeout, then the wait for its started calls to settle (they never will: no runner).
          assert.isAtLeast(waited, 1_900)
          assert.isBelow(waited, 6_000)
          assert.deepStrictEqual(results[0], recorded)
          assert.deepStrictEqual(
            results.slice(1).map((result) => [
              result.callId,
              result.error?.code,
              result.error?.outcomeUnknown,
              result.error?.retryable
            ]),
            [
              ["c2", "cluster_unavailable", true, false],
              ["c3", "cluster_unavailable", false, true],
              ["c4", "not_executed", false, true]
            ]
          )
          for (const result of results.slice(1)) {
            const text = result.content[0]!._tag === "text" ? result.content[0]!.text : ""
            assert.include(text, "no answer from the cluster within")
          }
        })
      ),
    30_000
  )

  it.live("interruptWhen ends the wait and says why", () =>
    withClient(
      "1 minute",
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const started = performance.now()
        const results = yield* runtime.runTurn([{ id: "a", name: "look", input: {} }], {
          sessionId: "s1",
          turnId: "t2",
          interruptWhen: Effect.as(Effect.sleep("300 millis"), "the user pressed stop")
        })
        assert.isBelow(performance.now() - started, 5_000)
        assert.strictEqual(results[0]!.error?.code, "not_executed")
        const text = results[0]!.content[0]!._tag === "text" ? results[0]!.content[0]!.text : ""
        assert.include(text, "the user pressed stop")
      })
    ), 30_000)
})

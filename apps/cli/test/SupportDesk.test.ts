/**
 * The support-desk tools through the real runtime: scheduling of the brief's
 * turn in virtual time, and the business rules that keep the writes honest.
 */
import { assert, describe, it } from "@effect/vitest"
import type * as ToolCall from "@tool-runtime/core/ToolCall"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import * as TestClock from "effect/TestClock"
import * as TestServices from "effect/TestServices"
import * as Demo from "../src/commands/Demo.js"
import * as SupportDesk from "../src/SupportDesk.js"

/**
 * Runs a turn to the end in virtual time: the handlers sleep to simulate latency. A turn still
 * running after a virtual minute fails in seconds of real time, instead of waiting on a clock
 * nobody moves.
 */
const runTurn = (calls: ReadonlyArray<ToolCall.Input>, options?: ToolRuntime.TurnOptions) =>
  Effect.gen(function*() {
    const runtime = yield* ToolRuntime.ToolRuntime
    const fiber = yield* Effect.fork(runtime.runTurn(calls, options))
    yield* TestClock.adjust("1 minute")
    return yield* TestServices.provideWithLive(
      Fiber.join(fiber),
      Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the turn outlived a virtual minute") })
    )
  })

const runCall = (id: string, name: string, input: unknown) =>
  Effect.map(runTurn([{ id, name, input }]), (results) => results[0]!)

describe("SupportDesk", () => {
  it.effect("runs the brief's turn: two reads together, then the reply alone, results in call order", () =>
    Effect.gen(function*() {
      const runtime = yield* ToolRuntime.ToolRuntime
      assert.deepStrictEqual(runtime.plan(Demo.turnOne), [
        { indices: [0, 1], concurrent: true },
        { indices: [2], concurrent: false }
      ])
      const starts = yield* Ref.make<ReadonlyArray<{ readonly indices: ReadonlyArray<number>; readonly at: number }>>(
        []
      )
      const results = yield* runTurn(Demo.turnOne, {
        onEvent: (event) =>
          event._tag === "BatchStarted"
            ? Effect.flatMap(Clock.currentTimeMillis, (now) =>
              Ref.update(starts, (s) => [...s, { indices: event.indices, at: now }]))
            : Effect.void
      })
      // The reply waits for the slower read (350 ms), not for the sum of both.
      assert.deepStrictEqual(yield* Ref.get(starts), [{ indices: [0, 1], at: 0 }, { indices: [2], at: 350 }])
      assert.deepStrictEqual(results.map((r) => r.callId), Demo.turnOne.map((c) => c.id))
      assert.deepStrictEqual(results.map((r) => r.isError), [false, false, false])
      assert.deepStrictEqual(results.map((r) => r.meta.durationMillis), [200, 350, 250])
      assert.include(ToolResult.text(results[1]!), "KB-101")
    }).pipe(Effect.provide(SupportDesk.layerRuntime)))

  it.effect("refuses a reply to a closed or unknown ticket, without sending it", () =>
    Effect.gen(function*() {
      const closed = yield* runCall("a", "reply_to_customer", { ticketId: "T-1003", message: "Any news?" })
      assert.strictEqual(closed.error?.code, "rule_violation")
      assert.isTrue(closed.error?.retryable)
      assert.include(ToolResult.text(closed), "reply_to_customer refused the call: ticket T-1003 is closed")
      // The rule runs before the handler: nothing reached the customer.
      const ticket = yield* runCall("b", "query_ticket", { ticketId: "T-1003" })
      assert.strictEqual((JSON.parse(ToolResult.text(ticket)) as { messages: Array<unknown> }).messages.length, 2)

      const unknown = yield* runCall("c", "reply_to_customer", { ticketId: "T-9999", message: "Hello" })
      assert.strictEqual(unknown.error?.code, "rule_violation")
      assert.include(unknown.error?.hint, "query_ticket")
    }).pipe(Effect.provide(SupportDesk.layerRuntime)))

  it.effect("closes a ticket only after a reply", () =>
    Effect.gen(function*() {
      const early = yield* runCall("a", "close_ticket", { ticketId: "T-1002", resolution: "resolved" })
      assert.strictEqual(early.error?.code, "rule_violation")
      assert.include(early.error?.hint, "reply_to_customer first")

      const [reply, close] = yield* runTurn([
        { id: "b", name: "reply_to_customer", input: { ticketId: "T-1002", message: "Your refund was sent today." } },
        { id: "c", name: "close_ticket", input: { ticketId: "T-1002", resolution: "resolved" } }
      ])
      assert.isFalse(reply!.isError)
      assert.isFalse(close!.isError, ToolResult.text(close!))

      const again = yield* runCall("d", "close_ticket", { ticketId: "T-1002", resolution: "resolved" })
      assert.strictEqual(again.error?.code, "rule_violation")
      assert.include(ToolResult.text(again), "is closed")
    }).pipe(Effect.provide(SupportDesk.layerRuntime)))

  it.effect("reports a missing record as a tool failure and bad arguments as invalid", () =>
    Effect.gen(function*() {
      const missing = yield* runCall("a", "query_order", { orderId: "O-9999" })
      assert.strictEqual(missing.error?.code, "tool_failed")
      assert.include(ToolResult.text(missing), "No order has the id O-9999.")

      const tooMany = yield* runCall("b", "search_knowledge_base", { query: "refund", limit: 9 })
      assert.strictEqual(tooMany.error?.code, "invalid_arguments")
      assert.include(ToolResult.text(tooMany), "limit")
    }).pipe(Effect.provide(SupportDesk.layerRuntime)))

  it("describes every parameter the model is shown", () => {
    for (const tool of SupportDesk.tools) {
      const properties = (tool.inputSchema as { properties?: Record<string, { description?: string }> }).properties
      for (const [name, property] of Object.entries(properties ?? {})) {
        assert.isString(property.description, `${tool.name}.${name} has no description`)
      }
    }
  })
})

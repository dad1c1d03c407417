import * as AiTool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import { assert, describe, it } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as TestServices from "effect/TestServices"
import * as AiToolkit from "../src/AiToolkit.js"

const GetWeather = AiTool.make("GetWeather", {
  description: "Current weather in a city.",
  parameters: { city: Schema.String.annotations({ description: "The city name." }) },
  success: Schema.Struct({ city: Schema.String, celsius: Schema.Number })
}).annotate(AiTool.Readonly, true)

const DeleteFile = AiTool.make("DeleteFile", {
  description: "Deletes a file.",
  parameters: { path: Schema.String },
  success: Schema.String
})

const ArchiveFile = AiTool.make("ArchiveFile", {
  description: "Moves a file to the archive.",
  parameters: { path: Schema.String },
  success: Schema.String
}).annotate(AiTool.Destructive, false)

const FetchPage = AiTool.make("FetchPage", {
  description: "Fetches a web page.",
  parameters: { url: Schema.String },
  success: Schema.String
})
  .annotate(AiTool.Readonly, true)
  .annotate(AiTool.OpenWorld, true)
  .annotate(AiToolkit.Timeout, "100 millis")
  .annotate(AiToolkit.OutputLimit, 2_000)

const Refund = AiTool.make("Refund", {
  description: "Refunds an order.",
  parameters: { orderId: Schema.String, count: Schema.NumberFromString },
  success: Schema.String,
  failure: Schema.Struct({ reason: Schema.String })
})

const Lookup = AiTool.make("Lookup", {
  description: "Looks something up, failing softly.",
  parameters: { key: Schema.String },
  success: Schema.String,
  failure: Schema.Struct({ message: Schema.String }),
  failureMode: "return"
}).annotate(AiTool.Readonly, true)

const toolkit = Toolkit.make(GetWeather, DeleteFile, ArchiveFile, FetchPage, Refund, Lookup)

const handlers = toolkit.toLayer({
  GetWeather: ({ city }) => Effect.succeed({ city, celsius: 21 }),
  DeleteFile: ({ path }) => Effect.succeed(`deleted ${path}`),
  ArchiveFile: ({ path }) => Effect.succeed(`archived ${path}`),
  FetchPage: ({ url }) => Effect.as(Effect.sleep("1 second"), `<html>${url}</html>`),
  Refund: ({ count, orderId }) =>
    count > 1
      ? Effect.fail({ reason: `order ${orderId} has ${count} items; refund them one at a time` })
      : Effect.succeed(`refunded ${count} item of ${orderId}`),
  Lookup: ({ key }) => Effect.fail({ message: `nothing is known about ${key}` })
})

const Live = AiToolkit.layerRuntime(toolkit, { tools: { DeleteFile: { timeout: "3 seconds" } } }).pipe(
  Layer.provide(handlers)
)

const call = (id: string, name: string, input: unknown) => ({ id, name, input })

describe("AiToolkit", () => {
  it.effect("maps Readonly and Destructive to read-only and risk; our annotations and options add the rest", () =>
    Effect.gen(function*() {
      const runtime = yield* ToolRuntime.ToolRuntime
      const tool = (name: string) => runtime.registry.get(name)!.tool
      const summary = (name: string) => {
        const t = tool(name)
        return { readOnly: t.readOnly, risk: t.risk, untrusted: t.untrusted }
      }
      assert.deepStrictEqual(summary("GetWeather"), { readOnly: true, risk: "low", untrusted: false })
      // Destructive is true unless annotated otherwise.
      assert.deepStrictEqual(summary("DeleteFile"), { readOnly: false, risk: "high", untrusted: false })
      assert.deepStrictEqual(summary("ArchiveFile"), { readOnly: false, risk: "medium", untrusted: false })
      assert.deepStrictEqual(summary("FetchPage"), { readOnly: true, risk: "low", untrusted: true })
      assert.strictEqual(tool("FetchPage").timeoutMillis, 100)
      assert.strictEqual(tool("FetchPage").outputLimit, 2_000)
      assert.strictEqual(tool("DeleteFile").timeoutMillis, 3_000)
      // The model is shown exactly what @effect/ai would send.
      assert.deepStrictEqual(tool("GetWeather").inputSchema, AiTool.getJsonSchema(GetWeather))
      assert.strictEqual(tool("GetWeather").description, "Current weather in a city.")
    }).pipe(Effect.provide(Live)))

  it.effect("runs handlers through the runtime: results encoded, failures are results the model reads", () =>
    Effect.gen(function*() {
      const runtime = yield* ToolRuntime.ToolRuntime
      const results = yield* runtime.runTurn([
        call("1", "GetWeather", { city: "Lisbon" }),
        // A schema that transforms: the handler gets the number, decoded once.
        call("2", "Refund", { orderId: "O-1", count: "1" }),
        call("3", "Refund", { orderId: "O-2", count: "3" }),
        call("4", "Lookup", { key: "x" }),
        call("5", "GetWeather", { town: "Lisbon" })
      ])
      assert.deepStrictEqual(JSON.parse(ToolResult.text(results[0]!)), { city: "Lisbon", celsius: 21 })
      assert.strictEqual(ToolResult.text(results[1]!), "refunded 1 item of O-1")
      assert.strictEqual(results[2]!.error?.code, "tool_failed")
      assert.include(ToolResult.text(results[2]!), "{\"reason\":\"order O-2 has 3 items; refund them one at a time\"}")
      // failureMode "return": still an error result, so the model knows it failed.
      assert.strictEqual(results[3]!.error?.code, "tool_failed")
      assert.include(ToolResult.text(results[3]!), "nothing is known about x")
      assert.strictEqual(results[4]!.error?.code, "invalid_arguments")
    }).pipe(Effect.provide(Live)))

  it.effect("a time limit from an annotation stops the handler", () =>
    Effect.gen(function*() {
      const runtime = yield* ToolRuntime.ToolRuntime
      const fiber = yield* Effect.fork(runtime.runTurn([call("1", "FetchPage", { url: "https://example.com" })]))
      yield* TestClock.adjust("1 second")
      // Bounded in real time: a limit that never fires fails here, not at the test's timeout.
      const [result] = yield* TestServices.provideWithLive(
        Fiber.join(fiber),
        Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the turn outlived its 100 ms limit") })
      )
      assert.strictEqual(result!.error?.code, "timeout")
      assert.include(ToolResult.text(result!), "FetchPage timed out after 100 ms")
    }).pipe(Effect.provide(Live)))
})

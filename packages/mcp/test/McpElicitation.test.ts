/**
 * A server that asks the user in the middle of a call (`elicitation/create`),
 * answered by our client: declined with a reason when nobody is there,
 * answered by the application's handler otherwise, with the schema's
 * defaults filled in (SEP-1034), and dismissed when the handler fails.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as McpClient from "../src/McpClient.js"
import * as McpConfig from "../src/McpConfig.js"
import type * as McpElicitation from "../src/McpElicitation.js"
import * as McpTools from "../src/McpTools.js"
import * as Servers from "./fixtures/Servers.js"

const config = McpConfig.make({ flaky: Servers.stdio(Servers.flakyServer, [], { trusted: true, timeout: 20_000 }) })

/** The answer the server received, as its `ask` tool returns it. */
const ask = (options?: McpClient.Options) =>
  Effect.gen(function*() {
    const runtime = yield* ToolRuntime.ToolRuntime
    const result = yield* runtime.runCall({ id: "c1", name: "mcp__flaky__ask", input: {} })
    const text = ToolResult.text(result)
    return JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)) as {
      readonly action: string
      readonly content?: Record<string, unknown>
      readonly _meta?: Record<string, unknown>
    }
  }).pipe(Effect.provide(McpTools.layerRuntime([]).pipe(Layer.provide(McpClient.layer(config, options)))))

describe("McpElicitation", { timeout: 90_000 }, () => {
  it.live("declines with the reason when no handler is given: nobody is there to answer", () =>
    Effect.gen(function*() {
      const answer = yield* ask()
      assert.strictEqual(answer.action, "decline")
      assert.include(String(answer._meta?.["tool-runtime/reason"]), "without a person")
    }))

  it.live("passes the handler the server's question, and fills the fields it left out from the schema's defaults", () =>
    Effect.gen(function*() {
      const asked: Array<McpElicitation.Request> = []
      const answer = yield* ask({
        elicit: (request) => {
          asked.push(request)
          return Effect.succeed({ action: "accept", content: { name: "Ada" } })
        }
      })
      assert.deepStrictEqual(asked.map((r) => [r.server, r.message]), [["flaky", "Which size, and for whom?"]])
      assert.deepStrictEqual(Object.keys(asked[0]!.requestedSchema.properties as object), ["name", "size", "gift"])
      assert.deepStrictEqual(answer, { action: "accept", content: { name: "Ada", size: "medium", gift: false } })
    }))

  it.live("dismisses the question when the handler fails or dies, and the call still gets its result", () =>
    Effect.gen(function*() {
      const failed = yield* ask({ elicit: () => Effect.die(new Error("the prompt crashed")) })
      assert.deepStrictEqual(failed, { action: "cancel" })
    }))
})

import { assert, describe, it, layer } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Anthropic from "../src/Anthropic.js"
import * as OpenAIResponses from "../src/OpenAIResponses.js"
import * as ToolSearch from "../src/ToolSearch.js"
import * as World from "./World.js"

const business = (name: string, description: string) =>
  Tool.make(name, {
    description,
    parameters: { id: Schema.String },
    handler: ({ id }) => Effect.succeed(`${name} done for ${id}`)
  })

const catalog = [
  World.getWeather,
  business("refund_order", "Refunds an order to the original payment method."),
  business("cancel_order", "Cancels an order that has not shipped yet."),
  business("getOrderStatus", "Looks up where an order is and when it arrives."),
  business("create_ticket", "Opens a support ticket for a customer."),
  business("close_ticket", "Closes a support ticket once the customer is helped."),
  business("search_knowledge_base", "Searches help articles by keyword."),
  business("update_customer_address", "Changes the shipping address on file."),
  business("list_invoices", "Lists the invoices of a customer account."),
  World.sendEmail
] as const

const deferred = (tool: Tool.Any) => tool.name !== "get_weather"

const store = ArtifactStore.layerMemory()
const runtime = ToolRuntime.layer().pipe(
  Layer.provideMerge(
    Layer.mergeAll(ToolSearch.layer(catalog, { deferred }), store, Redactor.layerDefault, Policy.layerAllowAll)
  ),
  Layer.provide(store)
)

const names = (definitions: ReadonlyArray<Registry.Definition>) => definitions.map((definition) => definition.name)

layer(runtime)("ToolSearch", (it) => {
  it.effect("keeps deferred tools out of the definitions until the model finds them", () =>
    Effect.gen(function*() {
      const search = yield* ToolSearch.ToolSearch
      const registry = yield* Registry.Registry
      const tools = yield* ToolRuntime.ToolRuntime
      yield* search.reset
      assert.strictEqual(registry, search.registry)
      assert.deepStrictEqual(names(registry.definitions), ["get_weather", "search_tools"])
      assert.deepStrictEqual(Anthropic.toolDefinitions(registry).map((tool) => tool.name), [
        "get_weather",
        "search_tools"
      ])
      assert.include(registry.definitions[1]!.description, "(9 of them)")

      const [found] = yield* tools.runTurn([{ id: "s1", name: "search_tools", input: { query: "refund an order" } }])
      assert.isFalse(found!.isError, ToolResult.text(found!))
      const body = JSON.parse(ToolResult.text(found!)) as typeof ToolSearch.Found.Type
      assert.strictEqual(body.tools[0]?.name, "refund_order")
      assert.deepStrictEqual(body.tools[0]?.parameters, catalog[1].inputSchema)
      assert.include(body.note, "from your next turn")

      // The next request carries the tools found, after the ones it had: the start of the list is stable.
      const next = OpenAIResponses.toolDefinitions(registry).tools.map((tool) => tool.name)
      assert.deepStrictEqual(next.slice(0, 2), ["get_weather", "search_tools"])
      assert.deepStrictEqual(next.slice(2), search.loaded())
      assert.include(next, "refund_order")

      const [refund] = yield* tools.runTurn([{ id: "r1", name: "refund_order", input: { id: "A-1" } }])
      assert.strictEqual(ToolResult.text(refund!), "refund_order done for A-1")
    }))

  it.effect("a deferred tool stays callable by name: validation still guards it", () =>
    Effect.gen(function*() {
      const search = yield* ToolSearch.ToolSearch
      const tools = yield* ToolRuntime.ToolRuntime
      yield* search.reset
      const [ok, invalid] = yield* tools.runTurn([
        { id: "1", name: "list_invoices", input: { id: "cust-9" } },
        { id: "2", name: "list_invoices", input: {} }
      ])
      assert.isFalse(ok!.isError)
      assert.strictEqual(invalid!.error?.code, "invalid_arguments")
      assert.deepStrictEqual(search.loaded(), [])
    }))

  it.effect.prop(
    "loading only appends, never repeats a tool, and never shows more than exists",
    [FastCheck.array(
      FastCheck.constantFrom("order", "ticket", "email", "select:close_ticket,list_invoices", "xyz", "invoice")
    )],
    ([queries]) =>
      Effect.gen(function*() {
        const search = yield* ToolSearch.ToolSearch
        const tools = yield* ToolRuntime.ToolRuntime
        yield* search.reset
        let before = names(search.registry.definitions)
        for (const [i, query] of queries.entries()) {
          yield* tools.runTurn([{ id: `q${i}`, name: "search_tools", input: { query, max_results: 3 } }])
          const after = names(search.registry.definitions)
          assert.deepStrictEqual(after.slice(0, before.length), before)
          assert.strictEqual(new Set(after).size, after.length)
          assert.isAtMost(after.length, catalog.length + 1)
          before = after
        }
      })
  )
})

describe("ToolSearch.find", () => {
  const definitions = catalog.filter(deferred).map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema
  }))

  it("ranks name matches above description matches, and splits names into words", () => {
    assert.deepStrictEqual(names(ToolSearch.find(definitions, "ticket", 5)), ["create_ticket", "close_ticket"])
    assert.strictEqual(names(ToolSearch.find(definitions, "order status", 5))[0], "getOrderStatus")
    assert.deepStrictEqual(names(ToolSearch.find(definitions, "invoices", 5)), ["list_invoices"])
    assert.deepStrictEqual(names(ToolSearch.find(definitions, "send_email", 5)), ["send_email"])
    assert.deepStrictEqual(names(ToolSearch.find(definitions, "shipping address", 1)), ["update_customer_address"])
  })

  it("selects exact names, and falls back to near names for a typo", () => {
    assert.deepStrictEqual(names(ToolSearch.find(definitions, "select:close_ticket, send_email, nope", 5)), [
      "close_ticket",
      "send_email"
    ])
    assert.deepStrictEqual(names(ToolSearch.find(definitions, "refnd_ordr", 5)), ["refund_order"])
    assert.deepStrictEqual(names(ToolSearch.find(definitions, "quantum", 5)), [])
  })
})

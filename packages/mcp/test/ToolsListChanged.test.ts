/**
 * `notifications/tools/list_changed` from a real server (the SDK's own
 * `McpServer`, which sends it when a tool is registered): the registry takes
 * the new list for the next turn, and a turn under way keeps the tools it
 * started with, even after the new list has arrived.
 */
import { afterAll, assert, describe, layer } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as McpClient from "../src/McpClient.js"
import * as McpConfig from "../src/McpConfig.js"
import * as McpTools from "../src/McpTools.js"
import * as Servers from "./fixtures/Servers.js"

const config = McpConfig.make({
  changing: Servers.stdio(Servers.changingServer, [], { trusted: true, timeout: 20_000 })
})

const Live = McpTools.layerRuntime([]).pipe(Layer.provideMerge(McpClient.layer(config)))

const late = "mcp__changing__late"

afterAll(async () => {
  assert.deepStrictEqual(await Servers.survivors(), [])
})

describe("tools/list_changed", () => {
  layer(Live, { excludeTestServices: true, timeout: "30 seconds" })((it) => {
    it.effect("the new tools come with the next turn, never in the middle of one", () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const server = (yield* McpClient.McpClient).servers[0]!
        const pid = (yield* server.status).pid
        if (pid !== undefined) Servers.pids.add(pid)
        assert.isUndefined(runtime.registry.get(late))
        let changes = 0
        const stop = server.onToolsChanged(() => changes++)
        // `add` answers only after the new list has been taken (it waits for it): the call after it,
        // in the same turn, still meets the tools the turn started with.
        const first = yield* runtime.runTurn([
          { id: "a", name: "mcp__changing__add", input: { waitMillis: 100 } },
          { id: "b", name: late, input: {} }
        ], {
          onEvent: (event) =>
            event._tag === "CallFinished" && event.result.callId === "a"
              ? Effect.orDie(Servers.waitUntil(() => runtime.registry.get(late) !== undefined, "the new list taken"))
              : Effect.void
        })
        assert.include(ToolResult.text(first[0]!), "added")
        assert.isFalse(first[0]!.isError)
        assert.isDefined(runtime.registry.get(late), "the registry holds the new tool by the end of the turn")
        assert.strictEqual(first[1]!.error?.code, "unknown_tool", ToolResult.text(first[1]!))
        assert.isAtLeast(changes, 1)
        stop()
        // The next turn has it, and the model is shown it.
        assert.include(runtime.registry.definitions.map((d) => d.name), late)
        const second = yield* runtime.runTurn([{ id: "c", name: late, input: {} }])
        assert.isFalse(second[0]!.isError, ToolResult.text(second[0]!))
        assert.include(ToolResult.text(second[0]!), "late tool here")
        assert.deepStrictEqual(server.tools.map((tool) => tool.name).sort(), ["add", "late"])
      }))
  })
})

/**
 * A stdio server that will not stop by itself (it ignores SIGTERM and the
 * end of its input) and starts children that ignore SIGTERM, one of them in
 * a session of its own (`setsid`): when the runtime closes, or when the
 * server crashes, none of them is left alive. Checked by a scan of `/proc`
 * for the marker every one of them carries, within a bound far under the
 * test's timeout.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as McpClient from "../src/McpClient.js"
import * as McpConfig from "../src/McpConfig.js"
import * as McpTools from "../src/McpTools.js"
import * as Servers from "./fixtures/Servers.js"

const runtimeFor = (marker: string) =>
  McpTools.layerRuntime([]).pipe(
    Layer.provide(McpClient.layer(McpConfig.make({
      forking: Servers.stdio(Servers.forkingServer, [marker], { trusted: true, timeout: 20_000 })
    })))
  )

const run = (id: string, name: string) =>
  Effect.flatMap(ToolRuntime.ToolRuntime, (runtime) => runtime.runCall({ id, name, input: {} }))

/** Waits until no process carries the marker; fails naming those still alive. */
const noneLeft = (marker: string, what: string) =>
  Servers.waitUntil(() => Servers.withMarker(marker).length === 0, what, 20_000).pipe(
    Effect.catchAll(() => Effect.fail(new Error(`${what}: still alive: ${Servers.withMarker(marker).join(", ")}`)))
  )

// A failing test must not leave its stubborn processes on the machine.
afterAll(() => {
  for (const pid of Servers.withMarker(`mcp-kill-test-${process.pid}-closed`)) Servers.kill(pid)
  for (const pid of Servers.withMarker(`mcp-kill-test-${process.pid}-crashed`)) Servers.kill(pid)
})

describe("McpStdio", { timeout: 90_000 }, () => {
  it.live("leaves nothing alive when the runtime closes: the server, its child, the one that left with setsid, the re-parented one", () =>
    Effect.gen(function*() {
      const marker = `mcp-kill-test-${process.pid}-closed`
      yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(runtimeFor(marker))
        const result = yield* run("c1", "mcp__forking__ping").pipe(Effect.provide(context))
        assert.include(ToolResult.text(result), "pong")
        // The fixture really did start all four (the re-parented one a moment later), and they ignore SIGTERM.
        yield* Servers.waitUntil(() => Servers.withMarker(marker).length === 4, "the server and its three children run")
      }))
      yield* noneLeft(marker, "after the runtime closed")
    }))

  it.live("leaves nothing of a crashed server's group alive, and the next call starts a new server", () =>
    Effect.gen(function*() {
      const marker = `mcp-kill-test-${process.pid}-crashed`
      yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(runtimeFor(marker))
        yield* run("c1", "mcp__forking__ping").pipe(Effect.provide(context))
        yield* Servers.waitUntil(() => Servers.withMarker(marker).length === 4, "the server and its three children run")
        const before = Servers.withMarker(marker)
        const crashed = yield* run("c2", "mcp__forking__crash").pipe(Effect.provide(context))
        assert.isTrue(crashed.isError)
        assert.lengthOf(before, 4)
        // The server, the child in its group, the one that left it, and the one that left the tree.
        yield* Servers.waitUntil(
          () => Servers.withMarker(marker).every((pid) => !before.includes(pid)),
          "the crashed server's processes are gone",
          20_000
        )
        const again = yield* run("c3", "mcp__forking__ping").pipe(Effect.provide(context))
        assert.include(ToolResult.text(again), "pong")
      }))
      yield* noneLeft(marker, "after the runtime closed")
    }))
})

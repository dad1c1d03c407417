/**
 * A server that leaks the token it was given (on stderr as it starts and
 * as it dies, and in its tool's error): with the log at every level, no 8
 * characters of it reach the log, the results, or the client's errors.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as McpClient from "../src/McpClient.js"
import * as McpConfig from "../src/McpConfig.js"
import * as McpTools from "../src/McpTools.js"
import * as Servers from "./fixtures/Servers.js"

const token = `ghp_${"Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"}`

const windows = (text: string) => {
  const found: Array<string> = []
  for (let start = 0; start + 8 <= token.length; start++) {
    if (text.includes(token.slice(start, start + 8))) found.push(token.slice(start, start + 8))
  }
  return found
}

describe("a server that leaks its token", { timeout: 60_000 }, () => {
  it.live("reaches no log line at any level, no result and no client error", () =>
    Effect.gen(function*() {
      const { layer: collect, lines } = Servers.logLines()
      const seen = yield* Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const client = yield* McpClient.McpClient
        const boom = yield* runtime.runCall({ id: "1", name: "mcp__leaky__boom", input: {} })
        const crash = yield* runtime.runCall({ id: "2", name: "mcp__leaky__crash", input: {} })
        const direct = yield* Effect.flip(client.servers[0]!.call("boom", {}))
        yield* Servers.waitUntil(() => lines.some((line) => line.includes("dying, token")), "the dying line is logged")
        return [ToolResult.text(boom), ToolResult.text(crash), direct.message]
      }).pipe(
        Effect.provide(
          McpTools.layerRuntime([]).pipe(
            Layer.provideMerge(
              McpClient.layer(McpConfig.make({ leaky: Servers.stdio(Servers.leakyServer, [token]) }))
            )
          )
        ),
        Effect.provide(collect),
        Logger.withMinimumLogLevel(LogLevel.All)
      )
      // The server did say it, and the errors did come back: the oracle below is about real text.
      assert.isTrue(lines.some((line) => line.includes("starting with token")))
      assert.match(seen[2]!, /internal error with/)
      assert.deepStrictEqual(windows([...seen, ...lines].join("\n")), [])
    }))

  it.live("a server that dies before its handshake: the start error quotes its last stderr lines, redacted", () =>
    Effect.gen(function*() {
      const script =
        `console.error("loading config"); console.error("fatal: cannot open db with ${token}"); process.exit(2)`
      const error = yield* Effect.flip(
        McpClient.connect("dying", { command: process.execPath, args: ["-e", script] }).pipe(Effect.scoped)
      )
      assert.strictEqual(error.reason, "start_failed")
      assert.match(error.message, /its stderr ended with: loading config \| fatal: cannot open db with /)
      assert.deepStrictEqual(windows(error.message), [])
    }))
})

/**
 * A server reached over streamable HTTP on the loopback interface: the
 * reference server's HTTP mode, started from node_modules.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as ChildProcess from "node:child_process"
import * as Net from "node:net"
import * as McpClient from "../src/McpClient.js"
import * as McpConfig from "../src/McpConfig.js"
import * as McpTools from "../src/McpTools.js"
import * as Servers from "./fixtures/Servers.js"

const freePort = Effect.async<number>((resume) => {
  const server = Net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address() as Net.AddressInfo
    server.close(() => resume(Effect.succeed(address.port)))
  })
})

/** The HTTP server process, up once it says it listens; stopped when the scope closes. */
const httpServer = (port: number) =>
  Effect.acquireRelease(
    Effect.async<ChildProcess.ChildProcess>((resume) => {
      const child = ChildProcess.spawn(process.execPath, [Servers.everythingBin, "streamableHttp"], {
        env: { PATH: process.env.PATH ?? "", PORT: String(port) },
        stdio: ["ignore", "ignore", "pipe"]
      })
      let output = ""
      child.stderr!.on("data", (chunk: Buffer) => {
        output += chunk.toString()
        if (output.includes("listening on port")) resume(Effect.succeed(child))
      })
      child.once("exit", (code) => resume(Effect.dieMessage(`the HTTP server exited (${code}): ${output}`)))
    }).pipe(Effect.timeout("20 seconds"), Effect.orDie),
    (child) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGKILL")
      })
  )

const Live = Layer.unwrapScoped(Effect.gen(function*() {
  const port = yield* freePort
  yield* httpServer(port)
  const config = McpConfig.make({
    // Progress every 0.5 s below: an idle limit of 2.5 s is five of those gaps.
    remote: { type: "http", url: `http://127.0.0.1:${port}/mcp`, idleTimeout: 2_500, timeout: 10_000 }
  })
  return McpTools.layerRuntime([]).pipe(Layer.provideMerge(McpClient.layer(config)))
}))

describe("streamable HTTP", () => {
  layer(Live, { excludeTestServices: true, timeout: "40 seconds" })((it) => {
    it.effect("imports the tools of an HTTP server, untrusted: writes of high risk", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        assert.deepStrictEqual(client.failures, [])
        const status = yield* client.servers[0]!.status
        assert.isTrue(status.connected)
        assert.isUndefined(status.pid)
        const runtime = yield* ToolRuntime.ToolRuntime
        const echo = runtime.registry.get("mcp__remote__echo")!.tool
        assert.isFalse(echo.readOnly)
        assert.strictEqual(echo.risk, "high")
        const [result] = yield* runtime.runTurn([{
          id: "1",
          name: "mcp__remote__echo",
          input: { message: "over http" }
        }])
        assert.include(ToolResult.text(result!), "Echo: over http")
      }))

    it.effect("progress notifications over HTTP keep a call alive past its idle limit", () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const progress = yield* Ref.make(0)
        const [result] = yield* runtime.runTurn([
          // 4 s, past the idle limit: only progress keeps it alive.
          { id: "1", name: "mcp__remote__trigger-long-running-operation", input: { duration: 4, steps: 8 } }
        ], { onEvent: (event) => event._tag === "Progress" ? Ref.update(progress, (n) => n + 1) : Effect.void })
        assert.isFalse(result!.isError, ToolResult.text(result!))
        assert.isAtLeast(result!.meta.durationMillis, 3_900, "longer than the idle limit")
        assert.isAtLeast(yield* Ref.get(progress), 1, "progress reached the runtime")
      }))
  })
})

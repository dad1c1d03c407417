/**
 * Servers that misbehave: one that exits in the middle of a call, one that
 * never answers a call, one that never answers at all. The limits are wide
 * enough for a loaded machine; what ended a call is read from its result. Each becomes error
 * results within its limits, never a hung turn; a crashed server is started
 * again on the next call; a cancelled call reaches the server; stderr goes
 * to the log, never into a result.
 */
import { afterAll, assert, describe, it as plain, layer } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as McpClient from "../src/McpClient.js"
import * as McpConfig from "../src/McpConfig.js"
import * as McpTools from "../src/McpTools.js"
import * as Servers from "./fixtures/Servers.js"

interface Line {
  readonly server: unknown
  readonly stream: unknown
  readonly text: string
}

const logged: Array<Line> = []

const CaptureLogs = Layer.merge(
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, message }) => {
      const record = Object.fromEntries(annotations)
      logged.push({
        server: record.mcpServer,
        stream: record.stream,
        text: Array.isArray(message) ? message.join(" ") : String(message)
      })
    })
  ),
  Logger.minimumLogLevel(LogLevel.Debug)
)

// The limits leave a loaded machine time to start Node: tens of seconds for a restart within a
// call, seconds for a first start. The one that is short, 3 s, is for the call that never answers,
// on a server that is never restarted, beside an echo that takes milliseconds.
const config = McpConfig.make({
  flaky: Servers.stdio(Servers.flakyServer, [], { trusted: true, timeout: 20_000 }),
  hanging: Servers.stdio(Servers.flakyServer, [], { trusted: true, timeout: 3_000 }),
  silent: Servers.stdio(Servers.flakyServer, ["silent"], { startupTimeout: 5_000 })
})

const Live = McpTools.layerRuntime([]).pipe(
  Layer.provideMerge(McpClient.layer(config)),
  Layer.provide(CaptureLogs)
)

const call = (id: string, name: string, input: unknown) => ({ id, name, input })

const server = (name: string) =>
  Effect.map(McpClient.McpClient, (client) => client.servers.find((s) => s.name === name)!)

const stderrOf = (server: string) =>
  logged.filter((line) => line.server === server && line.stream === "stderr").map((line) => line.text)

afterAll(async () => {
  // The silent server never finished its handshake; its pid is in its stderr.
  for (const line of stderrOf("silent")) {
    const pid = /silent server (\d+)/.exec(line)?.[1]
    if (pid !== undefined) Servers.pids.add(Number(pid))
  }
  assert.deepStrictEqual(await Servers.survivors(), [])
  assert.isAtLeast(Servers.pids.size, 4)
})

describe("McpClient", () => {
  layer(Live, { excludeTestServices: true, timeout: "30 seconds" })((it) => {
    it.effect("a server that never answers its handshake is left out within its startup limit", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        assert.deepStrictEqual(client.servers.map((s) => s.name), ["flaky", "hanging"])
        assert.strictEqual(client.failures.length, 1)
        assert.strictEqual(client.failures[0]!.server, "silent")
        assert.strictEqual(client.failures[0]!.reason, "start_failed")
        const runtime = yield* ToolRuntime.ToolRuntime
        assert.deepStrictEqual(runtime.registry.entries.map((e) => e.tool.name), [
          "read_output",
          "mcp__flaky__echo",
          "mcp__flaky__die",
          "mcp__flaky__hang",
          "mcp__flaky__ask",
          "mcp__hanging__echo",
          "mcp__hanging__die",
          "mcp__hanging__hang",
          "mcp__hanging__ask"
        ])
        // Its stderr reached the log.
        assert.isTrue(stderrOf("silent").some((line) => line.includes("never answering")))
        // A call to one of its tools says which server failed and why, not that the name is wrong.
        const [missing] = yield* runtime.runTurn([call("0", "mcp__silent__echo", { message: "x" })])
        assert.isTrue(missing!.isError)
        assert.strictEqual(missing!.error?.code, "tool_unavailable")
        assert.isFalse(missing!.error?.retryable)
        assert.include(ToolResult.text(missing!), "MCP server \"silent\" could not be started")
        assert.include(ToolResult.text(missing!), "no answer to the handshake within 5000 ms")
        // A name outside every failed server's prefix is still unknown.
        const [unknown] = yield* runtime.runTurn([call("0", "mcp__silentx__echo", {})])
        assert.strictEqual(unknown!.error?.code, "unknown_tool")
        for (const name of ["flaky", "hanging"]) {
          const status = yield* (yield* server(name)).status
          if (status.pid !== undefined) Servers.pids.add(status.pid)
        }
      }))

    it.effect("a server that exits mid-call gives an error result, and is started again on the next call", () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const flaky = yield* server("flaky")
        const before = yield* flaky.status
        const [died] = yield* runtime.runTurn([call("1", "mcp__flaky__die", {})]).pipe(
          Servers.within(15_000, "the turn ended when the server died")
        )
        assert.isTrue(died!.isError)
        assert.strictEqual(died!.error?.code, "tool_failed")
        assert.isTrue(died!.error?.retryable)
        // The crash ended the call, not its limit: that would be a timeout.
        assert.include(ToolResult.text(died!), "closed the connection during the call")
        // What the server wrote to stderr went to the log, not to the model.
        assert.notInclude(ToolResult.text(died!), "exiting in the middle")
        assert.isTrue(stderrOf("flaky").some((line) => line.includes("exiting in the middle")))
        // Gone: its pipes close before its parent has reaped it, so this may take a moment.
        yield* Servers.waitUntil(() => !Servers.isAlive(before.pid!), "the server that died is gone")

        const [echo] = yield* runtime.runTurn([call("2", "mcp__flaky__echo", { message: "back" })]).pipe(
          Servers.within(30_000, "the call that restarted the server ended")
        )
        assert.include(ToolResult.text(echo!), "echo: back")
        const after = yield* flaky.status
        assert.strictEqual(after.starts, before.starts + 1)
        assert.notStrictEqual(after.pid, before.pid)
        Servers.pids.add(after.pid!)
      }))

    it.effect("a call that never answers times out within its limit, is cancelled at the server, and hangs nothing", () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const hanging = yield* server("hanging")
        const before = yield* hanging.status
        // Both read-only: they run together, and the echo is not held up by the hang.
        const [hang, echo] = yield* runtime.runTurn([
          call("1", "mcp__hanging__hang", {}),
          call("2", "mcp__hanging__echo", { message: "meanwhile" })
        ]).pipe(Servers.within(20_000, "the turn ended at the hang's 3 s limit"))
        assert.strictEqual(hang!.error?.code, "timeout")
        assert.isFalse(hang!.error?.outcomeUnknown, "a read-only tool")
        assert.isAtLeast(hang!.meta.durationMillis, 2_950, "not before its limit")
        assert.include(ToolResult.text(echo!), "echo: meanwhile")
        // Held up, the echo would have waited out the hang's limit.
        assert.isBelow(echo!.meta.durationMillis, hang!.meta.durationMillis, "the echo waited for the hang")
        // The SDK sent notifications/cancelled, and the server saw it.
        yield* Servers.waitUntil(
          () => stderrOf("hanging").some((line) => line.startsWith("cancelled request")),
          "the server saw the cancellation"
        )
        // The server still answers (a ping first): no restart.
        const [again] = yield* runtime.runTurn([call("3", "mcp__hanging__echo", { message: "again" })])
        assert.include(ToolResult.text(again!), "echo: again")
        assert.strictEqual((yield* hanging.status).starts, before.starts)
      }))

    it.effect("an interrupted turn cancels the call at the server too", () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const cancelled = stderrOf("hanging").filter((line) => line.startsWith("cancelled request")).length
        const [result] = yield* runtime.runTurn([call("1", "mcp__hanging__hang", {})], {
          interruptWhen: Effect.as(Effect.sleep("200 millis"), "the user pressed Escape")
        }).pipe(Servers.within(15_000, "the interrupted turn ended"))
        assert.strictEqual(result!.error?.code, "interrupted")
        assert.include(ToolResult.text(result!), "the user pressed Escape")
        const seen = () => stderrOf("hanging").filter((line) => line.startsWith("cancelled request")).length
        yield* Servers.waitUntil(() => seen() > cancelled, "the server saw the cancellation")
        assert.strictEqual(seen(), cancelled + 1)
      }))
  })
})

describe("a server that cannot start", () => {
  // A word the flaky server ignores, to find its processes by.
  const marker = `marker-${process.pid}-unstarted`
  const mistyped = McpConfig.make({
    ok: Servers.stdio(Servers.flakyServer, ["-", marker]),
    typo: { command: "tool-runtime-no-such-mcp-server" }
  })

  plain.scoped(
    "is left out: its failure names the server and the cause, and its tools answer with it",
    () =>
      Effect.gen(function*() {
        const client = yield* McpClient.make(mistyped)
        for (const s of client.servers) Servers.pids.add((yield* s.status).pid!)
        assert.deepStrictEqual(client.servers.map((s) => s.name), ["ok"])
        assert.deepStrictEqual(client.failures.map((f) => [f.server, f.reason]), [["typo", "start_failed"]])
        assert.include(client.failures[0]!.message, "ENOENT")
        assert.deepStrictEqual(McpTools.unavailable(client).map((u) => u.prefix), ["mcp__typo__"])
      }),
    { timeout: 30_000 }
  )

  plain.scoped(
    "fails the client when the server is required, after stopping those that started",
    () =>
      Effect.gen(function*() {
        const required = McpConfig.make({
          ...mistyped.mcpServers,
          typo: { ...mistyped.mcpServers.typo!, required: true }
        })
        const exit = yield* Effect.exit(Effect.scoped(McpClient.make(required)))
        assert.isTrue(Exit.isFailure(exit))
        const error = Exit.isFailure(exit) ? exit.cause.toJSON() : undefined
        assert.include(JSON.stringify(error), "typo")
        // With requireAll, any server.
        const all = yield* Effect.exit(Effect.scoped(McpClient.make(mistyped, { requireAll: true })))
        assert.isTrue(Exit.isFailure(all))
        // The server that had started was stopped with the failed scope.
        yield* Servers.waitUntil(() => Servers.withMarker(marker).length === 0, "the started server is gone")
      }),
    { timeout: 30_000 }
  )
})

/**
 * The reference MCP server, installed from npm and started from
 * node_modules: its tools go through the runtime like any other. A long
 * operation that reports progress outlives an idle limit shorter than the
 * whole run, and is still stopped by the total limit (after which the
 * server keeps answering); large output is truncated with the full text
 * kept; secrets are redacted; output is marked untrusted. Which limit
 * ended a call is read from its result; durations are only checked not to
 * be shorter than a limit.
 */
import { afterAll, assert, describe, layer } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as McpClient from "../src/McpClient.js"
import * as McpConfig from "../src/McpConfig.js"
import * as McpTools from "../src/McpTools.js"
import * as Servers from "./fixtures/Servers.js"

const token = `ghp_${"Zx9Yw8Vu7T".repeat(3)}abcdef`

// The long operations below report progress every 0.5 s: an idle limit of 2.5 s is five of those
// gaps, which a loaded machine does not stretch into a false idle timeout.
const config = McpConfig.make({
  // Trusted: its annotations decide. Progress keeps a call alive for 2.5 s at a time.
  everything: Servers.stdio(Servers.everythingBin, ["stdio"], {
    trusted: true,
    idleTimeout: 2_500,
    timeout: 10_000,
    env: { GITHUB_TOKEN: token, BIG_1: "x".repeat(100_000), BIG_2: "x".repeat(100_000) }
  }),
  // Untrusted, and a total limit shorter than the long operation.
  capped: Servers.stdio(Servers.everythingBin, ["stdio"], { idleTimeout: 2_500, timeout: 4_000 })
})

const Live = McpTools.layerRuntime([ArtifactStore.readTool]).pipe(Layer.provideMerge(McpClient.layer(config)))

const call = (id: string, name: string, input: unknown) => ({ id, name, input })

const server = (name: string) =>
  Effect.map(McpClient.McpClient, (client) => client.servers.find((s) => s.name === name)!)

const recordPid = (name: string) =>
  Effect.flatMap(server(name), (s) => s.status).pipe(
    Effect.tap((status) => {
      if (status.pid !== undefined) Servers.pids.add(status.pid)
    })
  )

afterAll(async () => {
  // The layer's scope closed before this runs: every server process must be gone.
  assert.deepStrictEqual(await Servers.survivors(), [])
  assert.isAtLeast(Servers.pids.size, 2)
})

describe("server-everything", () => {
  layer(Live, { excludeTestServices: true, timeout: "60 seconds" })((it) => {
    it.effect("imports the tools as mcp__<server>__<tool>, believing annotations only of trusted servers", () =>
      Effect.gen(function*() {
        yield* recordPid("everything")
        yield* recordPid("capped")
        const runtime = yield* ToolRuntime.ToolRuntime
        const tool = (name: string) => runtime.registry.get(name)?.tool
        assert.isDefined(tool("mcp__everything__trigger-long-running-operation"))
        const trusted = tool("mcp__everything__echo")!
        assert.isTrue(trusted.readOnly)
        assert.strictEqual(trusted.risk, "low")
        // The same tool from a server not marked trusted: a write of high risk.
        const untrusted = tool("mcp__capped__echo")!
        assert.isFalse(untrusted.readOnly)
        assert.strictEqual(untrusted.risk, "high")
        // The model is shown the server's own JSON Schema.
        const schema = trusted.inputSchema as { readonly properties?: Record<string, unknown> }
        assert.containsAllKeys(schema.properties ?? {}, ["message"])
        assert.strictEqual(trusted.timeoutMillis, 10_000)
        assert.strictEqual(trusted.idleTimeoutMillis, 2_500)
      }))

    it.effect("echo: output comes back marked untrusted; bad arguments never reach the server", () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const [ok, bad] = yield* runtime.runTurn([
          call("1", "mcp__everything__echo", { message: "hello" }),
          call("2", "mcp__everything__echo", { message: 42 })
        ])
        assert.isFalse(ok!.isError)
        assert.include(ToolResult.text(ok!), "Echo: hello")
        assert.include(ToolResult.text(ok!), "<untrusted-content")
        assert.isTrue(ok!.meta.untrusted)
        assert.strictEqual(bad!.error?.code, "invalid_arguments")
        assert.include(ToolResult.text(bad!), "/message must be string")
      }))

    it.effect("echo and get-env: large output is truncated, stored whole and redacted", () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const [echo, env] = yield* runtime.runTurn([
          call("1", "mcp__everything__echo", { message: "y".repeat(150_000) }),
          call("2", "mcp__everything__get-env", {})
        ])
        for (const result of [echo!, env!]) {
          assert.isFalse(result.isError, ToolResult.text(result))
          assert.strictEqual(result.meta.truncation?.strategy, "head")
          assert.isAbove(result.meta.truncation!.originalLength, 100_000)
          assert.isBelow(ToolResult.text(result).length, 4_000)
          assert.include(ToolResult.text(result), "[Output truncated")
        }
        // The environment held a GitHub token: redacted before it was stored or shown.
        assert.isAtLeast(env!.meta.redactions, 1)
        assert.include(ToolResult.text(env!), "[REDACTED:github-token]")
        assert.notInclude(ToolResult.text(env!), token)
        // The marker says how to read the rest; what was stored is redacted too.
        const artifact = /"id": "([^"]+)"/.exec(ToolResult.text(env!))?.[1]
        assert.isDefined(artifact)
        const [page] = yield* runtime.runTurn([
          call("3", ArtifactStore.readToolName, { id: artifact, offset: 0, length: 5_000 })
        ])
        assert.include(ToolResult.text(page!), "GITHUB_TOKEN")
        assert.include(ToolResult.text(page!), "[REDACTED:github-token]")
        assert.notInclude(ToolResult.text(page!), token)
      }))

    it.effect("a long operation that reports progress outlives an idle limit shorter than the run", () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const progress = yield* Ref.make(Chunk.empty<string>())
        const onEvent = (event: ToolRuntime.Event) =>
          event._tag === "Progress" ? Ref.update(progress, Chunk.append(event.message ?? "")) : Effect.void
        const [result] = yield* runtime.runTurn([
          // 4 s in all, a progress notification every 0.5 s; the idle limit is 2.5 s.
          call("1", "mcp__everything__trigger-long-running-operation", { duration: 4, steps: 8 })
        ], { onEvent })
        assert.isFalse(result!.isError, ToolResult.text(result!))
        assert.include(ToolResult.text(result!), "Long running operation completed")
        assert.isAtLeast(result!.meta.durationMillis, 3_900, "longer than the idle limit")
        assert.deepStrictEqual(Chunk.toReadonlyArray(yield* Ref.get(progress)).slice(0, 2), ["1 of 8", "2 of 8"])
      }))

    it.effect("the same operation without progress is stopped by the idle limit", () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        // One step of 6 s: no progress before the 2.5 s idle limit, which stops it (its end would be a success).
        const [result] = yield* runtime.runTurn([
          call("1", "mcp__everything__trigger-long-running-operation", { duration: 6, steps: 1 })
        ])
        assert.strictEqual(result!.error?.code, "idle_timeout", ToolResult.text(result!))
        assert.isAtLeast(result!.meta.durationMillis, 2_450, "not before the idle limit")
      }))

    it.effect("the total limit stops a call that keeps reporting progress; the server keeps answering", () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const capped = yield* server("capped")
        const before = yield* capped.status
        const progress = yield* Ref.make(0)
        const [result] = yield* runtime.runTurn([
          // 10 s with progress every 0.5 s: the idle limit never fires, the 4 s total limit does (its end
          // would be a success, the idle limit an idle timeout).
          call("1", "mcp__capped__trigger-long-running-operation", { duration: 10, steps: 20 })
        ], { onEvent: (event) => event._tag === "Progress" ? Ref.update(progress, (n) => n + 1) : Effect.void })
        assert.strictEqual(result!.error?.code, "timeout", ToolResult.text(result!))
        assert.isTrue(result!.error?.outcomeUnknown, "an untrusted server's tool is a write")
        assert.isAtLeast(result!.meta.durationMillis, 3_950, "not before the total limit")
        assert.isAtLeast(yield* Ref.get(progress), 1, "progress reached the runtime")
        // The request was cancelled, not the server: it answers the next call
        // (after a ping) without being restarted.
        const [echo] = yield* runtime.runTurn([call("2", "mcp__capped__echo", { message: "still here" })])
        assert.include(ToolResult.text(echo!), "Echo: still here")
        const after = yield* capped.status
        assert.strictEqual(after.starts, before.starts)
        assert.strictEqual(after.pid, before.pid)
      }))

    it.effect("an image comes back as an image block", () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const [result] = yield* runtime.runTurn([call("1", "mcp__everything__get-tiny-image", {})])
        assert.isFalse(result!.isError, ToolResult.text(result!))
        const image = result!.content.find((block) => block._tag === "image")
        assert.strictEqual(image?._tag === "image" ? image.mediaType : undefined, "image/png")
      }))
  })
})

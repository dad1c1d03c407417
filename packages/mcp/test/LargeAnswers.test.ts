/**
 * A server's answer of any size never ends the agent's process. The SDK's
 * reader throws on a line over 10 MiB, and thrown from the stream's `data`
 * listener that ended the whole process; our transport reads lines up to
 * its bound (64 MiB by default), and skips a longer one as it streams in,
 * failing the request it answered at once, with an error that says why.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as McpClient from "../src/McpClient.js"
import * as McpConfig from "../src/McpConfig.js"
import * as McpStdio from "../src/McpStdio.js"
import * as McpTools from "../src/McpTools.js"
import * as Servers from "./fixtures/Servers.js"

/** The runtime with the big-answer server's tools, its entry given `extra`. */
const runtimeWith = (extra: Partial<McpConfig.StdioServer>) =>
  McpTools.layerRuntime([]).pipe(
    Layer.provide(McpClient.layer(McpConfig.make({
      big: Servers.stdio(Servers.bigAnswerServer, [], { trusted: true, timeout: 60_000, ...extra })
    })))
  )

afterAll(async () => {
  assert.deepStrictEqual(await Servers.survivors(), [])
})

describe("answers larger than the SDK reads", () => {
  it.live(
    "a 12 MB answer reaches the runtime, which shows the model its bounded preview",
    () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const result = yield* runtime.runCall({ id: "c1", name: "mcp__big__big", input: { bytes: 12_000_000 } })
        assert.isFalse(result.isError)
        assert.isDefined(result.meta.truncation)
        assert.strictEqual(result.meta.truncation!.originalLength, 12_000_000)
        const after = yield* runtime.runCall({ id: "c2", name: "mcp__big__echo", input: {} })
        assert.isFalse(after.isError)
      }).pipe(Effect.provide(runtimeWith({}))),
    120_000
  )

  it.live(
    "a bound from the configuration: the call over it is a failure that says why, and the next call works",
    () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const started = performance.now()
        const over = yield* runtime.runCall({ id: "c1", name: "mcp__big__big", input: { bytes: 2_000_000 } })
        assert.isTrue(over.isError)
        assert.strictEqual(over.error?.code, "tool_failed")
        assert.include(ToolResult.text(over), "larger than this client takes (1000000 bytes)")
        assert.isBelow(performance.now() - started, 30_000)
        const after = yield* runtime.runCall({ id: "c2", name: "mcp__big__echo", input: {} })
        assert.isFalse(after.isError)
      }).pipe(Effect.provide(runtimeWith({ maxMessageBytes: 1_000_000 }))),
    120_000
  )

  it.live(
    "an answer over the transport's bound fails its request at once, and the connection goes on",
    () =>
      Effect.acquireUseRelease(
        Effect.promise(async () => {
          const transport = new McpStdio.McpStdioTransport({
            command: process.execPath,
            args: [Servers.bigAnswerServer],
            maxMessageBytes: 1_000_000
          })
          const client = new Client({ name: "large-answers", version: "1.0.0" })
          await client.connect(transport, { timeout: 60_000 })
          Servers.pids.add(transport.pid!)
          return client
        }),
        (client) =>
          Effect.promise(async () => {
            const started = performance.now()
            const failed = await client.callTool({ name: "big", arguments: { bytes: 2_000_000 } }).then(
              () => undefined,
              (error: unknown) => String(error)
            )
            assert.include(failed, "larger than this client takes (1000000 bytes)")
            // Failed by the skipped answer, not by the SDK's 60 s request timeout.
            assert.isBelow(performance.now() - started, 30_000)
            const fits = await client.callTool({ name: "big", arguments: { bytes: 900_000 } })
            assert.strictEqual((fits.content as ReadonlyArray<{ readonly text: string }>)[0]!.text.length, 900_000)
          }),
        (client) => Effect.promise(() => client.close())
      ),
    120_000
  )
})

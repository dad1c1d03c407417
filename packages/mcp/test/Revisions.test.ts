/**
 * Both MCP revisions, negotiated per server: 2026-07-28 with a server that
 * offers it to `server/discover`, 2025-11-25 with one that does not; and the
 * revision's one dangerous rule, that a request whose response stream broke
 * be sent again, kept away from anything that writes: a write whose answer
 * was lost runs once and its result says the outcome is unknown, a
 * read-only call is sent again once and answers.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import * as McpClient from "../src/McpClient.js"
import * as McpConfig from "../src/McpConfig.js"
import * as McpTools from "../src/McpTools.js"
import * as ModernServer from "./fixtures/ModernServer.js"
import * as Servers from "./fixtures/Servers.js"

const withModern = <A, E>(
  use: (server: ModernServer.Modern) => Effect.Effect<A, E>,
  options?: { readonly legacy?: "reject" }
) =>
  Effect.acquireUseRelease(
    Effect.promise(() => ModernServer.start(options)),
    use,
    (server) => Effect.promise(() => server.close())
  )

const runtimeOf = (servers: McpConfig.Config["mcpServers"]) =>
  McpTools.layerRuntime([]).pipe(Layer.provideMerge(McpClient.layer(McpConfig.make(servers))))

/** The start's error; a start that succeeds fails the test plainly (the server it returns is no error to print). */
const startError = <E>(effect: Effect.Effect<unknown, E>) =>
  Effect.flatMap(
    Effect.either(effect),
    (result) => Either.isLeft(result) ? Effect.succeed(result.left) : Effect.die(new Error("the server started"))
  )

const statusOf = Effect.flatMap(McpClient.McpClient, (client) => client.servers[0]!.status)

describe("MCP revisions", { timeout: 60_000 }, () => {
  it.live("2026-07-28 with a server that offers it: every request after the probe says so", () =>
    withModern((server) =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const [result] = yield* runtime.runTurn([{ id: "1", name: "mcp__modern__append", input: { line: "a" } }])
        assert.include(ToolResult.text(result!), "appended a")
        assert.strictEqual((yield* statusOf).protocol, "2026-07-28")
        assert.isNotEmpty(server.versions)
        assert.isTrue(server.versions.every((version) => version === "2026-07-28"), server.versions.join())
      }).pipe(Effect.provide(runtimeOf({ modern: { url: server.url } })))
    ))

  it.live("2025-11-25 with a server that does not (the reference server, on stdio), and when the entry says so", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* statusOf).protocol, "2025-11-25")
      const runtime = yield* ToolRuntime.ToolRuntime
      const [echo] = yield* runtime.runTurn([{ id: "1", name: "mcp__everything__echo", input: { message: "hi" } }])
      assert.match(ToolResult.text(echo!), /hi/)
    }).pipe(
      Effect.provide(runtimeOf({ everything: Servers.stdio(Servers.everythingBin, ["stdio"]) })),
      Effect.zipRight(withModern((server) =>
        Effect.gen(function*() {
          assert.strictEqual((yield* statusOf).protocol, "2025-11-25")
          const runtime = yield* ToolRuntime.ToolRuntime
          const [result] = yield* runtime.runTurn([{ id: "1", name: "mcp__modern__append", input: { line: "b" } }])
          assert.include(ToolResult.text(result!), "appended b")
          assert.notInclude(server.versions, "2026-07-28")
        }).pipe(Effect.provide(runtimeOf({ modern: { url: server.url, protocol: "2025-11-25" } })))
      ))
    ))

  it.live("a stdio server that exits on the revision probe is started again and spoken to in 2025-11-25", () =>
    Effect.gen(function*() {
      const { layer: collect, lines } = Servers.logLines()
      const status = yield* Effect.gen(function*() {
        const server = yield* McpClient.connect(
          "strict",
          Servers.stdio(Servers.strictLegacyServer, [Servers.everythingBin])
        )
        const echoed = yield* server.call("echo", { message: "still here" })
        assert.match(JSON.stringify(echoed.content), /still here/)
        return yield* server.status
      }).pipe(Effect.scoped, Effect.provide(collect))
      assert.strictEqual(status.protocol, "2025-11-25")
      assert.isTrue(lines.some((line) => line.includes("starting it again with 2025-11-25")), lines.join("\n"))
    }))

  it.live("an entry pinned to 2026-07-28 does not start with a server that lacks it, and says why", () =>
    Effect.gen(function*() {
      const error = yield* startError(
        McpClient.connect("old", { ...Servers.stdio(Servers.everythingBin, ["stdio"]), protocol: "2026-07-28" }).pipe(
          Effect.scoped
        )
      )
      assert.strictEqual(error.reason, "start_failed")
      assert.match(error.message, /2026-07-28/)
    }))

  it.live("a 2026-07-28-only server is not spoken to in 2025-11-25", () =>
    withModern(
      (server) =>
        Effect.gen(function*() {
          const error = yield* startError(
            McpClient.connect("modern", { url: server.url, protocol: "2025-11-25" }).pipe(Effect.scoped)
          )
          assert.strictEqual(error.reason, "start_failed")
        }),
      { legacy: "reject" }
    ))

  for (const loss of ["stream", "connection"] as const) {
    it.live(`a write whose answer is lost (${loss}) ran once, is not sent again, and its result says so`, () =>
      withModern((server) =>
        Effect.gen(function*() {
          const runtime = yield* ToolRuntime.ToolRuntime
          server.lose.set("append", loss)
          const [lost, after] = yield* runtime.runTurn([
            { id: "1", name: "mcp__modern__append", input: { line: "once" } },
            { id: "2", name: "mcp__modern__count", input: {} }
          ]).pipe(Servers.within(20_000, "the turn with a lost answer"))
          assert.isTrue(lost!.isError)
          assert.match(ToolResult.text(lost!), /outcome of this call .* is unknown/)
          assert.match(ToolResult.text(lost!), /not sent again/)
          assert.strictEqual(server.runs.get("append"), 1)
          // The server is still there for the next call.
          assert.include(ToolResult.text(after!), "1 lines")
        }).pipe(Effect.provide(runtimeOf({ modern: { url: server.url } })))
      ))

    it.live(`a read-only call whose answer is lost (${loss}) is sent again once, and answers`, () =>
      withModern((server) =>
        Effect.gen(function*() {
          const runtime = yield* ToolRuntime.ToolRuntime
          server.lose.set("count", loss)
          const [count] = yield* runtime.runTurn([{ id: "1", name: "mcp__modern__count", input: {} }]).pipe(
            Servers.within(20_000, "the read with a lost answer")
          )
          assert.isFalse(count!.isError, ToolResult.text(count!))
          assert.include(ToolResult.text(count!), "0 lines")
          assert.strictEqual(server.runs.get("count"), 2)
        }).pipe(Effect.provide(runtimeOf({ modern: { url: server.url, trusted: true } })))
      ))
  }

  it.live(
    "law, over 40 random turns with answers lost at random: one result per call in order, every write ran exactly once, a lost read twice",
    () =>
      withModern((server) =>
        Effect.gen(function*() {
          const runtime = yield* ToolRuntime.ToolRuntime
          const losses = [undefined, "stream", "connection"] as const
          let appends = 0
          let counts = 0
          let lostCounts = 0
          for (let turn = 0; turn < 40; turn++) {
            const size = yield* Random.nextIntBetween(1, 4)
            const calls: Array<{ readonly id: string; readonly name: string; readonly input: unknown }> = []
            for (let index = 0; index < size; index++) {
              const write = yield* Random.nextBoolean
              calls.push(
                write
                  ? { id: `${turn}.${index}`, name: "mcp__modern__append", input: { line: `${turn}.${index}` } }
                  : { id: `${turn}.${index}`, name: "mcp__modern__count", input: {} }
              )
            }
            // The next call to each tool loses its answer, or not.
            const lostAppend = losses[yield* Random.nextIntBetween(0, 3)]
            const lostCount = losses[yield* Random.nextIntBetween(0, 3)]
            if (lostAppend !== undefined) server.lose.set("append", lostAppend)
            if (lostCount !== undefined) server.lose.set("count", lostCount)
            const results = yield* runtime.runTurn(calls).pipe(Servers.within(20_000, `turn ${turn}`))
            assert.deepStrictEqual(results.map((result) => result.callId), calls.map((call) => call.id))
            let appendLost = lostAppend !== undefined
            let countLost = lostCount !== undefined
            for (const [index, call] of calls.entries()) {
              const text = ToolResult.text(results[index]!)
              if (call.name === "mcp__modern__append") {
                appends++
                if (appendLost) assert.match(text, /is unknown/)
                else assert.include(text, `appended ${call.id}`)
                appendLost = false
              } else {
                counts++
                if (countLost) lostCounts++
                countLost = false
                assert.isFalse(results[index]!.isError, text)
              }
            }
            // A loss armed for a tool the turn did not call waits for the next turn's call: disarm it.
            server.lose.clear()
          }
          assert.strictEqual(server.runs.get("append") ?? 0, appends)
          assert.strictEqual(server.runs.get("count") ?? 0, counts + lostCounts)
          assert.isAbove(lostCounts, 0)
          assert.isAbove(appends, 0)
        }).pipe(
          Effect.withRandom(Random.make("revisions-law")),
          Effect.provide(runtimeOf({ modern: { url: server.url, trusted: true } }))
        )
      ),
    120_000
  )

  it.live("an untrusted server's read-only claim does not make a lost call safe to send again", () =>
    withModern((server) =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        server.lose.set("count", "stream")
        const [count] = yield* runtime.runTurn([{ id: "1", name: "mcp__modern__count", input: {} }])
        assert.match(ToolResult.text(count!), /is unknown/)
        assert.strictEqual(server.runs.get("count"), 1)
      }).pipe(Effect.provide(runtimeOf({ modern: { url: server.url } })))
    ))
})

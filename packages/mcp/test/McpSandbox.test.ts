/**
 * Stdio servers inside the runtime's sandbox (`@tool-runtime/node`'s
 * bubblewrap backend), with a policy per server: what a confined server
 * manages to write shows its confinement, measured against the same server
 * unconfined; an entry that asks for a sandbox on a client without one is
 * never started; and a confined server that will not stop leaves nothing
 * alive when the runtime closes.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Sandbox from "@tool-runtime/node/Sandbox"
import * as Effect from "effect/Effect"
import * as Esbuild from "esbuild"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as McpClient from "../src/McpClient.js"
import type * as McpConfig from "../src/McpConfig.js"
import * as Servers from "./fixtures/Servers.js"

// Not under /tmp: the sandbox gives a server a private /tmp of its own, where
// nothing of the host's /tmp is seen. For the same reason the servers run
// from bundles here, not from the checkout, which may itself lie under /tmp.
const scratch = NodeFs.mkdtempSync("/var/tmp/mcp-sandbox-test-")
const workspace = NodePath.join(scratch, "workspace")
NodeFs.mkdirSync(workspace)
const bundled = (file: string) => {
  const outfile = NodePath.join(scratch, NodePath.basename(file))
  Esbuild.buildSync({ entryPoints: [file], bundle: true, platform: "node", format: "esm", outfile, logLevel: "silent" })
  return outfile
}
const writingServer = bundled(Servers.writingServer)
const forkingServer = bundled(Servers.forkingServer)
/** An entry starting a bundled server, from a folder the sandbox shows. */
const entry = (file: string, args: ReadonlyArray<string> = [], extra: Partial<McpConfig.StdioServer> = {}) =>
  Servers.stdio(file, args, { cwd: scratch, ...extra })

afterAll(() => {
  for (const pid of Servers.withMarker(`mcp-sandbox-test-${process.pid}`)) Servers.kill(pid)
  NodeFs.rmSync(scratch, { recursive: true, force: true })
})

/** One server, connected with (or without) the sandbox, for the length of `use`. */
const withServer = <A, E>(
  entry: McpConfig.StdioServer,
  confined: boolean,
  use: (server: McpClient.Server) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    const confine = confined ? (yield* Sandbox.Sandbox).prepare : undefined
    const server = yield* McpClient.connect("files", entry, { confine, startupTimeout: "60 seconds" })
    return yield* use(server)
  }).pipe(Effect.scoped, Effect.provide(Sandbox.layer({ workspace, fallback: "refuse" })))

const write = (server: McpClient.Server, path: string) =>
  Effect.map(server.call("write", { path }), (result) => ({
    isError: result.isError === true,
    text: result.content.map((block) => block.type === "text" ? block.text : "").join("")
  }))

describe("McpClient with a sandbox", { timeout: 120_000 }, () => {
  it.live("read-only: the server cannot write outside its private /tmp; unconfined, the same write lands", () =>
    Effect.gen(function*() {
      const target = NodePath.join(scratch, "read-only.txt")
      const confined = yield* withServer(
        entry(writingServer, [], { sandbox: "read-only" }),
        true,
        (server) => Effect.zip(write(server, target), server.status)
      )
      assert.deepStrictEqual(confined[0], { isError: true, text: "EROFS" })
      assert.isFalse(NodeFs.existsSync(target))
      assert.match(confined[1].confinement!, /^sandbox: read-only \(bubblewrap\)/)
      const free = yield* withServer(
        entry(writingServer),
        false,
        (server) => Effect.zip(write(server, target), server.status)
      )
      assert.deepStrictEqual(free[0], { isError: false, text: "wrote" })
      assert.strictEqual(free[1].confinement, "unconfined")
      assert.isTrue(NodeFs.existsSync(target))
    }))

  it.live("no policy in the entry: the sandbox's own (workspace-write) applies, the workspace writable and nothing else", () =>
    withServer(entry(writingServer), true, (server) =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* write(server, NodePath.join(workspace, "inside.txt")), {
          isError: false,
          text: "wrote"
        })
        assert.deepStrictEqual(yield* write(server, NodePath.join(scratch, "beside.txt")), {
          isError: true,
          text: "EROFS"
        })
        assert.isTrue(NodeFs.existsSync(NodePath.join(workspace, "inside.txt")))
        assert.isFalse(NodeFs.existsSync(NodePath.join(scratch, "beside.txt")))
        assert.match((yield* server.status).confinement!, /^sandbox: workspace-write \(bubblewrap\)/)
      })))

  it.live("a sandbox that falls back to running unconfined says so at every start, and status shows it", () =>
    Effect.gen(function*() {
      const { layer: collect, lines } = Servers.logLines()
      const status = yield* Effect.gen(function*() {
        const sandbox = yield* Sandbox.Sandbox
        const server = yield* McpClient.connect(
          "files",
          entry(writingServer, [], { sandbox: "read-only" }),
          {
            confine: sandbox.prepare
          }
        )
        return yield* server.status
      }).pipe(
        Effect.scoped,
        Effect.provide(Sandbox.layer({ workspace, fallback: "unconfined", bwrap: "/nonexistent/bwrap" })),
        Effect.provide(collect)
      )
      assert.match(status.confinement!, /^sandbox: none/)
      assert.isTrue(
        lines.some((line) => line.includes("level=WARN") && line.includes("MCP server runs WITHOUT a sandbox")),
        lines.join("\n")
      )
    }))

  it.live("an entry that asks for a sandbox on a client without one is not started at all", () =>
    Effect.gen(function*() {
      const marker = `mcp-sandbox-test-${process.pid}-unstarted`
      const error = yield* Effect.flip(
        McpClient.connect("files", entry(forkingServer, [marker], { sandbox: "workspace-write" }))
          .pipe(Effect.scoped)
      )
      assert.strictEqual(error.reason, "start_failed")
      assert.match(error.message, /asks for the sandbox \(workspace-write\) and this client has none/)
      assert.deepStrictEqual(Servers.withMarker(marker), [])
    }))

  it.live("a confined server that ignores SIGTERM, and its setsid child, are gone when the runtime closes", () =>
    Effect.gen(function*() {
      const marker = `mcp-sandbox-test-${process.pid}-stubborn`
      yield* withServer(entry(forkingServer, [marker]), true, (server) =>
        Effect.gen(function*() {
          assert.strictEqual(yield* Effect.map(server.call("ping", {}), (result) => result.isError === true), false)
          yield* Servers.waitUntil(() => Servers.withMarker(marker).length >= 3, "the server and its two children run")
        }))
      yield* Servers.waitUntil(() => Servers.withMarker(marker).length === 0, "nothing with the marker is left", 20_000)
        .pipe(
          Effect.catchAll(() => Effect.fail(new Error(`still alive: ${Servers.withMarker(marker).join(", ")}`)))
        )
    }))
})

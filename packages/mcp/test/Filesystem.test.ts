/**
 * The reference filesystem server, confined to a temporary directory and
 * trusted: its read tools become read-only (they run together), its writes
 * keep their risk, and what it refuses comes back as an error result.
 */
import { afterAll, assert, describe, layer } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as McpClient from "../src/McpClient.js"
import * as McpConfig from "../src/McpConfig.js"
import * as McpTools from "../src/McpTools.js"
import * as Servers from "./fixtures/Servers.js"

const root = Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-fs-")))
Fs.writeFileSync(Path.join(root, "notes.txt"), "line one\nline two\n")
Fs.mkdirSync(Path.join(root, "docs"))
Fs.writeFileSync(Path.join(root, "docs", "readme.md"), "# Docs\n")

const config = McpConfig.make({
  files: Servers.stdio(Servers.filesystemBin, [root], { trusted: true, timeout: 10_000 })
})

const Live = McpTools.layerRuntime([]).pipe(Layer.provideMerge(McpClient.layer(config)))

const call = (id: string, name: string, input: unknown) => ({ id, name, input })

afterAll(async () => {
  assert.deepStrictEqual(await Servers.survivors(), [])
  Fs.rmSync(root, { recursive: true, force: true })
})

describe("server-filesystem", () => {
  layer(Live, { excludeTestServices: true, timeout: "30 seconds" })((it) => {
    it.effect("trusted annotations: reads are read-only, writes keep their risk", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const status = yield* client.servers[0]!.status
        Servers.pids.add(status.pid!)
        const runtime = yield* ToolRuntime.ToolRuntime
        const tool = (name: string) => runtime.registry.get(`mcp__files__${name}`)!.tool
        assert.isTrue(tool("read_text_file").readOnly)
        assert.isTrue(tool("list_directory").readOnly)
        assert.strictEqual(tool("write_file").risk, "high")
        // destructiveHint: false
        assert.strictEqual(tool("create_directory").risk, "medium")
        assert.isFalse(tool("create_directory").readOnly)
      }))

    it.effect("lists and reads in one turn: the reads run together, results in call order", () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const calls = [
          call("1", "mcp__files__list_directory", { path: root }),
          call("2", "mcp__files__read_text_file", { path: Path.join(root, "notes.txt") }),
          call("3", "mcp__files__read_text_file", { path: Path.join(root, "docs", "readme.md"), head: 1 })
        ]
        assert.deepStrictEqual(runtime.plan(calls).map((batch) => batch.indices), [[0, 1, 2]])
        const [list, notes, readme] = yield* runtime.runTurn(calls)
        assert.include(ToolResult.text(list!), "[FILE] notes.txt")
        assert.include(ToolResult.text(list!), "[DIR] docs")
        assert.include(ToolResult.text(notes!), "line one\nline two")
        assert.include(ToolResult.text(readme!), "# Docs")
        assert.deepStrictEqual([list, notes, readme].map((r) => r!.isError), [false, false, false])
      }))

    it.effect("a path outside the allowed directory is refused by the server: an error result", () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const [result] = yield* runtime.runTurn([call("1", "mcp__files__read_text_file", { path: "/etc/passwd" })])
        assert.isTrue(result!.isError)
        assert.strictEqual(result!.error?.code, "tool_failed")
        assert.match(ToolResult.text(result!), /access denied|outside allowed/i)
      }))

    it.effect("missing arguments are caught against the server's schema before the call", () =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const [result] = yield* runtime.runTurn([call("1", "mcp__files__read_text_file", { head: "three" })])
        assert.strictEqual(result!.error?.code, "invalid_arguments")
        const text = ToolResult.text(result!)
        assert.include(text, "must have required property 'path'")
        assert.include(text, "/head must be number")
      }))
  })
})

// The root README's coding-agent example (keep the two in step), run by the consumer test with plain node.
// On Linux it needs bubblewrap; without it every command is refused, saying what to install.
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { ToolResult, ToolRuntime } from "@tool-runtime/core"
import { NodeTools } from "@tool-runtime/node"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "workspace-"))

const program = Effect.gen(function*() {
  const runtime = yield* ToolRuntime.ToolRuntime
  const results = yield* runtime.runTurn([
    { id: "call_1", name: "write_file", input: { path: "notes.txt", content: "hello\n" } },
    { id: "call_2", name: "bash", input: { command: "cat notes.txt && echo pwned > ~/pwned.txt" } },
    { id: "call_3", name: "bash", input: { command: "printenv ANTHROPIC_API_KEY || echo withheld" } }
  ])
  for (const result of results) {
    console.log(JSON.stringify({ id: result.callId, isError: result.isError, text: ToolResult.text(result) }))
  }
})

// Files, the shell in the OS sandbox, and the rules of the user's and the project's settings files.
const tools = NodeTools.layer({ root, settings: NodeTools.settingsFiles(root) })

program.pipe(Effect.provide(tools), Effect.provide(NodeFileSystem.layer), Effect.runPromise)

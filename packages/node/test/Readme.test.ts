/**
 * The package README's example, composed as written (keep the two in
 * step): file tools and the shell over one workspace, the runtime's layer
 * provided around the whole program.
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ToolResult, ToolRuntime } from "@tool-runtime/core"
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { FileTools, ProcessRunner, Sandbox, ShellTool, Workspace } from "../src/index.js"

describe("README example", () => {
  it.live("file tools and the shell over one workspace, commands in the sandbox", () => {
    const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "readme-")))
    const runtime = Layer.unwrapEffect(
      Effect.map(
        Sandbox.Sandbox,
        (sandbox) =>
          ToolRuntime.layerDefault([...FileTools.all(), ShellTool.make({ root, sandbox })]).pipe(
            Layer.provide([Workspace.layer(root), ProcessRunner.layer, NodeContext.layer])
          )
      )
    ).pipe(Layer.provideMerge(Sandbox.layer({ workspace: root })))
    return Effect.gen(function*() {
      const tools = yield* ToolRuntime.ToolRuntime
      const [write, run] = yield* tools.runTurn([
        { id: "1", name: "write_file", input: { path: "hello.txt", content: "hi there\n" } },
        { id: "2", name: "bash", input: { command: "cat hello.txt" } }
      ])
      assert.isFalse(write!.isError, ToolResult.text(write!))
      assert.include(ToolResult.text(run!), "hi there")
      assert.strictEqual(run!.meta.sandbox, "sandbox: workspace-write (bubblewrap), network off")
    }).pipe(
      Effect.provide(runtime),
      Effect.ensuring(Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true })))
    )
  })
})

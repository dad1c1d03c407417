/**
 * The package README's examples, composed as written (keep them in step):
 * the one-line runtime, and the same parts by hand; each layer provided
 * around the whole program.
 */
import { NodeContext, NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ToolResult, ToolRuntime } from "@tool-runtime/core"
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { FileTools, NodeTools, ProcessRunner, Sandbox, ShellTool, Workspace } from "../src/index.js"

const workspace = () => NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "readme-")))

const writeThenRead = Effect.gen(function*() {
  const tools = yield* ToolRuntime.ToolRuntime
  const [write, run] = yield* tools.runTurn([
    { id: "1", name: "write_file", input: { path: "hello.txt", content: "hi there\n" } },
    { id: "2", name: "bash", input: { command: "cat hello.txt" } }
  ])
  assert.isFalse(write!.isError, ToolResult.text(write!))
  assert.include(ToolResult.text(run!), "hi there")
  assert.include(run!.meta.sandbox ?? "", "sandbox: workspace-write (bubblewrap), network off")
})

describe("README example", () => {
  it.live("the one line: file tools and the shell over one workspace, commands in the sandbox", () => {
    const root = workspace()
    const runtime = NodeTools.layer({ root, settings: NodeTools.settingsFiles(root, NodePath.join(root, "no-home")) })
      .pipe(Layer.provide(NodeFileSystem.layer))
    return writeThenRead.pipe(
      Effect.provide(runtime),
      Effect.ensuring(Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true })))
    )
  })

  it.live("by hand: the same parts, composed", () => {
    const root = workspace()
    const byHand = Layer.unwrapEffect(
      Effect.map(
        Sandbox.Sandbox,
        (sandbox) =>
          ToolRuntime.layerDefault([...FileTools.all(), ShellTool.make({ root, sandbox })]).pipe(
            Layer.provide([Workspace.layer(root), ProcessRunner.layer, NodeContext.layer])
          )
      )
    ).pipe(Layer.provideMerge(Sandbox.layer({ workspace: root })))
    return writeThenRead.pipe(
      Effect.provide(byHand),
      Effect.ensuring(Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true })))
    )
  })
})

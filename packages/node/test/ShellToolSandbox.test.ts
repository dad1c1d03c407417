import { afterAll, assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as ProcessRunner from "../src/ProcessRunner.js"
import * as Sandbox from "../src/Sandbox.js"
import * as ShellTool from "../src/ShellTool.js"
import { within } from "./Processes.js"

/** A result's text without the count of withheld variables, which depends on the environment the tests run in. */
const stable = (text: string) => text.replace(/, \d+ environment variables? withheld(?=\n|$)/g, "")

// The shell tool over a sandboxed runner, through the whole core pipeline,
// with real bubblewrap and real processes.

const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "shell-sandbox-")))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))

const fixture = () => {
  const root = NodeFs.mkdtempSync(NodePath.join(scratch, "t-"))
  const workspace = NodePath.join(root, "ws")
  const outside = NodePath.join(root, "outside")
  NodeFs.mkdirSync(workspace)
  NodeFs.mkdirSync(outside)
  return { workspace, outside, home: NodePath.join(root, "home") }
}

/** A runtime whose shell tool and runner share one sandbox, alive for the test's scope. */
const runtimeWith = (
  config: Sandbox.Config,
  options: Omit<ShellTool.Options, "root" | "sandbox">,
  policy: Layer.Layer<Policy.Policy> = Policy.layerAllowAll
) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(Sandbox.layer(config))
    const sandbox = Context.get(context, Sandbox.Sandbox)
    const tool = ShellTool.make({ root: config.workspace, sandbox, ...options })
    const store = ArtifactStore.layerMemory()
    const built = yield* Layer.build(
      ToolRuntime.layer().pipe(
        Layer.provide([Registry.layer([tool]), store, Redactor.layerDefault, policy]),
        Layer.provide(ProcessRunner.layer),
        Layer.provide(Layer.succeedContext(context))
      )
    )
    const runtime = Context.get(built, ToolRuntime.ToolRuntime)
    // Bounded: the commands here take a second or two in a sandbox on a loaded machine; one that hangs
    // fails in 20 s, not at the test's timeout.
    return {
      runtime: {
        runTurn: (...args: Parameters<typeof runtime.runTurn>) =>
          runtime.runTurn(...args).pipe(within(20_000, "the sandboxed turn ended")),
        runCall: (...args: Parameters<typeof runtime.runCall>) =>
          runtime.runCall(...args).pipe(within(20_000, "the sandboxed call ended"))
      },
      tool
    }
  })

describe("ShellTool in a sandbox", () => {
  it.scopedLive("each result shows the policy in force, in its text and in meta.sandbox", () =>
    Effect.gen(function*() {
      const { home, outside, workspace } = fixture()
      const { runtime } = yield* runtimeWith({ workspace, home }, {})
      const [inside, escape] = yield* runtime.runTurn([
        { id: "a", name: "bash", input: { command: "echo hi > note.txt && cat note.txt" } },
        { id: "b", name: "bash", input: { command: `echo x > ${outside}/x.txt` } }
      ])
      const summary = "sandbox: workspace-write (bubblewrap), network off"
      assert.strictEqual(stable(ToolResult.text(inside!)), `exit code 0\n${summary}\n[stdout]\nhi`)
      assert.strictEqual(inside!.meta.sandbox, summary)
      assert.isTrue(escape!.isError)
      // The outside directory is under the host's /tmp, which the sandbox replaces with its own.
      assert.match(ToolResult.text(escape!), /Read-only file system|No such file or directory/)
      assert.strictEqual(escape!.meta.sandbox, summary)
      assert.isFalse(NodeFs.existsSync(NodePath.join(outside, "x.txt")))
    }))

  it.scopedLive("the model is told what the sandbox allows; the escape hatch is offered only when allowed", () =>
    Effect.gen(function*() {
      const { home, workspace } = fixture()
      const { tool } = yield* runtimeWith({ workspace, home }, {})
      assert.include(tool.description, "Commands run in a sandbox (workspace-write)")
      assert.include(tool.description, "there is no network")
      assert.notProperty((tool.inputSchema as { properties: object }).properties, "dangerously_disable_sandbox")
      assert.deepStrictEqual(tool.subject({ command: "ls" }), { _tag: "Command", command: "ls", sandbox: "confined" })
      const open = yield* runtimeWith({ workspace, home }, { allowUnsandboxed: true })
      assert.property((open.tool.inputSchema as { properties: object }).properties, "dangerously_disable_sandbox")
      assert.deepStrictEqual(
        open.tool.subject({ command: "ls", dangerously_disable_sandbox: true }),
        { _tag: "Command", command: "ls", sandbox: "unconfined" }
      )
    }))

  it.scopedLive("dangerously_disable_sandbox runs with full access, and the result says so", () =>
    Effect.gen(function*() {
      const { home, outside, workspace } = fixture()
      const { runtime } = yield* runtimeWith({ workspace, home }, { allowUnsandboxed: true })
      const result = yield* runtime.runCall({
        id: "a",
        name: "bash",
        input: { command: `echo x > ${outside}/x.txt && echo wrote`, dangerously_disable_sandbox: true }
      })
      assert.isFalse(result.isError)
      assert.strictEqual(result.meta.sandbox, "sandbox: none (danger-full-access)")
      assert.include(ToolResult.text(result), "sandbox: none (danger-full-access)")
      assert.isTrue(NodeFs.existsSync(NodePath.join(outside, "x.txt")))
    }))

  it.scopedLive("without bubblewrap, fallback refuse: an error result that says what to install", () =>
    Effect.gen(function*() {
      const { home, outside, workspace } = fixture()
      const { runtime, tool } = yield* runtimeWith({ workspace, home, bwrap: "/nonexistent/bwrap" }, {})
      const result = yield* runtime.runCall({ id: "a", name: "bash", input: { command: `touch ${outside}/ran` } })
      assert.isTrue(result.isError)
      assert.include(ToolResult.text(result), "apt-get install bubblewrap")
      assert.isFalse(NodeFs.existsSync(NodePath.join(outside, "ran")))
      // Nothing confines it, so the subject does not claim so.
      assert.isUndefined((tool.subject({ command: "ls" }) as { sandbox?: string }).sandbox)
    }))

  it.scopedLive("without bubblewrap, fallback unconfined: every result says it ran unconfined", () =>
    Effect.gen(function*() {
      const { home, workspace } = fixture()
      const { runtime } = yield* runtimeWith(
        { workspace, home, bwrap: "/nonexistent/bwrap", fallback: "unconfined" },
        {}
      )
      const result = yield* runtime.runCall({ id: "a", name: "bash", input: { command: "echo ran" } })
      assert.isFalse(result.isError)
      assert.match(result.meta.sandbox ?? "", /^sandbox: none \(unconfined fallback: bubblewrap/)
      assert.match(ToolResult.text(result), /sandbox: none \(unconfined fallback/)
    }))
})

/**
 * The `code` command: a short scripted coding-agent session against a real
 * temporary workspace, through the real file and shell tools. The "model"
 * reads a file and greps for a function at once (two reads run together),
 * runs the tests (a real `node` process, which fails), fixes the bug with an
 * exact edit, runs the tests again (they pass), and tries a path outside the
 * workspace (refused). Every command runs in the OS sandbox
 * (`workspace-write`, network off: bubblewrap on Linux); the last turn
 * tries to write outside the workspace and to reach the network, and the
 * sandbox stops both. Each result is printed exactly as the model sees it,
 * and each command's line names the sandbox policy it ran under.
 *
 * Where there is no sandbox backend (bwrap missing, macOS), the demo still
 * runs, unconfined, and says so on every command: a demo that refused to
 * start would show nothing.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import type * as ToolCall from "@tool-runtime/core/ToolCall"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as NodeTools from "@tool-runtime/node/NodeTools"
import * as Sandbox from "@tool-runtime/node/Sandbox"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Terminal from "../Terminal.js"

/** A tiny project with one bug and a test that finds it. */
const project: Record<string, string> = {
  "package.json": "{ \"name\": \"calc\", \"private\": true, \"type\": \"module\" }\n",
  "src/math.js": [
    "// Arithmetic helpers for the calculator.",
    "export const add = (a, b) => a + b",
    "export const subtract = (a, b) => a + b",
    "export const multiply = (a, b) => a * b",
    ""
  ].join("\n"),
  "test.js": [
    "import assert from \"node:assert/strict\"",
    "import { add, subtract, multiply } from \"./src/math.js\"",
    "assert.equal(add(2, 3), 5)",
    "assert.equal(multiply(2, 3), 6)",
    "assert.equal(subtract(5, 3), 2, \"subtract(5, 3) should be 2\")",
    "console.log(\"3 tests passed\")",
    ""
  ].join("\n")
}

/** The session, one model turn per entry. */
const turns: ReadonlyArray<{ readonly title: string; readonly calls: ReadonlyArray<ToolCall.Input> }> = [
  {
    title: "look around and run the tests",
    calls: [
      { id: "toolu_code_01", name: "read_file", input: { path: "src/math.js" } },
      { id: "toolu_code_02", name: "grep", input: { pattern: "subtract", path: "." } },
      { id: "toolu_code_03", name: "bash", input: { command: "node test.js", description: "Run the tests" } }
    ]
  },
  {
    title: "fix the bug and check",
    calls: [
      {
        id: "toolu_code_04",
        name: "edit_file",
        input: {
          path: "src/math.js",
          old_string: "export const subtract = (a, b) => a + b",
          new_string: "export const subtract = (a, b) => a - b"
        }
      },
      { id: "toolu_code_05", name: "bash", input: { command: "node test.js", description: "Run the tests again" } }
    ]
  },
  {
    title: "stray outside the workspace",
    calls: [
      { id: "toolu_code_06", name: "read_file", input: { path: "../../etc/passwd" } },
      { id: "toolu_code_07", name: "bash", input: { command: "ls", cwd: "/etc" } }
    ]
  },
  {
    title: "try to leave the sandbox",
    calls: [
      {
        id: "toolu_code_08",
        name: "bash",
        input: { command: "echo pwned > /usr/local/pwned.txt", description: "Write outside the workspace" }
      },
      {
        id: "toolu_code_09",
        name: "bash",
        input: {
          command:
            "node -e \"require('https').get('https://registry.npmjs.org/', () => console.log('reached the network')).on('error', (e) => { console.error('no network: ' + e.code); process.exit(1) })\"",
          description: "Reach the network"
        }
      }
    ]
  }
]

const makeWorkspace = Effect.acquireRelease(
  Effect.sync(() => {
    const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "tool-runtime-code-"))
    for (const [path, content] of Object.entries(project)) {
      NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, path)), { recursive: true })
      NodeFs.writeFileSync(NodePath.join(root, path), content)
    }
    return root
  }),
  (root) => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true }))
)

/**
 * The runtime over a workspace, in the one line a user writes: file tools,
 * the shell and its background jobs (every command confined), outputs
 * stored in a session folder. Where there is no sandbox backend the demo
 * asks for the loudly named fallback, so that it still shows something,
 * and every command's line says it ran unconfined.
 */
const runtimeLayer = (root: string) =>
  NodeTools.layer({
    root,
    sandbox: { fallback: "unconfined" },
    shell: { shell: NodeFs.existsSync("/bin/bash") ? "bash" : "/bin/sh" },
    outputDirectory: NodePath.join(root, ".session", "outputs")
  })

/** Plays the turns on the runtime, printing each result as the model sees it. */
const play = Effect.gen(function*() {
  const style = yield* Terminal.detect
  const runtime = yield* ToolRuntime.ToolRuntime
  for (const [n, turn] of turns.entries()) {
    yield* Console.log(style.bold(`Turn ${n + 1}: ${turn.title}`))
    for (const batch of runtime.plan(turn.calls)) {
      const names = batch.indices.map((i) => `#${i + 1} ${turn.calls[i]!.name}`).join(", ")
      yield* Console.log(`  ${batch.concurrent ? "together" : "alone   "}  ${names}`)
    }
    const results = yield* runtime.runTurn(turn.calls)
    for (const [i, result] of results.entries()) {
      const call = turn.calls[i]!
      const status = result.isError ? style.red(`error: ${result.error?.code}`) : style.green("ok")
      yield* Console.log(`\n  #${i + 1} ${call.name} ${style.dim(JSON.stringify(call.input))}  ${status}`)
      if (result.meta.sandbox !== undefined) yield* Console.log(`     ${style.dim(result.meta.sandbox)}`)
      yield* Console.log(style.dim("     the model sees:"))
      yield* Console.log(Terminal.indent(ToolResult.text(result), "       "))
    }
    yield* Console.log("")
  }
})

const run = Effect.scoped(Effect.gen(function*() {
  const style = yield* Terminal.detect
  const root = yield* makeWorkspace
  // The runtime lives as long as the session: its process runner kills whatever is left when it closes.
  const context = yield* Layer.build(runtimeLayer(root))
  const sandbox = Context.get(context, Sandbox.Sandbox)
  yield* Console.log(style.bold("tool-runtime code: a scripted coding-agent session in a temporary workspace"))
  yield* Console.log(style.dim(`workspace: ${root} (removed at the end)`))
  yield* Console.log(style.dim(`commands run in: ${sandbox.describe()}`))
  if (!sandbox.status.available) yield* Console.log(style.dim(`  (${sandbox.status.problem})`))
  yield* Console.log("")
  yield* Effect.provide(play, context)
}))

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("code", {}, () => run).pipe(
  Command.withDescription(
    "Runs a scripted coding-agent session (read, grep, run the tests, edit, run again) in a temporary workspace."
  )
)

import { afterAll, assert, describe, it } from "@effect/vitest"
import * as ResourceLocks from "@tool-runtime/core/ResourceLocks"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as ProcessRunner from "../src/ProcessRunner.js"
import * as Sandbox from "../src/Sandbox.js"
import * as ShellTool from "../src/ShellTool.js"
import { groupDies, pidFrom, within } from "./Processes.js"

/** A result's text without the count of withheld variables, which depends on the environment the tests run in. */
const stable = (text: string) => text.replace(/, \d+ environment variables? withheld(?=\n|$)/g, "")

// Real processes through the whole core pipeline, on a machine that may be
// loaded: a limit is checked by what ended the call, every wait is bounded
// (`within`) far above what the machine needs and far below the command's
// own end, and idle limits are ten times the gaps between outputs.

/** One directory for the whole file, removed after it. */
const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "shell-tool-")))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))

const workspace = () => {
  const root = NodeFs.mkdtempSync(NodePath.join(scratch, "ws-"))
  NodeFs.mkdirSync(NodePath.join(root, "sub"))
  NodeFs.writeFileSync(NodePath.join(root, "file.txt"), "content\n")
  NodeFs.symlinkSync("/etc", NodePath.join(root, "escape"))
  return root
}

/** The runtime, alive for the test's scope: its process runner kills what is left when the scope closes. */
const runtimeWith = (tool: ReturnType<typeof ShellTool.make>, runtimeOptions?: ToolRuntime.Options) =>
  Effect.map(
    Layer.build(ToolRuntime.layerDefault([tool], runtimeOptions).pipe(Layer.provide(ProcessRunner.layerUnconfined))),
    Context.get(ToolRuntime.ToolRuntime)
  )

const call = (id: string, input: Record<string, unknown>, name = "bash") => ({ id, name, input })

const run = (tool: ReturnType<typeof ShellTool.make>, input: Record<string, unknown>) =>
  Effect.flatMap(runtimeWith(tool), (runtime) => runtime.runCall(call("c1", input, tool.name)))

describe("ShellTool", () => {
  it.scopedLive("a successful command: status line, then stdout and stderr, cleaned for the model", () =>
    Effect.gen(function*() {
      const root = workspace()
      const spill = NodePath.join(root, ".spill")
      const tool = ShellTool.make({ root, sandbox: "unconfined", spillDirectory: spill })
      const result = yield* run(tool, {
        command: "printf '\\033[1;32mgreen\\033[0m\\n'; printf ' 10%%\\r 60%%\\r100%%\\n'; echo warn >&2; pwd"
      })
      assert.isFalse(result.isError)
      assert.strictEqual(
        stable(ToolResult.text(result)),
        `exit code 0\n${Sandbox.unconfinedRunner.summary}\n[stdout]\ngreen\n100%\n${root}\n[stderr]\nwarn`
      )
      assert.deepStrictEqual(NodeFs.readdirSync(spill), [], "spill files of output shown whole are not kept")
    }))

  it("a command holds the whole workspace; a read-only shell only reads it", () => {
    const root = workspace()
    assert.deepStrictEqual(ShellTool.make({ root, sandbox: "unconfined" }).resources({ command: "true" }), [
      ResourceLocks.writes("workspace")
    ])
    const readOnly = ShellTool.make({ root, sandbox: "unconfined", readOnly: true })
    assert.isTrue(readOnly.readOnly)
    assert.deepStrictEqual(readOnly.resources({ command: "true" }), [ResourceLocks.reads("workspace")])
  })

  it.scopedLive("exit code 127: an error result with the shell's message", () =>
    Effect.gen(function*() {
      const tool = ShellTool.make({ root: workspace(), sandbox: "unconfined" })
      const result = yield* run(tool, { command: "definitely-not-a-command-4711 --flag" })
      assert.isTrue(result.isError)
      assert.strictEqual(result.error?.code, "tool_failed")
      assert.isFalse(result.error?.retryable)
      const text = ToolResult.text(result)
      assert.include(text, "exit code 127")
      assert.include(text, "command not found")
    }))

  it.scopedLive("a failing command keeps the error at the end when its output is cut", () =>
    Effect.gen(function*() {
      const tool = ShellTool.make({
        root: workspace(),
        sandbox: "unconfined",
        outputLimit: 4000,
        captureBytes: 16 * 1024
      })
      const result = yield* run(tool, { command: "seq 1 100000; echo 'FATAL: the real error' >&2; exit 1" })
      assert.isTrue(result.isError)
      const text = ToolResult.text(result)
      assert.match(text, /^bash failed: exit code 1\n/)
      assert.include(text, "FATAL: the real error")
      assert.strictEqual(result.meta.truncation?.strategy, "head-tail")
    }))

  it.scopedLive("a missing shell is an error result, not a crash", () =>
    Effect.gen(function*() {
      const tool = ShellTool.make({ root: workspace(), sandbox: "unconfined", shell: "/definitely/not/bash" })
      const result = yield* run(tool, { command: "echo hi" })
      assert.isTrue(result.isError)
      assert.strictEqual(result.error?.code, "tool_failed")
      assert.include(ToolResult.text(result), "no such program")
    }))

  describe("working directory", () => {
    it.scopedLive("is resolved inside the workspace", () =>
      Effect.gen(function*() {
        const root = workspace()
        const tool = ShellTool.make({ root, sandbox: "unconfined" })
        const result = yield* run(tool, { command: "pwd", cwd: "sub" })
        assert.include(ToolResult.text(result), `${root}/sub`)
      }))

    it.scopedLive("outside the workspace, through a symlink, missing, or a file: a rule violation", () =>
      Effect.gen(function*() {
        const root = workspace()
        const runtime = yield* runtimeWith(ShellTool.make({ root, sandbox: "unconfined" }))
        const results = yield* runtime.runTurn([
          call("up", { command: "pwd", cwd: ".." }),
          call("abs", { command: "pwd", cwd: "/etc" }),
          call("link", { command: "pwd", cwd: "escape" }),
          call("missing", { command: "pwd", cwd: "nope" }),
          call("file", { command: "pwd", cwd: "file.txt" })
        ])
        assert.deepStrictEqual(results.map((r) => r.error?.code), Array(5).fill("rule_violation"))
        const texts = results.map(ToolResult.text)
        assert.include(texts[0], "outside the workspace")
        assert.include(texts[2], "outside the workspace")
        assert.include(texts[3], "does not exist")
        assert.include(texts[4], "not a directory")
      }))
  })

  describe("time limits", () => {
    it.scopedLive("timeout_ms is enforced by the runner: the group is stopped, output so far is kept", () =>
      Effect.gen(function*() {
        const root = workspace()
        const tool = ShellTool.make({ root, sandbox: "unconfined", killGrace: "300 millis" })
        const pidFile = NodePath.join(root, "pid")
        const result = yield* run(tool, {
          command: `echo $$ > ${pidFile}; echo partial; trap '' TERM; sleep 60 & wait`,
          timeout_ms: 700
        }).pipe(within(15_000, "the call ended at its limit and grace, not at the command's end"))
        assert.isTrue(result.isError)
        const text = ToolResult.text(result)
        assert.include(text, "timed out after 700 ms")
        assert.include(text, "partial")
        assert.include(text, "may have done part of its work")
        // The flags say what the text says.
        assert.strictEqual(result.error?.code, "timeout")
        assert.isTrue(result.error?.outcomeUnknown)
        assert.isFalse(result.error?.retryable)
        assert.deepStrictEqual(yield* groupDies(yield* pidFrom(pidFile)), [])
      }))

    it.scopedLive("a command stopped because the runner shut down says its outcome is unknown", () =>
      Effect.gen(function*() {
        const root = workspace()
        const runnerScope = yield* Scope.make()
        const runner = Layer.succeedContext(yield* Layer.buildWithScope(ProcessRunner.layerUnconfined, runnerScope))
        const runtime = yield* Effect.map(
          Layer.build(
            ToolRuntime.layerDefault([ShellTool.make({ root, sandbox: "unconfined" })]).pipe(Layer.provide(runner))
          ),
          Context.get(ToolRuntime.ToolRuntime)
        )
        const pidFile = NodePath.join(root, "pid")
        const fiber = yield* Effect.fork(runtime.runCall(call("c1", { command: `echo $$ > ${pidFile}; sleep 60` })))
        const pid = yield* pidFrom(pidFile)
        yield* Scope.close(runnerScope, Exit.void).pipe(within(10_000, "closing the runner ended"))
        const result = yield* Fiber.join(fiber).pipe(within(10_000, "the call ended at shutdown"))
        assert.isTrue(result.isError)
        assert.include(ToolResult.text(result), "may have done part of its work")
        assert.isTrue(result.error?.outcomeUnknown)
        assert.isFalse(result.error?.retryable)
        assert.deepStrictEqual(yield* groupDies(pid), [])
      }))

    it.scopedLive("a timeout_ms over the maximum is invalid", () =>
      Effect.gen(function*() {
        const tool = ShellTool.make({ root: workspace(), sandbox: "unconfined" })
        const result = yield* run(tool, { command: "true", timeout_ms: 600_001 })
        assert.strictEqual(result.error?.code, "invalid_arguments")
        assert.include(ToolResult.text(result), "timeout_ms")
        assert.include(JSON.stringify(tool.inputSchema), "\"maximum\":600000")
      }))

    it.scopedLive("output every 10 ms keeps a call alive for twice its 1 s idle limit", () =>
      Effect.gen(function*() {
        // The runner reports output at most every 100 ms: the limit is ten times that.
        const tool = ShellTool.make({ root: workspace(), sandbox: "unconfined", idleTimeout: "1 second" })
        // 2 s of output or more in small, frequent pieces.
        const result = yield* run(tool, { command: "for i in $(seq 200); do echo $i; sleep 0.01; done" }).pipe(
          within(30_000, "the call ended")
        )
        assert.isFalse(result.isError, ToolResult.text(result))
        assert.include(ToolResult.text(result), "\n200")
      }))

    it.scopedLive("output restarts the core's idle clock; silence ends the call and the group", () =>
      Effect.gen(function*() {
        const root = workspace()
        const tool = ShellTool.make({ root, sandbox: "unconfined", idleTimeout: "1500 millis" })
        // A line every 0.1 s for twice the limit.
        const chatty = yield* run(tool, { command: "for i in $(seq 30); do echo $i; sleep 0.1; done" }).pipe(
          within(30_000, "the chatty call ended")
        )
        assert.isFalse(chatty.isError, ToolResult.text(chatty))
        const pidFile = NodePath.join(root, "pid")
        const silent = yield* run(tool, { command: `echo $$ > ${pidFile}; sleep 60` }).pipe(
          within(15_000, "the silent call ended at its idle limit, not at the command's end")
        )
        assert.strictEqual(silent.error?.code, "idle_timeout")
        assert.deepStrictEqual(yield* groupDies(yield* pidFrom(pidFile)), [])
      }))
  })

  describe("interruption", () => {
    it.scopedLive("a turn interrupted with three commands running: three results, all groups dead", () =>
      Effect.gen(function*() {
        const root = workspace()
        // Read-only so that the three run at once (a shell inside a read-only sandbox).
        const tool = ShellTool.make({ root, sandbox: "unconfined", name: "inspect", readOnly: true })
        const runtime = yield* runtimeWith(tool)
        const pidFiles = [1, 2, 3].map((i) => NodePath.join(root, `pid${i}`))
        const results = yield* runtime.runTurn(
          pidFiles.map((file, i) =>
            call(`c${i}`, { command: `echo $$ > ${file}; sleep 60 & sleep 60 & wait` }, "inspect")
          ),
          {
            interruptWhen: Effect.gen(function*() {
              for (const file of pidFiles) yield* pidFrom(file)
              return "the user pressed Escape"
            }).pipe(Effect.orDie)
          }
        ).pipe(within(15_000, "the interrupted turn ended, not at the commands' end"))
        assert.strictEqual(results.length, 3)
        assert.deepStrictEqual(results.map((r) => r.error?.code), ["interrupted", "interrupted", "interrupted"])
        assert.include(ToolResult.text(results[0]!), "the user pressed Escape")
        for (const file of pidFiles) {
          assert.deepStrictEqual(yield* groupDies(Number(NodeFs.readFileSync(file, "utf8"))), [])
        }
      }))

    it.scopedLive("commands that are not read-only run alone: one is interrupted, the others never start", () =>
      Effect.gen(function*() {
        const root = workspace()
        const runtime = yield* runtimeWith(ShellTool.make({ root, sandbox: "unconfined" }))
        const pidFile = NodePath.join(root, "pid")
        const results = yield* runtime.runTurn(
          [1, 2, 3].map((i) => call(`c${i}`, { command: `echo $$ > ${pidFile}; sleep 60` })),
          { interruptWhen: Effect.as(Effect.orDie(pidFrom(pidFile)), "the user pressed Escape") }
        ).pipe(within(15_000, "the interrupted turn ended, not at the command's end"))
        assert.deepStrictEqual(results.map((r) => r.error?.code), ["interrupted", "not_executed", "not_executed"])
        assert.deepStrictEqual(yield* groupDies(Number(NodeFs.readFileSync(pidFile, "utf8"))), [])
      }))
  })

  describe("output hygiene", () => {
    it.scopedLive("binary output is summarized; the spill file keeps the raw bytes", () =>
      Effect.gen(function*() {
        const root = workspace()
        const spill = NodePath.join(root, ".spill")
        const tool = ShellTool.make({ root, sandbox: "unconfined", spillDirectory: spill })
        const result = yield* run(tool, { command: "head -c 300000 /dev/urandom | tee raw.bin" })
        const text = ToolResult.text(result)
        assert.include(text, "[binary output: 293 KiB, not shown]")
        const path = /\[full stdout, 293 KiB: (.+)\]/.exec(text)?.[1]
        assert.isDefined(path)
        assert.isTrue(NodeFs.readFileSync(path!).equals(NodeFs.readFileSync(NodePath.join(root, "raw.bin"))))
      }))

    it.scopedLive("long output is cut in the middle with a count; the spill file has every raw byte", () =>
      Effect.gen(function*() {
        const root = workspace()
        const spill = NodePath.join(root, ".spill")
        const tool = ShellTool.make({
          root,
          sandbox: "unconfined",
          spillDirectory: spill,
          captureBytes: 4096,
          outputLimit: 100_000
        })
        const result = yield* run(tool, {
          command: "for i in $(seq 5000); do printf '\\033[31m%d\\033[0m\\n' $i; done"
        })
        const text = ToolResult.text(result)
        assert.match(text, /^exit code 0\nsandbox: none \(unconfined[^\n]*\n\[stdout\]\n1\n2\n/)
        assert.match(text, /\n4999\n5000\n\[full stdout, [\d.]+ KiB: /)
        assert.include(text, "bytes) omitted …]")
        assert.notInclude(text, "\u001b")
        const path = /\[full stdout, [\d.]+ KiB: (.+)\]/.exec(text)![1]!
        const raw = NodeFs.readFileSync(path, "utf8")
        assert.strictEqual(raw.split("\n").length, 5001)
        assert.isTrue(raw.startsWith("\u001b[31m1\u001b[0m\n"), "the stored output keeps the escapes")
      }))

    it.scopedLive("a process left running is killed, and the result says so", () =>
      Effect.gen(function*() {
        const tool = ShellTool.make({ root: workspace(), sandbox: "unconfined" })
        const result = yield* run(tool, { command: "sleep 60 & echo hi" }).pipe(
          within(10_000, "the call returned without waiting for the process it left")
        )
        const text = ToolResult.text(result)
        assert.include(text, "1 process the command left running was killed")
        assert.include(text, "[stdout]\nhi")
      }))
  })
})

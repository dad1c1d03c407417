import { afterAll, assert, describe, it } from "@effect/vitest"
import * as ResourceLocks from "@tool-runtime/core/ResourceLocks"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as BackgroundJobs from "../src/BackgroundJobs.js"
import * as ProcessRunner from "../src/ProcessRunner.js"
import * as Sandbox from "../src/Sandbox.js"
import * as ShellTool from "../src/ShellTool.js"
import { groupDies, liveInGroup, pidFrom, within } from "./Processes.js"

/** A result's text without the count of withheld variables, which depends on the environment the tests run in. */
const stable = (text: string) => text.replace(/, \d+ environment variables? withheld(?=\n|$)/g, "")

// Real processes, on a machine that may be loaded: every wait is bounded (`within`, and polls that
// give up), far above what the machine needs and far below the commands' own end.

/** One directory for the whole file, removed after it. */
const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "background-jobs-")))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))

const workspace = () => NodeFs.mkdtempSync(NodePath.join(scratch, "ws-"))

const call = (id: string, name: string, input: Record<string, unknown>) => ({ id, name, input })

/** The toolkit over a runtime whose layers close with the given scope. */
const setup = (options: ShellTool.JobOptions, jobOptions?: BackgroundJobs.Options) =>
  Effect.gen(function*() {
    const layer = ToolRuntime.layerDefault(ShellTool.toolkit(options)).pipe(
      Layer.provideMerge(BackgroundJobs.layer(jobOptions)),
      Layer.provideMerge(ProcessRunner.layerUnconfined)
    )
    // Closed by the test to check shutdown, and by the test's own scope whatever happens.
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer((exit) => Scope.close(scope, exit))
    const context = yield* Layer.buildWithScope(layer, scope)
    const runtime = Context.get(context, ToolRuntime.ToolRuntime)
    const runCall = (input: ReturnType<typeof call>) => runtime.runCall(input)
    const text = (input: ReturnType<typeof call>) => Effect.map(runCall(input), ToolResult.text)
    return { runtime, runCall, text, scope, context }
  })

const read = (jobId: string) => call("r", "read_background_output", { job_id: jobId })

const eventually = <A>(effect: Effect.Effect<A>, until: (a: A) => boolean, withinMillis = 10_000) =>
  Effect.gen(function*() {
    const deadline = performance.now() + withinMillis
    let value = yield* effect
    while (!until(value) && performance.now() < deadline) {
      yield* Effect.sleep("50 millis")
      value = yield* effect
    }
    return value
  })

/** Every read until the job has exited, joined: output may arrive in any of them. */
const readUntilExit = (jobId: string, text: (input: ReturnType<typeof call>) => Effect.Effect<string>) =>
  Effect.gen(function*() {
    const reads: Array<string> = []
    const deadline = performance.now() + 10_000
    while (performance.now() < deadline) {
      const next = yield* text(read(jobId))
      reads.push(next)
      if (next.includes("exited")) break
      yield* Effect.sleep("50 millis")
    }
    return reads.join("\n")
  })

describe("BackgroundJobs", () => {
  it.scopedLive("run_in_background returns a job id at once; reads return only new output", () =>
    Effect.gen(function*() {
      const root = workspace()
      const { scope, text } = yield* setup({ root, sandbox: "unconfined" })
      const gate = NodePath.join(root, "gate")
      // The job waits for the gate, opened only below: a call that waited for it would never return.
      const started = yield* text(call("s", "bash", {
        command: `echo one; while [ ! -e ${gate} ]; do sleep 0.05; done; echo two; echo err >&2; exit 4`,
        description: "two-step job",
        run_in_background: true
      })).pipe(within(10_000, "run_in_background returned without waiting for the job"))
      assert.include(started, "Started in the background as job bg_1")
      const first = yield* eventually(text(read("bg_1")), (t) => t.includes("one"))
      assert.match(first, /^job bg_1 \(two-step job\): running for /)
      assert.include(first, "[stdout]\none")
      assert.include(yield* text(read("bg_1")), "(no new output)")
      NodeFs.writeFileSync(gate, "")
      const rest = yield* readUntilExit("bg_1", text)
      assert.include(rest, "exited with code 4")
      assert.include(rest, "[stdout]\ntwo")
      assert.notInclude(rest, "one", "what was read is not read again")
      assert.include(rest, "[stderr]\nerr")
      assert.include(rest, "no longer listed")
      const gone = yield* text(read("bg_1"))
      assert.include(gone, "There is no background job \"bg_1\"")
      yield* Scope.close(scope, Exit.void)
    }))

  it.scopedLive("stop_background_job kills the whole group, even one that ignores SIGTERM", () =>
    Effect.gen(function*() {
      const root = workspace()
      const { runCall, scope, text } = yield* setup({ root, sandbox: "unconfined", killGrace: "300 millis" })
      const pidFile = NodePath.join(root, "pid")
      yield* text(call("s", "bash", {
        command: `echo $$ > ${pidFile}; trap '' TERM; sleep 60 & sleep 60 & echo up; wait`,
        run_in_background: true
      }))
      const pgid = yield* pidFrom(pidFile)
      assert.isAtLeast(liveInGroup(pgid).length, 3)
      const stopped = yield* runCall(call("x", "stop_background_job", { job_id: "bg_1" })).pipe(
        within(15_000, "stop_background_job ended after the grace")
      )
      assert.isFalse(stopped.isError)
      assert.include(ToolResult.text(stopped), "ended by SIGKILL (stopped)")
      assert.deepStrictEqual(yield* groupDies(pgid), [])
      yield* Scope.close(scope, Exit.void)
    }))

  it.scopedLive("a command past its limit moves to the background with its output so far", () =>
    Effect.gen(function*() {
      const root = workspace()
      const { scope, text } = yield* setup({ root, sandbox: "unconfined" })
      const gate = NodePath.join(root, "gate")
      const pidFile = NodePath.join(root, "pid")
      const moved = yield* text(call("s", "bash", {
        command: `echo $$ > ${pidFile}; echo early; while [ ! -e ${gate} ]; do sleep 0.05; done; echo late`,
        description: "gated",
        timeout_ms: 500
      })).pipe(within(15_000, "the call moved to the background at its limit"))
      assert.match(moved, /^still running after 500 ms: moved to the background as job bg_1 /)
      assert.include(moved, "Output so far:\n[stdout]\nearly")
      const pgid = yield* pidFrom(pidFile)
      assert.isNotEmpty(liveInGroup(pgid), "adopted, not killed")
      NodeFs.writeFileSync(gate, "")
      const rest = yield* readUntilExit("bg_1", text)
      assert.include(rest, "[stdout]\nlate")
      assert.notInclude(rest, "early", "output already shown is not shown again")
      yield* Scope.close(scope, Exit.void)
    }))

  it.scopedLive("with onTimeout: kill, a command past its limit is stopped", () =>
    Effect.gen(function*() {
      const root = workspace()
      const { runCall, scope } = yield* setup({ root, sandbox: "unconfined", onTimeout: "kill" })
      const pidFile = NodePath.join(root, "pid")
      const result = yield* runCall(call("s", "bash", { command: `echo $$ > ${pidFile}; sleep 60`, timeout_ms: 300 }))
        .pipe(within(15_000, "the call was stopped at its limit, not at the command's end"))
      assert.isTrue(result.isError)
      assert.include(ToolResult.text(result), "timed out after 300 ms")
      assert.deepStrictEqual(yield* groupDies(yield* pidFrom(pidFile)), [])
      yield* Scope.close(scope, Exit.void)
    }))

  it.scopedLive("a command that finishes in time is not listed as a job", () =>
    Effect.gen(function*() {
      const { context, scope, text } = yield* setup({ root: workspace(), sandbox: "unconfined" })
      assert.strictEqual(
        stable(yield* text(call("s", "bash", { command: "echo quick" }))),
        `exit code 0\n${Sandbox.unconfinedRunner.summary}\n[stdout]\nquick`
      )
      const jobs = yield* Effect.provide(BackgroundJobs.BackgroundJobs, context)
      assert.deepStrictEqual(yield* jobs.list, [])
      yield* Scope.close(scope, Exit.void)
    }))

  it.scopedLive("interrupting a foreground call stops it even under the background policy", () =>
    Effect.gen(function*() {
      const root = workspace()
      const { runtime, scope } = yield* setup({ root, sandbox: "unconfined" })
      const pidFile = NodePath.join(root, "pid")
      const [result] = yield* runtime.runTurn([call("s", "bash", { command: `echo $$ > ${pidFile}; sleep 60` })], {
        interruptWhen: Effect.as(Effect.orDie(pidFrom(pidFile)), "the user pressed Escape")
      }).pipe(within(15_000, "the interrupted turn ended, not at the command's end"))
      assert.strictEqual(result!.error?.code, "interrupted")
      assert.deepStrictEqual(yield* groupDies(yield* pidFrom(pidFile)), [])
      yield* Scope.close(scope, Exit.void)
    }))

  it.scopedLive("closing the service stops every job and its grandchildren, in parallel", () =>
    Effect.gen(function*() {
      const root = workspace()
      // Jobs that ignore SIGTERM take the whole grace: three stopped one after another take three.
      const grace = 3_000
      const { scope, text } = yield* setup({ root, sandbox: "unconfined", killGrace: `${grace} millis` })
      const pidFiles = [1, 2, 3].map((i) => NodePath.join(root, `pid${i}`))
      for (const [i, file] of pidFiles.entries()) {
        const started = yield* text(call(`s${i}`, "bash", {
          command: `echo $$ > ${file}; trap '' TERM; sleep 60 & wait`,
          run_in_background: true
        }))
        assert.include(started, `job bg_${i + 1}`)
      }
      const pgids = yield* Effect.forEach(pidFiles, (file) => pidFrom(file))
      const start = performance.now()
      yield* Scope.close(scope, Exit.void).pipe(within(3 * grace + 10_000, "closing the service ended"))
      const millis = performance.now() - start
      assert.isAtLeast(millis, grace - 20, "each job was granted its grace")
      assert.isBelow(millis, 2 * grace, "the jobs stopped in parallel, not one after another")
      for (const pgid of pgids) assert.deepStrictEqual(yield* groupDies(pgid), [])
    }))

  it.scopedLive("output that scrolled out of the kept tail is reported as skipped", () =>
    Effect.gen(function*() {
      const root = workspace()
      const { scope, text } = yield* setup({ root, sandbox: "unconfined" }, { tailBytes: 1024 })
      const gate = NodePath.join(root, "gate")
      const counted = NodePath.join(root, "counted")
      yield* text(call("s", "bash", {
        command: `seq 1 100000; touch ${counted}; while [ ! -e ${gate} ]; do sleep 0.05; done`,
        description: "count",
        run_in_background: true
      }))
      // The first read waits until all the output is written: read earlier
      // (a loaded machine), it would see only the part written so far, and
      // nothing would have scrolled away yet.
      yield* eventually(Effect.sync(() => NodeFs.existsSync(counted)), (done) => done, 20_000)
      const first = yield* eventually(text(read("bg_1")), (t) => t.includes("[stdout]"))
      assert.include(first, "of output scrolled away before it was read")
      assert.match(first, /\[stdout\]\n1\n2\n3\n/, "the head is kept")
      assert.match(first, /\n99999\n100000$/, "the newest output is kept")
      NodeFs.writeFileSync(gate, "")
      yield* Scope.close(scope, Exit.void)
    }))

  it.scopedLive("a limit on running jobs", () =>
    Effect.gen(function*() {
      const { scope, text } = yield* setup({ root: workspace(), sandbox: "unconfined" }, { maxRunning: 1 })
      yield* text(call("a", "bash", { command: "sleep 60", run_in_background: true }))
      const refused = yield* text(call("b", "bash", { command: "sleep 60", run_in_background: true }))
      assert.include(refused, "1 background jobs are already running")
      yield* Scope.close(scope, Exit.void)
    }))

  it("the job tools lock the job they touch, so two calls on one job never overlap", () => {
    assert.deepStrictEqual(BackgroundJobs.readOutputTool.resources({ job_id: "bg_1" }), [
      ResourceLocks.writes("job:bg_1")
    ])
    assert.deepStrictEqual(BackgroundJobs.stopTool.resources({ job_id: "bg_1" }), [ResourceLocks.writes("job:bg_1")])
    assert.isTrue(BackgroundJobs.readOutputTool.readOnly, "reads of different jobs may run together")
    assert.isFalse(BackgroundJobs.stopTool.readOnly)
  })
})

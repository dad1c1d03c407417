/**
 * What a stopped command's result claims, checked against the process
 * table: a command past its time limit, or interrupted with its turn, is
 * reported `stopped: "proven"` ("nothing of it still runs") only when its
 * whole process group, the children that left it with `setsid` and (when
 * confined) its sandbox are gone. The commands ignore SIGTERM and start
 * setsid children that do too.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Approver from "@tool-runtime/permissions/Approver"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeChild from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as NodeTools from "../src/NodeTools.js"
import { waitUntil, within } from "./Processes.js"

const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "honest-")))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))

const yesToEverything = Layer.succeed(Approver.Approver, { ask: () => Effect.succeed(Approver.allowOnce) })

const runtimeIn = (root: string, home: string) =>
  Effect.map(
    Layer.build(
      NodeTools.layer({
        root,
        sandbox: { home },
        approver: yesToEverything,
        // A command past its limit is stopped (not moved to the background), and may be run unconfined.
        shell: { onTimeout: "kill", allowUnsandboxed: true }
      }).pipe(Layer.provide(NodeContext.layer))
    ),
    (context) => Context.get(context, ToolRuntime.ToolRuntime)
  )

/** Processes whose command line holds `marker`, alive (not zombies). */
const survivors = (marker: string): ReadonlyArray<string> =>
  NodeChild.execFileSync("ps", ["-e", "-o", "stat=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(marker) && !line.trim().startsWith("Z") && !line.includes("ps -e"))

/** A command that ignores SIGTERM and leaves two setsid children that ignore it too, named by `marker`. */
const stubborn = (marker: string) =>
  `setsid -f bash -c "trap '' TERM; exec -a ${marker}-a sleep 300"; ` +
  `setsid -f bash -c "trap '' TERM; exec -a ${marker}-b sleep 300"; ` +
  `trap '' TERM; echo started; while :; do sleep 0.2; done`

const place = () => {
  const base = NodeFs.mkdtempSync(NodePath.join(scratch, "t-"))
  const root = NodePath.join(base, "ws")
  const home = NodePath.join(base, "home")
  NodeFs.mkdirSync(root, { recursive: true })
  NodeFs.mkdirSync(home, { recursive: true })
  return { root, home, marker: `honest-${NodePath.basename(base).slice(2)}` }
}

describe("honest cancellation", { timeout: 90_000 }, () => {
  for (const confined of [true, false]) {
    const where = confined ? "in the sandbox (bubblewrap)" : "unconfined (its process group)"
    it.scopedLive(`a command past its limit, ${where}: "proven" stopped, and nothing of it runs`, () =>
      Effect.gen(function*() {
        const { home, marker, root } = place()
        const runtime = yield* runtimeIn(root, home)
        const [result] = yield* runtime.runTurn([{
          id: "1",
          name: "bash",
          input: {
            command: stubborn(marker),
            timeout_ms: 1_500,
            ...(confined ? {} : { dangerously_disable_sandbox: true })
          }
        }]).pipe(within(30_000, "the command's turn"))
        assert.strictEqual(result!.error?.code, "timeout", ToolResult.text(result!))
        assert.strictEqual(result!.error?.stopped, "proven")
        assert.include(ToolResult.text(result!), "it has stopped: nothing of it still runs")
        // The claim, checked: no process of the command is left, the setsid ones included.
        assert.deepStrictEqual(survivors(marker), [])
        if (confined) assert.deepStrictEqual(survivors(`--chdir ${root}`).filter((l) => l.includes("bwrap")), [])
      }))

    it.scopedLive(`a command interrupted with its turn, ${where}: "proven" stopped, and nothing of it runs`, () =>
      Effect.gen(function*() {
        const { home, marker, root } = place()
        const runtime = yield* runtimeIn(root, home)
        const stop = yield* Deferred.make<string>()
        const turn = yield* Effect.fork(
          runtime.runTurn([{
            id: "1",
            name: "bash",
            input: { command: stubborn(marker), ...(confined ? {} : { dangerously_disable_sandbox: true }) }
          }], { interruptWhen: Deferred.await(stop) })
        )
        yield* waitUntil(() => survivors(`${marker}-b`).length > 0, "the command started its children", 20_000)
        yield* Deferred.succeed(stop, "the user pressed Escape")
        const [result] = yield* turn.await.pipe(
          Effect.flatten,
          within(30_000, "the interrupted turn")
        )
        assert.strictEqual(result!.error?.code, "interrupted", ToolResult.text(result!))
        assert.strictEqual(result!.error?.stopped, "proven")
        assert.include(ToolResult.text(result!), "it has stopped: nothing of it still runs")
        assert.deepStrictEqual(survivors(marker), [])
      }))
  }
})

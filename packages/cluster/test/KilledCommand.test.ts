/**
 * A runner SIGKILLed while a command it started runs: nothing of the
 * command outlives it. The runners run `bash` from `@tool-runtime/node`,
 * confined by its sandbox (bubblewrap, `--die-with-parent`, a pid namespace
 * of its own), so the command's processes die with the runner, those that
 * called `setsid` or were re-parented included. The turn is then answered
 * by the runner that takes the session over: the command had started, so
 * it is `outcome_unknown`, never run again.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as CallJournal from "../src/CallJournal.js"
import * as ClusterRuntime from "../src/ClusterRuntime.js"
import { tempDir } from "./fixtures/Files.js"
import { bundle, type Child, freePort, spawn, survivors, waitUntil } from "./fixtures/Processes.js"

const hasBwrap = NodeChildProcess.spawnSync("bwrap", ["--version"]).status === 0

/** Live processes whose command line holds `token`. */
const holding = (token: string): ReadonlyArray<number> => {
  const found: Array<number> = []
  for (const entry of NodeFs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      const cmdline = NodeFs.readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ")
      const stat = NodeFs.readFileSync(`/proc/${entry}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (fields[0] !== "Z" && cmdline.includes(token)) found.push(Number(entry))
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found
}

// The client's view of the runners' tools: only their names and kinds matter to it.
const bash = Tool.make("bash", {
  description: "Runs a command.",
  parameters: { command: Schema.String },
  handler: () => Effect.die("runs on a runner only")
})
const services = Layer.mergeAll(
  Registry.layer([bash]),
  ArtifactStore.layerMemory(),
  Redactor.layerDefault,
  Policy.layerAllowAll
)

describe.skipIf(!hasBwrap && process.env.CI !== "true")("a runner killed while its command runs", () => {
  it.live(
    "leaves no process of the command behind, and the command is outcome_unknown, never run again",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const script = yield* bundle("ClusterNode")
        const dir = yield* tempDir
        const workspace = NodePath.join(dir, "workspace")
        NodeFs.mkdirSync(workspace)
        const file = NodePath.join(dir, "cluster.db")
        const ledgerFile = NodePath.join(dir, "ledger.txt")
        NodeFs.writeFileSync(ledgerFile, "")
        // A duration no other process on the machine uses: it finds the command's processes.
        const token = `98${process.pid % 1000}.${process.hrtime()[1] % 1000}`
        process.env.CLUSTER_WORKSPACE = workspace
        const runners: Array<Child> = []
        try {
          for (const name of ["r1", "r2"]) {
            const port = yield* Effect.promise(freePort)
            runners.push(yield* spawn(script, ["runner", `sqlite:${file}`, String(port), ledgerFile, name]))
          }
        } finally {
          delete process.env.CLUSTER_WORKSPACE
        }
        for (const runner of runners) {
          yield* waitUntil("the runner is ready", () => runner.stdout().includes("ready"), runner, 60_000)
        }

        const client = ClusterRuntime.layerClient({
          storage: { _tag: "Sqlite", filename: file },
          timing: ClusterRuntime.fastTiming,
          sqlite: { synchronous: "normal" }
        }).pipe(Layer.provide(services))

        yield* Effect.gen(function*() {
          const runtime = yield* ToolRuntime.ToolRuntime
          const journal = yield* CallJournal.CallJournal
          // Three ways to outlive a parent: a new session, a double fork, a plain background child.
          const command = `setsid sleep ${token} & (sleep ${token} &) ; sleep ${token} & echo started; wait`
          const turn = yield* Effect.fork(
            runtime.runTurn([{ id: "c1", name: "bash", input: { command } }], { sessionId: "ops", turnId: "t1" })
          )
          // The command's processes are up: find the runner they descend from, and kill it.
          const started = performance.now()
          while (holding(`sleep ${token}`).length < 3) {
            assert.isBelow(performance.now() - started, 30_000, "the command did not start")
            yield* Effect.sleep("50 millis")
          }
          // The runner the journal says runs it.
          const record = yield* journal.get({ sessionId: "ops", turnId: "t1", callId: "c1" })
          const victim = runners[["r1", "r2"].indexOf(Option.getOrThrow(record).runner)]
          assert.isDefined(victim)
          yield* victim!.kill
          yield* victim!.exited

          // Nothing of the command is left, within a bound.
          const killedAt = performance.now()
          while (holding(`sleep ${token}`).length > 0 && performance.now() - killedAt < 5_000) {
            yield* Effect.sleep("50 millis")
          }
          assert.deepStrictEqual(holding(`sleep ${token}`), [], "a process of the killed runner's command survived")
          assert.deepStrictEqual(survivors(victim!.pid, token), [])

          // The other runner answers the turn: the command had started, so its outcome is unknown.
          const results = yield* Fiber.join(turn)
          assert.deepStrictEqual(results.map((result) => [result.callId, result.error?.code]), [[
            "c1",
            "outcome_unknown"
          ]])
          assert.isBelow(performance.now() - killedAt, 20_000)
          // And it was not run again.
          assert.deepStrictEqual(holding(`sleep ${token}`), [])
        }).pipe(Effect.provide(client))
      })),
    120_000
  )
})

/**
 * What outlives a call: randomized process trees (see
 * `packages/node/test/KillTrials.ts`) ended by a total limit, an idle
 * limit, an interrupted fiber, a closed scope or their own normal exit,
 * under the unconfined runner and under the sandboxed one, in the same run.
 * Survivors are counted from `/proc`, by an environment marker, after a
 * short settle, and killed.
 *
 * Printed for each mode: survivors by shape × ending and by payload ×
 * ending, totals, and deadline → result (the limit passing, the
 * interruption, the close, until the result) median, p99 and max. The seed
 * is printed first: `KILL_SEED=<seed>` runs the same trees again.
 *
 * Run: pnpm bench:kill [trials]. Environment: KILL_TRIALS (default 1000
 * per mode), KILL_SEED, KILL_CONCURRENCY (default 4), KILL_MODES
 * (default `unconfined,sandboxed`), KILL_GRACE (ms, default 200),
 * KILL_SETTLE (ms, default 100).
 */
import * as ProcessRunner from "@tool-runtime/node/ProcessRunner"
import * as Sandbox from "@tool-runtime/node/Sandbox"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Random from "effect/Random"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

/**
 * The harness, `packages/node/test/KillTrials.ts`, shared with the tests
 * that run a smaller set under CI. The bench project cannot include a file
 * of the node test project (a file outside its root would be emitted next
 * to its source by every build), so `pnpm bench:kill` bundles the harness
 * beside this file and it is loaded at run time; `effect` stays external in
 * both bundles, so that there is one copy of it. What is used of it:
 */
interface Harness {
  readonly generate: (options: {
    readonly seed: number
    readonly count: number
    readonly run: string
    readonly programs: { readonly python: string; readonly node: string }
  }) => Effect.Effect<ReadonlyArray<unknown>>
  readonly runAll: (runner: ProcessRunner.Service, trials: ReadonlyArray<unknown>, settings: {
    readonly run: string
    readonly concurrency: number
    readonly killGraceMillis: number
    readonly settleMillis: number
    readonly cwd: string
  }) => Effect.Effect<ReadonlyArray<unknown>, ProcessRunner.SpawnError>
  readonly report: (title: string, outcomes: ReadonlyArray<unknown>, killGraceMillis: number) => string
}

const harnessUrl = new URL("./KillTrials.mjs", import.meta.url).href
const KillTrials: Harness = await import(harnessUrl)

const count = Number(process.argv[2] ?? process.env.KILL_TRIALS ?? 1000)
// The seed is drawn once and printed, so that any run can be repeated.
const seed = process.env.KILL_SEED === undefined
  ? await Effect.runPromise(Random.nextIntBetween(0, 2 ** 31 - 1))
  : Number(process.env.KILL_SEED)
const concurrency = Number(process.env.KILL_CONCURRENCY ?? 4)
const modes = (process.env.KILL_MODES ?? "unconfined,sandboxed").split(",")
const killGraceMillis = Number(process.env.KILL_GRACE ?? 200)
const settleMillis = Number(process.env.KILL_SETTLE ?? 100)

const workspace = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-kill-"))
const programs = {
  python: NodeChildProcess.execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" })
    .trim(),
  node: process.execPath
}

console.log(
  `kill trials: seed ${seed}, ${count} trials per mode, concurrency ${concurrency}, kill grace ${killGraceMillis} ms, ` +
    `settle ${settleMillis} ms, node ${process.version}, ${NodeOs.cpus().length} cores`
)

const layers = {
  unconfined: ProcessRunner.layerUnconfined,
  // No fallback: a machine without bubblewrap fails here instead of measuring the unconfined runner twice.
  sandboxed: ProcessRunner.layer.pipe(
    Layer.provide(Sandbox.layer({ workspace, policy: "workspace-write", fallback: "refuse" }))
  )
} as const

for (const mode of modes) {
  const layer = layers[mode as keyof typeof layers]
  if (layer === undefined) {
    console.log(`${mode}: not available in this build`)
    continue
  }
  const runtime = ManagedRuntime.make(layer)
  const run = `${seed}.${mode}`
  const started = performance.now()
  const outcomes = await runtime.runPromise(Effect.gen(function*() {
    const runner = yield* ProcessRunner.ProcessRunner
    const trials = yield* KillTrials.generate({ seed, count, run, programs })
    return yield* KillTrials.runAll(runner, trials, {
      run,
      concurrency,
      killGraceMillis,
      settleMillis,
      cwd: workspace
    })
  }))
  await runtime.dispose()
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  console.log(KillTrials.report(`${mode} (${seconds} s)`, outcomes, killGraceMillis))
}

NodeFs.rmSync(workspace, { recursive: true, force: true })

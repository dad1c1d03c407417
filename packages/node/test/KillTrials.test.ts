import { afterAll, assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as ProcessRunner from "../src/ProcessRunner.js"
import * as Sandbox from "../src/Sandbox.js"
import * as KillTrials from "./KillTrials.js"
import { within } from "./Processes.js"

// Randomized process trees ended in every way a call ends, and the processes
// that outlive them, counted from /proc (see KillTrials.ts; `pnpm bench:kill`
// runs 1,000 of each). The seed is printed: KILL_SEED=<seed> repeats a run.
// Real processes on a machine that may be loaded (2 cores, other suites in
// parallel): what is asserted does not depend on its speed. How fast the
// result follows the deadline, and how many processes are still dying just
// after it, are figures: printed here, measured by `pnpm bench:kill`.

const KILL_GRACE = 200
const SETTLE = 100
/** Before the second scan: a process alive then was never killed (not merely killed late, at its grace). */
const LATE = 3_000
const CONCURRENCY = 3
/**
 * The sandboxed runner's drain bound in these trials: a result that waited
 * for pipes a killed tree still held would come this late, which no
 * scheduling delay can pass for.
 */
const DRAIN = 10_000
/** Deadline → result, past the grace owed, that only a wait the runner must not make can reach. */
const OVERRUN_BOUND = 5_000

const workspace = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "kill-trials-"))
afterAll(() => NodeFs.rmSync(workspace, { recursive: true, force: true }))

const programs: KillTrials.Programs = {
  // The real interpreter: a version manager's shim would add a process and a slow start to each trial.
  python: NodeChildProcess.execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" })
    .trim(),
  node: process.execPath
}

const seedOf = Effect.suspend(() =>
  process.env.KILL_SEED === undefined
    ? Random.nextIntBetween(0, 2 ** 31 - 1)
    : Effect.succeed(Number(process.env.KILL_SEED))
)

const trialsRun = (
  title: string,
  options: Omit<KillTrials.GenerateOptions, "seed" | "run" | "programs"> & {
    readonly seed: number
    readonly drainTimeoutMillis?: number | undefined
  }
) =>
  Effect.gen(function*() {
    const runner = yield* ProcessRunner.ProcessRunner
    const run = `${options.seed}.${title.replaceAll(" ", "-")}`
    const trials = yield* KillTrials.generate({ ...options, run, programs })
    const started = performance.now()
    // Bounded below the test's timeout: trials that hang fail it with this message.
    const outcomes = yield* KillTrials.runAll(runner, trials, {
      run,
      concurrency: CONCURRENCY,
      killGraceMillis: KILL_GRACE,
      settleMillis: SETTLE,
      lateMillis: LATE,
      drainTimeoutMillis: options.drainTimeoutMillis,
      cwd: workspace
    }).pipe(within(100_000, `the ${trials.length} trials ended`))
    const summary = KillTrials.summarize(outcomes, KILL_GRACE)
    console.log(
      KillTrials.report(
        `${title}, seed ${options.seed} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
        outcomes,
        KILL_GRACE
      )
    )
    return { outcomes, summary, trials }
  })

/** Each trial that left processes, with them and its script, for a failure message. */
const describeLeft = (outcomes: ReadonlyArray<KillTrials.Outcome>, which: "outlived" | "survivors") =>
  outcomes.filter((outcome) => outcome[which].length > 0).map((outcome) =>
    `trial ${outcome.trial.index} (${outcome.trial.ending}): ${
      outcome[which].map((survivor) => `${survivor.part} ${survivor.name}`).join(", ")
    }\n${outcome.trial.script}`
  ).join("\n\n")

/** Every allowed shape × ending pair led at least one trial. */
const assertCovered = (
  trials: ReadonlyArray<KillTrials.Trial>,
  allow: (shape: KillTrials.Shape, ending: KillTrials.Ending) => boolean
) => {
  for (const ending of KillTrials.endings) {
    for (const shape of KillTrials.shapes) {
      if (!allow(shape, ending)) continue
      assert.isTrue(
        trials.some((trial) => trial.ending === ending && trial.parts.some((part) => part.shape === shape)),
        `no trial of ${shape} × ${ending}`
      )
    }
  }
}

/**
 * The scan is not blind: the trees of interrupted and closed trials showed
 * marked processes just before. A rare one may show none (2 in about 2,000
 * unconfined interruptions and closes, none sandboxed; not explained yet,
 * perhaps a process caught before its exec, when its environment is still
 * the runner's): a marker that does not reach the tree fails every trial.
 */
const assertMarked = (summary: KillTrials.Summary, seed: number) => {
  const checked = summary.trialsByEnding.interrupt + summary.trialsByEnding.scope
  assert.isAtMost(summary.unmarked, Math.floor(checked / 10), `seed ${seed}: trees showed no marked process`)
}

describe.skipIf(process.platform !== "linux")("KillTrials", () => {
  layer(
    ProcessRunner.layer.pipe(Layer.provide(Sandbox.layer({ workspace, fallback: "refuse" }))),
    { excludeTestServices: true }
  )("sandboxed", (it) => {
    it.effect(
      "no process of any tree outlives its trial, and the result follows the deadline",
      () =>
        Effect.gen(function*() {
          const seed = yield* seedOf
          // Each of the 55 shape × ending pairs leads two trials.
          const { outcomes, summary, trials } = yield* trialsRun("sandboxed", {
            seed,
            count: 110,
            drainTimeoutMillis: DRAIN
          })
          assertCovered(trials, () => true)
          for (const payload of KillTrials.payloads) {
            assert.isTrue(trials.some((trial) => trial.parts.some((part) => part.payload === payload)), payload)
          }
          // The scan is not blind: the marker reaches the confined tree.
          assertMarked(summary, seed)
          for (const outcome of outcomes) {
            if (outcome.result !== undefined) assert.strictEqual(outcome.result.confinement?.backend, "bubblewrap")
          }
          assert.strictEqual(summary.survivors, 0, `seed ${seed}:\n${describeLeft(outcomes, "survivors")}`)
          // Killing the namespace's first process makes the kernel kill the rest, and the result does not
          // wait for the teardown: a member may still be alive, dying, just after (counted and printed).
          // Nor does it wait for the pipes, or for a payload: no trial comes near the drain bound.
          assert.isBelow(summary.overrun.max, OVERRUN_BOUND, `seed ${seed}: deadline → result, past the grace`)
          assert.strictEqual(
            outcomes.filter((outcome) => outcome.result?.pipesForcedClosed === true).length,
            0,
            `seed ${seed}: a sandboxed result waited for pipes until the drain bound`
          )
        }),
      { timeout: 120_000 }
    )
  })

  layer(ProcessRunner.layerUnconfined, { excludeTestServices: true })("unconfined", (it) => {
    // What the unconfined runner reaches: its process group, the escapees it
    // finds by their parent chain while the child runs, and everything that
    // carries the mark it starts each command with, however it left (a
    // `setsid -f` re-parented at once, a detached Node or Python child). Those
    // that ignore SIGTERM must get their SIGKILL even when the child died at
    // once; a normal exit leaves nothing behind (the fork race included: the
    // final SIGKILL to the group must still be sent).
    it.effect(
      "no process of any tree outlives its trial, re-parented escapees included",
      () =>
        Effect.gen(function*() {
          const seed = yield* seedOf
          const { outcomes, summary, trials } = yield* trialsRun("unconfined", { seed, count: 110 })
          assertCovered(trials, () => true)
          assertMarked(summary, seed)
          assert.strictEqual(summary.survivors, 0, `seed ${seed}:\n${describeLeft(outcomes, "survivors")}`)
          // Deadline → result is printed, not asserted: escapees that hold the pipes keep a result
          // waiting up to the drain bound, and 64 samples make a p99 their maximum.
        }),
      { timeout: 180_000 }
    )

    it.effect(
      "what re-parents at once (setsid -f) is reached through its mark, and its result does not claim otherwise",
      () =>
        Effect.gen(function*() {
          const seed = yield* seedOf
          const { outcomes } = yield* trialsRun("re-parented", {
            seed,
            count: 10,
            allow: (shape) => shape === "setsid-f",
            payloads: ["quiet"]
          })
          assert.deepStrictEqual(outcomes.flatMap((outcome) => outcome.survivors.map((s) => s.part)), [])
          for (const outcome of outcomes) assert.isFalse(outcome.result?.unkillable ?? false)
        }),
      { timeout: 60_000 }
    )
  })
})

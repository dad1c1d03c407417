/**
 * Randomized process trees, each ended the way the runner ends a call, and a
 * count of every process that outlives its trial: the harness behind
 * `bench/kill.ts` (`pnpm bench:kill`) and `KillTrials.test.ts`.
 *
 * A trial is a `bash -c` script that starts one to three parts and then
 * waits (or exits). A part is a way to leave, or to stay in, the child's
 * process group (a {@link Shape}) around something that keeps running (a
 * {@link Payload}). The trial ends by its total limit, its idle limit, the
 * interruption of the fiber running it, the closing of the scope it was
 * started in, or its own normal exit while its escapees run on.
 *
 * Survivors are found by what the kernel says, not by what the runner
 * reports: every trial's environment carries `KILL_TRIAL=<run>-<n>` and every
 * part's `KILL_PART=<shape>/<payload>`; after the result and a short settle,
 * every `/proc/<pid>/environ` holding the trial's marker belongs to a
 * survivor unless `/proc/<pid>/stat` says it is a zombie. Survivors are
 * killed at once (SIGKILL) so that they cannot pile up or be counted twice.
 * A process inside a PID namespace is still listed in the host's `/proc`,
 * with its host pid, so sandboxed trees are scanned the same way.
 *
 * Linux only (`/proc`).
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Random from "effect/Random"
import * as Scope from "effect/Scope"
import * as NodeFs from "node:fs"
import type * as ProcessRunner from "../src/ProcessRunner.js"

// ---------------------------------------------------------------------------
// trees
// ---------------------------------------------------------------------------

/**
 * How a part is started, relative to the child's process group:
 *
 * - stays in the group: `background` (`P &`), `double-fork`
 *   (`( ( P & ) & )`), `triple-fork` (`( ( ( P & ) & ) & )`; with a normal
 *   exit the script ends with `exit 0` right after it, the fork race),
 *   `nohup`, `disown`;
 * - leaves the group while still a descendant of the child:
 *   `setsid-trap` (`setsid bash -c "trap '' TERM; P & wait" &`), `set-m`
 *   (a job-control job), `python-setsid` (`os.setsid()` then exec);
 * - leaves the group and is re-parented at once: `setsid-f`
 *   (`setsid -f P`), `python-session` (`Popen(..., start_new_session=True)`
 *   from a Python that exits), `node-detached`
 *   (`spawn(..., { detached: true }).unref()` from a Node that exits).
 */
export const shapes = [
  "background",
  "double-fork",
  "triple-fork",
  "nohup",
  "disown",
  "setsid-trap",
  "set-m",
  "python-setsid",
  "setsid-f",
  "python-session",
  "node-detached"
] as const

export type Shape = typeof shapes[number]

/** Shapes whose processes stay in the child's process group: group signals reach them. */
export const inGroup: ReadonlySet<Shape> = new Set<Shape>([
  "background",
  "double-fork",
  "triple-fork",
  "nohup",
  "disown"
])

/**
 * What a part runs:
 *
 * - `sleep`: `sleep 300`, holding stdout and stderr open;
 * - `quiet`: `sleep 300` with its output sent to `/dev/null` (holds no pipe);
 * - `closed`: closes stdout and stderr, then sleeps;
 * - `yes`: writes as fast as it can, forever;
 * - `loop`: prints a line every 20 ms, forever;
 * - `ignore-term`: `trap '' TERM`, then sleeps holding the pipes.
 *
 * In a trial ended by its idle limit the writers write to `/dev/null`: the
 * tree must go silent for the limit to pass.
 */
export const payloads = ["sleep", "quiet", "closed", "yes", "loop", "ignore-term"] as const

export type Payload = typeof payloads[number]

export const endings = ["timeout", "idle", "interrupt", "scope", "exit"] as const

export type Ending = typeof endings[number]

/** Endings with a moment the runner must act on: the limit passing, the interruption, the close. */
export const hasDeadline = (ending: Ending): boolean => ending !== "exit"

export interface Part {
  readonly shape: Shape
  readonly payload: Payload
}

export interface Trial {
  readonly index: number
  /** The value of `KILL_TRIAL` in the tree's environment. */
  readonly marker: string
  readonly ending: Ending
  /** The total or idle limit, or the wait before the interruption or the close; 0 for a normal exit. */
  readonly limitMillis: number
  readonly parts: ReadonlyArray<Part>
  /** The script itself ignores SIGTERM (and so does everything it starts). */
  readonly ignoresTerm: boolean
  readonly script: string
}

export interface Programs {
  /** Python 3, by its real path: a version-manager shim would add a process and 100 ms to every start. */
  readonly python: string
  readonly node: string
}

export interface GenerateOptions {
  readonly seed: number
  readonly count: number
  /** Distinguishes the markers of two runs in the same second, or of two modes of one run. */
  readonly run: string
  readonly programs: Programs
  /** Which shape may appear with which ending. Default: all of them. */
  readonly allow?: ((shape: Shape, ending: Ending) => boolean) | undefined
  /** Which payloads may appear. Default: all of them. */
  readonly payloads?: ReadonlyArray<Payload> | undefined
  /** Which endings may appear. Default: all of them. */
  readonly endings?: ReadonlyArray<Ending> | undefined
}

/** Single-quotes a string for bash. */
const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`

const payloadScript = (payload: Payload, silent: boolean): string => {
  const sink = silent ? " >/dev/null 2>&1" : ""
  switch (payload) {
    case "sleep":
      return "exec sleep 300"
    case "quiet":
      return "exec sleep 300 >/dev/null 2>&1"
    case "closed":
      return "exec >&- 2>&-; exec sleep 300"
    case "yes":
      return `exec yes${sink}`
    case "loop":
      return `while :; do echo tick; sleep 0.02; done${sink}`
    case "ignore-term":
      return "trap '' TERM; exec sleep 300"
  }
}

/** One part as a line of the script; `foreground` runs the launcher (Python, Node) without `&`. */
const partScript = (part: Part, silent: boolean, foreground: boolean, programs: Programs): string => {
  const payload = payloadScript(part.payload, silent)
  const env = `KILL_PART=${part.shape}/${part.payload}`
  const bash = `bash -c ${quote(payload)}`
  const argv = JSON.stringify(["bash", "-c", payload])
  const background = foreground ? "" : " &"
  switch (part.shape) {
    case "background":
      return `${env} ${bash} &`
    case "double-fork":
      return `( ( ${env} ${bash} & ) & )`
    case "triple-fork":
      return `( ( ( ${env} ${bash} & ) & ) & )`
    case "nohup":
      return `${env} nohup ${bash} &`
    case "disown":
      return `${env} ${bash} & disown`
    case "setsid-trap":
      return `${env} setsid bash -c ${quote(`trap '' TERM; ${bash} & wait`)} &`
    case "set-m":
      return `set -m; ${env} ${bash} & set +m`
    case "python-setsid":
      return `${env} ${programs.python} -c ${quote(`import os\nos.setsid()\nos.execvp("bash", ${argv})`)} &`
    case "setsid-f":
      return `${env} setsid -f ${bash}`
    case "python-session":
      return `${env} ${programs.python} -c ${
        quote(`import subprocess\nsubprocess.Popen(${argv}, start_new_session=True)`)
      }${background}`
    case "node-detached": {
      const stdio = part.payload === "quiet" ? "\"ignore\"" : "\"inherit\""
      const args = JSON.stringify(["-c", payload])
      const program = `require("child_process").spawn("bash", ${args}, { detached: true, stdio: ${stdio} }).unref()`
      return `${env} ${programs.node} -e ${quote(program)}${background}`
    }
  }
}

const pick = <A>(items: ReadonlyArray<A>): Effect.Effect<A> =>
  Effect.map(Random.nextIntBetween(0, items.length), (index) => items[index]!)

const chance = (probability: number): Effect.Effect<boolean> => Effect.map(Random.next, (value) => value < probability)

/** The script's own last lines: what it does once its parts are started. */
const tail = (ending: Ending, exitAtOnce: boolean): Effect.Effect<string> => {
  if (ending === "exit") {
    return exitAtOnce
      ? Effect.succeed("exit 0")
      : Effect.map(Random.nextIntBetween(1, 6), (n) => `sleep 0.0${n}; exit 0`)
  }
  const silent = ["exec sleep 300", "sleep 300", "wait; sleep 300"]
  return pick(ending === "idle" ? silent : [...silent, "while :; do echo main; sleep 0.05; done"])
}

/**
 * Trials for a seed. Every allowed shape × ending pair leads at least one
 * trial once `count` reaches the number of pairs (the lead part cycles
 * through them); the other parts, the payloads, the limits and the script's
 * own behaviour are drawn at random. The order is shuffled.
 */
export const generate = (options: GenerateOptions): Effect.Effect<ReadonlyArray<Trial>> =>
  Effect.gen(function*() {
    const allow = options.allow ?? (() => true)
    const allowedPayloads = options.payloads ?? payloads
    const pairs = (options.endings ?? endings).flatMap((ending) =>
      shapes.filter((shape) => allow(shape, ending)).map((shape) => ({ shape, ending }))
    )
    const cycle = Array.from(yield* Random.shuffle(pairs))
    const trials: Array<Trial> = []
    for (let index = 0; index < options.count; index++) {
      const { ending, shape } = cycle[index % cycle.length]!
      const others = shapes.filter((other) => allow(other, ending))
      const extra = yield* Random.nextIntBetween(0, 3)
      const parts: Array<Part> = [{ shape, payload: yield* pick(allowedPayloads) }]
      for (let n = 0; n < extra; n++) parts.push({ shape: yield* pick(others), payload: yield* pick(allowedPayloads) })
      // The fork race needs the exit right after the forks: put a triple fork last.
      const ordered = [
        ...parts.filter((part) => part.shape !== "triple-fork"),
        ...parts.filter((part) => part.shape === "triple-fork")
      ]
      const ignoresTerm = ending !== "exit" && (yield* chance(0.2))
      const announces = ending !== "exit" && (yield* chance(0.5))
      const exitAtOnce = ordered.some((part) => part.shape === "triple-fork") || (yield* chance(0.3))
      const lines: Array<string> = []
      if (ignoresTerm) lines.push("trap '' TERM")
      if (announces) lines.push("echo up")
      for (const part of ordered) {
        lines.push(partScript(part, ending === "idle", yield* chance(0.5), options.programs))
      }
      lines.push(yield* tail(ending, exitAtOnce))
      trials.push({
        index,
        marker: `${options.run}-${index}`,
        ending,
        limitMillis: ending === "exit" ? 0 : yield* Random.nextIntBetween(150, 451),
        parts: ordered,
        ignoresTerm,
        script: lines.join("\n")
      })
    }
    return Array.from(yield* Random.shuffle(trials))
  }).pipe(Effect.withRandom(Random.make(options.seed)))

// ---------------------------------------------------------------------------
// survivors
// ---------------------------------------------------------------------------

export interface Survivor {
  readonly pid: number
  /** `<shape>/<payload>` of the part it belongs to, or `main` (the script and its own forks). */
  readonly part: string
  /** Its command name, from `/proc/<pid>/stat`. */
  readonly name: string
  /** SIGKILL is pending (`/proc/<pid>/status`): it is dying, not yet dead. */
  readonly killPending: boolean
}

/** A file's text, or `undefined` (the process is gone, or the file cannot be read). */
const read = (path: string): Effect.Effect<string | undefined> =>
  Effect.tryPromise(() => NodeFs.promises.readFile(path, "latin1")).pipe(
    Effect.orElseSucceed(() => undefined)
  )

/** Bit of SIGKILL (9) in the pending-signal masks of `/proc/<pid>/status`. */
const sigkillBit = 1n << 8n

const killPending = (status: string): boolean =>
  status.split("\n").some((line) =>
    (line.startsWith("SigPnd:") || line.startsWith("ShdPnd:")) &&
    (BigInt(`0x${line.slice(7).trim()}`) & sigkillBit) !== 0n
  )

/** One process, when it is alive and its environment holds the marker. */
const probe = (name: string, matches: (variable: string) => boolean): Effect.Effect<Survivor | undefined> =>
  Effect.gen(function*() {
    const environ = yield* read(`/proc/${name}/environ`)
    if (environ === undefined) return undefined
    const variables = environ.split("\0")
    if (!variables.some(matches)) return undefined
    const stat = yield* read(`/proc/${name}/stat`)
    if (stat === undefined) return undefined
    // The command name is in parentheses and may itself hold spaces and parentheses.
    const close = stat.lastIndexOf(")")
    const state = stat.slice(close + 2, close + 3)
    if (state === "Z" || state === "X") return undefined
    const part = variables.find((variable) => variable.startsWith("KILL_PART="))
    return {
      pid: Number(name),
      part: part === undefined ? "main" : part.slice("KILL_PART=".length),
      name: stat.slice(stat.indexOf("(") + 1, close),
      killPending: killPending((yield* read(`/proc/${name}/status`)) ?? "")
    }
  })

/**
 * Every live process whose environment holds `KILL_TRIAL=<marker>` (or, with
 * `prefix`, a marker that starts with it). A zombie (state Z) or a dead
 * entry (X) runs nothing: where PID 1 does not reap orphans at once, killed
 * processes linger as zombies. The reads are asynchronous: a synchronous
 * walk of `/proc` would hold up the runner's own timers in the same
 * process, and the harness would measure itself.
 */
export const scan = (marker: string, prefix = false): Effect.Effect<ReadonlyArray<Survivor>> =>
  Effect.gen(function*() {
    const needle = `KILL_TRIAL=${marker}`
    const matches = prefix
      ? (variable: string) => variable.startsWith(needle)
      : (variable: string) => variable === needle
    const names = yield* Effect.tryPromise(() => NodeFs.promises.readdir("/proc")).pipe(
      Effect.orElseSucceed((): ReadonlyArray<string> => [])
    )
    const pids = names.filter((name) => name.charCodeAt(0) >= 48 && name.charCodeAt(0) <= 57)
    const found = yield* Effect.forEach(pids, (name) => probe(name, matches), { concurrency: 32 })
    return found.filter((survivor): survivor is Survivor => survivor !== undefined)
  })

/** SIGKILL to each; one already gone is not an error. */
export const killAll = (survivors: ReadonlyArray<Survivor>): void => {
  for (const survivor of survivors) Either.try(() => process.kill(survivor.pid, "SIGKILL"))
}

// ---------------------------------------------------------------------------
// running trials
// ---------------------------------------------------------------------------

export interface RunSettings {
  /** Between SIGTERM and SIGKILL. */
  readonly killGraceMillis: number
  /** Wait after the result before the scan: a process that got SIGKILL takes a moment to go. */
  readonly settleMillis: number
  /**
   * When the scan finds processes, how much longer to wait before the
   * second scan that tells a process killed late (after the result, say at
   * the end of its kill grace) from one that is never killed. Default: the
   * kill grace plus 500 ms.
   */
  readonly lateMillis?: number | undefined
  readonly cwd: string
  /** The runner's own drain bound. Default: the runner's default (2 s). */
  readonly drainTimeoutMillis?: number | undefined
}

export interface Outcome {
  readonly trial: Trial
  /**
   * From the moment the runner had to act to the result, in milliseconds:
   * the limit passing (total, idle), the interruption or the close until it
   * completed. `undefined` for a normal exit.
   */
  readonly latencyMillis: number | undefined
  /** Marked processes alive just before the interruption or the close: the marker reaches the tree. */
  readonly markedBefore: number | undefined
  /** Processes alive `settleMillis` after the result (or the interruption, or the close). */
  readonly outlived: ReadonlyArray<Survivor>
  /** Of those (and of what they started since), the ones still alive `lateMillis` later: never killed. */
  readonly survivors: ReadonlyArray<Survivor>
  /** The result, where the ending gives one (not for an interruption or a closed scope). */
  readonly result: ProcessRunner.Result | undefined
}

const now = Effect.sync(() => performance.now())

/** Runs one trial, then finds (and kills) what outlived it. */
export const runTrial = (
  runner: ProcessRunner.Service,
  trial: Trial,
  settings: RunSettings
): Effect.Effect<Outcome, ProcessRunner.SpawnError> =>
  Effect.gen(function*() {
    const options: ProcessRunner.RunOptions = {
      command: "bash",
      args: ["-c", trial.script],
      cwd: settings.cwd,
      env: { KILL_TRIAL: trial.marker },
      killGrace: settings.killGraceMillis,
      ...(settings.drainTimeoutMillis === undefined ? {} : { drainTimeout: settings.drainTimeoutMillis })
    }
    const limit = trial.limitMillis
    let latencyMillis: number | undefined
    let markedBefore: number | undefined
    let result: ProcessRunner.Result | undefined
    switch (trial.ending) {
      case "timeout": {
        result = yield* runner.run({ ...options, timeout: limit })
        // Both from the runner's own start time: the spawn is the limit's origin.
        latencyMillis = result.durationMillis - limit
        break
      }
      case "idle": {
        // The idle clock restarts on output: `onOutput` on every chunk (no throttle) says when it last did.
        let lastOutput = yield* now
        result = yield* runner.run({
          ...options,
          idleTimeout: limit,
          outputReportMillis: 0,
          onOutput: Effect.sync(() => {
            lastOutput = performance.now()
          })
        })
        latencyMillis = (yield* now) - (lastOutput + limit)
        break
      }
      case "interrupt": {
        const fiber = yield* Effect.fork(runner.run(options))
        yield* Effect.sleep(limit)
        markedBefore = (yield* scan(trial.marker)).length
        const start = yield* now
        yield* Fiber.interrupt(fiber)
        latencyMillis = (yield* now) - start
        break
      }
      case "scope": {
        const scope = yield* Scope.make()
        yield* Scope.extend(runner.start(options), scope)
        yield* Effect.sleep(limit)
        markedBefore = (yield* scan(trial.marker)).length
        const start = yield* now
        yield* Scope.close(scope, Exit.void)
        latencyMillis = (yield* now) - start
        break
      }
      case "exit": {
        result = yield* runner.run(options)
        break
      }
    }
    yield* Effect.sleep(settings.settleMillis)
    const outlived = yield* scan(trial.marker)
    let survivors = outlived
    if (outlived.length > 0) {
      yield* Effect.sleep(settings.lateMillis ?? settings.killGraceMillis + 500)
      survivors = yield* scan(trial.marker)
    }
    killAll(outlived)
    killAll(survivors)
    return { trial, latencyMillis, markedBefore, outlived, survivors, result }
  })

/** Runs every trial, `concurrency` at a time; kills whatever of the run is left at the end. */
export const runAll = (
  runner: ProcessRunner.Service,
  trials: ReadonlyArray<Trial>,
  settings: RunSettings & { readonly concurrency: number; readonly run: string }
): Effect.Effect<ReadonlyArray<Outcome>, ProcessRunner.SpawnError> =>
  Effect.forEach(trials, (trial) => runTrial(runner, trial, settings), { concurrency: settings.concurrency }).pipe(
    Effect.ensuring(Effect.map(scan(`${settings.run}-`, true), killAll))
  )

// ---------------------------------------------------------------------------
// summary
// ---------------------------------------------------------------------------

export interface Cell {
  /** Parts of this kind in trials with this ending. */
  readonly parts: number
  /** Trials with this ending in which a part of this kind left a survivor. */
  readonly trialsLeaking: number
  readonly survivors: number
  /** Alive after the result, killed later. */
  readonly late: number
}

export interface Latency {
  readonly count: number
  readonly median: number
  readonly p99: number
  readonly max: number
}

export interface Summary {
  readonly trials: number
  readonly trialsByEnding: Readonly<Record<Ending, number>>
  /** Trials that left at least one process alive. */
  readonly trialsLeaking: number
  /** Processes never killed: alive `lateMillis` after the first scan. */
  readonly survivors: number
  /** Processes alive `settleMillis` after the result: the never killed and the killed late. */
  readonly outlived: number
  /** Of those, the ones with a SIGKILL pending at the scan: already dying. */
  readonly outlivedDying: number
  readonly trialsOutlived: number
  /** By shape (and `main`, the script itself), then by ending. */
  readonly byShape: ReadonlyMap<string, Readonly<Record<Ending, Cell>>>
  readonly byPayload: ReadonlyMap<string, Readonly<Record<Ending, Cell>>>
  readonly latency: Latency
  readonly latencyByEnding: Readonly<Record<Ending, Latency | undefined>>
  /**
   * The same, less the grace a tree was owed ({@link owedGrace}): a tree
   * with a process that ignores SIGTERM may take the whole kill grace
   * before its SIGKILL, by design. What the runner adds to what it must wait.
   */
  readonly overrun: Latency
  /** Deadline → result of the trees in which nothing ignores SIGTERM: no grace is owed. */
  readonly latencyNoGrace: Latency | undefined
  /** Interrupted or closed trials whose tree showed no marked process before: the scan would be blind. */
  readonly unmarked: number
}

/** The value at rank ⌈q·n⌉ of the sorted values. */
const quantile = (sorted: ReadonlyArray<number>, q: number): number =>
  sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!

export const latencyOf = (values: ReadonlyArray<number>): Latency | undefined => {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  return { count: sorted.length, median: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.at(-1)! }
}

const emptyRow = (): Record<Ending, { parts: number; trialsLeaking: number; survivors: number; late: number }> => ({
  timeout: { parts: 0, trialsLeaking: 0, survivors: 0, late: 0 },
  idle: { parts: 0, trialsLeaking: 0, survivors: 0, late: 0 },
  interrupt: { parts: 0, trialsLeaking: 0, survivors: 0, late: 0 },
  scope: { parts: 0, trialsLeaking: 0, survivors: 0, late: 0 },
  exit: { parts: 0, trialsLeaking: 0, survivors: 0, late: 0 }
})

/** The grace a tree may take before its SIGKILL: all of it when anything in it ignores SIGTERM. */
export const owedGrace = (trial: Trial, killGraceMillis: number): number =>
  trial.ignoresTerm || trial.parts.some((part) => part.payload === "ignore-term" || part.shape === "setsid-trap")
    ? killGraceMillis
    : 0

/** Deadline → result beyond the grace the tree was owed (never below 0). */
export const overrunOf = (outcome: Outcome, killGraceMillis: number): number | undefined =>
  outcome.latencyMillis === undefined
    ? undefined
    : Math.max(0, outcome.latencyMillis - owedGrace(outcome.trial, killGraceMillis))

export const summarize = (outcomes: ReadonlyArray<Outcome>, killGraceMillis: number): Summary => {
  const byShape = new Map<string, ReturnType<typeof emptyRow>>([["main", emptyRow()]])
  const byPayload = new Map<string, ReturnType<typeof emptyRow>>()
  for (const shape of shapes) byShape.set(shape, emptyRow())
  for (const payload of payloads) byPayload.set(payload, emptyRow())
  const trialsByEnding = { timeout: 0, idle: 0, interrupt: 0, scope: 0, exit: 0 }
  let trialsLeaking = 0
  let survivors = 0
  let outlivedCount = 0
  let outlivedDying = 0
  let trialsOutlived = 0
  let unmarked = 0
  for (const { markedBefore, outlived, survivors: left, trial } of outcomes) {
    const ending = trial.ending
    trialsByEnding[ending]++
    byShape.get("main")![ending].parts++
    for (const part of trial.parts) {
      byShape.get(part.shape)![ending].parts++
      byPayload.get(part.payload)![ending].parts++
    }
    if (markedBefore === 0) unmarked++
    if (outlived.length > 0) trialsOutlived++
    outlivedCount += outlived.length
    outlivedDying += outlived.filter((survivor) => survivor.killPending).length
    const lasting = new Set(left.map((survivor) => survivor.pid))
    for (const survivor of outlived) {
      if (lasting.has(survivor.pid)) continue
      const [shape, payload] = survivor.part.split("/")
      byShape.get(shape!)![ending].late++
      if (payload !== undefined) byPayload.get(payload)![ending].late++
    }
    if (left.length === 0) continue
    trialsLeaking++
    survivors += left.length
    const leakingShapes = new Set<string>()
    const leakingPayloads = new Set<string>()
    for (const survivor of left) {
      const [shape, payload] = survivor.part.split("/")
      byShape.get(shape!)![ending].survivors++
      leakingShapes.add(shape!)
      if (payload !== undefined) {
        byPayload.get(payload)![ending].survivors++
        leakingPayloads.add(payload)
      }
    }
    for (const shape of leakingShapes) byShape.get(shape)![ending].trialsLeaking++
    for (const payload of leakingPayloads) byPayload.get(payload)![ending].trialsLeaking++
  }
  const latencies = (filter: (ending: Ending) => boolean) =>
    outcomes.flatMap((outcome) =>
      outcome.latencyMillis !== undefined && filter(outcome.trial.ending) ? [outcome.latencyMillis] : []
    )
  return {
    trials: outcomes.length,
    trialsByEnding,
    trialsLeaking,
    survivors,
    outlived: outlivedCount,
    outlivedDying,
    trialsOutlived,
    byShape,
    byPayload,
    latency: latencyOf(latencies(() => true)) ?? { count: 0, median: 0, p99: 0, max: 0 },
    latencyByEnding: {
      timeout: latencyOf(latencies((ending) => ending === "timeout")),
      idle: latencyOf(latencies((ending) => ending === "idle")),
      interrupt: latencyOf(latencies((ending) => ending === "interrupt")),
      scope: latencyOf(latencies((ending) => ending === "scope")),
      exit: undefined
    },
    latencyNoGrace: latencyOf(
      outcomes.flatMap((outcome) =>
        outcome.latencyMillis !== undefined && owedGrace(outcome.trial, killGraceMillis) === 0
          ? [outcome.latencyMillis]
          : []
      )
    ),
    overrun: latencyOf(outcomes.flatMap((outcome) => overrunOf(outcome, killGraceMillis) ?? [])) ??
      { count: 0, median: 0, p99: 0, max: 0 },
    unmarked
  }
}

const formatLatency = (latency: Latency | undefined): string =>
  latency === undefined
    ? "-"
    : `median ${latency.median.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, max ${
      latency.max.toFixed(1)
    } ms (n=${latency.count})`

const table = (title: string, rows: ReadonlyMap<string, Readonly<Record<Ending, Cell>>>): Array<string> => {
  const lines = [`  ${title.padEnd(16)}${endings.map((ending) => ending.padStart(18)).join("")}`]
  for (const [name, row] of rows) {
    const cells = endings.map((ending) => {
      const cell = row[ending]
      const late = cell.late === 0 ? "" : ` +${cell.late}`
      return (cell.parts === 0 ? "-" : `${cell.survivors} in ${cell.trialsLeaking}/${cell.parts}${late}`).padStart(18)
    })
    lines.push(`  ${name.padEnd(16)}${cells.join("")}`)
  }
  return lines
}

/** A plain-text report: survivors by shape and by payload × ending, totals, deadline-to-result. */
export const format = (title: string, summary: Summary): string =>
  [
    `${title}: ${summary.trials} trials (${
      endings.map((ending) => `${ending} ${summary.trialsByEnding[ending]}`).join(", ")
    })`,
    `  survivors (never killed): ${summary.survivors} processes left by ${summary.trialsLeaking} trials;` +
    ` alive after the result: ${summary.outlived} processes in ${summary.trialsOutlived} trials` +
    ` (${summary.outlivedDying} with a SIGKILL pending)` +
    (summary.unmarked > 0 ? `   (${summary.unmarked} trials showed no marked process before their end)` : ""),
    "  cells: survivors in leaking trials / parts of that kind, +killed late (alive after the result, dead later)",
    ...table("shape", summary.byShape),
    ...table("payload", summary.byPayload),
    `  deadline → result, all: ${formatLatency(summary.latency)}`,
    ...endings.filter(hasDeadline).map((ending) =>
      `    ${ending.padEnd(10)} ${formatLatency(summary.latencyByEnding[ending])}`
    ),
    `  trees in which nothing ignores SIGTERM: ${formatLatency(summary.latencyNoGrace)}`,
    `  all, past the kill grace owed to trees that ignore SIGTERM: ${formatLatency(summary.overrun)}`
  ].join("\n")

/** {@link format}, and what the results say: how the runs were confined, pipes forced closed, failed exits. */
/** The slowest trials by {@link overrunOf}, one line each. */
export const slowest = (outcomes: ReadonlyArray<Outcome>, killGraceMillis: number, count: number): Array<string> =>
  outcomes
    .flatMap((outcome) => {
      const overrun = overrunOf(outcome, killGraceMillis)
      return overrun === undefined ? [] : [{ outcome, overrun }]
    })
    .sort((a, b) => b.overrun - a.overrun)
    .slice(0, count)
    .map(({ outcome, overrun }) =>
      `    ${overrun.toFixed(0).padStart(5)} ms past the deadline (${
        outcome.latencyMillis!.toFixed(0)
      } ms raw): trial ${outcome.trial.index}, ${outcome.trial.ending} ${outcome.trial.limitMillis} ms${
        outcome.trial.ignoresTerm ? ", script ignores SIGTERM" : ""
      }${outcome.result?.pipesForcedClosed === true ? ", pipes forced closed" : ""}: ${
        outcome.trial.parts.map((part) => `${part.shape}/${part.payload}`).join(" ")
      }`
    )

export const report = (title: string, outcomes: ReadonlyArray<Outcome>, killGraceMillis: number): string => {
  const results = outcomes.flatMap((outcome) => outcome.result === undefined ? [] : [outcome.result])
  const confinements = new Set(results.map((result) => result.confinement?.summary ?? "unconfined"))
  const forced = results.filter((result) => result.pipesForcedClosed).length
  const unkillable = results.filter((result) => result.unkillable).length
  const failed = outcomes.filter((outcome) => outcome.trial.ending === "exit" && outcome.result?.exitCode !== 0).length
  return [
    format(title, summarize(outcomes, killGraceMillis)),
    `  confinement: ${Array.from(confinements).join("; ")}`,
    `  results: ${forced} with pipes forced closed (drain bound), ${unkillable} unkillable, ${failed} normal exits not 0`,
    "  slowest:",
    ...slowest(outcomes, killGraceMillis, 5),
    ...outcomes.filter((outcome) => outcome.markedBefore === 0).map((outcome) =>
      `  no marked process before the ${outcome.trial.ending} of trial ${outcome.trial.index}:\n${outcome.trial.script}`
    )
  ].join("\n")
}

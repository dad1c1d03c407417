/**
 * What the operating system says is alive, for the tests that check no
 * process outlives its call, and the bound every such test puts on what it
 * waits for.
 *
 * The windows are wide on purpose (a loaded two-core machine, other suites in
 * parallel): a probe returns as soon as nothing is left, so a passing test
 * never pays them, and what they catch (a process that was never killed, a
 * wait that never ends) stays caught however long they are. How fast a kill
 * lands is a figure, measured by `pnpm bench:process` and `pnpm bench:kill`,
 * not a verdict of these tests.
 */
import * as Effect from "effect/Effect"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"

export interface PsEntry {
  readonly pid: number
  readonly pgid: number
  readonly stat: string
}

export const ps = (): ReadonlyArray<PsEntry> =>
  NodeChildProcess.execFileSync("ps", ["-e", "-o", "pid=,pgid=,stat="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length === 3)
    .map(([pid, pgid, stat]) => ({ pid: Number(pid), pgid: Number(pgid), stat: stat! }))

/** Live members of a process group (zombies do not run: PID 1 here never reaps them). */
export const liveInGroup = (pgid: number): ReadonlyArray<number> =>
  ps().filter((entry) => entry.pgid === pgid && !entry.stat.startsWith("Z")).map((entry) => entry.pid)

/** `ps -p`: a process that exists and is not a zombie (a zombie answers kill -0 but runs nothing). */
export const isAlive = (pid: number): boolean => {
  const stat = NodeChildProcess.spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim()
  return stat !== "" && !stat.startsWith("Z")
}

/**
 * Fails with `what` when `effect` has not ended within `millis` of real time,
 * so that a deadline or a cleanup that a bug makes hang fails the test in
 * seconds, with a message, instead of at the test's own timeout. The bound
 * says whether it ended, not how fast: keep it well above what a loaded
 * machine needs and well below the test's timeout.
 */
export const within = (millis: number, what: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  // Disconnected: a cleanup that hangs (closing a scope, a kill) cannot be interrupted,
  // and the bound must still end the wait.
  Effect.timeoutFail(Effect.disconnect(effect), {
    duration: millis,
    onTimeout: () => new Error(`${what}: not done within ${millis / 1000} s`)
  })

/** Polls `condition` every 10 ms until it holds; fails with `what` after `millis`. */
export const waitUntil = (condition: () => boolean, what: string, millis = 10_000) =>
  Effect.gen(function*() {
    while (!condition()) yield* Effect.sleep("10 millis")
  }).pipe(within(millis, what))

/** The number a command wrote to `path` (`echo $$ > path`: its pid), once it is there; fails after `millis`. */
export const pidFrom = (path: string, millis = 10_000) =>
  Effect.gen(function*() {
    yield* waitUntil(
      () => NodeFs.existsSync(path) && NodeFs.readFileSync(path, "utf8").trim() !== "",
      `the command wrote its pid to ${path}`,
      millis
    )
    return Number(NodeFs.readFileSync(path, "utf8"))
  })

/** Waits (boundedly) until nothing in the group runs; returns what still runs. */
export const groupDies = (pgid: number, withinMillis = 5000) =>
  Effect.gen(function*() {
    const until = performance.now() + withinMillis
    let left = liveInGroup(pgid)
    while (left.length > 0 && performance.now() < until) {
      yield* Effect.sleep("20 millis")
      left = liveInGroup(pgid)
    }
    return left
  })

/** Waits (boundedly) until none of these processes runs; returns what still runs. */
export const pidsDie = (pids: ReadonlyArray<number>, withinMillis = 5000) =>
  Effect.gen(function*() {
    const until = performance.now() + withinMillis
    let left = pids.filter(isAlive)
    while (left.length > 0 && performance.now() < until) {
      yield* Effect.sleep("20 millis")
      left = left.filter(isAlive)
    }
    return left
  })

/** Live processes whose environment holds `needle` (zombies run nothing and do not count). */
export const processesWithEnv = (needle: string): ReadonlyArray<number> => {
  const found: Array<number> = []
  for (const name of NodeFs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (!NodeFs.readFileSync(`/proc/${name}/environ`, "latin1").includes(needle)) continue
      const stat = NodeFs.readFileSync(`/proc/${name}/stat`, "latin1")
      if (!/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2))) found.push(Number(name))
    } catch {
      // Gone while we looked, or not ours to read.
    }
  }
  return found
}

let markers = 0

/**
 * A marker for a command's environment, and a census of the processes that
 * still carry it: every descendant inherits it, wherever it went (another
 * session, group or PID namespace). Survivors are killed once counted.
 */
export const withMarker = () => {
  const value = `${process.pid}-${++markers}-${performance.now().toFixed(0)}`
  const needle = `TOOL_RUNTIME_TEST_MARKER=${value}`
  return {
    env: { TOOL_RUNTIME_TEST_MARKER: value },
    survivors: (settleMillis = 3000) =>
      Effect.gen(function*() {
        const until = performance.now() + settleMillis
        let left = processesWithEnv(needle)
        while (left.length > 0 && performance.now() < until) {
          yield* Effect.sleep("20 millis")
          left = processesWithEnv(needle)
        }
        for (const pid of left) NodeChildProcess.spawnSync("kill", ["-KILL", String(pid)])
        return left
      })
  }
}

/**
 * What the operating system says is alive, for the tests that check no
 * process outlives its call.
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

/** Waits (boundedly) until nothing in the group runs; returns what still runs. */
export const groupDies = (pgid: number, withinMillis = 1000) =>
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
export const pidsDie = (pids: ReadonlyArray<number>, withinMillis = 1000) =>
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
    survivors: (settleMillis = 300) =>
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

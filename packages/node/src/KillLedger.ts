/**
 * The kill ledger: how the runner finds what a process group holds (its
 * live members, and the descendants that left it, through `/proc`), sends
 * signals that never fail on a process already gone, and keeps the
 * process-wide list of groups still owed a kill, with the last-resort hooks
 * (`exit`, an unhandled SIGTERM, SIGINT or SIGHUP) that pay it.
 *
 * Apart because it is the one part of the runner that is process-wide
 * rather than per runner, and it knows nothing of a child's pipes or of
 * Effect: the hooks run synchronously, when nothing else can.
 *
 * @since 0.4.0
 */
import * as Either from "effect/Either"
import * as NodeFs from "node:fs"

/** What the last-resort hooks need of a child; the rest of it is `ProcessSpawn`'s. */
export interface Killable {
  signal(signal: NodeJS.Signals): void
  signalEscaped(signal: NodeJS.Signals): void
}

/** A synchronous Node call that may throw, as a value: `undefined` when it threw. */
export const attempt = <A>(f: () => A): A | undefined => Either.getOrUndefined(Either.try(f))

/** Sends a signal (0 tests existence); a target that is already gone is not an error. */
export const send = (target: number, signal: NodeJS.Signals | 0): boolean =>
  attempt(() => process.kill(target, signal)) === true

export interface ProcEntry {
  readonly pid: number
  readonly ppid: number
  readonly pgid: number
  /** Zombies (Z) and dead entries (X) run nothing. */
  readonly alive: boolean
  /** Start time in clock ticks since boot: with the pid, tells a process from a later one that reused its pid. */
  readonly start: string
}

/** State and group of one process; `undefined` once it is gone. */
export const statOf = (pid: number): ProcEntry | undefined => {
  const stat = attempt(() => NodeFs.readFileSync(`/proc/${pid}/stat`, "latin1"))
  if (stat === undefined) return undefined
  // The command name is in parentheses and may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  const state = fields[0]
  return {
    pid,
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    alive: state !== "Z" && state !== "X",
    start: fields[19] ?? ""
  }
}

/** Every process, from `/proc` (Linux); `undefined` where there is no `/proc`. */
const processTable = (): ReadonlyArray<ProcEntry> | undefined => {
  const names = attempt(() => NodeFs.readdirSync("/proc"))
  if (names === undefined) return undefined
  const table: Array<ProcEntry> = []
  for (const name of names) {
    const first = name.charCodeAt(0)
    if (first < 48 || first > 57) continue
    const entry = statOf(Number(name))
    if (entry !== undefined) table.push(entry)
  }
  return table
}

/**
 * Live processes in a group. A zombie does not count: where PID 1 does not
 * reap orphans, killed processes stay zombies forever.
 */
export const liveMembers = (pgid: number): number => {
  if (!send(-pgid, 0)) return 0
  const table = processTable()
  // Without /proc the group is known to be non-empty, nothing more.
  if (table === undefined) return 1
  let count = 0
  for (const entry of table) if (entry.pgid === pgid && entry.alive) count++
  return count
}

/**
 * Direct children, from `/proc/<pid>/task/<tid>/children`: a walk of the
 * tree below one process costs a few reads per descendant instead of a scan
 * of every process (milliseconds on a busy machine). `undefined` when the
 * kernel does not offer the file.
 */
export const childrenOf = (pid: number): ReadonlyArray<number> | undefined => {
  const tasks = attempt(() => NodeFs.readdirSync(`/proc/${pid}/task`))
  if (tasks === undefined) return []
  const children: Array<number> = []
  for (const task of tasks) {
    const list = attempt(() => NodeFs.readFileSync(`/proc/${pid}/task/${task}/children`, "latin1"))
    if (list === undefined) return NodeFs.existsSync(`/proc/${pid}/task/${task}`) ? undefined : children
    for (const item of list.split(" ")) if (item !== "") children.push(Number(item))
  }
  return children
}

/** Every descendant of `root`, found by the parent chain. */
export const descendants = (root: number): ReadonlyArray<ProcEntry> => {
  const found: Array<ProcEntry> = []
  const queue = [root]
  const seen = new Set<number>(queue)
  while (queue.length > 0) {
    const children = childrenOf(queue.pop()!)
    if (children === undefined) return descendantsByTable(root)
    for (const pid of children) {
      if (seen.has(pid)) continue
      seen.add(pid)
      queue.push(pid)
      const entry = statOf(pid)
      if (entry !== undefined) found.push(entry)
    }
  }
  return found
}

/** The same from a scan of every process, for kernels without the children files. */
const descendantsByTable = (root: number): ReadonlyArray<ProcEntry> => {
  const table = processTable()
  if (table === undefined) return []
  const children = new Map<number, Array<ProcEntry>>()
  for (const entry of table) {
    const siblings = children.get(entry.ppid)
    if (siblings === undefined) children.set(entry.ppid, [entry])
    else siblings.push(entry)
  }
  const found: Array<ProcEntry> = []
  const queue = [root]
  const seen = new Set<number>(queue)
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (seen.has(child.pid)) continue
      seen.add(child.pid)
      queue.push(child.pid)
      found.push(child)
    }
  }
  return found
}

/** Live descendants of `root` that left its group (they called setsid). */
export const escapedDescendants = (root: number, pgid: number): ReadonlyArray<ProcEntry> =>
  descendants(root).filter((entry) => entry.pgid !== pgid && entry.alive)

/**
 * The variable every unconfined command is started with, naming it: a
 * descendant that left the tree as well as the group (`setsid -f`, a
 * double fork, reparented to init) still carries it, and is found by it.
 */
export const markVariable = "TOOL_RUNTIME_PROCESS_MARK"

/**
 * Live processes whose environment holds `markVariable=mark`, other than
 * the ones in `skip`. Reads `/proc/<pid>/environ` of every process (of this
 * user: others cannot be read): run at stop and exit only, never per chunk.
 * A process that emptied its environment (`env -i`) is not found.
 */
export const marked = (mark: string, skip: ReadonlySet<number> = new Set()): ReadonlyArray<ProcEntry> => {
  const table = processTable()
  if (table === undefined) return []
  const needle = Buffer.from(`${markVariable}=${mark}\0`, "latin1")
  const found: Array<ProcEntry> = []
  for (const entry of table) {
    if (!entry.alive || skip.has(entry.pid)) continue
    const environ = attempt(() => NodeFs.readFileSync(`/proc/${entry.pid}/environ`))
    if (environ === undefined) continue
    const at = environ.indexOf(needle)
    // The whole variable: at the start, or right after another's terminating NUL.
    if (at === 0 || at > 0 && environ[at - 1] === 0) found.push(entry)
  }
  return found
}

/** Children of every runner not yet settled, for the process-wide hooks. */
export const unsettled = new Set<Killable>()
/**
 * Children whose leader died at SIGTERM while escapees it signalled may
 * still run (they may ignore SIGTERM): settled, but their SIGKILL is still
 * owed when the grace ends, and a program exiting meanwhile must pay it.
 */
export const lingering = new Set<Killable>()
let hooksInstalled = false

/** Last resort: the program is exiting (synchronously) and scopes were not closed. */
const killUnsettled = () => {
  for (const child of unsettled) child.signal("SIGKILL")
  for (const child of lingering) child.signalEscaped("SIGKILL")
}

const fatalSignals = ["SIGTERM", "SIGINT", "SIGHUP"] as const

/**
 * A termination signal nobody else handles would end the program without
 * an `exit` event (a test runner stops its workers with SIGTERM). Only when
 * this is the sole listener: kill the groups, then die of the same signal
 * as if nobody had listened. A program that handles the signal itself
 * (`NodeRuntime.runMain`) closes its scopes, which stop the groups, and
 * exits with its own code once its finalizers ran.
 *
 * The listener is installed first in line (`prependListener`) because
 * that is the only place where the count is true: `runMain`'s listener
 * removes itself when called, so a listener after it would see itself
 * alone and kill the program before its finalizers run.
 */
const onFatalSignal = (signal: NodeJS.Signals) => {
  if (process.listenerCount(signal) > 1) return
  killUnsettled()
  for (const fatal of fatalSignals) process.removeListener(fatal, onFatalSignal)
  process.kill(process.pid, signal)
}

export const installHooks = () => {
  if (hooksInstalled) return
  hooksInstalled = true
  process.on("exit", killUnsettled)
  for (const fatal of fatalSignals) process.prependListener(fatal, onFatalSignal)
}

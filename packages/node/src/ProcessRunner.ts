/**
 * Runs child processes so that a call can neither hang nor leak: the
 * process runner behind the shell tool and background jobs.
 *
 * Built on `node:child_process` directly rather than `@effect/platform`'s
 * `Command`, which never escalates to SIGKILL, waits without bound after
 * SIGTERM, leaves grandchildren alive after a clean exit and collects output
 * quadratically. Here:
 *
 * - Each child leads its own process group (`detached: true`, so also its
 *   own session, without a controlling terminal); signals go to the whole
 *   group. Stdin is `/dev/null` unless input is given.
 * - Stdout and stderr are read continuously, so a full pipe never blocks the
 *   child. Each keeps a bounded head and a bounded tail of bytes (never the
 *   whole stream; see {@link Capture}) and, when asked, a byte-exact spill
 *   file. Output counts as activity for the idle limit and is reported to
 *   `onOutput`: at once when the last report is older than the throttle
 *   interval (default 100 ms), otherwise once at the end of the interval,
 *   so output is never left unreported for longer than the interval.
 * - Stopping (total or idle limit, interruption, scope close): SIGTERM to the
 *   group, a grace period (default 2 s), SIGKILL to the group. The call
 *   settles on the child's `exit` event, not on end-of-file: a grandchild
 *   holding the pipe open cannot keep it waiting. Whatever is left in the
 *   group is then killed, and the pipes are drained for at most 2 s before
 *   they are closed.
 * - After a normal exit, processes still running in the group are killed
 *   too, and the result counts them. Zombies do not count: where PID 1 does
 *   not reap orphans (containers), they stay forever and run nothing.
 * - Every child belongs to a `Scope`; the service's own scope kills every
 *   group still alive when the runtime shuts down. As a last resort, when
 *   the program exits without closing its scopes, a synchronous
 *   `process.on("exit")` hook does the same, and so does a SIGTERM, SIGINT
 *   or SIGHUP that nothing else in the program handles (the program then
 *   still dies of that signal). A program that handles the signal
 *   (`NodeRuntime.runMain`) is left to do so: its finalizers run, closing
 *   the runner's scope stops the groups, and it exits with its own code.
 *
 * Limits. A descendant that leaves the group (`setsid`, `setpgid`) is not
 * reached by group signals. While the child is alive such escapees are
 * found through `/proc` by their parent chain and signalled too; once the
 * child has exited they have been re-parented and cannot be told apart
 * from unrelated processes, so they survive. If one holds a pipe, the drain
 * bound stops the wait, and the result says the pipes were forced closed.
 * A program killed by SIGKILL cannot run any hook: its groups survive it.
 * Without `/proc` (macOS) escapees are not looked for, and a group left
 * behind after a normal exit counts as one process.
 *
 * Failing to start (missing program, missing working directory, permission)
 * is a typed {@link SpawnError}; a non-zero exit is a normal result with its
 * exit code.
 *
 * @since 0.1.0
 */
import type * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as Environment from "./Environment.js"
import type * as OutputHygiene from "./OutputHygiene.js"
import * as Sandbox from "./Sandbox.js"

// ---------------------------------------------------------------------------
// models
// ---------------------------------------------------------------------------

/**
 * Why the runner stopped a process, when it did.
 *
 * - `timeout`: the total limit of the run passed.
 * - `idle`: no output for longer than the idle limit.
 * - `stopped`: someone asked (`Running.stop`, a scope closed normally).
 * - `interrupted`: the fiber waiting for it was interrupted.
 * - `shutdown`: the runner's own scope closed.
 *
 * @since 0.1.0
 * @category models
 */
export type StopReason = "timeout" | "idle" | "stopped" | "interrupted" | "shutdown"

/**
 * @since 0.1.0
 * @category models
 */
export interface RunOptions {
  /** The program: a path, or a name looked up on `PATH`. No shell is involved. */
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly cwd?: string | undefined
  /**
   * Added to the environment the runner's policy leaves (see
   * {@link Options}); a key set to `undefined` is removed.
   */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /** Written to stdin, which is then closed. Without it stdin is `/dev/null`. */
  readonly input?: string | Uint8Array | undefined
  /** Total limit, from the spawn. Default: none. */
  readonly timeout?: Duration.DurationInput | undefined
  /** Longest time without output. Default: none. */
  readonly idleTimeout?: Duration.DurationInput | undefined
  /** Between SIGTERM and SIGKILL. Default 2 s. */
  readonly killGrace?: Duration.DurationInput | undefined
  /** How long the pipes may stay open after the child exited. Default 2 s. */
  readonly drainTimeout?: Duration.DurationInput | undefined
  /** First bytes kept of each stream. Default 64 KiB. */
  readonly headBytes?: number | undefined
  /** Last bytes kept of each stream. Default 64 KiB. */
  readonly tailBytes?: number | undefined
  /** Files that receive each stream byte for byte (created or truncated). */
  readonly spill?: {
    readonly stdout?: string | undefined
    readonly stderr?: string | undefined
  } | undefined
  /**
   * Runs when output arrives, at most once per `outputReportMillis`: a
   * tool passes its context's `output()` here to restart its idle clock.
   * Output within an interval is reported at its end, so an idle clock
   * sees activity at most `outputReportMillis` late: keep the interval well
   * below half that clock's limit.
   */
  readonly onOutput?: Effect.Effect<void> | undefined
  /** Default 100 ms. */
  readonly outputReportMillis?: number | undefined
  /**
   * The sandbox policy for this command, instead of the sandbox's own
   * (a runner built with {@link layer}). `danger-full-access`
   * runs it unconfined: ask the user first.
   */
  readonly policy?: Sandbox.Policy | undefined
}

/**
 * A spill file after the run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Spill {
  readonly path: string
  /** Bytes written: the whole stream unless `error` is set. */
  readonly bytes: number
  /** Why writing stopped early (disk full, no such directory). */
  readonly error: string | undefined
}

/**
 * What was kept of one output stream.
 *
 * @since 0.1.0
 * @category models
 */
export interface Output extends OutputHygiene.Captured {
  readonly spill: Spill | undefined
}

/**
 * How a run ended. A non-zero exit is a result, not an error.
 *
 * @since 0.1.0
 * @category models
 */
export interface Result {
  readonly pid: number
  /** `null` when the process was ended by a signal. */
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
  /** Set when the runner stopped the process, with the reason. */
  readonly stopped: StopReason | undefined
  /**
   * Processes of the group still running after the child exited normally,
   * killed then. Not counted when the runner stopped the child: the whole
   * group was being stopped anyway.
   */
  readonly killedAfterExit: number
  /** Descendants found outside the group (they called setsid) and signalled with it. */
  readonly escapedSignalled: number
  /** A process outside the group kept the pipes open past the drain bound; output may be missing. */
  readonly pipesForcedClosed: boolean
  /** The child did not exit within the bound after SIGKILL (uninterruptible sleep); it is still tracked. */
  readonly unkillable: boolean
  readonly durationMillis: number
  readonly stdout: Output
  readonly stderr: Output
  /** How the sandbox confined the command; {@link Sandbox.unconfinedRunner} for a runner without one. */
  readonly confinement: Sandbox.Confinement
}

/**
 * A contiguous piece of a stream read from a position: bytes that were no
 * longer kept are skipped and counted.
 *
 * @since 0.1.0
 * @category models
 */
export interface Window {
  /** Position of the first byte of `bytes` in the stream. */
  readonly start: number
  readonly bytes: Uint8Array
  /** Bytes between the requested position and `start` that are lost. */
  readonly skippedBytes: number
}

/**
 * The live view of one output stream of a running process.
 *
 * @since 0.1.0
 * @category models
 */
export interface LiveOutput {
  /** Bytes received so far. */
  readonly totalBytes: () => number
  /** Kept bytes from `from` on, at most `maxBytes`; read again from `start + bytes.length` for more. */
  readonly read: (from: number, maxBytes?: number) => Window
  /** Head and tail kept so far. */
  readonly snapshot: () => OutputHygiene.Captured
}

/**
 * A process that was started and is (or was) running.
 *
 * @since 0.1.0
 * @category models
 */
export interface Running {
  readonly pid: number
  /** Waits until the process has exited, its group is dead and its output is drained. */
  readonly result: Effect.Effect<Result>
  /** The result, once settled. */
  readonly poll: Effect.Effect<Option.Option<Result>>
  /**
   * Stops the process (SIGTERM to the group, the grace period, SIGKILL) and
   * waits for its result. Stopping a process that already exited only
   * waits.
   */
  readonly stop: (reason?: StopReason) => Effect.Effect<Result>
  readonly stdout: LiveOutput
  readonly stderr: LiveOutput
}

// ---------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------

/**
 * The process could not be started.
 *
 * @since 0.1.0
 * @category errors
 */
export class SpawnError extends Schema.TaggedError<SpawnError>()("SpawnError", {
  /** The program; never its arguments, which may hold secrets. */
  command: Schema.String,
  reason: Schema.Literal(
    "not_found",
    "no_working_directory",
    "permission_denied",
    "resource_limit",
    "shutdown",
    "sandbox",
    "failed"
  ),
  /** The system error code (`ENOENT`, `EACCES`…). */
  errno: Schema.String,
  /** For `sandbox`: why the command could not be confined, and what to do. */
  detail: Schema.optional(Schema.String)
}) {
  /** Only a momentary lack of resources can pass by itself. */
  get retryable(): boolean {
    return this.reason === "resource_limit"
  }
  override get message(): string {
    const program = JSON.stringify(this.command.length > 200 ? `${this.command.slice(0, 200)}…` : this.command)
    switch (this.reason) {
      case "not_found":
        return `Could not start ${program}: no such program (not on PATH, or the path does not exist).`
      case "no_working_directory":
        return `Could not start ${program}: the working directory does not exist or is not a directory.`
      case "permission_denied":
        return `Could not start ${program}: permission denied (the program is not executable, or the working directory is not accessible).`
      case "resource_limit":
        return `Could not start ${program}: the system is out of processes or file descriptors (${this.errno}); try again shortly.`
      case "shutdown":
        return `Could not start ${program}: the program running the tools is shutting down.`
      case "sandbox":
        return `Could not start ${program}: ${this.detail ?? "it could not be confined in the sandbox."}`
      case "failed":
        return `Could not start ${program} (${this.errno}).`
    }
  }
}

// ---------------------------------------------------------------------------
// service
// ---------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * Starts a process tied to the current scope: closing the scope stops it
   * (grace, then SIGKILL) if it is still running.
   */
  readonly start: (options: RunOptions) => Effect.Effect<Running, SpawnError, Scope.Scope>
  /**
   * Runs a process to completion. Interrupting the fiber stops the process
   * group before the interruption completes.
   */
  readonly run: (options: RunOptions) => Effect.Effect<Result, SpawnError>
  /** Processes started by this runner that have not settled yet. */
  readonly liveCount: Effect.Effect<number>
  /** The sandbox every command runs in; `undefined` for an unconfined runner. */
  readonly sandbox: Sandbox.Service | undefined
}

/**
 * @since 0.1.0
 * @category tags
 */
export class ProcessRunner extends Context.Tag("@tool-runtime/node/ProcessRunner")<ProcessRunner, Service>() {}

/**
 * @since 0.1.0
 * @category defaults
 */
export const defaults = {
  killGrace: Duration.seconds(2),
  drainTimeout: Duration.seconds(2),
  headBytes: 64 * 1024,
  tailBytes: 64 * 1024,
  outputReportMillis: 100,
  /** How long to wait for an exit after SIGKILL before reporting the process unkillable. */
  killWait: Duration.seconds(1)
} as const

// ---------------------------------------------------------------------------
// Node side: signals and /proc
// ---------------------------------------------------------------------------

const definedOnly = (env: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const defined: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) if (value !== undefined) defined[name] = value
  return defined
}

/** A synchronous Node call that may throw, as a value: `undefined` when it threw. */
const attempt = <A>(f: () => A): A | undefined => Either.getOrUndefined(Either.try(f))

/** Sends a signal (0 tests existence); a target that is already gone is not an error. */
const send = (target: number, signal: NodeJS.Signals | 0): boolean =>
  attempt(() => process.kill(target, signal)) === true

interface ProcEntry {
  readonly pid: number
  readonly ppid: number
  readonly pgid: number
  /** Zombies (Z) and dead entries (X) run nothing. */
  readonly alive: boolean
  /** Start time in clock ticks since boot: with the pid, tells a process from a later one that reused its pid. */
  readonly start: string
}

/** State and group of one process; `undefined` once it is gone. */
const statOf = (pid: number): ProcEntry | undefined => {
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
const liveMembers = (pgid: number): number => {
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
const childrenOf = (pid: number): ReadonlyArray<number> | undefined => {
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
const descendants = (root: number): ReadonlyArray<ProcEntry> => {
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
const escapedDescendants = (root: number, pgid: number): ReadonlyArray<ProcEntry> =>
  descendants(root).filter((entry) => entry.pgid !== pgid && entry.alive)

// ---------------------------------------------------------------------------
// Node side: capture
// ---------------------------------------------------------------------------

const empty = new Uint8Array(0)

/** Chunks below this size are copied into a shared run; larger ones are kept by reference. */
const smallChunk = 4096
/** Size of a run that collects small chunks. */
const runCapacity = 16 * 1024

/**
 * The bytes kept of one stream: a head that fills once, and a tail of the
 * latest bytes. Nothing is ever concatenated, and a large chunk is not even
 * copied: the tail is a short list of segments, references to the chunks
 * the pipe delivered (Node hands each read its own buffer) with small
 * chunks copied together into runs, so that a flood of tiny chunks does not
 * pin one pipe-sized buffer each. Segments older than the tail bound are
 * dropped; the tail holds at most the bound plus one segment.
 *
 * Exported for its tests; the runner builds one per stream.
 *
 * @since 0.1.0
 * @category capture
 */
export class Capture implements LiveOutput {
  private head: Buffer | undefined
  private headLength = 0
  private readonly segments: Array<Uint8Array> = []
  /** Bytes held by the segments: the last `held` bytes of the stream after the head. */
  private held = 0
  private run: Buffer | undefined
  private runLength = 0
  total = 0

  constructor(readonly headCapacity: number, readonly tailCapacity: number) {}

  /** Takes the next chunk; keeps a reference to it when it is large. */
  push(chunk: Buffer): void {
    const length = chunk.length
    let offset = 0
    if (this.headLength < this.headCapacity) {
      const head = this.head ??= Buffer.allocUnsafe(this.headCapacity)
      offset = Math.min(length, this.headCapacity - this.headLength)
      chunk.copy(head, this.headLength, 0, offset)
      this.headLength += offset
    }
    this.total += length
    const rest = length - offset
    if (rest === 0 || this.tailCapacity === 0) return
    const segments = this.segments
    if (rest >= smallChunk) {
      this.run = undefined
      segments.push(offset === 0 ? chunk : chunk.subarray(offset))
    } else if (this.run !== undefined && this.runLength + rest <= this.run.length) {
      chunk.copy(this.run, this.runLength, offset)
      this.runLength += rest
      // The open run is the last segment; it grows in place.
      segments[segments.length - 1] = this.run.subarray(0, this.runLength)
    } else {
      this.run = Buffer.allocUnsafe(Math.max(runCapacity, rest))
      chunk.copy(this.run, 0, offset)
      this.runLength = rest
      segments.push(this.run.subarray(0, rest))
    }
    this.held += rest
    while (segments.length > 1 && this.held - segments[0]!.length >= this.tailCapacity) {
      this.held -= segments.shift()!.length
    }
  }

  readonly totalBytes = (): number => this.total

  readonly read = (from: number, maxBytes = Infinity): Window => {
    const position = Math.max(0, Math.min(from, this.total))
    const limit = Math.max(0, maxBytes)
    if (position < this.headLength) {
      const end = Math.min(this.headLength, position + limit)
      return { start: position, bytes: this.head!.subarray(position, end), skippedBytes: 0 }
    }
    const start = Math.max(position, this.total - this.held)
    return { start, bytes: this.copyTail(start, Math.min(this.total - start, limit)), skippedBytes: start - position }
  }

  /** `length` bytes of the tail from stream position `start`, copied out in order. */
  private copyTail(start: number, length: number): Uint8Array {
    if (length <= 0) return empty
    const out = Buffer.allocUnsafe(length)
    let position = this.total - this.held
    let copied = 0
    for (const segment of this.segments) {
      const end = position + segment.length
      if (end > start && copied < length) {
        const from = Math.max(0, start - position)
        const n = Math.min(segment.length - from, length - copied)
        out.set(segment.subarray(from, from + n), copied)
        copied += n
      }
      position = end
    }
    return out
  }

  readonly snapshot = (): OutputHygiene.Captured => this.output(undefined)

  /** Copies of the head and of exactly the last `tailCapacity` bytes (or fewer) after it. */
  output(spill: Spill | undefined): Output {
    const head = this.head === undefined ? empty : Buffer.from(this.head.subarray(0, this.headLength))
    const tailLength = this.total - this.headLength
    const kept = Math.min(tailLength, this.held, this.tailCapacity)
    return {
      head,
      tail: this.copyTail(this.total - kept, kept),
      omittedBytes: tailLength - kept,
      totalBytes: this.total,
      spill
    }
  }
}

/**
 * A byte-exact copy of a stream in a file, written synchronously chunk by
 * chunk: measured faster than a `WriteStream` with backpressure, and it
 * buffers nothing, so memory stays flat. A page-cache write of one pipe
 * chunk (at most 64 KiB) blocks the event loop for microseconds.
 */
class SpillFile {
  private fd: number | undefined
  bytes = 0
  error: string | undefined

  constructor(readonly path: string) {
    const opened = Either.try(() => NodeFs.openSync(path, "w"))
    if (Either.isRight(opened)) this.fd = opened.right
    else this.error = errorCode(opened.left)
  }

  write(chunk: Buffer): void {
    const fd = this.fd
    if (fd === undefined) return
    let offset = 0
    while (offset < chunk.length) {
      const written = Either.try(() => NodeFs.writeSync(fd, chunk, offset, chunk.length - offset))
      if (Either.isLeft(written)) {
        this.error = errorCode(written.left)
        this.close()
        return
      }
      offset += written.right
      this.bytes += written.right
    }
  }

  close(): void {
    if (this.fd !== undefined) attempt(() => NodeFs.closeSync(this.fd!))
    this.fd = undefined
  }

  info(): Spill {
    return { path: this.path, bytes: this.bytes, error: this.error }
  }
}

const errorCode = (error: unknown): string => (error as NodeJS.ErrnoException | undefined)?.code ?? String(error)

// ---------------------------------------------------------------------------
// Node side: one child
// ---------------------------------------------------------------------------

interface ExitStatus {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** Children of every runner not yet settled, for the process-wide hooks. */
const unsettled = new Set<Child>()
/**
 * Children whose leader died at SIGTERM while escapees it signalled may
 * still run (they may ignore SIGTERM): settled, but their SIGKILL is still
 * owed when the grace ends, and a program exiting meanwhile must pay it.
 */
const lingering = new Set<Child>()
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

const installHooks = () => {
  if (hooksInstalled) return
  hooksInstalled = true
  process.on("exit", killUnsettled)
  for (const fatal of fatalSignals) process.prependListener(fatal, onFatalSignal)
}

/**
 * One child process and everything the Node side knows about it. Node
 * events complete the deferreds; the Effect side only waits on them.
 */
class Child {
  readonly process: NodeChildProcess.ChildProcess
  readonly stdout: Capture
  readonly stderr: Capture
  readonly spawned = Deferred.unsafeMake<void, NodeJS.ErrnoException>(FiberId.none)
  readonly exited = Deferred.unsafeMake<ExitStatus>(FiberId.none)
  readonly pipesClosed = Deferred.unsafeMake<void>(FiberId.none)
  /** Output is no longer wanted: close the pipes as soon as the child is gone. */
  readonly discarded = Deferred.unsafeMake<void>(FiberId.none)
  /** SIGKILL did not end the child within the bound. */
  readonly gaveUp = Deferred.unsafeMake<void>(FiberId.none)
  readonly settled = Deferred.unsafeMake<Result>(FiberId.none)
  readonly startedAt: number
  pid = 0
  exit: ExitStatus | undefined
  stopReason: StopReason | undefined
  stopping: Fiber.RuntimeFiber<void> | undefined
  lastActivity: number
  killedAfterExit = 0
  /**
   * Escapees signalled, by pid, with their start time: they are signalled
   * again at SIGKILL even when the leader died at SIGTERM, and only while
   * the pid still names the same process.
   */
  readonly escaped = new Map<number, string>()
  pipesForcedClosed = false
  result: Result | undefined
  private readonly spills: readonly [SpillFile | undefined, SpillFile | undefined]
  private openPipes = 2
  private lastReport = -Infinity
  /** A report is scheduled for the end of the current interval. */
  private reportPending = false

  constructor(
    options: RunOptions,
    launch: Sandbox.Launch & { readonly inheritFiles?: ReadonlyArray<string> | undefined },
    readonly confinement: Sandbox.Confinement,
    /** The command runs in a PID namespace whose first process is our child's child. */
    readonly pidNamespace: boolean,
    readonly clock: Clock.Clock,
    runtime: Runtime.Runtime<never>,
    private readonly registry: Set<Child>
  ) {
    const input = options.input
    // Throws synchronously on some errors (ENOTDIR, invalid arguments):
    // the caller wraps the constructor in `Effect.try`.
    // Descriptors 3, 4, … for the sandbox (its seccomp program), open only
    // until the child has them.
    const inherited: Array<number> = []
    const closeInherited = () => {
      for (const fd of inherited.splice(0)) attempt(() => NodeFs.closeSync(fd))
    }
    try {
      for (const file of launch.inheritFiles ?? []) inherited.push(NodeFs.openSync(file, "r"))
      this.process = NodeChildProcess.spawn(launch.command, launch.args, {
        cwd: launch.cwd,
        // The whole environment: what the policy left of the runner's own, and the call's.
        env: definedOnly(launch.env ?? {}),
        detached: true,
        stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe", ...inherited],
        windowsHide: true
      })
    } finally {
      // The child has its copies once spawn returns (libuv forks in it).
      closeInherited()
    }
    this.startedAt = clock.unsafeCurrentTimeMillis()
    this.lastActivity = this.startedAt
    this.stdout = new Capture(options.headBytes ?? defaults.headBytes, options.tailBytes ?? defaults.tailBytes)
    this.stderr = new Capture(options.headBytes ?? defaults.headBytes, options.tailBytes ?? defaults.tailBytes)
    // Listeners are attached in the same tick as the spawn: an `error`
    // event without a listener would crash the program.
    const proc = this.process
    proc.on("error", (error: NodeJS.ErrnoException) => {
      Deferred.unsafeDone(this.spawned, Exit.fail(error))
    })
    proc.on("spawn", () => {
      this.pid = proc.pid!
      this.registry.add(this)
      unsettled.add(this)
      installHooks()
      Deferred.unsafeDone(this.spawned, Exit.void)
    })
    proc.on("exit", (code, signal) => {
      this.exit = { code, signal }
      proc.stdin?.destroy()
      Deferred.unsafeDone(this.exited, Exit.succeed(this.exit))
      // Exit after giving up on it: nobody waits any more, clean up here.
      if (this.result !== undefined) this.reapGroup()
    })
    const onOutput = options.onOutput
    const reportEvery = options.outputReportMillis ?? defaults.outputReportMillis
    const report = onOutput === undefined ? undefined : Runtime.runFork(runtime)
    const spills = [options.spill?.stdout, options.spill?.stderr].map((path) =>
      path === undefined ? undefined : new SpillFile(path)
    )
    this.spills = [spills[0], spills[1]]
    // Reporting on every chunk would fork a fiber per chunk; reporting only
    // the first chunk of each interval would leave the rest unreported
    // until the next chunk, and an idle clock could run out meanwhile.
    const trailing = onOutput === undefined ? undefined : Effect.suspend(() => {
      this.reportPending = false
      this.lastReport = clock.unsafeCurrentTimeMillis()
      return onOutput
    })
    const noteOutput = (now: number) => {
      if (now - this.lastReport >= reportEvery) {
        this.lastReport = now
        report!(onOutput!)
      } else if (!this.reportPending) {
        this.reportPending = true
        report!(Effect.delay(trailing!, this.lastReport + reportEvery - now))
      }
    }
    const listen = (stream: NodeJS.ReadableStream | null, capture: Capture, spill: SpillFile | undefined) => {
      stream!.on("data", (chunk: Buffer) => {
        capture.push(chunk)
        if (spill !== undefined) spill.write(chunk)
        const now = clock.unsafeCurrentTimeMillis()
        this.lastActivity = now
        if (report !== undefined && !this.reportPending) noteOutput(now)
      })
      // Destroying a pipe that is still open can report an error; it changes nothing.
      stream!.on("error", () => {})
      stream!.on("close", () => {
        if (--this.openPipes === 0) Deferred.unsafeDone(this.pipesClosed, Exit.void)
      })
    }
    listen(proc.stdout, this.stdout, this.spills[0])
    listen(proc.stderr, this.stderr, this.spills[1])
    if (input !== undefined) {
      // A child that exits without reading its input makes the write fail with EPIPE: expected.
      proc.stdin!.on("error", () => {})
      proc.stdin!.end(input)
    }
  }

  /**
   * Signals the group, and descendants that left it while the child still
   * runs. In a PID namespace, a graceful signal goes to every process in
   * it but its first (bubblewrap's init: our child's child; signalling our
   * child would make `--die-with-parent` kill everything at once), and
   * SIGKILL to that first process, whose death the kernel turns into the
   * death of every process in the namespace.
   */
  signal(signal: NodeJS.Signals): void {
    if (this.pid === 0) return
    if (this.pidNamespace) {
      const inits = childrenOf(this.pid) ?? []
      if (signal === "SIGKILL") {
        for (const init of inits) send(init, "SIGKILL")
        send(-this.pid, "SIGKILL")
      } else {
        for (const init of inits) for (const member of descendants(init)) if (member.alive) send(member.pid, signal)
      }
      return
    }
    if (this.exit === undefined) {
      for (const escaped of escapedDescendants(this.pid, this.pid)) {
        // An escapee that leads its own group takes its group with it.
        const target = escaped.pgid === escaped.pid ? -escaped.pid : escaped.pid
        if (send(target, signal)) this.escaped.set(escaped.pid, escaped.start)
      }
    }
    if (signal === "SIGKILL") this.signalEscaped("SIGKILL")
    send(-this.pid, signal)
  }

  /** The escapees signalled before that are still the same live processes. */
  liveEscapees(): ReadonlyArray<ProcEntry> {
    const live: Array<ProcEntry> = []
    for (const [pid, start] of this.escaped) {
      const entry = statOf(pid)
      if (entry !== undefined && entry.alive && entry.start === start) live.push(entry)
    }
    return live
  }

  /**
   * Signals the escapees found before, and what they started since: after
   * the leader's death they can no longer be found from it.
   */
  signalEscaped(signal: NodeJS.Signals): void {
    for (const escaped of this.liveEscapees()) {
      for (const below of descendants(escaped.pid)) if (below.alive) send(below.pid, signal)
      send(escaped.pgid === escaped.pid ? -escaped.pid : escaped.pid, signal)
    }
  }

  /** After the exit: kills what is left of the group and stops tracking it. */
  reapGroup(): void {
    if (this.stopReason !== undefined) {
      // Being stopped, the whole group got the signal already: kill the rest
      // at once. Counting them (a scan of every process) would only delay the result.
      send(-this.pid, "SIGKILL")
    } else {
      this.killedAfterExit += liveMembers(this.pid)
      // Even when the count found nobody: a member being forked right now
      // is not in /proc yet, and the group signal reaches it all the same.
      send(-this.pid, "SIGKILL")
    }
    // From here on the group id may be reused: never signal it again.
    this.registry.delete(this)
    unsettled.delete(this)
  }

  destroyPipes(): void {
    this.process.stdout?.destroy()
    this.process.stderr?.destroy()
    this.process.stdin?.destroy()
  }

  finish(): Result {
    for (const spill of this.spills) spill?.close()
    const result: Result = {
      pid: this.pid,
      exitCode: this.exit?.code ?? null,
      signal: this.exit?.signal ?? null,
      stopped: this.stopReason,
      killedAfterExit: this.killedAfterExit,
      escapedSignalled: this.escaped.size,
      confinement: this.confinement,
      pipesForcedClosed: this.pipesForcedClosed,
      unkillable: this.exit === undefined,
      durationMillis: this.clock.unsafeCurrentTimeMillis() - this.startedAt,
      stdout: this.stdout.output(this.spills[0]?.info()),
      stderr: this.stderr.output(this.spills[1]?.info())
    }
    this.result = result
    return result
  }
}

// ---------------------------------------------------------------------------
// Effect side
// ---------------------------------------------------------------------------

const classify = (command: string, cwd: string | undefined, error: unknown): Effect.Effect<SpawnError> => {
  const errno = (error as NodeJS.ErrnoException | undefined)?.code ?? "UNKNOWN"
  const make = (reason: SpawnError["reason"]) => Effect.succeed(new SpawnError({ command, reason, errno }))
  switch (errno) {
    case "ENOENT":
      // Node reports a missing working directory as a missing program: look.
      return cwd === undefined ? make("not_found") : Effect.flatMap(
        Effect.promise(() => NodeFs.promises.stat(cwd).then((stat) => stat.isDirectory(), () => false)),
        (isDirectory) => make(isDirectory ? "not_found" : "no_working_directory")
      )
    case "ENOTDIR":
      return make("no_working_directory")
    case "EACCES":
    case "EPERM":
      return make("permission_denied")
    case "EAGAIN":
    case "EMFILE":
    case "ENFILE":
    case "ENOMEM":
      return make("resource_limit")
    default:
      return make("failed")
  }
}

const millis = (input: Duration.DurationInput | undefined, fallback: Duration.DurationInput): number =>
  Duration.toMillis(input ?? fallback)

/**
 * How a runner builds each command's environment.
 *
 * @since 0.4.0
 * @category models
 */
export interface Options {
  /**
   * Which of the runner's variables reach commands. Default: the sandbox's
   * (`Sandbox.Config.environment`), and {@link Environment.defaultPolicy}
   * without a sandbox or when it sets none.
   */
  readonly environment?: Environment.Policy | undefined
  /** The variables the policy is applied to. Default `process.env`, read at each start. */
  readonly baseEnvironment?: Readonly<Record<string, string | undefined>> | undefined
}

/** The call's variables on top of what the policy left; `undefined` removes one. */
const environmentOf = (
  applied: Environment.Applied,
  env: Readonly<Record<string, string | undefined>> | undefined
): Record<string, string> => {
  const merged: Record<string, string> = { ...applied.env }
  for (const [name, value] of Object.entries(env ?? {})) {
    if (value === undefined) delete merged[name]
    else merged[name] = value
  }
  return merged
}

/** A confinement that also says how many variables the command did not get. */
const withWithheld = (confinement: Sandbox.Confinement, withheld: number): Sandbox.Confinement => ({
  ...confinement,
  withheldVariables: withheld,
  summary: withheld === 0 ? confinement.summary : `${confinement.summary}, ${Environment.describeWithheld(withheld)}`
})

/**
 * A runner that confines every command with `sandbox` (none: unconfined),
 * and gives each the environment its policy allows.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makeWith = (
  sandbox: Sandbox.Service | undefined,
  runnerOptions?: Options | undefined
): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function*() {
    const environment = runnerOptions?.environment ?? sandbox?.environment ?? Environment.defaultPolicy
    const live = new Set<Child>()
    /** This runner's children that still owe escapees a SIGKILL (see `lingering`). */
    const owed = new Set<Child>()
    const killWait = Duration.toMillis(defaults.killWait)

    /** Waits for the exit, the lost group, the drained pipes; then the result. */
    const lifecycle = (child: Child, drainMillis: number): Effect.Effect<void> =>
      Effect.gen(function*() {
        yield* Effect.raceFirst(Deferred.await(child.exited), Deferred.await(child.gaveUp))
        if (child.exit !== undefined) child.reapGroup()
        const drain = yield* Effect.raceAll([
          Effect.as(Deferred.await(child.pipesClosed), "closed" as const),
          Effect.as(Deferred.await(child.discarded), "discarded" as const),
          Effect.as(Effect.sleep(drainMillis), "timeout" as const)
        ])
        if (drain !== "closed") {
          child.pipesForcedClosed = drain === "timeout"
          child.destroyPipes()
        }
        yield* Deferred.succeed(child.settled, child.finish())
      })

    /**
     * Waits, until `until`, for the escapees signalled with the leader to
     * die; the leader dying first (it may exit at once on SIGTERM) must not
     * spare an escapee that ignores SIGTERM its SIGKILL.
     */
    const awaitEscapees = (child: Child, until: number): Effect.Effect<void> =>
      Effect.suspend(() => {
        const wait = until - child.clock.unsafeCurrentTimeMillis()
        if (wait <= 0 || child.liveEscapees().length === 0) return Effect.void
        return Effect.zipRight(Effect.sleep(Math.min(wait, 20)), awaitEscapees(child, until))
      })

    /** SIGTERM, grace, SIGKILL: runs once per child, whoever asks first. */
    const killSequence = (child: Child, graceMillis: number): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (child.exit !== undefined) return
        const graceEnd = child.clock.unsafeCurrentTimeMillis() + graceMillis
        child.signal("SIGTERM")
        const exited = yield* Effect.timeoutOption(Deferred.await(child.exited), graceMillis)
        if (Option.isSome(exited)) {
          if (child.escaped.size === 0) return
          lingering.add(child)
          owed.add(child)
          return yield* awaitEscapees(child, graceEnd).pipe(
            Effect.ensuring(Effect.sync(() => {
              child.signalEscaped("SIGKILL")
              lingering.delete(child)
              owed.delete(child)
            }))
          )
        }
        child.signal("SIGKILL")
        const killed = yield* Effect.timeoutOption(Deferred.await(child.exited), killWait)
        if (Option.isNone(killed)) yield* Deferred.succeed(child.gaveUp, undefined)
      })

    /** Starts the kill sequence unless it runs already or the child is gone; does not wait. */
    const beginStop = (child: Child, reason: StopReason, graceMillis: number): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (child.stopping !== undefined || child.exit !== undefined) return Effect.void
        child.stopReason ??= reason
        // Forked interruptible: a fiber inherits the uninterruptible region it
        // is forked from, and its timeouts could then never cancel their waits.
        return Effect.flatMap(
          Effect.forkDaemon(Effect.interruptible(killSequence(child, graceMillis))),
          (fiber) =>
            Effect.sync(() => {
              child.stopping = fiber
            })
        )
      }).pipe(Effect.uninterruptible)

    const stop = (child: Child, reason: StopReason, graceMillis: number): Effect.Effect<Result> =>
      Effect.zipRight(beginStop(child, reason, graceMillis), Deferred.await(child.settled))

    /** Stops the process on timeout or silence; ends when the process exits. */
    const watch = (child: Child, timeoutMillis: number, idleMillis: number, graceMillis: number) => {
      const deadline = child.startedAt + timeoutMillis
      const loop: Effect.Effect<void> = Effect.suspend(() => {
        if (child.exit !== undefined || child.stopping !== undefined) return Effect.void
        const now = child.clock.unsafeCurrentTimeMillis()
        const idleAt = child.lastActivity + idleMillis
        // Only starts the sequence: whoever waits for the result waits for its end.
        if (now >= deadline) return beginStop(child, "timeout", graceMillis)
        if (now >= idleAt) return beginStop(child, "idle", graceMillis)
        return Effect.zipRight(Effect.sleep(Math.min(deadline, idleAt) - now), loop)
      })
      return Effect.raceFirst(loop, Effect.asVoid(Deferred.await(child.exited)))
    }

    // Untraced: a span would end with the command line (which may hold a secret) in its status; the
    // call's own execute span, whose exit the runtime redacts, covers the process.
    const start = Effect.fnUntraced(function*(options: RunOptions) {
      // After shutdown nothing may start: a child could no longer be tracked or killed.
      if (closed) return yield* new SpawnError({ command: options.command, reason: "shutdown", errno: "ESHUTDOWN" })
      const runtime = yield* Effect.runtime<never>()
      const clock = yield* Effect.clock
      const graceMillis = millis(options.killGrace, defaults.killGrace)
      const drainMillis = millis(options.drainTimeout, defaults.drainTimeout)
      const applied = Environment.apply(environment, runnerOptions?.baseEnvironment ?? process.env)
      const env = environmentOf(applied, options.env)
      const launch = sandbox === undefined
        ? undefined
        : yield* Effect.mapError(
          sandbox.prepare(
            { command: options.command, args: options.args ?? [], cwd: options.cwd, env },
            options.policy
          ),
          (error) =>
            new SpawnError({
              command: options.command,
              reason: "sandbox",
              errno: "ESANDBOX",
              detail: error.reason === "unavailable"
                ? `it must run in a sandbox, and none is available here. ${error.detail}`
                : error.reason === "setup_failed"
                ? `the sandbox could not be set up. ${error.detail}`
                : error.detail
            })
        )
      const acquire = Effect.flatMap(
        Effect.try({
          try: () =>
            new Child(
              options,
              launch ?? { command: options.command, args: options.args ?? [], cwd: options.cwd, env },
              withWithheld(launch?.confinement ?? Sandbox.unconfinedRunner, applied.withheld),
              launch?.pidNamespace ?? false,
              clock,
              runtime,
              live
            ),
          catch: (error) => error
        }),
        (child) =>
          Deferred.await(child.spawned).pipe(
            // Within the acquisition, which nothing interrupts: the release waits for the
            // result the lifecycle settles, and an interruption landing between the two
            // would leave it waiting for a lifecycle that never started.
            Effect.zipRight(Effect.forkDaemon(Effect.interruptible(lifecycle(child, drainMillis)))),
            Effect.as(child),
            Effect.tapError(() => Effect.sync(() => child.destroyPipes()))
          )
      ).pipe(Effect.catchAll((error) => Effect.flip(classify(options.command, options.cwd, error))))
      const child = yield* Effect.acquireRelease(acquire, (child, exit) =>
        Effect.suspend(() => {
          if (child.result !== undefined) return Effect.void
          // Nobody will read this output: do not wait for the pipes.
          Deferred.unsafeDone(child.discarded, Exit.void)
          return Effect.asVoid(stop(child, Exit.isInterrupted(exit) ? "interrupted" : "stopped", graceMillis))
        }))
      const timeoutMillis = options.timeout === undefined ? Infinity : Duration.toMillis(options.timeout)
      const idleMillis = options.idleTimeout === undefined ? Infinity : Duration.toMillis(options.idleTimeout)
      if (timeoutMillis !== Infinity || idleMillis !== Infinity) {
        yield* Effect.forkScoped(watch(child, timeoutMillis, idleMillis, graceMillis))
      }
      return {
        pid: child.pid,
        result: Deferred.await(child.settled),
        poll: Effect.sync(() => Option.fromNullable(child.result)),
        stop: (reason = "stopped") => stop(child, reason, graceMillis),
        stdout: child.stdout,
        stderr: child.stderr
      } satisfies Running
    })

    // The runtime is shutting down: no grace, every group gets SIGKILL.
    let closed = false
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closed = true
        const children = Array.from(live)
        for (const child of children) {
          child.stopReason ??= "shutdown"
          Deferred.unsafeDone(child.discarded, Exit.void)
          child.signal("SIGKILL")
        }
        // No grace is left for escapees still owed their SIGKILL either.
        for (const child of owed) child.signalEscaped("SIGKILL")
        // The wait is interruptible: a finalizer runs uninterruptibly, and the
        // timeout could then never end the wait for a child that does not die.
        return Effect.forEach(
          children,
          (child) => Effect.timeoutOption(Effect.interruptible(Deferred.await(child.settled)), killWait),
          { concurrency: "unbounded", discard: true }
        )
      })
    )

    return {
      start,
      run: (options: RunOptions) => Effect.scoped(Effect.flatMap(start(options), (running) => running.result)),
      liveCount: Effect.sync(() => live.size),
      sandbox
    } satisfies Service
  })

/**
 * A runner that confines every command with the {@link Sandbox.Sandbox} it
 * is given.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Service, never, Scope.Scope | Sandbox.Sandbox> = Effect.flatMap(
  Sandbox.Sandbox,
  makeWith
)

/**
 * A runner without a sandbox: every command runs with the full access of
 * this program, and each result says so (`sandbox: none (unconfined…)`). A
 * descendant that calls `setsid` and is re-parented before the runner looks
 * cannot be found and killed. For trusted, scripted commands only.
 *
 * @since 0.4.0
 * @category constructors
 */
export const makeUnconfined: Effect.Effect<Service, never, Scope.Scope> = makeWith(undefined)

/**
 * The runner, owning every process it starts: closing the layer kills
 * whatever still runs. Every command is confined by the
 * {@link Sandbox.Sandbox} it is given; see {@link layerUnconfined} for the
 * loudly named other choice.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<ProcessRunner, never, Sandbox.Sandbox> = Layer.scoped(ProcessRunner, make)

/**
 * {@link layer} with a say in each command's environment (see {@link Options}).
 *
 * @since 0.4.0
 * @category layers
 */
export const layerWith = (options: Options): Layer.Layer<ProcessRunner, never, Sandbox.Sandbox> =>
  Layer.scoped(ProcessRunner, Effect.flatMap(Sandbox.Sandbox, (sandbox) => makeWith(sandbox, options)))

/**
 * The runner without a sandbox (see {@link makeUnconfined}): commands run
 * unconfined, and every result says so.
 *
 * @since 0.4.0
 * @category layers
 */
export const layerUnconfined: Layer.Layer<ProcessRunner> = Layer.scoped(ProcessRunner, makeUnconfined)

/**
 * {@link layerUnconfined} with an environment policy (default
 * {@link Environment.defaultPolicy}): without a sandbox it is the one
 * thing still kept from commands.
 *
 * @since 0.4.0
 * @category layers
 */
export const layerUnconfinedWith = (options: Options): Layer.Layer<ProcessRunner> =>
  Layer.scoped(ProcessRunner, makeWith(undefined, options))

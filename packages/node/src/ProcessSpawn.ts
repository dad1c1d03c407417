/**
 * One child process as the runner's Node side knows it: the spawn in its
 * own process group, the listeners attached in the same tick, the signals
 * to its group and the escapees it left behind, and the result it settles
 * on. Node events complete its deferreds; the runner's Effect side only
 * waits on them.
 *
 * Apart because it is the callback-driven half of the runner: the Effect
 * side (`ProcessRunner`) decides when to stop and how long to wait, this
 * module only does what it is told, synchronously.
 *
 * @since 0.4.0
 */
import type * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Runtime from "effect/Runtime"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import {
  attempt,
  childrenOf,
  descendants,
  escapedDescendants,
  installHooks,
  liveMembers,
  marked,
  markVariable,
  send,
  statOf,
  unsettled
} from "./KillLedger.js"
import type { ProcEntry } from "./KillLedger.js"
import { Capture, SpillFile } from "./OutputCapture.js"
import type { Output } from "./OutputCapture.js"
import type * as Sandbox from "./Sandbox.js"

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
  /**
   * The child did not exit within the bound after SIGKILL (uninterruptible
   * sleep), or a process it started (found by its mark) was still alive
   * then: it is still tracked, and whatever stopped it is not proven.
   */
  readonly unkillable: boolean
  readonly durationMillis: number
  readonly stdout: Output
  readonly stderr: Output
  /** How the sandbox confined the command; {@link Sandbox.unconfinedRunner} for a runner without one. */
  readonly confinement: Sandbox.Confinement
}

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

const definedOnly = (env: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const defined: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) if (value !== undefined) defined[name] = value
  return defined
}

interface ExitStatus {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** How many children this process started: each child's mark is unique. */
let marks = 0

/**
 * One child process and everything the Node side knows about it. Node
 * events complete the deferreds; the Effect side only waits on them.
 */
export class Child {
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
  /**
   * The value of `markVariable` this child's command runs with (unconfined
   * only: in a PID namespace nothing can leave). Unique in this process.
   */
  readonly mark: string | undefined
  /** Marked processes still alive after the final SIGKILL, when the child was settled. */
  survivors = 0
  /**
   * Something of the command was still running when its leader went: one
   * of them may be leaving the group (or be mid-`exec`, its environment
   * unreadable) at the very moment of a scan, so the search for marked
   * processes is confirmed by a second scan.
   */
  unsettledAtReap = false
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
    this.mark = pidNamespace ? undefined : `${process.pid}.${++marks}`
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
        env: this.mark === undefined
          ? definedOnly(launch.env ?? {})
          : { ...definedOnly(launch.env ?? {}), [markVariable]: this.mark },
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
    // Those that left the tree too (a double fork reparents them to init) carry the mark.
    for (const escaped of this.markedOutside()) {
      const target = escaped.pgid === escaped.pid ? -escaped.pid : escaped.pid
      if (send(target, signal)) this.escaped.set(escaped.pid, escaped.start)
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

  /** Live processes carrying this child's mark outside its group. */
  markedOutside(): ReadonlyArray<ProcEntry> {
    return this.mark === undefined ? [] : marked(this.mark).filter((entry) => entry.pgid !== this.pid)
  }

  /**
   * After the exit: SIGKILL to what carries the mark outside the group
   * (daemons the command started with `setsid -f` do not outlive it);
   * returns how many there were. Called again until none is left: one may
   * leave the group between a scan and the group's SIGKILL.
   */
  killMarkedOutside(): number {
    const left = this.markedOutside()
    for (const entry of left) send(entry.pgid === entry.pid ? -entry.pid : entry.pid, "SIGKILL")
    return left.length
  }

  /** After the exit: kills what is left of the group and stops tracking it. */
  reapGroup(): void {
    const outside = this.killMarkedOutside()
    if (this.stopReason === undefined) this.killedAfterExit += outside
    if (this.stopReason !== undefined) {
      // Being stopped, the whole group got the signal already: kill the rest
      // at once. Counting them (a scan of every process) would only delay the result.
      send(-this.pid, "SIGKILL")
      this.unsettledAtReap = true
    } else {
      const members = liveMembers(this.pid)
      this.killedAfterExit += members
      // Even when the count found nobody: a member being forked right now
      // is not in /proc yet, and the group signal reaches it all the same.
      send(-this.pid, "SIGKILL")
      this.unsettledAtReap = members > 0 || outside > 0
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
      unkillable: this.exit === undefined || this.survivors > 0,
      durationMillis: this.clock.unsafeCurrentTimeMillis() - this.startedAt,
      stdout: this.stdout.output(this.spills[0]?.info()),
      stderr: this.stderr.output(this.spills[1]?.info())
    }
    this.result = result
    return result
  }
}

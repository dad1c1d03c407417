/**
 * Commands that outlive the call that started them: a dev server, a long
 * build, a command moved to the background when it ran past its time
 * limit. A model starts one, gets a job id at once, reads the job's new
 * output now and then, and stops it when done.
 *
 * A background job is still a managed process, never an orphan: each job
 * runs in its own scope forked from the service's scope, so closing the
 * service (the runtime shutting down) stops every job, with the same
 * SIGTERM, grace, SIGKILL sequence and the same group kill as a call in
 * the foreground. Output is kept as the process runner keeps it (a head and
 * a ring tail of bytes per stream), so a chatty job cannot grow memory;
 * output that scrolled out of the ring before it was read is counted and
 * reported as skipped.
 *
 * @since 0.1.0
 */
import * as ResourceLocks from "@tool-runtime/core/ResourceLocks"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as Truncation from "@tool-runtime/core/Truncation"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as OutputHygiene from "./OutputHygiene.js"
import * as ProcessRunner from "./ProcessRunner.js"

// ---------------------------------------------------------------------------
// models
// ---------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category models
 */
export interface Job {
  readonly id: string
  /** What the job is, for people and models: the command's description. */
  readonly label: string
  readonly running: ProcessRunner.Running
  readonly startedAt: number
}

/**
 * A process started by {@link Service.launch}, not yet a listed job.
 *
 * @since 0.1.0
 * @category models
 */
export interface Candidate {
  readonly running: ProcessRunner.Running
  /** Lists it as a job, with an id; adopting twice returns the same job. */
  readonly adopt: Effect.Effect<Job>
  /** Stops it if it still runs (SIGTERM, grace, SIGKILL) and forgets it. */
  readonly discard: Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category models
 */
export type Status = "running" | "exited" | "stopped"

/**
 * New output of a job since the previous read, cleaned for the model.
 *
 * @since 0.1.0
 * @category models
 */
export interface Read {
  readonly id: string
  readonly label: string
  readonly status: Status
  /** Set once the job has finished. */
  readonly result: ProcessRunner.Result | undefined
  readonly stdout: string
  readonly stderr: string
  /** Bytes that scrolled out of the kept tail before they were read. */
  readonly skippedBytes: number
  /** True when the job has finished and all its output was read: it is forgotten. */
  readonly removed: boolean
  readonly runningForMillis: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Info {
  readonly id: string
  readonly label: string
  readonly pid: number
  readonly status: Status
}

// ---------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------

/**
 * No job has that id.
 *
 * @since 0.1.0
 * @category errors
 */
export class JobNotFound extends Schema.TaggedError<JobNotFound>()("JobNotFound", {
  jobId: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  readonly retryable = false
  override get message(): string {
    const known = this.known.length === 0
      ? "There are no background jobs now."
      : `Current jobs: ${this.known.join(", ")}.`
    return `There is no background job "${
      ToolError.printableName(this.jobId)
    }" (it never existed, was stopped, or finished and its output was read). ${known}`
  }
}

/**
 * Starting one more job would pass the limit.
 *
 * @since 0.1.0
 * @category errors
 */
export class TooManyJobs extends Schema.TaggedError<TooManyJobs>()("TooManyJobs", {
  limit: Schema.Number
}) {
  readonly retryable = false
  override get message(): string {
    return `${this.limit} background jobs are already running: stop one with stop_background_job before starting another.`
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
  /** Starts a process as a job; it runs until it exits, is stopped, or the service closes. */
  readonly start: (
    options: ProcessRunner.RunOptions,
    label: string
  ) => Effect.Effect<Job, ProcessRunner.SpawnError | TooManyJobs>
  /**
   * Starts a process that may become a job: it belongs to the service (so
   * it dies with it) but is listed, with an id, only once adopted.
   */
  readonly launch: (
    options: ProcessRunner.RunOptions,
    label: string
  ) => Effect.Effect<Candidate, ProcessRunner.SpawnError | TooManyJobs>
  /** Output since the previous read. A finished job whose output is all read is forgotten. */
  readonly read: (id: string) => Effect.Effect<Read, JobNotFound>
  /** Marks the output up to these byte positions as read (it was shown another way). */
  readonly markRead: (
    id: string,
    upTo: { readonly stdout: number; readonly stderr: number }
  ) => Effect.Effect<void, JobNotFound>
  /** Stops the job (SIGTERM, grace, SIGKILL to its group), returns its last output and forgets it. */
  readonly stop: (id: string) => Effect.Effect<Read, JobNotFound>
  readonly list: Effect.Effect<ReadonlyArray<Info>>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class BackgroundJobs extends Context.Tag("@tool-runtime/node/BackgroundJobs")<BackgroundJobs, Service>() {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Jobs running at once. Default 16. */
  readonly maxRunning?: number | undefined
  /** Finished jobs kept for reading before the oldest are dropped. Default 32. */
  readonly maxFinished?: number | undefined
  /** Last bytes kept of each stream of a job, for reading. Default 256 KiB. */
  readonly tailBytes?: number | undefined
}

interface Cursor {
  position: number
  readonly decoder: OutputHygiene.StreamDecoder
}

interface Entry extends Job {
  readonly scope: Scope.CloseableScope
  readonly stdout: Cursor
  readonly stderr: Cursor
}

const cursor = (): Cursor => ({ position: 0, decoder: new OutputHygiene.StreamDecoder() })

/** Everything new in one stream, decoded across reads so that split characters stay whole. */
const drain = (live: ProcessRunner.LiveOutput, at: Cursor, final: boolean): { text: string; skipped: number } => {
  let text = ""
  let skipped = 0
  const total = live.totalBytes()
  // At most two pieces: the rest of the head, then the ring after a gap.
  while (at.position < total) {
    const window = live.read(at.position)
    if (window.skippedBytes > 0) {
      skipped += window.skippedBytes
      at.decoder.reset()
      text += `\n[… ${OutputHygiene.formatBytes(window.skippedBytes)} not kept …]\n`
    }
    if (window.bytes.length === 0 && window.skippedBytes === 0) break
    text += at.decoder.write(window.bytes)
    at.position = window.start + window.bytes.length
  }
  if (final) text += at.decoder.end()
  return { text: OutputHygiene.clean(text), skipped }
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options?: Options
): Effect.Effect<Service, never, ProcessRunner.ProcessRunner | Scope.Scope> =>
  Effect.gen(function*() {
    const runner = yield* ProcessRunner.ProcessRunner
    const clock = yield* Effect.clock
    // Jobs close in parallel: each may need its grace period.
    const jobsScope = yield* Scope.make(ExecutionStrategy.parallel)
    let closed = false
    yield* Effect.addFinalizer((exit) =>
      Effect.suspend(() => {
        closed = true
        return Scope.close(jobsScope, exit)
      })
    )
    const maxRunning = options?.maxRunning ?? 16
    const tailBytes = options?.tailBytes ?? 256 * 1024
    const maxFinished = options?.maxFinished ?? 32
    const jobs = new Map<string, Entry>()
    let sequence = 0

    const settled = (entry: Entry) => Effect.map(entry.running.poll, Option.getOrUndefined)

    const lookup = (id: string): Effect.Effect<Entry, JobNotFound> => {
      const entry = jobs.get(id)
      return entry !== undefined
        ? Effect.succeed(entry)
        : Effect.fail(new JobNotFound({ jobId: id, known: Array.from(jobs.keys()) }))
    }

    const readEntry = (entry: Entry, final: boolean): Effect.Effect<Read> =>
      Effect.map(settled(entry), (result) => {
        const done = final || result !== undefined
        const stdout = drain(entry.running.stdout, entry.stdout, done)
        const stderr = drain(entry.running.stderr, entry.stderr, done)
        const removed = result !== undefined
        if (removed) jobs.delete(entry.id)
        return {
          id: entry.id,
          label: entry.label,
          status: result === undefined ? "running" : result.stopped === undefined ? "exited" : "stopped",
          result,
          stdout: stdout.text,
          stderr: stderr.text,
          skippedBytes: stdout.skipped + stderr.skipped,
          removed,
          runningForMillis: result === undefined
            ? clock.unsafeCurrentTimeMillis() - entry.startedAt
            : result.durationMillis
        }
      })

    const stopEntry = (entry: Entry): Effect.Effect<void> =>
      Effect.zipRight(entry.running.stop("stopped"), Scope.close(entry.scope, Exit.void))

    const launch = (runOptions: ProcessRunner.RunOptions, label: string) =>
      Effect.gen(function*() {
        // A job started after shutdown would live in a closed scope, where nothing can stop it.
        if (closed) {
          return yield* new ProcessRunner.SpawnError({
            command: runOptions.command,
            reason: "shutdown",
            errno: "ESHUTDOWN"
          })
        }
        const finished: Array<Entry> = []
        let running = 0
        for (const entry of jobs.values()) {
          if ((yield* settled(entry)) === undefined) running++
          else finished.push(entry)
        }
        if (running >= maxRunning) return yield* new TooManyJobs({ limit: maxRunning })
        // Finished jobs nobody reads are dropped, oldest first, past a bound.
        for (const entry of finished.slice(0, Math.max(0, finished.length - maxFinished))) {
          jobs.delete(entry.id)
          yield* Scope.close(entry.scope, Exit.void)
        }
        const scope = yield* Scope.fork(jobsScope, ExecutionStrategy.sequential)
        // The job's tail must hold what accumulates between reads: the larger bound wins.
        const process = yield* runner.start({
          ...runOptions,
          tailBytes: Math.max(tailBytes, runOptions.tailBytes ?? 0)
        }).pipe(
          Scope.extend(scope),
          Effect.tapError(() => Scope.close(scope, Exit.void))
        )
        const startedAt = clock.unsafeCurrentTimeMillis()
        let adopted: Entry | undefined
        return {
          running: process,
          adopt: Effect.sync(() => {
            if (adopted === undefined) {
              // Ids are given only to listed jobs, so the ones a model sees count up without gaps.
              adopted = {
                id: `bg_${++sequence}`,
                label,
                running: process,
                startedAt,
                scope,
                stdout: cursor(),
                stderr: cursor()
              }
              jobs.set(adopted.id, adopted)
            }
            return adopted satisfies Job
          }),
          discard: Effect.suspend(() => {
            if (adopted !== undefined) jobs.delete(adopted.id)
            return Effect.zipRight(process.stop("stopped"), Scope.close(scope, Exit.void))
          })
        } satisfies Candidate
      })

    return {
      // No spans of their own: they would end with the command's errors unredacted (see ProcessRunner).
      start: (runOptions, label) => Effect.flatMap(launch(runOptions, label), (candidate) => candidate.adopt),
      launch,
      read: (id) => Effect.flatMap(lookup(id), (entry) => readEntry(entry, false)),
      markRead: (id, upTo) =>
        Effect.flatMap(lookup(id), (entry) =>
          Effect.sync(() => {
            // The decoders start fresh: what was shown was decoded on its own.
            entry.stdout.position = Math.max(entry.stdout.position, upTo.stdout)
            entry.stderr.position = Math.max(entry.stderr.position, upTo.stderr)
            entry.stdout.decoder.reset()
            entry.stderr.decoder.reset()
          })),
      stop: (id) =>
        Effect.flatMap(lookup(id), (entry) =>
          Effect.zipRight(
            stopEntry(entry),
            Effect.map(readEntry(entry, true), (read) => {
              jobs.delete(entry.id)
              return { ...read, removed: true }
            })
          )),
      list: Effect.suspend(() =>
        Effect.forEach(Array.from(jobs.values()), (entry) =>
          Effect.map(settled(entry), (result): Info => ({
            id: entry.id,
            label: entry.label,
            pid: entry.running.pid,
            status: result === undefined ? "running" : result.stopped === undefined ? "exited" : "stopped"
          })))
      )
    } satisfies Service
  })

/**
 * Jobs live as long as the layer: closing it stops every job.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<BackgroundJobs, never, ProcessRunner.ProcessRunner> =>
  Layer.scoped(BackgroundJobs, make(options))

// ---------------------------------------------------------------------------
// tools
// ---------------------------------------------------------------------------

const JobId = Schema.String.pipe(Schema.minLength(1)).annotations({
  description: "The id of a background job, as returned when it was started (for example bg_1)."
})

const formatMillis = ToolError.formatMillis

/**
 * The status line and new output of a job, as the model reads it.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderRead = (read: Read, maxCharsPerStream = 12_000): string => {
  const lines: Array<string> = []
  const result = read.result
  if (result === undefined) {
    lines.push(`job ${read.id} (${read.label}): running for ${formatMillis(read.runningForMillis)}`)
  } else {
    const how = result.exitCode !== null
      ? `exited with code ${result.exitCode}`
      : `ended by ${result.signal ?? "a signal"}${result.stopped === undefined ? "" : ` (${result.stopped})`}`
    lines.push(`job ${read.id} (${read.label}): ${how} after ${formatMillis(result.durationMillis)}`)
    if (result.killedAfterExit > 0) {
      lines.push(`note: ${result.killedAfterExit} process(es) it left running were killed`)
    }
  }
  if (read.skippedBytes > 0) {
    lines.push(`note: ${OutputHygiene.formatBytes(read.skippedBytes)} of output scrolled away before it was read`)
  }
  if (read.stdout === "" && read.stderr === "") lines.push("(no new output)")
  // The newest output matters most in a log: a long read keeps a little of its start and most of its end.
  const fit = (text: string) => {
    const trimmed = text.replace(/\n$/, "")
    if (trimmed.length <= maxCharsPerStream) return trimmed
    const cut = Truncation.headTail(trimmed, maxCharsPerStream, 0.2)
    return `${cut.head}\n[… ${cut.omitted.toLocaleString("en-US")} characters not shown …]\n${cut.tail}`
  }
  if (read.stdout !== "") lines.push("[stdout]", fit(read.stdout))
  if (read.stderr !== "") lines.push("[stderr]", fit(read.stderr))
  if (read.removed) lines.push(`(job ${read.id} is finished and no longer listed)`)
  return lines.join("\n")
}

/**
 * `read_background_output`: the new output of a job. Marked read-only (it
 * changes nothing outside the runtime), and it locks the job, so two reads
 * of one job never interleave.
 *
 * @since 0.1.0
 * @category tools
 */
export const readOutputTool = Tool.make("read_background_output", {
  description:
    "Returns the output a background job produced since the last read (stdout and stderr), and whether it is still running. Use it to check on a command started with run_in_background or moved to the background after its time limit.",
  parameters: { job_id: JobId },
  readOnly: true,
  timeout: "10 seconds",
  resources: ({ job_id }) => [ResourceLocks.writes(`job:${job_id}`)],
  handler: ({ job_id }) =>
    Effect.map(Effect.flatMap(BackgroundJobs, (jobs) => jobs.read(job_id)), (read) => renderRead(read))
})

/**
 * `stop_background_job`: SIGTERM to the job's process group, SIGKILL after
 * the grace period, then its last output.
 *
 * @since 0.1.0
 * @category tools
 */
export const stopTool = Tool.make("stop_background_job", {
  description:
    "Stops a background job: its whole process group gets SIGTERM, then SIGKILL if it is still running after a short grace period. Returns its last output.",
  parameters: { job_id: JobId },
  // The grace period plus the bounded drain fit well inside.
  timeout: "30 seconds",
  resources: ({ job_id }) => [ResourceLocks.writes(`job:${job_id}`)],
  handler: ({ job_id }) =>
    Effect.map(Effect.flatMap(BackgroundJobs, (jobs) => jobs.stop(job_id)), (read) => renderRead(read))
})

/**
 * Both job tools.
 *
 * @since 0.1.0
 * @category tools
 */
export const tools = [readOutputTool, stopTool] as const

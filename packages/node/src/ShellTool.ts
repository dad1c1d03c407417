/**
 * The shell tool (`bash` by default): runs one command line with `bash -c`
 * in the workspace and reports its exit code, signal, stdout and stderr.
 *
 * It is a thin layer over {@link ProcessRunner}, which owns the hard parts
 * (process groups, the SIGTERM-grace-SIGKILL sequence, bounded output, no
 * orphans). This module decides what the model is offered and what it sees:
 *
 * - Parameters: the command, a short description, a working directory that
 *   must resolve (symlinks included) inside the workspace root, and a time
 *   limit (default 2 min, at most 10 min, as the established CLIs do). The
 *   per-call limit is enforced by the runner; the tool's own deadline in
 *   the core runtime is the maximum plus the grace period and drain bound,
 *   so the core only steps in if the runner itself fails.
 * - What the model sees: a status line first (exit code, or the signal and
 *   why it was sent), notes (processes left behind and killed), then the
 *   stdout and stderr sections with escape codes stripped, progress redraws
 *   collapsed, binary output summarized and a long stream cut in the middle
 *   with the number of bytes left out. With `spillDirectory`, each stream
 *   is also written to a file byte for byte, and the view points to it when
 *   it had to cut.
 * - A non-zero exit code or a signal is a typed failure of the tool
 *   ({@link CommandFailed}, not retryable): the result is `isError: true`,
 *   so the model cannot read a failing build as a success, and when it is
 *   long the core keeps its head and its tail, where the error usually is.
 *   A time limit reached is core's `ToolError.Timeout` (code `timeout`),
 *   carrying the rendered result; like a command stopped because the
 *   runtime shut down, its outcome is unknown (unless the shell is
 *   read-only). A command that could not start is the runner's `SpawnError`.
 * - {@link makeWithJobs} adds `run_in_background` and the `onTimeout:
 *   "background"` policy (a command past its limit becomes a background job
 *   instead of being killed), with the job tools of {@link BackgroundJobs}.
 *
 * Scheduling: a command is not read-only (it runs alone in its turn) and
 * holds the `workspace` resource for writing, so file-tool calls of other
 * turns on the same runtime never overlap it. A command moved to the
 * background no longer holds it.
 *
 * The working directory check confines where a command starts, not what it
 * does: a command can still `cd /`. Confining what it touches is the job of
 * the {@link Sandbox}: with a runner from `ProcessRunner.layer`
 * and the same sandbox in `options.sandbox` (`NodeTools.layer` wires both
 * from one line), the model is told what the
 * sandbox allows, each result carries the policy in force (a line of the
 * text and `meta.sandbox`), and each call's permission subject says
 * whether it runs confined. `allowUnsandboxed` offers
 * `dangerously_disable_sandbox`, which a permission engine always asks
 * about.
 *
 * The module is past ~600 lines and still one concept, the shell tool as
 * the model meets it: the parameters, the description, the rendering of a
 * result and the working-directory check all serve this one tool, and
 * moving out the largest of them (the rendering, ~80 lines) would scatter
 * what a reader of the tool needs without bringing it under the mark.
 *
 * @since 0.1.0
 */
import type * as Policy from "@tool-runtime/core/Policy"
import * as ResourceLocks from "@tool-runtime/core/ResourceLocks"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as BackgroundJobs from "./BackgroundJobs.js"
import * as OutputHygiene from "./OutputHygiene.js"
import * as ProcessRunner from "./ProcessRunner.js"
import * as Sandbox from "./Sandbox.js"
import * as Workspace from "./Workspace.js"

// ---------------------------------------------------------------------------
// options
// ---------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The workspace root: commands start there, and `cwd` must resolve inside it. */
  readonly root: string
  /** Default `bash`. */
  readonly name?: string | undefined
  /** Replaces the description the model is shown. */
  readonly description?: string | undefined
  /** The shell, run as `<shell> -c <command>`. Default `bash` (from PATH); use `/bin/sh` where there is no bash. */
  readonly shell?: string | undefined
  /** Default 2 min. */
  readonly defaultTimeout?: Duration.DurationInput | undefined
  /** The most a call may ask for. Default 10 min. */
  readonly maxTimeout?: Duration.DurationInput | undefined
  /** Longest silence before the core runtime treats the call as stuck. Default: none (a silent build is normal). */
  readonly idleTimeout?: Duration.DurationInput | undefined
  /**
   * Between SIGTERM and SIGKILL. Default 2 s. Keep it at least 1 s below
   * the runtime's `cleanupTimeout` (default 5 s): an interrupted call spends
   * the grace, then up to 1 s waiting for the exit after SIGKILL, in its
   * cleanup, and the runtime abandons a cleanup that takes longer.
   */
  readonly killGrace?: Duration.DurationInput | undefined
  /** Characters of the result the model may see (the core truncates beyond). Default 30,000. */
  readonly outputLimit?: number | undefined
  /** Bytes kept of the start and of the end of each stream. Default 64 KiB each. */
  readonly captureBytes?: number | undefined
  /** Where each call's raw stdout and stderr are written in full; kept only when the view had to cut. */
  readonly spillDirectory?: string | undefined
  /** Added to the environment (a key set to `undefined` removes it). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /**
   * Lets calls run beside other read-only calls. Only for a shell that
   * cannot write (a read-only sandbox). Default `false`: commands run alone.
   */
  readonly readOnly?: boolean | undefined
  /** Default `high`. */
  readonly risk?: Tool.Risk | undefined
  /**
   * Where commands run. The sandbox the process runner confines them with
   * (`ProcessRunner.layer`): the tool then tells the model what the
   * sandbox allows, marks each call's permission subject `confined`, and
   * records the policy in each result's `meta.sandbox`. Or `"unconfined"`,
   * for a runner without one (`ProcessRunner.layerUnconfined`): the model
   * is told that commands run with the user's full access, and so is every
   * result. A tool given a sandbox refuses to run its commands on a runner
   * that has none. `NodeTools.layer` sets all of this up in one line.
   */
  readonly sandbox: Sandbox.Service | "unconfined"
  /**
   * Offers the model `dangerously_disable_sandbox`: a call that sets it
   * runs under `danger-full-access`, and its subject says `unconfined`,
   * which the permission engine always asks the user about. Default
   * `false`: every command runs in the sandbox.
   */
  readonly allowUnsandboxed?: boolean | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface JobOptions extends Options {
  /**
   * What happens when a foreground command reaches its time limit: `kill`
   * stops it; `background` moves it to a background job and returns its
   * output so far with the job id. Default `background`.
   */
  readonly onTimeout?: "kill" | "background" | undefined
}

/**
 * @since 0.1.0
 * @category defaults
 */
export const defaults = {
  name: "bash",
  shell: "bash",
  defaultTimeout: Duration.minutes(2),
  maxTimeout: Duration.minutes(10),
  outputLimit: 30_000,
  captureBytes: 64 * 1024,
  /**
   * Fewer escape codes and no pager or prompt waiting for a terminal that
   * is not there.
   */
  env: { NO_COLOR: "1", PAGER: "cat", GIT_PAGER: "cat", GIT_TERMINAL_PROMPT: "0" }
} as const

// ---------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------

/**
 * The command exited with a non-zero code or was ended by a signal. The
 * message is the whole rendered result: status line, notes and output.
 *
 * @since 0.1.0
 * @category errors
 */
export class CommandFailed extends Schema.TaggedError<CommandFailed>()("CommandFailed", {
  exitCode: Schema.NullOr(Schema.Number),
  signal: Schema.NullOr(Schema.String),
  output: Schema.String,
  /** Stopped part-way (the runtime shut down): what it did is not known. */
  outcomeUnknown: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) {
  readonly retryable = false
  override get message(): string {
    return this.output
  }
}

/**
 * The command reached its time limit and was stopped. It may have done
 * part of its work.
 *
 * @deprecated No longer produced: a command past its limit fails with core's
 * `ToolError.Timeout`, whose code and `outcomeUnknown` flag the model reads.
 * @since 0.1.0
 * @category errors
 */
export class CommandTimedOut extends Schema.TaggedError<CommandTimedOut>()("CommandTimedOut", {
  timeoutMillis: Schema.Number,
  output: Schema.String
}) {
  readonly retryable = false
  override get message(): string {
    return this.output
  }
}

// ---------------------------------------------------------------------------
// rendering
// ---------------------------------------------------------------------------

const formatMillis = ToolError.formatMillis

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

const statusLine = (result: ProcessRunner.Result, timeoutMillis: number): string => {
  const how = result.signal === null ? `exit code ${result.exitCode}` : `ended by ${result.signal}`
  switch (result.stopped) {
    case undefined:
      return result.exitCode !== null ? `exit code ${result.exitCode}` : `killed by signal ${result.signal}`
    case "timeout":
      return `timed out after ${formatMillis(timeoutMillis)} and was stopped (${how})`
    case "idle":
      return `stopped after producing no output for too long (${how})`
    default:
      return `stopped (${result.stopped}; ${how})`
  }
}

const section = (name: string, output: ProcessRunner.Output, lines: Array<string>): void => {
  const view = OutputHygiene.render(output)
  if (view.text === "") return
  lines.push(`[${name}]`, view.text.endsWith("\n") ? view.text.slice(0, -1) : view.text)
  if (view.invalidSequences > 0) {
    lines.push(
      `[${plural(view.invalidSequences, "invalid UTF-8 sequence", "invalid UTF-8 sequences")} shown as \ufffd]`
    )
  }
  const spill = output.spill
  if (spill !== undefined && spill.error === undefined && (view.binary || output.omittedBytes > 0)) {
    lines.push(`[full ${name}, ${OutputHygiene.formatBytes(spill.bytes)}: ${spill.path}]`)
  }
}

/**
 * The text the model reads for a finished command.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (result: ProcessRunner.Result, timeoutMillis: number): string => {
  const lines = [statusLine(result, timeoutMillis)]
  lines.push(result.confinement.summary)
  if (result.stopped === "timeout") {
    lines.push(
      "note: the command may have done part of its work; check before running it again. To give it more time, raise timeout_ms (at most the maximum) or run it in the background."
    )
  } else if (result.stopped === "shutdown") {
    lines.push(
      "note: the program running the tools shut down and stopped the command; it may have done part of its work; check before running it again."
    )
  }
  if (result.killedAfterExit > 0) {
    lines.push(
      `note: ${
        result.killedAfterExit === 1
          ? "1 process the command left running was"
          : `${result.killedAfterExit} processes the command left running were`
      } killed when it exited; start servers and watchers as background jobs instead.`
    )
  }
  if (result.pipesForcedClosed) {
    lines.push(
      "note: a process that left the command's process group kept its output open; output written after the command exited may be missing."
    )
  }
  if (result.unkillable) {
    lines.push("note: the process did not end even after SIGKILL (it is blocked in the kernel).")
  }
  const before = lines.length
  section("stdout", result.stdout, lines)
  section("stderr", result.stderr, lines)
  if (lines.length === before) lines.push("(no output)")
  return lines.join("\n")
}

// ---------------------------------------------------------------------------
// working directory
// ---------------------------------------------------------------------------

const realpath = (path: string) => Effect.tryPromise(() => NodeFs.promises.realpath(path))

/**
 * Resolves `cwd` (relative to the root, or absolute) to a real directory
 * inside the real root. Symlinks are followed first, so a link that points
 * out of the workspace is refused.
 *
 * @since 0.1.0
 * @category validation
 */
export const resolveWorkingDirectory = (
  root: string,
  cwd: string | undefined
): Effect.Effect<string, ToolError.RuleViolation> =>
  Effect.gen(function*() {
    const realRoot = yield* Effect.mapError(
      realpath(root),
      () =>
        new ToolError.RuleViolation({
          reason: "the workspace root is not accessible",
          fix: "This is a setup problem, not a problem with your call; tell the user."
        })
    )
    if (cwd === undefined || cwd === "" || cwd === ".") return realRoot
    const shown = JSON.stringify(cwd.length > 200 ? `${cwd.slice(0, 200)}…` : cwd)
    const real = yield* Effect.mapError(
      realpath(NodePath.resolve(realRoot, cwd)),
      () =>
        new ToolError.RuleViolation({
          reason: `the working directory ${shown} does not exist`,
          fix: "Create it first, or leave cwd out to run in the workspace root."
        })
    )
    if (!Workspace.isInside(realRoot, real)) {
      return yield* new ToolError.RuleViolation({
        reason: `the working directory ${shown} is outside the workspace`,
        fix: "Use a directory inside the workspace, as a path relative to its root."
      })
    }
    const isDirectory = yield* Effect.orElseSucceed(
      Effect.map(Effect.tryPromise(() => NodeFs.promises.stat(real)), (stat) => stat.isDirectory()),
      () => false
    )
    if (!isDirectory) {
      return yield* new ToolError.RuleViolation({
        reason: `the working directory ${shown} is not a directory`,
        fix: "Give the directory that contains the file, or leave cwd out."
      })
    }
    return real
  })

// ---------------------------------------------------------------------------
// tools
// ---------------------------------------------------------------------------

const unconfinedText =
  "Commands run unconfined: no sandbox, with the user's full access to files, network and processes; stay inside the workspace and ask before anything irreversible."

/** What the model must know of the sandbox to work with it rather than against it. */
const describeSandbox = (sandbox: Sandbox.Service | undefined, allowUnsandboxed: boolean): string | undefined => {
  if (sandbox === undefined) return unconfinedText
  if (!sandbox.status.available || sandbox.policy === "danger-full-access") return undefined
  const writes = sandbox.policy === "read-only"
    ? "nothing is writable except /tmp"
    : "the workspace and /tmp are writable, the rest of the file system is read-only"
  const escape = allowUnsandboxed
    ? " If the sandbox blocks something the task needs, you may set dangerously_disable_sandbox: true; the user is always asked first."
    : ""
  return `Commands run in a sandbox (${sandbox.policy}): ${writes}, some private paths (such as ~/.ssh) are hidden, and ${
    sandbox.network._tag === "On"
      ? "the network is on"
      : sandbox.network._tag === "Allowlist"
      ? "the network reaches only allowed domains, through the HTTP(S) proxy set in the environment"
      : "there is no network"
  }. A write outside the writable places fails with "Read-only file system".${escape}`
}

const describeTool = (
  maxMillis: number,
  defaultMillis: number,
  background: "none" | "kill" | "background",
  sandbox?: string | undefined
) =>
  [
    "Runs a shell command with bash -c in the workspace and returns its exit code (or the signal that ended it), stdout and stderr.",
    "The command runs in its own process group with no terminal and an empty stdin: interactive commands fail instead of waiting for input.",
    `Time limit: timeout_ms, default ${formatMillis(defaultMillis)}, at most ${formatMillis(maxMillis)}. ${
      background === "background"
        ? "A command still running at its limit is moved to the background (you get a job id) instead of being stopped."
        : "At the limit the whole process group is stopped (SIGTERM, then SIGKILL)."
    }`,
    background === "none"
      ? "Processes the command leaves running (for example `server &`) are killed when it exits."
      : "Processes the command leaves running (for example `server &`) are killed when it exits: start servers, watchers and other long tasks with run_in_background: true, then use read_background_output and stop_background_job.",
    "A non-zero exit code is reported as an error with the output. Long output keeps its beginning and its end; color codes and progress redraws are removed.",
    ...(sandbox === undefined ? [] : [sandbox])
  ].join(" ")

/**
 * The longest command line. Linux refuses a single argument over 128 KiB
 * (`E2BIG`), and reading a line costs more the longer it is: past this, a
 * script belongs in a file.
 */
const maxCommandChars = 20_000

const Command = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(maxCommandChars)
).annotations({
  description:
    `The command line, run as bash -c (at most ${maxCommandChars} characters: put a longer script in a file and run that). Use && to chain steps; quote paths with spaces.`
})

const Description = Schema.String.annotations({
  description: "What the command does, in 5 to 10 words (shown to the user, and the name of a background job)."
})

const Cwd = Schema.String.annotations({
  description: "Working directory, relative to the workspace root. Default: the workspace root. Must stay inside it."
})

const timeoutField = (maxMillis: number, defaultMillis: number) =>
  Schema.Int.pipe(Schema.between(1, maxMillis)).annotations({
    description: `Time limit in milliseconds. Default ${defaultMillis} (${
      formatMillis(defaultMillis)
    }), at most ${maxMillis} (${formatMillis(maxMillis)}).`
  })

interface Input {
  readonly command: string
  readonly description?: string | undefined
  readonly cwd?: string | undefined
  readonly timeout_ms?: number | undefined
  readonly run_in_background?: boolean | undefined
  readonly dangerously_disable_sandbox?: boolean | undefined
}

const DisableSandbox = Schema.Boolean.annotations({
  description:
    "Run this command outside the sandbox, with full access to the machine and the network. The user is always asked first. Only when the sandbox blocks something the task needs."
})

interface Prepared {
  readonly run: ProcessRunner.RunOptions
  readonly timeoutMillis: number
}

/** What both variants share: settings, the run options of a call, and its result. */
const setup = (options: Options) => {
  const root = options.root
  const maxMillis = Duration.toMillis(options.maxTimeout ?? defaults.maxTimeout)
  const defaultMillis = Math.min(maxMillis, Duration.toMillis(options.defaultTimeout ?? defaults.defaultTimeout))
  const grace = options.killGrace ?? ProcessRunner.defaults.killGrace
  const captureBytes = options.captureBytes ?? defaults.captureBytes
  const env = { ...defaults.env, ...options.env }
  const spillDirectory = options.spillDirectory
  // Output reaches the core's idle clock up to one report interval late:
  // a quarter of the idle limit leaves the rest for scheduling delays.
  const outputReportMillis = options.idleTimeout === undefined
    ? undefined
    : Math.max(1, Math.min(ProcessRunner.defaults.outputReportMillis, Duration.toMillis(options.idleTimeout) / 4))
  let spillSequence = 0

  const spillPaths = (callId: string): Effect.Effect<ProcessRunner.RunOptions["spill"]> => {
    if (spillDirectory === undefined) return Effect.succeed(undefined)
    const base = NodePath.join(
      spillDirectory,
      `${callId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64)}-${++spillSequence}`
    )
    return Effect.tryPromise(() => NodeFs.promises.mkdir(spillDirectory, { recursive: true })).pipe(
      Effect.as({ stdout: `${base}.stdout`, stderr: `${base}.stderr` }),
      // Without a spill file the view still works; only the pointer to the full output is lost.
      Effect.orElseSucceed(() => undefined)
    )
  }

  /** Spill files are kept only when the view had to leave something out. */
  const pruneSpills = (result: ProcessRunner.Result): Effect.Effect<void> =>
    Effect.forEach([result.stdout, result.stderr], (output) => {
      const path = output.spill?.path
      if (path === undefined || output.omittedBytes > 0 || OutputHygiene.render(output).binary) return Effect.void
      return Effect.ignore(Effect.tryPromise(() => NodeFs.promises.rm(path, { force: true })))
    }, { discard: true })

  const prepare = (input: Input, context: Tool.Context) =>
    Effect.gen(function*() {
      // Told of a sandbox the runner does not have, the tool would promise the model and
      // the permission engine a confinement that is not there.
      if (sandbox !== undefined && (yield* ProcessRunner.ProcessRunner).sandbox === undefined) {
        return yield* new ProcessRunner.SpawnError({
          command: options.shell ?? defaults.shell,
          reason: "sandbox",
          errno: "ESANDBOX",
          detail:
            "the shell tool was set up with a sandbox, but its process runner has none (ProcessRunner.layerUnconfined), so the command was not run. This is a setup problem, not a problem with your call: tell the user."
        })
      }
      const cwd = yield* resolveWorkingDirectory(root, input.cwd)
      if (input.description !== undefined) yield* context.progress(input.description)
      const timeoutMillis = input.timeout_ms ?? defaultMillis
      const prepared: Prepared = {
        timeoutMillis,
        run: {
          command: options.shell ?? defaults.shell,
          args: ["-c", input.command],
          cwd,
          env,
          timeout: timeoutMillis,
          killGrace: grace,
          headBytes: captureBytes,
          tailBytes: captureBytes,
          spill: yield* spillPaths(context.callId),
          onOutput: context.output(""),
          outputReportMillis,
          policy: input.dangerously_disable_sandbox === true ? "danger-full-access" : undefined
        }
      }
      return prepared
    })

  const readOnly = options.readOnly ?? false
  const toolName = options.name ?? defaults.name
  const sandbox = options.sandbox === "unconfined" ? undefined : options.sandbox
  /** Where the call's command runs, for the permission engine. */
  const placement = (input: Input): "confined" | "unconfined" | undefined => {
    if (sandbox === undefined || !sandbox.status.available) return undefined
    if (input.dangerously_disable_sandbox === true) return "unconfined"
    return sandbox.policy === "danger-full-access" ? undefined : "confined"
  }

  const conclude = (
    result: ProcessRunner.Result,
    timeoutMillis: number
  ): Effect.Effect<string, CommandFailed | ToolError.Timeout> =>
    Effect.zipRight(
      pruneSpills(result),
      Effect.suspend((): Effect.Effect<string, CommandFailed | ToolError.Timeout> => {
        const text = render(result, timeoutMillis)
        // Stopped part-way, by its limit or by shutdown: it may have done part of its work.
        if (result.stopped === "timeout") {
          return Effect.fail(
            new ToolError.Timeout({
              toolName,
              timeoutMillis,
              outcomeUnknown: !readOnly,
              // Stopped means its group is gone; a process that outlived SIGKILL (uninterruptible sleep) is not.
              cleanupAbandoned: result.unkillable,
              detail: text
            })
          )
        }
        if (result.exitCode === 0 && result.stopped === undefined) return Effect.succeed(text)
        return Effect.fail(
          new CommandFailed({
            exitCode: result.exitCode,
            signal: result.signal,
            output: text,
            outcomeUnknown: result.stopped === "shutdown" && !readOnly
          })
        )
      })
    )

  // A command may touch any file: it holds the whole workspace, so file
  // calls of other turns on the same runtime wait for it (and it for them).
  const slack = Duration.toMillis(grace) + Duration.toMillis(ProcessRunner.defaults.drainTimeout) + 5_000
  const workspaceAccess = [
    readOnly ? ResourceLocks.reads(Workspace.resourceKey) : ResourceLocks.writes(Workspace.resourceKey)
  ]
  const base = {
    readOnly,
    resources: () => workspaceAccess,
    risk: options.risk ?? ("high" as const),
    // The runner enforces the call's own limit; this outer bound only
    // catches a runner that failed to, after the grace and drain bounds.
    timeout: Duration.millis(maxMillis + slack),
    timeoutFor: (input: Input) => Duration.millis((input.timeout_ms ?? defaultMillis) + slack),
    idleTimeout: options.idleTimeout,
    outputLimit: options.outputLimit ?? defaults.outputLimit,
    // A command's summary ("42 passed", "Done in 3s") is at its end.
    truncation: { success: "head-tail" as const },
    validate: (input: Input) =>
      input.cwd === undefined ? Effect.void : Effect.asVoid(resolveWorkingDirectory(root, input.cwd)),
    subject: (input: Input): Policy.Subject => ({
      _tag: "Command",
      command: input.command,
      sandbox: placement(input),
      // Validation has checked it resolves inside the workspace; the engine
      // reads the command's relative paths from there.
      ...(input.cwd === undefined ? {} : { cwd: input.cwd })
    }),
    sandbox: sandbox === undefined
      ? () => Sandbox.unconfinedRunner.summary
      : (input: Input) =>
        sandbox.describe(input.dangerously_disable_sandbox === true ? "danger-full-access" : undefined)
  }
  const allowUnsandboxed = options.allowUnsandboxed === true
  const sandboxText = describeSandbox(sandbox, allowUnsandboxed)
  const sandboxParameters = allowUnsandboxed ? { dangerously_disable_sandbox: Schema.optional(DisableSandbox) } : {}

  return { maxMillis, defaultMillis, prepare, conclude, base, sandboxText, sandboxParameters }
}

/**
 * The shell tool, foreground only: a command that reaches its time limit
 * is stopped.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options) => {
  const { base, conclude, defaultMillis, maxMillis, prepare, sandboxParameters, sandboxText } = setup(options)
  return Tool.make(options.name ?? defaults.name, {
    ...base,
    description: options.description ?? describeTool(maxMillis, defaultMillis, "none", sandboxText),
    parameters: {
      command: Command,
      description: Schema.optional(Description),
      cwd: Schema.optional(Cwd),
      timeout_ms: Schema.optional(timeoutField(maxMillis, defaultMillis)),
      ...sandboxParameters
    },
    handler: (input, context) =>
      Effect.gen(function*() {
        const runner = yield* ProcessRunner.ProcessRunner
        const prepared = yield* prepare(input, context)
        const result = yield* runner.run(prepared.run)
        return yield* conclude(result, prepared.timeoutMillis)
      })
  })
}

const labelOf = (input: Input): string => {
  if (input.description !== undefined && input.description.trim() !== "") return input.description.trim()
  const line = input.command.trim().split("\n")[0] ?? ""
  return line.length > 60 ? `${line.slice(0, 60)}…` : line
}

const startedText = (job: BackgroundJobs.Job): string =>
  `Started in the background as job ${job.id} (pid ${job.running.pid}). Read its new output with read_background_output {"job_id": "${job.id}"}; stop it with stop_background_job {"job_id": "${job.id}"}.`

/**
 * The shell tool with background jobs: `run_in_background` starts a job
 * and returns its id at once, and with `onTimeout: "background"` (the
 * default) a command that reaches its time limit becomes a job instead of
 * being stopped. Register it with {@link BackgroundJobs.tools}, or use
 * {@link toolkit}.
 *
 * Interrupting the call (the turn was interrupted) stops the command even
 * under the background policy: only a command that reached its limit is
 * adopted.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeWithJobs = (options: JobOptions) => {
  const { base, conclude, defaultMillis, maxMillis, prepare, sandboxParameters, sandboxText } = setup(options)
  const onTimeout = options.onTimeout ?? "background"
  return Tool.make(options.name ?? defaults.name, {
    ...base,
    description: options.description ?? describeTool(maxMillis, defaultMillis, onTimeout, sandboxText),
    parameters: {
      command: Command,
      description: Schema.optional(Description),
      cwd: Schema.optional(Cwd),
      timeout_ms: Schema.optional(timeoutField(maxMillis, defaultMillis)),
      run_in_background: Schema.optional(Schema.Boolean.annotations({
        description:
          "Start the command as a background job and return its job id at once (for servers, watchers, long builds). No time limit applies; stop it with stop_background_job."
      })),
      ...sandboxParameters
    },
    handler: (input, context) =>
      Effect.gen(function*() {
        const jobs = yield* BackgroundJobs.BackgroundJobs
        const prepared = yield* prepare(input, context)
        if (input.run_in_background === true) {
          // No spill file: a job may run for days, and its file would grow without bound.
          const job = yield* jobs.start(
            { ...prepared.run, timeout: undefined, onOutput: undefined, spill: undefined },
            labelOf(input)
          )
          return startedText(job)
        }
        if (onTimeout === "kill") {
          const runner = yield* ProcessRunner.ProcessRunner
          return yield* conclude(yield* runner.run(prepared.run), prepared.timeoutMillis)
        }
        // Output restarts this call's idle clock only while the call waits for it.
        let forward = prepared.run.onOutput ?? Effect.void
        const candidate = yield* jobs.launch(
          { ...prepared.run, timeout: undefined, onOutput: Effect.suspend(() => forward) },
          labelOf(input)
        )
        const outcome = yield* Effect.timeoutOption(candidate.running.result, prepared.timeoutMillis).pipe(
          Effect.onInterrupt(() => candidate.discard)
        )
        if (Option.isSome(outcome)) {
          yield* candidate.discard
          return yield* conclude(outcome.value, prepared.timeoutMillis)
        }
        forward = Effect.void
        const job = yield* candidate.adopt
        const lines = [
          `still running after ${
            formatMillis(prepared.timeoutMillis)
          }: moved to the background as job ${job.id} (pid ${job.running.pid}) instead of being stopped.`,
          `Read its new output with read_background_output {"job_id": "${job.id}"}; stop it with stop_background_job {"job_id": "${job.id}"}.`,
          "Output so far:"
        ]
        const shownOut = job.running.stdout.snapshot()
        const shownErr = job.running.stderr.snapshot()
        // What is shown now is not shown again by read_background_output.
        yield* jobs.markRead(job.id, { stdout: shownOut.totalBytes, stderr: shownErr.totalBytes })
        const stdout = OutputHygiene.render(shownOut)
        const stderr = OutputHygiene.render(shownErr)
        if (stdout.text !== "") lines.push("[stdout]", stdout.text.replace(/\n$/, ""))
        if (stderr.text !== "") lines.push("[stderr]", stderr.text.replace(/\n$/, ""))
        if (stdout.text === "" && stderr.text === "") lines.push("(no output yet)")
        const spill = prepared.run.spill
        if (spill?.stdout !== undefined) {
          lines.push(`[its full output keeps being written to ${spill.stdout} and ${spill.stderr}]`)
        }
        return lines.join("\n")
      })
  })
}

/**
 * The shell tool with background jobs and the two job tools, ready to
 * register. Needs the `ProcessRunner` and `BackgroundJobs` layers.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolkit = (options: JobOptions) => [makeWithJobs(options), ...BackgroundJobs.tools] as const

/**
 * The stdio transport our client starts servers with: the SDK's wire format
 * (one JSON-RPC message per line), but a process the runtime can always
 * stop whole.
 *
 * The SDK's own transport starts the server as a plain child and signals
 * that one process: whatever the server started lives on after it, and a
 * server that ignores SIGTERM outlives a SIGKILL sent to a pid that already
 * exited. Here the server leads a process group of its own, and stopping it
 * is the runtime's usual sequence:
 *
 * 1. its input is closed, and it gets two seconds to exit by itself;
 * 2. SIGTERM to its group, and to every descendant that left the group
 *    (`setsid`), found through `/proc` while the server still lives and
 *    remembered by pid and start time; two seconds more;
 * 3. SIGKILL to the group and to the remembered escapees (only while the pid
 *    still names the same process), and to what they started since.
 *
 * The escapees are looked for every second while the server runs and at
 * every step, and the group is killed even when the server exited by itself
 * or crashed: a child it left behind in its group is
 * not left running. If the program exits without closing its scopes, a
 * process `exit` hook sends the SIGKILLs still owed.
 *
 * @since 0.4.0
 */
import { parseJSONRPCMessage, serializeMessage } from "@modelcontextprotocol/client"
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio"
import * as Effect from "effect/Effect"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import { PassThrough } from "node:stream"
import * as JsonLines from "./JsonLines.js"
import type * as McpConfig from "./McpConfig.js"

/**
 * @since 0.4.0
 * @category models
 */
export interface Options {
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  /** Added to the SDK's short list of inherited variables (`HOME`, `PATH`, …). */
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly cwd?: string | undefined
  /** Between each step of the stop sequence. Default 2,000 ms. */
  readonly graceMillis?: number | undefined
  /**
   * The longest message taken from the server, in bytes. Default 64 MiB. A
   * longer answer is skipped as it streams in, and the request it answers
   * fails with an error that says so.
   */
  readonly maxMessageBytes?: number | undefined
  /** `env` is the whole environment (a sandbox's launch), not an addition to the SDK's list. */
  readonly replaceEnvironment?: boolean | undefined
  /** Files opened read-only and passed as descriptors 3, 4, … (a sandbox's seccomp program). */
  readonly inheritFiles?: ReadonlyArray<string> | undefined
}

/**
 * The environment a server gets: the SDK's short list of inherited
 * variables (`HOME`, `PATH`, …), and the configuration's.
 *
 * @since 0.4.0
 * @category models
 */
export const environmentOf = (env: Readonly<Record<string, string>> | undefined): Record<string, string> => ({
  ...getDefaultEnvironment(),
  ...env
})

/**
 * A stdio server's program, before confinement.
 *
 * @since 0.4.0
 * @category sandbox
 */
export interface Launch {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string | undefined
  readonly env: Readonly<Record<string, string | undefined>> | undefined
}

/**
 * The same program, confined: what `Sandbox.prepare` of `@tool-runtime/node`
 * returns.
 *
 * @since 0.4.0
 * @category sandbox
 */
export interface Confined extends Launch {
  readonly inheritFiles?: ReadonlyArray<string> | undefined
  readonly confinement: {
    readonly summary: string
    /** `none` when the sandbox ran it without one (its `unconfined` fallback, or full access). */
    readonly backend?: string | undefined
  }
}

/**
 * Confines a launch under a policy (the sandbox's own when undefined).
 *
 * @since 0.4.0
 * @category sandbox
 */
export type Confine = (
  launch: Launch,
  policy?: McpConfig.StdioServer["sandbox"]
) => Effect.Effect<Confined, { readonly message: string }>

/** @internal */
export const definedOnly = (env: Readonly<Record<string, string | undefined>> | undefined) =>
  Object.fromEntries(Object.entries(env ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined))

/**
 * The program a stdio server starts as, confined when the client has a
 * sandbox. Never silently unconfined: an entry asking for a sandbox on a
 * client without one is refused.
 *
 * @since 0.4.0
 * @category sandbox
 */
export const launchOf = (
  config: McpConfig.StdioServer,
  confine: Confine | undefined
): Effect.Effect<Confined, string> => {
  const launch: Launch = {
    command: config.command,
    args: config.args ?? [],
    cwd: config.cwd,
    env: environmentOf(config.env)
  }
  if (confine === undefined) {
    return config.sandbox === undefined || config.sandbox === "danger-full-access"
      ? Effect.succeed({ ...launch, confinement: { summary: "unconfined" } })
      : Effect.fail(
        `its entry asks for the sandbox (${config.sandbox}) and this client has none; give McpClient its confine option (Sandbox.prepare of @tool-runtime/node)`
      )
  }
  return confine(launch, config.sandbox).pipe(
    Effect.mapError((error) => error.message),
    // A sandbox that runs it without one (its `unconfined` fallback) says so, at every start:
    // the client was given a sandbox to confine it.
    Effect.tap((confined) =>
      confined.confinement.backend === "none" && config.sandbox !== "danger-full-access"
        ? Effect.logWarning(`MCP server runs WITHOUT a sandbox: ${confined.confinement.summary}`)
        : Effect.void
    )
  )
}

interface Proc {
  readonly pid: number
  readonly pgid: number
  readonly alive: boolean
  readonly start: string
}

const attempt = <A>(f: () => A): A | undefined => {
  try {
    return f()
  } catch {
    return undefined
  }
}

const send = (target: number, signal: NodeJS.Signals | 0): boolean =>
  attempt(() => process.kill(target, signal)) === true

/**
 * The variable every server is started with, naming it: what it starts
 * carries it wherever it goes, a process re-parented before anyone looked
 * (a daemon's double fork) included. `@tool-runtime/node`'s commands use
 * the same one.
 */
const markVariable = "TOOL_RUNTIME_PROCESS_MARK"
let marks = 0

/** Live processes of this user whose environment holds `markVariable=mark`. */
const markedWith = (mark: string): ReadonlyArray<Proc> => {
  const needle = Buffer.from(`${markVariable}=${mark}\0`, "latin1")
  const found: Array<Proc> = []
  for (const name of attempt(() => NodeFs.readdirSync("/proc")) ?? []) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid <= 0) continue
    const environ = attempt(() => NodeFs.readFileSync(`/proc/${pid}/environ`))
    if (environ === undefined) continue
    const at = environ.indexOf(needle)
    if (at !== 0 && (at < 0 || environ[at - 1] !== 0)) continue
    const proc = procOf(pid)
    if (proc !== undefined && proc.alive) found.push(proc)
  }
  return found
}

const procOf = (pid: number): Proc | undefined => {
  const stat = attempt(() => NodeFs.readFileSync(`/proc/${pid}/stat`, "latin1"))
  if (stat === undefined) return undefined
  // The command name, in parentheses, may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return { pid, pgid: Number(fields[2]), alive: fields[0] !== "Z" && fields[0] !== "X", start: fields[19] ?? "" }
}

/** Every live descendant of `root`, by the children lists of its threads. */
const descendantsOf = (root: number): ReadonlyArray<Proc> => {
  const found: Array<Proc> = []
  const queue = [root]
  const seen = new Set(queue)
  while (queue.length > 0) {
    const pid = queue.pop()!
    for (const task of attempt(() => NodeFs.readdirSync(`/proc/${pid}/task`)) ?? []) {
      const children = attempt(() => NodeFs.readFileSync(`/proc/${pid}/task/${task}/children`, "latin1")) ?? ""
      for (const child of children.split(" ").filter((word) => word !== "").map(Number)) {
        if (seen.has(child)) continue
        seen.add(child)
        queue.push(child)
        const proc = procOf(child)
        if (proc !== undefined && proc.alive) found.push(proc)
      }
    }
  }
  return found
}

/** Servers started and not yet stopped whole, for the exit hook. */
const live = new Set<McpStdioTransport>()
let hookInstalled = false
const installHook = () => {
  if (hookInstalled) return
  hookInstalled = true
  process.on("exit", () => {
    for (const transport of live) transport.signal("SIGKILL")
  })
}

/**
 * A `Transport` for the SDK's `Client`, over a server process in its own
 * process group.
 *
 * @since 0.4.0
 * @category transports
 */
export class McpStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** What the server writes to stderr, available before `start`. */
  readonly stderr = new PassThrough()
  private child: NodeChildProcess.ChildProcess | undefined
  private readonly lines: JsonLines.LineReader
  /** Escapees found, by pid, with their start time. */
  private readonly escaped = new Map<number, string>()
  private leader = 0
  /** This server's value of `markVariable`. */
  private readonly mark = `mcp.${process.pid}.${++marks}`
  private watch: ReturnType<typeof setInterval> | undefined
  private answered = false
  private stopping: Promise<void> | undefined

  constructor(private readonly options: Options) {
    this.lines = new JsonLines.LineReader(
      options.maxMessageBytes ?? JsonLines.defaultMaxBytes,
      (line) => {
        let message: JSONRPCMessage
        try {
          message = parseJSONRPCMessage(JSON.parse(line))
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)))
          return
        }
        this.onmessage?.(message)
      },
      (id) => {
        const why =
          `The server's message is larger than this client takes (${this.lines.maxBytes} bytes); it was skipped.`
        this.onerror?.(new Error(why))
        // The request it answered fails now, rather than at its time limit.
        if (id !== null) this.onmessage?.({ jsonrpc: "2.0", id, error: { code: -32603, message: why } })
      }
    )
  }

  /** The server's pid (its group's id), once started. */
  get pid(): number | undefined {
    return this.leader === 0 ? undefined : this.leader
  }

  start(): Promise<void> {
    if (this.child !== undefined) return Promise.reject(new Error("McpStdioTransport already started"))
    return new Promise((resolve, reject) => {
      const inherited: Array<number> = []
      let child: NodeChildProcess.ChildProcess
      try {
        for (const file of this.options.inheritFiles ?? []) inherited.push(NodeFs.openSync(file, "r"))
        child = NodeChildProcess.spawn(this.options.command, [...(this.options.args ?? [])], {
          env: {
            ...(this.options.replaceEnvironment === true ? this.options.env : environmentOf(this.options.env)),
            [markVariable]: this.mark
          },
          ...(this.options.cwd === undefined ? {} : { cwd: this.options.cwd }),
          stdio: ["pipe", "pipe", "pipe", ...inherited],
          // Its own process group (and session): the group can be signalled whole.
          detached: true,
          shell: false,
          windowsHide: true
        })
      } catch (error) {
        reject(error)
        return
      } finally {
        // The child has its copies once spawn returns.
        for (const fd of inherited) attempt(() => NodeFs.closeSync(fd))
      }
      this.child = child
      child.on("error", (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.on("spawn", () => {
        this.leader = child.pid!
        live.add(this)
        installHook()
        // Once the server is dead its escapees can no longer be found from
        // it: look for them while it lives, not only when stopping it.
        this.watch = setInterval(() => this.findEscapees(), 1_000).unref()
        resolve()
      })
      child.on("exit", () => {
        clearInterval(this.watch)
        // Died by itself (a crash): what it left in its group, and the escapees seen, go with it.
        if (this.stopping === undefined) {
          this.signal("SIGKILL")
          live.delete(this)
        }
      })
      child.on("close", () => {
        this.child = undefined
        this.onclose?.()
      })
      child.stdin!.on("error", (error) => this.onerror?.(error))
      child.stdout!.on("error", (error) => this.onerror?.(error))
      child.stdout!.on("data", (chunk: Buffer) => {
        // Its first answer (the handshake): what it started on its way up is there by now.
        if (!this.answered) {
          this.answered = true
          this.findEscapees()
        }
        this.lines.push(chunk)
      })
      child.stderr!.pipe(this.stderr)
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin
    if (stdin === undefined || stdin === null || this.stopping !== undefined) {
      return Promise.reject(new Error("Not connected"))
    }
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once("drain", resolve)
    })
  }

  /** Remembers the descendants that left the group, while the server still lives to be asked. */
  private findEscapees(): void {
    if (this.leader === 0 || this.child?.exitCode !== null || this.child.signalCode !== null) return
    for (const proc of descendantsOf(this.leader)) {
      if (proc.pgid !== this.leader) this.escaped.set(proc.pid, proc.start)
    }
  }

  /** Signals the group and the escapees still the same processes, with what they started. */
  signal(signal: NodeJS.Signals): void {
    if (this.leader === 0) return
    this.findEscapees()
    // Those that left the tree as well carry the mark.
    for (const proc of markedWith(this.mark)) {
      if (proc.pgid !== this.leader) this.escaped.set(proc.pid, proc.start)
    }
    for (const [pid, start] of this.escaped) {
      const proc = procOf(pid)
      if (proc === undefined || !proc.alive || proc.start !== start) continue
      if (signal === "SIGKILL") { for (const below of descendantsOf(pid)) send(below.pid, signal) }
      send(proc.pgid === pid ? -pid : pid, signal)
    }
    send(-this.leader, signal)
  }

  close(): Promise<void> {
    this.stopping ??= this.stop()
    return this.stopping
  }

  private async stop(): Promise<void> {
    const child = this.child
    const grace = this.options.graceMillis ?? 2_000
    // Already gone: only what it left behind is owed a kill.
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) this.signal("SIGKILL")
    else if (this.leader !== 0) {
      const exited = new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve()
        else child.once("exit", () => resolve())
      })
      const wait = () => Promise.race([exited, new Promise((resolve) => setTimeout(resolve, grace).unref())])
      this.findEscapees()
      attempt(() => child.stdin?.end())
      await wait()
      if (child.exitCode === null && child.signalCode === null) {
        this.signal("SIGTERM")
        await wait()
      }
      // Whether it exited by itself or not: nothing it started outlives it.
      this.signal("SIGKILL")
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, grace).unref())])
      child.stdout?.destroy()
      child.stderr?.destroy()
    }
    live.delete(this)
    this.lines.clear()
  }
}

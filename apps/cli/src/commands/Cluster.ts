/**
 * The `cluster` command: tool-runtime across processes, on
 * `@tool-runtime/cluster`.
 *
 * - `cluster runner`: a runner process over a storage (an SQLite file or
 *   PostgreSQL), with the support-desk and coding tools (`ClusterTools`).
 * - `cluster calls`: a session's calls and their histories, read from the
 *   journal directly (no runner needed).
 * - `cluster` (or `cluster demo`): three runners and a client on loopback
 *   over an SQLite file in a temporary folder; the runner holding the
 *   sessions is SIGKILLed mid-turn, and a table shows what each call
 *   became (replayed, re-run, retried with its key, `outcome_unknown`) and
 *   which runner ran each attempt.
 *
 * The storage's URL is never printed nor logged: a PostgreSQL URL may hold
 * a password (read it from `TOOL_RUNTIME_STORAGE` rather than a flag, which
 * another user's `ps` shows).
 *
 * @since 0.5.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as CallJournal from "@tool-runtime/cluster/CallJournal"
import * as ClusterRuntime from "@tool-runtime/cluster/ClusterRuntime"
import type * as JournalRows from "@tool-runtime/cluster/JournalRows"
import * as Storage from "@tool-runtime/cluster/Storage"
import type * as ToolCall from "@tool-runtime/core/ToolCall"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Hash from "effect/Hash"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as Net from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Readline from "node:readline"
import * as CliError from "../CliError.js"
import * as ClusterTools from "../ClusterTools.js"
import * as Terminal from "../Terminal.js"
import * as Demo from "./Demo.js"

const storageEnv = "TOOL_RUNTIME_STORAGE"

// ---------------------------------------------------------------------------
// options
// ---------------------------------------------------------------------------

const storageOption = Options.text("storage").pipe(
  Options.optional,
  Options.withDescription(
    `sqlite:FILE or a postgres:// URL. Absent: read from the ${storageEnv} environment variable, which is ` +
      "where a URL with a password belongs (a flag shows in another user's ps). Never printed."
  )
)

/** The storage from the flag or the environment, parsed; its text never appears in an error. */
const resolveStorage = (flag: Option.Option<string>) =>
  Effect.suspend(() => {
    const text = Option.getOrUndefined(flag) ?? process.env[storageEnv]
    if (text === undefined || text.trim() === "") {
      return Effect.fail(new CliError.CliError({ message: `--storage is required (or set ${storageEnv})` }))
    }
    return Either.match(Storage.parse(text.trim()), {
      onLeft: (error) => Effect.fail(new CliError.CliError({ message: error.message })),
      onRight: (spec) => Effect.succeed(spec)
    })
  })

/** Any failure of the storage's layers, as one line that quotes no URL (`StorageError` quotes none). */
const storageFailure = (error: unknown) =>
  new CliError.CliError({
    message: (error as { readonly _tag?: unknown } | null)?._tag === "StorageError"
      ? (error as Storage.StorageError).message
      : `the storage could not be opened (${(error as { readonly _tag?: unknown } | null)?._tag ?? "error"})`
  })

// ---------------------------------------------------------------------------
// cluster runner
// ---------------------------------------------------------------------------

const runnerCommand = Command.make(
  "runner",
  {
    storage: storageOption,
    host: Options.text("host").pipe(
      Options.withDefault("127.0.0.1"),
      Options.withDescription("The address other runners and clients reach this runner at. Default: 127.0.0.1")
    ),
    port: Options.integer("port").pipe(Options.withDescription("The port this runner listens on.")),
    runnerId: Options.text("runner-id").pipe(
      Options.optional,
      Options.withDescription("Who ran each attempt, as the journal's history names it. Default: host:port/pid")
    ),
    fast: Options.boolean("fast").pipe(
      Options.withDescription(
        "Notice a dead runner within a few seconds (tests, demos on one machine). Every process of a cluster " +
          "must use the same timing."
      )
    )
  },
  ({ fast, host, port, runnerId, storage }) =>
    Effect.gen(function*() {
      const spec = yield* resolveStorage(storage)
      const id = Option.getOrElse(runnerId, () => `${host}:${port}/${process.pid}`)
      const runner = ClusterRuntime.layerRunner({
        storage: spec,
        host,
        port,
        runnerId: id,
        ...(fast ? { timing: ClusterRuntime.fastTiming } : {}),
        sqlite: { synchronous: "normal" }
      }).pipe(
        Layer.provide(ClusterTools.layer),
        Layer.tap(() =>
          Console.log(`ready ${id} on ${host}:${port} (${spec._tag === "Sqlite" ? "SQLite" : "PostgreSQL"})`)
        ),
        Layer.mapError(storageFailure)
      )
      // Until SIGTERM or Ctrl-C: the runner releases its sessions, and the others take them.
      return yield* Layer.launch(runner)
    }).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))
).pipe(
  Command.withDescription(
    "Runs a cluster runner with the support-desk and coding tools until SIGTERM or Ctrl-C. Prints a ready " +
      "line once it has joined."
  )
)

// ---------------------------------------------------------------------------
// cluster calls
// ---------------------------------------------------------------------------

const journalLayer = (spec: Storage.Spec) =>
  CallJournal.layer().pipe(
    Layer.provide(Storage.layer(spec, { synchronous: "normal" })),
    Layer.mapError(storageFailure)
  )

const since = (at: number, start: number) => `+${((at - start) / 1000).toFixed(2)} s`

const callRows = (records: ReadonlyArray<CallJournal.CallRecord>) =>
  records.map((r) => [r.key.turnId, r.key.callId, r.toolName, r.kind, r.state, String(r.attempt), r.runner])

const printCalls = (records: ReadonlyArray<CallJournal.CallRecord>, style: Terminal.Style) =>
  Effect.gen(function*() {
    const header = ["turn", "call", "tool", "kind", "state", "attempt", "runner"]
    const [head, ...lines] = Terminal.table(header, callRows(records), style)
    yield* Console.log(head)
    for (const [i, line] of lines.entries()) {
      const record = records[i]!
      yield* Console.log(line)
      for (const event of record.events) {
        yield* Console.log(style.dim(
          `    ${since(event.at, record.startedAt).padStart(9)}  ${
            event.event.padEnd(16)
          }  attempt ${event.attempt}  ` +
            `${event.runner}${event.detail === null ? "" : `  (${event.detail})`}`
        ))
      }
    }
  })

const callsCommand = Command.make(
  "calls",
  {
    storage: storageOption,
    session: Options.text("session").pipe(Options.withDescription("The session whose calls to list.")),
    inFlight: Options.boolean("in-flight").pipe(
      Options.withDescription("Only the calls that started and have no recorded result yet.")
    ),
    json: Options.boolean("json").pipe(Options.withDescription("One JSON array, for machines."))
  },
  ({ inFlight, json, session, storage }) =>
    Effect.gen(function*() {
      const spec = yield* resolveStorage(storage)
      if (spec._tag === "Sqlite" && !NodeFs.existsSync(spec.filename)) {
        return yield* new CliError.CliError({ message: `--storage ${spec.filename}: no such file` })
      }
      const records = yield* Effect.flatMap(CallJournal.CallJournal, (journal) =>
        journal.listSession(session, { inFlight })).pipe(
          Effect.provide(journalLayer(spec)),
          Effect.mapError(storageFailure)
        )
      if (json) {
        return yield* Console.log(JSON.stringify(
          records.map((r) => ({
            sessionId: r.key.sessionId,
            turnId: r.key.turnId,
            callId: r.key.callId,
            seq: r.seq,
            tool: r.toolName,
            kind: r.kind,
            state: r.state,
            attempt: r.attempt,
            runner: r.runner,
            idempotencyKey: r.idempotencyKey,
            startedAt: r.startedAt,
            finishedAt: r.finishedAt,
            result: r.result === null ? null : JSON.parse(r.result),
            events: r.events
          })),
          null,
          2
        ))
      }
      const style = yield* Terminal.detect
      if (records.length === 0) {
        return yield* Console.log(`No ${inFlight ? "in-flight " : ""}calls recorded for session ${session}.`)
      }
      yield* printCalls(records, style)
    }).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))
).pipe(
  Command.withDescription(
    "Lists a session's calls (turn, call id, tool, kind, state, attempt, runner) with each call's history, " +
      "from the journal: no runner needs to be up."
  )
)

// ---------------------------------------------------------------------------
// cluster demo
// ---------------------------------------------------------------------------

const shards = ClusterRuntime.fastTiming.shards ?? 300

/** The shard `@effect/cluster` places an entity id on (its `getShardId`): ids on one shard share a runner. */
const shardOf = (id: string) => Math.abs(Hash.string(id) % shards) + 1

/** An id named `prefix-N` on the same shard as `session`, so that one runner holds both. */
const beside = (session: string, prefix: string) => {
  for (let n = 1;; n++) if (shardOf(`${prefix}-${n}`) === shardOf(session)) return `${prefix}-${n}`
}

const freePort = Effect.async<number, Error>((resume) => {
  const server = Net.createServer()
  server.once("error", (error) => resume(Effect.fail(error)))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

interface Runner {
  readonly id: string
  readonly child: ChildProcess.ChildProcess
  readonly stderr: Array<string>
}

const exited = (child: ChildProcess.ChildProcess) => child.exitCode !== null || child.signalCode !== null

const waitExit = (child: ChildProcess.ChildProcess, millis: number) =>
  Effect.async<boolean>((resume) => {
    if (exited(child)) return resume(Effect.succeed(true))
    const timer = setTimeout(() => resume(Effect.succeed(false)), millis)
    child.once("exit", () => {
      clearTimeout(timer)
      resume(Effect.succeed(true))
    })
  })

/** Every child still alive, killed at once if this process exits some other way than through its scope. */
const children = new Set<ChildProcess.ChildProcess>()
const killAll = () => {
  for (const child of children) if (!exited(child)) child.kill("SIGKILL")
}

const startRunner = (id: string, port: number, storage: string, token: string): Runner => {
  const child = ChildProcess.spawn(
    process.execPath,
    [...process.execArgv, process.argv[1]!, "cluster", "runner", "--port", String(port), "--runner-id", id, "--fast"],
    {
      stdio: ["ignore", "pipe", "pipe"],
      // The storage travels in the environment, as the help says a URL should; the token names the demo's
      // processes, for whoever checks that none is left.
      env: { ...process.env, [storageEnv]: storage, TOOL_RUNTIME_CLUSTER_DEMO: token, NO_COLOR: "1" }
    }
  )
  children.add(child)
  const stderr: Array<string> = []
  Readline.createInterface({ input: child.stderr! }).on("line", (line) => {
    stderr.push(line)
    if (stderr.length > 20) stderr.shift()
  })
  return { id, child, stderr }
}

/** Stops a runner: SIGTERM, then SIGKILL if it is not gone within 2 s. */
const stopRunner = ({ child }: Runner) =>
  Effect.gen(function*() {
    if (!exited(child)) {
      child.kill("SIGTERM")
      if (!(yield* waitExit(child, 2_000))) {
        child.kill("SIGKILL")
        yield* waitExit(child, 3_000)
      }
    }
    children.delete(child)
  })

/**
 * The runners, child processes of this very program (`cluster runner`),
 * stopped together when the scope closes (the demo's end, a failure,
 * Ctrl-C).
 */
const startRunners = (ports: ReadonlyArray<number>, storage: string, token: string) =>
  Effect.acquireRelease(
    Effect.sync(() => ports.map((port, i) => startRunner(`runner-${i + 1}`, port, storage, token))),
    (runners) => Effect.forEach(runners, stopRunner, { concurrency: "unbounded", discard: true })
  )

const ready = (runner: Runner) =>
  Effect.async<void, CliError.CliError>((resume) => {
    const lines = Readline.createInterface({ input: runner.child.stdout! })
    lines.on("line", (line) => {
      if (line.startsWith("ready ")) resume(Effect.void)
    })
    runner.child.once("exit", (code) =>
      resume(Effect.fail(
        new CliError.CliError({
          message: `runner ${runner.id} exited (${code}) before it was ready: ${runner.stderr.join(" | ")}`
        })
      )))
  }).pipe(
    Effect.timeoutFail({
      duration: "60 seconds",
      onTimeout: () => new CliError.CliError({ message: `runner ${runner.id} was not ready within 60 s` })
    })
  )

interface Planned {
  readonly sessionId: string
  readonly turnId: string
  readonly title: string
  readonly calls: ReadonlyArray<ToolCall.Input>
}

const codingTurn = (session: string): Planned => ({
  sessionId: session,
  turnId: "turn-2",
  title: "coding turn: read, deploy a preview (3 s), read again",
  calls: [
    { id: "call_code_01", name: "read_file", input: { path: "src/math.js" } },
    { id: "call_code_02", name: "deploy_preview", input: { branch: "fix-subtract" } },
    { id: "call_code_03", name: "read_file", input: { path: "test/math.test.js" } }
  ]
})

const writerTurn = (session: string): Planned => ({
  sessionId: session,
  turnId: "turn-1",
  title: "coding turn: write the fix (3 s, idempotent)",
  calls: [{
    id: "call_write_01",
    name: "write_file",
    input: {
      path: "src/math.js",
      content: "export const add = (a, b) => a + b\nexport const subtract = (a, b) => a - b\n"
    }
  }]
})

const testsTurn = (session: string): Planned => ({
  sessionId: session,
  turnId: "turn-1",
  title: "coding turn: run the tests (3 s, a read)",
  calls: [{ id: "call_tests_01", name: "run_tests", input: {} }]
})

/** What became of a call, read from its history. */
const outcomeOf = (record: CallJournal.CallRecord, killed: string): string => {
  const events = record.events.map((e) => e.event)
  if (events.includes("outcome_unknown")) return "outcome_unknown (started on the killed runner)"
  if (events.includes("gave_up")) return "gave_up"
  if (events.includes("retry_idempotent")) return `retried with the same key (attempt ${record.attempt})`
  if (events.includes("rerun_read")) return `re-run: a read (attempt ${record.attempt})`
  const ranOn = record.events.find((e) => e.event === "started")?.runner
  if (events.includes("replayed")) return "replayed from history (not run again)"
  return ranOn === killed ? "ran once, before the kill" : "ran once"
}

const attemptsOf = (record: CallJournal.CallRecord, killed: string) =>
  record.events
    .filter((e: JournalRows.CallEvent) =>
      e.event === "started" || e.event === "rerun_read" || e.event === "retry_idempotent"
    )
    .map((e) => `${e.attempt}:${e.runner}${e.runner === killed ? " (killed)" : ""}`)
    .join(", ")

const answerOf = (result: ToolResult.ToolResult | undefined) =>
  result === undefined ? "-" : result.isError ? `error: ${result.error?.code ?? "?"}` : "ok"

const demo = (keep: boolean) =>
  Effect.scoped(Effect.gen(function*() {
    const style = yield* Terminal.detect
    const began = yield* Clock.currentTimeMillis
    const elapsed = Effect.map(Clock.currentTimeMillis, (now) => `${((now - began) / 1000).toFixed(1)} s`)
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "tool-runtime-cluster-"))),
      (dir) => keep ? Effect.void : Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
    )
    const file = NodePath.join(dir, "cluster.db")
    const storage = `sqlite:${file}`
    const token = NodePath.basename(dir)
    yield* Effect.acquireRelease(
      Effect.sync(() => process.on("exit", killAll)),
      () => Effect.sync(() => process.off("exit", killAll))
    )
    yield* Console.log(style.bold("tool-runtime cluster: three runners, one killed mid-turn") + "\n")
    yield* Console.log(style.dim(`storage: an SQLite file in ${dir} (${keep ? "kept" : "removed at the end"})`))

    // The runners, started together; each must be up before anything is sent.
    const ports = yield* Effect.forEach([1, 2, 3], () => freePort)
    const runners = yield* startRunners(ports, storage, token)
    yield* Effect.forEach(runners, ready, { concurrency: "unbounded", discard: true })
    for (const [i, runner] of runners.entries()) {
      yield* Console.log(style.dim(`${runner.id}: pid ${runner.child.pid}, 127.0.0.1:${ports[i]}`))
    }
    yield* Console.log(`${yield* elapsed}  three runners up; the client joins (this process)`)

    const client = yield* Layer.build(
      ClusterRuntime.layerClient({
        storage: Either.getOrThrow(Storage.parse(storage)),
        timing: ClusterRuntime.fastTiming,
        sqlite: { synchronous: "normal" }
      }).pipe(Layer.provide(ClusterTools.layer), Layer.mapError(storageFailure))
    )
    const runtime = Context.get(client, ToolRuntime.ToolRuntime)
    const journal = Context.get(client, CallJournal.CallJournal)
    // Let the runners settle who holds which shard before the first turn.
    yield* Effect.sleep("1 second")

    const session = "agent-7"
    const writer = beside(session, "agent-writer")
    const tester = beside(session, "agent-tests")
    const answers = new Map<string, ReadonlyArray<ToolResult.ToolResult>>()
    const send = (turn: Planned) =>
      Effect.tap(
        runtime.runTurn(turn.calls, { sessionId: turn.sessionId, turnId: turn.turnId }),
        (results) => Effect.sync(() => answers.set(`${turn.sessionId}/${turn.turnId}`, results))
      )

    const desk: Planned = {
      sessionId: session,
      turnId: "turn-1",
      title: "support-desk turn: two reads, then a reply",
      calls: Demo.turnOne
    }
    yield* send(desk)
    const holder = (yield* journal.listSession(session))[0]?.runner ?? "?"
    yield* Console.log(`${yield* elapsed}  ${session} turn-1 (${desk.title}) answered by ${holder}`)

    const slow = [codingTurn(session), writerTurn(writer), testsTurn(tester)]
    yield* Console.log(
      `${yield* elapsed}  sending ${slow.length} coding turns at once: ${session} and two sessions on its shard ` +
        `(${writer}, ${tester}), all held by one runner`
    )
    const fiber = yield* Effect.fork(Effect.forEach(slow, send, { concurrency: "unbounded" }))

    // The kill: once the deploy, the write and the tests are all under way.
    const slowTools = new Set(["deploy_preview", "write_file", "run_tests"])
    const inFlight = Effect.map(
      Effect.forEach(slow, (turn) => journal.listSession(turn.sessionId, { inFlight: true })),
      (lists) => lists.flat().filter((r) => slowTools.has(r.toolName))
    )
    const underWay = yield* inFlight.pipe(
      Effect.filterOrFail((found) => found.length === slow.length, () => "not yet"),
      Effect.retry(Schedule.spaced("100 millis")),
      Effect.timeout("20 seconds"),
      Effect.option
    )
    const victimId = Option.match(underWay, { onNone: () => undefined, onSome: (found) => found[0]?.runner })
    const victim = runners.find((r) => r.id === victimId)
    let killedAt = 0
    if (victim === undefined) {
      yield* Console.log(style.red(`${yield* elapsed}  the slow calls did not all start within 20 s: no kill`))
    } else {
      victim.child.kill("SIGKILL")
      killedAt = yield* Clock.currentTimeMillis
      const calls = Option.getOrElse(underWay, () => []).map((r) => `${r.toolName} (${r.kind})`).join(", ")
      yield* Console.log(
        `${yield* elapsed}  ${style.red(`SIGKILL ${victim.id}`)} (pid ${victim.child.pid}) inside ${calls}`
      )
    }
    yield* Fiber.join(fiber)
    const answeredAt = yield* Clock.currentTimeMillis
    yield* Console.log(`${yield* elapsed}  every turn answered`)

    // The table, from the journal.
    const killed = victim?.id ?? ""
    const turns = [desk, ...slow]
    const records = yield* Effect.forEach([session, writer, tester], (s) => journal.listSession(s))
    const all = records.flat()
    const rows = turns.flatMap((turn) =>
      turn.calls.map((call, i) => {
        const record = all.find((r) =>
          r.key.sessionId === turn.sessionId && r.key.turnId === turn.turnId && r.key.callId === call.id
        )
        const answer = answerOf(answers.get(`${turn.sessionId}/${turn.turnId}`)?.[i])
        return record === undefined
          ? [turn.sessionId, turn.turnId, call.name, "-", "not recorded", "-", answer]
          : [
            turn.sessionId,
            turn.turnId,
            call.name,
            record.kind,
            outcomeOf(record, killed),
            attemptsOf(record, killed),
            answer
          ]
      })
    )
    yield* Console.log("")
    yield* Console.log(
      Terminal.table(["session", "turn", "tool", "kind", "what happened", "attempts (runner)", "answer"], rows, style)
        .map((line) => `  ${line}`).join("\n")
    )
    yield* Console.log("")
    if (killedAt > 0) {
      const firstAfter = all
        .flatMap((r) => r.events)
        .filter((e) => e.at >= killedAt && e.runner !== killed)
        .reduce<JournalRows.CallEvent | undefined>((a, e) => a === undefined || e.at < a.at ? e : a, undefined)
      yield* Console.log(
        firstAfter === undefined
          ? "failover: no runner decided on the killed runner's calls"
          : `failover: ${
            ((firstAfter.at - killedAt) / 1000).toFixed(1)
          } s from the SIGKILL to ${firstAfter.runner}'s ` +
            `first decision on the moved sessions (${firstAfter.event}); the turns were answered ` +
            `${((answeredAt - killedAt) / 1000).toFixed(1)} s after the kill`
      )
    }
    yield* Console.log(
      style.dim(
        "replayed: a recorded result, returned as stored; re-run: a read, run again; retried: an idempotent write, " +
          "run again with the same idempotency key; outcome_unknown: a write that had started where it died, " +
          "never run twice."
      )
    )
    yield* Console.log(style.dim(
      `list a session's calls with: tool-runtime cluster calls --storage sqlite:${keep ? file : "FILE"} ` +
        `--session ${session}${keep ? "" : " (run the demo with --keep to keep the file)"}`
    ))
    yield* Console.log(`${yield* elapsed}  stopping the runners`)
  }))

const demoDescription =
  "Starts three runners and a client on loopback over an SQLite file in a temporary folder, SIGKILLs the " +
  "runner holding the sessions mid-turn, and shows what each call became: replayed, re-run, retried with " +
  "its key, or outcome_unknown."

const demoCommand = Command.make("demo", {
  keep: Options.boolean("keep").pipe(
    Options.withDescription("Keep the SQLite file (and its folder) for `cluster calls` afterwards.")
  )
}, ({ keep }) => demo(keep)).pipe(Command.withDescription(demoDescription))

/**
 * @since 0.5.0
 * @category commands
 */
export const command = Command.make("cluster", {}, () => demo(false)).pipe(
  Command.withDescription(`Durable tool calls across processes. With no subcommand: the demo. ${demoDescription}`),
  Command.withSubcommands([demoCommand, runnerCommand, callsCommand])
)

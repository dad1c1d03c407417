/**
 * The cluster's cost and throughput:
 *
 * 1. Per-call overhead: 1-call turns of a trivial `echo` tool, sent one after
 *    another, through core's in-process runtime (`ToolRuntime.layerDefault`),
 *    the in-process durable runtime (`DurableRuntime.layer` over SQLite: a
 *    journal `begin` and `finish` per call), and the cluster (this process a
 *    client, one runner as a real process, over SQLite), interleaved round by
 *    round; medians of the rounds' per-call times.
 * 2. Throughput: 1,000 1-call `echo` turns over 50 sessions (each session's
 *    turns one after another, the sessions all at once) through 1, 2 and 4
 *    runners (real processes) over SQLite, after a warm-up turn per session;
 *    calls/s and the p50/p95 of the turn latency the client saw. Then over
 *    PostgreSQL, on a server the cluster tests' fixture starts (its binaries
 *    on PATH or under /usr/lib/postgresql), or on the database
 *    BENCH_POSTGRES_URL names; BENCH_POSTGRES=0 to skip it.
 *
 * The runners are `packages/cluster/test/fixtures/ClusterNode.ts`, bundled
 * by this script. Run: pnpm bench:cluster (BENCH_ROUNDS, BENCH_CALLS,
 * BENCH_SESSIONS to change the counts).
 */
import * as ClusterRuntime from "@tool-runtime/cluster/ClusterRuntime"
import * as DurableRuntime from "@tool-runtime/cluster/DurableRuntime"
import * as Storage from "@tool-runtime/cluster/Storage"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const CALLS = Number(process.env.BENCH_CALLS ?? 1000)
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 50)
const PER_ROUND = { inProcess: 2000, durable: 300, cluster: 100 }

// Run from bench/dist/cluster.mjs.
const repo = NodePath.resolve(NodePath.dirname(NodeUrl.fileURLToPath(import.meta.url)), "..", "..")
const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-cluster-"))

const echo = Tool.make("echo", {
  description: "Answers its text.",
  parameters: { text: Schema.String },
  readOnly: true,
  handler: ({ text }) => Effect.succeed(text)
})
const services = Layer.mergeAll(
  Registry.layer([echo]),
  ArtifactStore.layerMemory(),
  Redactor.layerDefault,
  Policy.layerAllowAll
)
const timing = ClusterRuntime.fastTiming

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const percentile = (xs: ReadonlyArray<number>, p: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
}
const fmt = (ms: number) => ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`

// The runner processes: the cluster tests' fixture, bundled here.
const runnerScript = NodePath.join(repo, "packages", "cluster", "build", "bench", "ClusterNode.mjs")
const esbuild = await import("esbuild")
await esbuild.build({
  entryPoints: [NodePath.join(repo, "packages", "cluster", "test", "fixtures", "ClusterNode.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  conditions: ["@tool-runtime/source"],
  external: ["better-sqlite3", "pg-native"],
  banner: {
    js:
      "import { createRequire as __createRequire } from \"node:module\"; const require = __createRequire(import.meta.url);"
  },
  outfile: runnerScript,
  logLevel: "warning"
})

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = NodeNet.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as NodeNet.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

const children: Array<NodeChildProcess.ChildProcess> = []
const startRunner = async (spec: string, name: string) => {
  const port = await freePort()
  const child = NodeChildProcess.spawn(process.execPath, [
    runnerScript,
    "runner",
    spec,
    String(port),
    "/dev/null",
    name
  ], {
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.push(child)
  let err = ""
  child.stderr.on("data", (chunk: Buffer) => err += chunk.toString())
  await new Promise<void>((resolve, reject) => {
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes("ready")) resolve()
    })
    child.once("exit", () => reject(new Error(`runner ${name} exited: ${err}`)))
  })
  return child
}
const stopRunners = async () => {
  await Promise.all(
    children.splice(0).map((child) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      })
    )
  )
}
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL")
})

const clientRuntime = (spec: string) =>
  ManagedRuntime.make(
    ClusterRuntime.layerClient({
      storage: Either.getOrThrow(Storage.parse(spec)),
      timing,
      sqlite: { synchronous: "normal" }
    })
      .pipe(Layer.provide(services))
  )

const call = (id: string) => [{ id, name: "echo", input: { text: "hi" } }]

let turnCounter = 0
/** Sends `n` 1-call turns one after another; ms per call. */
const sequential = async (tools: ToolRuntime.Service, n: number, session: string) => {
  const started = performance.now()
  for (let i = 0; i < n; i++) {
    const turnId = `t${++turnCounter}`
    const [result] = await Effect.runPromise(tools.runTurn(call("c1"), { sessionId: session, turnId }))
    if (result?.isError === true) throw new Error(`echo failed: ${JSON.stringify(result)}`)
  }
  return (performance.now() - started) / n
}

console.log(
  `cluster bench: ${NodeOs.cpus().length} cores, node ${process.version}, fastTiming (message poll ${timing.messagePoll}, ` +
    `lock expiration ${timing.lockExpiration}), SQLite synchronous=normal`
)

// 1. Per-call overhead.
{
  const inProcess = ManagedRuntime.make(ToolRuntime.layerDefault([echo]))
  const durable = ManagedRuntime.make(
    DurableRuntime.layer({
      filename: NodePath.join(root, "durable.db"),
      runnerId: "bench",
      sqlite: { synchronous: "normal" }
    }).pipe(Layer.provide(services))
  )
  const spec = `sqlite:${NodePath.join(root, "overhead.db")}`
  await startRunner(spec, "bench-overhead")
  const cluster = clientRuntime(spec)
  const tools = {
    inProcess: await inProcess.runPromise(ToolRuntime.ToolRuntime),
    durable: await durable.runPromise(ToolRuntime.ToolRuntime),
    cluster: await cluster.runPromise(ToolRuntime.ToolRuntime)
  }
  // Warm-up: the JIT, the journal's tables, the session placed on the runner.
  await sequential(tools.inProcess, 200, "warm")
  await sequential(tools.durable, 50, "warm")
  await sequential(tools.cluster, 20, "warm")
  const times = { inProcess: [] as Array<number>, durable: [] as Array<number>, cluster: [] as Array<number> }
  for (let round = 0; round < ROUNDS; round++) {
    times.inProcess.push(await sequential(tools.inProcess, PER_ROUND.inProcess, `s${round}`))
    times.durable.push(await sequential(tools.durable, PER_ROUND.durable, `s${round}`))
    times.cluster.push(await sequential(tools.cluster, PER_ROUND.cluster, `s${round}`))
  }
  const base = median(times.inProcess)
  console.log(`\n1. Per-call overhead, 1-call echo turns one after another (median of ${ROUNDS} interleaved rounds)`)
  console.log(`  in-process ToolRuntime.layerDefault     ${fmt(base).padStart(10)} per call`)
  for (
    const [name, label] of [["durable", "in-process DurableRuntime (SQLite)  "], [
      "cluster",
      "cluster, 1 runner process (SQLite)   "
    ]] as const
  ) {
    const m = median(times[name])
    console.log(
      `  ${label}  ${fmt(m).padStart(10)} per call  (+${fmt(m - base)}, x${(m / base).toFixed(0)})  rounds: ${
        times[name].map(fmt).join(", ")
      }`
    )
  }
  await cluster.dispose()
  await durable.dispose()
  await inProcess.dispose()
  await stopRunners()
}

// 2. Throughput over 1, 2, 4 runners.
let throughputRuns = 0
const throughput = async (label: string, spec: string, runners: number) => {
  for (let i = 0; i < runners; i++) await startRunner(spec, `bench-${label}-${runners}-${i}`)
  const cluster = clientRuntime(spec)
  const tools = await cluster.runPromise(ToolRuntime.ToolRuntime)
  const run = `r${runners}x${++throughputRuns}`
  const sessions = Array.from({ length: SESSIONS }, (_, i) => `${run}-s${i}`)
  // Warm-up: a turn per session, so every session is placed and its runner's entity up.
  await Promise.all(sessions.map((session) => sequential(tools, 1, session)))
  const latencies: Array<number> = []
  const perSession = Math.ceil(CALLS / SESSIONS)
  const started = performance.now()
  await Promise.all(sessions.map(async (session) => {
    for (let i = 0; i < perSession; i++) {
      const t0 = performance.now()
      const [result] = await Effect.runPromise(tools.runTurn(call("c1"), { sessionId: session, turnId: `m${i}` }))
      latencies.push(performance.now() - t0)
      if (result?.isError === true) throw new Error(`echo failed: ${JSON.stringify(result)}`)
    }
  }))
  const seconds = (performance.now() - started) / 1000
  console.log(
    `  ${label.padEnd(10)} ${String(runners).padStart(2)} runner(s): ${latencies.length} calls in ${
      seconds.toFixed(1)
    } s, ${(latencies.length / seconds).toFixed(0).padStart(5)} calls/s, turn latency p50 ${
      fmt(percentile(latencies, 0.5))
    }, p95 ${fmt(percentile(latencies, 0.95))}, max ${fmt(Math.max(...latencies))}`
  )
  await cluster.dispose()
  await stopRunners()
}

console.log(
  `\n2. Throughput: ${CALLS} 1-call echo turns over ${SESSIONS} sessions (a session's turns in order, the sessions at once)`
)
for (const runners of [1, 2, 4]) {
  await throughput("SQLite", `sqlite:${NodePath.join(root, `throughput-${runners}.db`)}`, runners)
}
// PostgreSQL: a server of its own, started by the cluster tests' fixture (bundled here), unless
// BENCH_POSTGRES_URL names an empty database, or BENCH_POSTGRES=0.
interface PostgresServer {
  readonly createDatabase: () => Promise<string>
  readonly stop: () => Promise<void>
}
if (process.env.BENCH_POSTGRES !== "0") {
  let server: PostgresServer | undefined
  try {
    const urls: Array<string> = []
    if (process.env.BENCH_POSTGRES_URL !== undefined) {
      urls.push(process.env.BENCH_POSTGRES_URL, process.env.BENCH_POSTGRES_URL, process.env.BENCH_POSTGRES_URL)
    } else {
      const fixture = NodePath.join(repo, "packages", "cluster", "build", "bench", "Postgres.mjs")
      await esbuild.build({
        entryPoints: [NodePath.join(repo, "packages", "cluster", "test", "fixtures", "Postgres.ts")],
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        outfile: fixture,
        logLevel: "warning"
      })
      const { start } = await import(fixture) as { readonly start: () => Promise<PostgresServer> }
      server = await start()
      for (let i = 0; i < 3; i++) urls.push(await server.createDatabase())
    }
    for (const [i, runners] of [1, 2, 4].entries()) await throughput("PostgreSQL", urls[i]!, runners)
  } catch (error) {
    console.log(`  PostgreSQL: not run (${error instanceof Error ? error.message.split("\n")[0] : error})`)
  } finally {
    await server?.stop()
  }
}

console.log(`
What limits it: ${NodeOs.cpus().length} cores shared by the client, every runner and the storage (more runners than
cores only add contention; the PostgreSQL server runs on them too); SQLite has one writer at a time (each turn writes the cluster's message and reply
and the journal's begin and finish, each a BEGIN IMMEDIATE transaction, retried asynchronously when the file is
locked); and what the cluster does by polling (fastTiming: message poll ${timing.messagePoll}, assignments refreshed
every ${timing.refreshAssignments}) rather than per message.`)

NodeFs.rmSync(root, { recursive: true, force: true })
process.exit(0)

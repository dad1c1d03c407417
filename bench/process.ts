/**
 * The process runner under load, through the shell tool and the whole core
 * pipeline:
 *
 * 1. Throughput: 1 GiB from `head -c 1073741824 /dev/zero`, without and
 *    with a spill file, against Node's own pipe reading of the same command
 *    (a `data` listener that only counts bytes) run in the same process,
 *    interleaved, so the ratio holds on a noisy machine. Peak RSS growth is
 *    sampled every 5 ms during each run, and the CPU time the Node process
 *    spent per GiB is reported (it does not depend on other load).
 * 2. Kill latency: from `stop()` (the signal) to the result, for a group that
 *    does not ignore signals (SIGTERM ends it) and for one that ignores
 *    SIGTERM with no grace (SIGTERM, then SIGKILL at once; this bounds the
 *    time from SIGKILL to the result). From the deadline to the result for a
 *    timed-out command. After each result the group is checked for live
 *    members.
 *
 * Medians are reported. Run: pnpm bench:process (BENCH_ROUNDS, BENCH_KILL_ROUNDS to
 * change the counts).
 */
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as ProcessRunner from "@tool-runtime/node/ProcessRunner"
import * as ShellTool from "@tool-runtime/node/ShellTool"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

const GiB = 1024 ** 3
const MiB = 1024 ** 2
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const KILL_ROUNDS = Number(process.env.BENCH_KILL_ROUNDS ?? 30)
const command = `head -c ${GiB} /dev/zero`

const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-process-"))
const spillDirectory = NodePath.join(root, "spill")

const plain = ShellTool.make({ root, sandbox: "unconfined", name: "bash" })
const spilling = ShellTool.make({ root, sandbox: "unconfined", name: "bash_spill", spillDirectory })
const runtime = ManagedRuntime.make(
  Layer.mergeAll(
    ToolRuntime.layerDefault([plain, spilling]).pipe(Layer.provide(ProcessRunner.layerUnconfined)),
    ProcessRunner.layerUnconfined
  )
)
const tools = await runtime.runPromise(ToolRuntime.ToolRuntime)
const runner = await runtime.runPromise(ProcessRunner.ProcessRunner)

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/** Runs `f` while sampling RSS; returns its wall time and the peak RSS above the level before it. */
const measured = async (f: () => Promise<void>) => {
  ;(globalThis as { gc?: () => void }).gc?.()
  const before = process.memoryUsage.rss()
  let peak = before
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, 5)
  const cpuBefore = process.cpuUsage()
  const start = performance.now()
  await f()
  const millis = performance.now() - start
  const cpu = process.cpuUsage(cpuBefore)
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage.rss())
  return { millis, growth: peak - before, cpuMillis: (cpu.user + cpu.system) / 1000 }
}

/** Node's own pipe reading: the same command, a `data` listener that counts. */
const baseline = () =>
  new Promise<void>((resolve, reject) => {
    const child = NodeChildProcess.spawn("bash", ["-c", command], { stdio: ["ignore", "pipe", "pipe"] })
    let bytes = 0
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length
    })
    child.on("close", () => (bytes === GiB ? resolve() : reject(new Error(`read ${bytes} bytes`))))
  })

let callCount = 0
const throughTool = (tool: string) => async () => {
  const result = await runtime.runPromise(
    tools.runCall({ id: `bench_${++callCount}`, name: tool, input: { command } })
  )
  const text = ToolResult.text(result)
  if (result.isError || !text.includes("[binary output: 1 GiB, not shown]")) throw new Error(text)
  if (tool === "bash_spill") {
    const files = NodeFs.readdirSync(spillDirectory)
    const size = files.reduce((sum, file) => sum + NodeFs.statSync(NodePath.join(spillDirectory, file)).size, 0)
    if (size !== GiB) throw new Error(`spilled ${size} bytes`)
    for (const file of files) NodeFs.rmSync(NodePath.join(spillDirectory, file))
  }
}

const cases = {
  "node pipe reading (baseline)": baseline,
  "shell tool": throughTool("bash"),
  "shell tool + spill file": throughTool("bash_spill")
} as const

type CaseName = keyof typeof cases

/**
 * One run of one case in this process: JSON with its wall time and peak RSS
 * growth. Each run gets a fresh process, so that memory one run left mapped
 * does not hide the next run's growth.
 */
const runOne = async (name: CaseName) => {
  console.log(JSON.stringify(await measured(cases[name])))
}

const runIsolated = (name: CaseName) =>
  new Promise<{ readonly millis: number; readonly growth: number; readonly cpuMillis: number }>((resolve, reject) => {
    NodeChildProcess.execFile(
      process.execPath,
      ["--expose-gc", process.argv[1]!, "--case", name],
      { maxBuffer: 1024 * 1024 },
      (error, stdout) => (error === null ? resolve(JSON.parse(stdout.trim().split("\n").pop()!)) : reject(error))
    )
  })

const onlyCase = process.argv[2] === "--case" ? process.argv[3] as CaseName : undefined
if (onlyCase !== undefined) {
  await runOne(onlyCase)
  await runtime.dispose()
  process.exit(0)
}

const samples = Object.fromEntries(
  Object.keys(cases).map((
    name
  ) => [name, { rate: [] as Array<number>, growth: [] as Array<number>, cpu: [] as Array<number> }])
)
// Interleaved, so that a slow phase of the machine hits every case alike.
for (let round = 0; round < ROUNDS; round++) {
  for (const name of Object.keys(cases) as Array<CaseName>) {
    const { cpuMillis, growth, millis } = await runIsolated(name)
    samples[name]!.rate.push(1000 / millis)
    samples[name]!.growth.push(growth / MiB)
    samples[name]!.cpu.push(cpuMillis)
  }
}

console.log(`throughput: 1 GiB from \`${command}\`, ${ROUNDS} rounds (a fresh process each), medians (min–max)`)
// CPU time of this process per GiB does not depend on what else the machine runs.
for (const [name, { cpu, growth, rate }] of Object.entries(samples)) {
  console.log(
    `  ${name.padEnd(30)} ${median(rate).toFixed(2)} GiB/s (${Math.min(...rate).toFixed(2)}–${
      Math.max(...rate).toFixed(2)
    })   CPU ${median(cpu).toFixed(0)} ms/GiB   peak RSS growth ${median(growth).toFixed(1)} MiB (max ${
      Math.max(...growth).toFixed(1)
    })`
  )
}

// ---------------------------------------------------------------------------
// kill latency
// ---------------------------------------------------------------------------

/** Live (not zombie) members of a group, by `ps`. */
const liveInGroup = (pgid: number) =>
  NodeChildProcess.execFileSync("ps", ["-e", "-o", "pgid=,stat="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([group, stat]) => Number(group) === pgid && stat !== undefined && !stat.startsWith("Z")).length

const stopLatency = (script: string, killGrace: number) =>
  runtime.runPromise(Effect.scoped(Effect.gen(function*() {
    const running = yield* runner.start({ command: "bash", args: ["-c", script], killGrace })
    // Started and its children forked.
    while (running.stdout.totalBytes() === 0) yield* Effect.sleep("1 millis")
    const start = performance.now()
    const result = yield* running.stop()
    const millis = performance.now() - start
    return { millis, left: liveInGroup(result.pid), signal: result.signal }
  })))

const timeoutLatency = (timeout: number) =>
  runtime.runPromise(Effect.gen(function*() {
    const start = performance.now()
    const result = yield* runner.run({ command: "bash", args: ["-c", "sleep 60 & sleep 60 & wait"], timeout })
    const millis = performance.now() - start - timeout
    return { millis, left: liveInGroup(result.pid), signal: result.signal }
  }))

const killCases = {
  "stop → result, `sleep 60` (SIGTERM ends it)": () => stopLatency("echo up; exec sleep 60", 2000),
  "stop → result, shell + 2 children (SIGTERM)": () => stopLatency("sleep 60 & sleep 60 & echo up; wait", 2000),
  "stop → result, ignores SIGTERM, grace 0 (SIGKILL)": () => stopLatency("trap '' TERM; sleep 60 & echo up; wait", 0),
  "deadline → result, timeout 200 ms, shell + 2 children": () => timeoutLatency(200)
}

console.log(`kill latency, ${KILL_ROUNDS} rounds, medians (p90); live group members after the result`)
for (const [name, run] of Object.entries(killCases)) {
  const times: Array<number> = []
  let left = 0
  let signal: string | null = null
  for (let round = 0; round < KILL_ROUNDS; round++) {
    const sample = await run()
    times.push(sample.millis)
    left += sample.left
    signal = sample.signal
  }
  const sorted = [...times].sort((a, b) => a - b)
  console.log(
    `  ${name.padEnd(56)} ${median(times).toFixed(2)} ms (p90 ${
      sorted[Math.floor(sorted.length * 0.9)]!.toFixed(2)
    } ms)   signal ${signal}   live after result: ${left}`
  )
}

await runtime.dispose()
NodeFs.rmSync(root, { recursive: true, force: true })

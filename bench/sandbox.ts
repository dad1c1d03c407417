/**
 * What the sandbox costs, in one process, interleaved so that a slow phase
 * of the machine hits every case alike:
 *
 * 1. Time added per command: `true` through the process runner, unconfined
 *    and confined (bubblewrap, workspace-write, network off), and bare
 *    `bwrap … true` from Node for reference. Medians and p90.
 * 2. Throughput: 1 GiB from `head -c 1073741824 /dev/zero` through the shell
 *    tool and the whole core pipeline, unconfined and sandboxed, against
 *    Node's own pipe reading of the same command (a `data` listener that
 *    only counts bytes).
 * 3. The network bridge's start: `true` behind `NetworkProxy.bridge` (the
 *    Node program that carries a sandbox's proxy traffic to the proxy's
 *    UNIX socket), against `true` alone and a bare `node -e ""`. Node's own
 *    start is most of it; the bridge must not double it. (Moved here from
 *    the NetworkProxy tests, where a ratio of medians was a verdict that
 *    depended on the machine's load.)
 *
 * Run: pnpm bench:sandbox (BENCH_ROUNDS for the throughput rounds,
 * BENCH_COMMANDS for the per-command rounds, BENCH_BRIDGE for the bridge's).
 */
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as NetworkProxy from "@tool-runtime/node/NetworkProxy"
import * as ProcessRunner from "@tool-runtime/node/ProcessRunner"
import * as Sandbox from "@tool-runtime/node/Sandbox"
import * as ShellTool from "@tool-runtime/node/ShellTool"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

const GiB = 1024 ** 3
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const COMMANDS = Number(process.env.BENCH_COMMANDS ?? 200)
const BRIDGE = Number(process.env.BENCH_BRIDGE ?? 30)
const command = `head -c ${GiB} /dev/zero`

const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-sandbox-")))

const sandboxScope = Effect.runSync(Scope.make())
const sandbox = await Effect.runPromise(Scope.extend(Sandbox.make({ workspace: root }), sandboxScope))
if (!sandbox.status.available) throw new Error(sandbox.status.problem)

const plainTool = ShellTool.make({ root, sandbox: "unconfined", name: "bash" })
const confinedTool = ShellTool.make({ root, name: "bash", sandbox })
const plain = ManagedRuntime.make(
  Layer.mergeAll(
    ToolRuntime.layerDefault([plainTool]).pipe(Layer.provide(ProcessRunner.layerUnconfined)),
    ProcessRunner.layerUnconfined
  )
)
const confined = ManagedRuntime.make(
  Layer.mergeAll(
    ToolRuntime.layerDefault([confinedTool]).pipe(Layer.provide(ProcessRunner.layer)),
    ProcessRunner.layer
  ).pipe(Layer.provide(Layer.succeed(Sandbox.Sandbox, sandbox)))
)

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const p90 = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!

// ---------------------------------------------------------------------------
// per command
// ---------------------------------------------------------------------------

const runTrue = (rt: typeof plain) => async () => {
  const start = performance.now()
  const result = await rt.runPromise(
    Effect.flatMap(ProcessRunner.ProcessRunner, (runner) => runner.run({ command: "true" }))
  )
  if (result.exitCode !== 0) throw new Error(`exit ${result.exitCode}`)
  return performance.now() - start
}

const prepared = await Effect.runPromise(sandbox.prepare({ command: "true", args: [], cwd: root, env: undefined }))
const bareBwrap = () =>
  new Promise<number>((resolve, reject) => {
    const start = performance.now()
    // The seccomp program goes in as descriptor 3, as the runner passes it.
    const fds = (prepared.inheritFiles ?? []).map((file) => NodeFs.openSync(file, "r"))
    const child = NodeChildProcess.spawn("bwrap", prepared.args, { stdio: ["ignore", "ignore", "ignore", ...fds] })
    for (const fd of fds) NodeFs.closeSync(fd)
    child.on("error", reject)
    child.on("exit", (code) => (code === 0 ? resolve(performance.now() - start) : reject(new Error(`exit ${code}`))))
  })
const bareTrue = () =>
  new Promise<number>((resolve, reject) => {
    const start = performance.now()
    const child = NodeChildProcess.spawn("true", [], { stdio: "ignore" })
    child.on("error", reject)
    child.on("exit", (code) => (code === 0 ? resolve(performance.now() - start) : reject(new Error(`exit ${code}`))))
  })

const perCommand = {
  "node spawn `true` (reference)": bareTrue,
  "node spawn `bwrap … true` (reference)": bareBwrap,
  "runner, unconfined": runTrue(plain),
  "runner, sandboxed": runTrue(confined)
} as const

const times = Object.fromEntries(Object.keys(perCommand).map((name) => [name, [] as Array<number>]))
for (let round = 0; round < COMMANDS; round++) {
  for (const [name, f] of Object.entries(perCommand)) times[name]!.push(await f())
}
console.log(`per command: \`true\`, ${COMMANDS} rounds interleaved, median (p90) wall time from start to result`)
for (const [name, xs] of Object.entries(times)) {
  console.log(`  ${name.padEnd(40)} ${median(xs).toFixed(2)} ms (${p90(xs).toFixed(2)})`)
}
const added = Array.from(
  { length: COMMANDS },
  (_, i) => times["runner, sandboxed"]![i]! - times["runner, unconfined"]![i]!
)
console.log(`  ${"added by the sandbox (paired)".padEnd(40)} ${median(added).toFixed(2)} ms (${p90(added).toFixed(2)})`)

// ---------------------------------------------------------------------------
// throughput
// ---------------------------------------------------------------------------

const baseline = () =>
  new Promise<void>((resolve, reject) => {
    const child = NodeChildProcess.spawn("bash", ["-c", command], { stdio: ["ignore", "pipe", "pipe"] })
    let bytes = 0
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length
    })
    child.on("close", () => (bytes === GiB ? resolve() : reject(new Error(`read ${bytes} bytes`))))
  })

let calls = 0
const throughTool = (rt: typeof plain) => async () => {
  const result = await rt.runPromise(
    Effect.flatMap(
      ToolRuntime.ToolRuntime,
      (tools) => tools.runCall({ id: `c${++calls}`, name: "bash", input: { command } })
    )
  )
  const text = ToolResult.text(result)
  if (result.isError || !text.includes("[binary output: 1 GiB, not shown]")) throw new Error(text)
}

const throughput = {
  "node pipe reading (baseline)": baseline,
  "shell tool, unconfined": throughTool(plain),
  "shell tool, sandboxed": throughTool(confined)
} as const
const rates = Object.fromEntries(Object.keys(throughput).map((name) => [name, [] as Array<number>]))
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, f] of Object.entries(throughput)) {
    const start = performance.now()
    await f()
    rates[name]!.push(1000 / (performance.now() - start))
  }
}
console.log(`throughput: 1 GiB from \`${command}\`, ${ROUNDS} rounds interleaved, median (min–max)`)
const base = median(rates["node pipe reading (baseline)"]!)
for (const [name, xs] of Object.entries(rates)) {
  console.log(
    `  ${name.padEnd(40)} ${median(xs).toFixed(2)} GiB/s (${Math.min(...xs).toFixed(2)}–${
      Math.max(...xs).toFixed(2)
    })  ${(median(xs) / base).toFixed(2)}x baseline`
  )
}

// ---------------------------------------------------------------------------
// the network bridge
// ---------------------------------------------------------------------------

const proxyScope = Effect.runSync(Scope.make())
const proxy = await Effect.runPromise(
  Scope.extend(NetworkProxy.make({ socketPath: NodePath.join(root, "proxy.sock"), allowedDomains: [] }), proxyScope)
)
const bridged = NetworkProxy.bridge({ socketPath: proxy.socketPath, port: 0, command: "true", args: [] })
const spawned = (file: string, args: ReadonlyArray<string>) => () =>
  new Promise<number>((resolve, reject) => {
    const start = performance.now()
    const child = NodeChildProcess.spawn(file, args, { stdio: "ignore" })
    child.on("error", reject)
    child.on("exit", (code) => (code === 0 ? resolve(performance.now() - start) : reject(new Error(`exit ${code}`))))
  })
const starts = {
  "`true`": spawned("true", []),
  "`true` behind the bridge": spawned(bridged.command, bridged.args),
  "bare `node -e \"\"` (reference)": spawned(process.execPath, ["-e", ""])
} as const
const startTimes = Object.fromEntries(Object.keys(starts).map((name) => [name, [] as Array<number>]))
for (let round = 0; round < BRIDGE; round++) {
  for (const [name, f] of Object.entries(starts)) startTimes[name]!.push(await f())
}
console.log(`network bridge: start to exit, ${BRIDGE} rounds interleaved, median (p90)`)
for (const [name, xs] of Object.entries(startTimes)) {
  console.log(`  ${name.padEnd(40)} ${median(xs).toFixed(1)} ms (${p90(xs).toFixed(1)})`)
}
const withBridge = median(startTimes["`true` behind the bridge"]!)
const bareNode = median(startTimes["bare `node -e \"\"` (reference)"]!)
console.log(
  `  ${"added by the bridge".padEnd(40)} ${(withBridge - median(startTimes["`true`"]!)).toFixed(1)} ms; ` +
    `${(withBridge / bareNode).toFixed(2)}x a bare node (the aim: under 2x)`
)

await plain.dispose()
await confined.dispose()
await Effect.runPromise(Scope.close(proxyScope, Exit.void))
await Effect.runPromise(Scope.close(sandboxScope, Exit.void))
NodeFs.rmSync(root, { recursive: true, force: true })

/**
 * Per-call cost of the full pipeline (parse, lookup, validate, authorize,
 * execute under total and idle deadlines, shape, schedule) against a bare
 * `Effect.runPromise` of JSON parse + Schema decode + handler, in turns of
 * 100 calls. Both run in the same process, interleaved, so the ratio is
 * meaningful on a noisy machine; medians are reported.
 *
 * Also the per-call cost of `isolation: "worker"` (`WorkerTool`): the same
 * echo tool in process and in a warm worker, in the same run.
 *
 * Run: pnpm bench:pipeline (or pnpm bench, after the peers)
 */
import { Tool, ToolRuntime } from "@tool-runtime/core"
import * as WorkerTool from "@tool-runtime/node/WorkerTool"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { isMainThread } from "node:worker_threads"

const CALLS = 100
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300)

const Params = Schema.Struct({ text: Schema.String })
const handler = ({ text }: { readonly text: string }) => Effect.succeed(text.length)

const readTool = Tool.make("lookup", {
  description: "Trivial read-only tool.",
  parameters: Params,
  readOnly: true,
  timeout: "10 seconds",
  idleTimeout: "5 seconds",
  handler
})
const writeTool = Tool.make("store", {
  description: "Trivial write tool.",
  parameters: Params,
  timeout: "10 seconds",
  handler
})

// The worker imports this very file (bundled) to find its handler: all
// that runs below the definitions is kept to the main thread.
const echo = ({ text }: { readonly text: string }) => Effect.succeed(text)
const echoHere = Tool.make("echo_here", {
  description: "Echo, in process.",
  parameters: Params,
  timeout: "10 seconds",
  handler: echo
})
const echoWorker = WorkerTool.make("echo_worker", {
  description: "Echo, in a worker thread.",
  parameters: Params,
  timeout: "10 seconds",
  module: import.meta.url,
  handler: echo
})

const calls = (name: string) =>
  Array.from({ length: CALLS }, (_, i) => ({ id: `call_${i}`, name, input: JSON.stringify({ text: `hello ${i}` }) }))

if (isMainThread) {
  const readCalls = calls("lookup")
  const writeCalls = calls("store")
  const echoHereCalls = calls("echo_here")
  const echoWorkerCalls = calls("echo_worker")

  const runtime = ManagedRuntime.make(
    ToolRuntime.layerDefault([readTool, writeTool, echoHere, echoWorker])
  )

  const decode = Schema.decodeUnknown(Params)
  const bare = Effect.forEach(readCalls, (call) => Effect.flatMap(decode(JSON.parse(call.input)), handler))

  const service = await runtime.runPromise(ToolRuntime.ToolRuntime)
  const turn = (batch: typeof readCalls, parallel = true, concurrency = 8) =>
    service.runTurn(batch, { parallel, concurrency })

  const only = process.env.BENCH_ONLY
  const cases: Record<string, () => Promise<unknown>> = {
    "bare decode + handler (runPromise)": () => Effect.runPromise(bare),
    "runtime: 100 read-only calls (concurrent batch)": () => runtime.runPromise(turn(readCalls)),
    "runtime: 100 write calls (each alone)": () => runtime.runPromise(turn(writeCalls)),
    "runtime: 100 read-only calls, parallel off": () => runtime.runPromise(turn(readCalls, false)),
    "runtime: 100 read-only calls, 1 worker": () => runtime.runPromise(turn(readCalls, true, 1)),
    "runtime: 100 read-only calls, tracing disabled": () =>
      runtime.runPromise(turn(readCalls).pipe(Effect.withTracerEnabled(false))),
    "echo in process, 100 calls one by one": () => runtime.runPromise(turn(echoHereCalls, false)),
    "echo isolation: worker, 100 calls one by one": () => runtime.runPromise(turn(echoWorkerCalls, false))
  }

  if (only !== undefined) { for (const key of Object.keys(cases)) if (!key.includes(only)) delete cases[key] }
  const samples: Record<string, Array<number>> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]))
  for (let round = 0; round < ROUNDS + 30; round++) {
    for (const [name, run] of Object.entries(cases)) {
      const start = performance.now()
      await run()
      const elapsed = performance.now() - start
      if (round >= 30) samples[name]!.push((elapsed * 1000) / CALLS)
    }
  }

  const median = (xs: Array<number>) => {
    const sorted = [...xs].sort((a, b) => a - b)
    return sorted[Math.floor(sorted.length / 2)]!
  }
  const base = only === undefined ? median(samples["bare decode + handler (runPromise)"]!) : 1
  console.log(`turns of ${CALLS} calls, ${ROUNDS} rounds, median µs per call`)
  for (const [name, xs] of Object.entries(samples)) {
    const m = median(xs)
    console.log(
      `${name.padEnd(50)} ${m.toFixed(2).padStart(8)} µs   ratio ${(m / base).toFixed(1).padStart(5)}x   marginal ${
        (m - base).toFixed(2).padStart(7)
      } µs`
    )
  }
  const here = samples["echo in process, 100 calls one by one"]
  const worker = samples["echo isolation: worker, 100 calls one by one"]
  if (here !== undefined && worker !== undefined) {
    console.log(`isolation: "worker" costs ${(median(worker) - median(here)).toFixed(2)} µs per call over in process`)
  }
  await runtime.dispose()
  await Effect.runPromise(WorkerTool.close(echoWorker))
}

/**
 * Per-call cost of the full pipeline (parse, lookup, validate, authorize,
 * execute under total and idle deadlines, shape, schedule) against a bare
 * `Effect.runPromise` of JSON parse + Schema decode + handler, in turns of
 * 100 calls. Both run in the same process, interleaved, so the ratio is
 * meaningful on a noisy machine; medians are reported.
 *
 * Run: pnpm bench
 */
import { Tool, ToolRuntime } from "@tool-runtime/core"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"

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

const calls = (name: string) =>
  Array.from({ length: CALLS }, (_, i) => ({ id: `call_${i}`, name, input: JSON.stringify({ text: `hello ${i}` }) }))
const readCalls = calls("lookup")
const writeCalls = calls("store")

const runtime = ManagedRuntime.make(
  ToolRuntime.layerDefault([readTool, writeTool])
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
    runtime.runPromise(turn(readCalls).pipe(Effect.withTracerEnabled(false)))
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
await runtime.dispose()

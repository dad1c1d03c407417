/**
 * What one tool call costs here and in the runtimes people compare us with,
 * side by side in one process: a trivial echo tool with one string
 * argument, called in turns of 100, 10 and 1 calls. Each case gets the
 * calls the way its API takes them from a model (a JSON string of
 * arguments where the API parses it, an object where the caller must), and
 * runs them the way its documentation shows:
 *
 * - `plain`: an async function, awaited per call: the floor;
 * - ours, `ToolRuntime.layerDefault` (Effect's built-in tracer), with the
 *   tracer off, and with an exporting tracer (`@effect/opentelemetry`,
 *   in-memory exporter, every span exported);
 * - `@effect/ai`: `Toolkit.handle` per call, in one `Effect.forEach`;
 * - AI SDK: `generateText` on a mock model answering with the turn's calls
 *   (one step), so the cost is what a user of `generateText` pays per call
 *   (its own model plumbing included);
 * - LangGraph: `ToolNode.invoke` on an `AIMessage` holding the calls.
 *
 * Rounds are interleaved (every case once per round, each round starting
 * one case further on), the first is a
 * warm-up, medians over the rest are printed, with the ratio to `plain`
 * and to the best peer. Then 50 concurrent 20 ms reads in one turn, whose
 * floor is 20 ms.
 *
 * Run: pnpm bench (this, then the pipeline bench) or pnpm bench:peers alone
 * (BENCH_ROUNDS, default 7; BENCH_CALLS, calls per
 * measurement, default 2,000)
 */
import { Tool as AiTool, Toolkit } from "@effect/ai"
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { AIMessage } from "@langchain/core/messages"
import { tool as langchainTool } from "@langchain/core/tools"
import { ToolNode } from "@langchain/langgraph/prebuilt"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Tool, ToolRuntime } from "@tool-runtime/core"
import { generateText, stepCountIs, tool as aiSdkTool } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { z } from "zod"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const CALLS = Number(process.env.BENCH_CALLS ?? 2_000)
const SIZES = [100, 10, 1] as const

const echo = (text: string) => text.length

interface Call {
  readonly id: string
  readonly input: string
}
const turnOf = (size: number): ReadonlyArray<Call> =>
  Array.from({ length: size }, (_, i) => ({ id: `call_${i}`, input: JSON.stringify({ text: `hello ${i}` }) }))

// --- ours -------------------------------------------------------------------

const ours = Tool.make("echo", {
  description: "Echoes the length of its text.",
  parameters: { text: Schema.String },
  readOnly: true,
  handler: ({ text }) => Effect.succeed(echo(text))
})
const exporter = new InMemorySpanExporter()
const defaultRuntime = ManagedRuntime.make(ToolRuntime.layerDefault([ours]))
const exportingRuntime = ManagedRuntime.make(
  ToolRuntime.layerDefault([ours]).pipe(
    Layer.provideMerge(NodeSdk.layer(() => ({
      resource: { serviceName: "bench" },
      spanProcessor: new SimpleSpanProcessor(exporter)
    })))
  )
)
// The tracer switched off where an application would: on the runtime, once (wrapping each turn in
// `Effect.withTracerEnabled` instead costs Effect's own fiber-ref scoping, ~20 run-loop steps a turn).
const untracedRuntime = ManagedRuntime.make(
  Layer.merge(ToolRuntime.layerDefault([ours]), Layer.setTracerEnabled(false))
)
const service = await defaultRuntime.runPromise(ToolRuntime.ToolRuntime)
const untracedService = await untracedRuntime.runPromise(ToolRuntime.ToolRuntime)
const exportingService = await exportingRuntime.runPromise(ToolRuntime.ToolRuntime)
const oursTurn = (calls: ReadonlyArray<Call>) => calls.map((call) => ({ id: call.id, name: "echo", input: call.input }))

// --- @effect/ai -------------------------------------------------------------

const EchoTool = AiTool.make("echo", { parameters: { text: Schema.String }, success: Schema.Number })
const EchoKit = Toolkit.make(EchoTool)
const effectAiRuntime = ManagedRuntime.make(EchoKit.toLayer({ echo: ({ text }) => Effect.succeed(echo(text)) }))
const effectAi = await effectAiRuntime.runPromise(EchoKit)

// --- AI SDK -----------------------------------------------------------------

const aiSdkTools = {
  echo: aiSdkTool({
    description: "Echoes the length of its text.",
    inputSchema: z.object({ text: z.string() }),
    execute: async ({ text }) => echo(text)
  })
}
const aiSdkModel = (calls: ReadonlyArray<Call>) =>
  new MockLanguageModelV4({
    doGenerate: async () => ({
      content: calls.map((call) => ({
        type: "tool-call" as const,
        toolCallId: call.id,
        toolName: "echo",
        input: call.input
      })),
      finishReason: { unified: "tool-calls" as const, raw: undefined },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 }
      },
      warnings: []
    })
  })

// --- LangGraph --------------------------------------------------------------

const langgraph = new ToolNode([
  langchainTool(async ({ text }: { text: string }) => String(echo(text)), {
    name: "echo",
    description: "Echoes the length of its text.",
    schema: z.object({ text: z.string() })
  })
])

// --- cases --------------------------------------------------------------------

type Case = (calls: ReadonlyArray<Call>) => Promise<unknown>

const plainTool = async (input: { readonly text: string }) => echo(input.text)

const cases: Record<string, Case> = {
  plain: async (calls) => {
    for (const call of calls) await plainTool(JSON.parse(call.input))
  },
  "ours, default": (calls) => defaultRuntime.runPromise(service.runTurn(oursTurn(calls))),
  "ours, tracer off": (calls) => untracedRuntime.runPromise(untracedService.runTurn(oursTurn(calls))),
  "ours, exporting tracer": async (calls) => {
    await exportingRuntime.runPromise(exportingService.runTurn(oursTurn(calls)))
    exporter.reset()
  },
  "@effect/ai Toolkit.handle": (calls) =>
    effectAiRuntime.runPromise(
      Effect.forEach(calls, (call) => effectAi.handle("echo", JSON.parse(call.input)), { discard: true })
    ),
  "AI SDK generateText": (calls) =>
    generateText({ model: aiSdkModel(calls), prompt: "go", tools: aiSdkTools, stopWhen: stepCountIs(1) }),
  "LangGraph ToolNode": (calls) =>
    langgraph.invoke({
      messages: [
        new AIMessage({
          content: "",
          tool_calls: calls.map((call) => ({ id: call.id, name: "echo", args: JSON.parse(call.input) }))
        })
      ]
    })
}
const peers = ["@effect/ai Toolkit.handle", "AI SDK generateText", "LangGraph ToolNode"]

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

console.log(`µs per call, median of ${ROUNDS} interleaved rounds of ${CALLS} calls each (first round a warm-up)`)
for (const size of SIZES) {
  const calls = turnOf(size)
  const turns = Math.max(1, Math.round(CALLS / size))
  const samples: Record<string, Array<number>> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]))
  for (let round = 0; round <= ROUNDS; round++) {
    // Each round starts one case further on, so that no case always follows the same one (a peer
    // that leaves garbage behind makes the next case pay for its collection).
    const entries = Object.entries(cases)
    const rotated = [...entries.slice(round % entries.length), ...entries.slice(0, round % entries.length)]
    for (const [name, run] of rotated) {
      const start = performance.now()
      for (let turn = 0; turn < turns; turn++) await run(calls)
      const micros = ((performance.now() - start) * 1000) / (turns * size)
      if (round > 0) samples[name]!.push(micros)
    }
  }
  const medians = Object.fromEntries(Object.entries(samples).map(([name, xs]) => [name, median(xs)]))
  const best = Math.min(...peers.map((name) => medians[name]!))
  console.log(`\nturns of ${size} call${size === 1 ? "" : "s"}`)
  for (const [name, micros] of Object.entries(medians)) {
    console.log(
      `  ${name.padEnd(28)} ${micros.toFixed(1).padStart(8)} µs   ${
        (micros / medians.plain!).toFixed(1).padStart(6)
      }x plain   ${(micros / best).toFixed(2).padStart(5)}x best peer`
    )
  }
}

// --- 50 concurrent 20 ms reads ----------------------------------------------------

const slowRead = Tool.make("slow_read", {
  description: "A read that takes 20 ms.",
  parameters: { path: Schema.String },
  readOnly: true,
  handler: () => Effect.as(Effect.sleep("20 millis"), "ok")
})
const slowRuntime = ManagedRuntime.make(ToolRuntime.layerDefault([slowRead]))
const slow = await slowRuntime.runPromise(ToolRuntime.ToolRuntime)
const fifty = Array.from({ length: 50 }, (_, i) => ({ id: `r${i}`, name: "slow_read", input: { path: `f${i}` } }))
// Effect's own floor for the same wait: 50 fibers each sleeping 20 ms, nothing else.
const bareSleeps = Effect.all(Array.from({ length: 50 }, () => Effect.sleep("20 millis")), { concurrency: 50 })
const walls: Array<number> = []
const floors: Array<number> = []
for (let round = 0; round <= ROUNDS * 3; round++) {
  const start = performance.now()
  await slowRuntime.runPromise(slow.runTurn(fifty, { concurrency: 50 }))
  const between = performance.now()
  await Effect.runPromise(bareSleeps)
  if (round > 0) {
    walls.push(between - start)
    floors.push(performance.now() - between)
  }
}
const wall = median(walls)
console.log(
  `\n50 concurrent 20 ms reads in one turn: ${wall.toFixed(1)} ms (floor 20 ms, ${
    ((wall / 20 - 1) * 100).toFixed(1)
  }% over; Effect's own 50 concurrent 20 ms sleeps: ${median(floors).toFixed(1)} ms)`
)

await Promise.all([
  defaultRuntime.dispose(),
  untracedRuntime.dispose(),
  exportingRuntime.dispose(),
  effectAiRuntime.dispose(),
  slowRuntime.dispose()
])

/**
 * The `demo` command: the brief's worked example, run for real on the
 * support-desk tools. It prints the registry, then a turn in which the model
 * asks for two reads and a reply at once (the reads run together, the reply
 * after them alone, results in call order), then a turn of broken calls that
 * each come back as a result the model can act on instead of an exception.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import type * as ToolCall from "@tool-runtime/core/ToolCall"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as SupportDesk from "../SupportDesk.js"
import * as Terminal from "../Terminal.js"

// ---------------------------------------------------------------------------
// the calls the "model" makes
// ---------------------------------------------------------------------------

/**
 * The brief's turn: two reads and a reply, asked for at once.
 *
 * @since 0.1.0
 * @category calls
 */
export const turnOne: ReadonlyArray<ToolCall.Input> = [
  // Anthropic's `tool_use` shape: the input is already an object.
  { id: "toolu_01A7kQ3mWx9fTz2RbN5cLp8E", name: "query_ticket", input: { ticketId: "T-1001" } },
  // OpenAI's shape: `arguments` is a JSON string the runtime must parse.
  {
    id: "toolu_01B4nV8sKd2hYq6JmT3wXr7G",
    name: "search_knowledge_base",
    input: "{\"query\": \"blender arrived cracked, replacement\", \"limit\": 2}"
  },
  {
    id: "toolu_01C9pL5tHf3uZe8QkW2yMs4D",
    name: "reply_to_customer",
    input: {
      ticketId: "T-1001",
      message: "Hi Ada, I am sorry the jar arrived cracked. A free replacement ships within 2 business days, " +
        "and you do not need to send the damaged one back."
    }
  }
]

/**
 * Calls that go wrong at each stage, and one that the first turn made valid.
 *
 * @since 0.1.0
 * @category calls
 */
export const turnTwo: ReadonlyArray<ToolCall.Input> = [
  // A typo in the tool name: lookup fails, with a suggestion.
  { id: "toolu_01D2wE6rTy8uIo4PaS9dFg3H", name: "query_tiket", input: { ticketId: "T-1002" } },
  // A number where a string belongs and a required field left out: schema validation.
  { id: "toolu_01E5jK7lZx3cVb9NmQ1wEr6T", name: "reply_to_customer", input: { ticketId: 1002 } },
  // Arguments cut off mid-stream (the output limit): never run, and the model is asked for it again, smaller.
  { id: "toolu_01F8yU2iOp4aSd6FgH7jKl9Z", name: "search_knowledge_base", input: "{\"query\": \"refund timel" },
  // Valid arguments that break a business rule: nobody answered T-1002 yet.
  { id: "toolu_01G3xC5vBn7mQw2ErT4yUi8O", name: "close_ticket", input: { ticketId: "T-1002", resolution: "resolved" } },
  // The same rule lets T-1001 close: turn 1 replied to it.
  { id: "toolu_01H6pA9sDf1gHj3KlZ5xCv7B", name: "close_ticket", input: { ticketId: "T-1001", resolution: "resolved" } }
]

// ---------------------------------------------------------------------------
// printing
// ---------------------------------------------------------------------------

const yesNo = (b: boolean) => b ? "yes" : "no"

const describeInput = (input: unknown): string =>
  typeof input === "string" ? `${JSON.stringify(input)}  (raw JSON string)` : JSON.stringify(input)

const callLabel = (calls: ReadonlyArray<ToolCall.Input>, index: number): string =>
  `#${index + 1} ${calls[index]?.name ?? "?"}`

const printRegistry = (runtime: ToolRuntime.Service, style: Terminal.Style) =>
  Effect.gen(function*() {
    yield* Console.log(style.bold(`Registry (${runtime.registry.entries.length} tools)`))
    const rows = runtime.registry.entries.map(({ tool }) => [
      tool.name,
      yesNo(tool.readOnly),
      ToolError.formatMillis(tool.timeoutMillis),
      tool.idleTimeoutMillis === undefined ? "-" : ToolError.formatMillis(tool.idleTimeoutMillis),
      Terminal.count(tool.outputLimit),
      tool.risk
    ])
    const lines = Terminal.table(["name", "read-only", "timeout", "idle timeout", "output limit", "risk"], rows, style)
    yield* Console.log(lines.map((l) => `  ${l}`).join("\n"))
  })

const printCalls = (calls: ReadonlyArray<ToolCall.Input>, style: Terminal.Style) =>
  Console.log(
    calls.map((call, i) => `  #${i + 1} ${style.dim(call.id)}  ${style.cyan(call.name)}  ${describeInput(call.input)}`)
      .join("\n")
  )

const printPlan = (batches: ReadonlyArray<ToolRuntime.Batch>, calls: ReadonlyArray<ToolCall.Input>) =>
  Console.log(
    batches.map((batch, b) =>
      `  batch ${b + 1}  ${batch.concurrent ? "together" : "alone   "}  ${
        batch.indices.map((i) => callLabel(calls, i)).join(", ")
      }`
    ).join("\n")
  )

const status = (result: ToolResult.ToolResult, style: Terminal.Style) =>
  result.isError ? style.red(`error ${result.error?.code ?? ""}`.trim()) : style.green("ok")

interface Stamped {
  readonly at: number
  readonly event: ToolRuntime.Event
}

/**
 * Prints each event as it happens, stamped with the milliseconds since the
 * turn started, and keeps them for the summary.
 */
const timeline = (
  calls: ReadonlyArray<ToolCall.Input>,
  style: Terminal.Style,
  startedAt: number,
  log: Ref.Ref<ReadonlyArray<Stamped>>
) =>
(event: ToolRuntime.Event): Effect.Effect<void> =>
  Effect.gen(function*() {
    const at = (yield* Clock.currentTimeMillis) - startedAt
    yield* Ref.update(log, (events) => [...events, { at, event }])
    const stamp = style.dim(`+${at} ms`.padStart(9))
    switch (event._tag) {
      case "BatchStarted": {
        const names = event.indices.map((i) => callLabel(calls, i)).join(", ")
        return yield* Console.log(
          `  ${stamp}  ${style.bold("batch starts")}  ${names}  ${event.concurrent ? "(together)" : "(alone)"}`
        )
      }
      case "Progress":
        return yield* Console.log(`  ${stamp}  progress      ${event.toolName}: ${event.message ?? ""}`)
      case "CallFinished":
        return yield* Console.log(
          `  ${stamp}  finished      ${callLabel(calls, event.index)}  ${status(event.result, style)}`
        )
    }
  })

/** Reads the timeline back: when each batch started and when its last call finished. */
const batchTimes = (events: ReadonlyArray<Stamped>) => {
  const finishedAt = new Map<number, number>()
  for (const { at, event } of events) if (event._tag === "CallFinished") finishedAt.set(event.index, at)
  return events.flatMap(({ at, event }) =>
    event._tag === "BatchStarted"
      ? [{
        indices: event.indices,
        startedAt: at,
        endedAt: Math.max(...event.indices.map((i) => finishedAt.get(i) ?? at))
      }]
      : []
  )
}

const printSummary = (
  events: ReadonlyArray<Stamped>,
  results: ReadonlyArray<ToolResult.ToolResult>,
  style: Terminal.Style
) =>
  Effect.gen(function*() {
    const batches = batchTimes(events)
    for (let b = 0; b < batches.length; b++) {
      const batch = batches[b]!
      const wall = batch.endedAt - batch.startedAt
      if (batch.indices.length > 1) {
        const durations = batch.indices.map((i) => results[i]?.meta.durationMillis ?? 0)
        const sum = durations.reduce((a, d) => a + d, 0)
        yield* Console.log(
          `  batch ${b + 1}: ${batch.indices.length} calls finished in ${wall} ms; ` +
            `one after the other they would take ${sum} ms (${durations.join(" + ")}).`
        )
      }
      const previous = b > 0 ? batches[b - 1] : undefined
      if (previous !== undefined) {
        const after = batch.startedAt >= previous.endedAt
        yield* Console.log(
          `  batch ${b + 1} started at +${batch.startedAt} ms, ` +
            (after
              ? `after batch ${b} had finished (+${previous.endedAt} ms).`
              : style.red(`before batch ${b} had finished (+${previous.endedAt} ms)!`))
        )
      }
    }
  })

const printResults = (results: ReadonlyArray<ToolResult.ToolResult>, style: Terminal.Style) =>
  Effect.forEach(results, (result, i) =>
    Console.log(
      `  #${i + 1} ${style.dim(result.callId)}  ${style.cyan(result.toolName)}  isError: ${result.isError}  ` +
        `${result.meta.durationMillis} ms\n${Terminal.indent(ToolResult.text(result), "     ")}`
    ), { discard: true })

const printErrors = (results: ReadonlyArray<ToolResult.ToolResult>, style: Terminal.Style) =>
  Effect.forEach(results, (result, i) => {
    const head = `  #${i + 1} ${style.dim(result.callId)}  ${style.cyan(result.toolName)}`
    const outcome = result.error === undefined
      ? `  ${style.green("ok")}`
      : `  code: ${style.yellow(result.error.code)}  retryable: ${yesNo(result.error.retryable)}`
    return Console.log(
      `${head}${outcome}\n     the model sees:\n${Terminal.indent(ToolResult.text(result), "       ")}`
    )
  }, { discard: true })

// ---------------------------------------------------------------------------
// the demo
// ---------------------------------------------------------------------------

const runTurnOne = (runtime: ToolRuntime.Service, style: Terminal.Style) =>
  Effect.gen(function*() {
    yield* Console.log(style.bold("Turn 1: the model asks for three tools at once"))
    yield* printCalls(turnOne, style)
    yield* Console.log(`\n${style.bold("Plan")} (consecutive reads run together; a write waits and runs alone)`)
    yield* printPlan(runtime.plan(turnOne), turnOne)
    yield* Console.log(`\n${style.bold("Timeline")}`)
    const log = yield* Ref.make<ReadonlyArray<Stamped>>([])
    const startedAt = yield* Clock.currentTimeMillis
    const results = yield* runtime.runTurn(turnOne, { onEvent: timeline(turnOne, style, startedAt, log) })
    yield* Console.log("")
    yield* printSummary(yield* Ref.get(log), results, style)
    yield* Console.log(`\n${style.bold("Results")}, in the order of the calls, paired by id`)
    yield* printResults(results, style)
  })

const runTurnTwo = (runtime: ToolRuntime.Service, style: Terminal.Style) =>
  Effect.gen(function*() {
    yield* Console.log(style.bold("Turn 2: failures become results, not exceptions"))
    yield* printCalls(turnTwo, style)
    yield* Console.log(`\n${style.bold("Results")}`)
    const results = yield* runtime.runTurn(turnTwo)
    yield* printErrors(results, style)
  })

/**
 * @since 0.1.0
 * @category commands
 */
export const demo = Effect.gen(function*() {
  const runtime = yield* ToolRuntime.ToolRuntime
  const style = yield* Terminal.detect
  yield* Console.log(style.bold("tool-runtime demo: the customer-support ticket agent") + "\n")
  yield* printRegistry(runtime, style)
  yield* Console.log("")
  yield* runTurnOne(runtime, style)
  yield* Console.log("")
  yield* runTurnTwo(runtime, style)
})

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("demo", {}, () => demo).pipe(
  Command.withDescription(
    "Runs the customer-support example: a turn with two reads and a reply, then a turn of failing calls."
  ),
  // Each run gets a fresh desk, so the demo prints the same story every time.
  Command.provide(SupportDesk.layerRuntime)
)

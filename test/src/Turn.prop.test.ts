/**
 * The runtime's laws, over generated turns: calls to known and unknown
 * tools, with valid, invalid and malformed arguments, whose handlers
 * succeed, fail, die, throw, hang, go idle, report progress forever or
 * return huge output, and turns interrupted at a random moment.
 *
 * Whatever the mix: exactly one result per call, ids and order kept, no
 * defect escapes, every handler that started has settled (its finalizers
 * ran), reads of a batch start together and no write overlaps anything,
 * and deadlines land at their exact virtual time.
 */
import { assert, describe, it } from "@effect/vitest"
import { Pipeline, Tool, ToolResult, ToolRuntime } from "@tool-runtime/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"

const TIMEOUT = 10_000
const IDLE = 3_000
const LIMIT = 2_000

const Behaviour = Schema.Literal("succeed", "fail", "die", "throw", "hang", "idle", "progress", "huge")
type Behaviour = typeof Behaviour.Type

interface Interval {
  readonly id: string
  readonly readOnly: boolean
  readonly start: number
  end: number | undefined
}

/** What the handlers did, in virtual time. */
class Journal {
  readonly intervals = new Map<string, Interval>()
  readonly settled = new Set<string>()
}

const tools = (journal: Journal) => {
  const make = <const Name extends string>(name: Name, readOnly: boolean) =>
    Tool.make(name, {
      description: `A ${readOnly ? "read" : "write"} tool that does what it is told.`,
      parameters: {
        tag: Schema.String,
        behaviour: Behaviour,
        millis: Schema.Int.pipe(Schema.between(0, 5_000))
      },
      readOnly,
      timeout: TIMEOUT,
      idleTimeout: IDLE,
      outputLimit: LIMIT,
      handler: ({ behaviour, millis, tag }, context) =>
        Effect.gen(function*() {
          const start = yield* Clock.currentTimeMillis
          journal.intervals.set(tag, { id: tag, readOnly, start, end: undefined })
          const work = Effect.gen(function*() {
            yield* Effect.sleep(millis)
            switch (behaviour) {
              case "succeed":
                return `done ${tag}`
              case "fail":
                return yield* Effect.fail(`failed ${tag}`)
              case "die":
                return yield* Effect.die(new Error(`died ${tag}`))
              case "throw":
                throw new Error(`threw ${tag}`)
              case "hang":
                return yield* Effect.never
              case "idle":
                return yield* Effect.never
              case "progress":
                return yield* Effect.forever(Effect.zipRight(context.progress(), Effect.sleep(1_000)))
              case "huge":
                return "x".repeat(50_000)
            }
          })
          return yield* work.pipe(
            Effect.ensuring(Effect.flatMap(Clock.currentTimeMillis, (end) =>
              Effect.sync(() => {
                journal.intervals.get(tag)!.end = end
                journal.settled.add(tag)
              })))
          )
        })
    })
  return [make("read", true), make("write", false)] as const
}

const Arguments = Schema.Literal("valid", "json-string", "invalid", "malformed", "not-object")
const Target = Schema.Literal("read", "write", "raed", "__proto__")

const GeneratedCall = Schema.Struct({
  target: Target,
  behaviour: Behaviour,
  // Below the idle limit: a handler that sleeps longer than that is idle.
  millis: Schema.Int.pipe(Schema.between(0, 2_500)),
  args: Arguments
})
type GeneratedCall = typeof GeneratedCall.Type

const GeneratedTurn = Schema.Struct({
  calls: Schema.Array(GeneratedCall).pipe(Schema.maxItems(8)),
  parallel: Schema.Boolean,
  interruptAt: Schema.UndefinedOr(Schema.Int.pipe(Schema.between(0, 40_000)))
})

const toCall = (generated: GeneratedCall, index: number) => {
  const tag = `c${index}`
  const input = { tag, behaviour: generated.behaviour, millis: generated.millis }
  return {
    id: `call_${index}`,
    name: generated.target,
    input: generated.args === "valid"
      ? input
      : generated.args === "json-string"
      ? JSON.stringify(input)
      : generated.args === "invalid"
      ? { ...input, millis: "soon" }
      : generated.args === "malformed"
      ? JSON.stringify(input).slice(0, -1)
      : "[1, 2, 3]"
  }
}

const executes = (call: GeneratedCall) =>
  (call.target === "read" || call.target === "write") && (call.args === "valid" || call.args === "json-string")

const expectedCode = (call: GeneratedCall): string | undefined => {
  if (call.target !== "read" && call.target !== "write") {
    // "malformed" arguments are JSON cut short: a call the output limit cut off.
    return call.args === "malformed"
      ? "truncated_arguments"
      : call.args === "not-object"
      ? "invalid_input"
      : "unknown_tool"
  }
  switch (call.args) {
    case "invalid":
      return "invalid_arguments"
    case "malformed":
      return "truncated_arguments"
    case "not-object":
      return "invalid_input"
  }
  switch (call.behaviour) {
    case "succeed":
    case "huge":
      return undefined
    case "fail":
      return "tool_failed"
    case "die":
    case "throw":
      return "tool_defect"
    case "hang":
    case "idle":
      return "idle_timeout"
    case "progress":
      return "timeout"
  }
}

const overlaps = (a: Interval, b: Interval) => a.start < b.end! && b.start < a.end!

describe("runTurn laws", () => {
  it.effect.prop(
    "one result per call, order and ids kept, no defect, every handler settled, writes alone, deadlines exact",
    [GeneratedTurn],
    ([generated]) =>
      Effect.gen(function*() {
        const journal = new Journal()
        const runtime = yield* ToolRuntime.ToolRuntime.pipe(
          Effect.provide(ToolRuntime.layerDefault(tools(journal)))
        )
        const calls = generated.calls.map(toCall)
        const interruptAt = generated.interruptAt
        const fiber = yield* Effect.fork(
          Effect.exit(runtime.runTurn(calls, {
            parallel: generated.parallel,
            concurrency: 16,
            ...(interruptAt === undefined
              ? {}
              : { interruptWhen: Effect.as(Effect.sleep(interruptAt), "the user interrupted") })
          }))
        )
        // Far longer than the slowest possible turn (8 calls, each at most the total timeout), in one
        // step: the test clock runs every sleep in order, at its own instant, and returns once every
        // fiber is done or waiting. A turn still running then missed a deadline: it fails here, at
        // once, rather than waiting on a clock nobody moves.
        yield* TestClock.adjust("100 seconds")
        const ended = fiber.unsafePoll()
        assert.isNotNull(ended, "the turn had not ended after 100 s of virtual time")
        const exit = yield* ended!
        assert.isTrue(Exit.isSuccess(exit), "a defect escaped the runtime")
        if (!Exit.isSuccess(exit)) return
        const results = exit.value

        // One result per call, paired by id, in call order.
        assert.strictEqual(results.length, calls.length)
        results.forEach((result, i) => assert.strictEqual(result.callId, Pipeline.callIdOf(calls[i])))

        // Every handler that started has settled: finalizers ran, even when interrupted.
        for (const tag of journal.intervals.keys()) assert.isTrue(journal.settled.has(tag), `${tag} never settled`)

        // Reads of one batch start together; a write overlaps nothing.
        const intervals = Array.from(journal.intervals.values())
        for (const write of intervals.filter((i) => !i.readOnly)) {
          for (const other of intervals) {
            if (other !== write) assert.isFalse(overlaps(write, other), `${write.id} overlapped ${other.id}`)
          }
        }
        if (generated.parallel) {
          for (const batch of runtime.plan(calls)) {
            const starts = batch.indices
              .map((i) => journal.intervals.get(`c${i}`))
              .filter((i): i is Interval => i !== undefined)
              .map((i) => i.start)
            assert.isTrue(starts.every((s) => s === starts[0]), "reads of one batch did not start together")
          }
        } else {
          const sorted = intervals.slice().sort((a, b) => a.start - b.start)
          sorted.forEach((a, i) => {
            if (i > 0) assert.isAtLeast(a.start, sorted[i - 1]!.end!)
          })
        }

        results.forEach((result, i) => {
          const call = generated.calls[i]!
          const code = result.error?.code
          const text = ToolResult.text(result)
          assert.strictEqual(result.isError, code !== undefined)
          if (code === "interrupted" || code === "not_executed") {
            assert.isDefined(interruptAt, `${code} without an interruption`)
            assert.include(text, "the user interrupted")
            assert.strictEqual(code === "interrupted", journal.intervals.has(`c${i}`))
            return
          }
          assert.strictEqual(code, expectedCode(call), `call ${i}: ${text}`)
          if (!executes(call)) assert.isFalse(journal.intervals.has(`c${i}`), "an invalid call ran")
          // Deadlines land at their exact virtual time, measured from the call's start.
          if (code === "idle_timeout") assert.strictEqual(result.meta.durationMillis, IDLE)
          if (code === "timeout") assert.strictEqual(result.meta.durationMillis, TIMEOUT)
          if (code === "timeout" || code === "idle_timeout") {
            assert.strictEqual(result.error?.outcomeUnknown, call.target === "write")
          }
          // Truncated output never exceeds its limit, and says how long the whole was.
          if (call.behaviour === "huge" && code === undefined) {
            assert.strictEqual(result.meta.truncation?.originalLength, 50_000)
            assert.isAtMost(result.meta.truncation!.shownLength, LIMIT)
            assert.include(text, "of 50,000 characters")
          }
        })
      }),
    // Each run moves the test clock through every sleep of its turn: 150 runs took 15 to 25 s on a loaded
    // machine, against the 30 s default. CI samples 50 (a fresh seed each run); PROPERTY_RUNS=150 or more
    // runs the full count.
    { timeout: 120_000, fastCheck: { numRuns: Number(process.env.PROPERTY_RUNS ?? 50) } }
  )
})

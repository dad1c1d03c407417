/**
 * The runtime's laws over hostile turns: calls whose envelope, name, id or
 * arguments are hostile, and handlers that return, fail with, die with or
 * throw hostile values (see `Hostile`).
 *
 * Whatever the mix: `runTurn` succeeds (no defect escapes), with exactly one
 * result per call, in order, each paired by the id the call carried; every
 * result's text is a string within the output limit plus its marker; and
 * every line of an error result, which the runtime writes, is clean
 * (nothing `ForeignText` would replace).
 */
import { assert, describe, it } from "@effect/vitest"
import { ForeignText, Pipeline, Tool, ToolResult, ToolRuntime } from "@tool-runtime/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as Hostile from "./Hostile.js"

const LIMIT = 2_000
const MARKER_ROOM = 600

const Target = FastCheck.constantFrom("args", "returns", "fails", "dies", "throws", "unknown", "envelope")
const Shape = FastCheck.constantFrom("object", "wrapped", "json", "json-wrapped")

const GeneratedCall = FastCheck.record({
  target: Target,
  shape: Shape,
  value: Hostile.recipe,
  // Ids: plain, hostile, or one of a few that repeat within the turn.
  id: FastCheck.oneof(
    FastCheck.constant(undefined),
    FastCheck.constantFrom("dup", "dup2"),
    Hostile.foreignString
  )
})
type GeneratedCall = typeof GeneratedCall extends FastCheck.Arbitrary<infer A> ? A : never

/** Per run: the hostile values the handlers hand back, by index. */
const tools = (values: ReadonlyArray<unknown>) => {
  const parameters = { i: Schema.Int }
  const make = (name: string, handler: (value: unknown) => Effect.Effect<unknown, unknown>) =>
    Tool.make(name, {
      description: name,
      parameters,
      readOnly: true,
      outputLimit: LIMIT,
      handler: ({ i }) => handler(values[i])
    })
  return [
    Tool.make("args", {
      description: "takes anything",
      parameters: { value: Schema.optional(Schema.Unknown) },
      readOnly: true,
      outputLimit: LIMIT,
      handler: () => Effect.succeed("ok")
    }),
    make("returns", (value) => Effect.succeed(value)),
    make("fails", (value) => Effect.fail(value)),
    make("dies", (value) => Effect.die(value)),
    make("throws", (value) => {
      throw value
    })
  ]
}

const toCall = (generated: GeneratedCall, index: number, value: unknown): unknown => {
  if (generated.target === "envelope") return value
  const id = generated.id === undefined ? `call_${index}` : typeof generated.id === "string"
    ? generated.id
    : Hostile.build(generated.id)
  const name = generated.target === "unknown" ? `\u009b31m\u202eargs\u{e0041}${"y".repeat(300)}` : generated.target
  if (generated.target !== "args" && generated.target !== "unknown") return { id, name, input: { i: index } }
  switch (generated.shape) {
    case "object":
      return { id, name, input: value }
    case "wrapped":
      return { id, name, input: { value } }
    case "json":
      return { id, name, input: Hostile.json(generated.value) }
    default:
      return { id, name, input: `{"value":${Hostile.json(generated.value)}}` }
  }
}

describe("runTurn laws over hostile values", () => {
  it.effect.prop(
    "one result per call, ids and order kept, no defect, every text bounded, every error line clean",
    [FastCheck.array(GeneratedCall, { minLength: 1, maxLength: 6 }), FastCheck.boolean()],
    ([generated, parallel]) =>
      Effect.gen(function*() {
        const values = generated.map((call) => Hostile.build(call.value))
        const runtime = yield* ToolRuntime.ToolRuntime.pipe(
          Effect.provide(ToolRuntime.layerDefault(tools(values), { maxInputChars: 2_000_000 }))
        )
        const calls = generated.map((call, i) => toCall(call, i, values[i]))
        const exit = yield* Effect.exit(runtime.runTurn(calls as never, { parallel }))
        assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? `a defect escaped: ${exit.cause}` : "")
        if (!Exit.isSuccess(exit)) return
        const results = exit.value
        assert.strictEqual(results.length, calls.length)
        results.forEach((result, i) => {
          assert.strictEqual(result.callId, Pipeline.callIdOf(calls[i]), `call ${i}`)
          const text = ToolResult.text(result)
          assert.isString(text)
          assert.isAtMost(text.length, LIMIT + MARKER_ROOM, `call ${i}: ${text.slice(0, 200)}`)
          if (result.isError) {
            for (const line of text.split("\n")) {
              assert.isTrue(ForeignText.isClean(line), `call ${i}: ${JSON.stringify(line.slice(0, 200))}`)
            }
          }
        })
      }),
    // 14 s on a loaded machine, against the 30 s default: CI samples 50 runs (a fresh seed each run);
    // PROPERTY_RUNS=100 or more runs the full count.
    { timeout: 120_000, fastCheck: { numRuns: Number(process.env.PROPERTY_RUNS ?? 50) } }
  )
})

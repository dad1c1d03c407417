import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Tracer from "effect/Tracer"
import * as CallTrace from "../src/CallTrace.js"
import * as Tool from "../src/Tool.js"
import * as ToolRuntime from "../src/ToolRuntime.js"

interface Recorded {
  readonly name: string
  readonly parent: string | undefined
  readonly attributes: Map<string, unknown>
  status: "open" | "ok" | "error"
}

/** A tracer that exports: keeps every span it is asked to make. */
const recordingTracer = () => {
  const spans: Array<Recorded> = []
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const attributes = new Map<string, unknown>()
      const recorded: Recorded = {
        name,
        parent: Option.match(parent, { onNone: () => undefined, onSome: (p) => p.spanId }),
        attributes,
        status: "open"
      }
      spans.push(recorded)
      const span: Tracer.Span = {
        _tag: "Span",
        name,
        spanId: `span-${spans.length}`,
        traceId: "trace",
        parent,
        context,
        status: { _tag: "Started", startTime },
        attributes,
        links: Array.from(links),
        sampled: true,
        kind,
        end: (_endTime, exit) => {
          recorded.status = exit._tag === "Success" ? "ok" : "error"
        },
        attribute: (key, value) => {
          attributes.set(key, value)
        },
        event: () => {},
        addLinks: () => {}
      }
      return span
    },
    context: (f) => f()
  })
  return { spans, tracer }
}

const secret = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8"

const lookup = Tool.make("lookup", {
  description: "Looks something up.",
  parameters: { query: Schema.String },
  readOnly: true,
  handler: ({ query }) => Effect.succeed(`found ${query}`).pipe(Effect.withSpan("handler.work"))
})

describe("CallTrace", () => {
  it.effect("a span per call and per stage, with status and counts, never the arguments or output", () =>
    Effect.gen(function*() {
      const { spans, tracer } = recordingTracer()
      const runtime = yield* ToolRuntime.ToolRuntime.pipe(Effect.provide(ToolRuntime.layerDefault([lookup])))
      yield* runtime.runTurn([
        { id: "call_1", name: "lookup", input: { query: secret } },
        { id: "call_2", name: "lookup", input: { query: 42 } }
      ]).pipe(Effect.withTracer(tracer))

      // OpenTelemetry's GenAI conventions: the span's name and the gen_ai.* attributes.
      const calls = spans.filter((s) => s.name === "execute_tool lookup")
      assert.strictEqual(calls.length, 2)
      const [ok, bad] = calls
      for (const [span, id] of [[ok!, "call_1"], [bad!, "call_2"]] as const) {
        assert.strictEqual(span.attributes.get("gen_ai.operation.name"), "execute_tool")
        assert.strictEqual(span.attributes.get("gen_ai.tool.name"), "lookup")
        assert.strictEqual(span.attributes.get("gen_ai.tool.call.id"), id)
        assert.strictEqual(span.attributes.get("gen_ai.tool.type"), "function")
        assert.strictEqual(span.attributes.get("gen_ai.tool.description"), "Looks something up.")
      }
      assert.isFalse(ok!.attributes.has("error.type"))
      assert.strictEqual(bad!.attributes.get("error.type"), "invalid_arguments")
      assert.strictEqual(ok!.attributes.get("tool.name"), "lookup")
      assert.strictEqual(ok!.attributes.get("tool.call_id"), "call_1")
      assert.strictEqual(ok!.attributes.get("tool.status"), "ok")
      assert.strictEqual(ok!.attributes.get("tool.truncated"), false)
      assert.strictEqual(ok!.attributes.get("tool.redactions"), 1)
      assert.strictEqual(ok!.status, "ok")
      assert.strictEqual(bad!.attributes.get("tool.status"), "invalid_arguments")
      assert.strictEqual(bad!.status, "error")

      const stagesOf = (call: Recorded) => {
        const id = `span-${spans.indexOf(call) + 1}`
        return spans.filter((s) => s.parent === id).map((s) => s.name)
      }
      assert.deepStrictEqual(stagesOf(ok!), [
        "tool_runtime.parse",
        "tool_runtime.lookup",
        "tool_runtime.validate",
        "tool_runtime.authorize",
        "tool_runtime.execute",
        "tool_runtime.shape"
      ])
      // The failing call stops at validation, and that stage span says it failed.
      assert.deepStrictEqual(stagesOf(bad!), [
        "tool_runtime.parse",
        "tool_runtime.lookup",
        "tool_runtime.validate",
        "tool_runtime.shape"
      ])
      assert.strictEqual(
        spans.find((s) => s.name === "tool_runtime.validate" && s.status === "error")?.name,
        "tool_runtime.validate"
      )

      // The handler's own spans nest under the execute stage.
      const execute = spans.findIndex((s) => s.name === "tool_runtime.execute")
      assert.strictEqual(spans.find((s) => s.name === "handler.work")?.parent, `span-${execute + 1}`)

      // Nothing the model sent or the tool returned reaches an attribute.
      for (const span of spans) {
        for (const value of span.attributes.values()) assert.notInclude(String(value), secret)
      }
      assert.isTrue(spans.every((s) => s.status !== "open"), "a span was left open")
    }))

  it.effect("a model-invented tool name holding a secret is redacted in the span", () =>
    Effect.gen(function*() {
      const { spans, tracer } = recordingTracer()
      const runtime = yield* ToolRuntime.ToolRuntime.pipe(Effect.provide(ToolRuntime.layerDefault([lookup])))
      const [result] = yield* runtime.runTurn([{ id: secret, name: secret, input: {} }]).pipe(
        Effect.withTracer(tracer)
      )
      assert.strictEqual(result!.error?.code, "unknown_tool")
      const call = spans.find((s) => s.attributes.get("gen_ai.operation.name") === "execute_tool")
      assert.strictEqual(call?.attributes.get("error.type"), "unknown_tool")
      // No tool, no description.
      assert.isFalse(call!.attributes.has("gen_ai.tool.description"))
      assert.notInclude(call!.name, secret)
      for (const span of spans) {
        for (const value of span.attributes.values()) assert.notInclude(String(value), secret)
      }
    }))

  it.effect("with TraceValues on, arguments and results are recorded redacted and capped; a made-up name too", () =>
    Effect.gen(function*() {
      const { spans, tracer } = recordingTracer()
      const runtime = yield* ToolRuntime.ToolRuntime.pipe(Effect.provide(ToolRuntime.layerDefault([lookup])))
      const huge = `${secret} ${"q".repeat(200_000)}`
      const longName = `lookup_${"x".repeat(500)}`
      yield* runtime.runTurn([
        { id: "a", name: "lookup", input: { query: huge } },
        { id: "b", name: longName, input: { query: "x" } }
      ]).pipe(Effect.withTracer(tracer), Effect.provideService(CallTrace.TraceValues, true))
      const call = (id: string) =>
        spans.find((s) =>
          s.attributes.get("gen_ai.operation.name") === "execute_tool" && s.attributes.get("gen_ai.tool.call.id") === id
        )!
      for (const key of ["gen_ai.tool.call.arguments", "gen_ai.tool.call.result"]) {
        const value = String(call("a").attributes.get(key))
        assert.isAtMost(value.length, CallTrace.maxValueChars, key)
        assert.include(value, "[REDACTED:github-token]", key)
        assert.notInclude(value, secret.slice(4, 12), key)
      }
      // The arguments were 200,000 characters: cut to the cap, the note of their size included.
      assert.isAbove(
        String(call("a").attributes.get("gen_ai.tool.call.arguments")).length,
        CallTrace.maxValueChars - 40
      )
      // The made-up name is shown, printable and short.
      assert.isTrue(call("b").name.startsWith("execute_tool lookup_xxx"))
      assert.isAtMost(call("b").name.length, 100)
    }))
})

import { assert, describe, it, layer } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import type OpenAI from "openai"
import * as OpenAIResponses from "../src/OpenAIResponses.js"
import * as World from "./World.js"

const argumentsOf = (call: World.GenCall) => typeof call.input === "string" ? call.input : JSON.stringify(call.input)

/** A response's output as the API sends it: reasoning, then the turn's items. */
const output = (turn: World.GenTurn): Array<OpenAI.Responses.ResponseOutputItem> => [
  { type: "reasoning", id: "rs_1", summary: [] },
  ...World.interleave(turn).map((item, i): OpenAI.Responses.ResponseOutputItem => {
    if (item._tag === "call") {
      return {
        type: "function_call",
        id: `fc_${i}`,
        call_id: item.call.id,
        name: item.call.name,
        arguments: argumentsOf(item.call),
        status: "completed"
      }
    }
    return (item.anomaly.kind === "missing-id"
      ? { type: "function_call", id: `fc_${i}`, name: "get_time", arguments: "{}" }
      : { type: "hologram_call", call_id: "x" }) as unknown as OpenAI.Responses.ResponseOutputItem
  })
]

const anomalyPaths = (turn: World.GenTurn) =>
  World.interleave(turn).flatMap((item, i) => item._tag === "anomaly" ? [`output[${i + 1}]`] : [])

const definitions = {
  definitions: World.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema
  }))
}

layer(World.runtimeLayer)("OpenAIResponses", (it) => {
  it.effect.prop(
    "every function_call gets exactly one function_call_output, paired by call_id, in order",
    [World.turn({ objectsOnly: false, anomalies: true })],
    ([turn]) =>
      Effect.gen(function*() {
        const response = { id: "resp_1", object: "response", output: output(turn), parallel_tool_calls: true }
        const decoded = OpenAIResponses.decodeCalls(response)
        // Arguments reach the runtime as the string the model wrote.
        assert.deepStrictEqual(
          decoded.calls,
          turn.calls.map((call) => ({ id: call.id, name: call.name, input: argumentsOf(call) }))
        )
        assert.deepStrictEqual(decoded.error?.issues.map((issue) => issue.path) ?? [], anomalyPaths(turn))

        const results = yield* World.run(decoded.calls, OpenAIResponses.turnOptions(response))
        assert.deepStrictEqual(results.map((r) => r.error?.code), World.expectedCodes(turn.calls))

        const items = OpenAIResponses.encodeResults(results, { decoded })
        assert.strictEqual(items.length, turn.calls.length)
        items.forEach((item, i) => {
          assert.strictEqual(item.type, "function_call_output")
          assert.strictEqual(item.call_id, turn.calls[i]!.id)
          const onlyText = results[i]!.content.every((block) => block._tag === "text")
          assert.strictEqual(typeof item.output === "string", onlyText)
        })

        const read = OpenAIResponses.decodeResults(items)
        assert.isUndefined(read.error)
        assert.deepStrictEqual(
          read.results,
          results.map((r) => ({ callId: r.callId, content: r.content, isError: undefined }))
        )
      })
  )

  it.prop(
    "decode(encode(calls)) round-trips, arguments as the JSON string",
    [World.turn({ objectsOnly: false, anomalies: false })],
    ([turn]) => {
      const calls = turn.calls.map((call) => ({ id: call.id, name: call.name, input: argumentsOf(call) }))
      const decoded = OpenAIResponses.decodeCalls(OpenAIResponses.encodeCalls(calls))
      assert.deepStrictEqual(decoded.calls, calls)
      assert.isUndefined(decoded.error)
    }
  )

  it.effect("parallel_tool_calls: false runs every call alone", () =>
    Effect.gen(function*() {
      const runtime = yield* ToolRuntime.ToolRuntime
      const calls = [
        { id: "a", name: "get_weather", input: "{\"location\":\"Paris\"}" },
        { id: "b", name: "get_weather", input: "{\"location\":\"Bogotá\"}" }
      ]
      assert.deepStrictEqual(OpenAIResponses.turnOptions({ parallel_tool_calls: false }), { parallel: false })
      assert.deepStrictEqual(OpenAIResponses.turnOptions({ parallel_tool_calls: true }), {})
      assert.deepStrictEqual(OpenAIResponses.turnOptions({ parallel_tool_calls: null }), {})
      assert.deepStrictEqual(
        runtime.plan(calls, OpenAIResponses.turnOptions({ parallel_tool_calls: false })).map((b) => b.indices),
        [[0], [1]]
      )
    }))

  it.effect("a strict tool's optional field comes back as null and reaches the tool as absent", () =>
    Effect.gen(function*() {
      const toolSet = OpenAIResponses.toolDefinitions(definitions)
      const weather = toolSet.tools.find((tool) => tool.name === "get_weather")!
      assert.isTrue(weather.strict)
      assert.deepStrictEqual(weather.parameters, {
        type: "object",
        required: ["location", "unit"],
        properties: {
          location: { type: "string", description: "The city and state, e.g. San Francisco, CA" },
          unit: { type: ["string", "null"], enum: ["celsius", "fahrenheit", null] }
        },
        additionalProperties: false
      })
      const decoded = OpenAIResponses.decodeCalls([
        {
          type: "function_call",
          call_id: "c1",
          name: "get_weather",
          arguments: "{\"location\":\"Paris\",\"unit\":null}"
        },
        { type: "function_call", call_id: "c2", name: "get_weather", arguments: "{\"location\":\"Paris\",\"unit\":nul" }
      ], { tools: toolSet })
      assert.deepStrictEqual(decoded.calls[0]?.input, { location: "Paris" })
      // Not JSON: passed on as it is, for the core to answer.
      assert.strictEqual(decoded.calls[1]?.input, "{\"location\":\"Paris\",\"unit\":nul")
      const [ok, cut] = yield* World.run(decoded.calls)
      assert.strictEqual(ToolResult.text(ok!), "Paris: 15 degrees celsius, partly cloudy")
      // It stops mid-value: a call cut off, not run.
      assert.strictEqual(cut!.error?.code, "truncated_arguments")
      // Without the tool set, the null reaches the tool's schema, which refuses it.
      const [raw] = yield* World.run(
        OpenAIResponses.decodeCalls([
          {
            type: "function_call",
            call_id: "c1",
            name: "get_weather",
            arguments: "{\"location\":\"Paris\",\"unit\":null}"
          }
        ]).calls
      )
      assert.strictEqual(raw!.error?.code, "invalid_arguments")
    }))
})

describe("OpenAIResponses", () => {
  it("client-side calls of other kinds are reported, not dropped; server-side items are skipped", () => {
    const decoded = OpenAIResponses.decodeCalls([
      { type: "web_search_call", id: "ws_1", status: "completed" },
      { type: "custom_tool_call", call_id: "ct_1", name: "patch", input: "*** Begin Patch" },
      { type: "function_call", call_id: "c1", name: "get_time", arguments: "{}" },
      {
        type: "tool_search_call",
        id: "ts_1",
        call_id: "ts_c",
        execution: "client",
        arguments: {},
        status: "completed"
      },
      { type: "tool_search_call", id: "ts_2", call_id: null, execution: "server", arguments: {}, status: "completed" },
      { role: "user", content: "hi" }
    ])
    assert.deepStrictEqual(decoded.calls.map((c) => c.id), ["c1"])
    assert.deepStrictEqual(decoded.error?.issues.map((i) => i.path), ["[1]", "[3]"])
    assert.include(decoded.error!.message, "\"custom_tool_call\" item needs an answer of its own kind")
  })

  it("a payload without output items is a decode error", () => {
    assert.strictEqual(OpenAIResponses.decodeCalls({ id: "resp_1" }).error?.issues[0]?.path, "output")
    assert.strictEqual(OpenAIResponses.decodeCalls("nope").error?.issues[0]?.path, "output")
  })

  it("repeats the caller of a call made by a program", () => {
    const decoded = OpenAIResponses.decodeCalls([
      {
        type: "function_call",
        call_id: "c1",
        name: "get_time",
        arguments: "{}",
        caller: { type: "program", caller_id: "p1", extra: 1 }
      }
    ])
    const [item] = OpenAIResponses.encodeResults([
      ToolResult.make({
        callId: "c1",
        toolName: "get_time",
        content: [ToolResult.textBlock("ok")],
        isError: false,
        meta: { durationMillis: 0, redactions: 0 }
      })
    ], { decoded })
    assert.deepStrictEqual(item, {
      type: "function_call_output",
      call_id: "c1",
      output: "ok",
      caller: { type: "program", caller_id: "p1" }
    })
  })

  it("images and documents become input_image and input_file parts", () => {
    const output = OpenAIResponses.encodeOutput(ToolResult.make({
      callId: "c1",
      toolName: "picture",
      content: [
        ToolResult.textBlock("a pixel"),
        ToolResult.image(World.png, "image/png"),
        ToolResult.image("JVBERi0=", "application/pdf")
      ],
      isError: false,
      meta: { durationMillis: 0, redactions: 0 }
    }))
    assert.deepStrictEqual(output, [
      { type: "input_text", text: "a pixel" },
      { type: "input_image", image_url: `data:image/png;base64,${World.png}`, detail: "auto" },
      { type: "input_file", file_data: "data:application/pdf;base64,JVBERi0=", filename: "c1.pdf" }
    ])
  })

  it("describes tools as strict function tools the SDK accepts", () => {
    const toolSet = OpenAIResponses.toolDefinitions(definitions)
    const tools: Array<OpenAI.Responses.Tool> = toolSet.tools
    assert.strictEqual(tools.length, World.tools.length)
    assert.isTrue(toolSet.tools.every((tool) => tool.strict === true))
    assert.isUndefined(toolSet.error)
    const loose = OpenAIResponses.toolDefinitions(definitions, { strict: false })
    assert.isTrue(loose.tools.every((tool) => tool.strict === false))
    assert.deepStrictEqual(loose.tools[0]?.parameters, World.getWeather.inputSchema as unknown)
  })
})

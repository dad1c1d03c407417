import type AnthropicSdk from "@anthropic-ai/sdk"
import { assert, describe, it, layer } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Anthropic from "../src/Anthropic.js"
import * as Wire from "../src/Wire.js"
import * as World from "./World.js"

/** An assistant message as the API sends it: text, then the turn's items. */
const assistantMessage = (turn: World.GenTurn): AnthropicSdk.Messages.MessageParam => ({
  role: "assistant",
  content: [
    { type: "text", text: "Let me look that up." },
    ...World.interleave(turn).map((item): AnthropicSdk.Messages.ContentBlockParam => {
      if (item._tag === "call") {
        return { type: "tool_use", id: item.call.id, name: item.call.name, input: item.call.input }
      }
      return item.anomaly.kind === "missing-id"
        ? { type: "tool_use", name: "get_weather", input: {} } as unknown as AnthropicSdk.Messages.ToolUseBlockParam
        : { type: "hologram", id: "h_1" } as unknown as AnthropicSdk.Messages.ContentBlockParam
    })
  ]
})

const anomalyPaths = (turn: World.GenTurn) =>
  World.interleave(turn).flatMap((item, i) => item._tag === "anomaly" ? [`content[${i + 1}]`] : [])

const result = (props: Partial<ToolResult.ToolResult> & Pick<ToolResult.ToolResult, "content">) =>
  ToolResult.make({
    callId: "c1",
    toolName: "t",
    isError: false,
    meta: { durationMillis: 0, redactions: 0 },
    ...props
  })

layer(World.runtimeLayer)("Anthropic", (it) => {
  it.effect.prop(
    "every tool_use gets exactly one tool_result, paired by id, in order, all before any text",
    [World.turn({ objectsOnly: true, anomalies: true })],
    ([turn]) =>
      Effect.gen(function*() {
        const payload = assistantMessage(turn)
        const decoded = Anthropic.decodeCalls(payload)
        assert.deepStrictEqual(
          decoded.calls,
          turn.calls.map(({ id, input, name }) => ({ id, name, input }))
        )
        assert.deepStrictEqual(decoded.error?.issues.map((issue) => issue.path) ?? [], anomalyPaths(turn))

        const results = yield* World.run(decoded.calls, Anthropic.turnOptions({}))
        assert.deepStrictEqual(results.map((r) => r.callId), turn.calls.map((c) => c.id))
        assert.deepStrictEqual(results.map((r) => r.error?.code), World.expectedCodes(turn.calls))

        const message = Anthropic.encodeResults(results, { decoded, text: "Thanks, what next?" })
        assert.strictEqual(message.role, "user")
        assert.strictEqual(message.content.length, results.length + 1)
        message.content.forEach((block, i) => {
          if (i < results.length) {
            assert.strictEqual(block.type, "tool_result")
            if (block.type !== "tool_result") return
            assert.strictEqual(block.tool_use_id, turn.calls[i]!.id)
            assert.strictEqual(block.is_error, results[i]!.isError ? true : undefined)
          } else {
            assert.deepStrictEqual(block, { type: "text", text: "Thanks, what next?" })
          }
        })
        // Every identified tool_use of the payload is answered.
        const answered = new Set(message.content.flatMap((b) => b.type === "tool_result" ? [b.tool_use_id] : []))
        for (const call of decoded.calls) assert.isTrue(answered.has(call.id))

        const read = Anthropic.decodeResults(message)
        assert.isUndefined(read.error)
        assert.deepStrictEqual(
          read.results,
          results.map((r) => ({ callId: r.callId, content: World.visible(r.content), isError: r.isError }))
        )
      })
  )

  it.prop(
    "decode(encode(calls)) round-trips",
    [World.turn({ objectsOnly: true, anomalies: false })],
    ([turn]) => {
      const calls = turn.calls.map(({ id, input, name }) => ({ id, name, input }))
      const decoded = Anthropic.decodeCalls(Anthropic.encodeCalls(calls))
      assert.deepStrictEqual(decoded.calls, calls)
      assert.isUndefined(decoded.error)
    }
  )

  it.effect("disable_parallel_tool_use runs every call alone", () =>
    Effect.gen(function*() {
      const runtime = yield* ToolRuntime.ToolRuntime
      const calls = [
        { id: "a", name: "get_weather", input: { location: "Paris" } },
        { id: "b", name: "get_time", input: { timezone: "UTC" } }
      ]
      const sequential = Anthropic.turnOptions({ tool_choice: { type: "auto", disable_parallel_tool_use: true } })
      assert.deepStrictEqual(sequential, { parallel: false })
      assert.deepStrictEqual(runtime.plan(calls, sequential).map((b) => b.concurrent), [false, false])
      assert.deepStrictEqual(Anthropic.turnOptions({ tool_choice: { type: "any" } }), {})
      assert.deepStrictEqual(Anthropic.turnOptions({ tool_choice: { type: "none" } }), {})
      assert.deepStrictEqual(Anthropic.turnOptions({}), {})
      assert.deepStrictEqual(runtime.plan(calls, {}).map((b) => b.indices), [[0, 1]])
    }))
})

describe("Anthropic", () => {
  it("reads the message from the API, the message param, or its content", () => {
    // Only the fields that matter here; the rest of a Message is usage and metadata.
    const message = {
      id: "msg_01",
      type: "message",
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_1", name: "get_time", input: {}, caller: { type: "direct" } }],
      stop_reason: "tool_use"
    } as const satisfies Partial<AnthropicSdk.Messages.Message>
    for (const payload of [message, { role: "assistant", content: message.content }, message.content]) {
      assert.deepStrictEqual(Anthropic.decodeCalls(payload).calls, [{ id: "toolu_1", name: "get_time", input: {} }])
    }
  })

  it("a text-only message has no calls and no error", () => {
    assert.deepStrictEqual(Anthropic.decodeCalls({ role: "assistant", content: "Hello" }).calls, [])
    assert.isUndefined(Anthropic.decodeCalls({ role: "assistant", content: "Hello" }).error)
  })

  it("a payload that is not an assistant message is a decode error", () => {
    assert.strictEqual(Anthropic.decodeCalls({ role: "user", content: [] }).error?.issues[0]?.path, "role")
    assert.strictEqual(Anthropic.decodeCalls({ role: "assistant", content: 7 }).error?.issues[0]?.path, "content")
    assert.strictEqual(Anthropic.decodeCalls(null).error?.issues[0]?.path, "content")
    const error = Anthropic.decodeCalls([{ type: "__proto__" }, { type: "toString" }, "x", { id: 1 }]).error
    assert.deepStrictEqual(error?.issues.map((i) => i.path), ["[0]", "[1]", "[2]", "[3]"])
    assert.include(error!.message, "unknown block type \"__proto__\"")
    assert.include(error!.message, "Anthropic Messages")
  })

  it("the calls next to an unidentifiable block still get results; the error names the block", () => {
    const decoded = Anthropic.decodeCalls({
      role: "assistant",
      content: [
        { type: "tool_use", id: "toolu_1", name: "get_time", input: { timezone: "UTC" } },
        { type: "tool_use", id: "", name: "get_time", input: {} },
        { type: "tool_use", id: "toolu_1", name: "get_time", input: {} },
        { type: "tool_use", id: "toolu_3", input: {} }
      ]
    })
    // A repeated id and a missing name are the core's to answer, paired by id.
    assert.deepStrictEqual(decoded.calls.map((c) => [c.id, c.name]), [
      ["toolu_1", "get_time"],
      ["toolu_1", "get_time"],
      ["toolu_3", ""]
    ])
    assert.deepStrictEqual(decoded.error?.issues, [{
      path: "content[1]",
      problem: "the call has no id, so no result can be paired with it; it was not run"
    }])
  })

  it("maps result content to text, image and document blocks", () => {
    const pdf = "JVBERi0xLjQK"
    const block = Anthropic.encodeResult(result({
      content: [
        ToolResult.textBlock("caption"),
        ToolResult.textBlock(""),
        ToolResult.image(World.png, "image/png"),
        ToolResult.image(pdf, "application/pdf"),
        ToolResult.image("aGVsbG8=", "text/plain"),
        ToolResult.image("AAAA", "application/zip")
      ]
    }))
    assert.deepStrictEqual(block, {
      type: "tool_result",
      tool_use_id: "c1",
      content: [
        { type: "text", text: "caption" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: World.png } },
        { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf } },
        { type: "document", source: { type: "text", media_type: "text/plain", data: "hello" } },
        {
          type: "text",
          text: "[application/zip content returned by the tool is not shown: an Anthropic tool result cannot carry it]"
        }
      ]
    })
  })

  it("an empty result has no content rather than an empty text block; errors set is_error", () => {
    assert.deepStrictEqual(Anthropic.encodeResult(result({ content: [ToolResult.textBlock("")] })), {
      type: "tool_result",
      tool_use_id: "c1"
    })
    assert.deepStrictEqual(
      Anthropic.encodeResult(result({ content: [ToolResult.textBlock("boom")], isError: true })),
      { type: "tool_result", tool_use_id: "c1", content: [{ type: "text", text: "boom" }], is_error: true }
    )
  })

  it("a toolset call's result repeats its toolset_name", () => {
    const decoded = Anthropic.decodeCalls([
      { type: "tool_use", id: "toolu_b", name: "navigate", input: { url: "example.com" }, toolset_name: "browser" }
    ])
    const message = Anthropic.encodeResults([result({ callId: "toolu_b", content: [ToolResult.textBlock("ok")] })], {
      decoded
    })
    assert.strictEqual(message.content[0]?.type === "tool_result" && message.content[0].toolset_name, "browser")
  })

  it("decodeResults reports a tool_result placed after text", () => {
    const read = Anthropic.decodeResults({
      role: "user",
      content: [
        { type: "text", text: "here you go" },
        { type: "tool_result", tool_use_id: "toolu_1", content: "ok" }
      ]
    })
    assert.deepStrictEqual(read.error?.issues.map((i) => i.path), ["content[1]"])
    assert.include(read.error!.message, "requires every tool_result first")
  })

  it("describes tools with input_schema, as the SDK types them", () => {
    const tools: Array<AnthropicSdk.Messages.ToolUnion> = Anthropic.toolDefinitions({
      definitions: [World.getWeather, World.getTime].map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema
      }))
    })
    assert.deepStrictEqual(tools[0], {
      name: "get_weather",
      description: "Get the current weather in a given location.",
      input_schema: {
        type: "object",
        required: ["location"],
        properties: {
          location: { type: "string", description: "The city and state, e.g. San Francisco, CA" },
          unit: { type: "string", enum: ["celsius", "fahrenheit"] }
        },
        additionalProperties: false
      }
    })
  })

  it("field names are checked against the SDK types", () => {
    const toolUse = Wire.fields<AnthropicSdk.Messages.ToolUseBlock>()
    assert.strictEqual(toolUse({ id: "x" }, "id"), "x")
    // @ts-expect-error: the SDK's tool_use block has no field "tool_id"
    assert.isUndefined(toolUse({ id: "x" }, "tool_id"))
    // The encoded message is a MessageParam the SDK accepts as it is.
    const params: AnthropicSdk.Messages.MessageParam = Anthropic.encodeResults([])
    assert.strictEqual(params.role, "user")
  })
})

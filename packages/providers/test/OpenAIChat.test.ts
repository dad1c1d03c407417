import { assert, describe, it, layer } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import type OpenAI from "openai"
import * as OpenAIChat from "../src/OpenAIChat.js"
import * as World from "./World.js"

const argumentsOf = (call: World.GenCall) => typeof call.input === "string" ? call.input : JSON.stringify(call.input)

/** A chat completion as the API sends it, its message holding the turn's items. */
const completion = (turn: World.GenTurn) =>
  ({
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "gpt-4.1",
    choices: [{
      index: 0,
      finish_reason: "tool_calls",
      logprobs: null,
      message: {
        role: "assistant",
        content: null,
        refusal: null,
        tool_calls: World.interleave(turn).map((item): OpenAI.Chat.Completions.ChatCompletionMessageToolCall => {
          if (item._tag === "call") {
            return {
              id: item.call.id,
              type: "function",
              function: { name: item.call.name, arguments: argumentsOf(item.call) }
            }
          }
          return (item.anomaly.kind === "missing-id"
            ? { type: "function", function: { name: "get_time", arguments: "{}" } }
            : { id: "x", type: "hologram" }) as unknown as OpenAI.Chat.Completions.ChatCompletionMessageToolCall
        })
      }
    }]
  }) satisfies OpenAI.Chat.Completions.ChatCompletion

const anomalyPaths = (turn: World.GenTurn) =>
  World.interleave(turn).flatMap((item, i) => item._tag === "anomaly" ? [`choices[0].message.tool_calls[${i}]`] : [])

layer(World.runtimeLayer)("OpenAIChat", (it) => {
  it.effect.prop(
    "every tool call gets exactly one tool message, paired by tool_call_id, in order, before anything else",
    [World.turn({ objectsOnly: false, anomalies: true })],
    ([turn]) =>
      Effect.gen(function*() {
        const decoded = OpenAIChat.decodeCalls(completion(turn))
        assert.deepStrictEqual(
          decoded.calls,
          turn.calls.map((call) => ({ id: call.id, name: call.name, input: argumentsOf(call) }))
        )
        assert.deepStrictEqual(decoded.error?.issues.map((issue) => issue.path) ?? [], anomalyPaths(turn))

        const results = yield* World.run(decoded.calls, OpenAIChat.turnOptions({ parallel_tool_calls: false }))
        assert.deepStrictEqual(results.map((r) => r.error?.code), World.expectedCodes(turn.calls))

        const messages = OpenAIChat.encodeResults(results)
        const attachments = results.some((r) => r.content.some((block) => block._tag === "image"))
        assert.strictEqual(messages.length, results.length + (attachments ? 1 : 0))
        messages.forEach((message, i) => {
          if (i < results.length) {
            assert.strictEqual(message.role, "tool")
            assert.strictEqual(message.role === "tool" && message.tool_call_id, turn.calls[i]!.id)
            assert.strictEqual(typeof message.content, "string")
          } else {
            assert.strictEqual(message.role, "user")
          }
        })

        const read = OpenAIChat.decodeResults(messages)
        assert.isUndefined(read.error)
        assert.deepStrictEqual(read.results.map((r) => r.callId), results.map((r) => r.callId))
        results.forEach((result, i) => {
          if (result.content.every((block) => block._tag === "text")) {
            assert.deepStrictEqual(read.results[i]!.content, [ToolResult.textBlock(ToolResult.text(result))])
          }
        })
      })
  )

  it.prop(
    "decode(encode(calls)) round-trips, arguments as the JSON string",
    [World.turn({ objectsOnly: false, anomalies: false })],
    ([turn]) => {
      const calls = turn.calls.map((call) => ({ id: call.id, name: call.name, input: argumentsOf(call) }))
      const decoded = OpenAIChat.decodeCalls(OpenAIChat.encodeCalls(calls))
      assert.deepStrictEqual(decoded.calls, calls)
      assert.isUndefined(decoded.error)
    }
  )

  it.effect("parallel_tool_calls: false runs every call alone", () =>
    Effect.gen(function*() {
      const runtime = yield* ToolRuntime.ToolRuntime
      const calls = [
        { id: "a", name: "get_time", input: "{\"timezone\":\"UTC\"}" },
        { id: "b", name: "get_time", input: "{\"timezone\":\"CET\"}" }
      ]
      assert.deepStrictEqual(
        runtime.plan(calls, OpenAIChat.turnOptions({ parallel_tool_calls: false })).map((b) => b.indices),
        [[0], [1]]
      )
      assert.deepStrictEqual(
        runtime.plan(calls, OpenAIChat.turnOptions({})).map((b) => b.indices),
        [[0, 1]]
      )
    }))
})

describe("OpenAIChat", () => {
  it("a message without tool calls has none; other messages are decode errors", () => {
    assert.deepStrictEqual(OpenAIChat.decodeCalls({ role: "assistant", content: "Hi" }), {
      calls: [],
      error: undefined
    })
    assert.strictEqual(OpenAIChat.decodeCalls({ role: "user", content: "Hi" }).error?.issues[0]?.path, "role")
    assert.strictEqual(OpenAIChat.decodeCalls({ choices: [] }).error?.issues[0]?.path, "choices[0].message")
  })

  it("custom tool calls are reported, not run", () => {
    const decoded = OpenAIChat.decodeCalls({
      role: "assistant",
      tool_calls: [{ id: "c1", type: "custom", custom: { name: "grep", input: "TODO" } }]
    })
    assert.deepStrictEqual(decoded.calls, [])
    assert.include(decoded.error!.message, "\"custom\" item needs an answer of its own kind")
  })

  it("images go in one user message after every tool message, and the tool message says so", () => {
    const meta = { durationMillis: 0, redactions: 0 }
    const messages = OpenAIChat.encodeResults([
      ToolResult.make({
        callId: "c1",
        toolName: "picture",
        content: [ToolResult.textBlock("a pixel"), ToolResult.image(World.png, "image/png")],
        isError: false,
        meta
      }),
      ToolResult.make({
        callId: "c2",
        toolName: "get_time",
        content: [ToolResult.textBlock("noon")],
        isError: false,
        meta
      })
    ])
    const sdk: Array<OpenAI.Chat.Completions.ChatCompletionMessageParam> = messages
    assert.deepStrictEqual(sdk, [
      { role: "tool", tool_call_id: "c1", content: "a pixel\n[1 attachment returned; shown in the next user message]" },
      { role: "tool", tool_call_id: "c2", content: "noon" },
      {
        role: "user",
        content: [
          { type: "text", text: "Attachments of tool call c1:" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${World.png}` } }
        ]
      }
    ])
  })

  it("describes tools as strict function tools", () => {
    const toolSet = OpenAIChat.toolDefinitions({
      definitions: [{ name: "get_time", description: "time", inputSchema: World.getTime.inputSchema }]
    })
    const tools: Array<OpenAI.Chat.Completions.ChatCompletionTool> = toolSet.tools
    assert.deepStrictEqual(tools, [{
      type: "function",
      function: {
        name: "get_time",
        description: "time",
        parameters: {
          type: "object",
          required: ["timezone"],
          properties: { timezone: { type: "string", description: "The IANA time zone name" } },
          additionalProperties: false
        },
        strict: true
      }
    }])
  })
})

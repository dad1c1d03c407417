import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import type * as Generated from "@effect/ai-anthropic/Generated"
import * as AiTool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { assert, describe, it } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as AgentLoop from "../src/AgentLoop.js"
import * as AiToolkit from "../src/AiToolkit.js"
import * as AnthropicToolResults from "../src/AnthropicToolResults.js"

const GetWeather = AiTool.make("GetWeather", {
  description: "Current weather in a city.",
  parameters: { city: Schema.String },
  success: Schema.Struct({ city: Schema.String, celsius: Schema.Number })
}).annotate(AiTool.Readonly, true)

const BookTrip = AiTool.make("BookTrip", {
  description: "Books a trip.",
  parameters: { city: Schema.String },
  success: Schema.String,
  failure: Schema.Struct({ reason: Schema.String })
})

const toolkit = Toolkit.make(GetWeather, BookTrip)

const Tools = AiToolkit.layerRuntime(toolkit).pipe(
  Layer.provide(toolkit.toLayer({
    GetWeather: ({ city }) => Effect.succeed({ city, celsius: 21 }),
    BookTrip: ({ city }) => Effect.fail({ reason: `no seats left to ${city}` })
  }))
)

const usage = { input_tokens: 10, output_tokens: 5 }

/** The Messages API's replies: tool calls (one to a tool that does not exist), then the answer. */
const replies = [
  {
    id: "msg_01",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    stop_reason: "tool_use",
    usage,
    content: [
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "toolu_01", name: "GetWeather", input: { city: "Lisbon" } },
      { type: "tool_use", id: "toolu_02", name: "GetWether", input: { city: "Porto" } },
      { type: "tool_use", id: "toolu_03", name: "BookTrip", input: { city: "Lisbon" } }
    ]
  },
  {
    id: "msg_02",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    stop_reason: "end_turn",
    usage,
    content: [{ type: "text", text: "It is 21 °C in Lisbon; no trip." }]
  }
]

type Body = typeof Generated.BetaCreateMessageParams.Encoded

/**
 * An HTTP client standing in for the Messages API: the n-th request gets
 * the n-th reply (an empty body past the end: a stream of no events) and
 * its body is kept.
 */
const mockHttp = (bodies: Array<Body>, replies: ReadonlyArray<unknown>) =>
  Layer.succeed(
    HttpClient.HttpClient,
    HttpClient.make((request) =>
      Effect.sync(() => {
        if (request.body._tag === "Uint8Array") bodies.push(JSON.parse(new TextDecoder().decode(request.body.body)))
        const reply = replies[bodies.length - 1]
        return HttpClientResponse.fromWeb(
          request,
          new Response(reply === undefined ? "" : JSON.stringify(reply), {
            status: 200,
            headers: { "content-type": "application/json" }
          })
        )
      })
    )
  )

/** `@effect/ai-anthropic`'s model over {@link mockHttp}; `textResults` adds this module. */
const mockAnthropic = (bodies: Array<Body>, textResults: boolean) => {
  const client = AnthropicClient.layer({})
  return AnthropicLanguageModel.layer({ model: "claude-sonnet-4-5" }).pipe(
    Layer.provide(textResults ? AnthropicToolResults.layer.pipe(Layer.provide(client)) : client),
    Layer.provide(mockHttp(bodies, replies))
  )
}

/** The `tool_result` blocks of a request's last message. */
const toolResults = (body: Body | undefined) => {
  const content = body?.messages.at(-1)?.content
  return content === undefined || typeof content === "string"
    ? []
    : content.flatMap((block) => block.type === "tool_result" ? [block] : [])
}

describe("AnthropicToolResults", () => {
  it.effect("through @effect/ai-anthropic, each tool_result holds the runtime's text once encoded, errors flagged", () =>
    Effect.gen(function*() {
      const bodies: Array<Body> = []
      const result = yield* AgentLoop.run({ prompt: "Weather in Lisbon? Book me a trip." }).pipe(
        Effect.provide(mockAnthropic(bodies, true))
      )
      assert.strictEqual(result.stopped, "model")
      assert.strictEqual(result.text, "It is 21 °C in Lisbon; no trip.")
      assert.strictEqual(bodies.length, 2)
      const blocks = toolResults(bodies[1])
      assert.deepStrictEqual(blocks.map((block) => [block.tool_use_id, block.is_error]), [
        ["toolu_01", false],
        ["toolu_02", true],
        ["toolu_03", true]
      ])
      assert.deepStrictEqual(blocks.map((block) => block.content), [
        "{\"celsius\":21,\"city\":\"Lisbon\"}",
        "There is no tool named \"GetWether\".\nDid you mean \"GetWeather\"? Call one of the tools you were given.",
        "BookTrip failed: {\"reason\":\"no seats left to Lisbon\"}\n" +
        "Read the error above and change the request before trying again."
      ])
      // Exactly the text the runtime produced.
      assert.deepStrictEqual(blocks.map((block) => block.content), result.steps[0]!.results.map(ToolResult.text))
    }).pipe(Effect.provide(Tools)))

  it.effect("@effect/ai-anthropic alone sends a text result as a JSON string literal: the reason for the module", () =>
    Effect.gen(function*() {
      const bodies: Array<Body> = []
      yield* AgentLoop.run({ prompt: "Weather in Lisbon? Book me a trip." }).pipe(
        Effect.provide(mockAnthropic(bodies, false))
      )
      const contents = toolResults(bodies[1]).map((block) => block.content)
      assert.strictEqual(
        contents[1],
        JSON.stringify(
          "There is no tool named \"GetWether\".\nDid you mean \"GetWeather\"? Call one of the tools you were given."
        )
      )
    }).pipe(Effect.provide(Tools)))

  it.effect("streamed requests are rewritten too; other content and other blocks are left as they are", () => {
    const bodies: Array<Body> = []
    return Effect.gen(function*() {
      const client = yield* AnthropicToolResults.make
      yield* Stream.runDrain(client.createMessageStream({
        payload: {
          model: "claude-sonnet-4-5",
          max_tokens: 1024,
          messages: [
            { role: "user", content: "\"a user's quoted text\"" },
            { role: "assistant", content: [{ type: "text", text: "\"quoted\"" }] },
            {
              role: "user",
              content: [
                { type: "tool_result", tool_use_id: "t1", content: JSON.stringify("line 1\nline 2"), is_error: true },
                { type: "tool_result", tool_use_id: "t2", content: JSON.stringify({ ok: true }) },
                { type: "tool_result", tool_use_id: "t3", content: "not JSON at all" },
                { type: "text", text: "\"quoted\"" }
              ]
            }
          ]
        }
      })).pipe(Effect.provide(AnthropicClient.layer({}).pipe(Layer.provide(mockHttp(bodies, [])))))
      const sent = bodies[0]!
      assert.strictEqual(sent.stream, true)
      assert.deepStrictEqual(sent.messages, [
        { role: "user", content: "\"a user's quoted text\"" },
        { role: "assistant", content: [{ type: "text", text: "\"quoted\"" }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: "line 1\nline 2", is_error: true },
            { type: "tool_result", tool_use_id: "t2", content: "{\"ok\":true}" },
            { type: "tool_result", tool_use_id: "t3", content: "not JSON at all" },
            { type: "text", text: "\"quoted\"" }
          ]
        }
      ])
    }).pipe(Effect.provide(AnthropicClient.layer({}).pipe(Layer.provide(mockHttp(bodies, [])))))
  })
})

/**
 * Recorded payloads, written from the providers' documented examples
 * (parallel calls, and calls gone wrong), run end to end: decoded, planned,
 * run through the real runtime, encoded, and read back.
 */
import { assert, layer } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Anthropic from "../src/Anthropic.js"
import * as Gemini from "../src/Gemini.js"
import * as Mcp from "../src/Mcp.js"
import * as OpenAIChat from "../src/OpenAIChat.js"
import * as OpenAIResponses from "../src/OpenAIResponses.js"
import * as ProviderError from "../src/ProviderError.js"
import type * as Wire from "../src/Wire.js"
import anthropicMalformed from "./fixtures/anthropic-malformed-blocks.json" with { type: "json" }
import anthropicParallel from "./fixtures/anthropic-parallel-tool-use.json" with { type: "json" }
import geminiParallel from "./fixtures/gemini-parallel-function-calls.json" with { type: "json" }
import mcpCall from "./fixtures/mcp-tools-call.json" with { type: "json" }
import chatMalformed from "./fixtures/openai-chat-malformed-arguments.json" with { type: "json" }
import chatParallel from "./fixtures/openai-chat-parallel-tool-calls.json" with { type: "json" }
import responsesMalformed from "./fixtures/openai-responses-malformed-arguments.json" with { type: "json" }
import responsesParallel from "./fixtures/openai-responses-parallel-function-calls.json" with { type: "json" }
import * as World from "./World.js"

const Fixture = Schema.Struct({
  provider: ProviderError.Provider,
  description: Schema.String,
  source: Schema.String,
  request: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  response: Schema.Unknown,
  expect: Schema.Struct({
    parallelOff: Schema.Boolean,
    batches: Schema.Array(Schema.Array(Schema.Number)),
    issues: Schema.Array(Schema.String),
    results: Schema.Array(Schema.Struct({
      id: Schema.String,
      code: Schema.NullOr(Schema.String),
      text: Schema.optional(Schema.String)
    }))
  })
})

interface Codec {
  readonly decode: (payload: unknown) => Wire.Decoded
  readonly options: (request: Record<string, unknown>) => ToolRuntime.TurnOptions
  readonly encode: (results: ReadonlyArray<ToolResult.ToolResult>, decoded: Wire.Decoded) => unknown
  readonly readBack: (encoded: unknown, results: ReadonlyArray<ToolResult.ToolResult>) => ReadonlyArray<Wire.Returned>
}

const codecs: Record<ProviderError.Provider, Codec> = {
  anthropic: {
    decode: Anthropic.decodeCalls,
    options: (request) => Anthropic.turnOptions(request),
    encode: (results, decoded) => {
      const message = Anthropic.encodeResults(results, { decoded: decoded as Anthropic.Decoded })
      // The API's rule: tool_result blocks only, one per call, first in the message.
      assert.strictEqual(message.role, "user")
      assert.isTrue(message.content.every((block) => block.type === "tool_result"))
      return message
    },
    readBack: (encoded) => {
      const read = Anthropic.decodeResults(encoded)
      assert.isUndefined(read.error)
      return read.results
    }
  },
  "openai-responses": {
    decode: OpenAIResponses.decodeCalls,
    options: (request) => OpenAIResponses.turnOptions(request),
    encode: (results, decoded) =>
      OpenAIResponses.encodeResults(results, { decoded: decoded as OpenAIResponses.Decoded }),
    readBack: (encoded) => {
      const read = OpenAIResponses.decodeResults(encoded)
      assert.isUndefined(read.error)
      return read.results
    }
  },
  "openai-chat": {
    decode: OpenAIChat.decodeCalls,
    options: (request) => OpenAIChat.turnOptions(request),
    encode: (results) => OpenAIChat.encodeResults(results),
    readBack: (encoded) => {
      const read = OpenAIChat.decodeResults(encoded)
      assert.isUndefined(read.error)
      return read.results
    }
  },
  gemini: {
    decode: Gemini.decodeCalls,
    // Gemini has no parallel switch.
    options: () => ({}),
    encode: (results, decoded) => Gemini.encodeResults(results, decoded as Gemini.Decoded),
    readBack: (encoded) => {
      const read = Gemini.decodeResults(encoded)
      assert.isUndefined(read.error)
      return read.results
    }
  },
  mcp: {
    decode: Mcp.decodeCall,
    options: () => ({}),
    encode: (results) => results.map((result) => Mcp.encodeResult(result)),
    readBack: (encoded, results) =>
      (encoded as ReadonlyArray<unknown>).map((result, i) => {
        const read = Mcp.decodeResult(result, results[i]!.callId)
        assert.isUndefined(read.error)
        return read.result!
      })
  }
}

const fixtures = [
  anthropicParallel,
  anthropicMalformed,
  responsesParallel,
  responsesMalformed,
  chatParallel,
  chatMalformed,
  geminiParallel,
  mcpCall
]

layer(World.runtimeLayer)("recorded payloads", (it) => {
  for (const json of fixtures) {
    it.effect(`${json.provider}: ${json.description}`, () =>
      Effect.gen(function*() {
        const fixture = yield* Schema.decodeUnknown(Fixture)(json)
        const codec = codecs[fixture.provider]
        const runtime = yield* ToolRuntime.ToolRuntime

        const decoded = codec.decode(fixture.response)
        assert.deepStrictEqual(decoded.error?.issues.map((issue) => issue.path) ?? [], fixture.expect.issues)

        const options = codec.options(fixture.request)
        assert.strictEqual(options.parallel === false, fixture.expect.parallelOff)
        assert.deepStrictEqual(
          runtime.plan(decoded.calls, options).map((batch) => batch.indices),
          fixture.expect.batches
        )

        const results = yield* runtime.runTurn(decoded.calls, options)
        assert.deepStrictEqual(results.map((r) => r.callId), fixture.expect.results.map((r) => r.id))
        fixture.expect.results.forEach((expected, i) => {
          assert.strictEqual(results[i]!.error?.code ?? null, expected.code)
          if (expected.text !== undefined) assert.include(ToolResult.text(results[i]!), expected.text)
        })

        const encoded = codec.encode(results, decoded)
        const returned = codec.readBack(encoded, results)
        assert.deepStrictEqual(returned.map((r) => r.callId), results.map((r) => r.callId))
        returned.forEach((r, i) => {
          if (r.isError !== undefined) assert.strictEqual(r.isError, results[i]!.isError)
        })
      }))
  }
})

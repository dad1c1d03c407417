/**
 * A call the model's output limit cut off, in each wire format: the codec
 * says so (`truncated`), the runtime never runs it (not even "repaired"),
 * its result asks for it again smaller, and the pairing of ids holds. The
 * complete call before it runs; a response that stopped after its calls
 * (text last) cuts none.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Anthropic from "../src/Anthropic.js"
import * as Gemini from "../src/Gemini.js"
import * as OpenAIChat from "../src/OpenAIChat.js"
import * as OpenAIResponses from "../src/OpenAIResponses.js"
import type * as Wire from "../src/Wire.js"

const writes: Array<string> = []
const writeFile = Tool.make("write_file", {
  description: "Writes a file.",
  parameters: { path: Schema.String, content: Schema.optional(Schema.String) },
  risk: "low",
  handler: ({ path }) =>
    Effect.sync(() => {
      writes.push(path)
      return `wrote ${path}`
    })
})
const getTime = Tool.make("get_time", {
  description: "The time in a zone.",
  parameters: { timezone: Schema.String },
  readOnly: true,
  handler: ({ timezone }) => Effect.succeed(`14:05 in ${timezone}`)
})

/** The runtime's answers to what a codec decoded, and how many writes ran. */
const run = (decoded: Wire.Decoded) =>
  Effect.gen(function*() {
    writes.length = 0
    const runtime = yield* ToolRuntime.ToolRuntime
    const results = yield* runtime.runTurn(decoded.calls)
    return { results, writes: [...writes] }
  }).pipe(Effect.provide(ToolRuntime.layerDefault([writeFile, getTime])))

// A model half-way through a file when the limit struck: a parser that "repairs" this would write a wrong file.
const partial = "{\"path\": \"src/app.ts\", \"content\": \"export const main = () => {\\n  retu"
const partialObject = { path: "src/app.ts", content: "export const main = () => {\n  retu" }

const cases: ReadonlyArray<
  {
    readonly format: string
    readonly cut: unknown
    readonly whole: unknown
    readonly decode: (payload: unknown) => Wire.Decoded
  }
> = [
  {
    format: "Anthropic Messages (stop_reason max_tokens)",
    decode: Anthropic.decodeCalls,
    cut: {
      role: "assistant",
      stop_reason: "max_tokens",
      content: [
        { type: "tool_use", id: "toolu_1", name: "get_time", input: { timezone: "UTC" } },
        { type: "tool_use", id: "toolu_2", name: "write_file", input: partialObject }
      ]
    },
    whole: {
      role: "assistant",
      stop_reason: "max_tokens",
      content: [
        { type: "tool_use", id: "toolu_1", name: "get_time", input: { timezone: "UTC" } },
        { type: "tool_use", id: "toolu_2", name: "write_file", input: partialObject },
        { type: "text", text: "I will now explain what I wrote, at len" }
      ]
    }
  },
  {
    format: "OpenAI Chat Completions (finish_reason length)",
    decode: (payload) => OpenAIChat.decodeCalls(payload),
    cut: {
      choices: [{
        finish_reason: "length",
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_time", arguments: "{\"timezone\": \"UTC\"}" } },
            // Cut where the JSON happens to close: only the finish reason tells.
            {
              id: "call_2",
              type: "function",
              function: { name: "write_file", arguments: "{\"path\": \"src/app.ts\"}" }
            }
          ]
        }
      }]
    },
    whole: {
      choices: [{
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_time", arguments: "{\"timezone\": \"UTC\"}" } },
            {
              id: "call_2",
              type: "function",
              function: { name: "write_file", arguments: "{\"path\": \"src/app.ts\"}" }
            }
          ]
        }
      }]
    }
  },
  {
    format: "OpenAI Responses (status incomplete, max_output_tokens)",
    decode: (payload) => OpenAIResponses.decodeCalls(payload),
    cut: {
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [
        { type: "function_call", call_id: "fc_1", name: "get_time", arguments: "{\"timezone\": \"UTC\"}" },
        { type: "function_call", call_id: "fc_2", name: "write_file", arguments: "{\"path\": \"src/app.ts\"}" }
      ]
    },
    whole: {
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [
        { type: "function_call", call_id: "fc_1", name: "get_time", arguments: "{\"timezone\": \"UTC\"}" },
        { type: "function_call", call_id: "fc_2", name: "write_file", arguments: "{\"path\": \"src/app.ts\"}" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Done, and now a long expl" }] }
      ]
    }
  },
  {
    format: "Gemini (finishReason MAX_TOKENS)",
    decode: Gemini.decodeCalls,
    cut: {
      candidates: [{
        finishReason: "MAX_TOKENS",
        content: {
          role: "model",
          parts: [
            { functionCall: { id: "g_1", name: "get_time", args: { timezone: "UTC" } } },
            { functionCall: { id: "g_2", name: "write_file", args: partialObject } }
          ]
        }
      }]
    },
    whole: {
      candidates: [{
        finishReason: "MAX_TOKENS",
        content: {
          role: "model",
          parts: [
            { functionCall: { id: "g_1", name: "get_time", args: { timezone: "UTC" } } },
            { functionCall: { id: "g_2", name: "write_file", args: partialObject } },
            { text: "Now let me tell you ab" }
          ]
        }
      }]
    }
  }
]

describe("a call cut off by the output limit", () => {
  for (const { cut, decode, format, whole } of cases) {
    it.effect(`${format}: not run, answered truncated_arguments, pairing kept; the call before it runs`, () =>
      Effect.gen(function*() {
        const decoded = decode(cut)
        assert.isUndefined(decoded.error)
        assert.deepStrictEqual(decoded.calls.map((call) => call.truncated === undefined), [true, false])
        const { results, writes } = yield* run(decoded)
        assert.deepStrictEqual(results.map((result) => result.callId), decoded.calls.map((call) => call.id))
        assert.isFalse(results[0]!.isError)
        assert.include(ToolResult.text(results[0]!), "14:05 in UTC")
        assert.strictEqual(results[1]!.error?.code, "truncated_arguments")
        assert.match(ToolResult.text(results[1]!), /was cut off before its end .*output limit.*not run/)
        assert.match(ToolResult.text(results[1]!), /again, complete and smaller/)
        assert.deepStrictEqual(writes, [])
      }))

    it.effect(`${format}: a response that stopped after its calls cuts none of them`, () =>
      Effect.gen(function*() {
        const decoded = decode(whole)
        assert.isUndefined(decoded.error)
        assert.isTrue(decoded.calls.every((call) => call.truncated === undefined))
        const { results, writes } = yield* run(decoded)
        assert.isTrue(results.every((result) => !result.isError), results.map(ToolResult.text).join("\n"))
        assert.deepStrictEqual(writes, ["src/app.ts"])
      }))
  }

  it.effect("OpenAI Responses: an item marked incomplete is cut off, even in a bare list of items", () =>
    Effect.gen(function*() {
      const decoded = OpenAIResponses.decodeCalls([
        {
          type: "function_call",
          call_id: "fc_1",
          name: "write_file",
          arguments: "{\"path\": \"a\"}",
          status: "incomplete"
        },
        {
          type: "function_call",
          call_id: "fc_2",
          name: "get_time",
          arguments: "{\"timezone\": \"UTC\"}",
          status: "completed"
        }
      ])
      const { results, writes } = yield* run(decoded)
      assert.deepStrictEqual(results.map((result) => result.error?.code), ["truncated_arguments", undefined])
      assert.deepStrictEqual(writes, [])
    }))

  it.effect("arguments whose JSON ends mid-value, with no finish reason at all, are cut off too", () =>
    Effect.gen(function*() {
      const decoded = OpenAIChat.decodeCalls({
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "write_file", arguments: partial } }]
      })
      const { results, writes } = yield* run(decoded)
      assert.strictEqual(results[0]!.error?.code, "truncated_arguments")
      assert.match(ToolResult.text(results[0]!), /JSON ends mid-value/)
      assert.notInclude(ToolResult.text(results[0]!), "retu")
      assert.deepStrictEqual(writes, [])
    }))
})

/**
 * The package's wire types (`AnthropicWire`, `OpenAIResponsesWire`,
 * `OpenAIChatWire`, `GeminiWire`, `McpWire`) held to the provider SDKs' own
 * types, so that the published declarations need no SDK and a misspelt field
 * still fails `tsc -b`.
 *
 * Most of this file is checked by the compiler: `holds<Check>()` only
 * compiles when the check is `true`, `fails<Check>()` when it is `false`. What the codecs write must conform to
 * the SDK's request types (assignable, and naming no field the SDK lacks);
 * the field names the decoders read must be the SDK's; the type tables the
 * decoders classify by must be exactly the SDK's; and what a caller passes
 * in (`tool_choice`, `parallel_tool_calls`) must be accepted as the SDK types
 * it. The runtime tests run what the MCP codec writes through the MCP SDK's
 * own schemas, the one SDK here that ships validators.
 */
import type * as A from "@anthropic-ai/sdk/resources/messages/messages.js"
import { assert, describe, it } from "@effect/vitest"
import type * as Genai from "@google/genai"
import type * as McpSpec from "@modelcontextprotocol/sdk/spec.types.js"
import * as McpTypes from "@modelcontextprotocol/sdk/types.js"
import * as Registry from "@tool-runtime/core/Registry"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as Effect from "effect/Effect"
import type * as C from "openai/resources/chat/completions/completions.js"
import type * as R from "openai/resources/responses/responses.js"
import type * as OpenAIShared from "openai/resources/shared.js"
import type * as Anthropic from "../src/Anthropic.js"
import type * as AnthropicWire from "../src/AnthropicWire.js"
import type * as GeminiWire from "../src/GeminiWire.js"
import * as Mcp from "../src/Mcp.js"
import type * as McpWire from "../src/McpWire.js"
import type * as OpenAIChat from "../src/OpenAIChat.js"
import type * as OpenAIChatWire from "../src/OpenAIChatWire.js"
import type * as OpenAIResponses from "../src/OpenAIResponses.js"
import type * as OpenAIResponsesWire from "../src/OpenAIResponsesWire.js"
import * as World from "./World.js"

/** `A` can be passed where `B` is expected (checked whole, not member by member of a union). */
type Assignable<A, B> = [A] extends [B] ? true : false

/** The field names of `T`, without those an index signature stands for. */
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] }

/** `A` names no field `B` lacks: an optional field misspelt in `A` would still be assignable. */
type Named<A, B> = [Exclude<KnownKeys<A>, KnownKeys<B>>] extends [never] ? true : false

/** What we write is taken by the SDK, under the names it has. */
type Conforms<A, B> = [Assignable<A, B>, Named<A, B>] extends [true, true] ? true : false

/** The same union of literals. */
type Same<A, B> = [A] extends [B] ? [B] extends [A] ? true : false : false

/** Compiles only when the check is `true`. */
const holds = <_Check extends true>(): void => {}

/** Compiles only when the check is `false`. */
const fails = <_Check extends false>(): void => {}

// The checks must be able to fail.
fails<Assignable<{ readonly a: string }, { a: number }>>()
fails<Assignable<"a" | "b", "a">>()
fails<Named<{ readonly toolset_nme?: string }, A.ToolUseBlockParam>>()
fails<Named<{ readonly isErr?: boolean }, McpSpec.CallToolResult>>()
fails<Same<"a" | "b", "a">>()

// ---------------------------------------------------------------------------
// Anthropic Messages
// ---------------------------------------------------------------------------

// Written.
holds<Conforms<AnthropicWire.ToolUseBlockParam, A.ToolUseBlockParam>>()
holds<Conforms<AnthropicWire.TextBlockParam, A.TextBlockParam>>()
holds<Conforms<AnthropicWire.ImageBlockParam, A.ImageBlockParam>>()
holds<Conforms<AnthropicWire.Base64ImageSource, A.Base64ImageSource>>()
holds<Conforms<AnthropicWire.DocumentBlockParam, A.DocumentBlockParam>>()
holds<Conforms<AnthropicWire.Base64PDFSource, A.Base64PDFSource>>()
holds<Conforms<AnthropicWire.PlainTextSource, A.PlainTextSource>>()
holds<Conforms<AnthropicWire.ToolResultBlockParam, A.ToolResultBlockParam>>()
holds<Conforms<Anthropic.CallsMessage, A.AssistantMessageParam>>()
holds<Conforms<Anthropic.ResultsMessage, A.UserMessageParam>>()
holds<Assignable<Anthropic.CallsMessage | Anthropic.ResultsMessage, A.MessageParam>>()
holds<Conforms<AnthropicWire.Tool, A.Tool>>()
holds<Assignable<AnthropicWire.Tool, A.ToolUnion>>()

// Read.
holds<Same<AnthropicWire.BlockType, A.ContentBlock["type"] | A.ContentBlockParam["type"]>>()
holds<Assignable<A.Message, AnthropicWire.Message>>()
holds<Assignable<A.UserMessageParam | A.AssistantMessageParam, AnthropicWire.Message>>()
holds<Named<AnthropicWire.Message, A.Message>>()
holds<Assignable<A.ToolUseBlock, AnthropicWire.ToolUseBlockParam>>()
holds<Named<AnthropicWire.ToolUseBlockParam, A.ToolUseBlock>>()
holds<Same<AnthropicWire.ToolChoice, A.ToolChoice>>()
holds<Named<AnthropicWire.ToolChoiceAuto, A.ToolChoiceAuto>>()
holds<Named<AnthropicWire.ToolChoiceAny, A.ToolChoiceAny>>()
holds<Named<AnthropicWire.ToolChoiceTool, A.ToolChoiceTool>>()
holds<Named<AnthropicWire.ToolChoiceNone, A.ToolChoiceNone>>()
holds<Assignable<A.MessageCreateParams, Parameters<typeof Anthropic.turnOptions>[0]>>()

// ---------------------------------------------------------------------------
// OpenAI Responses
// ---------------------------------------------------------------------------

// Written.
holds<Conforms<OpenAIResponsesWire.ResponseFunctionToolCall, R.ResponseFunctionToolCall>>()
holds<Assignable<OpenAIResponsesWire.ResponseFunctionToolCall, R.ResponseInputItem>>()
holds<Conforms<OpenAIResponsesWire.DirectCaller, R.ResponseFunctionToolCall.Direct>>()
holds<Conforms<OpenAIResponsesWire.ProgramCaller, R.ResponseFunctionToolCall.Program>>()
holds<Conforms<OpenAIResponsesWire.FunctionCallOutput, R.ResponseInputItem.FunctionCallOutput>>()
holds<Assignable<OpenAIResponsesWire.FunctionCallOutput, R.ResponseInputItem>>()
holds<Conforms<OpenAIResponsesWire.ResponseInputTextContent, R.ResponseInputTextContent>>()
holds<Conforms<OpenAIResponsesWire.ResponseInputImageContent, R.ResponseInputImageContent>>()
holds<Conforms<OpenAIResponsesWire.ResponseInputFileContent, R.ResponseInputFileContent>>()
holds<Conforms<OpenAIResponsesWire.FunctionTool, R.FunctionTool>>()
holds<Assignable<OpenAIResponsesWire.FunctionTool, R.Tool>>()

// Read.
holds<
  Same<
    OpenAIResponsesWire.ItemType,
    R.ResponseOutputItem["type"] | NonNullable<R.ResponseInputItem["type"]>
  >
>()
holds<Assignable<R.Response, OpenAIResponsesWire.Response>>()
holds<Named<OpenAIResponsesWire.Response, R.Response>>()
holds<Assignable<R.ResponseFunctionToolCall, OpenAIResponsesWire.ResponseFunctionToolCall>>()
holds<Named<OpenAIResponsesWire.ResponseToolSearchCall, R.ResponseToolSearchCall>>()
holds<Assignable<R.ResponseToolSearchCall, OpenAIResponsesWire.ResponseToolSearchCall>>()
holds<Assignable<R.ResponseCreateParams, Parameters<typeof OpenAIResponses.turnOptions>[0]>>()

// ---------------------------------------------------------------------------
// OpenAI Chat Completions
// ---------------------------------------------------------------------------

// Written.
holds<
  Conforms<
    OpenAIChatWire.ChatCompletionMessageFunctionToolCall,
    C.ChatCompletionMessageFunctionToolCall
  >
>()
holds<
  Conforms<
    OpenAIChatWire.ChatCompletionMessageFunctionToolCall["function"],
    C.ChatCompletionMessageFunctionToolCall.Function
  >
>()
holds<
  Conforms<
    OpenAIChatWire.ChatCompletionAssistantMessageParam,
    C.ChatCompletionAssistantMessageParam
  >
>()
holds<Conforms<OpenAIChatWire.ChatCompletionToolMessageParam, C.ChatCompletionToolMessageParam>>()
holds<Conforms<OpenAIChatWire.ChatCompletionUserMessageParam, C.ChatCompletionUserMessageParam>>()
holds<
  Assignable<
    OpenAIChat.ResultMessage | OpenAIChatWire.ChatCompletionAssistantMessageParam,
    C.ChatCompletionMessageParam
  >
>()
holds<Conforms<OpenAIChatWire.ChatCompletionContentPartText, C.ChatCompletionContentPartText>>()
holds<Conforms<OpenAIChatWire.ChatCompletionContentPartImage, C.ChatCompletionContentPartImage>>()
holds<
  Conforms<
    OpenAIChatWire.ChatCompletionContentPartImage["image_url"],
    C.ChatCompletionContentPartImage.ImageURL
  >
>()
holds<Conforms<OpenAIChatWire.ChatCompletionContentPartFile, C.ChatCompletionContentPart.File>>()
holds<
  Conforms<
    OpenAIChatWire.ChatCompletionContentPartFile["file"],
    C.ChatCompletionContentPart.File.File
  >
>()
holds<Conforms<OpenAIChatWire.ChatCompletionFunctionTool, C.ChatCompletionFunctionTool>>()
holds<Conforms<OpenAIChatWire.FunctionDefinition, OpenAIShared.FunctionDefinition>>()
holds<Assignable<OpenAIChatWire.ChatCompletionFunctionTool, C.ChatCompletionTool>>()

// Read.
holds<Same<OpenAIChatWire.ToolCallType, C.ChatCompletionMessageToolCall["type"]>>()
holds<Assignable<C.ChatCompletion, OpenAIChatWire.ChatCompletion>>()
holds<Named<OpenAIChatWire.ChatCompletion, C.ChatCompletion>>()
holds<Named<OpenAIChatWire.ChatCompletionChoice, C.ChatCompletion.Choice>>()
holds<Assignable<C.ChatCompletionMessage, OpenAIChatWire.ChatCompletionMessage>>()
holds<Named<OpenAIChatWire.ChatCompletionMessage, C.ChatCompletionMessage>>()
holds<
  Assignable<
    C.ChatCompletionMessageFunctionToolCall,
    OpenAIChatWire.ChatCompletionMessageFunctionToolCall
  >
>()
holds<Assignable<C.ChatCompletionCreateParams, Parameters<typeof OpenAIChat.turnOptions>[0]>>()

// ---------------------------------------------------------------------------
// Gemini
// ---------------------------------------------------------------------------

// Written.
holds<Conforms<GeminiWire.FunctionCall, Genai.FunctionCall>>()
holds<Conforms<GeminiWire.FunctionResponse, Genai.FunctionResponse>>()
holds<Conforms<GeminiWire.FunctionResponsePart, Genai.FunctionResponsePart>>()
holds<Conforms<GeminiWire.FunctionResponseBlob, Genai.FunctionResponseBlob>>()
holds<Conforms<GeminiWire.Part, Genai.Part>>()
holds<Conforms<GeminiWire.Content, Genai.Content>>()
holds<Conforms<GeminiWire.FunctionDeclaration, Genai.FunctionDeclaration>>()
holds<Conforms<GeminiWire.Tool, Genai.Tool>>()

// Read.
holds<Same<GeminiWire.PartField, keyof Genai.Part>>()
holds<Conforms<GeminiWire.Candidate, Genai.Candidate>>()
holds<Named<GeminiWire.CandidateEnd, Genai.Candidate>>()
// A class with getters: what the decoder reads of it is its field names.
holds<Named<GeminiWire.GenerateContentResponse, Genai.GenerateContentResponse>>()

// ---------------------------------------------------------------------------
// MCP
// ---------------------------------------------------------------------------

// Written.
holds<Conforms<McpWire.CallToolRequest, McpSpec.CallToolRequest>>()
holds<Conforms<McpWire.CallToolRequestParams, McpSpec.CallToolRequestParams>>()
holds<Conforms<McpWire.CallToolResult, McpSpec.CallToolResult>>()
holds<Conforms<McpWire.TextContent, McpSpec.TextContent>>()
holds<Conforms<McpWire.ImageContent, McpSpec.ImageContent>>()
holds<Conforms<McpWire.AudioContent, McpSpec.AudioContent>>()
holds<Conforms<McpWire.EmbeddedResource, McpSpec.EmbeddedResource>>()
holds<Conforms<McpWire.BlobResourceContents, McpSpec.BlobResourceContents>>()
holds<Assignable<McpWire.ContentBlock, McpSpec.ContentBlock>>()
holds<Conforms<McpWire.ToolAnnotations, McpSpec.ToolAnnotations>>()
holds<Conforms<McpWire.Tool, McpSpec.Tool>>()

// Read.
holds<Assignable<McpSpec.CallToolRequest, McpWire.CallToolRequest>>()

describe("SdkConformance", () => {
  it.effect("the MCP SDK's own schemas accept what the MCP codec writes", () =>
    Effect.gen(function*() {
      const request = Mcp.encodeCall({ id: "7", name: "get_weather", input: { city: "Paris" } })
      assert.isTrue(McpTypes.JSONRPCRequestSchema.safeParse(request).success)
      assert.isTrue(McpTypes.CallToolRequestSchema.safeParse(request).success)

      const result = Mcp.encodeResult(ToolResult.make({
        callId: "7",
        toolName: "get_weather",
        content: [
          ToolResult.textBlock("{\"temperature\":21}"),
          ToolResult.image(World.png, "image/png"),
          ToolResult.image("AAAA", "audio/wav"),
          ToolResult.image("JVBERi0=", "application/pdf")
        ],
        isError: true,
        meta: { durationMillis: 0, redactions: 0 }
      }))
      assert.strictEqual(result.content.length, 4)
      assert.isTrue(McpTypes.CallToolResultSchema.safeParse(result).success)
      const structured = Mcp.encodeResult(ToolResult.make({
        callId: "8",
        toolName: "get_weather",
        content: [ToolResult.textBlock("{\"temperature\":21}")],
        isError: false,
        meta: { durationMillis: 0, redactions: 0 }
      }))
      assert.deepStrictEqual(structured.structuredContent, { temperature: 21 })
      assert.isTrue(McpTypes.CallToolResultSchema.safeParse(structured).success)

      const registry = yield* Registry.make([World.getWeather, World.sendEmail])
      const tools = Mcp.toolDefinitions(registry)
      assert.isTrue(tools.every((tool) => tool.annotations !== undefined))
      assert.isTrue(McpTypes.ListToolsResultSchema.safeParse({ tools }).success)
    }))
})

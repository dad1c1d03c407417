/**
 * The OpenAI Chat Completions API: `tool_calls` of an assistant message in
 * (arguments as a JSON string), one `role: "tool"` message per call out,
 * paired by `tool_call_id` and in call order; function tools described with
 * `strict: true` where the schema allows it.
 *
 * Tool messages carry text only. A result's images and files go in one user
 * message after all the tool messages (the API requires the tool messages to
 * follow the assistant message directly), and each tool message says so.
 *
 * The shapes are this package's own, in `OpenAIChatWire`, held to the
 * `openai` SDK's types by a conformance test: users need no SDK installed.
 *
 * @since 0.1.0
 */
import type * as Registry from "@tool-runtime/core/Registry"
import type * as ToolCall from "@tool-runtime/core/ToolCall"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import * as Media from "./Media.js"
import type * as OpenAIChatWire from "./OpenAIChatWire.js"
import type * as ProviderError from "./ProviderError.js"
import * as StrictSchema from "./StrictSchema.js"
import * as Wire from "./Wire.js"

type Kind = "call" | "unanswerable"

const callKinds = {
  function: "call",
  // Free-form input, answered like a function call but never run here.
  custom: "unanswerable"
} as const satisfies Record<OpenAIChatWire.ToolCallType, Kind>

const completion = Wire.fields<OpenAIChatWire.ChatCompletion>()
const choiceField = Wire.fields<OpenAIChatWire.ChatCompletionChoice>()
const messageField = Wire.fields<OpenAIChatWire.ChatCompletionMessage>()
const toolCall = Wire.fields<OpenAIChatWire.ChatCompletionMessageFunctionToolCall>()
const functionField = Wire.fields<OpenAIChatWire.ChatCompletionMessageFunctionToolCall["function"]>()
const toolMessage = Wire.fields<OpenAIChatWire.ChatCompletionToolMessageParam>()
const textPart = Wire.fields<OpenAIChatWire.ChatCompletionContentPartText>()

/**
 * @since 0.1.0
 * @category models
 */
export interface DecodeOptions {
  /** The tool set sent with the request, to undo its strict-mode rewrite. */
  readonly tools?: StrictSchema.Restorer | undefined
}

/**
 * Reads the tool calls of an assistant message, or of the first choice of a
 * `ChatCompletion`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeCalls = (payload: unknown, options?: DecodeOptions): Wire.Decoded => {
  const collector = new Wire.Collector("openai-chat")
  let message: unknown = payload
  let path = ""
  let finish: unknown
  if (Wire.isRecord(payload) && Array.isArray(completion(payload, "choices"))) {
    const choices = completion(payload, "choices") as ReadonlyArray<unknown>
    const first = choices[0]
    message = Wire.isRecord(first) ? choiceField(first, "message") : undefined
    finish = Wire.isRecord(first) ? choiceField(first, "finish_reason") : undefined
    path = "choices[0].message."
  }
  if (!Wire.isRecord(message)) {
    collector.issue(
      path === "" ? "message" : path.slice(0, -1),
      `expected the assistant message, got ${Wire.kindOf(message)}`
    )
    return collector.done()
  }
  const role = messageField(message, "role")
  if (role !== undefined && role !== "assistant") {
    collector.issue(`${path}role`, "expected the assistant message that holds the tool calls")
    return collector.done()
  }
  const calls = messageField(message, "tool_calls")
  // No tool calls is a message with text only.
  if (calls === undefined || calls === null) return collector.done()
  collector.items(calls, `${path}tool_calls`, (call, at) => {
    const type = toolCall(call, "type")
    if (typeof type !== "string") return collector.issue(at, "the tool call has no type")
    const kind = Wire.lookup<string, Kind>(callKinds, type)
    if (kind === undefined) return collector.issue(at, Wire.unknownType(type))
    if (kind === "unanswerable") return collector.issue(at, Wire.unanswerable(type))
    const id = toolCall(call, "id")
    if (!Wire.isId(id)) return collector.issue(at, Wire.missingId("id"))
    const fn = toolCall(call, "function")
    // An id without a function is still a call the model made: the core answers it.
    const name = Wire.isRecord(fn) ? functionField(fn, "name") : undefined
    const args = Wire.isRecord(fn) ? functionField(fn, "arguments") : undefined
    collector.call(id, name, StrictSchema.restoreArguments(options?.tools, name, args))
  })
  // Stopped at the output limit: the last call is the one it stopped in (calls come after any text).
  if (finish === "length") collector.cutLast(finish)
  return collector.done()
}

/**
 * An assistant message holding the calls, for replaying a conversation and
 * for round trips.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeCalls = (
  calls: ReadonlyArray<ToolCall.Input>
): OpenAIChatWire.ChatCompletionAssistantMessageParam => ({
  role: "assistant",
  content: null,
  tool_calls: calls.map((call): OpenAIChatWire.ChatCompletionMessageFunctionToolCall => ({
    id: call.id,
    type: "function",
    function: {
      name: call.name,
      arguments: typeof call.input === "string" ? call.input : JSON.stringify(call.input ?? {})
    }
  }))
})

/**
 * What follows an assistant message's tool calls.
 *
 * @since 0.1.0
 * @category models
 */
export type ResultMessage =
  | OpenAIChatWire.ChatCompletionToolMessageParam
  | OpenAIChatWire.ChatCompletionUserMessageParam

const attachment = (
  block: ToolResult.ContentBlock & { readonly _tag: "image" },
  callId: string
): OpenAIChatWire.ChatCompletionContentPart => {
  switch (Media.kind(block.mediaType)) {
    case "image":
      return { type: "image_url", image_url: { url: Media.dataUrl(block.mediaType, block.data) } }
    case "pdf":
      return {
        type: "file",
        file: { file_data: Media.dataUrl(block.mediaType, block.data), filename: `${callId}.pdf` }
      }
    case "text": {
      const text = Media.decodeText(block.data)
      if (text !== undefined) return { type: "text", text }
    }
  }
  return { type: "text", text: Media.omitted(block.mediaType, "a Chat Completions message") }
}

/**
 * One tool message per result, in order, then, when results hold images or
 * files, one user message carrying them, each group introduced by the id of
 * the call it belongs to.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeResults = (results: ReadonlyArray<ToolResult.ToolResult>): Array<ResultMessage> => {
  const messages: Array<ResultMessage> = []
  const attachments: Array<OpenAIChatWire.ChatCompletionContentPart> = []
  for (const result of results) {
    const texts: Array<string> = []
    let count = 0
    for (const block of result.content) {
      if (block._tag === "text") {
        texts.push(block.text)
        continue
      }
      if (count === 0) attachments.push({ type: "text", text: `Attachments of tool call ${result.callId}:` })
      attachments.push(attachment(block, result.callId))
      count++
    }
    if (count > 0) {
      texts.push(`[${count} attachment${count === 1 ? "" : "s"} returned; shown in the next user message]`)
    }
    messages.push({ role: "tool", tool_call_id: result.callId, content: texts.join("\n") })
  }
  if (attachments.length > 0) messages.push({ role: "user", content: attachments })
  return messages
}

/**
 * Reads tool messages back (other messages are skipped; attachments moved
 * to the user message are not put back).
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeResults = (payload: unknown): {
  readonly results: ReadonlyArray<Wire.Returned>
  readonly error: Wire.Decoded["error"]
} => {
  const collector = new Wire.Collector("openai-chat")
  const results: Array<Wire.Returned> = []
  collector.items(payload, "", (message, at) => {
    if (toolMessage(message, "role") !== "tool") return
    const id = toolMessage(message, "tool_call_id")
    if (!Wire.isId(id)) return collector.issue(at, "the tool message has no tool_call_id")
    const content = toolMessage(message, "content")
    const blocks: Array<ToolResult.ContentBlock> = []
    if (typeof content === "string") blocks.push({ _tag: "text", text: content })
    else {
      collector.items(content, `${at}.content`, (part, partAt) => {
        const text = textPart(part, "text")
        if (part.type === "text" && typeof text === "string") blocks.push({ _tag: "text", text })
        else collector.issue(partAt, "tool messages carry text parts only")
      })
    }
    results.push({ callId: id, content: blocks, isError: undefined })
  })
  return { results, error: collector.error }
}

/**
 * The function tools of a request, the strict-mode report, and what
 * {@link decodeCalls} needs to undo the rewrite.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolSet extends StrictSchema.Restorer {
  readonly tools: Array<OpenAIChatWire.ChatCompletionFunctionTool>
  readonly report: ReadonlyArray<StrictSchema.Report>
  readonly error: ProviderError.StrictSchemaRejected | undefined
}

/**
 * The registry's definitions as function tools, `strict: true` wherever the
 * schema can be made strict.
 *
 * @since 0.1.0
 * @category definitions
 */
export const toolDefinitions = (
  source: { readonly definitions: ReadonlyArray<Registry.Definition> },
  options?: StrictSchema.CompileOptions
): ToolSet => {
  const compiled = StrictSchema.compile(source.definitions, "openai-chat", options)
  return {
    tools: compiled.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        strict: tool.strict
      }
    })),
    report: compiled.report,
    error: compiled.error,
    restorer: compiled.restorer
  }
}

/**
 * The runtime's turn options for a request: `parallel_tool_calls: false`
 * runs the calls one at a time.
 *
 * @since 0.1.0
 * @category options
 */
export const turnOptions = Wire.parallelToolCalls

/**
 * The Anthropic Messages API: `tool_use` blocks in, `tool_result` blocks
 * out, tools described with `input_schema`.
 *
 * The rule the API enforces, and the most common way agents break it: every
 * `tool_use` of an assistant message is answered by a `tool_result` with its
 * id in the very next user message, and the `tool_result` blocks come first
 * in that message, before any text. {@link encodeResults} builds exactly
 * that message from the runtime's results (one per call, in call order).
 *
 * The shapes are this package's own, in `AnthropicWire`, held to the SDK's
 * types by a conformance test: users need no SDK installed, and a field the
 * API does not have still fails the build.
 *
 * @since 0.1.0
 */
import type * as Registry from "@tool-runtime/core/Registry"
import type * as ToolCall from "@tool-runtime/core/ToolCall"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import type * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import type * as AnthropicWire from "./AnthropicWire.js"
import * as Media from "./Media.js"
import * as Wire from "./Wire.js"

type Kind = "call" | "skip"

// Every block type the API has, and what it means for this runtime. The
// `satisfies` makes a new block type a compile error until it is classified
// here; a type the API lacks cannot be listed (the conformance test holds
// `BlockType` to the SDK's).
const blockKinds = {
  tool_use: "call",
  text: "skip",
  thinking: "skip",
  redacted_thinking: "skip",
  // Server tools run at Anthropic; their results arrive in the same message.
  server_tool_use: "skip",
  web_search_tool_result: "skip",
  web_fetch_tool_result: "skip",
  code_execution_tool_result: "skip",
  bash_code_execution_tool_result: "skip",
  text_editor_code_execution_tool_result: "skip",
  tool_search_tool_result: "skip",
  container_upload: "skip",
  // User-side blocks: not calls wherever they appear.
  image: "skip",
  document: "skip",
  search_result: "skip",
  tool_result: "skip"
} as const satisfies Record<AnthropicWire.BlockType, Kind>

const message = Wire.fields<AnthropicWire.Message>()
// The stop reasons of a response that ended before the model finished.
const cutOff: ReadonlySet<string> = new Set(["max_tokens", "model_context_window_exceeded"])
const toolUse = Wire.fields<AnthropicWire.ToolUseBlockParam>()
const toolResultField = Wire.fields<AnthropicWire.ToolResultBlockParam>()
const textField = Wire.fields<AnthropicWire.TextBlockParam>()
const imageField = Wire.fields<AnthropicWire.ImageBlockParam>()
const documentField = Wire.fields<AnthropicWire.DocumentBlockParam>()
const base64Field = Wire.fields<AnthropicWire.Base64ImageSource>()

/**
 * The calls of an assistant message, and the toolset each belongs to: a
 * `tool_use` of an Anthropic toolset (browser, computer) needs its
 * `toolset_name` repeated on its result.
 *
 * @since 0.1.0
 * @category models
 */
export interface Decoded extends Wire.Decoded {
  readonly toolsets: ReadonlyMap<string, string>
}

/**
 * Reads the calls of an assistant message: a `Message` from the API, an
 * assistant `MessageParam` from the conversation, or its content array.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeCalls = (payload: unknown): Decoded => {
  const collector = new Wire.Collector("anthropic")
  const toolsets = new Map<string, string>()
  let content: unknown = payload
  let path = "content"
  if (Array.isArray(payload)) {
    path = ""
  } else if (Wire.isRecord(payload)) {
    const role = message(payload, "role")
    if (role !== undefined && role !== "assistant") {
      collector.issue("role", "expected the assistant message that holds the tool_use blocks")
    }
    content = message(payload, "content")
  }
  // A string content is text only: no calls.
  if (typeof content !== "string" && collector.issues.length === 0) {
    collector.items(content, path, (block, at) => {
      const type = block.type
      if (typeof type !== "string") return collector.issue(at, "the block has no type")
      const kind = Wire.lookup<string, Kind>(blockKinds, type)
      if (kind === undefined) return collector.issue(at, Wire.unknownType(type))
      if (kind === "skip") return
      const id = toolUse(block, "id")
      if (!Wire.isId(id)) return collector.issue(at, Wire.missingId("id"))
      collector.call(id, toolUse(block, "name"), toolUse(block, "input"))
      const toolset = toolUse(block, "toolset_name")
      if (typeof toolset === "string") toolsets.set(id, toolset)
    })
    // A response cut at the output limit while writing a call: its input is whatever had arrived.
    const stop = Wire.isRecord(payload) ? message(payload, "stop_reason") : undefined
    const last = Array.isArray(content) ? content.at(-1) : undefined
    if (
      typeof stop === "string" && cutOff.has(stop) && Wire.isRecord(last) && typeof last.type === "string" &&
      Wire.lookup<string, Kind>(blockKinds, last.type) === "call" && toolUse(last, "id") === collector.calls.at(-1)?.id
    ) collector.cutLast(stop)
  }
  return { ...collector.done(), toolsets }
}

/**
 * An assistant message of calls, as {@link encodeCalls} writes it.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallsMessage {
  readonly role: "assistant"
  readonly content: Array<AnthropicWire.ToolUseBlockParam>
}

/**
 * An assistant message holding the calls, for replaying a conversation and
 * for round trips. String inputs are sent as they are: the API takes an
 * object, and only calls that came from it have one.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeCalls = (calls: ReadonlyArray<ToolCall.Input>): CallsMessage => ({
  role: "assistant",
  content: calls.map((call): AnthropicWire.ToolUseBlockParam => ({
    type: "tool_use",
    id: call.id,
    name: call.name,
    input: call.input
  }))
})

/**
 * A block of a tool result, as the API takes it.
 *
 * @since 0.1.0
 * @category models
 */
export type ResultBlock =
  | AnthropicWire.TextBlockParam
  | AnthropicWire.ImageBlockParam
  | AnthropicWire.DocumentBlockParam

const resultBlock = (block: ToolResult.ContentBlock): ResultBlock | undefined => {
  if (block._tag === "text") {
    // The API refuses empty text blocks.
    return block.text === "" ? undefined : { type: "text", text: block.text }
  }
  switch (Media.kind(block.mediaType)) {
    case "image":
      return {
        type: "image",
        source: { type: "base64", media_type: block.mediaType.toLowerCase() as Media.ImageType, data: block.data }
      }
    case "pdf":
      return { type: "document", source: { type: "base64", media_type: "application/pdf", data: block.data } }
    case "text": {
      const text = Media.decodeText(block.data)
      if (text !== undefined) {
        return { type: "document", source: { type: "text", media_type: "text/plain", data: text } }
      }
      break
    }
  }
  return { type: "text", text: Media.omitted(block.mediaType, "an Anthropic tool result") }
}

/**
 * One `tool_result` block.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeResult = (
  result: ToolResult.ToolResult,
  toolset?: string | undefined
): AnthropicWire.ToolResultBlockParam => {
  const content: Array<ResultBlock> = []
  for (const block of result.content) {
    const encoded = resultBlock(block)
    if (encoded !== undefined) content.push(encoded)
  }
  return {
    type: "tool_result",
    tool_use_id: result.callId,
    // No content at all is allowed; an empty text block is not.
    ...(content.length === 0 ? {} : { content }),
    ...(result.isError ? { is_error: true } : {}),
    ...(toolset === undefined ? {} : { toolset_name: toolset })
  }
}

/**
 * The user message that answers an assistant message's calls.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResultsMessage {
  readonly role: "user"
  readonly content: Array<AnthropicWire.ToolResultBlockParam | AnthropicWire.TextBlockParam>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface EncodeOptions {
  /** Text for the model after the results (a user's follow-up); it goes after every `tool_result`. */
  readonly text?: string | undefined
  /** The decoded calls, to repeat each toolset call's `toolset_name`. */
  readonly decoded?: Decoded | undefined
}

/**
 * The next user message: one `tool_result` per result, in order, before
 * any text. Pass the results of `runTurn`, which are one per call in call
 * order, so every `tool_use` is answered.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeResults = (
  results: ReadonlyArray<ToolResult.ToolResult>,
  options?: EncodeOptions
): ResultsMessage => {
  const content: ResultsMessage["content"] = results.map((result) =>
    encodeResult(result, options?.decoded?.toolsets.get(result.callId))
  )
  const text = options?.text
  if (text !== undefined && text !== "") content.push({ type: "text", text })
  return { role: "user", content }
}

const returnedBlock = (block: Readonly<Record<string, unknown>>): ToolResult.ContentBlock | undefined => {
  switch (block.type) {
    case "text": {
      const text = textField(block, "text")
      return typeof text === "string" ? { _tag: "text", text } : undefined
    }
    case "image":
    case "document": {
      const source = block.type === "image" ? imageField(block, "source") : documentField(block, "source")
      if (!Wire.isRecord(source)) return undefined
      const mediaType = base64Field(source, "media_type")
      const data = base64Field(source, "data")
      if (typeof mediaType !== "string" || typeof data !== "string") return undefined
      if (source.type === "base64") return { _tag: "image", mediaType, data }
      if (source.type === "text") return { _tag: "image", mediaType, data: Media.encodeText(data) }
      return undefined
    }
  }
  return undefined
}

/**
 * Reads the results back from a user message, checking the rule the API
 * enforces: `tool_result` blocks first, before any text.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeResults = (payload: unknown): {
  readonly results: ReadonlyArray<Wire.Returned>
  readonly error: Wire.Decoded["error"]
} => {
  const collector = new Wire.Collector("anthropic")
  const results: Array<Wire.Returned> = []
  const content = Wire.isRecord(payload) ? message(payload, "content") : payload
  let other: string | undefined
  collector.items(content, "content", (block, at) => {
    if (block.type !== "tool_result") {
      other ??= at
      return
    }
    if (other !== undefined) {
      collector.issue(at, `a tool_result after other content (${other}): the API requires every tool_result first`)
    }
    const id = toolResultField(block, "tool_use_id")
    if (!Wire.isId(id)) return collector.issue(at, "the tool_result has no tool_use_id")
    const raw = toolResultField(block, "content")
    const blocks: Array<ToolResult.ContentBlock> = []
    if (typeof raw === "string") {
      if (raw !== "") blocks.push({ _tag: "text", text: raw })
    } else if (raw !== undefined) {
      collector.items(raw, `${at}.content`, (item, itemAt) => {
        const decoded = returnedBlock(item)
        if (decoded === undefined) collector.issue(itemAt, "a content block this package cannot read")
        else blocks.push(decoded)
      })
    }
    results.push({ callId: id, content: blocks, isError: toolResultField(block, "is_error") === true })
  })
  return { results, error: collector.error }
}

/**
 * The registry's definitions as Anthropic tools. Pass a `ToolSearch` view
 * to send only the tools loaded so far.
 *
 * @since 0.1.0
 * @category definitions
 */
export const toolDefinitions = (
  source: { readonly definitions: ReadonlyArray<Registry.Definition> }
): Array<AnthropicWire.Tool> =>
  source.definitions.map((definition) => ({
    name: definition.name,
    description: definition.description,
    input_schema: { ...Wire.objectSchema(definition.inputSchema), type: "object" }
  }))

/**
 * The runtime's turn options for a request: `disable_parallel_tool_use`
 * runs the calls one at a time.
 *
 * @since 0.1.0
 * @category options
 */
export const turnOptions = (
  request: { readonly tool_choice?: AnthropicWire.ToolChoice | null | undefined }
): ToolRuntime.TurnOptions => {
  const choice = request.tool_choice
  return choice !== null && choice !== undefined && choice.type !== "none" &&
      choice.disable_parallel_tool_use === true
    ? { parallel: false }
    : {}
}

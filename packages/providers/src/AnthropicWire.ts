/**
 * The Anthropic Messages API's shapes, as far as the `Anthropic` codec reads
 * and writes them: `tool_use` blocks, `tool_result` blocks and what they
 * carry, tool definitions and `tool_choice`.
 *
 * They are this package's own so that its declarations need no SDK: a user
 * who does not have the Anthropic SDK installed still type-checks against
 * them. Field names and literal types are the API's; each shape holds only
 * what the codec writes or reads. `test/SdkConformance.test.ts` holds them to
 * the SDK's types: what the codec writes is assignable to the SDK's request
 * types, names no field the SDK lacks, and the block types listed here are
 * exactly the SDK's. Arrays the codec writes are mutable `Array`s, as the
 * SDK's request types take them.
 *
 * @since 0.2.0
 */

/**
 * Every content block type of the API, in responses and in requests.
 *
 * @since 0.2.0
 * @category models
 */
export type BlockType =
  | "text"
  | "thinking"
  | "redacted_thinking"
  | "tool_use"
  | "server_tool_use"
  | "web_search_tool_result"
  | "web_fetch_tool_result"
  | "code_execution_tool_result"
  | "bash_code_execution_tool_result"
  | "text_editor_code_execution_tool_result"
  | "tool_search_tool_result"
  | "container_upload"
  | "image"
  | "document"
  | "search_result"
  | "tool_result"

/**
 * A message as the decoders read it: a `Message` from the API, or a
 * `MessageParam` of the conversation.
 *
 * @since 0.2.0
 * @category models
 */
export interface Message {
  readonly role: "user" | "assistant"
  readonly content: string | ReadonlyArray<{ readonly type: BlockType }>
  /** A response's: `max_tokens` when it stopped at the output limit. */
  readonly stop_reason?: string | null
}

/**
 * A call: the `tool_use` block of a response (`ToolUseBlock`), or of an
 * assistant message sent back (`ToolUseBlockParam`). A call of an Anthropic
 * toolset carries the toolset's name, which its result repeats.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolUseBlockParam {
  readonly type: "tool_use"
  readonly id: string
  readonly name: string
  readonly input: unknown
  readonly toolset_name?: string | null
}

/**
 * @since 0.2.0
 * @category models
 */
export interface TextBlockParam {
  readonly type: "text"
  readonly text: string
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Base64ImageSource {
  readonly type: "base64"
  readonly media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"
  readonly data: string
}

/**
 * @since 0.2.0
 * @category models
 */
export interface ImageBlockParam {
  readonly type: "image"
  readonly source: Base64ImageSource
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Base64PDFSource {
  readonly type: "base64"
  readonly media_type: "application/pdf"
  readonly data: string
}

/**
 * @since 0.2.0
 * @category models
 */
export interface PlainTextSource {
  readonly type: "text"
  readonly media_type: "text/plain"
  readonly data: string
}

/**
 * @since 0.2.0
 * @category models
 */
export interface DocumentBlockParam {
  readonly type: "document"
  readonly source: Base64PDFSource | PlainTextSource
}

/**
 * The answer to one `tool_use`, paired by `tool_use_id`. `content` may be a
 * plain string; no content at all is allowed, an empty text block is not.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolResultBlockParam {
  readonly type: "tool_result"
  readonly tool_use_id: string
  readonly content?: string | Array<TextBlockParam | ImageBlockParam | DocumentBlockParam>
  readonly is_error?: boolean
  readonly toolset_name?: string | null
}

/**
 * A tool's input schema: a JSON Schema whose root is an object.
 *
 * @since 0.2.0
 * @category models
 */
export interface InputSchema {
  readonly type: "object"
  readonly [keyword: string]: unknown
}

/**
 * A client tool definition.
 *
 * @since 0.2.0
 * @category models
 */
export interface Tool {
  readonly name: string
  readonly description: string
  readonly input_schema: InputSchema
}

/**
 * @since 0.2.0
 * @category models
 */
export interface ToolChoiceAuto {
  readonly type: "auto"
  readonly disable_parallel_tool_use?: boolean
}

/**
 * @since 0.2.0
 * @category models
 */
export interface ToolChoiceAny {
  readonly type: "any"
  readonly disable_parallel_tool_use?: boolean
}

/**
 * @since 0.2.0
 * @category models
 */
export interface ToolChoiceTool {
  readonly type: "tool"
  readonly name: string
  readonly disable_parallel_tool_use?: boolean
}

/**
 * @since 0.2.0
 * @category models
 */
export interface ToolChoiceNone {
  readonly type: "none"
}

/**
 * A request's `tool_choice`, read for `disable_parallel_tool_use`.
 *
 * @since 0.2.0
 * @category models
 */
export type ToolChoice = ToolChoiceAuto | ToolChoiceAny | ToolChoiceTool | ToolChoiceNone

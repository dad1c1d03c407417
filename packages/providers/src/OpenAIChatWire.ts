/**
 * The OpenAI Chat Completions API's shapes, as far as the `OpenAIChat` codec
 * reads and writes them: an assistant message's `tool_calls`, `role: "tool"`
 * messages, the user message that carries attachments, and function tools.
 *
 * They are this package's own so that its declarations need no SDK: a user
 * who does not have `openai` installed still type-checks against them. Field
 * names and literal types are the API's; each shape holds only what the
 * codec writes or reads. `test/SdkConformance.test.ts` holds them to the
 * SDK's types: what the codec writes is assignable to the SDK's request
 * types, names no field the SDK lacks, and the tool call types listed here
 * are exactly the SDK's. Arrays the codec writes are mutable `Array`s, as the
 * SDK's request types take them.
 *
 * @since 0.2.0
 */

/**
 * Every tool call type of the API.
 *
 * @since 0.2.0
 * @category models
 */
export type ToolCallType = "function" | "custom"

/**
 * An assistant message as the decoder reads it.
 *
 * @since 0.2.0
 * @category models
 */
export interface ChatCompletionMessage {
  readonly role: "assistant"
  readonly tool_calls?: ReadonlyArray<{ readonly type: ToolCallType }>
}

/**
 * @since 0.2.0
 * @category models
 */
export interface ChatCompletionChoice {
  readonly message: ChatCompletionMessage
  /** `length` when the response stopped at the output limit. */
  readonly finish_reason?: string | null
}

/**
 * A completion as the decoder reads it: its first choice's message.
 *
 * @since 0.2.0
 * @category models
 */
export interface ChatCompletion {
  readonly choices: ReadonlyArray<ChatCompletionChoice>
}

/**
 * A function call, arguments as the JSON string the model wrote.
 *
 * @since 0.2.0
 * @category models
 */
export interface ChatCompletionMessageFunctionToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: {
    readonly name: string
    readonly arguments: string
  }
}

/**
 * An assistant message of function calls only.
 *
 * @since 0.2.0
 * @category models
 */
export interface ChatCompletionAssistantMessageParam {
  readonly role: "assistant"
  readonly content: null
  readonly tool_calls: Array<ChatCompletionMessageFunctionToolCall>
}

/**
 * @since 0.2.0
 * @category models
 */
export interface ChatCompletionContentPartText {
  readonly type: "text"
  readonly text: string
}

/**
 * An image, here always a data URL.
 *
 * @since 0.2.0
 * @category models
 */
export interface ChatCompletionContentPartImage {
  readonly type: "image_url"
  readonly image_url: {
    readonly url: string
  }
}

/**
 * A file, here always base64 data with a file name.
 *
 * @since 0.2.0
 * @category models
 */
export interface ChatCompletionContentPartFile {
  readonly type: "file"
  readonly file: {
    readonly file_data: string
    readonly filename: string
  }
}

/**
 * @since 0.2.0
 * @category models
 */
export type ChatCompletionContentPart =
  | ChatCompletionContentPartText
  | ChatCompletionContentPartImage
  | ChatCompletionContentPartFile

/**
 * The answer to one tool call, paired by `tool_call_id`: text only.
 *
 * @since 0.2.0
 * @category models
 */
export interface ChatCompletionToolMessageParam {
  readonly role: "tool"
  readonly tool_call_id: string
  readonly content: string | Array<ChatCompletionContentPartText>
}

/**
 * @since 0.2.0
 * @category models
 */
export interface ChatCompletionUserMessageParam {
  readonly role: "user"
  readonly content: Array<ChatCompletionContentPart>
}

/**
 * A function's definition; `parameters` is a JSON Schema, rewritten for
 * strict mode when `strict` is true.
 *
 * @since 0.2.0
 * @category models
 */
export interface FunctionDefinition {
  readonly name: string
  readonly description: string
  readonly parameters: Record<string, unknown>
  readonly strict: boolean
}

/**
 * @since 0.2.0
 * @category models
 */
export interface ChatCompletionFunctionTool {
  readonly type: "function"
  readonly function: FunctionDefinition
}

/**
 * The OpenAI Responses API's shapes, as far as the `OpenAIResponses` codec
 * reads and writes them: `function_call` items, `function_call_output` items
 * and their parts, and function tools.
 *
 * They are this package's own so that its declarations need no SDK: a user
 * who does not have `openai` installed still type-checks against them. Field
 * names and literal types are the API's; each shape holds only what the
 * codec writes or reads. `test/SdkConformance.test.ts` holds them to the
 * SDK's types: what the codec writes is assignable to the SDK's request
 * types, names no field the SDK lacks, and the item types listed here are
 * exactly the SDK's. Arrays the codec writes are mutable `Array`s, as the
 * SDK's request types take them.
 *
 * @since 0.2.0
 */

/**
 * Every item type of the API, in a response's `output` and in a request's
 * `input`.
 *
 * @since 0.2.0
 * @category models
 */
export type ItemType =
  | "message"
  | "reasoning"
  | "function_call"
  | "function_call_output"
  | "custom_tool_call"
  | "custom_tool_call_output"
  | "computer_call"
  | "computer_call_output"
  | "local_shell_call"
  | "local_shell_call_output"
  | "shell_call"
  | "shell_call_output"
  | "apply_patch_call"
  | "apply_patch_call_output"
  | "mcp_approval_request"
  | "mcp_approval_response"
  | "mcp_call"
  | "mcp_list_tools"
  | "file_search_call"
  | "web_search_call"
  | "image_generation_call"
  | "code_interpreter_call"
  | "tool_search_call"
  | "tool_search_output"
  | "compaction"
  | "compaction_trigger"
  | "program"
  | "program_output"
  | "additional_tools"
  | "item_reference"

/**
 * A response as the decoder reads it: its `output` items.
 *
 * @since 0.2.0
 * @category models
 */
export interface Response {
  readonly output: ReadonlyArray<{ readonly type: ItemType }>
  /** `incomplete` when it stopped early, `incomplete_details.reason` saying why. */
  readonly status?: string
  readonly incomplete_details?: { readonly reason?: string } | null
}

/**
 * @since 0.2.0
 * @category models
 */
export interface DirectCaller {
  readonly type: "direct"
}

/**
 * A call made by a program the model wrote.
 *
 * @since 0.2.0
 * @category models
 */
export interface ProgramCaller {
  readonly type: "program"
  readonly caller_id: string
}

/**
 * Who made a function call; its output repeats it.
 *
 * @since 0.2.0
 * @category models
 */
export type Caller = DirectCaller | ProgramCaller

/**
 * A function call, arguments as the JSON string the model wrote.
 *
 * @since 0.2.0
 * @category models
 */
export interface ResponseFunctionToolCall {
  readonly type: "function_call"
  readonly call_id: string
  readonly name: string
  readonly arguments: string
  readonly caller?: Caller | null
  /** `incomplete` for a call the response stopped in. */
  readonly status?: "in_progress" | "completed" | "incomplete"
}

/**
 * A tool search call, read to tell one the client must run.
 *
 * @since 0.2.0
 * @category models
 */
export interface ResponseToolSearchCall {
  readonly type: "tool_search_call"
  readonly execution: "server" | "client"
}

/**
 * @since 0.2.0
 * @category models
 */
export interface ResponseInputTextContent {
  readonly type: "input_text"
  readonly text: string
}

/**
 * An image, here always a data URL.
 *
 * @since 0.2.0
 * @category models
 */
export interface ResponseInputImageContent {
  readonly type: "input_image"
  readonly image_url: string
  readonly detail: "low" | "high" | "auto" | "original"
}

/**
 * A file, here always a data URL with a file name.
 *
 * @since 0.2.0
 * @category models
 */
export interface ResponseInputFileContent {
  readonly type: "input_file"
  readonly file_data: string
  readonly filename: string
}

/**
 * @since 0.2.0
 * @category models
 */
export type ResponseFunctionCallOutputItem =
  | ResponseInputTextContent
  | ResponseInputImageContent
  | ResponseInputFileContent

/**
 * The answer to one function call, paired by `call_id`.
 *
 * @since 0.2.0
 * @category models
 */
export interface FunctionCallOutput {
  readonly type: "function_call_output"
  readonly call_id: string
  readonly output: string | Array<ResponseFunctionCallOutputItem>
  readonly caller?: Caller | null
}

/**
 * A function tool; `parameters` is a JSON Schema, rewritten for strict mode
 * when `strict` is true.
 *
 * @since 0.2.0
 * @category models
 */
export interface FunctionTool {
  readonly type: "function"
  readonly name: string
  readonly description: string
  readonly parameters: Record<string, unknown>
  readonly strict: boolean
}

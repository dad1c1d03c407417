/**
 * The OpenAI Responses API: `function_call` items in (arguments as a JSON
 * string), `function_call_output` items out, paired by `call_id`; function
 * tools described with `strict: true` where the schema allows it.
 *
 * Arguments are handed to the runtime as the string the model wrote: the
 * core parses it and answers `malformed_arguments` (paired by `call_id`)
 * when it is not JSON, `truncated_arguments` when it stops mid-value or the
 * response stopped at the output limit inside the call. Only for strict tools with optional fields is the
 * string parsed here, to remove the nulls strict mode made the model send.
 *
 * The shapes are this package's own, in `OpenAIResponsesWire`, held to the
 * `openai` SDK's types by a conformance test: users need no SDK installed.
 *
 * @since 0.1.0
 */
import type * as Registry from "@tool-runtime/core/Registry"
import type * as ToolCall from "@tool-runtime/core/ToolCall"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import * as Media from "./Media.js"
import type * as OpenAIResponsesWire from "./OpenAIResponsesWire.js"
import type * as ProviderError from "./ProviderError.js"
import * as StrictSchema from "./StrictSchema.js"
import * as Wire from "./Wire.js"

type Kind = "call" | "skip" | "unanswerable"

// Every item type the API has, and what it means for this runtime; the
// `satisfies` makes a new item type a compile error until it is classified
// here (the conformance test holds `ItemType` to the SDK's).
const itemKinds = {
  function_call: "call",
  // Calls the client must answer with an item of their own kind.
  custom_tool_call: "unanswerable",
  computer_call: "unanswerable",
  local_shell_call: "unanswerable",
  shell_call: "unanswerable",
  apply_patch_call: "unanswerable",
  mcp_approval_request: "unanswerable",
  // Output, reasoning, and tools the API runs itself.
  message: "skip",
  reasoning: "skip",
  file_search_call: "skip",
  web_search_call: "skip",
  image_generation_call: "skip",
  code_interpreter_call: "skip",
  mcp_call: "skip",
  mcp_list_tools: "skip",
  mcp_approval_response: "skip",
  tool_search_call: "skip",
  tool_search_output: "skip",
  compaction: "skip",
  compaction_trigger: "skip",
  program: "skip",
  program_output: "skip",
  additional_tools: "skip",
  // Answers, when a whole conversation is read.
  function_call_output: "skip",
  custom_tool_call_output: "skip",
  computer_call_output: "skip",
  local_shell_call_output: "skip",
  shell_call_output: "skip",
  apply_patch_call_output: "skip",
  item_reference: "skip"
} as const satisfies Record<OpenAIResponsesWire.ItemType, Kind>

const response = Wire.fields<OpenAIResponsesWire.Response>()
const functionCall = Wire.fields<OpenAIResponsesWire.ResponseFunctionToolCall>()
const toolSearchCall = Wire.fields<OpenAIResponsesWire.ResponseToolSearchCall>()
const outputField = Wire.fields<OpenAIResponsesWire.FunctionCallOutput>()
const textField = Wire.fields<OpenAIResponsesWire.ResponseInputTextContent>()
const imageField = Wire.fields<OpenAIResponsesWire.ResponseInputImageContent>()
const fileField = Wire.fields<OpenAIResponsesWire.ResponseInputFileContent>()

/**
 * The caller of a function call (the model, or a program it wrote), which
 * its output repeats.
 *
 * @since 0.1.0
 * @category models
 */
export type Caller = OpenAIResponsesWire.Caller

const programField = Wire.fields<OpenAIResponsesWire.ProgramCaller>()

/** Copies only the fields the output repeats. */
const readCaller = (u: unknown): Caller | undefined => {
  if (!Wire.isRecord(u)) return undefined
  if (u.type === "direct") return { type: "direct" }
  const callerId = programField(u, "caller_id")
  return u.type === "program" && typeof callerId === "string" ? { type: "program", caller_id: callerId } : undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Decoded extends Wire.Decoded {
  readonly callers: ReadonlyMap<string, Caller>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface DecodeOptions {
  /** The tool set sent with the request, to undo its strict-mode rewrite. */
  readonly tools?: StrictSchema.Restorer | undefined
}

/**
 * Reads the function calls of a response: the `Response` object, or its
 * `output` items.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeCalls = (payload: unknown, options?: DecodeOptions): Decoded => {
  const collector = new Wire.Collector("openai-responses")
  const callers = new Map<string, Caller>()
  const [items, path] = Array.isArray(payload)
    ? [payload, ""]
    : [Wire.isRecord(payload) ? response(payload, "output") : payload, "output"]
  collector.items(items, path, (item, at) => {
    const type = item.type
    if (type === undefined && item.role !== undefined) return // an input message written without a type
    if (typeof type !== "string") return collector.issue(at, "the item has no type")
    const kind = Wire.lookup<string, Kind>(itemKinds, type)
    if (kind === undefined) return collector.issue(at, Wire.unknownType(type))
    if (kind === "skip") {
      // Tool search run by the client is a call the client must answer.
      if (type === "tool_search_call" && toolSearchCall(item, "execution") === "client") {
        collector.issue(at, Wire.unanswerable(type))
      }
      return
    }
    if (kind === "unanswerable") return collector.issue(at, Wire.unanswerable(type))
    const id = functionCall(item, "call_id")
    if (!Wire.isId(id)) return collector.issue(at, Wire.missingId("call_id"))
    const name = functionCall(item, "name")
    collector.call(id, name, StrictSchema.restoreArguments(options?.tools, name, functionCall(item, "arguments")))
    if (functionCall(item, "status") === "incomplete") collector.cutLast("incomplete")
    const caller = readCaller(functionCall(item, "caller"))
    if (caller !== undefined) callers.set(id, caller)
  })
  // A response that stopped early (the output limit) in the middle of its last item, a call.
  if (Wire.isRecord(payload) && response(payload, "status") === "incomplete" && Array.isArray(items)) {
    const details = response(payload, "incomplete_details")
    const reason = Wire.isRecord(details) && typeof details.reason === "string" ? details.reason : "incomplete"
    const last: unknown = items.at(-1)
    if (
      Wire.isRecord(last) && last.type === "function_call" &&
      functionCall(last, "call_id") === collector.calls.at(-1)?.id
    ) collector.cutLast(reason)
  }
  return { ...collector.done(), callers }
}

/**
 * The calls as `function_call` items, for replaying a conversation and for
 * round trips. Object inputs are serialized to the JSON string the API uses.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeCalls = (
  calls: ReadonlyArray<ToolCall.Input>
): Array<OpenAIResponsesWire.ResponseFunctionToolCall> =>
  calls.map((call) => ({
    type: "function_call",
    call_id: call.id,
    name: call.name,
    arguments: typeof call.input === "string" ? call.input : JSON.stringify(call.input ?? {})
  }))

/**
 * What a `function_call_output` carries.
 *
 * @since 0.1.0
 * @category models
 */
export type Output = OpenAIResponsesWire.FunctionCallOutput["output"]

/**
 * The output of one result: a string when it is text only, else a list of
 * text, image and file parts. The API has no error flag: an error result's
 * text says what went wrong and what to do.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeOutput = (result: ToolResult.ToolResult): Output => {
  if (result.content.every((block) => block._tag === "text")) {
    return result.content.map((block) => block._tag === "text" ? block.text : "").join("\n")
  }
  return result.content.map((block): OpenAIResponsesWire.ResponseFunctionCallOutputItem => {
    if (block._tag === "text") return { type: "input_text", text: block.text }
    switch (Media.kind(block.mediaType)) {
      case "image":
        return { type: "input_image", image_url: Media.dataUrl(block.mediaType, block.data), detail: "auto" }
      case "pdf":
      case "text":
        return {
          type: "input_file",
          file_data: Media.dataUrl(block.mediaType, block.data),
          filename: `${result.callId}.${Media.kind(block.mediaType) === "pdf" ? "pdf" : "txt"}`
        }
      default:
        return { type: "input_text", text: Media.omitted(block.mediaType, "an OpenAI function call output") }
    }
  })
}

/**
 * @since 0.1.0
 * @category models
 */
export interface EncodeOptions {
  /** The decoded calls, to repeat each call's `caller`. */
  readonly decoded?: Decoded | undefined
}

/**
 * One `function_call_output` item per result, in order, paired by `call_id`.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeResults = (
  results: ReadonlyArray<ToolResult.ToolResult>,
  options?: EncodeOptions
): Array<OpenAIResponsesWire.FunctionCallOutput> =>
  results.map((result) => {
    const caller = options?.decoded?.callers.get(result.callId)
    return {
      type: "function_call_output",
      call_id: result.callId,
      output: encodeOutput(result),
      ...(caller === undefined ? {} : { caller })
    }
  })

const returnedPart = (part: Readonly<Record<string, unknown>>): ToolResult.ContentBlock | undefined => {
  switch (part.type) {
    case "input_text": {
      const text = textField(part, "text")
      return typeof text === "string" ? { _tag: "text", text } : undefined
    }
    case "input_image":
    case "input_file": {
      const url = part.type === "input_image" ? imageField(part, "image_url") : fileField(part, "file_data")
      const parsed = typeof url === "string" ? Media.parseDataUrl(url) : undefined
      return parsed === undefined ? undefined : { _tag: "image", mediaType: parsed.mediaType, data: parsed.data }
    }
  }
  return undefined
}

/**
 * Reads `function_call_output` items back (other items are skipped).
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeResults = (payload: unknown): {
  readonly results: ReadonlyArray<Wire.Returned>
  readonly error: Wire.Decoded["error"]
} => {
  const collector = new Wire.Collector("openai-responses")
  const results: Array<Wire.Returned> = []
  collector.items(payload, "", (item, at) => {
    if (item.type !== "function_call_output") return
    const id = outputField(item, "call_id")
    if (!Wire.isId(id)) return collector.issue(at, "the output has no call_id")
    const output = outputField(item, "output")
    const content: Array<ToolResult.ContentBlock> = []
    if (typeof output === "string") content.push({ _tag: "text", text: output })
    else {
      collector.items(output, `${at}.output`, (part, partAt) => {
        const block = returnedPart(part)
        if (block === undefined) collector.issue(partAt, "an output part this package cannot read")
        else content.push(block)
      })
    }
    results.push({ callId: id, content, isError: undefined })
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
  readonly tools: Array<OpenAIResponsesWire.FunctionTool>
  readonly report: ReadonlyArray<StrictSchema.Report>
  readonly error: ProviderError.StrictSchemaRejected | undefined
}

/**
 * The registry's definitions as function tools, `strict: true` wherever the
 * schema can be made strict. Pass a `ToolSearch` view to send only the tools
 * loaded so far.
 *
 * @since 0.1.0
 * @category definitions
 */
export const toolDefinitions = (
  source: { readonly definitions: ReadonlyArray<Registry.Definition> },
  options?: StrictSchema.CompileOptions
): ToolSet => {
  const compiled = StrictSchema.compile(source.definitions, "openai-responses", options)
  return {
    tools: compiled.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      strict: tool.strict
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

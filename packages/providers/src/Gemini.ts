/**
 * The Gemini API: `functionCall` parts of a model turn in, one
 * `functionResponse` part per call out, in one user turn and in call order;
 * tools described as `functionDeclarations` with their JSON Schema.
 *
 * Gemini pairs a response with its call by name and position, and by `id`
 * when the call carries one (newer models do). A call without an id is
 * still identified, by its position: the runtime needs an id, so it gets one
 * made from its position, used inside the runtime only. {@link encodeResults}
 * leaves such ids out of the reply, so nothing the model did not send goes
 * back to it. This is why the encoder takes the decoded calls.
 *
 * Since Gemini pairs by name, the name is a pairing key like the id: a
 * `functionResponse` carries the name exactly as its call had it, taken from
 * the decoded calls. A result's `toolName` may differ: the runtime redacts a
 * name that is not registered (the model can put a secret in it). The name
 * the model sent goes back only there, in the field that pairs.
 *
 * Gemini has no switch to turn parallel calls off, so there is no
 * `turnOptions` here: a turn runs with the runtime's defaults.
 *
 * The shapes are this package's own, in `GeminiWire`, held to the Google
 * Gen AI SDK's types by a conformance test: users need no SDK installed.
 *
 * @since 0.1.0
 */
import type * as Registry from "@tool-runtime/core/Registry"
import type * as ToolCall from "@tool-runtime/core/ToolCall"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import type * as GeminiWire from "./GeminiWire.js"
import * as Wire from "./Wire.js"

type Kind = "call" | "skip"

// Every field a part can have, and what it means for this runtime; a part
// is one of these. The `satisfies` makes a new field a compile error until
// it is classified here (the conformance test holds `PartField` to the SDK's).
const partKinds = {
  functionCall: "call",
  text: "skip",
  thought: "skip",
  thoughtSignature: "skip",
  inlineData: "skip",
  fileData: "skip",
  functionResponse: "skip",
  executableCode: "skip",
  codeExecutionResult: "skip",
  // Built-in tools run by the API; the harness echoes them back as they are.
  toolCall: "skip",
  toolResponse: "skip",
  videoMetadata: "skip",
  audioTranscription: "skip",
  mediaResolution: "skip",
  mediaProcessing: "skip",
  partMetadata: "skip",
  speechMetadata: "skip"
} as const satisfies Record<GeminiWire.PartField, Kind>

const responseField = Wire.fields<GeminiWire.GenerateContentResponse>()
const candidateField = Wire.fields<GeminiWire.Candidate>()
const candidateEnd = Wire.fields<GeminiWire.CandidateEnd>()
const contentField = Wire.fields<GeminiWire.Content>()
const partField = Wire.fields<GeminiWire.Part>()
const callField = Wire.fields<GeminiWire.FunctionCall>()
const functionResponseField = Wire.fields<GeminiWire.FunctionResponse>()
const responsePartField = Wire.fields<GeminiWire.FunctionResponsePart>()
const blobField = Wire.fields<GeminiWire.FunctionResponseBlob>()

/**
 * The calls of a model turn, and which of their ids were made up from their
 * position.
 *
 * @since 0.1.0
 * @category models
 */
export interface Decoded extends Wire.Decoded {
  readonly positional: ReadonlySet<string>
}

/**
 * Reads the function calls of a model turn: a `GenerateContentResponse`
 * (its first candidate), a `Content`, or its parts.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeCalls = (payload: unknown): Decoded => {
  const collector = new Wire.Collector("gemini")
  let parts: unknown = payload
  let path = ""
  let finish: unknown
  if (Wire.isRecord(payload)) {
    let content: unknown = payload
    path = "parts"
    const candidates = responseField(payload, "candidates")
    if (candidates !== undefined) {
      const first: unknown = Array.isArray(candidates) ? candidates[0] : undefined
      // A candidate without content (a blocked or empty answer) holds no calls.
      if (Wire.isRecord(first) && candidateField(first, "content") === undefined) {
        return { ...collector.done(), positional: new Set() }
      }
      content = Wire.isRecord(first) ? candidateField(first, "content") : first
      finish = Wire.isRecord(first) ? candidateEnd(first, "finishReason") : undefined
      path = "candidates[0].content.parts"
    } else if (contentField(payload, "parts") === undefined && contentField(payload, "role") === undefined) {
      collector.issue("", "expected a GenerateContentResponse, a Content or its parts")
      return { ...collector.done(), positional: new Set() }
    }
    if (Wire.isRecord(content)) {
      const role = contentField(content, "role")
      if (role !== undefined && role !== "model") {
        collector.issue(path.replace(/parts$/, "role"), "expected the model turn that holds the function calls")
        return { ...collector.done(), positional: new Set() }
      }
      parts = contentField(content, "parts") ?? []
    } else {
      parts = content
    }
  }
  const found: Array<{ readonly id: string | undefined; readonly name: unknown; readonly args: unknown }> = []
  collector.items(parts, path, (part, at) => {
    const keys = Object.keys(part)
    if (Object.hasOwn(part, "functionCall")) {
      const call = partField(part, "functionCall")
      if (!Wire.isRecord(call)) return collector.issue(`${at}.functionCall`, "expected an object")
      const id = callField(call, "id")
      found.push({ id: Wire.isId(id) ? id : undefined, name: callField(call, "name"), args: callField(call, "args") })
      return
    }
    const unknown = keys.find((key) => Wire.lookup<string, Kind>(partKinds, key) === undefined)
    if (keys.length === 0 || unknown !== undefined) collector.issue(at, Wire.unknownType(unknown ?? "(empty part)"))
  })
  // Positional ids must not collide with the ids the model did send.
  const taken = new Set(found.flatMap((call) => call.id === undefined ? [] : [call.id]))
  const positional = new Set<string>()
  for (let i = 0; i < found.length; i++) {
    const call = found[i]!
    let id = call.id
    if (id === undefined) {
      id = `gemini-call-${i}`
      while (taken.has(id)) id = `${id}_`
      taken.add(id)
      positional.add(id)
    }
    collector.call(id, call.name, call.args)
  }
  // Stopped at the output limit while writing its last part, a call.
  const last: unknown = Array.isArray(parts) ? parts.at(-1) : undefined
  if (finish === "MAX_TOKENS" && Wire.isRecord(last) && Object.hasOwn(last, "functionCall")) collector.cutLast(finish)
  return { ...collector.done(), positional }
}

/**
 * A model turn holding the calls, for replaying a conversation and for
 * round trips. String inputs (which only OpenAI formats produce) are parsed.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeCalls = (
  calls: ReadonlyArray<ToolCall.Input>,
  options?: { readonly positional?: ReadonlySet<string> | undefined }
): GeminiWire.Content & { readonly role: "model" } => ({
  role: "model",
  parts: calls.map((call): GeminiWire.Part => {
    const parsed = typeof call.input === "string" ? Wire.parseJson(call.input) : undefined
    const args = parsed === undefined ? call.input : parsed._tag === "Right" ? parsed.right : call.input
    return {
      functionCall: {
        ...(options?.positional?.has(call.id) === true ? {} : { id: call.id }),
        name: call.name,
        args: args as Record<string, unknown>
      }
    }
  })
})

/**
 * One `functionResponse` part. The text goes under `output`, or under
 * `error` for an error result, as the API documents; images and documents
 * go in the response's own `parts`, which multimodal function responses
 * take.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeResult = (
  result: ToolResult.ToolResult,
  positional: boolean,
  /** The name the call had, when known: the result's may be redacted. */
  name: string = result.toolName
): GeminiWire.Part => {
  const texts: Array<string> = []
  const parts: Array<GeminiWire.FunctionResponsePart> = []
  for (const block of result.content) {
    if (block._tag === "text") texts.push(block.text)
    else {
      parts.push({
        inlineData: { mimeType: block.mediaType, data: block.data, displayName: `${result.callId}-${parts.length}` }
      })
    }
  }
  const text = texts.join("\n")
  return {
    functionResponse: {
      ...(positional ? {} : { id: result.callId }),
      name,
      response: result.isError ? { error: text } : { output: text },
      ...(parts.length === 0 ? {} : { parts })
    }
  }
}

/**
 * The user turn answering a model turn's calls: one `functionResponse` per
 * result, in order. Each takes its name from the decoded call at its
 * position when that call has the result's id (the runtime answers in call
 * order), else the result's own.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeResults = (
  results: ReadonlyArray<ToolResult.ToolResult>,
  decoded: Pick<Decoded, "positional"> & { readonly calls?: Decoded["calls"] | undefined }
): GeminiWire.Content & { readonly role: "user" } => ({
  role: "user",
  parts: results.map((result, i) => {
    const call = decoded.calls?.[i]
    const name = call !== undefined && call.id === result.callId && typeof call.name === "string"
      ? call.name
      : result.toolName
    return encodeResult(result, decoded.positional.has(result.callId), name)
  })
})

/**
 * Reads the function responses back from a user turn. Responses without an
 * id get the positional id {@link decodeCalls} would have given their call.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeResults = (payload: unknown): {
  readonly results: ReadonlyArray<Wire.Returned>
  readonly error: Wire.Decoded["error"]
} => {
  const collector = new Wire.Collector("gemini")
  const results: Array<Wire.Returned> = []
  const parts = Wire.isRecord(payload) ? contentField(payload, "parts") : payload
  let index = 0
  collector.items(parts, "parts", (part, at) => {
    const fr = partField(part, "functionResponse")
    if (!Wire.isRecord(fr)) return
    const id = functionResponseField(fr, "id")
    const response = functionResponseField(fr, "response")
    const content: Array<ToolResult.ContentBlock> = []
    let isError = false
    if (Wire.isRecord(response)) {
      isError = Object.hasOwn(response, "error")
      const value = isError ? response.error : Object.hasOwn(response, "output") ? response.output : response
      content.push(ToolResult.textBlock(typeof value === "string" ? value : JSON.stringify(value)))
    } else {
      collector.issue(`${at}.functionResponse.response`, "expected an object")
    }
    const extra = functionResponseField(fr, "parts")
    if (extra !== undefined) {
      collector.items(extra, `${at}.functionResponse.parts`, (item, itemAt) => {
        const inlineData = responsePartField(item, "inlineData")
        const blob = Wire.isRecord(inlineData) ? inlineData : undefined
        const mimeType = blob === undefined ? undefined : blobField(blob, "mimeType")
        const data = blob === undefined ? undefined : blobField(blob, "data")
        if (typeof mimeType === "string" && typeof data === "string") {
          content.push({ _tag: "image", mediaType: mimeType, data })
        } else {
          collector.issue(itemAt, "a response part this package cannot read")
        }
      })
    }
    results.push({ callId: Wire.isId(id) ? id : `gemini-call-${index}`, content, isError })
    index++
  })
  return { results, error: collector.error }
}

/**
 * The registry's definitions as one Gemini tool of function declarations,
 * their parameters given as JSON Schema.
 *
 * @since 0.1.0
 * @category definitions
 */
export const toolDefinitions = (
  source: { readonly definitions: ReadonlyArray<Registry.Definition> }
): Array<GeminiWire.Tool> => [{
  functionDeclarations: source.definitions.map((definition) => ({
    name: definition.name,
    description: definition.description,
    parametersJsonSchema: Wire.objectSchema(definition.inputSchema)
  }))
}]

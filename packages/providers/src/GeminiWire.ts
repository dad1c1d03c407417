/**
 * The Gemini API's shapes, as far as the `Gemini` codec reads and writes
 * them: `functionCall` and `functionResponse` parts, the turns that hold
 * them, and function declarations.
 *
 * They are this package's own so that its declarations need no SDK: a user
 * who does not have the Google Gen AI SDK installed still type-checks
 * against them. Field names and literal types are the API's; each shape holds only
 * what the codec writes or reads. `test/SdkConformance.test.ts` holds them
 * to the SDK's types: what the codec writes is assignable to the SDK's
 * request types, names no field the SDK lacks, and the part fields listed
 * here are exactly the SDK's. Arrays the codec writes are mutable `Array`s,
 * as the SDK's request types take them.
 *
 * @since 0.2.0
 */

/**
 * Every field a part can have; a part holds one of them (and, with it,
 * metadata such as `thoughtSignature`).
 *
 * @since 0.2.0
 * @category models
 */
export type PartField =
  | "text"
  | "thought"
  | "thoughtSignature"
  | "inlineData"
  | "fileData"
  | "functionCall"
  | "functionResponse"
  | "executableCode"
  | "codeExecutionResult"
  | "toolCall"
  | "toolResponse"
  | "videoMetadata"
  | "audioTranscription"
  | "mediaResolution"
  | "mediaProcessing"
  | "partMetadata"
  | "speechMetadata"

/**
 * A call. Older models send no `id`; the call is then paired by name and
 * position.
 *
 * @since 0.2.0
 * @category models
 */
export interface FunctionCall {
  readonly id?: string
  readonly name: string
  readonly args: Record<string, unknown>
}

/**
 * Binary content of a function response.
 *
 * @since 0.2.0
 * @category models
 */
export interface FunctionResponseBlob {
  readonly mimeType: string
  readonly data: string
  readonly displayName: string
}

/**
 * @since 0.2.0
 * @category models
 */
export interface FunctionResponsePart {
  readonly inlineData: FunctionResponseBlob
}

/**
 * The answer to one call: its text under `response.output`, or under
 * `response.error` for an error; images and documents in `parts`.
 *
 * @since 0.2.0
 * @category models
 */
export interface FunctionResponse {
  readonly id?: string
  readonly name: string
  readonly response: Record<string, unknown>
  readonly parts?: Array<FunctionResponsePart>
}

/**
 * A part the codec writes or reads: a call or an answer.
 *
 * @since 0.2.0
 * @category models
 */
export interface Part {
  readonly functionCall?: FunctionCall
  readonly functionResponse?: FunctionResponse
}

/**
 * A turn: the model's calls, or the user's answers.
 *
 * @since 0.2.0
 * @category models
 */
export interface Content {
  readonly role: "user" | "model"
  readonly parts: Array<Part>
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Candidate {
  readonly content?: Content
}

/**
 * Why a candidate's turn ended, read apart from `Candidate` (the SDK types
 * it as an enum): `MAX_TOKENS` when it stopped at the output limit.
 *
 * @since 0.4.0
 * @category models
 */
export interface CandidateEnd {
  readonly finishReason?: string
}

/**
 * A response as the decoder reads it: its first candidate's turn.
 *
 * @since 0.2.0
 * @category models
 */
export interface GenerateContentResponse {
  readonly candidates?: ReadonlyArray<Candidate>
}

/**
 * A function's declaration, its parameters given as JSON Schema.
 *
 * @since 0.2.0
 * @category models
 */
export interface FunctionDeclaration {
  readonly name: string
  readonly description: string
  readonly parametersJsonSchema: Record<string, unknown>
}

/**
 * A tool of function declarations.
 *
 * @since 0.2.0
 * @category models
 */
export interface Tool {
  readonly functionDeclarations: Array<FunctionDeclaration>
}

/**
 * The one exit type of the runtime: every call yields exactly one
 * `ToolResult`, paired to the call by id, whether it succeeded, failed
 * validation, was denied, timed out or never ran.
 *
 * @since 0.1.0
 */
import * as Encoding from "effect/Encoding"
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category models
 */
export const TextBlock = Schema.TaggedStruct("text", { text: Schema.String })

/**
 * @since 0.1.0
 * @category models
 */
export const ImageBlock = Schema.TaggedStruct("image", {
  mediaType: Schema.String,
  data: Schema.String.annotations({ description: "Base64 data." })
})

/**
 * A piece of what the model sees.
 *
 * @since 0.1.0
 * @category models
 */
export const ContentBlock = Schema.Union(TextBlock, ImageBlock)

/**
 * @since 0.1.0
 * @category models
 */
export type ContentBlock = typeof ContentBlock.Type

/**
 * Why and how the content was cut.
 *
 * @since 0.1.0
 * @category models
 */
export const Truncation = Schema.Struct({
  strategy: Schema.Literal("head", "tail", "head-tail"),
  originalLength: Schema.Number.annotations({ description: "Characters before truncation (after redaction)." }),
  shownLength: Schema.Number.annotations({ description: "Characters kept, markers excluded." }),
  reason: Schema.optional(Schema.Literal("budget")).annotations({
    description:
      "`budget` when the result was cut to fit the turn's output budget (`outputBudget`) rather than its tool's own limit."
  })
})

/**
 * @since 0.1.0
 * @category models
 */
export type Truncation = typeof Truncation.Type

/**
 * What an error result adds for the harness: a stable code to branch on.
 *
 * @since 0.1.0
 * @category models
 */
export const ErrorInfo = Schema.Struct({
  code: Schema.String,
  retryable: Schema.Boolean,
  hint: Schema.String,
  outcomeUnknown: Schema.Boolean,
  stopped: Schema.optional(Schema.Literal("proven", "abandoned")).annotations({
    description:
      "For a call stopped by a time limit or an interruption: proven when its handler was seen to end (and, for a tool that runs processes, their group is gone), abandoned when it did not end within the cleanup bound and may still be running."
  }),
  retryAfterMillis: Schema.optional(Schema.Number).annotations({
    description: "For a call refused by the tool's rate (`rate_limited`): how long until the next call may start."
  })
})

/**
 * @since 0.1.0
 * @category models
 */
export type ErrorInfo = typeof ErrorInfo.Type

/**
 * @since 0.1.0
 * @category models
 */
export const Meta = Schema.Struct({
  durationMillis: Schema.Number,
  redactions: Schema.Number,
  truncation: Schema.optional(Truncation),
  artifact: Schema.optional(Schema.String.annotations({ description: "Where the full output is stored." })),
  untrusted: Schema.optional(Schema.Boolean),
  sandbox: Schema.optional(
    Schema.String.annotations({
      description:
        "How the call's commands were confined, for a tool that runs them (`sandbox: workspace-write (bubblewrap), network off`)."
    })
  )
})

/**
 * @since 0.1.0
 * @category models
 */
export type Meta = typeof Meta.Type

/**
 * A plain record rather than a `Schema.Class`: one is built per call on the
 * hot path, and harnesses serialize it as is.
 *
 * @since 0.1.0
 * @category models
 */
export const ToolResult = Schema.Struct({
  callId: Schema.String,
  toolName: Schema.String,
  content: Schema.Array(ContentBlock),
  isError: Schema.Boolean,
  error: Schema.optional(ErrorInfo),
  meta: Meta
}).annotations({ identifier: "ToolResult" })

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolResult extends Schema.Schema.Type<typeof ToolResult> {}

const ContentTypeId: unique symbol = Symbol.for("@tool-runtime/core/ToolResult/Content")

/**
 * What a handler returns to give the model content blocks (text and images)
 * instead of one serialized value.
 *
 * @since 0.1.0
 * @category models
 */
export interface Content {
  readonly [ContentTypeId]: typeof ContentTypeId
  readonly blocks: ReadonlyArray<ContentBlock>
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const content = (blocks: ReadonlyArray<ContentBlock>): Content => ({ [ContentTypeId]: ContentTypeId, blocks })

/**
 * @since 0.1.0
 * @category guards
 */
export const isContent = (u: unknown): u is Content => typeof u === "object" && u !== null && ContentTypeId in u

/**
 * An image block from raw bytes or base64.
 *
 * @since 0.1.0
 * @category constructors
 */
export const image = (data: Uint8Array | string, mediaType: string): ContentBlock => ({
  _tag: "image",
  mediaType,
  data: typeof data === "string" ? data : Encoding.encodeBase64(data)
})

/**
 * Any other binary content (audio, a PDF) from raw bytes or base64: the same
 * block as `image`, which each provider codec shows as far as its provider
 * can (MCP as `audio` or an embedded resource). Textual media types
 * (`text/*`, JSON, XML, YAML) are read as text by the shape stage, so they
 * are redacted and truncated like any other output.
 *
 * @since 0.4.0
 * @category constructors
 */
export const binary = (data: Uint8Array | string, mediaType: string): ContentBlock => image(data, mediaType)

/**
 * Whether content of this media type is text a model reads (and a secret
 * could hide in): `text/*`, and JSON, XML, YAML, JavaScript and form data
 * under any name.
 *
 * @since 0.4.0
 * @category guards
 */
export const isTextMediaType = (mediaType: string): boolean => {
  const type = mediaType.split(";")[0]!.trim().toLowerCase()
  return type.startsWith("text/") ||
    /^application\/(?:.*[+.-])?(?:json|xml|yaml|javascript|ecmascript|x-www-form-urlencoded|x-sh|sql|graphql|toml)$/
      .test(type)
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const textBlock = (text: string): ContentBlock => ({ _tag: "text", text })

/**
 * The text the model reads, blocks joined.
 *
 * @since 0.1.0
 * @category getters
 */
export const text = (result: ToolResult): string => {
  if (result.content.length === 1 && result.content[0]!._tag === "text") return result.content[0]!.text
  return result.content.map((block) => block._tag === "text" ? block.text : `[image ${block.mediaType}]`).join("\n")
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (props: ToolResult): ToolResult => props

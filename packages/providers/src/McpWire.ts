/**
 * The Model Context Protocol's shapes, as far as the `Mcp` codec reads and
 * writes them: the `tools/call` request, the `CallToolResult` and its content
 * blocks, and the `tools/list` entries with their annotations.
 *
 * They are this package's own so that its declarations need no SDK: a user
 * who does not have the MCP TypeScript SDK installed still type-checks
 * against them. Field names and literal types are the spec's; each shape
 * holds only what the codec writes or reads. `test/SdkConformance.test.ts`
 * holds them to the SDK's copy of the spec (`spec.types`): what the codec
 * writes is assignable to the spec's types and names no field the spec
 * lacks. Arrays the codec writes are mutable `Array`s, as the SDK's types
 * take them.
 *
 * @since 0.2.0
 */

/**
 * @since 0.2.0
 * @category models
 */
export interface CallToolRequestParams {
  readonly name: string
  readonly arguments?: Record<string, unknown>
}

/**
 * A `tools/call` request. Its JSON-RPC `id` pairs the result with it.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallToolRequest {
  readonly jsonrpc: "2.0"
  readonly id: string | number
  readonly method: "tools/call"
  readonly params: CallToolRequestParams
}

/**
 * @since 0.2.0
 * @category models
 */
export interface TextContent {
  readonly type: "text"
  readonly text: string
}

/**
 * @since 0.2.0
 * @category models
 */
export interface ImageContent {
  readonly type: "image"
  readonly data: string
  readonly mimeType: string
}

/**
 * @since 0.2.0
 * @category models
 */
export interface AudioContent {
  readonly type: "audio"
  readonly data: string
  readonly mimeType: string
}

/**
 * Binary contents of a resource, base64 in `blob`.
 *
 * @since 0.2.0
 * @category models
 */
export interface BlobResourceContents {
  readonly uri: string
  readonly mimeType: string
  readonly blob: string
}

/**
 * A resource embedded in a result: here, binary content that is neither an
 * image nor audio (a PDF).
 *
 * @since 0.2.0
 * @category models
 */
export interface EmbeddedResource {
  readonly type: "resource"
  readonly resource: BlobResourceContents
}

/**
 * @since 0.2.0
 * @category models
 */
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource

/**
 * The result of a `tools/call`. A tool error is a result with
 * `isError: true`, never a protocol error.
 *
 * A type literal rather than an interface: the spec's `Result` has an index
 * signature, and only a type literal is assignable to one.
 *
 * @since 0.2.0
 * @category models
 */
export type CallToolResult = {
  readonly content: Array<ContentBlock>
  readonly isError?: boolean
  readonly structuredContent?: Record<string, unknown>
}

/**
 * Hints about a tool's behaviour, for clients; not guarantees.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint: boolean
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
 * A `tools/list` entry.
 *
 * @since 0.2.0
 * @category models
 */
export interface Tool {
  readonly name: string
  readonly description: string
  readonly inputSchema: InputSchema
  /** The JSON Schema of the tool's `structuredContent`; its root is an object too. */
  readonly outputSchema?: InputSchema
  readonly annotations?: ToolAnnotations
}

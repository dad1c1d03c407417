/**
 * The Model Context Protocol, server side: a `tools/call` request in, a
 * `CallToolResult` out (content blocks, `isError`, `structuredContent`),
 * and the `tools/list` entries with annotations derived from what the
 * registry knows about each tool.
 *
 * A tool error is a result with `isError: true`, never a protocol error:
 * the spec asks for that so the model can see the error and correct itself,
 * which is what every core error result is for.
 *
 * The shapes are this package's own, in `McpWire`, held to the copy of the
 * spec in the MCP TypeScript SDK (`spec.types`) by a conformance test: users
 * need no SDK installed.
 *
 * @since 0.1.0
 */
import type * as Registry from "@tool-runtime/core/Registry"
import type * as Tool from "@tool-runtime/core/Tool"
import type * as ToolCall from "@tool-runtime/core/ToolCall"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import type * as McpWire from "./McpWire.js"
import * as Media from "./Media.js"
import * as Wire from "./Wire.js"

const request = Wire.fields<McpWire.CallToolRequest>()
const params = Wire.fields<McpWire.CallToolRequestParams>()
const resultField = Wire.fields<McpWire.CallToolResult>()
const textField = Wire.fields<McpWire.TextContent>()
const imageField = Wire.fields<McpWire.ImageContent>()
const resourceField = Wire.fields<McpWire.EmbeddedResource>()
const blobField = Wire.fields<McpWire.BlobResourceContents>()

/**
 * Reads a `tools/call` request. Its JSON-RPC id becomes the call id (a
 * number as its decimal text): the result is paired with the request by it.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeCall = (payload: unknown): Wire.Decoded => {
  const collector = new Wire.Collector("mcp")
  if (!Wire.isRecord(payload)) {
    collector.issue("", `expected a tools/call request, got ${Wire.kindOf(payload)}`)
    return collector.done()
  }
  const method = request(payload, "method")
  if (method !== "tools/call") {
    collector.issue("method", "expected a tools/call request")
    return collector.done()
  }
  const raw = request(payload, "id")
  const id = typeof raw === "number" && Number.isFinite(raw) ? String(raw) : raw
  if (!Wire.isId(id)) {
    collector.issue("id", Wire.missingId("id"))
    return collector.done()
  }
  const body = request(payload, "params")
  if (!Wire.isRecord(body)) {
    collector.call(id, "", undefined)
    return collector.done()
  }
  collector.call(id, params(body, "name"), params(body, "arguments"))
  return collector.done()
}

/**
 * A `tools/call` request for a call, for clients and round trips.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeCall = (call: ToolCall.Input): McpWire.CallToolRequest => ({
  jsonrpc: "2.0",
  id: call.id,
  method: "tools/call",
  params: {
    name: call.name,
    ...(call.input === undefined ? {} : { arguments: call.input as Record<string, unknown> })
  }
})

const contentBlock = (block: ToolResult.ContentBlock, uri: string): McpWire.ContentBlock => {
  if (block._tag === "text") return { type: "text", text: block.text }
  switch (Media.kind(block.mediaType)) {
    case "image":
      return { type: "image", data: block.data, mimeType: block.mediaType }
    case "audio":
      return { type: "audio", data: block.data, mimeType: block.mediaType }
    default:
      return { type: "resource", resource: { uri, mimeType: block.mediaType, blob: block.data } }
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface EncodeOptions {
  /**
   * Also send a successful result whose text is one JSON object as
   * `structuredContent` (the text stays, as the spec asks). Default `true`.
   */
  readonly structured?: boolean | undefined
  /**
   * The tool that gave the result. When it offers an {@link outputSchema},
   * a success must carry `structuredContent` of that schema: one that cannot
   * (its output was cut at the limit, or redaction changed a value the
   * schema constrains) is sent as an error saying why, its text kept.
   */
  readonly tool?: Tool.Any | undefined
}

const unstructured = (result: ToolResult.ToolResult, tool: Tool.Any): string =>
  result.meta.truncation !== undefined
    ? `The call ran, but its output is over this tool's limit and was cut, so it cannot be sent as the structured content its output schema promises${
      result.meta.artifact === undefined ? "" : ": the whole output is stored as a resource"
    }. The text above is the start of it.`
    : `The call ran, but its output${
      result.meta.redactions > 0 ? ", with secrets or personal data redacted," : ""
    } does not fit the output schema of ${tool.name}, so it cannot be sent as structured content. The text above is the output.`

const structuredOf = (result: ToolResult.ToolResult): Record<string, unknown> | undefined => {
  const [only, ...rest] = result.content
  if (result.isError || only === undefined || rest.length > 0 || only._tag !== "text") return undefined
  // Truncated or untrusted-marked output is not the JSON the tool returned.
  if (result.meta.truncation !== undefined || result.meta.untrusted === true) return undefined
  const parsed = Wire.parseJson(only.text)
  return parsed._tag === "Right" && Wire.isRecord(parsed.right) ? parsed.right as Record<string, unknown> : undefined
}

/**
 * The `CallToolResult` of one result. Images and audio are content blocks
 * of their own; other binary content (a PDF) is an embedded resource.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeResult = (result: ToolResult.ToolResult, options?: EncodeOptions): McpWire.CallToolResult => {
  const structured = options?.structured === false ? undefined : structuredOf(result)
  const content = result.content.map((block, i) =>
    contentBlock(block, `tool-runtime:result/${encodeURIComponent(result.callId)}/${i}`)
  )
  const tool = options?.tool
  if (!result.isError && tool !== undefined && outputSchema(tool) !== undefined) {
    if (structured === undefined || !tool.isEncodedOutput(structured)) {
      return { content: [...content, { type: "text", text: unstructured(result, tool) }], isError: true }
    }
  }
  return {
    content,
    ...(result.isError ? { isError: true } : {}),
    ...(structured === undefined ? {} : { structuredContent: structured })
  }
}

const returnedBlock = (block: Readonly<Record<string, unknown>>): ToolResult.ContentBlock | undefined => {
  switch (block.type) {
    case "text": {
      const text = textField(block, "text")
      return typeof text === "string" ? { _tag: "text", text } : undefined
    }
    case "image":
    case "audio": {
      const data = imageField(block, "data")
      const mimeType = imageField(block, "mimeType")
      return typeof data === "string" && typeof mimeType === "string"
        ? { _tag: "image", mediaType: mimeType, data }
        : undefined
    }
    case "resource": {
      const resource = resourceField(block, "resource")
      if (!Wire.isRecord(resource)) return undefined
      const blob = blobField(resource, "blob")
      const mimeType = blobField(resource, "mimeType")
      return typeof blob === "string" && typeof mimeType === "string"
        ? { _tag: "image", mediaType: mimeType, data: blob }
        : undefined
    }
  }
  return undefined
}

/**
 * Reads a `CallToolResult` back.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeResult = (payload: unknown, callId: string): {
  readonly result: Wire.Returned | undefined
  readonly error: Wire.Decoded["error"]
} => {
  const collector = new Wire.Collector("mcp")
  if (!Wire.isRecord(payload)) {
    collector.issue("", `expected a CallToolResult, got ${Wire.kindOf(payload)}`)
    return { result: undefined, error: collector.error }
  }
  const content: Array<ToolResult.ContentBlock> = []
  collector.items(resultField(payload, "content"), "content", (block, at) => {
    const decoded = returnedBlock(block)
    if (decoded === undefined) collector.issue(at, "a content block this package cannot read")
    else content.push(decoded)
  })
  return {
    result: { callId, content, isError: resultField(payload, "isError") === true },
    error: collector.error
  }
}

/**
 * The hints MCP clients read, from what the registry knows: read-only
 * tools change nothing (so repeating them is harmless); other tools may
 * destroy unless their risk is low, and are idempotent only when they say
 * so (`idempotent: true`); tools
 * whose output comes from outside the system (`untrusted`) reach an open
 * world. These are hints for clients, not guarantees, as the spec says.
 *
 * @since 0.1.0
 * @category definitions
 */
export const annotations = (tool: Tool.Any): McpWire.ToolAnnotations =>
  tool.readOnly
    ? { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: tool.untrusted }
    : {
      readOnlyHint: false,
      destructiveHint: tool.risk !== "low",
      idempotentHint: tool.idempotent,
      openWorldHint: tool.untrusted
    }

/**
 * The `tools/list` entries: the definitions the registry shows (all of
 * them, or those a `ToolSearch` view has loaded), with annotations.
 *
 * @since 0.1.0
 * @category definitions
 */
export const toolDefinitions = (
  source: Pick<Registry.Service, "definitions" | "get">
): Array<McpWire.Tool> =>
  source.definitions.map((definition) => {
    const entry = source.get(definition.name)
    const output = entry === undefined ? undefined : outputSchema(entry.tool)
    return {
      name: definition.name,
      description: definition.description,
      inputSchema: { ...Wire.objectSchema(definition.inputSchema), type: "object" },
      ...(output === undefined ? {} : { outputSchema: output }),
      ...(entry === undefined ? {} : { annotations: annotations(entry.tool) })
    }
  })

/**
 * The `outputSchema` of a tool: the JSON Schema of its encoded output, for
 * a tool with a `success` schema whose output is a JSON object (all the
 * revision in force allows as `structuredContent`). None for an untrusted
 * tool: its output reaches the client marked, not as the value.
 *
 * @since 0.4.0
 * @category definitions
 */
export const outputSchema = (tool: Tool.Any): McpWire.Tool["outputSchema"] => {
  const schema = tool.untrusted ? undefined : tool.outputSchema as Record<string, unknown> | undefined
  if (schema === undefined) return undefined
  // A schema with an identifier is a reference into `$defs` (`{ $ref: "#/$defs/Row" }`); the
  // spec asks for an object at the root, so the referenced one is put there, `$defs` kept.
  const ref = typeof schema.$ref === "string" ? /^#\/\$defs\/([^/]+)$/.exec(schema.$ref) : null
  const defs = schema.$defs as Record<string, Record<string, unknown>> | undefined
  const root = ref === null
    ? schema
    : { ...defs?.[ref[1]!.replace(/~1/g, "/").replace(/~0/g, "~")], $defs: defs }
  return root.type === "object" ? root as McpWire.Tool["outputSchema"] : undefined
}

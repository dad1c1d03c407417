/**
 * What an MCP server's `CallToolResult` becomes on our side: the value a
 * handler returns (text and image blocks, which the runtime then redacts,
 * truncates and marks), or the text of its failure.
 *
 * The other direction (our tools and results as MCP's `Tool` and
 * `CallToolResult`, for `McpServer`) is `@tool-runtime/providers/Mcp`,
 * shared with the other provider codecs. This side is here rather than
 * there because a client must turn every kind of block into something the
 * model can read (a resource link, a text resource, audio it cannot play),
 * where the codec's `decodeResult` reads back only what it encodes.
 *
 * @since 0.1.0
 */
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/client"
import * as StableJson from "@tool-runtime/core/StableJson"
import * as ToolResult from "@tool-runtime/core/ToolResult"

const approximateBytes = (base64: string) => Math.floor(base64.length * 0.75)

/**
 * One MCP content block as runtime blocks. Images stay images; what the
 * runtime has no block for (audio, binary resources) is described in a line
 * instead of being dropped silently.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromContentBlock = (block: ContentBlock): ToolResult.ContentBlock => {
  switch (block.type) {
    case "text":
      return ToolResult.textBlock(block.text)
    case "image":
      return ToolResult.image(block.data, block.mimeType)
    case "audio":
      return ToolResult.textBlock(`[audio ${block.mimeType}, about ${approximateBytes(block.data)} bytes, not shown]`)
    case "resource_link":
      return ToolResult.textBlock(
        `[resource link: ${block.name} <${block.uri}>${block.mimeType === undefined ? "" : ` (${block.mimeType})`}${
          block.description === undefined ? "" : `: ${block.description}`
        }]`
      )
    case "resource": {
      const resource = block.resource
      if ("text" in resource && typeof resource.text === "string") {
        return ToolResult.textBlock(`[resource <${resource.uri}>]\n${resource.text}`)
      }
      const blob = "blob" in resource && typeof resource.blob === "string" ? resource.blob : ""
      return ToolResult.textBlock(
        `[resource <${resource.uri}>${resource.mimeType === undefined ? "" : ` (${resource.mimeType})`}, about ${
          approximateBytes(blob)
        } bytes of binary data, not shown]`
      )
    }
  }
}

/**
 * A successful `CallToolResult` as handler output. Structured content is
 * used only when the server sent no content blocks (the specification asks
 * servers to send both, so this avoids showing the model the same data
 * twice).
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromCallToolResult = (result: CallToolResult): ToolResult.Content => {
  const blocks = (result.content ?? []).map(fromContentBlock)
  if (blocks.length === 0 && result.structuredContent !== undefined) {
    // Any JSON the server sent, 100,000 levels deep included: past 256 levels a marker says what was left out
    // (`JSON.stringify` would throw). What is kept is indented for the model, unless that deep: the indent
    // alone would then be most of the text.
    const encoded = StableJson.encode(result.structuredContent)
    blocks.push(
      ToolResult.textBlock(encoded.tooDeep ? encoded.text : JSON.stringify(JSON.parse(encoded.text), null, 2))
    )
  }
  return ToolResult.content(blocks)
}

/**
 * The text of an error result (`isError: true`), which the runtime reports
 * as the tool's failure.
 *
 * @since 0.1.0
 * @category conversions
 */
export const errorText = (result: CallToolResult): string => {
  const text = (result.content ?? []).map(fromContentBlock).map((block) =>
    block._tag === "text" ? block.text : `[image ${block.mediaType}]`
  ).join("\n").trim()
  return text === "" ? "the server reported an error without details" : text
}

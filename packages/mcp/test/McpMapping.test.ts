import { assert, describe, it } from "@effect/vitest"
import * as McpMapping from "../src/McpMapping.js"

describe("McpMapping", () => {
  it("turns every kind of MCP block into something the model can read", () => {
    const content = McpMapping.fromCallToolResult({
      content: [
        { type: "text", text: "hello" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a.txt", name: "a.txt", mimeType: "text/plain" },
        { type: "resource", resource: { uri: "file:///b.txt", text: "inside b" } },
        { type: "resource", resource: { uri: "file:///c.bin", blob: "AAAAAAAA", mimeType: "application/octet-stream" } }
      ]
    })
    assert.deepStrictEqual(content.blocks, [
      { _tag: "text", text: "hello" },
      { _tag: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
      { _tag: "text", text: "[audio audio/wav, about 3 bytes, not shown]" },
      { _tag: "text", text: "[resource link: a.txt <file:///a.txt> (text/plain)]" },
      { _tag: "text", text: "[resource <file:///b.txt>]\ninside b" },
      {
        _tag: "text",
        text: "[resource <file:///c.bin> (application/octet-stream), about 6 bytes of binary data, not shown]"
      }
    ])
  })

  it("shows structured content only when there is no content to show", () => {
    const structured = McpMapping.fromCallToolResult({ content: [], structuredContent: { total: 3 } })
    assert.deepStrictEqual(structured.blocks, [{ _tag: "text", text: "{\n  \"total\": 3\n}" }])
    const both = McpMapping.fromCallToolResult({
      content: [{ type: "text", text: "{\"total\":3}" }],
      structuredContent: { total: 3 }
    })
    assert.strictEqual(both.blocks.length, 1)
  })

  it("gives an error result without text a sentence of its own", () => {
    assert.strictEqual(
      McpMapping.errorText({ content: [], isError: true }),
      "the server reported an error without details"
    )
    assert.strictEqual(McpMapping.errorText({ content: [{ type: "text", text: " boom " }], isError: true }), "boom")
  })
})

import { assert, describe, it } from "@effect/vitest"
import type { Tool as McpTool } from "@modelcontextprotocol/client"
import * as McpTools from "../src/McpTools.js"

const tool = (annotations?: McpTool["annotations"]): McpTool => ({
  name: "t",
  inputSchema: { type: "object" },
  ...(annotations === undefined ? {} : { annotations })
})

describe("McpTools", () => {
  it("names tools mcp__<server>__<tool>, rewriting names providers reject without collisions", () => {
    assert.strictEqual(McpTools.toolName("files", "read_file"), "mcp__files__read_file")
    const dotted = McpTools.toolName("files", "read.file")
    assert.match(dotted, /^mcp__files__read_file_[a-z0-9]{7}$/)
    assert.notStrictEqual(dotted, McpTools.toolName("files", "read/file"))
    const long = McpTools.toolName("files", "x".repeat(80))
    assert.strictEqual(long.length, 64)
    assert.notStrictEqual(long, McpTools.toolName("files", "x".repeat(81)))
    for (const name of [dotted, long]) assert.match(name, /^[a-zA-Z0-9_-]{1,64}$/)
  })

  it("believes annotations only of trusted servers", () => {
    assert.deepStrictEqual(McpTools.classify(tool({ readOnlyHint: true }), true), { readOnly: true, risk: "low" })
    assert.deepStrictEqual(McpTools.classify(tool({ destructiveHint: false }), true), {
      readOnly: false,
      risk: "medium"
    })
    // MCP's default for destructiveHint is true.
    assert.deepStrictEqual(McpTools.classify(tool(), true), { readOnly: false, risk: "high" })
    assert.deepStrictEqual(McpTools.classify(tool({ readOnlyHint: true, destructiveHint: false }), false), {
      readOnly: false,
      risk: "high"
    })
  })

  it("checks arguments against the server's JSON Schema, and leaves an uncompilable schema to the server", () => {
    const check = McpTools.validator({
      type: "object",
      properties: { path: { type: "string" }, depth: { type: "integer", minimum: 0 } },
      required: ["path"]
    })
    assert.isUndefined(check({ path: "a", depth: 2 }))
    const message = check({ depth: -1 })!
    assert.include(message, "must have required property 'path'")
    assert.include(message, "/depth must be >= 0")
    const broken = McpTools.validator({ type: "object", properties: { x: { type: "no-such-type" } } } as never)
    assert.isUndefined(broken({ x: 1 }))
  })
})

import { assert, describe, it, layer } from "@effect/vitest"
import type * as McpSpec from "@modelcontextprotocol/sdk/spec.types.js"
import type * as McpTypes from "@modelcontextprotocol/sdk/types.js"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Mcp from "../src/Mcp.js"
import * as World from "./World.js"

layer(World.runtimeLayer)("Mcp", (it) => {
  it.effect.prop(
    "each tools/call request gets one CallToolResult; tool errors are results with isError, never protocol errors",
    [World.turn({ objectsOnly: true, anomalies: false })],
    ([turn]) =>
      Effect.gen(function*() {
        // MCP has one call per request: a turn is a series of requests with distinct JSON-RPC ids.
        const requests = turn.calls.map((call, i) => Mcp.encodeCall({ ...call, id: `${i}` }))
        const decoded = requests.map((request) => Mcp.decodeCall(request))
        assert.isTrue(decoded.every((d) => d.error === undefined && d.calls.length === 1))
        const results = yield* World.run(decoded.flatMap((d) => d.calls))
        results.forEach((result, i) => {
          assert.strictEqual(result.callId, `${i}`)
          const encoded: McpSpec.CallToolResult = Mcp.encodeResult(result)
          assert.strictEqual(encoded.isError, result.isError ? true : undefined)
          const read = Mcp.decodeResult(encoded, result.callId)
          assert.isUndefined(read.error)
          assert.deepStrictEqual(read.result, {
            callId: result.callId,
            content: result.content,
            isError: result.isError
          })
        })
      })
  )

  it.effect("a JSON object result is also structuredContent; its text stays", () =>
    Effect.gen(function*() {
      const decoded = Mcp.decodeCall({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "write_note", arguments: { text: "hi" } }
      })
      assert.deepStrictEqual(decoded.calls, [{ id: "7", name: "write_note", input: { text: "hi" } }])
      const [result] = yield* World.run(decoded.calls)
      assert.deepStrictEqual(Mcp.encodeResult(result!), {
        content: [{ type: "text", text: "{\"length\":2,\"saved\":true}" }],
        structuredContent: { length: 2, saved: true }
      })
      assert.deepStrictEqual(Mcp.encodeResult(result!, { structured: false }), {
        content: [{ type: "text", text: "{\"length\":2,\"saved\":true}" }]
      })
    }))
})

describe("Mcp", () => {
  it("requests it cannot pair are decode errors", () => {
    assert.strictEqual(Mcp.decodeCall({ jsonrpc: "2.0", id: 1, method: "tools/list" }).error?.issues[0]?.path, "method")
    assert.strictEqual(
      Mcp.decodeCall({ jsonrpc: "2.0", method: "tools/call", params: { name: "x" } }).error?.issues[0]?.path,
      "id"
    )
    assert.deepStrictEqual(Mcp.decodeCall({ jsonrpc: "2.0", id: "a", method: "tools/call" }).calls, [
      { id: "a", name: "", input: undefined }
    ])
  })

  it("annotations follow the registry's attributes", () => {
    const fetchPage = Tool.make("fetch_page", {
      description: "Fetches a web page.",
      parameters: { url: Schema.String },
      readOnly: true,
      untrusted: true,
      handler: () => Effect.succeed("")
    })
    assert.deepStrictEqual(Mcp.annotations(World.getWeather), {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false
    })
    assert.deepStrictEqual(Mcp.annotations(fetchPage), {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true
    })
    assert.deepStrictEqual(Mcp.annotations(World.sendEmail), {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false
    })
    // A low-risk write only adds.
    assert.strictEqual(Mcp.annotations(World.writeNote).destructiveHint, false)
    // Not marked at all: the conservative defaults (a write of medium risk) may destroy.
    assert.strictEqual(Mcp.annotations(World.failing).destructiveHint, true)
    // A write is idempotent only when it says so.
    const putFile = Tool.make("put_file", {
      description: "Writes a file whole.",
      parameters: { path: Schema.String, text: Schema.String },
      idempotent: true,
      handler: () => Effect.void
    })
    assert.deepStrictEqual(Mcp.annotations(putFile), {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false
    })
  })

  it.effect("lists tools with their schemas and annotations, as the spec and the SDK type them", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make([World.getWeather, World.sendEmail])
      const tools = Mcp.toolDefinitions(registry)
      const listing: McpSpec.ListToolsResult = { tools }
      const released: McpTypes.ListToolsResult = { tools }
      assert.strictEqual(listing.tools.length, released.tools.length)
      assert.deepStrictEqual(tools[1] as unknown, {
        name: "send_email",
        description: "Send an email to a given recipient with a subject and message.",
        inputSchema: {
          type: "object",
          required: ["to", "body"],
          properties: { to: { type: "string" }, body: { type: "string" } },
          additionalProperties: false
        },
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false }
      })
    }))

  it("an output schema: the success schema's encoded side, an object at the root, none where it cannot hold", () => {
    const rows = Schema.Struct({ id: Schema.String, at: Schema.Date }).annotations({ identifier: "a/b~c" })
    const make = (success: Schema.Schema<any, any>, untrusted = false) =>
      Tool.make("t", { description: "t", parameters: {}, success, untrusted, handler: () => Effect.die("unused") })
    // A reference into `$defs` (its name escaped) is put at the root; `$defs` stays for the others.
    const output = Mcp.outputSchema(make(rows))!
    assert.strictEqual(output.type, "object")
    assert.deepStrictEqual(output.required, ["id", "at"])
    assert.deepStrictEqual(output.properties, { id: { type: "string" }, at: { $ref: "#/$defs/Date" } })
    assert.isDefined((output.$defs as Record<string, unknown>).Date)
    // What the revision in force cannot send as structured content gets none: a value that is no
    // object, and an untrusted tool's output (it is sent marked, not as the value).
    assert.isUndefined(Mcp.outputSchema(make(Schema.Array(rows))))
    assert.isUndefined(Mcp.outputSchema(make(Schema.String)))
    assert.isUndefined(Mcp.outputSchema(make(rows, true)))
    assert.isUndefined(
      Mcp.outputSchema(Tool.make("u", { description: "u", parameters: {}, handler: () => Effect.void }))
    )
  })

  it("a success of a tool with an output schema is sent as structured content only when it keeps to it", () => {
    const tool = Tool.make("t", {
      description: "t",
      parameters: {},
      success: Schema.Struct({ n: Schema.Number }),
      handler: () => Effect.succeed({ n: 1 })
    })
    const result = (text: string, meta?: Partial<ToolResult.Meta>) =>
      ToolResult.make({
        callId: "c",
        toolName: "t",
        content: [ToolResult.textBlock(text)],
        isError: false,
        meta: { durationMillis: 1, redactions: 0, ...meta }
      })
    assert.deepStrictEqual(Mcp.encodeResult(result(`{"n":1}`), { tool }), {
      content: [{ type: "text", text: `{"n":1}` }],
      structuredContent: { n: 1 }
    })
    // A value the schema rejects (an excess key, a wrong type) is an error saying so, its text first.
    for (const text of [`{"n":1,"m":2}`, `{"n":"[REDACTED:email]"}`, "not json"]) {
      const sent = Mcp.encodeResult(result(text, { redactions: 1 }), { tool })
      assert.isTrue(sent.isError, text)
      assert.isUndefined(sent.structuredContent)
      assert.deepStrictEqual(sent.content[0], { type: "text", text })
      assert.include((sent.content[1] as { readonly text: string }).text, "with secrets or personal data redacted")
    }
    const cut = Mcp.encodeResult(
      result(`{"n":1`, { truncation: { strategy: "head", originalLength: 9, shownLength: 6 }, artifact: "a" }),
      { tool }
    )
    assert.isTrue(cut.isError)
    assert.include((cut.content[1] as { readonly text: string }).text, "the whole output is stored as a resource")
    // Without the tool, or for a failure, nothing changes.
    assert.isUndefined(Mcp.encodeResult(result(`{"n":1,"m":2}`)).isError)
    assert.deepStrictEqual(Mcp.encodeResult({ ...result("boom"), isError: true }, { tool }).content.length, 1)
  })

  it("binary content: images and audio are blocks of their own, anything else an embedded resource", () => {
    const result: McpTypes.CallToolResult = Mcp.encodeResult(ToolResult.make({
      callId: "c/1",
      toolName: "t",
      content: [
        ToolResult.image(World.png, "image/png"),
        ToolResult.image("AAAA", "audio/wav"),
        ToolResult.image("JVBERi0=", "application/pdf")
      ],
      isError: false,
      meta: { durationMillis: 0, redactions: 0 }
    }))
    assert.deepStrictEqual(result.content, [
      { type: "image", data: World.png, mimeType: "image/png" },
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      {
        type: "resource",
        resource: { uri: "tool-runtime:result/c%2F1/2", mimeType: "application/pdf", blob: "JVBERi0=" }
      }
    ])
  })
})

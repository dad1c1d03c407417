/**
 * The server's stdio transport answers every request, as JSON-RPC asks:
 * what the SDK's transport drops in silence (no JSON, a batch, parameters
 * that are no object, a line over the limit) gets an error with the
 * request's id when it has a valid one, and nothing it was sent is echoed.
 */
import { assert, describe, it } from "@effect/vitest"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { PassThrough } from "node:stream"
import * as McpServerStdio from "../src/McpServerStdio.js"

const harness = (maxMessageBytes?: number) => {
  const input = new PassThrough()
  const output = new PassThrough()
  const transport = new McpServerStdio.ServerTransport(input, output, { maxMessageBytes })
  const received: Array<JSONRPCMessage> = []
  const errors: Array<Error> = []
  transport.onmessage = (message) => received.push(message)
  transport.onerror = (error) => errors.push(error)
  let written = ""
  output.setEncoding("utf8").on("data", (chunk: string) => written += chunk)
  const answers = () =>
    written.split("\n").filter((line) => line !== "").map((line) =>
      JSON.parse(line) as { readonly id: unknown; readonly error: { readonly code: number; readonly message: string } }
    )
  return { input, transport, received, errors, answers, written: () => written }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe("McpServerStdio", () => {
  it("passes valid messages on, a line split across chunks and a CRLF included, and answers nothing itself", async () => {
    const h = harness()
    await h.transport.start()
    h.input.write(`{"jsonrpc":"2.0","id":1,"meth`)
    h.input.write(`od":"ping"}\r\n\n  \n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`)
    await settle()
    assert.deepStrictEqual(h.received, [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" }
    ])
    assert.deepStrictEqual(h.answers(), [])
  })

  it("answers what the protocol rejects: no JSON, a batch, a scalar, params that are no object, no method", async () => {
    const h = harness()
    await h.transport.start()
    const secretish = "\u202eghp_0123456789abcdefghijABCDEFGHIJ0123"
    for (
      const line of [
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"${secretish}"`,
        `[{"jsonrpc":"2.0","id":"b1","method":"ping"}]`,
        `12345`,
        `{"jsonrpc":"2.0","id":"p5","method":"tools/list","params":5}`,
        `{"jsonrpc":"2.0","id":"nm"}`,
        `{"jsonrpc":"2.0","id":{"x":1},"method":"ping","params":"${secretish}"}`,
        `{"jsonrpc":"2.0","id":1.5,"method":"ping","params":[]}`
      ]
    ) h.input.write(`${line}\n`)
    await settle()
    assert.deepStrictEqual(h.answers().map(({ error, id }) => [id, error.code]), [
      [null, -32700],
      [null, -32600],
      [null, -32600],
      ["p5", -32600],
      ["nm", -32600],
      [null, -32600],
      [null, -32600]
    ])
    assert.notInclude(h.written(), "ghp_")
    assert.notInclude(h.written(), "\u202e")
    assert.strictEqual(h.received.length, 0)
    assert.strictEqual(h.errors.length, 7)
  })

  it("a wrong notification or response gets no answer: there is no one to answer", async () => {
    const h = harness()
    await h.transport.start()
    h.input.write(`{"jsonrpc":"2.0","method":"notifications/progress","params":5}\n`)
    h.input.write(`{"jsonrpc":"2.0","id":3,"result":5}\n`)
    h.input.write(`{"jsonrpc":"2.0","id":4,"error":"no"}\n`)
    await settle()
    assert.deepStrictEqual(h.answers(), [])
    assert.strictEqual(h.errors.length, 3)
  })

  it("a line over the limit is skipped as it streams in, answered with its id, and the next one is read", async () => {
    const h = harness(1_000)
    await h.transport.start()
    const big = "x".repeat(5_000)
    // The id first (as written by hand), last (as the SDK's clients write it), or nowhere to be found;
    // a nested `"id"` at the end is not the message's.
    h.input.write(`{"jsonrpc":"2.0","id":"first","method":"tools/call","params":{"a":"${big}"}}\n`)
    for (let i = 0; i < 10; i++) h.input.write(`{"method":"tools/call","params":{"a":"${big}`)
    h.input.write(`"},"jsonrpc":"2.0","id":42}\n`)
    h.input.write(`{"method":"tools/call","params":{"a":"${big}","id":9}}\n`)
    h.input.write(`{"method":"tools/call","params":{"a":"${big}"},"jsonrpc":"2.0","id":"a\\"b"}\n`)
    h.input.write(`{"jsonrpc":"2.0","id":"after","method":"ping"}\n`)
    await settle()
    assert.deepStrictEqual(h.answers().map(({ error, id }) => [id, error.code]), [
      ["first", -32600],
      [42, -32600],
      [null, -32600],
      ["a\"b", -32600]
    ])
    assert.include(h.answers()[0]!.error.message, "larger than this server takes (1000 bytes)")
    assert.deepStrictEqual(h.received, [{ jsonrpc: "2.0", id: "after", method: "ping" }])
  })

  it("stops reading when closed", async () => {
    const h = harness()
    let closed = false
    h.transport.onclose = () => closed = true
    await h.transport.start()
    await h.transport.close()
    h.input.write(`{"jsonrpc":"2.0","id":1,"method":"ping"}\n`)
    await settle()
    assert.isTrue(closed)
    assert.deepStrictEqual(h.received, [])
  })
})

/**
 * The stdio transport our server reads its client with: the SDK's wire
 * format (one JSON-RPC message per line), but every request gets an answer.
 *
 * The SDK's own transport drops a line that is no JSON or no valid message
 * (`"params": 5`, a batch) without a word, so the client waits for its own
 * timeout; and a line over 10 MiB closes the whole server. Here, as
 * JSON-RPC asks, a line that is no JSON gets a parse error (-32700), and a
 * request the protocol rejects gets "invalid request" (-32600), with its id
 * when it has a valid one. A line over the limit is skipped as it streams
 * in (never held whole) and answered the same way: its id is read from its
 * first or last bytes, where clients write it. Notifications and responses
 * that are wrong get no answer (there is no one to answer) and go to
 * `onerror`. The answers never echo what was sent.
 *
 * @since 0.4.0
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server"
import { parseJSONRPCMessage } from "@modelcontextprotocol/server"
import type { Readable, Writable } from "node:stream"
import * as JsonLines from "./JsonLines.js"

/**
 * @since 0.4.0
 * @category models
 */
export interface Options {
  /** The longest message taken, in bytes. Default 64 MiB. */
  readonly maxMessageBytes?: number | undefined
}

/**
 * A server transport on a pair of streams (stdin and stdout by default).
 *
 * @since 0.4.0
 * @category constructors
 */
export class ServerTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private readonly lines: JsonLines.LineReader
  private started = false

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    options?: Options
  ) {
    this.lines = new JsonLines.LineReader(
      options?.maxMessageBytes ?? JsonLines.defaultMaxBytes,
      (line) => this.read(line),
      (id) => {
        this.reject(
          id,
          -32600,
          `Invalid Request: the message is larger than this server takes (${this.lines.maxBytes} bytes).`
        )
        this.onerror?.(new Error(`a message over ${this.lines.maxBytes} bytes was skipped`))
      }
    )
  }

  private readonly onData = (chunk: Buffer | string) => this.lines.push(chunk)

  private readonly onError = (error: Error) => this.onerror?.(error)

  private read(line: string) {
    let raw: unknown
    try {
      raw = JSON.parse(line)
    } catch (error) {
      this.reject(null, -32700, "Parse error: the line is not JSON.")
      this.onerror?.(error instanceof Error ? error : new Error(String(error)))
      return
    }
    let message: JSONRPCMessage
    try {
      message = parseJSONRPCMessage(raw)
    } catch (error) {
      this.onerror?.(new Error(`an invalid JSON-RPC message: ${error instanceof Error ? error.message : "unknown"}`))
      this.refuse(raw)
      return
    }
    this.onmessage?.(message)
  }

  /** Every request gets an answer, a malformed one too: its client would wait for it otherwise. */
  private refuse(raw: unknown) {
    if (Array.isArray(raw)) {
      this.reject(null, -32600, "Invalid Request: batches are not part of this protocol revision.")
      return
    }
    if (typeof raw !== "object" || raw === null) {
      this.reject(null, -32600, "Invalid Request: a message is a JSON object.")
      return
    }
    const message = raw as Record<string, unknown>
    // A notification or a response that is wrong has no one to answer.
    if (!("id" in message) || "result" in message || "error" in message) return
    this.reject(
      JsonLines.isId(message.id) ? message.id : null,
      -32600,
      typeof message.method === "string"
        ? "Invalid Request: its fields are not those of a JSON-RPC request (params must be an object)."
        : "Invalid Request: a request names a method."
    )
  }

  private reject(id: JsonLines.Id | null, code: number, message: string) {
    this.write(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }))
  }

  private write(json: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${json}\n`)) resolve()
      else this.output.once("drain", resolve)
    })
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("ServerTransport already started")
    this.started = true
    this.input.on("data", this.onData)
    this.input.on("error", this.onError)
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(JSON.stringify(message))
  }

  async close(): Promise<void> {
    this.input.off("data", this.onData)
    this.input.off("error", this.onError)
    if (this.input.listenerCount("data") === 0) this.input.pause()
    this.lines.clear()
    this.onclose?.()
  }
}

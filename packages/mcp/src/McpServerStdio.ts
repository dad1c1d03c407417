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
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import type { Readable, Writable } from "node:stream"

/**
 * @since 0.4.0
 * @category models
 */
export interface Options {
  /** The longest message taken, in bytes. Default 64 MiB. */
  readonly maxMessageBytes?: number | undefined
}

type Id = string | number

const isId = (id: unknown): id is Id => typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id))

/** How much of an overlong line is kept to find its id in. */
const edge = 4_096

const idPattern = `(-?\\d{1,16}|"(?:[^"\\\\]|\\\\.){0,1000}")`
const idAtStart = new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${idPattern}`)
// The last key of the message, closed by the message's own brace: a nested `"id"` is followed by two.
const idAtEnd = new RegExp(`[{,]\\s*"id"\\s*:\\s*${idPattern}\\s*\\}\\s*$`)

const idOf = (head: string, tail: string): Id | null => {
  const found = idAtStart.exec(head) ?? idAtEnd.exec(tail)
  if (found === null) return null
  try {
    const id: unknown = JSON.parse(found[1]!)
    return isId(id) ? id : null
  } catch {
    return null
  }
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

  private readonly maxBytes: number
  private chunks: Array<Buffer> = []
  private held = 0
  /** Set while the rest of an overlong line streams in: its first bytes, and its last ones so far. */
  private overlong: { head: string; tail: Buffer } | undefined
  private started = false

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    options?: Options
  ) {
    this.maxBytes = options?.maxMessageBytes ?? 64 * 1024 * 1024
  }

  private readonly onData = (chunk: Buffer | string) => {
    let rest = typeof chunk === "string" ? Buffer.from(chunk) : chunk
    while (rest.length > 0) {
      const newline = rest.indexOf(0x0a)
      const piece = newline < 0 ? rest : rest.subarray(0, newline)
      rest = newline < 0 ? Buffer.alloc(0) : rest.subarray(newline + 1)
      if (this.overlong !== undefined) {
        this.overlong.tail = Buffer.concat([this.overlong.tail, piece]).subarray(-edge)
      } else if (this.held + piece.length > this.maxBytes) {
        const head = Buffer.concat([...this.chunks, piece]).subarray(0, edge).toString("utf8")
        this.overlong = { head, tail: Buffer.concat([...this.chunks, piece]).subarray(-edge) }
        this.chunks = []
        this.held = 0
      } else {
        this.chunks.push(piece)
        this.held += piece.length
      }
      if (newline >= 0) this.endLine()
    }
  }

  private readonly onError = (error: Error) => this.onerror?.(error)

  private endLine() {
    if (this.overlong !== undefined) {
      const { head, tail } = this.overlong
      this.overlong = undefined
      this.reject(
        idOf(head, tail.toString("utf8")),
        -32600,
        `Invalid Request: the message is larger than this server takes (${this.maxBytes} bytes).`
      )
      this.onerror?.(new Error(`a message over ${this.maxBytes} bytes was skipped`))
      return
    }
    const line = Buffer.concat(this.chunks).toString("utf8").replace(/\r$/, "")
    this.chunks = []
    this.held = 0
    if (line.trim() === "") return
    let raw: unknown
    try {
      raw = JSON.parse(line)
    } catch (error) {
      this.reject(null, -32700, "Parse error: the line is not JSON.")
      this.onerror?.(error instanceof Error ? error : new Error(String(error)))
      return
    }
    const parsed = JSONRPCMessageSchema.safeParse(raw)
    if (parsed.success) {
      this.onmessage?.(parsed.data)
      return
    }
    this.onerror?.(new Error(`an invalid JSON-RPC message: ${parsed.error.issues[0]?.message ?? "unknown"}`))
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
      isId(message.id) ? message.id : null,
      -32600,
      typeof message.method === "string"
        ? "Invalid Request: its fields are not those of a JSON-RPC request (params must be an object)."
        : "Invalid Request: a request names a method."
    )
  }

  private reject(id: Id | null, code: number, message: string) {
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
    this.chunks = []
    this.overlong = undefined
    this.onclose?.()
  }
}

/**
 * Newline-delimited JSON-RPC, as MCP's stdio transport writes it, read
 * with a bound: a line over the limit is skipped as it streams in (never
 * held whole), and its id, when it has one, is read from its first or last
 * bytes, where JSON-RPC writers put it. The server's and the client's stdio
 * transports both read this way; the SDK's reader throws on a line over
 * 10 MiB, which closes a server and, thrown from a stream's `data`
 * listener, ends the client's whole process.
 *
 * @internal
 */

/** A JSON-RPC id. */
export type Id = string | number

/** @internal */
export const isId = (id: unknown): id is Id =>
  typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id))

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

/** The default bound on a line: 64 MiB. */
export const defaultMaxBytes = 64 * 1024 * 1024

/** @internal */
export class LineReader {
  private chunks: Array<Buffer> = []
  private held = 0
  /** Set while the rest of an overlong line streams in: its first bytes, and its last ones so far. */
  private overlong: { head: string; tail: Buffer } | undefined

  constructor(
    readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverlong: (id: Id | null) => void
  ) {}

  push(chunk: Buffer | string): void {
    let rest = typeof chunk === "string" ? Buffer.from(chunk) : chunk
    while (rest.length > 0) {
      const newline = rest.indexOf(0x0a)
      const piece = newline < 0 ? rest : rest.subarray(0, newline)
      rest = newline < 0 ? Buffer.alloc(0) : rest.subarray(newline + 1)
      if (this.overlong !== undefined) {
        this.overlong.tail = Buffer.concat([this.overlong.tail, piece]).subarray(-edge)
      } else if (this.held + piece.length > this.maxBytes) {
        const whole = Buffer.concat([...this.chunks, piece])
        this.overlong = { head: whole.subarray(0, edge).toString("utf8"), tail: whole.subarray(-edge) }
        this.chunks = []
        this.held = 0
      } else {
        this.chunks.push(piece)
        this.held += piece.length
      }
      if (newline >= 0) this.endLine()
    }
  }

  clear(): void {
    this.chunks = []
    this.held = 0
    this.overlong = undefined
  }

  private endLine() {
    if (this.overlong !== undefined) {
      const { head, tail } = this.overlong
      this.overlong = undefined
      this.onOverlong(idOf(head, tail.toString("utf8")))
      return
    }
    const line = Buffer.concat(this.chunks).toString("utf8").replace(/\r$/, "")
    this.chunks = []
    this.held = 0
    if (line.trim() !== "") this.onLine(line)
  }
}

/** Longest stderr line logged; a server that writes megabytes without a newline is cut. */
const maxLineChars = 4_000

/** Splits a byte stream into lines for the log (a server's stderr), bounded in memory. */
export const logLines = (onLine: (line: string) => void) => {
  let pending = ""
  return {
    push: (chunk: string) => {
      pending += chunk
      let newline = pending.indexOf("\n")
      while (newline >= 0) {
        const line = pending.slice(0, newline).replace(/\r$/, "")
        if (line.trim() !== "") onLine(line.length > maxLineChars ? `${line.slice(0, maxLineChars)}…` : line)
        pending = pending.slice(newline + 1)
        newline = pending.indexOf("\n")
      }
      if (pending.length > maxLineChars) {
        onLine(`${pending.slice(0, maxLineChars)}…`)
        pending = ""
      }
    },
    flush: () => {
      if (pending.trim() !== "") onLine(pending)
      pending = ""
    }
  }
}

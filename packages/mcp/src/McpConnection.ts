/**
 * One connection to one MCP server, below `McpClient`'s restarts and calls:
 * its transport, the revisions it may speak, stopping it, listing its tools,
 * and the error of everything that can go wrong with it.
 *
 * @since 0.4.0
 */
import type { Tool as McpTool, Transport } from "@modelcontextprotocol/client"
import type { Client } from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as JsonLines from "./JsonLines.js"
import * as McpCallWatch from "./McpCallWatch.js"
import * as McpConfig from "./McpConfig.js"
import * as McpOAuth from "./McpOAuth.js"
import * as McpStdio from "./McpStdio.js"
import { McpStdioTransport } from "./McpStdio.js"

/**
 * What can go wrong talking to a server. The message never quotes the
 * call's arguments, and never the server's stderr.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpClientError extends Schema.TaggedError<McpClientError>()("McpClientError", {
  server: Schema.String,
  reason: Schema.Literal("start_failed", "closed", "timeout", "rejected", "unauthorized", "outcome_unknown"),
  detail: Schema.String
}) {
  /** A crashed server restarts and a timed-out one is checked on the next call: trying again can help. */
  get retryable(): boolean {
    return this.reason !== "rejected" && this.reason !== "unauthorized" && this.reason !== "outcome_unknown"
  }
  override get message() {
    switch (this.reason) {
      case "start_failed":
        return `The MCP server "${this.server}" could not be started: ${this.detail}.`
      case "closed":
        return `The MCP server "${this.server}" closed the connection during the call (it exited or crashed): ${this.detail}. It is started again on the next call; a call that writes may or may not have taken effect.`
      case "timeout":
        return `The MCP server "${this.server}" did not answer in time: ${this.detail}.`
      case "rejected":
        return `The MCP server "${this.server}" rejected the call: ${this.detail}`
      case "unauthorized":
        return `The MCP server "${this.server}" refused our client's authorization: ${this.detail}.`
      case "outcome_unknown":
        return `The outcome of this call to the MCP server "${this.server}" is unknown: ${this.detail}, and the server may have run the tool. It was not sent again, because the tool is not read-only and sending it again could run it twice. Check whether it took effect before calling it again.`
    }
  }
}

/**
 * One running connection to a server.
 *
 * @since 0.4.0
 * @category models
 */
export interface Connection {
  readonly client: Client
  readonly transport: Transport
  readonly pid: () => number | undefined
  closed: boolean
}

/**
 * The transport for a server's entry: its process for a stdio server (the
 * stderr lines to `onStderr`), a watched streamable HTTP connection otherwise.
 *
 * @since 0.4.0
 * @category constructors
 */
export const makeTransport = (
  config: McpConfig.Server,
  launch: McpStdio.Confined | undefined,
  onStderr: (line: string) => void,
  oauth: McpOAuth.Provider | undefined
): { readonly transport: Transport; readonly pid: () => number | undefined } => {
  if (McpConfig.isStdio(config)) {
    if (launch === undefined) throw new Error("a stdio server needs its launch")
    // Its stderr is piped, never inherited: a server's stderr must not reach
    // a terminal or a protocol stream of ours.
    const transport = new McpStdioTransport({
      command: launch.command,
      args: launch.args,
      env: McpStdio.definedOnly(launch.env),
      replaceEnvironment: true,
      cwd: launch.cwd,
      inheritFiles: launch.inheritFiles,
      maxMessageBytes: config.maxMessageBytes
    })
    const lines = JsonLines.logLines(onStderr)
    transport.stderr.on("data", (chunk: Buffer | string) => lines.push(chunk.toString()))
    transport.stderr.on("end", lines.flush)
    return { transport, pid: () => transport.pid }
  }
  const transport = new McpCallWatch.WatchedHttpTransport(new URL(config.url), {
    ...(config.headers === undefined ? {} : { requestInit: { headers: { ...config.headers } } }),
    ...(oauth === undefined ? {} : { fetch: McpOAuth.authorizedFetch(oauth) })
  })
  return { transport, pid: () => undefined }
}

/**
 * Which revisions the SDK may speak with a server.
 *
 * @since 0.4.0
 * @category negotiation
 */
export const negotiation = (
  config: McpConfig.Server,
  legacyOnly: boolean
): "legacy" | "auto" | { readonly pin: string } => {
  switch (config.protocol) {
    case "2025-11-25":
      return "legacy"
    case "2026-07-28":
      return { pin: "2026-07-28" }
    default:
      return legacyOnly ? "legacy" : "auto"
  }
}

/**
 * Stopping a server waits for it a little (the SDK closes stdin, then
 * escalates to SIGTERM and SIGKILL), never forever. A server that failed or
 * hung gets SIGTERM at once: it has shown it will not shut down by itself.
 *
 * @since 0.4.0
 * @category lifecycle
 */
export const close = (connection: Connection, options?: { readonly force?: boolean }): Effect.Effect<void> =>
  Effect.suspend(() => {
    connection.closed = true
    // The whole group: the server leads one of its own (see McpStdio).
    if (options?.force === true && connection.transport instanceof McpStdioTransport) {
      connection.transport.signal("SIGTERM")
    }
    // Until its handshake is done the client does not hold the transport (2026-07-28's probe runs on it
    // alone), so closing the client would leave the transport and the probe's timer running.
    return Effect.tryPromise(() =>
      connection.client.transport === undefined ? connection.transport.close() : connection.client.close()
    ).pipe(
      // Called from finalizers, which are uninterruptible: without this the
      // bound would wait for the promise anyway.
      Effect.interruptible,
      Effect.timeout("6 seconds"),
      Effect.ignore
    )
  })

const maxListPages = 100

/**
 * Every tool of a server, page after page (at most 100 pages).
 *
 * @since 0.4.0
 * @category requests
 */
export const listTools = (
  name: string,
  client: Client,
  timeoutMillis: number,
  describeError: (error: unknown) => string
) => {
  const page = (
    cursor: string | undefined,
    acc: ReadonlyArray<McpTool>,
    pages: number
  ): Effect.Effect<ReadonlyArray<McpTool>, McpClientError> =>
    Effect.tryPromise({
      try: (signal) =>
        client.listTools(cursor === undefined ? undefined : { cursor }, { signal, timeout: timeoutMillis }),
      catch: (error) =>
        new McpClientError({
          server: name,
          reason: "start_failed",
          detail: `listing its tools failed: ${describeError(error)}`
        })
    }).pipe(
      Effect.flatMap((result) => {
        const tools = [...acc, ...result.tools]
        return result.nextCursor === undefined || pages >= maxListPages
          ? Effect.succeed(tools)
          : page(result.nextCursor, tools, pages + 1)
      })
    )
  return page(undefined, [], 1)
}

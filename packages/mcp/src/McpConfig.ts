/**
 * The configuration of the MCP servers whose tools the runtime imports, in
 * the `mcpServers` JSON shape users already keep for their other clients:
 *
 * ```json
 * {
 *   "mcpServers": {
 *     "files": { "command": "npx", "args": ["@modelcontextprotocol/server-filesystem", "."], "trusted": true },
 *     "search": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer …" } }
 *   }
 * }
 * ```
 *
 * Only `trusted`, `required` and the time limits are ours; keys other clients add are
 * ignored, so one file can serve them all. Trust is opt-in: a server not
 * marked `trusted` has its tool annotations ignored (every tool is a write
 * of high risk), because an annotation is a claim the server makes about
 * itself.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs/promises"

/**
 * What every kind of server may add to its entry.
 *
 * @since 0.1.0
 * @category models
 */
export const Common = {
  trusted: Schema.optional(Schema.Boolean).annotations({
    description: "Believe the server's tool annotations (readOnlyHint, destructiveHint). Default false."
  }),
  timeout: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.positive())).annotations({
    description: "Total time limit of one tool call, in milliseconds."
  }),
  idleTimeout: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.positive())).annotations({
    description: "Longest silence (no progress notification) of one tool call, in milliseconds."
  }),
  startupTimeout: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.positive())).annotations({
    description: "How long the server may take to start and answer the handshake, in milliseconds."
  }),
  required: Schema.optional(Schema.Boolean).annotations({
    description:
      "Fail the whole client (and the runtime built on it) when this server cannot start, instead of going on without its tools. Default false."
  })
}

/**
 * A server the runtime starts as a child process and talks to over stdio.
 *
 * @since 0.1.0
 * @category models
 */
export const StdioServer = Schema.Struct({
  type: Schema.optional(Schema.Literal("stdio")),
  command: Schema.NonEmptyString,
  args: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  cwd: Schema.optional(Schema.String),
  maxMessageBytes: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.positive())).annotations({
    description:
      "The longest message taken from the server, in bytes. Default 64 MiB; a longer answer fails its call with an error that says so."
  }),
  ...Common
}).annotations({ identifier: "StdioServer" })

/**
 * @since 0.1.0
 * @category models
 */
export type StdioServer = typeof StdioServer.Type

/**
 * A server reached over MCP's streamable HTTP transport.
 *
 * @since 0.1.0
 * @category models
 */
export const HttpServer = Schema.Struct({
  type: Schema.optional(Schema.Literal("http", "streamable-http", "streamableHttp")),
  url: Schema.String.pipe(
    Schema.filter((url) => URL.canParse(url) || "expected an absolute URL, such as https://example.com/mcp")
  ),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  ...Common
}).annotations({ identifier: "HttpServer" })

/**
 * @since 0.1.0
 * @category models
 */
export type HttpServer = typeof HttpServer.Type

/**
 * @since 0.1.0
 * @category models
 */
export const Server = Schema.Union(StdioServer, HttpServer)

/**
 * @since 0.1.0
 * @category models
 */
export type Server = typeof Server.Type

const validServerName = /^[a-zA-Z0-9_-]{1,32}$/

/**
 * @since 0.1.0
 * @category models
 */
export const Config = Schema.Struct({
  // Server names become part of tool names (`mcp__<server>__<tool>`), which
  // providers restrict to letters, digits, `_` and `-`. Checked on the whole
  // record: a refined key schema would drop a bad name silently instead.
  mcpServers: Schema.Record({ key: Schema.String, value: Server }).pipe(
    Schema.filter((servers) => {
      const bad = Object.keys(servers).filter((name) => !validServerName.test(name))
      return bad.length === 0 ||
        `server names are 1 to 32 letters, digits, "_" or "-" (they become part of tool names): ${
          bad.map((name) => JSON.stringify(name)).join(", ")
        }`
    })
  )
}).annotations({ identifier: "McpConfig" })

/**
 * @since 0.1.0
 * @category models
 */
export type Config = typeof Config.Type

/**
 * @since 0.1.0
 * @category guards
 */
export const isStdio = (server: Server): server is StdioServer => "command" in server

/**
 * The configuration could not be read or does not have the expected shape.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpConfigError extends Schema.TaggedError<McpConfigError>()("McpConfigError", {
  reason: Schema.String
}) {
  override get message() {
    return `Invalid MCP configuration: ${this.reason}`
  }
}

const decodeConfig = Schema.decodeUnknown(Config, { errors: "all" })

/**
 * Checks a parsed configuration.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (input: unknown): Effect.Effect<Config, McpConfigError> =>
  Effect.mapError(decodeConfig(input), (error) => new McpConfigError({ reason: error.message }))

/**
 * Parses and checks the text of a configuration file.
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromJson = (text: string): Effect.Effect<Config, McpConfigError> =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (error) => new McpConfigError({ reason: `the file is not JSON (${String(error)})` })
  }).pipe(Effect.flatMap(decode))

/**
 * Reads a configuration file (`.mcp.json`, `claude_desktop_config.json`…).
 *
 * @since 0.1.0
 * @category decoding
 */
export const load = (path: string): Effect.Effect<Config, McpConfigError> =>
  Effect.tryPromise({
    try: () => NodeFs.readFile(path, "utf8"),
    catch: (error) => new McpConfigError({ reason: `cannot read ${path} (${String(error)})` })
  }).pipe(Effect.flatMap(fromJson))

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (servers: Record<string, Server>): Config => ({ mcpServers: servers })

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
 * Only `trusted`, `required`, `oauth`, `sandbox`, `protocol` and the limits are ours; keys other clients add are
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
  }),
  protocol: Schema.optional(Schema.Literal("auto", "2025-11-25", "2026-07-28")).annotations({
    description:
      "The MCP revision to speak. auto (default): ask the server (server/discover) and speak 2026-07-28 when it offers it, 2025-11-25 otherwise; a revision named here is the only one tried."
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
  sandbox: Schema.optional(Schema.Literal("read-only", "workspace-write", "danger-full-access")).annotations({
    description:
      "The sandbox policy the server runs under. Default: the client's sandbox policy when it was given one (McpClient's confine option). A policy other than danger-full-access on a client without a sandbox does not start the server."
  }),
  ...Common
}).annotations({ identifier: "StdioServer" })

/**
 * @since 0.1.0
 * @category models
 */
export type StdioServer = typeof StdioServer.Type

/**
 * How our client authorizes itself to a remote server (OAuth 2.1, as MCP's
 * authorization spec asks). Secrets never appear in the file: a client
 * secret or private key is named by the environment variable that holds it.
 *
 * @since 0.4.0
 * @category models
 */
export const OAuth = Schema.Struct({
  grant: Schema.optional(Schema.Literal("authorization_code", "client_credentials", "identity_assertion")).annotations({
    description:
      "authorization_code (default): a person approves in a browser; client_credentials: the client authenticates as itself, with no person; identity_assertion: the person's enterprise sign-in (an ID token) is exchanged at their identity provider for a grant the server's authorization server takes (SEP-990, cross-app access)."
  }),
  clientId: Schema.optional(Schema.NonEmptyString).annotations({
    description: "A client registered beforehand with the authorization server. Default: registered dynamically."
  }),
  clientSecretEnv: Schema.optional(Schema.NonEmptyString).annotations({
    description: "The environment variable holding the pre-registered client's secret."
  }),
  privateKeyEnv: Schema.optional(Schema.NonEmptyString).annotations({
    description:
      "The environment variable holding a PEM private key: the client authenticates with a signed JWT (private_key_jwt)."
  }),
  signingAlgorithm: Schema.optional(Schema.NonEmptyString).annotations({
    description: "The private key's JWT algorithm. Default ES256."
  }),
  idTokenEnv: Schema.optional(Schema.NonEmptyString).annotations({
    description:
      "identity_assertion: the environment variable holding the person's ID token from the identity provider."
  }),
  idpTokenEndpoint: Schema.optional(Schema.String.pipe(Schema.filter((url) => URL.canParse(url) || "expected a URL")))
    .annotations({ description: "identity_assertion: the identity provider's token endpoint." }),
  idpClientId: Schema.optional(Schema.NonEmptyString).annotations({
    description: "identity_assertion: this client's id at the identity provider."
  }),
  clientMetadataUrl: Schema.optional(
    Schema.String.pipe(Schema.filter((url) => /^https:\/\/[^/]+\/.+/.test(url) || "expected an https URL with a path"))
  ).annotations({
    description:
      "An https URL of this client's metadata document (CIMD), used as its client id where the authorization server takes one."
  }),
  scope: Schema.optional(Schema.String).annotations({
    description: "The scope to ask for when neither the server's challenge nor its metadata names one."
  }),
  callbackPort: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(1, 65_535))).annotations({
    description:
      "The loopback port the browser is sent back to. Default: the one the client registered with, or any free port."
  })
}).annotations({ identifier: "McpOAuth" })

/**
 * @since 0.4.0
 * @category models
 */
export type OAuth = typeof OAuth.Type

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
  oauth: Schema.optional(Schema.Union(Schema.Literal(false), OAuth)).annotations({
    description:
      "How to authorize when the server answers 401. Default: OAuth with a dynamically registered client; false: never."
  }),
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

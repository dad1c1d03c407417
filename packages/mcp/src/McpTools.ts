/**
 * The tools of MCP servers as registry tools, named `mcp__<server>__<tool>`,
 * so that a call to them goes through the same stages as any other:
 * validation against the server's JSON Schema before anything is sent,
 * permissions, a total and an idle time limit (progress notifications keep
 * a long call alive, the total limit still holds), and shaping (redaction,
 * truncation with the full text kept, untrusted marking).
 *
 * What the runtime believes about a tool depends on whether the
 * configuration trusts its server. A trusted server's annotations decide:
 * `readOnlyHint` makes a read-only tool of low risk, `destructiveHint:
 * false` a write of medium risk, anything else a write of high risk (MCP's
 * default for `destructiveHint` is true). An untrusted server's tools are
 * all writes of high risk, whatever they claim: a wrong read-only mark
 * would let two of its calls run at once and spare them from permission
 * rules meant for writes.
 *
 * Output is marked untrusted by default, whatever the server: it comes from
 * a program the runtime did not write, often from the web.
 *
 * @since 0.1.0
 */
import type { Tool as McpTool } from "@modelcontextprotocol/client"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import type * as Untrusted from "@tool-runtime/core/Untrusted"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as JSONSchema from "effect/JSONSchema"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import * as McpClient from "./McpClient.js"
import * as McpMapping from "./McpMapping.js"

/**
 * The server answered the call with an error result (`isError: true`). The
 * message is the server's own text: it goes through redaction like any
 * output.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpToolError extends Schema.TaggedError<McpToolError>()("McpToolError", {
  server: Schema.String,
  tool: Schema.String,
  text: Schema.String
}) {
  readonly retryable = false
  override get message() {
    return this.text
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Total limit of a call, unless the server's configuration sets one. Default 2 minutes. */
  readonly timeout?: Duration.DurationInput | undefined
  /** Longest silence (no progress) of a call, unless the server's configuration sets one. Default 60 s. */
  readonly idleTimeout?: Duration.DurationInput | undefined
  /** Output the model sees. Default 25,000 tokens, the cap MCP clients commonly use. */
  readonly outputLimit?: number | { readonly tokens: number } | undefined
  /** How output is marked: `"wrap"` (default), `"datamark"`, or `false` to not mark it. */
  readonly untrusted?: Untrusted.Mode | false | undefined
}

/**
 * @since 0.1.0
 * @category defaults
 */
export const defaults = {
  timeout: Duration.minutes(2),
  idleTimeout: Duration.seconds(60),
  outputLimit: { tokens: 25_000 }
} as const

const validName = /^[a-zA-Z0-9_-]{1,64}$/

/** FNV-1a, for a short, stable suffix that keeps rewritten names apart. */
const hash = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(36).padStart(7, "0").slice(0, 7)
}

/**
 * The registry name of a server's tool: `mcp__<server>__<tool>`. A tool name
 * providers would reject (characters outside `[a-zA-Z0-9_-]`, or too long
 * once prefixed) is rewritten and given a suffix from a hash of the
 * original, so two rewritten names never collide with each other or with a
 * name that was valid as it was.
 *
 * @since 0.1.0
 * @category naming
 */
export const toolName = (server: string, tool: string): string => {
  const full = `mcp__${server}__${tool}`
  if (validName.test(full)) return full
  const clean = `mcp__${server}__${tool.replace(/[^a-zA-Z0-9_-]/g, "_")}`
  return `${clean.slice(0, 64 - 8)}_${hash(tool)}`
}

/**
 * What the runtime believes about a tool of a server: see the module
 * documentation.
 *
 * @since 0.1.0
 * @category trust
 */
export const classify = (
  tool: McpTool,
  trusted: boolean
): { readonly readOnly: boolean; readonly risk: Tool.Risk } => {
  if (!trusted) return { readOnly: false, risk: "high" }
  const hints = tool.annotations
  if (hints?.readOnlyHint === true) return { readOnly: true, risk: "low" }
  return { readOnly: false, risk: hints?.destructiveHint === false ? "medium" : "high" }
}

let ajv: AjvJsonSchemaValidator | undefined

/**
 * A check of arguments against the server's JSON Schema, with the SDK's own
 * validator: a model that gets the arguments wrong learns it with the
 * runtime's `invalid_arguments`, before anything is sent. A schema the
 * validator cannot compile is left to the server to enforce.
 *
 * @since 0.1.0
 * @category validation
 */
export const validator = (schema: McpTool["inputSchema"]): (input: unknown) => string | undefined => {
  const compiled = Either.try(() => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema as never))
  if (Either.isLeft(compiled)) return () => undefined
  const check = compiled.right
  return (input) => {
    const result = check(input)
    return result.valid
      ? undefined
      : result.errorMessage.replace(/\bdata\//g, "/").replace(/\bdata\b\s*/g, "").replace(/, /g, "; ")
  }
}

const Arguments = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const describeProgress = (progress: McpClient.Progress): string =>
  progress.message ??
    (progress.total === undefined ? `progress ${progress.progress}` : `${progress.progress} of ${progress.total}`)

/**
 * A tool of an MCP server, as the registry holds it: it needs no services.
 *
 * @since 0.1.0
 * @category models
 */
export interface ImportedTool extends
  Tool.Tool<
    string,
    { readonly [key: string]: unknown },
    ToolResult.Content,
    McpToolError | McpClient.McpClientError,
    never
  >
{}

/**
 * One tool of a started server as a registry tool.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromMcpTool = (server: McpClient.Server, tool: McpTool, options?: Options): ImportedTool => {
  const { readOnly, risk } = classify(tool, server.config.trusted === true)
  const check = validator(tool.inputSchema)
  const timeout = server.config.timeout ?? options?.timeout ?? defaults.timeout
  const idleTimeout = server.config.idleTimeout ?? options?.idleTimeout ?? defaults.idleTimeout
  const timeoutMillis = Duration.toMillis(timeout)
  return Tool.make(toolName(server.name, tool.name), {
    description: tool.description ?? tool.title ?? tool.annotations?.title ??
      `${tool.name} (MCP server ${server.name})`,
    parameters: Arguments.pipe(Schema.filter((input) => check(input))),
    inputSchema: tool.inputSchema as unknown as JSONSchema.JsonSchema7,
    readOnly,
    risk,
    timeout,
    idleTimeout,
    outputLimit: options?.outputLimit ?? defaults.outputLimit,
    untrusted: options?.untrusted ?? "wrap",
    handler: (input, context) =>
      Effect.gen(function*() {
        const run = Runtime.runFork(yield* Effect.runtime<never>())
        const result = yield* server.call(tool.name, input, {
          // The runtime's limits stop the call first; the SDK's is a backstop.
          timeoutMillis: timeoutMillis + 5_000,
          // A lost answer is asked for again only where asking twice cannot do anything twice.
          resendable: readOnly,
          // The numbers go on as they came, so a client of ours served over MCP keeps the server's totals.
          onProgress: (progress) => {
            run(
              context.progress({
                message: describeProgress(progress),
                progress: progress.progress,
                total: progress.total
              })
            )
          }
        })
        if (result.isError === true) {
          return yield* new McpToolError({ server: server.name, tool: tool.name, text: McpMapping.errorText(result) })
        }
        return McpMapping.fromCallToolResult(result)
      })
  })
}

/**
 * Every tool of every started server.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromClient = (client: McpClient.Service, options?: Options): ReadonlyArray<ImportedTool> =>
  client.servers.flatMap((server) => server.tools.map((tool) => fromMcpTool(server, tool, options)))

/**
 * @since 0.1.0
 * @category constructors
 */
export const tools = (options?: Options): Effect.Effect<ReadonlyArray<ImportedTool>, never, McpClient.McpClient> =>
  Effect.map(McpClient.McpClient, (client) => fromClient(client, options))

/**
 * A registry of the given tools followed by every MCP tool. When a server
 * says its tools changed (`tools/list_changed`), they are listed again and
 * the registry takes them for the next turn: a turn under way keeps the
 * tools it started with. A new list the registry cannot take (two tools of
 * one name) leaves the tools as they were, with a warning in the log.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRegistry = <const Tools extends ReadonlyArray<Tool.Any>>(
  own: Tools,
  options?: Options
): Layer.Layer<Registry.Registry, Registry.InvalidRegistry, McpClient.McpClient | Tool.Requirements<Tools[number]>> =>
  Layer.scoped(
    Registry.Registry,
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const build = Effect.suspend(() =>
        Registry.make([...own, ...fromClient(client, options)], { unavailable: unavailable(client) })
      )
      const { registry, replace } = Registry.changing(yield* build)
      const run = Runtime.runFork(yield* Effect.runtime<Tool.Requirements<Tools[number]>>())
      const rebuild = () =>
        run(Effect.matchEffect(build, {
          onFailure: (error) => Effect.logWarning(`the MCP tools changed, but were not taken: ${error.reason}`),
          onSuccess: (next) => Effect.sync(() => replace(next))
        }))
      for (const server of client.servers) {
        const stop = server.onToolsChanged(rebuild)
        yield* Effect.addFinalizer(() => Effect.sync(stop))
      }
      return registry
    })
  )

/**
 * The servers that did not start, as sources the registry answers for: a
 * call to `mcp__<server>__…` gets `tool_unavailable` with the server's
 * failure, not `unknown_tool`.
 *
 * @since 0.4.0
 * @category constructors
 */
export const unavailable = (client: McpClient.Service): ReadonlyArray<Registry.Unavailable> =>
  client.failures.map((failure) => ({
    prefix: `mcp__${failure.server}__`,
    source: `MCP server "${failure.server}"`,
    reason: failure.message
  }))

/**
 * The runtime over the given tools and every MCP tool, with the in-memory
 * artifact store, the default redactor and an allow-all policy (like
 * `ToolRuntime.layerDefault`). An application with permission rules
 * composes `ToolRuntime.layer` with {@link layerRegistry} and its policy
 * instead.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRuntime = <const Tools extends ReadonlyArray<Tool.Any>>(
  own: Tools,
  options?: Options & { readonly runtime?: ToolRuntime.Options | undefined }
): Layer.Layer<
  ToolRuntime.ToolRuntime,
  Registry.InvalidRegistry,
  McpClient.McpClient | Exclude<Tool.Requirements<Tools[number]>, ArtifactStore.ArtifactStore | Policy.Policy>
> => {
  const store = ArtifactStore.layerMemory()
  // read_output beside the tools: a truncation marker points to it.
  return ToolRuntime.layer(options?.runtime).pipe(
    Layer.provide([
      layerRegistry(ToolRuntime.withReadTool(own), options),
      store,
      Redactor.layerDefault,
      Policy.layerAllowAll
    ]),
    Layer.provide([store, Policy.layerAllowAll])
  )
}

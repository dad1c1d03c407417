/**
 * The `serve` command: a registry offered to other agents as an MCP server,
 * so the MCP Inspector, an IDE or another agent can be pointed at it in one
 * line. By default the support-desk tools of the demo; with `--tools`, the
 * tools a module of the user's exports, and the resources it exports as
 * `resources` (`McpResource` definitions), if any.
 *
 * On stdio (the default) stdout belongs to the protocol: every log line
 * goes to stderr. With `--http` the server listens on the loopback
 * interface only, prints its URL on stdout, and runs until interrupted; a
 * token is read from the environment variable `--token-env` names, never
 * from the command line, where any user of the machine can read it.
 *
 * @since 0.4.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type * as Tool from "@tool-runtime/core/Tool"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as McpHttpServer from "@tool-runtime/mcp/McpHttpServer"
import type * as McpResource from "@tool-runtime/mcp/McpResource"
import * as McpServer from "@tool-runtime/mcp/McpServer"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as CliError from "../CliError.js"
import * as SupportDesk from "../SupportDesk.js"

/**
 * @since 0.4.0
 * @category models
 */
export interface Flags {
  readonly http: boolean
  readonly port: number
  readonly tokenEnv: Option.Option<string>
  readonly tools: Option.Option<string>
}

const info = { name: "tool-runtime", version: "0.5.0" }

/** What `Tool.make` returns, checked by shape: the module may hold its own copy of the core package. */
const looksLikeTool = (value: unknown): value is Tool.Any =>
  Predicate.isRecord(value) && typeof value.name === "string" && Schema.isSchema(value.parameters) &&
  typeof value.handler === "function" && typeof value.decode === "function"

/** What `McpResource.make` and `McpResource.template` return, checked by shape. */
const looksLikeResource = (value: unknown): value is McpResource.Definition =>
  Predicate.isRecord(value) && typeof value.name === "string" && typeof value.mimeType === "string" &&
  (value._tag === "Resource" && typeof value.uri === "string" && Effect.isEffect(value.read) ||
    value._tag === "Template" && typeof value.uriTemplate === "string" && typeof value.read === "function")

/**
 * The tools a user's module exports, as `tools` or as its default export:
 * an array of tools that need no service of their own; and its `resources`.
 */
const moduleTools = (path: string) =>
  Effect.gen(function*() {
    const url = NodeUrl.pathToFileURL(NodePath.resolve(path)).href
    const module = yield* Effect.tryPromise({
      try: () => import(url) as Promise<Record<string, unknown>>,
      catch: (error) =>
        new CliError.CliError({
          message: `--tools ${path}: cannot be loaded (${error instanceof Error ? error.message.split("\n")[0] : "?"})`
        })
    })
    const exported = module.tools ?? module.default
    if (!Array.isArray(exported) || exported.length === 0 || !exported.every(looksLikeTool)) {
      return yield* new CliError.CliError({
        message: `--tools ${path}: the module must export \`tools\` (or a default export), an array of Tool.make tools`
      })
    }
    const resources = module.resources ?? []
    if (!Array.isArray(resources) || !resources.every(looksLikeResource)) {
      return yield* new CliError.CliError({
        message: `--tools ${path}: \`resources\`, when exported, must be an array of McpResource definitions`
      })
    }
    return { tools: exported as ReadonlyArray<Tool.Any>, resources: resources as ReadonlyArray<McpResource.Definition> }
  })

const runtimeOf = (flags: Flags): Effect.Effect<
  { readonly runtime: Layer.Layer<ToolRuntime.ToolRuntime>; readonly resources: ReadonlyArray<McpResource.Definition> },
  CliError.CliError
> =>
  Option.match(flags.tools, {
    onNone: () => Effect.succeed({ runtime: SupportDesk.layerRuntime, resources: [] }),
    onSome: (path) =>
      Effect.map(
        moduleTools(path),
        ({ resources, tools }) => ({
          resources,
          runtime: ToolRuntime.layerDefault(
            tools as ReadonlyArray<Tool.Tool<string, unknown, unknown, unknown, never>>
          ).pipe(
            Layer.catchAll((error) =>
              Layer.fail(
                new CliError.CliError({
                  message: `--tools ${path}: ${error.message}`
                })
              )
            )
          )
        })
      )
  }) as Effect.Effect<
    {
      readonly runtime: Layer.Layer<ToolRuntime.ToolRuntime>
      readonly resources: ReadonlyArray<McpResource.Definition>
    },
    CliError.CliError
  >

const tokenOf = (flags: Flags) =>
  Option.match(flags.tokenEnv, {
    onNone: () => Effect.succeed(undefined),
    onSome: (name) => {
      const value = process.env[name]
      return value === undefined || value === ""
        ? Effect.fail(new CliError.CliError({ message: `--token-env ${name}: the variable is not set` }))
        : Effect.succeed(Redacted.make(value))
    }
  })

/**
 * Serves until the client hangs up (stdio) or the program is interrupted (HTTP).
 *
 * @since 0.4.0
 * @category commands
 */
export const run = (flags: Flags) =>
  Effect.gen(function*() {
    const { resources, runtime } = yield* runtimeOf(flags)
    if (!flags.http) {
      if (Option.isSome(flags.tokenEnv)) {
        return yield* new CliError.CliError({ message: "--token-env is for --http: a stdio server has one client" })
      }
      return yield* McpServer.serveStdio({ ...info, resources }).pipe(
        Effect.mapError((error) => new CliError.CliError({ message: error.message })),
        Effect.provide(runtime)
      )
    }
    const token = yield* tokenOf(flags)
    return yield* Effect.scoped(Effect.gen(function*() {
      const { url } = yield* McpHttpServer.serve({ ...info, resources, port: flags.port, token }).pipe(
        Effect.mapError((error) => new CliError.CliError({ message: error.message }))
      )
      yield* Console.log(url)
      yield* Console.error(
        `Serving MCP at ${url}${token === undefined ? "" : " (bearer token required)"}; Ctrl-C ends it.`
      )
      return yield* Effect.never
    })).pipe(Effect.provide(runtime))
  }).pipe(Effect.provide(McpServer.layerLoggerStderr))

/**
 * @since 0.4.0
 * @category commands
 */
export const command = Command.make("serve", {
  http: Options.boolean("http").pipe(
    Options.withDescription("Serve over Streamable HTTP on 127.0.0.1 instead of stdio; the URL is printed on stdout.")
  ),
  port: Options.integer("port").pipe(
    Options.withDefault(0),
    Options.withDescription("The HTTP port; 0 (the default) takes a free one.")
  ),
  tokenEnv: Options.text("token-env").pipe(
    Options.withPseudoName("name"),
    Options.optional,
    Options.withDescription("The environment variable holding the bearer token HTTP clients must send.")
  ),
  tools: Options.text("tools").pipe(
    Options.withPseudoName("module"),
    Options.optional,
    Options.withDescription("A module exporting `tools`, served instead of the support-desk tools of the demo.")
  )
}, run).pipe(
  Command.withDescription(
    "Serves the support-desk tools (or a module's) as an MCP server, on stdio or HTTP, with every call run through " +
      "the runtime."
  )
)

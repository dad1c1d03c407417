/**
 * The `mcp` command: the MCP servers of a configuration file, as the
 * runtime sees them. Without `--call` it starts every server and shows
 * which started (their tools, the MCP revision spoken, how they are confined) and which did not,
 * with why: the place to look when a server's tools are missing. It exits
 * 1 when any server failed. With `--call` it runs one tool call through
 * the runtime and prints its result, as a model would get it.
 *
 * A server's questions (`elicitation/create`) are asked in the terminal
 * (`TerminalElicitation`); without one they are declined, with the reason.
 * A server that needs OAuth gets its approval URL printed on stderr, and
 * the command waits for the browser to come back (2 minutes at most).
 *
 * @since 0.4.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as McpClient from "@tool-runtime/mcp/McpClient"
import * as McpConfig from "@tool-runtime/mcp/McpConfig"
import * as McpElicitation from "@tool-runtime/mcp/McpElicitation"
import * as McpTools from "@tool-runtime/mcp/McpTools"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as Flag from "../Flag.js"
import * as CliTerminal from "../Terminal.js"
import * as TerminalElicitation from "../TerminalElicitation.js"

/**
 * @since 0.4.0
 * @category models
 */
export interface Flags {
  readonly mcpConfig: string
  readonly call: Option.Option<string>
  readonly input: Option.Option<string>
}

const clientLayer = (path: string) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const config = yield* McpConfig.load(path).pipe(
      Effect.mapError((error) =>
        new CliError.CliError({ message: `Invalid MCP configuration in ${path}: ${error.reason}` })
      )
    )
    const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true
    const elicit = interactive ? yield* TerminalElicitation.make : McpElicitation.headless
    return McpClient.layer(config, {
      elicit,
      oauth: {
        authorize: (request) =>
          Console.error(`The MCP server "${request.server}" needs authorization: open ${request.url.href}`)
      }
    })
  }))

const list = Effect.gen(function*() {
  const style = yield* CliTerminal.detect
  const client = yield* McpClient.McpClient
  const rows: Array<ReadonlyArray<string>> = []
  for (const server of client.servers) {
    const status = yield* server.status
    rows.push([
      server.name,
      style.green("started"),
      [
        `${server.tools.length} tools`,
        ...(status.protocol === undefined ? [] : [`MCP ${status.protocol}`]),
        ...(status.confinement === undefined ? [] : [status.confinement])
      ].join(", ")
    ])
  }
  for (const failure of client.failures) rows.push([failure.server, style.red("failed"), failure.message])
  yield* Console.log(CliTerminal.table(["server", "status", "details"], rows, style).join("\n"))
  for (const server of client.servers) {
    if (server.tools.length === 0) continue
    yield* Console.log(
      `\n${style.bold(server.name)}: ${server.tools.map((tool) => `mcp__${server.name}__${tool.name}`).join(", ")}`
    )
  }
  if (client.failures.length > 0) {
    return yield* new CliError.CliError({
      message: `${client.failures.length} of ${
        client.servers.length + client.failures.length
      } MCP servers did not start`
    })
  }
})

const call = (name: string, input: Option.Option<string>) =>
  Effect.gen(function*() {
    const runtime = yield* ToolRuntime.ToolRuntime
    const result = yield* runtime.runCall({ id: "cli-call", name, input: Option.getOrElse(input, () => "{}") })
    yield* Console.log(ToolResult.text(result))
    if (result.isError) {
      return yield* new CliError.CliError({
        message: `${name} answered with an error (${result.error?.code ?? "error"})`
      })
    }
  })

/**
 * @since 0.4.0
 * @category commands
 */
export const run = (flags: Flags) =>
  Option.match(flags.call, {
    onNone: () => list,
    onSome: (name) =>
      call(name, flags.input).pipe(
        Effect.provide(McpTools.layerRuntime([])),
        Effect.catchTag("InvalidRegistry", (error) => Effect.fail(new CliError.CliError({ message: error.message })))
      )
  }).pipe(
    Effect.provide(clientLayer(flags.mcpConfig)),
    Effect.catchTag("McpClientError", (error) => Effect.fail(new CliError.CliError({ message: error.message })))
  )

/**
 * @since 0.4.0
 * @category commands
 */
export const command = Command.make("mcp", {
  mcpConfig: Flag.existingFile("mcp-config").pipe(
    Options.withDescription("The mcpServers JSON file (.mcp.json, claude_desktop_config.json…).")
  ),
  call: Options.text("call").pipe(
    Options.withPseudoName("tool"),
    Options.optional,
    Options.withDescription("Run one call of this tool (mcp__<server>__<tool>) and print its result.")
  ),
  input: Options.text("input").pipe(
    Options.withPseudoName("json"),
    Options.optional,
    Options.withDescription("The call's arguments, a JSON object. Default {}.")
  )
}, run).pipe(
  Command.withDescription(
    "Starts the MCP servers of a configuration and shows which started and why the others did not, or runs one call."
  )
)

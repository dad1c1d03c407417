/**
 * The `agent` command: the support-desk ticket worked by a model through
 * the agent loop, the runtime resolving every tool call. By default the
 * model is the scripted one (offline, the same output every time), which
 * makes the mistakes real models make and recovers from their results;
 * with `ANTHROPIC_API_KEY` set (and without `--scripted`) Claude plays the
 * same task on the same tools.
 *
 * The registry holds tools from three places, run alike: the desk's own,
 * one defined as an `@effect/ai` toolkit, and those of the MCP servers of
 * an optional `--mcp-config` file.
 *
 * @since 0.1.0
 */
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import * as AiError from "@effect/ai/AiError"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as AgentLoop from "@tool-runtime/ai/AgentLoop"
import * as AiToolkit from "@tool-runtime/ai/AiToolkit"
import * as AnthropicToolResults from "@tool-runtime/ai/AnthropicToolResults"
import * as ScriptedModel from "@tool-runtime/ai/ScriptedModel"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import type * as ToolCall from "@tool-runtime/core/ToolCall"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as McpClient from "@tool-runtime/mcp/McpClient"
import * as McpConfig from "@tool-runtime/mcp/McpConfig"
import * as McpTools from "@tool-runtime/mcp/McpTools"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as CliError from "../CliError.js"
import * as Flag from "../Flag.js"
import * as SupportAgent from "../SupportAgent.js"
import * as SupportDesk from "../SupportDesk.js"
import * as Terminal from "../Terminal.js"

// ---------------------------------------------------------------------------
// services
// ---------------------------------------------------------------------------

/**
 * The desk's tools, the toolkit's, and the MCP servers' in one registry.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRegistry = Layer.effect(
  Registry.Registry,
  Effect.gen(function*() {
    const warranty = yield* AiToolkit.tools(SupportAgent.WarrantyToolkit)
    const client = yield* McpClient.McpClient
    return yield* Registry.make([...SupportDesk.tools, ...warranty, ...McpTools.fromClient(client)], {
      unavailable: McpTools.unavailable(client)
    })
  })
)

/**
 * The runtime over a fresh desk, with the MCP servers of a configuration
 * file when one is given. A file that is not a valid configuration is the
 * user's to fix: its error names it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRuntime = (mcpConfig: Option.Option<string>) => {
  const store = ArtifactStore.layerMemory()
  return ToolRuntime.layer().pipe(
    Layer.provide([layerRegistry, store, Redactor.layerDefault, Policy.layerAllowAll]),
    Layer.provide(store),
    Layer.provide(SupportAgent.WarrantyHandlers),
    // One desk for the desk's tools and the toolkit's handler.
    Layer.provide(SupportDesk.layer),
    Layer.provide(Option.match(mcpConfig, {
      onNone: () => McpClient.layer(McpConfig.make({})).pipe(Layer.orDie),
      onSome: (path) =>
        McpClient.layerFile(path).pipe(
          // The configuration's own message does not say which file it read.
          Layer.mapError((error) =>
            new CliError.CliError({
              message: error._tag === "McpClientError"
                ? error.message
                : `Invalid MCP configuration in ${path}: ${error.reason}`
            })
          )
        )
    }))
  )
}

const layerAnthropic = (
  model: string,
  apiKey: Redacted.Redacted,
  apiUrl: Option.Option<string>
): Layer.Layer<LanguageModel.LanguageModel> =>
  AnthropicLanguageModel.layer({ model }).pipe(
    // @effect/ai-anthropic JSON-encodes every tool result; the model must read the runtime's text once.
    Layer.provide(AnthropicToolResults.layer),
    Layer.provide(AnthropicClient.layer({ apiKey, apiUrl: Option.getOrUndefined(apiUrl) })),
    Layer.provide(FetchHttpClient.layer)
  )

// ---------------------------------------------------------------------------
// printing
// ---------------------------------------------------------------------------

const describeInput = (input: unknown): string =>
  typeof input === "string" ? `${JSON.stringify(input)}  (raw JSON string)` : JSON.stringify(input)

/** The first lines of a result, each cut to the width of a terminal. */
const preview = (text: string, lines: number): string => {
  const all = text.split("\n").filter((line) => line.trim() !== "")
  const shown = all.slice(0, lines).map((line) => line.length > 140 ? `${line.slice(0, 140)}…` : line)
  return all.length > lines ? [...shown, `… (${all.length - lines} more lines)`].join("\n") : shown.join("\n")
}

const printStep = (runtime: ToolRuntime.Service, style: Terminal.Style) => (step: AgentLoop.Step) =>
  Effect.gen(function*() {
    yield* Console.log(style.bold(`Request ${step.turn}`))
    const said = step.response.text.trim()
    if (said !== "") yield* Console.log(`  model: ${said}`)
    if (step.calls.length === 0) return
    const calls: ReadonlyArray<ToolCall.Input> = step.calls
    yield* Console.log(
      calls.map((call, i) =>
        `  ${i === 0 ? "calls:" : "      "} #${i + 1} ${style.cyan(call.name)} ${describeInput(call.input)}`
      ).join("\n")
    )
    const plan = runtime.plan(calls).map((batch) =>
      `${batch.indices.map((i) => `#${i + 1}`).join(" + ")} ${batch.concurrent ? "together" : "alone"}`
    )
    yield* Console.log(`  plan:  ${plan.join(", then ")}`)
    for (let i = 0; i < step.results.length; i++) {
      const result = step.results[i]!
      const status = result.isError ? style.red(`error ${result.error?.code ?? ""}`) : style.green("ok")
      yield* Console.log(`  #${i + 1} ${style.cyan(result.toolName)}  ${status}`)
      yield* Console.log(Terminal.indent(preview(ToolResult.text(result), result.isError ? 2 : 3), "       "))
    }
  })

// ---------------------------------------------------------------------------
// the command
// ---------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category models
 */
export interface Flags {
  readonly scripted: boolean
  readonly maxTurns: number
  readonly model: string
  readonly prompt: Option.Option<string>
  readonly mcpConfig: Option.Option<string>
}

/**
 * Runs the loop with the model the flags and the environment choose.
 *
 * @since 0.1.0
 * @category commands
 */
export const agent = (flags: Flags) =>
  Effect.gen(function*() {
    const style = yield* Terminal.detect
    const apiKey = flags.scripted ? Option.none() : yield* Config.option(Config.redacted("ANTHROPIC_API_KEY"))
    // The variable Anthropic's own SDK reads: a proxy, a gateway, or a local stand-in in tests.
    const apiUrl = yield* Config.option(Config.string("ANTHROPIC_BASE_URL"))
    const runtime = yield* ToolRuntime.ToolRuntime
    const scripted = Option.isNone(apiKey)
    yield* Console.log(style.bold("tool-runtime agent: the support-desk ticket, worked through the agent loop") + "\n")
    yield* Console.log(
      `Model: ${
        scripted
          ? "scripted (offline; set ANTHROPIC_API_KEY to use Claude)"
          : `Anthropic ${flags.model}`
      }`
    )
    const names = runtime.registry.entries.map(({ tool }) => tool.name)
    yield* Console.log(`Tools (${names.length}): ${names.join(", ")}`)
    const task = Option.getOrElse(flags.prompt, () => SupportAgent.task)
    yield* Console.log(`User: ${task}\n`)
    const loop = AgentLoop.run({
      prompt: task,
      system: SupportAgent.system,
      maxTurns: flags.maxTurns,
      onStep: (step) => Effect.zipRight(printStep(runtime, style)(step), Console.log(""))
    })
    const result = yield* Option.match(apiKey, {
      onNone: () => Effect.provide(loop, ScriptedModel.layer(SupportAgent.script)),
      onSome: (key) => Effect.provide(loop, layerAnthropic(flags.model, key, apiUrl))
    })
    const calls = result.steps.reduce((n, step) => n + step.calls.length, 0)
    const errors = result.steps.reduce((n, step) => n + step.results.filter((r) => r.isError).length, 0)
    yield* Console.log(
      style.bold(
        result.stopped === "model"
          ? `Stopped: the model answered without calling a tool`
          : `Stopped: the turn limit (${flags.maxTurns} requests) was reached while the model was still calling tools`
      ) +
        ` (${result.steps.length} requests, ${calls} calls, ${errors} error results the model read and went on from).`
    )
  })

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("agent", {
  scripted: Options.boolean("scripted").pipe(
    Options.withDescription("Play the scripted conversation even when ANTHROPIC_API_KEY is set.")
  ),
  maxTurns: Flag.positiveInteger("max-turns").pipe(
    Options.withDescription("Most requests to the model."),
    Flag.withDefault(8)
  ),
  model: Options.text("model").pipe(
    Options.withDescription("The Anthropic model, when ANTHROPIC_API_KEY is set."),
    Flag.withDefault("claude-sonnet-4-5")
  ),
  prompt: Options.text("prompt").pipe(
    Options.optional,
    Options.withDescription("The task, for a real model (the script plays its own).")
  ),
  mcpConfig: Flag.existingFile("mcp-config").pipe(
    Options.optional,
    Options.withDescription("An mcpServers JSON file whose servers' tools join the registry.")
  )
}, (flags) =>
  agent(flags).pipe(
    // A refused key, a network down, an overloaded API: the person can act on each.
    Effect.catchIf(
      AiError.isAiError,
      (error) => Effect.fail(new CliError.CliError({ message: `The model request failed: ${error.message}` }))
    ),
    Effect.provide(layerRuntime(flags.mcpConfig))
  )).pipe(
    Command.withDescription(
      "Runs the support-desk ticket through the agent loop: a scripted model by default, Claude with ANTHROPIC_API_KEY."
    )
  )

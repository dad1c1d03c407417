/**
 * The agent loop over `@effect/ai`'s `LanguageModel`, with the runtime
 * resolving the tool calls: ask the model (tool-call resolution switched
 * off), run the calls it made through `runTurn`, append its reply and the
 * results to the prompt, ask again, until the model answers without calling
 * a tool or the turn limit is reached.
 *
 * What changes from `@effect/ai`'s own resolution: calls run by the
 * registry's read-only marks (reads together, writes alone) under the
 * runtime's limits and policy, and every call gets a result the model
 * reads. A failing handler is an error result. So is a call to a tool that
 * does not exist: `generateText` fails to decode such a reply, so the loop
 * recovers the reply the provider sent from the decoding error and answers
 * the call with `unknown_tool` and the closest names, instead of ending the
 * generation.
 *
 * The model is shown the registry's definitions (name, description, JSON
 * Schema), so any tool the registry holds (our own, MCP servers', an
 * `@effect/ai` toolkit's) can be called.
 *
 * @since 0.1.0
 */
import type * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as Response from "@effect/ai/Response"
import * as AiTool from "@effect/ai/Tool"
import type * as Toolkit from "@effect/ai/Toolkit"
import type * as Registry from "@tool-runtime/core/Registry"
import type * as ToolCall from "@tool-runtime/core/ToolCall"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * The loop's toolkit is built at run time from the registry: its tools have
 * no static types.
 *
 * @since 0.1.0
 * @category models
 */
export type AnyTools = any

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly prompt: Prompt.RawInput
  /** Replaces the prompt's system message. */
  readonly system?: string | undefined
  /** Most requests to the model. Default 10. */
  readonly maxTurns?: number | undefined
  /** How each turn of calls runs (concurrency, parallel, events). */
  readonly turn?: ToolRuntime.TurnOptions | undefined
  /** Called after each request, with the reply and the results of its calls. */
  readonly onStep?: ((step: Step) => Effect.Effect<void>) | undefined
}

/**
 * One request to the model and what came of it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Step {
  /** 1 for the first request. */
  readonly turn: number
  readonly response: LanguageModel.GenerateTextResponse<AnyTools>
  readonly calls: ReadonlyArray<ToolCall.Input>
  readonly results: ReadonlyArray<ToolResult.ToolResult>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Result {
  readonly steps: ReadonlyArray<Step>
  /** The whole conversation, the last reply included: pass it back to continue. */
  readonly prompt: Prompt.Prompt
  /** The text of the last reply. */
  readonly text: string
  /** `model`: the model answered without calling a tool. `turn_limit`: it was still calling tools. */
  readonly stopped: "model" | "turn_limit"
}

/** Decodes anything: the runtime validates, and answers, bad arguments itself. */
const anyParameters = (schema: unknown) =>
  Schema.Unknown.annotations({ jsonSchema: schema as object }) as unknown as AiTool.AnyParametersSchema

const wireTool = (name: string, description: string, inputSchema: unknown): AiTool.Any =>
  AiTool.make(name, { description, success: Schema.Unknown, failure: Schema.Unknown })
    .setParameters(anyParameters(inputSchema)) as unknown as AiTool.Any

/**
 * The registry's definitions as the toolkit `generateText` is given: it
 * shows the model each tool's JSON Schema and decodes any arguments. Its
 * handlers are never called (resolution is switched off).
 *
 * @since 0.1.0
 * @category toolkit
 */
export const wireToolkit = (
  definitions: ReadonlyArray<Registry.Definition>
): Toolkit.WithHandler<AnyTools> => ({
  tools: Object.fromEntries(
    definitions.map((definition) => [
      definition.name,
      wireTool(definition.name, definition.description, definition.inputSchema)
    ])
  ),
  handle: (name) => Effect.dieMessage(`AgentLoop resolves tool calls itself; ${String(name)} was not expected here`)
})

/**
 * The reply the provider sent, recovered from the error `generateText`
 * fails with when a tool call names a tool the toolkit does not have: the
 * decoding error holds the raw parts. They are decoded again with the
 * unknown names added, so the calls reach the runtime, which answers them.
 *
 * @since 0.1.0
 * @category recovery
 */
export const recoverUnknownTools = (
  error: AiError.AiError,
  toolkit: Toolkit.WithHandler<AnyTools>
): Effect.Effect<LanguageModel.GenerateTextResponse<AnyTools>, AiError.AiError> => {
  if (error._tag !== "MalformedOutput" || !ParseResult.isParseError(error.cause)) return Effect.fail(error)
  const raw = error.cause.issue.actual
  if (!Array.isArray(raw)) return Effect.fail(error)
  const unknown = new Set<string>()
  for (const part of raw) {
    if (
      Predicate.isRecord(part) && part.type === "tool-call" && typeof part.name === "string" &&
      !Object.hasOwn(toolkit.tools, part.name)
    ) unknown.add(part.name)
  }
  if (unknown.size === 0) return Effect.fail(error)
  const tools: Record<string, AiTool.Any> = { ...toolkit.tools }
  for (const name of unknown) tools[name] = wireTool(name, "", {})
  const extended: Toolkit.WithHandler<AnyTools> = { ...toolkit, tools }
  return Schema.decodeUnknown(Schema.Array(Response.Part(extended)))(raw).pipe(
    Effect.map((content) => new LanguageModel.GenerateTextResponse<AnyTools>([...content])),
    Effect.catchAll(() => Effect.fail(error))
  )
}

/** The id of the call a response ends with, if its last part (before the finish) is one. */
const lastCallId = (content: ReadonlyArray<Response.AnyPart>): string | undefined => {
  for (let i = content.length - 1; i >= 0; i--) {
    const part = content[i]!
    if (part.type === "finish" || part.type === "response-metadata") continue
    return part.type === "tool-call" ? part.id : undefined
  }
  return undefined
}

// The result is the runtime's text (redacted, truncated, marked). Providers
// write it as `JSON.stringify(result)`, a string literal: see
// `AnthropicToolResults` for sending it to Anthropic as the text itself.
const toolResultPart = (result: ToolResult.ToolResult): Prompt.ToolResultPart =>
  Prompt.makePart("tool-result", {
    id: result.callId,
    name: result.toolName,
    isFailure: result.isError,
    result: ToolResult.text(result),
    providerExecuted: false
  })

/**
 * Runs the loop. Fails only with the model's own errors (a provider that
 * cannot be reached); nothing a tool does ends it.
 *
 * @since 0.1.0
 * @category running
 */
export const run = Effect.fn("AgentLoop.run")(function*(options: Options) {
  const runtime = yield* ToolRuntime.ToolRuntime
  const model = yield* LanguageModel.LanguageModel
  // The tools the model is shown are read again before each turn: a registry whose tools change
  // (an MCP server's tools/list_changed) shows the model the new ones from the next turn on.
  let definitions = runtime.registry.definitions
  let toolkit = wireToolkit(definitions)
  const maxTurns = Math.max(1, options.maxTurns ?? 10)
  let prompt = Prompt.make(options.prompt)
  if (options.system !== undefined) prompt = Prompt.setSystem(prompt, options.system)
  const steps: Array<Step> = []
  for (let turn = 1; turn <= maxTurns; turn++) {
    if (runtime.registry.definitions !== definitions) {
      definitions = runtime.registry.definitions
      toolkit = wireToolkit(definitions)
    }
    const response = yield* (model.generateText({ prompt, toolkit, disableToolCallResolution: true }) as Effect.Effect<
      LanguageModel.GenerateTextResponse<AnyTools>,
      AiError.AiError
    >).pipe(Effect.catchAll((error) => recoverUnknownTools(error, toolkit)))
    prompt = Prompt.merge(prompt, Prompt.fromResponseParts(response.content))
    // Stopped at the output limit while writing its last call: that call is not run (truncated_arguments).
    const cut = response.finishReason === "length" ? lastCallId(response.content) : undefined
    const calls: ReadonlyArray<ToolCall.Input> = response.toolCalls
      .filter((call) => !call.providerExecuted)
      .map((call) => ({
        id: call.id,
        name: call.name,
        input: call.params,
        ...(call.id === cut ? { truncated: "length" } : {})
      }))
    const results = calls.length === 0 ? [] : yield* runtime.runTurn(calls, options.turn)
    if (results.length > 0) {
      prompt = Prompt.merge(
        prompt,
        Prompt.fromMessages([Prompt.makeMessage("tool", { content: results.map(toolResultPart) })])
      )
    }
    const step: Step = { turn, response, calls, results }
    steps.push(step)
    if (options.onStep !== undefined) yield* options.onStep(step)
    if (calls.length === 0) return { steps, prompt, text: response.text, stopped: "model" } satisfies Result
  }
  return { steps, prompt, text: steps.at(-1)?.response.text ?? "", stopped: "turn_limit" } satisfies Result
})

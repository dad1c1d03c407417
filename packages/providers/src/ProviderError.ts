/**
 * What can go wrong between a provider's wire format and the runtime: a
 * payload holding items that cannot be paired with a result, and tool
 * schemas that a provider's strict mode cannot take.
 *
 * Neither is a tool failure: tool failures become `ToolResult`s in the core.
 * These are for the harness, which must not send the conversation back as
 * if nothing happened. Messages name positions and block types, never
 * argument values: those may hold secrets.
 *
 * @since 0.1.0
 */
import * as ToolError from "@tool-runtime/core/ToolError"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * The wire formats this package speaks.
 *
 * @since 0.1.0
 * @category models
 */
export const Provider = Schema.Literal("anthropic", "openai-responses", "openai-chat", "gemini", "mcp")

/**
 * @since 0.1.0
 * @category models
 */
export type Provider = typeof Provider.Type

const labels: Record<Provider, string> = {
  anthropic: "Anthropic Messages",
  "openai-responses": "OpenAI Responses",
  "openai-chat": "OpenAI Chat Completions",
  gemini: "Gemini",
  mcp: "MCP"
}

/**
 * One thing wrong in a payload, at a path into it (`content[2]`, `output[0].call_id`).
 *
 * @since 0.1.0
 * @category models
 */
export const Issue = Schema.Struct({
  path: Schema.String,
  problem: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type Issue = typeof Issue.Type

/**
 * Items of a provider payload that could not become calls: no id to pair a
 * result with, a block type this package does not know, a kind of call the
 * runtime does not run. The calls that could be identified are decoded
 * anyway and get their results; these items get none, so the harness must
 * deal with them before the conversation goes back to the provider.
 *
 * @since 0.1.0
 * @category errors
 */
export class DecodeError extends Schema.TaggedError<DecodeError>()("DecodeError", {
  provider: Provider,
  issues: Schema.NonEmptyArray(Issue)
}) {
  override get message() {
    return `The ${labels[this.provider]} payload could not be read in full: ${
      this.issues.map((issue) => `${issue.path}: ${issue.problem}`).join("; ")
    }.`
  }
}

/**
 * One reason a tool's schema cannot be sent with `strict: true`.
 *
 * @since 0.1.0
 * @category models
 */
export const Rejection = Schema.Struct({
  tool: Schema.String,
  path: Schema.String.annotations({ description: "A JSON pointer into the tool's input schema." }),
  keyword: Schema.String,
  reason: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type Rejection = typeof Rejection.Type

/**
 * Tools whose parameter schemas strict mode cannot take without changing
 * what they accept. They are still sent, without `strict`; this error says
 * which and why, for a harness that wants strict mode or nothing.
 *
 * @since 0.1.0
 * @category errors
 */
export class StrictSchemaRejected extends Schema.TaggedError<StrictSchemaRejected>()("StrictSchemaRejected", {
  provider: Provider,
  rejections: Schema.NonEmptyArray(Rejection)
}) {
  override get message() {
    return `Strict mode (${labels[this.provider]}) cannot take these tool schemas: ${
      this.rejections.map((r) => `${r.tool} at ${r.path} (${r.keyword}): ${r.reason}`).join("; ")
    }.`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export type ProviderError = DecodeError | StrictSchemaRejected

/**
 * @since 0.1.0
 * @category guards
 */
export const isProviderError = (u: unknown): u is ProviderError =>
  Predicate.isTagged(u, "DecodeError") || Predicate.isTagged(u, "StrictSchemaRejected")

/**
 * Values from a payload are printed through this: a block type or a tool
 * name can be anything the model or a proxy produced.
 *
 * @since 0.1.0
 * @category formatting
 */
export const printable = (value: string): string => ToolError.printableName(value)

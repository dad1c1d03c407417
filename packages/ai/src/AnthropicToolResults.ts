/**
 * Tool results reach Anthropic as the text the runtime produced.
 *
 * `@effect/ai-anthropic` (0.27) writes every tool result into its
 * `tool_result` block as `JSON.stringify(result)`. That suits a result that
 * is a JSON value, but the runtime's results are text (redacted, truncated,
 * marked), and the stringified text is a JSON string literal: the model
 * reads quotes and escaped newlines instead of the text (`"There is no tool
 * named \"X\".\nDid you mean…"`). No value in the prompt can avoid it, as
 * `JSON.stringify` always yields JSON, so this module fixes it one step
 * later: the `AnthropicClient` it provides sends a `tool_result` whose
 * content is a JSON string literal as that string. Content holding any
 * other JSON (an object `@effect/ai` resolved itself) goes as it was.
 *
 * The `is_error` flag needs nothing: the provider sets it from the
 * result's `isFailure`, which the agent loop sets for every error result.
 *
 * Not part of the package's index: it needs `@effect/ai-anthropic`, which
 * only Anthropic users have. Import it as `@tool-runtime/ai/AnthropicToolResults`.
 *
 * ```ts
 * AnthropicLanguageModel.layer({ model }).pipe(
 *   Layer.provide(AnthropicToolResults.layer),
 *   Layer.provide(AnthropicClient.layer({ apiKey }))
 * )
 * ```
 *
 * @since 0.2.0
 */
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import type * as Generated from "@effect/ai-anthropic/Generated"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

type Messages = typeof Generated.BetaCreateMessageParams.Encoded["messages"]

const decodeStringLiteral = Schema.decodeUnknownOption(Schema.parseJson(Schema.String))

/**
 * The messages of a request with each `tool_result` whose content is a
 * JSON string literal holding that string instead.
 *
 * @since 0.2.0
 * @category conversion
 */
export const textContent = (messages: Messages): Messages =>
  messages.map((message) =>
    message.role !== "user" || typeof message.content === "string" ? message : {
      ...message,
      content: message.content.map((block) =>
        block.type === "tool_result" && typeof block.content === "string"
          ? { ...block, content: Option.getOrElse(decodeStringLiteral(block.content), () => block.content) }
          : block
      )
    }
  )

/**
 * The client in context, sending tool results as text; for messages and
 * streamed messages alike.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: Effect.Effect<AnthropicClient.Service, never, AnthropicClient.AnthropicClient> = Effect.map(
  AnthropicClient.AnthropicClient,
  (client) => ({
    ...client,
    createMessage: (options) =>
      client.createMessage({
        ...options,
        payload: { ...options.payload, messages: textContent(options.payload.messages) }
      }),
    createMessageStream: (options) =>
      client.createMessageStream({
        ...options,
        payload: { ...options.payload, messages: textContent(options.payload.messages) }
      })
  })
)

/**
 * Replaces the `AnthropicClient` it is given: provide it between
 * `AnthropicLanguageModel.layer` and `AnthropicClient.layer`.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer: Layer.Layer<AnthropicClient.AnthropicClient, never, AnthropicClient.AnthropicClient> = Layer
  .effect(AnthropicClient.AnthropicClient, make)

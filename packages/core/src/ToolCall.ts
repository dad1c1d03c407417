/**
 * A call the model made: an id that pairs it with its result, the name of
 * the tool, and the input, either as an already-parsed object (Anthropic's
 * `tool_use.input`) or as the raw JSON string (OpenAI's `arguments`).
 *
 * The runtime accepts calls straight from provider payloads, so nothing
 * about their shape is trusted: the parse stage checks every field.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category models
 */
export class ToolCall extends Schema.Class<ToolCall>("@tool-runtime/core/ToolCall")({
  id: Schema.String.annotations({ description: "Pairs the call with its result." }),
  name: Schema.String.annotations({ description: "The name of the tool, exactly as registered." }),
  input: Schema.Unknown.annotations({
    description: "The arguments: a JSON object, or a string holding one."
  }),
  truncated: Schema.optional(Schema.String).annotations({
    description:
      "Set by a provider codec when the response stopped in the middle of this call (the reason, e.g. max_tokens): the call is not run."
  })
}) {}

/**
 * What `runTurn` accepts: any value shaped like a call. Values that are not
 * (a missing id, a name that is not a string) become error results.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly id: string
  readonly name: string
  readonly input: unknown
  /**
   * Why the call was cut off before its end, when the provider says so (its
   * response stopped at the output limit in the middle of this call): such a
   * call is answered `truncated_arguments`, never run.
   *
   * @since 0.4.0
   */
  readonly truncated?: string | undefined
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (id: string, name: string, input: unknown): ToolCall =>
  new ToolCall({ id, name, input }, { disableValidation: true })

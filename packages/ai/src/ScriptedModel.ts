/**
 * A language model that plays a script: the n-th request gets the n-th
 * reply. It implements the same `LanguageModel.LanguageModel` service the
 * real providers implement (through `LanguageModel.make`, so requests and
 * replies are decoded the same way), so a demo or a test of an agent loop
 * runs offline and prints the same thing every time.
 *
 * A reply is a list of response parts, or a function of the request (its
 * prompt, the tools offered) for a script that reacts to what the tools
 * returned. A finish part is added when the reply has none: `tool-calls`
 * when it calls tools, `stop` otherwise.
 *
 * @since 0.1.0
 */
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

/**
 * @since 0.1.0
 * @category models
 */
export type Reply =
  | ReadonlyArray<Response.PartEncoded>
  | ((request: LanguageModel.ProviderOptions) => ReadonlyArray<Response.PartEncoded>)

/**
 * @since 0.1.0
 * @category constructors
 */
export const text = (text: string): Response.TextPartEncoded => ({ type: "text", text })

/**
 * @since 0.1.0
 * @category constructors
 */
export const toolCall = (id: string, name: string, params: unknown): Response.ToolCallPartEncoded => ({
  type: "tool-call",
  id,
  name,
  params
})

const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }

const withFinish = (parts: ReadonlyArray<Response.PartEncoded>): Array<Response.PartEncoded> =>
  parts.some((part) => part.type === "finish") ? [...parts] : [
    ...parts,
    {
      type: "finish",
      reason: parts.some((part) => part.type === "tool-call") ? "tool-calls" : "stop",
      usage
    }
  ]

/** The same reply as stream parts: text as start, delta and end. */
const toStream = (parts: ReadonlyArray<Response.PartEncoded>): Array<Response.StreamPartEncoded> =>
  parts.flatMap((part, i): Array<Response.StreamPartEncoded> =>
    part.type === "text"
      ? [
        { type: "text-start", id: `text-${i}` },
        { type: "text-delta", id: `text-${i}`, delta: part.text },
        { type: "text-end", id: `text-${i}` }
      ]
      : part.type === "tool-call" || part.type === "finish"
      ? [part]
      : []
  )

/**
 * The requests the model received, for tests and transcripts.
 *
 * @since 0.1.0
 * @category models
 */
export interface Recorded {
  readonly requests: ReadonlyArray<{ readonly prompt: Prompt.Prompt; readonly tools: ReadonlyArray<string> }>
}

/**
 * A scripted model. A request past the end of the script fails: a loop
 * that asks again after the script said `stop` is a bug worth seeing.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  script: ReadonlyArray<Reply>
): Effect.Effect<LanguageModel.Service & Recorded> =>
  Effect.gen(function*() {
    const requests: Array<Recorded["requests"][number]> = []
    const next = (request: LanguageModel.ProviderOptions, method: string) =>
      Effect.suspend(() => {
        const index = requests.length
        requests.push({ prompt: request.prompt, tools: request.tools.map((tool) => tool.name) })
        const reply = script[index]
        if (reply === undefined) {
          return Effect.fail(
            new AiError.UnknownError({
              module: "ScriptedModel",
              method,
              description: `the script has ${script.length} replies; request ${index + 1} has none`
            })
          )
        }
        return Effect.succeed(withFinish(typeof reply === "function" ? reply(request) : reply))
      })
    const service = yield* LanguageModel.make({
      generateText: (request) => next(request, "generateText"),
      streamText: (request) => Stream.fromIterableEffect(Effect.map(next(request, "streamText"), toStream))
    })
    return { ...service, requests }
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (script: ReadonlyArray<Reply>): Layer.Layer<LanguageModel.LanguageModel> =>
  Layer.effect(LanguageModel.LanguageModel, make(script))

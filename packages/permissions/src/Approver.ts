/**
 * The person who answers when a call needs approval. The engine asks only
 * for valid calls that no rule, hook or mode decided, one question at a
 * time, and shows what the call would do with its arguments redacted.
 *
 * The answer can allow the call once, allow it always (which stores exactly
 * the rules the prompt displayed, never wider ones), allow it with a
 * changed input (validated again and reported to the model), or deny it
 * with a message for the model, optionally stopping the turn. An approver
 * that cannot ask (no terminal, a closed input) fails with `Unavailable`,
 * which the engine turns into a denial that says so.
 *
 * @since 0.1.0
 */
import type * as Tool from "@tool-runtime/core/Tool"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"

/**
 * What the person is shown. Every string is already redacted.
 *
 * @since 0.1.0
 * @category models
 */
export interface Prompt {
  readonly callId: string
  readonly toolName: string
  readonly description: string
  readonly risk: Tool.Risk
  readonly readOnly: boolean
  /** The arguments as JSON, redacted and capped. */
  readonly input: string
  /** What the call acts on ("command: git push"), redacted, when the tool says. */
  readonly subject: string | undefined
  /** Why the call needs approval. */
  readonly reason: string
  /**
   * What "always allow" stores, exactly: one rule per command of a compound
   * command. Empty when "always allow" is not offered.
   */
  readonly rules: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export type Answer =
  | { readonly _tag: "AllowOnce" }
  | { readonly _tag: "AllowAlways" }
  | { readonly _tag: "AllowWithInput"; readonly input: unknown; readonly note?: string | undefined }
  | { readonly _tag: "Deny"; readonly message: string; readonly stopTurn?: boolean | undefined }

/**
 * @since 0.1.0
 * @category constructors
 */
export const allowOnce: Answer = { _tag: "AllowOnce" }

/**
 * @since 0.1.0
 * @category constructors
 */
export const allowAlways: Answer = { _tag: "AllowAlways" }

/**
 * @since 0.1.0
 * @category constructors
 */
export const allowWithInput = (input: unknown, note?: string): Answer => ({ _tag: "AllowWithInput", input, note })

/**
 * @since 0.1.0
 * @category constructors
 */
export const deny = (message: string, options?: { readonly stopTurn?: boolean | undefined }): Answer => ({
  _tag: "Deny",
  message,
  stopTurn: options?.stopTurn
})

/**
 * Nobody can be asked.
 *
 * @since 0.1.0
 * @category errors
 */
export class Unavailable extends Data.TaggedError("Unavailable")<{
  readonly reason: string
}> {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly ask: (prompt: Prompt) => Effect.Effect<Answer, Unavailable>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class Approver extends Context.Tag("@tool-runtime/permissions/Approver")<Approver, Service>() {}

/**
 * No one to ask: every question fails as `Unavailable`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const headless: Service = {
  ask: () => Effect.fail(new Unavailable({ reason: "no one is available to approve it (the session runs headless)" }))
}

/**
 * @since 0.1.0
 * @category layers
 */
export const layerHeadless: Layer.Layer<Approver> = Layer.succeed(Approver, headless)

/**
 * A scripted approver for tests and demos: `answer` is called with each
 * prompt and its index; `prompts` reads back what was asked.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeScripted = (
  answer: (prompt: Prompt, index: number) => Answer | Effect.Effect<Answer, Unavailable>
): Effect.Effect<{ readonly service: Service; readonly prompts: Effect.Effect<ReadonlyArray<Prompt>> }> =>
  Effect.map(Ref.make<ReadonlyArray<Prompt>>([]), (asked) => ({
    prompts: Ref.get(asked),
    service: {
      ask: (prompt) =>
        Effect.flatMap(Ref.modify(asked, (all) => [all.length, [...all, prompt]]), (index) => {
          const next = answer(prompt, index)
          return Effect.isEffect(next) ? next : Effect.succeed(next)
        })
    }
  }))

/**
 * Answers from a list, in order; past its end nobody is available.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerScripted = (answers: ReadonlyArray<Answer>): Layer.Layer<Approver> =>
  Layer.effect(
    Approver,
    Effect.map(
      makeScripted((_, index) =>
        answers[index] ?? Effect.fail(new Unavailable({ reason: "the scripted approver has no more answers" }))
      ),
      (scripted) => scripted.service
    )
  )

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
import * as ClientRequests from "@tool-runtime/core/ClientRequests"
import type * as Tool from "@tool-runtime/core/Tool"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
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

const decisions = {
  allow_once: "Allow once",
  allow_always: "Allow always",
  deny: "Deny"
} as const

/** The question as the client's user reads it: every part of the prompt is already redacted. */
const questionOf = (prompt: Prompt): string =>
  [
    `${prompt.toolName} needs your approval: ${prompt.reason}.`,
    prompt.subject,
    `Arguments: ${prompt.input}`,
    prompt.rules.length === 0 ? undefined : `"${decisions.allow_always}" stores: ${prompt.rules.join(", ")}`
  ].filter((line) => line !== undefined).join("\n")

/**
 * The user of the client that called the tool, asked through MCP
 * elicitation, for a runtime served over MCP (`McpServer` gives each call
 * the channel; see `ClientRequests.currentChannel`). The form offers
 * "Allow once", "Allow always" (only when the prompt has rules to store)
 * and "Deny", with a message for the model. A decline or a dismissed form
 * denies the call; an answer that is not one of the offered choices denies
 * it too. Where there is no such user (the turn is not served, or the
 * client cannot answer questions) `fallback` is asked, by default
 * {@link headless}: the call is denied and says why.
 *
 * @since 0.4.0
 * @category constructors
 */
export const client = (fallback: Service = headless): Service => ({
  ask: (prompt) =>
    Effect.flatMap(FiberRef.get(ClientRequests.currentChannel), (channel) => {
      const elicit = channel?.elicit
      if (elicit === undefined) return fallback.ask(prompt)
      const offered = prompt.rules.length === 0
        ? (["allow_once", "deny"] as const)
        : (["allow_once", "allow_always", "deny"] as const)
      return elicit({
        message: questionOf(prompt),
        requestedSchema: {
          type: "object",
          properties: {
            decision: {
              type: "string",
              title: "Decision",
              oneOf: offered.map((value) => ({ const: value, title: decisions[value] }))
            },
            message: { type: "string", title: "Why (told to the model when you deny)" }
          },
          required: ["decision"]
        }
      }).pipe(
        Effect.mapError((error) =>
          new Unavailable({
            reason: `the approval question could not be put to the client's user (${
              error instanceof Error ? error.message : "the request failed"
            })`
          })
        ),
        Effect.map((reply): Answer => {
          if (reply.action !== "accept") {
            return deny(
              reply.action === "decline"
                ? "The user declined to approve this call."
                : "The user dismissed the approval question."
            )
          }
          const content = (typeof reply.content === "object" && reply.content !== null ? reply.content : {}) as {
            readonly decision?: unknown
            readonly message?: unknown
          }
          const note = typeof content.message === "string" && content.message.trim() !== ""
            ? content.message.trim()
            : undefined
          if (content.decision === "allow_once") return allowOnce
          if (content.decision === "allow_always" && offered.length === 3) return allowAlways
          if (content.decision === "deny") return deny(note ?? "The user denied this call.")
          return deny("The client's answer to the approval question was not one of the choices offered.")
        })
      )
    })
})

/**
 * {@link client} as the approver.
 *
 * @since 0.4.0
 * @category layers
 */
export const layerClient = (fallback?: Service): Layer.Layer<Approver> => Layer.succeed(Approver, client(fallback))

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

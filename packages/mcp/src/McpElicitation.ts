/**
 * A server asking the user a question in the middle of a call
 * (`elicitation/create`, form mode): who answers it for our client.
 *
 * The client declares form elicitation with SEP-1034 defaults: when the
 * user accepts, every field left out that the server's schema gives a
 * `default` gets that default before the answer goes back. URL mode is not
 * declared, so the SDK refuses it.
 *
 * With no handler the answer is {@link headless}: declined, with the
 * reason in `_meta`, the way the permission stage denies what nobody can
 * approve. A handler that fails or dies counts as the user dismissing the
 * question (`cancel`), never as an error of the call; one the server
 * cancels is interrupted.
 *
 * @since 0.4.0
 */
import type { Client, ElicitResult } from "@modelcontextprotocol/client"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"

/**
 * @since 0.4.0
 * @category models
 */
export interface Request {
  /** The configured name of the server asking. */
  readonly server: string
  /** What the server asks, to show the user as it is: it comes from outside. */
  readonly message: string
  /** The JSON Schema of the answer: an object of plain fields. */
  readonly requestedSchema: Readonly<Record<string, unknown>>
}

/**
 * @since 0.4.0
 * @category models
 */
export type Answer =
  | {
    readonly action: "accept"
    readonly content: Readonly<Record<string, string | number | boolean | ReadonlyArray<string>>>
  }
  | { readonly action: "decline"; readonly reason?: string | undefined }
  | { readonly action: "cancel" }

/**
 * @since 0.4.0
 * @category models
 */
export type Handler = (request: Request) => Effect.Effect<Answer>

/**
 * The answer when nobody is there to ask.
 *
 * @since 0.4.0
 * @category handlers
 */
export const headless: Handler = (request) =>
  Effect.succeed({
    action: "decline",
    reason: `nobody can answer the question of MCP server "${request.server}": this client runs without a person`
  })

/**
 * What the client declares in its handshake.
 *
 * @since 0.4.0
 * @category capabilities
 */
export const capabilities = { elicitation: { form: { applyDefaults: true } } } as const

const toResult = (answer: Answer): ElicitResult => {
  switch (answer.action) {
    case "accept":
      return { action: "accept", content: { ...answer.content } as ElicitResult["content"] }
    case "decline":
      return {
        action: "decline",
        ...(answer.reason === undefined ? {} : { _meta: { "tool-runtime/reason": answer.reason } })
      }
    case "cancel":
      return { action: "cancel" }
  }
}

/**
 * Answers the server's `elicitation/create` requests on this client with
 * `handler`, run on `runtime`.
 *
 * @since 0.4.0
 * @category handlers
 */
export const install = (
  client: Client,
  server: string,
  handler: Handler,
  runtime: Runtime.Runtime<never>
): void => {
  client.setRequestHandler("elicitation/create", async (request, context) => {
    const params = request.params
    if (params.mode === "url" || !("requestedSchema" in params)) return { action: "decline" }
    const exit = await Runtime.runPromiseExit(runtime)(
      Effect.suspend(() =>
        handler({ server, message: params.message, requestedSchema: params.requestedSchema as Record<string, unknown> })
      ),
      { signal: context.mcpReq.signal }
    )
    if (Exit.isSuccess(exit)) return toResult(exit.value)
    // A handler that failed is a question dismissed; say nothing of why to the server.
    if (!Cause.isInterruptedOnly(exit.cause)) {
      await Runtime.runPromise(runtime)(
        Effect.logWarning("the elicitation handler failed; the question is dismissed", exit.cause).pipe(
          Effect.annotateLogs({ mcpServer: server })
        )
      )
    }
    return { action: "cancel" }
  })
}

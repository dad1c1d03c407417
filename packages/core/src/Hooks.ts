/**
 * Hooks after a call: code of the application's that sees what a tool
 * returned and may replace it or add to it before it is shaped (redacted,
 * truncated) for the model. Hooks before a call belong to the `Policy`: they
 * decide, like rules do, whether and with which input a call runs.
 *
 * The service is optional: a runtime without it runs no hooks. A hook that
 * fails (a `HookFailed`) or hangs (it must bound itself, see
 * `Hooks.withTimeout`) becomes an error result, never a crash.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Pipeline from "./Pipeline.js"
import type * as Tool from "./Tool.js"
import * as ToolError from "./ToolError.js"

/**
 * What an after-call hook sees.
 *
 * @since 0.1.0
 * @category models
 */
export interface AfterCall {
  readonly callId: string
  readonly tool: Tool.Any
  readonly input: unknown
  /** What the handler came to: its value, or the error it failed with. */
  readonly outcome: Pipeline.Outcome
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Returns the outcome to shape: the same one, a replaced one, or one with a note added. */
  readonly after: (call: AfterCall) => Effect.Effect<Pipeline.Outcome, ToolError.HookFailed>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class Hooks extends Context.Tag("@tool-runtime/core/Hooks")<Hooks, Service>() {}

/**
 * Bounds a hook: past `timeout` it is interrupted and fails as `HookFailed`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withTimeout = (
  hook: string,
  toolName: string,
  timeout: Duration.DurationInput,
  outcomeUnknown: boolean
) =>
<A>(self: Effect.Effect<A, ToolError.HookFailed>): Effect.Effect<A, ToolError.HookFailed> =>
  Effect.timeoutFail(self, {
    duration: timeout,
    onTimeout: () =>
      new ToolError.HookFailed({
        toolName,
        hook,
        reason: `it did not finish within ${Duration.format(Duration.decode(timeout))}`,
        outcomeUnknown
      })
  })

/**
 * The executable's entry point: wires the Node platform and the runtime that
 * sets the exit code. Everything else lives in `Cli.ts`.
 *
 * @since 0.1.0
 */
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Cli from "./Cli.js"

Cli.run(process.argv).pipe(
  // @effect/cli has already shown a usage error with its help text, and an
  // interrupt (Ctrl-C) needs no report; anything else is a bug worth seeing.
  Effect.tapErrorCause((cause) =>
    Cause.isInterruptedOnly(cause) || Option.exists(Cause.failureOption(cause), ValidationError.isValidationError)
      ? Effect.void
      : Effect.logError(cause)
  ),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: true })
)

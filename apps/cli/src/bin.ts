/**
 * The executable's entry point: wires the Node platform and the runtime,
 * with the exit codes of `Quit`. Everything else lives in `Cli.ts`.
 *
 * @since 0.1.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Cli from "./Cli.js"
import * as Quit from "./Quit.js"

Cli.run(process.argv).pipe(
  Effect.provide(NodeContext.layer),
  // `Cli.run` reports its own errors: one line for a user's mistake, the cause for a bug.
  NodeRuntime.runMain({ disableErrorReporting: true, teardown: Quit.teardown })
)

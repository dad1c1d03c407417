/**
 * The executable's entry point: wires the Node platform and the runtime,
 * with the exit codes of `Quit`. Everything else lives in `Cli.ts`.
 *
 * @since 0.1.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as V8 from "node:v8"
import * as Cli from "./Cli.js"
import * as Quit from "./Quit.js"

// The permission engine compiles the bash grammar (WebAssembly). V8's optimizing
// tier compiles it again in the background, and a process that exits before that
// ends waits for it: 1.3 s on every short command. The baseline compiler alone
// parses as fast for lines this short. Set before any WebAssembly is compiled.
V8.setFlagsFromString("--liftoff-only")

Cli.run(process.argv).pipe(
  Effect.provide(NodeContext.layer),
  // `Cli.run` reports its own errors: one line for a user's mistake, the cause for a bug.
  NodeRuntime.runMain({ disableErrorReporting: true, teardown: Quit.teardown })
)

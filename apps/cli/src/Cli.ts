/**
 * The command tree of the `tool-runtime` executable. Each command lives in
 * its own module under `commands/`; this module only assembles them, so
 * adding a command is one import and one entry.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Agent from "./commands/Agent.js"
import * as Code from "./commands/Code.js"
import * as Demo from "./commands/Demo.js"
import * as Permissions from "./commands/Permissions.js"

const root = Command.make("tool-runtime").pipe(
  Command.withDescription("Runs the tool calls an LLM emits through typed stages; every call yields one result."),
  Command.withSubcommands([Demo.command, Code.command, Permissions.command, Agent.command])
)

/**
 * Parses the arguments (the full `process.argv`) and runs the chosen command.
 *
 * @since 0.1.0
 * @category main
 */
export const run = Command.run(root, {
  name: "tool-runtime",
  // Kept by hand in step with package.json: importing JSON would pull the
  // manifest into the compiled program.
  version: "0.1.0"
})

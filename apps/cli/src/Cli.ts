/**
 * The command tree of the `tool-runtime` executable. Each command lives in
 * its own module under `commands/`; this module assembles them, so adding a
 * command is one import and one entry.
 *
 * It also owns what every command shares at the edge: the help pages
 * (rendered by `Help`, not by `@effect/cli`), and the rule that a user's
 * mistake (a bad flag, a missing file, a malformed message) ends with one
 * line on stderr and exit code 1, never with stack frames.
 *
 * @since 0.1.0
 */
import * as BuiltInOptions from "@effect/cli/BuiltInOptions"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import type * as HelpDoc from "@effect/cli/HelpDoc"
import type * as Usage from "@effect/cli/Usage"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "./CliError.js"
import * as Agent from "./commands/Agent.js"
import * as Cluster from "./commands/Cluster.js"
import * as Code from "./commands/Code.js"
import * as Demo from "./commands/Demo.js"
import * as Mcp from "./commands/Mcp.js"
import * as Permissions from "./commands/Permissions.js"
import * as Run from "./commands/Run.js"
import * as Serve from "./commands/Serve.js"
import * as Help from "./Help.js"
import * as Quit from "./Quit.js"

const app = {
  name: "tool-runtime",
  // Kept by hand in step with package.json: importing JSON would pull the
  // manifest into the compiled program.
  version: "0.5.0"
}

const config = CliConfig.defaultConfig

const printHelp = (usage: Usage.Usage, help: HelpDoc.HelpDoc) =>
  Effect.flatMap(Help.detect, (layout) => Console.log(Help.render(Help.page(app, usage, help, config), layout)))

// Typed by hand: the root's handler reads the root itself.
const rootHelp: Effect.Effect<void> = Effect.suspend(() =>
  printHelp(Command.getUsage(root), Command.getHelp(root, config))
)

const root = Command.make(app.name, {}, () => rootHelp).pipe(
  Command.withDescription("Runs the tool calls an LLM emits through typed stages; every call yields one result."),
  Command.withSubcommands([
    Demo.command,
    Run.command,
    Code.command,
    Permissions.command,
    Agent.command,
    Serve.command,
    Mcp.command,
    Cluster.command
  ])
)

/**
 * `@effect/cli` builds the message as "is not a " and the type's name.
 */
const validationMessage = (error: ValidationError.ValidationError): string =>
  Help.oneLine(error.error).replace(/\bis not a integer\b/g, "is not an integer")

/**
 * Parses the arguments (the full `process.argv`) and runs the chosen
 * command, or shows its help.
 *
 * The arguments are parsed here first, the way `Command.run` parses them,
 * so that help and parse errors are printed by this module: `Command.run`
 * would print its own renderings of both.
 */
const main = (argv: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const directive = yield* Descriptor.parse(root.descriptor, [app.name, ...argv.slice(2)], config)
    if (directive._tag === "BuiltIn" && BuiltInOptions.isShowHelp(directive.option)) {
      return yield* printHelp(directive.option.usage, directive.option.helpDoc)
    }
    if (directive._tag === "UserDefined" && directive.leftover.length > 0) {
      return yield* new CliError.CliError({ message: `Received unknown argument: '${directive.leftover[0]}'` })
    }
    return yield* Command.run(root, app)(argv)
  }).pipe(
    Effect.catchIf(
      ValidationError.isValidationError,
      (error) => Effect.fail(new CliError.CliError({ message: validationMessage(error) }))
    )
  )

/**
 * The program: the command, its error report, and the ways it can be
 * ended early (see `Quit`).
 *
 * @since 0.1.0
 * @category main
 */
export const run = (argv: ReadonlyArray<string>) =>
  main(argv).pipe(
    Effect.tapErrorCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.void
      const failure = Cause.failureOption(cause)
      // A user's mistake is one line; anything else is a bug worth seeing whole.
      return Option.isSome(failure) && CliError.isCliError(failure.value)
        ? CliError.report(failure.value)
        : Effect.logError(cause)
    }),
    Quit.run
  )

/**
 * A failure the person at the terminal caused and can fix: a missing or
 * malformed file, a bad flag value, a message of the wrong shape. It is
 * reported as one line on stderr (what is wrong, and where) and the program
 * exits with 1. Anything else that fails is a bug, and keeps its stack.
 *
 * @since 0.2.0
 */
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"

/**
 * @since 0.2.0
 * @category errors
 */
export class CliError extends Data.TaggedError("CliError")<{
  readonly message: string
}> {}

/**
 * @since 0.2.0
 * @category guards
 */
export const isCliError = (u: unknown): u is CliError => u instanceof CliError

/**
 * Folds a multi-line message (a heading, then one issue a line) into one
 * line: the heading, then the issues separated by semicolons.
 *
 * @since 0.2.0
 * @category formatting
 */
export const oneLine = (message: string): string => {
  const [heading = "", ...issues] = message.split("\n").map((line) => line.trim()).filter((line) => line !== "")
  return issues.length === 0 ? heading : `${heading} ${issues.join("; ")}`
}

/**
 * Prints the error as the program's last word.
 *
 * @since 0.2.0
 * @category reporting
 */
export const report = (error: CliError): Effect.Effect<void> => Console.error(`tool-runtime: ${oneLine(error.message)}`)

/**
 * Command-line options the commands share, built on `@effect/cli`'s
 * `Options` where its own fall short: a count that must be positive, a file
 * that must exist (with an error that names the option), and a default that
 * the help page shows (its help says only "This setting is optional." for a
 * default that is not an `Option`).
 *
 * @since 0.2.0
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"

const invalid = (message: string) => ValidationError.invalidValue(HelpDoc.p(message))

/**
 * An integer option that must be at least 1: a limit of 0 or -1 would be
 * accepted by `Options.integer` and then contradict itself.
 *
 * @since 0.2.0
 * @category constructors
 */
export const positiveInteger = (name: string): Options.Options<number> =>
  Options.integer(name).pipe(
    Options.mapEffect((n) =>
      n >= 1
        ? Effect.succeed(n)
        : Effect.fail(invalid(`--${name} must be a positive integer, got ${n}`))
    )
  )

/**
 * `Options.withDefault`, with the default written in the option's help.
 *
 * @since 0.2.0
 * @category combinators
 */
export const withDefault =
  <const B extends string | number>(fallback: B) => <A>(self: Options.Options<A>): Options.Options<A | B> =>
    self.pipe(Options.withDefault(fallback), Options.withDescription(`Default: ${fallback}`))

const checkFile = (name: string) => (path: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.stat(path)).pipe(
    Effect.matchEffect({
      onFailure: (error) =>
        Effect.fail(invalid(
          error._tag === "SystemError" && error.reason === "NotFound"
            ? `--${name} ${path}: no such file`
            : `--${name} ${path}: cannot be read (${error.message})`
        )),
      onSuccess: (info) =>
        info.type === "File" ? Effect.succeed(path) : Effect.fail(invalid(`--${name} ${path}: not a file`))
    })
  )

/**
 * A file that must exist when it is named: a typo in the name of a file of
 * rules must stop the program, not run it without the rules.
 *
 * @since 0.2.0
 * @category constructors
 */
export const existingFile = (name: string): Options.Options<string> =>
  Options.file(name).pipe(Options.mapEffect(checkFile(name)))

/**
 * {@link existingFile}, repeatable (`@effect/cli` cannot repeat a mapped option).
 *
 * @since 0.2.0
 * @category constructors
 */
export const existingFiles = (name: string): Options.Options<ReadonlyArray<string>> =>
  Options.file(name).pipe(Options.repeated, Options.mapEffect((paths) => Effect.forEach(paths, checkFile(name))))

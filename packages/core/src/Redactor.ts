/**
 * The redaction service the pipeline calls before anything is shown to the
 * model, stored, logged or traced. The engine and its catalogues of secret
 * formats and personal data live in `@tool-runtime/redact`, which has no
 * dependency and can clean any text on its own; this module is the seam:
 * the service tag, its layers (the default catalogue, or an application's
 * own rules and known secret values), and streaming over an Effect
 * `Stream`.
 *
 * @since 0.1.0
 */
import * as Redact from "@tool-runtime/redact/Redactor"
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"

/**
 * @since 0.1.0
 * @category models
 */
export type Redaction = Redact.Redaction

/**
 * An application's own rule: a regular expression gated by keywords (see
 * `@tool-runtime/redact`).
 *
 * @since 0.1.0
 * @category models
 */
export type Rule = Redact.Rule

/**
 * @since 0.2.0
 * @category models
 */
export type StreamRedactor = Redact.StreamRedactor

/**
 * @since 0.2.0
 * @category models
 */
export type StreamOptions = Redact.StreamOptions

/**
 * What the pipeline needs of a redactor: a whole-text `redact`, and a
 * streaming one that gives exactly the whole-text result whatever the
 * chunking. Any `@tool-runtime/redact` redactor is one.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly redact: (text: string) => Redaction
  /** A fresh streaming redactor with the same rules. */
  readonly stream: (options?: StreamOptions) => StreamRedactor
}

/**
 * @since 0.1.0
 * @category tags
 */
export class Redactor extends Context.Tag("@tool-runtime/core/Redactor")<Redactor, Service>() {}

/**
 * @since 0.2.0
 * @category models
 */
export interface Options extends Omit<Redact.Options, "secrets"> {
  /** The values of secrets the application knows: removed wherever they appear. */
  readonly secrets?: ReadonlyArray<Redacted.Redacted<string>> | undefined
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const marker: (id: string) => string = Redact.marker

/**
 * Builds a redactor from the default catalogues (or `options.rules`), the
 * application's extra rules and the values of secrets it knows.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Service =>
  Redact.make({ ...options, secrets: options?.secrets?.map((secret) => Redacted.value(secret)) })

/**
 * Redacts a stream of text chunks with a fresh streaming redactor, holding
 * back only what a secret split across chunks needs.
 *
 * @since 0.2.0
 * @category combinators
 */
export const redactStream =
  (redactor: Service, options?: StreamOptions) =>
  <E, R>(self: Stream.Stream<string, E, R>): Stream.Stream<string, E, R> =>
    Stream.suspend(() => {
      const streaming = redactor.stream(options)
      return self.pipe(
        Stream.map((chunk) => streaming.push(chunk).text),
        Stream.concat(Stream.sync(() => streaming.end().text)),
        Stream.filter((text) => text.length > 0)
      )
    })

/**
 * The built-in secret rules and all personal-data categories.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDefault: Layer.Layer<Redactor> = Layer.sync(Redactor, () => defaultRedactor ??= make())
// Compiled on first use and shared: the default has no options, so every runtime can use the same one.
let defaultRedactor: Service | undefined

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options | undefined): Layer.Layer<Redactor> => Layer.sync(Redactor, () => make(options))

/**
 * A tool is more than a function: besides the handler it records what the
 * runtime needs to run it safely (its parameter schema, whether it only
 * reads, how long it may run, how long it may stay silent, how much output
 * the model may see, how risky it is).
 *
 * Defaults are conservative: a tool is not read-only unless it says so (it
 * then runs alone), and it always has a finite timeout.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as ClientRequests from "./ClientRequests.js"
import type * as ResourceLocks from "./ResourceLocks.js"
import * as Subject from "./Subject.js"
import type * as ToolError from "./ToolError.js"
import type * as Truncation from "./Truncation.js"
import type * as Untrusted from "./Untrusted.js"

/**
 * How much harm a call can do; permission policies read it.
 *
 * @since 0.1.0
 * @category models
 */
export type Risk = "low" | "medium" | "high"

/**
 * What a running handler can tell the runtime. Both methods restart the
 * idle clock: a tool that reports is not stuck.
 *
 * @since 0.1.0
 * @category models
 */
export interface Context {
  readonly callId: string
  readonly toolName: string
  /**
   * The key this call's side effects can carry so the system they reach
   * applies them once (an `Idempotency-Key` header, a unique column): the
   * same for the same call sent again (same `sessionId` and `turnId` in the
   * turn's options, same call id), another for any other call. See
   * `IdempotencyKey`. Made on first read, by a getter: a copy of the
   * context made with a spread (`{ ...context }`) does not carry it.
   *
   * @since 0.5.0
   */
  readonly idempotencyKey: string
  /**
   * Which run of the call this is: 1, or more where a runtime runs a call
   * again after its first run was lost (a durable runtime retrying an
   * idempotent call: the key stays the same).
   *
   * @since 0.5.0
   */
  readonly attempt: number
  /**
   * Reports progress: a short message (redacted before anyone sees it), or
   * how far the work is (`{ progress: 3, total: 10 }`, with a message or
   * not). A number that is not finite and at least zero is dropped, the
   * rest of the report kept.
   */
  readonly progress: (update?: string | Progress) => Effect.Effect<void>
  /** Reports that output arrived; the text itself is not kept. */
  readonly output: (chunk: string) => Effect.Effect<void>
  /**
   * Asks the user a question whose answer `question.schema` decodes; without
   * a user to ask (the runtime's caller gave no channel) the answer is
   * `decline`, with the reason. See `ClientRequests`.
   */
  readonly elicit: <A, I>(question: ClientRequests.Question<A, I>) => Effect.Effect<ClientRequests.Answer<A>>
  /** Asks the client's model for a completion; fails with `SampleError` where there is none. */
  readonly sample: (
    request: ClientRequests.SampleRequest
  ) => Effect.Effect<ClientRequests.Sample, ClientRequests.SampleError>
}

/**
 * How far a running call is, as a handler reports it.
 *
 * @since 0.4.0
 * @category models
 */
export interface Progress {
  readonly message?: string | undefined
  /** Work done so far; MCP clients expect it to grow with each report. */
  readonly progress?: number | undefined
  /** Work in all, when known. */
  readonly total?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Tool<Name extends string, Input, Output, Failure, R> {
  readonly name: Name
  readonly description: string
  readonly parameters: Schema.Schema<Input, any>
  readonly readOnly: boolean
  /**
   * Whether running a call twice with the same `context.idempotencyKey`
   * does what running it once does.
   *
   * @since 0.5.0
   */
  readonly idempotent: boolean
  readonly timeoutMillis: number
  readonly idleTimeoutMillis: number | undefined
  /**
   * At most this many calls of the tool run at once, across every turn of
   * the runtime; `undefined` for no limit.
   *
   * @since 0.4.0
   */
  readonly maxConcurrent: number | undefined
  /**
   * At most `calls` calls of the tool start in any window of `perMillis`,
   * across every turn of the runtime; `undefined` for no rate.
   *
   * @since 0.4.0
   */
  readonly rate: Rate | undefined
  /**
   * The name its `maxConcurrent` and `rate` are counted under: its own name,
   * or a group it shares with other tools (one API behind several tools).
   *
   * @since 0.4.0
   */
  readonly limitGroup: string
  /** The most output the model sees, in `outputUnit`s. */
  readonly outputLimit: number
  readonly outputUnit: Truncation.Unit
  /** Overrides of the runtime's truncation defaults, in characters. */
  readonly truncation: TruncationOptions
  readonly risk: Risk
  /** Output from outside the system (web pages, mail, third-party servers). */
  readonly untrusted: boolean
  readonly untrustedMode: Untrusted.Mode
  readonly validate: ((input: Input) => Effect.Effect<void, ToolError.RuleViolation, R>) | undefined
  // Methods, not function properties: a registry holds tools of every type
  // as `Tool.Any`, which needs their parameters to be bivariant.
  handler(input: Input, context: Context): Effect.Effect<Output, Failure, R>
  /** Precompiled decoder: decoding runs on every call. */
  decode(input: unknown): Either.Either<Input, ParseResult.ParseError>
  /** Turns handler output into a JSON-ready value (through the success schema, when there is one). */
  encodeOutput(output: Output): Either.Either<unknown, ParseResult.ParseError>
  /** What a call touches (files, a job): calls that conflict on a resource never run at once. */
  resources(input: Input): ReadonlyArray<ResourceLocks.Resource>
  /** What a call acts on, for permission rules. */
  subject(input: Input): Subject.Subject
  /** How a call that ran was confined, shown in its result's `meta.sandbox`. */
  sandbox?(input: Input): string | undefined
  /** This call's total limit in milliseconds: `timeoutMillis`, or less when the call asks for less. */
  timeoutFor(input: Input): number
  /** The JSON Schema of the parameters, as the model is shown it. */
  readonly inputSchema: JSONSchema.JsonSchema7
  /**
   * The JSON Schema of the encoded output, when the tool has a `success`
   * schema (an MCP server offers it as the tool's `outputSchema`).
   */
  readonly outputSchema: JSONSchema.JsonSchema7 | undefined
  /**
   * Whether a JSON value is an output the `success` schema encodes to: a
   * redacted output may no longer be one. `false` without a `success` schema.
   */
  isEncodedOutput(json: unknown): boolean
}

/**
 * A tool's rate, as the runtime keeps it.
 *
 * @since 0.4.0
 * @category models
 */
export interface Rate {
  readonly calls: number
  readonly perMillis: number
  /**
   * What a call over the rate does: `wait` for its turn within its own time
   * limit (and is answered `rate_limited` at once when that is not enough),
   * or `reject`: answered `rate_limited` at once. Either answer says when
   * to try again, and the call never ran.
   */
  readonly whenLimited: "wait" | "reject"
}

/**
 * How a tool's output is cut when it is over the limit.
 *
 * @since 0.1.0
 * @category models
 */
export interface TruncationOptions {
  /**
   * What a truncated success keeps: its start (default), its end (a
   * command's summary line), or both. A failure always keeps both.
   */
  readonly success?: "head" | "tail" | "head-tail" | undefined
  /** Characters of a truncated success shown before the marker. */
  readonly previewChars?: number | undefined
  /** Characters of a truncated failure kept, head and tail together. */
  readonly failureKeepChars?: number | undefined
  /** Share of the kept failure that goes to its head (the rest to its tail). Default 0.3. */
  readonly headShare?: number | undefined
}

/**
 * A tool of any type, as the registry holds it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Any extends Tool<string, any, any, any, any> {}

/**
 * The services a tool's handler and rule check need.
 *
 * @since 0.1.0
 * @category type-level
 */
export type Requirements<T> = T extends Tool<any, any, any, any, infer R> ? R : never

/**
 * Conservative defaults.
 *
 * @since 0.1.0
 * @category defaults
 */
export const defaults = {
  readOnly: false,
  timeout: Duration.seconds(60),
  outputLimit: 30_000
} as const

/**
 * @since 0.1.0
 * @category constructors
 */
export interface Options<Input, Output, Failure, R, R2> {
  readonly description: string
  readonly readOnly?: boolean | undefined
  /**
   * The tool's effects happen once however many times a call runs with the
   * same `context.idempotencyKey` (it passes the key on, or its effect is
   * the same each time: a file written with the same content). A promise the
   * tool makes, not something the runtime checks: a runtime that can retry
   * (a runner that died, on `@tool-runtime/cluster`) retries such a call
   * with the same key, where it reports any other write's outcome as
   * unknown. MCP clients see it as `idempotentHint`. Default: `true` for
   * read-only tools, `false` for the rest.
   *
   * @since 0.5.0
   */
  readonly idempotent?: boolean | undefined
  /** Total time limit. Default 60 s. */
  readonly timeout?: Duration.DurationInput | undefined
  /**
   * A call's own limit, from its input (a command's `timeout_ms`). It can
   * shorten the tool's `timeout`, never lengthen it.
   */
  readonly timeoutFor?: ((input: Input) => Duration.DurationInput | undefined) | undefined
  /** Longest silence (no progress, no output) before the call counts as stuck. Default: none. */
  readonly idleTimeout?: Duration.DurationInput | undefined
  /**
   * At most this many calls of the tool at once, across every turn of the
   * runtime (an API that allows two connections, a build that must not run
   * beside itself): a positive whole number (the registry refuses any
   * other). A call over the limit waits for a slot at most as long as its
   * own time limit; one that gets none is answered `not_executed`, never
   * run. The wait comes before the call's deadline starts, so a call that
   * waited and then ran can take up to twice its `timeout` in all.
   * Default: no limit.
   */
  readonly maxConcurrent?: number | undefined
  /**
   * At most `calls` calls start in any window of `per` (`{ calls: 10, per:
   * "1 minute" }`), across every turn of the runtime: an API with a quota. A
   * call over the rate waits for its turn within its own time limit, or,
   * with `whenLimited: "reject"`, is answered at once; either way a call
   * that cannot start in time is answered `rate_limited` with
   * `retryAfterMillis`, never run. Default: no rate.
   */
  readonly rate?: {
    readonly calls: number
    readonly per: Duration.DurationInput
    readonly whenLimited?: "wait" | "reject" | undefined
  } | undefined
  /**
   * Counts `maxConcurrent` and `rate` under this name instead of the tool's
   * own, shared with every tool that gives the same one: several tools in
   * front of one API share its quota. Tools of one group must declare the
   * same limits (the registry refuses them otherwise). Default: the tool's name.
   */
  readonly limitGroup?: string | undefined
  /** Output the model may see: characters, or approximate tokens. Default 30,000 characters. */
  readonly outputLimit?: number | { readonly tokens: number } | undefined
  readonly truncation?: TruncationOptions | undefined
  /** Default: `low` for read-only tools, `medium` otherwise. */
  readonly risk?: Risk | undefined
  /**
   * Output from outside the system: marked as untrusted, with hidden characters removed.
   * `"datamark"` also marks every word of it.
   */
  readonly untrusted?: boolean | Untrusted.Mode | undefined
  /** Encodes the handler's output before it is serialized. */
  readonly success?: Schema.Schema<Output, any> | undefined
  /**
   * The resources a call touches, from its decoded input (`ResourceLocks.writes(path)`).
   * Writers of one resource never run at once; readers wait for a writer.
   */
  readonly resources?: ((input: Input) => ReadonlyArray<ResourceLocks.Resource>) | undefined
  /** What a call acts on (a command, a path, a URL), for permission rules such as `Edit(src/**)`. */
  readonly subject?: ((input: Input) => Subject.Subject) | undefined
  /**
   * For a tool that runs commands in an OS sandbox: how a call is confined,
   * one line (`sandbox: read-only (bubblewrap), network off`), recorded in
   * the result's `meta.sandbox` of every call that ran.
   */
  readonly sandbox?: ((input: Input) => string | undefined) | undefined
  /**
   * The JSON Schema the model is shown, when it cannot be derived from
   * `parameters`: a tool whose schema comes from elsewhere (an MCP server,
   * another library) validates with a Schema of its own and shows the
   * original. Default: derived from `parameters`.
   */
  readonly inputSchema?: JSONSchema.JsonSchema7 | undefined
  /** Business rules the schema cannot express; runs after decoding, before authorization. */
  readonly validate?: ((input: Input) => Effect.Effect<void, ToolError.RuleViolation, R2>) | undefined
  /**
   * Runs the call. A string is shown as it is, other values as
   * deterministic JSON; nothing (`Effect.void`) is a success the model reads
   * as "(no output)". A symbol, a function, a value nested deeper than 256
   * levels or one that throws when read is a `tool_defect`: it cannot be
   * shown to the model.
   */
  readonly handler: (input: Input, context: Context) => Effect.Effect<Output, Failure, R>
}

type ParametersInput = Schema.Schema<any, any> | Schema.Struct.Fields

type ParametersType<P> = P extends Schema.Schema<infer A, any> ? A
  : P extends Schema.Struct.Fields ? Schema.Struct.Type<P>
  : never

const identity = Either.right
// Shared answers for tools that declare nothing: no allocation per call.
const noResources: ReadonlyArray<ResourceLocks.Resource> = []
const none = () => noResources
const noSubject = () => Subject.none

/**
 * Defines a tool. `parameters` is a Schema (or the fields of a struct); it
 * validates the model's arguments and is what the model is shown.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <
  const Name extends string,
  const P extends ParametersInput,
  Output,
  Failure = never,
  R = never,
  R2 = never
>(
  name: Name,
  options: Options<ParametersType<P>, Output, Failure, R, R2> & { readonly parameters: P }
): Tool<Name, ParametersType<P>, Output, Failure, R | R2> => {
  const parameters = (Schema.isSchema(options.parameters)
    ? options.parameters
    : Object.keys(options.parameters).length === 0
    // `Schema.Struct({})` means "any non-null value": a tool without
    // parameters takes exactly an empty object.
    ? Schema.Struct({}, Schema.Record({ key: Schema.String, value: Schema.Never }))
    : Schema.Struct(options.parameters as Schema.Struct.Fields)) as unknown as Schema.Schema<
      ParametersType<P>,
      any
    >
  const readOnly = options.readOnly ?? defaults.readOnly
  const timeoutMillis = Duration.toMillis(options.timeout ?? defaults.timeout)
  const requested = options.timeoutFor
  let inputSchema: JSONSchema.JsonSchema7 | undefined = options.inputSchema
  const success = options.success
  let outputSchema: JSONSchema.JsonSchema7 | undefined
  let isEncodedOutput: ((u: unknown) => boolean) | undefined
  return {
    name,
    description: options.description,
    parameters,
    readOnly,
    idempotent: options.idempotent ?? readOnly,
    timeoutMillis,
    timeoutFor: requested === undefined ? () => timeoutMillis : (input: ParametersType<P>) => {
      const asked = requested(input)
      return asked === undefined ? timeoutMillis : Math.min(timeoutMillis, Duration.toMillis(asked))
    },
    idleTimeoutMillis: options.idleTimeout === undefined ? undefined : Duration.toMillis(options.idleTimeout),
    maxConcurrent: options.maxConcurrent,
    rate: options.rate === undefined ? undefined : {
      calls: options.rate.calls,
      perMillis: Duration.toMillis(options.rate.per),
      whenLimited: options.rate.whenLimited ?? "wait"
    },
    limitGroup: options.limitGroup ?? name,
    outputLimit: typeof options.outputLimit === "object"
      ? options.outputLimit.tokens
      : options.outputLimit ?? defaults.outputLimit,
    outputUnit: typeof options.outputLimit === "object" ? "tokens" : "chars",
    truncation: options.truncation ?? {},
    risk: options.risk ?? (readOnly ? "low" : "medium"),
    untrusted: options.untrusted !== undefined && options.untrusted !== false,
    untrustedMode: options.untrusted === "datamark" ? "datamark" : "wrap",
    validate: options.validate,
    handler: options.handler,
    // Excess keys are errors: a model that sends a parameter the tool does
    // not have believes it had an effect, and should learn otherwise.
    decode: Schema.decodeUnknownEither(parameters, { errors: "all", onExcessProperty: "error" }),
    encodeOutput: success === undefined ? identity : Schema.encodeEither(success),
    resources: options.resources ?? none,
    subject: options.subject ?? noSubject,
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
    get inputSchema() {
      if (inputSchema === undefined) {
        const { $schema: _, ...schema } = JSONSchema.make(parameters)
        inputSchema = schema
      }
      return inputSchema
    },
    get outputSchema() {
      if (success === undefined) return undefined
      if (outputSchema === undefined) {
        const { $schema: _, ...schema } = JSONSchema.make(success)
        outputSchema = schema
      }
      return outputSchema
    },
    isEncodedOutput(json: unknown) {
      if (success === undefined) return false
      // Refinements on the encoded side (a pattern) are part of the promise; excess keys break it.
      isEncodedOutput ??= Schema.is(Schema.encodedBoundSchema(success), { onExcessProperty: "error" })
      return isEncodedOutput(json)
    }
  } as Tool<Name, ParametersType<P>, Output, Failure, R | R2>
}

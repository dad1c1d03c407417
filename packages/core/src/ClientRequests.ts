/**
 * What a running handler may ask of whoever drives the runtime: a question
 * to the user (MCP's elicitation, form mode) or a completion from the
 * client's model (MCP's sampling). The handler sees `context.elicit` and
 * `context.sample`; the runtime's caller supplies the {@link Channel} per
 * turn (`runCall(call, { client })`), as `McpServer` does for each
 * `tools/call` of a client that declared the capability.
 *
 * Nothing here can hang or crash a call: without a channel a question is
 * declined and a sample fails with a reason the handler can report; an
 * answer that does not match the question's schema is a cancel with the
 * reason, never a value of the wrong shape; the total time limit of the call
 * still holds while the user thinks, and the idle limit does not run out
 * while the call waits for them (a human reading a form is not a stuck
 * tool). The question's text goes through the runtime's redaction first:
 * a message built from data must not show the user a secret.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import { globalValue } from "effect/GlobalValue"
import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * A question for the user. `schema` is a struct of primitive fields
 * (strings, numbers, booleans, literals): what a client can show as a
 * form. The JSON Schema the client sees is derived from it, with titles,
 * descriptions and defaults from its annotations, unless `requestedSchema`
 * gives one (for forms the derivation cannot express, such as titled
 * enums); the answer is decoded with `schema` either way.
 *
 * @since 0.4.0
 * @category models
 */
export interface Question<A, I> {
  readonly message: string
  readonly schema: Schema.Schema<A, I>
  readonly requestedSchema?: RequestedSchema | undefined
  /**
   * What the question is called where a protocol names it: its key in an
   * MCP 2026-07-28 `input_required` result (`"confirm"`, `"user_name"`).
   * Default: one the channel makes up (`q1`, `q2`…).
   */
  readonly key?: string | undefined
}

/**
 * The form as MCP sends it: a flat object schema.
 *
 * @since 0.4.0
 * @category models
 */
export interface RequestedSchema {
  readonly type: "object"
  readonly properties: { readonly [field: string]: object }
  readonly required?: ReadonlyArray<string> | undefined
}

/**
 * The user's answer. Only `accept` carries content, already decoded.
 *
 * @since 0.4.0
 * @category models
 */
export type Answer<A> =
  | { readonly action: "accept"; readonly content: A }
  | { readonly action: "decline" | "cancel"; readonly reason?: string | undefined }

/**
 * A request for a completion by the client's model.
 *
 * @since 0.4.0
 * @category models
 */
export interface SampleRequest {
  readonly messages: ReadonlyArray<{ readonly role: "user" | "assistant"; readonly text: string }>
  readonly maxTokens: number
  /** As a question's `key`. */
  readonly key?: string | undefined
  readonly systemPrompt?: string | undefined
  readonly temperature?: number | undefined
}

/**
 * @since 0.4.0
 * @category models
 */
export interface Sample {
  readonly text: string
  readonly model: string
  readonly stopReason?: string | undefined
}

/**
 * The client's model could not be asked, or did not answer.
 *
 * @since 0.4.0
 * @category errors
 */
export class SampleError extends Schema.TaggedError<SampleError>()("SampleError", {
  reason: Schema.String
}) {
  override get message() {
    return `The client's model could not be asked: ${this.reason}`
  }
}

/**
 * What the runtime's caller supplies to reach the user and the client's
 * model, as raw protocol values; either may be absent. Failures of these
 * effects are reported to the handler as a cancel (a question) or a
 * `SampleError` (a sample), with the failure's message.
 *
 * @since 0.4.0
 * @category models
 */
export interface Channel {
  readonly elicit?:
    | ((
      request: {
        readonly message: string
        readonly requestedSchema: RequestedSchema
        readonly key?: string | undefined
      }
    ) => Effect.Effect<
      { readonly action: string; readonly content?: unknown },
      unknown
    >)
    | undefined
  readonly sample?: ((request: SampleRequest) => Effect.Effect<Sample, unknown>) | undefined
}

/**
 * Runs an effect with the call's idle clock stopped (see `Watchdog.hold`).
 *
 * @since 0.4.0
 * @category models
 */
export type Hold = <X, E>(effect: Effect.Effect<X, E>) => Effect.Effect<X, E>

/**
 * The turn's channel, for the stages before a handler runs: the permission
 * stage's approver reads it to put its question to the client's user
 * (`Approver.client` in `@tool-runtime/permissions`). Set by the runtime for
 * the length of a turn given `{ client }`.
 *
 * @since 0.4.0
 * @category fiber refs
 */
export const currentChannel: FiberRef.FiberRef<Channel | undefined> = globalValue(
  Symbol.for("@tool-runtime/core/ClientRequests/currentChannel"),
  () => FiberRef.unsafeMake<Channel | undefined>(undefined)
)

const reasonOf = (error: unknown): string => {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return "an error that cannot be shown"
  }
}

/**
 * The JSON Schema a client sees for a question: the properties and
 * required fields of the struct's derived schema. A form holds no
 * references, so where a schema carries an `identifier` annotation (which
 * the derivation turns into a `$ref` to `$defs`), the definition is put in
 * its place.
 * A schema that is not a struct is a bug of the handler that asks, so it is
 * a defect, not a question a user could answer.
 *
 * @since 0.4.0
 * @category forms
 */
export const requestedSchemaOf = <A, I>(schema: Schema.Schema<A, I>): RequestedSchema => {
  const made = JSONSchema.make(schema) as unknown as Record<string, unknown>
  const defs = (typeof made.$defs === "object" && made.$defs !== null ? made.$defs : {}) as Record<string, unknown>
  const resolve = (node: unknown, depth = 0): Record<string, unknown> => {
    const record = (typeof node === "object" && node !== null ? node : {}) as Record<string, unknown>
    const ref = record.$ref
    if (typeof ref !== "string" || !ref.startsWith("#/$defs/") || depth > 8) return record
    const { $ref: _, ...rest } = record
    return {
      ...resolve(defs[ref.slice("#/$defs/".length).replace(/~1/g, "/").replace(/~0/g, "~")], depth + 1),
      ...rest
    }
  }
  const derived = resolve(made)
  if (derived.type !== "object" || typeof derived.properties !== "object" || derived.properties === null) {
    throw new Error("A question's schema must be a struct of primitive fields (Schema.Struct)")
  }
  const properties = Object.fromEntries(
    Object.entries(derived.properties as Record<string, unknown>).map(([name, field]) => [name, resolve(field)])
  )
  const required = Array.isArray(derived.required) ? derived.required as ReadonlyArray<string> : []
  return {
    type: "object",
    properties: properties as RequestedSchema["properties"],
    ...(required.length === 0 ? {} : { required })
  }
}

/**
 * The words of a form a person reads (titles, descriptions, defaults, the
 * names shown for choices) redacted; the values an answer must match
 * (`enum`, `const`) are never among them, and stay as they are.
 */
const redactedSchema = (schema: RequestedSchema, redact: (text: string) => string): RequestedSchema => {
  const shown = new Set(["title", "description", "default"])
  const walk = (node: unknown, depth: number): unknown => {
    if (depth > 32 || typeof node !== "object" || node === null) return node
    if (Array.isArray(node)) return node.map((item) => walk(item, depth + 1))
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => {
        if (shown.has(key) && typeof value === "string") return [key, redact(value)]
        if (key === "enumNames" && Array.isArray(value)) {
          return [key, value.map((name) => typeof name === "string" ? redact(name) : name)]
        }
        return [key, walk(value, depth + 1)]
      })
    )
  }
  return walk(schema, 0) as RequestedSchema
}

/**
 * `context.elicit` for a call: see the module documentation. `hold` runs
 * an effect with the call's idle clock stopped; `redact` is the runtime's.
 * Called only when a handler asks, so a call that asks nothing pays nothing.
 *
 * @since 0.4.0
 * @category constructors
 */
export const elicit = <A, I>(
  channel: Channel | undefined,
  question: Question<A, I>,
  redact: (text: string) => string,
  hold: Hold
): Effect.Effect<Answer<A>> =>
  Effect.suspend(() => {
    const ask = channel?.elicit
    if (ask === undefined) {
      return Effect.succeed<Answer<A>>({
        action: "decline",
        reason: "no user can be asked: the runtime is not serving a client that answers questions (MCP elicitation)"
      })
    }
    const requestedSchema = redactedSchema(question.requestedSchema ?? requestedSchemaOf(question.schema), redact)
    const decode = Schema.decodeUnknownEither(question.schema, { errors: "all", onExcessProperty: "ignore" })
    return hold(ask({
      message: redact(String(question.message)),
      requestedSchema,
      ...(question.key === undefined ? {} : { key: String(question.key) })
    })).pipe(
      Effect.map((reply): Answer<A> => {
        if (reply.action === "decline" || reply.action === "cancel") return { action: reply.action }
        if (reply.action !== "accept") return { action: "cancel", reason: `the client answered "${reply.action}"` }
        const decoded = decode(reply.content ?? {})
        return Either.isRight(decoded)
          ? { action: "accept", content: decoded.right }
          : {
            action: "cancel",
            reason: `the answer did not match the question: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`
          }
      }),
      Effect.catchAll((error) =>
        Effect.succeed<Answer<A>>({ action: "cancel", reason: `the question could not be asked: ${reasonOf(error)}` })
      )
    )
  })

/**
 * `context.sample` for a call: see the module documentation.
 *
 * @since 0.4.0
 * @category constructors
 */
export const sample = (
  channel: Channel | undefined,
  request: SampleRequest,
  hold: Hold,
  redact: (text: string) => string
): Effect.Effect<Sample, SampleError> =>
  Effect.suspend(() => {
    const lend = channel?.sample
    if (lend === undefined) {
      return Effect.fail(
        new SampleError({ reason: "the runtime is not serving a client that lends its model (MCP sampling)" })
      )
    }
    // What goes to the client's model leaves the runtime as a result does: redacted.
    const redacted: SampleRequest = {
      ...request,
      messages: request.messages.map((message) => ({ role: message.role, text: redact(String(message.text)) })),
      ...(request.systemPrompt === undefined ? {} : { systemPrompt: redact(String(request.systemPrompt)) })
    }
    return hold(lend(redacted)).pipe(Effect.mapError((error) => new SampleError({ reason: reasonOf(error) })))
  })

/**
 * The vocabulary the provider codecs share: what decoding a payload yields,
 * what a result read back from a payload looks like, and how an untyped
 * payload is read.
 *
 * Payloads are read field by field rather than decoded whole with a Schema:
 * one broken block must not cost the calls next to it their results. The
 * field names are still checked at compile time: `Wire.fields<T>()` only
 * accepts keys of `T`, one of this package's wire types (`AnthropicWire`,
 * `OpenAIResponsesWire`, `OpenAIChatWire`, `GeminiWire`, `McpWire`), which a
 * conformance test holds to the provider SDK's own types; a misspelt field
 * fails `tsc -b`.
 *
 * @since 0.1.0
 */
import type * as ToolCall from "@tool-runtime/core/ToolCall"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import type * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as ProviderError from "./ProviderError.js"

/**
 * What decoding a provider payload yields: every call that could be
 * identified, in payload order, ready for `runTurn`, and an error listing
 * what could not be identified. When `error` is set the payload was
 * malformed: the calls still need their results, and the harness must
 * decide what to do about the rest before replying to the provider.
 *
 * Calls are passed on as the provider sent them. A repeated id, arguments
 * that are not JSON or not an object, a missing tool name: the core runtime
 * answers each with an error result paired to the call's id
 * (`duplicate_call_id`, `malformed_arguments`, `invalid_input`,
 * `malformed_call`), so the model learns what was wrong. A call the response
 * stopped in (the output limit: `max_tokens`, `length`, `incomplete`,
 * `MAX_TOKENS`) is marked `truncated` and answered `truncated_arguments`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Decoded {
  readonly calls: ReadonlyArray<ToolCall.Input>
  readonly error: ProviderError.DecodeError | undefined
}

/**
 * A result as read back from a provider payload, for checks and round
 * trips. `isError` is `undefined` where the format has no error flag.
 *
 * @since 0.1.0
 * @category models
 */
export interface Returned {
  readonly callId: string
  readonly content: ReadonlyArray<ToolResult.ContentBlock>
  readonly isError: boolean | undefined
}

/**
 * Reads a field of an untyped record under a name the wire type `T` has.
 *
 * @since 0.1.0
 * @category models
 */
export type Fields<T> = <K extends keyof T & string>(record: Readonly<Record<string, unknown>>, key: K) => unknown

/**
 * @since 0.1.0
 * @category constructors
 */
export const fields = <T>(): Fields<T> => (record, key) => Object.hasOwn(record, key) ? record[key] : undefined

/**
 * @since 0.1.0
 * @category guards
 */
export const isRecord: (u: unknown) => u is Readonly<Record<string, unknown>> = Predicate.isRecord

/**
 * An id a result can be paired with.
 *
 * @since 0.1.0
 * @category guards
 */
export const isId = (u: unknown): u is string => typeof u === "string" && u.length > 0

/**
 * What kind of value this is, for a message that must not quote it.
 *
 * @since 0.1.0
 * @category formatting
 */
export const kindOf = (u: unknown): string =>
  u === null ? "null" : Array.isArray(u) ? "an array" : u === undefined ? "nothing" : `a ${typeof u}`

/**
 * @since 0.1.0
 * @category parsing
 */
export const parseJson = (text: string): Either.Either<unknown, unknown> => Either.try(() => JSON.parse(text))

/**
 * Looks a block type up in a table without reaching inherited properties
 * (`__proto__`, `toString`) a hostile payload may name.
 *
 * @since 0.1.0
 * @category parsing
 */
export const lookup = <K extends string, V>(table: Readonly<Record<K, V>>, key: string): V | undefined =>
  Object.hasOwn(table, key) ? table[key as K] : undefined

/**
 * A tool's input schema as an object schema, which every provider requires
 * at the root. A tool declared with no parameters (`parameters: {}`) has the
 * JSON Schema Effect gives `Schema.Struct({})`, "an object or an array",
 * which is read as what it means for a tool: no parameters. (The core only
 * runs calls whose input is an object.)
 *
 * @since 0.1.0
 * @category parsing
 */
export const objectSchema = (schema: object): Record<string, unknown> => {
  const record = schema as Record<string, unknown>
  const anyOf = record.anyOf
  const noParameters = Array.isArray(anyOf) && anyOf.length === 2 &&
    anyOf.every((branch) => isRecord(branch) && Object.keys(branch).length === 1) &&
    anyOf.some((branch) => branch.type === "object") && anyOf.some((branch) => branch.type === "array")
  if (noParameters) {
    const kept = Object.entries(record).filter(([key]) => key === "title" || key === "description")
    return { ...Object.fromEntries(kept), type: "object", properties: {} }
  }
  return { ...record, type: "object" }
}

/**
 * Collects calls and issues while a payload is read.
 *
 * @since 0.1.0
 * @category constructors
 */
export class Collector {
  readonly calls: Array<ToolCall.Input> = []
  readonly issues: Array<ProviderError.Issue> = []
  constructor(readonly provider: ProviderError.Provider) {}

  call(id: string, name: unknown, input: unknown): void {
    // A missing name is the core's to answer (`malformed_call`, paired by id).
    this.calls.push({ id, name: typeof name === "string" ? name : "", input })
  }

  issue(path: string, problem: string): void {
    this.issues.push({ path, problem })
  }

  /**
   * The response stopped in the middle of the last call read (its provider
   * says why, as `reason`): that call is answered `truncated_arguments`,
   * never run.
   */
  cutLast(reason: string): void {
    const last = this.calls.at(-1)
    if (last !== undefined) this.calls[this.calls.length - 1] = { ...last, truncated: reason }
  }

  /** Reads a list of items, reporting a payload that is not one. */
  items(value: unknown, path: string, each: (item: Readonly<Record<string, unknown>>, path: string) => void): void {
    if (!Array.isArray(value)) {
      this.issue(path, `expected an array, got ${kindOf(value)}`)
      return
    }
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const at = `${path}[${i}]`
      if (isRecord(item)) each(item, at)
      else this.issue(at, `expected an object, got ${kindOf(item)}`)
    }
  }

  get error(): ProviderError.DecodeError | undefined {
    const [first, ...rest] = this.issues
    return first === undefined ? undefined : new ProviderError.DecodeError({
      provider: this.provider,
      issues: [first, ...rest]
    })
  }

  done(): Decoded {
    return { calls: this.calls, error: this.error }
  }
}

/**
 * The problem reported for a block of a type this package does not know.
 * Skipping it could leave a call without its result, which the provider
 * rejects on the next request, so it is reported instead.
 *
 * @since 0.1.0
 * @category formatting
 */
export const unknownType = (type: string): string =>
  `unknown block type "${
    ProviderError.printable(type)
  }": it may be a call that needs a result, which this runtime cannot give`

/**
 * The problem reported for a call that has no id.
 *
 * @since 0.1.0
 * @category formatting
 */
export const missingId = (field: string): string =>
  `the call has no ${field}, so no result can be paired with it; it was not run`

/**
 * The problem reported for a kind of call the runtime does not run
 * (a custom tool, a computer-use action): it needs an answer of its own kind.
 *
 * @since 0.1.0
 * @category formatting
 */
export const unanswerable = (type: string): string =>
  `a "${
    ProviderError.printable(type)
  }" item needs an answer of its own kind, which this runtime does not give; answer it before replying`

/**
 * OpenAI's `parallel_tool_calls: false` (both APIs) runs the calls one at a time.
 *
 * @since 0.1.0
 * @category options
 */
export const parallelToolCalls = (
  request: { readonly parallel_tool_calls?: boolean | null | undefined }
): ToolRuntime.TurnOptions => request.parallel_tool_calls === false ? { parallel: false } : {}

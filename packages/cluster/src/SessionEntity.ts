/**
 * The session as the cluster's unit of placement: one `ToolSession` entity
 * per session id, living on one runner at a time, running that session's
 * turns one after another (`concurrency: 1`) on core's runtime made durable
 * by the call journal.
 *
 * A turn travels as a `RunTurn` message keyed by its turn id and persisted
 * in the cluster's message storage: a runner that dies with a turn under
 * way leaves the message unanswered, and the runner that takes the session
 * over receives it again. Running it again is what the journal makes safe:
 * a call whose result is recorded is replayed, a read runs again, an
 * idempotent call is retried with its key, any other call that had started
 * is `outcome_unknown`. A turn sent again once it is answered gets the
 * recorded answer from the message storage without reaching a handler.
 *
 * What crosses the wire is data only: calls with their arguments as JSON
 * text (`toWire`, on the client), the turn's scheduling options, and
 * `ToolResult`s back. Hooks, event callbacks, `interruptWhen` and the
 * client channel of `context.elicit` stay in the process that has them (see
 * `ClusterRuntime`).
 *
 * @since 0.5.0
 */
import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import * as Rpc from "@effect/rpc/Rpc"
import * as PipelineParse from "@tool-runtime/core/PipelineParse"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * A call as it travels to a runner.
 *
 * @since 0.5.0
 * @category wire
 */
export const WireCall = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  /** The arguments as JSON text (as OpenAI sends them); absent: none. */
  input: Schema.optional(Schema.String),
  truncated: Schema.optional(Schema.String),
  /** The client could not read the arguments as JSON data (a getter or a Proxy that threw, a cycle). */
  unreadable: Schema.optional(Schema.Boolean)
})

/**
 * @since 0.5.0
 * @category wire
 */
export type WireCall = typeof WireCall.Type

/**
 * The options of a turn that mean the same on any runner.
 *
 * @since 0.5.0
 * @category wire
 */
export const WireOptions = Schema.Struct({
  concurrency: Schema.optional(Schema.Number),
  parallel: Schema.optional(Schema.Boolean),
  stopOnError: Schema.optional(Schema.Boolean),
  outputBudget: Schema.optional(Schema.Union(Schema.Number, Schema.Struct({ tokens: Schema.Number })))
})

/**
 * @since 0.5.0
 * @category wire
 */
export type WireOptions = typeof WireOptions.Type

/**
 * One turn of a session: its results, one per call, in call order. Keyed by
 * the turn id (the cluster's primary key: a second send of an answered turn
 * gets the recorded answer) and persisted (a runner's death leaves it to be
 * delivered again).
 *
 * @since 0.5.0
 * @category protocol
 */
export const RunTurn = Rpc.make("RunTurn", {
  payload: {
    turnId: Schema.String,
    calls: Schema.Array(WireCall),
    options: WireOptions
  },
  success: Schema.Array(ToolResult.ToolResult),
  primaryKey: ({ turnId }) => turnId
}).annotate(ClusterSchema.Persisted, true)

/**
 * @since 0.5.0
 * @category protocol
 */
export const SessionEntity = Entity.make("ToolSession", [RunTurn])

/**
 * The arguments as JSON text, read once. Text is sent as it is (the runner
 * parses it, as it would in process); anything the client cannot read as
 * JSON data is marked `unreadable` rather than guessed at, and arguments
 * longer than `maxInputChars` are cut just past it, so the runner refuses
 * them as too large without the client shipping all of them.
 *
 * @since 0.5.0
 * @category wire
 */
export const toWire = (call: unknown, maxInputChars: number): WireCall => {
  const id = PipelineParse.callIdOf(call)
  const name = PipelineParse.toolNameOf(call)
  let input: unknown
  let truncated: unknown
  try {
    input = (call as { readonly input?: unknown } | null)?.input
    truncated = (call as { readonly truncated?: unknown } | null)?.truncated
  } catch {
    return { id, name, unreadable: true }
  }
  const flags = typeof truncated === "string" ? { truncated } : {}
  if (input === undefined || input === null) return { id, name, ...flags }
  let text: string | undefined
  if (typeof input === "string") text = input
  else {
    try {
      // Depth, cycles and throwing getters all end here; JSON.stringify's own recursion limit
      // (a RangeError on very deep values) is one of them.
      text = JSON.stringify(input)
    } catch {
      return { id, name, ...flags, unreadable: true }
    }
    // A function, a symbol: nothing JSON can hold.
    if (text === undefined) return { id, name, ...flags, unreadable: true }
  }
  return { id, name, ...flags, input: text.length > maxInputChars ? text.slice(0, maxInputChars + 1) : text }
}

/** Arguments that cannot be read: what core answers "reading them failed (they are not plain JSON data)". */
const unreadableInput = Object.freeze(Object.defineProperty({}, "value", {
  enumerable: true,
  get() {
    throw new Error("the client could not read these arguments")
  }
}))

/**
 * A wire call as core's runtime takes it.
 *
 * @since 0.5.0
 * @category wire
 */
export const fromWire = (call: WireCall) => ({
  id: call.id,
  name: call.name,
  input: call.unreadable === true ? unreadableInput : call.input,
  truncated: call.truncated
})

/**
 * @since 0.5.0
 * @category models
 */
export interface Options {
  /** How long a session's entity stays in memory with no turn. Default: the cluster's (1 minute). */
  readonly maxIdleTime?: Duration.DurationInput | undefined
}

/**
 * The entity's handlers, on the `ToolRuntime` in context: a durable one
 * (`DurableRuntime.layer` or its journal layer under `ToolRuntime.layer`),
 * or the session's calls would not be recorded. Every turn runs with the
 * entity's id as its `sessionId` and the message's turn id as its `turnId`:
 * the ids the journal keys each call by, and that make each call's
 * `context.idempotencyKey`.
 *
 * @since 0.5.0
 * @category layers
 */
export const layer = (options?: Options) =>
  SessionEntity.toLayer(
    Effect.gen(function*() {
      const runtime = yield* ToolRuntime.ToolRuntime
      const address = yield* Entity.CurrentAddress
      const sessionId = address.entityId
      return SessionEntity.of({
        RunTurn: ({ payload }) =>
          runtime.runTurn(payload.calls.map(fromWire), {
            ...payload.options,
            sessionId,
            turnId: payload.turnId
          })
      })
    }),
    // One turn of a session at a time: a session's calls keep their order and their locks.
    { concurrency: 1, maxIdleTime: options?.maxIdleTime }
  )

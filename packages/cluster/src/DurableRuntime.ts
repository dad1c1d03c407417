/**
 * Core's runtime, made durable by the call journal: the `Durability.Journal`
 * that core asks right before each handler would start, answered by
 * `CallJournal` (and so by `Durable.decide`), and a ready `ToolRuntime` over
 * one SQLite file or PostgreSQL database that outlives the process running
 * it.
 *
 * What the runtime then does with a call it is sent again (the same
 * `sessionId`, `turnId` and call id in the turn's options), whichever
 * process sent it first:
 *
 * - a call whose result is recorded is not run: the recorded result is its
 *   answer (`outcome_unknown` and `gave_up` results too);
 * - a call that started in a process that died is run again if it only
 *   reads, retried with the same idempotency key (attempt + 1, after a
 *   backoff) if its tool is `idempotent: true`, and otherwise answered
 *   `outcome_unknown` without running;
 * - a call whose start cannot be recorded is not run (`not_executed`).
 *
 * A turn without a `sessionId` and a `turnId` has nothing to key its calls
 * by: its calls are refused (`not_executed`) rather than run without a
 * record, as call ids alone repeat from turn to turn.
 *
 * There is no routing here: whoever sends a turn runs it in its own process.
 * Two processes running the same turn at once are kept apart per call (the
 * journal gives exactly one of them each attempt), not per turn.
 *
 * @since 0.5.0
 */
import type * as Migrator from "@effect/sql/Migrator"
import type { SqlError } from "@effect/sql/SqlError"
import type * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Durability from "@tool-runtime/core/Durability"
import type * as Policy from "@tool-runtime/core/Policy"
import type * as Redactor from "@tool-runtime/core/Redactor"
import type * as Registry from "@tool-runtime/core/Registry"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as CallJournal from "./CallJournal.js"
import * as Durable from "./Durable.js"
import * as Storage from "./Storage.js"

/**
 * @since 0.5.0
 * @category models
 */
export interface JournalOptions {
  /**
   * Who runs the calls, as the journal's history names it: a string stable
   * for the life of the process and distinct from every other process on
   * the same storage (a host name and a process id, a pod name).
   */
  readonly runnerId: string
}

const decodeResult = Schema.decodeSync(Schema.parseJson(ToolResult.ToolResult))

/** Only a storage error's code (`SQLITE_BUSY`, `ECONNREFUSED`, `28P01`), never its text: that may quote a URL. */
const unavailable = (error: SqlError): Durability.JournalUnavailable => {
  const code = (error.cause as { readonly code?: unknown } | undefined)?.code
  const shown = typeof code === "string" && /^[A-Z0-9_]{1,40}$/.test(code) ? ` (${code})` : ""
  return new Durability.JournalUnavailable({ reason: `the journal's storage failed${shown}` })
}

const keyOf = (call: Durability.Call): Durable.Key => ({
  sessionId: call.sessionId,
  turnId: call.turnId,
  callId: call.callId
})

/**
 * The `Durability.Journal` service over `CallJournal`.
 *
 * @since 0.5.0
 * @category constructors
 */
export const makeJournal = (
  options: JournalOptions
): Effect.Effect<Durability.Service, never, CallJournal.CallJournal> =>
  Effect.gen(function*() {
    const journal = yield* CallJournal.CallJournal
    const runner = options.runnerId

    const begin = (call: Durability.Call): Effect.Effect<Durability.Begun, Durability.JournalUnavailable> => {
      if (call.sessionId === "" || call.turnId === "") {
        return Effect.fail(
          new Durability.JournalUnavailable({
            reason: "the turn has no sessionId and turnId to record its calls under"
          })
        )
      }
      const key = keyOf(call)
      // The key the handler reads must be the one the journal keeps: every attempt carries it.
      if (call.idempotencyKey !== Durable.idempotencyKey(key)) {
        return Effect.fail(
          new Durability.JournalUnavailable({ reason: "the call's idempotency key is not the journal's" })
        )
      }
      return journal.begin(
        { key, toolName: call.tool.name, kind: Durable.kindOf(call.tool), seq: call.index },
        runner
      ).pipe(
        Effect.mapError(unavailable),
        Effect.map((begun): Durability.Begun =>
          begun._tag === "Run"
            ? { _tag: "Run", attempt: begun.attempt, delayMillis: Duration.toMillis(begun.delay) }
            // From the stored text, whatever the decision: a result recorded now and one replayed
            // later are the same object.
            : { _tag: "Recorded", result: { ...decodeResult(begun.json), callId: call.callId } }
        ),
        Effect.catchAllDefect((defect) =>
          Effect.zipRight(
            Effect.logWarning("the call journal failed unexpectedly", Cause.die(defect)),
            Effect.fail(new Durability.JournalUnavailable({ reason: "the journal failed unexpectedly" }))
          )
        ),
        Effect.annotateLogs({ callId: call.callId, tool: call.tool.name, runner })
      )
    }

    const finish = (
      call: Durability.Call,
      attempt: number,
      result: ToolResult.ToolResult
    ): Effect.Effect<void> => {
      const key = keyOf(call)
      // A result that says its outcome is unknown (a handler interrupted mid-write, a write that
      // timed out) is recorded as such: the history then says so, and it is replayed like any other.
      const recorded = result.error?.outcomeUnknown === true
        ? journal.recordUnknown(key, attempt, runner, result)
        : journal.finish(key, attempt, result, runner)
      return recorded.pipe(
        Effect.flatMap((won) =>
          won
            ? Effect.void
            // Another delivery took the call over, or its outcome was recorded since: this result is
            // still the answer of this run, but not the call's record.
            : Effect.logDebug("a newer attempt owns the call: its result was not recorded")
        ),
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.interrupt
            : Effect.logWarning(
              "the call's result could not be recorded: sent again, it is treated as interrupted",
              Cause.map(cause, (error) => unavailable(error).reason)
            )
        ),
        Effect.annotateLogs({ callId: call.callId, tool: call.tool.name, attempt, runner })
      )
    }

    return Durability.Journal.of({ begin, finish })
  })

/**
 * @since 0.5.0
 * @category layers
 */
export const journalLayer = (
  options: JournalOptions
): Layer.Layer<Durability.Journal, never, CallJournal.CallJournal> =>
  Layer.effect(Durability.Journal, makeJournal(options))

/**
 * @since 0.5.0
 * @category models
 */
export type Options =
  & JournalOptions
  & {
    readonly sqlite?: Omit<Storage.SqliteOptions, "filename"> | undefined
    readonly postgres?: Omit<Storage.PostgresOptions, "url"> | undefined
    readonly limits?: Durable.Limits | undefined
    readonly runtime?: ToolRuntime.Options | undefined
  }
  & (
    /** The SQLite file every process running these sessions shares. */
    | { readonly filename: string }
    /** Where every process running these sessions keeps the journal: `Storage.parse` of `sqlite:FILE` or a `postgres://` URL. */
    | { readonly storage: Storage.Spec }
  )

/**
 * A durable `ToolRuntime` over an SQLite file or a PostgreSQL database, the
 * journal's tables created first; the `CallJournal` too, to list a
 * session's calls. The tools, the policy, the redactor and the artifact
 * store are the caller's, as for `ToolRuntime.layer`.
 *
 * @since 0.5.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<
  ToolRuntime.ToolRuntime | CallJournal.CallJournal,
  Storage.StorageError | SqlError | Migrator.MigrationError,
  Registry.Registry | Policy.Policy | Redactor.Redactor | ArtifactStore.ArtifactStore
> => {
  const spec: Storage.Spec = "storage" in options ? options.storage : { _tag: "Sqlite", filename: options.filename }
  const journal = CallJournal.layer(options.limits).pipe(
    Layer.provide(Storage.layer(spec, { ...options.sqlite, postgres: options.postgres }))
  )
  return ToolRuntime.layer(options.runtime).pipe(
    Layer.provide(journalLayer(options)),
    Layer.provideMerge(journal)
  )
}

/**
 * The durable-call journal: one row per call (`tr_calls`) with its state,
 * attempt and recorded result, and an append-only history
 * (`tr_call_events`) of every decision taken about it.
 *
 * A runner calls `begin` when a call is delivered, before its handler runs.
 * `begin` reads the row, applies `Durable.decide` and records the outcome in
 * one transaction, so two deliveries of the same call (a redelivery racing a
 * runner that is not quite dead, two processes on one file) see each
 * other's writes: exactly one of them gets attempt 1. Once the handler is
 * done, `finish` records the result, fenced on the attempt: a runner that
 * stalled past the point where another took its call over cannot overwrite
 * what that one decided.
 *
 * The SQL is the common subset of SQLite and PostgreSQL (`ON CONFLICT DO
 * NOTHING`, `RETURNING`); times are milliseconds from `Clock`, results the
 * JSON text of a `ToolResult`, kept as text so a replay is byte-identical.
 *
 * @since 0.5.0
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Durable from "./Durable.js"
import * as JournalRows from "./JournalRows.js"

/**
 * A call as the journal needs it.
 *
 * @since 0.5.0
 * @category models
 */
export interface Call {
  readonly key: Durable.Key
  readonly toolName: string
  readonly kind: Durable.Kind
  /** The call's place in its turn, so a listing (and a replayed turn) keeps the turn's order. */
  readonly seq: number
}

/**
 * What `begin` answers: run the handler (after `delay`, with
 * `idempotencyKey`), or answer with the recorded result.
 *
 * @since 0.5.0
 * @category models
 */
export type Begun =
  | {
    readonly _tag: "Run"
    readonly attempt: number
    readonly delay: Duration.Duration
    readonly rule: "first_run" | "rerun_read" | "retry_idempotent"
    readonly idempotencyKey: string
  }
  | {
    readonly _tag: "Recorded"
    readonly decision: Exclude<Durable.Decision, { readonly _tag: "Run" }>
    readonly result: ToolResult.ToolResult
    /** The result as stored: what a replay returns, byte for byte. */
    readonly json: string
  }

/**
 * @since 0.5.0
 * @category models
 */
export type CallEvent = JournalRows.CallEvent

/**
 * @since 0.5.0
 * @category models
 */
export type CallRecord = JournalRows.CallRecord

/**
 * @since 0.5.0
 * @category models
 */
export interface Service {
  readonly begin: (call: Call, runner: string) => Effect.Effect<Begun, SqlError>
  /**
   * Records the result of `attempt`, if that attempt still owns the call
   * (the row is `started` at that attempt). False when it lost: another
   * delivery took the call over, or its outcome was already recorded.
   */
  readonly finish: (
    key: Durable.Key,
    attempt: number,
    result: ToolResult.ToolResult,
    runner: string
  ) => Effect.Effect<boolean, SqlError>
  /**
   * Records that `attempt` ended without a result whose outcome is known
   * (its handler was interrupted mid-effect): `result`, or the journal's own
   * `outcome_unknown` result. Fenced like `finish`.
   */
  readonly recordUnknown: (
    key: Durable.Key,
    attempt: number,
    runner: string,
    result?: ToolResult.ToolResult
  ) => Effect.Effect<boolean, SqlError>
  readonly get: (key: Durable.Key) => Effect.Effect<Option.Option<CallRecord>, SqlError>
  /** A session's calls in the order they started, each with its history; `inFlight` keeps the `started` ones. */
  readonly listSession: (
    sessionId: string,
    options?: { readonly inFlight?: boolean | undefined }
  ) => Effect.Effect<ReadonlyArray<CallRecord>, SqlError>
}

/**
 * @since 0.5.0
 * @category tags
 */
export class CallJournal extends Context.Tag("@tool-runtime/cluster/CallJournal")<CallJournal, Service>() {}

/** The advisory lock key of the journal's migrations: any constant, unlikely to be another's. */
const migrationLock = 0x74725f6d // "tr_m"

/**
 * The journal's tables, as migrations of their own (`tr_migrations`), so
 * they live beside the cluster's tables in the same database.
 *
 * @since 0.5.0
 * @category migrations
 */
export const migrate: Effect.Effect<void, SqlError | Migrator.MigrationError, SqlClient.SqlClient> = Effect.gen(
  function*() {
    const sql = yield* SqlClient.SqlClient
    // PostgreSQL: the migrator creates its table after a plain existence check, so processes that
    // start together on a fresh database race to create it, and all but one fail ("already exists").
    // Created first here, one process at a time under a transaction-scoped advisory lock; the
    // migrator then serializes the migrations themselves (it locks that table). SQLite needs none
    // of it: its `CREATE TABLE IF NOT EXISTS` runs under the file's write lock.
    yield* sql.onDialectOrElse({
      pg: () =>
        sql.withTransaction(Effect.zipRight(
          sql`SELECT pg_advisory_xact_lock(${migrationLock})`,
          sql`CREATE TABLE IF NOT EXISTS tr_migrations (
            migration_id integer primary key,
            created_at timestamp with time zone not null default now(),
            name text not null
          )`
        )),
      orElse: () => Effect.void
    })
    yield* Migrator.make({})({
      table: "tr_migrations",
      loader: Migrator.fromRecord({ "1_create_journal": JournalRows.createTables })
    })
  }
)

/** A compare-and-set that found the row changed: under PostgreSQL's read-committed, redo the transaction. */
class Conflict extends Data.TaggedError("Conflict") {}

const encodeResult = Schema.encodeSync(Schema.parseJson(ToolResult.ToolResult))
const decodeResult = Schema.decodeSync(Schema.parseJson(ToolResult.ToolResult))

/**
 * @since 0.5.0
 * @category constructors
 */
export const make = (
  limits: Durable.Limits = Durable.defaultLimits
): Effect.Effect<Service, never, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = JournalRows.make(sql)

    const event = (
      key: Durable.Key,
      runner: string,
      attempt: number,
      name: JournalRows.EventName,
      detail: string | null
    ) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (at) => rows.insertEvent({ key, at, runner, attempt, event: name, detail })
      )

    const record = (
      call: { readonly key: Durable.Key; readonly toolName: string },
      decision: Exclude<Durable.Decision, { readonly _tag: "Run" | "Replay" }>,
      seen: JournalRows.Seen,
      now: number
    ) => {
      const result = decision._tag === "GiveUp"
        ? Durable.gaveUpResult(call, decision.attempt)
        : Durable.outcomeUnknownResult(call, decision.attempt, decision.rule)
      const json = encodeResult(result)
      const state = decision._tag === "GiveUp" ? "gave_up" : "outcome_unknown"
      return Effect.as(
        Effect.filterOrFail(rows.settle(call.key, seen, state, json, now), (won) => won, () => new Conflict()),
        { _tag: "Recorded", decision, result, json } as const
      )
    }

    const beginOnce = (call: Call, runner: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const row = yield* rows.lock(call.key)
        const decision = Durable.decide(row, call.kind, limits)
        const idempotencyKey = Durable.idempotencyKey(call.key)
        let begun: Begun
        switch (decision._tag) {
          case "Run": {
            const won = row === undefined
              ? yield* rows.insertStarted({ ...call, idempotencyKey, runner, now })
              : yield* rows.restart(call.key, row, decision.attempt, runner)
            if (!won) return yield* new Conflict()
            begun = {
              _tag: "Run",
              attempt: decision.attempt,
              delay: decision.delay,
              rule: decision.rule,
              idempotencyKey
            }
            break
          }
          case "Replay":
            begun = { _tag: "Recorded", decision, result: decodeResult(decision.result), json: decision.result }
            break
          default:
            begun = yield* record(call, decision, row!, now)
        }
        const attempt = decision._tag === "Replay" ? row!.attempt : decision.attempt
        yield* event(call.key, runner, attempt, Durable.eventOf(decision), decision.rule)
        return begun
      }).pipe(sql.withTransaction)

    const begin = (call: Call, runner: string) =>
      beginOnce(call, runner).pipe(
        Effect.retry({ while: (error) => error._tag === "Conflict", times: 5 }),
        Effect.catchTag("Conflict", () => Effect.dieMessage("the call journal kept changing under a begin"))
      )

    const finish = (key: Durable.Key, attempt: number, result: ToolResult.ToolResult, runner: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const won = yield* rows.settle(key, { state: "started", attempt }, "finished", encodeResult(result), now)
        yield* event(key, runner, attempt, won ? "finished" : "fenced", won ? null : "finish")
        return won
      }).pipe(sql.withTransaction)

    const recordUnknown = (key: Durable.Key, attempt: number, runner: string, result?: ToolResult.ToolResult) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const row = yield* rows.lock(key)
        // No row: no attempt of this call ever began, and there is no history to add to.
        if (row === undefined) return false
        const json = encodeResult(
          result ?? Durable.outcomeUnknownResult({ key, toolName: row.toolName }, attempt, "interrupted")
        )
        const won = yield* rows.settle(key, { state: "started", attempt }, "outcome_unknown", json, now)
        yield* event(key, runner, attempt, won ? "outcome_unknown" : "fenced", won ? "interrupted" : "record_unknown")
        return won
      }).pipe(sql.withTransaction)

    return CallJournal.of({
      begin,
      finish,
      recordUnknown,
      get: rows.get,
      listSession: (sessionId, options) => rows.listSession(sessionId, options?.inFlight === true)
    })
  })

/**
 * The journal, its tables created (or brought up to date) first.
 *
 * @since 0.5.0
 * @category layers
 */
export const layer = (
  limits?: Durable.Limits
): Layer.Layer<CallJournal, SqlError | Migrator.MigrationError, SqlClient.SqlClient> =>
  Layer.effect(CallJournal, Effect.zipRight(migrate, make(limits)))

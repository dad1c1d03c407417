/**
 * The journal's tables and the statements `CallJournal` runs on them, kept
 * apart from the rules that decide what to write.
 *
 * Every write that depends on what was read compares first (`WHERE state =
 * … AND attempt = …`, `ON CONFLICT DO NOTHING`) and says whether it
 * applied: under SQLite's `BEGIN IMMEDIATE` it always does, under
 * PostgreSQL's read-committed a concurrent insert can win, and the caller
 * then redoes its transaction instead of overwriting.
 *
 * @since 0.5.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Durable from "./Durable.js"

/**
 * Everything a call's history records: a decision of `begin`, or how a
 * handler's end was recorded (`finished`; `outcome_unknown` from
 * `recordUnknown`; `fenced` when a stale attempt's write lost).
 *
 * @since 0.5.0
 * @category models
 */
export type EventName = Durable.DecisionEvent | "finished" | "fenced"

/**
 * @since 0.5.0
 * @category models
 */
export interface CallEvent {
  readonly id: number
  /** Milliseconds since the epoch, from the writer's `Clock`. */
  readonly at: number
  readonly runner: string
  readonly attempt: number
  readonly event: EventName
  /** The `Durable.Rule` a decision applied, or which write was fenced. */
  readonly detail: string | null
}

/**
 * @since 0.5.0
 * @category models
 */
export interface CallRecord {
  readonly key: Durable.Key
  readonly seq: number
  readonly toolName: string
  readonly kind: Durable.Kind
  readonly idempotencyKey: string
  readonly state: Durable.State
  readonly attempt: number
  /** The runner of the latest attempt, or the one that recorded the outcome. */
  readonly runner: string
  readonly startedAt: number
  readonly finishedAt: number | null
  /** The recorded `ToolResult` as stored (JSON), once there is one. */
  readonly result: string | null
  readonly events: ReadonlyArray<CallEvent>
}

/**
 * What a compare-and-set expects the row to still be.
 *
 * @since 0.5.0
 * @category models
 */
export interface Seen {
  readonly state: Durable.State
  readonly attempt: number
}

/**
 * The first migration: both tables, in SQL that SQLite and PostgreSQL both
 * read, but for the event id's sequence.
 *
 * @since 0.5.0
 * @category migrations
 */
export const createTables: Effect.Effect<void, SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE tr_calls (
    session_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    tool_name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('read', 'idempotent', 'effect')),
    idem_key TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('started', 'finished', 'outcome_unknown', 'gave_up')),
    attempt INTEGER NOT NULL,
    runner TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    finished_at BIGINT,
    result TEXT,
    PRIMARY KEY (session_id, turn_id, call_id)
  )`
  // What `calls --in-flight` scans across sessions: the few rows still started.
  yield* sql`CREATE INDEX tr_calls_in_flight ON tr_calls (state, session_id)`
  const id = sql.onDialectOrElse({
    pg: () => "BIGSERIAL PRIMARY KEY",
    orElse: () => "INTEGER PRIMARY KEY AUTOINCREMENT"
  })
  yield* sql`CREATE TABLE tr_call_events (
    id ${sql.literal(id)},
    session_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    at BIGINT NOT NULL,
    runner TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    event TEXT NOT NULL,
    detail TEXT
  )`
  yield* sql`CREATE INDEX tr_call_events_call ON tr_call_events (session_id, turn_id, call_id, id)`
})

const kinds = new Set<string>(["read", "idempotent", "effect"])
const states = new Set<string>(["started", "finished", "outcome_unknown", "gave_up"])

// A row that is not what this module wrote is a broken database, not a case to handle.
const literal = <A extends string>(allowed: ReadonlySet<string>, value: unknown, column: string): A => {
  if (typeof value === "string" && allowed.has(value)) return value as A
  throw new Error(`tr_calls.${column} holds ${JSON.stringify(value)}`)
}

// PostgreSQL's driver reads BIGINT as a string; SQLite's as a number.
const int = (value: unknown): number => Number(value)

const toRow = (row: any): Durable.Row & { readonly toolName: string } => {
  const kind = literal<Durable.Kind>(kinds, row.kind, "kind")
  const state = literal<Durable.State>(states, row.state, "state")
  const attempt = int(row.attempt)
  if (state === "started") return { state, kind, attempt, toolName: row.tool_name }
  if (typeof row.result !== "string") throw new Error(`tr_calls.result is missing for a ${state} call`)
  return { state, kind, attempt, result: row.result, toolName: row.tool_name }
}

const toRecord = (row: any, events: ReadonlyArray<CallEvent>): CallRecord => ({
  key: { sessionId: row.session_id, turnId: row.turn_id, callId: row.call_id },
  seq: int(row.seq),
  toolName: row.tool_name,
  kind: literal(kinds, row.kind, "kind"),
  idempotencyKey: row.idem_key,
  state: literal(states, row.state, "state"),
  attempt: int(row.attempt),
  runner: row.runner,
  startedAt: int(row.started_at),
  finishedAt: row.finished_at === null ? null : int(row.finished_at),
  result: row.result,
  events
})

const toEvent = (row: any): CallEvent => ({
  id: int(row.id),
  at: int(row.at),
  runner: row.runner,
  attempt: int(row.attempt),
  event: row.event,
  detail: row.detail
})

const eventKey = (row: any): string => JSON.stringify([row.turn_id, row.call_id])

/**
 * The statements over one client.
 *
 * @since 0.5.0
 * @category constructors
 */
export const make = (sql: SqlClient.SqlClient) => {
  const byKey = (key: Durable.Key) =>
    sql`session_id = ${key.sessionId} AND turn_id = ${key.turnId} AND call_id = ${key.callId}`
  // SQLite has no row locks (and needs none: `BEGIN IMMEDIATE` holds the file's write lock).
  const forUpdate = sql.literal(sql.onDialectOrElse({ pg: () => "FOR UPDATE", orElse: () => "" }))
  const applied = Effect.map((rows: ReadonlyArray<unknown>) => rows.length > 0)

  return {
    /** The call's row, locked for the rest of the transaction where the database locks rows. */
    lock: (key: Durable.Key) =>
      Effect.map(
        sql`SELECT kind, state, attempt, result, tool_name FROM tr_calls WHERE ${byKey(key)} ${forUpdate}`,
        (rows) => rows.length === 0 ? undefined : toRow(rows[0])
      ),

    insertStarted: (call: {
      readonly key: Durable.Key
      readonly toolName: string
      readonly kind: Durable.Kind
      readonly seq: number
      readonly idempotencyKey: string
      readonly runner: string
      readonly now: number
    }) =>
      applied(sql`INSERT INTO tr_calls
        (session_id, turn_id, call_id, seq, tool_name, kind, idem_key, state, attempt, runner, started_at)
        VALUES (${call.key.sessionId}, ${call.key.turnId}, ${call.key.callId}, ${call.seq}, ${call.toolName},
          ${call.kind}, ${call.idempotencyKey}, 'started', 1, ${call.runner}, ${call.now})
        ON CONFLICT (session_id, turn_id, call_id) DO NOTHING
        RETURNING attempt`),

    /** A started call's next attempt, by `runner`. */
    restart: (key: Durable.Key, seen: Seen, attempt: number, runner: string) =>
      applied(sql`UPDATE tr_calls SET attempt = ${attempt}, runner = ${runner}
        WHERE ${byKey(key)} AND state = ${seen.state} AND attempt = ${seen.attempt}
        RETURNING attempt`),

    /** Records the outcome, if the row is still what `seen` says. */
    settle: (key: Durable.Key, seen: Seen, state: Exclude<Durable.State, "started">, result: string, now: number) =>
      applied(sql`UPDATE tr_calls SET state = ${state}, result = ${result}, finished_at = ${now}
        WHERE ${byKey(key)} AND state = ${seen.state} AND attempt = ${seen.attempt}
        RETURNING attempt`),

    insertEvent: (event: {
      readonly key: Durable.Key
      readonly at: number
      readonly runner: string
      readonly attempt: number
      readonly event: EventName
      readonly detail: string | null
    }) =>
      Effect.asVoid(sql`INSERT INTO tr_call_events (session_id, turn_id, call_id, at, runner, attempt, event, detail)
        VALUES (${event.key.sessionId}, ${event.key.turnId}, ${event.key.callId}, ${event.at}, ${event.runner},
          ${event.attempt}, ${event.event}, ${event.detail})`),

    get: (key: Durable.Key) =>
      Effect.gen(function*() {
        const calls = yield* sql`SELECT * FROM tr_calls WHERE ${byKey(key)}`
        if (calls.length === 0) return Option.none<CallRecord>()
        const events = yield* sql`SELECT * FROM tr_call_events WHERE ${byKey(key)} ORDER BY id`
        return Option.some(toRecord(calls[0], events.map(toEvent)))
      }),

    listSession: (sessionId: string, inFlight: boolean) =>
      Effect.gen(function*() {
        const onlyStarted = inFlight ? sql`AND state = 'started'` : sql``
        const calls = yield* sql`SELECT * FROM tr_calls WHERE session_id = ${sessionId} ${onlyStarted}
          ORDER BY started_at, turn_id, seq, call_id`
        if (calls.length === 0) return []
        const events = yield* sql`SELECT * FROM tr_call_events WHERE session_id = ${sessionId} ORDER BY id`
        const grouped = new Map<string, Array<CallEvent>>()
        for (const row of events) {
          const key = eventKey(row)
          const list = grouped.get(key)
          if (list === undefined) grouped.set(key, [toEvent(row)])
          else list.push(toEvent(row))
        }
        return calls.map((row) => toRecord(row, grouped.get(eventKey(row)) ?? []))
      })
  }
}

/**
 * The storage runners and clients share: an `@effect/sql` `SqlClient` over
 * one SQLite file that several processes write at once, or over a
 * PostgreSQL database that processes on several machines share, chosen by
 * a `--storage` spec.
 *
 * Why not `@effect/sql-sqlite-node`'s client: it opens transactions with a
 * deferred `BEGIN`. Under WAL, a deferred transaction that read first and
 * then writes cannot wait for another process's write lock: SQLite fails it
 * at once with `SQLITE_BUSY` (the busy handler is not consulted, since
 * waiting could deadlock), which the cluster spike reproduced as lost calls.
 * This client begins every transaction with `BEGIN IMMEDIATE`, which takes
 * the write lock up front, where waiting is safe.
 *
 * How it waits: better-sqlite3 is synchronous, so SQLite's own busy handler
 * blocks the event loop (a runner's heartbeats included) for as long as it
 * waits. The connection's `busy_timeout` is therefore short, and a statement
 * that still finds the file locked is retried asynchronously with a capped,
 * jittered backoff. Only what is safe to repeat is retried: an autocommit
 * statement that failed with `SQLITE_BUSY` (it changed nothing) and the
 * `BEGIN IMMEDIATE` itself; a statement inside a transaction is never
 * retried on its own.
 *
 * @since 0.5.0
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import Sqlite from "better-sqlite3"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"

/**
 * @since 0.5.0
 * @category models
 */
export interface SqliteOptions {
  readonly filename: string
  /**
   * How long SQLite itself waits for a lock at each try, blocking the event
   * loop. Default 10 ms: most transactions here take a millisecond or two.
   */
  readonly busyTimeout?: Duration.DurationInput | undefined
  /** How long a locked statement is retried asynchronously after that. Default 20 s. */
  readonly busyRetryFor?: Duration.DurationInput | undefined
  /**
   * `full` (the default) syncs the WAL at every commit, so a recorded call
   * survives a power loss too; `normal` survives the death of the process
   * only, and is faster.
   */
  readonly synchronous?: "full" | "normal" | undefined
  /** Prepared statements kept per connection. Default 200. */
  readonly prepareCacheSize?: number | undefined
}

const beginTransaction = "BEGIN IMMEDIATE"

const isBusy = (error: SqlError): boolean => {
  const code = (error.cause as { readonly code?: unknown } | undefined)?.code
  return typeof code === "string" && code.startsWith("SQLITE_BUSY")
}

/**
 * A client over one connection, as SQLite allows one writer per file
 * anyway. Within the process, a semaphore keeps every other statement out
 * of a transaction while it is open (the transaction holds the permit from
 * `BEGIN` to `COMMIT`; each autocommit statement takes it for its own run).
 *
 * @since 0.5.0
 * @category constructors
 */
export const makeSqlite = (
  options: SqliteOptions
): Effect.Effect<SqlClient.SqlClient, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    // Between tries the event loop is free; capped low, as the lock is usually held for a moment.
    const retryBusy = Schedule.exponential(Duration.millis(2)).pipe(
      Schedule.either(Schedule.spaced(Duration.millis(50))),
      Schedule.jittered,
      Schedule.upTo(options.busyRetryFor ?? Duration.seconds(20))
    )

    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          const db = new Sqlite(options.filename, {
            timeout: Duration.toMillis(options.busyTimeout ?? Duration.millis(10))
          })
          try {
            // Switching a new file to WAL needs it alone: another process opening it too finds it locked.
            db.pragma("journal_mode = WAL")
            db.pragma(`synchronous = ${options.synchronous === "normal" ? "NORMAL" : "FULL"}`)
          } catch (cause) {
            db.close()
            throw cause
          }
          return db
        },
        catch: (cause) => new SqlError({ cause, message: "Failed to open the SQLite database" })
      }).pipe(Effect.retry({ schedule: retryBusy, while: isBusy })),
      (db) => Effect.sync(() => db.close())
    )

    // Insertion order is use order for a Map whose entries are re-inserted on use: the first key is
    // the least recently used.
    const cache = new Map<string, Sqlite.Statement>()
    const capacity = options.prepareCacheSize ?? 200
    const prepare = (sql: string): Sqlite.Statement => {
      const cached = cache.get(sql)
      if (cached !== undefined) {
        cache.delete(sql)
        cache.set(sql, cached)
        return cached
      }
      const statement = db.prepare(sql)
      cache.set(sql, statement)
      if (cache.size > capacity) cache.delete(cache.keys().next().value!)
      return statement
    }

    const run = (
      sql: string,
      params: ReadonlyArray<unknown>,
      mode: "rows" | "raw" | "values",
      prepared: boolean
    ): Effect.Effect<any, SqlError> =>
      Effect.withFiberRuntime((fiber) => {
        try {
          const statement = prepared ? prepare(sql) : db.prepare(sql)
          statement.safeIntegers(Context.get(fiber.currentContext, SqlClient.SafeIntegers))
          if (!statement.reader) {
            const result = statement.run(...params)
            return Effect.succeed(mode === "raw" ? result : [])
          }
          if (mode !== "values") return Effect.succeed(statement.all(...params))
          try {
            return Effect.succeed(statement.raw(true).all(...params))
          } finally {
            statement.raw(false)
          }
        } catch (cause) {
          return Effect.fail(new SqlError({ cause, message: "Failed to execute statement" }))
        }
      })

    // A statement that failed as busy outside a transaction changed nothing; one inside a
    // transaction is part of a unit that only the whole transaction may repeat.
    const retrying = <A>(effect: Effect.Effect<A, SqlError>) =>
      Effect.retry(effect, { schedule: retryBusy, while: (error) => isBusy(error) && !db.inTransaction })

    const semaphore = yield* Effect.makeSemaphore(1)

    const connection = (
      wrap: <A>(sql: string, effect: Effect.Effect<A, SqlError>) => Effect.Effect<A, SqlError>
    ): SqlConnection.Connection => ({
      execute: (sql, params, transformRows) =>
        wrap(sql, Effect.map(run(sql, params, "rows", true), (rows) => transformRows ? transformRows(rows) : rows)),
      executeRaw: (sql, params) => wrap(sql, run(sql, params, "raw", true)),
      executeValues: (sql, params) => wrap(sql, run(sql, params, "values", true)),
      executeUnprepared: (sql, params, transformRows) =>
        wrap(sql, Effect.map(run(sql, params, "rows", false), (rows) => transformRows ? transformRows(rows) : rows)),
      executeStream: () => Effect.dieMessage("executeStream is not implemented for SQLite")
    })

    // Outside a transaction: each statement waits for the permit, and retries while it holds it.
    const autocommit = connection((_, effect) => semaphore.withPermits(1)(retrying(effect)))
    // Inside one: the transaction holds the permit, and only its `BEGIN IMMEDIATE` may be retried
    // (a statement of the transaction is repeated only by repeating the whole transaction).
    const transactional = connection((sql, effect) => sql === beginTransaction ? retrying(effect) : effect)

    return yield* SqlClient.make({
      acquirer: Effect.succeed(autocommit),
      transactionAcquirer: Effect.uninterruptibleMask((restore) =>
        Effect.as(
          Effect.zipRight(
            restore(semaphore.take(1)),
            Effect.flatMap(Effect.scope, (scope) => Scope.addFinalizer(scope, semaphore.release(1)))
          ),
          transactional
        )
      ),
      compiler: Statement.makeCompilerSqlite(),
      beginTransaction,
      spanAttributes: [["db.system.name", "sqlite"]]
    })
  })

/**
 * @since 0.5.0
 * @category layers
 */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.scoped(SqlClient.SqlClient, makeSqlite(options)).pipe(Layer.provide(Reactivity.layer))

/**
 * Where the cluster keeps its messages and the journal: `sqlite:FILE` (one
 * machine, nothing to start) or a `postgres://` URL (several machines).
 *
 * @since 0.5.0
 * @category models
 */
export type Spec =
  | { readonly _tag: "Sqlite"; readonly filename: string }
  | { readonly _tag: "Postgres"; readonly url: Redacted.Redacted<string> }

/**
 * @since 0.5.0
 * @category errors
 */
export class StorageError extends Data.TaggedError("StorageError")<{ readonly message: string }> {}

/**
 * Reads a `--storage` value. A PostgreSQL URL is kept redacted, and no
 * message quotes it: it may hold a password.
 *
 * @since 0.5.0
 * @category parsing
 */
export const parse = (spec: string): Either.Either<Spec, StorageError> => {
  if (spec.startsWith("sqlite:")) {
    const filename = spec.slice("sqlite:".length)
    return filename.trim() === ""
      ? Either.left(new StorageError({ message: "sqlite: needs a file name (sqlite:./cluster.db)" }))
      : Either.right({ _tag: "Sqlite", filename })
  }
  if (/^postgres(?:ql)?:\/\//.test(spec)) {
    // Checked here, where the error can say what is wrong without the URL: the driver's own parse
    // error (Node's `ERR_INVALID_URL`) carries the whole input, password included.
    return URL.canParse(spec)
      ? Either.right({ _tag: "Postgres", url: Redacted.make(spec) })
      : Either.left(
        new StorageError({ message: "the postgres:// URL does not parse (not quoted: it may hold a password)" })
      )
  }
  return Either.left(
    new StorageError({ message: "--storage takes sqlite:FILE or a postgres:// URL" })
  )
}

/**
 * @since 0.5.0
 * @category models
 */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database`, with `?sslmode=…` and the rest as `pg` reads them. */
  readonly url: Redacted.Redacted<string>
  /** Connections kept by this process. Default 10. */
  readonly maxConnections?: number | undefined
  /** How long connecting may take before the layer fails. Default 10 s. */
  readonly connectTimeout?: Duration.DurationInput | undefined
  /** What the server's `pg_stat_activity` shows for these connections. Default `tool-runtime-cluster`. */
  readonly applicationName?: string | undefined
}

const errorCode = (error: SqlError): string | undefined => {
  const code = (error.cause as { readonly code?: unknown } | undefined)?.code
  return typeof code === "string" && /^[A-Za-z0-9_]{1,40}$/.test(code) ? code : undefined
}

/**
 * An `SqlClient` over a PostgreSQL database, through `@effect/sql-pg`'s
 * pool. Transactions are PostgreSQL's default, read committed; the journal
 * locks the rows it decides on (`SELECT … FOR UPDATE`) and compares before
 * it writes, so it needs no stricter isolation.
 *
 * The URL stays redacted: a connection that fails is a `StorageError` that
 * names the driver's error code (`ECONNREFUSED`, `28P01`, `3D000`) and
 * quotes neither the URL nor the driver's message.
 *
 * @since 0.5.0
 * @category layers
 */
export const layerPostgres = (options: PostgresOptions): Layer.Layer<SqlClient.SqlClient, StorageError> =>
  Layer.effect(SqlClient.SqlClient, SqlClient.SqlClient).pipe(
    Layer.provide(PgClient.layer({
      url: options.url,
      maxConnections: options.maxConnections ?? 10,
      connectTimeout: options.connectTimeout ?? Duration.seconds(10),
      applicationName: options.applicationName ?? "tool-runtime-cluster"
    })),
    Layer.mapError((error) => {
      const code = errorCode(error)
      return new StorageError({
        message: `could not connect to PostgreSQL${code === undefined ? "" : ` (${code})`}`
      })
    })
  )

/**
 * The `SqlClient` a spec names; `sqlite` options apply to an SQLite spec,
 * `postgres` ones to a PostgreSQL spec.
 *
 * @since 0.5.0
 * @category layers
 */
export const layer = (
  spec: Spec,
  options?: Omit<SqliteOptions, "filename"> & {
    readonly postgres?: Omit<PostgresOptions, "url"> | undefined
  }
): Layer.Layer<SqlClient.SqlClient, StorageError | SqlError> => {
  switch (spec._tag) {
    case "Sqlite": {
      const { postgres: _, ...sqlite } = options ?? {}
      return layerSqlite({ ...sqlite, filename: spec.filename })
    }
    case "Postgres":
      return layerPostgres({ ...options?.postgres, url: spec.url })
  }
}

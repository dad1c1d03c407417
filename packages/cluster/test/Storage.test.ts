import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import Sqlite from "better-sqlite3"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as NodeUtil from "node:util"
import * as Storage from "../src/Storage.js"
import { tempDb } from "./fixtures/Files.js"
import { postgres } from "./fixtures/Storages.js"

/** A second connection to the same file, as another process would hold it, that never waits. */
const rawConnection = (file: string) =>
  Effect.acquireRelease(Effect.sync(() => new Sqlite(file, { timeout: 0 })), (db) => Effect.sync(() => db.close()))

const withClient = <A, E>(body: (sql: SqlClient.SqlClient, file: string) => Effect.Effect<A, E, Scope.Scope>) =>
  Effect.scoped(Effect.gen(function*() {
    const file = yield* tempDb
    // Built in the test's scope: `Effect.provide` would close the connection as soon as it returned.
    const sql = Context.get(yield* Layer.build(Storage.layerSqlite({ filename: file })), SqlClient.SqlClient)
    yield* sql`CREATE TABLE t (n INTEGER)`
    return yield* body(sql, file)
  }))

describe("Storage.layerSqlite", () => {
  it.live("takes the write lock at BEGIN, so a transaction that reads first never fails when it writes", () =>
    withClient((sql, file) =>
      Effect.gen(function*() {
        const other = yield* rawConnection(file)
        const inside = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const transaction = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT count(*) FROM t`
          yield* Deferred.succeed(inside, void 0)
          yield* Deferred.await(release)
          yield* sql`INSERT INTO t VALUES (1)`
        })).pipe(Effect.fork)
        yield* Deferred.await(inside)
        // A deferred BEGIN would hold only a read snapshot here, and the other writer would get in first.
        const blocked = Either.try(() => other.exec("BEGIN IMMEDIATE"))
        assert.isTrue(Either.isLeft(blocked))
        assert.match(String((blocked as Either.Left<any, void>).left.code), /^SQLITE_BUSY/)
        yield* Deferred.succeed(release, void 0)
        yield* Fiber.join(transaction)
        assert.deepStrictEqual(yield* sql`SELECT n FROM t`, [{ n: 1 }])
      })
    ))

  it.live("waits for another process's write lock without holding the event loop", () =>
    withClient((sql, file) =>
      Effect.gen(function*() {
        const other = yield* rawConnection(file)
        other.exec("BEGIN IMMEDIATE")
        let ticks = 0
        const ticker = setInterval(() => ticks++, 10)
        const release = setTimeout(() => other.exec("COMMIT"), 300)
        yield* sql`INSERT INTO t VALUES (2)`.pipe(
          Effect.zipRight(sql.withTransaction(sql`INSERT INTO t VALUES (3)`)),
          Effect.ensuring(Effect.sync(() => {
            clearInterval(ticker)
            clearTimeout(release)
          }))
        )
        assert.deepStrictEqual(yield* sql`SELECT n FROM t ORDER BY n`, [{ n: 2 }, { n: 3 }])
        // 300 ms locked; with SQLite's own handler waiting (synchronously) the whole time, no tick would run.
        assert.isAtLeast(ticks, 10)
      })
    ))

  it.live("fails a statement inside a transaction rather than retrying it alone", () =>
    withClient((sql) =>
      Effect.gen(function*() {
        const failed = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO t VALUES (4)`
          yield* sql`INSERT INTO missing VALUES (1)`
        })).pipe(Effect.flip)
        assert.strictEqual(failed._tag, "SqlError")
        assert.deepStrictEqual(yield* sql`SELECT n FROM t`, [])
      })
    ))

  it.effect("reports a file it cannot open as a SqlError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Effect.scoped(Effect.provide(SqlClient.SqlClient, Storage.layerSqlite({ filename: "/nonexistent/dir/x.db" })))
      )
      assert.strictEqual(error._tag, "SqlError")
    }))
})

describe("Storage.parse", () => {
  it("reads sqlite:FILE", () => {
    assert.deepStrictEqual(
      Storage.parse("sqlite:./cluster.db"),
      Either.right({ _tag: "Sqlite", filename: "./cluster.db" })
    )
    assert.deepStrictEqual(
      Storage.parse("sqlite:/tmp/a b.db"),
      Either.right({ _tag: "Sqlite", filename: "/tmp/a b.db" })
    )
  })

  it("keeps a postgres URL redacted, and quotes it in no error", () => {
    const spec = Storage.parse("postgres://user:secret@127.0.0.1:5432/db")
    assert.isTrue(
      Either.isRight(spec) && spec.right._tag === "Postgres" &&
        Redacted.value(spec.right.url) === "postgres://user:secret@127.0.0.1:5432/db"
    )
    assert.notInclude(String(Either.getOrThrow(spec)), "secret")
    assert.isTrue(Either.isRight(Storage.parse("postgresql://h/db")))
  })

  it("refuses anything else, and an empty file name", () => {
    for (const bad of ["sqlite:", "sqlite:  ", "mysql://h/db", "./cluster.db", ""]) {
      const parsed = Storage.parse(bad)
      assert.isTrue(Either.isLeft(parsed), bad)
    }
  })

  it("refuses a postgres URL that does not parse, without quoting it", () => {
    const parsed = Storage.parse("postgres://user:secret@[::1/db")
    assert.isTrue(Either.isLeft(parsed))
    assert.notInclude(NodeUtil.inspect(parsed, { depth: 10 }), "secret")
  })
})

describe("Storage.layer over PostgreSQL", () => {
  const server = postgres()

  it.live("gives an SqlClient on the pg dialect for a postgres:// URL", () =>
    Effect.scoped(Effect.gen(function*() {
      const spec = yield* server.fresh
      const parsed = Either.getOrThrow(Storage.parse(spec))
      assert.strictEqual(parsed._tag, "Postgres")
      const sql = Context.get(yield* Layer.build(Storage.layer(parsed)), SqlClient.SqlClient)
      assert.strictEqual(sql.onDialectOrElse({ pg: () => "pg", orElse: () => "other" }), "pg")
      yield* sql`CREATE TABLE t (n BIGINT)`
      yield* sql.withTransaction(sql`INSERT INTO t VALUES (${2 ** 40})`)
      assert.deepStrictEqual(yield* sql`SELECT n FROM t`, [{ n: String(2 ** 40) }])
    })))

  it.live("fails to connect with a StorageError that names the code and quotes neither URL nor password", () =>
    Effect.gen(function*() {
      // A port nothing listens on: the server's own, once it is stopped, is not known here; port 1 is
      // privileged and unused.
      const spec = Either.getOrThrow(Storage.parse("postgres://ada:hunter2secret@127.0.0.1:1/db"))
      assert.notInclude(NodeUtil.inspect(spec, { depth: 10 }), "hunter2secret")
      const error = yield* Effect.flip(Effect.scoped(Effect.provide(SqlClient.SqlClient, Storage.layer(spec))))
      assert.strictEqual(error._tag, "StorageError")
      assert.strictEqual(error.message, "could not connect to PostgreSQL (ECONNREFUSED)")
      const shown = NodeUtil.inspect(error, { depth: 10 }) + String(error) + JSON.stringify(error)
      assert.notInclude(shown, "hunter2secret")
      assert.notInclude(shown, "ada")
    }))
})

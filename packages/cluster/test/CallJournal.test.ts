import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as CallJournal from "../src/CallJournal.js"
import * as Durable from "../src/Durable.js"
import type { TestStorage } from "./fixtures/Storages.js"
import { journalLayer, postgres, sqlite } from "./fixtures/Storages.js"

const limits: Durable.Limits = {
  maxReadAttempts: 2,
  maxAttempts: 3,
  backoff: { baseMillis: 100, factor: 2, capMillis: 150 }
}

const key = (callId: string, turnId = "t1", sessionId = "s1"): Durable.Key => ({ sessionId, turnId, callId })

const call = (callId: string, kind: Durable.Kind, seq = 0, turnId = "t1"): CallJournal.Call => ({
  key: key(callId, turnId),
  toolName: `tool_${kind}`,
  kind,
  seq
})

const ok = (callId: string, text: string): ToolResult.ToolResult => ({
  callId,
  toolName: "tool",
  content: [{ _tag: "text", text }],
  isError: false,
  meta: { durationMillis: 12, redactions: 0 }
})

const events = (k: Durable.Key) =>
  Effect.map(
    Effect.flatMap(CallJournal.CallJournal, (journal) => journal.get(k)),
    (record) => Option.getOrThrow(record).events.map((e) => `${e.event}:${e.attempt}:${e.detail}`)
  )

const suite = (storage: TestStorage) => {
  /** Runs `body` against a fresh journal. */
  const withJournal = <A, E>(
    body: Effect.Effect<A, E, CallJournal.CallJournal | SqlClient.SqlClient>,
    journalLimits: Durable.Limits = limits
  ) => Effect.scoped(Effect.flatMap(storage.fresh, (spec) => Effect.provide(body, journalLayer(spec, journalLimits))))

  it.effect("runs a new call as attempt 1 with the call's idempotency key, then replays its result", () =>
    withJournal(Effect.gen(function*() {
      const journal = yield* CallJournal.CallJournal
      const first = yield* journal.begin(call("c1", "effect"), "r1")
      assert.strictEqual(first._tag, "Run")
      if (first._tag !== "Run") return
      assert.strictEqual(first.attempt, 1)
      assert.strictEqual(first.idempotencyKey, Durable.idempotencyKey(key("c1")))
      assert.match(first.idempotencyKey, /^idk_[0-9a-f]{32}$/)
      const result = ok("c1", "wrote 3 lines — «ünïcödé» 🚀")
      assert.isTrue(yield* journal.finish(key("c1"), 1, result, "r1"))

      const again = yield* journal.begin(call("c1", "effect"), "r2")
      assert.strictEqual(again._tag, "Recorded")
      if (again._tag !== "Recorded") return
      assert.strictEqual(again.decision._tag, "Replay")
      assert.deepStrictEqual(again.result, result)
      const stored = Option.getOrThrow(yield* journal.get(key("c1")))
      assert.strictEqual(again.json, stored.result)
      assert.strictEqual(stored.state, "finished")
      assert.deepStrictEqual(yield* events(key("c1")), ["started:1:first_run", "finished:1:null", "replayed:1:replay"])
    })))

  it.effect("fences a stale attempt: its finish loses to the attempt that took the call over", () =>
    withJournal(Effect.gen(function*() {
      const journal = yield* CallJournal.CallJournal
      assert.strictEqual((yield* journal.begin(call("r", "read"), "r1"))._tag, "Run")
      const second = yield* journal.begin(call("r", "read"), "r2")
      assert.deepInclude(second, { _tag: "Run", attempt: 2, rule: "rerun_read" })
      // r1 was only stalled: its late finish must not overwrite what r2 owns.
      assert.isFalse(yield* journal.finish(key("r"), 1, ok("r", "stale"), "r1"))
      assert.isTrue(yield* journal.finish(key("r"), 2, ok("r", "fresh"), "r2"))
      assert.isFalse(yield* journal.finish(key("r"), 2, ok("r", "twice"), "r2"))
      const replay = yield* journal.begin(call("r", "read"), "r3")
      assert.strictEqual(
        replay._tag === "Recorded" && replay.result.content[0]!._tag === "text" &&
          replay.result.content[0]!.text,
        "fresh"
      )
      assert.deepStrictEqual(yield* events(key("r")), [
        "started:1:first_run",
        "rerun_read:2:rerun_read",
        "fenced:1:finish",
        "finished:2:null",
        "fenced:2:finish",
        "replayed:2:replay"
      ])
    })))

  it.effect("never runs a started effect call again: outcome_unknown, and the late finish loses", () =>
    withJournal(Effect.gen(function*() {
      const journal = yield* CallJournal.CallJournal
      yield* journal.begin(call("e", "effect"), "r1")
      const redelivered = yield* journal.begin(call("e", "effect"), "r2")
      assert.strictEqual(redelivered._tag, "Recorded")
      if (redelivered._tag !== "Recorded") return
      assert.deepInclude(redelivered.decision, { _tag: "OutcomeUnknown", rule: "effect_started", attempt: 1 })
      assert.deepInclude(redelivered.result.error, { code: "outcome_unknown", outcomeUnknown: true, retryable: false })
      assert.strictEqual(redelivered.result.callId, "e")
      assert.isFalse(yield* journal.finish(key("e"), 1, ok("e", "late"), "r1"))
      const third = yield* journal.begin(call("e", "effect"), "r3")
      assert.strictEqual(third._tag === "Recorded" && third.json, redelivered.json)
      assert.strictEqual(Option.getOrThrow(yield* journal.get(key("e"))).state, "outcome_unknown")
    })))

  it.effect("retries an idempotent call with the same key and a growing, capped backoff, then gives its outcome up", () =>
    withJournal(Effect.gen(function*() {
      const journal = yield* CallJournal.CallJournal
      const attempts: Array<CallJournal.Begun> = []
      for (let i = 0; i < 4; i++) attempts.push(yield* journal.begin(call("i", "idempotent"), `r${i}`))
      const runs = attempts.flatMap((a) => a._tag === "Run" ? [a] : [])
      assert.deepStrictEqual(runs.map((r) => r.attempt), [1, 2, 3])
      assert.deepStrictEqual(runs.map((r) => Duration.toMillis(r.delay)), [0, 100, 150])
      assert.deepStrictEqual(new Set(runs.map((r) => r.idempotencyKey)).size, 1)
      const last = attempts[3]!
      assert.isTrue(
        last._tag === "Recorded" && last.decision._tag === "OutcomeUnknown" &&
          last.decision.rule === "attempts_exhausted"
      )
      assert.include(last._tag === "Recorded" ? last.result.content[0] : undefined, {
        text: `tool_idempotent was started 3 times, and each time the runner executing it stopped before it ` +
          `recorded a result. Every attempt carried the idempotency key ${Durable.idempotencyKey(key("i"))}, so a ` +
          `system that honours the key applied it at most once, but whether it was applied is unknown. It was not ` +
          `run again.`
      })
    })))

  it.effect("gives a read up after maxReadAttempts lost runners; it changed nothing", () =>
    withJournal(Effect.gen(function*() {
      const journal = yield* CallJournal.CallJournal
      yield* journal.begin(call("g", "read"), "r1")
      yield* journal.begin(call("g", "read"), "r2")
      const third = yield* journal.begin(call("g", "read"), "r3")
      assert.isTrue(third._tag === "Recorded" && third.decision._tag === "GiveUp")
      assert.deepInclude(third._tag === "Recorded" ? third.result.error : undefined, {
        code: "gave_up",
        outcomeUnknown: false
      })
      assert.strictEqual(Option.getOrThrow(yield* journal.get(key("g"))).state, "gave_up")
    })))

  it.effect("applies the stricter kind when a started call's tool was redeclared", () =>
    withJournal(Effect.gen(function*() {
      const journal = yield* CallJournal.CallJournal
      yield* journal.begin(call("x", "effect"), "r1")
      const asRead = yield* journal.begin(call("x", "read"), "r2")
      assert.isTrue(asRead._tag === "Recorded" && asRead.decision._tag === "OutcomeUnknown")
    })))

  it.effect("records an interrupted attempt as outcome_unknown, fenced like a finish", () =>
    withJournal(Effect.gen(function*() {
      const journal = yield* CallJournal.CallJournal
      yield* journal.begin(call("u", "idempotent"), "r1")
      yield* journal.begin(call("u", "idempotent"), "r2")
      assert.isFalse(yield* journal.recordUnknown(key("u"), 1, "r1"))
      assert.isTrue(yield* journal.recordUnknown(key("u"), 2, "r2"))
      const record = Option.getOrThrow(yield* journal.get(key("u")))
      assert.strictEqual(record.state, "outcome_unknown")
      assert.include(record.result, "was stopped while it ran")
      assert.isFalse(yield* journal.finish(key("u"), 2, ok("u", "late"), "r2"))
      assert.isFalse(yield* journal.recordUnknown(key("missing"), 1, "r1"))
    })))

  it.effect("lists a session's calls in turn order with their histories, or only those in flight", () =>
    withJournal(Effect.gen(function*() {
      const journal = yield* CallJournal.CallJournal
      yield* journal.begin(call("b", "read", 1), "r1")
      yield* journal.begin(call("a", "effect", 0), "r1")
      yield* journal.begin({ ...call("z", "read"), key: key("z", "t1", "other") }, "r1")
      yield* journal.finish(key("b"), 1, ok("b", "done"), "r1")
      const all = yield* journal.listSession("s1")
      // Under the TestClock every call starts at 0, so the turn's order decides.
      assert.deepStrictEqual(all.map((c) => [c.key.callId, c.seq, c.state, c.events.length]), [
        ["a", 0, "started", 1],
        ["b", 1, "finished", 2]
      ])
      const inFlight = yield* journal.listSession("s1", { inFlight: true })
      assert.deepStrictEqual(inFlight.map((c) => c.key.callId), ["a"])
      assert.strictEqual(inFlight[0]!.result, null)
      assert.deepStrictEqual(yield* journal.listSession("nobody"), [])
    })))

  it.effect("keeps calls of the same id in different turns and sessions apart", () =>
    withJournal(Effect.gen(function*() {
      const journal = yield* CallJournal.CallJournal
      const keys = [key("c", "t1"), key("c", "t2"), key("c", "t1", "s2")]
      for (const k of keys) {
        const begun = yield* journal.begin({ key: k, toolName: "w", kind: "effect", seq: 0 }, "r1")
        assert.deepInclude(begun, { _tag: "Run", attempt: 1, idempotencyKey: Durable.idempotencyKey(k) })
      }
      assert.strictEqual(new Set(keys.map(Durable.idempotencyKey)).size, 3)
    })))

  it.effect("writes a decision and its event together or not at all", () =>
    withJournal(Effect.gen(function*() {
      const journal = yield* CallJournal.CallJournal
      const sql = yield* SqlClient.SqlClient
      // The history cannot be written for this one call: its decision must not be either.
      yield* sql.onDialectOrElse({
        pg: () =>
          Effect.zipRight(
            sql`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
              BEGIN IF NEW.call_id = 'boom' THEN RAISE EXCEPTION 'no history'; END IF; RETURN NEW; END $$`,
            sql`CREATE TRIGGER refuse BEFORE INSERT ON tr_call_events FOR EACH ROW EXECUTE FUNCTION refuse()`
          ),
        orElse: () =>
          sql`CREATE TRIGGER refuse BEFORE INSERT ON tr_call_events WHEN NEW.call_id = 'boom'
            BEGIN SELECT RAISE(ABORT, 'no history'); END`
      })
      const failed = yield* Effect.flip(journal.begin(call("boom", "effect"), "r1"))
      assert.strictEqual(failed._tag, "SqlError")
      assert.isTrue(Option.isNone(yield* journal.get(key("boom"))))
      yield* sql.onDialectOrElse({
        pg: () => sql`DROP TRIGGER refuse ON tr_call_events`,
        orElse: () => sql`DROP TRIGGER refuse`
      })
      assert.strictEqual((yield* journal.begin(call("boom", "effect"), "r1"))._tag, "Run")
    })))

  it.effect("migrates once: a second journal on the same database finds its tables", () =>
    Effect.scoped(Effect.gen(function*() {
      const spec = yield* storage.fresh
      const once = Effect.flatMap(CallJournal.CallJournal, (journal) => journal.begin(call("m", "effect"), "r"))
      yield* Effect.provide(once, journalLayer(spec))
      const second = yield* Effect.provide(once, journalLayer(spec))
      assert.strictEqual(second._tag, "Recorded")
      const migrations = yield* Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT migration_id, name FROM tr_migrations`),
        Layer.orDie(journalLayer(spec))
      )
      assert.deepStrictEqual(migrations, [{ migration_id: 1, name: "create_journal" }])
    })))

  it.effect("reads times, ids and attempts back as numbers (PostgreSQL's driver reads BIGINT as a string)", () =>
    withJournal(Effect.gen(function*() {
      const journal = yield* CallJournal.CallJournal
      yield* TestClock.setTime(1_700_000_000_123)
      yield* journal.begin(call("n", "read"), "r1")
      yield* journal.begin(call("n", "read"), "r2")
      yield* journal.finish(key("n"), 2, ok("n", "done"), "r2")
      const record = Option.getOrThrow(yield* journal.get(key("n")))
      assert.deepInclude(record, { seq: 0, attempt: 2, startedAt: 1_700_000_000_123, finishedAt: 1_700_000_000_123 })
      assert.deepStrictEqual(record.events.map((e) => [typeof e.id, e.at, e.attempt]), [
        ["number", 1_700_000_000_123, 1],
        ["number", 1_700_000_000_123, 2],
        ["number", 1_700_000_000_123, 2]
      ])
      assert.isTrue(record.events.every((e, i) => i === 0 || e.id > record.events[i - 1]!.id))
      const [listed] = yield* journal.listSession("s1")
      assert.deepStrictEqual(listed, record)
    })))

  it.live("takes many concurrent deliveries of one call in turn: one attempt 1, one decision each, none redone to death", () =>
    withJournal(
      Effect.gen(function*() {
        const journal = yield* CallJournal.CallJournal
        const kinds: ReadonlyArray<Durable.Kind> = ["read", "idempotent", "effect"]
        // Ten deliveries of each call at once, over the client's pool (ten connections on PostgreSQL).
        // The row lock makes them take turns, each deciding on what the one before recorded; with only
        // the compare-and-set, all but one would redo their transaction at every step (up to ten times
        // for a call allowed eight attempts), past the journal's bound on redos.
        const calls = 12
        const deliveries = Array.from({ length: calls * 10 }, (_, i) => {
          const k = Math.floor(i / 10)
          return call(`k${k}`, kinds[k % 3]!, k)
        })
        const begun = yield* Effect.forEach(deliveries, (c, i) => journal.begin(c, `r${i}`), { concurrency: 10 })
        for (let k = 0; k < calls; k++) {
          const own = begun.slice(k * 10, k * 10 + 10)
          assert.strictEqual(own.filter((b) => b._tag === "Run" && b.attempt === 1).length, 1, `k${k}`)
          const record = Option.getOrThrow(yield* journal.get(key(`k${k}`)))
          // One decision recorded per delivery, and as many runs as the history says were handed out.
          assert.strictEqual(record.events.length, 10)
          const runs = own.filter((b) => b._tag === "Run")
          assert.strictEqual(
            runs.length,
            record.events.filter((e) => ["started", "rerun_read", "retry_idempotent"].includes(e.event)).length
          )
          assert.strictEqual(runs.length, [8, 8, 1][k % 3])
        }
      }),
      { ...limits, maxReadAttempts: 8, maxAttempts: 8 }
    ))
}

describe("CallJournal over SQLite", () => suite(sqlite))

describe("CallJournal over PostgreSQL", () => suite(postgres()))

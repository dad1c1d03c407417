/**
 * The durable runtime across the death of real OS processes: each process
 * runs turn `t1` of session `s1` on `DurableRuntime.layer` over one journal
 * (an SQLite file, or a PostgreSQL database), and is SIGKILLed while a
 * handler runs.
 *
 * Core runs a turn's writes one at a time (a call that is not read-only
 * runs alone, after what comes before it), so one kill catches at most one
 * write in its handler. Each rule therefore gets a kill of its own, in the
 * turn's order (`create_ticket` effect, `send_email` effect, `put_object`
 * idempotent, `read_notes` read):
 *
 * - A1 finishes `create_ticket`, is killed in `send_email`;
 * - A2 (the same turn again) is killed in `put_object`, attempt 1;
 * - A3 is killed in `read_notes`, attempt 1;
 * - B runs the turn to its end; C sends it once more.
 *
 * Every handler writes to a ledger file outside the runtime before its
 * side effect (`begin`) and after it (`end`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as IdempotencyKey from "@tool-runtime/core/IdempotencyKey"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as CallJournal from "../src/CallJournal.js"
import { tempDir } from "./fixtures/Files.js"
import { bundle, spawn, survivors, waitUntil } from "./fixtures/Processes.js"
import type { TestStorage } from "./fixtures/Storages.js"
import { journalLayer, postgres, sqlite } from "./fixtures/Storages.js"

const key = (callId: string) => IdempotencyKey.make({ sessionId: "s1", turnId: "t1" }, callId)
const K = { ticket: key("c4"), email: key("c1"), put: key("c2"), read: key("c3") }

const resultsOf = (stdout: string): string => {
  const line = stdout.split("\n").find((l) => l.startsWith("results "))
  assert.isDefined(line, stdout)
  return line!.slice("results ".length)
}

const suite = (storage: TestStorage) =>
  it.live(
    "replays what finished, re-runs the read, retries the idempotent write with its key, never re-runs the email",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const script = yield* bundle("TurnRunner")
        const dir = yield* tempDir
        const spec = yield* storage.fresh
        const ledgerFile = NodePath.join(dir, "ledger.txt")
        NodeFs.writeFileSync(ledgerFile, "")
        const ledger = () => NodeFs.readFileSync(ledgerFile, "utf8").split("\n").filter((l) => l !== "")
        const token = `tr-killed-${process.pid}`

        // Runs the turn in a fresh process, blocking in `block`'s handler; SIGKILLs it once `line` is
        // in the ledger, and checks that nothing of it lives on.
        const killedIn = (name: string, block: string, line: string) =>
          Effect.gen(function*() {
            const child = yield* spawn(script, [spec, ledgerFile, `${token}-${name}`, block])
            yield* waitUntil(line, () => ledger().includes(line), child)
            assert.isFalse(child.hasExited(), `${name} is blocked in ${block}`)
            yield* child.kill
            const exit = yield* child.exited
            assert.deepStrictEqual(exit, { code: null, signal: "SIGKILL" })
            assert.deepStrictEqual(survivors(child.pid, `${token}-${name}`), [], `what is left of ${name}`)
          })
        const completes = (name: string) =>
          Effect.gen(function*() {
            const child = yield* spawn(script, [spec, ledgerFile, `${token}-${name}`, "-"])
            const exit = yield* child.exited
            assert.deepStrictEqual(exit, { code: 0, signal: null }, child.stderr())
            return resultsOf(child.stdout())
          })

        yield* killedIn("A1", "send_email", `begin send_email ${K.email} 1`)
        assert.deepStrictEqual(ledger(), [
          `begin create_ticket ${K.ticket} 1`,
          `end create_ticket ${K.ticket} 1`,
          `begin send_email ${K.email} 1`
        ])
        yield* killedIn("A2", "put_object", `begin put_object ${K.put} 1`)
        yield* killedIn("A3", "read_notes", `begin read_notes ${K.read} 1`)
        const b = yield* completes("B")

        const expected = [
          `begin create_ticket ${K.ticket} 1`,
          `end create_ticket ${K.ticket} 1`,
          // Began once, never again: A2 found it started and recorded its outcome as unknown.
          `begin send_email ${K.email} 1`,
          `begin put_object ${K.put} 1`,
          // A3: the same key, the next attempt, to its end.
          `begin put_object ${K.put} 2`,
          `end put_object ${K.put} 2`,
          `begin read_notes ${K.read} 1`,
          // B: the read again.
          `begin read_notes ${K.read} 2`,
          `end read_notes ${K.read} 2`
        ]
        assert.deepStrictEqual(ledger(), expected)

        const results = JSON.parse(b) as ReadonlyArray<ToolResult.ToolResult>
        assert.deepStrictEqual(results.map((r) => [r.callId, r.toolName]), [
          ["c4", "create_ticket"],
          ["c1", "send_email"],
          ["c2", "put_object"],
          ["c3", "read_notes"]
        ])
        const [ticket, email, put, read] = results
        assert.isUndefined(ticket!.error)
        assert.deepStrictEqual(ticket!.content, [{ _tag: "text", text: `opened "printer on fire" (attempt 1)` }])
        assert.strictEqual(email!.isError, true)
        assert.strictEqual(email!.error?.code, "outcome_unknown")
        assert.strictEqual(email!.error?.outcomeUnknown, true)
        assert.deepStrictEqual(put!.content, [{ _tag: "text", text: "stored reports/q3.txt (attempt 2)" }])
        assert.deepStrictEqual(read!.content, [{ _tag: "text", text: "3 notes (attempt 2)" }])

        // Sent once more: the same bytes, and nothing runs.
        const c = yield* completes("C")
        assert.strictEqual(c, b)
        assert.deepStrictEqual(ledger(), expected)

        // The journal holds every call's one result, and the history says what happened to each.
        const calls = yield* Effect.provide(
          Effect.flatMap(CallJournal.CallJournal, (journal) => journal.listSession("s1")),
          journalLayer(spec)
        )
        const byId = new Map(calls.map((call) => [call.key.callId, call]))
        const history = (callId: string) =>
          Option.fromNullable(byId.get(callId)).pipe(
            Option.getOrThrow,
            (call) => call.events.map((e) => `${e.runner.slice(token.length + 1)}:${e.event}:${e.attempt}`)
          )
        assert.deepStrictEqual(calls.map((call) => [call.key.callId, call.state, call.attempt]), [
          ["c4", "finished", 1],
          ["c1", "outcome_unknown", 1],
          ["c2", "finished", 2],
          ["c3", "finished", 2]
        ])
        assert.deepStrictEqual(calls.map((call) => JSON.parse(call.result!)), [...results])
        assert.deepStrictEqual(history("c1"), [
          "A1:started:1",
          "A2:outcome_unknown:1",
          "A3:replayed:1",
          "B:replayed:1",
          "C:replayed:1"
        ])
        assert.deepStrictEqual(history("c2"), [
          "A2:started:1",
          "A3:retry_idempotent:2",
          "A3:finished:2",
          "B:replayed:2",
          "C:replayed:2"
        ])
        assert.deepStrictEqual(history("c3"), ["A3:started:1", "B:rerun_read:2", "B:finished:2", "C:replayed:2"])
      })),
    60_000
  )

describe("DurableRuntime across killed processes over SQLite", () => suite(sqlite))

describe("DurableRuntime across killed processes over PostgreSQL", () => suite(postgres()))

/**
 * Separate OS processes, each with its own connection (or pool), racing
 * `begin` on one journal, an SQLite file or a PostgreSQL database: the same
 * keys (exactly one of them may run attempt 1) and many keys of their own
 * (contention on the write lock, or on the rows), with the journal's
 * migrations racing too on a fresh database. No error (`SQLITE_BUSY`, a
 * conflict, a failed migration) may escape.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeChildProcess from "node:child_process"
import * as CallJournal from "../src/CallJournal.js"
import { bundle } from "./fixtures/Processes.js"
import type { TestStorage } from "./fixtures/Storages.js"
import { journalLayer, postgres, sqlite } from "./fixtures/Storages.js"

const PROCESSES = 3
const SHARED = 240
const OWN = 120

interface Report {
  readonly name: string
  readonly decisions: ReadonlyArray<{ key: string; tag: string; attempt: number; rule: string }>
  readonly errors: ReadonlyArray<string>
}

const spawn = (script: string, spec: string, name: string) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      NodeChildProcess.spawn(process.execPath, [script, spec, name, String(SHARED), String(OWN)], {
        stdio: ["pipe", "pipe", "pipe"]
      })
    ),
    (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
  ).pipe(Effect.map((child) => {
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => out += chunk.toString())
    child.stderr.on("data", (chunk: Buffer) => err += chunk.toString())
    const ready = Effect.async<void, Error>((resume) => {
      const check = () => {
        if (out.startsWith("ready\n")) resume(Effect.void)
        else if (child.exitCode !== null) resume(Effect.fail(new Error(`${name} exited: ${err}`)))
        else setTimeout(check, 10)
      }
      check()
    })
    const report = Effect.async<Report, Error>((resume) => {
      child.once("exit", (code) =>
        code === 0
          ? resume(Effect.try(() => JSON.parse(out.slice("ready\n".length)) as Report))
          : resume(Effect.fail(new Error(`${name} exited with ${code}: ${err}`))))
    })
    return { go: Effect.sync(() => child.stdin.end("go\n")), ready, report }
  }))

const suite = (storage: TestStorage) =>
  it.live(
    "gives exactly one process attempt 1 of each call, and lets no error escape",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const script = yield* bundle("Racer")
        const spec = yield* storage.fresh
        const racers = yield* Effect.forEach(
          Array.from({ length: PROCESSES }, (_, i) => `p${i}`),
          (name) => spawn(script, spec, name)
        )
        yield* Effect.forEach(racers, (racer) => racer.ready, { concurrency: "unbounded" })
        yield* Effect.forEach(racers, (racer) => racer.go)
        const reports = yield* Effect.forEach(racers, (racer) => racer.report, { concurrency: "unbounded" })

        for (const report of reports) {
          assert.deepStrictEqual(report.errors, [], `${report.name} saw errors`)
          assert.strictEqual(report.decisions.length, SHARED + OWN)
        }
        const byKey = new Map<string, Array<{ tag: string; attempt: number; rule: string }>>()
        for (const report of reports) {
          for (const d of report.decisions) byKey.set(d.key, [...(byKey.get(d.key) ?? []), d])
        }
        assert.strictEqual(byKey.size, SHARED + PROCESSES * OWN)
        const rules = new Set(reports.flatMap((r) => r.decisions.map((d) => d.rule)))
        // The deferred finishes make the other processes find calls started: every rule gets exercised.
        for (const rule of ["first_run", "replay", "rerun_read", "retry_idempotent", "effect_started"]) {
          assert.isTrue(rules.has(rule), rule)
        }
        for (const [key, decisions] of byKey) {
          const firsts = decisions.filter((d) => d.tag === "Run" && d.attempt === 1)
          assert.strictEqual(firsts.length, 1, `${key}: ${JSON.stringify(decisions)}`)
          assert.strictEqual(decisions.filter((d) => d.rule === "first_run").length, 1)
          if (key.startsWith("shared/")) assert.strictEqual(decisions.length, PROCESSES)
          // Effect calls are c2, c5, …: never run twice, whoever delivered them.
          if (Number(key.split("/c")[1]) % 3 === 2) {
            assert.strictEqual(decisions.filter((d) => d.tag === "Run").length, 1)
          }
        }

        // The file agrees: one history per call, one decision per delivery, every call settled.
        const checked = Effect.gen(function*() {
          const journal = yield* CallJournal.CallJournal
          const sql = yield* SqlClient.SqlClient
          const shared = yield* journal.listSession("shared")
          assert.strictEqual(shared.length, SHARED)
          for (const call of shared) {
            assert.notStrictEqual(call.state, "started", call.key.callId)
            // The finish that won is the latest attempt's: every stale one was fenced.
            if (call.state === "finished") {
              assert.include(call.result, ` attempt ${call.attempt}"`)
            }
            const decisions = call.events.filter((e) => e.event !== "finished" && e.event !== "fenced")
            assert.strictEqual(decisions.length, PROCESSES)
          }
          // PostgreSQL's count is a BIGINT, read as a string.
          const inFlight = yield* sql<
            { n: number | string }
          >`SELECT count(*) AS n FROM tr_calls WHERE state = 'started'`
          assert.strictEqual(Number(inFlight[0]!.n), 0)
        })
        yield* Effect.provide(checked, Layer.orDie(journalLayer(spec)))
      })),
    60_000
  )

describe("CallJournal across processes over SQLite", () => suite(sqlite))

describe("CallJournal across processes over PostgreSQL", () => suite(postgres()))

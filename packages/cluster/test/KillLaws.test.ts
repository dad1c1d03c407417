/**
 * The durable laws of a whole runtime, on random turns and random kills.
 *
 * Each run makes a turn of random kinds (read-only, `idempotent: true`,
 * plain writes) and submits it to a durable runtime over one SQLite file
 * several times: first up to three times with a kill at a random point
 * (before a call's `begin`, after `begin` before its side effect, after the
 * side effect before `finish`, after `finish`), then twice to its end.
 *
 * The kills are SIMULATED in this one process, as a real process per
 * submission would make a run take seconds (`KilledRunner.test.ts` kills
 * real ones): each submission is a "process" of its own, a runtime and an
 * SQLite connection built for it alone; killing it interrupts its turn's
 * fiber, lets nothing of it write again (its journal and its handlers stop
 * dead, so not even core's record of the interruption lands), and closes its
 * connection. Only the SQLite file carries over. Side effects go to a
 * ledger outside the runtime.
 *
 * `PROPERTY_RUNS=<n>` runs more (a fortieth of them here).
 */
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Durability from "@tool-runtime/core/Durability"
import * as IdempotencyKey from "@tool-runtime/core/IdempotencyKey"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as CallJournal from "../src/CallJournal.js"
import type * as Durable from "../src/Durable.js"
import * as DurableRuntime from "../src/DurableRuntime.js"
import * as Storage from "../src/Storage.js"
import { tempDb } from "./fixtures/Files.js"

const RUNS = Number(process.env.PROPERTY_RUNS ?? 1000)

const limits: Durable.Limits = {
  maxReadAttempts: 3,
  maxAttempts: 3,
  backoff: { baseMillis: 1, factor: 2, capMillis: 4 }
}

type Point = "before_begin" | "after_begin" | "after_effect" | "after_finish"
interface Kill {
  readonly call: number
  readonly point: Point
}
interface Scenario {
  readonly kinds: ReadonlyArray<Durable.Kind>
  readonly kills: ReadonlyArray<Kill>
}

const point = FastCheck.constantFrom<Point>("before_begin", "after_begin", "after_effect", "after_finish")

const scenario: FastCheck.Arbitrary<Scenario> = FastCheck.record({
  kinds: FastCheck.array(FastCheck.constantFrom<Durable.Kind>("read", "idempotent", "effect"), {
    minLength: 1,
    maxLength: 5
  }),
  kills: FastCheck.oneof(
    FastCheck.array(FastCheck.record({ call: FastCheck.nat(4), point }), { maxLength: 3 }),
    // The same call killed again and again: reads run out of attempts, idempotent calls too.
    FastCheck.tuple(FastCheck.nat(4), FastCheck.array(point, { minLength: 1, maxLength: 3 })).map(
      ([call, points]) => points.map((p): Kill => ({ call, point: p }))
    )
  )
})

interface Entry {
  readonly phase: "begin" | "effect" | "end"
  readonly callId: string
  readonly key: string
  readonly attempt: number
}

const toolOf: Record<Durable.Kind, string> = { read: "look", idempotent: "put", effect: "send" }

/**
 * One "process": a runtime of its own over `file`, which dies at `kill` if
 * its turn gets there. Succeeds with the turn's results, or with
 * `"killed"`.
 */
const submit = (
  file: string,
  name: string,
  calls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly input: object }>,
  scope: { readonly sessionId: string; readonly turnId: string },
  ledger: Array<Entry>,
  kill: Kill | undefined
) =>
  Effect.gen(function*() {
    let dead = false
    const killed = yield* Deferred.make<void>()
    const attempts = new Map<string, number>()
    const killsAt = (callId: string, point: Point) =>
      kill !== undefined && kill.point === point && callId === calls[kill.call % calls.length]!.id
    // From here on, nothing of this process runs: what it was doing stops where it is.
    const die = Effect.suspend(() => {
      dead = true
      return Effect.zipRight(Deferred.succeed(killed, undefined), Effect.never)
    })

    const handler = (_: unknown, context: Tool.Context) =>
      Effect.suspend(() => {
        if (dead) return Effect.never
        const entry = { callId: context.callId, key: context.idempotencyKey, attempt: attempts.get(context.callId)! }
        ledger.push({ ...entry, phase: "begin" })
        if (killsAt(context.callId, "after_begin")) return die
        ledger.push({ ...entry, phase: "effect" })
        if (killsAt(context.callId, "after_effect")) return die
        ledger.push({ ...entry, phase: "end" })
        return Effect.succeed(`${context.callId} attempt ${entry.attempt}`)
      })
    const tools = [
      Tool.make("look", { description: "Reads.", parameters: {}, readOnly: true, handler }),
      Tool.make("put", { description: "Writes, idempotently.", parameters: {}, idempotent: true, handler }),
      Tool.make("send", { description: "Writes.", parameters: {}, handler })
    ]

    const journal = Layer.effect(
      Durability.Journal,
      Effect.map(DurableRuntime.makeJournal({ runnerId: name }), (inner): Durability.Service => ({
        begin: (call) =>
          Effect.suspend(() => {
            if (dead) return Effect.never
            if (killsAt(call.callId, "before_begin")) return die
            return Effect.flatMap(inner.begin(call), (begun) => {
              if (dead) return Effect.never
              if (begun._tag === "Run") attempts.set(call.callId, begun.attempt)
              return Effect.succeed(begun)
            })
          }),
        finish: (call, attempt, result) =>
          Effect.suspend(() =>
            dead ? Effect.void : Effect.zipRight(
              inner.finish(call, attempt, result),
              killsAt(call.callId, "after_finish") ? die : Effect.void
            )
          )
      }))
    )
    const runtimeLayer = ToolRuntime.layer().pipe(
      Layer.provide([
        journal,
        Registry.layer(tools),
        ArtifactStore.layerMemory(),
        Redactor.layerDefault,
        Policy.layerAllowAll
      ]),
      Layer.provide(CallJournal.layer(limits)),
      Layer.provide(Storage.layerSqlite({ filename: file, synchronous: "normal" }))
    )

    const processScope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(runtimeLayer, processScope)
    const runtime = yield* Effect.provide(ToolRuntime.ToolRuntime, context)
    const turn = yield* Effect.fork(runtime.runTurn(calls, scope))
    const outcome = yield* Effect.raceFirst(
      Effect.map(Fiber.join(turn), (results) => ({ _tag: "done" as const, results })),
      Effect.as(Deferred.await(killed), { _tag: "killed" as const })
    )
    yield* Fiber.interrupt(turn)
    yield* Scope.close(processScope, outcome._tag === "killed" ? ExitKilled : ExitDone)
    return outcome
  })

const ExitKilled = Effect.runSync(Effect.exit(Effect.interrupt))
const ExitDone = Effect.runSync(Effect.exit(Effect.void))

let session = 0

describe("DurableRuntime under random kills (simulated in one process)", () => {
  it.live.prop(
    "one result per call in order; effects at most once; idempotent writes once per key; reads at least once",
    [scenario],
    ([{ kills, kinds }]) =>
      Effect.scoped(Effect.gen(function*() {
        const file = yield* tempDb
        const scope = { sessionId: `s${session++}`, turnId: "t" }
        const calls = kinds.map((kind, i) => ({ id: `c${i}`, name: toolOf[kind], input: {} }))
        const keyOf = (callId: string) => IdempotencyKey.make(scope, callId)
        const ledger: Array<Entry> = []

        for (const [i, kill] of kills.entries()) yield* submit(file, `p${i}`, calls, scope, ledger, kill)
        const final = yield* submit(file, "final", calls, scope, ledger, undefined)
        assert.strictEqual(final._tag, "done")
        if (final._tag !== "done") return
        const results = final.results
        const seen = ledger.length
        const again = yield* submit(file, "again", calls, scope, ledger, undefined)
        assert.strictEqual(again._tag, "done")
        if (again._tag !== "done") return

        // One result per call, in order, paired by id; the next submission replays the same bytes.
        assert.deepStrictEqual(results.map((r) => r.callId), calls.map((c) => c.id))
        assert.strictEqual(JSON.stringify(again.results), JSON.stringify(results))
        assert.strictEqual(ledger.length, seen, "a replay runs nothing")

        for (const [i, kind] of kinds.entries()) {
          const callId = `c${i}`
          const result = results[i]!
          const mine = ledger.filter((e) => e.callId === callId)
          const begins = mine.filter((e) => e.phase === "begin")
          const ends = mine.filter((e) => e.phase === "end")
          const why = `${callId} (${kind}): ${JSON.stringify(mine)} → ${ToolResult.text(result)}`
          // Every attempt of a call carries its one key, and attempts only go up.
          for (const entry of mine) assert.strictEqual(entry.key, keyOf(callId), why)
          assert.deepStrictEqual(begins.map((e) => e.attempt), begins.map((_, n) => begins[0]!.attempt + n), why)
          assert.notStrictEqual(result.error?.code, "not_executed", why)
          if (result.error === undefined) {
            // A success is the result of an attempt that ran to its end.
            const attempt = Number(ToolResult.text(result).split(" attempt ")[1])
            assert.isTrue(ends.some((e) => e.attempt === attempt), why)
          }
          switch (kind) {
            case "effect":
              // At most once, whatever died when.
              assert.isAtMost(begins.length, 1, why)
              assert.isAtMost(mine.filter((e) => e.phase === "effect").length, 1, why)
              if (result.error !== undefined) {
                assert.strictEqual(result.error.code, "outcome_unknown", why)
                assert.isTrue(result.error.outcomeUnknown, why)
                assert.strictEqual(begins.length, 1, `only a call that began can have an unknown outcome: ${why}`)
              } else {
                assert.strictEqual(ends.length, 1, why)
              }
              break
            case "idempotent":
              assert.isAtMost(begins.length, limits.maxAttempts, why)
              if (result.error === undefined) {
                // Its key's effect landed (the system it reaches applies a key once).
                assert.isTrue(mine.some((e) => e.phase === "effect"), why)
              } else {
                assert.strictEqual(result.error.code, "outcome_unknown", why)
                assert.strictEqual(begins.length, limits.maxAttempts, why)
              }
              break
            case "read":
              if (result.error === undefined) assert.isAtLeast(ends.length, 1, why)
              else assert.strictEqual(result.error.code, "gave_up", why)
              break
          }
        }
      })),
    { fastCheck: { numRuns: Math.max(1, Math.ceil(RUNS / 40)) }, timeout: 30_000 + RUNS * 10 }
  )
})

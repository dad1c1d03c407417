/**
 * The cluster's law under chaos (issue 27): three real runner processes on
 * loopback and one client process that sends 100 random turns over eight
 * sessions (effects, idempotent writes and reads, each sleeping a few
 * milliseconds to a few hundred), while the test SIGKILLs a random runner
 * at random moments (often one caught inside a handler) and starts it
 * again, under the same name and port or a new one, so runners are always
 * up. Over SQLite and over PostgreSQL.
 *
 * Checked against a ledger outside the runtime (`begin`/`end` lines the
 * handlers append) and a store that honours idempotency keys (a file per
 * key, created atomically and only if absent, as `O_EXCL` does):
 *
 * - every turn is answered once, with one result per call, in call order,
 *   paired by id and tool;
 * - no result is lost: no `not_executed`, no `cluster_unavailable`, no other
 *   error than `outcome_unknown` (and `gave_up` only for a read that began
 *   `maxReadAttempts` times);
 * - an effect begins at most once per idempotency key, and one that
 *   succeeded began and ended once;
 * - an idempotent write is applied once per key: the keys applied are the
 *   successful writes' keys, plus possibly some answered `outcome_unknown`,
 *   and no call's write is applied under two keys;
 * - a success names an attempt that began and ended (a read ran at least
 *   once);
 * - an `outcome_unknown` call began, and has no attempt that ended, unless
 *   the runner that ended it was killed after (it died before recording);
 * - nothing is left of a killed runner (`/proc`), right after each kill and
 *   at the end;
 * - the client's waits are bounded.
 *
 * The seed is printed on failure (and can be set: `CHAOS_SEED`);
 * `CHAOS_TURNS` and `CHAOS_RUNS` make bigger runs. `CHAOS_PLANT` bundles
 * the processes with a bug planted (see `plants`), to check that the test
 * catches it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as IdempotencyKey from "@tool-runtime/core/IdempotencyKey"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import * as NodePath from "node:path"
import * as CallJournal from "../src/CallJournal.js"
import { tempDir } from "./fixtures/Files.js"
import type { Child } from "./fixtures/Processes.js"
import { bundle, spawn, survivors, waitUntil } from "./fixtures/Processes.js"
import type { TestStorage } from "./fixtures/Storages.js"
import { journalLayer, postgres, sqlite } from "./fixtures/Storages.js"

const TURNS = Number(process.env.CHAOS_TURNS ?? 100)
const RUNS = Number(process.env.CHAOS_RUNS ?? 1)
const SESSIONS = 8
const RUNNERS = 3
const MAX_KILLS = Number(process.env.CHAOS_KILLS ?? 6)
/** The fixture's `maxReadAttempts`. */
const MAX_READ_ATTEMPTS = 5

/** Bugs the test must catch, planted in the bundle: file, what is replaced, by what. */
const plants: Record<string, ReadonlyArray<readonly [string, string | RegExp, string]>> = {
  // The journal's rule: a started effect runs again.
  "rerun-effect": [[
    "src/Durable.ts",
    `return Decision.OutcomeUnknown({ attempt: row.attempt, rule: "effect_started" })`,
    `return Decision.Run({ attempt: row.attempt + 1, delay: Duration.zero, rule: "rerun_read" })`
  ]],
  // The idempotent tool ignores its key: each attempt writes under a key of its own.
  "ignore-key": [[
    "test/fixtures/ClusterNode.ts",
    "const storeKey = context.idempotencyKey",
    "const storeKey = `${context.idempotencyKey}-${context.attempt}`"
  ]],
  // Subtler: the idempotent tool keeps its key on attempt 1 only, a retry writes under a fresh one.
  "fresh-key-on-retry": [[
    "test/fixtures/ClusterNode.ts",
    "const storeKey = context.idempotencyKey",
    "const storeKey = context.attempt === 1 ? context.idempotencyKey : `${context.idempotencyKey}-${context.attempt}`"
  ]],
  // The entity answers a turn's results in the wrong order.
  "reverse-results": [[
    "src/SessionEntity.ts",
    /turnId: payload\.turnId\s*\}\)/,
    "turnId: payload.turnId }).pipe(Effect.map((results) => [...results].reverse()))"
  ]],
  // A read that lost its runner is given up at once instead of run again.
  "give-up-read": [["src/Durable.ts", "row.attempt < limits.maxReadAttempts", "row.attempt < 1"]]
}
const plant = process.env.CHAOS_PLANT

/** The files the plant changed, checked after bundling: a plant that changed nothing is an error. */
const planted = new Set<string>()
const rewrite = plant === undefined ? undefined : (path: string, text: string) => {
  const changes = plants[plant]
  if (changes === undefined) throw new Error(`no plant named ${plant}`)
  let out = text
  for (const [file, from, to] of changes) {
    if (!path.endsWith(file)) continue
    const before = out
    out = out.replace(from, to)
    if (out === before) throw new Error(`plant ${plant} found nothing to replace in ${file}`)
    planted.add(file)
  }
  return out
}

/** mulberry32: a small seeded generator, so a run can be replayed from its seed. */
const generator = (seed: number) => {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(next() * xs.length)]!
  }
}
type Random = ReturnType<typeof generator>

interface Call {
  readonly id: string
  readonly name: "send_email" | "put_object" | "read_notes"
  readonly input: Record<string, unknown>
}
interface Turn {
  readonly sessionId: string
  readonly turnId: string
  readonly calls: ReadonlyArray<Call>
}

/** A few milliseconds mostly, sometimes a few hundred. */
const sleepMillis = (random: Random) => {
  const r = random.next()
  return r < 0.6 ? random.int(2, 30) : r < 0.9 ? random.int(30, 150) : random.int(150, 400)
}

const makeTurns = (random: Random): ReadonlyArray<Turn> =>
  Array.from({ length: TURNS }, (_, t) => {
    const sessionId = `s${random.int(1, SESSIONS)}`
    const turnId = `t${t + 1}`
    const calls = Array.from({ length: random.int(1, 4) }, (_, c): Call => {
      const id = `c${c + 1}`
      const ms = sleepMillis(random)
      const name = random.pick(["send_email", "put_object", "read_notes"] as const)
      return name === "send_email"
        ? { id, name, input: { to: `${sessionId}-${turnId}-${id}@example.com`, ms } }
        : name === "put_object"
        ? { id, name, input: { path: `${sessionId}/${turnId}/${id}`, ms } }
        : { id, name, input: { ms } }
    })
    return { sessionId, turnId, calls }
  })

const freePort = Effect.promise(() =>
  new Promise<number>((resolve, reject) => {
    const server = NodeNet.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as NodeNet.AddressInfo).port
      server.close(() => resolve(port))
    })
  })
)

interface LedgerLine {
  readonly index: number
  readonly event: "begin" | "end"
  readonly tool: string
  readonly key: string
  readonly attempt: number
  readonly runner: string
}

const readLedger = (file: string): ReadonlyArray<LedgerLine> =>
  NodeFs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((line, index) => {
    const [event, tool, key, attempt, runner] = line.split(" ")
    return { index, event: event as "begin" | "end", tool: tool!, key: key!, attempt: Number(attempt), runner: runner! }
  })

interface Kill {
  readonly name: string
  readonly pid: number
  /** Ledger lines written before the kill (all of the killed process's lines are among them). */
  readonly ledgerLength: number
  /** Whether a handler of the killed runner was under way. */
  readonly inHandler: boolean
}

interface Stats {
  seed: number
  turns: number
  calls: number
  kills: number
  killsInHandler: number
  outcomeUnknown: number
  unknownEnded: number
  unknownUnbegun: number
  gaveUp: number
  rerunReads: number
  retriedWrites: number
  clientMillis: number
  maxTurnMillis: number
}

const chaosRun = (storage: TestStorage, seed: number) =>
  Effect.scoped(
    Effect.gen(function*() {
      const random = generator(seed)
      const stats: Stats = {
        seed,
        turns: 0,
        calls: 0,
        kills: 0,
        killsInHandler: 0,
        outcomeUnknown: 0,
        unknownEnded: 0,
        unknownUnbegun: 0,
        gaveUp: 0,
        rerunReads: 0,
        retriedWrites: 0,
        clientMillis: 0,
        maxTurnMillis: 0
      }
      const script = yield* bundle("ClusterNode", rewrite)
      if (plant !== undefined) {
        assert.deepStrictEqual(
          [...planted].sort(),
          [...new Set(plants[plant]!.map(([file]) => file))].sort(),
          "planted"
        )
      }
      const dir = yield* tempDir
      const spec = yield* storage.fresh
      const ledgerFile = NodePath.join(dir, "ledger.txt")
      const store = NodePath.join(dir, "store")
      const turnsFile = NodePath.join(dir, "turns.json")
      NodeFs.writeFileSync(ledgerFile, "")
      NodeFs.mkdirSync(store)
      const turns = makeTurns(random)
      NodeFs.writeFileSync(turnsFile, JSON.stringify(turns))
      stats.turns = turns.length
      stats.calls = turns.reduce((n, turn) => n + turn.calls.length, 0)
      const token = `tr-chaos-${process.pid}-${seed}`

      // The runners: slots, each a live process under a name and a port.
      interface Slot {
        name: string
        port: number
        child: Child
      }
      let started = 0
      const start = (name: string, port: number) =>
        Effect.gen(function*() {
          started++
          const child = yield* spawn(script, ["runner", spec, String(port), ledgerFile, name, store])
          yield* waitUntil(`${name} ready`, () => child.stdout().includes("ready"), child, 30_000)
          return { name, port, child }
        })
      const slots: Array<Slot> = []
      for (let i = 0; i < RUNNERS; i++) slots.push(yield* start(`${token}-r${i}`, yield* freePort))

      const client = yield* spawn(script, ["client", spec, turnsFile])
      const clientStarted = performance.now()

      // The chaos: kill a runner (one in a handler, when there is one, more often than not), start it
      // again after a moment, under the same name and port or new ones.
      const kills: Array<Kill> = []
      const openBegins = () => {
        const open = new Map<string, LedgerLine>()
        for (const line of readLedger(ledgerFile)) {
          const id = `${line.key} ${line.attempt}`
          if (line.event === "begin") open.set(id, line)
          else open.delete(id)
        }
        return [...open.values()].filter((line) => slots.some((slot) => slot.name === line.runner))
      }
      const aims = ["send_email", "put_object", "read_notes", "any", "send_email", "put_object"] as const
      const firstAim = random.int(0, aims.length - 1)
      const chaos = Effect.gen(function*() {
        while (kills.length < MAX_KILLS && !client.hasExited()) {
          yield* Effect.sleep(random.int(100, 1000))
          // What to catch, in turn from a random start: a runner in an effect's handler, an idempotent
          // write's, a read's, or any moment.
          const aim = aims[(firstAim + kills.length) % aims.length]!
          let target: LedgerLine | undefined
          const deadline = performance.now() + 2_000
          while (aim !== "any" && target === undefined && performance.now() < deadline && !client.hasExited()) {
            target = openBegins().find((line) => line.tool === aim)
            if (target === undefined) yield* Effect.sleep(2)
          }
          if (client.hasExited()) break
          const slot = target === undefined
            ? random.pick(slots)
            : slots.find((slot) => slot.name === target.runner)!
          yield* slot.child.kill
          const exit = yield* slot.child.exited
          assert.deepStrictEqual(exit, { code: null, signal: "SIGKILL" }, `${slot.name} was SIGKILLed`)
          const ledger = readLedger(ledgerFile)
          kills.push({
            name: slot.name,
            pid: slot.child.pid,
            ledgerLength: ledger.length,
            inHandler: target !== undefined &&
              !ledger.some((l) => l.event === "end" && l.key === target.key && l.attempt === target.attempt)
          })
          assert.deepStrictEqual(survivors(slot.child.pid, slot.name), [], `what is left of ${slot.name}`)
          yield* Effect.sleep(random.int(100, 800))
          const renamed = random.next() < 0.5
          const next = yield* start(renamed ? `${token}-r${started}` : slot.name, renamed ? yield* freePort : slot.port)
          slots[slots.indexOf(slot)] = next
        }
      })
      const chaosFiber = yield* Effect.fork(chaos)
      const clientExit = yield* client.exited
      stats.clientMillis = Math.round(performance.now() - clientStarted)
      yield* Fiber.join(chaosFiber)
      // Nothing of any runner may be left once they are all killed.
      for (const slot of slots) {
        yield* slot.child.kill
        yield* slot.child.exited
      }
      stats.kills = kills.length
      stats.killsInHandler = kills.filter((kill) => kill.inHandler).length
      assert.deepStrictEqual(survivors(-1, token), [], "nothing is left of the runners")
      for (const kill of kills) assert.deepStrictEqual(survivors(kill.pid, `${kill.name} `), [], kill.name)

      // The client: every turn answered once, one result per call, in order, paired by id.
      assert.deepStrictEqual(clientExit, { code: 0, signal: null }, client.stderr())
      const lines = client.stdout().split("\n").filter((l) => l.startsWith("turn "))
      assert.isTrue(client.stdout().includes("\ndone\n"), "the client is done")
      const answered = new Map<string, { millis: number; results: ReadonlyArray<ToolResult.ToolResult> }>()
      for (const line of lines) {
        const [, sessionId, turnId, millis] = line.split(" ", 4)
        const json = line.slice(`turn ${sessionId} ${turnId} ${millis} `.length)
        const id = `${sessionId} ${turnId}`
        assert.isFalse(answered.has(id), `${id} answered once`)
        answered.set(id, { millis: Number(millis), results: JSON.parse(json) })
      }
      assert.strictEqual(answered.size, turns.length, "every turn answered")

      const ledger = readLedger(ledgerFile)
      const byKey = new Map<string, Array<LedgerLine>>()
      for (const line of ledger) byKey.set(line.key, [...(byKey.get(line.key) ?? []), line])
      const known = new Set<string>()
      const applied = new Map<string, Array<string>>()
      for (const file of NodeFs.readdirSync(store).filter((name) => !name.startsWith(".staged-"))) {
        const path = NodeFs.readFileSync(NodePath.join(store, file), "utf8")
        applied.set(path, [...(applied.get(path) ?? []), file])
      }
      const keyOf = (turn: Turn, call: Call) =>
        IdempotencyKey.make({ sessionId: turn.sessionId, turnId: turn.turnId }, call.id)
      // The journal's history of each call answered outcome_unknown: who started it.
      const histories = new Map<string, ReadonlyArray<{ readonly event: string; readonly runner: string }>>()
      yield* Effect.provide(
        Effect.gen(function*() {
          const journal = yield* CallJournal.CallJournal
          for (const turn of turns) {
            const results = answered.get(`${turn.sessionId} ${turn.turnId}`)?.results ?? []
            for (const [i, call] of turn.calls.entries()) {
              if (results[i]?.error?.code !== "outcome_unknown") continue
              const record = yield* journal.get({ sessionId: turn.sessionId, turnId: turn.turnId, callId: call.id })
              histories.set(keyOf(turn, call), Option.match(record, { onNone: () => [], onSome: (r) => r.events }))
            }
          }
        }),
        journalLayer(spec)
      )
      const putKeys = new Map<string, string>()
      const appliedOk = new Set<string>()
      const appliedUnknown = new Set<string>()

      for (const turn of turns) {
        const answer = answered.get(`${turn.sessionId} ${turn.turnId}`)
        assert.isDefined(answer, `${turn.sessionId} ${turn.turnId} answered`)
        stats.maxTurnMillis = Math.max(stats.maxTurnMillis, answer!.millis)
        const results = answer!.results
        assert.deepStrictEqual(
          results.map((r) => [r.callId, r.toolName]),
          turn.calls.map((c) => [c.id, c.name]),
          `${turn.sessionId} ${turn.turnId}: one result per call, in order`
        )
        turn.calls.forEach((call, i) => {
          const result = results[i]!
          const key = keyOf(turn, call)
          known.add(key)
          if (call.name === "put_object") putKeys.set(String(call.input.path), key)
          const where = `${turn.sessionId} ${turn.turnId} ${call.id} ${call.name} (${key})`
          const lines = byKey.get(key) ?? []
          const begins = lines.filter((l) => l.event === "begin")
          const ends = lines.filter((l) => l.event === "end")
          if (begins.length > 1) {
            if (call.name === "read_notes") stats.rerunReads++
            else stats.retriedWrites++
          }
          if (call.name === "send_email") assert.isAtMost(begins.length, 1, `${where}: an effect begins at most once`)
          const code = result.error?.code
          if (result.isError !== true) {
            // A success names an attempt that began and ended.
            const text = result.content.map((c) => c._tag === "text" ? c.text : "").join("")
            const attempt = Number(/\(attempt (\d+)\)$/.exec(text)?.[1])
            assert.isTrue(
              begins.some((l) => l.attempt === attempt) && ends.some((l) => l.attempt === attempt),
              `${where}: its success (${text}) names an attempt that ran to its end: ${JSON.stringify(lines)}`
            )
            if (call.name === "send_email") assert.strictEqual(attempt, 1, where)
            if (call.name === "put_object") appliedOk.add(String(call.input.path))
            return
          }
          if (code === "outcome_unknown") {
            stats.outcomeUnknown++
            assert.notStrictEqual(call.name, "read_notes", `${where}: a read is never outcome_unknown`)
            const history = histories.get(key) ?? []
            const startedBy = history.filter((e) => e.event === "started" || e.event === "retry_idempotent")
            if (begins.length === 0) {
              // Started in the journal, then its runner died before the handler began: it may not know more.
              stats.unknownUnbegun++
              assert.isTrue(
                startedBy.length > 0 && startedBy.every((e) => kills.some((kill) => kill.name === e.runner)),
                `${where}: outcome_unknown though it never began, and its runners were not killed: ` +
                  JSON.stringify(history)
              )
            }
            for (const end of ends) {
              // Ended, but its runner died before the journal recorded it.
              stats.unknownEnded++
              assert.isTrue(
                kills.some((kill) => kill.name === end.runner && kill.ledgerLength > end.index),
                `${where}: outcome_unknown, yet attempt ${end.attempt} ended on ${end.runner}, never killed after`
              )
            }
            if (call.name === "put_object") appliedUnknown.add(String(call.input.path))
            return
          }
          if (code === "gave_up") {
            stats.gaveUp++
            assert.strictEqual(call.name, "read_notes", `${where}: only a read gives up`)
            assert.strictEqual(begins.length, MAX_READ_ATTEMPTS, `${where}: gave up after every attempt began`)
            return
          }
          assert.fail(`${where}: no result is lost, yet it was answered ${code}: ${JSON.stringify(result)}`)
        })
      }

      // The ledger holds nothing but the turns' calls; the store, one write per call, each one answered.
      for (const key of byKey.keys()) assert.isTrue(known.has(key), `ledger key ${key} is one of the turns' calls`)
      for (const [path, keys] of applied) {
        assert.strictEqual(keys.length, 1, `${path} applied once, under one key: ${keys.join(", ")}`)
        assert.strictEqual(keys[0], putKeys.get(path), `${path} applied under its call's idempotency key`)
        assert.isTrue(
          appliedOk.has(path) || appliedUnknown.has(path),
          `${path} applied, so its call succeeded or is outcome_unknown`
        )
      }
      for (const path of appliedOk) assert.isTrue(applied.has(path), `${path} succeeded, so it was applied`)

      // Bounds on the client's wait: a turn waits for a dead runner's locks (4 s) once per kill at most.
      assert.isAtMost(stats.maxTurnMillis, 8_000 + 6_000 * kills.length, "a turn's wait")
      assert.isAtMost(stats.clientMillis, 120_000, "the client's wait")
      assert.isAtLeast(kills.length, Math.min(3, MAX_KILLS), "runners were killed")
      return stats
    }).pipe(
      Effect.tapErrorCause(() => Effect.sync(() => console.error(`ClusterChaos failed with CHAOS_SEED=${seed}`)))
    )
  )

const suite = (storage: TestStorage) =>
  it.live(
    `${TURNS} random turns over 3 runners, runners SIGKILLed at random`,
    () =>
      Effect.gen(function*() {
        for (let run = 0; run < RUNS; run++) {
          const seed = process.env.CHAOS_SEED === undefined
            ? NodeCrypto.randomInt(2 ** 31)
            : Number(process.env.CHAOS_SEED) + run
          const stats = yield* chaosRun(storage, seed)
          console.log(`ClusterChaos ${storage.name}: ${JSON.stringify(stats)}`)
        }
      }),
    180_000 * RUNS
  )

describe("the cluster under chaos over SQLite", () => suite(sqlite))

describe("the cluster under chaos over PostgreSQL", () => suite(postgres()))

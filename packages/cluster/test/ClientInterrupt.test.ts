/**
 * A turn the client stops (`interruptWhen`) is stopped on its runner too:
 * the handler running there is interrupted, not left to finish while the
 * model is told it was stopped. One real runner process; this process is
 * the client.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as CallJournal from "../src/CallJournal.js"
import * as ClusterRuntime from "../src/ClusterRuntime.js"
import { tempDir } from "./fixtures/Files.js"
import { bundle, freePort, spawn, waitUntil } from "./fixtures/Processes.js"

// The client's registry: the runner's tools as the client knows them (kinds only matter here).
const sendEmail = Tool.make("send_email", {
  description: "Sends an email.",
  parameters: { to: Schema.String, ms: Schema.Number, cleanupMs: Schema.optional(Schema.Number) },
  handler: () => Effect.die("runs on a runner only")
})
const readNotes = Tool.make("read_notes", {
  description: "Reads the notes.",
  parameters: { ms: Schema.Number },
  readOnly: true,
  handler: () => Effect.die("runs on a runner only")
})
const services = Layer.mergeAll(
  Registry.layer([sendEmail, readNotes]),
  ArtifactStore.layerMemory(),
  Redactor.layerDefault,
  Policy.layerAllowAll
)

describe("a turn stopped by its client", () => {
  it.live(
    "interrupts the handler on the runner; the answer says it was stopped and what became of each call",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const script = yield* bundle("ClusterNode")
        const dir = yield* tempDir
        const file = NodePath.join(dir, "cluster.db")
        const ledgerFile = NodePath.join(dir, "ledger.txt")
        NodeFs.writeFileSync(ledgerFile, "")
        const ledger = () => NodeFs.readFileSync(ledgerFile, "utf8")
        const port = yield* Effect.promise(freePort)
        const runner = yield* spawn(script, ["runner", `sqlite:${file}`, String(port), ledgerFile, "r1"])
        yield* waitUntil("the runner is ready", () => runner.stdout().includes("ready"), runner, 60_000)

        const client = ClusterRuntime.layerClient({
          storage: { _tag: "Sqlite", filename: file },
          timing: ClusterRuntime.fastTiming,
          sqlite: { synchronous: "normal" }
        }).pipe(Layer.provide(services))

        const outcome = yield* Effect.gen(function*() {
          const runtime = yield* ToolRuntime.ToolRuntime
          const journal = yield* CallJournal.CallJournal
          // Stops the turn once the email's handler has begun on the runner.
          const stop = Effect.async<string>((resume) => {
            const check = setInterval(() => {
              if (ledger().includes("begin send_email")) {
                clearInterval(check)
                resume(Effect.succeed("the user pressed stop"))
              }
            }, 20)
            return Effect.sync(() => clearInterval(check))
          })
          let stoppedAt = 0
          const results = yield* runtime.runTurn([
            { id: "a", name: "read_notes", input: { ms: 10 } },
            // The handler takes a second to stop: the client must wait for it to record how it ended.
            { id: "b", name: "send_email", input: { to: "ada@example.com", ms: 20_000, cleanupMs: 1_000 } },
            { id: "c", name: "read_notes", input: { ms: 10 } }
          ], {
            sessionId: "s1",
            turnId: "t1",
            interruptWhen: Effect.tap(stop, () => Effect.sync(() => stoppedAt = performance.now()))
          })
          const answeredAfter = performance.now() - stoppedAt
          // What the runner recorded of the email once it got the interrupt.
          const email = yield* journal.get({ sessionId: "s1", turnId: "t1", callId: "b" })
          return { results, answeredAfter, email }
        }).pipe(Effect.provide(client))

        // The client waited for the runner to stop the handler (its cleanup takes a second) and record it.
        assert.isAtLeast(outcome.answeredAfter, 900)
        assert.isBelow(outcome.answeredAfter, 8_000)
        assert.deepStrictEqual(outcome.results.map((result) => result.callId), ["a", "b", "c"])
        assert.isFalse(outcome.results[0]!.isError)
        // The runner's own answer: interrupted, proven stopped, the write's outcome unknown.
        assert.deepStrictEqual(
          [
            outcome.results[1]!.error?.code,
            outcome.results[1]!.error?.stopped,
            outcome.results[1]!.error?.outcomeUnknown
          ],
          ["interrupted", "proven", true]
        )
        assert.strictEqual(outcome.results[2]!.error?.code, "not_executed")
        // The handler was stopped where it ran: it never reached its end, and the runner recorded it.
        yield* Effect.sleep("500 millis")
        assert.notInclude(ledger(), "end send_email")
        assert.strictEqual(Option.getOrUndefined(outcome.email)?.state, "outcome_unknown")
      })),
    120_000
  )
})

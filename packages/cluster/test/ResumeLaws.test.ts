/**
 * The resume laws, on random histories of runner deaths, stalls and
 * redeliveries (see `fixtures/History.ts`): first against `Durable.decide`
 * alone, then against `CallJournal` on a real SQLite file.
 */
import { describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as CallJournal from "../src/CallJournal.js"
import { journalLayer, tempDb } from "./fixtures/Files.js"
import * as History from "./fixtures/History.js"
import * as MemoryJournal from "./fixtures/MemoryJournal.js"

/** `PROPERTY_RUNS=<n>` runs more (the SQLite law runs a tenth of them). */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 1000)

describe("Durable.decide", () => {
  // Synchronous, outside `it.effect`: setting its test services up for each run would cost more than the run.
  it.prop(
    "keeps every resume law on any history of deliveries, deaths and stalls",
    [History.scenario],
    ([scenario]) => Effect.runSync(History.play(MemoryJournal.make(scenario.limits), "s", scenario)),
    { fastCheck: { numRuns: RUNS } }
  )
})

let session = 0

layer(Layer.unwrapScoped(Effect.map(tempDb, (file) => journalLayer(file))))("CallJournal on SQLite", (it) => {
  it.effect.prop(
    "keeps every resume law on any history, with its fence and its recorded bytes",
    [History.scenario],
    ([scenario]) =>
      Effect.flatMap(
        CallJournal.make(scenario.limits),
        (journal) => History.play(journal, `session-${session++}`, scenario)
      ),
    { fastCheck: { numRuns: Math.ceil(RUNS / 10) } }
  )
})

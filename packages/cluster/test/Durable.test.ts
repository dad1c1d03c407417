import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Durable from "../src/Durable.js"

const limits: Durable.Limits = {
  maxReadAttempts: 2,
  maxAttempts: 3,
  backoff: { baseMillis: 200, factor: 2, capMillis: 500 }
}
const started = (kind: Durable.Kind, attempt: number): Durable.Row => ({ state: "started", kind, attempt })

describe("Durable.decide", () => {
  it("runs a call with no row as attempt 1", () => {
    for (const kind of ["read", "idempotent", "effect"] as const) {
      assert.deepStrictEqual(
        Durable.decide(undefined, kind, limits),
        Durable.Decision.Run({ attempt: 1, delay: Duration.zero, rule: "first_run" })
      )
    }
  })

  it("replays every recorded state's result, whatever the kind", () => {
    for (const state of ["finished", "outcome_unknown", "gave_up"] as const) {
      for (const kind of ["read", "idempotent", "effect"] as const) {
        assert.deepStrictEqual(
          Durable.decide({ state, kind, attempt: 2, result: "{\"x\":1}" }, kind, limits),
          Durable.Decision.Replay({ state, result: "{\"x\":1}", rule: "replay" })
        )
      }
    }
  })

  it("re-runs a started read below its bound, then gives up", () => {
    assert.deepInclude(Durable.decide(started("read", 1), "read", limits), {
      _tag: "Run",
      attempt: 2,
      rule: "rerun_read"
    })
    assert.deepInclude(Durable.decide(started("read", 2), "read", limits), { _tag: "GiveUp", attempt: 2 })
  })

  it("retries a started idempotent call after a backoff below its bound, then its outcome is unknown", () => {
    const second = Durable.decide(started("idempotent", 1), "idempotent", limits)
    assert.deepInclude(second, { _tag: "Run", attempt: 2, rule: "retry_idempotent" })
    assert.strictEqual(second._tag === "Run" && Duration.toMillis(second.delay), 200)
    assert.deepInclude(Durable.decide(started("idempotent", 3), "idempotent", limits), {
      _tag: "OutcomeUnknown",
      rule: "attempts_exhausted"
    })
  })

  it("never re-runs a started effect call", () => {
    assert.deepInclude(Durable.decide(started("effect", 1), "effect", limits), {
      _tag: "OutcomeUnknown",
      attempt: 1,
      rule: "effect_started"
    })
  })

  it("applies the stricter of the row's kind and the declared one", () => {
    assert.strictEqual(Durable.decide(started("effect", 1), "read", limits)._tag, "OutcomeUnknown")
    assert.strictEqual(Durable.decide(started("read", 1), "effect", limits)._tag, "OutcomeUnknown")
    assert.strictEqual(Durable.decide(started("idempotent", 1), "read", limits)._tag, "Run")
    assert.strictEqual(Durable.stricter("read", "idempotent"), "idempotent")
  })

  it("names the event of each decision", () => {
    assert.strictEqual(Durable.eventOf(Durable.decide(undefined, "read", limits)), "started")
    assert.strictEqual(Durable.eventOf(Durable.decide(started("read", 1), "read", limits)), "rerun_read")
    assert.strictEqual(Durable.eventOf(Durable.decide(started("read", 2), "read", limits)), "gave_up")
    assert.strictEqual(Durable.eventOf(Durable.decide(started("effect", 1), "effect", limits)), "outcome_unknown")
  })
})

describe("Durable.backoff", () => {
  it("grows by its factor from the lost attempt and stops at its cap", () => {
    const delays = [1, 2, 3, 4].map((attempt) => Duration.toMillis(Durable.backoff(attempt, limits.backoff)))
    assert.deepStrictEqual(delays, [200, 400, 500, 500])
  })

  it.effect("jitters through Random within the upper half, the same for the same seed", () =>
    Effect.gen(function*() {
      const draw = Effect.forEach([1, 2, 3, 4, 5], () => Durable.jittered(Duration.millis(1_000)))
      const first = yield* Effect.withRandom(draw, Random.make("seed"))
      const again = yield* Effect.withRandom(draw, Random.make("seed"))
      assert.deepStrictEqual(first, again)
      for (const delay of first) {
        assert.isAtLeast(Duration.toMillis(delay), 500)
        assert.isAtMost(Duration.toMillis(delay), 1_000)
      }
    }))
})

describe("Durable.kindOf", () => {
  it("reads read-only tools as reads, declared idempotent tools as idempotent, the rest as effects", () => {
    assert.strictEqual(Durable.kindOf({ readOnly: true, idempotent: true }), "read")
    assert.strictEqual(Durable.kindOf({ readOnly: false, idempotent: true }), "idempotent")
    assert.strictEqual(Durable.kindOf({ readOnly: false, idempotent: false }), "effect")
    assert.strictEqual(Durable.kindOf({ readOnly: false }), "effect")
  })
})

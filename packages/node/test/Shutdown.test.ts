/**
 * A runtime used after its layer closed (a service leaked out of
 * `Effect.provide`) must answer at once, not hang: nothing started then
 * could be tracked or killed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as BackgroundJobs from "../src/BackgroundJobs.js"
import * as ProcessRunner from "../src/ProcessRunner.js"

describe("after shutdown", () => {
  it.live("the process runner and the background jobs refuse to start anything", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        Layer.merge(
          BackgroundJobs.layer().pipe(Layer.provide(ProcessRunner.layerUnconfined)),
          ProcessRunner.layerUnconfined
        ),
        scope
      )
      yield* Scope.close(scope, Exit.void)
      const runner = yield* Effect.provide(ProcessRunner.ProcessRunner, context)
      const jobs = yield* Effect.provide(BackgroundJobs.BackgroundJobs, context)
      const ran = yield* Effect.flip(runner.run({ command: "echo", args: ["hi"] }).pipe(Effect.timeout("5 seconds")))
      assert.strictEqual(ran._tag, "SpawnError")
      assert.include(ran.message, "shutting down")
      const started = yield* Effect.flip(
        jobs.start({ command: "sleep", args: ["60"] }, "sleep").pipe(Effect.timeout("5 seconds"))
      )
      assert.strictEqual(started._tag, "SpawnError")
    }))
})

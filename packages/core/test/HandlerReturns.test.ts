import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../src/Tool.js"
import * as ToolResult from "../src/ToolResult.js"
import * as ToolRuntime from "../src/ToolRuntime.js"

// A handler written in JavaScript, or cast past the types, may return what is
// not an Effect. The call fails with a result saying so; a rejected Promise
// must not reach Node's unhandled-rejection handler, which ends the process.

const returning = (name: string, make: () => unknown) =>
  Tool.make(name, {
    description: "Returns what it was given.",
    parameters: { n: Schema.Number },
    readOnly: true,
    handler: () => make() as Effect.Effect<string>
  })

describe("a handler that returns no Effect", () => {
  it.live("fails its call with the reason; a rejected Promise is handled, and the calls beside it run", () =>
    Effect.gen(function*() {
      const unhandled: Array<unknown> = []
      const onUnhandled = (reason: unknown) => unhandled.push(reason)
      process.on("unhandledRejection", onUnhandled)
      try {
        const tools = [
          returning("rejects", () => Promise.reject(new Error("boom"))),
          returning("resolves", () => Promise.resolve("x")),
          returning("nothing", () => undefined),
          returning("fine", () => Effect.succeed("ok"))
        ]
        const runtime = yield* ToolRuntime.ToolRuntime.pipe(Effect.provide(ToolRuntime.layerDefault(tools)))
        const results = yield* runtime.runTurn(
          ["rejects", "resolves", "nothing", "fine"].map((name, i) => ({ id: `c${i}`, name, input: { n: i } }))
        )
        // Node reports an unhandled rejection after the microtasks of the turn that made it.
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
        assert.deepStrictEqual(unhandled, [])
        assert.deepStrictEqual(results.map((r) => r.isError), [true, true, true, false])
        for (const r of results.slice(0, 2)) assert.include(ToolResult.text(r), "returned a Promise, not an Effect")
        assert.include(ToolResult.text(results[2]!), "returned undefined, not an Effect")
        assert.strictEqual(ToolResult.text(results[3]!), "ok")
      } finally {
        process.off("unhandledRejection", onUnhandled)
      }
    }))
})

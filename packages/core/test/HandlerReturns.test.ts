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

describe("a handler that returns its Effect already done", () => {
  // `Effect.succeed` and `Effect.fail` are done when returned, and run without a fiber of their own;
  // `Effect.suspend` of the same is not, and runs in one. Both must answer alike.
  const pair = (name: string, make: () => Effect.Effect<string, unknown>) => [
    returning(`${name}_done`, make),
    returning(`${name}_later`, () => Effect.suspend(make))
  ]
  const hostile = new Proxy({}, {
    get: () => {
      throw new Error("read")
    },
    has: () => {
      throw new Error("in")
    }
  })
  const cases: ReadonlyArray<readonly [string, () => Effect.Effect<string, unknown>]> = [
    ["succeeds", () => Effect.succeed("ok")],
    ["fails", () => Effect.fail("refused: quota")],
    ["fails_error", () => Effect.fail(new Error("upstream 503"))],
    ["dies", () => Effect.die(new TypeError("cannot read x"))],
    ["throws", () => {
      throw new RangeError("bad index")
    }]
  ]

  it.effect("answers as a handler run in its own fiber does: success, failure, defect, a throw, a hostile value", () =>
    Effect.gen(function*() {
      // A value whose every read throws has no twin (returned from inside a suspend, the fiber's own
      // loop reads it): returned as it is, it is a defect of the call, described.
      const tools = [...cases.flatMap(([name, make]) => pair(name, make)), returning("hostile", () => hostile)]
      const runtime = yield* ToolRuntime.ToolRuntime.pipe(Effect.provide(ToolRuntime.layerDefault(tools)))
      const results = yield* runtime.runTurn(
        tools.map((tool, i) => ({ id: `c${i}`, name: tool.name, input: { n: i } }))
      )
      const shown = results.map((result) => ({
        isError: result.isError,
        code: result.error?.code,
        // The tool's own name aside: `x_done` and `x_later` must say the same.
        text: ToolResult.text(result).replaceAll(/_(done|later)\b/g, "")
      }))
      for (let i = 0; i < cases.length; i++) {
        assert.deepStrictEqual(shown[2 * i], shown[2 * i + 1], cases[i]![0])
      }
      assert.deepStrictEqual(shown.map((s) => s.code), [
        undefined,
        undefined,
        "tool_failed",
        "tool_failed",
        "tool_failed",
        "tool_failed",
        "tool_defect",
        "tool_defect",
        "tool_defect",
        "tool_defect",
        "tool_defect"
      ])
      assert.include(shown[2]!.text, "refused: quota")
      assert.include(shown[8]!.text, "bad index")
      assert.include(shown[10]!.text, "crashed with an internal error: in")
    }))
})

/**
 * The README's example, run as written (keep the two in step): a tool
 * defined with Tool.make, a turn run from an Effect program on the default
 * layer, a misspelt tool name answered with a suggestion instead of an
 * exception.
 */
import { assert, describe, it } from "@effect/vitest"
import { Tool, ToolResult, ToolRuntime } from "@tool-runtime/core"
import { Effect, Schema } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

const readTicket = Tool.make("query_ticket", {
  description: "Looks up a support ticket by id.",
  parameters: { ticketId: Schema.String.annotations({ description: "For example T-1001." }) },
  readOnly: true,
  timeout: "10 seconds",
  handler: ({ ticketId }) => Effect.succeed({ ticketId, status: "open" })
})

describe("README example", () => {
  it.effect("runs a turn with a good call and a misspelt one", () =>
    Effect.gen(function*() {
      const runtime = yield* ToolRuntime.ToolRuntime
      const results = yield* runtime.runTurn([
        { id: "toolu_01", name: "query_ticket", input: { ticketId: "T-1001" } },
        { id: "call_02", name: "query_tiket", input: "{\"ticketId\": \"T-1002\"}" }
      ])
      assert.deepStrictEqual(results.map((r) => [r.callId, r.isError]), [["toolu_01", false], ["call_02", true]])
      assert.strictEqual(ToolResult.text(results[0]!), "{\"status\":\"open\",\"ticketId\":\"T-1001\"}")
      assert.include(ToolResult.text(results[1]!), "Did you mean \"query_ticket\"?")
    }).pipe(Effect.provide(ToolRuntime.layerDefault([readTicket]))))
})

describe("README quick start", () => {
  it("is the program the consumer test runs with plain node", () => {
    const root = Path.resolve(import.meta.dirname, "../..")
    const readme = Fs.readFileSync(Path.join(root, "README.md"), "utf8")
    const section = readme.slice(readme.indexOf("### Quick start"))
    const shown = /```js\n([\s\S]*?)```/.exec(section)?.[1]
    // The program's first two lines speak of the test; everything after them is the quick start.
    const program = Fs.readFileSync(Path.join(root, "test/consumer/agent.mjs"), "utf8").split("\n").slice(2).join("\n")
    assert.strictEqual(shown, program)
  })
})

describe("README coding agent", () => {
  it("is the program the consumer test runs with plain node", () => {
    const root = Path.resolve(import.meta.dirname, "../..")
    const readme = Fs.readFileSync(Path.join(root, "README.md"), "utf8")
    const section = readme.slice(readme.indexOf("### A coding agent in one line"))
    const shown = /```js\n([\s\S]*?)```/.exec(section)?.[1]
    const program = Fs.readFileSync(Path.join(root, "test/consumer/coding.mjs"), "utf8").split("\n").slice(2).join("\n")
    assert.strictEqual(shown, program)
  })
})

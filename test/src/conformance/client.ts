/**
 * Our MCP client as the conformance suite drives it
 * (`conformance client --command …`): the suite starts a server for a
 * scenario and runs this program with its URL as the last argument. The
 * program does what an agent would: connects through `McpClient`, imports
 * the server's tools with `McpTools`, and calls each of them through the
 * runtime with the arguments the scenario's tools take. Questions from the
 * server are accepted with an empty form, so the schema's defaults are what
 * the answer holds (SEP-1034).
 *
 * Prints one line per call (tool, isError, code) for the test to read.
 */
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as McpClient from "@tool-runtime/mcp/McpClient"
import * as McpConfig from "@tool-runtime/mcp/McpConfig"
import * as McpTools from "@tool-runtime/mcp/McpTools"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const url = process.argv.at(-1)!

/** Arguments for the tools the suite's scenario servers offer. */
const argumentsFor: Record<string, Record<string, unknown>> = {
  add_numbers: { a: 5, b: 3 }
}

const program = Effect.gen(function*() {
  const runtime = yield* ToolRuntime.ToolRuntime
  const imported = runtime.registry.entries.map((entry) => entry.tool.name).filter((name) =>
    name.startsWith("mcp__suite__")
  )
  for (const name of imported) {
    const tool = name.slice("mcp__suite__".length)
    const result = yield* runtime.runCall({ id: `call-${tool}`, name, input: argumentsFor[tool] ?? {} })
    process.stdout.write(`${JSON.stringify({ tool, isError: result.isError, code: result.error?.code ?? null })}\n`)
  }
})

const config = McpConfig.make({ suite: { url, trusted: true, required: true } })
await Effect.runPromise(
  program.pipe(
    Effect.provide(
      McpTools.layerRuntime([]).pipe(
        Layer.provide(
          McpClient.layer(config, { elicit: () => Effect.succeed({ action: "accept", content: {} }) })
        )
      )
    )
  )
)

/**
 * An MCP server that answers badly, in every way a broken or hostile one
 * may (see `fixtures/hostile-server.mjs`): JSON nested 100,000 levels deep,
 * fields of the wrong type, no answer, two answers, an answer to another
 * id, lines that are no JSON, errors of megabytes, secrets and hidden
 * characters in text, errors and links, and a process that exits mid-call.
 * The laws, over random series of such calls through the runtime:
 *
 * - each call gets one result, with its id, within a bound far under the
 *   test's timeout (the server's limit is 3 s);
 * - none is a defect of ours: what the server did wrong is a `tool_failed`
 *   or a limit, and a well-formed answer is a success;
 * - no result holds 8 characters in a row of the server's secret, nor a
 *   character that hides text or acts on a terminal.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as McpClient from "../src/McpClient.js"
import * as McpConfig from "../src/McpConfig.js"
import * as McpTools from "../src/McpTools.js"
import * as Servers from "./fixtures/Servers.js"

const secret = `ghp_${"Z9y8X7w6V5".repeat(3)}uvwxyz`
const windows = Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8))
// Bidi controls, zero-width characters, C0 controls but tab and newline, escape sequences, lone surrogates.
const hidden =
  // eslint-disable-next-line no-control-regex
  /[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u0000-\u0008\u000b-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])/

const kinds = [
  "text",
  "deepStructured",
  "deepMeta",
  "notArray",
  "badBlock",
  "nullResult",
  "noContent",
  "hidden",
  "secret",
  "secretError",
  "hugeError",
  "isError",
  "huge",
  "link",
  "twice",
  "garbageFirst",
  "wrongId",
  "never",
  "exit"
] as const

/** Kinds whose answer is well formed: their call succeeds. */
const wellFormed = new Set([
  "text",
  "deepStructured",
  "deepMeta",
  "hidden",
  "secret",
  "huge",
  "link",
  "twice",
  "garbageFirst",
  "noContent"
])

const layer = McpTools.layerRuntime([]).pipe(
  Layer.provide(McpClient.layer(McpConfig.make({
    hostile: Servers.stdio(Servers.hostileServer, [], { timeout: 3_000 })
  })))
)

let counter = 0

const check = (kind: typeof kinds[number]) =>
  Effect.gen(function*() {
    const runtime = yield* ToolRuntime.ToolRuntime
    const id = `call-${++counter}`
    const started = performance.now()
    const result = yield* runtime.runCall({ id, name: "mcp__hostile__answer", input: { kind } })
    const took = performance.now() - started
    const text = ToolResult.text(result)
    const wrong: Array<string> = []
    if (result.callId !== id) wrong.push(`paired with ${result.callId}`)
    if (took > 20_000) wrong.push(`took ${Math.round(took)} ms`)
    if (result.error?.code === "tool_defect") wrong.push(`a defect: ${text.slice(0, 300)}`)
    if (wellFormed.has(kind) && result.isError) wrong.push(`failed: ${text.slice(0, 300)}`)
    if (!wellFormed.has(kind) && !result.isError) wrong.push(`succeeded: ${text.slice(0, 300)}`)
    if (kind === "deepStructured" && !text.includes("nested deeper than 256 levels")) {
      wrong.push("no marker of the depth")
    }
    const leak = windows.find((window) => text.includes(window))
    if (leak !== undefined) wrong.push(`shows ${leak}`)
    const found = hidden.exec(text)
    if (found !== null) wrong.push(`holds U+${found[0].charCodeAt(0).toString(16)} at ${found.index}`)
    return wrong.map((w) => `${kind}: ${w}`)
  })

afterAll(async () => {
  assert.deepStrictEqual(await Servers.survivors(), [])
})

describe("an MCP server that answers badly", () => {
  it.live(
    "each kind of bad answer, once: one result each, in time, no defect, nothing hidden or secret",
    () =>
      Effect.gen(function*() {
        const wrong: Array<string> = []
        for (const kind of kinds) wrong.push(...yield* check(kind))
        assert.deepStrictEqual(wrong, [])
      }).pipe(Effect.provide(layer)),
    240_000
  )

  it.live.prop(
    "random series of them: the same, whatever came before",
    [FastCheck.array(FastCheck.constantFrom(...kinds), { minLength: 3, maxLength: 8 })],
    ([series]) =>
      Effect.gen(function*() {
        const wrong: Array<string> = []
        for (const kind of series) wrong.push(...yield* check(kind))
        assert.deepStrictEqual(wrong, [])
      }).pipe(Effect.provide(layer)),
    { fastCheck: { numRuns: Number(process.env.PROPERTY_RUNS ?? 4), endOnFailure: true }, timeout: 600_000 }
  )
})

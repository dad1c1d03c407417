/**
 * Our server on stdio, fed what a broken or hostile client may write:
 * lines that are no JSON, batches, JSON nested 100,000 levels deep, lines
 * of megabytes, ids of every odd kind, unknown methods, parameters of the
 * wrong shape, tool calls whose arguments are deep, huge, arrays or full of
 * controls and bidi characters, stray responses and cancellations. The
 * laws, over random batches of these written to the real process:
 *
 * - the server stays up, and answers a ping after each batch;
 * - every request with a valid id gets exactly one response, with that id;
 * - no response holds 8 characters in a row of the secret a tool prints.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as ChildProcess from "node:child_process"
import * as Servers from "./fixtures/Servers.js"

/** The token `lookup_customer` prints (see the fixture): never in a response. */
const secret = `ghp_${"a1B2c3D4e5".repeat(3)}abcdef`
const windows = Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8))

const nasty = ["\u0000", "\u001b[2J", "\u202e", "\u2066", "\u200b", "\ud800", "\udfff", "\u2028", "😀", "\"", "\\"]
const hostileText = (n: number) => Array.from({ length: n }, (_, i) => nasty[i % nasty.length]).join("x")

/** 100,000 levels of arrays or objects, built without recursion. */
const deep = (kind: "array" | "object", depth = 100_000): unknown => {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = kind === "array" ? [value] : { a: value }
  return value
}
const deepText = (kind: "array" | "object", depth = 100_000) =>
  kind === "array" ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${"{\"a\":".repeat(depth)}1${"}".repeat(depth)}`

type Arguments =
  | "valid"
  | "deep"
  | "deepText"
  | "huge"
  | "array"
  | "string"
  | "null"
  | "proto"
  | "hostile"
  | "missing"
  | "wrongType"
  | "overlong"

/** What one message is made of: plain data fast-check can print; the message is built from it. */
type Recipe =
  | {
    readonly _tag: "raw"
    readonly kind: "notJson" | "batch" | "null" | "number" | "deepArray" | "deepObject" | "hugeLine" | "empty"
  }
  | { readonly _tag: "call"; readonly tool: string; readonly args: Arguments; readonly id: IdKind }
  | {
    readonly _tag: "request"
    readonly method: string
    readonly params: "none" | "number" | "deep" | "odd"
    readonly id: IdKind
  }
  | { readonly _tag: "badId"; readonly id: "null" | "object" | "array" | "bool" | "float" }
  | { readonly _tag: "notification"; readonly method: string }
  | { readonly _tag: "response"; readonly error: boolean }

type IdKind = "int" | "string" | "hostile" | "big"

const recipe: FastCheck.Arbitrary<Recipe> = FastCheck.oneof(
  FastCheck.record({
    _tag: FastCheck.constant("raw" as const),
    kind: FastCheck.constantFrom(
      "notJson" as const,
      "batch" as const,
      "null" as const,
      "number" as const,
      "deepArray" as const,
      "deepObject" as const,
      "hugeLine" as const,
      "empty" as const
    )
  }),
  FastCheck.record({
    _tag: FastCheck.constant("call" as const),
    tool: FastCheck.constantFrom(
      "lookup_customer",
      "list_orders",
      "record_note",
      "read_output",
      "no_such_tool",
      "hostile"
    ),
    args: FastCheck.constantFrom<Arguments>(
      "valid",
      "deep",
      "deepText",
      "huge",
      "array",
      "string",
      "null",
      "proto",
      "hostile",
      "missing",
      "wrongType",
      "overlong"
    ),
    id: FastCheck.constantFrom<IdKind>("int", "string", "hostile", "big")
  }),
  FastCheck.record({
    _tag: FastCheck.constant("request" as const),
    method: FastCheck.constantFrom(
      "tools/list",
      "ping",
      "initialize",
      "logging/setLevel",
      "resources/list",
      "resources/read",
      "resources/templates/list",
      "prompts/list",
      "completion/complete",
      "no/such/method",
      "__proto__"
    ),
    params: FastCheck.constantFrom("none" as const, "number" as const, "deep" as const, "odd" as const),
    id: FastCheck.constantFrom<IdKind>("int", "string", "hostile", "big")
  }),
  FastCheck.record({
    _tag: FastCheck.constant("badId" as const),
    id: FastCheck.constantFrom("null" as const, "object" as const, "array" as const, "bool" as const, "float" as const)
  }),
  FastCheck.record({
    _tag: FastCheck.constant("notification" as const),
    method: FastCheck.constantFrom(
      "notifications/cancelled",
      "notifications/progress",
      "notifications/initialized",
      "notifications/roots/list_changed",
      "notifications/no_such"
    )
  }),
  FastCheck.record({ _tag: FastCheck.constant("response" as const), error: FastCheck.boolean() })
)

let counter = 0
const idOf = (kind: IdKind): string | number => {
  const n = ++counter
  switch (kind) {
    case "int":
      return 1_000_000 + n
    case "big":
      return Number.MAX_SAFE_INTEGER - n
    case "string":
      return `req-${n}`
    case "hostile":
      return `${hostileText(12)}-${n}`
  }
}

const argumentsOf = (args: Arguments, tool: string): string => {
  switch (args) {
    case "valid":
      return JSON.stringify(
        tool === "list_orders" ? { count: 2 } : tool === "record_note" ? { note: "n" } : { customerId: "C-1" }
      )
    case "deep":
      return JSON.stringify({ customerId: "C-1", extra: deep("object", 2_000) })
    case "deepText":
      return `{"customerId":"C-1","extra":${deepText("array")}}`
    case "huge":
      return JSON.stringify({ customerId: `C-${"9".repeat(3_000_000)}`, note: "x".repeat(2_000_000) })
    case "array":
      return "[1,2,3]"
    case "string":
      return "\"C-1\""
    case "null":
      return "null"
    case "proto":
      return `{"__proto__":{"customerId":"C-1","polluted":true},"constructor":{"prototype":{"x":1}},"customerId":"C-2"}`
    case "hostile":
      return JSON.stringify({ customerId: hostileText(200), note: hostileText(50), count: 1, contact: hostileText(5) })
    case "missing":
      return "{}"
    case "wrongType":
      return JSON.stringify({ customerId: 42, count: "two", note: { a: 1 } })
    case "overlong":
      // Over the server's limit (6,000,000 bytes here): skipped, and answered by the id it ends with.
      return JSON.stringify({ note: "n".repeat(7_000_000) })
  }
}

const paramsOf = (params: "none" | "number" | "deep" | "odd"): string | undefined => {
  switch (params) {
    case "none":
      return undefined
    case "number":
      return "5"
    case "deep":
      return deepText("object")
    case "odd":
      return JSON.stringify({ level: hostileText(3), uri: "file:///etc/passwd", cursor: hostileText(4), name: "x" })
  }
}

/** A message as the line written, and the id of a request that must be answered, if it is one. */
const build = (r: Recipe): { readonly line: string; readonly id?: string | number } => {
  switch (r._tag) {
    case "raw":
      switch (r.kind) {
        case "notJson":
          return { line: `{"jsonrpc":"2.0","id":1,"method":` }
        case "batch":
          return { line: `[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]` }
        case "null":
          return { line: "null" }
        case "number":
          return { line: "12345" }
        case "deepArray":
          return { line: deepText("array") }
        case "deepObject":
          return { line: deepText("object") }
        case "hugeLine":
          return {
            line: JSON.stringify({
              jsonrpc: "2.0",
              method: "notifications/progress",
              params: { x: "y".repeat(8_000_000) }
            })
          }
        case "empty":
          return { line: "" }
      }
      break
    case "call": {
      const id = idOf(r.id)
      const name = r.tool === "hostile" ? hostileText(40) : r.tool
      // As the SDK's clients write it: the id last.
      return {
        line: `{"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${
          argumentsOf(r.args, r.tool)
        }},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`,
        id
      }
    }
    case "request": {
      const id = idOf(r.id)
      const params = paramsOf(r.params)
      return {
        line: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(r.method)}${
          params === undefined ? "" : `,"params":${params}`
        }}`,
        id
      }
    }
    case "badId": {
      const id = { null: "null", object: "{}", array: "[1]", bool: "true", float: "1.5" }[r.id]
      return { line: `{"jsonrpc":"2.0","id":${id},"method":"ping"}` }
    }
    case "notification":
      return {
        line: JSON.stringify({
          jsonrpc: "2.0",
          method: r.method,
          params: { requestId: `unknown-${++counter}`, progressToken: "t", progress: 1, reason: hostileText(5) }
        })
      }
    case "response":
      return {
        line: JSON.stringify(
          r.error
            ? { jsonrpc: "2.0", id: `stray-${++counter}`, error: { code: -1, message: hostileText(5) } }
            : { jsonrpc: "2.0", id: 987_654_321 + ++counter, result: {} }
        )
      }
  }
}

interface Wire {
  readonly child: ChildProcess.ChildProcessWithoutNullStreams
  readonly answers: Map<string, number>
  readonly leaks: Array<string>
  readonly stderr: Array<string>
}

const keyOf = (id: unknown) => JSON.stringify(id)

const start = (): Wire => {
  const child = ChildProcess.spawn(process.execPath, [
    Servers.tsx,
    "--conditions=@tool-runtime/source",
    Servers.registryServer
  ], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, MAX_MESSAGE_BYTES: "6000000" }
  })
  Servers.pids.add(child.pid!)
  const wire: Wire = { child, answers: new Map(), leaks: [], stderr: [] }
  let buffered = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk
    let at: number
    while ((at = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, at)
      buffered = buffered.slice(at + 1)
      const leak = windows.find((window) => line.includes(window))
      if (leak !== undefined) wire.leaks.push(`${leak} in ${line.slice(0, 300)}`)
      const message = JSON.parse(line) as { readonly id?: unknown; readonly method?: unknown }
      // Responses only: the server's own notifications carry no id.
      if (message.id !== undefined && message.method === undefined) {
        wire.answers.set(keyOf(message.id), (wire.answers.get(keyOf(message.id)) ?? 0) + 1)
      }
    }
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => wire.stderr.push(chunk))
  return wire
}

const write = (wire: Wire, line: string) =>
  Effect.async<void, Error>((resume) => {
    wire.child.stdin.write(`${line}\n`, (error) => resume(error ? Effect.fail(error) : Effect.void))
  })

const answered = (wire: Wire, id: string | number, what: string) =>
  Servers.waitUntil(() => wire.answers.has(keyOf(id)), what, 60_000)

describe("the server fed hostile messages", () => {
  const wire = start()

  it.live("starts and answers initialize", () =>
    Effect.gen(function*() {
      yield* write(
        wire,
        JSON.stringify({
          jsonrpc: "2.0",
          id: "init",
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "hostile", version: "1" } }
        })
      )
      yield* answered(wire, "init", "the server answered initialize")
      yield* write(wire, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
    }), 150_000)

  it.live.prop(
    "stays up, answers every request with a valid id exactly once, and never shows the secret",
    [FastCheck.array(recipe, { minLength: 5, maxLength: 25 })],
    ([recipes]) =>
      Effect.gen(function*() {
        const ids: Array<string | number> = []
        for (const r of recipes) {
          const { id, line } = build(r)
          if (id !== undefined) ids.push(id)
          yield* write(wire, line)
        }
        const sentinel = `sentinel-${++counter}`
        yield* write(wire, JSON.stringify({ jsonrpc: "2.0", id: sentinel, method: "ping" }))
        yield* answered(wire, sentinel, "the server answered a ping after the batch")
        // Calls run concurrently and may end after the ping: each gets its answer in the end.
        yield* Servers.waitUntil(
          () => ids.every((id) => wire.answers.has(keyOf(id))),
          `every request was answered (missing: ${ids.filter((id) => !wire.answers.has(keyOf(id))).length})`,
          60_000
        )
        assert.isNull(wire.child.exitCode, "the server is still running")
        assert.deepStrictEqual(ids.filter((id) => wire.answers.get(keyOf(id)) !== 1), [], "one answer each")
        assert.deepStrictEqual(wire.leaks, [])
      }),
    // A failing batch is reported as it is: shrinking would run the server again for minutes.
    { fastCheck: { numRuns: Number(process.env.PROPERTY_RUNS ?? 8), endOnFailure: true }, timeout: 600_000 }
  )

  it.live("ends when its input closes, leaving no process behind", () =>
    Effect.gen(function*() {
      wire.child.stdin.end()
      const left = yield* Effect.promise(() => Servers.survivors())
      assert.deepStrictEqual(left, [])
      assert.notMatch(wire.stderr.join(""), /Uncaught|FATAL|Maximum call stack/)
    }), 30_000)
})

/**
 * Our registry served over stdio, driven by the official SDK's client as
 * any MCP client would: tools listed with annotations derived from the
 * registry, calls answered through the runtime (redaction, time limits,
 * validation, rules), every failure an `isError` result.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Client as ClientV2 } from "@modelcontextprotocol/client"
import { StdioClientTransport as StdioClientTransportV2 } from "@modelcontextprotocol/client/stdio"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Servers from "./fixtures/Servers.js"

class SdkClient extends Context.Tag("test/SdkClient")<SdkClient, {
  readonly client: Client
  readonly pid: number
}>() {}

const Live = Layer.scoped(
  SdkClient,
  Effect.acquireRelease(
    Effect.promise(async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [Servers.tsx, "--conditions=@tool-runtime/source", Servers.registryServer],
        stderr: "pipe"
      })
      const client = new Client({ name: "sdk-test", version: "1.0.0" })
      // Node and tsx compiling the registry take seconds, tens of them on a loaded machine.
      await client.connect(transport, { timeout: 60_000 })
      return { client, pid: transport.pid! }
    }),
    ({ client }) => Effect.promise(() => client.close())
  )
)

const text = (result: CallToolResult) =>
  result.content.map((block) => block.type === "text" ? block.text : `[${block.type}]`).join("\n")

const errorCode = (result: CallToolResult) =>
  (result._meta?.["tool-runtime/error"] as { readonly code?: string } | undefined)?.code

/** One call, bounded far below the SDK's own 60 s request timeout (and the test's): a call that hangs fails here. */
const callTool = (name: string, args: Record<string, unknown>, options?: Parameters<Client["callTool"]>[2]) =>
  Effect.flatMap(
    SdkClient,
    ({ client }) =>
      Effect.promise(() => client.callTool({ name, arguments: args }, undefined, options) as Promise<CallToolResult>)
  ).pipe(Servers.within(15_000, `the call to ${name} was answered`))

describe("McpServer", () => {
  layer(Live, { excludeTestServices: true, timeout: "90 seconds" })((it) => {
    it.effect("lists the registry's tools with annotations derived from what the registry knows", () =>
      Effect.gen(function*() {
        const { client } = yield* SdkClient
        const { tools } = yield* Effect.promise(() => client.listTools())
        const byName = new Map(tools.map((tool) => [tool.name, tool]))
        assert.deepStrictEqual(tools.map((tool) => tool.name), [
          "lookup_customer",
          "slow_report",
          "progress_job",
          "delete_customer",
          "record_note",
          "read_notes",
          "fetch_page",
          "list_orders",
          // Registered by the runtime's layer: truncation markers point to it.
          "read_output"
        ])
        assert.deepStrictEqual(byName.get("lookup_customer")!.annotations, {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false
        })
        assert.deepStrictEqual(byName.get("delete_customer")!.annotations, {
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false,
          openWorldHint: false
        })
        assert.isTrue(byName.get("fetch_page")!.annotations?.openWorldHint)
        assert.deepStrictEqual(byName.get("lookup_customer")!.inputSchema.required, ["customerId"])
        // A tool without parameters is shown as the empty object it takes.
        const empty = byName.get("progress_job")!.inputSchema
        assert.deepStrictEqual([empty.type, empty.properties, empty.additionalProperties], ["object", {}, false])
      }))

    it.effect("answers a call through the runtime: the secret in the output is redacted", () =>
      Effect.gen(function*() {
        const result = yield* callTool("lookup_customer", { customerId: "C-7" })
        assert.notStrictEqual(result.isError, true)
        assert.include(text(result), "customer C-7: Ada Lovelace")
        assert.include(text(result), "[REDACTED:github-token]")
        assert.notInclude(text(result), "ghp_")
      }))

    it.effect("a tool with a success schema offers it as its output schema, and its results keep to it", () =>
      Effect.gen(function*() {
        const { client } = yield* SdkClient
        const { tools } = yield* Effect.promise(() => client.listTools())
        const byName = new Map(tools.map((tool) => [tool.name, tool]))
        // The schema's identifier made a reference: an object is at the root, as the spec asks.
        const output = byName.get("list_orders")!.outputSchema!
        assert.strictEqual(output.type, "object")
        assert.deepStrictEqual(output.required, ["orders", "contact"])
        assert.isUndefined(output.$ref)
        // None without a success schema, and none for an untrusted tool.
        assert.isUndefined(byName.get("lookup_customer")!.outputSchema)
        assert.isUndefined(byName.get("fetch_page")!.outputSchema)
        // The SDK's client checks `structuredContent` against the schema (it throws otherwise).
        const small = yield* callTool("list_orders", { count: 2 })
        assert.notStrictEqual(small.isError, true)
        assert.deepStrictEqual(small.structuredContent, {
          orders: [{ id: "O-1", total: "10" }, { id: "O-2", total: "20" }],
          contact: "desk"
        })
        assert.deepStrictEqual(JSON.parse(text(small)), small.structuredContent)
      }))

    it.effect("a result that cannot keep to its output schema is an error that says why, its text kept", () =>
      Effect.gen(function*() {
        // Over the tool's limit: cut, so no longer the value; the whole output is linked as a resource.
        const cut = yield* callTool("list_orders", { count: 300 })
        assert.isTrue(cut.isError)
        assert.isUndefined(cut.structuredContent)
        assert.include(text(cut), "\"O-1\"")
        assert.include(text(cut), "over this tool's limit and was cut")
        assert.isTrue(cut.content.some((block) => block.type === "resource_link"))
        // A contact the redaction replaced no longer fits the pattern the schema promises.
        const redacted = yield* callTool("list_orders", { count: 1, contact: "ada.lovelace@example.com" })
        assert.isTrue(redacted.isError)
        assert.notInclude(text(redacted), "ada.lovelace@example.com")
        assert.include(text(redacted), "does not fit the output schema of list_orders")
        // The same value unredacted fits, and is sent.
        const plain = yield* callTool("list_orders", { count: 1, contact: "desk@frontdesk" })
        assert.strictEqual((plain.structuredContent as { readonly contact: string }).contact, "desk@frontdesk")
      }))

    it.effect("a call past its time limit is an isError result, not a protocol error", () =>
      Effect.gen(function*() {
        // Answered at its 300 ms limit: its handler would take 30 s, more than the bound of callTool.
        const result = yield* callTool("slow_report", {})
        assert.isTrue(result.isError)
        assert.strictEqual(errorCode(result), "timeout")
        assert.include(text(result), "slow_report timed out after 300 ms; it has stopped: nothing of it still runs")
        // And in the metadata a client can branch on.
        assert.strictEqual(
          (result._meta?.["tool-runtime/error"] as { readonly stopped?: string } | undefined)?.stopped,
          "proven"
        )
      }))

    it.effect("invalid arguments, a broken rule and an unknown tool are isError results the model can act on", () =>
      Effect.gen(function*() {
        const invalid = yield* callTool("lookup_customer", { customerId: 7 })
        assert.isTrue(invalid.isError)
        assert.strictEqual(errorCode(invalid), "invalid_arguments")
        const rule = yield* callTool("delete_customer", { customerId: "C-1" })
        assert.isTrue(rule.isError)
        assert.strictEqual(errorCode(rule), "rule_violation")
        assert.include(text(rule), "customer C-1 has open orders")
        const unknown = yield* callTool("lookup_custmer", { customerId: "C-1" })
        assert.isTrue(unknown.isError)
        assert.strictEqual(errorCode(unknown), "unknown_tool")
        assert.include(text(unknown), "Did you mean \"lookup_customer\"?")
      }))

    it.effect("forwards progress to a client that asks for it; untrusted output is marked", () =>
      Effect.gen(function*() {
        const messages: Array<string | undefined> = []
        const counts: Array<[number, number | undefined]> = []
        const result = yield* callTool("progress_job", {}, {
          onprogress: (progress) => {
            messages.push(progress.message)
            counts.push([progress.progress, progress.total])
          }
        })
        assert.include(text(result), "four steps done")
        // The SDK's client handles a notification a microtask later than a
        // response, so a progress notification sent right before the result
        // can arrive after the request is settled and be dropped there.
        // Step 2 said 0.5 after 1: a count that goes back is not sent.
        assert.deepStrictEqual(messages.slice(0, 2), ["step 1 of 4", "step 3 of 4"])
        assert.deepStrictEqual(counts.slice(0, 2), [[1, 4], [3, 4]])
        const page = yield* callTool("fetch_page", { url: "https://example.com" })
        assert.include(text(page), "<untrusted-content")
      }))

    it.effect("writes sent at once by the client still run one at a time; reads run together", () =>
      Effect.gen(function*() {
        const spans = (tool: string, args: Record<string, unknown>) =>
          Effect.map(
            Effect.all([callTool(tool, args), callTool(tool, args)], { concurrency: "unbounded" }),
            (results) => results.map((result) => JSON.parse(text(result)) as { start: number; end: number })
          )
        const overlap = ([a, b]: ReadonlyArray<{ start: number; end: number }>) =>
          a!.start < b!.end && b!.start < a!.end
        assert.isFalse(overlap(yield* spans("record_note", { note: "n" })), "the writes overlapped")
        assert.isTrue(overlap(yield* spans("read_notes", {})), "the reads did not run together")
      }))

    it.effect("a request the client cancels stops; the server goes on answering", () =>
      Effect.gen(function*() {
        const controller = new AbortController()
        setTimeout(() => controller.abort("enough"), 100)
        const cancelled = yield* Effect.either(
          Effect.flatMap(SdkClient, ({ client }) =>
            Effect.tryPromise(() =>
              client.callTool({ name: "slow_report", arguments: {} }, undefined, {
                signal: controller.signal
              })
            ))
        )
        assert.strictEqual(cancelled._tag, "Left")
        const after = yield* callTool("lookup_customer", { customerId: "C-2" })
        assert.include(text(after), "customer C-2")
      }))
  })
})

describe("McpServer over stdio in 2026-07-28", () => {
  it.scopedLive(
    "the SDK v2 client's first message chooses the revision; calls, progress with totals and cancellation work in it",
    () =>
      Effect.gen(function*() {
        const transport = new StdioClientTransportV2({
          command: process.execPath,
          args: [Servers.tsx, "--conditions=@tool-runtime/source", Servers.registryServer],
          stderr: "pipe"
        })
        const client = new ClientV2({ name: "sdk-v2-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } })
        yield* Effect.acquireRelease(
          Effect.promise(() => client.connect(transport, { timeout: 60_000 })),
          () => Effect.promise(() => client.close())
        )
        assert.strictEqual(client.getNegotiatedProtocolVersion(), "2026-07-28")
        const found = yield* Effect.promise(() =>
          client.callTool({ name: "lookup_customer", arguments: { customerId: "C-9" } })
        )
        assert.include(JSON.stringify(found.content), "customer C-9")
        const progress: Array<{ progress: number; total?: number | undefined }> = []
        const done = yield* Effect.promise(() =>
          client.callTool({ name: "progress_job", arguments: {} }, {
            onprogress: (update) => progress.push({ progress: update.progress, total: update.total })
          })
        )
        assert.include(JSON.stringify(done.content), "four steps done")
        // Step 2 counts back and is not sent; the rest carry the total. The v2 client (2.4.0) runs a
        // notification's handler a microtask later but a response at once, so when the last progress
        // and the result arrive in one read, it has forgotten the token by then and drops 4/4 (seen
        // once in three CI runs): the last report may be missing, never reordered or changed.
        const sent = [{ progress: 1, total: 4 }, { progress: 3, total: 4 }, { progress: 4, total: 4 }]
        assert.include([2, 3], progress.length, JSON.stringify(progress))
        assert.deepStrictEqual(progress, sent.slice(0, progress.length))
        const abort = new AbortController()
        const slow = client.callTool({ name: "slow_report", arguments: {} }, { signal: abort.signal }).then(
          () => "answered",
          () => "stopped"
        )
        yield* Effect.sleep("200 millis")
        abort.abort()
        assert.strictEqual(yield* Effect.promise(() => slow), "stopped")
        // The server is still serving after the cancelled call.
        const after = yield* Effect.promise(() =>
          client.callTool({ name: "lookup_customer", arguments: { customerId: "C-2" } })
        )
        assert.include(JSON.stringify(after.content), "customer C-2")
      }),
    { timeout: 90_000 }
  )
})

/**
 * Our registry served over Streamable HTTP, driven by the official SDK's
 * client and by our own `McpClient`, and attacked with raw requests: a
 * rebinding `Host`, a foreign `Origin`, a missing or wrong token, a body too
 * large, a session that does not exist. Every refused request is refused
 * before a session exists or a tool runs.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2
} from "@modelcontextprotocol/client"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import type { CallToolResult, LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as NodeHttp from "node:http"
import * as Net from "node:net"
import * as McpClient from "../src/McpClient.js"
import * as McpConfig from "../src/McpConfig.js"
import * as McpHttpServer from "../src/McpHttpServer.js"
import * as McpTools from "../src/McpTools.js"

const secret = `ghp_${"a1B2c3D4e5".repeat(3)}abcdef`
let handlerRuns = 0

const lookupCustomer = Tool.make("lookup_customer", {
  description: "Reads a customer record.",
  parameters: { customerId: Schema.String },
  readOnly: true,
  handler: ({ customerId }) =>
    Effect.sync(() => {
      handlerRuns++
      return `customer ${customerId}: Ada Lovelace, api token ${secret}`
    })
})

const interval = Effect.gen(function*() {
  const start = yield* Clock.currentTimeMillis
  yield* Effect.sleep("150 millis")
  return { start, end: yield* Clock.currentTimeMillis }
})

const readNotes = Tool.make("read_notes", {
  description: "Reads the notes.",
  parameters: {},
  readOnly: true,
  handler: () => interval
})

const recordNote = Tool.make("record_note", {
  description: "Appends a note.",
  parameters: { note: Schema.String },
  handler: () => interval
})

/** A value a careless handler might log: a getter that throws, and a cycle. */
const hostile = (): unknown => {
  const value: Record<string, unknown> = {}
  Object.defineProperty(value, "boom", {
    enumerable: true,
    get: () => {
      throw new Error("getter")
    }
  })
  value.self = value
  return value
}

const noisy = Tool.make("noisy", {
  description: "Logs at every level while it works.",
  parameters: {},
  readOnly: true,
  handler: () =>
    Effect.gen(function*() {
      yield* Effect.logDebug("a detail nobody asked for")
      yield* Effect.logInfo("fetching with", secret)
      yield* Effect.logWarning("an odd value", hostile())
      yield* Effect.logError("nearly failed", "x".repeat(10_000))
      return "done"
    })
})

/** 40,000 numbered lines (about 500,000 characters), a token among them. */
const longLog = Tool.make("long_log", {
  description: "Prints a build log far longer than a result may be.",
  parameters: {},
  readOnly: true,
  handler: () =>
    Effect.succeed(
      Array.from({ length: 40_000 }, (_, i) => i === 20_000 ? `line ${i} token=${secret}` : `line ${i} ok`).join("\n")
    )
})

/** A call that runs until the test lets it end: `arm` before calling, await `started`, then `release`. */
const held = {
  started: Promise.resolve(),
  released: Promise.resolve(),
  begin: () => {},
  release: () => {},
  arm: () => {
    held.started = new Promise<void>((resolve) => (held.begin = resolve))
    held.released = new Promise<void>((resolve) => (held.release = resolve))
  }
}
const holdOn = Tool.make("hold_on", {
  description: "Runs until released.",
  parameters: {},
  readOnly: true,
  handler: () =>
    Effect.as(
      Effect.promise(() => {
        held.begin()
        return held.released
      }),
      "released"
    )
})

const runtimeLayer = ToolRuntime.layerDefault([lookupCustomer, readNotes, recordNote, noisy, longLog, holdOn])
const token = Redacted.make("test-token-0123456789abcdef")

/**
 * Serves the registry in this process until `close`, or at the latest until
 * the test's scope closes: a test that fails half-way must not leave a
 * server (and its open streams) keeping the worker alive.
 */
const served = (options?: McpHttpServer.Options) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const listening = yield* McpHttpServer.serve(options).pipe(
      Effect.provide(runtimeLayer),
      Scope.extend(scope)
    )
    return { ...listening, close: Scope.close(scope, Exit.void) }
  })

const sdkClient = (url: string, headers: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "sdk-http-test", version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

interface Raw {
  readonly status: number
  readonly headers: NodeHttp.IncomingHttpHeaders
  readonly body: string
}

/** A request with exactly the headers given (fetch would not let a test set `Host`). */
const raw = (url: string, options: {
  readonly method?: string
  readonly headers?: Record<string, string>
  readonly body?: string | Buffer
}) =>
  Effect.async<Raw>((resume) => {
    // An empty Host means none at all: Node would otherwise write its own.
    const { host, ...headers } = options.headers ?? {}
    const request = NodeHttp.request(url, {
      method: options.method ?? "POST",
      headers: host === "" ? headers : { ...headers, ...(host === undefined ? {} : { host }) },
      setHost: host !== ""
    }, (response) => {
      let body = ""
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk))
      response.on(
        "end",
        () => resume(Effect.succeed({ status: response.statusCode!, headers: response.headers, body }))
      )
    })
    request.on("error", (error) => resume(Effect.succeed({ status: 0, headers: {}, body: error.message })))
    request.end(options.body)
  }).pipe(
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`${url} did not answer`) }),
    Effect.orDie
  )

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
})

const jsonHeaders = (host: string) => ({
  host,
  "content-type": "application/json",
  accept: "application/json, text/event-stream"
})

const text = (result: CallToolResult) =>
  result.content.map((block) => block.type === "text" ? block.text : `[${block.type}]`).join("\n")

describe("McpHttpServer", { timeout: 60_000 }, () => {
  it.scopedLive("answers the SDK's client: tools listed, calls run through the runtime and come back redacted", () =>
    Effect.gen(function*() {
      const server = yield* served()
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
      const client = yield* sdkClient(server.url)
      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.deepStrictEqual(tools.map((tool) => tool.name), [
        "lookup_customer",
        "read_notes",
        "record_note",
        "noisy",
        "long_log",
        "hold_on",
        "read_output"
      ])
      const result = (yield* Effect.promise(() =>
        client.callTool({ name: "lookup_customer", arguments: { customerId: "C-1" } })
      )) as CallToolResult
      assert.isFalse(result.isError === true)
      assert.include(text(result), "customer C-1: Ada Lovelace")
      for (let i = 0; i + 8 <= secret.length; i++) {
        assert.notInclude(text(result), secret.slice(i, i + 8))
      }
      const invalid = (yield* Effect.promise(() =>
        client.callTool({ name: "lookup_customer", arguments: { customerId: 7 } })
      )) as CallToolResult
      assert.isTrue(invalid.isError)
      assert.strictEqual(server.sessions(), 1)
      yield* server.close
    }))

  it.scopedLive("answers the SDK v2's negotiating client in 2026-07-28, statelessly: no session is kept", () =>
    Effect.gen(function*() {
      const server = yield* served()
      const client = new ClientV2({ name: "sdk-v2-test", version: "1.0.0" }, {
        versionNegotiation: { mode: "auto" }
      })
      yield* Effect.acquireRelease(
        Effect.promise(() => client.connect(new StreamableHTTPClientTransportV2(new URL(server.url)))),
        () => Effect.promise(() => client.close())
      )
      assert.strictEqual(client.getNegotiatedProtocolVersion(), "2026-07-28")
      const result = yield* Effect.promise(() =>
        client.callTool({ name: "lookup_customer", arguments: { customerId: "C-3" } })
      )
      assert.include(JSON.stringify(result.content), "customer C-3")
      assert.notInclude(JSON.stringify(result.content), secret.slice(4, 12))
      const invalid = yield* Effect.promise(() =>
        client.callTool({ name: "lookup_customer", arguments: { customerId: 7 } })
      )
      assert.isTrue(invalid.isError)
      assert.strictEqual(server.sessions(), 0)
      yield* server.close
    }))

  it.scopedLive("sends the call's log lines to the client, redacted, at the level it set, before the result", () =>
    Effect.gen(function*() {
      const server = yield* served()
      const client = yield* sdkClient(server.url)
      const received: Array<LoggingMessageNotification["params"]> = []
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        received.push(notification.params)
      })
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<CallToolResult>)
      const result = yield* call("noisy", {})
      // Collected by the time the result is read: they came first on the same stream.
      assert.isFalse(result.isError === true, text(result))
      assert.deepStrictEqual(received.map((r) => [r.level, r.logger]), [
        ["info", "noisy"],
        ["warning", "noisy"],
        ["error", "noisy"]
      ])
      const [info, warning, error] = received.map((r) => String(r.data))
      assert.include(info, "fetching with")
      for (let i = 0; i + 8 <= secret.length; i++) assert.notInclude(info!, secret.slice(i, i + 8))
      assert.include(warning, "an odd value")
      assert.isAtMost(error!.length, 4_001)
      received.length = 0
      yield* call("lookup_customer", { customerId: 7 })
      assert.deepStrictEqual(received.map((r) => r.level), ["warning"])
      assert.include(String(received[0]!.data), "the call failed (invalid_arguments)")
      received.length = 0
      yield* Effect.promise(() => client.setLoggingLevel("error"))
      yield* call("noisy", {})
      assert.deepStrictEqual(received.map((r) => r.level), ["error"])
      received.length = 0
      yield* Effect.promise(() => client.setLoggingLevel("debug"))
      yield* call("lookup_customer", { customerId: "C-3" })
      assert.deepStrictEqual(received.map((r) => [r.level, r.data]), [["debug", "the call succeeded"]])
      yield* server.close
    }))

  it.scopedLive("under 2026-07-28 too: the SDK v2 client pages a truncated output through resources/read", () =>
    Effect.gen(function*() {
      const server = yield* served()
      const client = new ClientV2({ name: "sdk-v2-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } })
      yield* Effect.acquireRelease(
        Effect.promise(() => client.connect(new StreamableHTTPClientTransportV2(new URL(server.url)))),
        () => Effect.promise(() => client.close())
      )
      assert.strictEqual(client.getNegotiatedProtocolVersion(), "2026-07-28")
      const result = yield* Effect.promise(() => client.callTool({ name: "long_log", arguments: {} }))
      const link = (result.content as ReadonlyArray<{ type: string; uri?: string }>).find((block) =>
        block.type === "resource_link"
      )
      assert.isDefined(link?.uri, "no resource_link in a truncated result")
      const total = ((result._meta as Record<string, unknown>)["tool-runtime/meta"] as ToolResult.Meta).truncation!
        .originalLength
      let whole = ""
      let uri: string | undefined = link!.uri
      while (uri !== undefined) {
        const { contents } = yield* Effect.promise(() => client.readResource({ uri: uri! }))
        const page = contents[0]!
        whole += "text" in page ? page.text : ""
        uri = page._meta?.["tool-runtime/next"] as string | undefined
      }
      assert.strictEqual(whole.length, total)
      assert.isTrue(whole.endsWith("line 39999 ok"))
      for (let i = 0; i + 8 <= secret.length; i++) assert.notInclude(whole, secret.slice(i, i + 8))
      // No sessions in this revision: what the endpoint handed out is readable by its clients (README), a
      // guessed id is not.
      const guessed = link!.uri!.replace(/-(\d+)$/, (_, n) => `-${Number(n) + 1}`)
      const refused = yield* Effect.promise(() =>
        client.readResource({ uri: guessed }).then(() => "answered", (error: unknown) => String(error))
      )
      assert.include(refused, "Resource not found")
      assert.strictEqual(server.sessions(), 0)
      yield* server.close
    }))

  it.scopedLive("links a truncated output as a resource, read page by page by its own session only", () =>
    Effect.gen(function*() {
      const server = yield* served()
      const client = yield* sdkClient(server.url)
      const result = (yield* Effect.promise(() =>
        client.callTool({ name: "long_log", arguments: {} })
      )) as CallToolResult
      const link = result.content.find((block) => block.type === "resource_link")
      assert.isDefined(link, "no resource_link in a truncated result")
      if (link?.type !== "resource_link") return
      const total = (result._meta?.["tool-runtime/meta"] as ToolResult.Meta).truncation!.originalLength
      assert.strictEqual(link.size, total)
      const { resources } = yield* Effect.promise(() => client.listResources())
      assert.deepStrictEqual(resources.map((r) => r.uri), [link.uri])
      // Page through it as the link says, following each page's next URI.
      let whole = ""
      let uri: string | undefined = link.uri
      let pages = 0
      while (uri !== undefined) {
        const { contents } = yield* Effect.promise(() => client.readResource({ uri: uri! }))
        const page = contents[0]!
        assert.strictEqual(page._meta?.["tool-runtime/offset"], whole.length)
        whole += "text" in page ? page.text : ""
        uri = page._meta?.["tool-runtime/next"] as string | undefined
        pages++
      }
      assert.strictEqual(whole.length, total)
      assert.strictEqual(pages, Math.ceil(total / 100_000))
      assert.isTrue(whole.startsWith("line 0 ok\nline 1 ok"))
      assert.isTrue(whole.endsWith("line 39999 ok"))
      assert.include(whole, "line 20000 token=")
      // A page asked longer than the limit is cut to it.
      const long = yield* Effect.promise(() => client.readResource({ uri: `${link.uri}?offset=10&length=400000` }))
      const longText = "text" in long.contents[0]! ? long.contents[0].text : ""
      assert.strictEqual(longText, whole.slice(10, 100_010))
      for (let i = 0; i + 8 <= secret.length; i++) assert.notInclude(whole, secret.slice(i, i + 8))
      // Another session, a guessed id, a bad page: refused. Only the error's
      // message is kept: an answer here would be a page of 100,000 characters.
      const refusal = (read: () => Promise<unknown>) =>
        Effect.promise(() => read().then(() => "answered", (error: unknown) => String(error)))
      const other = yield* sdkClient(server.url)
      assert.include(yield* refusal(() => other.readResource({ uri: link.uri })), "Resource not found")
      const guessed = link.uri.replace(/-(\d+)$/, (_, n) => `-${Number(n) + 1}`)
      assert.include(yield* refusal(() => client.readResource({ uri: guessed })), "Resource not found")
      assert.include(yield* refusal(() => client.readResource({ uri: `${link.uri}?offset=-1` })), "whole numbers")
      // The same through the read_output tool: the id in the marker is this session's only.
      const id = decodeURIComponent(link.uri.slice("tool-runtime://artifact/".length))
      const readOutput = (from: typeof client, artifact: string) =>
        Effect.promise(() =>
          from.callTool({ name: "read_output", arguments: { id: artifact, offset: 0, length: 20 } })
        ) as Effect.Effect<CallToolResult>
      const own = yield* readOutput(client, id)
      assert.notStrictEqual(own.isError, true)
      // The marker names it without its `artifact:` prefix, as the model will send it.
      assert.isTrue(id.startsWith("artifact:"))
      const asMarked = yield* readOutput(client, id.slice("artifact:".length))
      assert.notStrictEqual(asMarked.isError, true, JSON.stringify(asMarked.content))
      assert.include(own.content.map((block) => block.type === "text" ? block.text : "").join(""), "line 0 ok")
      for (
        const [from, artifact] of [[other, id], [
          client,
          id.replace(/-(\d+)$/, (_, n) => `-${Number(n) + 1}`)
        ]] as const
      ) {
        const refused = yield* readOutput(from, artifact)
        assert.strictEqual(refused.isError, true)
        assert.match(
          refused.content.map((block) => block.type === "text" ? block.text : "").join(""),
          /in this session/
        )
      }
      yield* server.close
    }))

  it.scopedLive("is imported by our own McpClient with its bearer token, as one runtime's tools into another's", () =>
    Effect.gen(function*() {
      const server = yield* served({ token })
      // Our client asks for 2026-07-28 first and this server speaks it; an entry may pin 2025-11-25.
      for (const pinned of [undefined, "2025-11-25" as const]) {
        const config = McpConfig.make({
          http: {
            url: server.url,
            headers: { authorization: `Bearer ${Redacted.value(token)}` },
            ...(pinned === undefined ? {} : { protocol: pinned })
          }
        })
        const { protocol, result } = yield* Effect.gen(function*() {
          const runtime = yield* ToolRuntime.ToolRuntime
          const { protocol } = yield* (yield* McpClient.McpClient).servers[0]!.status
          const result = yield* runtime.runCall({
            id: "c1",
            name: "mcp__http__lookup_customer",
            input: { customerId: "C-2" }
          })
          return { protocol, result }
        }).pipe(Effect.provide(McpTools.layerRuntime([]).pipe(Layer.provideMerge(McpClient.layer(config)))))
        assert.strictEqual(protocol, pinned ?? "2026-07-28")
        assert.isFalse(result.isError, ToolResult.text(result))
        assert.include(ToolResult.text(result), "customer C-2")
        assert.notInclude(ToolResult.text(result), secret.slice(4, 12))
      }
      yield* server.close
    }))

  it.scopedLive("refuses a rebinding Host, a foreign Origin, a missing or wrong token: no session starts, no tool runs", () =>
    Effect.gen(function*() {
      const server = yield* served({ token })
      const host = `127.0.0.1:${server.port}`
      const bearer = { authorization: `Bearer ${Redacted.value(token)}` }
      const refused: Array<[string, Record<string, string>, number]> = [
        ["a rebinding name", { ...jsonHeaders(`attacker.example:${server.port}`), ...bearer }, 403],
        ["the right name on another port", { ...jsonHeaders(`localhost:${server.port + 1}`), ...bearer }, 403],
        // Node's own server answers a request without Host before ours sees it.
        ["no Host at all", { ...jsonHeaders(""), ...bearer }, 400],
        ["a foreign origin", { ...jsonHeaders(host), ...bearer, origin: "http://attacker.example" }, 403],
        ["a loopback origin on another port", {
          ...jsonHeaders(host),
          ...bearer,
          origin: `http://127.0.0.1:${server.port + 1}`
        }, 403],
        ["no token", jsonHeaders(host), 401],
        ["a wrong token", { ...jsonHeaders(host), authorization: "Bearer stolen-guess-0123456789" }, 401],
        ["the token without its scheme", { ...jsonHeaders(host), authorization: Redacted.value(token) }, 401],
        ["a token one character short", {
          ...jsonHeaders(host),
          authorization: `Bearer ${Redacted.value(token).slice(0, -1)}`
        }, 401]
      ]
      const before = handlerRuns
      for (const [what, headers, status] of refused) {
        const response = yield* raw(server.url, { headers, body: initialize })
        assert.strictEqual(response.status, status, what)
        assert.strictEqual(response.headers["mcp-session-id"], undefined, what)
        assert.notInclude(response.body, "stolen-guess", what)
        assert.notInclude(response.body, Redacted.value(token).slice(0, 8), what)
        if (status === 401) assert.strictEqual(response.headers["www-authenticate"], "Bearer realm=\"tool-runtime\"")
      }
      assert.strictEqual(server.sessions(), 0)
      const accepted = yield* raw(server.url, {
        headers: { ...jsonHeaders(`LOCALHOST:${server.port}`), ...bearer, origin: `http://localhost:${server.port}` },
        body: initialize
      })
      assert.strictEqual(accepted.status, 200, accepted.body)
      assert.isString(accepted.headers["mcp-session-id"])
      assert.strictEqual(server.sessions(), 1)
      assert.strictEqual(handlerRuns, before)
      yield* server.close
    }))

  it.scopedLive("refuses a body over the limit, a session it does not know, a request without one, another path", () =>
    Effect.gen(function*() {
      const server = yield* served({ maxBodyBytes: 4_096 })
      const headers = jsonHeaders(`127.0.0.1:${server.port}`)
      const large = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { padding: "x".repeat(10_000) }
      })
      assert.strictEqual((yield* raw(server.url, { headers, body: large })).status, 413)
      // Sent in chunks with no length announced: the limit holds while the body streams in.
      const chunked = yield* raw(server.url, { headers: { ...headers, "transfer-encoding": "chunked" }, body: large })
      assert.strictEqual(chunked.status, 413)
      assert.strictEqual((yield* raw(server.url, { headers, body: "{ not json" })).status, 400)
      const unknown = yield* raw(server.url, {
        headers: { ...headers, "mcp-session-id": "00000000-0000-0000-0000-000000000000" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })
      })
      assert.strictEqual(unknown.status, 404)
      const sessionless = yield* raw(server.url, {
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })
      })
      assert.strictEqual(sessionless.status, 400)
      assert.strictEqual(
        (yield* raw(server.url.replace(/\/mcp$/, "/other"), { headers, body: initialize })).status,
        404
      )
      assert.strictEqual(server.sessions(), 0)
      yield* server.close
    }))

  it.scopedLive("answers a request whose target is in absolute form (POST http://host/mcp) as any other", () =>
    Effect.gen(function*() {
      const server = yield* served()
      const host = `127.0.0.1:${server.port}`
      const body = initialize
      const answer = yield* Effect.promise(() =>
        new Promise<string>((resolve, reject) => {
          const socket = Net.connect(server.port, "127.0.0.1", () => {
            socket.write(
              `POST http://${host}/mcp HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\n` +
                `accept: application/json, text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
                `connection: close\r\n\r\n${body}`
            )
          })
          let text = ""
          socket.on("data", (chunk) => (text += chunk.toString("utf8")))
          socket.on("end", () => resolve(text))
          socket.on("error", reject)
        })
      )
      assert.match(answer, /^HTTP\/1\.1 200/)
      assert.include(answer, "serverInfo")
      yield* server.close
    }))

  it.scopedLive("keeps one read/write gate for every session: a write in one waits for the reads of another", () =>
    Effect.gen(function*() {
      const server = yield* served()
      const reader = yield* sdkClient(server.url)
      const writer = yield* sdkClient(server.url)
      assert.strictEqual(server.sessions(), 2)
      const call = (client: Client, name: string, args: Record<string, unknown>) =>
        Effect.promise(async () => {
          const result = (await client.callTool({ name, arguments: args })) as CallToolResult
          return JSON.parse(text(result)) as { start: number; end: number }
        })
      const [reads, write] = yield* Effect.all([
        Effect.all([call(reader, "read_notes", {}), call(reader, "read_notes", {})], { concurrency: "unbounded" }),
        Effect.delay(call(writer, "record_note", { note: "n" }), "30 millis")
      ], { concurrency: "unbounded" })
      // The two reads overlap each other; the write overlaps neither.
      assert.isBelow(Math.max(reads[0].start, reads[1].start), Math.min(reads[0].end, reads[1].end))
      for (const read of reads) assert.isTrue(write.start >= read.end || write.end <= read.start)
      yield* server.close
    }))

  it.scopedLive("keeps at most maxSessions, closing the one unused the longest", () =>
    Effect.gen(function*() {
      const server = yield* served({ maxSessions: 2 })
      const first = yield* sdkClient(server.url)
      const second = yield* sdkClient(server.url)
      yield* Effect.promise(() => second.listTools())
      const third = yield* sdkClient(server.url)
      assert.strictEqual(server.sessions(), 2)
      yield* Effect.promise(() => third.listTools())
      yield* Effect.promise(() => second.listTools())
      const evicted = yield* Effect.either(Effect.tryPromise(() => first.listTools()))
      assert.isTrue(evicted._tag === "Left")
      yield* server.close
    }))

  it.scopedLive("never closes a session with a call running to make room: the new one is refused until a call ends", () =>
    Effect.gen(function*() {
      const server = yield* served({ maxSessions: 1 })
      const first = yield* sdkClient(server.url)
      held.arm()
      const call = first.callTool({ name: "hold_on", arguments: {} })
      yield* Effect.promise(() => held.started)
      const refused = yield* Effect.either(sdkClient(server.url).pipe(Effect.timeout("5 seconds"), Effect.exit))
      assert.isTrue(refused._tag === "Right" && Exit.isFailure(refused.right), "a second session while the call runs")
      const raw = yield* Effect.promise(() =>
        fetch(server.url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
          })
        })
      )
      assert.strictEqual(raw.status, 503)
      assert.strictEqual(raw.headers.get("retry-after"), "1")
      assert.strictEqual(server.sessions(), 1)
      held.release()
      const result = (yield* Effect.promise(() => call)) as CallToolResult
      assert.deepStrictEqual(result.content, [{ type: "text", text: "released" }])
      // Idle now: the next session takes its place.
      const second = yield* sdkClient(server.url)
      yield* Effect.promise(() => second.listTools())
      assert.strictEqual(server.sessions(), 1)
      assert.isTrue((yield* Effect.either(Effect.tryPromise(() => first.listTools())))._tag === "Left")
      yield* server.close
    }))

  it.live("refuses to listen off the loopback interface without a token, or with a short one", () =>
    Effect.gen(function*() {
      const open = yield* Effect.flip(Effect.scoped(McpHttpServer.serve({ host: "0.0.0.0" })))
      assert.include(open.message, "without a token")
      const short = yield* Effect.flip(Effect.scoped(McpHttpServer.serve({ token: Redacted.make("short") })))
      assert.include(short.message, "shorter than 16")
      assert.notInclude(short.message, "short\"")
      const danger = yield* Effect.scoped(McpHttpServer.serve({ host: "0.0.0.0", dangerNoTokenOffLoopback: true }))
      assert.isAbove(danger.port, 0)
    }).pipe(Effect.provide(runtimeLayer)))

  it.scopedLive("closes with its scope, open sessions and streams included, within a bound", () =>
    Effect.gen(function*() {
      const server = yield* served()
      const client = yield* Effect.promise(async () => {
        const client = new Client({ name: "sdk-http-test", version: "1.0.0" })
        await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
        return client
      })
      yield* Effect.promise(() => client.listTools())
      // A notification stream a client keeps open, as the protocol's GET allows.
      const session = yield* raw(server.url, { headers: jsonHeaders(`127.0.0.1:${server.port}`), body: initialize })
      const stream = yield* Effect.async<NodeHttp.IncomingMessage>((resume) => {
        NodeHttp.get(server.url, {
          headers: {
            accept: "text/event-stream",
            "mcp-session-id": String(session.headers["mcp-session-id"]),
            "mcp-protocol-version": "2025-11-25"
          }
        }, (response) => resume(Effect.succeed(response)))
      })
      assert.strictEqual(stream.statusCode, 200)
      // And a client that sent half a body and went quiet: no session holds it, only the socket does.
      const stalled = NodeHttp.request(server.url, {
        method: "POST",
        headers: { ...jsonHeaders(`127.0.0.1:${server.port}`), "content-length": "1000" }
      })
      let stalledClosed = false
      stalled.on("error", () => {})
      stalled.on("close", () => (stalledClosed = true))
      stalled.write("{\"jsonrpc\":")
      yield* Effect.sleep("100 millis")
      const start = yield* Clock.currentTimeMillis
      yield* server.close
      assert.isBelow((yield* Clock.currentTimeMillis) - start, 6_000)
      // Closed by the server, not left to Node's request timeout minutes later.
      yield* Effect.sleep("50 millis").pipe(Effect.repeat({ until: () => stalledClosed }), Effect.timeout("2 seconds"))
      assert.isTrue(stalledClosed, "the half-sent request's socket is still open")
      const after = yield* raw(server.url, { headers: jsonHeaders(`127.0.0.1:${server.port}`), body: initialize })
      assert.strictEqual(after.status, 0, "the port still answers after the scope closed")
      yield* Effect.promise(() => client.close())
    }))
})

/**
 * Resources of the user's own, served over HTTP next to the tools and read
 * by the SDK's client: fixed documents (text redacted, bytes as they are),
 * a template, errors as the protocol's, and subscriptions that deliver
 * changes until the client unsubscribes or its session ends.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as McpHttpServer from "../src/McpHttpServer.js"
import * as McpResource from "../src/McpResource.js"

const token = `ghp_${"a1B2".repeat(9)}`
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255, 1, 2])

const serve = (resources: ReadonlyArray<McpResource.Definition>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    return yield* McpHttpServer.serve({ resources }).pipe(
      Effect.provide(ToolRuntime.layerDefault([])),
      Scope.extend(scope)
    )
  })

const connect = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "resources-test", version: "1.0.0" })
      const transport = new StreamableHTTPClientTransport(new URL(url))
      await client.connect(transport)
      return { client, transport }
    }),
    ({ client }) => Effect.promise(() => client.close())
  )

const documents = [
  McpResource.make("docs://readme", { name: "readme", read: { text: `deploy with ${token}` } }),
  McpResource.make("docs://logo", { name: "logo", mimeType: "image/png", read: { bytes: png } }),
  McpResource.make("docs://config", {
    name: "config",
    description: `the deploy config (${token})`,
    mimeType: "application/json",
    read: { bytes: new TextEncoder().encode(JSON.stringify({ token })) }
  }),
  McpResource.template("docs://tickets/{id}/summary", {
    name: "ticket summary",
    read: ({ id }) =>
      id === "404"
        ? Effect.fail(new McpResource.McpResourceError({ reason: "not_found", detail: "no such ticket" }))
        : id === "500"
        ? Effect.fail(new McpResource.McpResourceError({ reason: "failed", detail: `the desk is down (${token})` }))
        : Effect.succeed({ text: `ticket ${id}: open` })
  })
]

/** Polls `ok` every 20 ms: fails, naming `what`, after 5 s. */
const until = (what: string, ok: () => boolean) =>
  Effect.sleep("20 millis").pipe(
    Effect.repeat({ until: ok }),
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error(`not within 5 s: ${what}`) })
  )

describe("McpResource served", () => {
  it.scopedLive("lists, reads text (redacted) and bytes, and fills a template", () =>
    Effect.gen(function*() {
      const { url } = yield* serve(documents)
      const { client } = yield* connect(url)
      const listed = yield* Effect.promise(() => client.listResources())
      assert.deepStrictEqual(listed.resources.map((resource) => [resource.uri, resource.mimeType]), [
        ["docs://readme", "text/plain"],
        ["docs://logo", "image/png"],
        ["docs://config", "application/json"]
      ])
      assert.notInclude(JSON.stringify(listed), token.slice(4, 12))
      // Bytes of a textual type are text a model reads: redacted, and sent as text.
      const config = yield* Effect.promise(() => client.readResource({ uri: "docs://config" }))
      const configText = (config.contents[0] as { text: string }).text
      assert.match(configText, /^\{"token":"/)
      assert.notInclude(configText, token.slice(4, 12))
      const templates = yield* Effect.promise(() => client.listResourceTemplates())
      assert.strictEqual(templates.resourceTemplates[0]!.uriTemplate, "docs://tickets/{id}/summary")
      const readme = yield* Effect.promise(() => client.readResource({ uri: "docs://readme" }))
      const text = (readme.contents[0] as { text: string }).text
      assert.match(text, /^deploy with /)
      assert.notInclude(text, token.slice(4, 12))
      const logo = yield* Effect.promise(() => client.readResource({ uri: "docs://logo" }))
      assert.deepStrictEqual(
        [...Buffer.from((logo.contents[0] as { blob: string }).blob, "base64")],
        [...png]
      )
      const ticket = yield* Effect.promise(() => client.readResource({ uri: "docs://tickets/T%2D7/summary" }))
      assert.deepStrictEqual(ticket.contents, [{
        uri: "docs://tickets/T%2D7/summary",
        mimeType: "text/plain",
        text: "ticket T-7: open"
      }])
    }))

  // -32602, as 2026-07-28 says for every revision (SEP-2164); the SDK maps the older -32002 to it.
  it.scopedLive("what does not exist is -32602, a failed read -32603 with its detail redacted", () =>
    Effect.gen(function*() {
      const { url } = yield* serve(documents)
      const { client } = yield* connect(url)
      const read = (uri: string) =>
        Effect.flip(Effect.tryPromise(() => client.readResource({ uri }))).pipe(
          Effect.map((error) => error.cause as { code: number; message: string })
        )
      assert.strictEqual((yield* read("docs://nothing")).code, -32602)
      const missing = yield* read("docs://tickets/404/summary")
      assert.strictEqual(missing.code, -32602)
      // The protocol's prefix once, and the reason the read gave.
      assert.strictEqual(missing.message, "MCP error -32602: Resource not found: no such ticket")
      assert.strictEqual((yield* read("docs://tickets/a/b/summary")).code, -32602)
      const failed = yield* read("docs://tickets/500/summary")
      assert.strictEqual(failed.code, -32603)
      assert.match(failed.message, /the desk is down/)
      assert.notInclude(failed.message, token.slice(4, 12))
      const subscribe = yield* Effect.flip(Effect.tryPromise(() => client.subscribeResource({ uri: "docs://nothing" })))
      assert.strictEqual((subscribe.cause as { code: number }).code, -32602)
    }))

  it.scopedLive("a subscriber hears each change until it unsubscribes, and its session's end stops the watch", () =>
    Effect.gen(function*() {
      const changes = yield* Queue.unbounded<void>()
      let watching = 0
      let stopped = 0
      const watched = McpResource.make("docs://status", {
        name: "status",
        read: { text: "green" },
        changes: Stream.fromQueue(changes).pipe(
          Stream.onStart(Effect.sync(() => watching++)),
          Stream.ensuring(Effect.sync(() => stopped++))
        )
      })
      const { url } = yield* serve([watched])
      const { client, transport } = yield* connect(url)
      const heard: Array<string> = []
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        heard.push(notification.params.uri)
      })
      yield* Effect.promise(() => client.subscribeResource({ uri: "docs://status" }))
      yield* until("the watch starts", () => watching === 1)
      yield* Queue.offer(changes, undefined)
      yield* until("the change is heard", () => heard.length === 1)
      assert.deepStrictEqual(heard, ["docs://status"])
      yield* Effect.promise(() => client.unsubscribeResource({ uri: "docs://status" }))
      yield* until("the watch stops", () => stopped === 1)
      yield* Queue.offer(changes, undefined)
      yield* Effect.sleep("300 millis")
      assert.strictEqual(heard.length, 1)
      yield* Effect.promise(() => client.subscribeResource({ uri: "docs://status" }))
      yield* until("the second watch starts", () => watching === 2)
      yield* Effect.promise(() => transport.terminateSession())
      yield* until("the session's end stops it", () => stopped === 2)
    }))
})

describe("McpResource served in 2026-07-28", () => {
  it.scopedLive("a subscriptions/listen stream hears each change; the watch runs only while a stream is open", () =>
    Effect.gen(function*() {
      const changes = yield* Queue.unbounded<void>()
      let watching = 0
      let stopped = 0
      const watched = McpResource.make("docs://status", {
        name: "status",
        read: { text: "green" },
        changes: Stream.fromQueue(changes).pipe(
          Stream.onStart(Effect.sync(() => watching++)),
          Stream.ensuring(Effect.sync(() => stopped++))
        )
      })
      const { url } = yield* serve([watched])
      yield* Effect.sleep("100 millis")
      assert.strictEqual(watching, 0, "nothing listens yet: nothing is watched")
      const abort = new AbortController()
      const response = yield* Effect.promise(() =>
        fetch(url, {
          method: "POST",
          signal: abort.signal,
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "subscriptions/listen"
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "subscriptions/listen",
            params: {
              notifications: { resourceSubscriptions: ["docs://status"] },
              _meta: {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
              }
            }
          })
        })
      )
      assert.include(response.headers.get("content-type") ?? "", "text/event-stream")
      const reader = response.body!.getReader()
      let heard = ""
      const pump = Effect.promise(async () => {
        const decoder = new TextDecoder()
        for (;;) {
          const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }))
          if (chunk.done) return
          heard += decoder.decode(chunk.value, { stream: true })
        }
      })
      yield* Effect.forkScoped(pump)
      yield* until("the watch starts", () => watching === 1)
      yield* Queue.offer(changes, undefined)
      yield* until("the change is heard", () => heard.includes("notifications/resources/updated"))
      assert.include(heard, "docs://status")
      abort.abort()
      yield* until("the watch stops with the last stream", () => stopped === 1)
    }))
})

describe("McpResource.match", () => {
  const segment = FastCheck.string({ minLength: 1, maxLength: 12 })

  it.prop("a URI filled from a template gives back the values, and one more segment does not match", [
    segment,
    segment
  ], ([id, part]) => {
    const uri = `docs://t/${encodeURIComponent(id)}/p/${encodeURIComponent(part)}`
    assert.deepStrictEqual(McpResource.match("docs://t/{id}/p/{part}", uri), { id, part })
    assert.isUndefined(McpResource.match("docs://t/{id}/p/{part}", `${uri}/extra`))
    assert.isUndefined(McpResource.match("docs://t/{id}", `docs://t/${encodeURIComponent(id)}/x`))
  })

  it("literal parts are literal: a dot in the template is not a wildcard", () => {
    assert.isUndefined(McpResource.match("a.b://{x}", "aXb://1"))
    assert.deepStrictEqual(McpResource.match("a.b://{x}", "a.b://1"), { x: "1" })
    assert.isUndefined(McpResource.match("docs://{x}", "docs://%E0%A4%A"))
  })
})

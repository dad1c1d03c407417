/**
 * A served handler asks the client's user (`context.elicit`) and the
 * client's model (`context.sample`), over Streamable HTTP, driven by the
 * official SDK's client: the question goes out on the call's stream with
 * the form derived from the handler's schema and its text redacted, the
 * answer comes back decoded, and every way it can go wrong (no capability,
 * an answer of the wrong shape, a user who never answers) is an answer or
 * a typed failure the handler reads, within the call's limits.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import type { CallToolResult, ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as McpHttpServer from "../src/McpHttpServer.js"

const secret = `ghp_${"Zq9Xw8Vu7T".repeat(3)}abcdef`

const Signup = Schema.Struct({
  username: Schema.String.annotations({ description: "Your name" }),
  age: Schema.Number.annotations({ default: 30 })
})

const askName = Tool.make("ask_name", {
  description: "Asks the user who they are.",
  parameters: {},
  readOnly: true,
  idleTimeout: "300 millis",
  timeout: "20 seconds",
  handler: (_, context) =>
    Effect.map(
      context.elicit({ message: `Who are you? (the deploy key is ${secret})`, schema: Signup }),
      (answer) =>
        answer.action === "accept"
          ? `hello ${answer.content.username}, ${answer.content.age}`
          : `no answer: ${answer.action}${answer.reason === undefined ? "" : ` (${answer.reason})`}`
    )
})

const askBriefly = Tool.make("ask_briefly", {
  description: "Asks, but may not wait long.",
  parameters: {},
  readOnly: true,
  timeout: "1 second",
  handler: (_, context) => Effect.as(context.elicit({ message: "Quick?", schema: Signup }), "answered")
})

const summarize = Tool.make("summarize", {
  description: "Asks the client's model.",
  parameters: { text: Schema.String },
  readOnly: true,
  handler: ({ text }, context) =>
    Effect.map(
      context.sample({ messages: [{ role: "user", text }], maxTokens: 50 }),
      (sample) => `model ${sample.model} says: ${sample.text}`
    )
})

const runtimeLayer = ToolRuntime.layerDefault([askName, askBriefly, summarize])

const served = Effect.gen(function*() {
  const scope = yield* Scope.make()
  yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
  return yield* McpHttpServer.serve().pipe(Effect.provide(runtimeLayer), Scope.extend(scope))
})

const connect = (url: string, client: Client) =>
  Effect.acquireRelease(
    Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(url)))).pipe(Effect.as(client)),
    () => Effect.promise(() => client.close())
  )

const text = (result: CallToolResult) =>
  result.content.map((block) => block.type === "text" ? block.text : `[${block.type}]`).join("\n")

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<CallToolResult>).pipe(
    Effect.timeoutFail({ duration: "15 seconds", onTimeout: () => new Error(`${name} was not answered in 15 s`) })
  )

const elicitingClient = (answer: (request: ElicitRequest) => Promise<ElicitResult>) => {
  const client = new Client({ name: "asks-test", version: "1.0.0" }, { capabilities: { elicitation: {} } })
  client.setRequestHandler(ElicitRequestSchema, (request) => answer(request))
  return client
}

describe("McpServer: a handler asks the client", () => {
  it.scopedLive("a question goes out with the form derived from the schema, redacted, and the answer comes back decoded", () =>
    Effect.gen(function*() {
      const { url } = yield* served
      const seen: Array<ElicitRequest["params"]> = []
      const client = yield* connect(
        url,
        elicitingClient(async (request) => {
          seen.push(request.params)
          // Longer than the tool's 300 ms idle limit: a user reading the form is not a stuck tool.
          await new Promise((resolve) => setTimeout(resolve, 900))
          return { action: "accept", content: { username: "ada", age: 36 } }
        })
      )
      const result = yield* call(client, "ask_name")
      assert.notStrictEqual(result.isError, true, text(result))
      assert.strictEqual(text(result), "hello ada, 36")
      assert.strictEqual(seen.length, 1)
      const params = seen[0]! as { message: string; requestedSchema: Record<string, unknown> }
      assert.notInclude(params.message, secret.slice(8, 16))
      assert.include(params.message, "[REDACTED:github-token]")
      assert.deepStrictEqual(params.requestedSchema.required, ["username", "age"])
      assert.deepStrictEqual(params.requestedSchema.properties, {
        username: { type: "string", description: "Your name" },
        age: { type: "number", default: 30 }
      })
    }))

  it.scopedLive("an answer that does not match the schema is a cancel with the reason, never a value of the wrong shape", () =>
    Effect.gen(function*() {
      const { url } = yield* served
      const client = yield* connect(
        url,
        elicitingClient(() => Promise.resolve({ action: "accept", content: { username: "ada", age: "old" } }))
      )
      const result = yield* call(client, "ask_name")
      assert.match(text(result), /^no answer: cancel \(the answer did not match the question: .*age/s)
    }))

  it.scopedLive("a decline reaches the handler as a decline", () =>
    Effect.gen(function*() {
      const { url } = yield* served
      const client = yield* connect(url, elicitingClient(() => Promise.resolve({ action: "decline" })))
      assert.strictEqual(text(yield* call(client, "ask_name")), "no answer: decline")
    }))

  it.scopedLive("a client that cannot answer questions: the handler gets a decline saying why, and nothing is sent", () =>
    Effect.gen(function*() {
      const { url } = yield* served
      const client = yield* connect(url, new Client({ name: "plain", version: "1.0.0" }))
      const result = yield* call(client, "ask_name")
      assert.match(text(result), /^no answer: decline \(no user can be asked: .*elicitation/)
    }))

  it.scopedLive("a user who never answers: the call still ends at its total limit, and the question is withdrawn", () =>
    Effect.gen(function*() {
      const { url } = yield* served
      let aborted = false
      const client = new Client({ name: "asks-test", version: "1.0.0" }, { capabilities: { elicitation: {} } })
      // Never answers, but notices when the server withdraws the question. The SDK's client
      // ignores a cancellation of request id 0 (`!requestId`): the question under test must not be the first.
      client.setRequestHandler(
        ElicitRequestSchema,
        (_request, extra) =>
          extra.requestId === 0 ? Promise.resolve({ action: "decline" }) : new Promise<ElicitResult>(() => {
            extra.signal.addEventListener("abort", () => {
              aborted = true
            })
          })
      )
      yield* connect(url, client)
      assert.strictEqual(text(yield* call(client, "ask_name")), "no answer: decline")
      const started = performance.now()
      const result = yield* call(client, "ask_briefly")
      const elapsed = performance.now() - started
      assert.isTrue(result.isError)
      assert.strictEqual((result._meta?.["tool-runtime/error"] as { code: string }).code, "timeout")
      assert.isBelow(elapsed, 8_000)
      // The server tells the client to drop the question it no longer waits for.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
      assert.isTrue(aborted, "the pending elicitation was cancelled")
    }))

  it.scopedLive("sampling: the client's model answers; without the capability the handler fails with the reason", () =>
    Effect.gen(function*() {
      const { url } = yield* served
      const lending = new Client({ name: "lends", version: "1.0.0" }, { capabilities: { sampling: {} } })
      const asked: Array<unknown> = []
      lending.setRequestHandler(CreateMessageRequestSchema, (request) => {
        asked.push(request.params)
        return Promise.resolve({ model: "tiny-1", role: "assistant", content: { type: "text", text: "four" } })
      })
      const withModel = yield* connect(url, lending)
      const answered = yield* call(withModel, "summarize", { text: "two plus two?" })
      assert.strictEqual(text(answered), "model tiny-1 says: four")
      assert.deepStrictEqual(asked, [{
        messages: [{ role: "user", content: { type: "text", text: "two plus two?" } }],
        maxTokens: 50
      }])
      const without = yield* connect(url, new Client({ name: "plain", version: "1.0.0" }))
      const failed = yield* call(without, "summarize", { text: "two plus two?" })
      assert.isTrue(failed.isError)
      assert.include(text(failed), "MCP sampling")
    }))
})

/**
 * The permission stage's "ask", answered by the user of the MCP client that
 * called the tool: a registry governed by the real permission engine, with
 * `Approver.layerClient`, served over Streamable HTTP and driven by the
 * official SDK's client. The user's choice decides the call; a client that
 * cannot answer questions gets a denial that says why, and the tool never
 * runs without a "yes".
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import type { CallToolResult, ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as McpHttpServer from "@tool-runtime/mcp/McpHttpServer"
import * as Approver from "@tool-runtime/permissions/Approver"
import * as Engine from "@tool-runtime/permissions/Engine"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Os from "node:os"

let deployed: Array<string> = []
const secret = `ghp_${"Rt5Yu6Io7P".repeat(3)}abcdef`

const deploy = Tool.make("deploy_app", {
  description: "Deploys the app to an environment.",
  parameters: { env: Schema.String, token: Schema.String },
  handler: ({ env }) =>
    Effect.sync(() => {
      deployed.push(env)
      return `deployed to ${env}`
    })
})

const runtimeLayer = ToolRuntime.layer().pipe(
  Layer.provide([Registry.layer([deploy]), ArtifactStore.layerMemory(), Redactor.layerDefault]),
  Layer.provide(
    Engine.layer({ workspaceRoot: Os.tmpdir(), ask: ["deploy_app"] }).pipe(
      Layer.provide([Approver.layerClient(), Redactor.layerDefault, NodeContext.layer]),
      Layer.orDie
    )
  )
)

const served = Effect.gen(function*() {
  const scope = yield* Scope.make()
  yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
  return yield* McpHttpServer.serve().pipe(Effect.provide(runtimeLayer), Scope.extend(scope))
})

const connect = (url: string, answer?: (request: ElicitRequest) => ElicitResult) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client(
        { name: "approval-test", version: "1.0.0" },
        answer === undefined ? {} : { capabilities: { elicitation: {} } }
      )
      if (answer !== undefined) {
        client.setRequestHandler(ElicitRequestSchema, (request) => Promise.resolve(answer(request)))
      }
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

const text = (result: CallToolResult) =>
  result.content.map((block) => block.type === "text" ? block.text : `[${block.type}]`).join("\n")

const callDeploy = (client: Client, env: string) =>
  Effect.promise(() =>
    client.callTool({ name: "deploy_app", arguments: { env, token: secret } }) as Promise<CallToolResult>
  ).pipe(Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("deploy_app was not answered") }))

describe("the permission stage asks the MCP client's user", () => {
  it.scopedLive("allow once runs the call; the question shows the call, redacted, and offers only what applies", () =>
    Effect.gen(function*() {
      deployed = []
      const { url } = yield* served
      const asked: Array<ElicitRequest["params"]> = []
      const client = yield* connect(url, (request) => {
        asked.push(request.params)
        return { action: "accept", content: { decision: "allow_once" } }
      })
      const result = yield* callDeploy(client, "staging")
      assert.notStrictEqual(result.isError, true, text(result))
      assert.deepStrictEqual(deployed, ["staging"])
      assert.lengthOf(asked, 1)
      const params = asked[0] as { message: string; requestedSchema: { properties: Record<string, unknown> } }
      assert.include(params.message, "deploy_app needs your approval")
      assert.include(params.message, "staging")
      assert.notInclude(params.message, secret.slice(8, 16))
      const offered = (params.requestedSchema.properties.decision as { oneOf: Array<{ const: string }> }).oneOf
      assert.includeMembers(offered.map((choice) => choice.const), ["allow_once", "deny"])
    }))

  it.scopedLive("deny, decline, dismiss and an answer not offered: the tool never runs, the model reads why", () =>
    Effect.gen(function*() {
      deployed = []
      const { url } = yield* served
      const replies: Array<[ElicitResult, string]> = [
        [{ action: "accept", content: { decision: "deny", message: "not on a Friday" } }, "not on a Friday"],
        [{ action: "decline" }, "declined"],
        [{ action: "cancel" }, "dismissed"],
        [{ action: "accept", content: { decision: "allow_forever" } }, "not one of the choices"]
      ]
      for (const [reply, reason] of replies) {
        const client = yield* connect(url, () => reply)
        const result = yield* callDeploy(client, "production")
        assert.isTrue(result.isError, JSON.stringify(reply))
        assert.strictEqual((result._meta?.["tool-runtime/error"] as { code: string }).code, "permission_denied")
        assert.include(text(result), reason)
      }
      assert.deepStrictEqual(deployed, [])
    }))

  it.scopedLive("a client that cannot answer questions: denied, saying nobody could approve it", () =>
    Effect.gen(function*() {
      deployed = []
      const { url } = yield* served
      const client = yield* connect(url)
      const result = yield* callDeploy(client, "production")
      assert.isTrue(result.isError)
      assert.include(text(result), "no one is available to approve it")
      assert.deepStrictEqual(deployed, [])
    }))
})

/** One tools/call of the 2026-07-28 revision, with the envelope and headers it requires; JSON or an event stream. */
const post2026 = async (url: string, params: Record<string, unknown>, capabilities: Record<string, unknown>) => {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": String(params.name)
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": capabilities
        }
      }
    })
  })
  const body = await response.text()
  const json = body.startsWith("{")
    ? body
    : body.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).at(-1) ?? "{}"
  return (JSON.parse(json) as { result?: Record<string, unknown> }).result ?? {}
}

describe("the permission stage asks the MCP client's user under 2026-07-28", () => {
  it.scopedLive("the question goes out as input_required; the answer resumes the same call, which runs once", () =>
    Effect.gen(function*() {
      deployed = []
      const { url } = yield* served
      const call = { name: "deploy_app", arguments: { env: "staging", token: secret } }
      for (const [answer, runs] of [[{ decision: "deny" }, 0], [{ decision: "allow_once" }, 1]] as const) {
        const first = yield* Effect.promise(() => post2026(url, call, { elicitation: {} }))
        assert.strictEqual(first.resultType, "input_required", JSON.stringify(first))
        const requests = first.inputRequests as Record<string, { method: string; params: { message: string } }>
        const [key, question] = Object.entries(requests)[0]!
        assert.strictEqual(question.method, "elicitation/create")
        assert.include(question.params.message, "deploy_app needs your approval")
        assert.notInclude(question.params.message, secret.slice(8, 16))
        const done = yield* Effect.promise(() =>
          post2026(url, {
            ...call,
            requestState: first.requestState,
            inputResponses: { [key]: { action: "accept", content: answer } }
          }, { elicitation: {} })
        )
        assert.strictEqual(done.resultType, "complete")
        assert.strictEqual(done.isError === true, runs === 0, JSON.stringify(done))
        assert.lengthOf(deployed, runs)
      }
      // Without the capability nobody can be asked: denied at once, nothing parked.
      const unasked = yield* Effect.promise(() => post2026(url, call, {}))
      assert.strictEqual(unasked.isError, true)
      assert.include(JSON.stringify(unasked.content), "no one is available to approve it")
      assert.deepStrictEqual(deployed, ["staging"])
    }))
})

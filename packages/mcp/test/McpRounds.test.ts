/**
 * Questions under 2026-07-28: a call that asks is parked, never run again;
 * its retry resumes it; a state that is not a live one of this server's is
 * refused before anything runs.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as McpHttpServer from "../src/McpHttpServer.js"
import * as McpRounds from "../src/McpRounds.js"

const elicitation = { elicitation: {} }

/** A call that records each step it takes, asking one question, or two at once. */
const asking = (steps: Array<string>, questions: ReadonlyArray<string>) =>
(channel: {
  readonly elicit?:
    | ((request: { message: string; requestedSchema: never; key?: string }) => Effect.Effect<unknown, unknown>)
    | undefined
}, stop: Effect.Effect<string>) =>
  Effect.gen(function*() {
    steps.push("started")
    const answers = yield* Effect.all(
      questions.map((key) =>
        channel.elicit!({ key, message: `${key}?`, requestedSchema: { type: "object", properties: {} } as never })
      ),
      { concurrency: "unbounded" }
    )
    steps.push("answered")
    return JSON.stringify(answers)
  }).pipe(
    Effect.catchAll(() => Effect.succeed("failed")),
    Effect.raceFirst(stop)
  )

const never = new AbortController().signal

/** The questions a round sent back, and the state to send them again with. */
const askedIn = (round: McpRounds.Round<unknown>) =>
  round.result as unknown as {
    readonly inputRequests: Record<string, { readonly method: string }>
    readonly requestState: string
  }

describe("McpRounds", () => {
  it.live("a call that asks is parked; the retry's answers resume it where it stopped, and it ran once", () =>
    Effect.gen(function*() {
      const rounds = McpRounds.make()
      const steps: Array<string> = []
      const first = yield* rounds.start(
        "deploy",
        { env: "prod" },
        elicitation,
        asking(steps, ["confirm"]) as never,
        never
      )
      assert.strictEqual(first._tag, "Ask")
      const asked = askedIn(first)
      assert.deepStrictEqual(Object.keys(asked.inputRequests), ["confirm"])
      assert.strictEqual(asked.inputRequests.confirm!.method, "elicitation/create")
      assert.strictEqual(rounds.parked(), 1)
      const done = yield* rounds.resume(
        asked.requestState,
        "deploy",
        { env: "prod" },
        { confirm: { action: "accept", content: { ok: true } } },
        never
      )
      assert.strictEqual(done._tag, "Done")
      assert.deepStrictEqual(JSON.parse(done.result as string), [{ action: "accept", content: { ok: true } }])
      assert.deepStrictEqual(steps, ["started", "answered"])
      assert.strictEqual(rounds.parked(), 0)
    }))

  it.live("questions asked at once go out together; one left unanswered is asked again under a new state", () =>
    Effect.gen(function*() {
      const rounds = McpRounds.make()
      const steps: Array<string> = []
      const first = yield* rounds.start("two", {}, elicitation, asking(steps, ["name", "color"]) as never, never)
      const asked = askedIn(first)
      assert.sameMembers(Object.keys(asked.inputRequests), ["name", "color"])
      const second = yield* rounds.resume(asked.requestState, "two", {}, { name: { action: "decline" } }, never)
      assert.strictEqual(second._tag, "Ask")
      const again = askedIn(second)
      assert.deepStrictEqual(Object.keys(again.inputRequests), ["color"])
      assert.notStrictEqual(again.requestState, asked.requestState)
      // The first state was used: it is refused, and nothing runs.
      const reused = yield* Effect.flip(rounds.resume(asked.requestState, "two", {}, {}, never))
      assert.strictEqual(reused.code, -32602)
      const done = yield* rounds.resume(again.requestState, "two", {}, { color: { action: "cancel" } }, never)
      assert.strictEqual(done._tag, "Done")
      assert.deepStrictEqual(steps, ["started", "answered"])
    }))

  it.live("a forged state, or one for another tool or other arguments, is -32602 and the call stays parked", () =>
    Effect.gen(function*() {
      const rounds = McpRounds.make()
      const steps: Array<string> = []
      const first = yield* rounds.start(
        "deploy",
        { env: "prod" },
        elicitation,
        asking(steps, ["confirm"]) as never,
        never
      )
      const state = askedIn(first).requestState
      for (
        const [forged, tool, args] of [
          [`${state}-TAMPERED`, "deploy", { env: "prod" }],
          ["", "deploy", { env: "prod" }],
          [state, "other", { env: "prod" }],
          [state, "deploy", { env: "dev" }]
        ] as const
      ) {
        const error = yield* Effect.flip(rounds.resume(forged, tool, args, { confirm: { action: "accept" } }, never))
        assert.strictEqual(error.code, -32602, `${forged} ${tool}`)
      }
      assert.deepStrictEqual(steps, ["started"])
      // The right one still works: the refusals took nothing.
      const done = yield* rounds.resume(state, "deploy", { env: "prod" }, { confirm: { action: "decline" } }, never)
      assert.strictEqual(done._tag, "Done")
    }))

  it.live("a parked call whose client never comes back is stopped at maxWait, and its state is refused after", () =>
    Effect.gen(function*() {
      const rounds = McpRounds.make({ maxWait: "150 millis" })
      const steps: Array<string> = []
      let stopped: string | undefined
      const call = (channel: never, stop: Effect.Effect<string>) =>
        asking(steps, ["confirm"])(channel, stop.pipe(Effect.tap((reason) => Effect.sync(() => (stopped = reason)))))
      const first = yield* rounds.start("deploy", {}, elicitation, call as never, never)
      const state = askedIn(first).requestState
      yield* Effect.sleep("400 millis")
      assert.match(stopped ?? "", /did not answer within/)
      assert.strictEqual(rounds.parked(), 0)
      const late = yield* Effect.flip(rounds.resume(state, "deploy", {}, { confirm: { action: "accept" } }, never))
      assert.strictEqual(late.code, -32602)
      assert.deepStrictEqual(steps, ["started"])
    }))

  it.live("the retry's request aborted stops the call with the client's reason", () =>
    Effect.gen(function*() {
      const rounds = McpRounds.make()
      const first = yield* rounds.start("deploy", {}, elicitation, asking([], ["a", "b"]) as never, never)
      const asked = askedIn(first)
      const abort = new AbortController()
      abort.abort()
      const done = yield* rounds.resume(asked.requestState, "deploy", {}, { a: { action: "accept" } }, abort.signal)
      assert.deepStrictEqual(done, { _tag: "Done", result: "the MCP client cancelled the request" })
    }))

  it.live("answers a first request carried under the question's key are taken; ones of the wrong shape are asked", () =>
    Effect.gen(function*() {
      const rounds = McpRounds.make()
      const steps: Array<string> = []
      const given = { confirm: { action: "accept", content: { ok: true } }, extra: { action: "accept" } }
      const done = yield* rounds.start("deploy", {}, elicitation, asking(steps, ["confirm"]) as never, never, given)
      assert.strictEqual(done._tag, "Done")
      assert.deepStrictEqual(JSON.parse(done.result as string), [given.confirm])
      const wrong = yield* rounds.start("deploy", {}, elicitation, asking([], ["confirm"]) as never, never, {
        confirm: 12345
      })
      assert.strictEqual(wrong._tag, "Ask")
      const state = askedIn(wrong).requestState
      const still = yield* rounds.resume(state, "deploy", {}, { confirm: { action: "maybe" } }, never)
      assert.strictEqual(still._tag, "Ask")
    }))

  it.live("without the client's elicitation capability no question goes out: the call answers at once", () =>
    Effect.gen(function*() {
      const rounds = McpRounds.make()
      const steps: Array<string> = []
      const call = (channel: { elicit?: unknown }, stop: Effect.Effect<string>) =>
        channel.elicit === undefined ? Effect.succeed("no channel") : asking(steps, ["x"])(channel as never, stop)
      const done = yield* rounds.start("deploy", {}, { sampling: {} }, call as never, never)
      assert.deepStrictEqual(done, { _tag: "Done", result: "no channel" })
    }))
})

/** One JSON-RPC request of the 2026-07-28 revision, its answer read from JSON or an event stream. */
const post = async (url: string, method: string, params: Record<string, unknown>, signal?: AbortSignal) => {
  const response = await fetch(url, {
    method: "POST",
    ...(signal === undefined ? {} : { signal }),
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {})
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: Math.floor(performance.now() * 1000),
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": elicitation
        }
      }
    })
  })
  const text = await response.text()
  const json = text.startsWith("{")
    ? text
    : text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).at(-1) ?? "{}"
  return JSON.parse(json) as { result?: Record<string, unknown>; error?: { code: number; message: string } }
}

describe("McpRounds served over HTTP", () => {
  it.scopedLive("a write that asks for confirmation wrote once, before and after its answer, and a replay runs nothing", () =>
    Effect.gen(function*() {
      const ledger: Array<string> = []
      const deploy = Tool.make("deploy", {
        description: "Deploys, after a confirmation.",
        parameters: { env: Schema.String },
        readOnly: false,
        handler: ({ env }, context) =>
          Effect.gen(function*() {
            ledger.push(`prepared ${env}`)
            const answer = yield* context.elicit({
              key: "confirm",
              message: `Deploy to ${env}?`,
              schema: Schema.Struct({ ok: Schema.Boolean })
            })
            if (answer.action !== "accept" || !answer.content.ok) return "not deployed"
            ledger.push(`deployed ${env}`)
            return `deployed to ${env}`
          })
      })
      const { url } = yield* McpHttpServer.serve().pipe(Effect.provide(ToolRuntime.layerDefault([deploy])))
      const first = yield* Effect.promise(() => post(url, "tools/call", { name: "deploy", arguments: { env: "prod" } }))
      assert.strictEqual(first.result?.resultType, "input_required", JSON.stringify(first))
      const state = first.result!.requestState as string
      const retry = { name: "deploy", arguments: { env: "prod" }, requestState: state }
      const done = yield* Effect.promise(() =>
        post(url, "tools/call", { ...retry, inputResponses: { confirm: { action: "accept", content: { ok: true } } } })
      )
      assert.strictEqual(done.result?.resultType, "complete", JSON.stringify(done))
      assert.include(JSON.stringify(done.result?.content), "deployed to prod")
      const replay = yield* Effect.promise(() =>
        post(url, "tools/call", { ...retry, inputResponses: { confirm: { action: "accept", content: { ok: true } } } })
      )
      assert.strictEqual(replay.error?.code, -32602)
      assert.deepStrictEqual(ledger, ["prepared prod", "deployed prod"])
    }))

  it.scopedLive("a parked write gives the gate back: reads and other writes run while its client thinks", () =>
    Effect.gen(function*() {
      const ledger: Array<string> = []
      const deploy = Tool.make("deploy", {
        description: "Deploys, after a confirmation.",
        parameters: {},
        readOnly: false,
        handler: (_, context) =>
          Effect.map(
            context.elicit({ key: "confirm", message: "Deploy?", schema: Schema.Struct({ ok: Schema.Boolean }) }),
            (answer) => {
              ledger.push(`deploy ${answer.action}`)
              return answer.action
            }
          )
      })
      const note = Tool.make("note", {
        description: "Writes a note.",
        parameters: {},
        readOnly: false,
        handler: () => Effect.sync(() => ledger.push("note"))
      })
      const { url } = yield* McpHttpServer.serve().pipe(Effect.provide(ToolRuntime.layerDefault([deploy, note])))
      const first = yield* Effect.promise(() => post(url, "tools/call", { name: "deploy", arguments: {} }))
      assert.strictEqual(first.result?.resultType, "input_required")
      // Parked, holding nothing: another write runs now, not after maxWait.
      const other = yield* Effect.promise(() => post(url, "tools/call", { name: "note", arguments: {} })).pipe(
        Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the parked write held the gate") })
      )
      assert.strictEqual(other.result?.resultType, "complete")
      const done = yield* Effect.promise(() =>
        post(url, "tools/call", {
          name: "deploy",
          arguments: {},
          requestState: first.result!.requestState,
          inputResponses: { confirm: { action: "accept", content: { ok: true } } }
        })
      )
      assert.strictEqual(done.result?.resultType, "complete")
      assert.deepStrictEqual(ledger, ["note", "deploy accept"])
    }))

  it.scopedLive("a write cancelled while it waits for its place never runs, and says so", () =>
    Effect.gen(function*() {
      const ledger: Array<string> = []
      const slow = Tool.make("slow", {
        description: "Reads slowly.",
        parameters: {},
        readOnly: true,
        handler: () => Effect.as(Effect.sleep("600 millis"), "read")
      })
      const write = Tool.make("write", {
        description: "Writes.",
        parameters: {},
        readOnly: false,
        handler: () => Effect.sync(() => ledger.push("write"))
      })
      const { url } = yield* McpHttpServer.serve().pipe(Effect.provide(ToolRuntime.layerDefault([slow, write])))
      const reading = Effect.runPromise(Effect.promise(() => post(url, "tools/call", { name: "slow", arguments: {} })))
      yield* Effect.sleep("100 millis")
      const abort = new AbortController()
      const writing = post(url, "tools/call", { name: "write", arguments: {} }, abort.signal).catch(() => "aborted")
      yield* Effect.sleep("100 millis")
      abort.abort()
      assert.strictEqual(yield* Effect.promise(() => writing), "aborted")
      yield* Effect.promise(() => reading)
      yield* Effect.sleep("300 millis")
      assert.deepStrictEqual(ledger, [], "the cancelled write ran once the gate was free")
    }))
})

/**
 * `context.elicit` and `context.sample` through the runtime, on the
 * `TestClock`: the idle limit stops while the call waits on a person and
 * restarts after, the total limit never stops, and every way a channel can
 * fail reaches the handler as an answer or a typed failure.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as ArtifactStore from "../src/ArtifactStore.js"
import * as ClientRequests from "../src/ClientRequests.js"
import * as Policy from "../src/Policy.js"
import * as Redactor from "../src/Redactor.js"
import * as Registry from "../src/Registry.js"
import * as Tool from "../src/Tool.js"
import * as ToolResult from "../src/ToolResult.js"
import * as ToolRuntime from "../src/ToolRuntime.js"

const Form = Schema.Struct({ name: Schema.String })

const asks = Tool.make("asks", {
  description: "Asks, then stays silent for a while.",
  parameters: { silence: Schema.optionalWith(Schema.Number, { default: () => 900 }) },
  readOnly: true,
  timeout: "60 seconds",
  idleTimeout: "1 second",
  handler: ({ silence }, context) =>
    Effect.gen(function*() {
      const answer = yield* context.elicit({ message: "name?", schema: Form })
      yield* Effect.sleep(silence)
      return answer.action === "accept" ? `hi ${answer.content.name}` : `${answer.action}: ${answer.reason ?? ""}`
    })
})

const samples = Tool.make("samples", {
  description: "Asks the model.",
  parameters: {},
  readOnly: true,
  handler: (_, context) =>
    Effect.map(context.sample({ messages: [{ role: "user", text: "hi" }], maxTokens: 5 }), (s) => s.text)
})

const planted = `ghp_${"Qw3Er4Ty5U".repeat(3)}abcdef`

/** A question and a sample whose every word a person or a model reads carries a secret. */
const leaky = Tool.make("leaky", {
  description: "Asks with a secret in the form and in the prompt.",
  parameters: {},
  readOnly: true,
  handler: (_, context) =>
    Effect.gen(function*() {
      yield* context.elicit({
        message: `use ${planted}?`,
        schema: Schema.Struct({
          choice: Schema.Literal("yes", "no").annotations({
            title: `key ${planted}`,
            description: `the key is ${planted}`,
            default: "yes"
          }),
          note: Schema.String.annotations({ description: planted, default: `note ${planted}` })
        })
      })
      yield* Effect.either(context.sample({
        messages: [{ role: "user", text: `summarize ${planted}` }],
        systemPrompt: `you hold ${planted}`,
        maxTokens: 5
      }))
      return "asked"
    })
})

const runtime = Effect.gen(function*() {
  const store = ArtifactStore.layerMemory()
  return yield* ToolRuntime.ToolRuntime.pipe(
    Effect.provide(
      ToolRuntime.layer().pipe(
        Layer.provide([Registry.layer([asks, samples, leaky]), store, Redactor.layerDefault, Policy.layerAllowAll]),
        Layer.provide(store)
      )
    )
  )
})

const answeringAfter = (millis: number, reply: { action: string; content?: unknown }): ClientRequests.Channel => ({
  elicit: () => Effect.as(Effect.sleep(millis), reply)
})

const run = (
  name: string,
  client: ClientRequests.Channel | undefined,
  advance: ReadonlyArray<number>,
  input: Record<string, unknown> = {}
) =>
  Effect.gen(function*() {
    const service = yield* runtime
    const fiber = yield* Effect.fork(service.runCall({ id: "c1", name, input }, { client }))
    for (const millis of advance) {
      yield* Effect.repeatN(Effect.yieldNow(), 20)
      yield* TestClock.adjust(millis)
    }
    yield* Effect.repeatN(Effect.yieldNow(), 20)
    // Polled, not joined: a call that should have ended fails here instead of hanging the test.
    const exit = fiber.unsafePoll()
    assert.isNotNull(exit, `${name} had not ended once the clock moved ${advance.join(" + ")} ms`)
    return yield* exit!
  })

describe("ClientRequests", () => {
  it.effect("the idle limit does not run out while the user thinks, and restarts when they answer", () =>
    Effect.gen(function*() {
      // Ten idle limits of thinking, then 900 ms of silence after the answer.
      const result = yield* run("asks", answeringAfter(10_000, { action: "accept", content: { name: "ada" } }), [
        10_000,
        900
      ])
      assert.isFalse(result.isError, ToolResult.text(result))
      assert.strictEqual(ToolResult.text(result), "hi ada")
      // Silent past the idle limit after the answer: stopped as stuck, one limit after the answer.
      const stuck = yield* run("asks", answeringAfter(10_000, { action: "accept", content: { name: "ada" } }), [
        10_000,
        1_000,
        1_000
      ], { silence: 5_000 })
      assert.strictEqual(stuck.error?.code, "idle_timeout")
    }))

  it.effect("the total limit holds while the user thinks", () =>
    Effect.gen(function*() {
      const result = yield* run("asks", answeringAfter(600_000, { action: "accept" }), [59_999, 1, 1_000])
      assert.isTrue(result.isError)
      assert.strictEqual(result.error?.code, "timeout")
    }))

  it.effect("a channel that fails, an unknown action and no channel at all are answers with a reason", () =>
    Effect.gen(function*() {
      const failing = yield* run("asks", { elicit: () => Effect.fail(new Error("stream closed")) }, [900])
      assert.strictEqual(ToolResult.text(failing), "cancel: the question could not be asked: stream closed")
      const odd = yield* run("asks", answeringAfter(0, { action: "maybe" }), [900])
      assert.strictEqual(ToolResult.text(odd), "cancel: the client answered \"maybe\"")
      const none = yield* run("asks", undefined, [900])
      assert.match(ToolResult.text(none), /^decline: no user can be asked/)
    }))

  it.effect("sampling without a model is a typed failure with the reason; a failing model gives its message", () =>
    Effect.gen(function*() {
      const none = yield* run("samples", undefined, [])
      assert.isTrue(none.isError)
      assert.include(ToolResult.text(none), "MCP sampling")
      const broken = yield* run("samples", { sample: () => Effect.fail(new Error("model overloaded")) }, [])
      assert.include(ToolResult.text(broken), "model overloaded")
      const ok = yield* run("samples", { sample: () => Effect.succeed({ text: "hello", model: "m" }) }, [])
      assert.strictEqual(ToolResult.text(ok), "hello")
    }))

  it.effect("a question's form and a sample's prompt leave redacted: no 8-character window of a secret", () =>
    Effect.gen(function*() {
      const sent: Array<unknown> = []
      const channel: ClientRequests.Channel = {
        elicit: (request) => Effect.sync(() => sent.push(request)).pipe(Effect.as({ action: "decline" })),
        sample: (request) => Effect.sync(() => sent.push(request)).pipe(Effect.as({ text: "ok", model: "m" }))
      }
      const result = yield* run("leaky", channel, [])
      assert.strictEqual(ToolResult.text(result), "asked")
      assert.lengthOf(sent, 2)
      const wire = JSON.stringify(sent)
      for (let i = 0; i + 8 <= planted.length; i++) assert.notInclude(wire, planted.slice(i, i + 8))
      // What an answer must match is kept.
      assert.include(wire, "\"enum\":[\"yes\",\"no\"]")
    }))
})

describe("the turn's channel", () => {
  // The permission stage asks the user through it (`Approver.client`): a turn given a
  // client must run its stages with the channel set, a call done at once included.
  it.effect("reaches the permission stage of a call that completes at once, and no other turn", () =>
    Effect.gen(function*() {
      const seen: Array<ClientRequests.Channel | undefined> = []
      const policy: Policy.Service = {
        authorize: () =>
          Effect.map(FiberRef.get(ClientRequests.currentChannel), (channel) => {
            seen.push(channel)
            return Policy.allow
          }),
        checkPath: () => undefined
      }
      const echo = Tool.make("echo", {
        description: "Echoes.",
        parameters: {},
        readOnly: true,
        handler: () => Effect.succeed("ok")
      })
      const store = ArtifactStore.layerMemory()
      const service = yield* ToolRuntime.ToolRuntime.pipe(
        Effect.provide(
          ToolRuntime.layer().pipe(
            Layer.provide([
              Registry.layer([echo]),
              store,
              Redactor.layerDefault,
              Layer.succeed(Policy.Policy, policy)
            ]),
            Layer.provide(store)
          )
        )
      )
      const client: ClientRequests.Channel = { elicit: () => Effect.succeed({ action: "decline" }) }
      const [withClient] = yield* service.runTurn([{ id: "c1", name: "echo", input: {} }], { client })
      const [without] = yield* service.runTurn([{ id: "c2", name: "echo", input: {} }])
      assert.strictEqual(ToolResult.text(withClient!), "ok")
      assert.strictEqual(ToolResult.text(without!), "ok")
      assert.deepStrictEqual(seen, [client, undefined])
    }))
})

describe("requestedSchemaOf", () => {
  it("puts the definition in place of every reference an identifier makes, the struct's own too", () => {
    const Email = Schema.String.annotations({ identifier: "Email/Address~1", description: "Where to write" })
    const Level = Schema.Literal("low", "high").annotations({ identifier: "Level" })
    const form = Schema.Struct({ email: Email, level: Schema.optional(Level), age: Schema.Number })
      .annotations({ identifier: "Form" })
    const requested = ClientRequests.requestedSchemaOf(form)
    assert.notInclude(JSON.stringify(requested), "$ref")
    assert.deepStrictEqual(requested, {
      type: "object",
      properties: {
        email: { type: "string", description: "Where to write" },
        level: { type: "string", enum: ["low", "high"] },
        age: { type: "number" }
      },
      required: ["email", "age"]
    })
  })

  it("a schema that is not a struct is the asking handler's bug", () => {
    assert.throws(() => ClientRequests.requestedSchemaOf(Schema.String), /must be a struct/)
    assert.throws(
      () => ClientRequests.requestedSchemaOf(Schema.String.annotations({ identifier: "S" })),
      /must be a struct/
    )
  })
})

import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import * as AiTool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as CoreTool from "@tool-runtime/core/Tool"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as AgentLoop from "../src/AgentLoop.js"
import * as AiToolkit from "../src/AiToolkit.js"
import * as ScriptedModel from "../src/ScriptedModel.js"

const GetWeather = AiTool.make("GetWeather", {
  description: "Current weather in a city.",
  parameters: { city: Schema.String },
  success: Schema.Struct({ city: Schema.String, celsius: Schema.Number })
}).annotate(AiTool.Readonly, true)

const BookTrip = AiTool.make("BookTrip", {
  description: "Books a trip.",
  parameters: { city: Schema.String },
  success: Schema.String,
  failure: Schema.Struct({ reason: Schema.String })
})

const toolkit = Toolkit.make(GetWeather, BookTrip)

const Tools = AiToolkit.layerRuntime(toolkit).pipe(
  Layer.provide(toolkit.toLayer({
    GetWeather: ({ city }) => Effect.succeed({ city, celsius: 21 }),
    BookTrip: ({ city }) => Effect.fail({ reason: `no seats left to ${city}` })
  }))
)

/** The tool results of the last message of a prompt. */
const lastResults = (prompt: Prompt.Prompt) => {
  const last = prompt.content.at(-1)
  assert.strictEqual(last?.role, "tool")
  return last?.role === "tool" ? last.content : []
}

describe("AgentLoop", () => {
  it.effect("an unknown tool, bad arguments and a failing handler come back as results; the generation goes on", () =>
    Effect.gen(function*() {
      let seen: ReadonlyArray<Prompt.ToolResultPart> = []
      const model = yield* ScriptedModel.make([
        [
          ScriptedModel.text("Let me check."),
          ScriptedModel.toolCall("c1", "GetWeather", { city: "Lisbon" }),
          ScriptedModel.toolCall("c2", "GetWether", { city: "Porto" }),
          ScriptedModel.toolCall("c3", "GetWeather", { city: 7 }),
          ScriptedModel.toolCall("c4", "BookTrip", { city: "Lisbon" })
        ],
        (request) => {
          seen = lastResults(request.prompt)
          return [ScriptedModel.text("It is 21 °C in Lisbon, but the trip could not be booked.")]
        }
      ])
      const result = yield* AgentLoop.run({ prompt: "Weather in Lisbon? Book me a trip.", system: "Be brief." }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model)
      )
      assert.strictEqual(result.stopped, "model")
      assert.strictEqual(result.text, "It is 21 °C in Lisbon, but the trip could not be booked.")
      assert.strictEqual(result.steps.length, 2)
      const codes = result.steps[0]!.results.map((r) => r.error?.code)
      assert.deepStrictEqual(codes, [undefined, "unknown_tool", "invalid_arguments", "tool_failed"])
      // The model read every result, paired by id, failures flagged.
      assert.deepStrictEqual(seen.map((part) => [part.id, part.isFailure]), [
        ["c1", false],
        ["c2", true],
        ["c3", true],
        ["c4", true]
      ])
      assert.include(String(seen[1]!.result), "Did you mean \"GetWeather\"?")
      assert.include(String(seen[3]!.result), "no seats left to Lisbon")
      // The model was shown the registry's tools, and the system prompt.
      assert.deepStrictEqual(model.requests[0]!.tools, ["read_output", "GetWeather", "BookTrip"])
      const system = model.requests[0]!.prompt.content[0]!
      assert.deepStrictEqual([system.role, system.content], ["system", "Be brief."])
      // The returned prompt holds the whole conversation, ready to continue.
      assert.deepStrictEqual(result.prompt.content.map((message) => message.role), [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant"
      ])
    }).pipe(Effect.provide(Tools)))

  it.effect("a reply cut at the output limit in its last call: that call is not run, the one before it is", () =>
    Effect.gen(function*() {
      let seen: ReadonlyArray<Prompt.ToolResultPart> = []
      const model = yield* ScriptedModel.make([
        [
          ScriptedModel.toolCall("c1", "GetWeather", { city: "Lisbon" }),
          // The limit struck while the model wrote the city: what arrived still decodes.
          ScriptedModel.toolCall("c2", "BookTrip", { city: "Lis" }),
          { type: "finish", reason: "length", usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } }
        ],
        (request) => {
          seen = lastResults(request.prompt)
          return [ScriptedModel.text("Booking again, in full.")]
        }
      ])
      const result = yield* AgentLoop.run({ prompt: "Weather in Lisbon? Book me a trip." }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model)
      )
      const codes = result.steps[0]!.results.map((r) => r.error?.code)
      assert.deepStrictEqual(codes, [undefined, "truncated_arguments"])
      assert.deepStrictEqual(seen.map((part) => [part.id, part.isFailure]), [["c1", false], ["c2", true]])
      assert.include(String(seen[1]!.result), "again, complete and smaller")
      assert.notInclude(String(seen[1]!.result), "no seats left")
    }).pipe(Effect.provide(Tools)))

  it.effect("a reply cut at the output limit in its text, after its calls: the calls were whole, and run", () =>
    Effect.gen(function*() {
      const model = yield* ScriptedModel.make([
        [
          ScriptedModel.toolCall("c1", "GetWeather", { city: "Lisbon" }),
          ScriptedModel.text("While that runs, let me tell you about Lis"),
          { type: "finish", reason: "length", usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } }
        ],
        [ScriptedModel.text("It is 21 °C.")]
      ])
      const result = yield* AgentLoop.run({ prompt: "Weather in Lisbon?" }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model)
      )
      assert.deepStrictEqual(result.steps[0]!.results.map((r) => r.error?.code), [undefined])
    }).pipe(Effect.provide(Tools)))

  it.effect("stops at the turn limit when the model keeps calling tools", () =>
    Effect.gen(function*() {
      const again = (n: number) => [ScriptedModel.toolCall(`c${n}`, "GetWeather", { city: "Oslo" })]
      const model = yield* ScriptedModel.make([again(1), again(2), again(3), again(4)])
      const result = yield* AgentLoop.run({ prompt: "Keep asking.", maxTurns: 3 }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model)
      )
      assert.strictEqual(result.stopped, "turn_limit")
      assert.strictEqual(result.steps.length, 3)
      assert.strictEqual(model.requests.length, 3)
      // The last calls were answered: the conversation is well formed.
      assert.strictEqual(result.prompt.content.at(-1)?.role, "tool")
    }).pipe(Effect.provide(Tools)))

  it.effect("@effect/ai's own resolution ends the generation on an unknown tool; the loop does not", () =>
    Effect.gen(function*() {
      const reply = [ScriptedModel.toolCall("c1", "GetWether", { city: "Porto" })]
      const plain = yield* ScriptedModel.make([reply])
      const direct = yield* Effect.either(
        LanguageModel.generateText({ prompt: "Weather?", toolkit }).pipe(
          Effect.provideService(LanguageModel.LanguageModel, plain)
        )
      )
      assert.isTrue(Either.isLeft(direct))
      const model = yield* ScriptedModel.make([reply, [ScriptedModel.text("Sorry, wrong tool.")]])
      const result = yield* AgentLoop.run({ prompt: "Weather?" }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model)
      )
      assert.strictEqual(result.stopped, "model")
      assert.strictEqual(result.steps[0]!.results[0]!.error?.code, "unknown_tool")
    }).pipe(
      Effect.provide(Tools),
      Effect.provide(toolkit.toLayer({
        GetWeather: ({ city }) => Effect.succeed({ city, celsius: 21 }),
        BookTrip: ({ city }) => Effect.fail({ reason: `no seats left to ${city}` })
      }))
    ))

  it.effect("a script that runs out fails loudly", () =>
    Effect.gen(function*() {
      const model = yield* ScriptedModel.make([[ScriptedModel.toolCall("c1", "GetWeather", { city: "Oslo" })]])
      const result = yield* Effect.either(
        AgentLoop.run({ prompt: "?" }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      )
      assert.isTrue(Either.isLeft(result))
      if (Either.isLeft(result)) assert.include(result.left.message, "request 2 has none")
    }).pipe(Effect.provide(Tools)))
})

describe("AgentLoop with tools that change", () => {
  it.effect("the model is shown the registry's tools as they are before each turn", () =>
    Effect.gen(function*() {
      const tool = (name: string) =>
        CoreTool.make(name, {
          description: `${name}s.`,
          parameters: {},
          readOnly: true,
          handler: () => Effect.succeed(`${name} done`)
        })
      const before = yield* Registry.make([tool("Ping")])
      const after = yield* Registry.make([tool("Ping"), tool("Pong")])
      const { registry, replace } = Registry.changing(before)
      const model = yield* ScriptedModel.make([
        [ScriptedModel.toolCall("c1", "Ping", {})],
        [ScriptedModel.toolCall("c2", "Pong", {})],
        [ScriptedModel.text("Both done.")]
      ])
      const result = yield* AgentLoop.run({
        prompt: "Ping, then pong.",
        onStep: (step) => Effect.sync(() => step.turn === 1 && replace(after))
      }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model),
        Effect.provide(
          ToolRuntime.layer().pipe(Layer.provide(Layer.mergeAll(
            Layer.succeed(Registry.Registry, registry),
            Policy.layerAllowAll,
            Redactor.layerDefault,
            ArtifactStore.layerMemory()
          )))
        )
      )
      assert.deepStrictEqual(model.requests.map((request) => request.tools), [["Ping"], ["Ping", "Pong"], [
        "Ping",
        "Pong"
      ]])
      assert.deepStrictEqual(result.steps.map((step) => step.results.map((r) => r.error?.code ?? "ok")), [["ok"], [
        "ok"
      ], []])
    }))
})

import { assert, describe, it, layer } from "@effect/vitest"
import type * as Genai from "@google/genai"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Gemini from "../src/Gemini.js"
import * as World from "./World.js"

/**
 * A model turn as the API sends it. Gemini may leave ids out, so each call
 * has one or not as generated; repeated ids only exist where ids are sent.
 */
const modelTurn = (turn: World.GenTurn, withIds: ReadonlyArray<boolean>) =>
  ({
    candidates: [{
      content: {
        role: "model",
        parts: World.interleave(turn).map((item, i): Genai.Part => {
          if (item._tag === "call") {
            const index = turn.calls.indexOf(item.call)
            return {
              functionCall: {
                ...(withIds[index] === true ? { id: item.call.id } : {}),
                name: item.call.name,
                args: item.call.input as Record<string, unknown>
              },
              ...(i === 0 ? { thoughtSignature: "c2lnbmF0dXJl" } : {})
            }
          }
          return item.anomaly.kind === "missing-id"
            ? { text: "Let me do that." }
            : { hologram: { id: "x" } } as unknown as Genai.Part
        })
      }
    }]
  }) satisfies { readonly candidates: Array<Genai.Candidate> }

layer(World.runtimeLayer)("Gemini", (it) => {
  it.effect.prop(
    "every functionCall gets exactly one functionResponse, in order, with its id when it had one",
    [
      World.turn({ objectsOnly: true, anomalies: true }),
      FastCheck.array(FastCheck.boolean(), { minLength: 8, maxLength: 8 })
    ],
    ([turn, withIds]) =>
      Effect.gen(function*() {
        const decoded = Gemini.decodeCalls(modelTurn(turn, withIds))
        assert.deepStrictEqual(decoded.calls.map((c) => [c.name, c.input]), turn.calls.map((c) => [c.name, c.input]))
        // Sent ids are kept; the others are made up, unique, and remembered as such.
        decoded.calls.forEach((call, i) => {
          if (withIds[i] === true) assert.strictEqual(call.id, turn.calls[i]!.id)
          assert.strictEqual(decoded.positional.has(call.id), withIds[i] !== true)
        })
        const positional = decoded.calls.filter((call) => decoded.positional.has(call.id)).map((call) => call.id)
        assert.strictEqual(new Set(positional).size, positional.length)
        const unknown = World.interleave(turn).flatMap((item, i) =>
          item._tag === "anomaly" && item.anomaly.kind === "unknown-type" ? [`candidates[0].content.parts[${i}]`] : []
        )
        assert.deepStrictEqual(decoded.error?.issues.map((issue) => issue.path) ?? [], unknown)

        const results = yield* World.run(decoded.calls)
        assert.strictEqual(results.length, turn.calls.length)

        const reply = Gemini.encodeResults(results, decoded)
        assert.strictEqual(reply.role, "user")
        assert.strictEqual(reply.parts.length, turn.calls.length)
        reply.parts.forEach((part, i) => {
          const response = part.functionResponse!
          assert.strictEqual(response.name, turn.calls[i]!.name)
          assert.strictEqual(response.id, withIds[i] === true ? turn.calls[i]!.id : undefined)
          assert.deepStrictEqual(Object.keys(response.response!), [results[i]!.isError ? "error" : "output"])
        })

        const read = Gemini.decodeResults(reply)
        assert.isUndefined(read.error)
        read.results.forEach((returned, i) => {
          assert.strictEqual(returned.isError, results[i]!.isError)
          assert.deepStrictEqual(returned.content, [
            ToolResult.textBlock(results[i]!.content.flatMap((b) => b._tag === "text" ? [b.text] : []).join("\n")),
            ...results[i]!.content.filter((b) => b._tag === "image")
          ])
        })
      })
  )

  it.effect("a secret-shaped unknown name is redacted in the result, and the response still pairs by it", () =>
    Effect.gen(function*() {
      const secret = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8"
      const decoded = Gemini.decodeCalls([
        { functionCall: { name: secret, args: {} } },
        { functionCall: { id: "x1", name: "get_time", args: {} } },
        { functionCall: { name: secret, args: {} } }
      ])
      const results = yield* World.run(decoded.calls)
      assert.strictEqual(results[0]!.toolName, "[REDACTED:github-token]")
      assert.strictEqual(results[0]!.error?.code, "unknown_tool")
      const reply = Gemini.encodeResults(results, decoded)
      // Gemini pairs by name (and position): each response names its call
      // exactly as the model did, the only place that name goes back.
      assert.deepStrictEqual(reply.parts.map((p) => p.functionResponse!.name), [secret, "get_time", secret])
      assert.deepStrictEqual(reply.parts.map((p) => p.functionResponse!.id), [undefined, "x1", undefined])
      assert.notInclude(JSON.stringify(reply.parts.map((p) => p.functionResponse!.response)), secret.slice(4, 12))
      // Without the decoded calls, the result's own (redacted) name is all there is.
      const bare = Gemini.encodeResults(results, { positional: decoded.positional })
      assert.strictEqual(bare.parts[0]!.functionResponse!.name, "[REDACTED:github-token]")
    }))

  it.prop(
    "decode(encode(calls)) round-trips, ids included",
    [World.turn({ objectsOnly: true, anomalies: false })],
    ([turn]) => {
      const calls = turn.calls.map(({ id, input, name }) => ({ id, name, input }))
      const decoded = Gemini.decodeCalls(Gemini.encodeCalls(calls))
      assert.deepStrictEqual(decoded.calls, calls)
      assert.strictEqual(decoded.positional.size, 0)
    }
  )
})

describe("Gemini", () => {
  it("a turn that is not the model's is a decode error", () => {
    const decoded = Gemini.decodeCalls({ role: "user", parts: [{ functionCall: { name: "x", args: {} } }] })
    assert.deepStrictEqual(decoded.calls, [])
    assert.strictEqual(decoded.error?.issues[0]?.path, "role")
  })

  it("positional ids never collide with ids the model sent", () => {
    const decoded = Gemini.decodeCalls([
      { functionCall: { id: "gemini-call-1", name: "get_time", args: {} } },
      { functionCall: { name: "get_time", args: {} } }
    ])
    assert.deepStrictEqual(decoded.calls.map((c) => c.id), ["gemini-call-1", "gemini-call-1_"])
  })

  it("images go in the response's own parts", () => {
    const part = Gemini.encodeResult(
      ToolResult.make({
        callId: "c1",
        toolName: "picture",
        content: [ToolResult.textBlock("a pixel"), ToolResult.image(World.png, "image/png")],
        isError: false,
        meta: { durationMillis: 0, redactions: 0 }
      }),
      false
    )
    assert.deepStrictEqual(part, {
      functionResponse: {
        id: "c1",
        name: "picture",
        response: { output: "a pixel" },
        parts: [{ inlineData: { mimeType: "image/png", data: World.png, displayName: "c1-0" } }]
      }
    })
  })

  it("declares functions with their JSON Schema", () => {
    const tools: Array<Genai.Tool> = Gemini.toolDefinitions({
      definitions: [World.picture, World.dimLights].map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema
      }))
    })
    assert.deepStrictEqual(tools[0]?.functionDeclarations?.map((d) => d.parametersJsonSchema), [
      { type: "object", required: [], properties: {}, additionalProperties: false },
      {
        type: "object",
        required: ["brightness"],
        properties: {
          brightness: { type: "number", description: "The brightness of the lights, 0.0 is off, 1.0 is full." }
        },
        additionalProperties: false
      }
    ])
  })

  it("a blocked candidate has no calls; a payload of another shape is a decode error", () => {
    assert.deepStrictEqual(Gemini.decodeCalls({ candidates: [{ finishReason: "SAFETY" }] }).calls, [])
    assert.isUndefined(Gemini.decodeCalls({ candidates: [{ finishReason: "SAFETY" }] }).error)
    assert.strictEqual(Gemini.decodeCalls({ candidates: [] }).error?.issues[0]?.path, "candidates[0].content.parts")
    assert.strictEqual(Gemini.decodeCalls({ output: [] }).error?.issues[0]?.path, "")
    assert.strictEqual(Gemini.decodeCalls([{}]).error?.issues[0]?.path, "[0]")
  })
})

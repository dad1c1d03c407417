import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as ProviderError from "../src/ProviderError.js"

describe("ProviderError", () => {
  const decode = new ProviderError.DecodeError({
    provider: "openai-chat",
    issues: [{ path: "tool_calls[1]", problem: "the call has no id" }]
  })
  const strict = new ProviderError.StrictSchemaRejected({
    provider: "openai-responses",
    rejections: [{ tool: "t", path: "#/properties/m", keyword: "additionalProperties", reason: "an open map" }]
  })

  it("names the format and every issue, never a value", () => {
    assert.strictEqual(
      decode.message,
      "The OpenAI Chat Completions payload could not be read in full: tool_calls[1]: the call has no id."
    )
    assert.strictEqual(
      strict.message,
      "Strict mode (OpenAI Responses) cannot take these tool schemas: t at #/properties/m (additionalProperties): an open map."
    )
  })

  it("the guard knows both errors and nothing else", () => {
    assert.isTrue(ProviderError.isProviderError(decode))
    assert.isTrue(ProviderError.isProviderError(strict))
    assert.isFalse(ProviderError.isProviderError(new Error("x")))
    assert.isFalse(ProviderError.isProviderError({ _tag: "MalformedCall" }))
  })

  it.effect("errors cross a boundary as data and come back equal", () =>
    Effect.gen(function*() {
      const encoded = yield* Schema.encode(ProviderError.DecodeError)(decode)
      assert.deepStrictEqual(JSON.parse(JSON.stringify(encoded)), {
        _tag: "DecodeError",
        provider: "openai-chat",
        issues: [{ path: "tool_calls[1]", problem: "the call has no id" }]
      })
      const decoded = yield* Schema.decodeUnknown(ProviderError.DecodeError)(encoded)
      assert.deepStrictEqual(decoded.issues, decode.issues)
      assert.strictEqual(decoded.message, decode.message)
    }))
})

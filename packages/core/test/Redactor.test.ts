import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Redactor from "../src/Redactor.js"
import { noise } from "./FakeSecrets.js"

// The engine's own tests are in @tool-runtime/redact; these cover the service seam.
const github = "gh" + "p_" + noise(36, 7)
const npm = "np" + "m_" + noise(36, 11)

describe("Redactor service", () => {
  it.effect("takes known secrets as Redacted values through the layer", () =>
    Effect.gen(function*() {
      const vault = "corp-vault-4f9a7Qe"
      const service = yield* Effect.provide(Redactor.Redactor, Redactor.layer({ secrets: [Redacted.make(vault)] }))
      assert.strictEqual(service.redact(`x ${vault}`).text, "x [REDACTED:known-secret]")
      const defaults = yield* Effect.provide(Redactor.Redactor, Redactor.layerDefault)
      assert.strictEqual(defaults.redact(vault).text, vault)
      assert.strictEqual(defaults.redact(`t ${github}`).text, "t [REDACTED:github-token]")
    }))

  it.effect("redactStream redacts an Effect stream of chunks exactly as the whole text", () =>
    Effect.gen(function*() {
      const redactor = Redactor.make()
      const text = `one ${github} two ${npm} three bob@example.com`
      const chunks = text.match(/.{1,5}/gs)!
      const out = yield* Stream.fromIterable(chunks).pipe(
        Redactor.redactStream(redactor, { batch: 3 }),
        Stream.runCollect
      )
      assert.strictEqual(Chunk.join(out, ""), redactor.redact(text).text)
      assert.notInclude(Chunk.join(out, ""), github.slice(8))
    }))
})

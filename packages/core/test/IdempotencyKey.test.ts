import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import * as IdempotencyKey from "../src/IdempotencyKey.js"
import * as Tool from "../src/Tool.js"
import * as ToolRuntime from "../src/ToolRuntime.js"

// Any UTF-16 text, lone surrogates and astral characters included.
const text = FastCheck.oneof(
  FastCheck.string({ unit: "binary" }),
  FastCheck.string({ unit: FastCheck.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) }),
  FastCheck.string()
)

// What a key is, computed by Node's own SHA-256 and UTF-8 (a lone surrogate is U+FFFD in both).
const expected = (sessionId: string, turnId: string, callId: string) => {
  const framed = [sessionId, turnId, callId].map((part) => `${part.length}:${part}`).join("")
  return `idk_${createHash("sha256").update(framed, "utf8").digest("hex").slice(0, 32)}`
}

describe("IdempotencyKey", () => {
  it.prop("is SHA-256 of the framed ids, as Node computes it, for any text", [text, text, text], ([s, t, c]) => {
    assert.strictEqual(IdempotencyKey.make({ sessionId: s, turnId: t }, c), expected(s, t, c))
  })

  it("hashes across block boundaries (55, 56, 64 and 1,000,000 bytes) as Node does", () => {
    for (const length of [0, 55, 56, 63, 64, 65, 119, 120, 1_000_000]) {
      const bytes = new Uint8Array(length).map((_, i) => (i * 31) & 0xff)
      assert.strictEqual(
        Buffer.from(IdempotencyKey.sha256(bytes)).toString("hex"),
        createHash("sha256").update(bytes).digest("hex"),
        `length ${length}`
      )
    }
  })

  it.prop(
    "two different triples of ids never share a key (the parts are framed, not joined)",
    [text, text, text, text, text, text],
    ([s1, t1, c1, s2, t2, c2]) => {
      if (s1 === s2 && t1 === t2 && c1 === c2) return
      assert.notStrictEqual(
        IdempotencyKey.make({ sessionId: s1, turnId: t1 }, c1),
        IdempotencyKey.make({ sessionId: s2, turnId: t2 }, c2)
      )
    }
  )

  it("splitting the same characters differently gives another key", () => {
    assert.notStrictEqual(
      IdempotencyKey.make({ sessionId: "a:b", turnId: "c" }, "d"),
      IdempotencyKey.make({ sessionId: "a", turnId: "b:c" }, "d")
    )
    assert.notStrictEqual(
      IdempotencyKey.make({ sessionId: "", turnId: "ab" }, "c"),
      IdempotencyKey.make({ sessionId: "a", turnId: "b" }, "c")
    )
  })
})

describe("context.idempotencyKey", () => {
  const seen: Array<string> = []
  const write = Tool.make("write", {
    description: "Writes, and says which key it would send.",
    parameters: { text: Schema.String },
    idempotent: true,
    handler: (_, context) =>
      Effect.sync(() => {
        seen.push(context.idempotencyKey)
        return context.idempotencyKey
      })
  })
  const turn = (ids: ReadonlyArray<string>) =>
    ids.map((id) => ({ id, name: "write", input: JSON.stringify({ text: "x" }) }))
  const keysOf = (
    ids: ReadonlyArray<string>,
    options?: ToolRuntime.TurnOptions
  ) =>
    Effect.flatMap(ToolRuntime.ToolRuntime, (runtime) => runtime.runTurn(turn(ids), options)).pipe(
      Effect.map((results) =>
        results.map((result) => {
          const first = result.content[0]
          return first?._tag === "text" ? first.text : ""
        })
      ),
      Effect.provide(ToolRuntime.layerDefault([write]))
    )

  it.effect("is the same for the same call sent again, and another for any other call, session or turn", () =>
    Effect.gen(function*() {
      const scope = { sessionId: "s-1", turnId: "t-7" }
      const first = yield* keysOf(["toolu_a", "toolu_b"], scope)
      const again = yield* keysOf(["toolu_a", "toolu_b"], scope)
      assert.deepStrictEqual(again, first)
      assert.notStrictEqual(first[0], first[1])
      assert.deepStrictEqual(first, [
        IdempotencyKey.make(scope, "toolu_a"),
        IdempotencyKey.make(scope, "toolu_b")
      ])
      const otherTurn = yield* keysOf(["toolu_a"], { sessionId: "s-1", turnId: "t-8" })
      const otherSession = yield* keysOf(["toolu_a"], { sessionId: "s-2", turnId: "t-7" })
      const unscoped = yield* keysOf(["toolu_a"])
      const keys = new Set([first[0], otherTurn[0], otherSession[0], unscoped[0]])
      assert.strictEqual(keys.size, 4)
      assert.strictEqual(unscoped[0], IdempotencyKey.make(IdempotencyKey.unscoped, "toolu_a"))
      // The handler saw what it returned, and no key quotes the ids it was made from.
      assert.deepStrictEqual(seen.slice(-2), [otherSession[0], unscoped[0]])
      for (const key of keys) {
        assert.match(key!, /^idk_[0-9a-f]{32}$/)
      }
    }))

  it("is declared per tool: writes are not idempotent unless they say so, reads are", () => {
    const read = Tool.make("read", {
      description: "Reads.",
      parameters: {},
      readOnly: true,
      handler: () => Effect.void
    })
    const plain = Tool.make("plain", { description: "Writes.", parameters: {}, handler: () => Effect.void })
    assert.strictEqual(read.idempotent, true)
    assert.strictEqual(plain.idempotent, false)
    assert.strictEqual(write.idempotent, true)
  })
})

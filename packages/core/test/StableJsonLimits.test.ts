import { assert, describe, it } from "@effect/vitest"
import * as StableJson from "../src/StableJson.js"

// The edges of StableJson's promises, each exact: where a budget or a depth
// limit starts to cut, what an Error and a `toJSON` come to, and the fast path
// for scalars (each test here was written against a mutant that survived
// the rest of the suite; see reports/mutation/stable-json).
describe("StableJson at its edges", () => {
  it("an object with exactly its item budget of entries is whole; one entry more is counted in the marker", () => {
    assert.strictEqual(StableJson.encode({ b: 2, a: 1 }, { maxItems: 2 }).text, "{\"a\":1,\"b\":2}")
    assert.strictEqual(
      StableJson.encode({ c: 3, b: 2, a: 1 }, { maxItems: 2 }).text,
      "{\"a\":1,\"b\":2,\"…\":\"[1 more not serialized]\"}"
    )
    assert.strictEqual(
      StableJson.encode({ e: 5, d: 4, c: 3, b: 2, a: 1 }, { maxItems: 1 }).text,
      "{\"a\":1,\"…\":\"[4 more not serialized]\"}"
    )
    assert.strictEqual(StableJson.encode([1, 2], { maxItems: 2 }).text, "[1,2]")
    assert.strictEqual(StableJson.encode([1, 2, 3], { maxItems: 2 }).text, "[1,2,\"[1 more not serialized]\"]")
  })

  it("a value exactly at the depth limit is kept, one level deeper is a marker", () => {
    assert.deepStrictEqual(StableJson.encode({ a: { b: 1 } }, { maxDepth: 2 }), {
      text: "{\"a\":{\"b\":1}}",
      tooDeep: false
    })
    assert.deepStrictEqual(StableJson.encode({ a: { b: { c: 1 } } }, { maxDepth: 2 }), {
      text: "{\"a\":{\"b\":\"[nested deeper than 2 levels]\"}}",
      tooDeep: true
    })
  })

  it("an Error keeps its name and message, and an own enumerable name does not make it unreadable", () => {
    assert.strictEqual(
      StableJson.stringify(new TypeError("bad input")),
      "{\"message\":\"bad input\",\"name\":\"TypeError\"}"
    )
    // Object.assign makes `name` an own enumerable key, listed before the
    // `name` the serializer adds itself: defining it twice must work.
    const custom = Object.assign(new Error("quota"), { name: "QuotaError", code: 429 })
    assert.strictEqual(StableJson.stringify(custom), "{\"code\":429,\"message\":\"quota\",\"name\":\"QuotaError\"}")
  })

  it("a toJSON that returns its own object serializes the object's fields, not a cycle", () => {
    const self = {
      id: 7,
      toJSON() {
        return this
      }
    }
    assert.strictEqual(StableJson.stringify(self), "{\"id\":7}")
  })

  it("a value whose whole serialization is nothing is the text null", () => {
    assert.deepStrictEqual(StableJson.encode({ toJSON: () => undefined }), { text: "null", tooDeep: false })
    assert.deepStrictEqual(StableJson.encode(() => 1), { text: "null", tooDeep: false })
  })

  it("a scalar is never too deep, whatever the limit", () => {
    for (const value of [1, "text", true, 10n, Number.NaN, null, undefined]) {
      assert.isFalse(StableJson.encode(value, { maxDepth: 0 }).tooDeep, String(value))
    }
    assert.deepStrictEqual(StableJson.encode("a\"b"), { text: "\"a\\\"b\"", tooDeep: false })
    assert.deepStrictEqual(StableJson.encode(Number.POSITIVE_INFINITY), { text: "\"Infinity\"", tooDeep: false })
  })
})

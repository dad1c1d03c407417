import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as StableJson from "../src/StableJson.js"

/** The same value with every object's keys inserted in reverse order. */
const reorder = (u: unknown): unknown => {
  if (Array.isArray(u)) return u.map(reorder)
  if (typeof u === "object" && u !== null) {
    return Object.fromEntries(Object.entries(u).reverse().map(([key, value]) => [key, reorder(value)]))
  }
  return u
}

/** The same value with every object's keys sorted, built with `defineProperty` semantics. */
const sortDeep = (u: unknown): unknown => {
  if (Array.isArray(u)) return u.map(sortDeep)
  if (typeof u === "object" && u !== null) {
    return Object.fromEntries(
      Object.keys(u).sort().map((key) => [key, sortDeep((u as Record<string, unknown>)[key])])
    )
  }
  return u
}

/**
 * JSON values. Keys exclude `__proto__` (see the report: such a key is
 * dropped) and integer-like keys, which every JS object lists first in
 * numeric order whatever the sort says.
 */
const key = FastCheck.string({ maxLength: 6 }).filter((k) => k !== "__proto__" && !/^(?:0|[1-9][0-9]*)$/.test(k))
const json = FastCheck.letrec((tie) => ({
  value: FastCheck.oneof(
    { depthSize: "small", withCrossShrink: true },
    FastCheck.constant(null),
    FastCheck.boolean(),
    FastCheck.double({ noNaN: true, noDefaultInfinity: true }).map((n) => Object.is(n, -0) ? 0 : n),
    FastCheck.string({ unit: "grapheme", maxLength: 8 }),
    FastCheck.array(tie("value"), { maxLength: 4 }),
    FastCheck.dictionary(key, tie("value"), { maxKeys: 4 })
  )
})).value

describe("StableJson", () => {
  it("survives maps and sets that contain themselves, keeps an own __proto__ key, keeps an Error's message", () => {
    const map = new Map<string, unknown>([["a", 1]])
    map.set("self", map)
    const set = new Set<unknown>([1])
    set.add(set)
    assert.strictEqual(StableJson.stringify(map), "{\"a\":1,\"self\":\"[Circular]\"}")
    assert.strictEqual(StableJson.stringify(set), "[1,\"[Circular]\"]")
    assert.strictEqual(
      StableJson.stringify(JSON.parse("{\"__proto__\":{\"a\":1},\"b\":2}")),
      "{\"__proto__\":{\"a\":1},\"b\":2}"
    )
    assert.include(StableJson.stringify(new TypeError("bad input")), "\"message\":\"bad input\"")
  })

  it("sorts keys at every depth and keeps array order", () => {
    assert.strictEqual(
      StableJson.stringify({ zeta: 1, alpha: { b: [3, 1, 2], a: null }, mid: "x" }),
      "{\"alpha\":{\"a\":null,\"b\":[3,1,2]},\"mid\":\"x\",\"zeta\":1}"
    )
  })

  it.prop("gives the same text whatever order the keys were inserted in", { value: json }, ({ value }) => {
    assert.strictEqual(StableJson.stringify(reorder(value)), StableJson.stringify(value))
  })

  it.prop("is JSON.stringify of the key-sorted value for plain JSON", { value: json }, ({ value }) => {
    assert.strictEqual(StableJson.stringify(value), JSON.stringify(sortDeep(value)))
  })

  it.prop("always produces parseable JSON, whatever it is given", { value: FastCheck.anything() }, ({ value }) => {
    const text = StableJson.stringify(value)
    assert.isString(text)
    JSON.parse(text)
  })

  it("replaces a reference back to an enclosing value with \"[Circular]\"", () => {
    const node: Record<string, unknown> = { name: "root" }
    node.self = node
    node.children = [{ parent: node }]
    assert.strictEqual(
      StableJson.stringify(node),
      "{\"children\":[{\"parent\":\"[Circular]\"}],\"name\":\"root\",\"self\":\"[Circular]\"}"
    )
    const list: Array<unknown> = [1]
    list.push(list)
    assert.strictEqual(StableJson.stringify(list), "[1,\"[Circular]\"]")
  })

  it("serializes a value shared by two siblings twice: sharing is not a cycle", () => {
    const shared = { id: 1 }
    assert.strictEqual(StableJson.stringify({ a: shared, b: shared }), "{\"a\":{\"id\":1},\"b\":{\"id\":1}}")
  })

  it("writes bigints as decimal strings", () => {
    assert.strictEqual(
      StableJson.stringify({ big: 12345678901234567890n, negative: -5n }),
      "{\"big\":\"12345678901234567890\",\"negative\":\"-5\"}"
    )
  })

  it("writes dates as ISO strings and an invalid date as \"Invalid Date\"", () => {
    assert.strictEqual(
      StableJson.stringify({ at: new Date("2026-01-02T03:04:05.678Z"), bad: new Date("nope") }),
      "{\"at\":\"2026-01-02T03:04:05.678Z\",\"bad\":\"Invalid Date\"}"
    )
  })

  it("writes non-finite numbers as their names instead of null", () => {
    assert.strictEqual(
      StableJson.stringify([NaN, Infinity, -Infinity, 1.5]),
      "[\"NaN\",\"Infinity\",\"-Infinity\",1.5]"
    )
  })

  it("drops functions, symbols and undefined from objects and writes null for them in arrays", () => {
    assert.strictEqual(
      StableJson.stringify({ f: () => 1, s: Symbol("s"), u: undefined, kept: true }),
      "{\"kept\":true}"
    )
    assert.strictEqual(StableJson.stringify([() => 1, Symbol("s"), undefined]), "[null,null,null]")
    assert.strictEqual(StableJson.stringify(() => 1), "null")
    assert.strictEqual(StableJson.stringify(undefined), "null")
  })

  it("uses toJSON, and writes \"[unserializable]\" when toJSON throws", () => {
    const money = { amount: 5, toJSON: () => ({ currency: "EUR", cents: 500 }) }
    assert.strictEqual(StableJson.stringify({ money }), "{\"money\":{\"cents\":500,\"currency\":\"EUR\"}}")
    const broken = {
      secret: "not shown",
      toJSON: () => {
        throw new Error("boom")
      }
    }
    assert.strictEqual(StableJson.stringify({ broken, ok: 1 }), "{\"broken\":\"[unserializable]\",\"ok\":1}")
  })

  it("writes maps as objects, sets as arrays and bytes as a size", () => {
    assert.strictEqual(
      StableJson.stringify({ m: new Map([["b", 2], ["a", 1]]), s: new Set([3, 1]), bytes: new Uint8Array(4) }),
      "{\"bytes\":\"[4 bytes]\",\"m\":{\"a\":1,\"b\":2},\"s\":[3,1]}"
    )
  })
})

describe("StableJson on hostile values", () => {
  const thrower = () => {
    throw new Error("no")
  }
  const trapAll = new Proxy({}, {
    get: thrower,
    has: thrower,
    ownKeys: thrower,
    getPrototypeOf: thrower,
    getOwnPropertyDescriptor: thrower
  })

  it("replaces what nests deeper than the limit by a marker, and says so, without recursing that deep", () => {
    const deep = JSON.parse("[".repeat(100_000) + "]".repeat(100_000))
    const encoded = StableJson.encode(deep)
    assert.isTrue(encoded.tooDeep)
    assert.include(encoded.text, `[nested deeper than ${StableJson.defaultMaxDepth} levels]`)
    assert.isFalse(StableJson.encode({ a: [[1]] }).tooDeep)
    // A toJSON that returns a fresh object forever is just as deep.
    const endless = { toJSON: (): unknown => ({ toJSON: endless.toJSON }) }
    assert.isTrue(StableJson.encode(endless).tooDeep)
  })

  it("turns parts that throw on access into markers: getters, toJSON, Proxy traps, iterators", () => {
    const getter = {
      ok: 1,
      get bad() {
        return thrower()
      }
    }
    assert.strictEqual(StableJson.stringify(getter), "{\"bad\":\"[unreadable]\",\"ok\":1}")
    assert.strictEqual(StableJson.stringify({ toJSON: thrower }), "\"[unserializable]\"")
    assert.strictEqual(StableJson.stringify(trapAll), "\"[unreadable]\"")
    assert.strictEqual(StableJson.stringify([trapAll, 2]), "[\"[unreadable]\",2]")
    const set = new Set([1])
    set[Symbol.iterator] = thrower
    assert.strictEqual(StableJson.stringify(set), "\"[unreadable]\"")
    const error = new Error("x")
    Object.defineProperty(error, "message", { get: thrower })
    assert.include(StableJson.stringify(error), "\"message\":\"[unreadable]\"")
  })

  it("drops functions, symbols and undefined like JSON does, and writes BigInts as strings", () => {
    assert.strictEqual(
      StableJson.stringify({ f: () => 1, s: Symbol("s"), u: undefined, n: 10n, list: [() => 1] }),
      "{\"list\":[null],\"n\":\"10\"}"
    )
    assert.strictEqual(StableJson.stringify(undefined), "null")
  })

  it("stops after its item budget: a sparse array of four billion, a Proxy claiming a trillion items", () => {
    const sparse: Array<number> = [1, 2]
    sparse.length = 4_000_000_000
    const claiming = new Proxy([7], { get: (target, key) => (key === "length" ? 1e12 : Reflect.get(target, key)) })
    for (const [value, length] of [[sparse, 4_000_000_000], [claiming, 1e12]] as const) {
      const text = StableJson.encode(value, { maxItems: 1_000 }).text
      const parsed = JSON.parse(text) as Array<unknown>
      assert.lengthOf(parsed, 1_001)
      assert.strictEqual(parsed[1_000], `[${length - 1_000} more not serialized]`)
    }
    // The default budget holds too, in bounded time.
    assert.include(StableJson.encode(sparse).text, `more not serialized]`)
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${String(i).padStart(2, "0")}`, i]))
    assert.deepStrictEqual(Object.keys(JSON.parse(StableJson.encode(wide, { maxItems: 5 }).text)), [
      "k00",
      "k01",
      "k02",
      "k03",
      "k04",
      "…"
    ])
  })
})

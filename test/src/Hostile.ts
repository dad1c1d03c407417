/**
 * Hostile values for property tests: what a model, a handler or a
 * third-party library may hand the runtime. Structures nested 100,000 levels
 * deep, objects whose every getter throws, Proxies that throw on every trap,
 * revoked Proxies, cycles, a `toJSON` that throws, errors whose `message`
 * throws, BigInts, Symbols, functions, `undefined`, and strings that are huge
 * or full of controls, bidi overrides, zero-width and tag characters.
 *
 * Generators produce a {@link Recipe}, plain data that fast-check can print
 * and shrink; {@link build} makes the hostile value from it, inside the
 * property, so that nothing hostile ever reaches fast-check's reporter.
 */
import * as FastCheck from "effect/FastCheck"

/** What a hostile value is made of. */
export type Recipe =
  | { readonly _tag: "string"; readonly text: string }
  | { readonly _tag: "huge"; readonly unit: string; readonly times: number }
  | { readonly _tag: "number"; readonly value: number }
  | { readonly _tag: "bigint" }
  | { readonly _tag: "symbol" }
  | { readonly _tag: "function" }
  | { readonly _tag: "undefined" }
  | { readonly _tag: "null" }
  | { readonly _tag: "deep"; readonly kind: "array" | "object"; readonly depth: number }
  | { readonly _tag: "getters" }
  | { readonly _tag: "proxy" }
  | { readonly _tag: "revoked" }
  | { readonly _tag: "circular" }
  | { readonly _tag: "throwingToJSON" }
  | { readonly _tag: "error"; readonly message: "throws" | string }
  | { readonly _tag: "array"; readonly items: ReadonlyArray<Recipe> }
  | { readonly _tag: "record"; readonly entries: ReadonlyArray<readonly [string, Recipe]> }

/** Characters that act on a terminal or hide text, and ordinary ones between them. */
const nasty = [
  "\u0000",
  "\u0007",
  "\u001b[31m",
  "\r",
  "\u007f",
  "\u0085",
  "\u009b31m",
  "\u200b",
  "\u200d",
  "\u202e",
  "\u2066",
  "\u2028",
  "\ufeff",
  "\u{e0041}",
  "\u{e007f}",
  "\ud800",
  "\udfff",
  "a",
  "Z",
  " ",
  "\n",
  "{",
  "\"",
  "😀"
]

/**
 * Short strings made of controls, invisible characters and a few ordinary ones.
 */
export const nastyString: FastCheck.Arbitrary<string> = FastCheck.array(FastCheck.constantFrom(...nasty), {
  maxLength: 24
}).map((parts) => parts.join(""))

/**
 * A string a model or a handler may send: nasty, huge, or both.
 */
export const foreignString: FastCheck.Arbitrary<Recipe> = FastCheck.oneof(
  nastyString.map((text): Recipe => ({ _tag: "string", text })),
  FastCheck.record({
    unit: nastyString.filter((s) => s.length > 0),
    times: FastCheck.constantFrom(10_000, 100_000)
  }).map(({ times, unit }): Recipe => ({ _tag: "huge", unit, times: Math.ceil(times / unit.length) }))
)

const key = FastCheck.oneof(
  FastCheck.constantFrom("message", "name", "toJSON", "__proto__", "constructor", "then", "length"),
  nastyString
)

/**
 * Any hostile value, as a recipe.
 */
export const recipe: FastCheck.Arbitrary<Recipe> = FastCheck.letrec<{ value: Recipe }>((tie) => ({
  value: FastCheck.oneof(
    { depthSize: "small", withCrossShrink: true },
    foreignString,
    FastCheck.constantFrom<Recipe>(
      { _tag: "bigint" },
      { _tag: "symbol" },
      { _tag: "function" },
      { _tag: "undefined" },
      { _tag: "null" },
      { _tag: "getters" },
      { _tag: "proxy" },
      { _tag: "revoked" },
      { _tag: "circular" },
      { _tag: "throwingToJSON" },
      { _tag: "error", message: "throws" }
    ),
    FastCheck.constantFrom(NaN, Infinity, -0, Number.MAX_VALUE).map((value): Recipe => ({ _tag: "number", value })),
    FastCheck.record({
      kind: FastCheck.constantFrom("array" as const, "object" as const),
      depth: FastCheck.constantFrom(300, 10_000, 100_000)
    }).map(({ depth, kind }): Recipe => ({ _tag: "deep", kind, depth })),
    nastyString.map((message): Recipe => ({ _tag: "error", message })),
    FastCheck.array(tie("value"), { maxLength: 3 }).map((items): Recipe => ({ _tag: "array", items })),
    FastCheck.array(FastCheck.tuple(key, tie("value")), { maxLength: 3 }).map((entries): Recipe => ({
      _tag: "record",
      entries
    }))
  )
})).value

const thrower = (): never => {
  throw new Error("hostile value")
}

/**
 * A Proxy that throws on every trap.
 */
export const trapAll = (): object =>
  new Proxy(function() {}, {
    get: thrower,
    set: thrower,
    has: thrower,
    ownKeys: thrower,
    getPrototypeOf: thrower,
    setPrototypeOf: thrower,
    getOwnPropertyDescriptor: thrower,
    defineProperty: thrower,
    deleteProperty: thrower,
    isExtensible: thrower,
    preventExtensions: thrower,
    apply: thrower,
    construct: thrower
  })

/** An object whose every property read, conversion and iteration throws. */
const getters = (): object => {
  const o = {}
  for (const name of ["message", "name", "toString", "valueOf", "toJSON", "then", "stack", "cause", "_tag"]) {
    Object.defineProperty(o, name, { get: thrower, enumerable: true })
  }
  Object.defineProperty(o, Symbol.iterator, { get: thrower })
  Object.defineProperty(o, Symbol.toPrimitive, { get: thrower })
  return o
}

const deep = (kind: "array" | "object", depth: number): unknown => {
  let value: unknown = kind === "array" ? [] : {}
  for (let i = 0; i < depth; i++) value = kind === "array" ? [value] : { a: value }
  return value
}

/**
 * The hostile value a recipe describes.
 */
export const build = (r: Recipe): unknown => {
  switch (r._tag) {
    case "string":
      return r.text
    case "huge":
      return r.unit.repeat(r.times)
    case "number":
      return r.value
    case "bigint":
      return 12345678901234567890n
    case "symbol":
      return Symbol("hostile")
    case "function":
      return () => "a function"
    case "undefined":
      return undefined
    case "null":
      return null
    case "deep":
      return deep(r.kind, r.depth)
    case "getters":
      return getters()
    case "proxy":
      return trapAll()
    case "revoked": {
      const { proxy, revoke } = Proxy.revocable({}, {})
      revoke()
      return proxy
    }
    case "circular": {
      const o: Record<string, unknown> = { name: "loop" }
      o.self = o
      o.list = [o, { parent: o }]
      return o
    }
    case "throwingToJSON":
      return { toJSON: thrower, value: 1 }
    case "error": {
      const error = new Error(r.message === "throws" ? "" : r.message)
      if (r.message === "throws") Object.defineProperty(error, "message", { get: thrower })
      return error
    }
    case "array":
      return r.items.map(build)
    case "record": {
      const o: Record<string, unknown> = {}
      for (const [k, v] of r.entries) {
        Object.defineProperty(o, k, { value: build(v), enumerable: true, configurable: true, writable: true })
      }
      return o
    }
  }
}

/**
 * The recipe as JSON text, for arguments sent as a string: deep structures
 * as brackets (no recursion), values JSON cannot hold as something it can.
 */
export const json = (r: Recipe): string => {
  switch (r._tag) {
    case "string":
      return JSON.stringify(r.text)
    case "huge":
      return JSON.stringify(r.unit.repeat(r.times))
    case "deep":
      return r.kind === "array"
        ? "[".repeat(r.depth) + "]".repeat(r.depth)
        : "{\"a\":".repeat(r.depth) + "{}" + "}".repeat(r.depth)
    case "array":
      return `[${r.items.map(json).join(",")}]`
    case "record":
      return `{${r.entries.map(([k, v]) => `${JSON.stringify(k)}:${json(v)}`).join(",")}}`
    case "number":
      return Number.isFinite(r.value) ? String(r.value) : "null"
    case "error":
      return JSON.stringify({ message: r.message })
    default:
      return "null"
  }
}

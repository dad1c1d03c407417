import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as JSONSchema from "effect/JSONSchema"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as StrictSchema from "../src/StrictSchema.js"

const jsonSchemaOf = <A, I>(schema: Schema.Schema<A, I>) => {
  const { $schema: _, ...rest } = JSONSchema.make(schema)
  return rest as Record<string, unknown>
}

const paths = (items: ReadonlyArray<{ readonly path: string; readonly keyword: string }>) =>
  items.map((item) => `${item.path} ${item.keyword}`)

const Item = Schema.Struct({
  sku: Schema.String,
  note: Schema.optional(Schema.String)
}).annotations({ identifier: "Item" })

const Order = Schema.Struct({
  customer: Schema.String,
  items: Schema.Array(Item),
  gift: Schema.optional(Item),
  coupon: Schema.optional(Schema.NullOr(Schema.String)),
  priority: Schema.optional(Schema.Literal("low", "high"))
})

describe("StrictSchema", () => {
  it("optional fields become required and nullable, through references and arrays", () => {
    const result = StrictSchema.rewrite(jsonSchemaOf(Order))
    assert.isTrue(result.strict, JSON.stringify(result.rejections))
    assert.deepStrictEqual(result.schema, {
      type: "object",
      required: ["customer", "items", "gift", "coupon", "priority"],
      properties: {
        customer: { type: "string" },
        items: { type: "array", items: { $ref: "#/$defs/Item" } },
        gift: { anyOf: [{ $ref: "#/$defs/Item" }, { type: "null" }] },
        coupon: { anyOf: [{ type: "string" }, { type: "null" }] },
        priority: { type: ["string", "null"], enum: ["low", "high", null] }
      },
      additionalProperties: false,
      $defs: {
        Item: {
          type: "object",
          required: ["sku", "note"],
          properties: { sku: { type: "string" }, note: { type: ["string", "null"] } },
          additionalProperties: false
        }
      }
    })
    assert.deepStrictEqual(result.changes.map((c) => `${c.path} ${c.action}`), [
      "#/properties/gift nullable",
      "#/properties/coupon required",
      "#/properties/priority nullable",
      "#/$defs/Item/properties/note nullable"
    ])
    assert.include(result.changes[1]!.reason, "null stands for both null and not given")
  })

  it("restore removes the nulls strict mode made the model send, and only those", () => {
    const { restore } = StrictSchema.rewrite(jsonSchemaOf(Order))
    const sent = {
      customer: "ada",
      items: [{ sku: "a", note: null }, { sku: "b", note: "gift wrap" }],
      gift: null,
      coupon: null,
      priority: null
    }
    const restored = restore(sent)
    assert.deepStrictEqual(restored, {
      customer: "ada",
      items: [{ sku: "a" }, { sku: "b", note: "gift wrap" }],
      // The schema accepts null here: it stays.
      coupon: null
    })
    assert.isTrue(Schema.is(Order)(restored))
    assert.deepStrictEqual(restore({ customer: "ada", items: [], gift: { sku: "c", note: null } }), {
      customer: "ada",
      items: [],
      gift: { sku: "c" }
    })
  })

  it.prop(
    "restore then strict-mode input is valid for the tool; inputs without nulls pass unchanged",
    [Schema.encodedSchema(Order)],
    ([order]) => {
      const { restore } = StrictSchema.rewrite(jsonSchemaOf(Order))
      // What the model sends in strict mode: every field, null for absent ones.
      const strict = {
        customer: order.customer,
        items: order.items.map((item) => ({ sku: item.sku, note: item.note ?? null })),
        gift: order.gift === undefined ? null : { sku: order.gift.sku, note: order.gift.note ?? null },
        coupon: order.coupon === undefined ? null : order.coupon,
        priority: order.priority ?? null
      }
      assert.isTrue(Schema.is(Order)(restore(strict)))
      assert.deepStrictEqual(restore(order), order)
    }
  )

  it("an object without additionalProperties is closed", () => {
    const result = StrictSchema.rewrite({ type: "object", properties: { a: { type: "string" } }, required: ["a"] })
    assert.isTrue(result.strict)
    assert.strictEqual(result.schema.additionalProperties, false)
    assert.deepStrictEqual(paths(result.changes), ["# additionalProperties"])
  })

  it("rejects what cannot be loosened: open maps, values of any type, tuples, root unions, unmergeable allOf", () => {
    const result = StrictSchema.rewrite(jsonSchemaOf(Schema.Struct({
      scores: Schema.Record({ key: Schema.String, value: Schema.Number }),
      payload: Schema.Unknown,
      pair: Schema.Tuple(Schema.String, Schema.Number)
    })))
    assert.isFalse(result.strict)
    assert.deepStrictEqual(paths(result.rejections), [
      "#/properties/scores additionalProperties",
      "#/properties/payload type",
      "#/properties/pair items"
    ])
    assert.include(result.rejections[0]!.reason, "open map")
    assert.deepStrictEqual(
      paths(StrictSchema.rewrite(jsonSchemaOf(Schema.Union(Item, Schema.Struct({ id: Schema.Number })))).rejections),
      ["# type", "# anyOf"]
    )
    const conflicting = StrictSchema.rewrite({
      type: "object",
      properties: {
        both: {
          allOf: [
            { type: "object", properties: { a: { type: "string" } } },
            { type: "object", properties: { a: { type: "number" } } }
          ]
        }
      },
      required: ["both"],
      additionalProperties: false
    })
    assert.deepStrictEqual(paths(conflicting.rejections), ["#/properties/both allOf", "#/properties/both type"])
  })

  it("merges an allOf of plain objects and renames oneOf to anyOf", () => {
    const result = StrictSchema.rewrite({
      type: "object",
      properties: {
        both: {
          allOf: [
            { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
            { type: "object", properties: { b: { type: "number" } } }
          ]
        },
        either: { oneOf: [{ type: "string" }, { type: "number" }] }
      },
      required: ["both", "either"]
    })
    assert.isTrue(result.strict, JSON.stringify(result.rejections))
    assert.deepStrictEqual(result.schema.properties, {
      both: {
        type: "object",
        properties: { a: { type: "string" }, b: { type: ["number", "null"] } },
        required: ["a", "b"],
        additionalProperties: false
      },
      either: { anyOf: [{ type: "string" }, { type: "number" }] }
    })
    assert.deepStrictEqual(result.changes.map((c) => `${c.path} ${c.action}`), [
      "# closed",
      "#/properties/both merged",
      "#/properties/both/properties/b nullable",
      "#/properties/either renamed"
    ])
  })

  describe("keywords strict mode refuses", () => {
    const Constrained = Schema.Struct({
      code: Schema.String.pipe(Schema.minLength(3), Schema.pattern(/^[A-Z]+$/)),
      id: Schema.UUID,
      count: Schema.Int.pipe(Schema.positive()),
      tags: Schema.Array(Schema.String).pipe(Schema.minItems(1))
    })

    it("current profile (the openai SDK's transform): string, number and array bounds stay", () => {
      const result = StrictSchema.rewrite(jsonSchemaOf(Constrained))
      assert.isTrue(result.strict, JSON.stringify(result.rejections))
      const properties = result.schema.properties as Record<string, Record<string, unknown>>
      assert.strictEqual(properties.code!.minLength, 3)
      assert.strictEqual(properties.code!.pattern, "^[A-Z]+$")
      assert.strictEqual(properties.tags!.minItems, 1)
      // A constraint beside a reference is refused, so the definition is copied in.
      assert.deepStrictEqual(properties.count, {
        type: "integer",
        description: "a positive number",
        title: "positive",
        exclusiveMinimum: 0
      })
      assert.deepStrictEqual(paths(result.changes), ["#/properties/count $ref"])
    })

    it("launch profile: the bounds are removed and stated in the description instead", () => {
      const result = StrictSchema.rewrite(jsonSchemaOf(Constrained), { profile: "launch" })
      assert.isTrue(result.strict, JSON.stringify(result.rejections))
      const properties = result.schema.properties as Record<string, Record<string, unknown>>
      assert.deepStrictEqual(properties.code, {
        type: "string",
        description:
          "a string matching the pattern ^[A-Z]+$ (at least 3 characters; matching the pattern \"^[A-Z]+$\")",
        title: "minLength(3)"
      })
      assert.strictEqual(properties.count!.exclusiveMinimum, undefined)
      assert.include(properties.count!.description as string, "> 0")
      assert.include(properties.tags!.description as string, "at least 1 items")
      const defs = result.schema.$defs as Record<string, Record<string, unknown>>
      assert.strictEqual(defs.UUID!.format, undefined)
      assert.include(defs.UUID!.description as string, "in uuid format")
      assert.deepStrictEqual(
        result.changes.filter((c) => c.action === "removed").map((c) => c.keyword).sort(),
        ["exclusiveMinimum", "format", "minItems", "minLength", "pattern", "pattern"]
      )
    })

    it("both profiles remove uniqueItems, minProperties and not, and say so", () => {
      const result = StrictSchema.rewrite({
        type: "object",
        properties: {
          ids: { type: "array", items: { type: "string" }, uniqueItems: true },
          meta: { type: "object", properties: {}, minProperties: 1, additionalProperties: false },
          name: { type: "string", not: { const: "root" } }
        },
        required: ["ids", "meta", "name"],
        additionalProperties: false
      })
      assert.isTrue(result.strict)
      const properties = result.schema.properties as Record<string, Record<string, unknown>>
      assert.deepStrictEqual(properties.ids, {
        type: "array",
        items: { type: "string" },
        description: "Constraints: items must be unique."
      })
      assert.strictEqual(properties.meta!.description, "Constraints: at least 1 properties.")
      assert.strictEqual(properties.name!.not, undefined)
      assert.deepStrictEqual(paths(result.changes), [
        "#/properties/ids uniqueItems",
        "#/properties/meta minProperties",
        "#/properties/name not"
      ])
    })
  })

  it("enforces the nesting limit of the profile", () => {
    const nest = (depth: number): Record<string, unknown> =>
      depth === 0
        ? { type: "string" }
        : { type: "object", properties: { next: nest(depth - 1) }, required: ["next"], additionalProperties: false }
    assert.isTrue(StrictSchema.rewrite(nest(10)).strict)
    assert.deepStrictEqual(paths(StrictSchema.rewrite(nest(11)).rejections), [
      `#${"/properties/next".repeat(10)} properties`
    ])
    assert.isFalse(StrictSchema.rewrite(nest(6), { profile: "launch" }).strict)
  })

  it("a rewritten schema needs no further rewriting", () => {
    for (const schema of [jsonSchemaOf(Order), jsonSchemaOf(Item)]) {
      const once = StrictSchema.rewrite(schema)
      const twice = StrictSchema.rewrite(once.schema)
      assert.deepStrictEqual(twice.schema, once.schema)
      assert.deepStrictEqual(twice.changes, [])
    }
  })

  it("compile sends a tool strict mode cannot take without strict, and says which and why", () => {
    const compiled = StrictSchema.compile([
      { name: "ok", description: "", inputSchema: JSONSchema.make(Item) },
      {
        name: "open",
        description: "",
        inputSchema: JSONSchema.make(Schema.Struct({ m: Schema.Record({ key: Schema.String, value: Schema.String }) }))
      }
    ], "openai-responses")
    assert.deepStrictEqual(compiled.tools.map((t) => [t.name, t.strict]), [["ok", true], ["open", false]])
    assert.strictEqual(compiled.tools[1]!.parameters.additionalProperties, false)
    assert.deepStrictEqual(compiled.error?.rejections.map((r) => `${r.tool} ${r.path}`), ["open #/properties/m"])
    assert.include(compiled.error!.message, "open at #/properties/m (additionalProperties): an open map")
    assert.isDefined(compiled.restorer("ok"))
    assert.isUndefined(compiled.restorer("open"))
  })

  it.prop(
    "restoreArguments passes strings that are not JSON objects through untouched",
    [FastCheck.oneof(FastCheck.string(), FastCheck.json())],
    ([text]) => {
      const compiled = StrictSchema.compile(
        [{ name: "t", description: "", inputSchema: JSONSchema.make(Item) }],
        "openai-chat"
      )
      const restored = StrictSchema.restoreArguments(compiled, "t", text)
      const parsed = Either.getOrUndefined(Either.try(() => JSON.parse(text) as unknown))
      if (Predicate.isRecord(parsed)) assert.isTrue(Predicate.isRecord(restored))
      else assert.strictEqual(restored, text)
      // Tools that need no restoring always get the string as the model wrote it.
      assert.strictEqual(StrictSchema.restoreArguments(compiled, "other", text), text)
    }
  )
})

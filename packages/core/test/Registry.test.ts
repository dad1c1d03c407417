import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as Registry from "../src/Registry.js"
import * as Tool from "../src/Tool.js"

/**
 * The error an effect fails with. Unlike `Effect.flip`, a success fails the
 * test with a short message instead of a registry full of services.
 */
const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<E, never, R> =>
  Effect.flatMap(
    Effect.either(effect),
    Either.match({
      onLeft: Effect.succeed,
      onRight: () => Effect.sync(() => assert.fail("expected a failure, but it succeeded"))
    })
  )

const named = (name: string, options?: { readonly timeout?: Duration.DurationInput; readonly outputLimit?: number }) =>
  Tool.make(name, {
    description: `The ${name} tool.`,
    parameters: {},
    ...options,
    handler: () => Effect.succeed("ok")
  })

const queryTicket = Tool.make("query_ticket", {
  description: "Reads a support ticket.",
  parameters: {
    ticket_id: Schema.String.annotations({ description: "The ticket id, e.g. T-1042." }),
    include_history: Schema.optional(Schema.Boolean.annotations({ description: "Also return past messages." }))
  },
  readOnly: true,
  handler: ({ ticket_id }) => Effect.succeed(ticket_id)
})

const replyToCustomer = Tool.make("reply_to_customer", {
  description: "Sends a reply to the customer.",
  parameters: {
    ticket_id: Schema.String.annotations({ description: "The ticket to answer." }),
    body: Schema.String.annotations({ description: "The reply text." })
  },
  handler: () => Effect.succeed("sent")
})

describe("Registry", () => {
  describe("make", () => {
    for (
      const [label, name] of [
        ["contains a space", "query ticket"],
        ["is longer than 64 characters", "t".repeat(65)],
        ["is empty", ""],
        ["contains a dot", "tickets.query"],
        ["contains a non-ASCII letter", "ticket_résumé"]
      ] as const
    ) {
      it.effect(`rejects a tool name that ${label}`, () =>
        Effect.gen(function*() {
          const error = yield* failureOf(Registry.make([queryTicket, named(name)]))
          assert.strictEqual(error._tag, "InvalidRegistry")
          assert.include(error.message, "is invalid: use 1 to 64 letters, digits, \"_\" or \"-\"")
        }))
    }

    it.effect("accepts a name of exactly 64 characters with letters, digits, _ and -", () =>
      Effect.gen(function*() {
        const name = "Tool_name-1".padEnd(64, "x")
        const registry = yield* Registry.make([named(name)])
        assert.strictEqual(registry.get(name)?.tool.name, name)
      }))

    it.effect("keeps an invalid name on one printable line in the error", () =>
      Effect.gen(function*() {
        const error = yield* failureOf(Registry.make([named("bad\nname")]))
        assert.include(error.message, "\"bad?name\"")
        assert.notInclude(error.message, "\n")
      }))

    it.effect("rejects two tools with one name", () =>
      Effect.gen(function*() {
        const error = yield* failureOf(Registry.make([queryTicket, replyToCustomer, named("query_ticket")]))
        assert.strictEqual(error._tag, "InvalidRegistry")
        assert.strictEqual(error.message, "Two tools are named \"query_ticket\".")
      }))

    for (
      const [label, timeout] of [
        ["an infinite", Duration.infinity],
        ["a zero", Duration.zero]
      ] as const
    ) {
      it.effect(`rejects ${label} timeout`, () =>
        Effect.gen(function*() {
          const error = yield* failureOf(Registry.make([named("slow", { timeout })]))
          assert.strictEqual(error.message, "Tool \"slow\" needs a finite, positive timeout.")
        }))
    }

    it.effect("rejects an output limit that is not positive", () =>
      Effect.gen(function*() {
        const error = yield* failureOf(Registry.make([named("mute", { outputLimit: 0 })]))
        assert.strictEqual(error.message, "Tool \"mute\" needs a positive output limit.")
      }))

    it.effect("keeps registration order and finds tools by exact name only", () =>
      Effect.gen(function*() {
        const registry = yield* Registry.make([replyToCustomer, queryTicket])
        assert.deepStrictEqual(registry.entries.map((e) => e.tool.name), ["reply_to_customer", "query_ticket"])
        assert.strictEqual(registry.get("query_ticket")?.tool, queryTicket)
        assert.isUndefined(registry.get("Query_Ticket"))
        assert.isUndefined(registry.get("__proto__"))
        assert.isUndefined(registry.get("toString"))
        const found = yield* registry.lookup("reply_to_customer")
        assert.strictEqual(found.tool, replyToCustomer)
      }))

    it.effect("captures the services the tools need, so entries carry them", () =>
      Effect.gen(function*() {
        class Tenant extends Context.Tag("test/Tenant")<Tenant, { readonly id: string }>() {}
        const whoami = Tool.make("whoami", {
          description: "Names the tenant.",
          parameters: {},
          handler: () => Effect.map(Tenant, (tenant) => tenant.id)
        })
        const registry = yield* Registry.make([whoami]).pipe(Effect.provideService(Tenant, { id: "acme" }))
        const entry = registry.get("whoami")!
        assert.strictEqual(Context.get(entry.context, Tenant).id, "acme")
      }))
  })

  describe("definitions", () => {
    it.effect("give each tool's name, description and JSON Schema, with field descriptions and required fields", () =>
      Effect.gen(function*() {
        const registry = yield* Registry.make([queryTicket, replyToCustomer])
        const [query, reply] = registry.definitions
        assert.strictEqual(query?.name, "query_ticket")
        assert.strictEqual(query?.description, "Reads a support ticket.")
        assert.deepStrictEqual(query?.inputSchema, {
          type: "object",
          required: ["ticket_id"],
          properties: {
            ticket_id: { type: "string", description: "The ticket id, e.g. T-1042." },
            include_history: { type: "boolean", description: "Also return past messages." }
          },
          additionalProperties: false
        })
        assert.strictEqual(reply?.name, "reply_to_customer")
        assert.deepStrictEqual((reply?.inputSchema as { required?: unknown }).required, ["ticket_id", "body"])
        // Providers reject a `$schema` key inside a tool's parameters.
        assert.notProperty(query?.inputSchema, "$schema")
      }))

    it.effect("are computed once", () =>
      Effect.gen(function*() {
        const registry = yield* Registry.make([queryTicket])
        assert.strictEqual(registry.definitions, registry.definitions)
      }))
  })

  describe("suggest", () => {
    const names = ["query_ticket", "query_order", "search_kb", "reply_to_customer", "close_ticket"]

    it("finds a name whatever its case", () => {
      assert.deepStrictEqual(Registry.suggest("QUERY_TICKET", names), ["query_ticket"])
      assert.deepStrictEqual(Registry.suggest("Search_KB", names), ["search_kb"])
      assert.deepStrictEqual(Registry.suggest("get_user_name", ["GET_USER_NAME", "list_users"]), ["GET_USER_NAME"])
    })

    it("finds names within a small edit distance, nearest first", () => {
      assert.deepStrictEqual(Registry.suggest("query_tickt", names), ["query_ticket"])
      assert.deepStrictEqual(Registry.suggest("serch_kb", names), ["search_kb"])
      // Ties in distance are broken by name.
      assert.deepStrictEqual(Registry.suggest("get_ordr", ["set_order", "get_orders", "get_order"]), [
        "get_order",
        "get_orders",
        "set_order"
      ])
    })

    it("finds names that contain the requested one", () => {
      assert.deepStrictEqual(Registry.suggest("ticket", names), ["close_ticket", "query_ticket"])
    })

    it("suggests nothing for a name far from every tool", () => {
      assert.deepStrictEqual(Registry.suggest("delete_everything", names), [])
      assert.deepStrictEqual(Registry.suggest("__proto__", names), [])
      assert.deepStrictEqual(Registry.suggest("x", names), [])
    })

    it("returns at most max names", () => {
      const many = ["tool_a", "tool_b", "tool_c", "tool_d", "tool_e"]
      assert.deepStrictEqual(Registry.suggest("tool_x", many), ["tool_a", "tool_b", "tool_c"])
      assert.deepStrictEqual(Registry.suggest("tool_x", many, 1), ["tool_a"])
    })

    it("gives up on names longer than any tool name can be", () => {
      assert.deepStrictEqual(Registry.suggest("query_ticket".repeat(11), names), [])
    })
  })

  describe("distance", () => {
    const word = FastCheck.string({ maxLength: 12 })

    it("is the Levenshtein distance", () => {
      assert.strictEqual(Registry.distance("kitten", "sitting"), 3)
      assert.strictEqual(Registry.distance("", "abc"), 3)
      assert.strictEqual(Registry.distance("abc", ""), 3)
      assert.strictEqual(Registry.distance("flaw", "lawn"), 2)
      assert.strictEqual(Registry.distance("same", "same"), 0)
    })

    it.prop("is zero exactly for equal strings, symmetric, and at most the longer length", { a: word, b: word }, ({
      a,
      b
    }) => {
      const d = Registry.distance(a, b)
      assert.strictEqual(d === 0, a === b)
      assert.strictEqual(Registry.distance(b, a), d)
      assert.isAtMost(d, Math.max(a.length, b.length))
      assert.isAtLeast(d, Math.abs(a.length - b.length))
    })

    it.prop("obeys the triangle inequality", { a: word, b: word, c: word }, ({ a, b, c }) => {
      assert.isAtMost(Registry.distance(a, c), Registry.distance(a, b) + Registry.distance(b, c))
    })

    it.prop(
      "with a limit, is exact up to the limit and above the limit beyond it",
      { a: word, b: word, limit: FastCheck.nat(6) },
      ({ a, b, limit }) => {
        const exact = Registry.distance(a, b)
        const bounded = Registry.distance(a, b, limit)
        if (exact <= limit) assert.strictEqual(bounded, exact)
        else assert.isAbove(bounded, limit)
      }
    )
  })
})

import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as ArtifactStore from "../src/ArtifactStore.js"
import * as ForeignText from "../src/ForeignText.js"
import * as Pipeline from "../src/Pipeline.js"
import * as Redactor from "../src/Redactor.js"
import * as Registry from "../src/Registry.js"
import * as Tool from "../src/Tool.js"
import * as ToolError from "../src/ToolError.js"
import * as ToolResult from "../src/ToolResult.js"
import { noise } from "./FakeSecrets.js"

// A fake GitHub token (see FakeSecrets).
const fakeToken = (seed: number): string => "gh" + "p_" + noise(36, seed)

// ---------------------------------------------------------------------------
// parse
// ---------------------------------------------------------------------------

const parseCall = (input: unknown, maxInputChars = 10_000) =>
  Pipeline.parse({ id: "call_1", name: "create_order", input }, maxInputChars)

const parseError = (input: unknown, maxInputChars?: number): Pipeline.ParseError => {
  const result = parseCall(input, maxInputChars)
  if (Either.isRight(result)) return assert.fail(`expected a parse error, got ${JSON.stringify(result.right)}`)
  return result.left
}

describe("Pipeline.parse", () => {
  it("names an unexpected character and the usual non-JSON spellings, and never trusts a position quoted from the input", () => {
    const message = (text: string) => {
      const result = Pipeline.parse({ id: "c", name: "t", input: text }, 10_000)
      return Either.isLeft(result) ? result.left.message : assert.fail("expected a parse failure")
    }
    assert.include(message("{\"qty\": True}"), "unexpected character \"T\"; JSON has no True, False, None")
    // The input holds the words "position 9": they must not become the reported column.
    assert.notInclude(message("[x,\"position 9\"]"), "column 10")
    assert.include(message("{\"a\": 1,,}"), "line 1, column 9")
  })

  it("says where malformed JSON breaks, by line and column, without quoting it", () => {
    const secret = "Zx9kQ2vL8mN3pR7sT1uV"
    const input = `{\n  "customer": "c_1",\n  "card_pin": "${secret}" "qty": 2\n}`
    const error = parseError(input)
    assert.strictEqual(error._tag, "MalformedArguments")
    assert.strictEqual(error.code, "malformed_arguments")
    assert.isTrue(error.retryable)
    const column = `  "card_pin": "${secret}" `.length + 1
    assert.strictEqual(
      error.message,
      `The arguments for create_order are not valid JSON: syntax error at line 3, column ${column} (check quotes, commas and escapes there).`
    )
    for (const text of [error.message, error.hint]) {
      assert.notInclude(text, secret)
      assert.notInclude(text, "card_pin")
      assert.notInclude(text, "qty")
    }
  })

  it("counts columns from 1 on the first line", () => {
    assert.include(parseError("{'customer': 'c_1'}").message, "syntax error at line 1, column 2 ")
    assert.include(parseError("{\"qty\": 2,}").message, "syntax error at line 1, column 11 ")
  })

  it.prop(
    "never echoes the arguments, whatever the syntax error",
    {
      secret: FastCheck.stringMatching(/^[A-Za-z0-9]{16,32}$/),
      template: FastCheck.constantFrom(
        (s: string) => `{"api_key": "${s}" "x": 1}`,
        (s: string) => `{"api_key": "${s}",}`,
        (s: string) => `{'api_key': '${s}'}`,
        (s: string) => `{"api_key": "${s}`,
        (s: string) => `{"api_key": ${s}}`,
        (s: string) => `{"api_key": "${s}"}}`,
        (s: string) => `{"api_key":\n"${s}\n"}`,
        (s: string) => `{"api_key": "\\q${s}"}`
      )
    },
    ({ secret, template }) => {
      const error = parseError(template(secret))
      // JSON that stops mid-value is a cut-off call; any other syntax error is malformed.
      assert.oneOf(error._tag, ["MalformedArguments", "TruncatedArguments"])
      assert.notInclude(error.message, secret)
      assert.notInclude(error.hint, secret)
      assert.notInclude(error.message, "api_key")
    }
  )

  it("reads JSON that ends mid-value as a call cut off, never run, and asks for it again smaller", () => {
    for (
      const input of [
        "{\"note\": \"the customer wrote",
        "{\"qty\":",
        "{\"items\": [",
        "tru",
        "{\"qty\": 2",
        "{\"a\": [1, 2  ",
        "{"
      ]
    ) {
      const error = parseError(input)
      assert.strictEqual(error._tag, "TruncatedArguments", input)
      assert.strictEqual(
        error.message,
        "The call to create_order was cut off before its end (its JSON ends mid-value), so it was not run.",
        input
      )
      assert.match(error.hint, /again, complete and smaller/)
    }
  })

  it("names what it received when the arguments are JSON but not an object", () => {
    for (
      const [input, received] of [
        ["[1, 2]", "an array"],
        ["\"c_1\"", "a string"],
        ["42", "a number"],
        ["true", "a boolean"],
        [[{ qty: 1 }], "an array"],
        [7, "a number"]
      ] as const
    ) {
      const error = parseError(input)
      assert.strictEqual(error._tag, "InvalidInput")
      assert.strictEqual(error.code, "invalid_input")
      assert.strictEqual(
        error.message,
        `The arguments for create_order must be a JSON object, but got ${received}.`
      )
      assert.include(error.hint, "JSON object whose keys are the parameter names")
    }
  })

  it("refuses an arguments string over the limit, and accepts one exactly at it", () => {
    const atLimit = `{"note": "${"n".repeat(90)}"}`
    assert.strictEqual(atLimit.length, 102)
    assert.isTrue(Either.isRight(parseCall(atLimit, 102)))
    const error = parseError(atLimit, 101)
    assert.strictEqual(error._tag, "InputTooLarge")
    assert.strictEqual(error.code, "input_too_large")
    assert.strictEqual(error.message, "The arguments for create_order exceed the limit of 101 characters.")
    assert.include(error.hint, "split the work into several calls")
  })

  it("refuses a large arguments object without serializing it, and accepts a small one", () => {
    const error = parseError({ file: "x".repeat(5_000), lines: Array.from({ length: 100 }, (_, i) => i) }, 1_000)
    assert.strictEqual(error.code, "input_too_large")
    assert.include(error.message, "limit of 1000 characters")
    const wide = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`key_${i}`, i]))
    assert.strictEqual(parseError(wide, 1_000).code, "input_too_large")
    assert.deepStrictEqual(
      parseCall({ qty: 2 }, 1_000),
      Either.right({
        callId: "call_1",
        toolName: "create_order",
        input: { qty: 2 }
      })
    )
  })

  it("reads an empty or blank string, a missing input and null as no arguments", () => {
    for (const input of ["", "   ", "\n\t ", undefined, null, "null"]) {
      assert.deepStrictEqual(
        parseCall(input),
        Either.right({ callId: "call_1", toolName: "create_order", input: {} }),
        JSON.stringify(input)
      )
    }
    assert.deepStrictEqual(
      Pipeline.parse({ id: "call_2", name: "list_tickets" }, 100),
      Either.right({ callId: "call_2", toolName: "list_tickets", input: {} })
    )
  })

  it("parses an arguments string into an object", () => {
    assert.deepStrictEqual(
      parseCall("{\"customer\": \"c_1\", \"items\": [{\"qty\": 2}]}"),
      Either.right({ callId: "call_1", toolName: "create_order", input: { customer: "c_1", items: [{ qty: 2 }] } })
    )
  })

  it("calls a call without an id, or without a tool name, malformed", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ name: "create_order", input: {} }, "the call has no id"],
      [{ id: "", name: "create_order", input: {} }, "the call has no id"],
      [{ id: 7, name: "create_order", input: {} }, "the call has no id"],
      [{ id: "call_1", name: "", input: {} }, "the call names no tool"],
      [{ id: "call_1", input: {} }, "the call names no tool"],
      [null, "expected an object, got null"],
      [[{ id: "call_1" }], "expected an object, got an array"],
      ["create_order", "expected an object, got a string"]
    ]
    for (const [call, reason] of cases) {
      const result = Pipeline.parse(call, 100)
      if (Either.isRight(result)) return assert.fail(`expected ${reason}`)
      assert.strictEqual(result.left._tag, "MalformedCall")
      assert.strictEqual(result.left.code, "malformed_call")
      assert.strictEqual(result.left.message, `The tool call is malformed: ${reason}.`)
      assert.strictEqual(result.left.hint, "Each tool call needs a non-empty id and the name of a tool.")
    }
  })

  it("recovers the id and name of a malformed call only when they are strings", () => {
    assert.strictEqual(Pipeline.callIdOf({ id: "call_9", name: 3 }), "call_9")
    assert.strictEqual(Pipeline.callIdOf({ id: 9 }), "")
    assert.strictEqual(Pipeline.callIdOf(null), "")
    assert.strictEqual(Pipeline.toolNameOf({ name: "create_order" }), "create_order")
    assert.strictEqual(Pipeline.toolNameOf({ name: ["create_order"] }), "")
  })
})

// ---------------------------------------------------------------------------
// lookup
// ---------------------------------------------------------------------------

const stub = (name: string) =>
  Tool.make(name, { description: `The ${name} tool.`, parameters: {}, handler: () => Effect.succeed("ok") })

const supportTools = [
  stub("query_ticket"),
  stub("search_kb"),
  stub("query_order"),
  stub("reply_to_customer"),
  stub("close_ticket")
]

/**
 * The error an effect fails with. Unlike `Effect.flip`, a success fails the
 * test with a short message instead of a registry entry full of services.
 */
const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<E, never, R> =>
  Effect.flatMap(
    Effect.either(effect),
    Either.match({
      onLeft: Effect.succeed,
      onRight: () => Effect.sync(() => assert.fail("expected a failure, but it succeeded"))
    })
  )

const lookupError = (registry: Registry.Service, name: string) =>
  Effect.flatMap(
    failureOf(Pipeline.lookup(registry, name)),
    (error) =>
      error._tag === "UnknownTool" ? Effect.succeed(error) : Effect.dieMessage(`expected UnknownTool: ${error._tag}`)
  )

describe("Pipeline.lookup", () => {
  it.effect("finds a registered tool by its exact name", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make(supportTools)
      const entry = yield* Pipeline.lookup(registry, "reply_to_customer")
      assert.strictEqual(entry.tool, supportTools[3])
    }))

  it.effect("suggests the tool a typo was meant to be", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make(supportTools)
      const error = yield* lookupError(registry, "reply_to_custmer")
      assert.strictEqual(error.code, "unknown_tool")
      assert.isTrue(error.retryable)
      assert.deepStrictEqual(error.suggestions, ["reply_to_customer"])
      assert.strictEqual(error.message, "There is no tool named \"reply_to_custmer\".")
      assert.strictEqual(error.hint, "Did you mean \"reply_to_customer\"? Call one of the tools you were given.")
    }))

  it.effect("ignores case when suggesting", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make(supportTools)
      assert.deepStrictEqual((yield* lookupError(registry, "Query_Ticket")).suggestions, ["query_ticket"])
      assert.deepStrictEqual((yield* lookupError(registry, "SEARCH-KB")).suggestions, ["search_kb"])
    }))

  it.effect("lists several close names, nearest first", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make(supportTools)
      const error = yield* lookupError(registry, "query_ordr")
      assert.deepStrictEqual(error.suggestions, ["query_order"])
      const ticket = yield* lookupError(registry, "ticket")
      assert.deepStrictEqual(ticket.suggestions, ["close_ticket", "query_ticket"])
      assert.strictEqual(
        ticket.hint,
        "Did you mean \"close_ticket\" or \"query_ticket\"? Call one of the tools you were given."
      )
    }))

  it.effect("suggests nothing for a name unlike every tool", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make(supportTools)
      const error = yield* lookupError(registry, "refund_payment")
      assert.deepStrictEqual(error.suggestions, [])
      assert.strictEqual(error.hint, "Call one of the tools you were given, spelled exactly as listed.")
    }))

  it.effect("treats names of Object.prototype members as unknown tools", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make(supportTools)
      for (const name of ["__proto__", "toString", "constructor", "hasOwnProperty", "valueOf", "__defineGetter__"]) {
        const error = yield* lookupError(registry, name)
        assert.strictEqual(error._tag, "UnknownTool", name)
        assert.strictEqual(error.message, `There is no tool named "${name}".`)
      }
    }))

  it.effect("answers a name under an unavailable source's prefix with that source's failure", () =>
    Effect.gen(function*() {
      const unavailable = [{ prefix: "mcp__crm__", source: "MCP server \"crm\"", reason: "it exited at once." }]
      const registry = yield* Registry.make(supportTools, { unavailable })
      assert.deepStrictEqual(registry.unavailable, unavailable)
      const error = yield* failureOf(Pipeline.lookup(registry, "mcp__crm__find_customer"))
      assert.strictEqual(error._tag, "ToolUnavailable")
      assert.strictEqual(error.code, "tool_unavailable")
      assert.strictEqual(error.message, "mcp__crm__find_customer is unavailable: it exited at once.")
      assert.include(error.hint, "MCP server \"crm\" cannot be used in this session")
      // Other names are unknown as before; a registered tool is found whatever the prefixes.
      assert.strictEqual((yield* lookupError(registry, "mcp__crmx__a")).code, "unknown_tool")
      const shadowing = yield* Registry.make(supportTools, { unavailable: [{ ...unavailable[0]!, prefix: "query_" }] })
      assert.strictEqual((yield* Pipeline.lookup(shadowing, "query_ticket")).tool.name, "query_ticket")
      assert.strictEqual((yield* failureOf(Pipeline.lookup(shadowing, "query_x")))._tag, "ToolUnavailable")
      // An empty prefix would turn every misspelt name into a failure: refused.
      const empty = yield* Effect.either(
        Registry.make(supportTools, { unavailable: [{ ...unavailable[0]!, prefix: "" }] })
      )
      assert.isTrue(Either.isLeft(empty))
    }))

  it.effect("keeps a hostile name to one short printable line", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make(supportTools)
      const error = yield* lookupError(registry, "query\n\u0000ticket" + "!".repeat(500))
      assert.notInclude(error.message, "\n")
      assert.notInclude(error.message, "\u0000")
      assert.include(error.message, "\"query??ticket!!!")
      assert.include(error.message, "…")
      assert.isBelow(error.message.length, 120)
    }))
})

// ---------------------------------------------------------------------------
// validate
// ---------------------------------------------------------------------------

const createOrder = Tool.make("create_order", {
  description: "Creates an order for a customer.",
  parameters: {
    customer: Schema.String,
    items: Schema.Array(Schema.Struct({ sku: Schema.String, qty: Schema.Number })),
    express: Schema.optionalWith(Schema.Boolean, { default: () => false })
  },
  validate: ({ customer }) =>
    customer.startsWith("c_")
      ? Effect.void
      : Effect.fail(
        new ToolError.RuleViolation({
          reason: "the customer id must start with c_",
          fix: "Look the customer up with query_customer and use the id it returns."
        })
      ),
  handler: () => Effect.succeed("created")
})

const entryOf = <const Tools extends ReadonlyArray<Tool.Tool<string, any, any, any, never>>>(
  tools: Tools,
  name: string
) => Effect.map(Registry.make(tools), (registry) => registry.get(name)!)

const invalid = (entry: Registry.Entry, input: unknown) => failureOf(Pipeline.validate(entry, input))

describe("Pipeline.validate", () => {
  it.effect("returns the decoded arguments, defaults filled in", () =>
    Effect.gen(function*() {
      const entry = yield* entryOf([createOrder], "create_order")
      const value = yield* Pipeline.validate(entry, { customer: "c_1", items: [{ sku: "A-1", qty: 2 }] })
      assert.deepStrictEqual(value, { customer: "c_1", items: [{ sku: "A-1", qty: 2 }], express: false })
    }))

  it.effect("says which required field is missing, by name", () =>
    Effect.gen(function*() {
      const entry = yield* entryOf([createOrder], "create_order")
      const error = yield* invalid(entry, { items: [] })
      assert.strictEqual(error._tag, "InvalidArguments")
      assert.strictEqual(error.code, "invalid_arguments")
      assert.isTrue(error.retryable)
      assert.strictEqual(error.message, "Invalid arguments for create_order:\n- customer: is required but missing")
      assert.include(error.hint, "call create_order again")
    }))

  it.effect("names the expected type of a field with the wrong type", () =>
    Effect.gen(function*() {
      const entry = yield* entryOf([createOrder], "create_order")
      const error = yield* invalid(entry, { customer: 42, items: [] })
      assert.include(error.message, "- customer: Expected string, actual 42")
      const items = yield* invalid(entry, { customer: "c_1", items: { sku: "A-1" } })
      assert.include(items.message, "- items: Expected an array, actual {\"sku\":\"A-1\"}")
    }))

  it.effect("gives the full path of a nested field", () =>
    Effect.gen(function*() {
      const entry = yield* entryOf([createOrder], "create_order")
      const error = yield* invalid(entry, {
        customer: "c_1",
        items: [{ sku: "A-1", qty: "2" }, { sku: "B-2" }]
      })
      assert.deepStrictEqual(error._tag === "InvalidArguments" ? error.issues : [], [
        { path: "items[0].qty", message: "Expected number, actual \"2\"" },
        { path: "items[1].qty", message: "is required but missing" }
      ])
      assert.include(error.message, "\n- items[0].qty: Expected number")
      assert.include(error.message, "\n- items[1].qty: is required but missing")
    }))

  it.effect("tells the model to remove a parameter the tool does not have", () =>
    Effect.gen(function*() {
      const entry = yield* entryOf([createOrder], "create_order")
      const error = yield* invalid(entry, { customer: "c_1", items: [], colour: "red" })
      assert.strictEqual(
        error.message,
        "Invalid arguments for create_order:\n- colour: is not a parameter of this tool; remove it"
      )
    }))

  it.effect("lists every problem at once, not only the first", () =>
    Effect.gen(function*() {
      const entry = yield* entryOf([createOrder], "create_order")
      const error = yield* invalid(entry, { express: "yes", extra: 1 })
      const paths = error._tag === "InvalidArguments" ? error.issues.map((i) => i.path) : []
      assert.deepStrictEqual(Array.from(new Set(paths)).sort(), ["customer", "express", "extra", "items"])
    }))

  it.effect("calls the whole arguments \"arguments\" when the issue has no path", () =>
    Effect.gen(function*() {
      const pair = Tool.make("pair", {
        description: "Takes two equal numbers.",
        parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }).pipe(
          Schema.filter(({ a, b }) => a === b || "a and b must be equal")
        ),
        handler: () => Effect.succeed("ok")
      })
      const entry = yield* entryOf([pair], "pair")
      const error = yield* invalid(entry, { a: 1, b: 2 })
      assert.strictEqual(error.message, "Invalid arguments for pair:\n- arguments: a and b must be equal")
    }))

  it.effect("keeps a business rule's reason and fix and names the tool", () =>
    Effect.gen(function*() {
      const entry = yield* entryOf([createOrder], "create_order")
      const error = yield* invalid(entry, { customer: "acme", items: [] })
      assert.strictEqual(error._tag, "RuleViolation")
      assert.strictEqual(error.code, "rule_violation")
      assert.isTrue(error.retryable)
      assert.strictEqual(error.message, "create_order refused the call: the customer id must start with c_")
      assert.strictEqual(error.hint, "Look the customer up with query_customer and use the id it returns.")
      assert.strictEqual(error._tag === "RuleViolation" ? error.toolName : undefined, "create_order")
    }))

  it.effect("gives a rule without a fix a generic hint", () =>
    Effect.gen(function*() {
      const close = Tool.make("close_ticket", {
        description: "Closes a ticket.",
        parameters: { ticket_id: Schema.String },
        validate: () => Effect.fail(new ToolError.RuleViolation({ reason: "the ticket is already closed" })),
        handler: () => Effect.succeed("closed")
      })
      const entry = yield* entryOf([close], "close_ticket")
      const error = yield* invalid(entry, { ticket_id: "T-1" })
      assert.strictEqual(error.message, "close_ticket refused the call: the ticket is already closed")
      assert.strictEqual(error.hint, "Change the arguments so that they satisfy the rule, then call the tool again.")
    }))

  it.effect("runs the business rule only on arguments that passed the schema", () =>
    Effect.gen(function*() {
      const checked = yield* Ref.make(0)
      const guarded = Tool.make("guarded", {
        description: "Counts rule checks.",
        parameters: { n: Schema.Number },
        validate: () => Ref.update(checked, (n) => n + 1),
        handler: () => Effect.succeed("ok")
      })
      const entry = yield* entryOf([guarded], "guarded")
      yield* invalid(entry, { n: "one" })
      assert.strictEqual(yield* Ref.get(checked), 0)
      yield* Pipeline.validate(entry, { n: 1 })
      assert.strictEqual(yield* Ref.get(checked), 1)
    }))

  it.effect("runs the business rule with the services captured with the registry", () =>
    Effect.gen(function*() {
      class Tenant extends Context.Tag("test/Tenant")<Tenant, { readonly customers: ReadonlyArray<string> }>() {}
      const reply = Tool.make("reply_to_customer", {
        description: "Replies to a customer of the current tenant.",
        parameters: { customer: Schema.String },
        validate: ({ customer }) =>
          Effect.flatMap(Tenant, (tenant) =>
            tenant.customers.includes(customer)
              ? Effect.void
              : Effect.fail(new ToolError.RuleViolation({ reason: `${customer} is not a customer of this tenant` }))),
        handler: () => Effect.succeed("sent")
      })
      const registry = yield* Registry.make([reply]).pipe(
        Effect.provideService(Tenant, { customers: ["c_1"] })
      )
      const entry = registry.get("reply_to_customer")!
      yield* Pipeline.validate(entry, { customer: "c_1" })
      const error = yield* invalid(entry, { customer: "c_2" })
      assert.strictEqual(error.message, "reply_to_customer refused the call: c_2 is not a customer of this tenant")
    }))
})

// ---------------------------------------------------------------------------
// shape
// ---------------------------------------------------------------------------

const makeShapeEnv = (overrides?: Partial<Pipeline.ShapeEnv>) =>
  Effect.map(ArtifactStore.makeMemory(), (store): Pipeline.ShapeEnv => ({
    redactor: Redactor.make(),
    store,
    previewChars: 200,
    failureKeepChars: 600,
    defaultLimit: 1_000,
    readToolName: undefined,
    ...overrides
  }))

const success = (value: unknown, note?: string): Pipeline.Outcome => ({ _tag: "Success", value, note })
const failure = (error: ToolError.ToolError): Pipeline.Outcome => ({ _tag: "Failure", error })

const withLimit = (name: string, outputLimit: number, options?: { readonly untrusted?: boolean }) =>
  Tool.make(name, {
    description: `The ${name} tool.`,
    parameters: {},
    outputLimit,
    ...options,
    handler: () => Effect.succeed("unused")
  })

const readStored = (env: Pipeline.ShapeEnv, result: ToolResult.ToolResult) =>
  Effect.map(env.store.read(result.meta.artifact!, 0, Number.MAX_SAFE_INTEGER), (slice) => slice.text)

const number = (n: number) => n.toLocaleString("en-US")

describe("Pipeline.shape", () => {
  it.effect("returns output exactly at the limit whole, with no marker", () =>
    Effect.gen(function*() {
      const env = yield* makeShapeEnv()
      const tool = withLimit("exact", 500)
      const at = yield* Pipeline.shape(env, tool, "c1", "exact", success("x".repeat(500)), 3)
      assert.strictEqual(ToolResult.text(at), "x".repeat(500))
      assert.isFalse(at.isError)
      assert.isUndefined(at.error)
      assert.deepStrictEqual(at.meta, { durationMillis: 3, redactions: 0 })
      const over = yield* Pipeline.shape(env, tool, "c2", "exact", success("x".repeat(501)), 3)
      assert.strictEqual(over.meta.truncation?.originalLength, 501)
      assert.include(ToolResult.text(over), "[Output truncated:")
    }))

  it.effect("shows a head preview of a long success, states its real length, and stores it whole, redacted", () =>
    Effect.gen(function*() {
      const env = yield* makeShapeEnv({ previewChars: 200 })
      const token = fakeToken(1)
      const lines = Array.from({ length: 400 }, (_, i) => i === 300 ? `token ${token}` : `ticket ${i}: open`)
      const output = lines.join("\n")
      const redacted = output.replace(token, "[REDACTED:github-token]")
      const result = yield* Pipeline.shape(env, withLimit("list", 1_000), "call_7", "list", success(output), 12)
      const text = ToolResult.text(result)
      const shown = result.meta.truncation!.shownLength
      assert.isAtMost(shown, 200)
      assert.isAbove(shown, 150)
      assert.deepStrictEqual(result.meta.truncation, {
        strategy: "head",
        originalLength: redacted.length,
        shownLength: shown
      })
      assert.strictEqual(
        text,
        redacted.slice(0, shown) +
          `\n\n[Output truncated: showing the first ${shown} of ${
            number(redacted.length)
          } characters. The full output is stored as "${result.meta.artifact}".]`
      )
      // The preview ends on a line boundary.
      assert.isTrue(redacted.slice(0, shown).endsWith("\n"))
      // The id is the store's own: nothing of the call id goes in.
      assert.match(result.meta.artifact!, /^artifact:out_[0-9a-z]{6,}-1$/)
      assert.strictEqual(result.meta.redactions, 1)
      const stored = yield* readStored(env, result)
      assert.strictEqual(stored, redacted)
      assert.notInclude(stored, token)
    }))

  it.effect("points to the paging tool, with the offset where the preview stops", () =>
    Effect.gen(function*() {
      const env = yield* makeShapeEnv({ previewChars: 100, readToolName: "read_output" })
      const output = Array.from({ length: 300 }, (_, i) => `row ${i}`).join("\n")
      const result = yield* Pipeline.shape(env, withLimit("rows", 500), "call_8", "rows", success(output), 1)
      const shown = result.meta.truncation!.shownLength
      const id = result.meta.artifact!.slice("artifact:".length)
      assert.include(
        ToolResult.text(result),
        `The full output is stored; read more with read_output {"id": "${id}", "offset": ${shown}}.]`
      )
      const next = yield* env.store.read(id, shown, 20)
      assert.strictEqual(next.text, output.slice(shown, shown + 20))
    }))

  it.effect("keeps the head and the tail of a long failure, the last lines included", () =>
    Effect.gen(function*() {
      const env = yield* makeShapeEnv({ failureKeepChars: 1_000 })
      const log = Array.from({ length: 3_000 }, (_, i) => `compiling module ${i}`).join("\n") +
        "\nerror: build failed in module 2999"
      const error = new ToolError.ToolFailed({ toolName: "build", detail: log, retryable: false })
      const full = `${error.message}\n${error.hint}`
      const result = yield* Pipeline.shape(env, withLimit("build", 4_000), "call_9", "build", failure(error), 40)
      const text = ToolResult.text(result)
      const truncation = result.meta.truncation!
      assert.strictEqual(truncation.strategy, "head-tail")
      assert.strictEqual(truncation.originalLength, full.length)
      assert.isAtMost(truncation.shownLength, 1_000)
      assert.isAbove(truncation.shownLength, 800)
      assert.isTrue(text.startsWith("build failed: compiling module 0\ncompiling module 1\n"))
      assert.isTrue(text.endsWith(`\nerror: build failed in module 2999\n${error.hint}`))
      const omitted = full.length - truncation.shownLength
      assert.include(
        text,
        `\n\n[… ${number(omitted)} of ${number(full.length)} characters omitted here. ` +
          `The full output is stored as "${result.meta.artifact}".]\n\n`
      )
      // What is shown is the text minus exactly the omitted middle.
      const [head, tail] = text.split(/\n\n\[… [^\]]*\]\n\n/)
      assert.strictEqual(head!.length + tail!.length, truncation.shownLength)
      assert.isTrue(full.startsWith(head!))
      assert.isTrue(full.endsWith(tail!))
      assert.strictEqual(yield* readStored(env, result), full)
    }))

  it.effect("never lets a secret that straddles the preview cut reach the preview or the store", () =>
    Effect.gen(function*() {
      const env = yield* makeShapeEnv({ previewChars: 200 })
      // No newlines, so the cut falls at 200 characters, inside the 40-character token.
      const token = fakeToken(2)
      const output = "a".repeat(179) + " " + token + " " + "b".repeat(2_000)
      const result = yield* Pipeline.shape(env, withLimit("dump", 1_000), "c", "dump", success(output), 1)
      const stored = yield* readStored(env, result)
      for (const text of [ToolResult.text(result), stored]) {
        assert.notInclude(text, token)
        assert.notInclude(text, token.slice(0, 8))
        assert.notInclude(text, token.slice(-8))
      }
      assert.include(stored, "[REDACTED:github-token]")
    }))

  it.effect("never lets a secret that straddles a failure's head or tail cut through", () =>
    Effect.gen(function*() {
      const env = yield* makeShapeEnv({ failureKeepChars: 500 })
      // A token every 50 characters: whichever the cuts, some token straddles each.
      const tokens = Array.from({ length: 80 }, (_, i) => fakeToken(100 + i))
      const detail = tokens.map((token) => "-".repeat(10) + token).join("")
      const error = new ToolError.ToolFailed({ toolName: "deploy", detail, retryable: false })
      const result = yield* Pipeline.shape(env, withLimit("deploy", 1_000), "c", "deploy", failure(error), 1)
      const stored = yield* readStored(env, result)
      assert.strictEqual(result.meta.redactions, tokens.length)
      for (const text of [ToolResult.text(result), stored]) {
        assert.notInclude(text, "ghp_")
        for (const token of tokens) assert.notInclude(text, token.slice(-6))
      }
    }))

  it.effect("gives error results a code, a retryable flag, a hint and whether the outcome is known", () =>
    Effect.gen(function*() {
      const env = yield* makeShapeEnv()
      const errors: ReadonlyArray<ToolError.ToolError> = [
        new ToolError.Timeout({
          toolName: "close_ticket",
          timeoutMillis: 5_000,
          outcomeUnknown: true,
          cleanupAbandoned: false
        }),
        new ToolError.Timeout({
          toolName: "search_kb",
          timeoutMillis: 5_000,
          outcomeUnknown: false,
          cleanupAbandoned: false
        }),
        new ToolError.UnknownTool({ toolName: "serch_kb", suggestions: ["search_kb"] }),
        new ToolError.InvalidArguments({
          toolName: "search_kb",
          issues: [{ path: "query", message: "is required but missing" }]
        }),
        new ToolError.PermissionDenied({ toolName: "close_ticket", reason: "closing is off", decidedBy: "rule 1" }),
        new ToolError.ToolDefect({
          toolName: "close_ticket",
          detail: "TypeError: x is undefined",
          outcomeUnknown: false
        })
      ]
      const expected = [
        { code: "timeout", retryable: false, outcomeUnknown: true, stopped: "proven" as const },
        { code: "timeout", retryable: true, outcomeUnknown: false, stopped: "proven" as const },
        { code: "unknown_tool", retryable: true, outcomeUnknown: false },
        { code: "invalid_arguments", retryable: true, outcomeUnknown: false },
        { code: "permission_denied", retryable: false, outcomeUnknown: false },
        { code: "tool_defect", retryable: false, outcomeUnknown: false }
      ]
      for (let i = 0; i < errors.length; i++) {
        const error = errors[i]!
        const result = yield* Pipeline.shape(env, undefined, `c${i}`, "tool", failure(error), 5)
        assert.isTrue(result.isError)
        assert.deepStrictEqual(result.error, { ...expected[i]!, hint: error.hint })
        assert.strictEqual(ToolResult.text(result), `${error.message}\n${error.hint}`)
      }
    }))

  it.effect("tells the model a timed-out write may have happened", () =>
    Effect.gen(function*() {
      const env = yield* makeShapeEnv()
      const error = new ToolError.Timeout({
        toolName: "reply_to_customer",
        timeoutMillis: 30_000,
        outcomeUnknown: true,
        cleanupAbandoned: false
      })
      const result = yield* Pipeline.shape(env, undefined, "c", "reply_to_customer", failure(error), 30_000)
      assert.strictEqual(
        ToolResult.text(result),
        "reply_to_customer timed out after 30 s; it has stopped: nothing of it still runs.\n" +
          "reply_to_customer is not read-only and may have taken effect before it stopped: " +
          "check whether it did before calling it again."
      )
    }))

  it.effect("redacts secrets in error text and counts them", () =>
    Effect.gen(function*() {
      const env = yield* makeShapeEnv()
      const token = fakeToken(3)
      const error = new ToolError.ToolFailed({ toolName: "sync", detail: `401 for ${token}`, retryable: true })
      const result = yield* Pipeline.shape(env, undefined, "c", "sync", failure(error), 1)
      assert.notInclude(ToolResult.text(result), token)
      assert.include(ToolResult.text(result), "sync failed: 401 for [REDACTED:github-token]")
      assert.strictEqual(result.meta.redactions, 1)
    }))

  it.effect("uses the default limit for results of calls that have no tool", () =>
    Effect.gen(function*() {
      const env = yield* makeShapeEnv({ defaultLimit: 100, failureKeepChars: 80 })
      const error = new ToolError.UnknownTool({ toolName: "x".repeat(60), suggestions: [] })
      const result = yield* Pipeline.shape(env, undefined, "c", "x", failure(error), 1)
      assert.strictEqual(result.meta.truncation?.strategy, "head-tail")
      assert.isAtMost(result.meta.truncation!.shownLength, 80)
    }))

  it.effect("puts a policy's note before the output", () =>
    Effect.gen(function*() {
      const env = yield* makeShapeEnv()
      const result = yield* Pipeline.shape(env, undefined, "c", "t", success("3 rows", "the limit was lowered to 3"), 1)
      assert.strictEqual(ToolResult.text(result), "the limit was lowered to 3\n\n3 rows")
    }))

  it.effect("serializes structured output deterministically through the tool's output schema", () =>
    Effect.gen(function*() {
      const env = yield* makeShapeEnv()
      const ticket = Tool.make("query_ticket", {
        description: "Reads a ticket.",
        parameters: {},
        readOnly: true,
        success: Schema.Struct({ status: Schema.String, opened: Schema.DateFromString, id: Schema.Number }),
        handler: () => Effect.succeed({ status: "open", opened: new Date(0), id: 1 })
      })
      const value = { status: "open", id: 7, opened: new Date("2026-01-02T03:04:05.000Z") }
      const result = yield* Pipeline.shape(env, ticket, "c", "query_ticket", success(value), 1)
      assert.strictEqual(
        ToolResult.text(result),
        "{\"id\":7,\"opened\":\"2026-01-02T03:04:05.000Z\",\"status\":\"open\"}"
      )
      const wrong = yield* Pipeline.shape(env, ticket, "c", "query_ticket", success({ status: 1 }), 1)
      assert.strictEqual(wrong.error?.code, "tool_defect")
      assert.isFalse(wrong.error?.outcomeUnknown)
      assert.include(ToolResult.text(wrong), "does not match its declared output schema")
    }))

  it.effect("marks output of untrusted tools as such", () =>
    Effect.gen(function*() {
      const env = yield* makeShapeEnv()
      const web = withLimit("fetch_page", 1_000, { untrusted: true })
      const result = yield* Pipeline.shape(env, web, "c", "fetch_page", success("<html>"), 1)
      assert.isTrue(result.meta.untrusted)
      const local = yield* Pipeline.shape(env, withLimit("read_file", 1_000), "c", "read_file", success("x"), 1)
      assert.isUndefined(local.meta.untrusted)
    }))

  it.effect("still truncates, and says so, when the full output cannot be stored", () =>
    Effect.gen(function*() {
      const env = yield* makeShapeEnv({
        store: {
          put: () => Effect.fail(new ArtifactStore.ArtifactError({ reason: "the disk is full" })),
          read: () => Effect.fail(new ArtifactStore.ArtifactError({ reason: "nothing stored" }))
        }
      })
      const result = yield* Pipeline.shape(env, withLimit("big", 300), "c", "big", success("z".repeat(1_000)), 1)
      assert.isUndefined(result.meta.artifact)
      assert.strictEqual(result.meta.truncation?.shownLength, 200)
      assert.isTrue(
        ToolResult.text(result).endsWith(
          "[Output truncated: showing the first 200 of 1,000 characters. The full output could not be stored (the disk is full).]"
        )
      )
    }))
})

// ---------------------------------------------------------------------------
// hostile input
// ---------------------------------------------------------------------------

describe("Pipeline on hostile input", () => {
  const deepText = "[".repeat(100_000) + "]".repeat(100_000)

  it("refuses arguments nested deeper than the limit, as a string or as an object, before decoding", () => {
    const fromString = parseError(`{"name":"x","count":${deepText}}`, 1_000_000)
    assert.strictEqual(fromString.code, "invalid_input")
    assert.include(fromString.message, `nested deeper than ${Pipeline.maxInputDepth} levels`)
    const fromObject = parseError({ count: JSON.parse(deepText) }, 1_000_000)
    assert.strictEqual(fromObject.code, "invalid_input")
    // Just under the limit is fine.
    const shallow = "[".repeat(Pipeline.maxInputDepth - 1) + "]".repeat(Pipeline.maxInputDepth - 1)
    assert.isTrue(Either.isRight(parseCall(`{"count":${shallow}}`, 1_000_000)))
  })

  it("refuses an own __proto__ key, however it is spelled, so that no decoded record gets a new prototype", () => {
    for (const text of ["{\"r\":{\"__proto__\":{\"a\":1}}}", "{\"r\":{\"\\u005f_proto__\":{\"a\":1}}}"]) {
      const error = parseError(text)
      assert.strictEqual(error.code, "invalid_input", text)
      assert.include(error.message, "__proto__")
    }
    assert.strictEqual(parseError(JSON.parse("{\"r\":{\"__proto__\":1}}")).code, "invalid_input")
  })

  it("answers calls and arguments that throw when read", () => {
    const thrower = () => {
      throw new Error("no")
    }
    const trapAll = new Proxy({}, { get: thrower, has: thrower, ownKeys: thrower, getPrototypeOf: thrower })
    const call = Pipeline.parse(trapAll, 10_000)
    assert.isTrue(Either.isLeft(call) && call.left.code === "malformed_call")
    assert.strictEqual(Pipeline.callIdOf(trapAll), "")
    assert.strictEqual(Pipeline.toolNameOf(trapAll), "")
    assert.strictEqual(parseError(trapAll).code, "invalid_input")
    assert.strictEqual(
      parseError({
        get qty() {
          return thrower()
        }
      }).code,
      "invalid_input"
    )
  })

  it("names an invisible byte-order mark or control character instead of blaming quotes", () => {
    assert.include(parseError("\uFEFF{\"qty\": 1}").message, "starts with an invisible U+FEFF byte-order mark")
    const zeroWidth = parseError("{\"qty\":\u200B 1}").message
    assert.include(zeroWidth, "U+200B")
    assert.notInclude(zeroWidth, "\u200B")
  })

  it("echoes a hostile tool name, in any parse error, only cleaned and bounded", () => {
    const name = "\u009b31m\u202Eevil\u200B\u{E0041}" + "y".repeat(100_000)
    const result = Pipeline.parse({ id: "c", name, input: "{" }, 10_000)
    const message = Either.isLeft(result) ? `${result.left.message}${result.left.hint}` : assert.fail("parsed")
    assert.isTrue(ForeignText.isClean(message))
    assert.isBelow(message.length, 400)
  })
})

describe("Pipeline.validate on nested unions", () => {
  it.effect("points into an optional array at the wrong item, not at the array", () =>
    Effect.gen(function*() {
      const tags = Tool.make("tag", {
        description: "tags",
        parameters: { tags: Schema.optional(Schema.Array(Schema.String)) },
        handler: () => Effect.succeed("ok")
      })
      const entry = yield* entryOf([tags], "tag")
      const error = yield* invalid(entry, { tags: ["a", 1] })
      assert.strictEqual(error._tag, "InvalidArguments")
      assert.deepStrictEqual(
        error._tag === "InvalidArguments" ? error.issues : [],
        [{ path: "tags[1]", message: "Expected string, actual 1" }]
      )
      // A value of no member's kind still lists the choices.
      const wrongKind = yield* invalid(entry, { tags: 5 })
      assert.include(wrongKind.message, "tags: Expected an array, actual 5")
    }))

  it.effect("quotes a hostile key only cleaned and bounded", () =>
    Effect.gen(function*() {
      const entry = yield* entryOf([createOrder], "create_order")
      const error = yield* invalid(entry, {
        customer: ["\u009b31m" + "v".repeat(10_000)],
        items: [],
        ["\u202Ekey\u009b" + "k".repeat(10_000)]: 1
      })
      assert.include(error.message, "customer: Expected string, actual [\"?31mvvv")
      assert.isTrue(error.message.split("\n").every(ForeignText.isClean), error.message)
      assert.isBelow(error.message.length, 1_000)
    }))
})

describe("Pipeline.formatIssues on a schema message that quotes the value", () => {
  it.effect("cleans and bounds the message", () =>
    Effect.gen(function*() {
      const quoting = Tool.make("quoting", {
        description: "its filter quotes the value",
        parameters: {
          code: Schema.String.pipe(
            Schema.filter((s) => s.startsWith("A-") || `bad code ${s}`)
          )
        },
        handler: () => Effect.succeed("ok")
      })
      const entry = yield* entryOf([quoting], "quoting")
      const error = yield* invalid(entry, { code: `\u009b31m\u202E${"z".repeat(10_000)}` })
      assert.isTrue(error.message.split("\n").every(ForeignText.isClean), error.message.slice(0, 80))
      assert.isBelow(error.message.length, 500)
      assert.include(error.message, "code: bad code ?31m?zzz")
    }))
})

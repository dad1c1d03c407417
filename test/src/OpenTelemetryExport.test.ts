/**
 * The runtime under the real OpenTelemetry exporter (`@effect/opentelemetry`'s
 * `NodeSdk`, an `InMemorySpanExporter` behind a `SimpleSpanProcessor`), with
 * the real permission engine as its policy: what a tracing backend receives
 * of a turn whose calls succeed, fail their schema, break a business rule,
 * fail in the handler, crash in it, are denied by a deny rule, name no tool,
 * time out and are cut off.
 *
 * - Every call is exactly one `execute_tool {tool}` span, under the turn's
 *   span, with the GenAI attributes (`gen_ai.operation.name`,
 *   `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`, and
 *   `gen_ai.tool.description` once the tool was found) and its stages as
 *   child spans; a failed call carries `error.type`, its result's error code,
 *   and a successful one none.
 * - With `CallTrace.TraceValues` off (the default), no 8-character window of
 *   any argument value reaches any exported span: name, attributes, status
 *   message, events and their attributes, links. The argument values are
 *   random canaries, so a leak cannot hide behind a fixed string.
 * - With it on, the values do appear where documented (the failing stage's
 *   status message, the permission span's `permission.input`), and a
 *   secret among them still never does: it is redacted.
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { assert, describe, it } from "@effect/vitest"
import { SpanStatusCode } from "@opentelemetry/api"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as CallTrace from "@tool-runtime/core/CallTrace"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Approver from "@tool-runtime/permissions/Approver"
import * as Engine from "@tool-runtime/permissions/Engine"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Os from "node:os"

// --- the tools -----------------------------------------------------------------

const lookup = Tool.make("lookup", {
  description: "Looks a term up in the index.",
  parameters: { query: Schema.String },
  readOnly: true,
  handler: ({ query }) => Effect.succeed(`found ${query}`)
})

const count = Tool.make("count", {
  description: "Counts up to n, in steps of m.",
  parameters: { n: Schema.Number, m: Schema.Number },
  readOnly: true,
  handler: ({ n }) => Effect.succeed(n)
})

const transfer = Tool.make("transfer", {
  description: "Moves money out of an account.",
  parameters: { account: Schema.String },
  // The business rule's reason quotes the argument, as such reasons do.
  validate: ({ account }) => Effect.fail(new ToolError.RuleViolation({ reason: `the account ${account} is closed` })),
  handler: () => Effect.succeed("moved")
})

const fetchDoc = Tool.make("fetch_doc", {
  description: "Fetches a document.",
  parameters: { id: Schema.String, via: Schema.String },
  readOnly: true,
  // The handler's failure quotes both arguments, one of them a credential.
  handler: ({ id, via }) => Effect.fail(`document ${id} is not readable with ${via}`)
})

const parseRow = Tool.make("parse_row", {
  description: "Parses a CSV row.",
  parameters: { row: Schema.String },
  readOnly: true,
  // A bug in the tool: it throws, with the argument in the message.
  handler: ({ row }) =>
    Effect.sync(() => {
      throw new Error(`cannot parse ${row}`)
    })
})

const wipe = Tool.make("wipe_database", {
  description: "Deletes every row of a database.",
  parameters: { database: Schema.String, password: Schema.String },
  handler: () => Effect.succeed("wiped")
})

const slowJob = Tool.make("slow_job", {
  description: "Runs a long job.",
  parameters: { job: Schema.String },
  readOnly: true,
  timeout: "50 millis",
  handler: () => Effect.never
})

const tools = [lookup, count, transfer, fetchDoc, parseRow, wipe, slowJob] as const
const descriptions = new Map<string, string>(tools.map((tool) => [tool.name, tool.description]))

/** The runtime as an application wires it: the permission engine, with a deny rule, is its policy. */
const runtimeLayer = ToolRuntime.layer().pipe(
  Layer.provide([Registry.layer(tools), ArtifactStore.layerMemory(), Redactor.layerDefault]),
  Layer.provide(
    Engine.layerIgnoringSymlinks({
      workspaceRoot: Os.tmpdir(),
      deny: ["wipe_database"],
      allow: ["lookup", "count", "transfer", "fetch_doc", "parse_row", "slow_job"]
    }).pipe(Layer.provide([Approver.layerHeadless, Redactor.layerDefault]), Layer.orDie)
  )
)

// --- the canaries -----------------------------------------------------------------

/** Lower-case letters and digits without the look-alikes: no window of a canary is all digits by much. */
const canaryAlphabet = "abcdefghijkmnpqrstuvwxyz23456789"
const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const base32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

/**
 * `length` characters of `alphabet`, the same for the same seed (the
 * generator of `packages/core/test/FakeSecrets.ts`): a shrunk seed still
 * gives a random-looking token, where a shrunk string would become a
 * placeholder (`AAAA…`) that the redactor keeps by design.
 */
const noise = (length: number, seed: number, alphabet: string): string => {
  let state = seed >>> 0
  let out = ""
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff
    out += alphabet[(state >>> 8) % alphabet.length]
  }
  return out
}

/** The first 8-character window of `value` found in `haystack`: a value cut short or split still leaks. */
const leakedWindow = (haystack: string, value: string): string | undefined => {
  for (let i = 0; i + 8 <= value.length; i++) {
    const window = value.slice(i, i + 8)
    if (haystack.includes(window)) return window
  }
  return undefined
}

const roles = ["ok", "invalid", "rule", "failed", "broken", "denied", "unknown", "timeout", "cut"] as const
type Role = typeof roles[number]

const Canaries = FastCheck.record({
  // One seed for all the canaries, `canary-{role}-` and 20 random characters each: a seed
  // that shrinks still gives different ones (no two share a window), so a leak names the value that leaked.
  seed: FastCheck.integer(),
  github: FastCheck.integer(),
  aws: FastCheck.integer()
}).map(({ aws, github, seed }) => ({
  values: Object.fromEntries(
    roles.map((role, i) => [role, `canary-${role}-${noise(20, seed + (i + 1) * 104_729, canaryAlphabet)}`])
  ) as Record<Role, string>,
  // Shaped like credentials the default redactor knows.
  secrets: {
    github: `ghp_${noise(36, github, alnum)}`,
    aws: `AKIA${noise(16, aws ^ 0x5bd1e995, base32)}`
  }
}))
type Canaries = typeof Canaries extends FastCheck.Arbitrary<infer A> ? A : never

// --- the turn ----------------------------------------------------------------------

interface Expected {
  readonly role: Role
  readonly id: string
  readonly tool: string
  readonly code: ToolError.Code | undefined
  /** The stage spans under the call's span, in the order they end, and the one that failed. */
  readonly stages: ReadonlyArray<string>
  readonly failedStage: string | undefined
  /** Whether the tool was found (and its description is then on the span). */
  readonly found: boolean | "either"
}

const all = ["parse", "lookup", "validate", "authorize", "execute", "shape"]

const expected: ReadonlyArray<Expected> = [
  { role: "ok", id: "call_ok", tool: "lookup", code: undefined, stages: all, failedStage: undefined, found: true },
  {
    role: "invalid",
    id: "call_invalid",
    tool: "count",
    code: "invalid_arguments",
    stages: ["parse", "lookup", "validate", "shape"],
    failedStage: "validate",
    found: true
  },
  {
    role: "rule",
    id: "call_rule",
    tool: "transfer",
    code: "rule_violation",
    stages: ["parse", "lookup", "validate", "shape"],
    failedStage: "validate",
    found: true
  },
  {
    role: "failed",
    id: "call_failed",
    tool: "fetch_doc",
    code: "tool_failed",
    stages: all,
    failedStage: "execute",
    found: true
  },
  {
    role: "broken",
    id: "call_broken",
    tool: "parse_row",
    code: "tool_defect",
    stages: all,
    failedStage: "execute",
    found: true
  },
  {
    role: "denied",
    id: "call_denied",
    tool: "wipe_database",
    code: "permission_denied",
    stages: ["parse", "lookup", "validate", "authorize", "shape"],
    failedStage: "authorize",
    found: true
  },
  {
    role: "unknown",
    id: "call_unknown",
    tool: "no_such_tool",
    code: "unknown_tool",
    stages: ["parse", "lookup", "shape"],
    failedStage: "lookup",
    found: false
  },
  {
    role: "timeout",
    id: "call_timeout",
    tool: "slow_job",
    code: "timeout",
    stages: all,
    failedStage: "execute",
    found: true
  },
  {
    role: "cut",
    id: "call_cut",
    tool: "lookup",
    code: "truncated_arguments",
    stages: ["parse", "shape"],
    failedStage: "parse",
    // Cut off before lookup: the tool's name is known, whether the span says what it is is not asked.
    found: "either"
  }
]

const turnOf = ({ secrets, values }: Canaries) => [
  { id: "call_ok", name: "lookup", input: { query: values.ok } },
  // Both fields fail their schema, and its message quotes what they held.
  { id: "call_invalid", name: "count", input: { n: values.invalid, m: secrets.github } },
  { id: "call_rule", name: "transfer", input: { account: values.rule } },
  // As OpenAI sends arguments: a JSON string.
  { id: "call_failed", name: "fetch_doc", input: JSON.stringify({ id: values.failed, via: secrets.github }) },
  { id: "call_broken", name: "parse_row", input: { row: `${values.broken},${secrets.aws}` } },
  { id: "call_denied", name: "wipe_database", input: { database: values.denied, password: secrets.aws } },
  { id: "call_unknown", name: "no_such_tool", input: { q: values.unknown, key: secrets.aws } },
  { id: "call_timeout", name: "slow_job", input: { job: values.timeout } },
  // The response stopped at the output limit inside this call's arguments.
  { id: "call_cut", name: "lookup", input: `{"query": "${values.cut} ${secrets.github}`, truncated: "max_tokens" }
]

/** Runs the turn under a fresh exporter, and returns what it was sent (read before the provider shuts down). */
const exportTurn = (canaries: Canaries, traceValues: boolean) => {
  const exporter = new InMemorySpanExporter()
  const otel = NodeSdk.layer(() => ({
    resource: { serviceName: "tool-runtime-otel-test" },
    spanProcessor: new SimpleSpanProcessor(exporter)
  }))
  return Effect.gen(function*() {
    const runtime = yield* ToolRuntime.ToolRuntime
    const results = yield* runtime.runTurn(turnOf(canaries))
    return { results, spans: [...exporter.getFinishedSpans()] }
  }).pipe(
    traceValues ? Effect.provideService(CallTrace.TraceValues, true) : (self) => self,
    Effect.provide(Layer.merge(runtimeLayer, otel))
  )
}

// --- reading the export --------------------------------------------------------------

/**
 * Everything a backend receives of a span but its ids and times: name, kind,
 * attributes, status, events and links with their attributes, scope and
 * resource. (Ids and times are hex and digits: they are left out so that a
 * canary's window cannot meet them by chance.)
 */
const serialize = (span: ReadableSpan): string =>
  JSON.stringify({
    name: span.name,
    kind: span.kind,
    attributes: span.attributes,
    status: span.status,
    events: span.events.map((event) => ({ name: event.name, attributes: event.attributes ?? {} })),
    links: span.links.map((link) => ({ attributes: link.attributes ?? {} })),
    droppedAttributes: span.droppedAttributesCount,
    scope: span.instrumentationScope,
    resource: span.resource.attributes
  })

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId
const idOf = (span: ReadableSpan): string => span.spanContext().spanId

const children = (spans: ReadonlyArray<ReadableSpan>, parent: ReadableSpan) =>
  spans.filter((span) => parentOf(span) === idOf(parent))

/** The span and every span under it. */
const subtree = (spans: ReadonlyArray<ReadableSpan>, root: ReadableSpan): Array<ReadableSpan> => [
  root,
  ...children(spans, root).flatMap((child) => subtree(spans, child))
]

// --- the laws -------------------------------------------------------------------------

const checkShape = (
  spans: ReadonlyArray<ReadableSpan>,
  results: ReadonlyArray<ToolResult.ToolResult>,
  valuesOn: boolean
) => {
  assert.deepStrictEqual(results.map((r) => r.error?.code), expected.map((e) => e.code))
  const turns = spans.filter((span) => span.name === "tool_runtime.turn")
  assert.strictEqual(turns.length, 1, "one turn span")
  const turn = turns[0]!
  assert.strictEqual(turn.status.code, SpanStatusCode.OK)
  assert.strictEqual(turn.attributes["tool.calls"], expected.length)

  const calls = spans.filter((span) => span.attributes["gen_ai.operation.name"] === "execute_tool")
  assert.strictEqual(calls.length, expected.length, "one execute_tool span per call")
  for (const [i, want] of expected.entries()) {
    const result = results[i]!
    const mine = calls.filter((span) => span.attributes["gen_ai.tool.call.id"] === want.id)
    assert.strictEqual(mine.length, 1, `exactly one span for ${want.id}`)
    const span = mine[0]!
    // A name the model made up is a value: shown only when values are.
    const name = want.found === false && !valuesOn ? "(unknown)" : want.tool
    assert.strictEqual(span.name, `execute_tool ${name}`)
    assert.strictEqual(parentOf(span), idOf(turn), `${want.id} nests under the turn`)
    assert.strictEqual(span.attributes["gen_ai.operation.name"], "execute_tool")
    assert.strictEqual(span.attributes["gen_ai.tool.name"], name)
    assert.strictEqual(span.attributes["gen_ai.tool.call.id"], want.id)
    assert.strictEqual(span.attributes["gen_ai.tool.type"], "function")
    const description = span.attributes["gen_ai.tool.description"]
    if (want.found === true) assert.strictEqual(description, descriptions.get(want.tool), want.id)
    else if (want.found === false) assert.isUndefined(description, want.id)
    else if (description !== undefined) assert.strictEqual(description, descriptions.get(want.tool), want.id)

    // `error.type` is the result's error code on a failure, and absent on a success.
    assert.strictEqual(result.isError, want.code !== undefined)
    if (want.code === undefined) {
      assert.notProperty(span.attributes, "error.type", want.id)
      assert.strictEqual(span.status.code, SpanStatusCode.OK, want.id)
    } else {
      assert.strictEqual(span.attributes["error.type"], result.error!.code, want.id)
      assert.strictEqual(span.attributes["error.type"], want.code, want.id)
      assert.strictEqual(span.status.code, SpanStatusCode.ERROR, want.id)
    }

    // The stages, as child spans, in order; only the failing one says it failed.
    const stages = children(spans, span)
    assert.deepStrictEqual(stages.map((s) => s.name), want.stages.map((s) => `tool_runtime.${s}`), want.id)
    for (const stage of stages) {
      const failed = want.failedStage !== undefined && stage.name === `tool_runtime.${want.failedStage}`
      assert.strictEqual(
        stage.status.code,
        failed ? SpanStatusCode.ERROR : SpanStatusCode.OK,
        `${want.id}: ${stage.name}`
      )
      if (failed) {
        assert.strictEqual(stage.events.filter((event) => event.name === "exception").length, 1, want.id)
      }
    }
    // The engine's span nests under the authorize stage of every call that reached it.
    const authorize = stages.find((s) => s.name === "tool_runtime.authorize")
    const engine = spans.filter((s) => s.name === "permissions.authorize" && subtree(spans, span).includes(s))
    assert.strictEqual(engine.length, authorize === undefined ? 0 : 1, want.id)
    if (authorize !== undefined) assert.strictEqual(parentOf(engine[0]!), idOf(authorize), want.id)
  }
  assert.strictEqual(
    spans.filter((span) => span.name === "permissions.authorize").length,
    expected.filter((e) => e.stages.includes("authorize")).length
  )
}

/** Each 8-character window of a value found in an exported span: the span, the value, and where it sits. */
const leaksOf = (spans: ReadonlyArray<ReadableSpan>, values: ReadonlyArray<string>) => {
  const leaks: Array<string> = []
  for (const span of spans) {
    const text = serialize(span)
    for (const value of values) {
      const window = leakedWindow(text, value)
      if (window === undefined) continue
      const at = text.indexOf(window)
      leaks.push(
        `${span.name} holds ${JSON.stringify(window)} of ${value}: …${text.slice(Math.max(0, at - 120), at + 80)}…`
      )
    }
  }
  return leaks
}

const runs = { fastCheck: { numRuns: Number(process.env.PROPERTY_RUNS ?? 6) } }

describe("the runtime under @effect/opentelemetry's exporter", () => {
  it.live.prop(
    "GenAI spans for every call, error.type on every failure, no argument value unless TraceValues is on",
    { canaries: Canaries },
    ({ canaries }) =>
      Effect.gen(function*() {
        const { secrets, values } = canaries
        const everyValue = [...Object.values(values), secrets.github, secrets.aws]

        // TraceValues off, the default.
        const off = yield* exportTurn(canaries, false)
        checkShape(off.spans, off.results, false)
        // The values did reach the runtime, and what the model reads quotes them...
        assert.include(ToolResult.text(off.results[0]!), values.ok)
        assert.include(ToolResult.text(off.results[1]!), values.invalid)
        assert.include(ToolResult.text(off.results[2]!), values.rule)
        assert.include(ToolResult.text(off.results[3]!), values.failed)
        // ...but no span does, anywhere.
        const leaks = leaksOf(off.spans, everyValue)
        assert.deepStrictEqual(leaks, [], leaks.join("\n\n"))
        // A failed stage's status names the error's code, and says its message was withheld.
        for (const span of off.spans.filter((s) => s.name.startsWith("tool_runtime.") && s.status.message)) {
          assert.include(span.status.message, "message withheld", span.name)
        }

        // TraceValues on: the documented places quote the values, redacted.
        const on = yield* exportTurn(canaries, true)
        checkShape(on.spans, on.results, true)
        const callSpan = (id: string) =>
          on.spans.find((span) =>
            span.attributes["gen_ai.tool.call.id"] === id && span.name.startsWith("execute_tool")
          )!
        const stageOf = (id: string, stage: string) =>
          children(on.spans, callSpan(id)).find((span) => span.name === `tool_runtime.${stage}`)!
        const permissionOf = (id: string) =>
          subtree(on.spans, callSpan(id)).find((span) => span.name === "permissions.authorize")!
        const exceptionMessage = (span: ReadableSpan) =>
          span.events.find((event) => event.name === "exception")?.attributes?.["exception.message"]

        // A stage's failure: its status message and its exception event quote the argument.
        for (
          const [id, stage, value] of [
            ["call_invalid", "validate", values.invalid],
            ["call_rule", "validate", values.rule],
            ["call_failed", "execute", values.failed],
            ["call_broken", "execute", values.broken]
          ] as const
        ) {
          const span = stageOf(id, stage)
          assert.include(span.status.message, value, `${id}: ${span.name}`)
          assert.include(String(exceptionMessage(span)), value, `${id}: ${span.name}`)
        }
        // The permission span: the call's input, for an allow and for a deny.
        for (
          const [id, value] of [
            ["call_ok", values.ok],
            ["call_failed", values.failed],
            ["call_denied", values.denied],
            ["call_timeout", values.timeout]
          ] as const
        ) {
          assert.include(String(permissionOf(id).attributes["permission.input"]), value, id)
        }
        assert.strictEqual(permissionOf("call_denied").attributes["permission.outcome"], "deny")
        // The credentials are still redacted where the values around them are shown.
        assert.include(stageOf("call_invalid", "validate").status.message, "[REDACTED:github-token]")
        assert.include(stageOf("call_failed", "execute").status.message, "[REDACTED:github-token]")
        assert.include(String(permissionOf("call_failed").attributes["permission.input"]), "[REDACTED:github-token]")
        assert.include(String(permissionOf("call_denied").attributes["permission.input"]), "[REDACTED:")
        const secretLeaks = leaksOf(on.spans, [secrets.github, secrets.aws])
        assert.deepStrictEqual(secretLeaks, [], secretLeaks.join("\n\n"))
        // The call spans: the conventions' arguments and result attributes, redacted.
        for (
          const [id, value] of [
            ["call_ok", values.ok],
            ["call_invalid", values.invalid],
            ["call_failed", values.failed],
            ["call_unknown", values.unknown]
          ] as const
        ) {
          assert.include(String(callSpan(id).attributes["gen_ai.tool.call.arguments"]), value, id)
        }
        assert.include(String(callSpan("call_ok").attributes["gen_ai.tool.call.result"]), values.ok)
        assert.include(String(callSpan("call_failed").attributes["gen_ai.tool.call.arguments"]), "[REDACTED:")
        // A failure's result is its error: in the status, not as a result.
        assert.notProperty(callSpan("call_failed").attributes, "gen_ai.tool.call.result")
        assert.include(callSpan("call_failed").status.message, values.failed)
        // With values off, the attributes are not there at all.
        for (const span of off.spans.filter((s) => s.name.startsWith("execute_tool "))) {
          assert.notProperty(span.attributes, "gen_ai.tool.call.arguments", span.name)
          assert.notProperty(span.attributes, "gen_ai.tool.call.result", span.name)
        }
      }),
    runs
  )
})

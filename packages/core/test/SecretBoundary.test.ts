/**
 * One rule for secrets: nothing that leaves the runtime carries a planted
 * secret, except the `callId` fields that pair a result (or a progress event)
 * with its call. Checked over generated turns where a secret goes in a call
 * id, an unknown tool name, arguments that fail validation (a value, a key),
 * arguments that succeed, a handler's failure (a string, an object), its
 * defect (an `Error`, an object), a progress message, an output long enough
 * to be stored as an artifact, a business rule's reason and a policy's
 * denial, what a handler logs (a message, an object, an `Error`, a cause, an
 * annotation, a log span), each behind a random amount
 * of padding so that every cut the runtime makes (names, quoted values,
 * previews) falls somewhere else. Where they are looked for: every result
 * field but `callId`, the stored artifacts, the events, every span an
 * exporting tracer receives (attributes, events, status, the exit's cause)
 * and the log, at every level. No 8-character window of a secret may appear in any of them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as FiberId from "effect/FiberId"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"
import * as ArtifactStore from "../src/ArtifactStore.js"
import * as CallTrace from "../src/CallTrace.js"
import * as Policy from "../src/Policy.js"
import * as Redactor from "../src/Redactor.js"
import * as Registry from "../src/Registry.js"
import * as Tool from "../src/Tool.js"
import * as ToolError from "../src/ToolError.js"
import * as ToolResult from "../src/ToolResult.js"
import * as ToolRuntime from "../src/ToolRuntime.js"
import * as ExportingTracer from "./ExportingTracer.js"
import { base32, leakedWindow, noise } from "./FakeSecrets.js"

/** A GitHub token or an AWS key id, by seed: both shapes the default rules know. */
const secretOf = (seed: number): string => seed % 2 === 0 ? `ghp_${noise(36, seed)}` : `AKIA${noise(16, seed, base32)}`

const text = Schema.String
const echo = Tool.make("echo", {
  description: "Echoes.",
  parameters: { text },
  readOnly: true,
  handler: ({ text }) => Effect.succeed(`echo: ${text}`)
})
const count = Tool.make("count", {
  description: "Counts.",
  parameters: { n: Schema.Number },
  readOnly: true,
  handler: ({ n }) => Effect.succeed(n + 1)
})
const fail = Tool.make("fail", {
  description: "Fails.",
  parameters: { text },
  handler: ({ text }) => Effect.fail(`access denied for ${text}`)
})
const crash = Tool.make("crash", {
  description: "Crashes.",
  parameters: { text },
  handler: ({ text }) => Effect.die(new TypeError(`cannot read ${text}`))
})
const failObject = Tool.make("fail_object", {
  description: "Fails with an object.",
  parameters: { text },
  handler: ({ text }) => Effect.fail({ message: `upstream said ${text}`, retryable: true })
})
const crashObject = Tool.make("crash_object", {
  description: "Dies with an object.",
  parameters: { text },
  handler: ({ text }) => Effect.die({ reason: text, nested: [{ text }] })
})
const dump = Tool.make("dump", {
  description: "Dumps a long log.",
  parameters: { text },
  readOnly: true,
  outputLimit: 300,
  handler: ({ text }) =>
    Effect.succeed(Array.from({ length: 60 }, (_, i) => i === 30 ? `line ${i}: ${text}` : `line ${i}: ok`).join("\n"))
})
const guarded = Tool.make("guarded", {
  description: "Always denied.",
  parameters: { text },
  handler: () => Effect.succeed("ran")
})
const ruled = Tool.make("ruled", {
  description: "Has a business rule.",
  parameters: { text },
  validate: ({ text }) =>
    Effect.fail(
      new ToolError.RuleViolation({ reason: `${text} is not allowed here`, fix: `send something else than ${text}` })
    ),
  handler: () => Effect.succeed("ran")
})
const progress = Tool.make("progress", {
  description: "Reports progress.",
  parameters: { text },
  readOnly: true,
  handler: ({ text }, context) => Effect.as(context.progress(`working on ${text}`), "done")
})
/** Text handed back as a "binary" document, which providers decode and show the model as text. */
const textualTypes = ["text/plain", "application/json", "Application/JSON; charset=utf-8", "application/vnd.api+json"]
const document = Tool.make("document", {
  description: "Returns a text document.",
  parameters: { text, type: Schema.Number },
  readOnly: true,
  handler: ({ text, type }) =>
    Effect.succeed(ToolResult.content([
      ToolResult.textBlock("attached:"),
      ToolResult.binary(new TextEncoder().encode(`contents: ${text}`), textualTypes[type % textualTypes.length]!)
    ]))
})
/** Logs what it was sent in every shape a log line has, then succeeds. */
const chatter = Tool.make("chatter", {
  description: "Logs.",
  parameters: { text },
  readOnly: true,
  handler: ({ text }) =>
    Effect.gen(function*() {
      yield* Effect.log(`calling upstream with ${text}`)
      yield* Effect.logInfo("request", { headers: { authorization: text } }, 3)
      yield* Effect.logWarning(new Error(`upstream said ${text}`))
      yield* Effect.logError("gave up", Cause.fail({ body: text }))
      yield* Effect.logDebug("annotated").pipe(Effect.annotateLogs({ auth: text, attempt: 2 }))
      yield* Effect.logDebug("in a span").pipe(Effect.withLogSpan(`fetch ${text}`))
      return "logged"
    })
})
const tools = [echo, count, fail, crash, failObject, crashObject, dump, guarded, ruled, progress, document, chatter]

/** A policy that denies `guarded`, quoting what it was asked (as an application's policy may). */
const policy: Policy.Service = {
  checkPath: () => undefined,
  authorize: (request) =>
    request.tool.name === "guarded"
      ? Effect.fail(
        new ToolError.PermissionDenied({
          toolName: request.tool.name,
          reason: `refused: ${JSON.stringify(request.input)}`,
          decidedBy: "the test policy"
        })
      )
      : Effect.succeed(Policy.allow)
}

const Kind = Schema.Literal(
  "unknown-name",
  "unknown-name-malformed",
  "bad-value",
  "bad-key",
  "echo",
  "fail",
  "crash",
  "fail-object",
  "crash-object",
  "dump",
  "deny",
  "rule",
  "malformed-json",
  "progress",
  "document",
  "chatter"
)
type Kind = typeof Kind.Type

interface Plan {
  readonly kind: Kind
  readonly inId: boolean
  readonly seed: number
  readonly pad: number
}

const plan: FastCheck.Arbitrary<Plan> = FastCheck.record({
  kind: FastCheck.constantFrom(...Kind.literals),
  inId: FastCheck.boolean(),
  seed: FastCheck.integer({ min: 1, max: 1_000_000 }),
  pad: FastCheck.integer({ min: 0, max: 120 })
})

/** The call a plan stands for, and the secrets planted in it. */
const callOf = (p: Plan, index: number) => {
  const secret = secretOf(p.seed)
  const idSecret = secretOf(p.seed + 1)
  const padded = `${"x".repeat(p.pad)} ${secret}`
  const id = p.inId ? `${"c".repeat(p.pad)}-${idSecret}` : `call_${index}`
  const arg = { text: padded }
  const call = (() => {
    switch (p.kind) {
      case "unknown-name":
        return { id, name: `${"t".repeat(p.pad)}.${secret}`, input: {} }
      case "unknown-name-malformed":
        return { id, name: `${"t".repeat(p.pad)}.${secret}`, input: "{\"text\": " }
      case "bad-value":
        return { id, name: "count", input: { n: padded } }
      case "bad-key":
        return { id, name: "count", input: { n: 1, [padded]: 1 } }
      case "echo":
        return { id, name: "echo", input: arg }
      case "fail":
        return { id, name: "fail", input: arg }
      case "crash":
        return { id, name: "crash", input: arg }
      case "fail-object":
        return { id, name: "fail_object", input: arg }
      case "crash-object":
        return { id, name: "crash_object", input: arg }
      case "dump":
        return { id, name: "dump", input: arg }
      case "deny":
        return { id, name: "guarded", input: arg }
      case "rule":
        return { id, name: "ruled", input: arg }
      case "malformed-json":
        return { id, name: "echo", input: `{"text": "${padded}"` }
      case "progress":
        return { id, name: "progress", input: arg }
      case "document":
        return { id, name: "document", input: { ...arg, type: p.seed } }
      case "chatter":
        return { id, name: "chatter", input: arg }
    }
  })()
  return { call, secrets: p.inId ? [secret, idSecret] : [secret] }
}

const expectedCode: Record<Kind, string | undefined> = {
  "unknown-name": "unknown_tool",
  "unknown-name-malformed": "truncated_arguments",
  "bad-value": "invalid_arguments",
  "bad-key": "invalid_arguments",
  echo: undefined,
  fail: "tool_failed",
  crash: "tool_defect",
  "fail-object": "tool_failed",
  "crash-object": "tool_defect",
  dump: undefined,
  deny: "permission_denied",
  rule: "rule_violation",
  // JSON cut short: read as a call the output limit cut off.
  "malformed-json": "truncated_arguments",
  progress: undefined,
  document: undefined,
  chatter: undefined
}

/** Runs a turn with an exporting tracer and a capturing logger; returns all that left the runtime. */
const runTurn = (
  calls: ReadonlyArray<unknown>,
  options?: { readonly stopOnError?: boolean; readonly traceValues?: boolean }
) =>
  Effect.gen(function*() {
    const exporter = ExportingTracer.make()
    const logs: Array<string> = []
    // Every way a logger may print a line: each part as JSON, as String() and its stack, the cause,
    // the annotations and the spans.
    const logger = Logger.make(({ annotations, cause, message, spans }) => {
      const parts = Array.isArray(message) ? message : [message]
      logs.push(JSON.stringify({
        parts: parts.map((part) => [JSON.stringify(part), String(part), part instanceof Error ? part.stack : ""]),
        cause: Cause.isEmpty(cause) ? undefined : Cause.pretty(cause, { renderErrorCause: true }),
        annotations: [...annotations].map(([key, value]) => [key, JSON.stringify(value), String(value)]),
        spans: [...spans].map((span) => span.label)
      }))
    })
    const store = yield* ArtifactStore.makeMemory()
    const events: Array<ToolRuntime.Event> = []
    const runtime = yield* ToolRuntime.make().pipe(
      Effect.provide(Layer.mergeAll(
        Registry.layer(tools),
        Redactor.layerDefault,
        Layer.succeed(Policy.Policy, policy),
        Layer.succeed(ArtifactStore.ArtifactStore, store)
      ))
    )
    const results = yield* runtime.runTurn(calls as ReadonlyArray<never>, {
      stopOnError: options?.stopOnError,
      onEvent: (event) => Effect.sync(() => events.push(event))
    }).pipe(
      Effect.withTracer(exporter.tracer),
      // Left to its default unless the test says.
      options?.traceValues === undefined ? identity : Effect.provideService(CallTrace.TraceValues, options.traceValues),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      // Every level: Effect reports a failed fiber at debug level, and a debug log is still a log.
      Logger.withMinimumLogLevel(LogLevel.All)
    )
    const stored: Array<string> = []
    for (const result of results) {
      if (result.meta.artifact !== undefined) {
        stored.push((yield* store.read(result.meta.artifact, 0, Number.MAX_SAFE_INTEGER)).text)
      }
    }
    // The call id is what pairs: every field but `callId` is looked at.
    const withoutId = ({ callId: _, ...rest }: ToolResult.ToolResult) => rest
    const outside = {
      results: JSON.stringify(results.map(withoutId)),
      // A binary block's base64 hides nothing from a provider that decodes it.
      binaries: results.flatMap((result) =>
        result.content.map((block) =>
          block._tag === "text"
            ? ""
            : new TextDecoder().decode(Encoding.decodeBase64(block.data).pipe(Either.getOrThrow))
        )
      ).join("\n"),
      artifacts: JSON.stringify(stored),
      events: JSON.stringify(events.map((event) =>
        event._tag === "Progress"
          ? { ...event, callId: undefined }
          : event._tag === "CallFinished"
          ? { ...event, result: withoutId(event.result) }
          : event
      )),
      spans: exporter.text(),
      logs: logs.join("\n")
    }
    return { results, events, spans: exporter.spans, outside }
  })

const assertNoLeak = (outside: Record<string, string>, secrets: ReadonlyArray<string>) => {
  for (const [where, haystack] of Object.entries(outside)) {
    for (const secret of secrets) {
      const window = leakedWindow(haystack, secret)
      assert.isUndefined(window, `${where} holds ${JSON.stringify(window)} of a planted secret: ${haystack}`)
    }
  }
}

describe("the planted secrets", () => {
  // The property below plants one per random seed: a seed whose secret the redactor keeps by
  // design (a placeholder such as AKIA4444444444444444) would fail it, once in a while.
  it("every seed gives a secret the default redactor removes", () => {
    const redactor = Redactor.make()
    for (let seed = 1; seed <= 1_000_000; seed += 97) {
      const secret = secretOf(seed)
      assert.isUndefined(leakedWindow(redactor.redact(`x ${secret} y`).text, secret), `seed ${seed}: ${secret}`)
    }
  })
})

describe("the secret boundary", () => {
  it.effect.prop(
    "no window of a planted secret leaves the runtime, wherever it was planted",
    [FastCheck.array(plan, { minLength: 1, maxLength: 6 }), FastCheck.boolean(), FastCheck.boolean()],
    ([plans, duplicate, stopOnError]) =>
      Effect.gen(function*() {
        const built = plans.map(callOf)
        const calls = built.map((b) => b.call)
        // A repeated id gets a duplicate_call_id result that names the id.
        if (duplicate) calls.push({ ...built[0]!.call, name: "echo", input: { text: "again" } })
        const { outside, results } = yield* runTurn(calls, { stopOnError })
        assert.strictEqual(results.length, calls.length)
        results.forEach((result, i) => {
          assert.strictEqual(result.callId, calls[i]!.id)
          const code = result.error?.code
          if (i < plans.length && code !== "not_executed" && code !== "duplicate_call_id") {
            assert.strictEqual(code, expectedCode[plans[i]!.kind], `call ${i} (${plans[i]!.kind})`)
          }
          if (i < plans.length && plans[i]!.kind === "dump" && code === undefined) {
            assert.isDefined(result.meta.artifact)
          }
        })
        assertNoLeak(outside, built.flatMap((b) => b.secrets))
      }),
    // 60 runs, each a turn with planted secrets: 12 s on a loaded machine, against the 30 s default.
    { timeout: 120_000, fastCheck: { numRuns: 60 } }
  )

  it.effect("by default a stage span's status holds the error's code, never a value the model or a tool sent", () =>
    Effect.gen(function*() {
      const secret = secretOf(8)
      const { spans } = yield* runTurn([
        { id: "a", name: "count", input: { n: `value-${"q".repeat(12)}` } },
        { id: "b", name: "fail", input: { text: secret } }
      ])
      const failed = (name: string) => spans.find((s) => s.name === name && s.status.code === "error")!
      assert.strictEqual(
        failed("tool_runtime.validate").status.message,
        "invalid_arguments (message withheld: TraceValues is off)"
      )
      assert.strictEqual(
        failed("tool_runtime.execute").status.message,
        "tool_failed (message withheld: TraceValues is off)"
      )
      const exported = JSON.stringify(spans)
      // Not even what no redactor would take for a secret.
      assert.notInclude(exported, "q".repeat(12))
      assert.notInclude(exported, "access denied")
    }))

  it.effect("with TraceValues, a stage span ends with the error's tag, code and redacted message, never the error", () =>
    Effect.gen(function*() {
      const secret = secretOf(8)
      const { spans } = yield* runTurn([
        { id: "a", name: "count", input: { n: `value ${secret}` } },
        { id: "b", name: "fail", input: { text: secret } },
        { id: "c", name: `x.${secret}`, input: {} }
      ], { traceValues: true })
      const failed = (name: string) => spans.find((s) => s.name === name && s.status.code === "error")!
      const validate = failed("tool_runtime.validate")
      assert.include(validate.status.message, "Invalid arguments for count:")
      assert.include(validate.status.message, "[REDACTED:github-token]")
      assert.strictEqual(validate.events[0]!.attributes["exception.type"], "InvalidArguments")
      assert.deepStrictEqual(JSON.parse(validate.error!), { name: "InvalidArguments", code: "invalid_arguments" })
      assert.include(failed("tool_runtime.execute").status.message, "fail failed: access denied for [REDACTED:")
      assert.include(failed("tool_runtime.lookup").status.message, "There is no tool named \"x.[REDACTED:")
      assert.isTrue(spans.every((s) => s.ended), "a span was left open")
    }))

  it.effect("an unknown name is redacted in the result and every message, however long the name", () =>
    Effect.gen(function*() {
      const secret = secretOf(2)
      // Past the 80 characters a message quotes of a name: a cut before
      // redaction would leave most of the secret unrecognized.
      const name = `${"n".repeat(70)}.${secret}`
      const { outside, results } = yield* runTurn([
        { id: "a", name, input: {} },
        { id: "a", name, input: {} }
      ])
      assert.strictEqual(results[0]!.toolName, `${"n".repeat(70)}.[REDACTED:github-token]`)
      assert.strictEqual(results[1]!.error?.code, "duplicate_call_id")
      assertNoLeak(outside, [secret])
    }))

  it.effect("artifact ids and markers are the store's, not made of the call id", () =>
    Effect.gen(function*() {
      const secret = secretOf(4)
      const { outside, results } = yield* runTurn([{ id: secret, name: "dump", input: { text: "ok" } }])
      const [result] = results
      assert.match(result!.meta.artifact!, /^artifact:out_[0-9a-z]+-1$/)
      assert.include(ToolResult.text(result!), `stored as "${result!.meta.artifact}"`)
      assertNoLeak(outside, [secret])
    }))

  it("redactExit keeps successes and interruptions, and replaces any failure or defect", () => {
    const redact = (s: string) => s.replaceAll("hunter2", "[REDACTED]")
    const ok = Exit.succeed("hunter2")
    assert.strictEqual(CallTrace.redactExit(ok, redact), ok)
    const interrupted = Exit.interrupt(FiberId.none)
    assert.strictEqual(CallTrace.redactExit(interrupted, redact), interrupted)
    for (
      const exit of [
        Exit.die(new Error("password hunter2")),
        Exit.fail("password hunter2"),
        Exit.fail({ detail: "password hunter2" }),
        Exit.fail(new ToolError.ToolFailed({ toolName: "t", detail: "password hunter2", retryable: false })),
        Exit.die(
          new Proxy({}, {
            get: () => {
              throw new Error("hunter2")
            },
            getPrototypeOf: () => {
              throw new Error("hunter2")
            }
          })
        )
      ]
    ) {
      // By default not even the words around the secret leave.
      const withheld = CallTrace.redactExit(exit, redact)
      assert(Exit.isFailure(withheld))
      assert.notInclude(Cause.pretty(withheld.cause, { renderErrorCause: true }), "password")
      const redacted = CallTrace.redactExit(exit, redact, { values: true })
      assert(Exit.isFailure(redacted))
      const pretty = Cause.pretty(redacted.cause, { renderErrorCause: true })
      assert.notInclude(pretty, "hunter2")
      assert.notInclude(JSON.stringify(Cause.squash(redacted.cause)), "hunter2")
      assert.match(pretty, /\[REDACTED\]|the error could not be read/)
    }
  })
})

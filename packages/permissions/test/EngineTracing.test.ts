/**
 * The engine under an exporting tracer, through the runtime: its span nests
 * under the runtime's authorize stage, and nothing it exports or logs (the
 * span's attributes, status, exception event, the audit listener's failure)
 * holds a secret from the call, a hook's failure or the person's answer.
 */
import { assert, describe, it } from "@effect/vitest"
import * as CallTrace from "@tool-runtime/core/CallTrace"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
// The core's test tracer, shared: it exports what @effect/opentelemetry would.
import * as ExportingTracer from "../../core/test/ExportingTracer.js"
import { leakedWindow } from "../../core/test/FakeSecrets.js"
import * as Approver from "../src/Approver.js"
import { bash, call, closeTicket, runtimeWith } from "./SampleTools.js"

const github = "ghp_" + "Q7wE9rT1yU3iO5pA7sD9fG1hJ3kL5zX7cV9b"
const aws = "AKIA" + "QWERTYUIOPASDFGH"
const other = "ghp_" + "M2nB4vC6xZ8lK0jH2gF4dS6aP8oI0uY2tR4e"

describe("Engine under an exporting tracer", () => {
  it.effect("its span nests under tool_runtime.authorize and exports, and logs, no secret", () =>
    Effect.gen(function*() {
      const { spans, text, tracer } = ExportingTracer.make()
      const logs: Array<string> = []
      const logger = Logger.make(({ cause, message }) => {
        logs.push(`${JSON.stringify(message)} ${Cause.isEmpty(cause) ? "" : Cause.pretty(cause)}`)
      })
      const runtime = yield* runtimeWith({
        tools: [bash, closeTicket],
        engine: {
          deny: ["Bash(curl:*)"],
          hooks: [{
            name: "ticket-check",
            tools: "close_ticket",
            run: (request) => Effect.fail(new Error(`the hook choked on ${JSON.stringify(request.input)}`))
          }],
          onDecision: (decision) => Effect.die(new Error(`the listener broke on ${aws} for ${decision.toolName}`))
        },
        approver: Approver.layerScripted([Approver.deny(`not with ${other} in it`)])
      })
      const results = yield* runtime.runTurn([
        call(github, "bash", { command: `curl -H "Authorization: Bearer ${github}" https://example.com` }),
        call("c2", "close_ticket", { ticketId: `T-1 ${aws}` }),
        call("c3", "bash", { command: `make ${other}` })
      ]).pipe(
        Effect.withTracer(tracer),
        // Messages in span statuses are opt-in: this test reads what they quote, redacted.
        Effect.provideService(CallTrace.TraceValues, true),
        Effect.provide(Logger.replace(Logger.defaultLogger, logger))
      )
      assert.deepStrictEqual(results.map((r) => r.error?.code), [
        "permission_denied",
        "hook_failed",
        "permission_denied"
      ])

      const engineSpans = spans.filter((s) => s.name === "permissions.authorize")
      assert.strictEqual(engineSpans.length, 3)
      for (const span of engineSpans) {
        assert.strictEqual(spans.find((s) => s.spanId === span.parentSpanId)?.name, "tool_runtime.authorize")
      }
      // The hook's failure is recorded, redacted.
      const exceptionType = (span: ExportingTracer.Exported) =>
        span.events.find((event) => event.name === "exception")?.attributes["exception.type"]
      assert.deepStrictEqual(engineSpans.map(exceptionType), [
        "PermissionDenied",
        "HookFailed",
        "PermissionDenied"
      ])
      assert.include(engineSpans[1]!.status.message, "The ticket-check hook of close_ticket failed")
      assert.include(engineSpans[1]!.status.message, "[REDACTED:aws-access-key-id]")
      assert.include(engineSpans[2]!.status.message, "the user denied it: not with [REDACTED:github-token] in it")
      assert.isTrue(logs.some((line) => line.includes("the permission audit listener failed")))

      const outside = {
        spans: text(),
        logs: logs.join("\n"),
        results: JSON.stringify(results.map(({ callId: _, ...rest }) => rest)),
        text: results.map(ToolResult.text).join("\n")
      }
      for (const [where, haystack] of Object.entries(outside)) {
        for (const secret of [github, aws, other]) {
          const window = leakedWindow(haystack, secret)
          assert.isUndefined(window, `${where} holds ${JSON.stringify(window)}: ${haystack}`)
        }
      }
    }))
})

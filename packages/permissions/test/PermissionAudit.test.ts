import * as FileSystem from "@effect/platform/FileSystem"
import { assert, describe, it } from "@effect/vitest"
import * as CallTrace from "@tool-runtime/core/CallTrace"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Tracer from "effect/Tracer"
import * as Approver from "../src/Approver.js"
import * as Engine from "../src/Engine.js"
import * as PermissionAudit from "../src/PermissionAudit.js"
import * as LinkFileSystem from "./LinkFileSystem.js"
import { bash, readFile, request, workspaceRoot } from "./SampleTools.js"

/** A tracer that keeps every span it makes, so a test can read their attributes. */
const recordingTracer = Effect.gen(function*() {
  const native = yield* Effect.tracer
  const spans: Array<Tracer.Span> = []
  const tracer = Tracer.make({
    span: (...args) => {
      const span = native.span(...args)
      spans.push(span)
      return span
    },
    context: native.context
  })
  return { tracer, spans }
})

const githubToken = "ghp_0123456789abcdefghijABCDEFGHIJ0123456789"
const anthropicKey = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"

describe("PermissionAudit", () => {
  it.effect("every decision is an event saying what was decided, by what, and why", () =>
    Effect.gen(function*() {
      const decisions = yield* Ref.make<ReadonlyArray<PermissionAudit.Decision>>([])
      const engine = yield* Engine.make({
        workspaceRoot,
        allow: ["Bash(npm test:*)"],
        ask: ["Bash(git push:*)"],
        deny: ["Bash(rm:*)"],
        onDecision: (decision) => Ref.update(decisions, (all) => [...all, decision])
      }).pipe(
        Effect.provideService(
          Approver.Approver,
          yield* Approver.makeScripted(() => Approver.allowOnce).pipe(
            Effect.map((scripted) => scripted.service)
          )
        ),
        Effect.provideService(Redactor.Redactor, Redactor.make()),
        Effect.provideService(FileSystem.FileSystem, LinkFileSystem.fileSystem)
      )
      yield* engine.authorize(request(readFile, { path: "src/a.ts" }))
      yield* engine.authorize(request(bash, { command: "npm test" }))
      yield* engine.authorize(request(bash, { command: "git push" }))
      yield* Effect.exit(engine.authorize(request(bash, { command: "rm -rf /" })))
      const trail = (yield* Ref.get(decisions)).map((d) => [d.outcome, PermissionAudit.describe(d.decidedBy), d.reason])
      assert.deepStrictEqual(trail, [
        ["allow", "mode default", "read-only calls run"],
        ["allow", "allow rule Bash(npm test:*)", "an allow rule matches"],
        ["allow", "approver (allow once)", "the person allowed it once"],
        ["deny", "deny rule Bash(rm:*)", "the deny rule Bash(rm:*) forbids it"]
      ])
      const asked = (yield* Ref.get(decisions))[2]!
      assert.isTrue(asked.asked)
      assert.deepStrictEqual(asked.trail, [
        "ask rule Bash(git push:*)",
        "asked: the ask rule Bash(git push:*) matches"
      ])
      assert.strictEqual(asked.subject, "command: git push")
    }))

  it.effect("events, spans, prompts and denials carry no secrets", () =>
    Effect.gen(function*() {
      const { spans, tracer } = yield* recordingTracer
      const decisions = yield* Ref.make<ReadonlyArray<PermissionAudit.Decision>>([])
      const scripted = yield* Approver.makeScripted(() => Approver.allowOnce)
      const engine = yield* Engine.make({
        workspaceRoot,
        deny: ["Bash(curl:*)"],
        onDecision: (decision) => Ref.update(decisions, (all) => [...all, decision])
      }).pipe(
        Effect.provideService(Approver.Approver, scripted.service),
        Effect.provideService(Redactor.Redactor, Redactor.make()),
        Effect.provideService(FileSystem.FileSystem, LinkFileSystem.fileSystem)
      )
      const leaky = `echo ${anthropicKey} && curl -H "Authorization: Bearer ${githubToken}" https://api.github.com`
      const denial = yield* Effect.withTracer(
        Effect.flip(engine.authorize(request(bash, { command: leaky }, githubToken))),
        tracer
      )
      assert(denial._tag === "PermissionDenied")
      yield* Effect.withTracer(engine.authorize(request(bash, { command: `export TOKEN=${githubToken}` })), tracer)
        .pipe(
          Effect.provideService(CallTrace.TraceValues, true)
        )
      const everything = JSON.stringify({
        decisions: yield* Ref.get(decisions),
        prompts: yield* scripted.prompts,
        denial: { reason: denial.reason, decidedBy: denial.decidedBy, message: denial.message },
        spans: spans.map((span) => ({ name: span.name, attributes: Object.fromEntries(span.attributes) }))
      })
      assert.notInclude(everything, githubToken)
      assert.notInclude(everything, anthropicKey)
      assert.include(everything, "[REDACTED:github-token]")
      // A rule holding a secret is not offered for "always allow".
      assert.deepStrictEqual((yield* scripted.prompts)[0]!.rules, [])
      // The trail is still useful: it says what happened.
      assert.include(denial.reason, "the deny rule Bash(curl:*) forbids it (it matches the command curl -H")
      const [span, opted] = spans.filter((s) => s.name === "permissions.authorize")
      assert.strictEqual(span!.attributes.get("permission.outcome"), "deny")
      assert.strictEqual(span!.attributes.get("permission.rule"), "Bash(curl:*)")
      // The arguments, and the reason and subject that quote them, only when the application asks.
      for (const key of ["permission.input", "permission.subject", "permission.reason"]) {
        assert.isFalse(span!.attributes.has(key), key)
      }
      assert.include(String(opted!.attributes.get("permission.input")), "[REDACTED:")
    }))

  it.effect("with no listener and no hook, a decision made at once records on its span what a listened one does", () =>
    Effect.gen(function*() {
      // The engine decides an allow without a step when nothing listens, no hook runs and no
      // link is followed: its span must carry the same attributes, and end, as the stepwise one.
      const attributesOf = (listened: boolean, values: boolean) =>
        Effect.gen(function*() {
          const { spans, tracer } = yield* recordingTracer
          const scripted = yield* Approver.makeScripted(() => Approver.allowOnce)
          const engine = yield* Engine.makeIgnoringSymlinks({
            workspaceRoot,
            allow: ["Bash(npm test:*)"],
            ask: ["Bash(git push:*)"],
            deny: ["Bash(rm:*)"],
            ...(listened ? { onDecision: () => Effect.void } : {})
          }).pipe(
            Effect.provideService(Approver.Approver, scripted.service),
            Effect.provideService(Redactor.Redactor, Redactor.make())
          )
          for (
            const command of ["npm test", "ls src", `npm test -- --token ${githubToken}`, "git push", "rm -rf build"]
          ) {
            yield* Effect.exit(engine.authorize(request(bash, { command }))).pipe(
              Effect.withTracer(tracer),
              Effect.provideService(CallTrace.TraceValues, values)
            )
          }
          yield* Effect.exit(engine.authorize(request(readFile, { path: "src/a.ts" }))).pipe(Effect.withTracer(tracer))
          return spans.filter((span) => span.name === "permissions.authorize").map((span) => ({
            ended: span.status._tag,
            attributes: Object.fromEntries(span.attributes)
          }))
        })
      for (const values of [false, true]) {
        const quiet = yield* attributesOf(false, values)
        assert.deepStrictEqual(quiet, yield* attributesOf(true, values))
        assert.deepStrictEqual(quiet.map((span) => span.ended), Array(6).fill("Ended"))
        assert.deepStrictEqual(quiet.map((span) => span.attributes["permission.outcome"]), [
          "allow",
          "allow",
          "allow",
          "allow",
          "deny",
          "allow"
        ])
        assert.strictEqual(quiet[0]!.attributes["permission.rule"], "Bash(npm test:*)")
        assert.strictEqual(quiet[0]!.attributes["permission.decided_by"], "Rule")
        assert.strictEqual(quiet[3]!.attributes["permission.asked"], true)
        assert.strictEqual(quiet[0]!.attributes["permission.input"], values ? `{"command":"npm test"}` : undefined)
        assert.notInclude(JSON.stringify(quiet), githubToken)
      }
    }))
})

/**
 * Edges of the engine's promises: what an unconfined command, a hook, a
 * protected path, a destructive command and a fetch come to in each mode;
 * which allow rules make a redirection writable; settings and flags; what
 * the decision record says.
 */
import { assert, describe, it } from "@effect/vitest"
import * as CallTrace from "@tool-runtime/core/CallTrace"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Tool from "@tool-runtime/core/Tool"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as ExportingTracer from "../../core/test/ExportingTracer.js"
import * as Approver from "../src/Approver.js"
import * as Engine from "../src/Engine.js"
import * as EngineConfig from "../src/EngineConfig.js"
import * as PermissionHooks from "../src/PermissionHooks.js"
import * as SandboxRules from "../src/SandboxRules.js"
import * as Settings from "../src/Settings.js"
import { engineWith, lastDecision, lastPrompt, outcomeOf } from "./EngineHarness.js"
import { bash, readFile, request, sandboxedBash, webFetch, writeFile } from "./SampleTools.js"

const hookOf = (name: string, decision: PermissionHooks.BeforeDecision): PermissionHooks.Before => ({
  name,
  run: () => Effect.succeed(decision)
})

describe("Engine edges", () => {
  describe("an unconfined command always reaches a person", () => {
    it.effect("in bypassPermissions, with the mode's step and a matching allow rule on the trail", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ mode: "bypassPermissions", allow: ["Bash(make build)"] })
        const req = request(sandboxedBash, { command: "make build", sandbox: "unconfined" })
        assert.strictEqual(yield* outcomeOf(subject, req), "ask")
        const prompt = yield* lastPrompt(subject)
        assert.deepStrictEqual(prompt.rules, [])
        assert.include(prompt.reason, SandboxRules.unconfinedReason)
        const decision = yield* lastDecision(subject)
        assert.isTrue(decision.trail.some((step) => step.startsWith("mode bypassPermissions: ")), `${decision.trail}`)
        assert.include(decision.trail, "allow rule Bash(make build) matches")
        assert.strictEqual(decision.sandbox, "unconfined")
        assert.strictEqual(decision.sandboxRule, "unsandboxed-always-asks")
      }))

    it.effect("a confined one is recorded as confined, with no sandbox rule", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ mode: "bypassPermissions" })
        const req = request(sandboxedBash, { command: "make build", sandbox: "confined" })
        assert.strictEqual(yield* outcomeOf(subject, req), "allow:mode")
        const decision = yield* lastDecision(subject)
        assert.strictEqual(decision.sandbox, "confined")
        assert.isUndefined(decision.sandboxRule)
      }))

    it.effect("when a hook allows it", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ hooks: [hookOf("gate", PermissionHooks.allow("fine"))] })
        const req = request(sandboxedBash, { command: "make build", sandbox: "unconfined" })
        assert.strictEqual(yield* outcomeOf(subject, req), "ask")
        assert.deepStrictEqual((yield* lastPrompt(subject)).rules, [])
        const decision = yield* lastDecision(subject)
        assert.include(decision.trail, "hook gate allows it")
        assert.strictEqual(decision.sandboxRule, "unsandboxed-always-asks")
      }))

    it.effect("an ask rule's question says it leaves the sandbox", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ ask: ["Bash(make build)"] })
        const req = request(sandboxedBash, { command: "make build", sandbox: "unconfined" })
        assert.strictEqual(yield* outcomeOf(subject, req), "ask")
        assert.include((yield* lastPrompt(subject)).reason, SandboxRules.unconfinedReason)
      }))
  })

  describe("hooks", () => {
    it.effect("a hook's ask reaches a person in bypassPermissions, offering no rule", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({
          mode: "bypassPermissions",
          hooks: [hookOf("gate", PermissionHooks.ask("look first"))]
        })
        assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: "make build" })), "ask")
        assert.deepStrictEqual((yield* lastPrompt(subject)).rules, [])
        assert.include((yield* lastDecision(subject)).trail, "hook gate")
      }))

    it.effect("a rewrite that does not decode is recorded as rewritten, by the hooks", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({
          hooks: [hookOf("bad", PermissionHooks.rewrite({ command: 42 }, "broke it"))]
        })
        const verdict = yield* subject.engine.authorize(request(bash, { command: "make build" }))
        assert.strictEqual(verdict._tag, "Rewrite")
        assert.strictEqual((yield* subject.prompts).length, 0)
        const decision = yield* lastDecision(subject)
        assert.isTrue(decision.rewritten)
        assert.deepStrictEqual(decision.decidedBy, { _tag: "Hook", hook: "before-call hooks" })
        assert.strictEqual(decision.reason, "the rewritten input is invalid")
      }))

    it.effect("two rewrites' notes are joined", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({
          mode: "bypassPermissions",
          hooks: [
            hookOf("one", PermissionHooks.rewrite({ command: "make a" }, "first")),
            hookOf("two", PermissionHooks.rewrite({ command: "make b" }, "second"))
          ]
        })
        const verdict = yield* subject.engine.authorize(request(bash, { command: "make build" }))
        assert.strictEqual(verdict._tag, "Rewrite")
        if (verdict._tag === "Rewrite") {
          assert.strictEqual(verdict.note, "the one hook changed it: first; the two hook changed it: second")
        }
      }))

    it.effect("a failing hook's denial is not recorded as rewritten", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({
          hooks: [{ name: "broken", run: () => Effect.fail("boom") }]
        })
        const exit = yield* Effect.exit(subject.engine.authorize(request(bash, { command: "make build" })))
        assert.isTrue(Exit.isFailure(exit))
        const decision = yield* lastDecision(subject)
        assert.strictEqual(decision.outcome, "deny")
        assert.isFalse(decision.rewritten)
      }))
  })

  describe("questions that must reach a person", () => {
    it.effect("a destructive command offers no rule and says why", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ homeDirectory: "/home/ada", allow: ["Bash(rm *)"] })
        assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: "rm -rf /" })), "ask")
        const prompt = yield* lastPrompt(subject)
        assert.deepStrictEqual(prompt.rules, [])
        assert.include(prompt.reason, "such a command always needs a person's approval")
        const decision = yield* lastDecision(subject)
        assert.isTrue(decision.trail.some((step) => step.startsWith("destructive: ")), `${decision.trail}`)
      }))

    it.effect("a write to a protected path offers no rule, even with an Edit allow rule", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ allow: ["Edit(**)"] })
        const req = request(writeFile, { path: ".git/config", content: "x" })
        assert.strictEqual(yield* outcomeOf(subject, req), "ask")
        const prompt = yield* lastPrompt(subject)
        assert.deepStrictEqual(prompt.rules, [])
        assert.include(prompt.reason, "which always needs a person's approval")
        assert.isTrue((yield* lastDecision(subject)).trail.some((step) => step.startsWith("protected path ")))
      }))

    it.effect("in dontAsk, a protected path's denial names what needed approval", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ mode: "dontAsk", allow: ["Edit(**)"] })
        const exit = yield* Effect.exit(
          subject.engine.authorize(request(writeFile, { path: ".git/config", content: "x" }))
        )
        assert.isTrue(Exit.isFailure(exit))
        assert.include((yield* lastDecision(subject)).reason, "it writes inside")
      }))
  })

  describe("a fetch", () => {
    it.effect("no domain rule: a question naming the domain, offering a rule", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({})
        assert.strictEqual(yield* outcomeOf(subject, request(webFetch, { url: "https://example.com/a" })), "ask")
        const prompt = yield* lastPrompt(subject)
        assert.include(prompt.reason, "no allow rule covers the domain example.com")
        assert.isAbove(prompt.rules.length, 0)
        assert.include((yield* lastDecision(subject)).trail, "no domain rule allows the URL")
      }))

    it.effect("a URL with no host", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({})
        assert.strictEqual(yield* outcomeOf(subject, request(webFetch, { url: "file:///etc/passwd" })), "ask")
        assert.include((yield* lastPrompt(subject)).reason, "the URL has no host")
      }))

    it.effect("a domain rule allows it", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ allow: ["WebFetch(domain:example.com)"] })
        assert.strictEqual(yield* outcomeOf(subject, request(webFetch, { url: "https://example.com/a" })), "allow:rule")
        assert.strictEqual((yield* lastDecision(subject)).reason, "an allow rule matches")
      }))

    it.effect("plan mode denies a fetch that is not read-only, before any question", () =>
      Effect.gen(function*() {
        const post = Tool.make("web_fetch", {
          description: "Posts to a URL.",
          parameters: { url: Schema.String },
          subject: ({ url }) => ({ _tag: "Url", url }),
          handler: ({ url }) => Effect.succeed(`posted ${url}`)
        })
        const subject = yield* engineWith({ mode: "plan" })
        assert.strictEqual(yield* outcomeOf(subject, request(post, { url: "https://example.com/a" })), "deny:mode")
        assert.notInclude((yield* lastDecision(subject)).trail, "no domain rule allows the URL")
      }))
  })

  describe("allow reasons", () => {
    it.effect("acceptEdits' file commands", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ mode: "acceptEdits" })
        assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: "mkdir build" })), "allow:mode")
        assert.strictEqual(
          (yield* lastDecision(subject)).reason,
          "acceptEdits runs file commands inside the workspace"
        )
      }))

    it.effect("a session rule", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({}, () => Approver.allowAlways)
        const req = () => request(bash, { command: "make build" })
        assert.strictEqual(yield* outcomeOf(subject, req()), "ask")
        yield* subject.engine.authorize(req())
        const decision = yield* lastDecision(subject)
        assert.strictEqual(decision.decidedBy._tag === "Rule" ? decision.decidedBy.list : "", "session")
        assert.strictEqual(decision.reason, "allowed for the session by the person")
      }))

    it.effect("allow rules together with read-only commands", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ allow: ["Bash(make build)"] })
        assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: "make build && ls" })), "allow:rule")
        assert.strictEqual((yield* lastDecision(subject)).reason, "allow rules and read-only commands cover it")
      }))
  })

  describe("which allow rules make a redirection writable", () => {
    it.effect("a Read rule does not", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ allow: ["Read(src/**)", "Bash(echo *)"] })
        assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: "echo hi > src/a.ts" })), "ask")
      }))

    it.effect("a Write rule does, like an Edit rule", () =>
      Effect.gen(function*() {
        for (const rule of ["Write(src/**)", "Edit(src/**)"]) {
          const subject = yield* engineWith({ allow: [rule, "Bash(echo *)"] })
          assert.strictEqual(
            yield* outcomeOf(subject, request(bash, { command: "echo hi > src/a.ts" })),
            "allow:rule",
            rule
          )
        }
      }))
  })

  describe("the engine that ignores links", () => {
    it.effect("still sees a path outside the workspace as outside", () =>
      Effect.gen(function*() {
        const engine = yield* Engine.makeIgnoringSymlinks({ workspaceRoot: "/work/project" }).pipe(
          Effect.provideService(Approver.Approver, {
            ask: () => Effect.succeed({ _tag: "Deny", message: "no", stopTurn: false } as Approver.Answer)
          }),
          Effect.provideService(Redactor.Redactor, Redactor.make())
        )
        const outside = yield* Effect.exit(engine.authorize(request(readFile, { path: "/etc/passwd" })))
        assert.isTrue(Exit.isFailure(outside))
        const inside = yield* Effect.exit(engine.authorize(request(readFile, { path: "src/a.ts" })))
        assert.isTrue(Exit.isSuccess(inside))
      }))
  })

  describe("the decision record", () => {
    it.effect("caps a long input, saying how long it was", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ mode: "bypassPermissions" })
        const command = `echo ${"x".repeat(3_000)}`
        yield* subject.engine.authorize(request(bash, { command }))
        const input = (yield* lastDecision(subject)).input
        const full = JSON.stringify({ command }).length
        assert.isTrue(input.endsWith(`… (${full} characters)`), input.slice(-40))
        assert.isBelow(input.length, 2_100)
        assert.isTrue(input.startsWith("{\"command\":\"echo xxx"))
      }))
  })

  describe("configFromSettings", () => {
    it("a flag overrides the settings; without one, the settings' say", () => {
      const settings: Settings.Settings = {
        ...Settings.empty,
        defaultMode: "bypassPermissions",
        autoAllowSandboxedCommands: true
      }
      const flagged = EngineConfig.configFromSettings(settings, {
        workspaceRoot: "/w",
        mode: "default",
        autoAllowSandboxedCommands: false
      })
      assert.strictEqual(flagged.mode, "default")
      assert.strictEqual(flagged.autoAllowSandboxedCommands, false)
      const plain = EngineConfig.configFromSettings(settings, { workspaceRoot: "/w" })
      assert.strictEqual(plain.mode, "bypassPermissions")
      assert.strictEqual(plain.autoAllowSandboxedCommands, true)
    })
  })

  describe("a line that could read guarded files from git's history", () => {
    const deny = ["Read(./secrets/**)"]

    it.effect("is asked about, offering no rule, even where confined commands run unasked", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ deny, autoAllowSandboxedCommands: true })
        const req = request(sandboxedBash, { command: "git fetch", sandbox: "confined" })
        assert.strictEqual(yield* outcomeOf(subject, req), "ask")
        const prompt = yield* lastPrompt(subject)
        assert.deepStrictEqual(prompt.rules, [])
        assert.include(prompt.reason, "it runs git (or a command named only when it runs)")
        assert.include(prompt.reason, "secrets")
        assert.include(
          (yield* lastDecision(subject)).trail,
          "it could read guarded files from the repository's history"
        )
        // A confined line that reaches nothing guarded runs unasked.
        const plain = request(sandboxedBash, { command: "make build", sandbox: "confined" })
        assert.strictEqual(yield* outcomeOf(subject, plain), "allow:sandbox")
        assert.strictEqual((yield* lastDecision(subject)).sandboxRule, "sandbox-auto-allow")
      }))

    it.effect("in dontAsk, the denial says what to do instead", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ deny, mode: "dontAsk" })
        const exit = yield* Effect.exit(subject.engine.authorize(request(bash, { command: "git fetch" })))
        assert.isTrue(Exit.isFailure(exit))
        const reason = (yield* lastDecision(subject)).reason
        assert.include(reason, "it runs git")
        assert.include(reason, "Use git status, add, commit or log without patches")
      }))

    it.effect("a line that reaches a guarded rule names it, not git's history", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ deny })
        assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: "git log -p" })), "ask")
        const prompt = yield* lastPrompt(subject)
        assert.deepStrictEqual(prompt.rules, [])
        assert.notInclude(prompt.reason, "it runs git (or a command named only when it runs)")
        const decision = yield* lastDecision(subject)
        assert.isTrue(decision.trail.some((step) => step.startsWith("it could reach ")), `${decision.trail}`)
        const quiet = yield* engineWith({ deny, mode: "dontAsk" })
        yield* Effect.exit(quiet.engine.authorize(request(bash, { command: "git log -p" })))
        assert.notInclude((yield* lastDecision(quiet)).reason, "Use tools the rules allow")
      }))
  })

  it.effect("the span names no subject when there is no target", () =>
    Effect.gen(function*() {
      const { spans, tracer } = ExportingTracer.make()
      const subject = yield* engineWith({
        hooks: [hookOf("bad", PermissionHooks.rewrite({ command: 42 }, "broke it"))]
      })
      yield* subject.engine.authorize(request(bash, { command: "make build" })).pipe(
        Effect.withTracer(tracer),
        Effect.provideService(CallTrace.TraceValues, true)
      )
      const span = spans.find((s) => s.name === "permissions.authorize")
      assert.strictEqual(span?.attributes["permission.subject"], "")
    }))

  it.effect("an unconfined line with no allow rule offers none, and names every allow rule that matched", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith({ allow: ["Bash(make build)", "Bash(make test)"] })
      const bare = request(sandboxedBash, { command: "make lint", sandbox: "unconfined" })
      assert.strictEqual(yield* outcomeOf(subject, bare), "ask")
      assert.deepStrictEqual((yield* lastPrompt(subject)).rules, [])
      const both = request(sandboxedBash, { command: "make build && make test", sandbox: "unconfined" })
      assert.strictEqual(yield* outcomeOf(subject, both), "ask")
      assert.include((yield* lastDecision(subject)).trail, "allow rule Bash(make build), Bash(make test) matches")
    }))

  it.effect("the git-history question names every Read rule it could print", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith({ deny: ["Read(./secrets/**)", "Read(./.env)"] })
      assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: "git fetch" })), "ask")
      assert.include((yield* lastPrompt(subject)).reason, "(Read(./secrets/**), Read(./.env))")
    }))

  it.effect("an ask rule that matches one reading of a line says which", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith({ ask: ["Bash(make build)"] })
      assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: "sh -c 'make build'" })), "ask")
      assert.include((yield* lastPrompt(subject)).reason, "(it matches the command make build)")
    }))

  it.effect("a command that would destroy the workspace offers no rule either", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith({ homeDirectory: "/home/ada" })
      assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: "rm -rf ." })), "ask")
      assert.deepStrictEqual((yield* lastPrompt(subject)).rules, [])
    }))

  describe("rules at their edges, through the engine", () => {
    it.effect("a deny rule's command named by a glob with a directory (`/usr/bin/r[m]`) is denied", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ mode: "bypassPermissions", deny: ["Bash(rm:*)"] })
        for (const line of ["/usr/bin/r[m] notes.txt", "./r? x", "/bin/[r]m x"]) {
          assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: line })), "deny:rule", line)
        }
        assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: "/usr/bin/l[s] x" })), "allow:mode")
      }))
  })
})

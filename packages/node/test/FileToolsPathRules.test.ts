/**
 * The permission engine's path rules against the file tools that walk: a
 * `Read(./secret/**)` deny must keep `secret/x` out of every result, not only
 * out of the calls that name it. Real engine, real tools, real temporary
 * workspaces.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import type * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Approver from "@tool-runtime/permissions/Approver"
import * as Engine from "@tool-runtime/permissions/Engine"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as FileTools from "../src/FileTools.js"
import * as ProcessRunner from "../src/ProcessRunner.js"
import * as ShellTool from "../src/ShellTool.js"
import * as Workspace from "../src/Workspace.js"

const MARKER = "MARKER-4b7e1f-denied-content"

interface Rules {
  readonly deny?: ReadonlyArray<string>
  readonly ask?: ReadonlyArray<string>
}

/** A workspace of `files` (path → content) and `links` (path → target), removed with the scope. */
const workspace = (files: Record<string, string>, links: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const base = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "tr-path-rules-")))
      const root = NodePath.join(base, "ws")
      NodeFs.mkdirSync(root)
      for (const [path, content] of Object.entries(files)) {
        NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, path)), { recursive: true })
        NodeFs.writeFileSync(NodePath.join(root, path), content)
      }
      for (const [path, target] of Object.entries(links)) NodeFs.symlinkSync(target, NodePath.join(root, path))
      return { base, root }
    }),
    ({ base }) => Effect.sync(() => NodeFs.rmSync(base, { recursive: true, force: true }))
  )

const build = (root: string, policy: Layer.Layer<Policy.Policy>, tools: ReadonlyArray<Tool.Any>) =>
  ToolRuntime.ToolRuntime.pipe(
    Effect.provide(
      ToolRuntime.layer().pipe(
        Layer.provide(Registry.layer(tools)),
        Layer.provide([ArtifactStore.layerMemory(), Redactor.layerDefault, policy, Workspace.layer(root)])
      )
    )
  )

const engine = (root: string, rules: Rules) =>
  Engine.layer({ workspaceRoot: root, deny: rules.deny ?? [], ask: rules.ask ?? [] }).pipe(
    Layer.provide([Approver.layerHeadless, Redactor.layerDefault, NodeContext.layer]),
    Layer.orDie
  )

/** The runtime over `root` governed by the real permission engine with these rules. */
const engineRuntime = (root: string, rules: Rules, tools: ReadonlyArray<Tool.Any> = FileTools.all()) =>
  build(root, engine(root, rules), tools)

/**
 * A policy that lets every call run and refuses paths under `prefix` only
 * when a tool asks about a path it reached: it shows what the tools do by
 * themselves, with nothing from the permission stage in front of them.
 */
const pathOnly = (refuse: (path: string) => Policy.PathRefusal | undefined): Layer.Layer<Policy.Policy> =>
  Layer.succeed(Policy.Policy, { authorize: () => Effect.succeed(Policy.allow), checkPath: (_, path) => refuse(path) })

const under = (root: string, directory: string) => (path: string) =>
  path.startsWith(NodePath.join(root, directory, "/"))

const call = (name: string, input: unknown) => ({ id: "c", name, input })

const tree = {
  "secret/x": `${MARKER}\n`,
  "secret/deeper/y": `${MARKER}\n`,
  "src/a.ts": "export const a = 1\n",
  "README.md": "hello\n"
}

describe("a Read deny reaches every read", () => {
  const denied = { deny: ["Read(./secret/**)"] }

  const searches: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ["grep", { pattern: "MARKER" }],
    ["grep", { pattern: "MARKER", path: "." }],
    ["grep", { pattern: "MARKER", glob: "secret/*" }],
    ["grep", { pattern: "MARKER", path: "src/.." }],
    ["grep", { pattern: "MARKER", glob: "**/*" }],
    ["glob", { pattern: "**/*" }],
    ["glob", { pattern: "secret/*" }],
    ["glob", { pattern: "*/x" }]
  ]
  for (const [name, input] of searches) {
    it.scoped(`${name} ${JSON.stringify(input)} shows nothing of secret/ and says it skipped it`, () =>
      Effect.gen(function*() {
        const { root } = yield* workspace(tree)
        const runtime = yield* engineRuntime(root, denied)
        const result = yield* runtime.runCall(call(name, input))
        const text = ToolResult.text(result)
        assert.isFalse(result.isError, text)
        assert.notInclude(text, MARKER)
        assert.notMatch(text, /secret\/(x|deeper)/)
        // The rule denies the directory itself too, so the walk never enters it.
        assert.include(text, "[1 directory was skipped: the permission rules deny reading it (Read(./secret/**)).]")
      }))
  }

  it.scoped("grep still finds what is not denied, and counts what it skipped", () =>
    Effect.gen(function*() {
      const { root } = yield* workspace({ ...tree, "src/b.ts": `// ${MARKER.slice(0, 6)} but allowed\n` })
      const runtime = yield* engineRuntime(root, denied)
      const text = ToolResult.text(yield* runtime.runCall(call("grep", { pattern: "MARKER" })))
      assert.strictEqual(
        text,
        "src/b.ts:1:// MARKER but allowed\n\n" +
          "[1 directory was skipped: the permission rules deny reading it (Read(./secret/**)).]"
      )
    }))

  it.scoped("a rule on files skips each file it denies, wherever the walk meets it", () =>
    Effect.gen(function*() {
      const { root } = yield* workspace({ ...tree, "a.key": MARKER, "src/deep/b.key": MARKER })
      const runtime = yield* engineRuntime(root, { deny: ["Read(**/*.key)", "Read(./secret/**)"] })
      const grep = ToolResult.text(yield* runtime.runCall(call("grep", { pattern: "MARKER" })))
      assert.strictEqual(
        grep,
        "No lines under . match /MARKER/.\n\n" +
          "[2 files and 1 directory were skipped: the permission rules deny reading them " +
          "(Read(**/*.key), Read(./secret/**)).]"
      )
      const glob = ToolResult.text(yield* runtime.runCall(call("glob", { pattern: "**/*.key" })))
      assert.notInclude(glob, ".key\n")
      assert.include(glob, "[2 files and 1 directory were skipped")
    }))

  it.scoped("list_directory withholds the entries it may not show, without their names", () =>
    Effect.gen(function*() {
      const { root } = yield* workspace({ ...tree, "notes/.env": "TOKEN=1\n", "notes/todo.md": "- a\n" })
      const runtime = yield* engineRuntime(root, { deny: ["Read(./notes/.env)"] })
      const text = ToolResult.text(yield* runtime.runCall(call("list_directory", { path: "notes" })))
      assert.strictEqual(
        text,
        "notes holds 1 entry:\ntodo.md\n" +
          "[1 entry is withheld: the permission rules deny reading it (Read(./notes/.env)).]"
      )
    }))

  it.scoped("read_file through a link to a denied directory is refused", () =>
    Effect.gen(function*() {
      const { root } = yield* workspace(tree, { alias: "secret" })
      const runtime = yield* engineRuntime(root, denied)
      const result = yield* runtime.runCall(call("read_file", { path: "alias/x" }))
      assert.isTrue(result.isError)
      assert.notInclude(ToolResult.text(result), MARKER)
    }))

  it.scoped("an ask rule skips too, and says to read the file by name", () =>
    Effect.gen(function*() {
      const { root } = yield* workspace(tree)
      const runtime = yield* engineRuntime(root, { ask: ["Read(./secret/**)"] })
      const text = ToolResult.text(yield* runtime.runCall(call("grep", { pattern: "MARKER" })))
      assert.notInclude(text, MARKER)
      assert.include(
        text,
        "[1 directory was skipped: a permission rule wants a person to approve reading it (Read(./secret/**)); " +
          "read one by name with read_file, which asks.]"
      )
    }))
})

describe("a Read deny holds for a command run in another directory", () => {
  // No sandbox: the engine's reading of the command is the only guard, and
  // bypassPermissions leaves the deny rule as the only thing in the way.
  // The process runner lives in the test's scope: it stops what it started when the test ends.
  const shellRuntime = (root: string) =>
    Effect.map(
      Layer.build(
        ToolRuntime.layer().pipe(
          Layer.provide(Registry.layer([ShellTool.make({ root, sandbox: "unconfined" })])),
          Layer.provide([
            ArtifactStore.layerMemory(),
            Redactor.layerDefault,
            ProcessRunner.layerUnconfined,
            Engine.layer({ workspaceRoot: root, mode: "bypassPermissions", deny: ["Read(./secret/**)"] }).pipe(
              Layer.provide([Approver.layerHeadless, Redactor.layerDefault, NodeContext.layer]),
              Layer.orDie
            )
          ])
        )
      ),
      Context.get(ToolRuntime.ToolRuntime)
    )

  for (
    const [command, cwd] of [
      ["cat x", "secret"],
      ["cat deeper/y", "secret"],
      ["cat y", "secret/deeper"],
      ["cat ../secret/x", "src"],
      ["grep -r MARKER .", "secret"]
    ] as const
  ) {
    it.scoped(`${command} in ${cwd}/ is denied, and nothing of the file shows`, () =>
      Effect.gen(function*() {
        const { root } = yield* workspace(tree)
        const runtime = yield* shellRuntime(root)
        const result = yield* runtime.runCall(call("bash", { command, cwd }))
        const text = ToolResult.text(result)
        assert.isTrue(result.isError, text)
        assert.notInclude(text, MARKER)
        assert.include(text, "Read(./secret/**)")
      }))
  }

  it.scoped("a link in the directory it starts in is followed from there", () =>
    Effect.gen(function*() {
      const { root } = yield* workspace(tree, { "src/link": "../secret" })
      const runtime = yield* shellRuntime(root)
      const result = yield* runtime.runCall(call("bash", { command: "cat link/x", cwd: "src" }))
      const text = ToolResult.text(result)
      assert.isTrue(result.isError, text)
      assert.notInclude(text, MARKER)
      assert.include(text, "Read(./secret/**)")
    }))

  it.scoped("the same command where no rule guards runs", () =>
    Effect.gen(function*() {
      const { root } = yield* workspace(tree)
      const runtime = yield* shellRuntime(root)
      const result = yield* runtime.runCall(call("bash", { command: "cat a.ts", cwd: "src" }))
      assert.isFalse(result.isError, ToolResult.text(result))
      assert.include(ToolResult.text(result), "export const a = 1")
    }))
})

describe("a person who approves a call's own path", () => {
  /** The engine with an ask rule on drafts/ and a person who approves every question. */
  const approving = (root: string) =>
    build(
      root,
      Engine.layer({ workspaceRoot: root, ask: ["Read(./drafts/**)"] }).pipe(
        Layer.provide([
          Approver.layerScripted(Array(8).fill(Approver.allowOnce)),
          Redactor.layerDefault,
          NodeContext.layer
        ]),
        Layer.orDie
      ),
      FileTools.all()
    )
  const drafts = { ...tree, "drafts/plan.md": `${MARKER}\n`, "drafts/old/notes.md": `${MARKER}\n` }

  it.scoped("gets what they approved: the file read, the directory searched and listed", () =>
    Effect.gen(function*() {
      const { root } = yield* workspace(drafts)
      const runtime = yield* approving(root)
      const read = ToolResult.text(yield* runtime.runCall(call("read_file", { path: "drafts/plan.md" })))
      assert.include(read, MARKER)
      const grep = ToolResult.text(yield* runtime.runCall(call("grep", { pattern: "MARKER", path: "drafts" })))
      assert.strictEqual(grep, `drafts/plan.md:1:${MARKER}\ndrafts/old/notes.md:1:${MARKER}`)
      const list = ToolResult.text(yield* runtime.runCall(call("list_directory", { path: "drafts" })))
      assert.strictEqual(list, "drafts holds 2 entries:\nold/\nplan.md")
    }))

  it.scoped("but a search of the whole workspace, which nobody was asked about, skips it", () =>
    Effect.gen(function*() {
      const { root } = yield* workspace(drafts)
      const runtime = yield* approving(root)
      const grep = ToolResult.text(yield* runtime.runCall(call("grep", { pattern: "MARKER" })))
      assert.notMatch(grep, /drafts\/(plan|old)/, grep)
      assert.include(grep, "[1 directory was skipped: a permission rule wants a person to approve reading it")
    }))
})

describe("the tools check the paths they reach themselves", () => {
  it.scoped("read_file refuses a final path the policy refuses", () =>
    Effect.gen(function*() {
      const { root } = yield* workspace(tree)
      const runtime = yield* build(
        root,
        pathOnly((path) => under(root, "secret")(path) ? { verdict: "deny", rule: "Read(./secret/**)" } : undefined),
        FileTools.all()
      )
      const result = yield* runtime.runCall(call("read_file", { path: "secret/x" }))
      const text = ToolResult.text(result)
      assert.isTrue(result.isError)
      assert.strictEqual(result.error?.code, "rule_violation")
      assert.notInclude(text, MARKER)
      assert.include(text, "the permission rules deny reading secret/x (Read(./secret/**))")
    }))

  for (
    const [name, input] of [
      ["write_file", { path: "secret/x", content: "overwritten\n" }],
      ["edit_file", { path: "secret/x", old_string: MARKER, new_string: "edited" }]
    ] as const
  ) {
    it.scoped(`${name} refuses a final path the policy refuses for writing`, () =>
      Effect.gen(function*() {
        const { root } = yield* workspace(tree)
        const runtime = yield* build(
          root,
          pathOnly((path) => under(root, "secret")(path) ? { verdict: "deny", rule: "Edit(./secret/**)" } : undefined),
          FileTools.all()
        )
        const result = yield* runtime.runCall(call(name, input))
        assert.isTrue(result.isError)
        assert.strictEqual(result.error?.code, "rule_violation")
        assert.include(ToolResult.text(result), "the permission rules deny writing secret/x (Edit(./secret/**))")
        assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "secret/x"), "utf8"), `${MARKER}\n`)
      }))
  }
})

describe("no refused file ever shows (property)", () => {
  const kinds = [
    { prefix: "", ext: ".txt" },
    { prefix: "", ext: ".key" },
    { prefix: ".env", ext: "" }
  ] as const
  const rulePool = ["Read(./a/**)", "Read(./b/c/**)", "Read(**/*.key)", "Read(**/.env*)", "Read(./c/a/**)"]
  const directory = FastCheck.array(FastCheck.constantFrom("a", "b", "c"), { maxLength: 3 })
  const files = FastCheck.array(FastCheck.tuple(directory, FastCheck.constantFrom(0, 1, 2)), {
    minLength: 1,
    maxLength: 14
  })
  const rules = FastCheck.array(FastCheck.constantFrom(0, 1, 2), {
    minLength: rulePool.length,
    maxLength: rulePool.length
  })
  const place = FastCheck.oneof(FastCheck.constant("."), directory.map((parts) => parts.join("/") || "."))
  const toolCall = FastCheck.oneof(
    FastCheck.record({
      name: FastCheck.constant("grep" as const),
      path: place,
      glob: FastCheck.option(FastCheck.constantFrom("**/*", "*.key", "a/**", ".env*", "*/*"), { nil: undefined })
    }),
    FastCheck.record({
      name: FastCheck.constant("glob" as const),
      path: place,
      pattern: FastCheck.constantFrom("**/*", "*/*", "**/*.key", "a/**", "**/.env*", "*")
    }),
    FastCheck.record({ name: FastCheck.constant("list_directory" as const), path: place }),
    FastCheck.record({
      name: FastCheck.constant("read_file" as const),
      file: FastCheck.nat(),
      viaAlias: FastCheck.boolean()
    })
  )

  it.scoped.prop(
    "grep, glob, list_directory and read_file over random trees and rules",
    { files, rules, calls: FastCheck.array(toolCall, { minLength: 1, maxLength: 8 }) },
    ({ calls, files, rules }) =>
      Effect.gen(function*() {
        const layout = files.map(([parts, kind], i) => {
          const { ext, prefix } = kinds[kind]!
          const path = [...parts, `${prefix}n${i}q${ext}`].join("/")
          return { path, name: `${prefix}n${i}q${ext}`, marker: `MARK${i}Z` }
        })
        const { root } = yield* workspace(
          Object.fromEntries(layout.map((file) => [file.path, `${file.marker}\n`])),
          { alias: "a" }
        )
        // Each rule of the pool is left out, denies or asks.
        const deny = rulePool.filter((_, i) => rules[i] === 1)
        const ask = rulePool.filter((_, i) => rules[i] === 2)
        const runtime = yield* engineRuntime(root, { deny, ask })
        const policy = yield* Policy.Policy.pipe(Effect.provide(engine(root, { deny, ask })))
        const refused = layout.filter((file) => policy.checkPath("read_file", NodePath.join(root, file.path), "read"))
        for (const [i, spec] of calls.entries()) {
          const named = spec.name === "read_file" ? layout[spec.file % layout.length]!.path : ""
          const input = spec.name === "read_file"
            ? { path: spec.viaAlias ? named.replace(/^a\//, "alias/") : named }
            : spec.name === "grep"
            ? { pattern: "MARK", path: spec.path, ...(spec.glob === undefined ? {} : { glob: spec.glob }) }
            : spec.name === "glob"
            ? { pattern: spec.pattern, path: spec.path }
            : { path: spec.path }
          const text = ToolResult.text(yield* runtime.runCall({ id: `c${i}`, name: spec.name, input }))
          const shown = `${spec.name} ${JSON.stringify(input)} with deny ${deny.join(" ")} ask ${
            ask.join(" ")
          }:\n${text}`
          for (const file of refused) {
            assert.notInclude(text, file.marker, shown)
            // A call that names the file knows its name; the ones that walk must not tell it.
            if (spec.name !== "read_file") assert.notInclude(text, file.name, shown)
          }
        }
      }),
    // 40 random workspaces with an engine each: 8 s, 20 s on a loaded machine.
    { timeout: 120_000, fastCheck: { numRuns: 40 } }
  )
})

/**
 * A path rule holds for the path as written and for the path after
 * symbolic links: a deny rule matching either denies, an allow rule must
 * match both (README, "Rules"; `RuleMatch.Target`). The same goes for where
 * the workspace ends: a link inside it that leads out of it is outside, for
 * the file tools and for the paths a command names or writes.
 *
 * Real links in a real temporary directory, followed by the real
 * `NodeFileSystem.layer`: the engine's own `candidates` walk, not a
 * stand-in.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { assert, describe, it } from "@effect/vitest"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Approver from "../src/Approver.js"
import * as Engine from "../src/Engine.js"
import type * as PermissionAudit from "../src/PermissionAudit.js"
import { type Outcome, outcomeOf } from "./EngineHarness.js"
import { bash, readFile, request, writeFile } from "./SampleTools.js"

/**
 * ```text
 * <root>/outside/f                      outside the workspace
 * <root>/ws/secrets/key
 * <root>/ws/src/a.ts
 * <root>/ws/.git/hooks/
 * <root>/ws/link       -> secrets        relative, into the denied tree
 * <root>/ws/abs-link   -> <root>/ws/secrets
 * <root>/ws/docs/deep  -> ../secrets     relative, climbing first
 * <root>/ws/chain      -> docs/deep      a link to a link
 * <root>/ws/alias      -> .
 * <root>/ws/src/out    -> ../../outside  out of an allowed tree, and of the workspace
 * <root>/ws/src-alias  -> src            the allowed tree under another name
 * <root>/ws/lout       -> ../outside
 * <root>/ws/hooks      -> .git/hooks     into a protected directory
 * ```
 */
const tree = Effect.acquireRelease(
  Effect.sync(() => {
    const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "permissions-links-")))
    const ws = `${root}/ws`
    for (const dir of [`${root}/outside`, `${ws}/secrets`, `${ws}/src`, `${ws}/docs`, `${ws}/.git/hooks`]) {
      NodeFs.mkdirSync(dir, { recursive: true })
    }
    NodeFs.writeFileSync(`${root}/outside/f`, "outside")
    NodeFs.writeFileSync(`${ws}/secrets/key`, "key")
    NodeFs.writeFileSync(`${ws}/src/a.ts`, "a")
    NodeFs.symlinkSync("secrets", `${ws}/link`)
    NodeFs.symlinkSync(`${ws}/secrets`, `${ws}/abs-link`)
    NodeFs.symlinkSync("../secrets", `${ws}/docs/deep`)
    NodeFs.symlinkSync("docs/deep", `${ws}/chain`)
    NodeFs.symlinkSync(".", `${ws}/alias`)
    NodeFs.symlinkSync("../../outside", `${ws}/src/out`)
    NodeFs.symlinkSync("src", `${ws}/src-alias`)
    NodeFs.symlinkSync("../outside", `${ws}/lout`)
    NodeFs.symlinkSync(".git/hooks", `${ws}/hooks`)
    return { root, ws }
  }),
  ({ root }) => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true }))
)

/** An engine over the real file system, with a person who always allows once. */
const engineAt = (config: Engine.Config) =>
  Effect.gen(function*() {
    const scripted = yield* Approver.makeScripted(() => Approver.allowOnce)
    const decisions = yield* Ref.make<ReadonlyArray<PermissionAudit.Decision>>([])
    const engine = yield* Engine.make({
      ...config,
      onDecision: (decision) => Ref.update(decisions, (all) => [...all, decision])
    }).pipe(
      Effect.provideService(Approver.Approver, scripted.service),
      Effect.provideService(Redactor.Redactor, Redactor.make()),
      Effect.provide(NodeFileSystem.layer)
    )
    const subject = { engine, prompts: scripted.prompts, decisions: Ref.get(decisions) }
    return {
      read: (path: string) => outcomeOf(subject, request(readFile, { path })),
      write: (path: string) => outcomeOf(subject, request(writeFile, { path, content: "x" })),
      run: (command: string) => outcomeOf(subject, request(bash, { command }))
    }
  })

type Probe = Effect.Effect.Success<ReturnType<typeof engineAt>>

/** Every row's outcome, so that one failure shows them all. */
const table = (
  probe: Probe,
  rows: ReadonlyArray<readonly [kind: "read" | "write" | "run", what: string, expected: Outcome]>
) =>
  Effect.gen(function*() {
    const wrong: Array<string> = []
    for (const [kind, what, expected] of rows) {
      const got = yield* probe[kind](what)
      if (got !== expected) wrong.push(`${kind} ${what}: ${got}, expected ${expected}`)
    }
    assert.deepStrictEqual(wrong, [])
  })

describe("path rules through symbolic links (real links, NodeFileSystem)", () => {
  it.scoped("a deny rule on a tree denies every link that leads into it: absolute, relative, climbing, chained", () =>
    Effect.gen(function*() {
      const { ws } = yield* tree
      // bypassPermissions: nothing but the deny rule stands between the call and the file.
      const probe = yield* engineAt({
        workspaceRoot: ws,
        mode: "bypassPermissions",
        deny: ["Read(./secrets/**)", "Edit(./secrets/**)"]
      })
      yield* table(probe, [
        ["read", "secrets/key", "deny:rule"],
        ["read", "link/key", "deny:rule"],
        ["read", "abs-link/key", "deny:rule"],
        ["read", "docs/deep/key", "deny:rule"],
        ["read", "chain/key", "deny:rule"],
        ["read", "alias/secrets/key", "deny:rule"],
        ["read", `${ws}/alias/link/key`, "deny:rule"],
        // A file not created yet resolves through the links above it.
        ["write", "link/new-file", "deny:rule"],
        ["write", "chain/new-file", "deny:rule"],
        ["run", "cat link/key", "deny:rule"],
        ["run", "cat chain/key", "deny:rule"],
        ["run", "cd docs && cat deep/key", "deny:rule"],
        ["run", "head -1 < abs-link/key", "deny:rule"],
        // The other paths run.
        ["read", "src/a.ts", "allow:mode"],
        ["read", "alias/src/a.ts", "allow:mode"],
        ["run", "cat src/a.ts", "allow:mode"]
      ])
    }))

  it.scoped("a redirection into a denied tree through a link is denied, as the file tools' write is", () =>
    Effect.gen(function*() {
      const { ws } = yield* tree
      for (const mode of ["bypassPermissions", "acceptEdits"] as const) {
        for (const deny of ["Edit(./secrets/**)", "Read(./secrets/**)"]) {
          const probe = yield* engineAt({ workspaceRoot: ws, mode, deny: [deny] })
          yield* table(probe, [
            ["write", "link/key", "deny:rule"],
            ["run", "echo x > secrets/key", "deny:rule"],
            ["run", "echo x > link/key", "deny:rule"],
            ["run", "echo x >> chain/key", "deny:rule"],
            ["run", "echo x > alias/secrets/key", "deny:rule"],
            ["run", "cd docs && echo x > deep/key", "deny:rule"]
          ])
        }
      }
    }))

  it.scoped("a deny rule that names the link denies the link and what lies under it", () =>
    Effect.gen(function*() {
      const { ws } = yield* tree
      const probe = yield* engineAt({ workspaceRoot: ws, mode: "bypassPermissions", deny: ["Read(./link/**)"] })
      yield* table(probe, [
        ["read", "link/key", "deny:rule"],
        ["read", "link", "deny:rule"],
        ["run", "cat link/key", "deny:rule"]
      ])
    }))

  it.scoped("an allow rule holds only where the path as written and the path after links both match", () =>
    Effect.gen(function*() {
      const { ws } = yield* tree
      const probe = yield* engineAt({ workspaceRoot: ws, allow: ["Edit(./src/**)"] })
      yield* table(probe, [
        ["write", "src/a.ts", "allow:rule"],
        ["write", "src/new.ts", "allow:rule"],
        // Written inside the allowed tree, but the link leads out of it (and out of the workspace).
        ["write", "src/out/f", "ask"],
        ["write", "src/out/new", "ask"],
        // After links inside the allowed tree, but not as written.
        ["write", "src-alias/a.ts", "ask"],
        ["run", "echo x > src/a.ts", "allow:rule"],
        ["run", "echo x > src/out/f", "ask"],
        ["run", "echo x > src/out/new", "ask"]
      ])
      // A rule that names the link: the path as written matches, where it leads does not.
      const named = yield* engineAt({ workspaceRoot: ws, allow: ["Edit(./src-alias/**)"] })
      yield* table(named, [
        ["write", "src-alias/a.ts", "ask"],
        // The call names the real path: the rule does not name it at all.
        ["write", "src/a.ts", "ask"],
        ["run", "echo x > src-alias/a.ts", "ask"]
      ])
    }))

  it.scoped("a link out of the workspace is outside it: reads ask in default, edits ask in acceptEdits", () =>
    Effect.gen(function*() {
      const { ws } = yield* tree
      const reads = yield* engineAt({ workspaceRoot: ws })
      yield* table(reads, [
        ["read", "src/a.ts", "allow:mode"],
        ["read", "lout/f", "ask"],
        ["read", "src/out/f", "ask"],
        ["run", "cat src/a.ts", "allow:rule"],
        ["run", "cat lout/f", "ask"],
        ["run", "head -1 src/out/f", "ask"],
        ["run", "cat < lout/f", "ask"],
        ["run", "cd src && cat out/f", "ask"]
      ])
      const edits = yield* engineAt({ workspaceRoot: ws, mode: "acceptEdits" })
      yield* table(edits, [
        ["write", "src/a.ts", "allow:mode"],
        ["write", "lout/f", "ask"],
        ["write", "src/out/new", "ask"],
        ["run", "touch src/new.ts", "allow:mode"],
        ["run", "echo x > src/new.ts", "allow:rule"],
        ["run", "touch lout/new", "ask"],
        ["run", "mkdir lout/d", "ask"],
        ["run", "cp src/a.ts lout/", "ask"],
        ["run", "rm lout/f", "ask"],
        ["run", "echo x > lout/f", "ask"],
        ["run", "echo x > src/out/new", "ask"],
        ["run", "cd src && touch out/new", "ask"]
      ])
    }))

  it.scoped("a link into a protected directory is protected: acceptEdits asks before writing through it", () =>
    Effect.gen(function*() {
      const { ws } = yield* tree
      const edits = yield* engineAt({ workspaceRoot: ws, mode: "acceptEdits" })
      yield* table(edits, [
        ["write", ".git/hooks/pre-commit", "ask"],
        ["write", "hooks/pre-commit", "ask"],
        ["run", "touch .git/hooks/pre-commit", "ask"],
        ["run", "touch hooks/pre-commit", "ask"],
        ["run", "cp src/a.ts hooks/pre-commit", "ask"],
        ["run", "echo x > hooks/pre-commit", "ask"]
      ])
    }))
})

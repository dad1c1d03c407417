/**
 * The permission engine with a real file system: path rules see the path a
 * call names and the path it leads to through symbolic links. A deny rule
 * matching either denies; an allow rule must match both. (Here because this
 * package depends on both `@tool-runtime/permissions` and
 * `@effect/platform-node`.)
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import { assert, layer } from "@effect/vitest"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Tool from "@tool-runtime/core/Tool"
import * as Approver from "@tool-runtime/permissions/Approver"
import * as Engine from "@tool-runtime/permissions/Engine"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"

const readFile = Tool.make("read_file", {
  description: "Reads a file.",
  parameters: { path: Schema.String },
  readOnly: true,
  subject: ({ path }) => ({ _tag: "Path", path, access: "read" }),
  handler: () => Effect.succeed("")
})

const tree = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const root = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "engine-links-" }))
  yield* fs.makeDirectory(`${root}/home/.ssh`, { recursive: true })
  yield* fs.makeDirectory(`${root}/project/secrets`, { recursive: true })
  yield* fs.makeDirectory(`${root}/project/src`, { recursive: true })
  yield* fs.writeFileString(`${root}/home/.ssh/id_rsa`, "key")
  yield* fs.writeFileString(`${root}/project/secrets/a`, "a")
  yield* fs.writeFileString(`${root}/project/src/a.ts`, "a")
  // project/key → ~/.ssh/id_rsa; project/link → secrets; project/src/key → ~/.ssh/id_rsa
  yield* fs.symlink(`${root}/home/.ssh/id_rsa`, `${root}/project/key`)
  yield* fs.symlink(`${root}/project/secrets`, `${root}/project/link`)
  yield* fs.symlink(`${root}/home/.ssh/id_rsa`, `${root}/project/src/key`)
  return root
})

/** allow, ask (no one answers) or deny, for a read of `path`. */
const decide = (root: string, config: Omit<Engine.Config, "workspaceRoot" | "homeDirectory">, path: string) =>
  Effect.gen(function*() {
    let asked = false
    const approver: Approver.Service = {
      ask: () =>
        Effect.sync(() => {
          asked = true
          return Approver.deny("no")
        })
    }
    const engine = yield* Engine.make({ workspaceRoot: `${root}/project`, homeDirectory: `${root}/home`, ...config })
      .pipe(
        Effect.provideService(Approver.Approver, approver),
        Effect.provideService(Redactor.Redactor, Redactor.make())
      )
    const exit = yield* Effect.exit(
      engine.authorize({
        callId: "c",
        tool: readFile,
        input: { path },
        subject: { _tag: "Path", path, access: "read" }
      })
    )
    return asked ? "ask" : Exit.isSuccess(exit) ? "allow" : "deny"
  })

layer(NodeFileSystem.layer)("Engine with symbolic links", (it) => {
  it.scoped("a deny rule on where a link leads denies the link", () =>
    Effect.gen(function*() {
      const root = yield* tree
      const bypass = { mode: "bypassPermissions" as const }
      assert.strictEqual(yield* decide(root, { ...bypass, deny: ["Read(~/.ssh/**)"] }, "key"), "deny")
      assert.strictEqual(yield* decide(root, { ...bypass, deny: ["Read(secrets/**)"] }, "link/a"), "deny")
      assert.strictEqual(yield* decide(root, { ...bypass, deny: ["Read(secrets/**)"] }, "src/a.ts"), "allow")
    }))

  it.scoped("an allow rule must cover the path and where it leads", () =>
    Effect.gen(function*() {
      const root = yield* tree
      const dontAsk = { mode: "dontAsk" as const, allow: ["Read(src/**)"] }
      assert.strictEqual(yield* decide(root, dontAsk, "src/a.ts"), "allow")
      // src/key is under src/, but it leads to ~/.ssh/id_rsa: outside the workspace, and not under src/.
      assert.strictEqual(yield* decide(root, dontAsk, "src/key"), "deny")
      assert.strictEqual(yield* decide(root, { allow: ["Read(src/**)"] }, "src/key"), "ask")
    }))
})

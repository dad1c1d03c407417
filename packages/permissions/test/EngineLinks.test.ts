/**
 * The engine follows symbolic links with the file system it is given: a
 * deny rule on where a link leads denies the link, for a path a file tool
 * names and for a path a command names. Real links in a temporary
 * directory. The engine that ignores links says so in its name.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { assert, describe, layer } from "@effect/vitest"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Approver from "../src/Approver.js"
import * as Engine from "../src/Engine.js"
import * as LinkFileSystem from "./LinkFileSystem.js"
import { bash, readFile, request } from "./SampleTools.js"

// project/secrets/key; project/link -> secrets; project/alias -> .
const tree = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const root = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "permissions-links-" }))
  yield* fs.makeDirectory(`${root}/project/secrets`, { recursive: true })
  yield* fs.writeFileString(`${root}/project/secrets/key`, "key")
  yield* fs.symlink(`${root}/project/secrets`, `${root}/project/link`)
  yield* fs.symlink(".", `${root}/project/alias`)
  return `${root}/project`
})

const outcome = (engine: Engine.Service, req: ReturnType<typeof request>) =>
  Effect.map(Effect.exit(engine.authorize(req)), (exit) => (Exit.isSuccess(exit) ? "allow" : "deny"))

const engineAt = (workspaceRoot: string, make: typeof Engine.make | typeof Engine.makeIgnoringSymlinks) =>
  make({ workspaceRoot, mode: "bypassPermissions", deny: ["Read(./secrets/**)"] }).pipe(
    Effect.provideService(Approver.Approver, { ask: () => Effect.succeed(Approver.allowOnce) }),
    Effect.provideService(Redactor.Redactor, Redactor.make())
  )

layer(LinkFileSystem.layer)("Engine with symbolic links", (it) => {
  describe("a deny rule on where a link leads denies the link", () => {
    it.scoped("for a path a file tool names", () =>
      Effect.gen(function*() {
        const ws = yield* tree
        const engine = yield* engineAt(ws, Engine.make)
        for (const path of ["secrets/key", "link/key", "alias/secrets/key", "alias/link/key", `${ws}/link/key`]) {
          assert.strictEqual(yield* outcome(engine, request(readFile, { path })), "deny", path)
        }
        assert.strictEqual(yield* outcome(engine, request(readFile, { path: "alias/other" })), "allow")
      }))

    it.scoped("for a path a command names", () =>
      Effect.gen(function*() {
        const ws = yield* tree
        const engine = yield* engineAt(ws, Engine.make)
        for (const command of ["cat link/key", "cat alias/secrets/key", "head -1 alias/link/key", "cat < link/key"]) {
          assert.strictEqual(yield* outcome(engine, request(bash, { command })), "deny", command)
        }
        const denied = yield* Effect.flip(engine.authorize(request(bash, { command: "cat link/key" })))
        assert.include(denied.reason, `which leads to ${ws}/secrets/key`)
        assert.strictEqual(yield* outcome(engine, request(bash, { command: "cat alias/other" })), "allow")
      }))
  })

  it.scoped("the engine that ignores links does not see them (what its name warns of)", () =>
    Effect.gen(function*() {
      const ws = yield* tree
      const engine = yield* engineAt(ws, Engine.makeIgnoringSymlinks)
      assert.strictEqual(yield* outcome(engine, request(readFile, { path: "link/key" })), "allow")
      assert.strictEqual(yield* outcome(engine, request(bash, { command: "cat alias/secrets/key" })), "allow")
      assert.strictEqual(yield* outcome(engine, request(bash, { command: "cat secrets/key" })), "deny")
    }))

  it.scoped("Engine.layer needs the file system (a layer without one does not type-check)", () =>
    Effect.gen(function*() {
      const ws = yield* tree
      const policy = Engine.layer({ workspaceRoot: ws, deny: ["Read(./secrets/**)"] })
      // @ts-expect-error: FileSystem is required
      const missing: Effect.Effect<unknown, unknown, never> = Effect.provide(Engine.Engine, policy).pipe(
        Effect.provideService(Approver.Approver, { ask: () => Effect.succeed(Approver.allowOnce) }),
        Effect.provideService(Redactor.Redactor, Redactor.make())
      )
      assert.isDefined(missing)
    }))
})

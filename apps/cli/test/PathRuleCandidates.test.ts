/**
 * `PathRule.candidates` against a real file system. It lives here because
 * this is the workspace package that depends on both
 * `@tool-runtime/permissions` and `@effect/platform-node`.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import { assert, layer } from "@effect/vitest"
import * as PathRule from "@tool-runtime/permissions/PathRule"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"

// A temporary tree with a project and a home directory, its real path so
// that a /tmp that is itself a link (macOS) does not blur the assertions.
const tree = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const root = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "path-rule-" }))
  yield* fs.makeDirectory(`${root}/home/.ssh`, { recursive: true })
  yield* fs.makeDirectory(`${root}/project/secrets`, { recursive: true })
  yield* fs.writeFileString(`${root}/home/.ssh/id_rsa`, "key")
  yield* fs.writeFileString(`${root}/project/secrets/a`, "a")
  return { fs, root }
})

layer(NodeFileSystem.layer)("PathRule.candidates", (it) => {
  it.scoped("gives the real path of a link to a file as well as the path as written", () =>
    Effect.gen(function*() {
      const { fs, root } = yield* tree
      yield* fs.symlink(`${root}/home/.ssh/id_rsa`, `${root}/project/key`)
      const found = yield* PathRule.candidates(`${root}/project/key`)
      assert.deepStrictEqual(found, [`${root}/project/key`, `${root}/home/.ssh/id_rsa`])
      // What the engine will do with them: a deny on either denies.
      const deny = Either.getOrThrow(
        PathRule.compile("~/.ssh/**", { projectRoot: `${root}/project`, homeDirectory: `${root}/home` })
      )
      assert.isTrue(found.some(deny.test))
    }))

  it.scoped("resolves a linked directory above the file, relative links included", () =>
    Effect.gen(function*() {
      const { fs, root } = yield* tree
      yield* fs.symlink("secrets", `${root}/project/link`)
      assert.deepStrictEqual(yield* PathRule.candidates(`${root}/project/link/a`), [
        `${root}/project/link/a`,
        `${root}/project/secrets/a`
      ])
    }))

  it.scoped("resolves a file not created yet through its linked ancestors", () =>
    Effect.gen(function*() {
      const { fs, root } = yield* tree
      yield* fs.symlink(`${root}/project/secrets`, `${root}/project/link`)
      assert.deepStrictEqual(yield* PathRule.candidates(`${root}/project/link/new/b.txt`), [
        `${root}/project/link/new/b.txt`,
        `${root}/project/secrets/new/b.txt`
      ])
    }))

  it.scoped("resolves a dangling link to its target, against the link's directory", () =>
    Effect.gen(function*() {
      const { fs, root } = yield* tree
      yield* fs.symlink("../home/.ssh/not-yet", `${root}/project/dangling`)
      assert.deepStrictEqual(yield* PathRule.candidates(`${root}/project/dangling`), [
        `${root}/project/dangling`,
        `${root}/home/.ssh/not-yet`
      ])
    }))

  it.scoped("follows .. after a link from the target, as the kernel does", () =>
    Effect.gen(function*() {
      const { fs, root } = yield* tree
      yield* fs.symlink(`${root}/home/.ssh`, `${root}/project/ssh`)
      const found = yield* PathRule.candidates(`${root}/project/ssh/../.bashrc`)
      assert.deepStrictEqual(found, [`${root}/project/.bashrc`, `${root}/home/.bashrc`])
    }))

  it.scoped("stops at a link loop instead of running forever", () =>
    Effect.gen(function*() {
      const { fs, root } = yield* tree
      yield* fs.symlink(`${root}/project/b`, `${root}/project/a`)
      yield* fs.symlink(`${root}/project/a`, `${root}/project/b`)
      const found = yield* PathRule.candidates(`${root}/project/a/x`)
      assert.strictEqual(found[0], `${root}/project/a/x`)
      assert.isAtMost(found.length, 2)
      assert.isTrue(found.every((path) => PathRule.isInside(path, `${root}/project`)))
    }))

  it.scoped("gives one path when nothing on it is a link", () =>
    Effect.gen(function*() {
      const { root } = yield* tree
      assert.deepStrictEqual(yield* PathRule.candidates(`${root}/project/secrets/a`), [`${root}/project/secrets/a`])
      assert.deepStrictEqual(yield* PathRule.candidates(`${root}/project/missing/x`), [`${root}/project/missing/x`])
    }))
})

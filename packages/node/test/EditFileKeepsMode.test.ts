/**
 * edit_file replaces a file's content, not the file's nature: an
 * executable script stays executable, a private file stays private, after
 * the atomic rename that puts the edited text in place.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as FileTools from "../src/FileTools.js"
import * as Workspace from "../src/Workspace.js"

const workspace = Effect.acquireRelease(
  Effect.sync(() => NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "tr-edit-mode-")))),
  (root) => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true }))
)

const editWithMode = (mode: number) =>
  Effect.gen(function*() {
    const root = yield* workspace
    const file = NodePath.join(root, "run.sh")
    NodeFs.writeFileSync(file, "#!/bin/sh\necho old\n")
    NodeFs.chmodSync(file, mode)
    const inode = NodeFs.statSync(file).ino
    const runtime = yield* ToolRuntime.ToolRuntime.pipe(
      Effect.provide(
        ToolRuntime.layer().pipe(
          Layer.provide(Registry.layer([FileTools.editFile()])),
          Layer.provide([
            ArtifactStore.layerMemory(),
            Redactor.layerDefault,
            Policy.layerAllowAll,
            Workspace.layer(root)
          ])
        )
      )
    )
    const result = yield* runtime.runCall({
      id: "c",
      name: "edit_file",
      input: { path: "run.sh", old_string: "echo old", new_string: "echo new" }
    }).pipe(
      Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("edit_file did not answer within 10 s") })
    )
    assert.isFalse(result.isError, ToolResult.text(result))
    const after = NodeFs.statSync(file)
    assert.strictEqual(NodeFs.readFileSync(file, "utf8"), "#!/bin/sh\necho new\n")
    // Replaced by a rename (a new inode), yet with the old mode.
    assert.notStrictEqual(after.ino, inode)
    return after.mode & 0o7777
  })

describe("edit_file keeps the file's mode", () => {
  it.scoped("an executable script stays executable", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* editWithMode(0o751)).toString(8), "751")
    }))

  it.scoped("a private file stays private", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* editWithMode(0o600)).toString(8), "600")
    }))
})

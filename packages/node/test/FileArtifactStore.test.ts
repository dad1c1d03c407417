import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import * as NFS from "node:fs/promises"
import * as OS from "node:os"
import * as NodePath from "node:path"
import * as FileArtifactStore from "../src/FileArtifactStore.js"

const scratch = Effect.acquireRelease(
  Effect.promise(async () => NFS.realpath(await NFS.mkdtemp(NodePath.join(OS.tmpdir(), "tr-artifacts-")))),
  (base) => Effect.promise(() => NFS.rm(base, { recursive: true, force: true }))
)

const storeIn = (directory: string) => FileArtifactStore.make({ directory }).pipe(Effect.provide(NodeFileSystem.layer))

const source = (callId: string) => ({ callId, toolName: "t" })

describe("FileArtifactStore", () => {
  it.scopedLive("stores each output in its own file in a session folder it creates", () =>
    Effect.gen(function*() {
      const base = yield* scratch
      const directory = NodePath.join(base, "session", "artifacts")
      const store = yield* storeIn(directory)
      const first = yield* store.put(source("call/1 ../x"), "hello world")
      const second = yield* store.put(source("call/1 ../x"), "again")
      // Nothing of the call id: the id is shown to the model, and a call id can hold anything.
      assert.match(first.id, /^out_[0-9a-z]{6}-1$/)
      assert.strictEqual(second.id, first.id.replace(/-1$/, "-2"))
      assert.strictEqual(first.location, NodePath.join(directory, `${first.id}.txt`))
      assert.strictEqual(first.length, 11)
      assert.deepStrictEqual((yield* Effect.promise(() => NFS.readdir(directory))).sort(), [
        `${first.id}.txt`,
        `${second.id}.txt`
      ])
      const mode = (yield* Effect.promise(() => NFS.stat(first.location))).mode & 0o777
      assert.strictEqual(mode, 0o600)
    }))

  it.scopedLive("reads by character offset, by id, artifact: id, or location", () =>
    Effect.gen(function*() {
      const base = yield* scratch
      const store = yield* storeIn(base)
      const artifact = yield* store.put(source("c"), "0123456789")
      assert.deepStrictEqual(yield* store.read(artifact.id, 3, 4), {
        text: "3456",
        offset: 3,
        length: 4,
        totalLength: 10
      })
      assert.strictEqual((yield* store.read(`artifact:${artifact.id}`, 8, 100)).text, "89")
      assert.strictEqual((yield* store.read(artifact.location, 0, 2)).text, "01")
      assert.strictEqual((yield* store.read(artifact.id, 50, 2)).text, "")
    }))

  it.scopedLive("never splits a surrogate pair", () =>
    Effect.gen(function*() {
      const base = yield* scratch
      const store = yield* storeIn(base)
      const artifact = yield* store.put(source("c"), "ab😀cd")
      // Offsets 2-3 are the two halves of the emoji.
      const start = yield* store.read(artifact.id, 3, 1)
      assert.deepStrictEqual([start.text, start.offset], ["😀", 2])
      const end = yield* store.read(artifact.id, 0, 3)
      assert.deepStrictEqual([end.text, end.length], ["ab😀", 4])
    }))

  it.scopedLive("refuses ids that try to leave the session folder", () =>
    Effect.gen(function*() {
      const base = yield* scratch
      const directory = NodePath.join(base, "session")
      yield* Effect.promise(() => NFS.writeFile(NodePath.join(base, "x-1.txt"), "CANARY outside the store"))
      const store = yield* storeIn(directory)
      for (
        const id of [
          "../x-1",
          "..",
          "a/b-1",
          "x-1/../../x-1",
          "artifact:../x-1",
          NodePath.join(base, "x-1.txt"),
          `${directory}/../x-1.txt`,
          "/etc/passwd",
          "x-1\u0000",
          ""
        ]
      ) {
        const error = yield* Effect.flip(store.read(id, 0, 100))
        assert.strictEqual(error._tag, "ArtifactError", id)
        assert.include(error.reason, "is not an id of a stored output", id)
      }
      const missing = yield* Effect.flip(store.read("nope-7", 0, 10))
      assert.strictEqual(missing.reason, "No stored output has the id \"nope-7\".")
      assert.notInclude(missing.reason, base)
    }))

  it.scopedLive("keeps outputs already in a reused folder", () =>
    Effect.gen(function*() {
      const base = yield* scratch
      // Two sessions that draw the same tag, on the same folder.
      const sameTag = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.withRandom(effect, Random.make("tag"))
      const earlier = yield* sameTag(storeIn(base))
      const old = yield* earlier.put(source("c"), "from an earlier session")
      const store = yield* sameTag(storeIn(base))
      const artifact = yield* store.put(source("c"), "new")
      assert.strictEqual(artifact.id, old.id.replace(/-1$/, "-2"))
      assert.strictEqual(yield* Effect.promise(() => NFS.readFile(old.location, "utf8")), "from an earlier session")
    }))

  it.scopedLive("keeps the truncation marker's promise: read_output pages a stored output from its file", () =>
    Effect.gen(function*() {
      const base = yield* scratch
      const full = Array.from({ length: 500 }, (_, i) => `row ${i}`).join("\n")
      const dump = Tool.make("dump", {
        description: "Prints a long table.",
        parameters: { rows: Schema.Int },
        readOnly: true,
        outputLimit: 1_000,
        handler: () => Effect.succeed(full)
      })
      const store = FileArtifactStore.layer({ directory: NodePath.join(base, "session") }).pipe(
        Layer.provide(NodeFileSystem.layer)
      )
      const runtime = yield* ToolRuntime.ToolRuntime.pipe(
        Effect.provide(
          ToolRuntime.layer({ previewChars: 200 }).pipe(
            Layer.provide(Registry.layer([dump, ArtifactStore.readTool])),
            Layer.provide([store, Redactor.layerDefault, Policy.layerAllowAll])
          )
        )
      )
      const truncated = yield* runtime.runCall({ id: "d1", name: "dump", input: { rows: 500 } })
      assert.strictEqual(truncated.meta.truncation?.originalLength, full.length)
      const location = truncated.meta.artifact!
      assert.strictEqual(NodePath.dirname(location), NodePath.join(base, "session"))
      assert.strictEqual(yield* Effect.promise(() => NFS.readFile(location, "utf8")), full)
      const id = NodePath.basename(location, ".txt")
      assert.include(ToolResult.text(truncated), `read more with read_output {"id": "${id}", "offset": 200}`)

      let offset = 200
      let collected = ToolResult.text(truncated).slice(0, 200)
      for (let page = 0; page < 10; page++) {
        const result = yield* runtime.runCall({
          id: `r${page}`,
          name: "read_output",
          input: { id, offset, length: 1_000 }
        })
        const text = ToolResult.text(result)
        const [header, ...body] = text.split("\n")
        collected += body.join("\n")
        if (header!.endsWith("this is the end]")) break
        offset = Number(/continue with offset (\d+)/.exec(header!)![1])
      }
      assert.strictEqual(collected, full)
    }))
})

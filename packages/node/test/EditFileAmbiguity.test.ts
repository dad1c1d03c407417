/**
 * edit_file replaces `old_string` only where it names one place: found
 * more than once (twice is enough, overlapping or at the very ends of the
 * file), the call fails, says how many times it was found, and leaves the
 * file byte for byte as it was; with `replace_all` every occurrence is
 * replaced.
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
  Effect.sync(() => NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "tr-edit-ambiguity-")))),
  (root) => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true }))
)

/** Writes `content` as `name` in a fresh workspace and runs one edit_file call on it. */
const edit = (content: string, input: { old_string: string; new_string: string; replace_all?: boolean }) =>
  Effect.gen(function*() {
    const root = yield* workspace
    const file = NodePath.join(root, "f.txt")
    NodeFs.writeFileSync(file, content)
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
    const result = yield* runtime.runCall({ id: "c", name: "edit_file", input: { path: "f.txt", ...input } }).pipe(
      Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("edit_file did not answer within 10 s") })
    )
    return { result, text: ToolResult.text(result), after: NodeFs.readFileSync(file, "utf8") }
  })

/** The call failed, said it found `times` matches, and changed nothing. */
const assertRefused = (
  outcome: { readonly result: ToolResult.ToolResult; readonly text: string; readonly after: string },
  before: string,
  times: number
) => {
  assert.isTrue(outcome.result.isError, outcome.text)
  assert.strictEqual(outcome.result.error?.code, "tool_failed")
  assert.include(outcome.text, `old_string was found ${times} times in f.txt`)
  assert.include(outcome.text, "replace_all")
  assert.strictEqual(outcome.after, before, "the file was changed")
}

describe("edit_file refuses an ambiguous old_string unless replace_all", () => {
  it.scoped("exactly two occurrences: refused, the file unchanged, the count said", () =>
    Effect.gen(function*() {
      const before = "x = 1\ny = 2\nx = 1\n"
      assertRefused(yield* edit(before, { old_string: "x = 1", new_string: "x = 9" }), before, 2)
    }))

  it.scoped("exactly two occurrences with replace_all: both replaced, and the result says two", () =>
    Effect.gen(function*() {
      const outcome = yield* edit("x = 1\ny = 2\nx = 1\n", {
        old_string: "x = 1",
        new_string: "x = 9",
        replace_all: true
      })
      assert.isFalse(outcome.result.isError, outcome.text)
      assert.strictEqual(outcome.after, "x = 9\ny = 2\nx = 9\n")
      assert.include(outcome.text, "replaced 2 occurrences")
    }))

  it.scoped("two occurrences at the very start and the very end of the file", () =>
    Effect.gen(function*() {
      const before = "MARK middle MARK"
      assertRefused(yield* edit(before, { old_string: "MARK", new_string: "NEW" }), before, 2)
      const all = yield* edit(before, { old_string: "MARK", new_string: "NEW", replace_all: true })
      assert.strictEqual(all.after, "NEW middle NEW")
      assert.include(all.text, "replaced 2 occurrences")
    }))

  it.scoped("two adjacent occurrences, nothing between them", () =>
    Effect.gen(function*() {
      const before = "abab"
      assertRefused(yield* edit(before, { old_string: "ab", new_string: "X" }), before, 2)
      assert.strictEqual((yield* edit(before, { old_string: "ab", new_string: "X", replace_all: true })).after, "XX")
    }))

  it.scoped("two overlapping occurrences (aa in aaa) are ambiguous too: either could be meant", () =>
    Effect.gen(function*() {
      assertRefused(yield* edit("aaa", { old_string: "aa", new_string: "b" }), "aaa", 2)
      // Closing braces: the same shape in code.
      const braces = "  }\n}\n}\n"
      assertRefused(yield* edit(braces, { old_string: "}\n}", new_string: "}" }), braces, 2)
      // replace_all replaces from the start, without overlaps, as String.replaceAll does.
      const all = yield* edit("aaa", { old_string: "aa", new_string: "b", replace_all: true })
      assert.isFalse(all.result.isError, all.text)
      assert.strictEqual(all.after, "aaa".replaceAll("aa", "b"))
    }))

  it.scoped("two occurrences found only once old_string is given the file's CRLF line endings", () =>
    Effect.gen(function*() {
      const before = "a\r\nb\r\nc\r\na\r\nb\r\n"
      assertRefused(yield* edit(before, { old_string: "a\nb", new_string: "z" }), before, 2)
      const all = yield* edit(before, { old_string: "a\nb", new_string: "z", replace_all: true })
      assert.strictEqual(all.after, "z\r\nc\r\nz\r\n")
    }))

  it.scoped("one occurrence, even beside a near miss, is replaced", () =>
    Effect.gen(function*() {
      const outcome = yield* edit("x = 1\nx = 10\n", { old_string: "x = 1\n", new_string: "x = 2\n" })
      assert.isFalse(outcome.result.isError, outcome.text)
      assert.strictEqual(outcome.after, "x = 2\nx = 10\n")
      assert.include(outcome.text, "replaced 1 occurrence.")
    }))
})

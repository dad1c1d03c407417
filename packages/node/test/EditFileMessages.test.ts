/**
 * What edit_file and write_file promise the model: the definitions it is
 * shown (descriptions that state the rules, `replace_all` false unless set,
 * neither tool read-only, a 30 s default limit), the messages a refused call
 * gets (empty or unchanged strings, a file over the size limit, a missing
 * directory, text not found), the excerpt an edit answers with (its line
 * range, CR kept inside a line but not at its end, long lines cut at 200),
 * the CRLF retry only when nothing matched, the line count write_file
 * reports, and the tool name each passes to `Policy.checkPath`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import type * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as FileTools from "../src/FileTools.js"
import * as Workspace from "../src/Workspace.js"

const workspace = Effect.acquireRelease(
  Effect.sync(() => NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "tr-edit-messages-")))),
  (root) => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true }))
)

/** Runs one call of `tool` in a fresh workspace holding `files`; `f.txt` is read back after. */
const run = (
  tool: Tool.Any,
  input: Record<string, unknown>,
  files: Record<string, string> = {},
  policy: Layer.Layer<Policy.Policy> = Policy.layerAllowAll
) =>
  Effect.gen(function*() {
    const root = yield* workspace
    for (const [name, content] of Object.entries(files)) {
      NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, name)), { recursive: true })
      NodeFs.writeFileSync(NodePath.join(root, name), content)
    }
    const runtime = yield* ToolRuntime.ToolRuntime.pipe(
      Effect.provide(
        ToolRuntime.layer().pipe(
          Layer.provide(Registry.layer([tool])),
          Layer.provide([ArtifactStore.layerMemory(), Redactor.layerDefault, policy, Workspace.layer(root)])
        )
      )
    )
    const result = yield* runtime.runCall({ id: "c", name: tool.name, input }).pipe(
      Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`${tool.name} did not answer in 10 s`) })
    )
    const path = NodePath.join(root, "f.txt")
    return {
      result,
      text: ToolResult.text(result),
      after: NodeFs.existsSync(path) && NodeFs.statSync(path).isFile() ? NodeFs.readFileSync(path, "utf8") : undefined
    }
  })

const edit = (
  content: string,
  input: { old_string: string; new_string: string; replace_all?: boolean },
  options?: FileTools.EditFileOptions
) => run(FileTools.editFile(options), { path: "f.txt", ...input }, { "f.txt": content })

/** The numbered lines of an edit's excerpt, as `[line, text]`. */
const excerptOf = (text: string): ReadonlyArray<readonly [number, string]> =>
  text.split("\n\n").slice(1).join("\n\n").split("\n").map((row) => {
    const tab = row.indexOf("\t")
    return [Number(row.slice(0, tab).trim()), row.slice(tab + 1)] as const
  })

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n"

const property = (tool: Tool.Any, name: string): { readonly description?: string } =>
  (tool.inputSchema as { properties: Record<string, { description?: string }> }).properties[name]!

describe("the definitions the model is shown", () => {
  it("edit_file states its rules: exact, once, replace_all, read first, write_file to create", () => {
    const tool = FileTools.editFile()
    assert.include(tool.description, "Replaces an exact piece of text")
    assert.include(tool.description, "exactly (whitespace and indentation included)")
    assert.include(tool.description, "occur once, unless replace_all is true")
    assert.include(tool.description, "Read the file first; to create a file, use write_file.")
    for (const name of ["path", "old_string", "new_string", "replace_all"]) {
      assert.isAbove(property(tool, name).description?.length ?? 0, 0, `${name} has no description`)
    }
    assert.include(property(tool, "new_string").description, "in its place")
  })

  it("replace_all is false when the call leaves it out", () => {
    const decoded = Schema.decodeUnknownSync(FileTools.editFile().parameters)({
      path: "f.txt",
      old_string: "a",
      new_string: "b"
    })
    assert.deepStrictEqual(decoded, { path: "f.txt", old_string: "a", new_string: "b", replace_all: false })
  })

  it("neither tool is read-only, both default to 30 s, and their options are honoured", () => {
    for (const make of [FileTools.editFile, FileTools.writeFile]) {
      assert.isFalse(make().readOnly)
      assert.strictEqual(make().timeoutMillis, 30_000)
      assert.isTrue(make({ readOnly: true }).readOnly)
      assert.strictEqual(make({ timeout: "5 seconds" }).timeoutMillis, 5_000)
    }
  })

  it("write_file says it writes a whole file and points to edit_file; both parameters are described", () => {
    const tool = FileTools.writeFile()
    assert.include(tool.description, "Writes a whole text file in the workspace")
    assert.include(tool.description, "creating missing parent directories")
    assert.include(tool.description, "To change part of a file, use edit_file instead.")
    assert.include(property(tool, "path").description, "The file to write")
    assert.include(property(tool, "content").description, "complete new content")
  })
})

describe("edit_file refusals", () => {
  it.scoped("an empty old_string", () =>
    Effect.gen(function*() {
      const outcome = yield* edit("a\n", { old_string: "", new_string: "b" })
      assert.isTrue(outcome.result.isError)
      assert.include(outcome.text, "old_string is empty")
    }))

  it.scoped("identical strings: says so and what to do", () =>
    Effect.gen(function*() {
      const outcome = yield* edit("a\n", { old_string: "a", new_string: "a" })
      assert.isTrue(outcome.result.isError)
      assert.include(outcome.text, "old_string and new_string are the same")
      assert.include(outcome.text, "Put the changed text in new_string.")
    }))

  it.scoped("a file of exactly maxBytes is edited; one byte more is refused with its size", () =>
    Effect.gen(function*() {
      const fits = yield* edit("0123456789", { old_string: "0", new_string: "x" }, { maxBytes: 10 })
      assert.isFalse(fits.result.isError, fits.text)
      assert.strictEqual(fits.after, "x123456789")
      const over = yield* edit("0123456789A", { old_string: "0", new_string: "x" }, { maxBytes: 10 })
      assert.isTrue(over.result.isError)
      assert.include(over.text, "f.txt is 11 bytes, more than edit_file handles (10)")
      assert.strictEqual(over.after, "0123456789A")
    }))

  it.scoped("a missing directory on the way is reported as no such file", () =>
    Effect.gen(function*() {
      const outcome = yield* run(FileTools.editFile(), { path: "gone/f.txt", old_string: "a", new_string: "b" })
      assert.isTrue(outcome.result.isError)
      assert.include(outcome.text, "no such file: gone/f.txt")
    }))

  it.scoped("text not found: says how to copy it", () =>
    Effect.gen(function*() {
      const outcome = yield* edit("a\n", { old_string: "zzz", new_string: "b" })
      assert.isTrue(outcome.result.isError)
      assert.include(outcome.text, "old_string was not found in f.txt")
      assert.include(outcome.text, "whitespace and indentation included, without line numbers")
    }))
})

describe("the excerpt an edit answers with", () => {
  it.scoped("a one-line edit shows two lines either side, no more", () =>
    Effect.gen(function*() {
      const outcome = yield* edit(lines(12), { old_string: "line 6", new_string: "six" })
      assert.isFalse(outcome.result.isError, outcome.text)
      assert.deepStrictEqual(excerptOf(outcome.text).map(([n]) => n), [4, 5, 6, 7, 8])
      assert.deepStrictEqual(excerptOf(outcome.text)[2], [6, "six"])
    }))

  it.scoped("a multi-line edit shows through its last line and two more", () =>
    Effect.gen(function*() {
      const outcome = yield* edit(lines(12), { old_string: "line 4\n", new_string: "a\nb\nc\n" })
      assert.isFalse(outcome.result.isError, outcome.text)
      assert.deepStrictEqual(excerptOf(outcome.text).map(([n]) => n), [2, 3, 4, 5, 6, 7, 8, 9])
    }))

  it.scoped("CRLF endings are not shown, a CR inside a line is kept", () =>
    Effect.gen(function*() {
      const outcome = yield* edit("one\r\ntw\ro\r\nthree\r\n", { old_string: "one", new_string: "ONE" })
      assert.isFalse(outcome.result.isError, outcome.text)
      assert.strictEqual(outcome.after, "ONE\r\ntw\ro\r\nthree\r\n")
      assert.deepStrictEqual(excerptOf(outcome.text).slice(0, 3), [[1, "ONE"], [2, "tw\ro"], [3, "three"]])
    }))

  it.scoped("a line of 200 characters is shown whole, a longer one cut at 200 with an ellipsis", () =>
    Effect.gen(function*() {
      const exact = "e".repeat(200)
      const long = "l".repeat(300)
      const outcome = yield* edit(`${exact}\nmid\n${long}\n`, { old_string: "mid", new_string: "MID" })
      assert.isFalse(outcome.result.isError, outcome.text)
      assert.deepStrictEqual(excerptOf(outcome.text).slice(0, 3), [[1, exact], [2, "MID"], [3, `${"l".repeat(200)}…`]])
    }))
})

describe("CRLF retry", () => {
  it.scoped("only when nothing matched: an LF match in a mixed file is edited as given", () =>
    Effect.gen(function*() {
      const outcome = yield* edit("x\ny\r\nz\r\n", { old_string: "x\ny", new_string: "X\nY" })
      assert.isFalse(outcome.result.isError, outcome.text)
      assert.strictEqual(outcome.after, "X\nY\r\nz\r\n")
    }))
})

describe("occurrences", () => {
  it("an empty needle occurs nowhere", () => {
    assert.deepStrictEqual(FileTools.occurrences("abc", ""), [])
    assert.deepStrictEqual(FileTools.occurrences("abcabc", "bc"), [1, 4])
  })
})

describe("write_file", () => {
  it.scoped("an empty file has no lines", () =>
    Effect.gen(function*() {
      const outcome = yield* run(FileTools.writeFile(), { path: "f.txt", content: "" })
      assert.isFalse(outcome.result.isError, outcome.text)
      assert.strictEqual(outcome.text, "Created f.txt (0 lines, 0 bytes).")
    }))
})

describe("the tool name put to Policy.checkPath", () => {
  const recording = (names: Array<string>) =>
    Layer.succeed(Policy.Policy, {
      authorize: () => Effect.succeed(Policy.allow),
      checkPath: (toolName) => {
        names.push(toolName)
        return undefined
      }
    })

  it.scoped("edit_file asks as edit_file, write_file as write_file", () =>
    Effect.gen(function*() {
      const names: Array<string> = []
      yield* run(
        FileTools.editFile(),
        { path: "f.txt", old_string: "a", new_string: "b" },
        { "f.txt": "a" },
        recording(names)
      )
      yield* run(FileTools.writeFile(), { path: "f.txt", content: "c" }, {}, recording(names))
      assert.isAbove(names.length, 1)
      assert.deepStrictEqual(new Set(names), new Set(["edit_file", "write_file"]))
      assert.strictEqual(names.at(-1), "write_file")
      assert.strictEqual(names[0], "edit_file")
    }))
})

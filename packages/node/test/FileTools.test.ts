import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as ResourceLocks from "@tool-runtime/core/ResourceLocks"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NFS from "node:fs/promises"
import * as OS from "node:os"
import * as NodePath from "node:path"
import * as FileTools from "../src/FileTools.js"
import * as Workspace from "../src/Workspace.js"

const CANARY = "CANARY-7f3a9c-outside-content"
const SECRET = "SIBLING-5e1b2d-secret-content"

interface Dirs {
  readonly base: string
  readonly ws: string
  readonly outside: string
}

/**
 * base/
 *   ws/          the workspace
 *   ws-evil/     a sibling sharing the workspace's prefix
 *   outside/     holds the canary, which no call may read or change
 */
const sandbox = Effect.acquireRelease(
  Effect.promise(async (): Promise<Dirs> => {
    const base = await NFS.realpath(await NFS.mkdtemp(NodePath.join(OS.tmpdir(), "tr-files-")))
    const ws = NodePath.join(base, "ws")
    const outside = NodePath.join(base, "outside")
    await NFS.mkdir(NodePath.join(ws, "sub"), { recursive: true })
    await NFS.mkdir(NodePath.join(base, "ws-evil"))
    await NFS.mkdir(outside)
    await NFS.writeFile(NodePath.join(outside, "canary.txt"), `${CANARY}\n`)
    await NFS.writeFile(NodePath.join(base, "ws-evil", "secret.txt"), `${SECRET}\n`)
    await NFS.writeFile(NodePath.join(ws, "a.txt"), "alpha\nbeta\ngamma\n")
    await NFS.symlink(outside, NodePath.join(ws, "link-out"))
    await NFS.symlink(NodePath.join(outside, "canary.txt"), NodePath.join(ws, "file-link"))
    await NFS.symlink(NodePath.join(outside, "created-by-link.txt"), NodePath.join(ws, "dangling-out"))
    await NFS.symlink(NodePath.join(outside, "no-dir"), NodePath.join(ws, "dangling-dir"))
    await NFS.symlink("sub/created.txt", NodePath.join(ws, "dangling-in"))
    await NFS.symlink("/proc/self/root", NodePath.join(ws, "proc-root"))
    await NFS.symlink("/proc/self/cwd", NodePath.join(ws, "proc-cwd"))
    return { base, ws, outside }
  }),
  ({ base }) => Effect.promise(() => NFS.rm(base, { recursive: true, force: true }))
)

const runtimeWith = (root: string, tools: ReadonlyArray<Tool.Any> = FileTools.all()) => {
  const store = ArtifactStore.layerMemory()
  return ToolRuntime.ToolRuntime.pipe(
    Effect.provide(
      ToolRuntime.layer().pipe(
        Layer.provide(Registry.layer(tools)),
        Layer.provide([store, Redactor.layerDefault, Policy.layerAllowAll, Workspace.layer(root), NodeFileSystem.layer])
      )
    )
  )
}

const call = (id: string, name: string, input: unknown) => ({ id, name, input })

const file = (...parts: ReadonlyArray<string>) => Effect.promise(() => NFS.readFile(NodePath.join(...parts), "utf8"))
const put = (path: string, content: string | Uint8Array) =>
  Effect.promise(async () => {
    await NFS.mkdir(NodePath.dirname(path), { recursive: true })
    await NFS.writeFile(path, content)
  })
const entries = (directory: string) => Effect.promise(() => NFS.readdir(directory))

/** Runs one call against a fresh sandbox's workspace. */
const run = (dirs: Dirs, name: string, input: unknown, tools?: ReadonlyArray<Tool.Any>) =>
  Effect.flatMap(runtimeWith(dirs.ws, tools), (runtime) => runtime.runCall(call("c", name, input)))

describe("compileGlob", () => {
  const matches = (pattern: string, path: string) => FileTools.compileGlob(pattern).test(path)

  it("matches within one name with * and ?", () => {
    assert.isTrue(matches("*.ts", "a.ts"))
    assert.isFalse(matches("*.ts", "src/a.ts"))
    assert.isFalse(matches("*.ts", "a.tsx"))
    assert.isTrue(matches("?.md", "a.md"))
    assert.isFalse(matches("?.md", "ab.md"))
    assert.isFalse(matches("a.ts", "aXts"))
  })

  it("matches any number of directories with **", () => {
    assert.isTrue(matches("**/*.ts", "a.ts"))
    assert.isTrue(matches("**/*.ts", "src/deep/a.ts"))
    assert.isTrue(matches("src/**", "src/a/b"))
    assert.isTrue(matches("src/**/test/*.ts", "src/test/a.ts"))
    assert.isTrue(matches("src/**/test/*.ts", "src/x/y/test/a.ts"))
    assert.isFalse(matches("src/**/test/*.ts", "lib/test/a.ts"))
  })

  it("matches alternatives, classes and escapes", () => {
    assert.isTrue(matches("*.{ts,tsx}", "a.tsx"))
    assert.isTrue(matches("{src,test}/**/*.{ts,js}", "test/a/b.js"))
    assert.isTrue(matches("{a,{b,c}}.txt", "c.txt"))
    assert.isFalse(matches("*.{ts,tsx}", "a.js"))
    assert.isTrue(matches("[ab].txt", "b.txt"))
    assert.isFalse(matches("[!ab].txt", "b.txt"))
    assert.isTrue(matches("[!ab].txt", "c.txt"))
    assert.isTrue(matches("\\*.txt", "*.txt"))
    assert.isFalse(matches("\\*.txt", "a.txt"))
    assert.isTrue(matches("a(1)+.txt", "a(1)+.txt"))
  })
})

describe("hasNestedQuantifier", () => {
  it("flags a repeated group that repeats inside", () => {
    for (const pattern of ["(a+)+", "(\\w+\\s?)*", "(a*){2,}", "(?:x+y)+", "(?<n>a+)+", "((ab)+c)*", "([a-z]+)*$"]) {
      assert.isTrue(FileTools.hasNestedQuantifier(pattern), pattern)
    }
  })

  it("lets ordinary patterns through", () => {
    for (
      const pattern of [
        "function\\s+load",
        "\\d+(\\.\\d+)?",
        "(foo|bar)+",
        "(a+)?",
        "[(a+)]+",
        "(?:ab)*",
        "\\(a+\\)+",
        "(?=a+)b",
        "x{2}(y)"
      ]
    ) {
      assert.isFalse(FileTools.hasNestedQuantifier(pattern), pattern)
    }
  })
})

describe("sniff", () => {
  const bytes = (...values: ReadonlyArray<number>) => new Uint8Array(values)

  it("names known formats and binary data", () => {
    assert.strictEqual(FileTools.sniff(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a)), "a PNG image")
    assert.strictEqual(FileTools.sniff(bytes(0x68, 0x00, 0x69)), "binary data")
    assert.strictEqual(FileTools.sniff(bytes(0x68, 0xff, 0xfe, 0x69)), "not UTF-8 text")
  })

  it("accepts UTF-8 text, even cut in the middle of a character", () => {
    const text = new TextEncoder().encode("héllo wörld €")
    assert.isUndefined(FileTools.sniff(text))
    assert.isUndefined(FileTools.sniff(text.subarray(0, text.length - 1)))
  })
})

describe("read_file", () => {
  it.scopedLive("numbers lines like cat -n and pages with offset and limit", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`)
      yield* put(NodePath.join(dirs.ws, "ten.txt"), `${lines.join("\r\n")}\r\n`)
      const all = yield* run(dirs, "read_file", { path: "ten.txt" })
      assert.isFalse(all.isError)
      assert.strictEqual(
        ToolResult.text(all),
        lines.map((line, i) => `${String(i + 1).padStart(6)}\t${line}`).join("\n")
      )
      const page = yield* run(dirs, "read_file", { path: "ten.txt", offset: 4, limit: 3 })
      assert.strictEqual(
        ToolResult.text(page),
        "     4\tline 4\n     5\tline 5\n     6\tline 6\n\n[Showing lines 4-6 of 10; continue with offset 7.]"
      )
    }))

  it.scopedLive("returns at most 2,000 lines by default", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      yield* put(
        NodePath.join(dirs.ws, "long.txt"),
        Array.from({ length: 2_500 }, (_, i) => `${i + 1}`).join("\n")
      )
      const result = yield* run(dirs, "read_file", { path: "long.txt" })
      const text = ToolResult.text(result)
      assert.include(text, "  2000\t2000\n")
      assert.notInclude(text, "\t2001")
      assert.include(text, "[Showing lines 1-2000 of 2,500; continue with offset 2001.]")
      const rest = ToolResult.text(yield* run(dirs, "read_file", { path: "long.txt", offset: 2001 }))
      assert.isTrue(rest.startsWith("  2001\t2001\n"))
      assert.isTrue(rest.endsWith("  2500\t2500"))
    }))

  it.scopedLive("stops counting lines of a huge file instead of reading all of it", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      yield* put(NodePath.join(dirs.ws, "huge.log"), "0123456789\n".repeat(100_000))
      const tools = [FileTools.readFile({ maxCountBytes: 1 })]
      const text = ToolResult.text(yield* run(dirs, "read_file", { path: "huge.log", limit: 2 }, tools))
      // Only the first 64 KiB chunk is read: 5,957 whole lines.
      assert.strictEqual(
        text,
        "     1\t0123456789\n     2\t0123456789\n\n" +
          "[Showing lines 1-2 of more than 5,957 (the file is 1,100,000 bytes); continue with offset 3.]"
      )
    }))

  // Whether the hole is read is counted, not timed: `rchar` of /proc/self/io is every byte this process
  // read, from any file, on any thread (Linux).
  describe.skipIf(process.platform !== "linux")(
    "a 10 GiB sparse file: 500 lines of text, then a hole of NUL bytes",
    () => {
      const sparse = (dirs: Dirs) =>
        Effect.gen(function*() {
          const path = NodePath.join(dirs.ws, "sparse.log")
          // Lines of 50 bytes: the text is more than the 8 KiB a file's kind is judged by.
          const text = Array.from({ length: 500 }, (_, i) => `${i + 1}`.padEnd(49, ".")).join("\n") + "\n"
          yield* put(path, text)
          yield* Effect.promise(() => NFS.truncate(path, 10 * 1024 ** 3))
          return text.length
        })

      const bytesRead = Effect.map(
        Effect.promise(() => NFS.readFile("/proc/self/io", "utf8")),
        (io) => Number(/^rchar: (\d+)$/m.exec(io)![1])
      )

      /** Runs a read and counts the bytes it read; the tool's own timeout (10 s) must not be what ends it. */
      const counted = (dirs: Dirs, input: unknown) =>
        Effect.gen(function*() {
          const before = yield* bytesRead
          const result = yield* run(dirs, "read_file", input)
          return { result, text: ToolResult.text(result), read: (yield* bytesRead) - before }
        })

      /** Far above the text and what a read around it takes, far below the hole. */
      const READ_BOUND = 64 * 1024 ** 2

      it.scopedLive("answers with the lines that exist, without reading the hole", () =>
        Effect.gen(function*() {
          const dirs = yield* sandbox
          const textBytes = yield* sparse(dirs)
          const { read, result, text } = yield* counted(dirs, { path: "sparse.log" })
          assert.isFalse(result.isError, text)
          assert.include(text, `   500\t500${".".repeat(46)}\n`)
          assert.include(text, `binary data from byte ${textBytes.toLocaleString("en-US")}`)
          assert.isBelow(read, READ_BOUND, "the hole is not read")
        }))

      it.scopedLive("an offset past the text fails without reading the hole, and says why", () =>
        Effect.gen(function*() {
          const dirs = yield* sandbox
          yield* sparse(dirs)
          const { read, result, text } = yield* counted(dirs, { path: "sparse.log", offset: 600 })
          assert.strictEqual(result.error?.code, "tool_failed")
          assert.include(text, "offset 600 is past the text of sparse.log, which has 500 lines, then binary data")
          assert.isBelow(read, READ_BOUND, "the hole is not read")
        }))
    }
  )

  it.scopedLive("stops looking for an offset after reading its byte bound", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      // One line of 4 MiB, no newline: the offset can never be reached within 1 MiB.
      yield* put(NodePath.join(dirs.ws, "one-line.txt"), "x".repeat(4 * 1024 * 1024))
      const tools = [FileTools.readFile({ maxScanBytes: 1024 * 1024 })]
      const past = yield* run(dirs, "read_file", { path: "one-line.txt", offset: 2 }, tools)
      assert.strictEqual(past.error?.code, "tool_failed")
      assert.include(ToolResult.text(past), "offset 2 was not reached in the first 1,048,576 bytes")
      const first = ToolResult.text(yield* run(dirs, "read_file", { path: "one-line.txt" }, tools))
      assert.isTrue(first.startsWith(`     1\t${"x".repeat(2_000)}… [line cut]`))
      assert.include(first, "of more than 1 (the file is 4,194,304 bytes)")
    }))

  it.scopedLive("cuts long lines and says so", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      yield* put(NodePath.join(dirs.ws, "wide.txt"), `short\n${"x".repeat(5_000)}\n${"é".repeat(3_000)}\n`)
      const text = ToolResult.text(yield* run(dirs, "read_file", { path: "wide.txt" }))
      const [first, second, third] = text.split("\n")
      assert.strictEqual(first, "     1\tshort")
      assert.strictEqual(second, `     2\t${"x".repeat(2_000)}… [line cut]`)
      assert.strictEqual(third, `     3\t${"é".repeat(2_000)}… [line cut]`)
      assert.include(text, "2 lines were longer than 2,000 characters and cut")
    }))

  it.scopedLive("summarizes a binary file instead of showing it", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const png = new Uint8Array([
        0x89,
        0x50,
        0x4e,
        0x47,
        0x0d,
        0x0a,
        0x1a,
        0x0a,
        0,
        0,
        0,
        0x0d,
        0x49,
        0x48,
        0x44,
        0x52
      ])
      yield* put(NodePath.join(dirs.ws, "image.png"), png)
      yield* put(NodePath.join(dirs.ws, "blob.bin"), new Uint8Array([0x41, 0x00, 0x42, 0x43]))
      const image = yield* run(dirs, "read_file", { path: "image.png" })
      assert.isFalse(image.isError)
      assert.strictEqual(ToolResult.text(image), "[image.png is a PNG image, 16 bytes; read_file shows text only.]")
      assert.strictEqual(
        ToolResult.text(yield* run(dirs, "read_file", { path: "blob.bin" })),
        "[blob.bin is binary data, 4 bytes; read_file shows text only.]"
      )
    }))

  it.scopedLive("fails clearly on a missing file, a directory and an offset past the end", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const missing = yield* run(dirs, "read_file", { path: "b.txt" })
      assert.strictEqual(missing.error?.code, "tool_failed")
      assert.include(ToolResult.text(missing), "no such file: b.txt (did you mean a.txt?)")
      const directory = yield* run(dirs, "read_file", { path: "sub" })
      assert.include(ToolResult.text(directory), "sub is a directory, not a file; use list_directory")
      const past = yield* run(dirs, "read_file", { path: "a.txt", offset: 9 })
      assert.include(ToolResult.text(past), "offset 9 is past the end of a.txt, which has 3 lines")
      const empty = yield* put(NodePath.join(dirs.ws, "empty.txt"), "").pipe(
        Effect.zipRight(run(dirs, "read_file", { path: "empty.txt" }))
      )
      assert.strictEqual(ToolResult.text(empty), "[empty.txt is empty.]")
    }))

  it.scopedLive("never shows host paths: errors name files relative to the workspace", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const results = yield* Effect.flatMap(runtimeWith(dirs.ws), (runtime) =>
        runtime.runTurn([
          call("1", "read_file", { path: NodePath.join(dirs.ws, "nope", "x.txt") }),
          call("2", "read_file", { path: NodePath.join(dirs.ws, "a.txt") }),
          call("3", "list_directory", { path: "a.txt" }),
          call("4", "edit_file", { path: "nope.txt", old_string: "a", new_string: "b" })
        ]))
      for (const result of results) assert.notInclude(ToolResult.text(result), dirs.base)
      assert.include(ToolResult.text(results[0]!), "no such file: nope/x.txt")
    }))
})

describe("write_file", () => {
  it.scopedLive("creates a file and its parent directories, leaving no temporary file", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const result = yield* run(dirs, "write_file", { path: "new/deep/notes.md", content: "one\ntwo\n" })
      assert.isFalse(result.isError)
      assert.strictEqual(ToolResult.text(result), "Created new/deep/notes.md (2 lines, 8 bytes).")
      assert.strictEqual(yield* file(dirs.ws, "new/deep/notes.md"), "one\ntwo\n")
      assert.deepStrictEqual(yield* entries(NodePath.join(dirs.ws, "new/deep")), ["notes.md"])
    }))

  it.scopedLive("replaces a file atomically and keeps its mode", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const script = NodePath.join(dirs.ws, "run.sh")
      yield* put(script, "#!/bin/sh\necho old\n")
      yield* Effect.promise(() => NFS.chmod(script, 0o751))
      const inode = (yield* Effect.promise(() => NFS.stat(script))).ino
      const result = yield* run(dirs, "write_file", { path: "run.sh", content: "#!/bin/sh\necho new\n" })
      assert.strictEqual(ToolResult.text(result), "Overwrote run.sh (2 lines, 19 bytes).")
      const after = yield* Effect.promise(() => NFS.stat(script))
      assert.strictEqual(after.mode & 0o777, 0o751)
      // A new inode: the content was renamed into place, not written over the old file.
      assert.notStrictEqual(after.ino, inode)
      assert.strictEqual(yield* file(script), "#!/bin/sh\necho new\n")
      assert.isFalse((yield* entries(dirs.ws)).some((name) => name.endsWith(".tmp")))
    }))

  it.scopedLive("writes through a dangling link whose target is inside", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const result = yield* run(dirs, "write_file", { path: "dangling-in", content: "via link" })
      assert.strictEqual(ToolResult.text(result), "Created sub/created.txt (1 line, 8 bytes).")
      assert.strictEqual(yield* file(dirs.ws, "sub", "created.txt"), "via link")
    }))

  it.scopedLive("refuses to replace a directory", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const result = yield* run(dirs, "write_file", { path: "sub", content: "x" })
      assert.strictEqual(result.error?.code, "tool_failed")
      assert.include(ToolResult.text(result), "sub exists and is not a regular file")
    }))
})

describe("edit_file", () => {
  it.scopedLive("replaces one exact occurrence, taking the new text literally", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const result = yield* run(dirs, "edit_file", { path: "a.txt", old_string: "beta", new_string: "$& and $1" })
      assert.isFalse(result.isError)
      assert.strictEqual(yield* file(dirs.ws, "a.txt"), "alpha\n$& and $1\ngamma\n")
      assert.strictEqual(
        ToolResult.text(result),
        "Edited a.txt: replaced 1 occurrence.\n\n     1\talpha\n     2\t$& and $1\n     3\tgamma\n     4\t"
      )
    }))

  it.scopedLive("fails clearly when old_string is missing or not unique, and changes nothing", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      yield* put(NodePath.join(dirs.ws, "dup.txt"), "x = 1\nx = 1\nx = 1\n")
      const missing = yield* run(dirs, "edit_file", { path: "dup.txt", old_string: "y = 1", new_string: "y = 2" })
      assert.strictEqual(missing.error?.code, "tool_failed")
      assert.include(
        ToolResult.text(missing),
        "old_string was not found in dup.txt; read the file again, it may have changed"
      )
      const ambiguous = yield* run(dirs, "edit_file", { path: "dup.txt", old_string: "x = 1", new_string: "x = 2" })
      assert.include(
        ToolResult.text(ambiguous),
        "old_string was found 3 times in dup.txt; add surrounding lines to make it unique, or set replace_all"
      )
      assert.strictEqual(yield* file(dirs.ws, "dup.txt"), "x = 1\nx = 1\nx = 1\n")
      const all = yield* run(dirs, "edit_file", {
        path: "dup.txt",
        old_string: "x = 1",
        new_string: "x = 2",
        replace_all: true
      })
      assert.include(ToolResult.text(all), "replaced 3 occurrences")
      assert.strictEqual(yield* file(dirs.ws, "dup.txt"), "x = 2\nx = 2\nx = 2\n")
    }))

  it.scopedLive("refuses an empty or unchanged old_string as a rule violation", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const empty = yield* run(dirs, "edit_file", { path: "a.txt", old_string: "", new_string: "x" })
      assert.strictEqual(empty.error?.code, "rule_violation")
      assert.include(empty.error?.hint ?? "", "write_file")
      const same = yield* run(dirs, "edit_file", { path: "a.txt", old_string: "beta", new_string: "beta" })
      assert.strictEqual(same.error?.code, "rule_violation")
    }))

  it.scopedLive("edits CRLF files with LF old_string, keeps a BOM, refuses non-UTF-8", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      yield* put(NodePath.join(dirs.ws, "win.txt"), "\uFEFFone\r\ntwo\r\nthree\r\n")
      const result = yield* run(dirs, "edit_file", { path: "win.txt", old_string: "one\ntwo", new_string: "1\n2" })
      assert.isFalse(result.isError, ToolResult.text(result))
      assert.strictEqual(yield* file(dirs.ws, "win.txt"), "\uFEFF1\r\n2\r\nthree\r\n")
      yield* put(NodePath.join(dirs.ws, "latin1.txt"), new Uint8Array([0x63, 0x61, 0x66, 0xe9]))
      const latin1 = yield* run(dirs, "edit_file", { path: "latin1.txt", old_string: "caf", new_string: "tea" })
      assert.include(ToolResult.text(latin1), "latin1.txt is not UTF-8 text")
    }))
})

describe("hard links", () => {
  it.scopedLive("a file with several names (pnpm's store) is read and edited; the edit replaces only this name", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const store = NodePath.join(dirs.ws, "store", "index.js")
      const linked = NodePath.join(dirs.ws, "node_modules", "pkg", "index.js")
      yield* put(store, "export const version = 1\n")
      yield* Effect.promise(async () => {
        await NFS.mkdir(NodePath.dirname(linked), { recursive: true })
        await NFS.link(store, linked)
      })
      assert.strictEqual((yield* Effect.promise(() => NFS.stat(linked))).nlink, 2)
      const read = yield* run(dirs, "read_file", { path: "node_modules/pkg/index.js" })
      assert.strictEqual(ToolResult.text(read), "     1\texport const version = 1")
      const edited = yield* run(dirs, "edit_file", {
        path: "node_modules/pkg/index.js",
        old_string: "version = 1",
        new_string: "version = 2"
      })
      assert.isFalse(edited.isError, ToolResult.text(edited))
      assert.strictEqual(yield* file(linked), "export const version = 2\n")
      // A rename gives the edited name a new inode: the store's copy is not written through.
      assert.strictEqual(yield* file(store), "export const version = 1\n")
    }))
})

describe("list_directory", () => {
  it.scopedLive("lists directories first, marks links, and does not follow them", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const root = ToolResult.text(yield* run(dirs, "list_directory", {}))
      assert.strictEqual(
        root,
        [
          "The workspace root holds 9 entries:",
          "sub/",
          "a.txt",
          "dangling-dir@",
          "dangling-in@",
          "dangling-out@",
          "file-link@",
          "link-out@",
          "proc-cwd@",
          "proc-root@"
        ].join("\n")
      )
      yield* put(NodePath.join(dirs.ws, "sub", "x.txt"), "x")
      assert.strictEqual(
        ToolResult.text(yield* run(dirs, "list_directory", { path: "sub" })),
        "sub holds 1 entry:\nx.txt"
      )
    }))
})

describe("glob", () => {
  it.scopedLive("finds paths by pattern, relative to the workspace, skipping node_modules and .git", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      for (const path of ["src/a.ts", "src/b.tsx", "src/deep/c.ts", "src/d.js", "node_modules/m/x.ts", ".git/h.ts"]) {
        yield* put(NodePath.join(dirs.ws, path), "export {}\n")
      }
      const runtime = yield* runtimeWith(dirs.ws)
      const [all, top, under, modules, none] = yield* runtime.runTurn([
        call("1", "glob", { pattern: "**/*.{ts,tsx}" }),
        call("2", "glob", { pattern: "*.ts", path: "src" }),
        call("3", "glob", { pattern: "deep/*", path: "src" }),
        call("4", "glob", { pattern: "node_modules/**/*.ts" }),
        call("5", "glob", { pattern: "*.py" })
      ])
      assert.strictEqual(
        ToolResult.text(all!),
        "src/a.ts\nsrc/b.tsx\nsrc/deep/c.ts\n\n[Not searched: .git, node_modules (name them in the pattern to include them).]"
      )
      assert.strictEqual(ToolResult.text(top!), "src/a.ts")
      assert.strictEqual(ToolResult.text(under!), "src/deep/c.ts")
      assert.include(ToolResult.text(modules!), "node_modules/m/x.ts")
      assert.strictEqual(ToolResult.text(none!), "No paths under . match \"*.py\".")
    }))

  it.scopedLive("refuses patterns that climb out, and does not follow links", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const climb = yield* run(dirs, "glob", { pattern: "../outside/*" })
      assert.strictEqual(climb.error?.code, "rule_violation")
      const absolute = yield* run(dirs, "glob", { pattern: `${dirs.outside}/*` })
      assert.strictEqual(absolute.error?.code, "rule_violation")
      const everything = ToolResult.text(yield* run(dirs, "glob", { pattern: "**" }))
      assert.include(everything, "link-out")
      assert.notInclude(everything, "canary")
    }))
})

describe("grep", () => {
  it.scopedLive("returns matching lines with paths and line numbers, filtered by glob", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      yield* put(NodePath.join(dirs.ws, "src/a.ts"), "const load = 1\nfunction Load() {}\n")
      yield* put(NodePath.join(dirs.ws, "src/b.md"), "load the docs\n")
      yield* put(NodePath.join(dirs.ws, "src/c.bin"), new Uint8Array([0x6c, 0x6f, 0x61, 0x64, 0x00]))
      const runtime = yield* runtimeWith(dirs.ws)
      const [plain, filtered, caseless, one] = yield* runtime.runTurn([
        call("1", "grep", { pattern: "load" }),
        call("2", "grep", { pattern: "load", glob: "*.ts" }),
        call("3", "grep", { pattern: "^function\\s+load", ignore_case: true, path: "src" }),
        call("4", "grep", { pattern: "load", path: "src/a.ts" })
      ])
      assert.strictEqual(ToolResult.text(plain!), "src/a.ts:1:const load = 1\nsrc/b.md:1:load the docs")
      assert.strictEqual(ToolResult.text(filtered!), "src/a.ts:1:const load = 1")
      assert.strictEqual(ToolResult.text(caseless!), "src/a.ts:2:function Load() {}")
      assert.strictEqual(ToolResult.text(one!), "src/a.ts:1:const load = 1")
    }))

  it.scopedLive("caps matches and bounds the work", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      yield* put(NodePath.join(dirs.ws, "many.txt"), "hit\n".repeat(50))
      yield* put(NodePath.join(dirs.ws, "wide.txt"), `${"a".repeat(3_000)}needle\n`)
      yield* put(NodePath.join(dirs.ws, "big.txt"), "needle\n".repeat(10))
      // Of a.txt (17 bytes), big.txt (70), many.txt (200) and wide.txt (3,007), only a.txt is read.
      const tools = [FileTools.grep({ maxFileBytes: 60 })]
      const capped = yield* run(dirs, "grep", { pattern: "hit", max_matches: 5, path: "many.txt" })
      assert.strictEqual(ToolResult.text(capped).split("\n").filter((line) => line.startsWith("many.txt:")).length, 5)
      assert.include(ToolResult.text(capped), "[Stopped at 5 matches")
      const wide = ToolResult.text(yield* run(dirs, "grep", { pattern: "needle", path: "wide.txt" }))
      assert.include(wide, "No lines under wide.txt match /needle/.")
      assert.include(wide, "1 line was searched only in their first 2,000 characters")
      const big = ToolResult.text(yield* run(dirs, "grep", { pattern: "needle" }, tools))
      assert.include(big, "No lines under . match /needle/.")
      assert.include(big, "[Skipped 3 files larger than 60 bytes.]")
    }))

  it.scopedLive("refuses catastrophic and invalid patterns as rule violations", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const runtime = yield* runtimeWith(dirs.ws)
      const [nested, invalid] = yield* runtime.runTurn([
        call("1", "grep", { pattern: "(a+)+$" }),
        call("2", "grep", { pattern: "(unclosed" })
      ])
      assert.strictEqual(nested!.error?.code, "rule_violation")
      assert.include(ToolResult.text(nested!), "exponential time")
      assert.strictEqual(invalid!.error?.code, "rule_violation")
      assert.include(ToolResult.text(invalid!), "not a valid JavaScript regular expression")
    }))
})

// ---------------------------------------------------------------------------
// path escapes: every trick, through the real runtime, for every file tool
// ---------------------------------------------------------------------------

interface Trick {
  readonly name: string
  readonly path: (dirs: Dirs) => string
  readonly linux?: boolean
}

const tricks: ReadonlyArray<Trick> = [
  { name: "a relative path that climbs out", path: () => "../outside/canary.txt" },
  { name: "a climb that starts inside", path: () => "sub/../../outside/canary.txt" },
  { name: "an absolute path outside", path: ({ outside }) => NodePath.join(outside, "canary.txt") },
  { name: "a sibling sharing the prefix", path: ({ base }) => NodePath.join(base, "ws-evil", "secret.txt") },
  { name: "a relative sibling sharing the prefix", path: () => "../ws-evil/secret.txt" },
  { name: "/proc/self/root", path: ({ outside }) => `/proc/self/root${outside}/canary.txt`, linux: true },
  { name: "/proc/<pid>/root", path: ({ outside }) => `/proc/${process.pid}/root${outside}/canary.txt`, linux: true },
  { name: "/proc/self/cwd", path: () => "/proc/self/cwd/package.json", linux: true },
  { name: "a link to /proc/self/root", path: ({ outside }) => `proc-root${outside}/canary.txt`, linux: true },
  { name: "a link to /proc/self/cwd", path: () => "proc-cwd/package.json", linux: true },
  { name: "a symlinked directory", path: () => "link-out/canary.txt" },
  { name: "a new file in a symlinked directory", path: () => "link-out/created-by-link.txt" },
  { name: "a symlinked file", path: () => "file-link" },
  { name: "a dangling symlink", path: () => "dangling-out" },
  { name: "a dangling symlink to a directory", path: () => "dangling-dir/x.txt" },
  { name: "a NUL byte", path: () => "a.txt\u0000/../../outside/canary.txt" },
  { name: "an empty path", path: () => "" },
  { name: "a blank path", path: () => "   " }
]

/** Each tool, aimed at `path`, trying to read or change it. */
const attempts = (path: string) => [
  call("read", "read_file", { path }),
  call("write", "write_file", { path, content: "PWNED" }),
  call("edit", "edit_file", { path, old_string: CANARY, new_string: "PWNED" }),
  call("edit-secret", "edit_file", { path, old_string: SECRET, new_string: "PWNED" }),
  call("list", "list_directory", { path }),
  call("glob", "glob", { pattern: "**", path }),
  call("grep", "grep", { pattern: "CANARY|SIBLING|tool-runtime", path })
]

const snapshot = (dirs: Dirs) =>
  Effect.promise(async () => ({
    outside: (await NFS.readdir(dirs.outside)).sort(),
    canary: await NFS.readFile(NodePath.join(dirs.outside, "canary.txt"), "utf8"),
    secret: await NFS.readFile(NodePath.join(dirs.base, "ws-evil", "secret.txt"), "utf8"),
    siblings: (await NFS.readdir(dirs.base)).sort()
  }))

describe("path escapes", () => {
  for (const trick of tricks) {
    it.scopedLive.skipIf(trick.linux === true && process.platform !== "linux")(
      `${trick.name}: every tool returns a rule violation and nothing outside is read or written`,
      () =>
        Effect.gen(function*() {
          const dirs = yield* sandbox
          const before = yield* snapshot(dirs)
          const runtime = yield* runtimeWith(dirs.ws)
          const results = yield* runtime.runTurn(attempts(trick.path(dirs)))
          for (const result of results) {
            const text = ToolResult.text(result)
            assert.isTrue(result.isError, `${result.callId}: ${text}`)
            assert.strictEqual(result.error?.code, "rule_violation", `${result.callId}: ${text}`)
            assert.notInclude(text, CANARY)
            assert.notInclude(text, SECRET)
            assert.notInclude(text, "\"name\": \"tool-runtime\"")
          }
          assert.deepStrictEqual(yield* snapshot(dirs), before)
        })
    )
  }

  it.scopedLive("searches from the root never reach outside through links", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const before = yield* snapshot(dirs)
      const runtime = yield* runtimeWith(dirs.ws)
      const results = yield* runtime.runTurn([
        call("grep", "grep", { pattern: "CANARY|SIBLING" }),
        call("glob", "glob", { pattern: "**/*canary*" }),
        call("list", "list_directory", { path: "." })
      ])
      for (const result of results) {
        assert.isFalse(result.isError, ToolResult.text(result))
        assert.notInclude(ToolResult.text(result), CANARY)
        assert.notInclude(ToolResult.text(result), "canary.txt")
      }
      assert.deepStrictEqual(yield* snapshot(dirs), before)
    }))
})

// ---------------------------------------------------------------------------
// concurrency by resource
// ---------------------------------------------------------------------------

describe("concurrent edits", () => {
  it.scopedLive("a call whose path is re-pointed while it waits for its lock refuses to run", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      yield* put(NodePath.join(dirs.ws, "d1", "x.txt"), "one\n")
      yield* put(NodePath.join(dirs.ws, "d2", "x.txt"), "one\n")
      const link = NodePath.join(dirs.ws, "current")
      yield* Effect.promise(() => NFS.symlink("d1", link))
      // Holds d1/x.txt's lock, then re-points the link, as a concurrent shell command could.
      const swap = Tool.make("swap", {
        description: "re-points the link",
        parameters: {},
        readOnly: true,
        resources: () => [ResourceLocks.writes(Workspace.fileKey(NodePath.join(dirs.ws, "d1", "x.txt")))],
        handler: () =>
          Effect.zipRight(
            Effect.sleep("100 millis"),
            Effect.promise(async () => {
              await NFS.rm(link)
              await NFS.symlink("d2", link)
            })
          )
      })
      const runtime = yield* runtimeWith(dirs.ws, [swap, FileTools.editFile({ readOnly: true })])
      const [swapped, edited] = yield* runtime.runTurn([
        call("1", "swap", {}),
        call("2", "edit_file", { path: "current/x.txt", old_string: "one", new_string: "two" })
      ])
      assert.isFalse(swapped!.isError)
      assert.strictEqual(edited!.error?.code, "tool_failed")
      assert.include(ToolResult.text(edited!), "led to another file when the call ran than when it was checked")
      assert.strictEqual(yield* file(dirs.ws, "d1", "x.txt"), "one\n")
      assert.strictEqual(yield* file(dirs.ws, "d2", "x.txt"), "one\n")
    }))

  const tokens = Array.from({ length: 16 }, (_, i) => `token-${String(i).padStart(2, "0")}`)

  it.scopedLive("two edits of one file in one turn both land", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      const runtime = yield* runtimeWith(dirs.ws)
      const results = yield* runtime.runTurn([
        call("1", "edit_file", { path: "a.txt", old_string: "alpha", new_string: "ALPHA" }),
        call("2", "edit_file", { path: "a.txt", old_string: "gamma", new_string: "GAMMA" })
      ])
      assert.isTrue(results.every((result) => !result.isError))
      assert.strictEqual(yield* file(dirs.ws, "a.txt"), "ALPHA\nbeta\nGAMMA\n")
    }))

  it.scopedLive("edits marked read-only by mistake run as one batch, yet none is lost, even through a link", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      yield* put(NodePath.join(dirs.ws, "shared.txt"), tokens.map((token) => `${token}\n`).join(""))
      yield* Effect.promise(() => NFS.symlink("shared.txt", NodePath.join(dirs.ws, "alias.txt")))
      const tools = [FileTools.editFile({ readOnly: true }), FileTools.readFile()]
      const runtime = yield* runtimeWith(dirs.ws, tools)
      const calls = tokens.map((token, i) =>
        call(`e${i}`, "edit_file", {
          // Half of them name the file through a link: the lock key is the real path.
          path: i % 2 === 0 ? "shared.txt" : "alias.txt",
          old_string: token,
          new_string: token.toUpperCase()
        })
      )
      // The scheduler would run them all at once; only the file's lock keeps them apart.
      assert.deepStrictEqual(runtime.plan(calls).map((batch) => batch.concurrent), [true])
      const results = yield* runtime.runTurn(calls, { concurrency: tokens.length })
      assert.isTrue(results.every((result) => !result.isError), results.map(ToolResult.text).join("\n"))
      assert.strictEqual(yield* file(dirs.ws, "shared.txt"), tokens.map((token) => `${token.toUpperCase()}\n`).join(""))
    }))
})

describe("permission subjects", () => {
  it.scoped("each tool names its path after links, with read or write access, for rules such as Read(.env)", () =>
    Effect.gen(function*() {
      const dirs = yield* sandbox
      yield* put(NodePath.join(dirs.ws, ".env"), "TOKEN=1\n")
      yield* Effect.promise(() => NFS.symlink(".env", NodePath.join(dirs.ws, "innocent.txt")))
      const seen: Array<Policy.Subject> = []
      const envPath = NodePath.join(dirs.ws, ".env")
      // A policy that records what it is asked about, and denies the real .env.
      const recording = Layer.succeed(Policy.Policy, {
        checkPath: () => undefined,
        authorize: (request) => {
          seen.push(request.subject)
          return request.subject._tag === "Path" && request.subject.path === envPath
            ? Effect.fail(
              new ToolError.PermissionDenied({
                toolName: request.tool.name,
                reason: "the .env file",
                decidedBy: "test"
              })
            )
            : Effect.succeed({ _tag: "Allow" as const })
        }
      })
      const store = ArtifactStore.layerMemory()
      const runtime = yield* ToolRuntime.ToolRuntime.pipe(
        Effect.provide(
          ToolRuntime.layer().pipe(
            Layer.provide(Registry.layer(FileTools.all())),
            Layer.provide([store, Redactor.layerDefault, recording, Workspace.layer(dirs.ws), NodeFileSystem.layer])
          )
        )
      )
      const results = yield* runtime.runTurn([
        call("1", "read_file", { path: "innocent.txt" }),
        call("2", "edit_file", { path: "innocent.txt", old_string: "1", new_string: "2" }),
        call("3", "write_file", { path: "sub/new.txt", content: "x" }),
        call("4", "list_directory", { path: "sub" }),
        call("5", "glob", { pattern: "*.txt" }),
        call("6", "grep", { pattern: "alpha", path: "a.txt" })
      ])
      assert.deepStrictEqual(results.map((result) => result.error?.code), [
        "permission_denied",
        "permission_denied",
        undefined,
        undefined,
        undefined,
        undefined
      ])
      assert.deepStrictEqual(seen.slice(0, 3), [
        { _tag: "Path", path: envPath, access: "read" },
        { _tag: "Path", path: envPath, access: "write" },
        { _tag: "Path", path: NodePath.join(dirs.ws, "sub", "new.txt"), access: "write" }
      ])
      // The last three are read-only and run together: asked about in whatever order they start.
      assert.deepInclude(seen.slice(3), { _tag: "Path", path: NodePath.join(dirs.ws, "sub"), access: "read" })
      assert.strictEqual(yield* file(dirs.ws, ".env"), "TOKEN=1\n")
    }))
})

/**
 * A relative symbolic link names a path from the directory that holds it,
 * as the kernel reads it: `a/b/link -> ../c/target` is `a/c/target`, never
 * `<root>/../c/target`. Every walk that meets a link (`PathWalk`'s, the
 * workspace's resolution of a path that does not exist yet, the file tools
 * on top of both) must follow it from there, and refuse it exactly when
 * what it really names is outside the workspace (or denied).
 *
 * The links here are built so that reading them from the wrong directory
 * gives a different answer: another file inside, a path outside, or, for
 * one that really leaves, a path that would be inside.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NFS from "node:fs/promises"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as FileTools from "../src/FileTools.js"
import * as PathWalk from "../src/PathWalk.js"
import * as Workspace from "../src/Workspace.js"

const OUTSIDE = "OUTSIDE-9c2e4a-must-not-be-read"

/**
 * base/
 *   outside/canary.txt                 not the workspace's
 *   ws/                                the workspace
 *     target.txt        "ROOT"         where `same` would go if read from the root
 *     c/target.txt      "TOP-C"
 *     secret/key.txt                   denied by the path policy below
 *     x.txt             "INSIDE-X"
 *     a/c/target.txt    "SIBLING-C"
 *     a/c/sub/f.txt     "IN-A-C-SUB"
 *     a/b/target.txt    "NESTED"
 *     a/b/same    -> target.txt                 a/b/target.txt   (root: target.txt)
 *     a/b/up      -> ../c/target.txt            a/c/target.txt   (root: base/c/…, outside)
 *     a/b/twoUp   -> ../../c/target.txt         c/target.txt     (root: outside)
 *     a/b/dir     -> ../c                       a/c              (root: base/c, outside)
 *     a/b/chain   -> ../c/hop                   a/c/hop -> sub/f.txt: a/c/sub/f.txt
 *     a/c/hop     -> sub/f.txt
 *     a/b/out     -> ../../../outside/canary.txt    outside       (root: outside too)
 *     a/b/back    -> ../../../<climb back to ws>/x.txt
 *                    from a/b: a decoy under base, outside; from the root: ws/x.txt, inside
 *     a/b/peek    -> ../../secret/key.txt       secret/key.txt, denied (root: outside)
 *     a/b/new     -> ../made.txt                a/made.txt, missing (root: base/made.txt)
 */
const fixture = Effect.acquireRelease(
  Effect.sync(() => {
    const base = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "tr-relative-links-")))
    const root = NodePath.join(base, "ws")
    const linkDirectory = NodePath.join(root, "a", "b")
    // Three levels up from the root, then down again to ws/x.txt: inside when read from the root;
    // read from a/b (as it is) the same climb stops at base, and lands on a decoy outside.
    const back = `../../../${NodePath.relative(NodePath.dirname(NodePath.dirname(base)), NodePath.join(root, "x.txt"))}`
    const files: Record<string, string> = {
      [NodePath.join(base, "outside", "canary.txt")]: `${OUTSIDE}\n`,
      [NodePath.resolve(linkDirectory, back)]: `${OUTSIDE} decoy\n`,
      [NodePath.join(root, "target.txt")]: "ROOT\n",
      [NodePath.join(root, "c", "target.txt")]: "TOP-C\n",
      [NodePath.join(root, "secret", "key.txt")]: "SECRET-KEY\n",
      [NodePath.join(root, "x.txt")]: "INSIDE-X\n",
      [NodePath.join(root, "a", "c", "target.txt")]: "SIBLING-C\n",
      [NodePath.join(root, "a", "c", "sub", "f.txt")]: "IN-A-C-SUB\n",
      [NodePath.join(root, "a", "b", "target.txt")]: "NESTED\n"
    }
    for (const [path, content] of Object.entries(files)) {
      NodeFs.mkdirSync(NodePath.dirname(path), { recursive: true })
      NodeFs.writeFileSync(path, content)
    }
    const links: Record<string, string> = {
      "a/b/same": "target.txt",
      "a/b/up": "../c/target.txt",
      "a/b/twoUp": "../../c/target.txt",
      "a/b/dir": "../c",
      "a/b/chain": "../c/hop",
      "a/c/hop": "sub/f.txt",
      "a/b/out": "../../../outside/canary.txt",
      "a/b/back": back,
      "a/b/peek": "../../secret/key.txt",
      "a/b/new": "../made.txt"
    }
    for (const [path, target] of Object.entries(links)) NodeFs.symlinkSync(target, NodePath.join(root, path))
    return { base, root }
  }),
  ({ base }) => Effect.sync(() => NodeFs.rmSync(base, { recursive: true, force: true }))
)

/** What the walk reaches for `path`: the file's content, or why it refused. */
const walkTo = (root: string, path: string) =>
  Effect.scoped(
    Effect.gen(function*() {
      const entry = yield* PathWalk.entry(root, path)
      const { handle } = yield* PathWalk.openFile(entry.parent, entry.name)
      return { real: entry.real, text: (yield* Effect.promise(() => handle.readFile("utf8"))).trim() }
    })
  ).pipe(Effect.exit)

const escapeOf = (exit: Exit.Exit<unknown, PathWalk.Failure>) =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag === "Escape"
    ? exit.cause.error.problem
    : undefined

/** Reading under `secret/` is denied; everything else allowed. */
const denySecret = (root: string): Layer.Layer<Policy.Policy> =>
  Layer.succeed(Policy.Policy, {
    authorize: () => Effect.succeed(Policy.allow),
    checkPath: (_, path) =>
      path.startsWith(NodePath.join(root, "secret") + NodePath.sep)
        ? { verdict: "deny", rule: "Read(./secret/**)" }
        : undefined
  })

const runTool = (root: string, name: string, input: unknown) =>
  Effect.flatMap(
    ToolRuntime.ToolRuntime.pipe(
      Effect.provide(
        ToolRuntime.layer().pipe(
          Layer.provide(Registry.layer(FileTools.all())),
          Layer.provide([ArtifactStore.layerMemory(), Redactor.layerDefault, denySecret(root), Workspace.layer(root)])
        )
      )
    ),
    (runtime) => runtime.runCall({ id: "c", name, input })
  ).pipe(
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`${name} did not answer within 10 s`) })
  )

describe("a relative link is read from its own directory", () => {
  describe("PathWalk", () => {
    it.scoped("a plain name in a/b is the file beside the link, not the one at the root", () =>
      Effect.gen(function*() {
        const { root } = yield* fixture
        const exit = yield* walkTo(root, "a/b/same")
        assert.deepStrictEqual(
          exit,
          Exit.succeed({ real: NodePath.join(root, "a", "b", "target.txt"), text: "NESTED" })
        )
      }))

    it.scoped("../c/target from a/b is a/c/target, and ../../c/target is c/target", () =>
      Effect.gen(function*() {
        const { root } = yield* fixture
        assert.deepStrictEqual(
          yield* walkTo(root, "a/b/up"),
          Exit.succeed({ real: NodePath.join(root, "a", "c", "target.txt"), text: "SIBLING-C" })
        )
        assert.deepStrictEqual(
          yield* walkTo(root, "a/b/twoUp"),
          Exit.succeed({ real: NodePath.join(root, "c", "target.txt"), text: "TOP-C" })
        )
      }))

    it.scoped("a link met halfway (a directory link, then a name below it) is read from its own directory too", () =>
      Effect.gen(function*() {
        const { root } = yield* fixture
        assert.deepStrictEqual(
          yield* walkTo(root, "a/b/dir/target.txt"),
          Exit.succeed({ real: NodePath.join(root, "a", "c", "target.txt"), text: "SIBLING-C" })
        )
        const opened = yield* Effect.scoped(Effect.map(PathWalk.directory(root, "a/b/dir/sub"), (d) => d.real))
        assert.strictEqual(opened, NodePath.join(root, "a", "c", "sub"))
      }))

    it.scoped("a link reached through another link is read from where the first one led", () =>
      Effect.gen(function*() {
        const { root } = yield* fixture
        assert.deepStrictEqual(
          yield* walkTo(root, "a/b/chain"),
          Exit.succeed({ real: NodePath.join(root, "a", "c", "sub", "f.txt"), text: "IN-A-C-SUB" })
        )
      }))

    it.scoped("a link that climbs out is refused", () =>
      Effect.gen(function*() {
        const { root } = yield* fixture
        assert.strictEqual(escapeOf(yield* walkTo(root, "a/b/out")), "symlink")
      }))

    it.scoped("a link that really leaves is refused even where, read from the root, it would land inside", () =>
      Effect.gen(function*() {
        const { root } = yield* fixture
        // From a/b it names a decoy under base; from the root it would name ws/x.txt.
        assert.strictEqual(
          NodePath.resolve(root, NodeFs.readlinkSync(NodePath.join(root, "a/b/back"))),
          `${root}/x.txt`
        )
        assert.strictEqual(escapeOf(yield* walkTo(root, "a/b/back")), "symlink")
      }))

    it.scoped("a dangling link names the missing file beside it, for a write", () =>
      Effect.gen(function*() {
        const { root } = yield* fixture
        const entry = yield* Effect.scoped(PathWalk.entry(root, "a/b/new"))
        assert.strictEqual(entry.real, NodePath.join(root, "a", "made.txt"))
        assert.isUndefined(entry.stats)
      }))
  })

  describe("Workspace.resolve", () => {
    it.effect("resolves each link where the kernel would, existing or not", () =>
      Effect.gen(function*() {
        const { root } = yield* fixture
        const workspace = yield* Workspace.make(root)
        /** The real path, or the problem. */
        const resolve = (path: string) =>
          workspace.resolve(path, { intent: "read" }).pipe(Effect.catchAll((error) => Effect.succeed(error.problem)))
        assert.strictEqual(yield* resolve("a/b/same"), `${root}/a/b/target.txt`)
        assert.strictEqual(yield* resolve("a/b/up"), `${root}/a/c/target.txt`)
        assert.strictEqual(yield* resolve("a/b/dir/sub/f.txt"), `${root}/a/c/sub/f.txt`)
        // Missing files are resolved link by link by the workspace itself, not by realpath.
        assert.strictEqual(yield* resolve("a/b/new"), `${root}/a/made.txt`)
        assert.strictEqual(yield* resolve("a/b/dir/missing.txt"), `${root}/a/c/missing.txt`)
        assert.strictEqual(yield* resolve("a/b/back"), "symlink")
        assert.strictEqual(yield* resolve("a/b/out"), "symlink")
      }).pipe(Effect.scoped))
  })

  describe("the file tools", () => {
    it.scoped("read_file follows nested relative links to the file they name", () =>
      Effect.gen(function*() {
        const { root } = yield* fixture
        for (
          const [path, expected] of [
            ["a/b/same", "NESTED"],
            ["a/b/up", "SIBLING-C"],
            ["a/b/twoUp", "TOP-C"],
            ["a/b/dir/target.txt", "SIBLING-C"],
            ["a/b/chain", "IN-A-C-SUB"]
          ] as const
        ) {
          const result = yield* runTool(root, "read_file", { path })
          assert.isFalse(result.isError, `${path}: ${ToolResult.text(result)}`)
          assert.include(ToolResult.text(result), expected, path)
        }
      }))

    it.scoped("read_file refuses the links that leave, and the one into a denied path", () =>
      Effect.gen(function*() {
        const { root } = yield* fixture
        for (const path of ["a/b/out", "a/b/back", "a/b/peek"]) {
          const result = yield* runTool(root, "read_file", { path })
          assert.isTrue(result.isError, path)
          assert.strictEqual(result.error?.code, "rule_violation", `${path}: ${ToolResult.text(result)}`)
          assert.notInclude(ToolResult.text(result), OUTSIDE)
          assert.notInclude(ToolResult.text(result), "SECRET-KEY")
        }
        assert.include(ToolResult.text(yield* runTool(root, "read_file", { path: "a/b/peek" })), "deny")
      }))

    it.scoped("write_file and edit_file through a relative link change the file it names, and nothing else", () =>
      Effect.gen(function*() {
        const { base, root } = yield* fixture
        const created = yield* runTool(root, "write_file", { path: "a/b/new", content: "MADE\n" })
        assert.isFalse(created.isError, ToolResult.text(created))
        assert.strictEqual(
          yield* Effect.promise(() => NFS.readFile(NodePath.join(root, "a", "made.txt"), "utf8")),
          "MADE\n"
        )
        assert.isFalse(NodeFs.existsSync(NodePath.join(base, "made.txt")))
        assert.isFalse(NodeFs.existsSync(NodePath.join(root, "made.txt")))
        // The link is still a link: the write went to its target.
        assert.isTrue(NodeFs.lstatSync(NodePath.join(root, "a", "b", "new")).isSymbolicLink())
        const edited = yield* runTool(root, "edit_file", {
          path: "a/b/same",
          old_string: "NESTED",
          new_string: "EDITED"
        })
        assert.isFalse(edited.isError, ToolResult.text(edited))
        assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "a", "b", "target.txt"), "utf8"), "EDITED\n")
        assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "target.txt"), "utf8"), "ROOT\n")
      }))

    it.scoped("grep, glob and list_directory started at a directory link search where it points", () =>
      Effect.gen(function*() {
        const { root } = yield* fixture
        const grep = yield* runTool(root, "grep", { pattern: "IN-A-C|SIBLING", path: "a/b/dir" })
        assert.isFalse(grep.isError, ToolResult.text(grep))
        assert.include(ToolResult.text(grep), "a/c/target.txt:1:SIBLING-C")
        assert.include(ToolResult.text(grep), "a/c/sub/f.txt:1:IN-A-C-SUB")
        const glob = yield* runTool(root, "glob", { pattern: "**/*.txt", path: "a/b/dir" })
        assert.isFalse(glob.isError, ToolResult.text(glob))
        assert.deepStrictEqual(ToolResult.text(glob).split("\n").sort(), ["a/c/sub/f.txt", "a/c/target.txt"])
        const listed = yield* runTool(root, "list_directory", { path: "a/b/dir" })
        assert.isFalse(listed.isError, ToolResult.text(listed))
        assert.include(ToolResult.text(listed), "target.txt")
        assert.include(ToolResult.text(listed), "hop@")
      }))

    it.scoped("a walk over the tree shows links as links and reads nothing through them", () =>
      Effect.gen(function*() {
        const { root } = yield* fixture
        const grep = yield* runTool(root, "grep", { pattern: "OUTSIDE|NESTED|SIBLING|TOP-C|IN-A-C", path: "a/b" })
        assert.isFalse(grep.isError, ToolResult.text(grep))
        assert.strictEqual(ToolResult.text(grep), "a/b/target.txt:1:NESTED")
        const glob = yield* runTool(root, "glob", { pattern: "*", path: "a/b" })
        assert.deepStrictEqual(
          ToolResult.text(glob).split("\n").sort(),
          ["back", "chain", "dir", "new", "out", "peek", "same", "target.txt", "twoUp", "up"].map((n) => `a/b/${n}`)
        )
      }))
  })
})

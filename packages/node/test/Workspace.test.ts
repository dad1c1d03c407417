import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as NFS from "node:fs/promises"
import * as OS from "node:os"
import * as NodePath from "node:path"
import * as PathWalk from "../src/PathWalk.js"
import * as Workspace from "../src/Workspace.js"
import { within } from "./Processes.js"

/**
 * base/
 *   ws/            the workspace
 *   ws-evil/       a sibling sharing the workspace's prefix
 *   outside/       everything the workspace must not reach
 */
const sandbox = Effect.acquireRelease(
  Effect.promise(async () => {
    const base = await NFS.realpath(await NFS.mkdtemp(NodePath.join(OS.tmpdir(), "tr-workspace-")))
    const ws = NodePath.join(base, "ws")
    const outside = NodePath.join(base, "outside")
    await NFS.mkdir(NodePath.join(ws, "sub"), { recursive: true })
    await NFS.mkdir(NodePath.join(base, "ws-evil"))
    await NFS.mkdir(outside)
    await NFS.writeFile(NodePath.join(ws, "a.txt"), "a\n")
    await NFS.writeFile(NodePath.join(ws, "sub", "b.txt"), "b\n")
    await NFS.writeFile(NodePath.join(base, "ws-evil", "secret.txt"), "secret\n")
    await NFS.writeFile(NodePath.join(outside, "canary.txt"), "canary\n")
    await NFS.symlink("sub", NodePath.join(ws, "link-in"))
    await NFS.symlink("a.txt", NodePath.join(ws, "link-to-a"))
    await NFS.symlink(outside, NodePath.join(ws, "link-out"))
    await NFS.symlink(NodePath.join(outside, "canary.txt"), NodePath.join(ws, "file-link"))
    await NFS.symlink(NodePath.join(outside, "new.txt"), NodePath.join(ws, "dangling-out"))
    await NFS.symlink("sub/created.txt", NodePath.join(ws, "dangling-in"))
    await NFS.symlink("dangling-out", NodePath.join(ws, "chain"))
    await NFS.symlink(NodePath.join(outside, "no-dir"), NodePath.join(ws, "dangling-dir"))
    await NFS.symlink("loop-b", NodePath.join(ws, "loop-a"))
    await NFS.symlink("loop-a", NodePath.join(ws, "loop-b"))
    await NFS.symlink("/proc/self/root", NodePath.join(ws, "proc-root"))
    await NFS.symlink("/proc/self/cwd", NodePath.join(ws, "proc-cwd"))
    await NFS.symlink(ws, NodePath.join(base, "ws-alias"))
    return { base, ws, outside }
  }),
  ({ base }) => Effect.promise(() => NFS.rm(base, { recursive: true, force: true }))
)

const hasProc = process.platform === "linux"

describe("Workspace", () => {
  it.scopedLive("its root is the real path of the directory it was given", () =>
    Effect.gen(function*() {
      const { base, ws } = yield* sandbox
      const workspace = yield* Workspace.make(NodePath.join(base, "ws-alias"))
      assert.strictEqual(workspace.root, ws)
      assert.strictEqual(workspace.display(ws), ".")
      assert.strictEqual(workspace.display(NodePath.join(ws, "sub", "b.txt")), NodePath.join("sub", "b.txt"))
    }))

  it.scopedLive("refuses a root that does not exist or is not a directory", () =>
    Effect.gen(function*() {
      const { base, ws } = yield* sandbox
      const missing = yield* Effect.exit(Workspace.make(NodePath.join(base, "nope")))
      const file = yield* Effect.exit(Workspace.make(NodePath.join(ws, "a.txt")))
      assert.isTrue(Exit.isFailure(missing))
      assert.isTrue(Exit.isFailure(file))
    }))

  it.scopedLive("resolves paths inside the workspace to their real paths", () =>
    Effect.gen(function*() {
      const { base, ws } = yield* sandbox
      const workspace = yield* Workspace.make(ws)
      const read = (path: string) => workspace.resolve(path, { intent: "read" })
      const write = (path: string) => workspace.resolve(path, { intent: "write" })
      assert.strictEqual(yield* read("a.txt"), NodePath.join(ws, "a.txt"))
      assert.strictEqual(yield* read("./sub/../a.txt"), NodePath.join(ws, "a.txt"))
      assert.strictEqual(yield* read(NodePath.join(ws, "a.txt")), NodePath.join(ws, "a.txt"))
      // Through an alias of the root, and through a link that stays inside.
      assert.strictEqual(yield* read(NodePath.join(base, "ws-alias", "a.txt")), NodePath.join(ws, "a.txt"))
      assert.strictEqual(yield* read("link-in/b.txt"), NodePath.join(ws, "sub", "b.txt"))
      assert.strictEqual(yield* read("."), ws)
      // Files that do not exist yet: the deepest existing ancestor, plus the rest.
      assert.strictEqual(yield* write("new/deeper/c.txt"), NodePath.join(ws, "new", "deeper", "c.txt"))
      assert.strictEqual(yield* write("link-in/new.txt"), NodePath.join(ws, "sub", "new.txt"))
      // A dangling link whose target is inside: the write goes to the target.
      assert.strictEqual(yield* write("dangling-in"), NodePath.join(ws, "sub", "created.txt"))
    }))

  const refusals: ReadonlyArray<{
    readonly name: string
    readonly path: (dirs: { readonly base: string; readonly ws: string; readonly outside: string }) => string
    readonly intent: Workspace.Intent
    readonly problem: Workspace.Problem
    readonly linux?: boolean
  }> = [
    {
      name: "a relative path that climbs out",
      path: () => "../outside/canary.txt",
      intent: "read",
      problem: "outside"
    },
    {
      name: "a climb that starts inside",
      path: () => "sub/../../outside/canary.txt",
      intent: "read",
      problem: "outside"
    },
    {
      name: "an absolute path outside",
      path: ({ outside }) => NodePath.join(outside, "canary.txt"),
      intent: "read",
      problem: "outside"
    },
    {
      name: "a sibling sharing the prefix (absolute)",
      path: ({ base }) => NodePath.join(base, "ws-evil", "secret.txt"),
      intent: "read",
      problem: "outside"
    },
    {
      name: "a sibling sharing the prefix (relative)",
      path: () => "../ws-evil/secret.txt",
      intent: "write",
      problem: "outside"
    },
    { name: "an absolute system path", path: () => "/etc/passwd", intent: "read", problem: "outside" },
    {
      name: "/proc/self/root",
      path: ({ outside }) => `/proc/self/root${outside}/canary.txt`,
      intent: "read",
      problem: "outside",
      linux: true
    },
    {
      name: "/proc/<pid>/root",
      path: ({ outside }) => `/proc/${process.pid}/root${outside}/canary.txt`,
      intent: "write",
      problem: "outside",
      linux: true
    },
    {
      name: "/proc/self/cwd",
      path: () => "/proc/self/cwd/package.json",
      intent: "read",
      problem: "outside",
      linux: true
    },
    {
      name: "a link inside to /proc/self/root",
      path: ({ outside }) => `proc-root${outside}/canary.txt`,
      intent: "read",
      problem: "symlink",
      linux: true
    },
    {
      name: "a link inside to /proc/self/cwd",
      path: () => "proc-cwd/package.json",
      intent: "read",
      problem: "symlink",
      linux: true
    },
    { name: "a symlinked directory (read)", path: () => "link-out/canary.txt", intent: "read", problem: "symlink" },
    { name: "a symlinked directory (new file)", path: () => "link-out/new.txt", intent: "write", problem: "symlink" },
    { name: "a symlinked file", path: () => "file-link", intent: "write", problem: "symlink" },
    { name: "a dangling link as write target", path: () => "dangling-out", intent: "write", problem: "symlink" },
    { name: "a chain ending in a dangling link", path: () => "chain", intent: "write", problem: "symlink" },
    { name: "a dangling link to a directory", path: () => "dangling-dir/x.txt", intent: "write", problem: "symlink" },
    { name: "a link loop", path: () => "loop-a", intent: "read", problem: "loop" },
    { name: "a NUL byte", path: () => "a.txt\u0000/../../outside/canary.txt", intent: "read", problem: "nul" },
    { name: "an empty path", path: () => "", intent: "read", problem: "empty" },
    { name: "a blank path", path: () => " \t ", intent: "write", problem: "empty" },
    { name: "the root as a write target", path: () => ".", intent: "write", problem: "root" }
  ]

  for (const refusal of refusals) {
    it.scopedLive.skipIf(refusal.linux === true && !hasProc)(`refuses ${refusal.name}`, () =>
      Effect.gen(function*() {
        const dirs = yield* sandbox
        const workspace = yield* Workspace.make(dirs.ws)
        const path = refusal.path(dirs)
        const error = yield* Effect.flip(workspace.resolve(path, { intent: refusal.intent }))
        assert.strictEqual(error._tag, "PathError")
        assert.strictEqual(error.problem, refusal.problem)
        // The message echoes the path as sent, but never says where a link led.
        assert.notInclude(error.message.replace(JSON.stringify(path), ""), dirs.outside)
        if (refusal.problem === "outside" || refusal.problem === "symlink") assert.include(error.message, dirs.ws)
        const violation = error.toRuleViolation()
        assert.strictEqual(violation.code, "rule_violation")
        assert.isString(violation.fix)
      }))
  }

  it.scopedLive("says what is wrong and how to fix it", () =>
    Effect.gen(function*() {
      const { ws } = yield* sandbox
      const workspace = yield* Workspace.make(ws)
      const error = yield* Effect.flip(workspace.resolve("../../etc/passwd", { intent: "read" }))
      assert.strictEqual(error.reason, `the path "../../etc/passwd" is outside the workspace ${ws}`)
      assert.include(error.fix, "Use a path inside the workspace")
    }))

  it("isInside compares whole path components", () => {
    assert.isTrue(Workspace.isInside("/ws", "/ws"))
    assert.isTrue(Workspace.isInside("/ws", "/ws/a"))
    assert.isFalse(Workspace.isInside("/ws", "/ws-evil/a"))
    assert.isFalse(Workspace.isInside("/ws", "/w"))
    assert.isTrue(Workspace.isInside("/", "/etc"))
  })
})

// ---------------------------------------------------------------------------
// PathWalk: what the file tools open with. Its own module, tested here with
// the workspace it confines to.
// ---------------------------------------------------------------------------

/** The descriptors this process holds open. */
const openDescriptors = Effect.promise(() => NFS.readdir("/proc/self/fd")).pipe(Effect.map((fds) => fds.length))

describe.skipIf(!hasProc)("PathWalk", () => {
  it.scopedLive("follows links that stay inside, by walking them, to their real place", () =>
    Effect.gen(function*() {
      const { ws } = yield* sandbox
      const file = yield* PathWalk.entry(ws, "link-in/b.txt")
      assert.strictEqual(file.real, NodePath.join(ws, "sub", "b.txt"))
      assert.strictEqual(file.parent.real, NodePath.join(ws, "sub"))
      assert.isTrue(file.stats?.isFile())
      // A link as the last component is walked too, so the entry is never a link.
      assert.strictEqual((yield* PathWalk.entry(ws, "link-to-a")).real, NodePath.join(ws, "a.txt"))
      assert.strictEqual((yield* PathWalk.directory(ws, "link-in")).real, NodePath.join(ws, "sub"))
      const dangling = yield* PathWalk.entry(ws, "dangling-in")
      assert.strictEqual(dangling.real, NodePath.join(ws, "sub", "created.txt"))
      assert.isUndefined(dangling.stats)
      assert.strictEqual((yield* PathWalk.directory(ws, ".")).real, ws)
    }))

  const escapes: ReadonlyArray<{
    readonly path: string
    readonly goal: "entry" | "directory"
    readonly problem: PathWalk.Escape["problem"]
  }> = [
    { path: "link-out", goal: "directory", problem: "symlink" },
    { path: "link-out/canary.txt", goal: "entry", problem: "symlink" },
    { path: "link-out/new/deeper.txt", goal: "entry", problem: "symlink" },
    { path: "file-link", goal: "entry", problem: "symlink" },
    { path: "dangling-out", goal: "entry", problem: "symlink" },
    { path: "chain", goal: "entry", problem: "symlink" },
    { path: "dangling-dir/x.txt", goal: "entry", problem: "symlink" },
    { path: "proc-root/etc/passwd", goal: "entry", problem: "symlink" },
    { path: "proc-cwd", goal: "directory", problem: "symlink" },
    { path: "loop-a", goal: "entry", problem: "loop" },
    { path: "../outside/canary.txt", goal: "entry", problem: "outside" },
    { path: "/etc", goal: "directory", problem: "outside" }
  ]
  for (const escape of escapes) {
    it.scopedLive(`refuses ${escape.path} (${escape.problem}), creating nothing`, () =>
      Effect.gen(function*() {
        const { outside, ws } = yield* sandbox
        const before = yield* Effect.promise(() => NFS.readdir(outside))
        const error = escape.goal === "directory"
          ? yield* Effect.flip(PathWalk.directory(ws, escape.path))
          : yield* Effect.flip(PathWalk.entry(ws, escape.path, { createParents: true }))
        assert.strictEqual(error._tag, "Escape")
        assert.strictEqual(error._tag === "Escape" ? error.problem : undefined, escape.problem)
        assert.deepStrictEqual(yield* Effect.promise(() => NFS.readdir(outside)), before)
      }))
  }

  it.scopedLive("opens a name in a held directory without following a link there", () =>
    Effect.gen(function*() {
      // The race's window: the walk saw a file, and a link took its place before the open.
      const { ws } = yield* sandbox
      const root = yield* PathWalk.directory(ws, ".")
      for (const name of ["file-link", "link-to-a"]) {
        const error = yield* Effect.flip(PathWalk.openFile(root, name))
        assert.deepStrictEqual(error, new PathWalk.Errno({ code: "ELOOP" }), name)
      }
      for (const name of ["link-out", "link-in", "proc-root"]) {
        const error = yield* Effect.flip(PathWalk.openDirectory(root, name))
        assert.strictEqual(error._tag, "Errno", name)
        assert.include(["ELOOP", "ENOTDIR"], error._tag === "Errno" ? error.code : "", name)
      }
      const { handle, stats } = yield* PathWalk.openFile(root, "a.txt")
      assert.isTrue(stats.isFile())
      assert.strictEqual(yield* Effect.promise(() => handle.readFile("utf8")), "a\n")
    }))

  it.scopedLive("a tree walk does not enter a directory swapped for a link after it was listed", () =>
    Effect.gen(function*() {
      const { outside, ws } = yield* sandbox
      const root = yield* PathWalk.directory(ws, ".")
      const seen: Array<string> = []
      const summary = yield* PathWalk.tree(
        root,
        { maxDepth: Infinity, skip: new Set(), maxScanned: 1_000 },
        (entry) =>
          Effect.promise(async () => {
            seen.push(entry.relative)
            // Between the listing of the root and the entering of sub: the race's window, held open.
            if (entry.relative === "sub") {
              await NFS.rename(NodePath.join(ws, "sub"), NodePath.join(ws, "sub.real"))
              await NFS.symlink(outside, NodePath.join(ws, "sub"))
            }
            return true
          })
      )
      assert.include(seen, "sub")
      assert.include(seen, "link-out")
      assert.isFalse(seen.some((path) => path.includes("canary") || path.startsWith("sub/")), seen.join(" "))
      // Not a directory any more is not an unreadable one: nothing was opened outside.
      assert.strictEqual(summary.unreadable, 0)
    }))

  it.scopedLive("refuses a held directory moved out of the workspace", () =>
    Effect.gen(function*() {
      const { outside, ws } = yield* sandbox
      const sub = yield* PathWalk.directory(ws, "sub")
      yield* Effect.promise(() => NFS.rename(NodePath.join(ws, "sub"), NodePath.join(outside, "moved")))
      const error = yield* Effect.flip(PathWalk.openFile(sub, "b.txt"))
      assert.deepStrictEqual(error, new PathWalk.Escape({ problem: "moved" }))
    }))

  it.scopedLive("creates missing directories and writes inside the held one, leaving no temporary file", () =>
    Effect.gen(function*() {
      const { ws } = yield* sandbox
      const target = yield* PathWalk.entry(ws, "new/deeper/c.txt", { createParents: true })
      assert.strictEqual(target.parent.real, NodePath.join(ws, "new", "deeper"))
      yield* PathWalk.writeAtomic(target.parent, target.name, new TextEncoder().encode("c\n"), 0o640)
      const written = NodePath.join(ws, "new", "deeper", "c.txt")
      assert.strictEqual(yield* Effect.promise(() => NFS.readFile(written, "utf8")), "c\n")
      assert.strictEqual((yield* Effect.promise(() => NFS.stat(written))).mode & 0o777, 0o640)
      // Renaming a file over a directory fails: the temporary file goes with the failure.
      const root = yield* PathWalk.directory(ws, ".")
      const failed = yield* Effect.exit(PathWalk.writeAtomic(root, "sub", new Uint8Array(1), undefined))
      assert.isTrue(Exit.isFailure(failed))
      assert.deepStrictEqual((yield* Effect.promise(() => NFS.readdir(ws))).filter((name) => name.endsWith(".tmp")), [])
      assert.deepStrictEqual(yield* Effect.promise(() => NFS.readdir(NodePath.join(ws, "new", "deeper"))), ["c.txt"])
    }))

  it.scopedLive("closes every descriptor it opens, on success, failure and interruption", () =>
    Effect.gen(function*() {
      const { ws } = yield* sandbox
      const before = yield* openDescriptors
      for (let i = 0; i < 20; i++) {
        yield* Effect.scoped(PathWalk.entry(ws, "link-in/b.txt"))
        yield* Effect.exit(Effect.scoped(PathWalk.entry(ws, "link-out/canary.txt")))
        yield* Effect.exit(Effect.scoped(PathWalk.directory(ws, "loop-a")))
        const held = yield* Deferred.make<void>()
        const fiber = yield* Effect.fork(Effect.scoped(
          Effect.zipRight(
            PathWalk.directory(ws, "link-in"),
            Effect.zipRight(Deferred.succeed(held, void 0), Effect.never)
          )
        ))
        yield* Deferred.await(held).pipe(within(10_000, "the walk held its directory"))
        assert.isAbove(yield* openDescriptors, before)
        yield* Fiber.interrupt(fiber).pipe(within(10_000, "the walk was interrupted"))
      }
      assert.strictEqual(yield* openDescriptors, before)
    }))
})

/**
 * Edges of `PathWalk`'s promises: the 40-link limit, a file where a
 * directory was needed, a path naming the root where a file was asked for,
 * `createParents` off by default, a root that is not its own real path,
 * descriptors held one at a time, a held root deleted, the order, depth,
 * scan limit, skips and stops of `tree`, and `writeAtomic` with a long
 * name. Real directories and links under the OS temp directory.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Random from "effect/Random"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as PathWalk from "../src/PathWalk.js"

const tempRoot = Effect.acquireRelease(
  Effect.sync(() => NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "tr-pathwalk-edges-")))),
  (base) => Effect.sync(() => NodeFs.rmSync(base, { recursive: true, force: true }))
)

const failureOf = (exit: Exit.Exit<unknown, PathWalk.Failure>): string | undefined => {
  if (!Exit.isFailure(exit) || exit.cause._tag !== "Fail") return undefined
  const error = exit.cause.error
  return error._tag === "Escape" ? `Escape:${error.problem}` : `Errno:${error.code}`
}

/** `count` links `l1 -> l2 -> … -> l<count> -> target`, in `directory`. */
const chain = (directory: string, prefix: string, count: number, target: string) => {
  for (let i = 1; i <= count; i++) {
    NodeFs.symlinkSync(i === count ? target : `${prefix}${i + 1}`, NodePath.join(directory, `${prefix}${i}`))
  }
}

/** The open descriptors of this process naming something under `base`. */
const heldUnder = (base: string) =>
  NodeFs.readdirSync("/proc/self/fd").filter((fd) => {
    try {
      const named = NodeFs.readlinkSync(`/proc/self/fd/${fd}`)
      return named === base || named.startsWith(`${base}/`)
    } catch {
      return false
    }
  }).length

const noTree: PathWalk.TreeOptions = { maxDepth: Infinity, skip: new Set(), maxScanned: Infinity }

/** Every entry `tree` visits under `root`, in order, with its summary. */
const visitAll = (root: string, options: PathWalk.TreeOptions, stopAt?: string) =>
  Effect.scoped(Effect.gen(function*() {
    const base = yield* PathWalk.directory(root, ".")
    const seen: Array<string> = []
    const summary = yield* PathWalk.tree(base, options, (visit) =>
      Effect.sync(() => {
        seen.push(visit.relative)
        return visit.relative !== stopAt
      }))
    return { seen, summary }
  }))

describe("PathWalk edges", () => {
  it.scoped("follows a chain of exactly 40 links, refuses 41 as a loop", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      NodeFs.writeFileSync(NodePath.join(root, "file.txt"), "END\n")
      NodeFs.mkdirSync(NodePath.join(root, "d"))
      chain(root, "f", 40, "file.txt")
      chain(root, "g", 41, "file.txt")
      chain(root, "h", 40, "d")

      const forty = yield* Effect.scoped(PathWalk.entry(root, "f1"))
      assert.strictEqual(forty.real, NodePath.join(root, "file.txt"))
      assert.isTrue(forty.stats?.isFile())
      const throughDirectory = yield* Effect.scoped(PathWalk.entry(root, "h1/new.txt"))
      assert.strictEqual(throughDirectory.real, NodePath.join(root, "d", "new.txt"))
      const asDirectory = yield* Effect.scoped(Effect.map(PathWalk.directory(root, "h1"), (d) => d.real))
      assert.strictEqual(asDirectory, NodePath.join(root, "d"))

      assert.strictEqual(failureOf(yield* Effect.exit(Effect.scoped(PathWalk.entry(root, "g1")))), "Escape:loop")
    }))

  it.scoped("a file where a directory is needed is ENOTDIR, whichever walk meets it", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      NodeFs.writeFileSync(NodePath.join(root, "file.txt"), "F\n")
      NodeFs.symlinkSync("file.txt", NodePath.join(root, "toFile"))
      for (const path of ["file.txt/x", "toFile/x", "file.txt/x/y"]) {
        assert.strictEqual(
          failureOf(yield* Effect.exit(Effect.scoped(PathWalk.entry(root, path)))),
          "Errno:ENOTDIR",
          path
        )
        assert.strictEqual(
          failureOf(yield* Effect.exit(Effect.scoped(PathWalk.entry(root, path, { createParents: true })))),
          "Errno:ENOTDIR",
          path
        )
      }
      assert.strictEqual(
        failureOf(yield* Effect.exit(Effect.scoped(PathWalk.directory(root, "file.txt")))),
        "Errno:ENOTDIR"
      )
    }))

  it.scoped("a link to a directory is followed from where it is, whatever the root holds under its name", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      NodeFs.mkdirSync(NodePath.join(root, "d"))
      NodeFs.mkdirSync(NodePath.join(root, "e"))
      NodeFs.writeFileSync(NodePath.join(root, "l"), "A FILE AT THE ROOT\n")
      NodeFs.symlinkSync("../e", NodePath.join(root, "d", "l"))
      const found = yield* Effect.scoped(PathWalk.entry(root, "d/l/f.txt"))
      assert.strictEqual(found.real, NodePath.join(root, "e", "f.txt"))
      const reached = yield* Effect.scoped(Effect.map(PathWalk.directory(root, "d/l"), (d) => d.real))
      assert.strictEqual(reached, NodePath.join(root, "e"))
    }))

  it.scoped("an entry for the root itself, or a link to it, is EISDIR", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      NodeFs.mkdirSync(NodePath.join(root, "d"))
      NodeFs.symlinkSync(".", NodePath.join(root, "self"))
      for (const path of [".", "", root, "d/..", "self"]) {
        assert.strictEqual(
          failureOf(yield* Effect.exit(Effect.scoped(PathWalk.entry(root, path)))),
          "Errno:EISDIR",
          JSON.stringify(path)
        )
      }
      // The directory walk reaches the root for the same paths.
      for (const path of [".", "", "self"]) {
        const reached = yield* Effect.scoped(Effect.map(PathWalk.directory(root, path), (d) => d.real))
        assert.strictEqual(reached, root)
      }
    }))

  it.scoped("a lookup error other than ENOENT is not a missing entry", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      const long = "n".repeat(300)
      assert.strictEqual(
        failureOf(yield* Effect.exit(Effect.scoped(PathWalk.entry(root, long)))),
        "Errno:ENAMETOOLONG"
      )
      const missing = yield* Effect.scoped(PathWalk.entry(root, "missing.txt"))
      assert.isUndefined(missing.stats)
    }))

  it.scoped("missing parents are made only when asked for", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      assert.strictEqual(
        failureOf(yield* Effect.exit(Effect.scoped(PathWalk.entry(root, "p/q/f.txt")))),
        "Errno:ENOENT"
      )
      assert.strictEqual(
        failureOf(yield* Effect.exit(Effect.scoped(PathWalk.entry(root, "p/q/f.txt", { createParents: false })))),
        "Errno:ENOENT"
      )
      assert.strictEqual(
        failureOf(yield* Effect.exit(Effect.scoped(PathWalk.directory(root, "p/q")))),
        "Errno:ENOENT"
      )
      assert.isFalse(NodeFs.existsSync(NodePath.join(root, "p")))

      const made = yield* Effect.scoped(PathWalk.entry(root, "p/q/f.txt", { createParents: true }))
      assert.strictEqual(made.real, NodePath.join(root, "p", "q", "f.txt"))
      assert.isUndefined(made.stats)
      assert.isTrue(NodeFs.statSync(NodePath.join(root, "p", "q")).isDirectory())

      // Forty missing directories in a row are no loop.
      const deep = Array.from({ length: 40 }, (_, i) => `m${i}`).join("/")
      const far = yield* Effect.scoped(PathWalk.entry(root, `${deep}/f.txt`, { createParents: true }))
      assert.strictEqual(far.real, NodePath.join(root, deep, "f.txt"))
    }))

  it.scoped("a root that is not its own real path is refused", () =>
    Effect.gen(function*() {
      const base = yield* tempRoot
      const root = NodePath.join(base, "ws")
      NodeFs.mkdirSync(NodePath.join(root, "d"), { recursive: true })
      NodeFs.symlinkSync(".", NodePath.join(base, "alias"))
      for (const notReal of [NodePath.join(base, "alias", "ws"), `${root}/d/..`]) {
        assert.strictEqual(
          failureOf(yield* Effect.exit(Effect.scoped(PathWalk.openRoot(notReal)))),
          "Escape:moved",
          notReal
        )
        assert.strictEqual(
          failureOf(yield* Effect.exit(Effect.scoped(PathWalk.directory(notReal, "d")))),
          "Escape:moved",
          notReal
        )
      }
      const top = yield* Effect.scoped(Effect.map(PathWalk.openRoot(root), (d) => d.real))
      assert.strictEqual(top, root)
    }))

  it.scoped("a walk holds the root and the directory reached, not every directory on the way", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      NodeFs.mkdirSync(NodePath.join(root, "a", "b", "c", "d"), { recursive: true })
      const held = yield* Effect.scoped(Effect.gen(function*() {
        const reached = yield* PathWalk.directory(root, "a/b/c/d")
        assert.strictEqual(reached.real, NodePath.join(root, "a", "b", "c", "d"))
        return heldUnder(root)
      }))
      assert.strictEqual(held, 2)
      assert.strictEqual(heldUnder(root), 0)
    }))

  it.scoped("a held root deleted is still the root", () =>
    Effect.gen(function*() {
      const base = yield* tempRoot
      const root = NodePath.join(base, "ws")
      NodeFs.mkdirSync(root)
      const top = yield* PathWalk.openRoot(root)
      NodeFs.rmdirSync(root)
      const again = yield* PathWalk.openDirectory(top, ".")
      assert.strictEqual(again.real, root)
      const file = yield* PathWalk.openFile(top, ".")
      assert.isTrue(file.stats.isDirectory())
    }))

  it.scoped("tree visits names sorted, each directory's entries before its subdirectories'", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      const names = Array.from({ length: 40 }, (_, i) => `${((i * 7919) % 97).toString(36)}-${i}`)
      for (const name of names) NodeFs.writeFileSync(NodePath.join(root, name), "")
      NodeFs.mkdirSync(NodePath.join(root, "zz", "in"), { recursive: true })
      NodeFs.writeFileSync(NodePath.join(root, "zz", "b"), "")
      NodeFs.writeFileSync(NodePath.join(root, "zz", "a"), "")
      const { seen, summary } = yield* visitAll(root, noTree)
      const top = [...names, "zz"].sort()
      assert.deepStrictEqual(seen, [...top, "zz/a", "zz/b", "zz/in"])
      assert.strictEqual(summary.scanned, seen.length)
      assert.isFalse(summary.exhausted)
      assert.strictEqual(summary.unreadable, 0)
    }))

  it.scoped("tree sorts names as JavaScript strings, not as the system lists them", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      // UTF-8 bytes put U+E000..U+FFFF before astral characters; UTF-16 code units put them after.
      const names = ["b", "\uE000a", "\uFFFDx", "\u{1F600}1", "a", "\uE000b", "\u{1F642}", "\u{1F600}2", "\uFF5E", "c"]
      for (const name of names) NodeFs.writeFileSync(NodePath.join(root, name), "")
      const { seen } = yield* visitAll(root, noTree)
      assert.deepStrictEqual(seen, [...names].sort())
    }))

  it.scoped("tree stops when visit says so, in a directory or below it", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      for (const name of ["a", "b", "c"]) NodeFs.writeFileSync(NodePath.join(root, name), "")
      NodeFs.mkdirSync(NodePath.join(root, "d1"))
      NodeFs.mkdirSync(NodePath.join(root, "d2"))
      NodeFs.writeFileSync(NodePath.join(root, "d1", "x"), "")
      NodeFs.writeFileSync(NodePath.join(root, "d1", "y"), "")
      NodeFs.writeFileSync(NodePath.join(root, "d2", "z"), "")

      const first = yield* visitAll(root, noTree, "a")
      assert.deepStrictEqual(first.seen, ["a"])
      assert.isTrue(first.summary.exhausted)

      const nested = yield* visitAll(root, noTree, "d1/x")
      assert.deepStrictEqual(nested.seen, ["a", "b", "c", "d1", "d2", "d1/x"])
      assert.isTrue(nested.summary.exhausted)

      // Stopped below d1: d2 is not even opened (it is gone, and that goes unnoticed).
      const stopped = yield* Effect.scoped(Effect.gen(function*() {
        const base = yield* PathWalk.directory(root, ".")
        return yield* PathWalk.tree(base, noTree, (visit) =>
          Effect.sync(() => {
            if (visit.relative !== "d1/x") return true
            NodeFs.rmSync(NodePath.join(root, "d2"), { recursive: true })
            return false
          }))
      }))
      assert.strictEqual(stopped.unreadable, 0)
      assert.isTrue(stopped.exhausted)
    }))

  it.scoped("tree visits at most maxScanned entries", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      for (const name of ["a", "b", "c", "d", "e"]) NodeFs.writeFileSync(NodePath.join(root, name), "")
      const three = yield* visitAll(root, { ...noTree, maxScanned: 3 })
      assert.deepStrictEqual(three.seen, ["a", "b", "c"])
      assert.isTrue(three.summary.exhausted)
      const five = yield* visitAll(root, { ...noTree, maxScanned: 5 })
      assert.deepStrictEqual(five.seen, ["a", "b", "c", "d", "e"])
      assert.isFalse(five.summary.exhausted)
      assert.strictEqual(five.summary.scanned, 5)
    }))

  it.scoped("tree honours maxDepth, and skips only directories", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      NodeFs.mkdirSync(NodePath.join(root, "a", "b", "c"), { recursive: true })
      NodeFs.writeFileSync(NodePath.join(root, "a", "b", "c", "f"), "")
      NodeFs.writeFileSync(NodePath.join(root, "skipme"), "")
      NodeFs.mkdirSync(NodePath.join(root, "node_modules", "pkg"), { recursive: true })

      const two = yield* visitAll(root, { ...noTree, maxDepth: 2 })
      assert.deepStrictEqual(two.seen, ["a", "node_modules", "skipme", "a/b", "node_modules/pkg"])
      const one = yield* visitAll(root, { ...noTree, maxDepth: 1 })
      assert.deepStrictEqual(one.seen, ["a", "node_modules", "skipme"])

      const skipping = yield* visitAll(root, { ...noTree, skip: new Set(["node_modules", "skipme"]) })
      assert.deepStrictEqual(skipping.seen, ["a", "node_modules", "skipme", "a/b", "a/b/c", "a/b/c/f"])
      assert.deepStrictEqual(skipping.summary.skipped, ["node_modules"])

      const asked: Array<string> = []
      yield* Effect.scoped(Effect.gen(function*() {
        const base = yield* PathWalk.directory(root, ".")
        yield* PathWalk.tree(base, {
          ...noTree,
          maxDepth: 1,
          admit: (visit, enters) => {
            asked.push(`${visit.relative}:${enters}`)
            return true
          }
        }, () => Effect.succeed(true))
      }))
      assert.deepStrictEqual(asked, ["a:false", "node_modules:false", "skipme:false"])
    }))

  it.scoped("tree counts a subdirectory gone before it is entered as unreadable, not one turned into a file", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      NodeFs.mkdirSync(NodePath.join(root, "gone"))
      NodeFs.mkdirSync(NodePath.join(root, "nowFile"))
      NodeFs.mkdirSync(NodePath.join(root, "nowLink"))
      NodeFs.mkdirSync(NodePath.join(root, "kept"))
      NodeFs.writeFileSync(NodePath.join(root, "kept", "k"), "")
      const seen: Array<string> = []
      const summary = yield* Effect.scoped(Effect.gen(function*() {
        const base = yield* PathWalk.directory(root, ".")
        return yield* PathWalk.tree(base, noTree, (visit) =>
          Effect.sync(() => {
            seen.push(visit.relative)
            const path = NodePath.join(root, visit.relative)
            if (visit.relative === "gone") NodeFs.rmdirSync(path)
            if (visit.relative === "nowFile") {
              NodeFs.rmdirSync(path)
              NodeFs.writeFileSync(path, "")
            }
            if (visit.relative === "nowLink") {
              NodeFs.rmdirSync(path)
              NodeFs.symlinkSync("kept", path)
            }
            return true
          }))
      }))
      assert.deepStrictEqual(seen, ["gone", "kept", "nowFile", "nowLink", "kept/k"])
      assert.strictEqual(summary.unreadable, 1)
    }))

  it.scoped("writeAtomic writes a name as long as the system allows", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      const name = "w".repeat(250)
      yield* Effect.scoped(Effect.gen(function*() {
        const parent = yield* PathWalk.directory(root, ".")
        yield* PathWalk.writeAtomic(parent, name, new TextEncoder().encode("LONG\n"), undefined)
      }))
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, name), "utf8"), "LONG\n")
      assert.deepStrictEqual(NodeFs.readdirSync(root), [name])
    }))

  it.scoped("writeAtomic leaves alone a temporary name it did not create", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      // The same seed gives the same temporary name: someone else's file already has it.
      const seed = "pathwalk-edges"
      const n = yield* Effect.withRandom(Random.nextIntBetween(0, 2 ** 31 - 1), Random.make(seed))
      const theirs = NodePath.join(root, `.out.txt.${n.toString(36)}.tmp`)
      NodeFs.writeFileSync(theirs, "THEIRS\n")
      const exit = yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
        const parent = yield* PathWalk.directory(root, ".")
        yield* Effect.withRandom(
          PathWalk.writeAtomic(parent, "out.txt", new TextEncoder().encode("MINE\n"), undefined),
          Random.make(seed)
        )
      })))
      assert.strictEqual(failureOf(exit), "Errno:EEXIST")
      assert.strictEqual(NodeFs.readFileSync(theirs, "utf8"), "THEIRS\n")
      assert.isFalse(NodeFs.existsSync(NodePath.join(root, "out.txt")))
    }))
})

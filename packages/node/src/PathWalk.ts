/**
 * Walking a path of the workspace one component at a time, from open
 * directory descriptors, so that no race with another process (a shell
 * command swapping a directory for a symbolic link) can lead a file tool
 * outside the workspace.
 *
 * Resolving a path and then opening it by path is a race: between the two,
 * any directory of the path can become a link. Linux answers that with
 * `openat2(RESOLVE_BENEATH)`, which Node does not offer, nor even `openat`.
 * So the walk emulates `openat`: the directory reached so far is held open,
 * and its next component is opened as `/proc/self/fd/<dirfd>/<name>` with
 * `O_NOFOLLOW`. `/proc/self/fd/<dirfd>` is a magic link: the kernel jumps to
 * the directory the descriptor holds, it does not resolve a path again, so
 * only `<name>` is looked up, in that directory, and a link there is never
 * followed. A component that is a link is read instead, its target resolved
 * against the directory reached so far and walked again from the root, and
 * refused when it leaves the root (at most 40 links, as Linux allows).
 *
 * Every descriptor the walk opens is checked after opening (`fstat` for its
 * type, `readlink /proc/self/fd/<fd>` inside the root: a directory moved
 * out while held is caught), and closed when its scope ends, interrupted or
 * not. Writes create their temporary file in the held directory
 * (`O_CREAT | O_EXCL | O_NOFOLLOW`) and rename it within that directory, so
 * neither the data nor a leftover temporary file can land elsewhere.
 *
 * Hard links are allowed: a file with several names (pnpm's store links
 * every package file into `node_modules`) is an ordinary file. Only someone
 * who can already read a file can link to it, and a rename replaces the
 * workspace's name without writing through to the other names; keeping
 * files out of reach of commands is the OS sandbox's job.
 *
 * Without `/proc/self/fd` (macOS, a Linux without `/proc`), the same walk
 * runs on paths: every component is still opened with `O_NOFOLLOW` and
 * every link checked, but a directory already walked can be swapped before
 * its child is opened. That gap is documented, not closed.
 *
 * @since 0.3.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import type * as Scope from "effect/Scope"
import * as NodeFs from "node:fs"
import * as NFS from "node:fs/promises"
import * as NodePath from "node:path"
import * as Workspace from "./Workspace.js"

// ---------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------

/**
 * A system call failed; only its code is kept (node's message holds host
 * paths).
 *
 * @since 0.3.0
 * @category errors
 */
export class Errno extends Data.TaggedError("Errno")<{ readonly code: string }> {}

/**
 * Why a walk refused to go on: the path leaves the root as written
 * (`outside`), through a link (`symlink`), through too many links (`loop`),
 * or a descriptor it opened turned out to be outside the root (`moved`:
 * something was moved out while the walk held it).
 *
 * @since 0.3.0
 * @category errors
 */
export class Escape extends Data.TaggedError("Escape")<{
  readonly problem: "outside" | "symlink" | "loop" | "moved"
}> {}

/**
 * @since 0.3.0
 * @category errors
 */
export type Failure = Errno | Escape

const codeOf = (cause: unknown): string =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : "UNKNOWN"

const syscall = <A>(f: () => Promise<A>): Effect.Effect<A, Errno> =>
  Effect.tryPromise({ try: f, catch: (cause) => new Errno({ code: codeOf(cause) }) })

// ---------------------------------------------------------------------------
// descriptors
// ---------------------------------------------------------------------------

const C = NodeFs.constants
// O_NOFOLLOW everywhere: a link is read and walked, never followed by the kernel. O_NONBLOCK on
// files: opening a FIFO must not block a thread of the pool forever. (libuv adds O_CLOEXEC, so no
// command the shell tool starts inherits a descriptor.)
const directoryFlags = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW
const fileFlags = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK
const createFlags = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW

/** Links followed in one walk, as Linux allows (`MAXSYMLINKS`). */
const maxLinks = 40

/**
 * An open directory inside the workspace.
 *
 * @since 0.3.0
 * @category models
 */
export interface Directory {
  /** The workspace root, as a real path. */
  readonly root: string
  /** Where the walk reached it: a link-free absolute path inside the root. */
  readonly real: string
  /**
   * What names it at the start of a path: `/proc/self/fd/<fd>`, or, without
   * descriptor support, `real`.
   */
  readonly ref: string
  readonly handle: NFS.FileHandle
  /** Closes it now rather than when its scope ends; idempotent. */
  readonly close: Effect.Effect<void>
}

/**
 * A name in a held directory, as a walk for a file found it: `stats` is its
 * `lstat` (never a link: links are followed by the walk), `undefined` when
 * nothing has that name.
 *
 * @since 0.3.0
 * @category models
 */
export interface Entry {
  readonly parent: Directory
  readonly name: string
  /** `parent.real` joined with `name`. */
  readonly real: string
  readonly stats: NodeFs.Stats | undefined
}

/**
 * An open regular file (or, for the caller to refuse, another kind) and
 * its `fstat`.
 *
 * @since 0.3.0
 * @category models
 */
export interface File {
  readonly handle: NFS.FileHandle
  readonly stats: NodeFs.Stats
}

const child = (directory: Directory, name: string) => `${directory.ref}/${name}`

const descriptorPath = (handle: NFS.FileHandle) => `/proc/self/fd/${handle.fd}`

/**
 * Opens `path` in the current scope; it closes with the scope, or earlier
 * through `close`. `opened` runs as part of the uninterruptible acquisition,
 * so a caller learns of every descriptor it must account for.
 */
const hold = (path: string, flags: number, opened?: () => void) =>
  Effect.acquireRelease(
    Effect.map(syscall(() => NFS.open(path, flags)), (handle) => {
      opened?.()
      let closed = false
      const close = Effect.suspend(() => {
        if (closed) return Effect.void
        closed = true
        return Effect.ignore(syscall(() => handle.close()))
      })
      return { handle, close }
    }),
    ({ close }) => close
  )

/**
 * Defence in depth: the kernel's own name for what a descriptor holds must
 * be inside the root. `O_NOFOLLOW` already keeps links out; this catches a
 * directory moved out of the workspace while it was held.
 */
const verify = (root: string, handle: NFS.FileHandle): Effect.Effect<void, Failure> =>
  Effect.flatMap(
    syscall(() => NFS.readlink(descriptorPath(handle))),
    (path) =>
      Workspace.isInside(root, path.endsWith(" (deleted)") ? path.slice(0, -" (deleted)".length) : path)
        ? Effect.void
        : Effect.fail(new Escape({ problem: "moved" }))
  )

/**
 * Opens the workspace root, scoped. `root` is its real path
 * (`Workspace.Service.root`), and the kernel's name for the descriptor must
 * be exactly that, or the root was swapped; when `/proc/self/fd` does not
 * exist, the walk works on paths.
 *
 * @since 0.3.0
 * @category constructors
 */
export const openRoot = (root: string): Effect.Effect<Directory, Failure, Scope.Scope> =>
  Effect.gen(function*() {
    const { close, handle } = yield* hold(root, directoryFlags)
    const named = yield* Effect.either(syscall(() => NFS.readlink(descriptorPath(handle))))
    if (named._tag === "Left") {
      if (named.left.code !== "ENOENT") return yield* named.left
      return { root, real: root, ref: root, handle, close }
    }
    if (named.right !== root) return yield* new Escape({ problem: "moved" })
    return { root, real: root, ref: descriptorPath(handle), handle, close }
  })

/**
 * Opens the directory `name` in `parent`, scoped, without following a link
 * (`ELOOP` or `ENOTDIR` when `name` is one).
 *
 * @since 0.3.0
 * @category constructors
 */
export const openDirectory = (parent: Directory, name: string): Effect.Effect<Directory, Failure, Scope.Scope> =>
  Effect.gen(function*() {
    const { close, handle } = yield* hold(child(parent, name), directoryFlags)
    const real = NodePath.join(parent.real, name)
    if (parent.ref === parent.real) return { root: parent.root, real, ref: real, handle, close }
    yield* verify(parent.root, handle)
    return { root: parent.root, real, ref: descriptorPath(handle), handle, close }
  })

/**
 * Opens the file `name` in `parent` for reading, scoped, without following
 * a link (`ELOOP` when `name` is one). The caller checks `stats` for the
 * kind of file it accepts.
 *
 * @since 0.3.0
 * @category constructors
 */
export const openFile = (parent: Directory, name: string): Effect.Effect<File, Failure, Scope.Scope> =>
  Effect.gen(function*() {
    const { handle } = yield* hold(child(parent, name), fileFlags)
    if (parent.ref !== parent.real) yield* verify(parent.root, handle)
    const stats = yield* syscall(() => handle.stat())
    return { handle, stats }
  })

/**
 * The entries of a held directory, with their types as the directory
 * records them (a link is a link, never its target).
 *
 * @since 0.3.0
 * @category reading
 */
export const list = (directory: Directory): Effect.Effect<Array<NodeFs.Dirent>, Errno> =>
  syscall(() => NFS.readdir(directory.ref, { withFileTypes: true }))

// ---------------------------------------------------------------------------
// the walk
// ---------------------------------------------------------------------------

/** The components of `target` below `root`, lexically; `..` cannot climb out. */
const componentsOf = (root: string, target: string): Effect.Effect<Array<string>, Escape> => {
  const absolute = NodePath.resolve(root, target)
  if (!Workspace.isInside(root, absolute)) return Effect.fail(new Escape({ problem: "outside" }))
  const relative = NodePath.relative(root, absolute)
  return Effect.succeed(relative === "" ? [] : relative.split(NodePath.sep))
}

type Goal = "directory" | "entry"

interface WalkOptions {
  readonly createParents: boolean
}

/**
 * The walk itself. `current` is the directory reached, `rest` the
 * components still to go; a link met on the way replaces `rest` with its
 * target's components (plus what followed the link) and starts again from
 * the root, which is held for the whole walk.
 */
function walk(
  root: string,
  target: string,
  goal: "directory",
  options: WalkOptions
): Effect.Effect<Directory, Failure, Scope.Scope>
function walk(
  root: string,
  target: string,
  goal: "entry",
  options: WalkOptions
): Effect.Effect<Entry, Failure, Scope.Scope>
function walk(
  root: string,
  target: string,
  goal: Goal,
  options: WalkOptions
): Effect.Effect<Directory | Entry, Failure, Scope.Scope> {
  return Effect.gen(function*() {
    const top = yield* openRoot(root)
    let current = top
    let rest = yield* componentsOf(root, target)
    // Links followed, and retries of a component that changed kind between two system calls.
    let turns = 0
    const moveTo = (next: Directory) =>
      Effect.map(current === top ? Effect.void : current.close, () => {
        current = next
      })
    /** Walks on from the link `name` in `current`; `false` when it is not (or no longer) a link. */
    const follow = (name: string, after: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        if (++turns > maxLinks) return yield* new Escape({ problem: "loop" })
        const link = yield* Effect.either(syscall(() => NFS.readlink(child(current, name))))
        if (link._tag === "Left") {
          // EINVAL: not a link (any more); ENOENT: gone. The caller looks again.
          if (link.left.code === "EINVAL" || link.left.code === "ENOENT") return false
          return yield* link.left
        }
        const resolved = NodePath.resolve(current.real, link.right)
        if (!Workspace.isInside(root, resolved)) return yield* new Escape({ problem: "symlink" })
        rest = [...(yield* componentsOf(root, resolved)), ...after]
        yield* moveTo(top)
        return true
      })

    for (;;) {
      const [name, ...after] = rest
      if (name === undefined) {
        if (goal === "directory") return current
        // A file was asked for, and the path names a directory (the root, or a link to one).
        return yield* new Errno({ code: "EISDIR" })
      }
      if (goal === "entry" && after.length === 0) {
        const stats = yield* syscall(() => NFS.lstat(child(current, name))).pipe(
          Effect.catchIf((error) => error.code === "ENOENT", () => Effect.succeed(undefined))
        )
        if (stats?.isSymbolicLink() === true) {
          yield* follow(name, after)
          continue
        }
        return { parent: current, name, real: NodePath.join(current.real, name), stats }
      }
      const opened = yield* Effect.either(openDirectory(current, name))
      if (opened._tag === "Right") {
        yield* moveTo(opened.right)
        rest = after
        continue
      }
      const error = opened.left
      if (error._tag === "Errno" && (error.code === "ELOOP" || error.code === "ENOTDIR")) {
        if (yield* follow(name, after)) continue
        if (error.code === "ENOTDIR") {
          // Not a link: a file where a directory was needed, unless it changed again meanwhile.
          const stats = yield* Effect.either(syscall(() => NFS.lstat(child(current, name))))
          if (stats._tag === "Right" && !stats.right.isDirectory() && !stats.right.isSymbolicLink()) {
            return yield* error
          }
        }
        continue
      }
      if (error._tag === "Errno" && error.code === "ENOENT" && options.createParents && after.length > 0) {
        if (++turns > maxLinks) return yield* new Escape({ problem: "loop" })
        // mkdir never follows a link in its last component; the open that follows checks what is there.
        yield* syscall(() => NFS.mkdir(child(current, name))).pipe(
          Effect.catchIf((error) => error.code === "EEXIST", () => Effect.void)
        )
        continue
      }
      return yield* error
    }
  })
}

/**
 * Walks to the directory `path` (absolute, or relative to `root`) and opens
 * it, scoped. Links on the way are followed only while they stay inside.
 *
 * @since 0.3.0
 * @category walking
 */
export const directory = (root: string, path: string): Effect.Effect<Directory, Failure, Scope.Scope> =>
  walk(root, path, "directory", { createParents: false })

/**
 * Walks to the parent directory of `path` and opens it, scoped, and looks
 * the last name up there. A link there is followed (inside only) to what it
 * names, so the entry is never a link. `createParents` makes missing
 * directories on the way, each in the directory held before it.
 *
 * @since 0.3.0
 * @category walking
 */
export const entry = (
  root: string,
  path: string,
  options?: { readonly createParents?: boolean | undefined }
): Effect.Effect<Entry, Failure, Scope.Scope> =>
  walk(root, path, "entry", { createParents: options?.createParents ?? false })

// ---------------------------------------------------------------------------
// trees
// ---------------------------------------------------------------------------

/**
 * What a directory entry is, as the directory records it: a link is a
 * link, never its target.
 *
 * @since 0.3.0
 * @category trees
 */
export type Kind = "file" | "directory" | "symlink" | "other"

/**
 * @since 0.3.0
 * @category trees
 */
export const kindOf = (entry: NodeFs.Dirent): Kind =>
  entry.isDirectory() ? "directory" : entry.isFile() ? "file" : entry.isSymbolicLink() ? "symlink" : "other"

/**
 * One entry met by {@link tree}, with the held directory it is in (open a
 * file there with {@link openFile}).
 *
 * @since 0.3.0
 * @category trees
 */
export interface Visit {
  readonly directory: Directory
  readonly name: string
  readonly real: string
  /** Relative to the walk's base, `/`-separated. */
  readonly relative: string
  readonly kind: Kind
}

/**
 * @since 0.3.0
 * @category trees
 */
export interface TreeOptions {
  /** Levels below the base whose entries are visited; `Infinity` for all. */
  readonly maxDepth: number
  /** Directory names not entered. */
  readonly skip: ReadonlySet<string>
  /** Entries visited before the walk stops. */
  readonly maxScanned: number
  /**
   * Whether an entry may be visited and, when it is a directory, entered;
   * asked before either, with `enters` saying whether the walk would enter
   * it. Here rather than in `visit` because `visit` runs after the walk has
   * chosen the directories to enter, and a refused directory must not be
   * opened at all. Default: every entry.
   */
  readonly admit?: ((entry: Visit, enters: boolean) => boolean) | undefined
}

/**
 * @since 0.3.0
 * @category trees
 */
export interface TreeSummary {
  readonly scanned: number
  /** The names in `skip` that were met. */
  readonly skipped: ReadonlyArray<string>
  /** Subdirectories that could not be opened or listed. */
  readonly unreadable: number
  /** Whether the walk stopped early: `maxScanned`, or `visit` said so. */
  readonly exhausted: boolean
}

const byName = (a: NodeFs.Dirent, b: NodeFs.Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/**
 * Visits the tree under the held directory `base`, names sorted, each
 * directory's entries before its subdirectories'; `visit` says whether to
 * go on. Links are visited, never entered. A subdirectory is opened from its
 * held parent with `O_NOFOLLOW`, so one swapped for a link after it was
 * listed is not entered either. Only the directories from `base` down to the
 * one being read are held open at once. An entry `options.admit` refuses is
 * neither visited nor entered. Fails only when `base` cannot be listed.
 *
 * @since 0.3.0
 * @category trees
 */
export const tree = <E>(
  base: Directory,
  options: TreeOptions,
  visit: (entry: Visit) => Effect.Effect<boolean, E>
): Effect.Effect<TreeSummary, E | Errno> =>
  Effect.suspend(() => {
    const skipped = new Set<string>()
    let scanned = 0
    let unreadable = 0
    let stopped = false
    const enter = (
      directory: Directory,
      relative: string,
      depth: number,
      entries: Array<NodeFs.Dirent>
    ): Effect.Effect<void, E> =>
      Effect.gen(function*() {
        entries.sort(byName)
        const subdirectories: Array<string> = []
        for (const entry of entries) {
          if (stopped) return
          if (++scanned > options.maxScanned) {
            stopped = true
            return
          }
          const kind = kindOf(entry)
          const met: Visit = {
            directory,
            name: entry.name,
            real: NodePath.join(directory.real, entry.name),
            relative: relative === "" ? entry.name : `${relative}/${entry.name}`,
            kind
          }
          const deepEnough = kind === "directory" && depth + 1 < options.maxDepth
          const enters = deepEnough && !options.skip.has(entry.name)
          if (options.admit !== undefined && !options.admit(met, enters)) continue
          if (deepEnough) {
            if (enters) subdirectories.push(entry.name)
            else skipped.add(entry.name)
          }
          const goOn = yield* visit(met)
          if (!goOn) stopped = true
        }
        for (const name of subdirectories) {
          if (stopped) return
          const path = relative === "" ? name : `${relative}/${name}`
          yield* Effect.scoped(Effect.gen(function*() {
            const listed = yield* Effect.either(
              Effect.flatMap(
                openDirectory(directory, name),
                (opened) => Effect.map(list(opened), (children) => ({ opened, children }))
              )
            )
            if (listed._tag === "Right") {
              return yield* enter(listed.right.opened, path, depth + 1, listed.right.children)
            }
            const error = listed.left
            // No longer a directory (a link or a file now): nothing to enter. Anything else is worth a note.
            if (!(error._tag === "Errno" && (error.code === "ELOOP" || error.code === "ENOTDIR"))) unreadable++
          }))
        }
      })
    return Effect.flatMap(list(base), (entries) =>
      Effect.map(
        enter(base, "", 0, entries),
        (): TreeSummary => ({ scanned, skipped: Array.from(skipped), unreadable, exhausted: stopped })
      ))
  })

// ---------------------------------------------------------------------------
// writing
// ---------------------------------------------------------------------------

/**
 * Writes `data` as `name` in `parent`, atomically: a temporary file created
 * exclusively in that same directory (it never follows a link) and renamed
 * over `name` there (a rename replaces a link rather than follow it).
 * Readers see the old content or the new, never a mix; a failure or an
 * interruption removes the temporary file and leaves `name` as it was. Not
 * fsync'd: atomic, not durable across a power cut. `mode` is set exactly
 * (the umask may have cleared bits); without it, a new file's default.
 *
 * @since 0.3.0
 * @category writing
 */
export const writeAtomic = (
  parent: Directory,
  name: string,
  data: Uint8Array,
  mode: number | undefined
): Effect.Effect<void, Errno> =>
  Effect.flatMap(Random.nextIntBetween(0, 2 ** 31 - 1), (n) => {
    const temporary = child(parent, `.${name.slice(0, 64)}.${n.toString(36)}.tmp`)
    let created = false
    return Effect.scoped(Effect.gen(function*() {
      const { close, handle } = yield* hold(temporary, createFlags, () => {
        created = true
      })
      yield* syscall(() => handle.writeFile(data))
      if (mode !== undefined) yield* syscall(() => handle.chmod(mode))
      yield* close
      yield* syscall(() => NFS.rename(temporary, child(parent, name)))
    })).pipe(
      // Only a file this call created is removed: an O_EXCL failure means the name was someone else's.
      Effect.onError(() => created ? Effect.ignore(syscall(() => NFS.unlink(temporary))) : Effect.void)
    )
  })

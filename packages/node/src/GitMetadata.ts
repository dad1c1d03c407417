/**
 * Keeps the git repositories in a sandbox's writable trees the user's: a
 * confined command may commit, but not change what the user's own,
 * unconfined git runs later.
 *
 * Git runs code from its metadata: hooks (`.git/hooks/pre-commit` on the
 * next commit), and configuration (`core.fsmonitor` on every `git status`,
 * `core.hooksPath`, `core.sshCommand`, aliases, filter and diff drivers).
 * Neither shows in a diff, so a command that writes them outlives the
 * review of everything else it did. For each repository whose metadata
 * lies in a writable tree when a command starts, the sandbox therefore
 * binds read-only:
 *
 * - the `hooks` directory and the `config` file of the git directory (an
 *   empty read-only `hooks` is mounted where there is none: bubblewrap
 *   leaves an empty directory behind, which is what `git init` makes too);
 * - the same in every submodule's git directory (`.git/modules/…`) and in
 *   every repository nested in the tree (`vendor/lib/.git`);
 * - a `.git` file (a worktree's or a submodule's `gitdir:` pointer), which
 *   could otherwise point git at a directory the command filled, and the
 *   `hooks` and `config` of the git directory it names, when that lies in
 *   a writable tree too.
 *
 * The `.git` directory itself is bound over itself (writable): a mount
 * point cannot be renamed or removed, so a command cannot move the real
 * one aside and put a forged one in its place. Objects, refs, the index,
 * `HEAD` and logs stay writable: `git add` and `git commit` work; `git
 * config`, `git remote add` and other commands that write the
 * configuration fail.
 *
 * Limits. A repository created by the command itself (`git init`, or a
 * `.git` written by hand) did not exist when the mounts were made: the
 * command can write its hooks and configuration, and they count as that
 * command's work like any script it wrote. From the next command on the
 * repository is protected. A `commondir` file written into a git
 * directory (git then reads configuration and hooks from the directory it
 * names) cannot be prevented by a mount without breaking git (an empty
 * `commondir` makes git die); neither can a sequencer's todo list with
 * `exec` lines. A `.git` that is a symbolic link is not protected. Nested
 * repositories are found down to five levels below a writable root, within
 * 50,000 entries, outside `node_modules`.
 *
 * @since 0.4.0
 */
import * as Either from "effect/Either"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

/**
 * The mounts that protect the repositories under the writable trees.
 *
 * @since 0.4.0
 * @category models
 */
export interface Protection {
  /** Bound over themselves, writable: mount points cannot be renamed or removed. */
  readonly pinned: ReadonlyArray<string>
  /** Bound read-only over themselves. */
  readonly readOnly: ReadonlyArray<string>
  /** Missing `hooks` directories: an empty read-only directory is mounted there. */
  readonly emptyHooks: ReadonlyArray<string>
}

const lstatOf = (path: string): NodeFs.Stats | undefined =>
  Either.getOrUndefined(Either.try(() => NodeFs.lstatSync(path)))

const readText = (path: string): string | undefined =>
  Either.getOrUndefined(Either.try(() => NodeFs.readFileSync(path, "utf8")))

const entriesOf = (directory: string): ReadonlyArray<NodeFs.Dirent> =>
  Either.getOrElse(Either.try(() => NodeFs.readdirSync(directory, { withFileTypes: true })), () => [])

const realOf = (path: string): string | undefined => Either.getOrUndefined(Either.try(() => NodeFs.realpathSync(path)))

const inside = (path: string, root: string) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`)

/** How deep submodules of submodules are followed. */
const maxModuleDepth = 4

/** How deep below a writable root nested repositories are looked for, and how many entries at most. */
const maxNestedDepth = 5
const maxNestedDirectories = 50_000

/**
 * What to mount so that commands cannot change the repositories whose
 * metadata lies under `writable` (real paths) now.
 *
 * @since 0.4.0
 * @category constructors
 */
export const protection = (writable: ReadonlyArray<string>): Protection => {
  const pinned = new Set<string>()
  const readOnly = new Set<string>()
  const emptyHooks = new Set<string>()
  const done = new Set<string>()
  const writableHere = (path: string) => writable.some((root) => inside(path, root))

  const protectGitDir = (gitDir: string, depth: number): void => {
    if (done.has(gitDir) || !writableHere(gitDir)) return
    done.add(gitDir)
    const hooks = NodePath.join(gitDir, "hooks")
    const hooksStat = lstatOf(hooks)
    if (hooksStat === undefined) emptyHooks.add(hooks)
    else if (!hooksStat.isSymbolicLink()) readOnly.add(hooks)
    for (const file of ["config", "config.worktree"]) {
      const stat = lstatOf(NodePath.join(gitDir, file))
      if (stat !== undefined && stat.isFile()) readOnly.add(NodePath.join(gitDir, file))
    }
    // A linked worktree's git directory reads hooks and configuration from the common one.
    const commondir = readText(NodePath.join(gitDir, "commondir"))?.trim()
    if (commondir !== undefined && commondir !== "") {
      readOnly.add(NodePath.join(gitDir, "commondir"))
      const common = realOf(NodePath.resolve(gitDir, commondir))
      if (common !== undefined) protectGitDir(common, depth)
    }
    // Linked worktrees: each one's `.git` file, where git finds it from here.
    const worktrees = NodePath.join(gitDir, "worktrees")
    for (const entry of entriesOf(worktrees)) {
      if (!entry.isDirectory()) continue
      const pointer = readText(NodePath.join(worktrees, entry.name, "gitdir"))?.trim()
      for (const file of ["gitdir", "commondir"]) {
        if (lstatOf(NodePath.join(worktrees, entry.name, file))?.isFile() === true) {
          readOnly.add(NodePath.join(worktrees, entry.name, file))
        }
      }
      const dotGit = pointer === undefined || pointer === "" ? undefined : NodePath.resolve(gitDir, pointer)
      if (dotGit !== undefined && writableHere(dotGit) && lstatOf(dotGit)?.isFile() === true) readOnly.add(dotGit)
    }
    if (depth >= maxModuleDepth) return
    const modules = NodePath.join(gitDir, "modules")
    for (
      const entry of entriesOf(modules)
    ) {
      if (entry.isDirectory()) protectModules(NodePath.join(modules, entry.name), depth + 1)
    }
  }

  /** A module's directory is a git directory, or holds nested ones (`modules/a/b` for a module named `a/b`). */
  const protectModules = (directory: string, depth: number): void => {
    if (lstatOf(NodePath.join(directory, "HEAD")) !== undefined) return protectGitDir(directory, depth)
    if (depth >= maxModuleDepth) return
    for (
      const entry of entriesOf(directory)
    ) {
      if (entry.isDirectory()) protectModules(NodePath.join(directory, entry.name), depth + 1)
    }
  }

  const protectDotGit = (worktree: string): void => {
    const dotGit = NodePath.join(worktree, ".git")
    const stat = lstatOf(dotGit)
    if (stat === undefined || stat.isSymbolicLink()) return
    if (stat.isDirectory()) {
      pinned.add(dotGit)
      protectGitDir(dotGit, 0)
      return
    }
    if (!stat.isFile()) return
    readOnly.add(dotGit)
    const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? "")?.[1]
    const gitDir = pointer === undefined ? undefined : realOf(NodePath.resolve(worktree, pointer))
    if (gitDir !== undefined) protectGitDir(gitDir, 0)
  }

  // Repositories nested in the tree (a vendored library, a sample project) are the
  // user's too: their hooks run in the user's git as well. Found by a walk as deep
  // and as wide as such repositories sit; `node_modules` and git directories are
  // not entered.
  const nested = (root: string): void => {
    let level: Array<string> = [root]
    let visited = 0
    for (let depth = 0; depth < maxNestedDepth && level.length > 0; depth++) {
      const next: Array<string> = []
      for (const directory of level) {
        for (const entry of entriesOf(directory)) {
          if (++visited > maxNestedDirectories) return
          if (entry.name === ".git") {
            if (directory !== root) protectDotGit(directory)
          } else if (entry.isDirectory() && entry.name !== "node_modules") {
            next.push(NodePath.join(directory, entry.name))
          }
        }
      }
      level = next
    }
  }

  for (const root of writable) {
    protectDotGit(root)
    nested(root)
    // Submodules' `.git` files, at the paths `.gitmodules` names.
    const gitmodules = readText(NodePath.join(root, ".gitmodules")) ?? ""
    for (const match of gitmodules.matchAll(/^\s*path\s*=\s*(.+?)\s*$/gm)) {
      const worktree = NodePath.resolve(root, match[1]!)
      if (inside(worktree, root)) protectDotGit(worktree)
    }
  }
  return { pinned: [...pinned], readOnly: [...readOnly], emptyHooks: [...emptyHooks] }
}

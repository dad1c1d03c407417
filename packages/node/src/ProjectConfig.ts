/**
 * Keeps the files at the top of a sandbox's writable trees that grant
 * permissions or run code in the user's tools out of a confined command's
 * reach.
 *
 * A confined command may write anywhere in the workspace, and the
 * permission engine reads only the commands it can follow. Without this, a
 * line it cannot follow (`python3 -c "open('.tool-runtime/settings.json',
 * 'w')…"`) could write the project's settings file, and the next session
 * over the workspace would start with the rules the model wrote; or a
 * `.vscode/tasks.json`, a `.envrc`, an `.npmrc` that the user's own,
 * unconfined tools run later. For each writable root the sandbox therefore
 * binds read-only, at each command's start:
 *
 * - the entries below, where they exist at the top of the tree (an entry
 *   that is a symbolic link: its target, when that lies in a writable tree;
 *   elsewhere it is read-only already);
 * - `.tool-runtime`, this runtime's own settings directory, also where it
 *   does not exist: an empty read-only directory is mounted there (the
 *   host is left an empty directory, as for a missing `.git/hooks`).
 *
 * A mount point cannot be renamed or removed, so `mv .npmrc aside` fails
 * as a write to it does. Left writable on purpose, though the engine asks
 * before the commands it reads write them: what package managers and build
 * tools write in a normal run (`.yarn`, `.pnp.cjs`, `.husky`, `.mvn`), and
 * `.claude`, whose `worktrees` hold agents' checkouts. Deeper copies
 * (`packages/a/.npmrc`) and entries a command creates itself, other than
 * `.tool-runtime`, are not covered; the engine's protected paths are.
 *
 * @since 0.4.0
 */
import * as ProtectedTargets from "@tool-runtime/permissions/ProtectedTargets"
import * as Either from "effect/Either"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

/** What package managers and build tools write in a normal run, `.claude` (its worktrees), and git (see `GitMetadata`). */
const leftWritable = new Set([".git", ".yarn", ".pnp.cjs", ".husky", ".mvn", ".claude"])

/**
 * The entries bound read-only where they exist at the top of a writable
 * tree: the permission engine's protected names (`ProtectedTargets`) but
 * those left writable, and `.claude`'s settings files.
 *
 * @since 0.4.0
 * @category protection
 */
export const entries: ReadonlyArray<string> = [
  ...[...ProtectedTargets.protectedDirectories, ...ProtectedTargets.protectedFiles].filter((name) =>
    !leftWritable.has(name)
  ),
  ".claude/settings.json",
  ".claude/settings.local.json"
]

/**
 * The mounts that protect the settings at the top of the writable trees.
 *
 * @since 0.4.0
 * @category models
 */
export interface Protection {
  /** Real paths bound read-only over themselves. */
  readonly readOnly: ReadonlyArray<string>
  /** Missing `.tool-runtime` directories: an empty read-only directory is mounted there. */
  readonly empty: ReadonlyArray<string>
}

const lstatOf = (path: string): NodeFs.Stats | undefined =>
  Either.getOrUndefined(Either.try(() => NodeFs.lstatSync(path)))

const realOf = (path: string): string | undefined => Either.getOrUndefined(Either.try(() => NodeFs.realpathSync(path)))

const inside = (path: string, root: string) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`)

/**
 * The mounts for the given writable roots (real paths).
 *
 * @since 0.4.0
 * @category protection
 */
export const protection = (writable: ReadonlyArray<string>): Protection => {
  const readOnly = new Set<string>()
  const empty = new Set<string>()
  for (const root of writable) {
    for (const entry of entries) {
      const path = NodePath.join(root, entry)
      const stat = lstatOf(path)
      if (stat === undefined) {
        // Only a missing directory can get a mount point without leaving a file behind that a
        // tool would read (an empty `.npmrc` is a setting too); ours is the one that grants
        // permissions to the next session. A parent that is a link is left to the engine.
        if (entry === ".tool-runtime" && lstatOf(root)?.isDirectory() === true) empty.add(path)
        continue
      }
      // Through a link (the entry, or `.claude` for its settings): the place a write lands. A
      // writable root itself stays writable: the user named it so.
      const target = realOf(path)
      if (target === undefined || writable.includes(target)) continue
      if (writable.some((other) => inside(target, other))) readOnly.add(target)
    }
  }
  return { readOnly: [...readOnly], empty: [...empty] }
}

/**
 * What a confined command sees of the filesystem: which trees are writable,
 * what is masked, pinned and bound read-only inside them, worked out
 * afresh at each command's start, and the bubblewrap mounts that make it so.
 *
 * The policies and the network models live here, below `Sandbox`, which
 * re-exports them: the layout needs them, and `Sandbox` needs the layout.
 *
 * @since 0.4.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as GitMetadata from "./GitMetadata.js"
import * as PathMask from "./PathMask.js"
import * as ProjectConfig from "./ProjectConfig.js"

// ---------------------------------------------------------------------------
// models
// ---------------------------------------------------------------------------

/**
 * @since 0.3.0
 * @category models
 */
export const Policy = Schema.Literal("read-only", "workspace-write", "danger-full-access")

/**
 * @since 0.3.0
 * @category models
 */
export type Policy = typeof Policy.Type

/**
 * How strict each policy is, for merging: the stricter one wins.
 *
 * @since 0.3.0
 * @category models
 */
export const strictness: Readonly<Record<Policy, number>> = {
  "read-only": 2,
  "workspace-write": 1,
  "danger-full-access": 0
}

/**
 * @since 0.3.0
 * @category models
 */
export type Network =
  | { readonly _tag: "Off" }
  | { readonly _tag: "On" }
  | {
    readonly _tag: "Allowlist"
    readonly allowedDomains: ReadonlyArray<string>
    readonly deniedDomains: ReadonlyArray<string>
  }

/**
 * What the layout is made from: the part of `Sandbox.Config` about files.
 *
 * @since 0.4.0
 * @category models
 */
export interface Input {
  /** The workspace root: writable under `workspace-write`. */
  readonly workspace: string
  /** Default `workspace-write`. */
  readonly policy?: Policy | undefined
  /** Writable beside the workspace under `workspace-write` (caches, a second checkout); `~/` is the home, a relative path is relative to the workspace. */
  readonly writablePaths?: ReadonlyArray<string> | undefined
  /** Masked for reading, added to {@link defaultDenyRead}; `~/` is the home, a relative path is relative to the workspace. */
  readonly denyRead?: ReadonlyArray<string> | undefined
  /** Replaces {@link defaultDenyRead} (relative to the home directory) when set. */
  readonly replaceDefaultDenyRead?: boolean | undefined
  /** Default off. */
  readonly network?: Network | undefined
  /** The home directory the default denied paths are under. Default `os.homedir()`. */
  readonly home?: string | undefined
  /**
   * Lets commands write the hooks and configuration of the git
   * repositories in the writable trees. Default `false`: both run code in
   * the user's own, unconfined git later (see `GitMetadata`).
   */
  readonly writableGitMetadata?: boolean | undefined
  /**
   * Masked for reading, as `denyRead` is, at each command's start: the
   * paths the permission engine's Read deny rules cover then.
   */
  readonly denyReadMatching?: ReadonlyArray<PathMask.PathMatcher> | undefined
  /** Bound read-only at each command's start: the paths Edit deny rules cover then. */
  readonly denyWriteMatching?: ReadonlyArray<PathMask.PathMatcher> | undefined
  /**
   * Entries one walk for the matchers may visit; past it the command is
   * refused. Default {@link PathMask.defaultLimit}.
   */
  readonly matchWalkLimit?: number | undefined
}

/**
 * Where `~` paths go: denied for reading unless `replaceDefaultDenyRead`.
 *
 * @since 0.3.0
 * @category defaults
 */
export const defaultDenyRead: ReadonlyArray<string> = [
  "~/.ssh",
  "~/.aws",
  "~/.config/gcloud",
  "~/.netrc",
  "~/.npmrc"
]

/**
 * A filesystem and network layout, independent of the backend.
 *
 * @since 0.3.0
 * @category models
 */
export interface Plan {
  readonly policy: Policy
  /** Real paths, readable and writable. */
  readonly writable: ReadonlyArray<string>
  /** Real paths, readable only (the workspace under `read-only`). */
  readonly readable: ReadonlyArray<string>
  /** Real paths that exist, masked. */
  readonly denied: ReadonlyArray<{ readonly path: string; readonly directory: boolean }>
  /** Inside `writable`: bound over themselves, so that they cannot be renamed or removed. */
  readonly pinned: ReadonlyArray<string>
  /** Inside `writable`: bound read-only over themselves. */
  readonly readOnly: ReadonlyArray<string>
  /** Missing directories inside `writable` where an empty read-only one is mounted. */
  readonly emptyReadOnly: ReadonlyArray<string>
  /** The host directory shown as `/tmp` inside. */
  readonly privateTmp: string
  readonly network: Network
}

// ---------------------------------------------------------------------------
// layout
// ---------------------------------------------------------------------------

const expandHome = (path: string, home: string): string =>
  path === "~" ? home : path.startsWith("~/") ? NodePath.join(home, path.slice(2)) : path

const realOrUndefined = (path: string): string | undefined =>
  Either.getOrUndefined(Either.try(() => NodeFs.realpathSync(path)))

/**
 * The directories to bind over themselves so that no protected path can be
 * moved aside. A directory holding a mount point can still be renamed:
 * without its own mount, `mv src aside && mkdir src` would put a new file
 * where the protected one was. Every directory between a writable root and
 * a protected path is pinned, shallowest first (a later bind of a parent
 * would cover the mounts below it).
 */
const pinnedFor = (
  writable: ReadonlyArray<string>,
  pinned: ReadonlyArray<string>,
  protectedPaths: ReadonlyArray<string>
): ReadonlyArray<string> => {
  const all = new Set(pinned)
  for (const path of protectedPaths) {
    const root = writable.find((root) => path.startsWith(`${root}/`))
    if (root === undefined) continue
    for (let parent = NodePath.dirname(path); parent.length > root.length; parent = NodePath.dirname(parent)) {
      all.add(parent)
    }
  }
  return [...all].sort((a, b) => a.split("/").length - b.split("/").length)
}

/**
 * The layout of a policy. Paths that do not exist are left out: nothing to bind or mask.
 *
 * @since 0.3.0
 * @category layout
 */
export const plan = (config: Input, policy: Policy, privateTmp: string): Plan => {
  const home = config.home ?? NodeOs.homedir()
  const workspace = realOrUndefined(config.workspace) ?? NodePath.resolve(config.workspace)
  // Relative entries are relative to the workspace, as denyRead's are: never
  // to wherever the process happens to have been started.
  const extra = (config.writablePaths ?? []).map((path) =>
    realOrUndefined(NodePath.resolve(workspace, expandHome(path, home)))
  )
    .filter((path): path is string => path !== undefined)
  const deniedInput = [...(config.replaceDefaultDenyRead === true ? [] : defaultDenyRead), ...(config.denyRead ?? [])]
  const denied: Array<{ path: string; directory: boolean }> = []
  const seen = new Set<string>()
  for (const input of deniedInput) {
    const absolute = NodePath.resolve(workspace, expandHome(input, home))
    const real = realOrUndefined(absolute)
    if (real === undefined || seen.has(real)) continue
    seen.add(real)
    const stat = Either.getOrUndefined(Either.try(() => NodeFs.statSync(real)))
    if (stat === undefined) continue
    denied.push({ path: real, directory: stat.isDirectory() })
  }
  const writable = policy === "workspace-write" ? [workspace, ...extra] : []
  const git = config.writableGitMetadata === true
    ? { pinned: [], readOnly: [], emptyHooks: [] }
    : GitMetadata.protection(writable)
  const settings = ProjectConfig.protection(writable)
  const readOnly = [...git.readOnly, ...settings.readOnly]
  const emptyReadOnly = [...git.emptyHooks, ...settings.empty]
  return {
    policy,
    writable,
    readable: policy === "read-only" ? [workspace] : [],
    denied,
    pinned: pinnedFor(writable, git.pinned, [...readOnly, ...emptyReadOnly]),
    readOnly,
    emptyReadOnly,
    privateTmp,
    network: config.network ?? { _tag: "Off" }
  }
}

/**
 * A plan with the paths the matchers cover now: read ones masked, write
 * ones bound read-only; fails when a walk passes its bound (the command
 * must then not run: a partial mask would hide less than the rules say).
 *
 * @since 0.4.0
 * @category layout
 */
export const withMatches = (config: Input, layout: Plan): Either.Either<Plan, PathMask.TooBroad> => {
  const read = config.denyReadMatching ?? []
  const write = layout.policy === "workspace-write" ? config.denyWriteMatching ?? [] : []
  if (read.length === 0 && write.length === 0) return Either.right(layout)
  return Either.match(PathMask.resolve({ read, write }, config.matchWalkLimit ?? PathMask.defaultLimit), {
    onLeft: Either.left,
    onRight: (masks) => {
      const seen = new Set(layout.denied.map((denied) => denied.path))
      const write = masks.write.map((found) => found.path)
      return Either.right({
        ...layout,
        pinned: pinnedFor(layout.writable, layout.pinned, write),
        denied: [...layout.denied, ...masks.read.filter((found) => !seen.has(found.path))],
        readOnly: [...layout.readOnly, ...write]
      })
    }
  })
}

/**
 * The bubblewrap arguments of a plan, before `--` and the command. Order
 * matters: later mounts cover earlier ones, so the writable trees come
 * first, then what is pinned and bound read-only inside them, and the
 * denied paths last.
 *
 * @since 0.3.0
 * @category layout
 */
export const bubblewrapArgs = (
  layout: Plan,
  cwd: string | undefined,
  seccompFd?: number | undefined
): ReadonlyArray<string> => {
  const args = [
    ...(seccompFd === undefined ? [] : ["--seccomp", String(seccompFd)]),
    "--die-with-parent",
    // Started by root, bubblewrap leaves the command every capability, and with
    // CAP_SYS_ADMIN it could unmount each mask and remount / read-write.
    "--cap-drop",
    "ALL",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(layout.network._tag === "On" ? [] : ["--unshare-net"]),
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--bind",
    layout.privateTmp,
    "/tmp"
  ]
  for (const path of layout.readable) args.push("--ro-bind", path, path)
  for (const path of layout.writable) args.push("--bind", path, path)
  for (const path of layout.pinned) args.push("--bind", path, path)
  for (const path of layout.readOnly) args.push("--ro-bind", path, path)
  for (const path of layout.emptyReadOnly) args.push("--tmpfs", path, "--remount-ro", path)
  for (const denied of layout.denied) {
    if (denied.directory) args.push("--tmpfs", denied.path, "--remount-ro", denied.path)
    else args.push("--ro-bind", "/dev/null", denied.path)
  }
  args.push("--setenv", "TMPDIR", "/tmp")
  if (cwd !== undefined) args.push("--chdir", cwd)
  return args
}

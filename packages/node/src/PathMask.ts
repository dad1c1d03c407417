/**
 * Deny rules as mounts: what a rule such as `Read(./secret/**)` or
 * `Edit(**\/*.env)` covers on disk when a command starts, so that the
 * sandbox can hide it (read) or bind it read-only (write) for that command.
 *
 * The permission engine judges a call by the paths it names; a command
 * names none it has to (`cat sec*\/x`, `grep -r . .`, a Python script). Only
 * the kernel sees every open, so the rules are mirrored into the sandbox as
 * mounts, computed again at each command's start.
 *
 * A matcher whose base is itself the denied path costs one `lstat`. Any
 * other is a walk under its base, one walk per base however many rules
 * share it: links are never followed (a link's target is masked where it
 * lies, when a rule covers it there), and a matching directory is masked
 * whole and not entered. A walk is bounded: past `limit` entries the
 * command is refused, naming the rule, rather than run with half a mask.
 *
 * What does not exist when the command starts cannot be masked; a command
 * that creates a file a rule covers can read it back.
 *
 * @since 0.4.0
 */
import * as Either from "effect/Either"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

/**
 * One deny rule, as the permission engine hands it over.
 *
 * @since 0.4.0
 * @category models
 */
export interface PathMatcher {
  /** An absolute path under which every match lies. */
  readonly base: string
  /** The base itself is what is denied: no walk needed. */
  readonly exact: boolean
  /** Whether an absolute path is covered; a directory covered covers what is under it. */
  readonly test: (absolutePath: string) => boolean
  /** The rule as written, for messages. */
  readonly rule: string
}

/**
 * A path to mount over.
 *
 * @since 0.4.0
 * @category models
 */
export interface Found {
  readonly path: string
  readonly directory: boolean
}

/**
 * @since 0.4.0
 * @category models
 */
export interface Masks {
  /** Hidden: an empty read-only directory, or an empty file. */
  readonly read: ReadonlyArray<Found>
  /** Bound read-only over themselves. */
  readonly write: ReadonlyArray<Found>
  /** Directory entries looked at, over every walk. */
  readonly visited: number
}

/**
 * A walk passed its bound.
 *
 * @since 0.4.0
 * @category models
 */
export interface TooBroad {
  readonly rule: string
  readonly base: string
  readonly limit: number
}

/**
 * Entries one walk may look at before the command is refused. A walk of
 * 20,000 entries took 33–53 ms here (a loaded two-core machine, where a bare
 * `readdir` walk of the same tree took 25–45 ms), so the bound is a few
 * hundred milliseconds of synchronous work per command: the walk blocks the
 * event loop while it runs.
 *
 * @since 0.4.0
 * @category defaults
 */
export const defaultLimit = 100_000

const lstatOf = (path: string): NodeFs.Stats | undefined =>
  Either.getOrUndefined(Either.try(() => NodeFs.lstatSync(path)))

const readdirOf = (path: string): ReadonlyArray<NodeFs.Dirent> =>
  Either.getOrElse(Either.try(() => NodeFs.readdirSync(path, { withFileTypes: true })), () => [])

interface Tagged {
  readonly matcher: PathMatcher
  readonly kind: "read" | "write"
}

/**
 * The existing paths the matchers cover, now.
 *
 * @since 0.4.0
 * @category resolving
 */
export const resolve = (
  matchers: { readonly read: ReadonlyArray<PathMatcher>; readonly write: ReadonlyArray<PathMatcher> },
  limit: number = defaultLimit
): Either.Either<Masks, TooBroad> => {
  const read = new Map<string, Found>()
  const write = new Map<string, Found>()
  const add = (kind: "read" | "write", path: string, directory: boolean) =>
    (kind === "read" ? read : write).set(path, { path, directory })
  const walks = new Map<string, Array<Tagged>>()
  const all: ReadonlyArray<Tagged> = [
    ...matchers.read.map((matcher) => ({ matcher, kind: "read" as const })),
    ...matchers.write.map((matcher) => ({ matcher, kind: "write" as const }))
  ]
  for (const tagged of all) {
    const base = NodePath.resolve(tagged.matcher.base)
    const stat = lstatOf(base)
    if (stat === undefined || stat.isSymbolicLink()) continue
    if (tagged.matcher.exact || tagged.matcher.test(base)) {
      add(tagged.kind, base, stat.isDirectory())
      continue
    }
    if (!stat.isDirectory()) continue
    const group = walks.get(base)
    if (group === undefined) walks.set(base, [tagged])
    else group.push(tagged)
  }
  let visited = 0
  for (const [base, group] of walks) {
    let seen = 0
    // Each directory still to read, with the rules that still apply below it.
    const stack: Array<readonly [string, ReadonlyArray<Tagged>]> = [[base, group]]
    while (stack.length > 0) {
      const [directory, rules] = stack.pop()!
      for (const entry of readdirOf(directory)) {
        if (++seen > limit) {
          return Either.left({ rule: group.map((tagged) => tagged.matcher.rule).join(", "), base, limit })
        }
        if (entry.isSymbolicLink()) continue
        // Concatenated rather than joined: `directory` is already normal, and this runs per entry.
        const path = directory === "/" ? `/${entry.name}` : `${directory}/${entry.name}`
        const isDirectory = entry.isDirectory()
        let readHit = false
        let writeHit = false
        for (const tagged of rules) {
          if (!tagged.matcher.test(path)) continue
          if (tagged.kind === "read") readHit = true
          else writeHit = true
        }
        if (readHit) {
          add("read", path, isDirectory)
          continue
        }
        if (writeHit) add("write", path, isDirectory)
        if (!isDirectory) continue
        // Under a directory bound read-only, only the read rules still matter.
        const below = writeHit ? rules.filter((tagged) => tagged.kind === "read") : rules
        if (below.length > 0) stack.push([path, below])
      }
    }
    visited += seen
  }
  return Either.right({ read: [...read.values()], write: [...write.values()], visited })
}

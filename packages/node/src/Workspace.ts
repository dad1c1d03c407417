/**
 * The workspace: the one directory tree the file tools may touch. Every
 * path a model sends goes through {@link Service.resolve}, which answers
 * with the real absolute path inside the workspace, or with a
 * {@link PathError} saying what is wrong and how to fix it.
 *
 * A test on the path as written is not enough: `..`, symbolic links
 * anywhere in the path (`/proc/self/root` and `/proc/<pid>/cwd` are links
 * too) and siblings that share a prefix (`/ws` and `/ws-evil`) all defeat it.
 * So the path is resolved the way the kernel will: the real path of its
 * deepest existing ancestor, the missing rest appended, a dangling link
 * followed to its target, and only the result is compared with the real
 * root, component-wise.
 *
 * That answer is a path, and a path is only as good as the moment it was
 * resolved: another process (a shell command) can swap a directory of it for
 * a link before it is opened. So the file tools never open what
 * {@link Service.resolve} answers by path: they use it to check the call and
 * to key its lock, then walk it again one component at a time from open
 * directory descriptors (the `PathWalk` module), where a link met on the way is
 * followed only if the same walk finds its target inside, and a walk that
 * lands anywhere else than `resolve` did is refused. On Linux that walk goes
 * through `/proc/self/fd`, and no swap of a file, a directory or any parent
 * gets past it. Without `/proc/self/fd` (macOS) it walks paths, with
 * `O_NOFOLLOW` at every component, and a directory swapped between two
 * steps is not covered.
 *
 * Callers that hand a path to something else (the shell tool's working
 * directory) get only the check: the answer may be stale by the time it is
 * used, which is why commands also run in an OS sandbox.
 *
 * @since 0.1.0
 */
import * as ToolError from "@tool-runtime/core/ToolError"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as NFS from "node:fs/promises"
import * as NodePath from "node:path"

/**
 * What a caller means to do with a path. A write may not target the
 * workspace root itself.
 *
 * @since 0.1.0
 * @category models
 */
export type Intent = "read" | "write"

/**
 * @since 0.1.0
 * @category models
 */
export interface ResolveOptions {
  readonly intent: Intent
}

/**
 * Why a path was refused.
 *
 * @since 0.1.0
 * @category models
 */
export const Problem = Schema.Literal("empty", "nul", "outside", "symlink", "loop", "root", "unresolvable")

/**
 * @since 0.1.0
 * @category models
 */
export type Problem = typeof Problem.Type

/**
 * A path the file tools refuse. `path` is the path as the model sent it
 * (made printable); where a link pointed is never said, since that is a host
 * path outside the workspace.
 *
 * @since 0.1.0
 * @category errors
 */
export class PathError extends Schema.TaggedError<PathError>()("PathError", {
  path: Schema.String,
  problem: Problem,
  root: Schema.String,
  /** The errno code, when resolving failed for another reason. */
  code: Schema.optional(Schema.String)
}) {
  /** What is wrong, as a clause. */
  get reason(): string {
    const path = JSON.stringify(this.path)
    switch (this.problem) {
      case "empty":
        return "the path is empty"
      case "nul":
        return "the path contains a NUL character"
      case "outside":
        return `the path ${path} is outside the workspace ${this.root}`
      case "symlink":
        return `the path ${path} leads outside the workspace ${this.root} through a symbolic link`
      case "loop":
        return `the path ${path} goes through too many symbolic links`
      case "root":
        return `the path ${path} is the workspace root directory, not a file`
      case "unresolvable":
        return `the path ${path} cannot be resolved (${this.code ?? "unknown error"})`
    }
  }
  /** What to do instead. */
  get fix(): string {
    switch (this.problem) {
      case "empty":
      case "nul":
      case "outside":
        return `Use a path inside the workspace: relative paths are resolved against ${this.root}, for example "src/index.ts".`
      case "symlink":
        return "Use a path inside the workspace that does not go through that link."
      case "loop":
        return "Use the file's real path, without the looping links."
      case "root":
        return "Name a file inside the workspace, for example \"notes.txt\"."
      case "unresolvable":
        return "Check the path (list the parent directory), then call again."
    }
  }
  override get message() {
    return `${this.reason}. ${this.fix}`
  }
  /** The same refusal as the business-rule failure the runtime reports with code `rule_violation`. */
  toRuleViolation(): ToolError.RuleViolation {
    return new ToolError.RuleViolation({ reason: this.reason, fix: this.fix })
  }
}

/**
 * The workspace root could not be opened. Raised when the layer is built,
 * never seen by a model.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidRoot extends Data.TaggedError("InvalidRoot")<{
  readonly root: string
  readonly reason: string
}> {
  override get message() {
    return `The workspace root ${this.root} cannot be used: ${this.reason}.`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The real (link-free) absolute path of the root. */
  readonly root: string
  /**
   * The real absolute path `path` names, which is inside the workspace.
   * Relative paths are resolved against the root. Resolve right before
   * use: the answer is only as fresh as the file system. To open what it
   * names, walk it with `PathWalk`, never open it by path.
   */
  readonly resolve: (path: string, options: ResolveOptions) => Effect.Effect<string, PathError>
  /** How a resolved path is shown to the model: relative to the root, `.` for the root. */
  readonly display: (resolved: string) => string
}

/**
 * @since 0.1.0
 * @category tags
 */
export class Workspace extends Context.Tag("@tool-runtime/node/Workspace")<Workspace, Service>() {}

/**
 * The resource key of the workspace as a whole. File tools read it; a call
 * that may change anything in the tree (a shell command) can write it to run
 * apart from every file call.
 *
 * @since 0.1.0
 * @category resources
 */
export const resourceKey = "workspace"

/**
 * The resource key of one file, from its resolved path.
 *
 * @since 0.1.0
 * @category resources
 */
export const fileKey = (resolved: string): string => `file:${resolved}`

/**
 * Whether `path` is `root` or below it. Component-wise: `/ws-evil` is not
 * inside `/ws`.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isInside = (root: string, path: string): boolean => {
  if (path === root) return true
  const prefix = root.endsWith(NodePath.sep) ? root : root + NodePath.sep
  return path.startsWith(prefix)
}

/**
 * A path from the model, fit to appear in a message.
 *
 * @since 0.1.0
 * @category formatting
 */
export const printable = (path: string): string => {
  // eslint-disable-next-line no-control-regex
  const clean = path.replace(/[\u0000-\u001f\u007f]/g, "?")
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean
}

/** Links followed to resolve a dangling one, as Linux allows (`MAXSYMLINKS`). */
const maxLinks = 40

class Errno extends Data.TaggedError("Errno")<{ readonly code: string }> {}

const errnoOf = (cause: unknown): Errno =>
  new Errno({
    code: typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
      ? cause.code
      : "UNKNOWN"
  })

/** The one place node's promises become effects. */
const syscall = <A>(f: () => Promise<A>): Effect.Effect<A, Errno> => Effect.tryPromise({ try: f, catch: errnoOf })

const isMissing = (error: Errno) => error.code === "ENOENT" || error.code === "ENOTDIR"

/**
 * The real path of an absolute, normalized path whose tail may not exist:
 * the real path of the deepest existing ancestor with the rest appended. A
 * missing component that is a dangling link is followed to its target and
 * resolved again, so a write through it lands where the link points (and
 * that place is checked, not the link).
 */
const realPathOf = (absolute: string, links: number): Effect.Effect<string, Errno> =>
  Effect.catchIf(syscall(() => NFS.realpath(absolute)), isMissing, () => {
    const parent = NodePath.dirname(absolute)
    // The file system root always exists; reaching it means realpath failed oddly.
    if (parent === absolute) return Effect.succeed(absolute)
    return Effect.flatMap(realPathOf(parent, links), (realParent) => {
      const candidate = NodePath.join(realParent, NodePath.basename(absolute))
      return syscall(() => NFS.lstat(candidate)).pipe(
        Effect.matchEffect({
          onFailure: (error) => isMissing(error) ? Effect.succeed(candidate) : Effect.fail(error),
          onSuccess: (stats) => {
            if (!stats.isSymbolicLink()) return Effect.succeed(candidate)
            if (links >= maxLinks) return Effect.fail(new Errno({ code: "ELOOP" }))
            return Effect.flatMap(
              syscall(() => NFS.readlink(candidate)),
              (target) => realPathOf(NodePath.resolve(realParent, target), links + 1)
            )
          }
        })
      )
    })
  })

/**
 * A workspace rooted at `root` (resolved to its real path, which must be a
 * directory).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (root: string): Effect.Effect<Service, InvalidRoot> =>
  Effect.gen(function*() {
    const real = yield* syscall(() => NFS.realpath(NodePath.resolve(root))).pipe(
      Effect.mapError((error) => new InvalidRoot({ root, reason: `realpath failed (${error.code})` }))
    )
    const stats = yield* syscall(() => NFS.stat(real)).pipe(
      Effect.mapError((error) => new InvalidRoot({ root, reason: `stat failed (${error.code})` }))
    )
    if (!stats.isDirectory()) return yield* new InvalidRoot({ root, reason: "it is not a directory" })

    const refuse = (path: string, problem: Problem, code?: string) =>
      new PathError({ path: printable(path), problem, root: real, ...(code === undefined ? {} : { code }) })

    // Untraced: a span would end with the refused path, which is the model's text, in its status.
    const resolve = Effect.fnUntraced(function*(path: string, options: ResolveOptions) {
      if (path.includes("\u0000")) return yield* refuse(path, "nul")
      if (path.trim() === "") return yield* refuse(path, "empty")
      const absolute = NodePath.resolve(real, path)
      const resolved = yield* realPathOf(absolute, 0).pipe(
        Effect.mapError((error) =>
          error.code === "ELOOP" ? refuse(path, "loop") : refuse(path, "unresolvable", error.code)
        )
      )
      if (!isInside(real, resolved)) {
        // Said apart because the fixes differ: the path as written looked fine.
        return yield* refuse(path, isInside(real, absolute) ? "symlink" : "outside")
      }
      if (options.intent === "write" && resolved === real) return yield* refuse(path, "root")
      return resolved
    })

    return {
      root: real,
      resolve,
      display: (resolved) => {
        const relative = NodePath.relative(real, resolved)
        return relative === "" ? "." : relative
      }
    } satisfies Service
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (root: string): Layer.Layer<Workspace, InvalidRoot> => Layer.effect(Workspace, make(root))

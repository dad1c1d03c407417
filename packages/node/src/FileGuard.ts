/**
 * How a file tool reaches a path: the guard that checks it, locks it and
 * resolves it again in the handler, the walk to it through held directory
 * descriptors that refuses a path relinked meanwhile, and the policy's path
 * rules over every entry a call opens, enters or shows.
 *
 * Apart because all six tools reach their paths this way, and because it is
 * where the workspace's confinement is kept: a tool module only says what it
 * does once it holds the file.
 *
 * @since 0.4.0
 */
import type * as Policy from "@tool-runtime/core/Policy"
import * as Registry from "@tool-runtime/core/Registry"
import * as ResourceLocks from "@tool-runtime/core/ResourceLocks"
import * as ToolError from "@tool-runtime/core/ToolError"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import { describe, Errno, fail } from "./FileError.js"
import type { FileError } from "./FileError.js"
import { plural } from "./FileText.js"
import * as PathWalk from "./PathWalk.js"
import * as Workspace from "./Workspace.js"

/**
 * What every file tool lets its owner change.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Overrides the read-only mark. It exists to show that a wrong mark is
   * harmless (the resource locks still serialize writes to one file); there
   * is no good reason to set it.
   */
  readonly readOnly?: boolean | undefined
  readonly timeout?: Duration.DurationInput | undefined
  /**
   * Lets `write_file` and `edit_file` write git's hooks (`.git/hooks/**`)
   * and configuration (`.git/config`), also a submodule's under
   * `.git/modules/`. Off by default, and loud on purpose: a hook runs as
   * code the next time the user runs git, and the configuration decides
   * what the user's own git runs (`core.hooksPath`, `core.fsmonitor`, an
   * alias, a filter), outside any sandbox the model's commands run in.
   */
  readonly allowGitMetadataWrites?: boolean | undefined
}

export interface PathInput {
  readonly path: string
}

export const PathParameter = (description: string) => Schema.String.annotations({ description })

export const OptionalPath = (description: string) =>
  Schema.optionalWith(Schema.String.annotations({ description }), { default: () => "." })

/**
 * Checks a tool's path, declares its lock, and resolves it again for use.
 *
 * `resources` is synchronous and cannot reach the workspace, so the rule
 * check remembers what it resolved for the decoded input (the runtime hands
 * the same object to the rule check, the lock and the handler). Were that
 * ever not so, the call locks the whole workspace instead: slower, never
 * unsafe.
 */
export const guard = (intent: Workspace.Intent, access: "read" | "write", options?: Options) => {
  const resolved = new WeakMap<object, string>()
  const gitWrites = access === "write" && options?.allowGitMetadataWrites !== true
    ? (workspace: Workspace.Service, real: string) =>
      isGitMetadata(real) ? gitMetadataViolation(workspace.display(real)) : undefined
    : () => undefined
  return {
    validate: (input: PathInput): Effect.Effect<void, ToolError.RuleViolation, Workspace.Workspace> =>
      Effect.flatMap(Workspace.Workspace, (workspace) =>
        workspace.resolve(input.path, { intent }).pipe(
          Effect.mapError((error) => error.toRuleViolation()),
          Effect.flatMap((real) => {
            const violation = gitWrites(workspace, real)
            if (violation !== undefined) return Effect.fail(violation)
            resolved.set(input, real)
            return Effect.void
          })
        )),
    /**
     * For permission rules (`Read(src/**)`, `Edit(.env)`): the path after
     * links, as the check resolved it, so a link cannot dress an outside or
     * a denied file as an allowed one.
     */
    subject: (input: PathInput): Policy.Subject => ({
      _tag: "Path",
      path: resolved.get(input) ?? input.path,
      access
    }),
    resources: (input: PathInput): ReadonlyArray<ResourceLocks.Resource> => {
      const real = resolved.get(input)
      if (real === undefined) return [ResourceLocks.writes(Workspace.resourceKey)]
      const key = Workspace.fileKey(real)
      return [
        ResourceLocks.reads(Workspace.resourceKey),
        access === "write" ? ResourceLocks.writes(key) : ResourceLocks.reads(key)
      ]
    },
    use: (
      workspace: Workspace.Service,
      input: PathInput
    ): Effect.Effect<string, Workspace.PathError | FileError | ToolError.RuleViolation> =>
      Effect.flatMap(workspace.resolve(input.path, { intent }), (real): Effect.Effect<
        string,
        FileError | ToolError.RuleViolation
      > => {
        const locked = resolved.get(input)
        if (locked !== undefined && locked !== real) return Effect.fail(relinked(input))
        const violation = gitWrites(workspace, real)
        return violation === undefined ? Effect.succeed(real) : Effect.fail(violation)
      }),
    /**
     * The policy's word on the path the handler is about to use, which the
     * walk confirmed is `real`. The permission stage judged the call by the
     * path its check resolved; when that is `real`, an ask rule on it was
     * put to a person who let the call run, so only a deny refuses. A path
     * the stage did not see is refused on either.
     */
    admit: (
      policy: Policy.Service,
      toolName: string,
      workspace: Workspace.Service,
      input: PathInput,
      real: string,
      as: "read" | "write" = access
    ): { readonly violation: ToolError.RuleViolation | undefined; readonly approved: string | undefined } => {
      const refusal = policy.checkPath(toolName, real, as)
      if (refusal === undefined) return { violation: undefined, approved: undefined }
      if (refusal.verdict === "ask" && resolved.get(input) === real) {
        return { violation: undefined, approved: refusal.rule }
      }
      return { violation: refusedPath(refusal, as, workspace.display(real)), approved: undefined }
    }
  }
}

/** What the permission rules refused a path for, said of the path, as a rule the model can act on. */
const refusedPath = (refusal: Policy.PathRefusal, access: "read" | "write", shown: string) => {
  const doing = access === "read" ? "reading" : "writing"
  return refusal.verdict === "deny"
    ? new ToolError.RuleViolation({
      reason: `the permission rules deny ${doing} ${shown} (${refusal.rule})`,
      fix: `Do not try to reach ${shown} another way; if the task needs it, ask the user.`
    })
    : new ToolError.RuleViolation({
      reason: `a permission rule wants a person to approve ${doing} ${shown} (${refusal.rule}), ` +
        "and nobody was asked about it: the call was checked under another name for it (a link changed meanwhile)",
      fix: `Call again naming ${shown} itself, so that the person is asked.`
    })
}

interface Tally {
  files: number
  directories: number
  others: number
  readonly rules: Set<string>
}

const emptyTally = (): Tally => ({ files: 0, directories: 0, others: 0, rules: new Set() })

/**
 * The policy's path rules over one walk: every entry a search would open,
 * enter or show is put to `checkPath` first, and the refused ones are
 * counted, never named, so the result can say what it left out and why
 * without telling what it was. An ask rule the person already answered for
 * the call's own path (`approved`) covers what the walk meets under it.
 */
export const pathRules = (policy: Policy.Service, toolName: string, approved: string | undefined) => {
  const tallies = { deny: emptyTally(), ask: emptyTally() }
  return {
    admits: (real: string, kind: PathWalk.Kind): boolean => {
      const refusal = policy.checkPath(toolName, real, "read")
      if (refusal === undefined || (refusal.verdict === "ask" && refusal.rule === approved)) return true
      const tally = tallies[refusal.verdict]
      tally.rules.add(refusal.rule)
      if (kind === "file") tally.files++
      else if (kind === "directory") tally.directories++
      else tally.others++
      return false
    },
    /**
     * One line per verdict. A walk counts files and directories ("skipped");
     * a listing counts entries ("withheld"): it shows names, and the names
     * are what it keeps back.
     */
    notes: (style: "skipped" | "withheld"): Array<string> => {
      const notes: Array<string> = []
      for (const verdict of ["deny", "ask"] as const) {
        const { directories, files, others, rules } = tallies[verdict]
        const total = files + directories + others
        if (total === 0) continue
        const what = style === "withheld"
          ? `${plural(total, "entry", "entries")} ${total === 1 ? "is" : "are"} withheld`
          : `${
            [
              files > 0 ? plural(files, "file") : "",
              directories > 0 ? plural(directories, "directory", "directories") : "",
              others > 0 ? plural(others, "other entry", "other entries") : ""
            ].filter((part) => part !== "").join(" and ")
          } ${total === 1 ? "was" : "were"} skipped`
        const them = total === 1 ? "it" : "them"
        const listed = Array.from(rules).join(", ")
        notes.push(
          verdict === "deny"
            ? `[${what}: the permission rules deny reading ${them} (${listed}).]`
            : `[${what}: a permission rule wants a person to approve reading ${them} (${listed}); ` +
              "read one by name with read_file, which asks.]"
        )
      }
      return notes
    }
  }
}

/**
 * Whether a real path is one of git's hooks or its configuration: under a
 * `.git` directory, `hooks/…` or `config`, and the same for a submodule's
 * git directory, `.git/modules/<name>/…` (a name may hold slashes, and
 * submodules nest, so anything below `modules/` that goes through `hooks`
 * or ends in `config`). Case-insensitive, for the file systems that are.
 */
const isGitMetadata = (real: string): boolean => {
  const parts = real.toLowerCase().split(NodePath.sep)
  for (let i = parts.indexOf(".git"); i !== -1; i = parts.indexOf(".git", i + 1)) {
    const [first, ...rest] = parts.slice(i + 1)
    if (first === "hooks" || (first === "config" && rest.length === 0)) return true
    if (first === "modules" && (rest.includes("hooks") || rest.at(-1) === "config")) return true
  }
  return false
}

const gitMetadataViolation = (shown: string) =>
  new ToolError.RuleViolation({
    reason: `${shown} is git's own: a hook in .git/hooks runs as code the next time the user runs git, and ` +
      ".git/config changes what the user's own git commands run; the file tools do not write them",
    fix: "Do not write it another way (a command, a link): tell the user what to change there and why, " +
      "and let them make the change."
  })

const relinked = (input: PathInput) =>
  fail(
    `the path ${
      JSON.stringify(Workspace.printable(input.path))
    } led to another file when the call ran than when it was checked (a link changed meanwhile); call again`,
    true
  )

/** A walk's refusal, told about the path as the model sent it. */
export const refusal = (workspace: Workspace.Service, input: PathInput, shown: string) =>
(
  error: PathWalk.Failure
): FileError | Workspace.PathError => {
  if (error._tag === "Errno") return describe(shown)(error)
  if (error.problem === "moved") {
    return fail(`${shown} was moved out of the workspace while the call ran; call again`, true)
  }
  return new Workspace.PathError({
    path: Workspace.printable(input.path),
    problem: error.problem,
    root: workspace.root
  })
}

/**
 * Walks to the entry the path check resolved, scoped. The walk holds the
 * parent directory open; a walk that lands elsewhere (a link changed since
 * the check) is refused.
 */
export const locate = (
  workspace: Workspace.Service,
  input: PathInput,
  real: string,
  options?: {
    readonly createParents?: boolean
    /** Say "no such file" when a directory on the way is missing, as for the file itself. */
    readonly file?: boolean
  }
) =>
  PathWalk.entry(workspace.root, real, options).pipe(
    Effect.mapError((error) =>
      options?.file === true && error._tag === "Errno" && error.code === "ENOENT"
        ? fail(`no such file: ${workspace.display(real)}`)
        : refusal(workspace, input, workspace.display(real))(error)
    ),
    Effect.filterOrFail((found) => found.real === real, () => relinked(input))
  )

/** Walks to the directory the path check resolved, scoped, like {@link locate}. */
export const locateDirectory = (workspace: Workspace.Service, input: PathInput, real: string) => {
  const shown = workspace.display(real)
  return PathWalk.directory(workspace.root, real).pipe(
    Effect.mapError((error) =>
      error._tag === "Errno" && error.code === "ENOTDIR"
        ? fail(`${shown} is a file, not a directory; use read_file to read it`)
        : refusal(workspace, input, shown)(error)
    ),
    Effect.filterOrFail((found) => found.real === real, () => relinked(input))
  )
}

/** Close names in the same directory, for "no such file" ("did you mean …?"). */
const suggestion = (workspace: Workspace.Service, parent: PathWalk.Directory, name: string): Effect.Effect<string> =>
  PathWalk.list(parent).pipe(
    Effect.map((entries) => {
      const close = Registry.suggest(name, entries.map((entry) => entry.name), 3)
      return close.length === 0
        ? ""
        : ` (did you mean ${close.map((other) => workspace.display(NodePath.join(parent.real, other))).join(" or ")}?)`
    }),
    Effect.orElseSucceed(() => "")
  )

/**
 * Opens `name` in a held directory for reading, scoped; only regular files.
 * `refuse` tells a walk's refusal to the model.
 */
export const openRegular = (
  workspace: Workspace.Service,
  parent: PathWalk.Directory,
  name: string,
  refuse: (error: PathWalk.Failure) => FileError | Workspace.PathError
) => {
  const shown = workspace.display(NodePath.join(parent.real, name))
  return PathWalk.openFile(parent, name).pipe(
    Effect.catchAll((error) =>
      error._tag === "Errno" && error.code === "ENOENT"
        ? Effect.flatMap(
          suggestion(workspace, parent, name),
          (hint) => Effect.fail(fail(`no such file: ${shown}${hint}`))
        )
        : Effect.fail(refuse(error))
    ),
    Effect.flatMap(({ handle, stats }) =>
      stats.isDirectory()
        ? Effect.fail(describe(shown)(new Errno({ code: "EISDIR" })))
        : stats.isFile()
        ? Effect.succeed({ handle, stats })
        : Effect.fail(fail(`${shown} is not a regular file (a device, socket or pipe); it cannot be read`))
    )
  )
}

/**
 * The `list_directory` tool: one directory's entries, directories first,
 * links marked and not followed.
 *
 * Apart as one tool a module; what it shares with the others lives in
 * `FileGuard`.
 *
 * @since 0.4.0
 */
import * as Policy from "@tool-runtime/core/Policy"
import * as Tool from "@tool-runtime/core/Tool"
import * as Effect from "effect/Effect"
import type * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { describe } from "./FileError.js"
import { guard, locateDirectory, OptionalPath, pathRules } from "./FileGuard.js"
import type { Options } from "./FileGuard.js"
import { count, plural } from "./FileText.js"
import * as PathWalk from "./PathWalk.js"
import * as Workspace from "./Workspace.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ListOptions extends Options {
  /** Entries listed. Default 1,000. */
  readonly maxEntries?: number | undefined
}

const suffix: Record<PathWalk.Kind, string> = { file: "", directory: "/", symlink: "@", other: "" }

const byName = (a: NodeFs.Dirent, b: NodeFs.Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

const readDirectory = (workspace: Workspace.Service, directory: PathWalk.Directory) =>
  PathWalk.list(directory).pipe(Effect.mapError(describe(workspace.display(directory.real))))

/**
 * Lists one directory: subdirectories first (with a trailing `/`), then
 * files; symbolic links end in `@` and are not followed.
 *
 * @since 0.1.0
 * @category tools
 */
export const listDirectory = (options?: ListOptions) => {
  const maxEntries = options?.maxEntries ?? 1_000
  const paths = guard("read", "read")
  return Tool.make("list_directory", {
    description: "Lists the entries of one directory of the workspace (not recursive). Directories end in " +
      "\"/\", symbolic links in \"@\". Use glob to find files by name across directories.",
    parameters: {
      path: OptionalPath("The directory, relative to the workspace root. Default \".\", the root.")
    },
    readOnly: options?.readOnly ?? true,
    timeout: options?.timeout ?? "10 seconds",
    validate: paths.validate,
    resources: paths.resources,
    subject: paths.subject,
    handler: (input) =>
      Effect.gen(function*() {
        const workspace = yield* Workspace.Workspace
        const policy = yield* Policy.Policy
        const real = yield* paths.use(workspace, input)
        const { approved, violation } = paths.admit(policy, "list_directory", workspace, input, real)
        if (violation !== undefined) return yield* violation
        const shown = workspace.display(real)
        const listing = yield* Effect.scoped(
          Effect.flatMap(locateDirectory(workspace, input, real), (directory) => readDirectory(workspace, directory))
        )
        if (listing.length === 0) return `${shown} is empty.`
        // A name can say what a file holds (a customer's name, `.env.production`): refused entries are left out, named nowhere.
        const rules = pathRules(policy, "list_directory", approved)
        const entries = listing.filter((entry) => rules.admits(NodePath.join(real, entry.name), PathWalk.kindOf(entry)))
        const directories = entries.filter((entry) => entry.isDirectory()).sort(byName)
        const others = entries.filter((entry) => !entry.isDirectory()).sort(byName)
        const listed = [...directories, ...others].slice(0, maxEntries).map((entry) =>
          `${entry.name}${suffix[PathWalk.kindOf(entry)]}`
        )
        const where = shown === "." ? "The workspace root" : shown
        const header = entries.length === 0
          ? `${where} holds no entry that may be shown.`
          : `${where} holds ${plural(entries.length, "entry", "entries")}:\n${listed.join("\n")}`
        const notes = [
          ...(entries.length > maxEntries
            ? [`[${count(entries.length - maxEntries)} more not shown; use glob with a pattern to narrow the list.]`]
            : []),
          ...rules.notes("withheld")
        ]
        return [header, ...notes].join("\n")
      })
  })
}

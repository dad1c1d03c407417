/**
 * The `glob` tool, the glob language it matches (also `grep`'s file
 * filter), and the bounded walk of a tree both searches make.
 *
 * Apart because the glob compiler and the tree walk are shared by the two
 * search tools; `grep` builds on this module, never the other way.
 *
 * @since 0.4.0
 */
import * as Policy from "@tool-runtime/core/Policy"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { describe } from "./FileError.js"
import type { FileError } from "./FileError.js"
import { guard, locateDirectory, OptionalPath, pathRules } from "./FileGuard.js"
import type { Options } from "./FileGuard.js"
import { count, plural } from "./FileText.js"
import * as PathWalk from "./PathWalk.js"
import * as Workspace from "./Workspace.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface SearchOptions extends Options {
  /** Directory names not entered unless the pattern names them. Default `node_modules` and `.git`. */
  readonly skip?: ReadonlyArray<string> | undefined
  /** Directory entries looked at before giving up. Default 200,000. */
  readonly maxScanned?: number | undefined
  /** Characters of output. Default 25,000. */
  readonly maxChars?: number | undefined
}

export const defaultSkip: ReadonlyArray<string> = ["node_modules", ".git"]

const regexSpecial = /[.*+?^${}()|[\]\\/]/g

const compileGlobBody = (pattern: string): string => {
  let out = ""
  let i = 0
  while (i < pattern.length) {
    const c = pattern[i]!
    if (c === "*") {
      if (pattern[i + 1] === "*") {
        const atStart = i === 0 || pattern[i - 1] === "/"
        const after = i + 2
        if (atStart && pattern[after] === "/") {
          // `**/` is zero or more whole directories.
          out += "(?:[^/]*/)*"
          i = after + 1
        } else if (atStart && after === pattern.length) {
          out += ".*"
          i = after
        } else {
          out += "[^/]*"
          i = after
        }
      } else {
        out += "[^/]*"
        i++
      }
    } else if (c === "?") {
      out += "[^/]"
      i++
    } else if (c === "{") {
      const close = matchingBrace(pattern, i)
      if (close === -1) {
        out += "\\{"
        i++
      } else {
        const alternatives = splitTopLevel(pattern.slice(i + 1, close))
        out += `(?:${alternatives.map(compileGlobBody).join("|")})`
        i = close + 1
      }
    } else if (c === "[") {
      const close = pattern.indexOf("]", i + 2)
      if (close === -1) {
        out += "\\["
        i++
      } else {
        const negated = pattern[i + 1] === "!" || pattern[i + 1] === "^"
        const body = pattern.slice(negated ? i + 2 : i + 1, close).replace(/[\\\]^]/g, "\\$&")
        out += negated ? `[^/${body}]` : `[${body}]`
        i = close + 1
      }
    } else if (c === "\\" && i + 1 < pattern.length) {
      out += pattern[i + 1]!.replace(regexSpecial, "\\$&")
      i += 2
    } else {
      out += c.replace(regexSpecial, "\\$&")
      i++
    }
  }
  return out
}

const matchingBrace = (pattern: string, open: number): number => {
  let depth = 0
  for (let i = open; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++
    else if (pattern[i] === "{") depth++
    else if (pattern[i] === "}" && --depth === 0) return i
  }
  return -1
}

const splitTopLevel = (body: string): Array<string> => {
  const parts: Array<string> = []
  let depth = 0
  let from = 0
  for (let i = 0; i < body.length; i++) {
    const c = body[i]
    if (c === "\\") i++
    else if (c === "{") depth++
    else if (c === "}") depth--
    else if (c === "," && depth === 0) {
      parts.push(body.slice(from, i))
      from = i + 1
    }
  }
  parts.push(body.slice(from))
  return parts
}

/**
 * A glob as a RegExp over `/`-separated relative paths: `**` any number of
 * directories, `*` and `?` within one name, `{a,b}` alternatives (nested
 * allowed), `[abc]` / `[!abc]` classes, `\` escapes.
 *
 * @since 0.1.0
 * @category glob
 */
export const compileGlob = (pattern: string): RegExp =>
  // `**/**/` is `**/`: collapsed, a run of them cannot make the expression backtrack for a minute.
  new RegExp(`^${compileGlobBody(pattern.replace(/(?:\*\*\/){2,}/g, "**/"))}$`)

/** More `**` than any real pattern has: each is a loop the matcher may try at every directory. */
const maxGlobstars = 8

/** How deep a walk must go for the pattern to match: unbounded with `**`. */
const depthOf = (pattern: string) => pattern.includes("**") ? Infinity : pattern.split("/").length

export const globRule = (pattern: string): ToolError.RuleViolation | undefined => {
  if (pattern.trim() === "") {
    return new ToolError.RuleViolation({ reason: "the pattern is empty", fix: "Pass a pattern such as \"**/*.ts\"." })
  }
  if ((pattern.replace(/(?:\*\*\/){2,}/g, "**/").match(/\*\*/g)?.length ?? 0) > maxGlobstars) {
    return new ToolError.RuleViolation({
      reason: `the pattern has more than ${maxGlobstars} "**" parts`,
      fix: "One \"**/\" matches any number of directories: use fewer, such as \"**/*.ts\"."
    })
  }
  if (pattern.startsWith("/") || pattern.split("/").includes("..")) {
    return new ToolError.RuleViolation({
      reason: "the pattern is matched below the search directory, so it cannot start with \"/\" or contain \"..\"",
      fix: "Set path to the directory to search (inside the workspace) and give a relative pattern such as \"**/*.ts\"."
    })
  }
  return undefined
}

/**
 * The tree under a held directory, through {@link PathWalk.tree}; a base
 * that cannot be listed fails the call, a subdirectory that cannot is counted.
 */
export const walk = (
  workspace: Workspace.Service,
  base: PathWalk.Directory,
  options: PathWalk.TreeOptions,
  visit: (entry: PathWalk.Visit) => Effect.Effect<boolean, FileError>
): Effect.Effect<PathWalk.TreeSummary, FileError> =>
  PathWalk.tree(base, options, visit).pipe(
    Effect.mapError((error) => error._tag === "Errno" ? describe(workspace.display(base.real))(error) : error)
  )

export const skipSet = (skip: ReadonlyArray<string>, pattern: string) =>
  // A pattern that names a skipped directory ("node_modules/x/**") means to go there.
  new Set(
    skip.filter((name) => !new RegExp(`(?:^|[/{,])${name.replace(regexSpecial, "\\$&")}(?:$|[/},])`).test(pattern))
  )

export const walkNotes = (summary: PathWalk.TreeSummary) => [
  ...(summary.skipped.length === 0
    ? []
    : [`[Not searched: ${summary.skipped.join(", ")} (name them in the pattern to include them).]`]),
  ...(summary.unreadable === 0
    ? []
    : [`[${plural(summary.unreadable, "directory", "directories")} could not be read.]`])
]

/**
 * Finds files and directories whose path below a directory matches a glob.
 *
 * @since 0.1.0
 * @category tools
 */
export const glob = (options?: SearchOptions) => {
  const skip = options?.skip ?? defaultSkip
  const maxScanned = options?.maxScanned ?? 200_000
  const maxChars = options?.maxChars ?? 25_000
  const paths = guard("read", "read")
  return Tool.make("glob", {
    description: "Finds files in the workspace whose path matches a glob pattern: \"**\" matches any number of " +
      "directories, \"*\" and \"?\" match within one name, \"{ts,tsx}\" matches alternatives. The pattern is " +
      "matched against paths relative to `path`; \"*.ts\" only matches at that level, \"**/*.ts\" at any depth. " +
      `Results are workspace-relative paths, directories ending in "/". ${skip.join(" and ")} are skipped.`,
    parameters: {
      pattern: Schema.String.pipe(Schema.maxLength(1_000)).annotations({
        description: "The glob, for example \"src/**/*.{ts,tsx}\"."
      }),
      path: OptionalPath("The directory to search under, relative to the workspace root. Default \".\", the root.")
    },
    readOnly: options?.readOnly ?? true,
    timeout: options?.timeout ?? "20 seconds",
    validate: (input) => {
      const violation = globRule(input.pattern)
      return violation === undefined ? paths.validate(input) : Effect.fail(violation)
    },
    resources: paths.resources,
    subject: paths.subject,
    handler: (input) =>
      Effect.gen(function*() {
        const workspace = yield* Workspace.Workspace
        const policy = yield* Policy.Policy
        const base = yield* paths.use(workspace, input)
        const { approved, violation } = paths.admit(policy, "glob", workspace, input, base)
        if (violation !== undefined) return yield* violation
        const rules = pathRules(policy, "glob", approved)
        const matcher = compileGlob(input.pattern)
        const found: Array<string> = []
        let chars = 0
        let full = false
        const summary = yield* Effect.scoped(Effect.flatMap(locateDirectory(workspace, input, base), (directory) =>
          walk(workspace, directory, {
            maxDepth: depthOf(input.pattern),
            skip: skipSet(skip, input.pattern),
            maxScanned,
            // Only what would be shown or entered is asked about, so a result counts only what it left out.
            admit: ({ kind, real, relative }, enters) =>
              enters || matcher.test(relative) ? rules.admits(real, kind) : true
          }, ({ kind, real, relative }) => {
            if (!matcher.test(relative)) return Effect.succeed(true)
            // Only directories are marked: a path copied from here must work as is.
            const line = `${workspace.display(real)}${kind === "directory" ? "/" : ""}`
            if (chars + line.length + 1 > maxChars) {
              full = true
              return Effect.succeed(false)
            }
            found.push(line)
            chars += line.length + 1
            return Effect.succeed(true)
          })))
        const notes: Array<string> = [...walkNotes(summary), ...rules.notes("skipped")]
        if (full) {
          notes.unshift(`[Showing the first ${count(found.length)} matches; narrow the pattern or the path.]`)
        } else if (summary.exhausted) {
          notes.unshift(
            `[Stopped after looking at ${count(maxScanned)} entries; narrow the pattern or the path.]`
          )
        }
        const where = workspace.display(base)
        const body = found.length === 0
          ? `No paths under ${where} match ${JSON.stringify(input.pattern)}.`
          : found.join("\n")
        return notes.length === 0 ? body : `${body}\n\n${notes.join("\n")}`
      })
  })
}

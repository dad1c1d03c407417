/**
 * The `grep` tool: a regular expression over the text files under a path,
 * and the check that refuses a pattern able to backtrack for ever.
 *
 * Apart because its bounds (bytes read, line lengths, matches, nested
 * repetition) are its own; the glob filter and the tree walk come from
 * `Glob`.
 *
 * @since 0.4.0
 */
import * as Policy from "@tool-runtime/core/Policy"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import { describe, Errno, fail, syscall } from "./FileError.js"
import type { FileError } from "./FileError.js"
import { guard, locate, locateDirectory, openRegular, OptionalPath, pathRules, refusal } from "./FileGuard.js"
import { count, cut, decoder, plural } from "./FileText.js"
import { compileGlob, defaultSkip, globRule, skipSet, walk, walkNotes } from "./Glob.js"
import type { SearchOptions } from "./Glob.js"
import * as PathWalk from "./PathWalk.js"
import * as Workspace from "./Workspace.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface GrepOptions extends SearchOptions {
  /** Files larger than this are skipped, in bytes. Default 4 MiB. */
  readonly maxFileBytes?: number | undefined
  /** Bytes read before the search stops. Default 64 MiB. */
  readonly maxScanBytes?: number | undefined
  /** Characters of a line that are searched; the rest of a longer line is not. Default 2,000. */
  readonly maxLineChars?: number | undefined
}

const quantifierLength = (pattern: string, at: number): number => {
  const c = pattern[at]
  if (c === "*" || c === "+" || c === "?") return 1
  if (c === "{") {
    const match = /^\{\d+(?:,\d*)?\}/.exec(pattern.slice(at, at + 24))
    return match === null ? 0 : match[0].length
  }
  return 0
}

/** Whether a quantifier can repeat its atom more than once (`*`, `+`, `{2}`, `{1,}`…, not `?` or `{0,1}`). */
const repeats = (quantifier: string): boolean => {
  if (quantifier === "*" || quantifier === "+") return true
  if (quantifier === "?") return false
  const [, low, comma, high] = /^\{(\d+)(,?)(\d*)\}$/.exec(quantifier) ?? []
  if (comma === "") return Number(low) > 1
  return high === "" || Number(high) > 1
}

/**
 * Whether a regular expression repeats a group that itself holds a
 * quantifier (`(a+)+`, `(\w+\s?)*`): the shape of catastrophic
 * backtracking. V8's regex engine cannot be interrupted, so such a pattern
 * would freeze the whole runtime, not just the call. A heuristic: it does
 * not catch overlapping alternatives (`(a|a)*`).
 *
 * @since 0.1.0
 * @category grep
 */
export const hasNestedQuantifier = (pattern: string): boolean => {
  const groups: Array<boolean> = [false]
  let i = 0
  while (i < pattern.length) {
    const c = pattern[i]!
    if (c === "\\") {
      i += 2
    } else if (c === "[") {
      let j = i + 1
      if (pattern[j] === "^") j++
      if (pattern[j] === "]") j++
      while (j < pattern.length && pattern[j] !== "]") j += pattern[j] === "\\" ? 2 : 1
      i = j + 1
    } else if (c === "(") {
      groups.push(false)
      i++
      if (pattern[i] === "?") {
        // Group syntax, not a quantifier: (?:  (?=  (?!  (?<=  (?<!  (?<name>
        if (pattern[i + 1] === "<" && pattern[i + 2] !== "=" && pattern[i + 2] !== "!") {
          const close = pattern.indexOf(">", i)
          i = close === -1 ? pattern.length : close + 1
        } else {
          i += pattern[i + 1] === "<" ? 3 : 2
        }
      }
    } else if (c === ")") {
      const inner = groups.length > 1 ? groups.pop()! : false
      const length = quantifierLength(pattern, i + 1)
      if (length > 0 && inner && repeats(pattern.slice(i + 1, i + 1 + length))) return true
      if (length > 0 || inner) groups[groups.length - 1] = true
      i += 1 + length
      if (length > 0 && pattern[i] === "?") i++
    } else {
      const length = quantifierLength(pattern, i)
      if (length > 0) {
        groups[groups.length - 1] = true
        i += length
        if (pattern[i] === "?") i++
      } else {
        i++
      }
    }
  }
  return false
}

const compileRegex = (pattern: string, ignoreCase: boolean): Either.Either<RegExp, ToolError.RuleViolation> => {
  if (pattern === "") {
    return Either.left(
      new ToolError.RuleViolation({ reason: "the pattern is empty", fix: "Pass a regular expression to look for." })
    )
  }
  if (hasNestedQuantifier(pattern)) {
    return Either.left(
      new ToolError.RuleViolation({
        reason: "the pattern repeats a group that itself repeats (like (a+)+), which can take exponential time",
        fix: "Simplify the pattern: drop the outer repetition, or match a simpler, fixed piece of text."
      })
    )
  }
  return Either.try({
    try: () => new RegExp(pattern, ignoreCase ? "i" : ""),
    catch: (error) =>
      new ToolError.RuleViolation({
        reason: `the pattern is not a valid JavaScript regular expression (${
          error instanceof Error ? error.message : String(error)
        })`,
        fix: "Fix the pattern; escape special characters such as ( ) [ ] { } . * + ? with a backslash."
      })
  })
}

/**
 * Searches file contents for a regular expression, line by line, and
 * returns matching lines as `path:line:text`.
 *
 * Bounded so a model cannot make it run away: lines are searched in their
 * first characters only, large and binary files are skipped, the bytes read
 * and the matches returned are capped, and patterns with nested repetition
 * are refused.
 *
 * @since 0.1.0
 * @category tools
 */
export const grep = (options?: GrepOptions) => {
  const skip = options?.skip ?? defaultSkip
  const maxScanned = options?.maxScanned ?? 200_000
  const maxChars = options?.maxChars ?? 25_000
  const maxFileBytes = options?.maxFileBytes ?? 4 * 1024 * 1024
  const maxScanBytes = options?.maxScanBytes ?? 64 * 1024 * 1024
  const maxLineChars = options?.maxLineChars ?? 2_000
  const paths = guard("read", "read")
  return Tool.make("grep", {
    description: "Searches the text files under a path of the workspace for a JavaScript regular expression and " +
      "returns matching lines as path:line:text (workspace-relative path, 1-based line). Symbolic links are not " +
      `followed; binary files, files over ${count(maxFileBytes)} bytes and ${skip.join(" and ")} are skipped.`,
    parameters: {
      pattern: Schema.String.pipe(Schema.maxLength(1_000)).annotations({
        description: "A JavaScript regular expression, for example \"function\\s+load\". Nested repetition " +
          "such as (a+)+ is refused."
      }),
      path: OptionalPath("A file or directory to search, relative to the workspace root. Default \".\", the root."),
      glob: Schema.optional(
        Schema.String.pipe(Schema.maxLength(1_000)).annotations({
          description: "Only search files matching this glob: against the file name (\"*.ts\") or, when it " +
            "contains \"/\", against the path below `path` (\"src/**/*.ts\")."
        })
      ),
      ignore_case: Schema.optionalWith(
        Schema.Boolean.annotations({ description: "Match letters regardless of case. Default false." }),
        { default: () => false }
      ),
      max_matches: Schema.optionalWith(
        Schema.Int.pipe(Schema.between(1, 1_000)).annotations({
          description: "Stop after this many matching lines. Default 100."
        }),
        { default: () => 100 }
      )
    },
    readOnly: options?.readOnly ?? true,
    timeout: options?.timeout ?? "30 seconds",
    validate: (input) => {
      const regex = compileRegex(input.pattern, input.ignore_case)
      if (Either.isLeft(regex)) return Effect.fail(regex.left)
      if (input.glob !== undefined) {
        const violation = globRule(input.glob)
        if (violation !== undefined) return Effect.fail(violation)
      }
      return paths.validate(input)
    },
    resources: paths.resources,
    subject: paths.subject,
    handler: (input) =>
      Effect.gen(function*() {
        const workspace = yield* Workspace.Workspace
        const policy = yield* Policy.Policy
        const base = yield* paths.use(workspace, input)
        const { approved, violation } = paths.admit(policy, "grep", workspace, input, base)
        if (violation !== undefined) return yield* violation
        const rules = pathRules(policy, "grep", approved)
        const compiled = compileRegex(input.pattern, input.ignore_case)
        if (Either.isLeft(compiled)) return yield* fail(compiled.left.reason)
        const regex = compiled.right
        const filter = input.glob === undefined ? undefined : compileGlob(input.glob)
        const filterPath = input.glob?.includes("/") ?? false
        const wanted = (relative: string) =>
          filter === undefined || filter.test(filterPath ? relative : NodePath.basename(relative))
        const lines: Array<string> = []
        let chars = 0
        let bytesRead = 0
        let tooLarge = 0
        let longLines = 0
        let stop: "matches" | "chars" | "bytes" | undefined

        const searchFile = (
          directory: PathWalk.Directory,
          name: string,
          refuse: (error: PathWalk.Failure) => FileError | Workspace.PathError
        ): Effect.Effect<boolean, FileError | Workspace.PathError> =>
          Effect.scoped(Effect.gen(function*() {
            const real = NodePath.join(directory.real, name)
            const { handle, stats } = yield* openRegular(workspace, directory, name, refuse)
            if (stats.size > maxFileBytes) {
              tooLarge++
              return true
            }
            if (bytesRead + stats.size > maxScanBytes) {
              stop = "bytes"
              return false
            }
            const bytes = yield* syscall(() => handle.readFile()).pipe(
              Effect.mapError(describe(workspace.display(real)))
            )
            bytesRead += bytes.length
            if (bytes.subarray(0, 8192).includes(0)) return true
            const text = decoder.decode(bytes)
            const shown = workspace.display(real)
            let lineNumber = 0
            let from = 0
            while (from < text.length) {
              const end = text.indexOf("\n", from)
              const to = end === -1 ? text.length : end
              lineNumber++
              if (to - from > maxLineChars) longLines++
              let line = text.slice(from, Math.min(to, from + maxLineChars))
              if (line.endsWith("\r")) line = line.slice(0, -1)
              if (regex.test(line)) {
                const entry = `${shown}:${lineNumber}:${line.length > 300 ? `${cut(line, 300)}…` : line}`
                if (chars + entry.length + 1 > maxChars) {
                  stop = "chars"
                  return false
                }
                lines.push(entry)
                chars += entry.length + 1
                if (lines.length >= input.max_matches) {
                  stop = "matches"
                  return false
                }
              }
              from = to + 1
            }
            return true
          }))

        const where = workspace.display(base)
        const notes: Array<string> = []
        const searchTree = (directory: PathWalk.Directory) =>
          Effect.map(
            walk(workspace, directory, {
              maxDepth: Infinity,
              skip: skipSet(skip, input.glob ?? ""),
              maxScanned,
              // A refused file is never opened, a refused directory never entered; the rest is not asked about.
              admit: ({ kind, real, relative }, enters) =>
                (kind === "file" && wanted(relative)) || enters ? rules.admits(real, kind) : true
            }, ({ directory, kind, name, relative }) => {
              if (kind !== "file" || !wanted(relative)) return Effect.succeed(true)
              // A file that vanished, changed kind or cannot be read does not end the search.
              return Effect.catchAll(searchFile(directory, name, describe(name)), () => Effect.succeed(true))
            }),
            (summary) => {
              notes.push(...walkNotes(summary))
              if (summary.exhausted && stop === undefined) {
                notes.unshift(`[Stopped after looking at ${count(maxScanned)} entries; narrow the path or the glob.]`)
              }
            }
          )
        yield* Effect.scoped(
          base === workspace.root
            ? Effect.flatMap(locateDirectory(workspace, input, base), searchTree)
            : Effect.flatMap(locate(workspace, input, base), (found) =>
              found.stats === undefined
                ? Effect.fail(describe(where)(new Errno({ code: "ENOENT" })))
                : found.stats.isDirectory()
                ? Effect.flatMap(
                  PathWalk.openDirectory(found.parent, found.name).pipe(
                    // The walk saw a directory there; not finding one now means it was swapped meanwhile.
                    Effect.mapError((error) =>
                      refusal(workspace, input, where)(
                        error._tag === "Errno" && error.code === "ENOTDIR"
                          ? new PathWalk.Errno({ code: "ELOOP" })
                          : error
                      )
                    )
                  ),
                  searchTree
                )
                : searchFile(found.parent, found.name, refusal(workspace, input, where)))
        )
        if (stop === "matches" || stop === "chars") {
          notes.unshift(`[Stopped at ${plural(lines.length, "match", "matches")}; narrow the pattern, path or glob.]`)
        } else if (stop === "bytes") {
          notes.unshift(`[Stopped after reading ${count(bytesRead)} bytes; narrow the path or the glob.]`)
        }
        notes.push(...rules.notes("skipped"))
        if (tooLarge > 0) {
          notes.push(`[Skipped ${plural(tooLarge, "file")} larger than ${count(maxFileBytes)} bytes.]`)
        }
        if (longLines > 0) {
          notes.push(
            `[${plural(longLines, "line was", "lines were")} searched only in their first ${
              count(maxLineChars)
            } characters.]`
          )
        }
        const body = lines.length === 0 ? `No lines under ${where} match /${input.pattern}/.` : lines.join("\n")
        return notes.length === 0 ? body : `${body}\n\n${notes.join("\n")}`
      })
  })
}

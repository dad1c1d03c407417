/**
 * CallTarget: what a call acts on, analysed once (a command line in every
 * reading the shell could give it, a path, a URL's host), with the paths a
 * line names or writes, what the mode needs to know, and how the prompt and
 * the audit describe it. Apart from the matching because every step of the
 * evaluation reads the same target, and no rule is needed to build it.
 *
 * @since 0.4.0
 */
import type * as Policy from "@tool-runtime/core/Policy"
import type * as Tool from "@tool-runtime/core/Tool"
import type * as CommandLine from "./CommandLine.js"
import type * as Mode from "./Mode.js"
import * as ReadReach from "./ReadReach.js"
import * as Rule from "./Rule.js"

/**
 * What a call acts on, analysed once: a command line, a path, a URL, or
 * nothing the tool says.
 *
 * @since 0.3.0
 * @category models
 */
export type Target =
  | { readonly _tag: "None" }
  | {
    readonly _tag: "Command"
    readonly command: string
    readonly analysis: CommandLine.Analysis
    /** Where the command runs, as its tool says (`SandboxRules.Placement`). */
    readonly sandbox: Extract<Policy.Subject, { readonly _tag: "Command" }>["sandbox"]
    /** The directory the line starts in, absolute, when its tool runs it elsewhere than the workspace root. */
    readonly cwd?: string | undefined
    /**
     * Where an absolute path the line names or writes ({@link linePaths})
     * leads: the path itself and, when it goes through symbolic links, its
     * real path. Path rules and the workspace's bounds hold for each.
     */
    readonly leadsTo: (absolutePath: string) => ReadonlyArray<string>
  }
  | {
    readonly _tag: "Path"
    readonly path: string
    /** The path as written and after resolving symbolic links: deny rules match either, allow rules must match both. */
    readonly paths: ReadonlyArray<string>
    readonly access: "read" | "write"
    readonly inside: boolean
  }
  | { readonly _tag: "Url"; readonly url: string; readonly host: string | undefined }

/**
 * The target of a call's subject, with relative paths resolved against the
 * workspace (symbolic links are the engine's to follow).
 *
 * @since 0.3.0
 * @category constructors
 */
export const analyse = (subject: Policy.Subject, location: Rule.Location, commandLine: CommandLine.Service): Target => {
  switch (subject._tag) {
    case "None":
      return subject
    case "Command":
      return {
        _tag: "Command",
        command: subject.command,
        analysis: commandLine.analyse(subject.command),
        sandbox: subject.sandbox,
        cwd: startIn(subject.cwd, location),
        leadsTo: asWritten
      }
    case "Path": {
      const path = Rule.resolve(subject.path, location)
      return {
        _tag: "Path",
        path,
        paths: [path],
        access: subject.access,
        inside: Rule.isInside(path, location.workspaceRoot)
      }
    }
    case "Url":
      return { _tag: "Url", url: subject.url, host: Rule.hostOf(subject.url) }
  }
}

/**
 * Where a path leads when no link is followed: to itself. A target that
 * keeps it leads every path where it is written.
 *
 * @since 0.4.0
 * @category constructors
 */
export const asWritten = (path: string): ReadonlyArray<string> => [path]

const startIn = (cwd: string | undefined, location: Rule.Location): string | undefined => {
  if (cwd === undefined || cwd === "") return undefined
  const resolved = Rule.resolve(cwd, location)
  return resolved === Rule.normalize(location.workspaceRoot) ? undefined : resolved
}

/**
 * The location a target's paths resolve in: a command line that starts
 * elsewhere than the workspace root reads its relative paths from there.
 *
 * @since 0.4.0
 * @category constructors
 */
export const locationOf = (target: Target, location: Rule.Location): Rule.Location =>
  target._tag === "Command" && target.cwd !== undefined ? { ...location, startDirectory: target.cwd } : location

/**
 * Every directory a command of the line could run in: the workspace and
 * wherever a `cd` in any reading could lead.
 *
 * @since 0.4.0
 * @category constructors
 */
export const lineCwds = (analysis: CommandLine.Analysis, location: Rule.Location): ReadonlyArray<string> =>
  ReadReach.afterCd([Rule.startOf(location)], analysis.readings, location)

/**
 * The files the line's redirections write, absolute, from every directory
 * a `cd` in it could leave the redirection in.
 *
 * @since 0.4.0
 * @category constructors
 */
export const lineWrites = (analysis: CommandLine.Analysis, location: Rule.Location): ReadonlyArray<string> => {
  if (analysis.writes.length === 0) return []
  const cwds = lineCwds(analysis, location)
  // Loops, not `flatMap`: node 20's costs about as much as the rest of this together.
  const written = new Set<string>()
  for (const path of analysis.writes) for (const cwd of cwds) written.add(ReadReach.resolveIn(path, cwd))
  return [...written]
}

/**
 * The absolute paths of a command line whose symbolic links the engine
 * follows: what it names (`ReadReach.namedPaths`) and what it writes.
 *
 * @since 0.4.0
 * @category constructors
 */
export const linePaths = (analysis: CommandLine.Analysis, location: Rule.Location): ReadonlyArray<string> => [
  ...new Set([
    ...ReadReach.namedPaths(analysis, location).map((entry) => entry.path),
    ...lineWrites(analysis, location)
  ])
]

/**
 * What the mode needs to know about a call.
 *
 * @since 0.3.0
 * @category constructors
 */
export const factsOf = (tool: Tool.Any, target: Target): Mode.Facts => ({
  readOnly: tool.readOnly,
  risk: tool.risk,
  edit: target._tag === "Path" && target.access === "write" ? (target.inside ? "inside" : "outside") : undefined,
  readsOutside: target._tag === "Path" && target.access === "read" && !target.inside,
  command: target._tag === "Command"
})

/**
 * What the call acts on, in the words the prompt and the audit show.
 *
 * @since 0.3.0
 * @category formatting
 */
export const describeSubject = (target: Target): string | undefined => {
  switch (target._tag) {
    case "None":
      return undefined
    case "Command":
      return `command: ${target.command}${target.cwd === undefined ? "" : ` (run in ${target.cwd})`}${
        target.sandbox === "confined"
          ? " (in the sandbox)"
          : target.sandbox === "unconfined"
          ? " (asks to run outside the sandbox)"
          : ""
      }`
    case "Path":
      return `${target.access === "write" ? "writes" : "reads"} ${target.path}`
    case "Url":
      return `url: ${target.url}`
  }
}

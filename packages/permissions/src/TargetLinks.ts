/**
 * TargetLinks: where the paths of a call's target lead through symbolic
 * links. Apart because it is the engine's one use of the file system, and
 * the one an engine that ignores links (`makeIgnoringSymlinks`) leaves out.
 *
 * @since 0.4.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PathRule from "./PathRule.js"
import * as Rule from "./Rule.js"
import * as RuleMatch from "./RuleMatch.js"

/**
 * A target with every path it names as written and where links lead; with
 * no file system, the target as it is.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make = (fileSystem: Option.Option<FileSystem.FileSystem>, location: Rule.Location) => {
  // The paths a path leads to through symbolic links (the path itself when
  // links are ignored).
  const linked = (path: string): Effect.Effect<ReadonlyArray<string>> =>
    Option.isNone(fileSystem)
      ? Effect.succeed([path])
      : PathRule.candidates(path).pipe(Effect.provideService(FileSystem.FileSystem, fileSystem.value))
  // A path, and every path a command line names or writes, as written and where links lead.
  const withLinks = (target: RuleMatch.Target): Effect.Effect<RuleMatch.Target> => {
    switch (target._tag) {
      case "Path":
        return Effect.map(linked(target.path), (paths) => ({
          ...target,
          paths: paths.length === 0 ? [target.path] : paths,
          inside: paths.every((path) => Rule.isInside(path, location.workspaceRoot))
        }))
      case "Command":
        return Option.isNone(fileSystem) ? Effect.succeed(target) : Effect.map(
          Effect.forEach(
            RuleMatch.linePaths(target.analysis, RuleMatch.locationOf(target, location)),
            (path) => Effect.map(linked(path), (paths) => [path, paths] as const)
          ),
          (pairs) => {
            const leads = new Map(pairs.filter(([path, paths]) => paths.length > 1 || paths[0] !== path))
            return leads.size === 0 ? target : { ...target, leadsTo: (path) => leads.get(path) ?? [path] }
          }
        )
      default:
        return Effect.succeed(target)
    }
  }
  return withLinks
}

/**
 * Whether {@link make}'s function would return the target as it is: it has
 * no path to follow, or there is no file system to follow it in. The engine
 * then goes on without a step. It depends on the target's kind alone, so
 * the call's subject, not yet analysed, tells it too.
 *
 * @since 0.4.0
 * @category constructors
 */
export const unchanged = (
  fileSystem: Option.Option<FileSystem.FileSystem>,
  target: Pick<RuleMatch.Target, "_tag">
): boolean =>
  target._tag === "None" || target._tag === "Url" || (target._tag === "Command" && Option.isNone(fileSystem))

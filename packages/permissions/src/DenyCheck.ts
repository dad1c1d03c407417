/**
 * How the deny rules meet a call (step 2 of the evaluation) and the paths a
 * running call meets by itself (`checkPath`). A deny rule matching any
 * reading of the call denies; a `Read` deny also covers the tools that
 * write a path, the files a command names (as written, from every directory
 * a `cd` leaves it in, and where symbolic links lead, `ReadReach`), and the
 * path deny rules cover the files a redirection writes (from every such
 * directory, and where links lead, as the file tools' write).
 *
 * Internal to the package, like `RuleMatch`: the index does not export it.
 *
 * @since 0.4.0
 */
import type * as Policy from "@tool-runtime/core/Policy"
import * as Either from "effect/Either"
import * as ReadReach from "./ReadReach.js"
import * as Rule from "./Rule.js"
import * as RuleMatch from "./RuleMatch.js"

/**
 * @since 0.4.0
 * @category models
 */
export interface Match {
  readonly rule: string
  readonly detail: string | undefined
}

/**
 * @since 0.4.0
 * @category models
 */
export interface Service {
  /** The `Read` deny and ask rules with a path, for what a command could read without naming it. */
  readonly readGuards: ReadonlyArray<ReadReach.Guard>
  /**
   * The deny rule a call of `toolName` on `target` meets, and what of the
   * call it matched. Symbolic links count as the target says where its
   * paths lead (`paths`, `leadsTo`): the engine follows them first.
   */
  readonly match: (toolName: string, target: RuleMatch.Target) => Match | undefined
  /**
   * The `Read` ask rule guarding a file a command names (`cat secrets/key`
   * with `Read(./secrets/**)`), as written or where a link leads: a Read ask
   * keeps a named file from `cat` as it keeps it from read_file.
   */
  readonly askNamed: (target: RuleMatch.Target) => Match | undefined
  /** Core's `Policy.checkPath`: the deny, then the ask, rules with a path. */
  readonly checkPath: (toolName: string, path: string, access: "read" | "write") => Policy.PathRefusal | undefined
}

/**
 * @since 0.4.0
 * @category constructors
 */
export const make = (options: {
  readonly deny: ReadonlyArray<RuleMatch.Compiled>
  readonly ask: ReadonlyArray<RuleMatch.Compiled>
  readonly location: Rule.Location
  readonly aliases: ReadonlyMap<string, ReadonlySet<string>>
  /** A list's rules for a tool (the engine's cache). */
  readonly forTool: (rules: ReadonlyArray<RuleMatch.Compiled>, name: string) => ReadonlyArray<RuleMatch.Compiled>
}): Service => {
  const { aliases, ask, deny, forTool, location } = options
  const readDenies = deny.filter((rule) => rule.rule.tool === "Read" && rule.rule.specifier !== undefined)
  const pathDenies = deny.filter((rule) => Rule.pathRuleNames.has(rule.rule.tool) && rule.rule.specifier !== undefined)
  const guardsOf = (rules: ReadonlyArray<RuleMatch.Compiled>, list: "deny" | "ask"): Array<ReadReach.Guard> =>
    rules.flatMap((rule) =>
      rule.rule.tool === "Read" && rule.path !== undefined && Either.isRight(rule.path)
        ? [{ rule: rule.text, list, pattern: rule.path.right }]
        : []
    )
  const readDenyGuards = guardsOf(deny, "deny")
  const readAskGuards = guardsOf(ask, "ask")
  const askNamed = (target: RuleMatch.Target): Match | undefined => {
    if (target._tag !== "Command" || readAskGuards.length === 0) return undefined
    const named = ReadReach.named(
      ReadReach.namedPaths(target.analysis, RuleMatch.locationOf(target, location)),
      readAskGuards,
      target.leadsTo
    )
    return named === undefined ? undefined : { rule: named.guard.rule, detail: named.detail }
  }

  // A Read deny keeps a path from the tools that write it too.
  const denying = (toolName: string, access: "read" | "write" | undefined) =>
    access === "write"
      ? [...forTool(deny, toolName), ...readDenies.filter((rule) => !Rule.namesTool(rule.rule, toolName, aliases))]
      : forTool(deny, toolName)

  const match = (toolName: string, target: RuleMatch.Target): Match | undefined => {
    for (const rule of denying(toolName, target._tag === "Path" ? target.access : undefined)) {
      const found = RuleMatch.restrictiveMatch(rule, target)
      if (found !== undefined) return found
    }
    if (target._tag !== "Command") return undefined
    const here = RuleMatch.locationOf(target, location)
    // A command's arguments name files: a Read deny keeps them from `cat` as from read_file,
    // as written or where a link leads.
    if (readDenyGuards.length > 0) {
      const named = ReadReach.named(ReadReach.namedPaths(target.analysis, here), readDenyGuards, target.leadsTo)
      if (named !== undefined) return { rule: named.guard.rule, detail: named.detail }
    }
    // A redirection writes a file: the path deny rules see it as the file tools' write, from
    // every directory a `cd` could leave it in and where a link leads.
    if (pathDenies.length > 0 && target.analysis.writes.length > 0) {
      const cwds = RuleMatch.lineCwds(target.analysis, here)
      for (const written of target.analysis.writes) {
        for (const cwd of cwds) {
          const path = ReadReach.resolveIn(written, cwd)
          for (const lead of target.leadsTo(path)) {
            const rule = pathDenies.find((r) =>
              r.path !== undefined && Either.isRight(r.path) && r.path.right.test(lead)
            )
            if (rule === undefined) continue
            return {
              rule: rule.text,
              detail: lead === path ? `it writes ${written}` : `it writes ${written}, which leads to ${lead}`
            }
          }
        }
      }
    }
    return undefined
  }

  // A path a running call met by itself (a file a search opens, an entry a
  // walk lists; real, as the tools report it): the rules with a path judge it
  // as they judge a path the call names. A rule without a path decided the
  // call itself, before it ran. Synchronous and without I/O: once per file.
  // The rules with a path that can refuse a tool's access, found once per
  // tool and access: a walk asks for every file it meets, and most tools
  // meet no rule at all.
  interface PathRules {
    readonly deny: ReadonlyArray<RuleMatch.Compiled>
    readonly ask: ReadonlyArray<RuleMatch.Compiled>
  }
  const pathRules = new Map<string, PathRules>()
  const withPath = (rules: ReadonlyArray<RuleMatch.Compiled>) =>
    rules.filter((rule) => rule.rule.specifier !== undefined)
  const rulesFor = (toolName: string, access: "read" | "write"): PathRules => {
    const key = `${access}\u0000${toolName}`
    let found = pathRules.get(key)
    if (found === undefined) {
      found = { deny: withPath(denying(toolName, access)), ask: withPath(forTool(ask, toolName)) }
      pathRules.set(key, found)
    }
    return found
  }
  // A pattern that did not compile applies, as a restrictive rule does wherever the engine cannot tell.
  const meets = (rule: RuleMatch.Compiled, path: string) =>
    rule.path === undefined || Either.isLeft(rule.path) || rule.path.right.test(path)
  const checkPath = (toolName: string, reached: string, access: "read" | "write"): Policy.PathRefusal | undefined => {
    const rules = rulesFor(toolName, access)
    if (rules.deny.length === 0 && rules.ask.length === 0) return undefined
    const path = Rule.resolve(reached, location)
    for (const rule of rules.deny) if (meets(rule, path)) return { verdict: "deny", rule: rule.text }
    for (const rule of rules.ask) if (meets(rule, path)) return { verdict: "ask", rule: rule.text }
    return undefined
  }

  return { readGuards: [...readDenyGuards, ...readAskGuards], match, askNamed, checkPath }
}

/**
 * CompiledRule: a rule parsed and compiled once, with its command, path and
 * domain patterns, and where a relative path rule applies. Apart from the
 * matching because a rule list is compiled once, when the engine is made,
 * and met by every call after.
 *
 * @since 0.4.0
 */
import * as Either from "effect/Either"
import type * as PathRule from "./PathRule.js"
import * as Rule from "./Rule.js"

/**
 * A rule parsed and compiled once: its command, path and domain patterns,
 * or why each does not apply.
 *
 * @since 0.3.0
 * @category models
 */
export interface Compiled {
  readonly rule: Rule.Rule
  readonly text: string
  readonly command: Either.Either<Rule.CommandPattern, string> | undefined
  readonly path: Either.Either<PathRule.PathPattern, string> | undefined
  readonly domain: Either.Either<(host: string) => boolean, string> | undefined
  /**
   * A further check on a command's words (the simple form of a read-only
   * command), told where the command could run and where paths lead.
   */
  readonly guard?: ((words: ReadonlyArray<string>, where: Where) => boolean) | undefined
}

/**
 * Where a command of a line could run (every directory a `cd` before it
 * could leave it in) and where the paths the line names lead.
 *
 * @since 0.4.0
 * @category models
 */
export interface Where {
  readonly cwds: ReadonlyArray<string>
  readonly leadsTo: (absolutePath: string) => ReadonlyArray<string>
}

export type List = "allow" | "ask" | "deny"

/**
 * Where a relative path rule applies, as documented: a bare name (`.env`,
 * `*.env`) at any depth; one directory with everything in it (`secrets/**`)
 * at any depth for deny and ask rules, where a wider match protects more,
 * and only in the current directory for allow rules; any other relative
 * shape (`src/components/**`) at the current directory.
 */
const anchorPath = (specifier: string, list: List): string => {
  if (/^(?:\/|~|\.\/|\.\.\/|\*\*\/)/.test(specifier) || !specifier.replace(/\/+$/, "").includes("/")) return specifier
  const oneDirectory = /^[^/]+\/(?:\*\*)?$/.test(specifier)
  return oneDirectory && list !== "allow" ? specifier : `./${specifier}`
}

const compile = (rule: Rule.Rule, location: Rule.Location, list: List): Either.Either<Compiled, Rule.InvalidRule> => {
  const text = Rule.print(rule)
  const specifier = rule.specifier
  // A wildcard tool name that could cover tools nobody has seen yet may restrict,
  // never grant: the documented allow form stops at a server (mcp__server__*).
  const problem = list === "allow" ? Rule.allowProblem(rule) : undefined
  if (problem !== undefined) return Either.left(new Rule.InvalidRule({ rule: text, reason: problem }))
  if (specifier === undefined) {
    return Either.right({ rule, text, command: undefined, path: undefined, domain: undefined })
  }
  // An allow rule's `src/**` means the current directory's src; a deny or ask
  // rule's matches at any depth, as the documentation has it. A bare name
  // without a slash (`.env`) matches at any depth in both.
  const anchored = anchorPath(specifier.trim(), list)
  const path = Rule.pathPattern(anchored, location)
  // Rules meant for paths must resolve now: a deny rule that silently never
  // matched would be worse than a settings error.
  if (Rule.pathRuleNames.has(rule.tool) && Either.isLeft(path)) {
    return Either.left(new Rule.InvalidRule({ rule: text, reason: path.left }))
  }
  return Either.right({
    rule,
    text,
    command: Rule.commandPattern(specifier),
    path,
    domain: specifier.startsWith("domain:") ? Rule.domainPattern(specifier) : Either.left("not a domain rule")
  })
}

/**
 * Parses and compiles a rule list; the first rule that is invalid fails it.
 *
 * @since 0.3.0
 * @category constructors
 */
export const compileAll = (
  rules: ReadonlyArray<string | Rule.Rule> | undefined,
  location: Rule.Location,
  list: List
): Either.Either<ReadonlyArray<Compiled>, Rule.InvalidRule> =>
  Either.all(
    (rules ?? []).map((rule) =>
      Either.flatMap(
        typeof rule === "string" ? Rule.parse(rule) : Either.right(rule),
        (r) => compile(r, location, list)
      )
    )
  )

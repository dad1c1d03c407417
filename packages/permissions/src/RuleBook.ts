/**
 * RuleBook: the rule lists an engine compiles once from its configuration
 * (deny, ask, allow, the read-only commands, acceptEdits' file commands),
 * each list's rules for a tool, and the deny check over them. Apart from
 * the evaluation because none of it changes from one call to the next.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as CommandRisk from "./CommandRisk.js"
import * as DenyCheck from "./DenyCheck.js"
import * as EngineConfig from "./EngineConfig.js"
import * as PathRule from "./PathRule.js"
import * as ReadOnlyCommands from "./ReadOnlyCommands.js"
import * as ReadReach from "./ReadReach.js"
import * as Rule from "./Rule.js"
import * as RuleMatch from "./RuleMatch.js"

/**
 * Compiles a configuration's rule lists; the first invalid rule fails it.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make = (config: EngineConfig.Config) =>
  Effect.gen(function*() {
    const location: Rule.Location = {
      workspaceRoot: Rule.normalize(config.workspaceRoot),
      homeDirectory: config.homeDirectory,
      caseInsensitive: config.caseInsensitivePaths ??
        PathRule.defaultCaseInsensitive(globalThis.process?.platform ?? "")
    }
    const denyRules = yield* RuleMatch.compileAll(config.deny, location, "deny")
    const askRules = yield* RuleMatch.compileAll(config.ask, location, "ask")
    const allowRules = yield* RuleMatch.compileAll(config.allow, location, "allow")
    const readOnlyRules = (yield* RuleMatch.compileAll(ReadOnlyCommands.rules, location, "allow")).map((rule) => ({
      ...rule,
      guard: ReadOnlyCommands.simpleForm
    }))
    // The paths a path leads to through symbolic links (the path itself when
    const aliases = new Map(
      Object.entries({ ...EngineConfig.defaultTools, ...config.tools }).map(([name, tools]) => [name, new Set(tools)])
    )
    const editAllows = allowRules.filter((rule) =>
      (rule.rule.tool === "Edit" || rule.rule.tool === "Write") && rule.path !== undefined && Either.isRight(rule.path)
    )
    const acceptEditsRules = (yield* RuleMatch.compileAll(CommandRisk.fileCommandRules, location, "allow")).map((
      rule
    ) => ({
      ...rule,
      // No file command writes a protected place: from every directory a `cd` could leave
      // it in, nor where a link leads.
      guard: (words: ReadonlyArray<string>, where: RuleMatch.Where) =>
        CommandRisk.fileCommandForm(words) &&
        words.slice(1).every((word) =>
          where.cwds.every((cwd) =>
            where.leadsTo(ReadReach.resolveIn(word, cwd)).every((path) =>
              RuleMatch.protectedIn(path, location) === undefined
            )
          )
        )
    }))
    // Each list's rules for a tool, filtered once: the lists are fixed, and the
    // session's is replaced (not changed) when the person adds a rule.
    const byTool = new WeakMap<ReadonlyArray<RuleMatch.Compiled>, Map<string, ReadonlyArray<RuleMatch.Compiled>>>()
    const forTool = (rules: ReadonlyArray<RuleMatch.Compiled>, name: string): ReadonlyArray<RuleMatch.Compiled> => {
      let names = byTool.get(rules)
      if (names === undefined) byTool.set(rules, names = new Map())
      let found = names.get(name)
      // Frozen, so an allow match may index it by program (RuleIndex) and keep the index with it.
      if (found === undefined) {
        names.set(name, found = Object.freeze(rules.filter((rule) => Rule.namesTool(rule.rule, name, aliases))))
      }
      return found
    }
    // Step 10's rule set (the configured allow rules, the session's, the read-only commands and, in
    // acceptEdits, the file commands), made once per version of the session's rules: the session's
    // list is replaced, never changed, when the person adds a rule, so its identity is the version.
    // Frozen and reused, it is indexed once (RuleIndex) rather than rebuilt and scanned every call.
    const allowSets = new WeakMap<ReadonlyArray<RuleMatch.Compiled>, Map<string, ReadonlyArray<RuleMatch.Compiled>>>()
    const allowSet = (
      sessionRules: ReadonlyArray<RuleMatch.Compiled>,
      name: string,
      acceptEdits: boolean
    ): ReadonlyArray<RuleMatch.Compiled> => {
      let sets = allowSets.get(sessionRules)
      if (sets === undefined) allowSets.set(sessionRules, sets = new Map())
      const key = `${acceptEdits ? "acceptEdits" : "other"}\u0000${name}`
      let found = sets.get(key)
      if (found === undefined) {
        sets.set(
          key,
          found = Object.freeze([
            ...forTool(allowRules, name),
            ...forTool(sessionRules, name),
            ...forTool(readOnlyRules, name),
            ...(acceptEdits ? forTool(acceptEditsRules, name) : [])
          ])
        )
      }
      return found
    }
    const denyCheck = DenyCheck.make({
      deny: denyRules,
      ask: askRules,
      location,
      aliases,
      forTool
    })
    const allowTexts = new Set(allowRules.map((rule) => rule.text))
    const acceptEditsTexts = new Set(acceptEditsRules.map((rule) => rule.text))
    return {
      location,
      denyRules,
      askRules,
      allowRules,
      readOnlyRules,
      editAllows,
      acceptEditsRules,
      aliases,
      forTool,
      allowSet,
      denyCheck,
      allowTexts,
      acceptEditsTexts
    }
  })

/**
 * A configuration's rules, compiled.
 *
 * @since 0.4.0
 * @category models
 */
export type RuleBook = Effect.Effect.Success<ReturnType<typeof make>>

/**
 * What a call acts on and how rules meet it. A call's target is analysed
 * once (a command line in every reading the shell could give it, a path as
 * written and after symbolic links, a URL's host) and each rule is compiled
 * once; a rule list then meets a target in one of three ways:
 *
 * - a restrictive match, for deny and ask rules: where the engine is in
 *   doubt (the tool does not say what it acts on, a command it cannot name,
 *   a URL with no host), the rule applies;
 * - an allow match, for allow rules: only when the engine is sure that every
 *   command, path and URL the call reaches is covered;
 * - the rules "always allow" may offer: the narrowest rule for exactly what
 *   the call acts on, and none when it could not be read with certainty.
 *
 * The rule compiled once is `CompiledRule`'s, the target analysed once
 * `CallTarget`'s, and where a write must never land unasked
 * (`protectedPath`) and which command lines could destroy the machine
 * (`destructionOf`) are `ProtectedTargets`'; this module re-exports them, so
 * the engine's steps keep one name to meet a call by.
 *
 * `Engine` keeps the order of the evaluation; this module keeps what each
 * step compares, so that each reads as one concept. It is internal to the
 * package: the index does not export it, and its shapes change with the
 * engine's.
 *
 * @since 0.3.0
 */
import type * as Tool from "@tool-runtime/core/Tool"
import * as Either from "effect/Either"
import * as CallTarget from "./CallTarget.js"
import * as CommandLine from "./CommandLine.js"
import * as CommandRisk from "./CommandRisk.js"
import type * as CompiledRule from "./CompiledRule.js"
import * as InterpreterCode from "./InterpreterCode.js"
import * as ReadReach from "./ReadReach.js"
import * as Rule from "./Rule.js"
import * as RuleIndex from "./RuleIndex.js"
import * as ShellGlob from "./ShellGlob.js"

/**
 * A compiled rule, where a command could run, and the compiling of a rule
 * list: see `CompiledRule`.
 *
 * @since 0.3.0
 */
export type { Compiled, Where } from "./CompiledRule.js"
/** @since 0.3.0 */
export { compileAll } from "./CompiledRule.js"
/**
 * What a call acts on, and what the engine derives from it: see
 * `CallTarget`.
 *
 * @since 0.3.0
 */
export type { Target } from "./CallTarget.js"
/** @since 0.3.0 */
export { analyse, describeSubject, factsOf, lineCwds, linePaths, lineWrites, locationOf } from "./CallTarget.js"
/**
 * The places and lines that always reach a person: see `ProtectedTargets`.
 *
 * @since 0.3.0
 */
export { destructionOf, protectedIn, protectedPath } from "./ProtectedTargets.js"

// ---------------------------------------------------------------------------
// how a rule list meets a target
// ---------------------------------------------------------------------------

interface Match {
  readonly rule: string
  /** What of the call matched, for the reason given to the model. */
  readonly detail: string | undefined
}

/**
 * Deny and ask rules: where the engine cannot tell (the tool does not say
 * what it acts on, the URL does not parse), the rule applies.
 *
 * @since 0.3.0
 * @category matching
 */
export const restrictiveMatch = (rule: CompiledRule.Compiled, target: CallTarget.Target): Match | undefined => {
  if (rule.rule.specifier === undefined) return { rule: rule.text, detail: undefined }
  switch (target._tag) {
    case "None":
      return { rule: rule.text, detail: "the tool does not say what the call acts on, so the rule applies" }
    case "Command": {
      const pattern = rule.command
      if (pattern === undefined || Either.isLeft(pattern)) return { rule: rule.text, detail: undefined }
      // A command the engine cannot name could be the one the rule names.
      if (target.analysis.open !== undefined) {
        return { rule: rule.text, detail: `${target.analysis.open}, and the rule could match it` }
      }
      const head = pattern.right.head
      if (
        head === undefined ?
          target.analysis.globNames.length > 0 :
          target.analysis.globNames.some((glob) =>
            ShellGlob.matches(glob, head) || ShellGlob.matches(glob.split("/").pop() ?? glob, head)
          )
      ) {
        return { rule: rule.text, detail: "its command name is a glob that could name the command the rule names" }
      }
      // Every reading counts: a deny rule that could match what bash runs denies.
      const readings = target.analysis.readings
      for (const words of readings) {
        if (Rule.matchesCommand(pattern.right, words)) {
          return {
            rule: rule.text,
            detail: readings.length > 1 ? `it matches the command ${CommandLine.print(words)}` : undefined
          }
        }
      }
      return undefined
    }
    case "Path": {
      if (rule.path === undefined || Either.isLeft(rule.path)) return { rule: rule.text, detail: undefined }
      const pattern = rule.path.right
      const hit = target.paths.find((path) => pattern.test(path))
      return hit === undefined
        ? undefined
        : { rule: rule.text, detail: hit === target.path ? undefined : `the path leads to ${hit}` }
    }
    case "Url":
      return target.host === undefined || rule.domain === undefined || Either.isLeft(rule.domain) ||
          rule.domain.right(target.host)
        ? { rule: rule.text, detail: target.host === undefined ? "the URL has no host" : undefined }
        : undefined
  }
}

/**
 * Whether a rule may cover a command that runs code its words hold (an
 * interpreter, `git -c`): only one that names its program first and leaves
 * open only what follows (`python3 -c:*`, `git:*`); a wildcard written for
 * `* --version` or `git * main` never stands for code.
 */
const namesProgram = (pattern: Rule.CommandPattern, words: ReadonlyArray<string>): boolean =>
  pattern.prefix && pattern.head !== undefined && pattern.head === InterpreterCode.programName(words)

/** Allow rules covering one exact command, path or URL; `undefined` when none does. */
const allowingRule = (
  rules: ReadonlyArray<CompiledRule.Compiled>,
  target: CallTarget.Target,
  words?: ReadonlyArray<string>,
  where?: CompiledRule.Where
) => {
  const ownCode = words !== undefined && InterpreterCode.runsOwnCode(words)
  return rules.find((rule) => {
    if (rule.rule.specifier === undefined) return true
    switch (target._tag) {
      case "None":
        return false
      case "Command":
        return rule.command !== undefined && Either.isRight(rule.command) && words !== undefined &&
          Rule.matchesCommand(rule.command.right, words) && (!ownCode || namesProgram(rule.command.right, words)) &&
          (rule.guard === undefined || (where !== undefined && rule.guard(words, where)))
      case "Path": {
        const pattern = rule.path !== undefined && Either.isRight(rule.path) ? rule.path.right : undefined
        return pattern !== undefined && target.paths.every((path) => pattern.test(path))
      }
      case "Url":
        return target.host !== undefined && rule.domain !== undefined && Either.isRight(rule.domain) &&
          rule.domain.right(target.host)
    }
  })
}

/**
 * Why no allow rule decided a call: the real cause, and what the model can
 * do instead.
 *
 * @since 0.4.0
 * @category models
 */
export interface Gap {
  readonly cause: string
  readonly hint: string
}

const noRule = "Use tools the permission rules allow, or tell the user what you need"

/** A command's name as the reason shows it: the program, and its subcommand when it has one. */
const commandName = (words: ReadonlyArray<string>): string =>
  CommandLine.print(/^[a-z][a-z0-9-]*$/.test(words[1] ?? "") ? words.slice(0, 2) : words.slice(0, 1))

const sameWords = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * Allow rules: the call is allowed only when the engine is sure. A command
 * line is allowed when it is provably simple and every command in it (and
 * every command its wrappers run) is allowed by some rule, names no path
 * outside the workspace, and could not destroy anything. Returns the rules
 * that allowed it.
 *
 * @since 0.3.0
 * @category matching
 */
export const allowMatch = (
  rules: ReadonlyArray<CompiledRule.Compiled>,
  target: CallTarget.Target,
  location: Rule.Location,
  writable: (path: string) => boolean = () => false
): ReadonlyArray<string> | undefined =>
  rules.length === 0 ? undefined : Either.getOrUndefined(allowOrGap(rules, target, location, writable))

/**
 * {@link allowMatch}, or why it does not allow the call (a command that
 * names a path outside the workspace, a line that is not simple, a command
 * no rule covers…).
 *
 * @since 0.4.0
 * @category matching
 */
export const allowOrGap = (
  rules: ReadonlyArray<CompiledRule.Compiled>,
  target: CallTarget.Target,
  location: Rule.Location,
  writable: (path: string) => boolean = () => false
): Either.Either<ReadonlyArray<string>, Gap> => {
  // A list the engine made once for its rule set comes indexed by program (RuleIndex): only the
  // rules that could match a command's words are tried, in the list's order.
  const index = RuleIndex.of(rules)
  const candidates = index === undefined ? () => rules : index.forWords
  const whole = index === undefined ? rules.find((rule) => rule.rule.specifier === undefined) : index.whole
  if (whole !== undefined) return Either.right([whole.text])
  if (target._tag !== "Command") {
    const rule = allowingRule(rules, target)
    return rule === undefined ? Either.left({ cause: "no rule allows it", hint: noRule }) : Either.right([rule.text])
  }
  const analysis = target.analysis
  const leadsTo = target.leadsTo
  const plainOnly = "Write it as plain commands of literal words, or tell the user what you need"
  if (analysis.doubts.length > 0) return Either.left({ cause: analysis.doubts[0]!, hint: plainOnly })
  if (!analysis.simple || analysis.commands.length === 0) {
    return Either.left({ cause: "it is not a plain command", hint: plainOnly })
  }
  const used = new Set<string>()
  // Every directory a later command could run in: `cd a || cat ../x` runs cat in
  // either, so a path must be inside the workspace from each.
  let cwds: ReadonlyArray<string> = [Rule.startOf(location)]
  let gap: Gap | undefined = undefined
  const fail = (cause: string, hint: string) => {
    gap ??= { cause, hint }
    return false
  }
  // A target that follows no link leads every path to itself: `pathsOutside` then spares resolving
  // the relative words it knows stay inside.
  const links = leadsTo === CallTarget.asWritten ? undefined : leadsTo
  const inside = (words: ReadonlyArray<string>) => {
    for (const cwd of cwds) {
      // A link inside the workspace that leads out of it names a path outside. (Written out, not
      // `{ ...location, cwd }`: on node 20 a spread that adds a key costs about a microsecond.)
      const from: CommandRisk.Location = {
        workspaceRoot: location.workspaceRoot,
        homeDirectory: location.homeDirectory,
        cwd
      }
      const outside = CommandRisk.pathsOutside(words, from, links)[0]
      if (outside !== undefined) {
        return fail(
          words[0] === "<"
            ? `it reads ${outside}, outside the workspace`
            : `it names ${outside}, outside the workspace${cwds.length > 1 ? " (from a directory a cd leads to)" : ""}`,
          "Work with paths inside the workspace, or tell the user what you need outside it"
        )
      }
    }
    return true
  }
  const covered = (line: CommandLine.Analysis): boolean =>
    (line.doubts.length === 0 || fail(line.doubts[0]!, plainOnly)) && line.commands.every((command) => {
      const name = command.words[0] ?? ""
      if (name === "git" && cwds.length > 1) {
        return fail("it runs git after changing directory", "Run git from the workspace, in a command of its own")
      }
      if (
        !inside(command.words) ||
        // A cover that is the command's own words was just judged.
        !command.covers.every((words) => sameWords(words, command.words) || inside(words)) ||
        (command.reads.length > 0 && !inside(["<", ...command.reads]))
      ) return false
      for (const path of command.writes) {
        if (path === "/dev/null") continue
        // Where the file is written and where a link leads: an Edit rule must allow both.
        if (!cwds.every((cwd) => leadsTo(ReadReach.resolveIn(path, cwd)).every(writable))) {
          return fail(
            `it writes ${path}, and no Edit rule allows writing there`,
            "Write files with the file tools, or tell the user what you need"
          )
        }
      }
      // An exact rule names this invocation whole: what its words do is what the person allowed.
      const exact = candidates(command.words).find((rule) =>
        rule.guard === undefined && rule.command !== undefined && Either.isRight(rule.command) &&
        rule.command.right.exact !== undefined && Rule.matchesCommand(rule.command.right, command.words)
      )
      if (exact !== undefined) used.add(exact.text)
      else {
        if (command.doubts.length > 0) {
          return fail(
            command.doubts[0]!,
            "Run the command itself, without the wrapper or option in doubt, or tell the user what you need"
          )
        }
        if (command.globs && !CommandRisk.takesGlobs(command.covers)) {
          return fail(
            `${commandName(command.words)} is given a glob, which could expand to one of its options`,
            "Name the files instead of a glob, or tell the user what you need"
          )
        }
        for (const words of command.covers) {
          // `cat list | xargs cat`: the paths come from the input, wherever they lead. A read-only
          // command (or acceptEdits' file command) runs without a rule because its words show what
          // it touches, as its guard checks; a rule the person wrote (`Bash(grep *)` for
          // `xargs grep x`, as documented) still covers it.
          const some = candidates(words)
          const written = words.includes(CommandLine.fromInput)
            ? some.filter((rule) => rule.guard === undefined)
            : some
          const rule = allowingRule(written, target, words, { cwds, leadsTo })
          if (rule === undefined && written !== some && allowingRule(some, target, words, { cwds, leadsTo })) {
            return fail(
              `${commandName(words)} is given words from its input (xargs), which may name paths outside the workspace`,
              "Name the files in the command, or tell the user what you need"
            )
          }
          if (rule === undefined) {
            return fail(`${commandName(words)} is not read-only and no rule allows it`, noRule)
          }
          used.add(rule.text)
        }
        if (!command.scripts.every(covered)) return false
      }
      // `cd`, and `builtin cd`, `command cd`, `time cd`: wrappers that only change how it runs.
      cwds = ReadReach.afterCd(cwds, [command.words, ...command.covers], location)
      return true
    })
  return covered(analysis)
    ? Either.right([...used])
    : Either.left(gap ?? { cause: "it is not read-only and no rule allows it", hint: noRule })
}

/**
 * The rules "always allow" would store: the narrowest rule naming exactly
 * what the call acts on, by its registry name. For a command line, one exact
 * rule per command not yet allowed, and none at all unless every command
 * was read with certainty.
 *
 * @since 0.3.0
 * @category suggestions
 */
export const suggest = (
  tool: Tool.Any,
  target: CallTarget.Target,
  allowed: ReadonlyArray<CompiledRule.Compiled>,
  location: Rule.Location
): ReadonlyArray<string> => {
  const exact = (specifier: string | undefined): ReadonlyArray<string> => {
    const rule = { tool: tool.name, specifier }
    // Only what parses back to itself is offered: the stored rule is the shown one.
    const parsed = Rule.parse(Rule.print(rule))
    return Either.isRight(parsed) && Rule.print(parsed.right) === Rule.print(rule) ? [Rule.print(rule)] : []
  }
  switch (target._tag) {
    case "None":
      return exact(undefined)
    case "Path":
      return exact(Rule.exactPathSpecifier(target.path, location))
    case "Url":
      return target.host === undefined ? [] : exact(`domain:${target.host}`)
    case "Command": {
      const analysis = target.analysis
      // Nothing is offered for a line that a rule could not allow next time either.
      if (!CommandLine.isCertain(analysis) || analysis.commands.some((c) => c.scripts.length > 0)) return []
      const rules = new Set<string>()
      for (const command of analysis.commands) {
        // A rule for the command would not cover where it writes or reads next time either.
        if (
          CommandRisk.pathsOutside(command.words, { ...location, cwd: Rule.startOf(location) }, target.leadsTo).length >
            0
        ) {
          return []
        }
        if (command.writes.some((path) => path !== "/dev/null") || command.globs) return []
        if (command.words[0] === "cd") return []
        for (const words of command.covers) {
          const where = { cwds: [Rule.startOf(location)], leadsTo: target.leadsTo }
          if (allowingRule(allowed, target, words, where) !== undefined) continue
          const rule = exact(CommandLine.print(words))
          if (rule.length === 0) return []
          rules.add(rule[0]!)
        }
      }
      return [...rules]
    }
  }
}

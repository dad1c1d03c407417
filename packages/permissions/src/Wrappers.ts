/**
 * Wrappers: commands that run another command. `sudo -u root rm -rf /`
 * runs `rm`, `env -S 'rm -rf /'` runs `rm`, `bash -c 'rm -rf /'` runs a
 * script. A deny rule must see every command a wrapper can run, and an allow
 * rule must allow a wrapper only when what it runs is allowed, so this module
 * reads each wrapper with its real option grammar (which options take a
 * value, combined short flags, `--`, leading assignments) and lists what it
 * runs. The getopt-style reading itself lives in OptionGrammar, each
 * wrapper's table and what it does once read in WrapperTable and the
 * families behind it; this module walks a command through them.
 *
 * It works on words a parser has already produced and expands nothing. Where
 * it cannot be sure (an unknown option, arguments that come from input, a
 * builtin that evaluates its arguments as code) it says so in a doubt and
 * keeps every plausible reading, so deny rules stay strong while allow rules
 * step back. A program it has no table for and does not know
 * (`KnownPrograms`) may run any later word as a command (`taskset 0x1 rm`):
 * those readings are guesses, for deny and ask rules only.
 *
 * @since 0.3.0
 */
import * as EvaluatingBuiltins from "./EvaluatingBuiltins.js"
import * as KnownPrograms from "./KnownPrograms.js"
import * as WrapperStep from "./WrapperStep.js"
import * as WrapperTable from "./WrapperTable.js"

/**
 * One way to read a command: the words of a command line as a wrapper runs
 * them, or shell source a wrapper will parse and run. `via` names the
 * wrappers, outermost first, that lead to it. `guess` marks a reading
 * reached through a program the engine does not know (`strace rm`): deny
 * and ask rules match it, allow rules never need to cover it.
 *
 * @since 0.3.0
 * @category models
 */
export type Reading =
  | {
    readonly _tag: "Words"
    readonly words: ReadonlyArray<string>
    readonly via: ReadonlyArray<string>
    readonly guess?: true
  }
  | { readonly _tag: "Script"; readonly script: string; readonly via: ReadonlyArray<string>; readonly guess?: true }

/**
 * What a command runs, once its wrappers are read.
 *
 * @since 0.3.0
 * @category models
 */
export interface Unwrapped {
  /** Every reading, outermost first: the command itself, then each command a wrapper in it runs (recursively through nested wrappers), then scripts. */
  readonly readings: ReadonlyArray<Reading>
  /**
   * The innermost command actually run when every wrapper is understood (what
   * an allow rule must cover), or undefined when a wrapper's arguments could
   * not be read with certainty. Also undefined when the chain ends in a
   * script (`bash -c …`, `eval …`): the Script reading is then what an allow
   * rule must cover. A wrapper that runs nothing (`flock 3`, `command -v rm`)
   * runs itself.
   */
  readonly runs: ReadonlyArray<string> | undefined
  /** True when a shell in the chain reads its commands from standard input (bash, sh, zsh, dash, ksh with no -c and no script file, or with -s, or `sh -`): the caller then treats a here-document / here-string body as a script. */
  readonly readsStdinScript: boolean
  /** True also when such a shell is only a guess (`ssh host bash`): for deny and ask rules. */
  readonly mayReadStdinScript: boolean
  /** Why allow rules must not auto-allow this command even if its words match a rule. Empty when none. */
  readonly doubts: ReadonlyArray<string>
}

// An unknown option multiplies readings (WrapperStep bounds the nesting).
const maxReadings = 256

const basename = (word: string): string => word.split("/").filter((part) => part !== "").pop() ?? ""

const same = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.length === b.length && a.every((word, i) => word === b[i])

// A cheap key; equal keys are compared in full, so long word lists stay cheap to dedupe.
const keyOf = (words: ReadonlyArray<string>): string =>
  `${words.length}\u0000${words.slice(0, 8).join("\u0000")}\u0000${words[words.length - 1] ?? ""}`

interface Seen {
  readonly words: ReadonlyArray<string>
  runs: ReadonlyArray<string> | undefined
}

/**
 * Reads a command's wrappers: every command and script it can run, the one
 * it certainly runs when every wrapper is understood, and why allow rules
 * should not trust its words.
 *
 * @since 0.3.0
 * @category unwrapping
 */
export const unwrap = (words: ReadonlyArray<string>): Unwrapped => {
  const commands: Array<Reading> = []
  const scripts: Array<Reading> = []
  const doubts = new Set<string>()
  const seen = new Map<string, Array<Seen>>()
  const seenScripts = new Set<string>()
  let readsStdinScript = false
  let mayReadStdinScript = false
  // Unknown programs met on the certain chain, read for guesses once it is done: a guess
  // never shadows a certain reading of the same words.
  const unknown: Array<{ readonly words: ReadonlyArray<string>; readonly via: ReadonlyArray<string> }> = []

  // Guesses are for deny rules only: running out of room for them is no doubt of an allow rule's.
  const room = (guess: boolean): boolean => {
    if (commands.length + scripts.length < maxReadings) return true
    if (!guess) doubts.add(`more than ${maxReadings} readings: the rest were not read`)
    return false
  }

  const visit = (current: ReadonlyArray<string>, via: ReadonlyArray<string>, depth: number, guess: boolean) => {
    if (current.length === 0) return undefined
    if (depth > WrapperStep.maxDepth) {
      if (!guess) doubts.add(`wrappers nested more than ${WrapperStep.maxDepth} deep: the rest were not read`)
      return undefined
    }
    const key = keyOf(current)
    const bucket = seen.get(key) ?? []
    const before = bucket.find((entry) => same(entry.words, current))
    if (before !== undefined) return before.runs
    if (!room(guess)) return undefined
    const entry: Seen = { words: current, runs: undefined }
    bucket.push(entry)
    seen.set(key, bucket)
    commands.push(guess ? { _tag: "Words", words: current, via, guess } : { _tag: "Words", words: current, via })
    entry.runs = read(current, via, depth, guess)
    return entry.runs
  }

  const read = (
    current: ReadonlyArray<string>,
    via: ReadonlyArray<string>,
    depth: number,
    guess: boolean
  ): ReadonlyArray<string> | undefined => {
    const head = current[0]!
    const evaluated = EvaluatingBuiltins.evaluates(current)
    if (evaluated !== undefined && !guess) doubts.add(evaluated)
    if (head.includes("/")) {
      const base = basename(head)
      if (base === "") return current
      // A deny of `rm` must match `/usr/bin/rm`; `/usr/bin/sudo rm` still runs `rm`.
      const inner = visit([base, ...current.slice(1)], via, depth, guess)
      return WrapperTable.handlers.has(base) ? inner : current
    }
    // A handler may decline (`git` with no option before its subcommand): the program runs as itself.
    const taken = WrapperTable.handlers.get(head)?.(current)
    if (taken === undefined) {
      // Every later word of a guess is a guess already: guessing again only repeats them.
      if (!guess && !KnownPrograms.isKnown(current)) unknown.push({ words: current, via })
      return current
    }
    if (!guess) { for (const doubt of taken.doubts) doubts.add(doubt) }
    if (taken.stdin) {
      mayReadStdinScript = true
      if (!guess) readsStdinScript = true
    }
    const inside = [...via, head]
    let runs = taken.certain && taken.inner.length === 0 ? current : undefined
    taken.inner.forEach((inner, index) => {
      if (inner._tag === "Words") {
        const innerRuns = visit(inner.words, inside, depth + 1, guess)
        if (index === 0 && taken.certain) runs = innerRuns
      } else if (!seenScripts.has(inner.script) && room(guess)) {
        seenScripts.add(inner.script)
        scripts.push(
          guess
            ? { _tag: "Script", script: inner.script, via: inside, guess }
            : { _tag: "Script", script: inner.script, via: inside }
        )
      }
    })
    return runs
  }

  const runs = visit(words, [], 0, false)
  for (const { via, words: program } of unknown) {
    for (const start of KnownPrograms.commandStarts(program)) {
      visit(program.slice(start), [...via, program[0]!], via.length + 1, true)
    }
  }
  return { readings: [...commands, ...scripts], runs, readsStdinScript, mayReadStdinScript, doubts: [...doubts] }
}

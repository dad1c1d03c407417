/**
 * ReadingSet: the readings gathered for one line, deduplicated and bounded.
 * Apart because every walker (of commands, substitutions, regions read
 * lexically) adds to the same set, and the bound is what keeps a hostile
 * line from costing without limit.
 *
 * @since 0.4.0
 */
import * as ShellGlob from "./ShellGlob.js"

export const maxReadings = 2_000

/** Glob command names kept per line: each is tested against every deny and ask rule. */
export const maxGlobNames = 64

/** Why a line is open when its command name is computed as it runs (`$X args`): read, but not known. */
export const computedName = "its command name is computed when it runs"

/**
 * The readings gathered so far for one line, deduplicated and bounded: past
 * the bound the line is `open`, so deny and ask rules still apply.
 *
 * @since 0.3.0
 * @category models
 */
export class Readings {
  private readonly seen = new Set<string>()
  private readonly guessed = new Set<string>()
  readonly all: Array<ReadonlyArray<string>> = []
  readonly writes: Array<string> = []
  /** Command names that are globs (`/bin/r[m]`): bash runs whatever file they match. */
  readonly globs: Array<string> = []
  open: string | undefined = undefined
  /** Arguments read again as what their substitution prints (`git $(echo push)`): bounded per line. */
  computedArguments = 0
  get full() {
    return this.all.length >= maxReadings
  }
  /** The readings only a guess reached (what a program the engine does not know might run). */
  get guesses(): ReadonlyArray<ReadonlyArray<string>> {
    return this.guessed.size === 0 ? [] : this.all.filter((words) => this.guessed.has(words.join("\u0000")))
  }
  /**
   * Glob command names (deduplicated); past `maxGlobNames` the line is open,
   * since a dropped name is a command no deny rule would be tested against.
   */
  addGlobs(names: ReadonlyArray<string>) {
    for (const name of names) {
      if (this.globs.includes(name)) continue
      if (this.globs.length >= maxGlobNames) {
        this.open ??= "it runs more commands named by globs than the engine follows"
        return
      }
      this.globs.push(name)
    }
  }
  /** `guess`: only a program the engine does not know might run it (`Wrappers.Reading`). */
  add(words: ReadonlyArray<string>, guess = false) {
    if (words.length === 0) return
    // A name computed when the command runs could be any command.
    const name = words[0]!
    if (/[$`]/.test(name)) this.open ??= computedName
    else if (ShellGlob.isGlob(name)) this.addGlobs([name])
    if (this.all.length >= maxReadings) {
      this.open ??= "it runs more commands than the engine follows"
      return
    }
    const key = words.join("\u0000")
    if (this.seen.has(key)) {
      if (!guess) this.guessed.delete(key)
      return
    }
    this.seen.add(key)
    if (guess) this.guessed.add(key)
    this.all.push(words)
  }
}

/**
 * What a command line is read as (`CommandLine.Analysis`), the models only:
 * `CommandLine` produces them with the grammar and `CommandReadings` builds
 * them node by node, so they live apart from both.
 *
 * @since 0.4.0
 */

/**
 * One plain command of a simple line.
 *
 * @since 0.3.0
 * @category models
 */
export interface Command {
  /** The words after quote removal. */
  readonly words: ReadonlyArray<string>
  /** Files its redirections write (`> out.txt`, `2>> log`), as written; `/dev/null` included. */
  readonly writes: ReadonlyArray<string>
  /** Files its redirections read (`< in.txt`), as written. */
  readonly reads: ReadonlyArray<string>
  /** A word holds an unquoted glob (`*.ts`): only commands whose every option only reads may take one. */
  readonly globs: boolean
  /** The words, quoted again where needed: what a rule naming exactly this command holds. */
  readonly text: string
  /** Why no allow rule may decide it although its words are literal (a wrapper option, a builtin that evaluates code). */
  readonly doubts: ReadonlyArray<string>
  /**
   * The commands an allow rule must cover for this one to run: the command
   * itself and each command its wrappers run (outermost first), with the
   * wrappers that only change how a command runs (`timeout`, `nice`…) left
   * out. Scripts a wrapper runs (`bash -c 'ls'`) are analysed as lines of
   * their own, in `scripts`.
   */
  readonly covers: ReadonlyArray<ReadonlyArray<string>>
  /** Command lines the command runs through a shell (`watch ls`, `bash -c …`), analysed. */
  readonly scripts: ReadonlyArray<Analysis>
}

/**
 * @since 0.3.0
 * @category models
 */
export interface Analysis {
  readonly source: string
  /** True when the line is provably simple (see the module header). */
  readonly simple: boolean
  /** The plain commands, in order, when the line is simple; empty otherwise. */
  readonly commands: ReadonlyArray<Command>
  /** Why the line is not simple. The doubts of each command are its own (see {@link Command}). */
  readonly doubts: ReadonlyArray<string>
  /** Every command the line could run, as words, for deny and ask rules. */
  readonly readings: ReadonlyArray<ReadonlyArray<string>>
  /**
   * The readings only a guess reached: words a program the engine does not
   * know might run as a command (`taskset 0x1 rm`, `ssh host rm`). The same
   * arrays as in `readings`; what bash certainly runs, were the program a
   * launcher, but nothing that an allow rule's coverage or the destruction
   * check needs to see, since the program itself is what a rule allowed.
   */
  readonly guesses: ReadonlyArray<ReadonlyArray<string>>
  /** Every file a redirection in the line could write, as far as the line tells, for path deny rules. */
  readonly writes: ReadonlyArray<string>
  /**
   * Why the readings may not be all the commands the line runs: a command
   * whose name is computed when it runs (`$CMD`, `${x#a}`, `"$@"`, a glob such
   * as `/bin/r[m]`), or a line too large or too nested to follow to the end.
   * Deny and ask rules then apply, since they could match. `undefined` when
   * the readings are complete as far as the line tells.
   */
  readonly open: string | undefined
  /** Command names that are globs (`/bin/r[m]`, `ls*`): the command is any file they match. */
  readonly globNames: ReadonlyArray<string>
}

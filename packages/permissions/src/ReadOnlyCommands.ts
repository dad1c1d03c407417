/**
 * The read-only commands a shell tool may run without a rule, as the
 * leading coding agents document them: `ls`, `cat`, `echo`, `pwd`, `head`,
 * `tail`, `grep`, `find`, `wc`, `which`, `diff`, `stat`, `du`, and git's
 * read-only subcommands. They run only in their simple form: a plain
 * command of literal words (no glob, expansion or redirection), no option
 * that writes or runs something (`find -exec`/`-delete`, `git diff
 * --output`, `--ext-diff`; `git branch` only with options that shape its
 * listing), no path outside the workspace, and nothing the
 * line runs around them that a rule does not allow. After `cd`, the engine
 * checks the paths of later commands from every directory they could run
 * in, and a `git` command after a `cd` is asked about.
 *
 * @since 0.3.0
 */

/**
 * The rules the engine adds after the configured allow rules.
 *
 * @since 0.3.0
 * @category rules
 */
export const rules: ReadonlyArray<string> = [
  "Bash(ls *)",
  "Bash(cat *)",
  "Bash(echo *)",
  "Bash(pwd)",
  "Bash(head *)",
  "Bash(tail *)",
  "Bash(grep *)",
  "Bash(find *)",
  "Bash(wc *)",
  "Bash(which *)",
  "Bash(diff *)",
  "Bash(stat *)",
  "Bash(du *)",
  "Bash(cd *)",
  "Bash(git status *)",
  "Bash(git log *)",
  "Bash(git diff *)",
  "Bash(git show *)",
  "Bash(git blame *)",
  "Bash(git ls-files *)",
  "Bash(git rev-parse *)",
  "Bash(git branch)",
  "Bash(git branch --list *)"
]

/**
 * @since 0.3.0
 * @category rules
 */
export const texts: ReadonlySet<string> = new Set(rules)

/**
 * Options that make a read-only command write a file or run a program.
 * `grep` and `diff` have none, `find`'s are doubts of `Wrappers` already.
 */
const writesOrRuns = /^(?:--output(?:=|$)|--ext-diff$|--textconv$|--exec(?:=|$)|--open-files-in-pager|-O)/

/**
 * The options of `git branch` that only shape a listing. git's parser lets
 * a later option take `--list` back (`git branch --list --no-list -D main`
 * deletes main, and `--no-l` is enough), so a listing admits these and
 * patterns, nothing else.
 */
const branchListing =
  /^(?:-[arvliq]+|--(?:list|all|remotes|verbose|quiet|ignore-case|omit-empty|no-color|no-column|no-abbrev|color|column|abbrev|contains|no-contains|merged|no-merged|points-at|sort|format)(?:=.*)?)$/su

const onlyLists = (words: ReadonlyArray<string>): boolean => {
  if (words[0] !== "git" || words[1] !== "branch") return true
  const end = words.indexOf("--")
  return (end < 0 ? words : words.slice(0, end)).slice(2).every((word) =>
    !word.startsWith("-") || branchListing.test(word)
  )
}

/**
 * Whether these words are the simple form of a read-only command.
 *
 * @since 0.3.0
 * @category rules
 */
export const simpleForm = (words: ReadonlyArray<string>): boolean =>
  !words.some((word) => writesOrRuns.test(word)) &&
  // `tail -f` and `--follow` never end: not harmful, but never "read-only and done" either.
  !(words[0] === "tail" && words.some((word) => /^(?:-[A-Za-z]*[fF]|--follow)/.test(word))) &&
  onlyLists(words)

/**
 * @since 0.3.0
 * @category messages
 */
export const reason = "read-only commands in their simple form run without a rule"

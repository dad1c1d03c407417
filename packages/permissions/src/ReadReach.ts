/**
 * What a shell command line could read, measured against the path rules
 * that guard reading (`Read(…)` deny and ask rules). Two questions:
 *
 * - **Which guarded paths does it name?** An argument (`cat secret/x`), an
 *   option's value (`--file=secret/x`), a file a redirection reads
 *   (`< secret/x`), or a git object path (`git show HEAD:secret/x`, which
 *   reads the repository's copy, not the file): resolved from every
 *   directory a `cd` in the line could leave the command in. A Read deny
 *   rule matching one denies the line.
 * - **Could it read guarded files it does not name?** A glob (`cat
 *   sec*\/x`, `head -5 *\/x`), a recursive read (`grep -r`, `ls -R`, `find`,
 *   `du`, `rg`, `git grep`), git printing file contents from the repository
 *   (`git diff`, `git log -p`, `git show`), a directory argument of a
 *   program the engine does not know that holds a guarded path (`make -C
 *   .`), or the words `xargs` reads from its input. Such a line is never
 *   allowed by a rule or as a read-only command: it is asked about, with a
 *   reason that names the rule and says how to narrow the command. A glob
 *   is compared with the rule's pattern segment by segment (`src/*.ts`
 *   cannot reach `Read(.env)`; `sec*\/x` can reach `Read(./secret/**)`),
 *   a recursive read from where it starts (`grep -r x src` reaches
 *   `Read(.env)`, which matches at any depth, but not `Read(./secret/**)`).
 *   It is asked about rather than denied outright: the glob may match
 *   nothing denied once expanded, and the OS sandbox masks the denied files
 *   whatever runs.
 *
 * Symbolic links that a glob or a walk meets are not followed here (the
 * links a command names are the engine's: it resolves them before asking
 * this module); the OS sandbox masks what they lead to.
 *
 * Internal to the package, like `RuleMatch`: the index does not export it.
 *
 * @since 0.4.0
 */
import type * as CommandLine from "./CommandLine.js"
import * as PathRule from "./PathRule.js"
import * as Rule from "./Rule.js"

/**
 * A path rule that guards reading.
 *
 * @since 0.4.0
 * @category models
 */
export interface Guard {
  /** The rule as written. */
  readonly rule: string
  readonly list: "deny" | "ask"
  readonly pattern: PathRule.PathPattern
}

/**
 * A guarded path the line names.
 *
 * @since 0.4.0
 * @category models
 */
export interface Named {
  readonly guard: Guard
  /** What names it: `it names secret/x`, `it reads HEAD:secret/x from the repository`. */
  readonly detail: string
}

/**
 * Guarded files the line could read without naming them.
 *
 * @since 0.4.0
 * @category models
 */
export interface Reach {
  readonly guard: Guard
  /** How: `a glob, sec*\/x`, `a recursive read over .`, `git diff, which prints file contents`. */
  readonly how: string
}

/** What `xargs` appends in a command's covers: words read from input, so any path. */
const fromInput = "<words read from input>"

const baseName = (word: string | undefined): string => word === undefined ? "" : word.slice(word.lastIndexOf("/") + 1)

const expandHome = (path: string, location: Rule.Location): string =>
  (path === "~" || path.startsWith("~/")) && location.homeDirectory !== undefined
    ? `${location.homeDirectory}${path.slice(1)}`
    : path

/** A name with no slash that is not `.` or `..`: joined to a normalized directory, it stays normalized. */
const plainName = (word: string): boolean => word !== "" && word !== "." && word !== ".." && !word.includes("/")

/**
 * A path resolved from a directory: `Rule.resolve(path, { ...location,
 * workspaceRoot: cwd })`, which reads nothing else of the location, without
 * copying it. It runs for every word of a line from every directory a `cd`
 * could leave it in, and node 20 copies an object by spread slowly.
 *
 * @since 0.4.0
 * @category directories
 */
export const resolveIn = (path: string, cwd: string): string => {
  if (path.startsWith("/")) return Rule.normalize(path)
  const directory = Rule.normalize(cwd)
  // A normalized absolute directory other than `/` has only plain names: so has it with one more.
  return directory !== "/" && directory.startsWith("/") && plainName(path)
    ? `${directory}/${path}`
    : Rule.normalize(`${directory}/${path}`)
}

const resolveFrom = (path: string, cwd: string, location: Rule.Location): string =>
  resolveIn(expandHome(path, location), cwd)

/** An option's value (`--file=x`), else the word itself; `undefined` for an option without one. */
const operandOf = (word: string): string | undefined => {
  if (/^--?[A-Za-z0-9][A-Za-z0-9-]*=/.test(word)) return word.slice(word.indexOf("=") + 1)
  return word.startsWith("-") ? undefined : word
}

// ---------------------------------------------------------------------------
// directories a command may run in
// ---------------------------------------------------------------------------

/** A directory given from the home: `~`, `~/x`, `$HOME/x`. */
const homeLed = /^(?:~|\$HOME|\$\{HOME\})(?=\/|$)/

const mayChangeDirectory = (words: ReadonlyArray<string>): boolean => {
  const head = words[0]
  return head === "cd" || head === "pushd" || head === "popd" || head === "env"
}

/**
 * The directories a later command could run in after these words ran from
 * any of `cwds`: a `cd`, `pushd`, `popd` (also behind `builtin`, `command`,
 * `time`) or `env -C` adds where it goes (`cd`, `cd ~/x` and `cd $HOME/x`
 * through the home directory, when it is known); one that goes somewhere
 * the line does not say (`-`, `~user`, a variable, a substitution, `popd`)
 * adds `/`, from where no relative path is known to be inside.
 *
 * @since 0.4.0
 * @category directories
 */

export const afterCd = (
  cwds: ReadonlyArray<string>,
  commands: ReadonlyArray<ReadonlyArray<string>>,
  location: Rule.Location
): ReadonlyArray<string> => {
  // Most lines change no directory: one directory in is the one out, as the loop below leaves it.
  if (cwds.length === 1 && !commands.some(mayChangeDirectory)) return cwds
  const out = [...cwds]
  const go = (to: string | undefined) => {
    const home = homeLed.exec(to ?? "")
    if (home !== null && location.homeDirectory !== undefined) {
      out.push(Rule.resolve(`${location.homeDirectory}${to!.slice(home[0].length)}`, location))
    } else if (to === undefined || to === "-" || to.startsWith("~") || /[`$]/.test(to)) out.push("/")
    else for (const cwd of [...out]) out.push(resolveIn(to, cwd))
  }
  for (const words of commands) {
    const head = words[0]
    // `env -C dir cmd` and `env --chdir=dir cmd` run cmd there.
    if (head === "env") {
      const chdir = words.findIndex((w) => /^(?:-C|--chdir(?:=|$))/.test(w))
      if (chdir !== -1) {
        const word = words[chdir]!
        go(/^(?:-C|--chdir)$/.test(word) ? words[chdir + 1] : word.replace(/^(?:-C|--chdir=)/, ""))
      }
      continue
    }
    if (head !== "cd" && head !== "pushd" && head !== "popd") continue
    const operands = words.slice(1)
    let i = 0
    while (i < operands.length && /^-[LPe@]+$/.test(operands[i]!)) i++
    if (operands[i] === "--") i++
    // A bare `cd` goes home; a bare `pushd` swaps the stack.
    const to = head === "cd" && i === operands.length ? "~" : i === operands.length - 1 ? operands[i] : undefined
    go(head === "popd" ? undefined : to)
  }
  return [...new Set(out)]
}

// ---------------------------------------------------------------------------
// named paths
// ---------------------------------------------------------------------------

/**
 * Every path the line names, in any reading of it, from every directory a
 * `cd` in it could leave a command in: absolute, symbolic links not
 * followed (the engine follows them before testing the rules).
 *
 * @since 0.4.0
 * @category named paths
 */
export const namedPaths = (
  analysis: CommandLine.Analysis,
  location: Rule.Location
): ReadonlyArray<{ readonly path: string; readonly detail: string }> => {
  const cwds = afterCd([Rule.startOf(location)], analysis.readings, location)
  const out: Array<{ readonly path: string; readonly detail: string }> = []
  const add = (path: string, detail: string) => {
    for (const cwd of cwds) out.push({ path: resolveFrom(path, cwd, location), detail })
  }
  for (const words of analysis.readings) {
    const git = baseName(words[0]) === "git"
    for (const word of words.slice(1)) {
      const path = operandOf(word)
      if (path === undefined || path === "" || path.includes("\u0000") || path === fromInput) continue
      add(path, `it names ${path}`)
      // `git show HEAD:secret/x`, `git cat-file -p :secret/x`: the repository's copy.
      // The path is the repository's (`REV:./x` is the current directory's).
      if (git && path.includes(":")) {
        for (let at = path.indexOf(":"); at >= 0; at = path.indexOf(":", at + 1)) {
          const inRepo = path.slice(at + 1)
          if (inRepo === "" || inRepo.startsWith("(")) continue
          add(
            inRepo.startsWith("./") || inRepo.startsWith("../")
              ? inRepo
              : `${Rule.normalize(location.workspaceRoot)}/${inRepo}`,
            `it reads ${path} from the repository`
          )
        }
      }
    }
  }
  for (const command of analysis.commands) {
    for (const path of command.reads) add(path, `it reads ${path}`)
  }
  return out
}

/**
 * The first named path (with where it leads, `paths`) that a guard matches.
 *
 * @since 0.4.0
 * @category named paths
 */
export const named = (
  entries: ReadonlyArray<{ readonly path: string; readonly detail: string }>,
  guards: ReadonlyArray<Guard>,
  paths: (absolutePath: string) => ReadonlyArray<string> = (path) => [path]
): Named | undefined => {
  if (guards.length === 0) return undefined
  for (const entry of entries) {
    for (const absolute of paths(entry.path)) {
      const guard = guards.find((g) => g.pattern.test(absolute))
      if (guard !== undefined) {
        return { guard, detail: absolute === entry.path ? entry.detail : `${entry.detail}, which leads to ${absolute}` }
      }
    }
  }
  return undefined
}

// ---------------------------------------------------------------------------
// reach beyond what is named
// ---------------------------------------------------------------------------

/** Programs that read only the files they name: a directory argument is not read into. */
const filesOnly = new Set([
  "cat",
  "head",
  "tail",
  "wc",
  "stat",
  "file",
  "echo",
  "printf",
  "pwd",
  "which",
  "type",
  "cd",
  "pushd",
  "popd",
  "nl",
  "sort",
  "uniq",
  "cut",
  "tac",
  "rev",
  "md5sum",
  "sha1sum",
  "sha256sum",
  "sha512sum",
  "base64",
  "xxd",
  "od",
  "hexdump",
  "strings",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "mkdir",
  "touch",
  "rmdir",
  "true",
  "false",
  "test",
  "["
])

const shortFlag = (words: ReadonlyArray<string>, letters: RegExp) =>
  words.some((word) => /^-[A-Za-z0-9]+$/.test(word) && letters.test(word.slice(1)))
const longFlag = (words: ReadonlyArray<string>, names: RegExp) => words.some((word) => names.test(word))

/**
 * Programs that, unless {@link recursive} says so, read only the files they
 * name; `ls` lists a directory's names one level down, as it does for a
 * directory named outright.
 */
const flat = new Set(["ls", "grep", "egrep", "fgrep"])

/** Whether the program, with these words, walks the directories it is given (or the current one). */
const recursive = (name: string, words: ReadonlyArray<string>): boolean => {
  switch (name) {
    case "grep":
    case "egrep":
    case "fgrep":
      return shortFlag(words, /[rR]/) || longFlag(words, /^--(?:recursive|dereference-recursive)$/) ||
        longFlag(words, /^--directories=recurse$/) ||
        words.some((word, i) => (word === "-d" && words[i + 1] === "recurse") || word === "-drecurse")
    case "ls":
      return shortFlag(words, /R/) || longFlag(words, /^--recursive$/)
    case "diff":
      return shortFlag(words, /r/) || longFlag(words, /^--recursive$/)
    case "cp":
      return shortFlag(words, /[rRa]/) || longFlag(words, /^--(?:recursive|archive)$/)
    case "zip":
      return shortFlag(words, /r/) || longFlag(words, /^--recurse-paths$/)
    case "rsync":
      return shortFlag(words, /[ra]/) || longFlag(words, /^--(?:recursive|archive)$/)
    case "scp":
      return shortFlag(words, /r/)
    case "rgrep":
    case "rg":
    case "ag":
    case "ack":
    case "ack-grep":
    case "find":
    case "fd":
    case "fdfind":
    case "du":
    case "tree":
    case "tar":
    case "bsdtar":
      return true
    default:
      return false
  }
}

/** Programs that walk the current directory when given none. */
const walksCurrent = new Set([
  "grep",
  "egrep",
  "fgrep",
  "rgrep",
  "rg",
  "ag",
  "ack",
  "ack-grep",
  "find",
  "fd",
  "fdfind",
  "du",
  "tree",
  "ls"
])

/** The directories `find` starts from: the words before its first expression word. */
const findStarts = (words: ReadonlyArray<string>): ReadonlyArray<string> => {
  const starts: Array<string> = []
  let i = 1
  while (i < words.length && /^-(?:[HLP]|D|O\d*)$/.test(words[i]!)) i += words[i] === "-D" ? 2 : 1
  for (; i < words.length; i++) {
    const word = words[i]!
    if (/^[-(!]/.test(word)) break
    starts.push(word)
  }
  return starts
}

/** Git subcommands that print what files hold (or list every tracked name), and when. */
const gitPrints = (subcommand: string, words: ReadonlyArray<string>): string | undefined => {
  const has = (pattern: RegExp) => words.some((word) => pattern.test(word))
  switch (subcommand) {
    case "diff":
    case "diff-tree":
    case "diff-index":
    case "diff-files":
      return has(/^--(?:name-only|name-status|stat|shortstat|numstat|raw|quiet|summary|dirstat.*|no-patch)$|^-s$/) &&
          !has(/^(?:-p|-u|--patch.*|-U\d*|--unified.*)$/)
        ? undefined
        : `git ${subcommand}, which prints file contents from the repository`
    case "log":
    case "whatchanged":
    case "reflog":
      return has(
          /^(?:-p|-u|--patch.*|-U\d*|--unified.*|-L.*|--cc|-c|--word-diff.*|--color-words.*|--remerge-diff|-W|--function-context)$/
        ) ||
          shortFlag(words.filter((word) => !/^-\d+$/.test(word)), /[pu]/)
        ? `git ${subcommand} with patches, which prints file contents from the repository`
        : undefined
    case "show":
      return has(/^(?:-s|--no-patch)$/) ? undefined : "git show, which prints file contents from the repository"
    case "grep":
      return "git grep, which reads every tracked file"
    case "ls-files":
    case "ls-tree":
      return `git ${subcommand}, which lists the repository's files`
    case "cat-file":
    case "archive":
    case "bundle":
    case "format-patch":
    case "stash":
    case "blame":
      return subcommand === "blame" ? undefined : `git ${subcommand}, which reads the repository's objects`
    default:
      return undefined
  }
}

/** The subcommand of a git command and where it runs (`-C dir`), past git's own options. */
const gitParts = (words: ReadonlyArray<string>) => {
  let i = 1
  const dirs: Array<string> = []
  while (i < words.length && words[i]!.startsWith("-")) {
    const word = words[i]!
    if (word === "-C" || word === "-c" || word === "--git-dir" || word === "--work-tree" || word === "--namespace") {
      if (word === "-C" && words[i + 1] !== undefined) dirs.push(words[i + 1]!)
      i += 2
    } else i++
  }
  return { subcommand: words[i] ?? "", rest: words.slice(i + 1), dirs }
}

const globChars = /[*?[]/

/**
 * The first guard the line could reach without naming what it protects,
 * and how. Only lines an allow rule could decide are measured (provably
 * simple ones): any other line is asked about anyway.
 *
 * @since 0.4.0
 * @category reach
 */
export const find = (
  analysis: CommandLine.Analysis,
  guards: ReadonlyArray<Guard>,
  location: Rule.Location
): Reach | undefined => {
  if (guards.length === 0 || !analysis.simple) return undefined
  return lineReach(analysis, [Rule.startOf(location)], guards, location)
}

const lineReach = (
  analysis: CommandLine.Analysis,
  start: ReadonlyArray<string>,
  guards: ReadonlyArray<Guard>,
  location: Rule.Location
): Reach | undefined => {
  let cwds = start
  for (const command of analysis.commands) {
    for (const words of command.covers) {
      for (const cwd of cwds) {
        const found = commandReach(words, command.globs, cwd, guards, location)
        if (found !== undefined) return found
      }
    }
    for (const script of command.scripts) {
      const found = lineReach(script, cwds, guards, location)
      if (found !== undefined) return found
    }
    cwds = afterCd(cwds, [command.words, ...command.covers], location)
  }
  return undefined
}

const commandReach = (
  words: ReadonlyArray<string>,
  globs: boolean,
  cwd: string,
  guards: ReadonlyArray<Guard>,
  location: Rule.Location
): Reach | undefined => {
  const name = baseName(words[0])
  const first = (test: (guard: Guard) => boolean, how: string): Reach | undefined => {
    const guard = guards.find(test)
    return guard === undefined ? undefined : { guard, how }
  }
  const resolved = (path: string) => resolveFrom(path, cwd, location)
  if (words.includes(fromInput)) return first(() => true, "paths it reads from its input")
  // What walks from a directory reaches what lies below it, and what lies above is named.
  const walk = (path: string, how: string) => first((g) => PathRule.reach(g.pattern, resolved(path)) !== undefined, how)

  if (name === "git") {
    const { dirs, rest, subcommand } = gitParts(words)
    const prints = gitPrints(subcommand, rest)
    if (prints === undefined) return undefined
    const dash = rest.indexOf("--")
    const roots = dirs.length > 0 ? dirs : ["."]
    // Pathspecs after `--` narrow it; git matches their wildcards itself, across `/`.
    const specs = dash < 0 ? [] : rest.slice(dash + 1)
    if (specs.length === 0 || specs.some((spec) => spec.startsWith(":"))) {
      for (const root of roots) {
        const found = walk(
          dirs.length > 0 ? root : Rule.normalize(location.workspaceRoot),
          `${prints}, over the whole repository (name the paths after --)`
        )
        if (found !== undefined) return found
      }
      return undefined
    }
    for (const spec of specs) {
      const literal = spec.split("/")
      const wild = literal.findIndex((segment) => globChars.test(segment))
      const path = wild < 0 ? spec : [...literal.slice(0, wild), "**"].join("/")
      const found = walk(path, `${prints}, over ${spec}`)
      if (found !== undefined) return found
    }
    return undefined
  }

  const operands: Array<string> = []
  let ended = false
  for (const word of words.slice(1)) {
    if (!ended && word === "--") ended = true
    else {
      const operand = ended ? word : operandOf(word)
      if (operand !== undefined && operand !== "") operands.push(operand)
    }
  }
  const isGlob = (word: string) => globs && globChars.test(word)

  if (recursive(name, words)) {
    const starts = name === "find" ? findStarts(words) : operands
    // A search's first operand is its pattern unless an option gave one: with no
    // other operand it walks the current directory. (The pattern is walked too: harmless.)
    const searches = name !== "find" && name !== "du" && name !== "tree" && name !== "ls" && walksCurrent.has(name)
    const patternGiven = words.some((word) => /^(?:-[A-Za-z]*[ef]|--regexp(?:=|$)|--file(?:=|$))/.test(word))
    const files = searches && !patternGiven ? starts.length - 1 : starts.length
    const from = files <= 0 && walksCurrent.has(name) ? [...starts, "."] : starts
    for (const path of from) {
      const found = walk(path, isGlob(path) ? `a recursive read over a glob, ${path}` : `a recursive read over ${path}`)
      if (found !== undefined) return found
    }
    return undefined
  }

  for (const word of operands) {
    if (isGlob(word)) {
      // A program that reads only what it is given reads a glob's matches; one
      // that may read into directories (`ls`, an unknown one) what lies below them too.
      const into = !filesOnly.has(name) && !flat.has(name)
      const found = first((g) => {
        const met = PathRule.reach(g.pattern, resolved(word))
        return met === "match" || (into && met === "contains")
      }, `a glob, ${word}`)
      if (found !== undefined) return found
    } else if (!filesOnly.has(name) && !flat.has(name)) {
      // A program the engine does not know may walk a directory it is given:
      // one that holds a guarded path (`.` for a rule matching at any depth) reaches it.
      const path = resolved(word)
      const found = first(
        (g) =>
          g.pattern.caseInsensitive
            ? Rule.isInside(g.pattern.base.toLowerCase(), path.toLowerCase())
            : Rule.isInside(g.pattern.base, path),
        `${name} with the directory ${word}, which could be read recursively`
      )
      if (found !== undefined) return found
    }
  }
  return undefined
}

/**
 * Git subcommands that print no file contents from the repository's
 * history (names and messages at most), run with no option before them.
 */
const historyFree = new Set([
  "status",
  "add",
  "commit",
  "init",
  "rev-parse",
  "branch",
  "log",
  "tag",
  "switch",
  "mv",
  "rm"
])

/**
 * Whether the line could read a guarded file from the repository's history
 * (`git log -p`, `git archive`, `git clone . /tmp/c`, a command whose name is
 * computed when it runs), which the OS sandbox cannot hide: masking a path
 * hides the working tree's copy, not the objects git keeps of it. Such a
 * line must reach a person even where confined commands run unasked.
 *
 * @since 0.4.0
 * @category reach
 */
export const throughHistory = (analysis: CommandLine.Analysis, reach: Reach | undefined): boolean =>
  reach?.how.startsWith("git ") === true ||
  analysis.open !== undefined ||
  analysis.readings.some((words) => {
    if (baseName(words[0]) !== "git") return false
    // `-c key=value` and `-C dir` change no source of what is printed; any other option might.
    let i = 1
    while ((words[i] === "-c" || words[i] === "-C") && words[i + 1] !== undefined) i += 2
    const subcommand = words[i]
    return subcommand === undefined || !historyFree.has(subcommand) ||
      (subcommand === "log" &&
        words.slice(i + 1).some((word) => word.startsWith("-") && !/^(?:--oneline|-\d+|-n)$/.test(word)))
  })

/**
 * What a command's words say about its reach, beyond what rules name:
 * whether it could destroy a machine or a home directory (`rm -rf /`,
 * `mkfs`, `dd of=/dev/sda`, `curl … | sh`), and whether it names paths
 * outside the workspace. A prefix rule such as `Bash(rm:*)` is written for
 * `rm build/tmp`, not for `rm -rf ~`: a destructive command is asked about
 * in every mode and whatever the allow rules say, and a command that names
 * a path outside the workspace is never allowed by a rule alone (as the
 * built-in file tools ask before reading or writing outside it).
 *
 * @since 0.3.0
 */
import * as PathRule from "./PathRule.js"
import * as ShellGlob from "./ShellGlob.js"

/**
 * Where paths resolve: the command's working directory (the workspace) and
 * the home directory `~` stands for.
 *
 * @since 0.3.0
 * @category models
 */
export interface Location {
  readonly workspaceRoot: string
  readonly homeDirectory?: string | undefined
  /** Where relative paths resolve, when the line changed directory (`cd src && …`). Default: the workspace. */
  readonly cwd?: string | undefined
}

const systemDirectories = new Set([
  "/",
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/home",
  "/lib",
  "/lib64",
  "/opt",
  "/proc",
  "/root",
  "/sbin",
  "/srv",
  "/sys",
  "/usr",
  "/var",
  "/Users",
  "/System",
  "/Library",
  "/Applications"
])

const flags = (words: ReadonlyArray<string>): string =>
  words.filter((w) => /^-[A-Za-z]+$/.test(w)).map((w) => w.slice(1)).join("")

const operands = (words: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out: Array<string> = []
  let ended = false
  for (const word of words.slice(1)) {
    if (!ended && word === "--") ended = true
    else if (ended || !word.startsWith("-")) out.push(word)
  }
  return out
}

const normalize = PathRule.normalize

/** Strips what only widens a target: trailing slashes and globs (`/*`, `/**`, `//`), quotes. */
const stem = (word: string): string => {
  let w = word.replace(/^["']|["']$/g, "")
  for (let previous = ""; previous !== w;) {
    previous = w
    w = w.replace(/\/+$/, "").replace(/\/\*+$/, "").replace(/^\*+$/, ".")
  }
  // Only an empty word stays empty: it names nothing (`rm -rf ""` removes nothing).
  return w === "" && word !== "" ? "/" : w
}

// What bash puts in place of a leading `~+`, `$PWD` (the working directory)
// and `~`, `$HOME` (the home directory; also `${HOME:-x}` and the other forms
// that give HOME's value when it is set, as it is in any shell).
const workingForms = /^(?:~\+|\$PWD|\$\{PWD\})(?=\/|$)/
const homeForms = /^(?:~|\$HOME|\$\{HOME(?::?[-=?][^}]*)?\})(?=\/|$)/
/** Another user's home: `~root` is `/root`. */
const otherHome = /^~[A-Za-z_][A-Za-z0-9_.-]*$/
/** What the words do not tell: a variable, a substitution, `~-` (OLDPWD), `~2` (the directory stack), `~user/x`. */
const unknownValue = /`|\$[A-Za-z0-9_@*#?$!{(-]|^~/

const temporary = /^\/(?:tmp|var\/tmp)(?:\/|$)/
/** What `mktemp` just made (`tmp=$(mktemp -d); rm -rf "$tmp"`), or a path below it that does not climb. */
const fresh = /^(?:\$\(mktemp(?: [^()`$;|&]*)?\)|`mktemp(?: [^()`$;|&]*)?`)(?:\/(?!(?:.*\/)?\.\.(?:\/|$)).*)?$/

/**
 * A target whose loss is a lost machine, home or workspace: `/` and the
 * system's directories, the home directory, the workspace and what holds
 * it, another user's home; and for a recursive operation (`tree`), a
 * repository's `.git`, anything outside the workspace but the temporary
 * directories, and any target whose value the words do not tell
 * (`rm -rf "$DIR"/`, `rm -rf ~-`). Relative targets resolve from the
 * directory the command runs in.
 */
const isVital = (word: string, location: Location | undefined, tree: boolean): boolean => {
  const target = stem(word).replace(workingForms, ".").replace(homeForms, "~")
  if (target === "" || fresh.test(target)) return false
  if (target === "~" || target === "." || target === ".." || otherHome.test(target)) return true
  let path: string
  if (target.startsWith("~/")) {
    if (location?.homeDirectory === undefined) return true
    if (unknownValue.test(target.slice(2))) return tree
    path = normalize(`${location.homeDirectory}/${target.slice(2)}`)
  } else if (unknownValue.test(target)) return tree
  else if (target.startsWith("/")) path = normalize(target)
  else if (location !== undefined) path = normalize(`${location.cwd ?? location.workspaceRoot}/${target}`)
  else return false
  if (systemDirectories.has(path)) return true
  // A repository's history: the sandbox keeps its hooks and configuration, not its objects.
  if (tree && path.endsWith("/.git")) return true
  if (location === undefined) return false
  const root = normalize(location.workspaceRoot)
  // The workspace itself, or a directory that holds it.
  if (path === root || root.startsWith(path === "/" ? "/" : `${path}/`)) return true
  if (location.homeDirectory !== undefined && path === normalize(location.homeDirectory)) return true
  const inside = path.startsWith(root === "/" ? "/" : `${root}/`)
  return tree && !inside && !temporary.test(path)
}

/** The programs `destructive` judges by their words. */
const judgedByWords = [
  "rm",
  "rmdir",
  "chmod",
  "chown",
  "chgrp",
  "find",
  "mv",
  "dd",
  "rsync",
  "truncate",
  "tee",
  "cp",
  "shred",
  "wipefs",
  "blkdiscard",
  "kill",
  "pkill",
  "xargs"
]

/**
 * The programs destructive whatever their words: a glob that names one runs it. Not tried for a
 * computed name, which would make every `$X` line a machine's shutdown.
 */
const destructiveByName = [
  "shutdown",
  "reboot",
  "halt",
  "poweroff",
  "mkfs",
  "mkfs.ext2",
  "mkfs.ext3",
  "mkfs.ext4",
  "mkfs.xfs",
  "mkfs.btrfs",
  "mkfs.vfat",
  "mkfs.fat",
  "mkfs.ntfs",
  "mke2fs",
  "mkswap",
  "mkdosfs",
  "mkntfs",
  "mkexfatfs"
]

const base = (word: string | undefined): string => word === undefined ? "" : word.slice(word.lastIndexOf("/") + 1)

/** An unambiguous abbreviation of a long option, as getopt_long accepts: `--recur` for `--recursive`. */
const longOption = (words: ReadonlyArray<string>, option: string, shortest: number): boolean =>
  words.some((w) => w.length >= shortest && option.startsWith(w.split("=")[0]!))

const device = /^\/+dev\/+(?!null$|zero$|random$|urandom$|stdout$|stderr$|stdin$|tty$|fd\/|shm\/)/

/**
 * Why this command (its words, wrappers already unwrapped) could destroy
 * the machine, the home directory or the workspace; `undefined` when it
 * could not, as far as its words tell.
 *
 * @since 0.3.0
 * @category classification
 */
export const destructive = (words: ReadonlyArray<string>, location?: Location): string | undefined => {
  const name = base(words[0])
  // A name computed as the line runs (`$X -rf /`) could be any program; one that is a glob
  // (`/bin/r[m] -rf /`) any program it matches: each is judged with the same words.
  const computed = /[$`]/.test(words[0] ?? "")
  if (computed || ShellGlob.isGlob(name)) {
    for (const candidate of computed ? judgedByWords : [...judgedByWords, ...destructiveByName]) {
      if (!computed && !ShellGlob.matches(name, candidate)) continue
      const why = destructive([candidate, ...words.slice(1)], location)
      if (why !== undefined) return `its command could be ${candidate}: ${why}`
    }
    return undefined
  }
  switch (name) {
    case "rm":
    case "rmdir": {
      if (longOption(words, "--no-preserve-root", 4)) return "it removes / (--no-preserve-root)"
      const recursive = /[rR]/.test(flags(words)) || longOption(words, "--recursive", 3)
      // Without -r (and no glob), only the vital names themselves: `rm /tmp/x` is an ordinary removal.
      const target = operands(words).find((w) =>
        recursive || w.includes("*") ? isVital(w, location, true) : isVital(w, undefined, false)
      )
      return target === undefined ? undefined : `it removes ${target}${recursive ? " recursively" : ""}`
    }
    case "chmod":
    case "chown":
    case "chgrp": {
      const recursive = /R/.test(flags(words)) || longOption(words, "--recursive", 4)
      // The first operand is the mode or the owner (`755`, `$USER:staff`), unless a reference file
      // gives it or the mode reads as an option (`chmod -R -x /`).
      const given = words.some((w) =>
        w.startsWith("--reference") || (name === "chmod" && /^-[rwxXst][rwxXstugoa,=+-]*$/.test(w))
      )
      const files = given ? operands(words) : operands(words).slice(1)
      const target = files.find((w) => isVital(w, location, true))
      return recursive && target !== undefined ? `it changes ownership or modes of ${target} recursively` : undefined
    }
    case "find": {
      const acts = words.some((w) => /^-(?:delete|exec|execdir|ok|okdir)$/.test(w))
      if (!acts) return undefined
      const starts: Array<string> = []
      for (const word of words.slice(1)) {
        if (/^[-(!]/.test(word)) break
        starts.push(word)
      }
      // No starting point is the current directory: the workspace.
      return starts.length === 0 || starts.some((w) => isVital(w, location, true))
        ? "it deletes or runs a command on everything under a vital directory"
        : undefined
    }
    case "mv": {
      // With -t DIR (--target-directory=DIR, -tDIR) every other operand is a source.
      const t = words.findIndex((w) => w === "-t" || w === "--target-directory")
      const sources = t !== -1
        ? operands(words).filter((w) => w !== words[t + 1])
        : words.some((w) => /^(?:-t|--target-directory=)./.test(w))
        ? operands(words)
        : operands(words).slice(0, -1)
      return sources.some((w) => isVital(w, location, false))
        ? "it moves a system directory, the home directory or the workspace away"
        : undefined
    }
    case "dd":
      return words.some((w) => w.startsWith("of=") && device.test(w.slice(3))) ? "it writes to a device" : undefined
    case "tar": {
      // --remove-files deletes each file once it is in the archive: `tar --remove-files -cf x.tar ~`.
      if (!longOption(words, "--remove-files", 5)) return undefined
      const at = words.findIndex((w) => w === "-C" || w.startsWith("--directory") || w.startsWith("--dir="))
      const option = at < 0 ? undefined : words[at]!
      const dir = option === undefined
        ? undefined
        : option.includes("=")
        ? option.slice(option.indexOf("=") + 1)
        : words[at + 1]
      // From another directory (`-C /`), every relative operand is judged from there; one the line
      // does not tell is judged as a vital one.
      const from = dir === undefined ? location : dir.startsWith("/") && location !== undefined
        ? { ...location, cwd: dir }
        : undefined
      const target = operands(words).find((w) => from === undefined ? true : isVital(w, from, true))
      return target === undefined ? undefined : `it archives ${target} and removes it (--remove-files)`
    }
    case "git": {
      // `git clean` removes the files git does not track (with -x, those it ignores: `.env`,
      // uncommitted work); `git rm -r` the tracked ones, from the working tree. Both from the
      // current directory down unless paths are given.
      const sub = words[1]
      const rest = words.slice(1)
      if (sub === "clean") {
        if (/n/.test(flags(rest)) || longOption(rest, "--dry-run", 5)) return undefined
        const paths = operands(rest)
        const target = (paths.length === 0 ? ["."] : paths).find((w) => isVital(w, location, true))
        return target === undefined ? undefined : `it removes the files git does not track in ${target}`
      }
      if (sub === "rm" && /r/.test(flags(rest)) && !longOption(rest, "--cached", 4)) {
        const target = operands(rest).find((w) => isVital(w, location, true))
        return target === undefined ? undefined : `it removes ${target} from the working tree recursively`
      }
      return undefined
    }
    case "rsync": {
      // --delete (and --del, --delete-after…) empties the destination of what the source lacks:
      // `rsync -a --delete empty/ /` wipes the machine. A remote destination (`host:path`) is not ours.
      const deletes = words.some((w) => /^--del(?:ete(?:-[a-z]+)?)?$/.test(w))
      // Any operand after the first may be the destination: an option's value can follow it.
      const destination = operands(words).slice(1).find((w) => !/^[^/]*:/.test(w) && isVital(w, location, true))
      return deletes && destination !== undefined ? `it deletes from ${destination} what its source lacks` : undefined
    }
    case "truncate":
    case "tee":
    case "cp":
    case "shred":
    case "wipefs":
    case "blkdiscard":
      return operands(words).some((w) => device.test(w)) ? "it writes to or erases a device" : undefined
    case "kill":
    case "pkill":
      // `kill -9 -1`: the process -1 is every process the user may signal.
      return words.length > 2 && words.at(-1) === "-1" ? "it signals every process" : undefined
    case "xargs": {
      // What xargs runs gets its operands from input: a recursive removal through it could be anything.
      const rm = words.findIndex((w) => base(w) === "rm")
      return rm > 0 && /[rR]/.test(flags(words.slice(rm))) ? "it removes what it reads, recursively" : undefined
    }
    case "shutdown":
    case "reboot":
    case "halt":
    case "poweroff":
      return "it stops the machine"
    default:
      return /^mkfs(?:\..+)?$/.test(name) || /^(?:mke2fs|mkswap|mkdosfs|mkntfs|mkexfatfs)$/.test(name)
        ? "it formats a device"
        : undefined
  }
}

const shells = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "fish",
  "python",
  "python3",
  "perl",
  "ruby",
  "node",
  "source",
  "."
])
const fetchers = new Set(["curl", "wget", "fetch", "aria2c"])

/**
 * Why a line is destructive as a whole: a download run as code, a write
 * to a device through a redirection, or a fork bomb.
 *
 * @since 0.3.0
 * @category classification
 */
export const destructiveLine = (
  source: string,
  readings: ReadonlyArray<ReadonlyArray<string>>,
  writes: ReadonlyArray<string> = []
): string | undefined => {
  // Both patterns need a brace and a pipe: most lines have neither, and are spared the scans.
  if (source.includes("{") && source.includes("|")) {
    if (/:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:/.test(source)) return "it is a fork bomb"
    const bomb = /([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*\)\s*\{[^}]*\b\1\s*\|&?\s*\1\b/.exec(source)
    if (bomb !== null) return "it is a fork bomb"
  }
  if (writes.some((path) => device.test(path))) return "it writes to a device"
  const names = new Set(readings.map((words) => base(words[0])))
  const fetches = [...fetchers].some((name) => names.has(name))
  // A fetch next to anything that runs code: `curl … | sh`, `bash -c "$(curl …)"`, `source <(wget …)`.
  if (fetches && [...names].some((name) => shells.has(name) || name === "eval")) {
    return "it runs code downloaded from the network"
  }
  return undefined
}

/**
 * The arguments of a command that name paths outside the workspace
 * (absolute, `~`, or climbing out with `..`; also the value of an
 * `--option=path`). `/dev/null` and the standard streams are fine. With
 * `leadsTo` (where an absolute path leads through symbolic links), a path
 * inside the workspace that a link leads out of it is outside too.
 *
 * @since 0.3.0
 * @category classification
 */
export const pathsOutside = (
  words: ReadonlyArray<string>,
  location: Location,
  leadsTo?: ((absolutePath: string) => ReadonlyArray<string>) | undefined
): ReadonlyArray<string> => {
  const root = normalize(location.workspaceRoot)
  const cwd = normalize(location.cwd ?? root)
  const within = (path: string) => path === root || path.startsWith(root === "/" ? "/" : `${root}/`)
  const inside = (path: string) => within(path) && (leadsTo === undefined || leadsTo(path).every(within))
  const out: Array<string> = []
  for (const word of words.slice(1)) {
    // `--file=/x`, and a value attached to a short option: `-f/etc/passwd`, `-C../x`.
    const attached = /^-[A-Za-z0-9]+?([/~.].*)$/.exec(word)
    const value = /^--?[A-Za-z0-9][A-Za-z0-9-]*=/.test(word)
      ? word.slice(word.indexOf("=") + 1)
      : attached !== null && /^(?:\/|~|\.\.)/.test(attached[1]!)
      ? attached[1]!
      : word
    if (/^\/dev\/(?:null|stdin|stdout|stderr|tty|fd\/[0-2])$/.test(value)) continue
    let path: string | undefined
    if (value.startsWith("~")) {
      // `~` and `~/x` are the home, `~+` the working directory; `~user`, `~-` (OLDPWD) and
      // `~2` (the directory stack) lead where the words do not tell.
      const head = /^~[^/]*/.exec(value)![0]
      const from = head === "~" ? location.homeDirectory : head === "~+" ? cwd : undefined
      path = from === undefined ? undefined : normalize(`${from}/${value.slice(head.length)}`)
      if (path === undefined || !inside(path)) out.push(word)
      continue
    }
    if (value.startsWith("/")) path = normalize(value)
    else if (cwd !== root || leadsTo !== undefined || /(?:^|\/)\.\.(?:\/|$)/.test(value)) {
      path = normalize(`${cwd}/${value}`)
    }
    if (path !== undefined && !inside(path)) out.push(word)
  }
  return out
}

/** Commands whose every option only reads, so that a glob expanding to `-name` cannot make them write or run anything. */
const globSafe = new Set(["ls", "cat", "head", "tail", "wc", "grep", "stat", "du", "diff", "echo", "file"])

/**
 * Whether the commands may take unquoted globs (`ls *.ts`, `wc -l src/*.py`).
 *
 * @since 0.3.0
 * @category classification
 */
export const takesGlobs = (covers: ReadonlyArray<ReadonlyArray<string>>): boolean =>
  covers.every((words) =>
    globSafe.has(words[0] ?? "") &&
    // `.*` matches `..` in older bash and with globskipdots off: a glob must not climb out.
    !words.some((word) => /(?:^|\/)\.[*?[]/.test(word))
  )

/**
 * The file commands `acceptEdits` runs without asking, as the leading
 * agents document them, when every path they name is inside the workspace.
 *
 * @since 0.3.0
 * @category classification
 */
export const fileCommandRules: ReadonlyArray<string> = [
  "Bash(mkdir *)",
  "Bash(touch *)",
  "Bash(rm *)",
  "Bash(rmdir *)",
  "Bash(mv *)",
  "Bash(cp *)",
  "Bash(sed *)"
]

/**
 * Whether a file command is in the form `acceptEdits` may run: `sed` only
 * with substitutions (`s/a/b/g`), which cannot run a program or write
 * another file the way `e`, `w` and `r` commands can.
 *
 * @since 0.3.0
 * @category classification
 */
export const fileCommandForm = (words: ReadonlyArray<string>): boolean => {
  if (words[0] !== "sed") return true
  let script = false
  for (const word of words.slice(1)) {
    if (/^-(?:[inEr]+|-in-place|-regexp-extended|-quiet|-silent)$/.test(word)) continue
    if (word === "-e") continue
    if (/^-/.test(word)) return false
    if (!script) {
      script = true
      // s<d>pattern<d>replacement<d>flags, with only the flags that print or count.
      if (!/^s([/|#:,])(?:(?!\1)[^\\]|\\.)*\1(?:(?!\1)[^\\]|\\.)*\1[gIip0-9]*$/.test(word)) return false
    }
  }
  return script
}

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

const normalize = (path: string): string => {
  const absolute = path.startsWith("/")
  const out: Array<string> = []
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop()
      else if (!absolute) out.push("..")
      continue
    }
    out.push(segment)
  }
  const joined = out.join("/")
  return absolute ? `/${joined}` : joined === "" ? "." : joined
}

const isHome = (word: string): boolean => /^(?:~|\$HOME|\$\{HOME\})\/?\*?$/.test(word)

/** A target whose loss is a lost machine, home or workspace. */
const isVital = (word: string, location: Location | undefined): boolean => {
  if (isHome(word) || word === "*" || word === "." || word === ".." || word === "./" || word === "../") return true
  if (!word.startsWith("/")) return false
  const path = normalize(word.replace(/\/\*$/, "/"))
  if (systemDirectories.has(path)) return true
  if (location !== undefined) {
    if (path === normalize(location.workspaceRoot)) return true
    if (location.homeDirectory !== undefined && path === normalize(location.homeDirectory)) return true
  }
  return false
}

const base = (word: string | undefined): string => (word ?? "").split("/").pop() ?? ""

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
  switch (name) {
    case "rm": {
      if (words.includes("--no-preserve-root")) return "it removes / (--no-preserve-root)"
      const recursive = /[rR]/.test(flags(words)) || words.includes("--recursive")
      const target = operands(words).find((w) => isVital(w, location))
      if (target !== undefined && (recursive || /f/.test(flags(words)) || target.endsWith("*"))) {
        return `it removes ${target} recursively`
      }
      return undefined
    }
    case "chmod":
    case "chown":
    case "chgrp": {
      const recursive = /R/.test(flags(words)) || words.includes("--recursive")
      const target = operands(words).slice(1).find((w) => isVital(w, location))
      return recursive && target !== undefined ? `it changes ownership or modes of ${target} recursively` : undefined
    }
    case "find":
      return words.includes("-delete") && operands(words).some((w) => isVital(w, location))
        ? "it deletes everything under a vital directory"
        : undefined
    case "dd":
      return words.some((w) => /^of=\/dev\/(?!null$|zero$|stdout$|stderr$)/.test(w))
        ? "it writes to a device"
        : undefined
    case "shred":
    case "wipefs":
    case "blkdiscard":
      return words.some((w) => w.startsWith("/dev/")) ? "it erases a device" : undefined
    case "shutdown":
    case "reboot":
    case "halt":
    case "poweroff":
      return "it stops the machine"
    default:
      return /^mkfs(?:\..+)?$/.test(name) || name === "mke2fs" || name === "mkswap" ? "it formats a device" : undefined
  }
}

const shells = new Set(["sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "perl", "ruby", "node"])
const fetchers = new Set(["curl", "wget", "fetch", "aria2c"])

/**
 * Why a line is destructive as a whole: a download piped into a shell, or
 * a fork bomb. The words of a pipeline are given in order.
 *
 * @since 0.3.0
 * @category classification
 */
export const destructiveLine = (source: string, readings: ReadonlyArray<ReadonlyArray<string>>): string | undefined => {
  if (/:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:/.test(source)) return "it is a fork bomb"
  const names = new Set(readings.map((words) => base(words[0])))
  const fetches = [...fetchers].some((name) => names.has(name))
  const pipesToShell = /\|\s*(?:sudo\s+)?(?:\S*\/)?(?:sh|bash|zsh|dash|ksh|python3?|perl|ruby|node)\b/.test(source)
  if (fetches && pipesToShell) return "it runs code downloaded from the network"
  if (fetches && [...names].some((name) => shells.has(name)) && /<\(\s*(?:curl|wget)\b/.test(source)) {
    return "it runs code downloaded from the network"
  }
  return undefined
}

/**
 * The arguments of a command that name paths outside the workspace
 * (absolute, `~`, or climbing out with `..`; also the value of an
 * `--option=path`). `/dev/null` and the standard streams are fine.
 *
 * @since 0.3.0
 * @category classification
 */
export const pathsOutside = (words: ReadonlyArray<string>, location: Location): ReadonlyArray<string> => {
  const root = normalize(location.workspaceRoot)
  const cwd = normalize(location.cwd ?? root)
  const inside = (path: string) => path === root || path.startsWith(root === "/" ? "/" : `${root}/`)
  const out: Array<string> = []
  for (const word of words.slice(1)) {
    const value = /^--?[A-Za-z0-9][A-Za-z0-9-]*=/.test(word) ? word.slice(word.indexOf("=") + 1) : word
    if (/^\/dev\/(?:null|stdin|stdout|stderr|tty|fd\/[0-2])$/.test(value)) continue
    let path: string | undefined
    if (value === "~" || value.startsWith("~/") || /^~[A-Za-z0-9_.-]*(?:\/|$)/.test(value)) {
      path = location.homeDirectory === undefined
        ? undefined
        : normalize(`${location.homeDirectory}/${value.replace(/^~[^/]*/, "")}`)
      if (path === undefined || !inside(path)) out.push(word)
      continue
    }
    if (value.startsWith("/")) path = normalize(value)
    else if (cwd !== root || /(?:^|\/)\.\.(?:\/|$)/.test(value)) path = normalize(`${cwd}/${value}`)
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
  covers.every((words) => globSafe.has(words[0] ?? ""))

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

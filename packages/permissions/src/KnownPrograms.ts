/**
 * The programs whose arguments the engine knows are never a command, and
 * where a program it does not know could start one.
 *
 * No wrapper table is complete: `taskset 0x1 rm`, `chrt 5 rm`, `strace rm`,
 * `ssh host rm`, `firejail rm` and a thousand launchers more run a later word
 * as a command. So for deny and ask rules a program that is neither a
 * wrapper the engine reads (`Wrappers`), a builtin, nor a program listed
 * here is read as possibly starting a command at each later word that could
 * name one, the way an unknown wrapper option is read. Allow rules never use
 * these guesses: an unknown program is one more command a rule must name.
 *
 * The list is of programs whose later words are data (files, patterns,
 * messages, subcommands), so that `git rm x`, `man rm` or `grep rm` are not
 * denied by `Bash(rm:*)`. A program with subcommands that do run a command
 * (`git bisect run`, `npm exec`) is known only without them.
 *
 * Internal to the package (no entry in the index).
 *
 * @since 0.3.0
 */

/** Bash builtins: none runs a later word as a command, save those `Wrappers` reads (`command`, `exec`…). */
const builtins: ReadonlyArray<string> = [
  ":",
  ".",
  "[",
  "[[",
  "alias",
  "bg",
  "bind",
  "break",
  "caller",
  "cd",
  "compgen",
  "complete",
  "compopt",
  "continue",
  "declare",
  "dirs",
  "disown",
  "echo",
  "enable",
  "exit",
  "export",
  "false",
  "fc",
  "fg",
  "getopts",
  "hash",
  "help",
  "history",
  "jobs",
  "kill",
  "let",
  "local",
  "logout",
  "mapfile",
  "popd",
  "printf",
  "pushd",
  "pwd",
  "read",
  "readarray",
  "readonly",
  "return",
  "set",
  "shift",
  "shopt",
  "source",
  "suspend",
  "test",
  "times",
  "trap",
  "true",
  "type",
  "typeset",
  "ulimit",
  "umask",
  "unalias",
  "unset",
  "wait"
]

/** Programs whose later words are data, never a command they start. */
const ordinary: ReadonlyArray<string> = [
  // read-only commands and the file commands
  "ls",
  "cat",
  "head",
  "tail",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "wc",
  "which",
  "whereis",
  "diff",
  "cmp",
  "comm",
  "stat",
  "du",
  "df",
  "file",
  "less",
  "more",
  "man",
  "info",
  "whatis",
  "apropos",
  "tree",
  "mkdir",
  "rmdir",
  "touch",
  "rm",
  "mv",
  "cp",
  "ln",
  "chmod",
  "chown",
  "chgrp",
  "tee",
  "sed",
  "sort",
  "uniq",
  "cut",
  "tr",
  "paste",
  "join",
  "column",
  "fold",
  "fmt",
  "nl",
  "rev",
  "tac",
  "shuf",
  "split",
  "truncate",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "mktemp",
  "date",
  "sleep",
  "yes",
  "seq",
  "expr",
  "id",
  "whoami",
  "groups",
  "uname",
  "hostname",
  "md5sum",
  "sha1sum",
  "sha256sum",
  "sha512sum",
  "base64",
  "od",
  "hexdump",
  "xxd",
  "strings",
  "tar",
  "gzip",
  "gunzip",
  "zcat",
  "zip",
  "unzip",
  "xz",
  "bzip2",
  "jq",
  "ps",
  "top",
  "free",
  "lsof",
  // network clients: their words are addresses and data
  "curl",
  "wget",
  "ping",
  // build tools and interpreters: their words are targets, files and the program's own arguments
  "git",
  "npm",
  "make",
  "node",
  "python",
  "python3",
  "pip",
  "pip3",
  "perl",
  "ruby",
  "go",
  "cargo",
  "rustc",
  "gcc",
  "cc",
  "tsc"
]

const known: ReadonlySet<string> = new Set([...builtins, ...ordinary])

/** Subcommands or options of a known program that run a command: `git bisect run rm`, `npm exec -- rm`. */
const launching: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["git", new Set(["bisect", "submodule", "rebase", "filter-branch", "difftool", "mergetool"])],
  ["npm", new Set(["exec", "x", "explore"])]
])

/**
 * Whether the engine knows that none of the command's later words starts a
 * command: a builtin or a listed program, used without a subcommand that
 * runs one. Wrappers are read by `Wrappers`, not here.
 *
 * @since 0.3.0
 * @category programs
 */
export const isKnown = (words: ReadonlyArray<string>): boolean => {
  const name = words[0] ?? ""
  if (!known.has(name)) return false
  const runs = launching.get(name)
  return runs === undefined || !words.slice(1).some((word) => runs.has(word))
}

/** Bounds the guesses: a long argument list must stay cheap, and each guess is matched against every rule. */
const maxGuesses = 16

/** Numbers, masks and priorities (`0x1`, `5`, `-c3` is an option anyway) never name a command. */
const number = /^(?:0x[0-9a-f]+|[0-9][0-9.,:x-]*)$/i

/**
 * Where an unknown program could start a command: each later word that could
 * name one (not an option, an assignment, a number or a directory), first
 * ones first.
 *
 * @since 0.3.0
 * @category programs
 */
export const commandStarts = (words: ReadonlyArray<string>): ReadonlyArray<number> => {
  const starts: Array<number> = []
  for (let i = 1; i < words.length && starts.length < maxGuesses; i++) {
    const word = words[i]!
    if (
      word === "" || word.startsWith("-") || word.startsWith("+") || word.includes("=") || word.endsWith("/") ||
      number.test(word)
    ) {
      continue
    }
    starts.push(i)
  }
  return starts
}

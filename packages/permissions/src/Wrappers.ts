/**
 * Wrappers: commands that run another command. `sudo -u root rm -rf /`
 * runs `rm`, `env -S 'rm -rf /'` runs `rm`, `bash -c 'rm -rf /'` runs a
 * script. A deny rule must see every command a wrapper can run, and an allow
 * rule must allow a wrapper only when what it runs is allowed, so this module
 * reads each wrapper with its real option grammar (which options take a
 * value, combined short flags, `--`, leading assignments) and lists what it
 * runs. The getopt-style reading itself lives in OptionGrammar; this module
 * holds each wrapper's table and what the wrapper does once read.
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
import * as KnownPrograms from "./KnownPrograms.js"
import * as OptionGrammar from "./OptionGrammar.js"

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

// Nesting deeper than any real command line: `sudo sudo …` 100,000 deep must
// stay cheap, and an unknown option multiplies readings.
const maxDepth = 16
const maxReadings = 256
const maxCandidates = 16

const clip = (word: string): string => word.length > 40 ? `${word.slice(0, 40)}…` : word

type Inner =
  | { readonly _tag: "Words"; readonly words: ReadonlyArray<string> }
  | { readonly _tag: "Script"; readonly script: string }

/** What one wrapper does with its words. */
interface Step {
  readonly inner: ReadonlyArray<Inner>
  /** The first inner reading is certainly what runs; with no inner reading, nothing but the wrapper runs. */
  readonly certain: boolean
  readonly doubts: ReadonlyArray<string>
  readonly stdin: boolean
}

const step = (inner: ReadonlyArray<Inner>, certain = true, doubts: ReadonlyArray<string> = []): Step => ({
  inner,
  certain,
  doubts,
  stdin: false
})
const nothing: Step = step([])
const stdinShell: Step = { ...nothing, stdin: true }
const runsWords = (words: ReadonlyArray<string>): Step => step([{ _tag: "Words", words }])
const runsScript = (script: string): Step => step([{ _tag: "Script", script }])

/**
 * An option we cannot read: the command could start at any later word that
 * is not an option, so each is a reading for deny rules.
 */
const unsure = (wrapper: string, bad: OptionGrammar.Bad, words: ReadonlyArray<string>): Step => {
  const inner: Array<Inner> = []
  const doubts = [`${wrapper}: ${bad.why} ${clip(bad.word)}, so what it runs is uncertain`]
  for (let i = bad.at + 1; i < words.length; i++) {
    if (words[i]!.startsWith("-")) continue
    if (inner.length === maxCandidates) {
      doubts.push(`${wrapper}: too many words after an unknown option to try each as the command`)
      break
    }
    inner.push({ _tag: "Words", words: words.slice(i) })
  }
  return step(inner, false, doubts)
}

const isAssignment = (word: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)

const skipAssignments = (words: ReadonlyArray<string>): ReadonlyArray<string> => {
  let i = 0
  while (i < words.length && isAssignment(words[i]!)) i++
  return i === 0 ? words : words.slice(i)
}

type Handler = (words: ReadonlyArray<string>) => Step

/** Options, then `positional` operands of its own, then the command. */
const simple = (
  g: OptionGrammar.OptionGrammar,
  options: {
    readonly positional?: number
    readonly withoutCommand?: Step
    readonly runsNothingWith?: ReadonlyArray<string>
  } = {}
): Handler =>
(words) => {
  const parsed = OptionGrammar.parse(g, words, 1)
  if (parsed.bad !== undefined) return unsure(words[0]!, parsed.bad, words)
  if (OptionGrammar.has(parsed, "help", "version", ...(options.runsNothingWith ?? []))) return nothing
  const positional = options.positional ?? 0
  if (parsed.operands.length < positional) return nothing
  const command = parsed.operands.slice(positional)
  return command.length === 0 ? options.withoutCommand ?? nothing : runsWords(command)
}

const gnu = { help: "", version: "" }

const sudoGrammar = OptionGrammar.make("Aa:BbC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv", {
  askpass: "A",
  "auth-type": "a:",
  background: "b",
  bell: "B",
  "close-from": "C:",
  "login-class": "c:",
  chdir: "D:",
  "preserve-env": "E::",
  edit: "e",
  group: "g:",
  "set-home": "H",
  help: "",
  host: "h:",
  login: "i",
  "remove-timestamp": "K",
  "reset-timestamp": "k",
  list: "l",
  "non-interactive": "n",
  "preserve-groups": "P",
  prompt: "p:",
  chroot: "R:",
  role: "r:",
  stdin: "S",
  shell: "s",
  type: "t:",
  "command-timeout": "T:",
  "other-user": "U:",
  user: "u:",
  version: "V",
  validate: "v"
}, { host: "h" })

const sudo: Handler = (words) => {
  const parsed = OptionGrammar.parse(sudoGrammar, words, 1)
  if (parsed.bad !== undefined) return unsure("sudo", parsed.bad, words)
  // -e edits files, -l/-v/-K only check or reset credentials, bare -h is help.
  const helps = parsed.given.some((option) => option.name === "h" && option.value === undefined)
  if (helps || OptionGrammar.has(parsed, "help", "V", "e", "l", "v", "K")) return nothing
  const command = skipAssignments(parsed.operands)
  if (command.length > 0) return runsWords(command)
  return OptionGrammar.has(parsed, "i", "s") ? stdinShell : nothing
}

const doasGrammar = OptionGrammar.make("a:C:Lnsu:")
const doas: Handler = (words) => {
  const parsed = OptionGrammar.parse(doasGrammar, words, 1)
  if (parsed.bad !== undefined) return unsure("doas", parsed.bad, words)
  // -C only checks a configuration file against the command; -L clears persisted logins.
  if (OptionGrammar.has(parsed, "C", "L")) return nothing
  if (parsed.operands.length > 0) return runsWords(parsed.operands)
  return OptionGrammar.has(parsed, "s") ? stdinShell : nothing
}

const envGrammar = OptionGrammar.make("iu:vC:0S:", {
  ...gnu,
  "ignore-environment": "i",
  null: "0",
  unset: "u:",
  chdir: "C:",
  "split-string": "S:",
  "block-signal": "::",
  "default-signal": "::",
  "ignore-signal": "::",
  "list-signal-handling": "",
  debug: "v"
})

interface Split {
  readonly words: ReadonlyArray<string>
  readonly doubts: ReadonlyArray<string>
}

const envEscapes: Readonly<Record<string, string>> = {
  "\"": "\"",
  "#": "#",
  "$": "$",
  "'": "'",
  "\\": "\\",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v"
}

/**
 * Splits an `env -S` string with env's own rules (GNU coreutils
 * `parse_split_string`): whitespace separates, single quotes keep all but
 * `\\` and `\'`, double quotes keep whitespace and honour escapes, `\_` is a
 * separator outside quotes and a space inside double quotes, `\c` and a `#`
 * starting a word end the string, and `${NAME}` expands from the
 * environment, which we cannot see.
 */
const splitEnvString = (text: string): Split => {
  const words: Array<string> = []
  const doubts: Array<string> = []
  let current = ""
  let started = false
  let single = false
  let double = false
  const end = () => {
    if (started) words.push(current)
    current = ""
    started = false
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (!single && !double && /\s/.test(c)) {
      end()
      continue
    }
    if (c === "'" && !double) {
      single = !single
      started = true
      continue
    }
    if (c === "\"" && !single) {
      double = !double
      started = true
      continue
    }
    if (c === "#" && !single && !double && !started) break
    if (c === "$" && !single) {
      const match = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(text.slice(i))
      doubts.push(
        match === null
          ? "env -S accepts only ${NAME} after $, so env fails"
          : "env -S expands a variable whose value is unknown"
      )
      current += match === null ? c : match[0]
      started = true
      if (match !== null) i += match[0].length - 1
      continue
    }
    if (c === "\\") {
      const next = text[i + 1]
      if (single && next !== "\\" && next !== "'") {
        current += c
        started = true
        continue
      }
      i++
      if (next === "c") break
      if (next === "_") {
        if (double) {
          current += " "
          started = true
        } else end()
        continue
      }
      const escaped = next === undefined ? undefined : envEscapes[next]
      if (escaped === undefined) {
        doubts.push("env -S holds an invalid backslash sequence, so env fails")
        if (next !== undefined) current += next
      } else current += escaped
      started = true
      continue
    }
    current += c
    started = true
  }
  if (single || double) doubts.push("env -S holds an unterminated quote, so env fails")
  end()
  return { words, doubts }
}

const env: Handler = (words) => {
  let argv = words
  const doubts: Array<string> = []
  // Each -S splits its string into arguments that replace it, and env parses
  // them again, options included; the bound only guards against pathology.
  for (let round = 0; round <= maxDepth; round++) {
    const parsed = OptionGrammar.parse(envGrammar, argv, 1, (name) => name === "S")
    if (parsed.bad !== undefined) {
      const fallback = unsure("env", parsed.bad, argv)
      return step(fallback.inner, false, [...doubts, ...fallback.doubts])
    }
    if (parsed.stopped !== undefined) {
      const split = splitEnvString(parsed.stopped.value ?? "")
      doubts.push(...split.doubts)
      argv = [argv[0]!, ...split.words, ...argv.slice(parsed.end)]
      continue
    }
    if (OptionGrammar.has(parsed, "help", "version")) return step([], doubts.length === 0, doubts)
    // The obsolete `env -` means `env -i`.
    const operands = parsed.operands[0] === "-" ? parsed.operands.slice(1) : parsed.operands
    const command = skipAssignments(operands)
    return step(command.length === 0 ? [] : [{ _tag: "Words", words: command }], doubts.length === 0, doubts)
  }
  return step([], false, [...doubts, "env: -S nested too deep to read"])
}

const nice = simple(OptionGrammar.make("n:", { ...gnu, adjustment: "n:" }, { numeric: true }))

const ionice: Handler = (words) => {
  const parsed = OptionGrammar.parse(
    OptionGrammar.make("c:n:p:P:u:tVh", {
      class: "c:",
      classdata: "n:",
      pid: "p:",
      pgid: "P:",
      uid: "u:",
      ignore: "t",
      help: "h",
      version: "V"
    }),
    words,
    1
  )
  if (parsed.bad !== undefined) return unsure("ionice", parsed.bad, words)
  // With -p, -P or -u the operands are process, group or user ids, not a command.
  if (OptionGrammar.has(parsed, "h", "V", "p", "P", "u")) return nothing
  return parsed.operands.length === 0 ? nothing : runsWords(parsed.operands)
}

const timeout = simple(
  OptionGrammar.make("k:s:v", {
    ...gnu,
    "kill-after": "k:",
    signal: "s:",
    "preserve-status": "",
    foreground: "",
    verbose: "v"
  }),
  { positional: 1 }
)

const nohup = simple(OptionGrammar.make("", gnu))

// Both the bash keyword (`time -p`) and GNU time.
const time = simple(
  OptionGrammar.make("af:o:pqvV", {
    append: "a",
    format: "f:",
    output: "o:",
    portability: "p",
    quiet: "q",
    verbose: "v",
    help: "",
    version: "V"
  }),
  { runsNothingWith: ["V"] }
)

const setsid = simple(OptionGrammar.make("cfwhV", { ctty: "c", fork: "f", wait: "w", help: "h", version: "V" }), {
  runsNothingWith: ["h", "V"]
})

const flockGrammar = OptionGrammar.make("sexnoFuw:E:hV", {
  shared: "s",
  exclusive: "x",
  unlock: "u",
  nonblock: "n",
  nb: "n",
  timeout: "w:",
  wait: "w:",
  "conflict-exit-code": "E:",
  close: "o",
  "no-fork": "F",
  verbose: "",
  help: "h",
  version: "V"
})

const flock: Handler = (words) => {
  const parsed = OptionGrammar.parse(flockGrammar, words, 1)
  if (parsed.bad !== undefined) return unsure("flock", parsed.bad, words)
  if (OptionGrammar.has(parsed, "h", "V")) return nothing
  // `flock FD` locks a descriptor and runs nothing; `-c` is read only after the file.
  const [, next, ...rest] = parsed.operands
  if (next === undefined) return nothing
  if (next === "-c" || next === "--command") {
    if (rest.length === 0) return nothing
    return rest.length === 1
      ? runsScript(rest[0]!)
      : step([{ _tag: "Script", script: rest[0]! }], false, ["flock -c takes exactly one command, so flock fails"])
  }
  return runsWords(parsed.operands.slice(1))
}

const stdbuf = simple(OptionGrammar.make("i:o:e:", { ...gnu, input: "i:", output: "o:", error: "e:" }))

const chroot = simple(OptionGrammar.make("", { ...gnu, groups: ":", userspec: ":", "skip-chdir": "" }), {
  positional: 1,
  withoutCommand: stdinShell
})

const xargsGrammar = OptionGrammar.make("0a:E:e::i::I:l::L:n:prs:txP:d:o", {
  ...gnu,
  null: "0",
  "arg-file": "a:",
  eof: "e::",
  replace: "i::",
  "max-lines": "L:",
  "max-args": "n:",
  interactive: "p",
  "no-run-if-empty": "r",
  "max-chars": "s:",
  verbose: "t",
  exit: "x",
  "max-procs": "P:",
  delimiter: "d:",
  "open-tty": "o",
  "process-slot-var": ":",
  "show-limits": ""
})

const xargs: Handler = (words) => {
  const parsed = OptionGrammar.parse(xargsGrammar, words, 1)
  if (parsed.bad !== undefined) return unsure("xargs", parsed.bad, words)
  if (OptionGrammar.has(parsed, "help", "version")) return nothing
  const command = parsed.operands.length === 0 ? ["echo"] : parsed.operands
  return step([{ _tag: "Words", words: command }], false, ["xargs appends arguments read from input"])
}

const findRuns: ReadonlyArray<string> = ["-exec", "-execdir", "-ok", "-okdir"]
const findWrites: ReadonlyArray<string> = ["-fprint", "-fprint0", "-fprintf", "-fls"]

const find: Handler = (words) => {
  const inner: Array<Inner> = []
  const doubts = new Set<string>()
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (word === "-delete") doubts.add("find -delete deletes the files it finds")
    if (findWrites.includes(word)) doubts.add(`find ${word} writes to a file`)
    if (!findRuns.includes(word)) continue
    doubts.add(`find ${word} runs a command for each file it finds`)
    let j = i + 1
    // `+` ends the command only right after `{}`; otherwise it is an argument.
    while (j < words.length && words[j] !== ";" && !(words[j] === "+" && words[j - 1] === "{}")) j++
    if (j === words.length) doubts.add(`find ${word} is not terminated, so find fails`)
    if (j > i + 1) inner.push({ _tag: "Words", words: words.slice(i + 1, j) })
    i = j
  }
  return step(inner, inner.length === 0, [...doubts])
}

const watchGrammar = OptionGrammar.make("bcCd::eghn:pq:rtvwx", {
  beep: "b",
  color: "c",
  "no-color": "C",
  differences: "d::",
  errexit: "e",
  chgexit: "g",
  equexit: "q:",
  interval: "n:",
  precise: "p",
  "no-rerun": "r",
  "no-title": "t",
  "no-wrap": "w",
  exec: "x",
  help: "h",
  version: "v"
})

const watch: Handler = (words) => {
  const parsed = OptionGrammar.parse(watchGrammar, words, 1)
  if (parsed.bad !== undefined) return unsure("watch", parsed.bad, words)
  if (OptionGrammar.has(parsed, "h", "v") || parsed.operands.length === 0) return nothing
  // Without -x watch joins its words with spaces and hands them to `sh -c`.
  return OptionGrammar.has(parsed, "x") ? runsWords(parsed.operands) : runsScript(parsed.operands.join(" "))
}

const scriptGrammar = OptionGrammar.make("ac:efqVhI:O:B:T:t::m:E:o:", {
  append: "a",
  command: "c:",
  echo: "E:",
  return: "e",
  flush: "f",
  force: "",
  "log-in": "I:",
  "log-out": "O:",
  "log-io": "B:",
  "log-timing": "T:",
  timing: "t::",
  "logging-format": "m:",
  "output-limit": "o:",
  quiet: "q",
  help: "h",
  version: "V"
}, { permute: true })

const script: Handler = (words) => {
  const parsed = OptionGrammar.parse(scriptGrammar, words, 1)
  if (parsed.bad !== undefined) return unsure("script", parsed.bad, words)
  if (OptionGrammar.has(parsed, "h", "V")) return nothing
  const command = OptionGrammar.lastValue(parsed, "c")
  return command === undefined ? stdinShell : runsScript(command)
}

const suLong = {
  command: "c:",
  "session-command": "c:",
  fast: "f",
  group: "g:",
  "supp-group": "G:",
  login: "l",
  "preserve-environment": "m",
  pty: "P",
  shell: "s:",
  help: "h",
  version: "V",
  "whitelist-environment": "w:"
}
const suGrammar = OptionGrammar.make("c:fg:G:lmpPs:hVw:", suLong, { permute: true })

/** su's reading once parsed: `[-] [USER [ARGS…]]`, the args going to the user's shell. */
const suStep = (parsed: OptionGrammar.Parsed): Step => {
  if (OptionGrammar.has(parsed, "h", "V")) return nothing
  const command = OptionGrammar.lastValue(parsed, "c")
  if (command !== undefined) return runsScript(command)
  const operands = parsed.operands[0] === "-" ? parsed.operands.slice(1) : parsed.operands
  const args = operands.slice(1)
  return args.length === 0 ? stdinShell : runsWords([OptionGrammar.lastValue(parsed, "s") ?? "sh", ...args])
}

const su: Handler = (words) => {
  const parsed = OptionGrammar.parse(suGrammar, words, 1)
  return parsed.bad !== undefined ? unsure("su", parsed.bad, words) : suStep(parsed)
}

const runuserShort = "c:fg:G:lmpPs:u:hVw:"
const runuserLong = { ...suLong, user: "u:" }

const runuser: Handler = (words) => {
  const parsed = OptionGrammar.parse(OptionGrammar.make(runuserShort, runuserLong, { permute: true }), words, 1)
  if (parsed.bad === undefined && !OptionGrammar.has(parsed, "u")) return suStep(parsed)
  // `runuser -u USER [--] COMMAND…` runs the command itself: its own options must not be taken for runuser's.
  const direct = OptionGrammar.parse(OptionGrammar.make(runuserShort, runuserLong), words, 1)
  if (direct.bad !== undefined) return unsure("runuser", direct.bad, words)
  if (OptionGrammar.has(direct, "h", "V")) return nothing
  const command = OptionGrammar.lastValue(direct, "c")
  if (command !== undefined) return runsScript(command)
  return direct.operands.length === 0 ? stdinShell : runsWords(direct.operands)
}

const pkexec = simple(OptionGrammar.make("", { ...gnu, user: ":", "keep-cwd": "", "disable-internal-agent": "" }), {
  withoutCommand: stdinShell
})

// `sg GROUP [-c] COMMAND`: sg hands its one command word to `sh -c` and ignores the rest.
const sg: Handler = (words) => {
  const start = words[1] === "-" ? 2 : 1
  if (words[start] === undefined) return nothing
  const command = words[start + 1] === "-c" ? words[start + 2] : words[start + 1]
  return command === undefined ? stdinShell : runsScript(command)
}

const nsenter = simple(
  OptionGrammar.make("ahVt:m::u::i::n::p::C::U::T::S:G:r::w::W:FZ", {
    all: "a",
    target: "t:",
    mount: "m::",
    uts: "u::",
    ipc: "i::",
    net: "n::",
    pid: "p::",
    cgroup: "C::",
    user: "U::",
    time: "T::",
    setuid: "S:",
    setgid: "G:",
    "preserve-credentials": "",
    "keep-caps": "",
    root: "r::",
    wd: "w::",
    wdns: "W:",
    env: "e",
    "no-fork": "F",
    "follow-context": "Z",
    "user-parent": "",
    help: "h",
    version: "V"
  }),
  { withoutCommand: stdinShell, runsNothingWith: ["h", "V"] }
)

const unshare = simple(
  OptionGrammar.make("fhVmuinpCTUrR:w:S:G:cl", {
    mount: "m::",
    uts: "u::",
    ipc: "i::",
    net: "n::",
    pid: "p::",
    user: "U::",
    cgroup: "C::",
    time: "T::",
    fork: "f",
    "map-user": ":",
    "map-group": ":",
    "map-root-user": "r",
    "map-current-user": "c",
    "map-auto": "",
    "map-users": ":",
    "map-groups": ":",
    "kill-child": "::",
    "mount-proc": "::",
    "mount-binfmt": "::",
    propagation: ":",
    setgroups: ":",
    "keep-caps": "",
    root: "R:",
    wd: "w:",
    setuid: "S:",
    setgid: "G:",
    monotonic: ":",
    boottime: ":",
    "load-interp": ":",
    help: "h",
    version: "V"
  }),
  { withoutCommand: stdinShell, runsNothingWith: ["h", "V"] }
)

const shellLong: ReadonlyMap<string, boolean> = new Map([
  ["debug", false],
  ["debugger", false],
  ["dump-po-strings", false],
  ["dump-strings", false],
  ["help", false],
  ["init-file", true],
  ["login", false],
  ["noediting", false],
  ["noprofile", false],
  ["norc", false],
  ["posix", false],
  ["pretty-print", false],
  ["rcfile", true],
  ["restricted", false],
  ["verbose", false],
  ["version", false]
])

/**
 * bash, sh, zsh, dash, ksh: every option comes before the first operand, and
 * `-c` takes no value of its own; it makes that operand the command string
 * (`bash -c -x 'cmd'`, `bash -ec 'cmd'`, `bash -c -- 'cmd'`).
 */
const shell: Handler = (words) => {
  let command = false
  let stdin = false
  let i = 1
  while (i < words.length) {
    const word = words[i]!
    if (word === "--" || word === "-") {
      i++
      break
    }
    if (word.startsWith("--")) {
      const takesValue = shellLong.get(word.slice(2))
      if (takesValue === undefined) return unsure(words[0]!, { word, at: i, why: "unknown option" }, words)
      if (word === "--help" || word === "--version") return nothing
      i += takesValue ? 2 : 1
      continue
    }
    if (!(word.startsWith("-") || word.startsWith("+")) || word.length === 1) break
    for (const letter of word.slice(1)) {
      if (!/[A-Za-z]/.test(letter)) return unsure(words[0]!, { word, at: i, why: "unknown option" }, words)
      if (letter === "c" && word[0] === "-") command = true
      if (letter === "s" && word[0] === "-") stdin = true
      // -o/-O name a shell option; alone they only list options.
      if (letter === "o" || letter === "O") {
        if (i + 1 >= words.length) return nothing
        i++
      }
    }
    i++
  }
  const operands = words.slice(i)
  if (command) return operands.length === 0 ? nothing : runsScript(operands[0]!)
  // A script file runs commands the words do not show, as an allow rule naming it accepts;
  // but a script file that is standard input (`sh /dev/stdin <<< …`) is the input read as a script.
  return stdin || operands.length === 0 || stdinFiles.has(operands[0]!) ? stdinShell : nothing
}

const stdinFiles: ReadonlySet<string> = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"])

const evalHandler: Handler = (words) => {
  const args = words[1] === "--" ? words.slice(2) : words.slice(1)
  return args.length === 0 ? nothing : runsScript(args.join(" "))
}

const execHandler = simple(OptionGrammar.make("cla:"))

const command: Handler = (words) => {
  const parsed = OptionGrammar.parse(OptionGrammar.make("pvV"), words, 1)
  if (parsed.bad !== undefined) return unsure("command", parsed.bad, words)
  // -v and -V describe the command instead of running it.
  if (OptionGrammar.has(parsed, "v", "V") || parsed.operands.length === 0) return nothing
  return runsWords(parsed.operands)
}

const builtin: Handler = (words) => {
  const args = words[1] === "--" ? words.slice(2) : words.slice(1)
  return args.length === 0 ? nothing : runsWords(args)
}

const compoundStarts: ReadonlyArray<string> = [
  "{",
  "(",
  "((",
  "[[",
  "if",
  "for",
  "while",
  "until",
  "case",
  "select",
  "function"
]

// `coproc NAME` is only recognised before a compound command, whose body is not in these words.
const coproc: Handler = (words) => {
  if (words.length < 2) return nothing
  if (compoundStarts.includes(words[1]!) || (words.length > 2 && compoundStarts.includes(words[2]!))) {
    return step(words.length > 2 ? [{ _tag: "Words", words: words.slice(2) }] : [], false, [
      "coproc runs a compound command, which these words do not show"
    ])
  }
  return runsWords(words.slice(1))
}

const busyboxOwn: ReadonlyArray<string> = ["--list", "--list-full", "--help", "--install", "--show"]

const busybox: Handler = (words) => {
  const applet = words[1]
  if (applet === undefined || busyboxOwn.includes(applet)) return nothing
  if (applet.startsWith("-")) return unsure("busybox", { word: applet, at: 1, why: "unknown option" }, words)
  return runsWords(words.slice(1))
}

const handlers: ReadonlyMap<string, Handler> = new Map([
  ["sudo", sudo],
  ["doas", doas],
  ["env", env],
  ["nice", nice],
  ["ionice", ionice],
  ["timeout", timeout],
  ["nohup", nohup],
  ["time", time],
  ["setsid", setsid],
  ["flock", flock],
  ["stdbuf", stdbuf],
  ["chroot", chroot],
  ["xargs", xargs],
  ["find", find],
  ["watch", watch],
  ["script", script],
  ["su", su],
  ["runuser", runuser],
  ["pkexec", pkexec],
  ["sg", sg],
  ["nsenter", nsenter],
  ["unshare", unshare],
  ["bash", shell],
  ["sh", shell],
  ["zsh", shell],
  ["dash", shell],
  ["ksh", shell],
  ["eval", evalHandler],
  ["exec", execHandler],
  ["command", command],
  ["builtin", builtin],
  ["coproc", coproc],
  ["busybox", busybox]
])

const subscript = "(an array subscript runs code)"
const arithmetic: ReadonlyArray<string> = ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]
const declarers: ReadonlyArray<string> = ["declare", "typeset", "local", "export", "readonly"]
const optionWith = (words: ReadonlyArray<string>, letter: string): boolean =>
  words.slice(1).some((word) => /^-[A-Za-z]*$/.test(word) && word.includes(letter))

/**
 * Builtins that evaluate some of their arguments as code, which a parser
 * sees only as plain words.
 */
const evaluates = (words: ReadonlyArray<string>): string | undefined => {
  const [name, ...args] = words
  switch (name) {
    case "printf":
      return args[0]?.startsWith("-v") === true
        ? `printf -v assigns to a name bash evaluates ${subscript}`
        : undefined
    case "test":
    case "[":
    case "[[":
      if (args.includes("-v") || args.includes("-R")) return `${name} -v looks up a name bash evaluates ${subscript}`
      return args.some((arg) => arithmetic.includes(arg))
        ? `${name} with an arithmetic comparison evaluates its operands as arithmetic ${subscript}`
        : undefined
    case "read":
      return `read assigns to names bash evaluates ${subscript}`
    case "let":
      return `let evaluates its arguments as arithmetic ${subscript}`
    case "mapfile":
    case "readarray":
      return `${name} assigns to a name bash evaluates and can run a callback (-C)`
    case "unset":
      return args.some((arg) => arg.includes("[")) ? `unset with a subscript evaluates it ${subscript}` : undefined
    case "source":
    case ".":
      return `${name} runs the commands of a file these words do not show`
    case "trap":
      return "trap stores a command to run later"
    case "alias":
      return "alias changes what later words run"
    case "enable":
      return "enable loads or switches builtins, changing what later names run"
    case "hash":
      return optionWith(words, "p") ? "hash -p binds a name to any file, changing what it runs" : undefined
    case "complete":
    case "compgen":
      return optionWith(words, "C") ? `${name} -C runs or stores a command to run on completion` : undefined
    case "fc":
      return "fc runs commands from history"
    case "shopt":
      return "shopt changes how later commands are parsed and expanded"
    case "set":
      return args.length > 0 ? "set changes shell options that alter how later commands are parsed and run" : undefined
    case "wait":
      return optionWith(words, "p") ? `wait -p assigns to a name bash evaluates ${subscript}` : undefined
    case "getopts":
      return `getopts assigns to a name bash evaluates ${subscript}`
    default:
      if (
        name !== undefined && declarers.includes(name) && args.some((arg) => arg.includes("[") || arg.includes("="))
      ) {
        return `${name} evaluates a subscript or value it assigns ${subscript}`
      }
      return undefined
  }
}

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
    if (depth > maxDepth) {
      if (!guess) doubts.add(`wrappers nested more than ${maxDepth} deep: the rest were not read`)
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
    const evaluated = evaluates(current)
    if (evaluated !== undefined && !guess) doubts.add(evaluated)
    if (head.includes("/")) {
      const base = basename(head)
      if (base === "") return current
      // A deny of `rm` must match `/usr/bin/rm`; `/usr/bin/sudo rm` still runs `rm`.
      const inner = visit([base, ...current.slice(1)], via, depth, guess)
      return handlers.has(base) ? inner : current
    }
    const handler = handlers.get(head)
    if (handler === undefined) {
      // Every later word of a guess is a guess already: guessing again only repeats them.
      if (!guess && !KnownPrograms.isKnown(current)) unknown.push({ words: current, via })
      return current
    }
    const taken = handler(current)
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

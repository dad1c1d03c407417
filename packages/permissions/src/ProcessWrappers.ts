/**
 * ProcessWrappers: the wrappers that run a command in a changed process
 * (environment, priority, time limit, session, lock, buffering, root or
 * namespaces): env, nice, ionice, timeout, nohup, time, setsid, flock,
 * stdbuf, chroot, nsenter, unshare. Apart because each only changes how its
 * command runs, never what it is, and `env -S` has a string grammar of its
 * own.
 *
 * @since 0.4.0
 */
import * as OptionGrammar from "./OptionGrammar.js"
import * as WrapperStep from "./WrapperStep.js"

const envGrammar = OptionGrammar.make("iu:vC:0S:", {
  ...WrapperStep.gnu,
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

export const env: WrapperStep.Handler = (words) => {
  let argv = words
  const doubts: Array<string> = []
  // Each -S splits its string into arguments that replace it, and env parses
  // them again, options included; the bound only guards against pathology.
  for (let round = 0; round <= WrapperStep.maxDepth; round++) {
    const parsed = OptionGrammar.parse(envGrammar, argv, 1, (name) => name === "S")
    if (parsed.bad !== undefined) {
      const fallback = WrapperStep.unsure("env", parsed.bad, argv)
      return WrapperStep.step(fallback.inner, false, [...doubts, ...fallback.doubts])
    }
    if (parsed.stopped !== undefined) {
      const split = splitEnvString(parsed.stopped.value ?? "")
      doubts.push(...split.doubts)
      argv = [argv[0]!, ...split.words, ...argv.slice(parsed.end)]
      continue
    }
    if (OptionGrammar.has(parsed, "help", "version")) return WrapperStep.step([], doubts.length === 0, doubts)
    // The obsolete `env -` means `env -i`.
    const operands = parsed.operands[0] === "-" ? parsed.operands.slice(1) : parsed.operands
    const command = WrapperStep.skipAssignments(operands)
    return WrapperStep.step(
      command.length === 0 ? [] : [{ _tag: "Words", words: command }],
      doubts.length === 0,
      doubts
    )
  }
  return WrapperStep.step([], false, [...doubts, "env: -S nested too deep to read"])
}

export const nice = WrapperStep.simple(
  OptionGrammar.make("n:", { ...WrapperStep.gnu, adjustment: "n:" }, { numeric: true })
)

export const ionice: WrapperStep.Handler = (words) => {
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
  if (parsed.bad !== undefined) return WrapperStep.unsure("ionice", parsed.bad, words)
  // With -p, -P or -u the operands are process, group or user ids, not a command.
  if (OptionGrammar.has(parsed, "h", "V", "p", "P", "u")) return WrapperStep.nothing
  return parsed.operands.length === 0 ? WrapperStep.nothing : WrapperStep.runsWords(parsed.operands)
}

export const timeout = WrapperStep.simple(
  OptionGrammar.make("k:s:v", {
    ...WrapperStep.gnu,
    "kill-after": "k:",
    signal: "s:",
    "preserve-status": "",
    foreground: "",
    verbose: "v"
  }),
  { positional: 1 }
)

export const nohup = WrapperStep.simple(OptionGrammar.make("", WrapperStep.gnu))

// Both the bash keyword (`time -p`) and GNU time.
export const time = WrapperStep.simple(
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

export const setsid = WrapperStep.simple(
  OptionGrammar.make("cfwhV", { ctty: "c", fork: "f", wait: "w", help: "h", version: "V" }),
  {
    runsNothingWith: ["h", "V"]
  }
)

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

export const flock: WrapperStep.Handler = (words) => {
  const parsed = OptionGrammar.parse(flockGrammar, words, 1)
  if (parsed.bad !== undefined) return WrapperStep.unsure("flock", parsed.bad, words)
  if (OptionGrammar.has(parsed, "h", "V")) return WrapperStep.nothing
  // `flock FD` locks a descriptor and runs nothing; `-c` is read only after the file.
  const [, next, ...rest] = parsed.operands
  if (next === undefined) return WrapperStep.nothing
  if (next === "-c" || next === "--command") {
    if (rest.length === 0) return WrapperStep.nothing
    return rest.length === 1
      ? WrapperStep.runsScript(rest[0]!)
      : WrapperStep.step([{ _tag: "Script", script: rest[0]! }], false, [
        "flock -c takes exactly one command, so flock fails"
      ])
  }
  return WrapperStep.runsWords(parsed.operands.slice(1))
}

export const stdbuf = WrapperStep.simple(
  OptionGrammar.make("i:o:e:", { ...WrapperStep.gnu, input: "i:", output: "o:", error: "e:" })
)

export const chroot = WrapperStep.simple(
  OptionGrammar.make("", { ...WrapperStep.gnu, groups: ":", userspec: ":", "skip-chdir": "" }),
  {
    positional: 1,
    withoutCommand: WrapperStep.stdinShell
  }
)

export const nsenter = WrapperStep.simple(
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
  { withoutCommand: WrapperStep.stdinShell, runsNothingWith: ["h", "V"] }
)

export const unshare = WrapperStep.simple(
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
  { withoutCommand: WrapperStep.stdinShell, runsNothingWith: ["h", "V"] }
)

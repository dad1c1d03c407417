/**
 * ShellWrappers: shells and the builtins that run a command or a script
 * (bash, sh, zsh, dash, ksh, eval, exec, command, builtin, coproc) and
 * busybox's applets. Apart because these hand on shell source rather than
 * words, which the caller parses again.
 *
 * @since 0.4.0
 */
import * as OptionGrammar from "./OptionGrammar.js"
import * as WrapperStep from "./WrapperStep.js"

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
export const shell: WrapperStep.Handler = (words) => {
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
      if (takesValue === undefined) return WrapperStep.unsure(words[0]!, { word, at: i, why: "unknown option" }, words)
      if (word === "--help" || word === "--version") return WrapperStep.nothing
      i += takesValue ? 2 : 1
      continue
    }
    if (!(word.startsWith("-") || word.startsWith("+")) || word.length === 1) break
    for (const letter of word.slice(1)) {
      if (!/[A-Za-z]/.test(letter)) return WrapperStep.unsure(words[0]!, { word, at: i, why: "unknown option" }, words)
      if (letter === "c" && word[0] === "-") command = true
      if (letter === "s" && word[0] === "-") stdin = true
      // -o/-O name a shell option; alone they only list options.
      if (letter === "o" || letter === "O") {
        if (i + 1 >= words.length) return WrapperStep.nothing
        i++
      }
    }
    i++
  }
  const operands = words.slice(i)
  if (command) return operands.length === 0 ? WrapperStep.nothing : WrapperStep.runsScript(operands[0]!)
  // A script file runs commands the words do not show, as an allow rule naming it accepts;
  // but a script file that is standard input (`sh /dev/stdin <<< …`) is the input read as a script.
  return stdin || operands.length === 0 || readsInput(operands[0]!) ? WrapperStep.stdinShell : WrapperStep.nothing
}

/**
 * The shells this module reads (`shell`): their `-c` takes a script.
 *
 * @since 0.4.0
 * @category shells
 */
export const shells: ReadonlySet<string> = new Set(["sh", "bash", "zsh", "dash", "ksh"])

const stdinFiles: ReadonlySet<string> = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"])

// awk's options that take a value, and a program that hands text to a shell: `system(…)` of
// something other than one literal, or a print piped into a command (`print | "sh"`).
const awkValued = new Set(["-f", "-v", "-F", "--file", "--assign", "--field-separator"])
const awkRuns = /\bsystem\s*\((?!\s*"[^"]*"\s*\))|\|\s*&?\s*(?:"[^"]*"|[A-Za-z_$])/

/**
 * awk never runs its words as a command: they are its program, its files and
 * its variables (the program's literals are InterpreterCode's), so it gets
 * no guesses as an unknown program would (`awk '{print $1}'` named no
 * command). It runs what it reads when its program hands input to a shell
 * (`awk '{system($0)}'`, `awk '{print | "sh"}'`): its input is then read as
 * a script.
 */
export const awk = (words: ReadonlyArray<string>): WrapperStep.Step => {
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (word === "--") return runsInput(words[i + 1])
    if (awkValued.has(word)) {
      i++
      continue
    }
    if (word.startsWith("-") && word !== "-") continue
    return runsInput(word)
  }
  return WrapperStep.nothing
}

const runsInput = (program: string | undefined): WrapperStep.Step =>
  program !== undefined && awkRuns.test(program)
    ? { ...WrapperStep.step([], false, ["awk hands what it reads to a shell"]), stdin: true }
    : WrapperStep.nothing

// GNU sed's options that take a value (`-l N`, `-i` takes one only attached).
const sedValued = new Set(["-e", "-f", "-l", "--expression", "--file", "--line-length"])
// A command or a flag that makes sed run a shell: `e COMMAND`, a bare `e` (the pattern space runs),
// and `s/…/…/e` (the pattern space after the substitution runs).
const sedExecute =
  /(?:^|[;{}\n])\s*(?:(?:[0-9]+|\$|\/(?:[^/\\\n]|\\.)*\/[IM]*)(?:\s*,\s*(?:[0-9]+|\$|\/(?:[^/\\\n]|\\.)*\/[IM]*))?)?\s*!?\s*e(?:[ \t]+([^\n]*))?(?=$|[;}\n])/g
const sedSubstitute = /(?:^|[;{}\n])\s*[^s;{}\n]*s(.)((?:(?!\1)[^\\]|\\.)*)\1((?:(?!\1)[^\\]|\\.)*)\1([a-zA-Z0-9]*)/g

/**
 * sed runs a shell for its `e` command and the `e` flag of `s`: `sed
 * '1e rm -rf /'`, `sed 's/.*\/rm -rf \//e'`, and `sed e`, which runs each
 * input line. The command text is read as a script, and a pattern space
 * that runs makes the input a script too. `undefined` when the script runs
 * nothing: sed is the known program it is.
 */
export const sed = (words: ReadonlyArray<string>): WrapperStep.Step | undefined => {
  const scripts: Array<string> = []
  let fromFile = false
  let i = 1
  for (; i < words.length; i++) {
    const word = words[i]!
    if (word === "--") {
      i++
      break
    }
    if (!word.startsWith("-") || word === "-") break
    const eq = word.indexOf("=")
    const name = word.startsWith("--") && eq > 0 ? word.slice(0, eq) : word
    if (sedValued.has(name)) {
      const value = word.startsWith("--") && eq > 0 ? word.slice(eq + 1) : words[++i]
      if (value === undefined) return undefined
      if (name === "-e" || name === "--expression") scripts.push(value)
      if (name === "-f" || name === "--file") fromFile = true
      continue
    }
    // `-ne 'script'`, `-Ee'…'`: an -e among combined flags takes the rest or the next word.
    const combined = /^-[a-zA-Z]*e(.*)$/.exec(word)
    if (combined !== null && !word.startsWith("--")) {
      const value = combined[1] !== "" ? combined[1]! : words[++i]
      if (value !== undefined) scripts.push(value)
    }
  }
  if (scripts.length === 0 && !fromFile && i < words.length) scripts.push(words[i]!)
  const inner: Array<WrapperStep.Inner> = []
  let stdin = false
  for (const script of scripts) {
    for (const match of script.matchAll(sedExecute)) {
      if (match[1] !== undefined && match[1].trim() !== "") inner.push({ _tag: "Script", script: match[1] })
      else stdin = true
    }
    for (const match of script.matchAll(sedSubstitute)) {
      if (!match[4]!.includes("e")) continue
      stdin = true
      inner.push({ _tag: "Script", script: match[3]!.replace(/\\(.)/g, "$1") })
    }
  }
  if (inner.length === 0 && !stdin && !fromFile) return undefined
  const doubts = fromFile ? ["sed: a script file may run commands the words do not show"] : []
  return { ...WrapperStep.step(inner, false, [...doubts, "sed runs a shell command"]), stdin }
}

/**
 * make runs its makefile's recipes as shell commands: a makefile read from
 * input (`make -f - <<EOF`, `-f /dev/stdin`) is read as a script, and so is
 * the text of `--eval` (`$(shell …)` in it runs). `undefined` otherwise:
 * make runs as the known program it is, on a file the words name.
 */
export const make = (words: ReadonlyArray<string>): WrapperStep.Step | undefined => {
  let stdin = false
  const scripts: Array<WrapperStep.Inner> = []
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (word === "--") break
    const file = /^(?:-f|--file|--makefile)$/.test(word)
      ? words[++i]
      : /^(?:--file=|--makefile=)/.test(word)
      ? word.slice(word.indexOf("=") + 1)
      : /^-f./.test(word)
      ? word.slice(2)
      : undefined
    if (file !== undefined && (file === "-" || readsInput(file))) stdin = true
    const evaluated = word === "--eval" || word === "-E"
      ? words[++i]
      : word.startsWith("--eval=")
      ? word.slice(7)
      : undefined
    if (evaluated !== undefined) scripts.push({ _tag: "Script", script: evaluated })
  }
  if (!stdin && scripts.length === 0) return undefined
  return { ...WrapperStep.step(scripts, false, ["make runs a makefile the words do not show"]), stdin }
}

/**
 * Whether a script file is input the line feeds: standard input, or a
 * process substitution (`bash <(echo …)`), whose output the caller reads as
 * it reads a pipe's.
 */
const readsInput = (file: string): boolean => stdinFiles.has(file) || (file.startsWith("<(") && file.endsWith(")"))

/**
 * `source FILE` and `. FILE` run a file's commands in this shell: the file
 * the words name is unknown (`EvaluatingBuiltins` says so), but standard
 * input or a process substitution is what the line feeds it.
 */
export const source: WrapperStep.Handler = (words) => {
  const file = words[1] === "--" ? words[2] : words[1]
  return file !== undefined && readsInput(file) ? WrapperStep.stdinShell : WrapperStep.nothing
}

export const evalHandler: WrapperStep.Handler = (words) => {
  const args = words[1] === "--" ? words.slice(2) : words.slice(1)
  return args.length === 0 ? WrapperStep.nothing : WrapperStep.runsScript(args.join(" "))
}

export const execHandler = WrapperStep.simple(OptionGrammar.make("cla:"))

export const command: WrapperStep.Handler = (words) => {
  const parsed = OptionGrammar.parse(OptionGrammar.make("pvV"), words, 1)
  if (parsed.bad !== undefined) return WrapperStep.unsure("command", parsed.bad, words)
  // -v and -V describe the command instead of running it.
  if (OptionGrammar.has(parsed, "v", "V") || parsed.operands.length === 0) return WrapperStep.nothing
  return WrapperStep.runsWords(parsed.operands)
}

export const builtin: WrapperStep.Handler = (words) => {
  const args = words[1] === "--" ? words.slice(2) : words.slice(1)
  return args.length === 0 ? WrapperStep.nothing : WrapperStep.runsWords(args)
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
export const coproc: WrapperStep.Handler = (words) => {
  if (words.length < 2) return WrapperStep.nothing
  if (compoundStarts.includes(words[1]!) || (words.length > 2 && compoundStarts.includes(words[2]!))) {
    return WrapperStep.step(words.length > 2 ? [{ _tag: "Words", words: words.slice(2) }] : [], false, [
      "coproc runs a compound command, which these words do not show"
    ])
  }
  return WrapperStep.runsWords(words.slice(1))
}

const busyboxOwn: ReadonlyArray<string> = ["--list", "--list-full", "--help", "--install", "--show"]

export const busybox: WrapperStep.Handler = (words) => {
  const applet = words[1]
  if (applet === undefined || busyboxOwn.includes(applet)) return WrapperStep.nothing
  if (applet.startsWith("-")) {
    return WrapperStep.unsure("busybox", { word: applet, at: 1, why: "unknown option" }, words)
  }
  return WrapperStep.runsWords(words.slice(1))
}

/**
 * RepeatingWrappers: the programs that run a command they are given for
 * each input, file or interval, or inside a recorded terminal: xargs, find,
 * watch, script. Apart because they run their command any number of times
 * with words the line does not show.
 *
 * @since 0.4.0
 */
import * as InterpreterCode from "./InterpreterCode.js"
import * as OptionGrammar from "./OptionGrammar.js"
import * as ShellWrappers from "./ShellWrappers.js"
import * as WrapperStep from "./WrapperStep.js"

const xargsGrammar = OptionGrammar.make("0a:E:e::i::I:l::L:n:prs:txP:d:o", {
  ...WrapperStep.gnu,
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

export const xargs: WrapperStep.Handler = (words) => {
  const parsed = OptionGrammar.parse(xargsGrammar, words, 1)
  if (parsed.bad !== undefined) return WrapperStep.unsure("xargs", parsed.bad, words)
  if (OptionGrammar.has(parsed, "help", "version")) return WrapperStep.nothing
  const command = parsed.operands.length === 0 ? ["echo"] : parsed.operands
  const step = WrapperStep.step([{ _tag: "Words", words: command }], false, ["xargs appends arguments read from input"])
  return shellTakesInput(command, replaceString(parsed)) ? { ...step, stdin: true } : step
}

// `-I R` (and `-i`, `{}` unless given) puts input where R stands in the command's words.
const replaceString = (parsed: OptionGrammar.Parsed): string | undefined => {
  for (const option of parsed.given) {
    if (option.name === "I") return option.value
    if (option.name === "i" || option.name === "replace") {
      return option.value === undefined || option.value === ""
        ? "{}"
        : option.value
    }
  }
  return undefined
}

/**
 * Whether the input xargs reads becomes a shell's script: `xargs sh -c`,
 * whose command string is the first word read, or `xargs -I{} sh -c '{}'`,
 * whose script holds it. What the line feeds xargs is then read as a script.
 */
const shellTakesInput = (command: ReadonlyArray<string>, replace: string | undefined): boolean => {
  if (!ShellWrappers.shells.has(InterpreterCode.programName(command))) return false
  if (replace !== undefined && command.slice(1).some((word) => word.includes(replace))) return true
  const c = command.findIndex((word, i) => i > 0 && /^-[A-Za-z]*c[A-Za-z]*$/.test(word))
  return c > 0 && command.slice(c + 1).every((word) => word.startsWith("-"))
}

const findRuns: ReadonlyArray<string> = ["-exec", "-execdir", "-ok", "-okdir"]
const findWrites: ReadonlyArray<string> = ["-fprint", "-fprint0", "-fprintf", "-fls"]

export const find: WrapperStep.Handler = (words) => {
  const inner: Array<WrapperStep.Inner> = []
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
  return WrapperStep.step(inner, inner.length === 0, [...doubts])
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

export const watch: WrapperStep.Handler = (words) => {
  const parsed = OptionGrammar.parse(watchGrammar, words, 1)
  if (parsed.bad !== undefined) return WrapperStep.unsure("watch", parsed.bad, words)
  if (OptionGrammar.has(parsed, "h", "v") || parsed.operands.length === 0) return WrapperStep.nothing
  // Without -x watch joins its words with spaces and hands them to `sh -c`.
  return OptionGrammar.has(parsed, "x")
    ? WrapperStep.runsWords(parsed.operands)
    : WrapperStep.runsScript(parsed.operands.join(" "))
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

export const script: WrapperStep.Handler = (words) => {
  const parsed = OptionGrammar.parse(scriptGrammar, words, 1)
  if (parsed.bad !== undefined) return WrapperStep.unsure("script", parsed.bad, words)
  if (OptionGrammar.has(parsed, "h", "V")) return WrapperStep.nothing
  const command = OptionGrammar.lastValue(parsed, "c")
  return command === undefined ? WrapperStep.stdinShell : WrapperStep.runsScript(command)
}

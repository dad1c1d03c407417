/**
 * A shell command line as permission rules see it, read with a real bash
 * grammar (tree-sitter-bash, run as WebAssembly) instead of a hand-written
 * scanner.
 *
 * Two questions are asked of a line, and they get different answers on
 * purpose:
 *
 * - **May an allow rule decide it?** Only when the line is provably simple:
 *   plain commands of literal words (quoted literals are fine) joined by
 *   `&&`, `||`, `;`, `|` or newlines. Anything else (an expansion or
 *   substitution, a redirection, a here-document, arithmetic, ANSI-C
 *   quoting, a glob, a comment, a control character such as CR, a
 *   backslash-newline, a parse error) is not, and neither is a command a
 *   wrapper runs in a way its words do not show (`Wrappers`). This is the
 *   check Codex makes on its tree-sitter parse before calling a command
 *   known-safe. Where the grammar and bash could read the same bytes
 *   differently (bash takes CR as part of a word, tree-sitter as a blank),
 *   the line is refused rather than guessed at.
 * - **Which commands could it run?** Every reading, for deny and ask rules:
 *   every command in the tree (inside substitutions, subshells, functions,
 *   conditions), words evaluated as far as the line itself tells
 *   (ANSI-C strings decoded, `${IFS}` splitting, brace expansion, variables
 *   the line assigns, `${X:-default}`), each wrapper unwrapped
 *   (`sudo`, `env -S`, `bash -c`, `eval`, `find -exec`…), scripts a shell
 *   reads from a here-document or here-string, and the line read again as
 *   bash would where the grammar differs (CR as a word character, joined
 *   backslash-newlines). A region the grammar cannot parse is read
 *   lexically. A deny rule matching any reading denies.
 *
 * The grammar is compiled once per process (about 40 ms). A short-lived
 * process should run node with `--liftoff-only` (or call
 * `v8.setFlagsFromString("--liftoff-only")` before the first analysis): V8
 * otherwise compiles the grammar again in the background, and the process
 * waits about 1.3 s for that at exit.
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createRequire } from "node:module"
import type * as TreeSitter from "web-tree-sitter"
import * as Wrappers from "./Wrappers.js"

/**
 * One plain command of a simple line.
 *
 * @since 0.3.0
 * @category models
 */
export interface Command {
  /** The words after quote removal. */
  readonly words: ReadonlyArray<string>
  /** The command as written in the line (redirections and known-safe variable assignments included). */
  readonly source: string
  /** Files its redirections write (`> out.txt`, `2>> log`), as written; `/dev/null` included. */
  readonly writes: ReadonlyArray<string>
  /** Files its redirections read (`< in.txt`), as written. */
  readonly reads: ReadonlyArray<string>
  /** A word holds an unquoted glob (`*.ts`): only commands whose every option only reads may take one. */
  readonly globs: boolean
  /** The words, quoted again where needed: what a rule naming exactly this command holds. */
  readonly text: string
  /** Why no allow rule may decide it although its words are literal (a wrapper option, a builtin that evaluates code). */
  readonly doubts: ReadonlyArray<string>
  /**
   * The commands an allow rule must cover for this one to run: the command
   * itself and each command its wrappers run (outermost first), with the
   * wrappers that only change how a command runs (`timeout`, `nice`…) left
   * out. Scripts a wrapper runs (`bash -c 'ls'`) are analysed as lines of
   * their own, in `scripts`.
   */
  readonly covers: ReadonlyArray<ReadonlyArray<string>>
  /** Command lines the command runs through a shell (`watch ls`, `bash -c …`), analysed. */
  readonly scripts: ReadonlyArray<Analysis>
}

/**
 * @since 0.3.0
 * @category models
 */
export interface Analysis {
  readonly source: string
  /** True when the line is provably simple (see the module header). */
  readonly simple: boolean
  /** The plain commands, in order, when the line is simple; empty otherwise. */
  readonly commands: ReadonlyArray<Command>
  /** Why the line is not simple. The doubts of each command are its own (see {@link Command}). */
  readonly doubts: ReadonlyArray<string>
  /** Every command the line could run, as words, for deny and ask rules. */
  readonly readings: ReadonlyArray<ReadonlyArray<string>>
  /** Every file a redirection in the line could write, as far as the line tells, for path deny rules. */
  readonly writes: ReadonlyArray<string>
  /**
   * Why the readings may not be all the commands the line runs: a command
   * whose name is computed when it runs (`$CMD`, `${x#a}`, `"$@"`, a glob such
   * as `/bin/r[m]`), or a line too large or too nested to follow to the end.
   * Deny and ask rules then apply, since they could match. `undefined` when
   * the readings are complete as far as the line tells.
   */
  readonly open: string | undefined
  /** Command names that are globs (`/bin/r[m]`, `ls*`): the command is any file they match. */
  readonly globNames: ReadonlyArray<string>
}

/**
 * True when allow rules may decide the line: it is simple and no command in
 * it is in doubt.
 *
 * @since 0.3.0
 * @category predicates
 */
export const isCertain = (analysis: Analysis): boolean =>
  analysis.simple && analysis.commands.length > 0 && analysis.doubts.length === 0 &&
  analysis.commands.every((command) => command.doubts.length === 0 && command.scripts.every(isCertain))

/**
 * The grammar could not be loaded (a broken install: its WebAssembly files
 * ship inside the npm packages).
 *
 * @since 0.3.0
 * @category errors
 */
export class ParserUnavailable extends Data.TaggedError("ParserUnavailable")<{ readonly reason: string }> {
  override get message() {
    return `The bash grammar could not be loaded: ${this.reason}`
  }
}

/**
 * @since 0.3.0
 * @category models
 */
export interface Service {
  readonly analyse: (source: string) => Analysis
}

/**
 * @since 0.3.0
 * @category tags
 */
export class CommandLine extends Context.Tag("@tool-runtime/permissions/CommandLine")<CommandLine, Service>() {}

// ---------------------------------------------------------------------------
// quoting
// ---------------------------------------------------------------------------

const plainWord = /^[A-Za-z0-9_\-+=.,:/@%^]+$/
const escapedWord = /^(?:[A-Za-z0-9_\-+=.,:/@%^]|\\[\x21-\x7e])+$/

/**
 * Quotes a word so that bash reads it back unchanged.
 *
 * @since 0.3.0
 * @category formatting
 */
export const quote = (word: string): string =>
  plainWord.test(word) && !word.startsWith("=") ? word : `'${word.replace(/'/g, "'\\''")}'`

/**
 * @since 0.3.0
 * @category formatting
 */
export const print = (words: ReadonlyArray<string>): string => words.map(quote).join(" ")

// ---------------------------------------------------------------------------
// loading the grammar
// ---------------------------------------------------------------------------

let loading: Promise<TreeSitter.Parser> | undefined

const loadParser = (): Promise<TreeSitter.Parser> => {
  // One grammar per process: compiling the WebAssembly is the expensive part,
  // and parsing is synchronous and reentrant-free, so one parser serves all.
  loading ??= (async () => {
    const { Language, Parser } = await import("web-tree-sitter")
    await Parser.init()
    const require = createRequire(import.meta.url)
    const language = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"))
    const parser = new Parser()
    parser.setLanguage(language)
    return parser
  })()
  loading.catch(() => {
    loading = undefined
  })
  return loading
}

/**
 * Loads the grammar (once per process) and returns the analyser.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make: Effect.Effect<Service, ParserUnavailable> = Effect.map(
  Effect.tryPromise({
    try: loadParser,
    catch: (cause) => new ParserUnavailable({ reason: cause instanceof Error ? cause.message : String(cause) })
  }),
  (parser) => ({
    analyse: (source: string) => {
      // Analysis is synchronous, so one budget per call can live here.
      budget = { parses: maxParses, chars: maxChars, open: undefined }
      const analysis = analyseWith(parser, source, 0)
      return budget.open === undefined ? analysis : { ...analysis, open: analysis.open ?? budget.open }
    }
  })
)

/** Scripts within scripts are parsed at most this many times per line: nested `eval` and `$(…)` must stay linear. */
const maxParses = 48
/** …and at most this many characters in all: each nested `eval` re-reads the rest of the line. */
const maxChars = 128 * 1024
let budget: { parses: number; chars: number; open: string | undefined } = {
  parses: maxParses,
  chars: maxChars,
  open: undefined
}

/**
 * @since 0.3.0
 * @category layers
 */
export const layer: Layer.Layer<CommandLine, ParserUnavailable> = Layer.effect(CommandLine, make)

// ---------------------------------------------------------------------------
// analysis
// ---------------------------------------------------------------------------

/** Lines longer than this are not parsed as a whole: they are read lexically and never simple. */
const maxSource = 64 * 1024
/** Longer lines are analysed for deny rules but never simple: no person reads them whole before approving. */
const maxSimple = 10_000
/** Scripts within scripts (`bash -c "eval '…'"`) are followed this deep. */
const maxDepth = 6
const maxReadings = 2_000

const analyseWith = (parser: TreeSitter.Parser, source: string, depth: number): Analysis => {
  const readings = new Readings()
  const doubts: Array<string> = []
  const unsafe = sourceDoubt(source)
  if (unsafe !== undefined) doubts.push(unsafe)
  budget.chars -= source.length
  const exhausted = budget.parses-- <= 0 || (depth > 0 && budget.chars < 0)
  if (source.length > maxSource || depth > maxDepth || exhausted) {
    const why = depth > maxDepth || exhausted ? "it nests scripts too deeply to follow" : "it is too long to analyse"
    lexicalReadings(source, readings)
    budget.open ??= why
    return {
      source,
      simple: false,
      commands: [],
      doubts: [why],
      readings: readings.all,
      writes: readings.writes,
      open: why,
      globNames: readings.globs
    }
  }
  let commands: ReadonlyArray<Command> = []
  let simple = false
  const tree = parser.parse(source)
  if (tree === null) {
    lexicalReadings(source, readings)
    return {
      source,
      simple: false,
      commands: [],
      doubts: ["it could not be parsed"],
      readings: readings.all,
      writes: readings.writes,
      open: "it could not be parsed",
      globNames: readings.globs
    }
  }
  try {
    const root = tree.rootNode
    collectReadings(parser, root, readings, depth)
    if (root.hasError) doubts.push("it does not parse as bash")
    else if (unsafe === undefined) {
      const plain = plainCommands(root, source)
      if (typeof plain === "string") doubts.push(plain)
      else {
        simple = true
        commands = plain.map((command) => commandOf(parser, command, depth))
        if (source.length > maxSimple) doubts.push("it is longer than 10,000 characters")
      }
    }
  } finally {
    tree.delete()
  }
  // Read again as bash would where the grammar differs: CR is a word
  // character to bash and a blank to the grammar; bash joins
  // backslash-newlines before it reads a word.
  for (const variant of bashVariants(source)) {
    const again = parser.parse(variant)
    if (again === null) continue
    try {
      collectReadings(parser, again.rootNode, readings, depth)
    } finally {
      again.delete()
    }
  }
  return {
    source,
    simple,
    commands,
    doubts: dedupe(doubts),
    readings: readings.all,
    writes: readings.writes,
    open: readings.open,
    globNames: readings.globs
  }
}

const dedupe = (items: ReadonlyArray<string>) => [...new Set(items)]

/** Bytes the grammar and bash may read differently, or that hide what runs from the person reading the line. */
const sourceDoubt = (source: string): string | undefined => {
  if (/\r/.test(source)) return "it holds a carriage return, which bash reads as part of a word"
  if (/\\\n/.test(source)) return "it holds a backslash-newline, which bash joins before reading words"
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(source)) return "it holds a control character"
  if (/[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/.test(source)) {
    return "it holds an invisible or bidirectional formatting character"
  }
  return undefined
}

const bashVariants = (source: string): ReadonlyArray<string> => {
  const variants = new Set<string>()
  if (source.includes("\r")) variants.add(source.replace(/\r/g, "\u0001"))
  if (source.includes("\\\n")) variants.add(source.replace(/\\\n/g, ""))
  if (source.includes("\r") && source.includes("\\\n")) {
    variants.add(source.replace(/\\\n/g, "").replace(/\r/g, "\u0001"))
  }
  variants.delete(source)
  return [...variants]
}

// ---------------------------------------------------------------------------
// simple lines
// ---------------------------------------------------------------------------

const separators = new Set([";", "&&", "||", "|", "\n"])

/** Words bash reads as syntax where a command name stands; unquoted, they are never a plain command. */
const reserved = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "case",
  "esac",
  "for",
  "select",
  "while",
  "until",
  "do",
  "done",
  "in",
  "function",
  "coproc",
  "{",
  "}",
  "!",
  "[[",
  "]]"
])

interface Plain {
  readonly words: ReadonlyArray<string>
  readonly source: string
  readonly writes: ReadonlyArray<string>
  readonly reads: ReadonlyArray<string>
  readonly globs: boolean
}

/** Every plain command, or why the line is not simple. */
const plainCommands = (root: TreeSitter.Node, source: string): ReadonlyArray<Plain> | string => {
  const out: Array<Plain> = []
  const problem = statements(root, out)
  if (problem !== undefined) return problem
  // Everything between the leaves the walk accepted must be blank: nothing
  // the grammar set aside (an extra, a skipped byte) may hold a command.
  return coverageProblem(root, source) ?? out
}

const statements = (root: TreeSitter.Node, out: Array<Plain>): string | undefined => {
  // An explicit stack, children pushed in reverse: `a && b && …` nests one
  // list per operator, and a long line must not exhaust the call stack.
  const stack: Array<TreeSitter.Node> = []
  const pushChildren = (node: TreeSitter.Node) => {
    const children = node.children
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!)
  }
  pushChildren(root)
  while (stack.length > 0) {
    const child = stack.pop()!
    switch (child.type) {
      case "command": {
        const plain = plainCommand(child, [])
        if (typeof plain === "string") return plain
        out.push(plain)
        break
      }
      case "redirected_statement": {
        const body = child.childForFieldName("body") ?? child.namedChildren[0]
        if (body?.type !== "command") return describeConstruct(child)
        const redirects = child.namedChildren.filter((c) => c.id !== body.id)
        const plain = plainCommand(body, redirects, child.text)
        if (typeof plain === "string") return plain
        out.push(plain)
        break
      }
      case "list":
      case "pipeline":
        pushChildren(child)
        break
      default:
        if (!child.isNamed && separators.has(child.type)) break
        return describeConstruct(child)
    }
  }
  return undefined
}

const describeConstruct = (node: TreeSitter.Node): string => {
  switch (node.type) {
    case "&":
      return "it runs a command in the background"
    case "|&":
      return "it pipes standard error"
    case "comment":
      return "it holds a comment"
    case "redirected_statement":
    case "file_redirect":
    case "heredoc_redirect":
    case "herestring_redirect":
      return "it redirects input or output"
    case "variable_assignment":
    case "declaration_command":
      return "it assigns variables"
    case "subshell":
    case "compound_statement":
      return "it groups commands"
    case "function_definition":
      return "it defines a function"
    case "negated_command":
      return "it negates a command"
    default:
      return `it uses shell syntax (${node.type.replace(/_/g, " ")}) that is not a plain command`
  }
}

/**
 * Variables that only change a program's language, colours or mode, never
 * what runs or where it looks for code (`PATH`, `LD_PRELOAD`, `NODE_OPTIONS`
 * and the like are not here): a leading assignment of one of them keeps a
 * command plain, as the leading agents document it.
 */
const safeVariables = new Set([
  "NODE_ENV",
  "RAILS_ENV",
  "RACK_ENV",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "LC_COLLATE",
  "LC_NUMERIC",
  "LC_TIME",
  "NO_COLOR",
  "FORCE_COLOR",
  "CLICOLOR",
  "CI",
  "TZ",
  "TERM",
  "COLUMNS",
  "PYTHONUNBUFFERED",
  "PYTHONDONTWRITEBYTECODE",
  "RUST_BACKTRACE"
])

const globWord = /^[A-Za-z0-9_\-+=.,:/@%^*?]+$/

const plainCommand = (
  node: TreeSitter.Node,
  redirects: ReadonlyArray<TreeSitter.Node>,
  text: string = node.text
): Plain | string => {
  const words: Array<string> = []
  let globs = false
  for (const child of node.children) {
    if (child.type === "variable_assignment" && words.length === 0) {
      const name = child.childForFieldName("name")?.text ?? ""
      const value = child.childForFieldName("value")
      if (!safeVariables.has(name) || (value !== null && literal(value) === undefined)) return "it assigns variables"
      continue
    }
    const target = child.type === "command_name" ? child.firstChild : child
    if (target === null || (child.type === "command_name" && child.childCount !== 1)) {
      return "its command name is not a plain word"
    }
    if (child.type === "command_name" && reserved.has(target.text)) return "it uses a reserved word of the shell"
    let value = literal(target)
    if (value === undefined && target.type === "word" && words.length > 0 && globWord.test(target.text)) {
      value = target.text
      globs = true
    }
    if (value === undefined) return wordProblem(target)
    words.push(value)
  }
  if (words.length === 0) return "it names no command"
  // What a rule is matched against starts at the command's name: known-safe assignments are not part of it.
  const name = node.children.find((c) => c.type === "command_name")
  const from = name === undefined ? 0 : Math.max(0, name.startIndex - node.startIndex)
  const writes: Array<string> = []
  const reads: Array<string> = []
  for (const redirect of redirects) {
    if (redirect.type !== "file_redirect") return describeConstruct(redirect)
    const operator = redirect.children.find((c) => !c.isNamed)?.type
    const destination = redirect.childForFieldName("destination") ?? redirect.namedChildren.at(-1)
    if (destination === undefined || destination === null || operator === undefined) {
      return "it redirects input or output"
    }
    // `2>&1`: one stream joins another; nothing is opened.
    if ((operator === ">&" || operator === "<&") && /^[0-9]$/.test(destination.text)) continue
    const target = literal(destination)
    if (target === undefined) return "it redirects to a file whose name bash expands"
    if (operator === "<") reads.push(target)
    else if ([">", ">>", "&>", "&>>", ">|"].includes(operator)) writes.push(target)
    else return "it redirects input or output"
  }
  return { words, source: text.slice(from), writes, reads, globs }
}

const wordProblem = (node: TreeSitter.Node): string => {
  switch (node.type) {
    case "simple_expansion":
    case "expansion":
      return "it expands a variable"
    case "command_substitution":
    case "process_substitution":
      return "it substitutes the output of a command"
    case "arithmetic_expansion":
      return "it evaluates arithmetic"
    case "ansi_c_string":
      return "it uses ANSI-C quoting"
    case "variable_assignment":
      return "it assigns variables"
    case "file_redirect":
    case "herestring_redirect":
    case "heredoc_redirect":
      return "it redirects input or output"
    case "word":
    case "concatenation":
      return "a word holds characters bash expands (globs, ~, braces, backslashes, #)"
    case "string":
      return "a double-quoted string expands or escapes something"
    default:
      return describeConstruct(node)
  }
}

/** The value of a word that bash takes literally, or `undefined`. */
const literal = (node: TreeSitter.Node): string | undefined => {
  switch (node.type) {
    case "word":
    case "number":
      // A backslash outside quotes only makes the next character literal.
      return escapedWord.test(node.text) ? node.text.replace(/\\(.)/g, "$1") : undefined
    case "raw_string": {
      const text = node.text
      return text.length >= 2 && text.startsWith("'") && text.endsWith("'") && !text.slice(1, -1).includes("'")
        ? text.slice(1, -1)
        : undefined
    }
    case "string": {
      let value = ""
      for (const child of node.children) {
        if (child.type === "\"") continue
        if (child.type !== "string_content") return undefined
        const text = child.text
        // Inside double quotes a backslash escapes only $ ` " \ and newline;
        // an unescaped $ or ` would expand.
        if (/(?:^|[^\\])(?:\\\\)*[$`]/.test(text)) return undefined
        value += text.replace(/\\([$`"\\])/g, "$1")
      }
      const text = node.text
      return text.startsWith("\"") && text.endsWith("\"") ? value : undefined
    }
    case "concatenation": {
      let value = ""
      for (const child of node.children) {
        const part = literal(child)
        if (part === undefined) return undefined
        value += part
      }
      return value
    }
    default:
      return undefined
  }
}

const leafTypes = new Set(["word", "number", "raw_string", "string"])

const coverageProblem = (root: TreeSitter.Node, source: string): string | undefined => {
  let at = 0
  const stack: Array<TreeSitter.Node> = [root]
  const leaves: Array<TreeSitter.Node> = []
  while (stack.length > 0) {
    const node = stack.pop()!
    if (leafTypes.has(node.type) || node.childCount === 0) {
      leaves.push(node)
      continue
    }
    const children = node.children
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!)
  }
  for (const leaf of leaves) {
    if (leaf.startIndex < at || !/^[ \t\n]*$/.test(source.slice(at, leaf.startIndex))) {
      return "it holds text the grammar set aside"
    }
    if (source.slice(leaf.startIndex, leaf.endIndex) !== leaf.text) return "it holds text the grammar set aside"
    at = leaf.endIndex
  }
  return /^[ \t\n]*$/.test(source.slice(at)) ? undefined : "it holds text the grammar set aside"
}

/** Wrappers that change how a command runs, not what it is: an allow rule for the command covers them. */
const transparent = new Set(["timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin"])

/**
 * Commands that start another one in a way a prefix rule for them should not
 * cover (documented: `watch`, `setsid`, `ionice`, `flock` cannot be approved
 * by a prefix rule): `Bash(watch:*)` does not allow `watch rm -rf x`.
 */
const launchers = new Set(["watch", "setsid", "ionice", "flock"])

/** The word that stands for what a bare `xargs` appends: any prefix rule covers it, no exact rule does. */
const fromInput = "<words read from input>"

/** Words that only set up how the next command runs, stripped before rules look at it. */
const preliminary = (words: ReadonlyArray<string>): ReadonlyArray<string> => {
  // zsh's `noglob`, and a bare `xargs` with no option (it runs its command on the words it reads),
  // when that command only reads whatever words it gets: `xargs grep x`, not `xargs find` or `xargs rm`.
  if (words[0] === "noglob" && words.length > 1) return preliminary(words.slice(1))
  if (words[0] === "xargs" && words.length > 1 && !words[1]!.startsWith("-") && readsOnly.has(words[1]!)) {
    return preliminary(words.slice(1))
  }
  return words
}

/** Commands whose every option only reads, whatever words follow (see `CommandRisk.takesGlobs`). */
const readsOnly = new Set(["ls", "cat", "head", "tail", "wc", "grep", "stat", "du", "diff", "echo", "file"])

const commandOf = (parser: TreeSitter.Parser, plain: Plain, depth: number): Command => {
  const words = plain.words
  const stripped = preliminary(words)
  const unwrapped = Wrappers.unwrap(stripped)
  const doubts = [...unwrapped.doubts]
  // A bare xargs appends the words it reads: an exact rule for the command must not cover that.
  const appended = words.includes("xargs") && !stripped.includes("xargs")
    ? (cover: ReadonlyArray<string>) => [...cover, fromInput]
    : (cover: ReadonlyArray<string>) => cover
  const covers: Array<ReadonlyArray<string>> = []
  const scripts: Array<Analysis> = []
  const levels = unwrapped.readings.filter((reading) => reading._tag === "Words")
  // GNU time writes its report to a file with -o: more than a transparent wrapper.
  if (
    levels.some((reading) =>
      reading.words[0] === "time" && reading.words.some((w) => /^(?:-o|--output|-[a-z]*o.*|--output=.*)$/.test(w))
    )
  ) {
    doubts.push("time -o writes its report to a file")
  }
  const launcher = levels.find((reading) => launchers.has(reading.words[0] ?? ""))
  if (launcher !== undefined) {
    doubts.push(`${launcher.words[0]} runs another command: only a rule naming the whole command allows it`)
  }
  levels.forEach((reading, i) => {
    const name = reading.words[0]
    // `timeout 5 npm test` needs a rule for `npm test`, not for `timeout`.
    if (name !== undefined && transparent.has(name) && i < levels.length - 1) return
    covers.push(appended(reading.words))
  })
  for (const reading of unwrapped.readings) {
    if (reading._tag === "Script") scripts.push(analyseWith(parser, reading.script, depth + 1))
  }
  if (unwrapped.runs === undefined && doubts.length === 0 && scripts.length === 0) {
    doubts.push("a wrapper's arguments cannot be read")
  }
  if (unwrapped.readsStdinScript) doubts.push("it starts a shell that reads commands from its input")
  return {
    words,
    text: print(words),
    source: plain.source,
    writes: plain.writes,
    reads: plain.reads,
    globs: plain.globs,
    doubts: dedupe(doubts),
    covers,
    scripts
  }
}

// ---------------------------------------------------------------------------
// readings
// ---------------------------------------------------------------------------

class Readings {
  private readonly seen = new Set<string>()
  readonly all: Array<ReadonlyArray<string>> = []
  readonly writes: Array<string> = []
  /** Command names that are globs (`/bin/r[m]`): bash runs whatever file they match. */
  readonly globs: Array<string> = []
  open: string | undefined = undefined
  get full() {
    return this.all.length >= maxReadings
  }
  add(words: ReadonlyArray<string>) {
    if (words.length === 0) return
    // A name computed when the command runs could be any command.
    const name = words[0]!
    if (/[$`]/.test(name)) this.open ??= "its command name is computed when it runs"
    else if (/[*?[]/.test(name) && name !== "[" && name !== "[[" && this.globs.length < 64) this.globs.push(name)
    if (this.all.length >= maxReadings) {
      this.open ??= "it runs more commands than the engine follows"
      return
    }
    const key = words.join("\u0000")
    if (this.seen.has(key)) return
    this.seen.add(key)
    this.all.push(words)
  }
}

type Env = Map<string, string>

const redirectTypes = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"])

const collectReadings = (
  parser: TreeSitter.Parser,
  root: TreeSitter.Node,
  readings: Readings,
  depth: number
): void => {
  const env: Env = new Map()
  const stack: Array<TreeSitter.Node> = [root]
  const depths: Array<number> = [0]
  while (stack.length > 0 && !readings.full) {
    const node = stack.pop()!
    const level = depths.pop()!
    // Beyond this nesting the rest is read lexically, once: deep trees must not cost quadratic time.
    if (level > maxNesting) {
      lexicalReadings(node.text, readings)
      readings.open ??= "it nests too deeply to follow"
      continue
    }
    switch (node.type) {
      case "ERROR":
        lexicalReadings(node.text, readings)
        break
      case "variable_assignment": {
        const name = node.childForFieldName("name")?.text
        const value = node.childForFieldName("value")
        if (name !== undefined) env.set(name, value === null ? "" : fieldsOf(value, env).join(" ").slice(0, maxValue))
        // A value may be evaluated later as arithmetic (`$((x))`) or a prompt (`${x@P}`).
        if (value !== null) substitutionReadings(parser, value.text, readings, depth)
        break
      }
      case "command":
        commandReadings(parser, node, env, readings, depth)
        break
      case "pipeline":
        pipedScripts(parser, node, env, readings, depth)
        break
      case "declaration_command":
        // `declare -i x='a[$(cmd)]'` and `declare 'a[$(cmd)]=1'` evaluate subscripts.
        substitutionReadings(parser, node.text, readings, depth)
        break
      case "test_command":
        // `[[ a -eq 'a[$(cmd)]' ]]` evaluates its operands as arithmetic, subscripts included.
        substitutionReadings(parser, node.text.replace(/^\[\[|\]\]$/g, ""), readings, depth)
        break
      case "heredoc_redirect": {
        // `cat <<EOF | sh`: the grammar hangs the pipeline on the redirection; a shell in it reads the body.
        const piped = node.children.find((c) => c.type === "pipeline")
        const body = node.children.find((c) => c.type === "heredoc_body")
        if (piped !== undefined && body !== undefined) {
          const reads = piped.namedChildren.some((stage) => {
            const words = commandWords(stage, env)
            return words !== undefined && Wrappers.unwrap(preliminary(words)).readsStdinScript
          })
          if (reads) scriptReadings(parser, body.text, readings, depth)
        }
        break
      }
      case "heredoc_body": {
        // A here-document expands its substitutions unless its delimiter is
        // quoted; the grammar leaves some of them as text.
        const start = node.parent?.children.find((c) => c.type === "heredoc_start")?.text ?? ""
        if (!/['"\\]/.test(start)) substitutionReadings(parser, node.text, readings, depth)
        break
      }
      case "file_redirect": {
        const operator = node.children.find((c) => !c.isNamed)?.type ?? ""
        const destination = node.childForFieldName("destination") ?? node.namedChildren.at(-1)
        if (destination !== undefined && destination !== null && /^(?:>|>>|&>|&>>|>\||>&)$/.test(operator)) {
          if (readings.writes.length < maxReadings) readings.writes.push(fieldsOf(destination, env).join(" "))
        }
        break
      }
    }
    const children = node.children
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push(children[i]!)
      depths.push(level + 1)
    }
  }
}

/**
 * `echo 'rm -rf x' | sh`, `printf … | bash`, `cat <<EOF | sh`: what one stage
 * prints, a shell reading its input in the next stage runs.
 */
const pipedScripts = (
  parser: TreeSitter.Parser,
  pipeline: TreeSitter.Node,
  env: Env,
  readings: Readings,
  depth: number
): void => {
  const stages = pipeline.namedChildren
  for (let i = 1; i < stages.length; i++) {
    const reader = commandWords(stages[i]!, env)
    if (reader === undefined || !Wrappers.unwrap(preliminary(reader)).readsStdinScript) continue
    const writer = stages[i - 1]!
    const words = commandWords(writer, env)
    if (words !== undefined && (words[0] === "echo" || words[0] === "printf")) {
      scriptReadings(parser, words.slice(1).filter((w) => !/^-[neE]+$/.test(w)).join(" "), readings, depth)
    }
    const body = writer.type === "redirected_statement"
      ? writer.children.find((c) => c.type === "heredoc_redirect")?.children.find((c) => c.type === "heredoc_body")
      : undefined
    if (body !== undefined) scriptReadings(parser, body.text, readings, depth)
    const herestring = (writer.type === "command" ? writer : writer.namedChildren[0])?.children.find((c) =>
      c.type === "herestring_redirect"
    )
    const value = herestring?.namedChildren.at(-1)
    if (value !== undefined && words?.[0] === "cat") {
      scriptReadings(parser, fieldsOf(value, env).join(" "), readings, depth)
    }
  }
}

/** The words of a stage's command, as far as the line tells. */
const commandWords = (stage: TreeSitter.Node, env: Env): ReadonlyArray<string> | undefined => {
  const command = stage.type === "command" ? stage : stage.namedChildren.find((c) => c.type === "command")
  if (command === undefined) return undefined
  const words: Array<string> = []
  for (const child of command.children) {
    if (child.type === "variable_assignment" || redirectTypes.has(child.type)) continue
    const target = child.type === "command_name" ? child.firstChild : child
    if (target !== null) words.push(...fieldsOf(target, env))
  }
  return words
}

const maxNesting = 200
const maxValue = 4_096

const commandReadings = (
  parser: TreeSitter.Parser,
  node: TreeSitter.Node,
  env: Env,
  readings: Readings,
  depth: number
): void => {
  const words: Array<string> = []
  const stdin: Array<string> = []
  for (const child of node.children) {
    if (child.type === "variable_assignment") continue
    if (child.type === "herestring_redirect") {
      const value = child.namedChildren.at(-1)
      if (value !== undefined) stdin.push(fieldsOf(value, env).join(" "))
      continue
    }
    if (redirectTypes.has(child.type)) continue
    const target = child.type === "command_name" ? child.firstChild : child
    if (target !== null) words.push(...fieldsOf(target, env))
  }
  // A here-document belongs to the statement around the command.
  const parent = node.parent
  if (parent?.type === "redirected_statement") {
    for (const redirect of parent.children) {
      if (redirect.type !== "heredoc_redirect") continue
      const body = redirect.children.find((c) => c.type === "heredoc_body")
      if (body !== undefined) stdin.push(body.text)
    }
  }
  if (words.length === 0) return
  const stripped = preliminary(words)
  if (stripped !== words) readings.add(stripped)
  const unwrapped = Wrappers.unwrap(stripped)
  for (const reading of unwrapped.readings) {
    if (reading._tag === "Words") readings.add(reading.words)
    else scriptReadings(parser, reading.script, readings, depth)
  }
  readings.add(words)
  if (unwrapped.readsStdinScript) { for (const script of stdin) scriptReadings(parser, script, readings, depth) }
  // Builtins that evaluate a name or an arithmetic operand run the substitutions in
  // it (`printf -v 'a[$(cmd)]'`): quoting does not stop them.
  if (evaluating.has(stripped[0] ?? "")) {
    for (const word of stripped.slice(1)) substitutionReadings(parser, word, readings, depth)
  }
  for (const script of laterScripts(stripped)) scriptReadings(parser, script, readings, depth)
}

/**
 * Code a builtin keeps to run later, which a deny rule must see now: a trap's
 * action, an alias's value, `mapfile -C`'s and `complete -C`'s callback, and
 * the program `hash -p` binds to a name.
 */
const laterScripts = (words: ReadonlyArray<string>): ReadonlyArray<string> => {
  const args = words.slice(1)
  switch (words[0]) {
    case "trap": {
      const action = args.find((w) => !/^-[lp]$/.test(w) && w !== "--")
      return action === undefined ? [] : [action]
    }
    case "alias":
      return args.filter((w) => w.includes("=")).map((w) => w.slice(w.indexOf("=") + 1))
    case "mapfile":
    case "readarray":
    case "complete":
    case "compgen": {
      const i = args.findIndex((w) => /^-[A-Za-z]*C/.test(w))
      if (i < 0) return []
      const flag = args[i]!
      return flag.endsWith("C")
        ? (args[i + 1] === undefined ? [] : [args[i + 1]!])
        : [flag.slice(flag.indexOf("C") + 1)]
    }
    case "hash": {
      const i = args.indexOf("-p")
      return i >= 0 && args[i + 1] !== undefined ? [args[i + 1]!] : []
    }
    default:
      return []
  }
}

const evaluating = new Set([
  "printf",
  "test",
  "[",
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "read",
  "let",
  "unset",
  "mapfile",
  "readarray",
  "wait",
  "getopts"
])

/**
 * Commands in the `$(…)` and backquoted parts of a text, read as scripts
 * whatever quotes surround them: in the operand of an evaluating builtin or
 * an unquoted here-document, bash runs them.
 */
const substitutionReadings = (parser: TreeSitter.Parser, text: string, readings: Readings, depth: number) => {
  if (!text.includes("$(") && !text.includes("`")) return
  for (const inner of substitutions(text)) scriptReadings(parser, inner, readings, depth)
}

const substitutions = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const match of text.matchAll(/`([^`]*)`/g)) out.push(match[1]!)
  for (let i = text.indexOf("$("); i >= 0 && out.length < 64; i = text.indexOf("$(", i + 2)) {
    let depth = 1
    let j = i + 2
    for (; j < text.length && depth > 0; j++) {
      if (text[j] === "(") depth++
      else if (text[j] === ")") depth--
    }
    out.push(text.slice(i + 2, depth === 0 ? j - 1 : j))
  }
  return out
}

const scriptReadings = (parser: TreeSitter.Parser, script: string, readings: Readings, depth: number) => {
  const inner = analyseWith(parser, script, depth + 1)
  readings.open ??= inner.open
  readings.globs.push(...inner.globNames.slice(0, 64 - readings.globs.length))
  for (const words of inner.readings) readings.add(words)
  readings.writes.push(...inner.writes.slice(0, maxReadings - readings.writes.length))
}

/**
 * A word's fields, evaluated as far as the line tells: quotes removed,
 * ANSI-C strings decoded, variables the line assigned substituted, `IFS`
 * splitting, brace expansion. What cannot be known stays as written.
 */
const fieldsOf = (node: TreeSitter.Node, env: Env): ReadonlyArray<string> => {
  switch (node.type) {
    case "word": {
      const text = node.text
      return braceExpand(text).map(unescapeUnquoted)
    }
    case "number":
      return [node.text]
    case "raw_string":
      return [node.text.replace(/^'|'$/g, "")]
    case "ansi_c_string":
      return [decodeAnsiC(node.text.replace(/^\$'|'$/g, ""))]
    case "string":
    case "translated_string":
      return [quotedValue(node, env)]
    case "simple_expansion":
    case "expansion":
      return splitFields(expansionValue(node, env))
    case "concatenation": {
      // An unquoted run of words is where brace expansion happens: `{rm,-rf,/}`.
      if (node.children.every((c) => c.type === "word")) return braceExpand(node.text).map(unescapeUnquoted)
      let fields: Array<string> = [""]
      for (const child of node.children) {
        const next = fieldsOf(child, env)
        if (next.length === 0) continue
        fields = [...fields.slice(0, -1), `${fields.at(-1)!}${next[0]!}`, ...next.slice(1)]
      }
      return fields
    }
    default:
      return [node.text]
  }
}

const quotedValue = (node: TreeSitter.Node, env: Env): string => {
  let value = ""
  for (const child of node.children) {
    switch (child.type) {
      case "\"":
      case "$":
        break
      case "string_content":
        value += child.text.replace(/\\([$`"\\])/g, "$1").replace(/\\\n/g, "")
        break
      case "simple_expansion":
      case "expansion":
        value += expansionValue(child, env)
        break
      case "string":
        value += quotedValue(child, env)
        break
      default:
        value += child.text
    }
  }
  return value
}

const expansionValue = (node: TreeSitter.Node, env: Env): string => {
  const name = node.namedChildren.find((c) => c.type === "variable_name" || c.type === "special_variable_name")
  if (name === undefined) return node.text
  if (name.text === "IFS") return " "
  // A changed IFS splits words where the engine cannot follow: the value is unknown.
  if (env.has("IFS")) return node.text
  const known = env.get(name.text)
  const operators = node.children.filter((c) => !c.isNamed && c.type !== "${" && c.type !== "}" && c.type !== "$")
  if (operators.length === 0) return known ?? node.text
  const operator = operators[0]!
  const operand = () =>
    node.namedChildren
      .filter((c) => c.startIndex > operator.startIndex)
      .map((c) => fieldsOf(c, env).join(" "))
      .join("")
  // `${X:-default}`, `${X:=default}`: the value, or the default; with X unknown, the default is one reading.
  if (operators.length === 1 && /^:?[-=]$/.test(operator.type)) return known ?? operand()
  // `${X:+alternative}`: the alternative when X is set.
  if (operators.length === 1 && /^:?\+$/.test(operator.type)) return known === "" ? "" : operand()
  // Anything else (`${x#a}`, `${x,,}`, `${!y}`, `${x/a/b}`, `${x@P}`) transforms the value in ways
  // the engine does not model: unknown, and a command named by it is open.
  return node.text
}

const splitFields = (value: string): ReadonlyArray<string> => {
  if (value.startsWith("$")) return [value]
  const fields = value.split(/[ \t\n]+/)
  return fields
}

const unescapeUnquoted = (text: string): string => text.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1")

const maxBraceFields = 64

/** Bash's brace expansion of an unquoted word (`{a,b}`, nested), bounded. */
const braceExpand = (text: string): ReadonlyArray<string> => {
  // Past this, expansion would only repeat work: such a word is read as written.
  if (text.length > 1_000 || (text.match(/\{/g)?.length ?? 0) > 16) return [text]
  const out: Array<string> = []
  const expand = (word: string) => {
    if (out.length >= maxBraceFields) return
    let depth = 0
    let open = -1
    for (let i = 0; i < word.length; i++) {
      const c = word[i]
      if (c === "\\") {
        i++
        continue
      }
      if (c === "{") {
        if (depth === 0) open = i
        depth++
      } else if (c === "}" && depth > 0) {
        depth--
        if (depth === 0) {
          const inner = word.slice(open + 1, i)
          const alternatives = splitTopLevel(inner)
          if (alternatives.length > 1) {
            for (const alternative of alternatives) expand(word.slice(0, open) + alternative + word.slice(i + 1))
            return
          }
          open = -1
        }
      }
    }
    out.push(word)
  }
  expand(text)
  return out
}

const splitTopLevel = (text: string): ReadonlyArray<string> => {
  const parts: Array<string> = []
  let depth = 0
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === "\\") i++
    else if (c === "{") depth++
    else if (c === "}") depth--
    else if (c === "," && depth === 0) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts
}

const decodeAnsiC = (body: string): string =>
  body.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (_, escape: string) => {
      const c = escape[0]!
      if (c === "x" || c === "u" || c === "U") return String.fromCodePoint(Number.parseInt(escape.slice(1), 16))
      if (/[0-7]/.test(c)) return String.fromCharCode(Number.parseInt(escape, 8) & 0xff)
      if (c === "c") return String.fromCharCode(escape.charCodeAt(1) & 0x1f)
      const simple: Record<string, string> = {
        a: "\u0007",
        b: "\b",
        e: "\u001b",
        E: "\u001b",
        f: "\f",
        n: "\n",
        r: "\r",
        t: "\t",
        v: "\v"
      }
      return simple[c] ?? c
    }
  )

/**
 * A region the grammar could not parse, read lexically: every stretch
 * between operators is a command whose words are split on blanks, with
 * quotes dropped and braces expanded. Crude on purpose: it only ever adds
 * readings for deny rules.
 */
const lexicalReadings = (text: string, readings: Readings): void => {
  for (const segment of text.split(/[;&|()\n\r`{}]|\$\(|<\(|>\(/)) {
    if (readings.full) {
      readings.open ??= "it runs more commands than the engine follows"
      return
    }
    const words = segment.replace(/["']/g, "").split(/[ \t]+/).filter((w) => w !== "")
    if (words.length === 0) continue
    readings.add(words)
    const expanded = braceExpand(words.join(" "))
    if (expanded.length > 1) readings.add(expanded)
    for (const reading of Wrappers.unwrap(words).readings) {
      if (reading._tag === "Words") readings.add(reading.words)
    }
  }
  // Brace groups written as words (`{rm,-rf,/}`) are a command once expanded.
  let groups = 0
  for (const match of text.matchAll(/\{[^{}\s]*,[^{}\s]*\}/g)) {
    if (++groups > 256 || readings.full) break
    readings.add(braceExpand(match[0]))
  }
}

/**
 * A shell command line as permission rules see it, read with a real bash
 * grammar (tree-sitter-bash, run as WebAssembly) instead of a hand-written
 * scanner.
 *
 * Two questions are asked of a line, and they get different answers on
 * purpose:
 *
 * - **May an allow rule decide it?** Only when the line is provably simple
 *   (`SimpleLine`): plain commands of literal words (quoted literals are
 *   fine) joined by `&&`, `||`, `;`, `|` or newlines, or grouped in the
 *   compound forms whose commands are as plain (subshells, `{ }`, `if`,
 *   loops over literal words, literal braces, here-strings and
 *   here-documents, comments). Anything else (an expansion or substitution
 *   the line does not fix, a redirection, arithmetic, ANSI-C quoting, a
 *   glob, a control character such as CR, a backslash-newline, a parse
 *   error) is not, and neither is a command a wrapper runs in a way its
 *   words do not show (`Wrappers`). This is the
 *   check Codex makes on its tree-sitter parse before calling a command
 *   known-safe. Where the grammar and bash could read the same bytes
 *   differently (bash takes CR as part of a word, tree-sitter as a blank),
 *   the line is refused rather than guessed at.
 * - **Which commands could it run?** Every reading, for deny and ask rules
 *   (`CommandReadings`: every command in the tree, words evaluated as far as
 *   the line tells, wrappers unwrapped, what a program the engine does not
 *   know might run, scripts a shell reads), and the line
 *   read again as bash would where the grammar differs (CR as a word
 *   character, joined backslash-newlines). A deny rule matching any reading
 *   denies.
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
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import type * as BashSyntax from "./BashSyntax.js"
import * as CommandReadings from "./CommandReadings.js"
import * as EmbeddedScripts from "./EmbeddedScripts.js"
import type * as LineAnalysis from "./LineAnalysis.js"
import * as SimpleLine from "./SimpleLine.js"
import * as SyntaxSnapshot from "./SyntaxSnapshot.js"
import * as Wrappers from "./Wrappers.js"

/**
 * One plain command of a simple line.
 *
 * @since 0.3.0
 * @category models
 */
export type Command = LineAnalysis.Command

/**
 * What a command line was read as: whether it is simple, its plain
 * commands, and every command any reading could run.
 *
 * @since 0.3.0
 * @category models
 */
export type Analysis = LineAnalysis.Analysis

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

let loading: Promise<SyntaxSnapshot.Grammar> | undefined

/**
 * The grammar is vendored as WebAssembly only (grammar/README.md says which
 * version and how to update it): the tree-sitter-bash package would bring
 * 20 MiB of C sources and native prebuilds, and an install script that
 * compiles a binding never called. It sits one level above both `src/` and
 * `dist/`; a bundle that moved this module elsewhere finds it through the
 * package's own export instead.
 */
const grammarFile = (): string => {
  const beside = fileURLToPath(new URL("../grammar/tree-sitter-bash.wasm", import.meta.url))
  return existsSync(beside)
    ? beside
    : createRequire(import.meta.url).resolve("@tool-runtime/permissions/grammar/tree-sitter-bash.wasm")
}

const loadParser = (): Promise<SyntaxSnapshot.Grammar> => {
  // One grammar per process: compiling the WebAssembly is the expensive part,
  // and parsing is synchronous and reentrant-free, so one parser serves all.
  loading ??= (async () => {
    const { Language, Parser } = await import("web-tree-sitter")
    await Parser.init()
    const language = await Language.load(grammarFile())
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

/**
 * The source with each here-document body the grammar found written as a line break. Where bash ends a
 * body later than the grammar, the text between is still read: more readings, never fewer.
 */
const withoutHeredocBodies = (root: BashSyntax.SyntaxNode, source: string): string => {
  const bodies: Array<readonly [number, number]> = []
  const stack = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === "heredoc_body") bodies.push([node.startIndex, node.endIndex])
    else stack.push(...node.children)
  }
  let text = source
  for (const [start, end] of bodies.sort(([a], [b]) => b - a)) text = `${text.slice(0, start)}\n${text.slice(end)}`
  return text
}

const analyseWith = (parser: SyntaxSnapshot.Grammar, source: string, depth: number): Analysis => {
  // The readings follow the scripts a line runs through this same analysis.
  const analyse = (script: string, inner: number) => analyseWith(parser, script, inner)
  const readings = new CommandReadings.Readings()
  const doubts: Array<string> = []
  const unsafe = sourceDoubt(source)
  if (unsafe !== undefined) doubts.push(unsafe)
  budget.chars -= source.length
  const exhausted = budget.parses-- <= 0 || (depth > 0 && budget.chars < 0)
  if (source.length > maxSource || depth > maxDepth || exhausted) {
    const why = depth > maxDepth || exhausted ? "it nests scripts too deeply to follow" : "it is too long to analyse"
    CommandReadings.lexicalReadings(source, readings)
    budget.open ??= why
    return {
      source,
      simple: false,
      commands: [],
      doubts: [why],
      readings: readings.all,
      guesses: readings.guesses,
      writes: readings.writes,
      open: why,
      globNames: readings.globs
    }
  }
  let commands: ReadonlyArray<Command> = []
  let simple = false
  let splitAgain: string | undefined
  const tree = parser.parse(source)
  if (tree === null) {
    CommandReadings.lexicalReadings(source, readings)
    return {
      source,
      simple: false,
      commands: [],
      doubts: ["it could not be parsed"],
      readings: readings.all,
      guesses: readings.guesses,
      writes: readings.writes,
      open: "it could not be parsed",
      globNames: readings.globs
    }
  }
  try {
    // The walkers below read a copy made in one cursor walk, not the tree's nodes (see SyntaxSnapshot).
    const root = SyntaxSnapshot.rootOf(tree, source)
    CommandReadings.collectReadings(analyse, root, readings, depth)
    const breaks = breaksInCommands(root, source)
    const across = breaks.length > 0
    if (across) {
      doubts.push(acrossLines)
      CommandReadings.lexicalReadings(source, readings)
      // …and read again with each such command ended where bash ends it, quotes kept
      // (the lexical reading splits `'a b'`).
      let ended = source
      for (const at of [...breaks].sort((a, b) => b - a)) ended = `${ended.slice(0, at)};${ended.slice(at)}`
      splitAgain = ended
    }
    if (root.hasError) {
      doubts.push("it does not parse as bash")
      // The grammar's recovery from an error can pair what follows wrongly (a backquote with
      // the wrong one), leaving commands bash runs outside every ERROR node: the whole line is
      // read lexically too, which only adds readings (the line is never simple). Its
      // here-document bodies are text, left out.
      if (!across) CommandReadings.lexicalReadings(withoutHeredocBodies(root, source), readings)
    } else if (unsafe === undefined && !across) {
      const plain = SimpleLine.plainCommands(root, source)
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
  // backslash-newlines before it reads a word; the grammar loses the words
  // after a descriptor closed (`2>&-`); a line that starts with a backslash
  // is a command of its own to bash, not to the grammar.
  for (const variant of splitAgain === undefined ? bashVariants(source) : [...bashVariants(source), splitAgain]) {
    const again = parser.parse(variant)
    if (again === null) continue
    try {
      CommandReadings.collectReadings(analyse, SyntaxSnapshot.rootOf(again, variant), readings, depth)
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
    guesses: readings.guesses,
    writes: readings.writes,
    open: readings.open,
    globNames: readings.globs
  }
}

const dedupe = (items: ReadonlyArray<string>) => [...new Set(items)]

const acrossLines = "the grammar reads words from two lines as one command, where bash ends it at the line break"

/**
 * Where the grammar put words from two lines in one command: after a pipeline of three stages
 * it reads `a | b | c⏎rm -rf / && d` as `c rm -rf /`, where bash runs `rm -rf /`. A line break
 * between two of a command's parts, not escaped by a backslash, is never bash's reading: the
 * offset of each such line break.
 */
const breaksInCommands = (root: BashSyntax.SyntaxNode, source: string): ReadonlyArray<number> => {
  const breaks: Array<number> = []
  const stack = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    const children = node.children
    if (node.type === "command") {
      for (let i = 1; i < children.length; i++) {
        const from = children[i - 1]!.endIndex
        const gap = /(?:^|[^\\])\n/.exec(source.slice(from, children[i]!.startIndex))
        if (gap !== null) breaks.push(from + gap.index + gap[0].length - 1)
      }
    }
    for (const child of children) stack.push(child)
  }
  return breaks
}

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

const closed = /([<>])&-/g
const braced = /(^|[;&|(\n]\s*)\{(?=[^\s}])/g

const bashVariants = (source: string): ReadonlyArray<string> => {
  const variants = new Set<string>()
  // The grammar glues a line that starts with a backslash (`ls\n\\rm x`) to the
  // command before it, as more words; bash runs it as a command of its own. A
  // blank before the backslash keeps the grammar's lines apart too.
  for (const line of new Set([source, source.replace(/\n(?=\\)/g, "\n ")])) {
    variants.add(line)
    if (line.includes("\r")) variants.add(line.replace(/\r/g, "\u0001"))
    if (line.includes("\\\n")) variants.add(line.replace(/\\\n/g, ""))
    if (line.includes("\r") && line.includes("\\\n")) {
      variants.add(line.replace(/\\\n/g, "").replace(/\r/g, "\u0001"))
    }
  }
  // A `{` that starts a command's first word with no blank after it is no group to bash (its `{` is a
  // word of its own): `{r..r}m -rf /` runs `rm`. The grammar opens a group there; behind `command`
  // the word is read as a word, braces expanded.
  variants.add(source.replace(braced, "$1command {"))
  // The grammar takes the word after `>&-` (a descriptor closed) for an error or for its destination,
  // and loses the words after it (`sudo 2>&- rm -rf /`); as a duplication (`2>&0`) it reads them.
  variants.add(source.replace(closed, "$1&0"))
  // The grammar reads every `((` as arithmetic; bash only one whose parentheses close together.
  // `((a); (rm -rf /) )` is two groups in a group to bash, an expression the grammar gives no command.
  variants.add(source.replace(/\(\(/g, (open, at: number) => EmbeddedScripts.arithmeticAt(source, at) ? open : "( ("))
  // Bash pairs backquotes before anything else; the grammar misreads one inside `${…}`.
  if (/\$\{[^}]*`/.test(source)) variants.add(EmbeddedScripts.backquotesAsSubstitutions(source))
  // A rewrite that changed nothing is the line itself, already read.
  variants.delete(source)
  return [...variants]
}

/** Wrappers that change how a command runs, not what it is: an allow rule for the command covers them. */
const transparent = new Set(["timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin"])

/**
 * Commands that start another one in a way a prefix rule for them should not
 * cover (documented: `watch`, `setsid`, `ionice`, `flock` cannot be approved
 * by a prefix rule): `Bash(watch:*)` does not allow `watch rm -rf x`.
 */
const launchers = new Set(["watch", "setsid", "ionice", "flock"])

/**
 * The word that stands for what a bare `xargs` appends: any prefix rule
 * covers it, no exact rule does, and no path it names is known to lie
 * inside the workspace.
 *
 * @since 0.4.0
 * @category readings
 */
export const fromInput = "<words read from input>"

const commandOf = (parser: SyntaxSnapshot.Grammar, plain: SimpleLine.Plain, depth: number): Command => {
  const words = plain.words
  const stripped = CommandReadings.preliminary(words)
  const unwrapped = Wrappers.unwrap(stripped)
  const doubts = [...unwrapped.doubts]
  // A bare xargs appends the words it reads: an exact rule for the command must not cover that.
  const appended = words.includes("xargs") && !stripped.includes("xargs")
    ? (cover: ReadonlyArray<string>) => [...cover, fromInput]
    : (cover: ReadonlyArray<string>) => cover
  const covers: Array<ReadonlyArray<string>> = []
  const scripts: Array<Analysis> = []
  // Guesses (what an unknown program might run) are for deny rules: an allow rule names the program.
  const levels = unwrapped.readings.filter((reading): reading is Extract<Wrappers.Reading, { _tag: "Words" }> =>
    reading._tag === "Words" && reading.guess !== true
  )
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
    // `command -p` looks the command up on a default PATH of its own: a different program, possibly.
    const looksElsewhere = name === "command" && (reading.words[1] ?? "").startsWith("-")
    if (name !== undefined && transparent.has(name) && !looksElsewhere && i < levels.length - 1) return
    covers.push(appended(reading.words))
  })
  for (const reading of unwrapped.readings) {
    if (reading._tag === "Script" && reading.guess !== true) {
      scripts.push(analyseWith(parser, reading.script, depth + 1))
    }
  }
  if (unwrapped.runs === undefined && doubts.length === 0 && scripts.length === 0) {
    doubts.push("a wrapper's arguments cannot be read")
  }
  if (unwrapped.readsStdinScript) doubts.push("it starts a shell that reads commands from its input")
  return {
    words,
    text: print(words),
    writes: plain.writes,
    reads: plain.reads,
    globs: plain.globs,
    doubts: dedupe(doubts),
    covers,
    scripts
  }
}

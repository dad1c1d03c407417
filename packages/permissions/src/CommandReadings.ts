/**
 * The readings of a command line: every command it could run, as words, for
 * deny and ask rules.
 *
 * A reading is one way bash could take a command in the line. Allow rules
 * only ever decide provably simple lines (`CommandLine`), but a deny rule must
 * hold against any line, however it is written, so it is matched against
 * every reading and denies if any one matches: every command in the tree
 * (inside substitutions, subshells, functions, conditions), words evaluated
 * as far as the line itself tells (ANSI-C strings decoded, `${IFS}`
 * splitting, brace expansion, variables the line assigns, `${X:-default}`;
 * with and without an assignment that may not be in force, `(X=echo); $X
 * rm`), each wrapper unwrapped (`sudo`, `env -S`, `bash -c`, `eval`,
 * `find -exec`…), scripts a shell reads from a pipe, a here-document or a
 * here-string, and code a builtin keeps to run later (`trap`, `alias`). A
 * region the grammar cannot parse is read lexically. A missing reading lets
 * a denied command through, an extra one only refuses a line more often:
 * the readings err towards more.
 *
 * Scripts within the line are analysed as lines of their own, so this module
 * takes the analysis as a callback ({@link Analyse}) instead of importing
 * `CommandLine`, which builds on it. It is internal to the package (no entry
 * in the index): `LineAnalysis.Analysis` is what other modules see.
 *
 * @since 0.3.0
 */
import type * as LineAnalysis from "./LineAnalysis.js"
import * as Wrappers from "./Wrappers.js"

/**
 * What the engine reads of a node of the bash grammar's tree: the part of
 * web-tree-sitter's `Node` it uses, written out so that this package's
 * declarations do not depend on web-tree-sitter's (whose own need the
 * Emscripten types).
 *
 * @since 0.3.0
 * @category models
 */
export interface SyntaxNode {
  readonly id: number
  readonly type: string
  readonly text: string
  readonly isNamed: boolean
  readonly hasError: boolean
  readonly startIndex: number
  readonly endIndex: number
  readonly childCount: number
  readonly children: ReadonlyArray<SyntaxNode>
  readonly namedChildren: ReadonlyArray<SyntaxNode>
  readonly firstChild: SyntaxNode | null
  readonly parent: SyntaxNode | null
  readonly childForFieldName: (name: string) => SyntaxNode | null
}

/**
 * A parse, which must be deleted: its memory lives in the WebAssembly heap.
 *
 * @since 0.3.0
 * @category models
 */
export interface SyntaxTree {
  readonly rootNode: SyntaxNode
  readonly delete: () => void
}

/**
 * The loaded bash grammar.
 *
 * @since 0.3.0
 * @category models
 */
export interface Grammar {
  readonly parse: (source: string) => SyntaxTree | null
}

/**
 * Analyses a script the line runs, `depth` scripts deep (see
 * `CommandLine.make`): its readings, writes, glob names and `open` join the
 * line's.
 *
 * @since 0.3.0
 * @category models
 */
export type Analyse = (script: string, depth: number) => LineAnalysis.Analysis

const maxReadings = 2_000

/**
 * Strips the words that only set up how the next command runs, before rules
 * look at it. Allow rules (`CommandLine`) strip them too.
 *
 * @since 0.3.0
 * @category readings
 */
export const preliminary = (words: ReadonlyArray<string>): ReadonlyArray<string> => {
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

/**
 * The readings gathered so far for one line, deduplicated and bounded: past
 * the bound the line is `open`, so deny and ask rules still apply.
 *
 * @since 0.3.0
 * @category models
 */
export class Readings {
  private readonly seen = new Set<string>()
  private readonly guessed = new Set<string>()
  readonly all: Array<ReadonlyArray<string>> = []
  readonly writes: Array<string> = []
  /** Command names that are globs (`/bin/r[m]`): bash runs whatever file they match. */
  readonly globs: Array<string> = []
  open: string | undefined = undefined
  get full() {
    return this.all.length >= maxReadings
  }
  /** The readings only a guess reached (what a program the engine does not know might run). */
  get guesses(): ReadonlyArray<ReadonlyArray<string>> {
    return this.guessed.size === 0 ? [] : this.all.filter((words) => this.guessed.has(words.join("\u0000")))
  }
  /** `guess`: only a program the engine does not know might run it (`Wrappers.Reading`). */
  add(words: ReadonlyArray<string>, guess = false) {
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
    if (this.seen.has(key)) {
      if (!guess) this.guessed.delete(key)
      return
    }
    this.seen.add(key)
    if (guess) this.guessed.add(key)
    this.all.push(words)
  }
}

type Env = Map<string, string>

/**
 * The value of a variable the line assigns where that assignment is not in
 * force, and nothing before it set the variable: unset.
 */
const unset = "\u0000unset"

/**
 * Whether an assignment is in force for every later command of the line: a
 * statement of its own at the top (`export` and `readonly` too), or the
 * first of a top-level `&&`/`||` list. One in a subshell, a function, a pipeline, a condition or a loop,
 * behind `&&`/`||`, or before a command (`X=1 cmd`, for that command only)
 * may not be.
 */
const inForce = (node: SyntaxNode): boolean => {
  const parent = node.parent
  if (parent === null) return false
  if (parent.type === "program") return true
  // `export X=1`, `readonly X=1` set X where they stand.
  if (parent.type === "declaration_command") {
    return /^(?:export|readonly)$/.test(parent.firstChild?.text ?? "") && inForce(parent)
  }
  return parent.type === "list" && parent.firstChild?.id === node.id && inForce(parent)
}

/** Builtins that unset a variable or give it another scope: after one, no assignment is sure. */
const unsetting = /(?:^|[^\w-])(?:unset|local|declare|typeset)(?:$|[^\w-])/

const redirectTypes = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"])

/**
 * Adds every reading of a parsed line (or of a region of one) to `readings`.
 *
 * @since 0.3.0
 * @category readings
 */
export const collectReadings = (
  analyse: Analyse,
  root: SyntaxNode,
  readings: Readings,
  depth: number
): void => {
  const env: Env = new Map()
  // The values of the assignments in force for every later command. Where a
  // variable's value in `env` may not be (`(X=echo); $X rm`, `true || X=ls;
  // ${X:-rm}`), each command is read a second time with these (or with the
  // variable unset): bash runs one of the two. (Two assignments to one
  // variable that may each not take effect leave more values than the two
  // readings; rare enough to leave to the OS sandbox.)
  const sure: Env = new Map()
  const noneSure = unsetting.test(root.text)
  const other = (): Env | undefined => {
    let differs = false
    const alternate: Env = new Map()
    for (const [name, value] of env) {
      const known = sure.get(name)
      if (known !== value) differs = true
      if (known !== undefined) alternate.set(name, known)
      else if (name !== "IFS") alternate.set(name, unset)
    }
    return differs ? alternate : undefined
  }
  // Where bash and the grammar may end a here-document at different lines (several on a line,
  // CR, backslash-newline, a delimiter bash transforms), a body may be commands to bash.
  const tangled = /<<[^<]/.test(root.text) &&
    (/\r|\\\n/.test(root.text) || (root.text.match(/<<[^<]/g)?.length ?? 0) > 1 ||
      /<<-?\s*(?:\$'|[^\s'"]*\\)/.test(root.text))
  const stack: Array<SyntaxNode> = [root]
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
        if (name !== undefined) {
          const assigned = value === null ? "" : fieldsOf(value, env).join(" ").slice(0, maxValue)
          env.set(name, assigned)
          // One that may not take effect leaves the value before it as the other reading.
          if (!noneSure && inForce(node)) sure.set(name, assigned)
        }
        // A value may be evaluated later as arithmetic (`$((x))`) or a prompt (`${x@P}`).
        if (value !== null) substitutionReadings(analyse, value.text, readings, depth)
        break
      }
      case "command": {
        commandReadings(analyse, node, env, readings, depth)
        const alternate = other()
        if (alternate !== undefined) commandReadings(analyse, node, alternate, readings, depth)
        break
      }
      case "command_substitution":
        // The grammar reads a backquoted body once; bash removes its escapes first and
        // reads the result again, so `\`` inside is a substitution of its own.
        if (node.text.startsWith("`")) {
          const body = node.text.slice(1, node.text.endsWith("`") && node.text.length > 1 ? -1 : undefined)
          for (const script of backquoteScripts(body)) scriptReadings(analyse, script, readings, depth)
        }
        break
      case "pipeline": {
        pipedScripts(analyse, node, env, readings, depth)
        const alternate = other()
        if (alternate !== undefined) pipedScripts(analyse, node, alternate, readings, depth)
        break
      }
      case "declaration_command":
        // `declare -i x='a[$(cmd)]'` and `declare 'a[$(cmd)]=1'` evaluate subscripts.
        substitutionReadings(analyse, node.text, readings, depth)
        break
      case "test_command":
        // `[[ a -eq 'a[$(cmd)]' ]]` evaluates its operands as arithmetic, subscripts included.
        substitutionReadings(analyse, node.text.replace(/^\[\[|\]\]$/g, ""), readings, depth)
        break
      case "heredoc_redirect": {
        // `cat <<EOF; rm x`: bash ends the delimiter at the operator, the grammar takes `EOF;` whole
        // and the command after it as loose words. The rest of that line is read as bash reads it.
        const start = node.children.find((c) => c.type === "heredoc_start")
        const cut = start === undefined ? -1 : start.text.search(/[;&|<>()]/)
        if (start !== undefined && cut >= 0) {
          const line = node.text.slice(start.startIndex - node.startIndex + cut).split("\n")[0]!
          lexicalReadings(line, readings)
          scriptReadings(analyse, line.replace(/^[;&|]+/, ""), readings, depth)
        }
        // `cat <<EOF | sh`: the grammar hangs the pipeline on the redirection; a shell in it reads the body.
        const piped = node.children.find((c) => c.type === "pipeline")
        const body = node.children.find((c) => c.type === "heredoc_body")
        if (piped !== undefined && body !== undefined) {
          const readers = piped.namedChildren.flatMap((stage) => {
            const words = commandWords(stage, env)
            return words === undefined ? [] : [Wrappers.unwrap(preliminary(words))]
          })
          if (readers.some((reader) => reader.mayReadStdinScript)) {
            scriptReadings(analyse, body.text, readings, depth, !readers.some((reader) => reader.readsStdinScript))
          }
        }
        break
      }
      case "heredoc_body": {
        // A here-document expands its substitutions unless its delimiter is
        // quoted; the grammar leaves some of them as text.
        const start = node.parent?.children.find((c) => c.type === "heredoc_start")?.text ?? ""
        if (!/['"\\]/.test(start)) substitutionReadings(analyse, node.text, readings, depth)
        if (tangled) {
          lexicalReadings(node.text, readings)
          scriptReadings(analyse, node.text, readings, depth)
        }
        break
      }
      case "file_redirect": {
        const operator = node.children.find((c) => !c.isNamed)?.type ?? ""
        const destination = node.childForFieldName("destination") ?? node.namedChildren.at(-1)
        if (destination !== undefined && destination !== null && /^(?:>|>>|&>|&>>|>\||>&)$/.test(operator)) {
          const alternate = other()
          for (const scope of alternate === undefined ? [env] : [env, alternate]) {
            const path = fieldsOf(destination, scope).join(" ")
            if (readings.writes.length < maxReadings && !readings.writes.includes(path)) readings.writes.push(path)
          }
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
  analyse: Analyse,
  pipeline: SyntaxNode,
  env: Env,
  readings: Readings,
  depth: number
): void => {
  const stages = pipeline.namedChildren
  for (let i = 1; i < stages.length; i++) {
    const readerWords = commandWords(stages[i]!, env)
    const reader = readerWords === undefined ? undefined : Wrappers.unwrap(preliminary(readerWords))
    if (reader === undefined || !reader.mayReadStdinScript) continue
    const guess = !reader.readsStdinScript
    const writer = stages[i - 1]!
    const words = commandWords(writer, env)
    if (words !== undefined && (words[0] === "echo" || words[0] === "printf")) {
      scriptReadings(analyse, words.slice(1).filter((w) => !/^-[neE]+$/.test(w)).join(" "), readings, depth, guess)
    }
    const body = writer.type === "redirected_statement"
      ? writer.children.find((c) => c.type === "heredoc_redirect")?.children.find((c) => c.type === "heredoc_body")
      : undefined
    if (body !== undefined) scriptReadings(analyse, body.text, readings, depth, guess)
    const herestring = (writer.type === "command" ? writer : writer.namedChildren[0])?.children.find((c) =>
      c.type === "herestring_redirect"
    )
    const value = herestring?.namedChildren.at(-1)
    if (value !== undefined && words?.[0] === "cat") {
      scriptReadings(analyse, fieldsOf(value, env).join(" "), readings, depth, guess)
    }
  }
}

/** The words of a stage's command, as far as the line tells. */
const commandWords = (stage: SyntaxNode, env: Env): ReadonlyArray<string> | undefined => {
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
  analyse: Analyse,
  node: SyntaxNode,
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
    if (reading._tag === "Words") readings.add(reading.words, reading.guess === true)
    else scriptReadings(analyse, reading.script, readings, depth, reading.guess === true)
  }
  readings.add(words)
  if (unwrapped.mayReadStdinScript) {
    for (const script of stdin) scriptReadings(analyse, script, readings, depth, !unwrapped.readsStdinScript)
  }
  // Builtins that evaluate a name or an arithmetic operand run the substitutions in
  // it (`printf -v 'a[$(cmd)]'`): quoting does not stop them.
  if (evaluating.has(stripped[0] ?? "")) {
    for (const word of stripped.slice(1)) substitutionReadings(analyse, word, readings, depth)
  }
  for (const script of laterScripts(stripped)) scriptReadings(analyse, script, readings, depth)
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
const substitutionReadings = (analyse: Analyse, text: string, readings: Readings, depth: number) => {
  if (!text.includes("$(") && !text.includes("`")) return
  for (const inner of substitutions(text)) scriptReadings(analyse, inner, readings, depth)
}

/**
 * What bash reads again of a backquoted body once its escapes are removed
 * (`\$`, `\``, `\\`; and `\"` when the backquotes are inside double quotes):
 * empty when that changes nothing, since the grammar read the body as it is.
 */
const backquoteScripts = (body: string): ReadonlyArray<string> => {
  if (!body.includes("\\")) return []
  const plain = body.replace(/\\([$`\\])/g, "$1")
  const quoted = body.replace(/\\([$`\\"])/g, "$1")
  return [...new Set([plain, quoted])].filter((script) => script !== body)
}

/**
 * Each backquoted part of a text, read as bash reads one: a backslash before
 * `$`, `` ` `` or `\\` escapes it, so an escaped backquote is inside the part.
 */
const backquoted = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = text.indexOf("`"); i >= 0 && out.length < 64; i = text.indexOf("`", i + 1)) {
    let body = ""
    let j = i + 1
    for (; j < text.length && text[j] !== "`"; j++) {
      if (text[j] === "\\" && j + 1 < text.length) {
        const next = text[++j]!
        body += /[$`\\]/.test(next) ? next : `\\${next}`
      } else body += text[j]
    }
    out.push(body)
    i = j
  }
  return out
}

const substitutions = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  // Pairs of backquotes as they come, and the parts bash reads (escaped backquotes inside):
  // a wrong split only adds a reading.
  for (const match of text.matchAll(/`([^`]*)`/g)) out.push(match[1]!)
  out.push(...backquoted(text))
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

const scriptReadings = (analyse: Analyse, script: string, readings: Readings, depth: number, guess = false) => {
  const inner = analyse(script, depth + 1)
  readings.open ??= inner.open
  readings.globs.push(...inner.globNames.slice(0, 64 - readings.globs.length))
  const guessed = new Set(inner.guesses)
  for (const words of inner.readings) readings.add(words, guess || guessed.has(words))
  readings.writes.push(...inner.writes.slice(0, maxReadings - readings.writes.length))
}

/**
 * A word's fields, evaluated as far as the line tells: quotes removed,
 * ANSI-C strings decoded, variables the line assigned substituted, `IFS`
 * splitting, brace expansion. What cannot be known stays as written.
 */
const fieldsOf = (node: SyntaxNode, env: Env): ReadonlyArray<string> => {
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

const quotedValue = (node: SyntaxNode, env: Env): string => {
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

const expansionValue = (node: SyntaxNode, env: Env): string => {
  const name = node.namedChildren.find((c) => c.type === "variable_name" || c.type === "special_variable_name")
  if (name === undefined) return node.text
  if (name.text === "IFS") return " "
  // A changed IFS splits words where the engine cannot follow: the value is unknown.
  if (env.has("IFS")) return node.text
  const value = env.get(name.text)
  const isUnset = value === unset
  const known = isUnset ? undefined : value
  const operators = node.children.filter((c) => !c.isNamed && c.type !== "${" && c.type !== "}" && c.type !== "$")
  if (operators.length === 0) return isUnset ? "" : known ?? node.text
  const operator = operators[0]!
  const operand = () =>
    node.namedChildren
      .filter((c) => c.startIndex > operator.startIndex)
      .map((c) => fieldsOf(c, env).join(" "))
      .join("")
  // With a colon, an empty value counts as unset: `X=; ${X:-rm}` runs rm.
  const colon = operator.type.startsWith(":")
  // `${X:-default}`, `${X:=default}`: the value, or the default; with X unknown, the default is one reading.
  if (operators.length === 1 && /^:?[-=]$/.test(operator.type)) {
    return known === undefined || (colon && known === "") ? operand() : known
  }
  // `${X:+alternative}`: the alternative when X is set (and, with the colon, not empty).
  if (operators.length === 1 && /^:?\+$/.test(operator.type)) {
    return isUnset || (colon && known === "") ? "" : operand()
  }
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

/**
 * Brace expansion stops at this many fields: a word that reaches it may have more.
 *
 * @since 0.3.0
 * @category readings
 */
export const maxBraceFields = 64

/**
 * Bash's brace expansion of an unquoted word (`{a,b}`, nested), bounded.
 *
 * @since 0.3.0
 * @category readings
 */
export const braceExpand = (text: string): ReadonlyArray<string> => {
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
 * Adds the readings of a region the grammar could not parse, read
 * lexically: every stretch between operators is a command whose words are
 * split on blanks, with quotes dropped and braces expanded. Crude on purpose: it only ever adds
 * readings for deny rules.
 *
 * @since 0.3.0
 * @category readings
 */
export const lexicalReadings = (text: string, readings: Readings): void => {
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
      if (reading._tag === "Words") readings.add(reading.words, reading.guess === true)
    }
  }
  // Brace groups written as words (`{rm,-rf,/}`) are a command once expanded.
  let groups = 0
  for (const match of text.matchAll(/\{[^{}\s]*,[^{}\s]*\}/g)) {
    if (++groups > 256 || readings.full) break
    readings.add(braceExpand(match[0]))
  }
}

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
 * This module walks the tree and keeps the assignments in force; the
 * readings of a command node and a pipeline are `CommandNodeReadings`', the
 * code inside words `EmbeddedScripts`', a word's evaluation `WordFields`',
 * an unparsed region `LexicalReadings`', and the set they all add to
 * `ReadingSet`'s. It re-exports what its users name.
 *
 * @since 0.3.0
 */
import type * as BashSyntax from "./BashSyntax.js"
import * as CommandNodeReadings from "./CommandNodeReadings.js"
import * as EmbeddedScripts from "./EmbeddedScripts.js"
import * as LexicalReadings from "./LexicalReadings.js"
import * as ReadingSet from "./ReadingSet.js"
import * as WordFields from "./WordFields.js"
import * as Wrappers from "./Wrappers.js"

/**
 * The shapes of the bash grammar's parse, and the callback that analyses a
 * script: see `BashSyntax`.
 *
 * @since 0.3.0
 */
export type { Analyse, Grammar, SyntaxNode, SyntaxTree } from "./BashSyntax.js"
/**
 * The words that only set up how the next command runs: see
 * `CommandNodeReadings`.
 *
 * @since 0.3.0
 */
export { preliminary } from "./CommandNodeReadings.js"
/**
 * The words the grammar hangs on a redirection that bash reads as the
 * command's: see `CommandNodeReadings`.
 *
 * @since 0.4.0
 */
export { redirectWords } from "./CommandNodeReadings.js"
/**
 * The readings gathered for one line: see `ReadingSet`.
 *
 * @since 0.3.0
 */
export { Readings } from "./ReadingSet.js"
/**
 * Bash's brace expansion, bounded: see `WordFields`.
 *
 * @since 0.3.0
 */
export { braceExpand, maxBraceFields } from "./WordFields.js"
/**
 * The readings of a region the grammar could not parse: see
 * `LexicalReadings`.
 *
 * @since 0.3.0
 */
export { lexicalReadings } from "./LexicalReadings.js"

/**
 * Whether an assignment is in force for every later command of the line: a
 * statement of its own at the top (`export` and `readonly` too), or the
 * first of a top-level `&&`/`||` list. One in a subshell, a function, a pipeline, a condition or a loop,
 * behind `&&`/`||`, or before a command (`X=1 cmd`, for that command only)
 * may not be.
 */
const inForce = (node: BashSyntax.SyntaxNode): boolean => {
  const parent = node.parent
  if (parent === null) return false
  if (parent.type === "program") return true
  // `export X=1`, `readonly X=1` set X where they stand.
  if (parent.type === "declaration_command") {
    return /^(?:export|readonly)$/.test(parent.firstChild?.text ?? "") && inForce(parent)
  }
  return parent.type === "list" && parent.firstChild?.id === node.id && inForce(parent)
}

/** A variable given a default: `${X:-d}`, `${X-d}`, `${X:=d}`, `${X=d}`. */
const defaulted = /\$\{([A-Za-z_][A-Za-z0-9_]*):?[-=]/g

/** Builtins that unset a variable or give it another scope: after one, no assignment is sure. */
const unsetting = /(?:^|[^\w-])(?:unset|local|declare|typeset)(?:$|[^\w-])/

/**
 * Adds every reading of a parsed line (or of a region of one) to `readings`.
 *
 * @since 0.3.0
 * @category readings
 */
export const collectReadings = (
  analyse: BashSyntax.Analyse,
  root: BashSyntax.SyntaxNode,
  readings: ReadingSet.Readings,
  depth: number
): void => {
  const env: WordFields.Env = new Map()
  // The values of the assignments in force for every later command. Where a
  // variable's value in `env` may not be (`(X=echo); $X rm`, `true || X=ls;
  // ${X:-rm}`), each command is read a second time with these (or with the
  // variable unset): bash runs one of the two. (Two assignments to one
  // variable that may each not take effect leave more values than the two
  // readings; rare enough to leave to the OS sandbox.)
  const sure: WordFields.Env = new Map()
  const noneSure = unsetting.test(root.text)
  const other = (): WordFields.Env | undefined => {
    let differs = false
    const alternate: WordFields.Env = new Map()
    for (const [name, value] of env) {
      const known = sure.get(name)
      if (known !== value) differs = true
      if (known !== undefined) alternate.set(name, known)
      else if (name !== "IFS") alternate.set(name, WordFields.unset)
    }
    return differs ? alternate : undefined
  }
  // The environments a node is read in: the assignments in force, the other
  // reading above, and each of those again with every variable the node gives
  // a default (`${X:-/tmp}`) and the line never assigns taken as set. The
  // default alone is bash's reading only when X is unset; X may come from the
  // caller's environment or an earlier call (`rm -rf ${HOME:-/tmp}` removes
  // the home wherever HOME is set).
  const scopes = (node: BashSyntax.SyntaxNode): ReadonlyArray<WordFields.Env> => {
    const alternate = other()
    const base = alternate === undefined ? [env] : [env, alternate]
    if (!node.text.includes("${")) return base
    const out: Array<WordFields.Env> = [...base]
    for (const scope of base) {
      let set: WordFields.Env | undefined
      for (const [, name] of node.text.matchAll(defaulted)) {
        if (name === undefined || name === "IFS" || scope.has(name)) continue
        set ??= new Map(scope)
        set.set(name, `$${name}`)
      }
      if (set !== undefined) out.push(set)
    }
    return out
  }
  // Where bash and the grammar may end a here-document at different lines (several on a line,
  // CR, backslash-newline, a delimiter bash transforms: `<<E"OF"` ends at `EOF`; a start line
  // that ends in an operator, whose command follows the body), a body may be commands to bash.
  const tangled = /<<[^<]/.test(root.text) &&
    (/\r|\\\n/.test(root.text) || (root.text.match(/<<[^<]/g)?.length ?? 0) > 1 ||
      /<<-?\s*(?:\$'|[^\s'"]*\\|(?!-)[^\s'"<>;&|()]+['"])/.test(root.text) ||
      /<<-?\s*[^\s<][^\n]*(?:&&|\|\|?|&)[ \t]*\n/.test(root.text))
  const stack: Array<BashSyntax.SyntaxNode> = [root]
  const depths: Array<number> = [0]
  while (stack.length > 0 && !readings.full) {
    const node = stack.pop()!
    const level = depths.pop()!
    // Beyond this nesting the rest is read lexically, once: deep trees must not cost quadratic time.
    if (level > maxNesting) {
      LexicalReadings.lexicalReadings(node.text, readings)
      readings.open ??= "it nests too deeply to follow"
      continue
    }
    switch (node.type) {
      case "ERROR":
        LexicalReadings.lexicalReadings(node.text, readings)
        break
      case "variable_assignment": {
        const name = node.childForFieldName("name")?.text
        const value = node.childForFieldName("value")
        if (name !== undefined) {
          // An array (`a=(rm -rf /)`) is kept whole under `a[@]` and its first element as `$a`;
          // `a+=(…)` adds to what the line gave it.
          const elements = value?.type === "array"
            ? value.namedChildren.flatMap((element) => WordFields.fieldsOf(element, env))
            : undefined
          const assign = (key: string, held: string) => {
            env.set(key, held)
            // One that may not take effect leaves the value before it as the other reading.
            if (!noneSure && inForce(node)) sure.set(key, held)
          }
          if (elements === undefined) {
            assign(name, value === null ? "" : WordFields.fieldsOf(value, env).join(" ").slice(0, maxValue))
          } else {
            const before = node.children.some((c) => c.type === "+=") ? env.get(`${name}[@]`) : undefined
            if (before === undefined) assign(name, elements[0] ?? "")
            assign(`${name}[@]`, [...(before === undefined ? [] : [before]), ...elements].join(" ").slice(0, maxValue))
          }
        }
        // A value may be evaluated later as arithmetic (`$((x))`) or a prompt (`${x@P}`).
        if (value !== null) EmbeddedScripts.substitutionReadings(analyse, value.text, readings, depth)
        break
      }
      case "command":
        for (const scope of scopes(node)) CommandNodeReadings.commandReadings(analyse, node, scope, readings, depth)
        break
      case "command_substitution":
        // The grammar reads a backquoted body once; bash removes its escapes first and
        // reads the result again, so `\`` inside is a substitution of its own.
        if (node.text.startsWith("`")) {
          const body = node.text.slice(1, node.text.endsWith("`") && node.text.length > 1 ? -1 : undefined)
          for (const script of EmbeddedScripts.backquoteScripts(body)) {
            EmbeddedScripts.scriptReadings(analyse, script, readings, depth)
          }
        }
        break
      case "pipeline":
        for (const scope of scopes(node)) CommandNodeReadings.pipedScripts(analyse, node, scope, readings, depth)
        break
      case "declaration_command":
        // `declare -i x='a[$(cmd)]'` and `declare 'a[$(cmd)]=1'` evaluate subscripts. Bash reads each
        // operand once its quotes are removed: `'a[$(echo '\'')'\'';cmd)]=1'` runs `cmd`.
        EmbeddedScripts.substitutionReadings(analyse, node.text, readings, depth)
        for (const operand of node.namedChildren) {
          if (operand.type === "variable_assignment") continue
          EmbeddedScripts.substitutionReadings(analyse, WordFields.fieldsOf(operand, env).join(" "), readings, depth)
        }
        break
      case "test_command":
        // `[[ a -eq 'a[$(cmd)]' ]]` evaluates its operands as arithmetic, subscripts included.
        EmbeddedScripts.substitutionReadings(analyse, node.text.replace(/^\[\[|\]\]$/g, ""), readings, depth)
        break
      case "heredoc_redirect": {
        // `cat <<EOF; rm x`: bash ends the delimiter at the operator, the grammar takes `EOF;` whole
        // and the command after it as loose words. The rest of that line is read as bash reads it.
        const start = node.children.find((c) => c.type === "heredoc_start")
        const cut = start === undefined ? -1 : start.text.search(/[;&|<>()]/)
        if (start !== undefined && cut >= 0) {
          const line = node.text.slice(start.startIndex - node.startIndex + cut).split("\n")[0]!
          LexicalReadings.lexicalReadings(line, readings)
          EmbeddedScripts.scriptReadings(analyse, line.replace(/^[;&|]+/, ""), readings, depth)
        }
        const body = node.children.find((c) => c.type === "heredoc_body")
        const readers: Array<Wrappers.Unwrapped> = []
        // `cat <<EOF > f; rm x`, `cat <<EOF x; rm x`, `cat <<EOF 2>&1 | sh`: after a redirection or a
        // word on the start line the grammar takes the operator for a parse error and what follows
        // for more words of the redirection. Bash reads commands there: the rest of the line is read
        // lexically and again as the command it continues, and the stages it pipes into are readers.
        if (start !== undefined && cut < 0 && startLineBroken(node)) {
          const rest = node.text.slice(start.endIndex - node.startIndex).split("\n")[0]!
          LexicalReadings.lexicalReadings(rest, readings)
          const statement = node.parent
          const before = statement?.type === "redirected_statement"
            ? statement.text.slice(0, node.startIndex - statement.startIndex)
            : ""
          EmbeddedScripts.scriptReadings(analyse, before + rest, readings, depth)
          for (const words of LexicalReadings.pipedStages(rest)) {
            readers.push(Wrappers.unwrap(CommandNodeReadings.preliminary(words)))
          }
        }
        // `cat <<EOF | sh`, `cat <<EOF | cat | sh`: the grammar hangs the pipeline on the redirection,
        // nested one pipeline per operator; a shell in it reads the body.
        const piped = node.children.find((c) => c.type === "pipeline")
        if (piped !== undefined) {
          for (const stage of stagesOf(piped)) {
            const words = CommandNodeReadings.commandWords(stage, env)
            if (words !== undefined) readers.push(Wrappers.unwrap(CommandNodeReadings.preliminary(words)))
          }
        }
        if (body !== undefined && readers.some((reader) => reader.mayReadStdinScript)) {
          EmbeddedScripts.scriptReadings(
            analyse,
            body.text,
            readings,
            depth,
            !readers.some((reader) => reader.readsStdinScript)
          )
        }
        // `cat <<EOF | python3`, `cat <<EOF | xargs git`: what other readers run of it.
        if (body !== undefined) {
          for (const reader of readers) {
            const use = reader.mayReadStdinScript ? undefined : CommandNodeReadings.inputUse(reader)
            if (use !== undefined) CommandNodeReadings.readInput(analyse, use, body.text, readings, depth)
          }
        }
        break
      }
      case "heredoc_body": {
        // A here-document expands its substitutions unless its delimiter is
        // quoted; the grammar leaves some of them as text.
        const start = node.parent?.children.find((c) => c.type === "heredoc_start")?.text ?? ""
        if (!/['"\\]/.test(start)) EmbeddedScripts.substitutionReadings(analyse, node.text, readings, depth)
        if (tangled) {
          LexicalReadings.lexicalReadings(node.text, readings)
          EmbeddedScripts.scriptReadings(analyse, node.text, readings, depth)
        }
        break
      }
      case "raw_string":
      case "ansi_c_string":
        // In arithmetic, a subscript or a `${…}` operand single quotes do not stop a substitution:
        // `(( i='$(cmd)' ))`, `a['$(cmd)']=1` and `"${x:-'$(cmd)'}"` run `cmd`.
        if (quotesDoNotHold(node)) {
          EmbeddedScripts.substitutionReadings(analyse, WordFields.fieldsOf(node, env).join(" "), readings, depth)
        }
        break
      case "expansion":
        // ``${x:-`cmd`}``: the grammar leaves a backquoted part of an operand as a plain word.
        for (const operand of node.namedChildren) {
          if (operand.type === "word" && operand.text.includes("`")) {
            EmbeddedScripts.substitutionReadings(analyse, operand.text, readings, depth)
          }
        }
        // `${x:'$(cmd)'}`: the grammar ends the expansion at the `:` and reads the rest as another
        // word, where bash reads an arithmetic offset to the `}`.
        if (node.children.at(-1)?.type === "}" && node.children.at(-1)!.text === "" && node.parent !== null) {
          const rest = node.parent.text.slice(node.startIndex - node.parent.startIndex)
          EmbeddedScripts.substitutionReadings(analyse, rest, readings, depth)
        }
        break
      case "file_redirect": {
        const operator = node.children.find((c) => !c.isNamed)?.type ?? ""
        const destination = node.childForFieldName("destination") ?? node.namedChildren.at(-1)
        if (destination !== undefined && destination !== null && /^(?:>|>>|&>|&>>|>\||>&)$/.test(operator)) {
          for (const scope of scopes(node)) {
            const path = WordFields.fieldsOf(destination, scope).join(" ")
            if (readings.writes.length < ReadingSet.maxReadings && !readings.writes.includes(path)) {
              readings.writes.push(path)
            }
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

const maxNesting = 200

/** The constructs whose text bash evaluates as arithmetic or an expansion's operand, quotes and all. */
const evaluatedTypes = new Set(["arithmetic_expansion", "c_style_for_statement", "subscript", "expansion"])
/** The nodes between a quoted string and the construct that decides what its quotes mean. */
const expressionTypes = new Set([
  "concatenation",
  "binary_expression",
  "unary_expression",
  "ternary_expression",
  "parenthesized_expression",
  "postfix_expression",
  "ERROR"
])

/**
 * Whether a single-quoted (or `$'…'`) string sits where bash does not take
 * its quotes as quotes: arithmetic (`((…))`, `$((…))`, `$[…]`, a C-style
 * `for`), an array subscript, or the operand of a `${…}` (which, in double
 * quotes, keeps single quotes as characters). Unquoted, a `${x:-'…'}`
 * operand is quoted after all: reading it too only adds a reading.
 */
const quotesDoNotHold = (node: BashSyntax.SyntaxNode): boolean => {
  if (!/[$`]/.test(node.text)) return false
  let context = node.parent
  while (context !== null && expressionTypes.has(context.type)) context = context.parent
  if (context === null) return false
  return evaluatedTypes.has(context.type) ||
    (context.type === "compound_statement" && context.firstChild?.type === "((")
}

/** Whether the grammar met a parse error on a here-document's start line, after its delimiter. */
const startLineBroken = (heredoc: BashSyntax.SyntaxNode): boolean => {
  for (const child of heredoc.children) {
    if (child.type === "heredoc_body") return false
    if (child.type === "ERROR" || child.hasError) return true
  }
  return false
}

const maxValue = 4_096

/**
 * The commands of a pipeline, in order: the grammar nests one hung on a
 * here-document (`cat <<EOF | grep r | sh`) as a pipeline within a pipeline.
 */
const stagesOf = (pipeline: BashSyntax.SyntaxNode): ReadonlyArray<BashSyntax.SyntaxNode> => {
  const stages: Array<BashSyntax.SyntaxNode> = []
  // A loop, not recursion: a line of thousands of stages must not exhaust the stack.
  const pending = [...pipeline.namedChildren].reverse()
  while (pending.length > 0) {
    const stage = pending.pop()!
    if (stage.type === "pipeline") pending.push(...[...stage.namedChildren].reverse())
    else stages.push(stage)
  }
  return stages
}

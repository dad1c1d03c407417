/**
 * The provably simple line: the plain commands bash runs for it, every word
 * literal, or why no allow rule may decide it.
 *
 * Simple is what a person reads the same way bash does: plain commands of
 * literal words joined by `&&`, `||`, `;`, `|` or newlines, and the compound
 * forms whose commands are as plain: subshells and `{ }` groups, `if`,
 * `while` and `until`, a `for` loop over literal words (its variable
 * replaced by each word in turn, where nothing could change it), literal
 * brace expansion (`ls {a,b}` runs `ls a b`), here-strings and
 * here-documents with literal bodies, and comments. Anything else (an
 * expansion the line does not fix, a substitution, arithmetic, a function,
 * a background job, a redirection of a group) is not simple, and the reason
 * says which. The readings for deny rules are another matter
 * (`CommandReadings`): they cover every line.
 *
 * Internal to the package (no entry in the index).
 *
 * @since 0.3.0
 */
import * as CommandReadings from "./CommandReadings.js"

type SyntaxNode = CommandReadings.SyntaxNode

/**
 * One plain command as bash runs it: its words after expansion, the files
 * its redirections write and read.
 *
 * @since 0.3.0
 * @category models
 */
export interface Plain {
  readonly words: ReadonlyArray<string>
  readonly writes: ReadonlyArray<string>
  readonly reads: ReadonlyArray<string>
  readonly globs: boolean
}

/** Characters that do not print as themselves: the other categories, line and paragraph separators; a tab prints. */
const unprintable = /(?!\t)[\p{C}\p{Zl}\p{Zp}]/u

const plainWord = /^[A-Za-z0-9_\-+=.,:/@%^]+$/
const escapedWord = /^(?:[A-Za-z0-9_\-+=.,:/@%^]|\\[\x21-\x7e])+$/
const globWord = /^[A-Za-z0-9_\-+=.,:/@%^*?]+$/
const braceWord = /^[A-Za-z0-9_\-+=.,:/@%^{}]+$/

/** A loop's body is unrolled once per word: past this many commands in all the line is not simple. */
const maxCommands = 256

const separators = new Set([";", "&&", "||", "|", "\n"])

/** The keywords and brackets of the compound forms this module reads; each one's node is checked itself. */
const compoundTokens = new Set(["(", ")", "{", "}", "if", "then", "elif", "else", "fi", "while", "until", "do", "done"])

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

/**
 * Builtins that assign or unset a variable, or run code that could: with one
 * of them in the line, a loop variable is not known to hold its word.
 */
const assigning = new Set([
  "read",
  "unset",
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "printf",
  "mapfile",
  "readarray",
  "getopts",
  "let",
  "eval",
  "source",
  ".",
  "set",
  "alias",
  "enable",
  "trap"
])

/**
 * A loop variable must be a name no shell or program reads for itself:
 * lower case (bash's own variables, `PATH`, `IFS`, `CDPATH`… are upper
 * case), and none of the lower-case proxy settings network tools read.
 */
const loopName = /^[a-z_][a-z0-9_]*$/
const readByPrograms = new Set(["http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy"])

const changesDirectory = new Set(["cd", "pushd", "popd"])

/** The loop variables bound where a node stands, and whether it may run more than once. */
interface Scope {
  readonly values: ReadonlyMap<string, string>
  readonly repeats: boolean
}

const topScope: Scope = { values: new Map(), repeats: false }

/**
 * Every plain command of a line, in the order bash could run them, or why
 * the line is not simple.
 *
 * @since 0.3.0
 * @category simple lines
 */
export const plainCommands = (root: SyntaxNode, source: string): ReadonlyArray<Plain> | string => {
  const out: Array<Plain> = []
  const walked = statements(root, source, out)
  if (typeof walked === "string") return walked
  if (walked.loops && out.some((plain) => plain.words.some((word) => assigning.has(word)))) {
    return "a loop variable could be changed by a builtin in the line"
  }
  // Everything between the leaves the walk accepted must be blank: nothing
  // the grammar set aside (an extra, a skipped byte) may hold a command.
  return coverageProblem(root, source) ?? out
}

const statements = (root: SyntaxNode, source: string, out: Array<Plain>): string | { readonly loops: boolean } => {
  // An explicit stack, children pushed in reverse: `a && b && …` nests one
  // list per operator, and a long line must not exhaust the call stack.
  const stack: Array<{ readonly node: SyntaxNode; readonly scope: Scope }> = []
  const pushChildren = (node: SyntaxNode, scope: Scope) => {
    const children = node.children
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, scope })
  }
  let loops = false
  pushChildren(root, topScope)
  while (stack.length > 0) {
    const { node: child, scope } = stack.pop()!
    if (out.length > maxCommands) return "it runs more commands than the engine unrolls"
    switch (child.type) {
      case "command": {
        const plain = plainCommand(child, [], scope, source)
        if (typeof plain === "string") return plain
        out.push(plain)
        break
      }
      case "redirected_statement": {
        const body = child.childForFieldName("body") ?? child.namedChildren[0]
        if (body?.type !== "command") return describeConstruct(child)
        const redirects = child.namedChildren.filter((c) => c.id !== body.id)
        const plain = plainCommand(body, redirects, scope, source)
        if (typeof plain === "string") return plain
        out.push(plain)
        break
      }
      case "comment":
        // A comment runs nothing, but an allowed line is one a person could read: what it shows is
        // what it holds (no control, format, bidirectional, private or unassigned character).
        if (unprintable.test(child.text)) return "a comment holds a character that does not print"
        break
      case "list":
      case "pipeline":
      case "subshell":
      case "compound_statement":
      case "if_statement":
      case "elif_clause":
      case "else_clause":
      case "do_group":
        pushChildren(child, scope)
        break
      case "while_statement":
        pushChildren(child, { ...scope, repeats: true })
        break
      case "for_statement": {
        const loop = forLoop(child, scope)
        if (typeof loop === "string") return loop
        loops = true
        for (let i = loop.words.length - 1; i >= 0; i--) {
          stack.push({
            node: loop.body,
            scope: { ...scope, values: new Map([...scope.values, [loop.name, loop.words[i]!]]) }
          })
        }
        // No word: bash never runs the body, but its commands are still read (and must be allowed).
        if (loop.words.length === 0) stack.push({ node: loop.body, scope })
        break
      }
      default:
        if (!child.isNamed && (separators.has(child.type) || compoundTokens.has(child.type))) break
        return describeConstruct(child)
    }
  }
  return { loops }
}

/** `for NAME in WORD…; do …; done` with literal words: its variable, its words after brace expansion, its body. */
const forLoop = (
  node: SyntaxNode,
  scope: Scope
): { readonly name: string; readonly words: ReadonlyArray<string>; readonly body: SyntaxNode } | string => {
  const children = node.children
  if (children[0]?.type !== "for") return "it uses shell syntax (select) that is not a plain command"
  const name = children[1]?.type === "variable_name" ? children[1].text : undefined
  if (children[2]?.type !== "in" || name === undefined) return "its loop runs over the arguments of the shell"
  if (!loopName.test(name) || readByPrograms.has(name)) return "its loop variable is one the shell or programs read"
  if (scope.values.has(name)) return "a loop inside another sets the same variable"
  const words: Array<string> = []
  let body: SyntaxNode | undefined
  for (const child of children.slice(3)) {
    if (child.type === "do_group") body = child
    else if (!child.isNamed && separators.has(child.type)) continue
    else {
      const fields = literalFields(child, topScope)
      if (fields === undefined || !fields.every((field) => plainWord.test(field))) {
        return "its loop runs over words that are not literal"
      }
      words.push(...fields)
    }
  }
  return body === undefined ? "its loop has no body" : { name, words, body }
}

const describeConstruct = (node: SyntaxNode): string => {
  switch (node.type) {
    case "&":
      return "it runs a command in the background"
    case "|&":
      return "it pipes standard error"
    case "redirected_statement":
    case "file_redirect":
    case "heredoc_redirect":
    case "herestring_redirect":
      return "it redirects input or output"
    case "variable_assignment":
    case "declaration_command":
      return "it assigns variables"
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

const plainCommand = (
  node: SyntaxNode,
  redirects: ReadonlyArray<SyntaxNode>,
  scope: Scope,
  source: string
): Plain | string => {
  const words: Array<string> = []
  const inputs: Array<SyntaxNode> = []
  let globs = false
  const addWord = (target: SyntaxNode): string | undefined => {
    const fields = literalFields(target, scope)
    if (fields !== undefined) {
      words.push(...fields)
      return undefined
    }
    if (target.type === "word" && words.length > 0 && globWord.test(target.text)) {
      words.push(target.text)
      globs = true
      return undefined
    }
    return wordProblem(target)
  }
  for (const child of node.children) {
    if (child.type === "variable_assignment" && words.length === 0) {
      const name = child.childForFieldName("name")?.text ?? ""
      const value = child.childForFieldName("value")
      if (!safeVariables.has(name) || (value !== null && literal(value, scope) === undefined)) {
        return "it assigns variables"
      }
      continue
    }
    if (child.type === "herestring_redirect") {
      inputs.push(child)
      continue
    }
    const target = child.type === "command_name" ? child.firstChild : child
    if (target === null || (child.type === "command_name" && child.childCount !== 1)) {
      return "its command name is not a plain word"
    }
    if (child.type === "command_name") {
      if (reserved.has(target.text)) return "it uses a reserved word of the shell"
      // A loop variable never names the command: the name is what rules are matched on.
      const name = literal(target, topScope)
      if (name === undefined) return wordProblem(target)
      words.push(name)
      continue
    }
    const problem = addWord(target)
    if (problem !== undefined) return problem
  }
  // `sudo >/dev/null rm -rf /` is `sudo rm -rf /`: the grammar hangs the words after a
  // redirection's destination on the redirection.
  for (const redirect of redirects) {
    for (const target of CommandReadings.redirectWords(redirect)) {
      const problem = words.length === 0 ? "its command name is not a plain word" : addWord(target)
      if (problem !== undefined) return problem
    }
  }
  if (words.length === 0) return "it names no command"
  if (scope.repeats && words.some((word) => changesDirectory.has(word))) {
    return "it changes directory in a loop, so later rounds run elsewhere"
  }
  const writes: Array<string> = []
  const reads: Array<string> = []
  for (const redirect of [...inputs, ...redirects]) {
    if (redirect.type === "herestring_redirect") {
      const parts = redirect.children
      if (parts.length !== 2 || parts[0]!.type !== "<<<" || literal(parts[1]!, scope) === undefined) {
        return "it feeds a command a here-string that bash expands"
      }
      continue
    }
    if (redirect.type === "heredoc_redirect") {
      const problem = heredocProblem(redirect, source)
      if (problem !== undefined) return problem
      continue
    }
    if (redirect.type !== "file_redirect") return describeConstruct(redirect)
    const operator = redirect.children.find((c) => !c.isNamed)?.type
    const destination = redirect.childForFieldName("destination") ?? redirect.namedChildren.at(-1)
    if (destination === undefined || destination === null || operator === undefined) {
      return "it redirects input or output"
    }
    // `2>&1`: one stream joins another; nothing is opened.
    if ((operator === ">&" || operator === "<&") && /^[0-9]$/.test(destination.text)) continue
    const target = literal(destination, scope)
    if (target === undefined) return "it redirects to a file whose name bash expands"
    if (operator === "<") reads.push(target)
    else if ([">", ">>", "&>", "&>>", ">|"].includes(operator)) writes.push(target)
    else return "it redirects input or output"
  }
  return { words, writes, reads, globs }
}

const heredocDelimiter = /^(?:([A-Za-z_][A-Za-z0-9_]*)|'([A-Za-z_][A-Za-z0-9_]*)'|"([A-Za-z_][A-Za-z0-9_]*)")$/

/**
 * Why a here-document is not literal, or is not delimited where bash
 * delimits it; `undefined` when it is both. Bash's own end is found in the
 * source (the first line that is the delimiter, after tabs for `<<-`) and
 * must be where the grammar put it: where they disagree, a command could
 * hide in what one of them takes for the body.
 */
const heredocProblem = (redirect: SyntaxNode, source: string): string | undefined => {
  const parts = redirect.children
  const operator = parts[0]?.type
  const start = parts[1]
  const end = parts.at(-1)
  const shape = parts.length === 3 || (parts.length === 4 && parts[2]!.type === "heredoc_body")
  if (
    !shape || (operator !== "<<" && operator !== "<<-") || start?.type !== "heredoc_start" ||
    end?.type !== "heredoc_end"
  ) {
    return "it reads a here-document the engine cannot delimit"
  }
  const match = heredocDelimiter.exec(start.text)
  if (match === null) return "its here-document has a delimiter bash transforms"
  const delimiter = match[1] ?? match[2] ?? match[3]!
  const quoted = match[1] === undefined
  const lineEnd = source.indexOf("\n", start.endIndex)
  if (lineEnd < 0 || !/^[ \t]*$/.test(source.slice(start.endIndex, lineEnd))) {
    return "more follows a here-document's delimiter on its line"
  }
  const body: Array<string> = []
  let at = lineEnd + 1
  for (;;) {
    if (at > source.length) return "its here-document is not terminated"
    const next = source.indexOf("\n", at) < 0 ? source.length : source.indexOf("\n", at)
    const line = source.slice(at, next)
    const stripped = operator === "<<-" ? line.replace(/^\t+/, "") : line
    if (stripped === delimiter) {
      if (end.startIndex !== next - delimiter.length || end.endIndex !== next) {
        return "the grammar ends a here-document elsewhere than bash"
      }
      break
    }
    body.push(stripped)
    at = next + 1
  }
  // Unquoted, the body expands `$`, backquotes and backslashes.
  if (!quoted && body.some((line) => /[$`\\]/.test(line))) return "its here-document expands"
  return undefined
}

const wordProblem = (node: SyntaxNode): string => {
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

/**
 * The fields bash makes of a word that is literal but for brace expansion
 * (`src/{a,b}.ts`) and the loop variables in scope; `undefined` otherwise.
 */
const literalFields = (node: SyntaxNode, scope: Scope): ReadonlyArray<string> | undefined => {
  const value = literal(node, scope)
  if (value !== undefined) return [value]
  if ((node.type !== "word" && node.type !== "concatenation") || !braceWord.test(node.text)) return undefined
  // Sequences (`{1..3}`) and what does not expand fully are left to a person.
  if (node.text.includes("..")) return undefined
  const fields = CommandReadings.braceExpand(node.text)
  return fields.length > 1 && fields.length < CommandReadings.maxBraceFields &&
      fields.every((field) => plainWord.test(field))
    ? fields
    : undefined
}

/** The loop variable a `$x` or `${x}` names, when nothing else is in the expansion. */
const boundValue = (node: SyntaxNode, scope: Scope): string | undefined => {
  if (scope.values.size === 0) return undefined
  const parts = node.children
  const plain = node.type === "simple_expansion"
    ? parts.length === 2 && parts[0]!.type === "$" && parts[1]!.type === "variable_name"
    : parts.length === 3 && parts[0]!.type === "${" && parts[1]!.type === "variable_name" && parts[2]!.type === "}"
  return plain ? scope.values.get(parts[1]!.text) : undefined
}

/** The value of a word that bash takes literally, or `undefined`. */
const literal = (node: SyntaxNode, scope: Scope): string | undefined => {
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
    case "simple_expansion":
    case "expansion":
      // A loop variable holds one of its plain words: no splitting, no glob.
      return boundValue(node, scope)
    case "string": {
      let value = ""
      for (const child of node.children) {
        if (child.type === "\"") continue
        if (child.type === "simple_expansion" || child.type === "expansion") {
          const bound = boundValue(child, scope)
          if (bound === undefined) return undefined
          value += bound
          continue
        }
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
        const part = literal(child, scope)
        if (part === undefined) return undefined
        value += part
      }
      return value
    }
    default:
      return undefined
  }
}

const leafTypes = new Set(["word", "number", "raw_string", "string", "heredoc_body", "comment"])

const coverageProblem = (root: SyntaxNode, source: string): string | undefined => {
  let at = 0
  const stack: Array<SyntaxNode> = [root]
  const leaves: Array<SyntaxNode> = []
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

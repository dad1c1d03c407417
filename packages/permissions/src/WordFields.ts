/**
 * WordFields: a word of the line evaluated as far as the line itself tells
 * (quotes removed, ANSI-C strings decoded, variables the line assigned
 * substituted, `IFS` splitting, brace expansion). Apart from the walkers
 * because it is bash's word expansion, not its grammar: every construct
 * that holds words reads them through it.
 *
 * @since 0.4.0
 */
import type * as BashSyntax from "./BashSyntax.js"

export type Env = Map<string, string>

/**
 * The value of a variable the line assigns where that assignment is not in
 * force, and nothing before it set the variable: unset.
 */
export const unset = "\u0000unset"

/**
 * A word's fields, evaluated as far as the line tells: quotes removed,
 * ANSI-C strings decoded, variables the line assigned substituted, `IFS`
 * splitting, brace expansion. What cannot be known stays as written.
 */
export const fieldsOf = (node: BashSyntax.SyntaxNode, env: Env): ReadonlyArray<string> => {
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
      return quotedFields(node, env)
    case "simple_expansion":
    case "expansion":
      return piecesFields(expansionPieces(node, env))
    case "brace_expression":
      return braceExpand(node.text)
    case "concatenation": {
      // An unquoted run of words is where brace expansion happens: `{rm,-rf,/}`.
      if (node.children.every((c) => c.type === "word")) return braceExpand(node.text).map(unescapeUnquoted)
      return braced(node.children).flatMap((parts) => joined(parts, env))
    }
    default:
      return [node.text]
  }
}

/**
 * The parts of a word after brace expansion, which bash does first, on the
 * word as written: `${x}{m,}` is `${x}m` and `${x}`. Its quoted and expanded
 * parts stand in the expansion as one private-use character each, and are
 * evaluated afterwards, in each word the braces made. A private-use
 * character the word itself holds gets a stand-in of its own, so it cannot
 * pass for a part.
 */
const braced = (
  children: ReadonlyArray<BashSyntax.SyntaxNode>
): ReadonlyArray<ReadonlyArray<BashSyntax.SyntaxNode | string>> => {
  const literal = (c: BashSyntax.SyntaxNode) => c.type === "word" || c.type === "brace_expression"
  if (!children.some((c) => literal(c) && c.text.includes("{"))) return [children]
  const parts: Array<BashSyntax.SyntaxNode | string> = []
  const stand = (part: BashSyntax.SyntaxNode | string) => String.fromCharCode(0xe000 + parts.push(part) - 1)
  const written = children.map((c) => literal(c) ? c.text.replace(/[\ue000-\uefff]/g, stand) : stand(c)).join("")
  // Past the block's size the stand-ins would run out: such a word is read with its braces as written.
  if (parts.length > 0x1000) return [children]
  const words = braceExpand(written)
  if (words.length < 2) return [children]
  return words.map((word) =>
    word.split(/([\ue000-\uefff])/).filter((part) => part !== "").map((part) =>
      /^[\ue000-\uefff]$/.test(part) ? parts[part.charCodeAt(0) - 0xe000]! : unescapeUnquoted(part)
    )
  )
}

/** The fields of a word's parts in a row: a part's first field continues the word, its others start new ones. */
const joined = (parts: ReadonlyArray<BashSyntax.SyntaxNode | string>, env: Env): ReadonlyArray<string> => {
  let fields: Array<string> = [""]
  for (const part of parts) {
    const next = typeof part === "string" ? [part] : fieldsOf(part, env)
    if (next.length === 0) continue
    fields = [...fields.slice(0, -1), `${fields.at(-1)!}${next[0]!}`, ...next.slice(1)]
  }
  return fields
}

/**
 * A quoted word's fields: one, unless it holds `${a[@]}` of an array the
 * line assigned, which is one field per element even inside quotes, the
 * text before it joined to the first and the text after it to the last
 * (`"r${a[@]}"` with `a=(m -rf /)` runs `rm -rf /`). `IFS` plays no part.
 */
const quotedFields = (node: BashSyntax.SyntaxNode, env: Env): ReadonlyArray<string> => {
  const done: Array<string> = []
  let current = ""
  for (const child of node.children) {
    const elements = child.type === "expansion" ? arrayValue(child, env, ["@"]) : undefined
    if (elements === undefined) {
      current += quotedPart(node, child, env)
      continue
    }
    const split = splitFields(elements)
    if (split.length === 1) {
      current += split[0]!
      continue
    }
    done.push(`${current}${split[0]!}`, ...split.slice(1, -1))
    current = split.at(-1)!
  }
  return [...done, current]
}

const quotedValue = (node: BashSyntax.SyntaxNode, env: Env): string =>
  node.children.map((child) => quotedPart(node, child, env)).join("")

const quotedPart = (node: BashSyntax.SyntaxNode, child: BashSyntax.SyntaxNode, env: Env): string => {
  switch (child.type) {
    case "\"":
      return ""
    case "$":
      // The `$` of `$"…"`; any other is a `$` bash keeps (`"a$"`: nothing follows to expand).
      return node.type === "translated_string" ? "" : "$"
    case "string_content":
      return child.text.replace(/\\([$`"\\])/g, "$1").replace(/\\\n/g, "")
    case "simple_expansion":
    case "expansion":
      return expansionPieces(child, env).map((piece) => piece.text).join("")
    case "string":
      return quotedValue(child, env)
    default:
      return child.text
  }
}

/**
 * A part of an expansion's value: `split` when bash splits it into fields
 * (an unquoted part), not when it is quoted or a value the engine does not
 * know (which stays one word, as written).
 */
interface Piece {
  readonly text: string
  readonly split: boolean
}

const plain = (text: string): ReadonlyArray<Piece> => [{ text, split: !text.startsWith("$") }]

/** The fields of an expansion's value: its unquoted parts split on blanks, its quoted parts whole. */
const piecesFields = (pieces: ReadonlyArray<Piece>): ReadonlyArray<string> => {
  let fields: Array<string> = [""]
  for (const piece of pieces) {
    const next = piece.split ? splitFields(piece.text) : [piece.text]
    fields = [...fields.slice(0, -1), `${fields.at(-1)!}${next[0]!}`, ...next.slice(1)]
  }
  return fields
}

/**
 * The word of a default or an alternative (`${X:-rm "-rf"}`) as pieces: the
 * blanks between its parts (which the grammar leaves out of its nodes, or
 * puts at the start of a word) are unquoted, so they split fields; a quoted
 * part is one piece, blanks kept. Bash does no brace expansion there.
 */
const operandPieces = (node: BashSyntax.SyntaxNode, from: number, to: number, env: Env): ReadonlyArray<Piece> => {
  const pieces: Array<Piece> = []
  let at = from
  const gap = (end: number) => {
    if (end > at) pieces.push({ text: node.text.slice(at - node.startIndex, end - node.startIndex), split: true })
  }
  const visit = (child: BashSyntax.SyntaxNode) => {
    if (child.type === "concatenation") {
      for (const part of child.children) visit(part)
      return
    }
    gap(child.startIndex)
    at = child.endIndex
    if (child.type === "word") {
      // Blanks a backslash escapes do not split: `a\ b` is one field.
      for (const part of child.text.split(/((?:\\[^]|[^ \t\n\\])+)/)) {
        if (part === "") continue
        const blank = /^[ \t\n]+$/.test(part)
        pieces.push({ text: blank ? part : unescapeUnquoted(part), split: blank })
      }
    } else if (child.type === "simple_expansion" || child.type === "expansion") {
      pieces.push(...expansionPieces(child, env))
    } else pieces.push({ text: fieldsOf(child, env).join(" "), split: false })
  }
  for (const child of node.namedChildren) if (child.startIndex >= from && child.endIndex <= to) visit(child)
  gap(to)
  return pieces
}

/**
 * The elements of an array the line assigned (`a=(rm -rf /)`), for
 * `${a[@]}` and `${a[*]}` with no operator: joined with blanks, which split
 * them again (an element that holds a blank becomes two fields, one reading
 * more). `undefined` when the expansion is no such thing.
 */
const arrayValue = (
  node: BashSyntax.SyntaxNode,
  env: Env,
  indices: ReadonlyArray<string> = ["@", "*"]
): string | undefined => {
  const subscript = node.namedChildren.find((c) => c.type === "subscript")
  if (subscript === undefined || node.children.some((c) => !c.isNamed && !/^(?:\$\{|\})$/.test(c.type))) {
    return undefined
  }
  const name = subscript.namedChildren.find((c) => c.type === "variable_name")?.text
  const index = subscript.childForFieldName("index")?.text ?? subscript.namedChildren.at(-1)?.text
  return name !== undefined && index !== undefined && indices.includes(index)
    ? env.get(`${name}[@]`)
    : undefined
}

const expansionPieces = (node: BashSyntax.SyntaxNode, env: Env): ReadonlyArray<Piece> => {
  const name = node.namedChildren.find((c) => c.type === "variable_name" || c.type === "special_variable_name")
  const elements = name === undefined && !env.has("IFS") ? arrayValue(node, env) : undefined
  if (elements !== undefined) return [{ text: elements, split: true }]
  if (name === undefined) return plain(node.text)
  if (name.text === "IFS") return plain(" ")
  // A changed IFS splits words where the engine cannot follow: the value is unknown.
  if (env.has("IFS")) return plain(node.text)
  const value = env.get(name.text)
  const isUnset = value === unset
  const known = isUnset ? undefined : value
  const operators = node.children.filter((c) => !c.isNamed && c.type !== "${" && c.type !== "}" && c.type !== "$")
  if (operators.length === 0) return plain(isUnset ? "" : known ?? node.text)
  const operator = operators[0]!
  const close = node.children.at(-1)?.type === "}" ? node.children.at(-1)!.startIndex : node.endIndex
  const operand = () => operandPieces(node, operator.endIndex, close, env)
  // With a colon, an empty value counts as unset: `X=; ${X:-rm}` runs rm.
  const colon = operator.type.startsWith(":")
  // `${X:-default}`, `${X:=default}`: the value, or the default; with X unknown, the default is one reading.
  if (operators.length === 1 && /^:?[-=]$/.test(operator.type)) {
    // Bash always sets PWD: its value, not the default (`rm -rf ${PWD:-/tmp}` removes the working
    // directory). HOME is not here: under `inherit: "none"` it is unset, and the default runs;
    // the reading with it set comes from CommandReadings, which reads the node both ways.
    if (known === undefined && !isUnset && name.text === "PWD") return plain("$PWD")
    return known === undefined || (colon && known === "") ? operand() : plain(known)
  }
  // `${X:+alternative}`: the alternative when X is set (and, with the colon, not empty).
  if (operators.length === 1 && /^:?\+$/.test(operator.type)) {
    return isUnset || (colon && known === "") ? plain("") : operand()
  }
  // Anything else (`${x#a}`, `${x,,}`, `${!y}`, `${x/a/b}`, `${x@P}`) transforms the value in ways
  // the engine does not model: unknown, and a command named by it is open.
  return plain(node.text)
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
          const sequence = alternatives.length === 1 ? sequenceOf(inner) : undefined
          if (sequence !== undefined) {
            for (const item of sequence) expand(word.slice(0, open) + item + word.slice(i + 1))
            return
          }
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

/**
 * A sequence expression's items (`1..3`, `a..c`, `01..10..3`), at most
 * `maxBraceFields`; `undefined` when the text is none (bash then leaves the
 * braces as written).
 */
const sequenceOf = (text: string): ReadonlyArray<string> | undefined => {
  const numbers = /^([-+]?\d+)\.\.([-+]?\d+)(?:\.\.([-+]?\d+))?$/.exec(text)
  const letters = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.([-+]?\d+))?$/.exec(text)
  const match = numbers ?? letters
  if (match === null) return undefined
  const step = Math.max(1, Math.abs(Number(match[3] ?? 1)))
  const from = numbers !== null ? Number(match[1]) : match[1]!.charCodeAt(0)
  const to = numbers !== null ? Number(match[2]) : match[2]!.charCodeAt(0)
  // A bound written with a leading zero pads every item to the wider bound's width.
  const padded = numbers !== null && [match[1]!, match[2]!].some((bound) => /^[-+]?0\d/.test(bound))
  const width = padded ? Math.max(match[1]!.length, match[2]!.length) : 0
  const items: Array<string> = []
  for (let n = from; from <= to ? n <= to : n >= to; n += from <= to ? step : -step) {
    if (items.length >= maxBraceFields) break
    if (numbers === null) items.push(String.fromCharCode(n))
    else {
      const digits = String(Math.abs(n)).padStart(width - (n < 0 ? 1 : 0), "0")
      items.push(n < 0 ? `-${digits}` : digits)
    }
  }
  return items
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

/**
 * CommandNodeReadings: the readings of one command node (its words, its
 * wrappers unwrapped, what its here-documents and here-strings feed a
 * shell) and of a pipeline whose stage prints a script a shell reads. Apart
 * from the walk over the tree because these are the constructs that run
 * something, where every wrapper and builtin rule of the engine applies.
 *
 * @since 0.4.0
 */
import type * as BashSyntax from "./BashSyntax.js"
import * as EmbeddedScripts from "./EmbeddedScripts.js"
import * as InterpreterCode from "./InterpreterCode.js"
import type * as ReadingSet from "./ReadingSet.js"
import * as WordFields from "./WordFields.js"
import * as Wrappers from "./Wrappers.js"

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

export const redirectTypes = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"])

/** The nodes the grammar reads as one word of a command. */
const wordTypes = new Set([
  "word",
  "number",
  "string",
  "raw_string",
  "ansi_c_string",
  "translated_string",
  "concatenation",
  "simple_expansion",
  "expansion",
  "command_substitution",
  "process_substitution",
  "arithmetic_expansion",
  "brace_expression"
])

/** Operators that close a descriptor: no destination follows them. */
const closing = new Set([">&-", "<&-"])

/**
 * The words the grammar hangs on a redirection that bash reads as the
 * command's own. tree-sitter-bash takes every word after a redirection's
 * destination as more of the redirection (`sudo >/dev/null rm -rf /` is
 * `sudo` and a redirection of four words; `cat <<EOF x y` a here-document
 * with two words after its delimiter), where bash takes the destination
 * alone and the rest as arguments: `sudo rm -rf /`. They end where the
 * grammar met an operator or a parse error (`cat <<EOF > f; rm`): what
 * follows is another command, read with the rest of the line
 * (`CommandReadings`).
 *
 * @since 0.4.0
 * @category readings
 */
export const redirectWords = (redirect: BashSyntax.SyntaxNode): ReadonlyArray<BashSyntax.SyntaxNode> => {
  const out: Array<BashSyntax.SyntaxNode> = []
  addRedirectWords(redirect, out)
  return out
}

/** Adds a redirection's words to `out`; false where an operator or a parse error ended them. */
const addRedirectWords = (redirect: BashSyntax.SyntaxNode, out: Array<BashSyntax.SyntaxNode>): boolean => {
  if (redirect.type === "file_redirect") {
    let operator: string | undefined
    let destination = false
    for (const child of redirect.children) {
      if (operator === undefined) {
        if (!child.isNamed) {
          operator = child.type
          destination = closing.has(operator)
        }
        continue
      }
      if (!wordTypes.has(child.type)) return false
      if (destination) out.push(child)
      destination = true
    }
    return true
  }
  if (redirect.type === "heredoc_redirect") {
    let started = false
    for (const child of redirect.children) {
      if (!started) {
        started = child.type === "heredoc_start"
        continue
      }
      if (child.type === "heredoc_body" || child.type === "heredoc_end") return true
      if (child.type === "file_redirect") {
        if (!addRedirectWords(child, out)) return false
      } else if (wordTypes.has(child.type)) out.push(child)
      else return false
    }
  }
  return true
}

/**
 * The words the grammar hangs on the redirections after a command that bash
 * reads as that command's: on its own redirected statement, and on a list
 * or pipeline it ends (`a | b >f x` is `b x` to bash; the grammar hangs
 * `>f x` on the whole pipeline).
 *
 * @since 0.4.0
 * @category readings
 */
export const trailingWords = (command: BashSyntax.SyntaxNode): ReadonlyArray<BashSyntax.SyntaxNode> => {
  const out: Array<BashSyntax.SyntaxNode> = []
  let node = command
  for (let parent = node.parent; parent !== null; node = parent, parent = node.parent) {
    const named = parent.namedChildren
    if (parent.type === "redirected_statement") {
      if (named[0]?.id !== node.id) break
      for (const redirect of named.slice(1)) {
        if (!addRedirectWords(redirect, out)) break
      }
    } else if (parent.type !== "list" && parent.type !== "pipeline") break
    else if (named.at(-1)?.id !== node.id) break
  }
  return out
}

/** A command's words as nodes, in bash's order: those the grammar hangs on its redirections included. */
export const wordNodes = (command: BashSyntax.SyntaxNode): ReadonlyArray<BashSyntax.SyntaxNode> => {
  const out: Array<BashSyntax.SyntaxNode> = []
  for (const child of command.children) {
    if (child.type === "variable_assignment" || child.type === "herestring_redirect") continue
    if (redirectTypes.has(child.type)) out.push(...redirectWords(child))
    else if (child.type === "command_name") {
      if (child.firstChild !== null) out.push(child.firstChild)
    } else out.push(child)
  }
  out.push(...trailingWords(command))
  return out
}

/**
 * A command node's words as bash makes them, as far as the line tells. With
 * the node's parent (which the grammar's nodes find by walking down from the
 * root, so a caller that has it passes it), a `-` the grammar dropped too.
 */
const wordsOf = (
  command: BashSyntax.SyntaxNode,
  env: WordFields.Env,
  parent?: BashSyntax.SyntaxNode | null
): ReadonlyArray<string> => {
  const words = wordNodes(command).flatMap((node) => WordFields.fieldsOf(node, env))
  return parent !== undefined && parent !== null && droppedDash(command, parent) ? [...words, "-"] : words
}

/**
 * The grammar drops a lone `-` just before a here-document (`cat - <<EOF`,
 * `make -f - <<EOF`): bash keeps it as a word, the command's last.
 */
const droppedDash = (command: BashSyntax.SyntaxNode, parent: BashSyntax.SyntaxNode): boolean => {
  if (parent.type !== "redirected_statement" || parent.namedChildren[0]?.id !== command.id) return false
  const heredoc = parent.children.find((child) => child.type === "heredoc_redirect")
  if (heredoc === undefined) return false
  let end = command.endIndex
  for (const child of parent.children) {
    if (child.id === heredoc.id) break
    end = Math.max(end, child.endIndex)
  }
  const gap = parent.text.slice(end - parent.startIndex, heredoc.startIndex - parent.startIndex)
  // Only the last word before `<<` is lost (`cat - - <<EOF` keeps the first `-`).
  return /^[ \t]+-[ \t]+$/.test(gap)
}

/**
 * `echo 'rm -rf x' | sh`, `printf … | bash`, `cat <<EOF | sh`,
 * `{ cat <<EOF … } | sh`, `echo … | cat | sh`: what an earlier stage prints,
 * a shell reading its input in a later stage runs. A stage prints what any
 * command in it prints (a group or subshell is walked whole), and passes on
 * what it reads when a command in it does (`cat` with no file, `tee`).
 */
export const pipedScripts = (
  analyse: BashSyntax.Analyse,
  pipeline: BashSyntax.SyntaxNode,
  env: WordFields.Env,
  readings: ReadingSet.Readings,
  depth: number
): void => {
  const stages = pipeline.namedChildren
  const printed: Array<Printed> = []
  for (let i = 0; i < stages.length; i++) {
    if (i > 0) {
      const readerWords = commandWords(stages[i]!, env)
      const reader = readerWords === undefined ? undefined : Wrappers.unwrap(preliminary(readerWords))
      const use = reader === undefined ? undefined : inputUse(reader)
      if (use !== undefined) {
        // What a text printed before stage j becomes by the time it reaches the reader.
        let through = (text: string): ReadonlyArray<string> => [text]
        for (let j = i - 1; j >= 0; j--) {
          for (const text of printed[j]!.scripts.flatMap(through)) readInput(analyse, use, text, readings, depth)
          if (!printed[j]!.passes) break
          const decode = printed[j]!.decode
          if (decode !== undefined) {
            const after = through
            through = (text) => decode(text).flatMap(after)
          }
        }
      }
    }
    printed.push(printedBy(stages[i]!, env, readings))
  }
}

interface Printed {
  /** The scripts the stage's commands print, as far as the line tells. */
  readonly scripts: ReadonlyArray<string>
  /** Whether it prints what it reads: what an earlier stage printed reaches the next one. */
  readonly passes: boolean
  /** What it prints for what it reads, when not the same (`base64 -d`): every reading of it. */
  readonly decode?: ((text: string) => ReadonlyArray<string>) | undefined
}

const escapes: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", a: "\u0007", b: "\b", f: "\f", v: "\v" }

/** printf's and `echo -e`'s backslash escapes, as they print. */
const unescaped = (text: string): string =>
  text.replace(
    /\\(?:x([0-9A-Fa-f]{1,2})|0?([0-7]{1,3})|(.))/gs,
    (_, hex: string, octal: string, other: string) =>
      hex !== undefined
        ? String.fromCharCode(parseInt(hex, 16))
        : octal !== undefined
        ? String.fromCharCode(parseInt(octal, 8))
        : escapes[other] ?? other
  )

const base64Text = /^[A-Za-z0-9+/=_\-\s]+$/
const hexText = /^[0-9A-Fa-f\s]+$/

// `echo cm0gLXJmIC8K | base64 -d | sh`: the shell runs the decoded text. A text that does not
// decode is passed on as it is (an over-reading, never a missed one).
const fromBase64 = (text: string): ReadonlyArray<string> => {
  const compact = text.replace(/\s+/g, "").replace(/-/g, "+").replace(/_/g, "/")
  if (!base64Text.test(text) || compact === "") return [text]
  try {
    const bytes = Uint8Array.from(atob(compact.replace(/=+$/, "")), (c) => c.charCodeAt(0))
    return [new TextDecoder().decode(bytes)]
  } catch {
    return [text]
  }
}

const fromHex = (text: string): ReadonlyArray<string> => {
  const compact = text.replace(/\s+/g, "")
  if (!hexText.test(text) || compact.length % 2 !== 0 || compact === "") return [text]
  const bytes = new Uint8Array(compact.length / 2)
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(compact.slice(2 * i, 2 * i + 2), 16)
  return [new TextDecoder().decode(bytes)]
}

/** A decoder a stage is: `base64 -d`, `base64 --decode`, `openssl base64 -d`, `xxd -r -p`. */
const decoderOf = (words: ReadonlyArray<string>): ((text: string) => ReadonlyArray<string>) | undefined => {
  const name = InterpreterCode.programName(words)
  const flags = words.slice(1)
  const decodes = flags.some((w) => /^-[a-zA-Z]*[dD][a-zA-Z]*$/.test(w) || /^--d(?:e(?:c(?:o(?:de?)?)?)?)?$/.test(w))
  if ((name === "base64" || name === "base32" || name === "basenc") && decodes) return fromBase64
  if (name === "openssl" && (flags[0] === "base64" || flags[0] === "enc") && flags.includes("-d")) return fromBase64
  if (name === "xxd" && flags.some((w) => /^-[a-zA-Z]*r/.test(w))) return fromHex
  return undefined
}

/** The texts of a command's here-strings, as bash expands them. */
const hereStrings = (command: BashSyntax.SyntaxNode, env: WordFields.Env): ReadonlyArray<string> =>
  command.children.flatMap((child) => {
    const value = child.type === "herestring_redirect" ? child.namedChildren.at(-1) : undefined
    return value === undefined ? [] : [WordFields.fieldsOf(value, env).join(" ")]
  })

/** A stage's nodes are walked this far for what it prints; past it the line is open. */
const maxPrintingNodes = 4_096

const printedBy = (stage: BashSyntax.SyntaxNode, env: WordFields.Env, readings: ReadingSet.Readings): Printed => {
  const scripts: Array<string> = []
  let passes = false
  let decode: Printed["decode"] = undefined
  let budget = maxPrintingNodes
  const stack = [stage]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (--budget < 0) {
      readings.open ??= "it pipes more into a shell than the engine follows"
      break
    }
    if (node.type === "heredoc_body") scripts.push(node.text)
    if (node.type === "command") {
      const words = wordsOf(node, env)
      const name = words[0]
      if (name === "echo" || name === "printf") {
        const text = words.slice(1).filter((w) => !/^-[neE]+$/.test(w)).join(" ")
        scripts.push(text)
        // `printf 'all:\n\trm …'`, `echo -e`: the escapes print as the characters they stand for.
        if (text.includes("\\")) scripts.push(unescaped(text))
        // `printf '%s' 'cm0g…'`: what the format prints is its arguments.
        if (name === "printf" && words.length > 2 && words[1]!.includes("%")) scripts.push(words.slice(2).join(" "))
      }
      if (name === "cat" || name === "tee") {
        scripts.push(...hereStrings(node, env))
        // `cat` with no file (or `-`) prints what it reads; `tee` always does.
        const files = words.slice(1).filter((w) => w === "-" || !w.startsWith("-"))
        if (name === "tee" || files.length === 0 || files.includes("-")) passes = true
      }
      const decoder = decoderOf(words)
      if (decoder !== undefined) {
        passes = true
        decode = decoder
        scripts.push(...hereStrings(node, env).flatMap(decoder))
      }
    }
    const children = node.children
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!)
  }
  return { scripts, passes, decode }
}

/** The words of a stage's command, as far as the line tells. */
export const commandWords = (stage: BashSyntax.SyntaxNode, env: WordFields.Env): ReadonlyArray<string> | undefined => {
  const command = stage.type === "command" ? stage : stage.namedChildren.find((c) => c.type === "command")
  if (command === undefined) return undefined
  return wordsOf(command, env)
}

// Options that give an interpreter its program in the words: `-c`, `-e`, `-E`, `-m`, `-p`, with the
// value attached (`-mjson.tool`); given apart (`-uc 'code'`), the value is an operand, which already
// says the program is in the words.
const programInWords = /^(?:-[cemEp]|--eval=|--print=)/

/** Whether an interpreter reads its program from its input: no script file and no code in its words. */
const programFromInput = (words: ReadonlyArray<string>): boolean =>
  InterpreterCode.isInterpreter(InterpreterCode.programName(words)) &&
  words.slice(1).every((word) => word === "-" || (word.startsWith("-") && !programInWords.test(word)))

/**
 * What a command runs of what it reads, found once per command: a shell its
 * script (`guess` when the shell only may read it), the commands xargs runs
 * with the words it reads appended (`xargs sh -c <<< "'rm -rf /'"` is read
 * as `sh -c 'rm -rf /'`: xargs's quotes are the shell's), and the
 * interpreters that read their program from it.
 *
 * @since 0.4.0
 * @category readings
 */
export interface InputUse {
  readonly shell: { readonly guess: boolean } | undefined
  readonly appended: ReadonlyArray<ReadonlyArray<string>>
  readonly interpreters: ReadonlyArray<string>
}

/**
 * How a command uses its input, or `undefined` when it runs none of it.
 *
 * @since 0.4.0
 * @category readings
 */
export const inputUse = (reader: Wrappers.Unwrapped): InputUse | undefined => {
  const appended: Array<ReadonlyArray<string>> = []
  const interpreters: Array<string> = []
  for (const reading of reader.readings) {
    if (reading._tag !== "Words") continue
    if (reading.guess !== true && reading.via.at(-1) === "xargs") appended.push(reading.words)
    if (programFromInput(reading.words)) interpreters.push(reading.words[0]!)
  }
  const shell = reader.mayReadStdinScript ? { guess: !reader.readsStdinScript } : undefined
  return shell === undefined && appended.length === 0 && interpreters.length === 0
    ? undefined
    : { shell, appended, interpreters }
}

/**
 * Reads what a command does with a text it is given as input (`inputUse`):
 * a shell runs it as a script; xargs appends its words to what it runs
 * (`echo push | xargs git`); an interpreter runs it as its program, whose
 * strings may reach a shell (`python3 - <<EOF`). All but a shell's sure
 * script are guesses.
 *
 * @since 0.4.0
 * @category readings
 */
export const readInput = (
  analyse: BashSyntax.Analyse,
  use: InputUse,
  text: string,
  readings: ReadingSet.Readings,
  depth: number
): void => {
  if (use.shell !== undefined) EmbeddedScripts.scriptReadings(analyse, text, readings, depth, use.shell.guess)
  for (const words of use.appended) {
    EmbeddedScripts.scriptReadings(analyse, `${words.join(" ")} ${text}`, readings, depth, true)
  }
  for (const name of use.interpreters) {
    const code = InterpreterCode.shellLines([name, text])
    if (code.unread) readings.open ??= "an interpreter's code holds more strings than the engine reads"
    for (const line of code.lines) EmbeddedScripts.scriptReadings(analyse, line, readings, depth, true)
  }
}

// A file every non-interactive bash (BASH_ENV) or interactive sh (ENV) runs before its commands.
const startupVariable = /^(?:BASH_ENV|ENV)=/

/** Whether the command runs with BASH_ENV or ENV set: assigned before it, through `env`, or earlier in the line. */
const setsStartupFile = (node: BashSyntax.SyntaxNode, words: ReadonlyArray<string>, env: WordFields.Env): boolean =>
  env.has("BASH_ENV") || env.has("ENV") || words.some((word) => startupVariable.test(word)) ||
  node.children.some((child) => child.type === "variable_assignment" && startupVariable.test(child.text))

// Each replaced argument is a parse of the line's budget: past this many in a line, it is open.
const maxReplacedArguments = 16

/** The substitutions in a command's arguments (not in its name, not nested in another one). */
const argumentSubstitutions = (
  node: BashSyntax.SyntaxNode,
  name: BashSyntax.SyntaxNode | null
): ReadonlyArray<BashSyntax.SyntaxNode> => {
  const out: Array<BashSyntax.SyntaxNode> = []
  const stack = node.children.filter((child) => child.id !== name?.id && !redirectTypes.has(child.type)).reverse()
  while (stack.length > 0 && out.length <= maxReplacedArguments) {
    const current = stack.pop()!
    if (current.type === "command_substitution") {
      // Only a substitution that is one echo or printf prints what the line tells.
      const inner = current.namedChildren
      const printer = inner.length === 1 && inner[0]!.type === "command"
        ? inner[0]!.childForFieldName("name")?.text
        : undefined
      if (printer === "echo" || printer === "printf") out.push(current)
    } else for (let i = current.children.length - 1; i >= 0; i--) stack.push(current.children[i]!)
  }
  return out
}

export const commandReadings = (
  analyse: BashSyntax.Analyse,
  node: BashSyntax.SyntaxNode,
  env: WordFields.Env,
  readings: ReadingSet.Readings,
  depth: number
): void => {
  // A here-document belongs to the statement around the command.
  const parent = node.parent
  const words = wordsOf(node, env, parent)
  const stdin: Array<string> = []
  for (const child of node.children) {
    // `bash <(echo …)`, `source <(cat <<EOF …)`: a shell's script file is what a process
    // substitution prints, read as a pipe's (a shell's words say which operand it reads).
    if (child.type === "process_substitution" && child.text.startsWith("<(")) {
      stdin.push(...printedBy(child, env, readings).scripts)
    }
    if (child.type !== "herestring_redirect") continue
    const value = child.namedChildren.at(-1)
    if (value !== undefined) stdin.push(WordFields.fieldsOf(value, env).join(" "))
  }
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
    if (reading._tag === "Words") {
      readings.add(reading.words, reading.guess === true)
      // An interpreter's code may hand a string to a shell: each a guess (see InterpreterCode).
      const code = InterpreterCode.shellLines(reading.words)
      if (code.unread) readings.open ??= "an interpreter's code holds more strings than the engine reads"
      for (const line of code.lines) EmbeddedScripts.scriptReadings(analyse, line, readings, depth, true)
    } else EmbeddedScripts.scriptReadings(analyse, reading.script, readings, depth, reading.guess === true)
  }
  readings.add(words)
  // `$(echo rm -rf /)`, `` `printf rm` -rf / ``: bash runs what the substitution prints as the
  // command's name and first words; the rest of the command follows as written.
  const name = node.childForFieldName("name")
  const named = name?.firstChild
  if (named?.type === "command_substitution" && named.text === name!.text) {
    const rest = node.text.slice(name!.endIndex - node.startIndex)
    for (const printed of printedBy(named, env, readings).scripts) {
      EmbeddedScripts.scriptReadings(analyse, `${printed} ${rest}`, readings, depth)
    }
  }
  // `git $(echo push)`, `git "$(printf push)" origin`: an argument is what its substitution
  // prints; the command is read again with the printed text in its place (a guess: the
  // fields may split otherwise), so a deny rule for `git push` sees it.
  for (const sub of argumentSubstitutions(node, name)) {
    if (++readings.computedArguments > maxReplacedArguments) {
      readings.open ??= "it computes more arguments than the engine follows"
      break
    }
    for (const printed of printedBy(sub, env, readings).scripts) {
      const before = node.text.slice(0, sub.startIndex - node.startIndex)
      EmbeddedScripts.scriptReadings(
        analyse,
        `${before}${printed}${node.text.slice(sub.endIndex - node.startIndex)}`,
        readings,
        depth,
        true
      )
    }
  }
  const use = stdin.length > 0 ? inputUse(unwrapped) : undefined
  if (use !== undefined) {
    for (const text of stdin) readInput(analyse, use, text, readings, depth)
  } else if (stdin.length > 0 && setsStartupFile(node, stripped, env)) {
    // `BASH_ENV=/dev/stdin bash -c : <<< 'rm -rf /'`: a shell started with it runs its input first.
    for (const script of stdin) EmbeddedScripts.scriptReadings(analyse, script, readings, depth, true)
  }
  // Builtins that evaluate a name or an arithmetic operand run the substitutions in
  // it (`printf -v 'a[$(cmd)]'`): quoting does not stop them.
  if (EmbeddedScripts.evaluating.has(stripped[0] ?? "")) {
    for (const word of stripped.slice(1)) EmbeddedScripts.substitutionReadings(analyse, word, readings, depth)
  }
  for (const script of EmbeddedScripts.laterScripts(stripped)) {
    EmbeddedScripts.scriptReadings(analyse, script, readings, depth)
  }
}

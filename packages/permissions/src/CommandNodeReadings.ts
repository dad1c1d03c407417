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

/**
 * `echo 'rm -rf x' | sh`, `printf … | bash`, `cat <<EOF | sh`: what one stage
 * prints, a shell reading its input in the next stage runs.
 */
export const pipedScripts = (
  analyse: BashSyntax.Analyse,
  pipeline: BashSyntax.SyntaxNode,
  env: WordFields.Env,
  readings: ReadingSet.Readings,
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
      EmbeddedScripts.scriptReadings(
        analyse,
        words.slice(1).filter((w) => !/^-[neE]+$/.test(w)).join(" "),
        readings,
        depth,
        guess
      )
    }
    const body = writer.type === "redirected_statement"
      ? writer.children.find((c) => c.type === "heredoc_redirect")?.children.find((c) => c.type === "heredoc_body")
      : undefined
    if (body !== undefined) EmbeddedScripts.scriptReadings(analyse, body.text, readings, depth, guess)
    const herestring = (writer.type === "command" ? writer : writer.namedChildren[0])?.children.find((c) =>
      c.type === "herestring_redirect"
    )
    const value = herestring?.namedChildren.at(-1)
    if (value !== undefined && words?.[0] === "cat") {
      EmbeddedScripts.scriptReadings(analyse, WordFields.fieldsOf(value, env).join(" "), readings, depth, guess)
    }
  }
}

/** The words of a stage's command, as far as the line tells. */
export const commandWords = (stage: BashSyntax.SyntaxNode, env: WordFields.Env): ReadonlyArray<string> | undefined => {
  const command = stage.type === "command" ? stage : stage.namedChildren.find((c) => c.type === "command")
  if (command === undefined) return undefined
  const words: Array<string> = []
  for (const child of command.children) {
    if (child.type === "variable_assignment" || redirectTypes.has(child.type)) continue
    const target = child.type === "command_name" ? child.firstChild : child
    if (target !== null) words.push(...WordFields.fieldsOf(target, env))
  }
  return words
}

export const commandReadings = (
  analyse: BashSyntax.Analyse,
  node: BashSyntax.SyntaxNode,
  env: WordFields.Env,
  readings: ReadingSet.Readings,
  depth: number
): void => {
  const words: Array<string> = []
  const stdin: Array<string> = []
  for (const child of node.children) {
    if (child.type === "variable_assignment") continue
    if (child.type === "herestring_redirect") {
      const value = child.namedChildren.at(-1)
      if (value !== undefined) stdin.push(WordFields.fieldsOf(value, env).join(" "))
      continue
    }
    if (redirectTypes.has(child.type)) continue
    const target = child.type === "command_name" ? child.firstChild : child
    if (target !== null) words.push(...WordFields.fieldsOf(target, env))
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
    else EmbeddedScripts.scriptReadings(analyse, reading.script, readings, depth, reading.guess === true)
  }
  readings.add(words)
  if (unwrapped.mayReadStdinScript) {
    for (const script of stdin) {
      EmbeddedScripts.scriptReadings(analyse, script, readings, depth, !unwrapped.readsStdinScript)
    }
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

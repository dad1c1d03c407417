/**
 * WrapperStep: what one wrapper does with its words, the vocabulary every
 * wrapper's reading is written in. It is apart from the wrapper tables so
 * each family of wrappers (privilege, process, repetition, shells) can
 * share it without importing the unwrapping walk that calls them.
 *
 * @since 0.4.0
 */
import * as OptionGrammar from "./OptionGrammar.js"

// Nesting deeper than any real command line: `sudo sudo …` 100,000 deep must
// stay cheap, and an unknown option multiplies readings.
export const maxDepth = 16
const maxCandidates = 16

const clip = (word: string): string => word.length > 40 ? `${word.slice(0, 40)}…` : word

export type Inner =
  | { readonly _tag: "Words"; readonly words: ReadonlyArray<string> }
  | { readonly _tag: "Script"; readonly script: string }

/** What one wrapper does with its words. */
export interface Step {
  readonly inner: ReadonlyArray<Inner>
  /** The first inner reading is certainly what runs; with no inner reading, nothing but the wrapper runs. */
  readonly certain: boolean
  readonly doubts: ReadonlyArray<string>
  readonly stdin: boolean
}

export const step = (inner: ReadonlyArray<Inner>, certain = true, doubts: ReadonlyArray<string> = []): Step => ({
  inner,
  certain,
  doubts,
  stdin: false
})
export const nothing: Step = step([])
export const stdinShell: Step = { ...nothing, stdin: true }
export const runsWords = (words: ReadonlyArray<string>): Step => step([{ _tag: "Words", words }])
export const runsScript = (script: string): Step => step([{ _tag: "Script", script }])

/**
 * An option we cannot read: the command could start at any later word that
 * is not an option, so each is a reading for deny rules.
 */
export const unsure = (wrapper: string, bad: OptionGrammar.Bad, words: ReadonlyArray<string>): Step => {
  const inner: Array<Inner> = []
  const doubts = [`${wrapper}: ${bad.why} ${clip(bad.word)}, so what it runs is uncertain`]
  for (let i = bad.at + 1; i < words.length; i++) {
    if (words[i]!.startsWith("-")) continue
    if (inner.length === maxCandidates) {
      doubts.push(`${wrapper}: too many words after an unknown option to try each as the command`)
      break
    }
    inner.push({ _tag: "Words", words: words.slice(i) })
  }
  return step(inner, false, doubts)
}

const isAssignment = (word: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)

export const skipAssignments = (words: ReadonlyArray<string>): ReadonlyArray<string> => {
  let i = 0
  while (i < words.length && isAssignment(words[i]!)) i++
  return i === 0 ? words : words.slice(i)
}

/** What a wrapper runs; `undefined` when these words make it no wrapper (it runs as itself). */
export type Handler = (words: ReadonlyArray<string>) => Step | undefined

/** Options, then `positional` operands of its own, then the command. */
export const simple = (
  g: OptionGrammar.OptionGrammar,
  options: {
    readonly positional?: number
    readonly withoutCommand?: Step
    readonly runsNothingWith?: ReadonlyArray<string>
  } = {}
): Handler =>
(words) => {
  const parsed = OptionGrammar.parse(g, words, 1)
  if (parsed.bad !== undefined) return unsure(words[0]!, parsed.bad, words)
  if (OptionGrammar.has(parsed, "help", "version", ...(options.runsNothingWith ?? []))) return nothing
  const positional = options.positional ?? 0
  if (parsed.operands.length < positional) return nothing
  const command = parsed.operands.slice(positional)
  return command.length === 0 ? options.withoutCommand ?? nothing : runsWords(command)
}

export const gnu = { help: "", version: "" }

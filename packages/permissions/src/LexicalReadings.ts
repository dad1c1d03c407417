/**
 * LexicalReadings: the readings of a region the grammar could not parse,
 * read by splitting on operators and blanks. Apart because it does without
 * the tree: crude on purpose, it only ever adds readings for deny rules.
 *
 * @since 0.4.0
 */
import type * as ReadingSet from "./ReadingSet.js"
import * as WordFields from "./WordFields.js"
import * as Wrappers from "./Wrappers.js"

/**
 * Adds the readings of a region the grammar could not parse, read
 * lexically: every stretch between operators is a command whose words are
 * split on blanks, with quotes dropped and braces expanded. Crude on purpose: it only ever adds
 * readings for deny rules.
 *
 * @since 0.3.0
 * @category readings
 */
export const lexicalReadings = (text: string, readings: ReadingSet.Readings): void => {
  // `&` in `2>&1` and `&>f` is part of a redirection, not an operator.
  for (const segment of text.split(/[;|()\n\r`{}]|(?<![<>])&(?!>)|\$\(|<\(|>\(/)) {
    if (readings.full) {
      readings.open ??= "it runs more commands than the engine follows"
      return
    }
    const words = segment.replace(/["']/g, "").split(/[ \t]+/).filter((w) => w !== "")
    if (words.length === 0) continue
    addWords(words, readings)
    // Bash passes no redirection to the command (`rm -rf x >/dev/null 2>&1` runs `rm -rf x`):
    // without them the words are the ones an exact deny rule names.
    const passed = withoutRedirections(words)
    if (passed.length > 0 && passed.length < words.length) addWords(passed, readings)
  }
  // Brace groups written as words (`{rm,-rf,/}`) are a command once expanded.
  let groups = 0
  for (const match of text.matchAll(/\{[^{}\s]*,[^{}\s]*\}/g)) {
    if (++groups > 256 || readings.full) break
    readings.add(WordFields.braceExpand(match[0]))
  }
}

const addWords = (words: ReadonlyArray<string>, readings: ReadingSet.Readings): void => {
  readings.add(words)
  const expanded = WordFields.braceExpand(words.join(" "))
  if (expanded.length > 1) readings.add(expanded)
  for (const reading of Wrappers.unwrap(words).readings) {
    if (reading._tag === "Words") readings.add(reading.words, reading.guess === true)
  }
}

/** A word that is a redirection (`2>&1`, `>f`, `<in`); one that is the operator alone (but `>&-`) takes the next word. */
const redirection = /^[0-9]*(?:&>>?|[<>]+[&|]?-?)/

/** The words but the redirections: an operator written alone (`>`, `2>`) takes the word after it. */
const withoutRedirections = (words: ReadonlyArray<string>): Array<string> => {
  const passed: Array<string> = []
  let skip = false
  for (const word of words) {
    if (skip) {
      skip = false
      continue
    }
    const operator = redirection.exec(word)
    if (operator === null) passed.push(word)
    else skip = operator[0].length === word.length && !word.endsWith("-")
  }
  return passed
}

/**
 * The words of each stage that the start of a region pipes into, read
 * lexically: ` 2>&1 | sh` has one, `sh`; ` >f | cat | bash -x; ls` two.
 * Redirections are dropped (`2>&1` is no operator), and the stages end at
 * the first operator that is not a pipe. Crude as the readings above: it
 * only finds the readers of a here-document whose line the grammar could
 * not parse.
 *
 * @since 0.4.0
 * @category readings
 */
export const pipedStages = (text: string): ReadonlyArray<ReadonlyArray<string>> => {
  // `&` in `2>&1` and `&>f` is part of a redirection, not an operator.
  const parts = text.split(/(\|\||&&|\|&?|[;\n()`{}]|(?<![<>])&(?!>))/)
  const stages: Array<ReadonlyArray<string>> = []
  for (let i = 1; i + 1 < parts.length; i += 2) {
    if (parts[i] !== "|" && parts[i] !== "|&") break
    const words = withoutRedirections(parts[i + 1]!.replace(/["']/g, "").split(/[ \t]+/).filter((w) => w !== ""))
    if (words.length > 0) stages.push(words)
  }
  return stages
}

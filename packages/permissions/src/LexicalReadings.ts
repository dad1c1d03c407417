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
  for (const segment of text.split(/[;&|()\n\r`{}]|\$\(|<\(|>\(/)) {
    if (readings.full) {
      readings.open ??= "it runs more commands than the engine follows"
      return
    }
    const words = segment.replace(/["']/g, "").split(/[ \t]+/).filter((w) => w !== "")
    if (words.length === 0) continue
    readings.add(words)
    const expanded = WordFields.braceExpand(words.join(" "))
    if (expanded.length > 1) readings.add(expanded)
    for (const reading of Wrappers.unwrap(words).readings) {
      if (reading._tag === "Words") readings.add(reading.words, reading.guess === true)
    }
  }
  // Brace groups written as words (`{rm,-rf,/}`) are a command once expanded.
  let groups = 0
  for (const match of text.matchAll(/\{[^{}\s]*,[^{}\s]*\}/g)) {
    if (++groups > 256 || readings.full) break
    readings.add(WordFields.braceExpand(match[0]))
  }
}

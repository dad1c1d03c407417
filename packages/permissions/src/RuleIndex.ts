/**
 * RuleIndex: a rule list's rules by the program they name, so an allow
 * rule is looked up for a command instead of every rule's pattern being
 * tried on it. Apart from the matching because it only narrows the list:
 * `RuleMatch` asks the same question of each rule it is given, in the
 * list's order, and the index only leaves out rules that cannot match.
 *
 * Why a rule can be left out: `Rule.matchesCommand` joins a command's words
 * with single spaces and matches the pattern against the whole text, from
 * its start. A pattern whose first word is literal (`head`: `git` in
 * `git * main`) compiles to that text followed by a space or the end, so the
 * joined words must start with it the same way: their text up to the first
 * space is the head's up to its first space. That is the key, on both sides
 * (a word may hold a space: `'git status'` is one word, and matches
 * `Bash(git status)` as the list did). Every other rule (a first word with
 * a wildcard, a rule without a specifier, one that is no command pattern)
 * stays in every lookup.
 *
 * Only frozen lists are indexed (and the index kept with the list): a list
 * changed after its index was made would be matched against rules it no
 * longer holds. The engine freezes the lists it builds once per rule set
 * (`RuleBook`); any other list is matched whole, as before.
 *
 * @since 0.4.0
 */
import * as Either from "effect/Either"
import type * as CompiledRule from "./CompiledRule.js"

/**
 * @since 0.4.0
 * @category models
 */
export interface RuleIndex {
  readonly rules: ReadonlyArray<CompiledRule.Compiled>
  /**
   * The rules that could match `words` as a command, in the list's order:
   * the rules whose head has their key, and every rule without one.
   */
  readonly forWords: (words: ReadonlyArray<string>) => ReadonlyArray<CompiledRule.Compiled>
  /** The first rule without a specifier (it covers every call of the tool), if any. */
  readonly whole: CompiledRule.Compiled | undefined
}

/** The text up to the first space: the joined words', or a head's. */
const keyOf = (text: string): string => {
  const space = text.indexOf(" ")
  return space < 0 ? text : text.slice(0, space)
}

/** The key of a rule that can only match commands with that key, or `undefined` for a rule kept for every command. */
const ruleKey = (rule: CompiledRule.Compiled): string | undefined => {
  if (rule.rule.specifier === undefined || rule.command === undefined || Either.isLeft(rule.command)) return undefined
  const head = rule.command.right.head
  return head === undefined ? undefined : keyOf(head)
}

const make = (rules: ReadonlyArray<CompiledRule.Compiled>): RuleIndex => {
  const keys = rules.map(ruleKey)
  const unkeyed = Object.freeze(rules.filter((_, i) => keys[i] === undefined))
  const byKey = new Map<string, ReadonlyArray<CompiledRule.Compiled>>()
  for (const key of new Set(keys)) {
    if (key === undefined) continue
    // The list's order is kept: the first rule that matches is the one that allows.
    byKey.set(key, Object.freeze(rules.filter((_, i) => keys[i] === key || keys[i] === undefined)))
  }
  return {
    rules,
    // The first word's key is the joined words' key: the join puts a space after it.
    forWords: (words) => words.length === 0 ? unkeyed : byKey.get(keyOf(words[0]!)) ?? unkeyed,
    whole: rules.find((rule) => rule.rule.specifier === undefined)
  }
}

const indexes = new WeakMap<ReadonlyArray<CompiledRule.Compiled>, RuleIndex>()

/**
 * The index of a frozen rule list, made once; `undefined` for a list that
 * could still change.
 *
 * @since 0.4.0
 * @category constructors
 */
export const of = (rules: ReadonlyArray<CompiledRule.Compiled>): RuleIndex | undefined => {
  if (!Object.isFrozen(rules)) return undefined
  let index = indexes.get(rules)
  if (index === undefined) indexes.set(rules, index = make(rules))
  return index
}

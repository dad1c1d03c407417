/**
 * The rule index (`RuleIndex`) only leaves out rules that cannot match: for
 * any rule list and any command, every rule that matches it (and every rule
 * without a specifier) is among the candidates, in the list's order; and an
 * allow match over an indexed list decides every line as over the same
 * list unindexed. The rule set the engine makes once per version of the
 * session's rules (`RuleBook.allowSet`) is reused, and replaced when the
 * session's rules are.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as CommandLine from "../src/CommandLine.js"
import * as ReadOnlyCommands from "../src/ReadOnlyCommands.js"
import type * as Rule from "../src/Rule.js"
import * as RuleBook from "../src/RuleBook.js"
import * as RuleIndex from "../src/RuleIndex.js"
import * as RuleMatch from "../src/RuleMatch.js"
import * as ShellGrammar from "./differential/ShellGrammar.js"
import { engineWith, outcomeOf } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

const RUNS = Number(process.env.PROPERTY_RUNS ?? 200)

const location: Rule.Location = { workspaceRoot: "/work/app", homeDirectory: "/home/dev" }

/** Rules of every shape the index tells apart: literal heads, a head with a space, wildcards first, none. */
const ruleTexts = [
  "Bash",
  "Bash(git status)",
  "Bash(git:*)",
  "Bash(git * main)",
  "Bash(git push --force:*)",
  "Bash('git status' -s)",
  "Bash('git status')",
  "Bash(npm test:*)",
  "Bash(npm run build:*)",
  "Bash(npm)",
  "Bash(ls*)",
  "Bash(ls *)",
  "Bash(* --version)",
  "Bash(*test*)",
  "Bash(make)",
  "Bash(python3 -c:*)",
  "Bash(rm -rf:*)",
  "Bash('' x)",
  "Read(src/**)",
  "WebFetch(domain:example.com)",
  ...ReadOnlyCommands.rules
]
const wordPool = [
  "git",
  "status",
  "git status",
  "'git status'",
  "main",
  "npm",
  "test",
  "run",
  "build",
  "ls",
  "lsof",
  "-la",
  "--version",
  "--force",
  "push",
  "",
  " ",
  "x",
  "python3",
  "-c",
  "make",
  "rm",
  "-rf",
  "cat",
  "git  status",
  "*"
]

const compile = (texts: ReadonlyArray<string>) => Either.getOrThrow(RuleMatch.compileAll(texts, location, "allow"))

const covers = (rule: RuleMatch.Compiled, words: ReadonlyArray<string>) =>
  rule.rule.specifier === undefined ||
  (rule.command !== undefined && Either.isRight(rule.command) && words.length > 0 &&
    rule.command.right.regex.test(words.join(" ")))

/** Whether `part` is `whole` with some elements left out, the rest in order. */
const inOrder = <A>(part: ReadonlyArray<A>, whole: ReadonlyArray<A>) => {
  let at = 0
  for (const item of part) {
    while (at < whole.length && whole[at] !== item) at++
    if (at++ >= whole.length) return false
  }
  return true
}

describe("RuleIndex", () => {
  it("keeps every rule that could match a command, in the list's order", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.shuffledSubarray(ruleTexts),
        FastCheck.array(FastCheck.constantFrom(...wordPool), { maxLength: 4 }),
        (texts, words) => {
          const rules = Object.freeze(compile(texts))
          const candidates = RuleIndex.of(rules)!.forWords(words)
          for (const rule of rules) {
            if (covers(rule, words)) assert.include(candidates, rule, `${rule.text} for ${JSON.stringify(words)}`)
          }
          assert.isTrue(inOrder(candidates, rules))
        }
      ),
      { numRuns: RUNS * 10 }
    )
  })

  it("leaves out the rules of other programs, and indexes only a list that cannot change", () => {
    const rules = Object.freeze(compile(["Bash(git status)", "Bash(npm test:*)", "Bash(ls*)", "Bash"]))
    const texts = (words: ReadonlyArray<string>) => RuleIndex.of(rules)!.forWords(words).map((rule) => rule.text)
    assert.deepStrictEqual(texts(["npm", "test"]), ["Bash(npm test:*)", "Bash(ls*)", "Bash"])
    assert.deepStrictEqual(texts(["git", "status"]), ["Bash(git status)", "Bash(ls*)", "Bash"])
    // One word holding a space joins as two: `'git status'` still meets `git status`, as the list did.
    assert.deepStrictEqual(texts(["git status"]), ["Bash(git status)", "Bash(ls*)", "Bash"])
    assert.deepStrictEqual(texts(["lsof"]), ["Bash(ls*)", "Bash"])
    assert.deepStrictEqual(texts([]), ["Bash(ls*)", "Bash"])
    assert.strictEqual(RuleIndex.of(rules)!.whole?.text, "Bash")
    assert.strictEqual(RuleIndex.of(rules), RuleIndex.of(rules))
    assert.isUndefined(RuleIndex.of([...rules]))
  })

  it.effect(
    "an allow match over an indexed list decides every line as over the list itself",
    () =>
      Effect.gen(function*() {
        const service = yield* CommandLine.make
        const texts = ruleTexts.filter((text) => text !== "Bash")
        const lines = [...ShellGrammar.knownEvasions, ...ShellGrammar.sample(1_500, 20_251_207)]
        let allowed = 0
        for (const some of [texts, texts.slice().reverse(), texts.filter((_, i) => i % 3 !== 0)]) {
          const list = compile(some)
          const frozen = Object.freeze([...list])
          for (const line of lines) {
            const target = RuleMatch.analyse({ _tag: "Command", command: line }, location, service)
            const indexed = RuleMatch.allowOrGap(frozen, target, location)
            assert.deepStrictEqual(indexed, RuleMatch.allowOrGap(list, target, location), line)
            if (Either.isRight(indexed)) allowed++
          }
        }
        // Allowed lines are where the index decides: a sample with none would prove nothing.
        assert.isAbove(allowed, lines.length / 10)
      }),
    120_000
  )

  it.effect("the engine's allow rule set is made once per version of the session's rules", () =>
    Effect.gen(function*() {
      const book = yield* RuleBook.make({ workspaceRoot: "/work/app", allow: ["Bash(npm test:*)"] })
      const session = Object.freeze(compile(["Bash(make)"]))
      const once = book.allowSet(session, "bash", false)
      assert.strictEqual(book.allowSet(session, "bash", false), once)
      assert.isTrue(Object.isFrozen(once))
      assert.deepStrictEqual(
        once.map((rule) => rule.text),
        ["Bash(npm test:*)", "Bash(make)", ...ReadOnlyCommands.rules]
      )
      // A new version of the session's rules, acceptEdits, another tool: another set.
      const next = Object.freeze([...session, ...compile(["Bash(ls)"])])
      assert.include(book.allowSet(next, "bash", false).map((rule) => rule.text), "Bash(ls)")
      assert.notInclude(book.allowSet(session, "bash", false).map((rule) => rule.text), "Bash(ls)")
      assert.isAbove(book.allowSet(session, "bash", true).length, once.length)
      assert.deepStrictEqual(book.allowSet(session, "read_file", false), [])
    }))

  it.effect("a mode change meets the rule set of the new mode, both ways", () =>
    Effect.gen(function*() {
      // acceptEdits' file commands join the set only in acceptEdits: the set made for one mode
      // must never answer for the other, whichever came first.
      for (const first of ["default", "acceptEdits"] as const) {
        const subject = yield* engineWith({ mode: first })
        const run = () => outcomeOf(subject, request(bash, { command: "mkdir build" }))
        const expected = { default: "ask", acceptEdits: "allow:mode" } as const
        for (const mode of [first, first === "default" ? "acceptEdits" : "default", first] as const) {
          yield* subject.engine.setMode(mode)
          assert.strictEqual(yield* run(), expected[mode], `${mode} after ${first}`)
        }
      }
    }))
})

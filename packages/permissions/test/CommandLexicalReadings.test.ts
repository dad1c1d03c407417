/**
 * A region the grammar cannot parse (or a line too long to parse) is read
 * lexically, and those readings are all a deny rule gets there: they must be
 * the commands written, sure where bash surely runs them and guesses where only
 * an unknown program might, brace groups expanded within a fixed bound, and
 * the region open once the bound on readings drops any, so ask rules still
 * apply.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as CommandLine from "../src/CommandLine.js"
import * as LexicalReadings from "../src/LexicalReadings.js"
import * as ReadingSet from "../src/ReadingSet.js"

const lexical = (text: string) => {
  const set = new ReadingSet.Readings()
  LexicalReadings.lexicalReadings(text, set)
  return set
}

/** Past `CommandLine`'s bound on a line's length (64 KiB), a line is read lexically only. */
const tooLong = (line: string) => `${line}; : ${"x".repeat(64 * 1024)}`

describe("a region read lexically", () => {
  it("each stretch is one reading of its words, and nothing else", () => {
    assert.deepStrictEqual(lexical("rm -rf x").all, [["rm", "-rf", "x"]])
    assert.deepStrictEqual(lexical("ls  -l\t\ta; cat b").all, [["ls", "-l", "a"], ["cat", "b"]])
  })

  it.effect("a wrapper the engine knows runs its command for sure; an unknown program's later words only maybe", () =>
    Effect.gen(function*() {
      const service = yield* CommandLine.make
      const sure = service.analyse(tooLong("sudo rm -rf /"))
      assert.deepInclude(sure.readings, ["rm", "-rf", "/"])
      assert.deepStrictEqual(sure.guesses, [])
      const guessed = service.analyse(tooLong("taskset 0x1 rm -rf /"))
      assert.deepInclude(guessed.readings, ["rm", "-rf", "/"])
      assert.deepStrictEqual(guessed.guesses, [["rm", "-rf", "/"]])
    }))

  it("a stretch with redirections is also read without them: bash passes none to the command", () => {
    // An operator alone takes the next word; the `&` of `2>&1`, `>&2`, `&>f` separates no command.
    assert.deepInclude(lexical("git push >/dev/null 2>&1").all, ["git", "push"])
    assert.deepInclude(lexical("git 2> err push > out").all, ["git", "push"])
    assert.deepInclude(lexical("<in git &>>log push 2>&- >&2").all, ["git", "push"])
    assert.notDeepInclude(lexical("git push 2>&1").all, ["1"])
    assert.deepStrictEqual(lexical("a & b |& c").all, [["a"], ["b"], ["c"]])
    // The words as written stay a reading too; a stretch of redirections alone adds no empty one.
    assert.deepInclude(lexical("git push >/dev/null").all, ["git", "push", ">/dev/null"])
    assert.notDeepInclude(lexical(">/dev/null").all, [])
  })

  it.effect("a deny rule naming a command exactly holds where the grammar fails and the command has redirections", () =>
    Effect.gen(function*() {
      const service = yield* CommandLine.make
      // The grammar ends the here-document at `Ex )` (bash at `E`), fails on the rest and reads it lexically.
      const analysis = service.analyse("cat <<E >/dev/null\nEx )\nE\ngit push >/dev/null 2>&1; echo `}`")
      assert.deepInclude(analysis.readings, ["git", "push"])
    }))

  it("a brace group written as words is a command once expanded, whatever the length of its parts", () => {
    const read = lexical("(x {rm,-rf,~/x}").all.map((words) => words.join(" "))
    assert.include(read, "rm -rf ~/x")
  })

  it("brace groups are expanded up to 256 in a region: a hostile region must not cost without bound", () => {
    const groups = Array.from({ length: 300 }, (_, i) => `{c${i},x}`).join(" ")
    const read = lexical(groups).all.map((words) => words.join(" "))
    assert.include(read, "c255 x")
    assert.notInclude(read, "c256 x")
    assert.isUndefined(lexical(groups).open)
  })

  it("once the bound on readings drops a stretch, the region is open: ask and deny rules still apply", () => {
    // 1,998 commands, then a wrapper whose inner command is the 2,000th reading, then one more command.
    const commands = Array.from({ length: ReadingSet.maxReadings - 2 }, (_, i) => `c${i}`)
    const set = lexical([...commands, "sudo rm x", "rm -rf /"].join(";"))
    assert.strictEqual(set.all.length, ReadingSet.maxReadings)
    assert.deepStrictEqual(set.all.at(-1), ["rm", "x"])
    assert.strictEqual(set.open, "it runs more commands than the engine follows")
  })
})

describe("the stages a region pipes into, read lexically", () => {
  it("redirections are dropped and no operator; the stages end at the first operator that is no pipe", () => {
    assert.deepStrictEqual(LexicalReadings.pipedStages(" 2>&1 | sh"), [["sh"]])
    assert.deepStrictEqual(LexicalReadings.pipedStages(" >f | 2> /dev/null cat -n |& bash -x; ls | sh"), [
      ["cat", "-n"],
      ["bash", "-x"]
    ])
    assert.deepStrictEqual(LexicalReadings.pipedStages(" &>/dev/null | 2>&- sh"), [["sh"]])
    assert.deepStrictEqual(LexicalReadings.pipedStages(" x && y | sh"), [])
    assert.deepStrictEqual(LexicalReadings.pipedStages(" x & y | sh"), [])
    assert.deepStrictEqual(LexicalReadings.pipedStages(" x || y | sh"), [])
  })
})

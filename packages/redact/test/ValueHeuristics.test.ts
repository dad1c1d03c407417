import { assert, describe, it } from "@effect/vitest"
import * as Redactor from "../src/Redactor.js"
import * as Values from "../src/Values.js"

/**
 * The boundaries of the value heuristics, one promise a case: what the
 * module's comments say a placeholder, an example phrase, a placeholder
 * token body and a random value look like, just inside and just outside
 * each limit (48 characters, 12, 8, 10, 20, two digits, 4 bits a character).
 */
const redactor = Redactor.make({ personalData: false })

type Case = readonly [name: string, value: string, expected: boolean]

const check = (judge: (value: string) => boolean, cases: ReadonlyArray<Case>) => {
  for (const [name, value, expected] of cases) {
    it(`${name}: ${JSON.stringify(value)} → ${expected}`, () => {
      assert.strictEqual(judge(value), expected)
    })
  }
}

describe("isPlaceholder: example words and the digits a person types", () => {
  check(Values.isPlaceholder, [
    // "few" digits: one or two are typed whatever they are.
    ["a word and two digits", "test42", true],
    ["a word and one digit", "demo7", true],
    ["a run up", "test1234", true],
    ["a run down", "test9876", true],
    ["one digit repeated", "test0000", true],
    ["three digits neither up, down nor repeated", "test4821", false],
    ["steps never -1 are not a run down", "test4829", false],
    ["every digit group must be typed, not just one", "demo1234-7319", false],
    ["every digit group typed", "demo1234-9876", true]
  ])
})

describe("isPlaceholder: at most 48 characters", () => {
  check(Values.isPlaceholder, [
    ["48 letters of example words", "yourapitokenhereyourapitokenhereyourapitokenhere", true],
    ["48 characters of example words", "test-test-test-test-test-test-test-test-test-dev", true],
    [
      "49 characters of example words are no longer an example",
      "test-test-test-test-test-test-test-test-test-demo",
      false
    ]
  ])
})

describe("isPlaceholder: a value with no letter is not made of example words", () => {
  check(Values.isPlaceholder, [
    ["typed digits alone", "1234-5678", false],
    ["typed digits and symbols", "1234567+/", false]
  ])
})

describe("isPlaceholder: one example word spelled with digits, up to 12 characters", () => {
  check(Values.isPlaceholder, [
    ["P@ssw0rd", "P@ssw0rd", true],
    ["a four-letter word", "T3st", true],
    ["a word in digits only", "7357", true],
    ["12 characters", "Pl4c3h0ld3r!", true],
    ["13 characters is a phrase's length, not a word's", "Pl4c3h0ld3r!!", false],
    ["words shorter than four letters are too easily spelled by chance", "d3v", false],
    ["a three-letter word", "k3y", false]
  ])
})

describe("isPlaceholderToken: a token body that stands for one", () => {
  check(Values.isPlaceholderToken, [
    ["one character repeated across groups", "0000-0000-0000", true],
    ["one letter repeated across groups", "aaaa_aaaa.aaaa", true],
    ["number groups aside, a word of the examples", "123-your-token-here", true],
    ["number groups aside, two digits", "1-42-yourtokenhere", true],
    ["groups with no digit and no word are random", "kXpQvLmN-wRtBzHq", false],
    ["groups with no digit and no word, three of them", "kXpQ.vLmN_wRtB", false],
    ["all masked", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", true],
    ["masked for half of it, the rest shown", "A1b2C3d4e5F6g7H8i9xxxxxxxxxxxxxxxxxx", true],
    ["two masked runs making half", "ab12xxxxxxxxcd34########", true],
    ["one masked run short of half", "A1b2C3d4e5F6g7H8i9Jxxxxxxxxxxxxxxxxx", false],
    ["a run of xxxx inside a random body is not a mask", "00A0aa00axxxx0AAaaA00AaA00AA0aAaAaaA", false],
    ["three x in a row are no run", "xxx0A1b", false]
  ])
})

describe("a vendor token whose random body holds xxxx", () => {
  it("is redacted, no 8-character window of it left", () => {
    // Found by the planted-token law: fast-check's biased strings hold `xxxx` often.
    const token = "gh" + "p_00A0aa00axxxx0AAaaA00AaA00AA0aAaAaaA"
    const text = redactor.redact(`token ${token} end`).text
    for (let i = 0; i + 8 <= token.length; i++) assert.notInclude(text, token.slice(i, i + 8))
  })
})

describe("looksRandom: at least 8 characters and 3 bits a character", () => {
  check(Values.looksRandom, [
    ["8 distinct characters (exactly 3 bits)", "kX9pQ2vL", true],
    ["7 characters", "kX9pQ2v", false],
    ["8 characters with a repeat (under 3 bits)", "kX9pQ2vk", false]
  ])
})

describe("looksRandom: without digits, mixed case and length", () => {
  check(Values.looksRandom, [
    ["mixed case, 20 characters, over 4 bits", "kXpQvLmNwRtBzHqJdFgS", true],
    ["mixed case, 19 characters", "kXpQvLmNwRtBzHqJdFg", false],
    ["mixed case, 16 characters", "kXpQvLmNwRtBzHqJ", false],
    ["mixed case, 32 characters, exactly 4 bits", "kXpQvLmNwRtBzHqJBqXkNvJmHzQtLpRw", true],
    ["mixed case, 32 characters, under 4 bits", "kXpQvLmNwRtBzHqJkXpQvLmNwRtBzHqk", false],
    ["lower case only, 20 characters", "kxpqvlmnwrtbzhqjdfgs", false],
    ["upper case only, 20 characters", "KXPQVLMNWRTBZHQJDFGS", false],
    ["mixed case and a symbol, 10 characters", "kX#pQ-vLmN", true],
    ["mixed case and a symbol, 9 characters", "kX#pQ-vLm", false],
    ["lower case and symbols, 10 characters", "kx#pq-vlmn", false],
    ["upper case and symbols, 10 characters", "KX#PQ-VLMN", false],
    ["mixed case, 10 characters, no symbol", "kXzpQwvLmN", false]
  ])
})

describe("assignments follow the value heuristics", () => {
  const cases: ReadonlyArray<readonly [name: string, value: string, removed: boolean]> = [
    ["8 random characters", "kX9pQ2vL", true],
    ["an example phrase", "demo1234", false],
    ["a word and digits nobody types", "demo4821", true],
    ["mixed case, 20 letters", "kXpQvLmNwRtBzHqJdFgS", true],
    ["lower case, 20 letters", "kxpqvlmnwrtbzhqjdfgs", false],
    ["mixed case and a symbol, 10 characters", "kX#pQ-vLmN", true],
    ["mixed case and a symbol, 9 characters", "kX#pQ-vLm", false]
  ]
  for (const [name, value, removed] of cases) {
    it(`${name}: API_TOKEN=${value}`, () => {
      const { text } = redactor.redact(`API_TOKEN=${value}\n`)
      assert.strictEqual(text, removed ? "API_TOKEN=[REDACTED:secret-assignment]\n" : `API_TOKEN=${value}\n`)
    })
  }
})

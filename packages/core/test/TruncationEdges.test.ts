import { assert, describe, it } from "@effect/vitest"
import * as Truncation from "../src/Truncation.js"

const char = (code: number) => String.fromCharCode(code)

describe("Truncation at its edges", () => {
  describe("head", () => {
    it("returns text exactly max long whole, even with a newline near its end", () => {
      // Had it been cut, the newline within a fifth of the budget would have pulled the cut back to it.
      assert.strictEqual(Truncation.head("abcdefgh\nij", 11), "abcdefgh\nij")
      assert.strictEqual(Truncation.head("abcdefgh\nij", 12), "abcdefgh\nij")
    })

    it("only looks for a newline among the characters it may keep", () => {
      // The newline right after the budget would make the head one character too long.
      assert.strictEqual(Truncation.head("abcde\nfg", 5), "abcde")
      assert.strictEqual(Truncation.head("abcd\nfg", 4), "abcd")
    })

    it("moves back to a newline exactly a fifth of the budget away, not one further", () => {
      // max 10: a fifth is 2, so a line ending at 8 is within reach and one ending at 7 is not.
      assert.strictEqual(Truncation.head("abcdefg\nxyzw", 10), "abcdefg\n")
      assert.strictEqual(Truncation.head("abcdef\nwxyzv", 10), "abcdef\nwxy")
    })

    it("a newline at index 0 is a line boundary like any other", () => {
      assert.strictEqual(Truncation.head("\nabcde", 1), "\n")
      assert.strictEqual(Truncation.head("\nabcde", 2), "\na")
    })

    it("drops the high half of a pair at the cut, for the first and last high surrogate", () => {
      // U+10000 is D800 DC00 and U+10FFFF is DBFF DFFF: the cut at 2 falls between the halves.
      assert.strictEqual(Truncation.head("a\u{10000}b", 2), "a")
      assert.strictEqual(Truncation.head("a\u{10ffff}b", 2), "a")
      assert.strictEqual(Truncation.head("a\u{10000}b", 3), "a\u{10000}")
    })

    it("keeps characters just outside the high surrogates", () => {
      assert.strictEqual(Truncation.head(`a${char(0xd7ff)}b`, 2), `a${char(0xd7ff)}`)
      assert.strictEqual(Truncation.head(`a${char(0xe000)}b`, 2), `a${char(0xe000)}`)
    })
  })

  describe("tail", () => {
    it("returns text exactly max long whole", () => {
      assert.strictEqual(Truncation.tail("ab\ncdefgh", 9), "ab\ncdefgh")
    })

    it("moves forward to a newline less than a fifth of the budget away, not to one at a fifth", () => {
      // max 10 of 20 starts at 10; a fifth is 2, so a newline at 11 is within reach and one at 12 is not.
      assert.strictEqual(Truncation.tail("0123456789a\nbcdefghi", 10), "bcdefghi")
      assert.strictEqual(Truncation.tail("0123456789ab\ncdefghi", 10), "ab\ncdefghi")
    })

    it("a budget that is not a whole number still bounds the tail", () => {
      // 2.5 of 3 characters starts at 0.5, which indexOf reads as 0: the newline there is stepped over.
      assert.strictEqual(Truncation.tail("\nab", 2.5), "ab")
      // Under one character nothing fits, not even a newline that a cut would end after.
      assert.strictEqual(Truncation.head("\nab", 0.5), "")
      assert.strictEqual(Truncation.tail("ab\n", 0.5), "")
      assert.strictEqual(Truncation.head("\nab", Number.NaN), "")
      assert.strictEqual(Truncation.tail("ab\n", Number.NaN), "")
    })

    it("drops the low half of a pair at the cut, for the first and last low surrogate", () => {
      assert.strictEqual(Truncation.tail("a\u{10000}b", 2), "b")
      assert.strictEqual(Truncation.tail("a\u{10ffff}b", 2), "b")
      assert.strictEqual(Truncation.tail("a\u{10ffff}b", 3), "\u{10ffff}b")
    })

    it("keeps characters just outside the low surrogates", () => {
      assert.strictEqual(Truncation.tail(`a${char(0xdbff)}b`, 2), `${char(0xdbff)}b`)
      assert.strictEqual(Truncation.tail(`a${char(0xe000)}b`, 2), `${char(0xe000)}b`)
    })
  })

  describe("headTail", () => {
    it("keeps text exactly max long whole, with nothing omitted", () => {
      assert.deepStrictEqual(Truncation.headTail("abcdefghij", 10), { head: "abcdefghij", tail: "", omitted: 0 })
    })

    it("one character over max splits into head and tail around what it omits", () => {
      assert.deepStrictEqual(Truncation.headTail("abcdefghijk", 10), { head: "abc", tail: "efghijk", omitted: 1 })
    })
  })

  describe("estimateTokens", () => {
    // Four of a code: one token if narrow (four per token), four if wide (one each).
    const tokensOfFour = (code: number) => Truncation.estimateTokens(char(code).repeat(4))

    const wideRanges: ReadonlyArray<readonly [number, number]> = [
      [0x2e80, 0x9fff], // CJK radicals through unified ideographs
      [0xac00, 0xd7af], // Hangul syllables
      [0xf900, 0xfaff], // CJK compatibility ideographs
      [0xff00, 0xffef] // halfwidth and fullwidth forms
    ]

    for (const [first, last] of wideRanges) {
      const hex = (code: number) => code.toString(16)
      it(`counts ${hex(first)}..${hex(last)} as one token each, and the codes just outside as narrow`, () => {
        assert.strictEqual(tokensOfFour(first), 4)
        assert.strictEqual(tokensOfFour(last), 4)
        assert.strictEqual(tokensOfFour(first - 1), 1)
        assert.strictEqual(tokensOfFour(last + 1), 1)
      })
    }

    it("rounds narrow characters up to whole tokens and adds the wide ones", () => {
      assert.strictEqual(Truncation.estimateTokens(""), 0)
      assert.strictEqual(Truncation.estimateTokens("abcd"), 1)
      assert.strictEqual(Truncation.estimateTokens("abcde"), 2)
      assert.strictEqual(Truncation.estimateTokens("ab漢字"), 3)
      assert.strictEqual(Truncation.measure("ab漢字", "chars"), 4)
      assert.strictEqual(Truncation.measure("ab漢字", "tokens"), 3)
    })
  })

  describe("charsWithin", () => {
    it("is how many characters fit, whole text when all of it fits", () => {
      assert.strictEqual(Truncation.charsWithin("abcdefgh", 1, "tokens"), 4)
      assert.strictEqual(Truncation.charsWithin("abcdefgh", 2, "tokens"), 8)
      assert.strictEqual(Truncation.charsWithin("漢字ab", 2, "tokens"), 2)
      assert.strictEqual(Truncation.charsWithin("漢字ab", 3, "tokens"), 4)
      assert.strictEqual(Truncation.charsWithin("abc", 0, "tokens"), 0)
      assert.strictEqual(Truncation.charsWithin("abc", 2, "chars"), 2)
      assert.strictEqual(Truncation.charsWithin("abc", 5, "chars"), 3)
    })
  })

  describe("errorLines", () => {
    it("stops at maxLines, dropping error lines after it", () => {
      assert.deepStrictEqual(Truncation.errorLines("error a\nerror b\nerror c", 2), ["error a", "error b"])
    })

    it("keeps each distinct line once, also when two long lines share the same bounded start", () => {
      assert.deepStrictEqual(Truncation.errorLines("error a\nok\nerror a\nerror b\nerror a"), ["error a", "error b"])
      // Both lines bound to the same "error: xx…" and so say the same thing.
      assert.deepStrictEqual(Truncation.errorLines("error: xxxxA\nerror: xxxxB", 20, 9), ["error: xx…"])
    })

    it("a leading newline starts an empty first line, not one line of the whole text", () => {
      assert.deepStrictEqual(Truncation.errorLines("\nerror a\nerror b"), ["error a", "error b"])
    })

    it("trims lines, so indentation and a CR do not make a line distinct", () => {
      assert.deepStrictEqual(Truncation.errorLines("   error: x  \r\n\terror: x\n \n\n"), ["error: x"])
    })

    it("keeps a line exactly maxLineChars long whole, and bounds a longer one with an ellipsis", () => {
      assert.deepStrictEqual(Truncation.errorLines("error: abc", 20, 10), ["error: abc"])
      assert.deepStrictEqual(Truncation.errorLines("error: abcd", 20, 10), ["error: abc…"])
      assert.deepStrictEqual(Truncation.errorLines("fatal", 20, 300), ["fatal"])
    })

    it("finds an error on a last line that ends without a newline", () => {
      assert.deepStrictEqual(Truncation.errorLines("ok\nstill ok\nexit code 2"), ["exit code 2"])
    })
  })
})

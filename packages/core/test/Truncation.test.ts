import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as Truncation from "../src/Truncation.js"

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

/** True when the text has no half of a surrogate pair on its own. */
const isWellFormed = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (isHighSurrogate(code)) {
      if (!isLowSurrogate(text.charCodeAt(i + 1))) return false
      i++
    } else if (isLowSurrogate(code)) return false
  }
  return true
}

/**
 * Text the way tools print it: printable graphemes (emoji, combining marks,
 * astral characters) mixed with line breaks and multi-unit emoji.
 */
const text = FastCheck.array(
  FastCheck.oneof(
    FastCheck.string({ unit: "grapheme", maxLength: 12 }),
    FastCheck.string({ unit: "binary", maxLength: 6 }),
    FastCheck.constantFrom("\n", "\r\n", "😀", "👩‍👩‍👧", "𝔘𝔫𝔦", "é", "漢字", " ")
  ),
  { maxLength: 40 }
).map((parts) => parts.join(""))

const max = FastCheck.integer({ min: 1, max: 120 })

describe("Truncation", () => {
  it("a budget of zero keeps nothing, and text that fits is kept whole without a tail", () => {
    assert.strictEqual(Truncation.head("\nabc", 0), "")
    assert.strictEqual(Truncation.tail("abc\n", 0), "")
    assert.deepStrictEqual(Truncation.headTail("abcdefghij", 100), { head: "abcdefghij", tail: "", omitted: 0 })
  })

  describe("head", () => {
    it.prop("is a prefix of at most max characters that never ends inside a surrogate pair", { text, max }, ({
      max,
      text
    }) => {
      const head = Truncation.head(text, max)
      assert.isAtMost(head.length, max)
      assert.isTrue(text.startsWith(head))
      if (head.length > 0) assert.isFalse(isHighSurrogate(head.charCodeAt(head.length - 1)))
      assert.isTrue(isWellFormed(head))
    })

    it.prop("returns a text that fits unchanged", { text, extra: FastCheck.nat(50) }, ({ extra, text }) => {
      assert.strictEqual(Truncation.head(text, text.length + extra), text)
    })

    it.prop("keeps at least all but a fifth of the budget (and one unit for a surrogate pair)", { text, max }, ({
      max,
      text
    }) => {
      FastCheck.pre(text.length > max)
      const head = Truncation.head(text, max)
      assert.isAtLeast(head.length, Math.min(max - Math.floor(max * 0.2), max - 1))
    })

    it("moves the cut back to a newline within a fifth of the budget", () => {
      const text = "first line\nsecond line\nthird line that goes on"
      // max 25 would cut inside "third"; the newline after "second line" is 2 characters back.
      assert.strictEqual(Truncation.head(text, 25), "first line\nsecond line\n")
    })

    it("cuts mid-line when the nearest newline is too far back", () => {
      const text = "a\n" + "b".repeat(50)
      assert.strictEqual(Truncation.head(text, 20), "a\n" + "b".repeat(18))
    })

    it("drops a whole emoji rather than half of it", () => {
      const text = "ab😀cd"
      // "😀" is two UTF-16 units at indices 2 and 3: a cut at 3 would split it.
      assert.strictEqual(Truncation.head(text, 3), "ab")
      assert.strictEqual(Truncation.head(text, 4), "ab😀")
    })
  })

  describe("tail", () => {
    it.prop("is a suffix of at most max characters that never starts inside a surrogate pair", { text, max }, ({
      max,
      text
    }) => {
      const tail = Truncation.tail(text, max)
      assert.isAtMost(tail.length, max)
      assert.isTrue(text.endsWith(tail))
      if (tail.length > 0) assert.isFalse(isLowSurrogate(tail.charCodeAt(0)))
      assert.isTrue(isWellFormed(tail))
    })

    it.prop("returns a text that fits unchanged", { text, extra: FastCheck.nat(50) }, ({ extra, text }) => {
      assert.strictEqual(Truncation.tail(text, text.length + extra), text)
    })

    it("moves the start forward to just after a nearby newline", () => {
      const text = "x".repeat(30) + "\nerror: build failed"
      // The last 22 characters start 2 before the newline; the tail starts on the next line.
      assert.strictEqual(Truncation.tail(text, 22), "error: build failed")
    })

    it("cuts mid-line when the nearest newline is too far ahead", () => {
      const text = "y".repeat(40) + "\nz"
      assert.strictEqual(Truncation.tail(text, 20), "y".repeat(18) + "\nz")
    })

    it("drops a whole emoji rather than half of it", () => {
      const text = "ab😀cd"
      // The last 3 units start at the low half of "😀".
      assert.strictEqual(Truncation.tail(text, 3), "cd")
      assert.strictEqual(Truncation.tail(text, 4), "😀cd")
    })
  })

  describe("headTail", () => {
    const share = FastCheck.double({ min: 0, max: 1, noNaN: true })

    it.prop(
      "keeps a prefix and a suffix within max, and counts exactly what it omitted",
      { text, max, share },
      ({ max, share, text }) => {
        FastCheck.pre(text.length > max)
        const cut = Truncation.headTail(text, max, share)
        assert.isTrue(text.startsWith(cut.head))
        assert.isTrue(text.endsWith(cut.tail))
        assert.isAtMost(cut.head.length + cut.tail.length, max)
        assert.strictEqual(cut.omitted, text.length - cut.head.length - cut.tail.length)
        assert.isAbove(cut.omitted, 0)
        if (cut.head.length > 0) assert.isFalse(isHighSurrogate(cut.head.charCodeAt(cut.head.length - 1)))
        if (cut.tail.length > 0) assert.isFalse(isLowSurrogate(cut.tail.charCodeAt(0)))
      },
      { fastCheck: { numRuns: 300 } }
    )

    it("gives the tail the larger share and keeps the last line, where the error is", () => {
      const log = Array.from({ length: 200 }, (_, i) => `step ${i} ok`).join("\n") + "\nerror: exit code 2"
      const cut = Truncation.headTail(log, 200)
      assert.isTrue(cut.head.startsWith("step 0 ok\n"))
      assert.isTrue(cut.tail.endsWith("\nerror: exit code 2"))
      assert.isAbove(cut.tail.length, cut.head.length)
      // Both cuts land on line boundaries.
      assert.isTrue(cut.head.endsWith("\n"))
      assert.isTrue(cut.tail.startsWith("step "))
      assert.strictEqual(cut.omitted, log.length - cut.head.length - cut.tail.length)
    })
  })
})

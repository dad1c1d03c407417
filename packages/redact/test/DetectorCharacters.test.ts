// The character tests every rule's boundary rests on, each against a regular
// expression that says the same thing: a rule that starts a token one
// character too early or too late keeps a secret or blanks a word.
import { assert, describe, it } from "@effect/vitest"
import * as Detector from "../src/Detector.js"

const context = (text: string, floor = 0): Detector.Context => ({
  text,
  floor,
  classify: () => undefined,
  skip: () => undefined
})

/** Every UTF-16 code unit: the tests are cheap enough to ask of each. */
const units = Array.from({ length: 0x10000 }, (_, code) => code)

describe("Detector's character classes", () => {
  it("isWordChar and isDigit are [A-Za-z0-9_] and [0-9] for every code unit", () => {
    for (const code of units) {
      const ch = String.fromCharCode(code)
      assert.strictEqual(Detector.isWordChar(code), /^[A-Za-z0-9_]$/.test(ch), `isWordChar(${code})`)
      assert.strictEqual(Detector.isDigit(code), /^[0-9]$/.test(ch), `isDigit(${code})`)
    }
  })

  it("codeAt reads a finding's part as its marker's closing bracket, and the text from the floor on", () => {
    const ctx = context("abcdef", 3)
    assert.deepStrictEqual([0, 1, 2, 3, 4, 5].map((i) => Detector.codeAt(ctx, i)), [93, 93, 93, 100, 101, 102])
    assert.deepStrictEqual([0, 1].map((i) => Detector.codeAt(context("ab"), i)), [97, 98])
  })
})

describe("where a word and a token may start", () => {
  // Every pair of a character before and the position after it, with the floor below, at and
  // above the position: the oracle reads the text as the output will show it.
  const around = [..."aZ09_-.=/ %\\\n\t\"'é", "\u200B", "\uD83D"]
  const asShown = (text: string, floor: number) => "]".repeat(Math.min(floor, text.length)) + text.slice(floor)

  it("separatedBefore: the start, a character that is no word character, or the letter of an escape", () => {
    for (const a of around) {
      for (const b of around) {
        for (const floor of [0, 1, 2, 3]) {
          const text = `${a}${b}x`
          const shown = asShown(text, floor)
          for (let i = 0; i <= 2; i++) {
            const expected = i === 0 || !/[A-Za-z0-9_]/.test(shown[i - 1]!) ||
              (i >= 2 && shown[i - 2] === "\\" && /[nrt]/.test(shown[i - 1]!))
            assert.strictEqual(
              Detector.separatedBefore(context(text, floor), i),
              expected,
              `${JSON.stringify(text)} at ${i}, floor ${floor}`
            )
          }
        }
      }
    }
  })

  it("isEscapedWhitespace: the n, r or t right after a backslash, and nothing else", () => {
    for (const before of ["\\", "/", "a", ""]) {
      for (const code of units.slice(0, 0x300)) {
        const text = `${before}${String.fromCharCode(code)}`
        const i = before.length
        const expected = before === "\\" && /^[nrt]$/.test(String.fromCharCode(code))
        assert.strictEqual(Detector.isEscapedWhitespace(context(text), i), expected, JSON.stringify(text))
      }
    }
    // Left of the floor the text reads as a marker's `]`: no backslash there.
    assert.isTrue(Detector.isEscapedWhitespace(context("\\n"), 1))
    assert.isFalse(Detector.isEscapedWhitespace(context("\\n", 1), 1))
    assert.isFalse(Detector.isEscapedWhitespace(context("n"), 0))
  })

  it("startsToken: where a word may start, after an underscore, and after a percent-encoded byte", () => {
    const leads = ["", "a", "_", "x_", "%3D", "%2f", "%2F", "%G1", "%1G", "3D", "%3", "a%3D", "%%3D", "=", "\\n"]
    for (const lead of leads) {
      for (const floor of [0, 1, 2, 3, 4]) {
        const text = `${lead}AKIA`
        const i = lead.length
        const shown = asShown(text, floor)
        const expected = /(?:^|[^A-Za-z0-9_]|\\[nrt]|_|%[0-9A-Fa-f]{2})$/.test(shown.slice(0, i))
        assert.strictEqual(
          Detector.startsToken(context(text, floor), i),
          expected,
          `${JSON.stringify(text)} at ${i}, floor ${floor}`
        )
      }
    }
  })

  it("startsToken: a percent-encoded byte is % and two hex digits, each checked at both edges of 0-9, A-F and a-f", () => {
    // Every ASCII character in either place, the other a hex digit: `/`, `:`, `@`, `G`, `` ` `` and
    // `g` sit just outside the ranges and must not open a token.
    for (let code = 0; code < 0x80; code++) {
      const ch = String.fromCharCode(code)
      const hex = /^[0-9A-Fa-f]$/.test(ch)
      for (const text of [`%${ch}0AKIA`, `%A${ch}AKIA`, `%${ch}fAKIA`, `%9${ch}AKIA`]) {
        const expected = hex || /[^A-Za-z0-9_]/.test(ch) && text[2] === ch || ch === "_" && text[2] === ch
        assert.strictEqual(Detector.startsToken(context(text), 3), expected, JSON.stringify(text))
      }
    }
  })
})

describe("matching helpers", () => {
  it("startsWithCaseless: the lower-case word at the position in any case of its ASCII letters, within the text", () => {
    const text = "xPassWORD=1 @["
    assert.isTrue(Detector.startsWithCaseless(text, 1, "password"))
    assert.isFalse(Detector.startsWithCaseless(text, 0, "password"))
    assert.isFalse(Detector.startsWithCaseless(text, 2, "password"))
    assert.isTrue(Detector.startsWithCaseless(text, 9, "=1"))
    // Past either end: no match, whatever the word.
    assert.isFalse(Detector.startsWithCaseless(text, -1, "x"))
    assert.isFalse(Detector.startsWithCaseless(text, 13, "[x"))
    assert.isTrue(Detector.startsWithCaseless(text, 13, "["))
    assert.isTrue(Detector.startsWithCaseless(text, 14, ""))
    // Even the empty word is only found within the text.
    assert.isFalse(Detector.startsWithCaseless(text, -1, ""))
    assert.isFalse(Detector.startsWithCaseless(text, 15, ""))
    // Only A-Z fold: `@` (64) and `[` (91) sit just outside, and their +32 are `` ` `` and `{`.
    for (const code of units.slice(0, 0x250)) {
      const ch = String.fromCharCode(code)
      const lower = /^[A-Z]$/.test(ch) ? ch.toLowerCase() : ch
      for (const word of [lower, String.fromCharCode(code + 32), ch.toLowerCase()]) {
        const expected = word === lower
        assert.strictEqual(Detector.startsWithCaseless(ch, 0, word), expected, `${code} against ${word}`)
      }
    }
  })

  it("matchAt runs a sticky expression exactly at the position, whatever ran it before", () => {
    const sticky = /ab/y
    assert.strictEqual(Detector.matchAt(sticky, "xxab", 2)?.index, 2)
    assert.isNull(Detector.matchAt(sticky, "xxab", 1))
    assert.strictEqual(Detector.matchAt(sticky, "abab", 0)?.index, 0)
    assert.strictEqual(Detector.matchAt(sticky, "abab", 2)?.index, 2)
  })

  it("the trigger constructors keep what they are given; keywords become lower case", () => {
    assert.deepStrictEqual(Detector.prefix("ghp_", "gho_"), { _tag: "Prefix", prefixes: ["ghp_", "gho_"] })
    assert.deepStrictEqual(Detector.keyword("PassWord", "bearer"), {
      _tag: "Keyword",
      keywords: ["password", "bearer"]
    })
    assert.deepStrictEqual(Detector.literal("@", "[a-z]@"), { _tag: "Literal", literal: "@", prefilter: "[a-z]@" })
    const re = /x/g
    assert.deepStrictEqual(Detector.pattern(re, 9, "x", true), {
      _tag: "Pattern",
      pattern: re,
      maxLength: 9,
      prefilter: "x",
      overlapping: true
    })
  })
})

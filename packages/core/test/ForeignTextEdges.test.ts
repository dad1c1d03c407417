import { assert, describe, it } from "@effect/vitest"
import * as ForeignText from "../src/ForeignText.js"

// The edges of ForeignText's promises, exact: where the bound starts to
// cut, the surrogate pairs at either end of the high-surrogate range, what
// `describe` says of each kind of value, and which values `read` reads
// (written against the mutants that survived; see reports/mutation/foreign-text).
describe("ForeignText at its edges", () => {
  it("bound keeps a text of exactly max characters and cuts one of max + 1 to max, ellipsis included", () => {
    assert.strictEqual(ForeignText.bound("abcdefghij", 10), "abcdefghij")
    assert.strictEqual(ForeignText.bound("abcdefghi", 10), "abcdefghi")
    assert.strictEqual(ForeignText.bound("abcdefghijk", 10), "abcdefghi…")
    assert.strictEqual(ForeignText.printable("abcdefghij", 10), "abcdefghij")
    assert.strictEqual(ForeignText.printable("abcdefghijk", 10), "abcdefghi…")
  })

  it("never leaves half a surrogate pair before the ellipsis, at either end of the high-surrogate range", () => {
    // U+10000 (high half 0xD800), U+1F600 (0xD83D), U+10FFFF (high half 0xDBFF),
    // each placed so that the cut would fall between its halves.
    for (const pair of ["\u{10000}", "\u{1F600}", "\u{10FFFF}"]) {
      const text = `${"a".repeat(8)}${pair}bcdef`
      assert.strictEqual(ForeignText.bound(text, 10), `${"a".repeat(8)}…`, pair.codePointAt(0)!.toString(16))
      assert.strictEqual(ForeignText.printable(text, 10), `${"a".repeat(8)}…`)
      // One place earlier, the pair fits whole.
      const fits = `${"a".repeat(7)}${pair}bcdef`
      assert.strictEqual(ForeignText.bound(fits, 10), `${"a".repeat(7)}${pair}…`)
    }
    // A low surrogate at the cut is the second half of a pair that fits: kept.
    assert.strictEqual(ForeignText.bound(`${"a".repeat(7)}\u{1F600}xyz`, 10), `${"a".repeat(7)}\u{1F600}…`)
  })

  it("describe says what each kind of value is", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      ["plain", "plain"],
      ["", ""],
      [undefined, "undefined"],
      [Symbol("s"), "a symbol"],
      [() => 1, "a function"],
      [null, "null"],
      [{ message: "boom" }, "boom"],
      [{ message: "" }, "an object without a message"],
      [{ message: 42 }, "an object without a message"],
      [{}, "an object without a message"],
      [new Error("failed"), "failed"],
      [42, "42"],
      [10n, "10"],
      [false, "false"]
    ]
    for (const [value, expected] of cases) assert.strictEqual(ForeignText.describe(value), expected, String(expected))
  })

  it("read reads objects and functions, never a primitive's own properties, and survives a throwing getter", () => {
    const fn = Object.assign(() => 1, { label: "tool" })
    assert.strictEqual(ForeignText.read(fn, "label"), "tool")
    assert.strictEqual(ForeignText.read({ a: 1 }, "a"), 1)
    assert.isUndefined(ForeignText.read("abc", "length"))
    assert.isUndefined(ForeignText.read(5, "toFixed"))
    assert.isUndefined(ForeignText.read(null, "a"))
    assert.isUndefined(ForeignText.read(undefined, "a"))
    const hostile = {
      get a(): unknown {
        throw new Error("no")
      }
    }
    assert.isUndefined(ForeignText.read(hostile, "a"))
  })
})

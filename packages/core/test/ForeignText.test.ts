import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as ForeignText from "../src/ForeignText.js"

// Every kind of character that acts on a terminal or hides text.
const hostile = [
  "\u0000",
  "\u001b[2J",
  "\u007f",
  "\u009b31m",
  "\u0085",
  "\u202e",
  "\u2066",
  "\u200b",
  "\u200d",
  "\ufeff",
  "\u00ad",
  "\u2028",
  "\u{e0041}\u{e0042}",
  "\u{e0000}",
  "\ud800",
  "\udc00"
]

describe("ForeignText", () => {
  it("replaces C0, C1, DEL, bidi, zero-width, tag characters and lone surrogates by ?", () => {
    for (const bad of hostile) {
      const text = ForeignText.printable(`a${bad}b`)
      assert.isTrue(ForeignText.isClean(text), JSON.stringify(text))
      assert.match(text, /^a\?+(\[2J|31m)?b$/, JSON.stringify(bad))
    }
    // A valid pair stays whole; ordinary text is untouched.
    assert.strictEqual(ForeignText.printable("ticket 😀 été"), "ticket 😀 été")
  })

  it("bounds a long value to the limit, ellipsis included, never splitting a surrogate pair", () => {
    const long = ForeignText.printable("x".repeat(100_000))
    assert.strictEqual(long.length, ForeignText.defaultMax)
    assert.isTrue(long.endsWith("…"))
    const pairs = ForeignText.printable("😀".repeat(300), 11)
    assert.isTrue(pairs.length <= 11)
    assert.isTrue(ForeignText.isClean(pairs))
    // Replacing shrinks the text; the cut must still show.
    assert.isTrue(ForeignText.printable("\u{e0041}".repeat(300), 20).endsWith("…"))
  })

  it("keeps the lines and tabs of a multi-line detail, and normalizes CRLF", () => {
    assert.strictEqual(ForeignText.clean("a\r\nb\tc\rd\u009be"), "a\nb\tc?d?e")
  })

  it("describes and reads any value without throwing", () => {
    const hostileObject = new Proxy({}, {
      get: () => {
        throw new Error("get")
      },
      has: () => {
        throw new Error("has")
      }
    })
    assert.strictEqual(ForeignText.describe(hostileObject), "an object without a message")
    assert.strictEqual(ForeignText.describe(Symbol("s")), "a symbol")
    assert.strictEqual(ForeignText.describe(10n), "10")
    assert.strictEqual(ForeignText.describe(new Error("boom")), "boom")
    assert.isUndefined(ForeignText.read(hostileObject, "message"))
  })

  it.prop("printable text is always clean and bounded", {
    text: FastCheck.string({ unit: "binary", maxLength: 400 }),
    max: FastCheck.integer({ min: 1, max: 300 })
  }, ({ max, text }) => {
    const out = ForeignText.printable(text, max)
    assert.isTrue(ForeignText.isClean(out))
    assert.isAtMost(out.length, max)
  })
})

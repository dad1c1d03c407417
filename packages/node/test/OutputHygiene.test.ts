import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as OutputHygiene from "../src/OutputHygiene.js"

const bytes = (...values: ReadonlyArray<number>) => Uint8Array.from(values)
const utf8 = (text: string) => new TextEncoder().encode(text)

describe("OutputHygiene", () => {
  describe("stripAnsi", () => {
    it("removes colors, cursor motion, titles, hyperlinks and charset switches", () => {
      assert.strictEqual(OutputHygiene.stripAnsi("\u001b[1;31merror\u001b[0m: x"), "error: x")
      assert.strictEqual(OutputHygiene.stripAnsi("a\u001b[2K\u001b[1Gb"), "ab")
      assert.strictEqual(OutputHygiene.stripAnsi("\u001b]0;title\u0007text"), "text")
      assert.strictEqual(
        OutputHygiene.stripAnsi("\u001b]8;;https://example.com\u001b\\link\u001b]8;;\u001b\\"),
        "link"
      )
      assert.strictEqual(OutputHygiene.stripAnsi("\u001b(Bplain\u001b7\u001b8"), "plain")
      assert.strictEqual(OutputHygiene.stripAnsi("\u001b[?25lhidden cursor\u001b[?25h"), "hidden cursor")
      assert.strictEqual(OutputHygiene.stripAnsi("bell\u0007 and nul\u0000"), "bell and nul")
    })

    it("keeps tabs, newlines and carriage returns, and text that has no escapes", () => {
      assert.strictEqual(OutputHygiene.stripAnsi("a\tb\nc\rd"), "a\tb\nc\rd")
      const plain = "no escapes here: ümlaut, 漢字, 😀"
      assert.strictEqual(OutputHygiene.stripAnsi(plain), plain)
    })

    it("a sequence cut by truncation does not swallow the lines after it", () => {
      assert.strictEqual(OutputHygiene.stripAnsi("\u001b]0;title without end\nnext line"), "\nnext line")
      assert.strictEqual(OutputHygiene.stripAnsi("text\u001b["), "text")
    })

    it.prop("leaves no escape or control character, and is idempotent", [FastCheck.string({ unit: "binary" })], ([
      text
    ]) => {
      const once = OutputHygiene.stripAnsi(text)
      // eslint-disable-next-line no-control-regex
      assert.isFalse(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(once))
      assert.strictEqual(OutputHygiene.stripAnsi(once), once)
    })
  })

  describe("collapseCarriageReturns", () => {
    it("keeps the last segment of each redrawn line", () => {
      assert.strictEqual(
        OutputHygiene.collapseCarriageReturns("start\n 10%\r 50%\r100%\ndone\n"),
        "start\n100%\ndone\n"
      )
    })

    it("keeps CRLF line endings as newlines and ignores a trailing carriage return", () => {
      assert.strictEqual(OutputHygiene.collapseCarriageReturns("a\r\nb\r\n"), "a\nb\n")
      assert.strictEqual(OutputHygiene.collapseCarriageReturns("50%\r100%\r"), "100%")
    })

    it.prop("leaves no carriage return", [FastCheck.string()], ([text]) => {
      assert.notInclude(OutputHygiene.collapseCarriageReturns(text), "\r")
    })
  })

  describe("clean", () => {
    it("a colored progress bar becomes its final state", () => {
      assert.strictEqual(
        OutputHygiene.clean("\u001b[32m[=>   ] 10%\u001b[0m\r\u001b[32m[=====] 100%\u001b[0m\nok\n"),
        "[=====] 100%\nok\n"
      )
    })
  })

  describe("looksBinary", () => {
    it("a NUL byte means binary", () => {
      assert.isTrue(OutputHygiene.looksBinary(bytes(65, 0, 66)))
    })

    it("text in any script is not binary, even with escapes and an odd invalid byte", () => {
      assert.isFalse(OutputHygiene.looksBinary(utf8("résumé 漢字 😀\n\u001b[31mred\u001b[0m\ttab\r\n")))
      assert.isFalse(OutputHygiene.looksBinary(new Uint8Array(0)))
      const latin1 = Uint8Array.from(Buffer.from("caf\u00e9 ".repeat(5) + "plain ascii text ".repeat(20), "latin1"))
      assert.isFalse(OutputHygiene.looksBinary(latin1))
    })

    it("bytes that are mostly not UTF-8 are binary", () => {
      const noise = Uint8Array.from({ length: 4096 }, (_, i) => 128 + ((i * 37) % 128))
      assert.isTrue(OutputHygiene.looksBinary(noise))
    })
  })

  describe("decoding", () => {
    it("a cut inside a character drops the partial character at either end", () => {
      const euro = utf8("a€b€")
      // Cut after the first two bytes of the second "€".
      assert.strictEqual(OutputHygiene.decodeHead(euro.subarray(0, 7)), "a€b")
      assert.strictEqual(OutputHygiene.decodeTail(euro.subarray(2)), "b€")
    })

    it.prop(
      "a stream decoded in any chunks equals the whole decoded at once",
      [FastCheck.string({ unit: "grapheme" }), FastCheck.array(FastCheck.nat(), { maxLength: 8 })],
      ([text, cuts]) => {
        const encoded = utf8(text)
        const points = [...new Set(cuts.map((cut) => cut % (encoded.length + 1)))].sort((a, b) => a - b)
        const decoder = new OutputHygiene.StreamDecoder()
        let out = ""
        let previous = 0
        for (const point of [...points, encoded.length]) {
          out += decoder.write(encoded.subarray(previous, point))
          previous = point
        }
        out += decoder.end()
        assert.strictEqual(out, text)
      }
    )
  })

  describe("render", () => {
    it("decodes contiguous head and tail as one, so a character on the seam stays whole", () => {
      const all = utf8("x€y")
      const view = OutputHygiene.render({
        head: all.subarray(0, 2),
        tail: all.subarray(2),
        omittedBytes: 0,
        totalBytes: all.length
      })
      assert.strictEqual(view.text, "x€y")
      assert.strictEqual(view.invalidSequences, 0)
    })

    it("marks a cut in the middle with the bytes left out", () => {
      const view = OutputHygiene.render({
        head: utf8("first\n"),
        tail: utf8("last\n"),
        omittedBytes: 3 * 1024 * 1024,
        totalBytes: 3 * 1024 * 1024 + 11
      })
      assert.strictEqual(view.text, "first\n\n[… 3 MiB (3,145,728 bytes) omitted …]\nlast\n")
    })

    it("summarizes binary output instead of showing it", () => {
      const view = OutputHygiene.render({
        head: bytes(0x7f, 0x45, 0x4c, 0x46, 0, 0, 0),
        tail: new Uint8Array(0),
        omittedBytes: 0,
        totalBytes: 1_258_291
      })
      assert.isTrue(view.binary)
      assert.strictEqual(view.text, "[binary output: 1.2 MiB, not shown]")
    })

    it("counts invalid UTF-8 in text output", () => {
      const view = OutputHygiene.render({
        head: Uint8Array.from([...utf8("ok "), 0xff, ...utf8(" fine\n")]),
        tail: new Uint8Array(0),
        omittedBytes: 0,
        totalBytes: 10
      })
      assert.strictEqual(view.text, "ok \ufffd fine\n")
      assert.strictEqual(view.invalidSequences, 1)
    })
  })

  it("formatBytes", () => {
    assert.deepStrictEqual(
      [0, 1023, 1024, 1536, 1_258_291, 1024 ** 3, 5 * 1024 ** 4].map(OutputHygiene.formatBytes),
      ["0 B", "1023 B", "1 KiB", "1.5 KiB", "1.2 MiB", "1 GiB", "5 TiB"]
    )
  })
})

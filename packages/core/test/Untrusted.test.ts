import { assert, describe, it } from "@effect/vitest"
import * as Untrusted from "../src/Untrusted.js"

describe("Untrusted.sanitize", () => {
  it("removes terminal controls (C0 but tab and line breaks, DEL, C1) with the invisible characters, and counts them", () => {
    const { removed, text } = Untrusted.sanitize("a\u001b[2Jb\u009b31mc\u007fd\u0000e\u200Bf\u{E0041}g\th\r\ni")
    assert.strictEqual(text, "a[2Jb31mcdefg\th\r\ni")
    assert.strictEqual(removed, 6)
  })
})

/**
 * ShellGlob: a glob matches a name as bash's pattern matching does (`[…]`,
 * `[!…]`, a `]` first in a class, a backslash in one), and only the words
 * bash expands in a command name count as globs.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ShellGlob from "../src/ShellGlob.js"

describe("ShellGlob", () => {
  it("matches as bash matches: classes, negation, a leading ], a backslash, the whole name", () => {
    const rows: ReadonlyArray<readonly [glob: string, name: string, expected: boolean]> = [
      ["r[m]", "rm", true],
      ["r[!m]", "rm", false],
      ["r[!m]", "rx", true],
      // `!` is a negation first in a class only: elsewhere it is one of the class's characters.
      ["x[a!b]", "x!", true],
      ["x[a!b]", "xc", false],
      // A `]` right after the `[` is a character of the class, not its end.
      ["[]x]y", "xy", true],
      ["[]x]y", "]y", true],
      ["x[\\]", "x\\", true],
      ["[!]x]y", "]y", false],
      ["[!]x]y", "zy", true],
      ["[^m]", "m", false],
      ["[^m]", "^", true],
      ["r?", "rm", true],
      ["r*", "rmdir", true],
      ["r*", "xrm", false],
      ["rm", "rmdir", false],
      ["a.b", "axb", false],
      ["x[", "x[", true],
      ["(", "(", true]
    ]
    for (const [glob, name, expected] of rows) {
      assert.strictEqual(ShellGlob.matches(glob, name), expected, `${glob} ${name}`)
    }
  })

  it("a glob is a word with *, ? or [ that bash expands; [ and [[ are the test commands", () => {
    for (const word of ["r[m]", "r*", "?m", "/bin/r[m]"]) assert.isTrue(ShellGlob.isGlob(word), word)
    for (const word of ["[", "[[", "rm", "]"]) assert.isFalse(ShellGlob.isGlob(word), word)
  })
})

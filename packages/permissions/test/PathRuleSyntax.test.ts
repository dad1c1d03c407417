/**
 * The path rule syntax at its edges, each line a promise of the documented
 * syntax: classes with `\]`, a `-` last, one-letter ranges and `[z-a]`;
 * trailing spaces and the backslash that keeps one; `a/..` and `..` that
 * climb out of a bare pattern; `//..`; a pattern's `base`, `exact` and
 * `segments`; consecutive `**` as one; `reach` over escapes, classes,
 * stars, `.` and `**` in a shell glob; and the link walk's limit of
 * `maxLinks`, absolute targets and `.` components, with real links.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { assert, describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as PathRule from "../src/PathRule.js"
import * as LinkFileSystem from "./LinkFileSystem.js"

const location: PathRule.Location = {
  projectRoot: "/home/dev/app",
  cwd: "/home/dev/app",
  homeDirectory: "/home/dev"
}
const insensitive: PathRule.Location = { ...location, caseInsensitive: true }

const compile = (specifier: string, at: PathRule.Location = location) =>
  Either.getOrThrow(PathRule.compile(specifier, at))

// [specifier, absolute path, matches]
const matches: ReadonlyArray<readonly [string, string, boolean]> = [
  // `\]` inside a class is the character `]`
  ["x[\\]]y", "/home/dev/app/x]y", true],
  ["x[\\]]y", "/home/dev/app/x\\]y", false],
  ["x[\\]a]y", "/home/dev/app/xay", true],
  // a class holds what it lists and nothing else
  ["x[a]y", "/home/dev/app/xay", true],
  ["x[a]y", "/home/dev/app/xey", false],
  ["x[a]y", "/home/dev/app/xSy", false],
  ["x[!a]y", "/home/dev/app/xey", true],
  // a `-` before the closing `]` is itself
  ["x[a-]", "/home/dev/app/x-", true],
  ["x[a-]", "/home/dev/app/xa", true],
  ["x[a-]", "/home/dev/app/xb", false],
  // a range of one letter
  ["x[a-a]", "/home/dev/app/xa", true],
  ["x[a-a]", "/home/dev/app/xb", false],
  // trailing spaces are dropped, an escaped one is kept
  ["a\\*b ", "/home/dev/app/a*b", true],
  ["a\\  ", "/home/dev/app/a ", true],
  ["a\\  ", "/home/dev/app/a  ", false],
  ["\\ ", "/home/dev/app/ ", true],
  // `a/..` names the current directory (and so what lies beneath it)
  ["a/..", "/home/dev/app", true],
  ["a/..", "/home/dev/app/x", true],
  ["a/..", "/etc/passwd", false],
  ["a/..", "/home/dev", false],
  // a bare pattern that climbs out of the current directory is anchored there
  ["a/../../x", "/home/dev/x", true],
  ["a/../../x", "/home/dev/app/x", false],
  ["a/../../x", "/home/dev/app/b/x", false],
  ["a/../../../x", "/home/x", true],
  ["a/../../../x", "/home/dev/app/x", false],
  ["a/../../../../../x", "/x", true],
  // `..` above the file system root stays at the root
  ["//../etc", "/etc", true],
  ["//../etc", "/etc/passwd", true],
  ["../../../../x", "/x", true],
  // case-insensitive
  ["src/**", "/home/dev/app/SRC/X", false]
]

describe("PathRule syntax: what a specifier matches", () => {
  for (const [specifier, path, expected] of matches) {
    it(`${JSON.stringify(specifier)} ${expected ? "matches" : "does not match"} ${JSON.stringify(path)}`, () => {
      assert.strictEqual(compile(specifier).test(path), expected)
    })
  }

  it("a case-insensitive pattern matches whatever the case", () => {
    assert.isTrue(compile("src/**", insensitive).test("/home/dev/app/SRC/X"))
  })

  it("a class in a pattern takes no escape for the class itself", () => {
    assert.isTrue(Either.isRight(PathRule.compile("x[\\]]y", location)))
    assert.isTrue(Either.isLeft(PathRule.compile("x[z-a]", location)))
  })

  it("consecutive ** are one: no backtracking blow-up on a deep path that does not match", () => {
    const pattern = compile(`//${Array.from({ length: 14 }, () => "**").join("/")}/x/y`)
    const deep = `/${Array.from({ length: 40 }, (_, i) => `d${i}`).join("/")}/x`
    assert.isFalse(pattern.test(deep))
    assert.isTrue(pattern.test(`${deep}/y`))
    const bare = compile(`${Array.from({ length: 14 }, () => "**").join("/")}/x/y`)
    assert.isFalse(bare.test(`/home/dev/app${deep}`))
  })
})

// [specifier, base, exact]
const bases: ReadonlyArray<readonly [string, string, boolean]> = [
  ["*.env", "/home/dev/app", false],
  [".env", "/home/dev/app", false],
  ["**", "/home/dev/app", false],
  ["//etc/hosts", "/etc/hosts", true],
  ["/src/**", "/home/dev/app/src", true],
  ["/src/*.ts", "/home/dev/app/src", false],
  ["/src/**/*.ts", "/home/dev/app/src", false],
  ["//a\\*b/**", "/a*b", true],
  ["a/..", "/home/dev/app", true],
  ["a/../../x", "/home/dev/x", true]
]

describe("PathRule syntax: base and exact", () => {
  for (const [specifier, base, exact] of bases) {
    it(`${JSON.stringify(specifier)}: base ${base}, ${exact ? "exact" : "not exact"}`, () => {
      const pattern = compile(specifier)
      assert.strictEqual(pattern.base, base)
      assert.strictEqual(pattern.exact, exact)
    })
  }

  it("segments hold one ** for consecutive ones", () => {
    assert.deepStrictEqual(compile("/src/**/**/x").segments, ["home", "dev", "app", "src", "**", "x"])
    assert.deepStrictEqual(compile("a/..").segments, ["home", "dev", "app"])
    assert.deepStrictEqual(compile("a/**").segments, ["home", "dev", "app", "**", "a", "**"])
  })
})

describe("PathRule syntax: isInside and exactSpecifier", () => {
  it("a relative path is not inside the root", () => {
    assert.isFalse(PathRule.isInside("a", "/"))
    assert.isTrue(PathRule.isInside("/a", "/"))
  })

  it("normalize keeps the .. a relative path cannot take back", () => {
    assert.strictEqual(PathRule.normalize("../../x"), "../../x")
    assert.strictEqual(PathRule.normalize("a/../../x"), "../x")
  })

  it("a project at the file system root", () => {
    assert.strictEqual(PathRule.exactSpecifier("/etc/x", { projectRoot: "/" }), "/etc/x")
    assert.strictEqual(PathRule.exactSpecifier("/", { projectRoot: "/" }), "/")
  })
})

// [specifier, shell glob, reach]
const reaches: ReadonlyArray<readonly [string, string, "match" | "contains" | undefined]> = [
  // an escaped character in the pattern is that character
  ["//a\\*b", "/a[*]b", "match"],
  ["//a\\*b", "/a\\\\xb", undefined],
  ["//a\\*b", "/a\\*b", "match"],
  // a lone trailing backslash in a glob is itself
  ["//a\\\\", "/a\\", "match"],
  // a class matches what it lists
  ["//b", "/[a]", undefined],
  ["//a", "/[a]", "match"],
  ["//b", "/ab]", undefined],
  // two classes are taken to share a character (wider, never narrower)
  ["//[ab]", "/[cd]", "match"],
  // a star takes any number of characters, wherever it stands
  ["//a*", "/abcd", "match"],
  ["//axbc", "/a*b*", "match"],
  ["//axbc", "/a**b*", "match"],
  // `.` in a glob is the directory itself, `**` any number of segments
  ["//x", "/./x", "match"],
  ["//a/b/c", "/**/c", "match"],
  ["//a/b/c", "/a/**", "match"],
  ["//a/b/c", "/a", "contains"],
  ["//a/b/c", "/a/x", undefined],
  // the walks keep one visited mark per pair of positions: states that a
  // looser key would merge are told apart
  ["//[ab]?*a", "/*", "match"],
  ["//aa/*a*/[ab]/**/*x", "/**", "match"],
  ["//aa/xa*/**/*/*a", "/**", "match"]
]

describe("PathRule.reach over a shell glob", () => {
  for (const [specifier, glob, expected] of reaches) {
    it(`${JSON.stringify(specifier)} and ${JSON.stringify(glob)}: ${expected}`, () => {
      assert.strictEqual(PathRule.reach(compile(specifier), glob), expected)
    })
  }

  it("a case-insensitive class and letter fold as the pattern's own test does", () => {
    assert.strictEqual(PathRule.reach(compile("//a", insensitive), "/[A]"), "match")
    const kelvin = compile("/kelvin/**", insensitive)
    assert.isTrue(kelvin.test("/home/dev/app/\u212Aelvin"))
    assert.strictEqual(PathRule.reach(kelvin, "/home/dev/app/\u212Aelvin"), "match")
  })

  it("many ** in a pattern over a long glob answer at once", () => {
    const pattern = compile(`//${Array.from({ length: 14 }, () => "**/p").join("/")}/z`)
    const glob = `/${Array.from({ length: 40 }, () => "p").join("/")}/y`
    assert.strictEqual(PathRule.reach(pattern, glob), "contains")
  })
})

const chain = (fs: FileSystem.FileSystem, dir: string, length: number) =>
  Effect.gen(function*() {
    yield* fs.makeDirectory(dir, { recursive: true })
    // l1 -> l2 -> … -> l<length> -> target (missing)
    for (let i = 1; i <= length; i++) {
      yield* fs.symlink(i === length ? "target" : `l${i + 1}`, `${dir}/l${i}`)
    }
  })

layer(LinkFileSystem.layer)("PathRule.candidates with real links", (it) => {
  const temp = Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    return { fs, root: yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "path-rule-syntax-" })) }
  })

  it.scoped("a path without links is its only candidate", () =>
    Effect.gen(function*() {
      const { fs, root } = yield* temp
      yield* fs.writeFileString(`${root}/plain`, "x")
      assert.deepStrictEqual(yield* PathRule.candidates(`${root}/plain`), [`${root}/plain`])
      assert.deepStrictEqual(yield* PathRule.candidates(`${root}/./missing`), [`${root}/missing`])
    }))

  it.scoped("a dangling absolute link resolves to its target", () =>
    Effect.gen(function*() {
      const { fs, root } = yield* temp
      yield* fs.makeDirectory(`${root}/d`)
      yield* fs.symlink(`${root}/missing`, `${root}/d/abs`)
      assert.deepStrictEqual(yield* PathRule.candidates(`${root}/d/abs`), [`${root}/d/abs`, `${root}/missing`])
      assert.deepStrictEqual(yield* PathRule.candidates(`${root}/d/abs/x`), [`${root}/d/abs/x`, `${root}/missing/x`])
    }))

  it.scoped(`a chain of ${PathRule.maxLinks} links is followed, a longer one stops`, () =>
    Effect.gen(function*() {
      const { fs, root } = yield* temp
      yield* chain(fs, `${root}/short`, PathRule.maxLinks)
      yield* chain(fs, `${root}/long`, PathRule.maxLinks + 1)
      assert.deepStrictEqual(yield* PathRule.candidates(`${root}/short/l1`), [
        `${root}/short/l1`,
        `${root}/short/target`
      ])
      assert.deepStrictEqual(yield* PathRule.candidates(`${root}/long/l1`), [
        `${root}/long/l1`,
        `${root}/long/l${PathRule.maxLinks + 1}`
      ])
    }))

  it.scoped("a loop of links stops", () =>
    Effect.gen(function*() {
      const { fs, root } = yield* temp
      yield* fs.symlink("b", `${root}/a`)
      yield* fs.symlink("a", `${root}/b`)
      const found = yield* PathRule.candidates(`${root}/a`)
      assert.strictEqual(found[0], `${root}/a`)
    }))
})

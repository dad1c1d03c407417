import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as PathRule from "../src/PathRule.js"

const location: PathRule.Location = {
  projectRoot: "/home/dev/app",
  cwd: "/home/dev/app",
  homeDirectory: "/home/dev"
}

const compile = (specifier: string, at: PathRule.Location = location) =>
  Either.getOrThrow(PathRule.compile(specifier, at))

const reason = (specifier: string, at: PathRule.Location = location) =>
  Either.match(PathRule.compile(specifier, at), {
    onLeft: (reason) => reason,
    onRight: () => assert.fail(`${JSON.stringify(specifier)} compiled`)
  })

// [specifier, path (relative to the project root unless absolute), matches]
const table: ReadonlyArray<readonly [string, string, boolean]> = [
  // bare names match at any depth below the current directory
  [".env", ".env", true],
  [".env", "packages/api/.env", true],
  [".env", ".envrc", false],
  [".env", "x.env.example", false],
  [".env", "/home/dev/.env", false],
  ["*.env", "prod.env", true],
  ["*.env", "config/prod.env", true],
  ["*.env", ".env", true],
  ["*.env", "prod.env.bak", false],
  // a directory named like the pattern covers its contents (gitignore: ignoring a directory ignores its contents)
  ["*.env", "a.env/b", true],
  // bare patterns with a slash also match at any depth (wider than git, on purpose)
  ["secrets/**", "secrets/key", true],
  ["secrets/**", "vendor/secrets/key", true],
  ["secrets/**", "vendor/secrets", true],
  ["secrets/**", "vendor/secretsx/key", false],
  ["src/*.ts", "pkg/src/a.ts", true],
  ["src/*.ts", "src/deep/a.ts", false],
  // ./ anchors to the current directory
  ["./.env", ".env", true],
  ["./.env", "packages/api/.env", false],
  // / anchors to the project root, and not at depth
  ["/src/**/*.ts", "src/a.ts", true],
  ["/src/**/*.ts", "src/x/y/a.ts", true],
  ["/src/**/*.ts", "lib/src/a.ts", false],
  ["/src/**/*.ts", "src/a.js", false],
  // // is the file system root, ~/ the home directory
  ["//etc/passwd", "/etc/passwd", true],
  ["//etc/passwd", "/etc/passwd.bak", false],
  ["//etc/passwd", "etc/passwd", false],
  ["~/.ssh/**", "/home/dev/.ssh/id_rsa", true],
  ["~/.ssh/**", "/home/dev/.sshx/id_rsa", false],
  ["~/.ssh", "/home/dev/.ssh/id_rsa", true],
  ["~/.ssh", "/home/dev/.ssh", true],
  ["~", "/home/dev/anything", true],
  ["//", "/anywhere/at/all", true],
  // ** as a whole segment: zero or more segments
  ["a/**/b", "a/b", true],
  ["a/**/b", "a/x/y/b", true],
  ["a/**/b", "a/xb", false],
  ["/a/**/b", "z/a/b", false],
  ["**/key", "deep/er/key", true],
  ["a**b", "axyb", true],
  ["a**b", "ax/yb", false],
  // directories cover their contents; a trailing slash names a directory
  ["secrets", "secrets/key", true],
  ["secrets", "secrets", true],
  ["secrets/", "secrets/key", true],
  ["secrets/", "secrets", true],
  ["secrets/", "secretsx", false],
  // * and ? do not cross /
  ["/src/*", "src/a/b.ts", true], // through src/a, a directory the pattern names
  ["/*.ts", "src/a.ts", false],
  ["/?.ts", "a.ts", true],
  ["/?.ts", "ab.ts", false],
  ["/a?b", "a/b", false],
  // character classes
  ["/[abc].ts", "b.ts", true],
  ["/[abc].ts", "d.ts", false],
  ["/[a-c].ts", "c.ts", true],
  ["/[a-c].ts", "d.ts", false],
  ["/[!a].ts", "b.ts", true],
  ["/[!a].ts", "a.ts", false],
  ["/[^a].ts", "a.ts", false],
  ["/[]].ts", "].ts", true],
  ["/x[!a]y", "x/y", false],
  // escapes
  ["/\\*.ts", "*.ts", true],
  ["/\\*.ts", "a.ts", false],
  ["/\\[a].ts", "[a].ts", true],
  ["/\\?", "?", true],
  ["/\\?", "a", false],
  ["\\!important", "docs/!important", true],
  // . and .. resolved lexically, in the rule and in the path
  ["/src/../secrets", "secrets/key", true],
  ["/src/../secrets", "src/secrets", false],
  ["./a/./b", "a/b", true],
  ["//etc/passwd", "/tmp/../etc/passwd", true],
  ["/secrets/**", "src/../secrets/key", true],
  ["../shared/*.md", "/home/dev/shared/STYLE.md", true],
  ["/../app-secrets", "/home/dev/app-secrets/x", true],
  // a sibling sharing the prefix is not inside
  ["//home/dev/app/**", "/home/dev/app-secrets/.env", false],
  ["/**", "/home/dev/app-secrets/.env", false],
  ["/**", "/home/dev/app/x", true],
  // unicode, spaces and newlines are plain characters
  ["/résumé *.pdf", "résumé 2024.pdf", true],
  ["/?.txt", "é.txt", true],
  ["/a\nb", "a\nb/c", true],
  // gitignore drops trailing spaces unless escaped
  ["/notes  ", "notes", true],
  ["/notes\\ ", "notes ", true],
  ["/notes\\ ", "notes", false]
]

describe("PathRule", () => {
  it("matches the gitignore table", () => {
    const wrong = table.filter(([specifier, path, expected]) =>
      compile(specifier).test(PathRule.resolve(path, location)) !== expected
    )
    assert.deepStrictEqual(wrong, [])
  })

  it("reads bare and ./ patterns from the current directory, / from the project root", () => {
    const inPackage: PathRule.Location = { ...location, cwd: "/home/dev/app/packages/api" }
    assert.isTrue(compile(".env", inPackage).test("/home/dev/app/packages/api/src/.env"))
    assert.isFalse(compile(".env", inPackage).test("/home/dev/app/.env"))
    assert.isTrue(compile("./.env", inPackage).test("/home/dev/app/packages/api/.env"))
    assert.isFalse(compile("./.env", inPackage).test("/home/dev/app/packages/api/src/.env"))
    assert.isTrue(compile("/.env", inPackage).test("/home/dev/app/.env"))
    // Without a cwd, the project root is the current directory.
    assert.isTrue(compile("./.env", { projectRoot: "/p" }).test("/p/.env"))
  })

  it("compares case-insensitively only when asked", () => {
    const folded: PathRule.Location = { ...location, caseInsensitive: true }
    assert.isFalse(compile(".env").test("/home/dev/app/.ENV"))
    assert.isTrue(compile(".env", folded).test("/home/dev/app/.ENV"))
    assert.isTrue(compile("//etc/passwd", folded).test("/ETC/Passwd"))
    // The anchor folds too: the project root is the same directory in another case.
    assert.isTrue(compile("/src/**", folded).test("/HOME/dev/App/SRC/a.ts"))
    assert.isTrue(compile("/[a-c].ts", folded).test("/home/dev/app/B.ts"))
    assert.isTrue(compile("/é", folded).test("/home/dev/app/É"))
    assert.isTrue(PathRule.defaultCaseInsensitive("darwin"))
    assert.isTrue(PathRule.defaultCaseInsensitive("win32"))
    assert.isFalse(PathRule.defaultCaseInsensitive("linux"))
  })

  it("normalizes the tested path when it needs it", () => {
    const pattern = compile("/secrets")
    assert.isTrue(pattern.test("/home/dev/app//secrets/"))
    assert.isTrue(pattern.test("/home/dev/app/./secrets/key"))
    assert.isTrue(pattern.test("/home/dev/app/src/../secrets"))
    assert.isTrue(pattern.test("secrets/key"))
    assert.isFalse(pattern.test("/home/dev/app/secrets/../public"))
  })

  it("refuses what it cannot read, saying why", () => {
    assert.include(reason("~/.ssh", { projectRoot: "/p" }), "home directory is not known")
    assert.include(reason("a\u0000b"), "NUL")
    assert.include(reason("/[abc"), "unclosed [")
    assert.include(reason("/[]"), "unclosed [")
    assert.include(reason("/[!]"), "unclosed [")
    assert.include(reason("/a\\"), "lone \\")
    assert.include(reason("/[z-a]"), "backwards")
    assert.include(reason("!.env"), "negation")
    assert.include(reason(""), "empty")
    assert.include(reason("   "), "empty")
    assert.include(reason("/src/*/../x"), "wildcard")
  })

  it("keeps the specifier as written", () => {
    assert.strictEqual(compile(" src/** ").specifier, " src/** ")
  })

  it("isInside compares whole segments", () => {
    assert.isTrue(PathRule.isInside("/home/dev/app", "/home/dev/app"))
    assert.isTrue(PathRule.isInside("/home/dev/app/src/a.ts", "/home/dev/app/"))
    assert.isFalse(PathRule.isInside("/home/dev/app-secrets/.env", "/home/dev/app"))
    assert.isFalse(PathRule.isInside("/home/dev", "/home/dev/app"))
    assert.isFalse(PathRule.isInside("/home/dev/app/../app-secrets", "/home/dev/app"))
    assert.isTrue(PathRule.isInside("/anything", "/"))
  })

  it("normalize and resolve work on the text", () => {
    assert.strictEqual(PathRule.normalize("/a/./b/../c/"), "/a/c")
    assert.strictEqual(PathRule.normalize("/../a"), "/a")
    assert.strictEqual(PathRule.normalize("a/../../b"), "../b")
    assert.strictEqual(PathRule.normalize(""), ".")
    assert.strictEqual(PathRule.resolve("src/a.ts", { projectRoot: "/p", cwd: "/p/pkg" }), "/p/pkg/src/a.ts")
    assert.strictEqual(PathRule.resolve("/etc/../x", location), "/x")
  })

  it("normalize answers as the segment walk, the paths it returns unchanged included", () => {
    // The walk as it was before the shortcut for paths already normal: the reference.
    const walked = (path: string): string => {
      const absolute = path.startsWith("/")
      const out: Array<string> = []
      for (const segment of path.split("/")) {
        if (segment === "" || segment === ".") continue
        if (segment === "..") {
          if (out.length > 0 && out[out.length - 1] !== "..") out.pop()
          else if (!absolute) out.push("..")
          continue
        }
        out.push(segment)
      }
      const joined = out.join("/")
      return absolute ? `/${joined}` : joined === "" ? "." : joined
    }
    const piece = FastCheck.constantFrom("/", ".", "..", "...", "a", ".a", "a.", "b c", "\n", "~", "-", "é", "//")
    FastCheck.assert(
      FastCheck.property(FastCheck.array(piece, { maxLength: 12 }).map((pieces) => pieces.join("")), (path) => {
        assert.strictEqual(PathRule.normalize(path), walked(path), JSON.stringify(path))
      }),
      { numRuns: 20_000 }
    )
    for (const path of ["/work/project/src", "src", "/", "a/.../b", "/a/.b/c.", "./a", "a/./b", "/a/", "a/..", ".."]) {
      assert.strictEqual(PathRule.normalize(path), walked(path), path)
    }
  })

  it("writes exact specifiers anchored, escaped", () => {
    assert.strictEqual(PathRule.exactSpecifier("/home/dev/app/src/[a]*?.ts", location), "/src/\\[a\\]\\*\\?.ts")
    assert.strictEqual(PathRule.exactSpecifier("/home/dev/app", location), "/")
    assert.strictEqual(PathRule.exactSpecifier("/etc/hosts", location), "//etc/hosts")
    assert.strictEqual(PathRule.exactSpecifier("/home/dev/app/~", location), "/~")
    assert.strictEqual(PathRule.exactSpecifier("/home/dev/app/!x", location), "/!x")
    assert.strictEqual(PathRule.exactSpecifier("/home/dev/app-secrets", location), "//home/dev/app-secrets")
    assert.isTrue(compile("/~").test("/home/dev/app/~"))
    assert.isFalse(compile("/~").test("/home/dev/x"))
  })

  // Glob metacharacters, spaces, a leading ! or ~, and characters outside the BMP.
  const segment = FastCheck.array(FastCheck.constantFrom(..."ab*?[]\\ !~é😀.-\n"), { minLength: 1, maxLength: 6 })
    .map((chars) => chars.join(""))
    .filter((s) => s !== "." && s !== "..")
  const absolutePath = FastCheck.array(segment, { minLength: 1, maxLength: 5 }).chain((segments) =>
    FastCheck.constantFrom(`/home/dev/app/${segments.join("/")}`, `/${segments.join("/")}`)
  )

  it.prop(
    "an exact specifier matches its path and what is beneath, and no sibling",
    [absolutePath, segment],
    ([path, other]) => {
      for (const caseInsensitive of [false, true]) {
        const at = { ...location, caseInsensitive }
        const pattern = compile(PathRule.exactSpecifier(path, at), at)
        assert.isTrue(pattern.test(path))
        assert.isTrue(pattern.test(`${path}/${other}`))
        assert.isFalse(pattern.test(`${path}${other}`))
        const parent = path.slice(0, path.lastIndexOf("/"))
        const sibling = `${parent}/${other}x`
        if (parent !== "" && parent !== "/home/dev/app" && sibling.toLowerCase() !== path.toLowerCase()) {
          assert.isFalse(pattern.test(sibling))
        }
      }
    }
  )

  it.prop("a bare pattern matches at any depth, its ./ form only at the current directory", [
    FastCheck.array(FastCheck.stringMatching(/^[a-z]{1,4}$/), { maxLength: 4 }),
    FastCheck.stringMatching(/^[a-z]{1,4}\.env$/)
  ], ([dirs, name]) => {
    const path = ["/home/dev/app", ...dirs, name].join("/")
    assert.isTrue(compile(name).test(path))
    assert.isTrue(compile("*.env").test(path))
    assert.strictEqual(compile(`./${name}`).test(path), dirs.length === 0)
    assert.isFalse(compile(name).test(`${path}x`))
  })

  // How long a test takes (under a microsecond) is a figure of `pnpm bench:permissions`, section 6.
  it("a typical path meets the one pattern of five that covers it", () => {
    const path = "/home/dev/app/src/components/forms/inputs/TextField.test.ts"
    const specifiers = ["secrets/**", "*.env", "/src/**/*.ts", "~/.ssh/**", "a/**/b/**/c"]
    assert.deepStrictEqual(specifiers.filter((specifier) => compile(specifier).test(path)), ["/src/**/*.ts"])
  })
})

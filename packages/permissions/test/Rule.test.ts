import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Rule from "../src/Rule.js"
import * as ShellCommand from "../src/ShellCommand.js"

const parse = (text: string) => Either.getOrThrow(Rule.parse(text))
const reason = (text: string) =>
  Either.match(Rule.parse(text), { onLeft: (e) => e.reason, onRight: () => assert.fail(`${text} parsed`) })

const location: Rule.Location = { workspaceRoot: "/work/project", homeDirectory: "/home/ada" }

const pathMatches = (specifier: string, path: string) =>
  Either.getOrThrow(Rule.pathPattern(specifier, location)).test(Rule.resolve(path, location))

describe("Rule", () => {
  it("parses Tool and Tool(specifier), and prints them back", () => {
    assert.deepStrictEqual(parse("Bash"), { tool: "Bash", specifier: undefined })
    assert.deepStrictEqual(parse(" Bash(npm test:*) "), { tool: "Bash", specifier: "npm test:*" })
    assert.deepStrictEqual(parse("Bash(*)"), { tool: "Bash", specifier: undefined })
    assert.deepStrictEqual(parse("Read(src/**)"), { tool: "Read", specifier: "src/**" })
    assert.deepStrictEqual(parse("mcp__github__*"), { tool: "mcp__github", specifier: undefined })
    assert.strictEqual(Rule.print(parse("WebFetch(domain:example.com)")), "WebFetch(domain:example.com)")
    // The specifier runs to the last parenthesis.
    assert.deepStrictEqual(parse("Bash(echo ')')"), { tool: "Bash", specifier: "echo ')'" })
  })

  it("rejects what would never match, saying why", () => {
    assert.include(reason(""), "empty")
    assert.include(reason("Bash("), "does not close")
    assert.include(reason("Bash()"), "empty")
    assert.include(reason("Ba sh"), "tool name")
    assert.include(reason("mcp__github(create)"), "without parentheses")
    assert.include(reason("Bash(npm test && rm -rf /)"), "more than one command")
    assert.include(reason("Bash(FOO=1 npm test)"), "one plain command")
    assert.include(reason("Bash(npm *)"), ":*")
    assert.include(reason("Bash(:*)"), "write Bash")
    assert.include(reason("WebFetch(https://example.com)"), "domain:")
    assert.include(reason("WebFetch(domain:exa mple.com)"), "not a domain")
  })

  it("matches commands exactly, or by whole leading words with :*", () => {
    const pattern = (text: string) => Either.getOrThrow(Rule.commandPattern(text))
    const w = (command: string) => ShellCommand.parse(command).parts[0]!.words
    assert.isTrue(Rule.matchesCommand(pattern("git status"), w("git status")))
    assert.isFalse(Rule.matchesCommand(pattern("git status"), w("git status --porcelain")))
    assert.isTrue(Rule.matchesCommand(pattern("npm test:*"), w("npm test")))
    assert.isTrue(Rule.matchesCommand(pattern("npm test:*"), w("npm test -- --watch")))
    assert.isFalse(Rule.matchesCommand(pattern("npm test:*"), w("npm testing")))
    assert.isFalse(Rule.matchesCommand(pattern("npm test:*"), w("npm")))
    // Quoting does not change what a command is.
    assert.isTrue(Rule.matchesCommand(pattern("git commit -m 'a b'"), w("git commit -m \"a b\"")))
  })

  it("resolves path globs against the workspace, / against its root, // and ~ outside it", () => {
    assert.isTrue(pathMatches("src/**", "src/a.ts"))
    assert.isTrue(pathMatches("src/**", "src/deep/er/a.ts"))
    assert.isTrue(pathMatches("src/**", "/work/project/src/a.ts"))
    assert.isFalse(pathMatches("src/**", "srcs/a.ts"))
    assert.isTrue(pathMatches("src/*.ts", "src/a.ts"))
    assert.isFalse(pathMatches("src/*.ts", "src/deep/a.ts"))
    assert.isTrue(pathMatches("/docs/**", "docs/guide.md"))
    assert.isTrue(pathMatches("**/.env", ".env"))
    assert.isTrue(pathMatches("**/.env", "a/b/.env"))
    assert.isFalse(pathMatches("**/.env", "/etc/.env"))
    assert.isTrue(pathMatches("//etc/**", "/etc/passwd"))
    assert.isTrue(pathMatches("~/.ssh/**", "/home/ada/.ssh/id_ed25519"))
    assert.isTrue(pathMatches("secrets/", "secrets/key.pem"))
    // `..` is resolved before matching: no escape from a pattern through it.
    assert.isFalse(pathMatches("src/**", "src/../secrets/key.pem"))
    assert.isTrue(pathMatches("secrets/**", "src/../secrets/key.pem"))
    assert.isTrue(Either.isLeft(Rule.pathPattern("~/x", { workspaceRoot: "/w" })))
  })

  it("names an exact path with a specifier that matches it alone", () => {
    const specifier = Rule.exactPathSpecifier("/work/project/src/[a]*?.ts", location)
    assert.strictEqual(specifier, "src/[a]\\*\\?.ts")
    assert.isTrue(pathMatches(specifier, "src/[a]*?.ts"))
    assert.isFalse(pathMatches(specifier, "src/[a]xy.ts"))
    assert.strictEqual(Rule.exactPathSpecifier("/etc/hosts", location), "//etc/hosts")
    assert.strictEqual(Rule.exactPathSpecifier("/work/project/~", location), "./~")
  })

  it("matches domains as a fetch sees them", () => {
    const domain = (text: string) => Either.getOrThrow(Rule.domainPattern(text))
    const host = (url: string) => Rule.hostOf(url) ?? ""
    assert.isTrue(domain("domain:example.com")(host("https://Example.COM/path")))
    assert.isFalse(domain("domain:example.com")(host("https://example.com.evil.io/")))
    assert.isFalse(domain("domain:example.com")(host("https://docs.example.com/")))
    assert.isTrue(domain("domain:*.example.com")(host("https://docs.example.com/")))
    assert.isFalse(domain("domain:*.example.com")(host("https://example.com/")))
    // WHATWG parsing: the backslash ends the host, so this URL goes to evil.com.
    assert.strictEqual(host("http://evil.com\\@example.com/"), "evil.com")
    assert.isUndefined(Rule.hostOf("not a url"))
  })

  it("names tools by registry name, by alias, and MCP tools by server", () => {
    const aliases = new Map([["Bash", new Set(["run_command"])]])
    assert.isTrue(Rule.namesTool(parse("Bash"), "run_command", aliases))
    assert.isTrue(Rule.namesTool(parse("run_command"), "run_command", aliases))
    assert.isFalse(Rule.namesTool(parse("Bash"), "bash_extra", aliases))
    assert.isTrue(Rule.namesTool(parse("mcp__github"), "mcp__github__create_issue", aliases))
    assert.isTrue(Rule.namesTool(parse("mcp__github__create_issue"), "mcp__github__create_issue", aliases))
    assert.isFalse(Rule.namesTool(parse("mcp__github"), "mcp__githubx__create_issue", aliases))
    assert.isFalse(Rule.namesTool(parse("mcp__github__create"), "mcp__github__create_issue", aliases))
  })

  const commandWords = FastCheck.array(
    FastCheck.oneof(FastCheck.stringMatching(/^[a-z0-9._/-]{1,8}$/), FastCheck.constantFrom("a b", "it's", "$x", "(")),
    { minLength: 1, maxLength: 4 }
  ).filter((words) =>
    /^[a-z]/.test(words[0]!) && !["if", "fi", "do", "done", "time", "for", "case"].includes(words[0]!)
  )

  it.prop("an exact command rule prints and parses back to itself", [commandWords, FastCheck.boolean()], ([
    words,
    prefix
  ]) => {
    const text = `Bash(${Rule.printCommandPattern({ words, prefix })})`
    const parsed = parse(text)
    assert.strictEqual(Rule.print(parsed), text)
    assert.deepStrictEqual(Either.getOrThrow(Rule.commandPattern(parsed.specifier!)), { words, prefix })
  })
})

describe("isInside", () => {
  it("a sibling that shares the root's prefix is outside it", () => {
    assert.isTrue(Rule.isInside("/home/dev/app", "/home/dev/app"))
    assert.isTrue(Rule.isInside("/home/dev/app/src/a.ts", "/home/dev/app"))
    assert.isTrue(Rule.isInside("/home/dev/app/src", "/home/dev/app/"))
    assert.isFalse(Rule.isInside("/home/dev/app-secrets/.env", "/home/dev/app"))
    assert.isFalse(Rule.isInside("/home/dev/app2/.git/hooks/pre-commit", "/home/dev/app"))
    assert.isFalse(Rule.isInside("/home/dev", "/home/dev/app"))
    assert.isTrue(Rule.isInside("/anything", "/"))
  })

  const segment = FastCheck.stringMatching(/^[a-z0-9.-]{1,6}$/).filter((s) => s !== "." && s !== "..")
  it.prop(
    "inside exactly when the path is the root or continues it at a slash",
    [FastCheck.array(segment, { minLength: 1, maxLength: 4 }), FastCheck.array(segment, { maxLength: 3 }), segment],
    ([rootParts, rest, suffix]) => {
      const root = `/${rootParts.join("/")}`
      assert.isTrue(Rule.isInside([root, ...rest].join("/"), root))
      // The last name of the root, continued without a slash, is a sibling.
      assert.isFalse(Rule.isInside(`${root}${suffix}/x`, root))
      return true
    }
  )
})

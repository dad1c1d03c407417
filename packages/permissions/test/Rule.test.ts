import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as CommandLine from "../src/CommandLine.js"
import * as Rule from "../src/Rule.js"

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
    assert.include(reason("Bash(FOO=1 npm test)"), "variables")
    assert.include(reason("Bash(npm test > out)"), "redirection")
    assert.include(reason("Bash(echo $(id))"), "substitution")
    assert.include(reason("Bash(:*)"), "write Bash")
    assert.include(reason("Bash(* *)"), "write the tool name alone")
    assert.include(reason("Bash(git 'status)"), "does not close")
    assert.include(reason("Read(!secrets/**)"), "!")
    assert.include(reason("WebFetch(https://example.com)"), "domain:")
    assert.include(reason("WebFetch(domain:exa mple.com)"), "not a domain")
  })

  it("matches commands exactly, by whole leading words with :* or a * word, and * anywhere", () => {
    const pattern = (text: string) => Either.getOrThrow(Rule.commandPattern(text))
    const w = (command: string) => command.split(" ")
    const table: ReadonlyArray<readonly [string, string, boolean]> = [
      ["git status", "git status", true],
      ["git status", "git status --porcelain", false],
      ["npm test:*", "npm test", true],
      ["npm test:*", "npm test -- --watch", true],
      ["npm test:*", "npm testing", false],
      ["npm test:*", "npm", false],
      // The space before * is a word boundary; without it, * continues the word.
      ["ls *", "ls", true],
      ["ls *", "ls -la", true],
      ["ls *", "lsof", false],
      ["ls*", "lsof -i", true],
      ["git * main", "git push origin main", true],
      ["git * main", "git main", true],
      ["git * main", "git push origin main2", false],
      ["git * main", "gitx push main", false],
      ["* --version", "node --version", true],
      ["* --version", "node --version x", false],
      ["* --help *", "npm --help install", true],
      ["npm run *", "npm run build", true],
      ["npm run *", "npm runx", false],
      // Quoted text is literal.
      ["echo '*'", "echo *", true],
      ["echo '*'", "echo a", false],
      ["git commit -m 'a b'", "git commit -m a b", true]
    ]
    for (const [rule, command, expected] of table) {
      assert.strictEqual(Rule.matchesCommand(pattern(rule), w(command)), expected, `${rule} against ${command}`)
    }
    // Quoting does not change what a command is.
    assert.isTrue(Rule.matchesCommand(pattern("git commit -m 'a b'"), ["git", "commit", "-m", "a b"]))
    assert.isTrue(Rule.matchesCommand(pattern("git commit -m \"a b\""), ["git", "commit", "-m", "a b"]))
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
    assert.strictEqual(specifier, "/src/\\[a\\]\\*\\?.ts")
    assert.isTrue(pathMatches(specifier, "src/[a]*?.ts"))
    assert.isFalse(pathMatches(specifier, "src/[a]xy.ts"))
    assert.strictEqual(Rule.exactPathSpecifier("/etc/hosts", location), "//etc/hosts")
    assert.strictEqual(Rule.exactPathSpecifier("/work/project/~", location), "/~")
    assert.isTrue(pathMatches("/~", "/work/project/~"))
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
    FastCheck.oneof(
      FastCheck.stringMatching(/^[a-z0-9._/-]{1,8}$/),
      FastCheck.constantFrom("a b", "it's", "$x", "(", "*", "a*b", "\\")
    ),
    { minLength: 1, maxLength: 4 }
  ).filter((words) =>
    /^[a-z]/.test(words[0]!) && !["if", "fi", "do", "done", "time", "for", "case"].includes(words[0]!)
  )

  it.prop("an exact command rule prints and parses back to itself, and names only its command", [
    commandWords,
    FastCheck.boolean()
  ], ([words, prefix]) => {
    const text = `Bash(${CommandLine.print(words)}${prefix ? ":*" : ""})`
    const parsed = parse(text)
    assert.strictEqual(Rule.print(parsed), text)
    const pattern = Either.getOrThrow(Rule.commandPattern(parsed.specifier!))
    assert.strictEqual(Rule.printCommandPattern(pattern), parsed.specifier)
    if (!prefix) assert.deepStrictEqual(pattern.exact, words)
    assert.isTrue(Rule.matchesCommand(pattern, words))
    assert.strictEqual(Rule.matchesCommand(pattern, [...words, "x"]), prefix)
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

/**
 * Rule syntax at its edges: every refusal with its whole reason (a user
 * reads it to fix a settings file), the canonical text a rule prints as,
 * where a command pattern's wildcard words put their boundaries, which
 * tool names a glob or an alias names, and domains as a fetch sees them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Rule from "../src/Rule.js"

const parse = (text: string) => Either.getOrThrow(Rule.parse(text))
const reason = (text: string) =>
  Either.match(Rule.parse(text), { onLeft: (e) => e.reason, onRight: () => assert.fail(`${text} parsed`) })
const pattern = (text: string) => Either.getOrThrow(Rule.commandPattern(text))
const refusal = (text: string) =>
  Either.match(Rule.commandPattern(text), { onLeft: (r) => r, onRight: () => assert.fail(`${text} compiled`) })
const matches = (rule: string, words: ReadonlyArray<string>) => Rule.matchesCommand(pattern(rule), words)
const domain = (text: string) => Either.getOrThrow(Rule.domainPattern(text))
const domainRefusal = (text: string) =>
  Either.match(Rule.domainPattern(text), { onLeft: (r) => r, onRight: () => assert.fail(`${text} compiled`) })

describe("Rule syntax at its edges", () => {
  it("each refusal of a rule's form says exactly why", () => {
    assert.strictEqual(reason("   "), "a rule cannot be empty")
    assert.strictEqual(
      reason("Bash(ls"),
      "its parenthesis does not close at the end; write Tool or Tool(specifier)"
    )
    assert.strictEqual(reason("Bash(ls) x"), "its parenthesis does not close at the end; write Tool or Tool(specifier)")
    assert.strictEqual(
      reason("Bash(  )"),
      "the parentheses are empty; write the tool name alone to cover every call"
    )
    for (const name of ["Ba sh", "Bash!", "!Bash", "Bash/x"]) {
      assert.strictEqual(reason(name), "a tool name has only letters, digits, _, ., - and * (a wildcard)", name)
    }
    assert.strictEqual(
      reason("mcp___github"),
      "an MCP rule names a server (mcp__server) or a tool (mcp__server__tool)"
    )
    assert.strictEqual(
      reason("mcp__github(create)"),
      "an MCP rule names a server (mcp__server) or a tool (mcp__server__tool), without parentheses"
    )
    const error = Either.getLeft(Rule.parse("Bash(a; b)"))
    assert.strictEqual(error._tag, "Some")
    if (error._tag === "Some") {
      assert.strictEqual(
        error.value.message,
        `Invalid permission rule "Bash(a; b)": it names more than one command; write one rule for each command.`
      )
      assert.strictEqual(error.value.rule, "Bash(a; b)")
    }
  })

  it("the name and the specifier are trimmed; Tool(*) and mcp__server__* are the whole tool or server", () => {
    assert.deepStrictEqual(parse("  Bash  (  git status  ) "), { tool: "Bash", specifier: "git status" })
    assert.deepStrictEqual(parse("Read(*)"), { tool: "Read", specifier: undefined })
    assert.deepStrictEqual(parse("mcp__a__b__*"), { tool: "mcp__a__b", specifier: undefined })
    // `mcp__*` is a glob over servers, kept as written.
    assert.deepStrictEqual(parse("mcp__*"), { tool: "mcp__*", specifier: undefined })
    assert.deepStrictEqual(parse("mcp__gh__get_*"), { tool: "mcp__gh__get_*", specifier: undefined })
    // Only a trailing `__*` is the whole server: `mcp__gh__*x` is a glob, kept as written.
    assert.deepStrictEqual(parse("mcp__gh__*x"), { tool: "mcp__gh__*x", specifier: undefined })
    // A tool the engine does not know takes any specifier: nothing to check it against.
    assert.deepStrictEqual(parse("deploy(prod; $(x))"), { tool: "deploy", specifier: "prod; $(x)" })
    assert.strictEqual(Rule.print({ tool: "Edit", specifier: undefined }), "Edit")
    assert.strictEqual(Rule.print({ tool: "Edit", specifier: "src/**" }), "Edit(src/**)")
  })

  it("each well-known name checks its specifier's form when parsed", () => {
    assert.strictEqual(reason("Bash(ls > x)"), "it holds a redirection; a rule names a command and its words")
    assert.strictEqual(reason("Read(a/*/../b)"), "a .. cannot follow a wildcard segment")
    assert.strictEqual(reason("Edit(a/*/../b)"), "a .. cannot follow a wildcard segment")
    assert.strictEqual(
      reason("WebFetch(example.com)"),
      "a URL rule names a domain, for example WebFetch(domain:example.com)"
    )
    // The same specifiers under a name that is not a command, path or URL rule parse.
    assert.isTrue(Either.isRight(Rule.parse("Task(ls > x)")))
    assert.isTrue(Either.isRight(Rule.parse("Task(a/*/../b)")))
    assert.isTrue(Either.isRight(Rule.parse("Task(example.com)")))
    for (const name of ["Write", "MultiEdit", "NotebookEdit", "Glob", "Grep", "LS"]) {
      assert.strictEqual(reason(`${name}(a/*/../b)`), "a .. cannot follow a wildcard segment", name)
    }
  })

  it("an allow rule may use a wildcard only after an MCP server's name", () => {
    const problem = "an allow rule may use a wildcard only after an MCP server's name (mcp__server__*)"
    for (const tool of ["*", "mcp__*", "mcp__s*__x", "Ba*", "*__x", "x_mcp__srv__*"]) {
      assert.strictEqual(Rule.allowProblem({ tool, specifier: undefined }), problem, tool)
    }
    for (const tool of ["Bash", "mcp__srv__*", "mcp__srv__get_*", "mcp__my_srv__*", "mcp__a__b*"]) {
      assert.isUndefined(Rule.allowProblem({ tool, specifier: undefined }), tool)
    }
  })

  it("as a settings value, a rule decodes with the reason and encodes to its canonical text", () => {
    const decode = Schema.decodeUnknownEither(Rule.FromString)
    assert.deepStrictEqual(decode("Bash(npm test:*)"), Either.right({ tool: "Bash", specifier: "npm test:*" }))
    const bad = decode("Bash(")
    assert.isTrue(Either.isLeft(bad))
    if (Either.isLeft(bad)) {
      assert.include(
        bad.left.message,
        `expected a permission rule such as Bash(npm test:*), Read(src/**) or WebFetch(domain:example.com); got "Bash(": its parenthesis does not close at the end`
      )
    }
    assert.deepStrictEqual(
      Schema.encodeEither(Rule.FromString)({ tool: "Read", specifier: "src/**" }),
      Either.right("Read(src/**)")
    )
  })

  it("a tool-name glob is anchored, escapes its dots, and names a tool through its aliases", () => {
    const aliases = new Map([["Bash", new Set(["run_command"])], ["Read", new Set(["read_file"])]])
    const names = (rule: string, tool: string) => Rule.namesTool(parse(rule), tool, aliases)
    assert.isTrue(names("*_file", "read_file"))
    assert.isFalse(names("*_file", "read_file2"))
    assert.isFalse(names("read*", "xread_file"))
    assert.isTrue(names("a.*", "a.x"))
    assert.isFalse(names("a.*", "abx"))
    assert.isTrue(names("Ba*", "run_command"))
    assert.isFalse(names("Ba*", "read_file"))
    assert.isTrue(names("mcp__*", "mcp__github__create_issue"))
    assert.isFalse(names("mcp__github", "mcp__github_x"))
    assert.isFalse(names("Write", "read_file"))
    assert.isFalse(names("Read", "run_command"))
    assert.isTrue(names("Read", "read_file"))
    assert.isTrue(names("read_file", "read_file"))
    // Without a star a dot is a dot, and the name must be whole.
    assert.isFalse(names("a.b", "axb"))
  })

  it("a command pattern's refusals, each with its reason", () => {
    assert.strictEqual(
      refusal("command:rm"),
      "a rule matches the command line, not a tool parameter (name:value); write Bash(rm *)"
    )
    assert.strictEqual(refusal(":*"), "a prefix rule needs a command before :*; to cover every command, write Bash")
    assert.strictEqual(refusal("   :*"), "a prefix rule needs a command before :*; to cover every command, write Bash")
    assert.strictEqual(refusal("   "), "it names no command")
    assert.strictEqual(refusal("* *"), "it matches every command; write the tool name alone (Bash)")
    assert.strictEqual(refusal("**"), "it matches every command; write the tool name alone (Bash)")
    assert.strictEqual(refusal("a\nb"), "a command rule is one line")
    assert.strictEqual(refusal("a\rb"), "a command rule is one line")
    assert.strictEqual(refusal("echo 'a"), "a single quote does not close")
    assert.strictEqual(refusal("echo \"a"), "a double quote does not close")
    assert.strictEqual(refusal("echo \"$x\""), "it holds a substitution; a rule names literal words")
    assert.strictEqual(refusal("echo \"`id`\""), "it holds a substitution; a rule names literal words")
    assert.strictEqual(refusal("echo a\\"), "it ends with a backslash")
    for (const c of [";", "&", "|"]) {
      assert.strictEqual(refusal(`a ${c} b`), "it names more than one command; write one rule for each command", c)
    }
    for (const c of ["<", ">"]) {
      assert.strictEqual(refusal(`a ${c} b`), "it holds a redirection; a rule names a command and its words", c)
    }
    for (const c of ["$", "`", "(", ")", "{", "}"]) {
      assert.strictEqual(
        refusal(`a ${c}b`),
        "it holds shell syntax (a substitution, a group or braces); a rule names literal words",
        c
      )
    }
    assert.strictEqual(refusal("ls #x"), "it holds a comment")
    for (const prefix of ["FOO=1 npm test", "_x=1 y", "a_1=2 y"]) {
      assert.strictEqual(
        refusal(prefix),
        "it sets variables before the command; a rule names the command and its words",
        prefix
      )
    }
  })

  it("what a command pattern takes as literal text", () => {
    // A prefix rule of one word; a # inside a word, an = after a digit, a quoted = are words.
    assert.strictEqual(pattern("git:*").text, "git:*")
    assert.isTrue(matches("ls a#b", ["ls", "a#b"]))
    assert.isTrue(matches("ls *#b", ["ls", "x#b"]))
    assert.isTrue(matches("1x=2 y", ["1x=2", "y"]))
    // Quoted, FOO=1 is a command name to bash; refused all the same, since it reads like a prefix.
    assert.strictEqual(
      refusal("'FOO=1' y"),
      "it sets variables before the command; a rule names the command and its words"
    )
    // Escapes in double quotes: only $ ` " \ lose their backslash.
    assert.deepStrictEqual(pattern("echo \"a\\\"b\\$c\\\\d\\n\"").exact, ["echo", "a\"b$c\\d\\n"])
    // A backslash outside quotes keeps the next character, a space included.
    assert.deepStrictEqual(pattern("echo a\\ b").exact, ["echo", "a b"])
    // Tabs separate words as spaces do.
    assert.deepStrictEqual(pattern("git\tstatus").exact, ["git", "status"])
    // An empty quoted word is a word.
    assert.deepStrictEqual(pattern("echo ''").exact, ["echo", ""])
    assert.isTrue(matches("echo ''", ["echo", ""]))
    assert.isFalse(matches("echo ''", ["echo"]))
  })

  it("a pattern of one empty word names no command at all", () => {
    const empty = pattern("''")
    assert.deepStrictEqual(empty.exact, [""])
    assert.isFalse(Rule.matchesCommand(empty, []))
    assert.isTrue(Rule.matchesCommand(empty, [""]))
  })

  it("wildcard words put their word boundaries where the spaces were", () => {
    const table: ReadonlyArray<readonly [string, ReadonlyArray<string>, boolean]> = [
      ["* foo", ["foo"], true],
      ["* foo", ["a", "foo"], true],
      ["* foo", ["afoo"], false],
      ["foo *", ["foo"], true],
      ["foo *", ["foo", "a"], true],
      ["foo *", ["fooa"], false],
      ["a * b", ["a", "b"], true],
      ["a * b", ["a", "x", "y", "b"], true],
      ["a * b", ["ab"], false],
      ["a * b", ["a", "xb"], false],
      ["a * b", ["ax", "b"], false],
      // Two wildcard words in a row mean what one does.
      ["a * * b", ["a", "b"], true],
      ["a * * b", ["a", "x", "b"], true],
      ["a * *", ["a"], true],
      ["a * *", ["a", "x", "y"], true],
      ["* * b", ["b"], true],
      ["npm test *:*", ["npm", "test"], true],
      ["npm test *:*", ["npm", "test", "x"], true],
      ["npm test *:*", ["npm", "tests"], false],
      ["a*b", ["ab"], true],
      ["a*b", ["a", "b"], true],
      ["a**b", ["axyb"], true],
      ["a*b c", ["axb", "c"], true],
      ["a*b c", ["axb", "cd"], false],
      ["npm test:*", ["npm", "test", "a", "b"], true],
      ["npm test :*", ["npm", "test"], true],
      ["npm test :*", ["npm", "tests"], false],
      ["'a b'", ["a b"], true],
      ["'a b'", ["a", "b"], true],
      ["x", [], false]
    ]
    for (const [rule, words, expected] of table) {
      assert.strictEqual(matches(rule, words), expected, `${rule} against ${JSON.stringify(words)}`)
    }
    // Regex characters in a rule are literal.
    assert.isTrue(matches("a.b+c?", ["a.b+c?"]))
    assert.isFalse(matches("a.b", ["axb"]))
    assert.isFalse(matches("a[b]", ["ab"]))
  })

  it("a pattern's canonical text, exact words and command name", () => {
    const shape = (text: string) => {
      const p = pattern(text)
      return { text: p.text, exact: p.exact, head: p.head, prefix: p.prefix }
    }
    assert.deepStrictEqual(shape("git   status"), {
      text: "git status",
      exact: ["git", "status"],
      head: "git",
      prefix: true
    })
    assert.deepStrictEqual(shape("npm test:*"), { text: "npm test:*", exact: undefined, head: "npm", prefix: true })
    assert.deepStrictEqual(shape("npm   test  :*"), { text: "npm test:*", exact: undefined, head: "npm", prefix: true })
    assert.deepStrictEqual(shape("git * main"), { text: "git * main", exact: undefined, head: "git", prefix: false })
    assert.deepStrictEqual(shape("* --version"), {
      text: "* --version",
      exact: undefined,
      head: undefined,
      prefix: false
    })
    assert.deepStrictEqual(shape("g*t status"), {
      text: "g*t status",
      exact: undefined,
      head: undefined,
      prefix: false
    })
    assert.deepStrictEqual(shape("'g'it log"), { text: "git log", exact: ["git", "log"], head: "git", prefix: true })
    assert.deepStrictEqual(shape("echo \"a b\""), {
      text: "echo 'a b'",
      exact: ["echo", "a b"],
      head: "echo",
      prefix: true
    })
    // A wildcard only as the last whole word leaves open only what follows the words named.
    assert.isTrue(pattern("python3 -c *").prefix)
    assert.isFalse(pattern("python3 -c print*").prefix)
    assert.isFalse(pattern("python3 * --check").prefix)
    assert.strictEqual(Rule.printCommandPattern(pattern("ls  -la")), "ls -la")
  })

  it("domains: case and a trailing dot ignored, a star within one label, subdomains at any depth", () => {
    assert.strictEqual(
      domainRefusal("example.com"),
      "a URL rule names a domain, for example WebFetch(domain:example.com)"
    )
    assert.strictEqual(domainRefusal("domain:"), "\"\" is not a domain")
    assert.strictEqual(domainRefusal("domain:a/b"), "\"a/b\" is not a domain")
    assert.strictEqual(domainRefusal("domain:a@b.com"), "\"a@b.com\" is not a domain")
    assert.strictEqual(domainRefusal("domain:a b"), "\"a b\" is not a domain")
    // A label a fetch cannot read is refused with a wildcard in it too.
    assert.strictEqual(domainRefusal("domain:ex%*.com"), "\"ex%*.com\" is not a domain")
    assert.strictEqual(domainRefusal("domain:a%xn--*.com"), "\"a%xn--*.com\" is not a domain")
    // `*.` is `*` once the trailing dot goes: every host.
    assert.isTrue(domain("domain:*.")("example.com"))
    assert.isTrue(domain("domain:*")("anything.at.all"))
    const exact = domain("domain: Example.COM. ")
    assert.isTrue(exact("example.com"))
    assert.isTrue(exact("EXAMPLE.com."))
    assert.isFalse(exact("xexample.com"))
    assert.isFalse(exact("example.comx"))
    const subdomains = domain("domain:*.example.com")
    assert.isTrue(subdomains("a.example.com"))
    assert.isTrue(subdomains("a.b.example.com"))
    assert.isFalse(subdomains("example.com"))
    assert.isFalse(subdomains("aexample.com"))
    const label = domain("domain:example.*")
    assert.isTrue(label("example.org"))
    assert.isFalse(label("example.co.uk"))
    assert.isFalse(label("example."))
    const inside = domain("domain:ex*le.com")
    assert.isTrue(inside("example.com"))
    assert.isTrue(inside("exle.com"))
    assert.isFalse(inside("ex.le.com"))
    // Regex characters of a host are literal.
    assert.isFalse(domain("domain:a-b.com")("a-bxcom"))
    // A name in another script is compared in the form a fetch sees.
    const idn = domain("domain:bücher.de")
    assert.isTrue(idn(Rule.hostOf("https://bücher.de/")!))
    assert.isTrue(idn("xn--bcher-kva.de"))
    assert.isTrue(domain("domain:xn--bcher-kva.de")("xn--bcher-kva.de"))
    assert.isTrue(domain("domain:a_b.example.com")("a_b.example.com"))
  })

  it("a URL's host, as a fetch would see it", () => {
    assert.strictEqual(Rule.hostOf("https://Example.COM./x"), "example.com")
    assert.strictEqual(Rule.hostOf("http://[::1]:8080/"), "[::1]")
    assert.isUndefined(Rule.hostOf("file:///etc/passwd"))
    assert.isUndefined(Rule.hostOf("example.com"))
    assert.strictEqual(Rule.hostOf("https://user:pw@host.example/"), "host.example")
  })
})

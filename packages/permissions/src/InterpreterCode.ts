/**
 * InterpreterCode: the shell commands an interpreter's code on the command
 * line may run: `awk 'BEGIN{system("rm -rf /")}'`, `perl -e '`rm -rf /`'`,
 * `python3 -c 'import os; os.system("rm -rf /")'`, `node -e
 * 'require("child_process").execSync("rm -rf /")'`. Apart because it reads
 * other languages' text, not bash's.
 *
 * The code is not parsed (five languages, each with ways to build a string
 * at run time): every string literal in the interpreter's words is a line a
 * shell could run, and so are all of them joined, with blanks (`["rm",
 * "-rf", "/"]`) and without (awk's `"rm" " -rf /"`). They are guesses: for
 * deny and ask rules and the destruction check, never for allow rules, which
 * name the interpreter and its code whole. What the code computes (`"r" +
 * "m"` is caught, `chr(114)` is not) stays the OS sandbox's to contain.
 *
 * @since 0.4.0
 */

/**
 * The program a command's words run, without its directory (`/usr/bin/python3` is `python3`).
 *
 * @since 0.4.0
 * @category readings
 */
export const programName = (words: ReadonlyArray<string>): string => (words[0] ?? "").replace(/^.*\//, "")

/** The programs whose words carry code of their own, by name (`python3.12`, `gawk`, `nodejs`). */
const interpreter =
  /^(?:[gmn]?awk|busybox-awk|perl[0-9.]*|python[0-9.]*|pypy[0-9]*|ruby[0-9.]*|node|nodejs|deno|bun|php[0-9.]*|lua[0-9.]*|tclsh[0-9.]*|Rscript|osascript)$/

/**
 * Whether a program name (without its directory) is an interpreter whose
 * words may carry code of their own.
 *
 * @since 0.4.0
 * @category readings
 */
export const isInterpreter = (name: string): boolean => interpreter.test(name)

/** Words past this length, and literals past this count, are not read further: the rest of a huge program stays unread. */
const maxCode = 64 * 1024
const maxLiterals = 64

/**
 * The lines of shell an interpreter's words may hand to a shell (none when
 * the command is no interpreter, or its words hold no string literal): the
 * joined literals first, then each literal, each read as a script of its
 * own (a quote or a `(` in one must not swallow the next). Past
 * `maxScripts`, the rest come as one script, a line each. `unread` when
 * the code holds more than the engine reads (`maxLiterals` literals, a word
 * of `maxCode` characters): the caller treats the line as open.
 *
 * @since 0.4.0
 * @category readings
 */
export const shellLines = (
  words: ReadonlyArray<string>
): { readonly lines: ReadonlyArray<string>; readonly unread: boolean } => {
  if (!isInterpreter(programName(words))) return none
  const literals: Array<string> = []
  let unread = false
  for (const word of words.slice(1)) {
    if (word.length > maxCode) unread = true
    literals.push(...stringLiterals(word.slice(0, maxCode), maxLiterals + 1 - literals.length))
    if (literals.length > maxLiterals) {
      unread = true
      literals.length = maxLiterals
      break
    }
  }
  const named = literals.filter((literal) => /\S/.test(literal))
  const lines = [...new Set(named.length > 1 ? [literals.join(" "), literals.join(""), ...named] : named)]
  return {
    lines: lines.length <= maxScripts
      ? lines
      : [...lines.slice(0, maxScripts - 1), lines.slice(maxScripts - 1).join("\n")],
    unread
  }
}

const none = { lines: [], unread: false }

/** Each script is a parse of the line's budget (`CommandLine`'s 48): an interpreter takes at most this many. */
const maxScripts = 8

/** The quote characters that open a literal, and Perl's and Ruby's `qx`/`%x` forms with their closing bracket. */
const closers: Record<string, string> = { "(": ")", "{": "}", "[": "]", "<": ">" }

/**
 * The string literals of a text: `"…"`, `'…'` and `` `…` `` (a backslash
 * escapes the next character), and `qx(…)`, `qx{…}`, `%x(…)`. Unclosed, a
 * literal runs to the end of the text.
 */
export const stringLiterals = (text: string, limit = maxLiterals): ReadonlyArray<string> => {
  const out: Array<string> = []
  let i = 0
  while (i < text.length && out.length < limit) {
    const c = text[i]!
    let close: string | undefined
    let start = i + 1
    if (c === "\"" || c === "'" || c === "`") close = c
    else if ((c === "q" || c === "%") && text[i + 1] === "x" && closers[text[i + 2] ?? ""] !== undefined) {
      close = closers[text[i + 2]!]
      start = i + 3
    }
    if (close === undefined) {
      i++
      continue
    }
    let body = ""
    let j = start
    for (; j < text.length && text[j] !== close; j++) {
      if (text[j] === "\\" && j + 1 < text.length) {
        // `"\x72m -rf /"`, `"\u0072m"`, `"\162m"`: the character the escape stands for.
        const escape = escapeAt(text, j + 1)
        body += escape.char
        j = escape.end - 1
      } else body += text[j]
    }
    out.push(body)
    i = j + 1
  }
  return out
}

const simpleEscapes: Readonly<Record<string, string>> = {
  n: "\n",
  t: "\t",
  r: "\r",
  e: "\u001b",
  a: "\u0007",
  "0": "\u0000"
}

/** The character an escape after a backslash at `at` stands for, and where the escape ends. */
const escapeAt = (text: string, at: number): { readonly char: string; readonly end: number } => {
  const code = (digits: string, radix: number, end: number) => {
    const point = parseInt(digits, radix)
    return { char: point <= 0x10ffff ? String.fromCodePoint(point) : "", end }
  }
  const hex = /^x([0-9A-Fa-f]{1,2})|^u\{([0-9A-Fa-f]{1,6})\}|^u([0-9A-Fa-f]{4})|^U([0-9A-Fa-f]{8})|^([0-7]{1,3})/.exec(
    text.slice(at, at + 10)
  )
  if (hex !== null) {
    const digits = hex[1] ?? hex[2] ?? hex[3] ?? hex[4]
    return digits !== undefined ? code(digits, 16, at + hex[0].length) : code(hex[5]!, 8, at + hex[0].length)
  }
  const next = text[at]!
  return { char: simpleEscapes[next] ?? next, end: at + 1 }
}

/** The words an interpreter answers without running a program. */
const asksOnly: ReadonlySet<string> = new Set(["--version", "-version", "-v", "-V", "--help", "-h"])

/**
 * Whether a command runs code its words hold or name, past what a
 * wildcard in an allow rule was written to cover: any interpreter
 * (`python3 -c CODE --version` is not a version query), and git given
 * configuration on its command line (`git -c 'alias.main=!cmd' main`, a
 * pager, `core.fsmonitor`: each runs a shell command). Such a command is
 * allowed only by a rule that names the program first and leaves open only
 * what follows the words it names (`python3 -c:*`, `git:*`), never by
 * `* --version` or `git * main`.
 *
 * @since 0.4.0
 * @category readings
 */
export const runsOwnCode = (words: ReadonlyArray<string>): boolean => {
  const name = programName(words)
  // `node --version`, `python3 -V`: a question about the interpreter runs no code.
  if (interpreter.test(name)) return words.length === 1 || words.slice(1).some((word) => !asksOnly.has(word))
  // Wherever it stands: telling git's own `-c` from a subcommand's (`commit -c`) needs every
  // global option's value; a subcommand's `-c` read as git's only asks for a plainer rule.
  return name === "git" && words.slice(1).some((word) => /^(?:-c|--config-env)/.test(word))
}

/**
 * A permission rule, in the form users already know from the leading coding
 * agents: a tool name, optionally with a specifier in parentheses that
 * narrows it to what a call acts on.
 *
 * ```text
 * Bash                         every call of the tool
 * Bash(git status)             exactly this command
 * Bash(npm test:*)             this command and any arguments after it (whole words); also Bash(npm test *)
 * Bash(git * main)             a * word stands for any words; Bash(ls*) continues the word (lsof)
 * Read(src/**)                 paths, as gitignore globs (see PathRule); Read(.env) at any depth
 * Edit(/docs/**)               "/" is the workspace root; "//" the file system root; "~/" the home directory
 * WebFetch(domain:example.com) URLs on this host; domain:*.example.com its subdomains; domain:* every host
 * mcp__github                  every tool of an MCP server (also mcp__github__*)
 * mcp__github__create_issue    one MCP tool; mcp__github__get_* some; mcp__* (deny and ask only) all
 * ```
 *
 * The specifier is read according to what the call acts on (its
 * `Policy.Subject`): a command, a path or a URL. Rules for the well-known
 * names (`Bash`, `Read`, `Edit`, `WebFetch`…) are checked against their
 * form when parsed, so a typo fails loudly instead of never matching.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as ShellQuote from "./CommandLine.js"
import * as PathRule from "./PathRule.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Rule {
  readonly tool: string
  /** What the rule narrows the tool to; `undefined` covers every call of the tool. */
  readonly specifier: string | undefined
}

/**
 * A rule that does not parse, with the reason in words a user can act on.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidRule extends Data.TaggedError("InvalidRule")<{
  readonly rule: string
  readonly reason: string
}> {
  override get message() {
    return `Invalid permission rule ${JSON.stringify(this.rule)}: ${this.reason}.`
  }
}

/**
 * Rule names whose specifier is a command.
 *
 * @since 0.1.0
 * @category names
 */
export const commandRuleNames: ReadonlySet<string> = new Set(["Bash"])

/**
 * Rule names whose specifier is a path glob.
 *
 * @since 0.1.0
 * @category names
 */
export const pathRuleNames: ReadonlySet<string> = new Set([
  "Read",
  "Edit",
  "Write",
  "MultiEdit",
  "NotebookEdit",
  "Glob",
  "Grep",
  "LS"
])

/**
 * Rule names whose specifier is a domain.
 *
 * @since 0.1.0
 * @category names
 */
export const urlRuleNames: ReadonlySet<string> = new Set(["WebFetch"])

const toolName = /^[A-Za-z0-9_.*-]+$/
const mcpName = /^mcp__[A-Za-z0-9.*-][A-Za-z0-9_.*-]*$/

/**
 * @since 0.1.0
 * @category names
 */
export const isMcp = (name: string): boolean => name.startsWith("mcp__")

/**
 * Parses `Tool` or `Tool(specifier)`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string): Either.Either<Rule, InvalidRule> => {
  const fail = (reason: string) => Either.left(new InvalidRule({ rule: text, reason }))
  const trimmed = text.trim()
  if (trimmed === "") return fail("a rule cannot be empty")
  const open = trimmed.indexOf("(")
  let name = open < 0 ? trimmed : trimmed.slice(0, open).trim()
  let specifier: string | undefined
  if (open >= 0) {
    if (!trimmed.endsWith(")")) {
      return fail("its parenthesis does not close at the end; write Tool or Tool(specifier)")
    }
    specifier = trimmed.slice(open + 1, -1).trim()
    if (specifier === "") {
      return fail("the parentheses are empty; write the tool name alone to cover every call")
    }
    // `Tool(*)` is the spelling some agents accept for the whole tool.
    if (specifier === "*") specifier = undefined
  }
  // `mcp__server__*` is the documented spelling of every tool of a server: the same rule as `mcp__server`.
  if (isMcp(name) && /^mcp__[^*]+__\*$/.test(name)) name = name.slice(0, -3)
  if (!toolName.test(name)) return fail("a tool name has only letters, digits, _, ., - and * (a wildcard)")
  if (isMcp(name)) {
    if (!mcpName.test(name)) return fail("an MCP rule names a server (mcp__server) or a tool (mcp__server__tool)")
    if (specifier !== undefined) {
      return fail("an MCP rule names a server (mcp__server) or a tool (mcp__server__tool), without parentheses")
    }
  }
  if (specifier !== undefined) {
    const problem = commandRuleNames.has(name)
      ? Either.getLeft(commandPattern(specifier))
      : pathRuleNames.has(name)
      ? Either.getLeft(PathRule.compile(specifier, { projectRoot: "/", homeDirectory: "/" }))
      : urlRuleNames.has(name)
      ? Either.getLeft(domainPattern(specifier))
      : undefined
    if (problem !== undefined && problem._tag === "Some") return fail(problem.value)
  }
  return Either.right({ tool: name, specifier })
}

/**
 * Why a rule may not be an allow rule, or `undefined`: a wildcard in a tool
 * name could grant tools nobody has seen yet, so the documented allow form
 * stops at a server (`mcp__server__*`, `mcp__server__get_*`). Deny and ask
 * rules may use any tool-name glob (`*`, `mcp__*`).
 *
 * @since 0.3.0
 * @category parsing
 */
export const allowProblem = (rule: Rule): string | undefined =>
  rule.tool.includes("*") && !/^mcp__[^*_]+(?:_[^*_]+)*__/.test(rule.tool)
    ? "an allow rule may use a wildcard only after an MCP server's name (mcp__server__*)"
    : undefined

/**
 * The canonical text of a rule: `parse(print(rule))` gives the rule back.
 *
 * @since 0.1.0
 * @category formatting
 */
export const print = (rule: Rule): string =>
  rule.specifier === undefined ? rule.tool : `${rule.tool}(${rule.specifier})`

/**
 * A rule as it is written in a settings file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FromString: Schema.Schema<Rule, string> = Schema.transformOrFail(
  Schema.String,
  Schema.Struct({ tool: Schema.String, specifier: Schema.UndefinedOr(Schema.String) }),
  {
    strict: true,
    decode: (text, _, ast) =>
      Either.match(parse(text), {
        onLeft: (error) =>
          ParseResult.fail(
            new ParseResult.Type(
              ast,
              text,
              `expected a permission rule such as Bash(npm test:*), Read(src/**) or WebFetch(domain:example.com); got ${
                JSON.stringify(text)
              }: ${error.reason}`
            )
          ),
        onRight: ParseResult.succeed
      }),
    encode: (rule) => ParseResult.succeed(print(rule))
  }
).annotations({ identifier: "PermissionRule" })

// ---------------------------------------------------------------------------
// tool names
// ---------------------------------------------------------------------------

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")

const toolGlobs = new Map<string, RegExp>()
const toolGlob = (pattern: string): RegExp => {
  let regex = toolGlobs.get(pattern)
  if (regex === undefined) {
    regex = new RegExp(`^${pattern.split("*").map(escapeRegex).join(".*")}$`)
    toolGlobs.set(pattern, regex)
  }
  return regex
}

/**
 * Whether a rule is about this tool: its registry name, a registry name the
 * rule's name stands for (`Bash` for `run_command`), or, for `mcp__server`,
 * any tool of that server.
 *
 * @since 0.1.0
 * @category matching
 */
export const namesTool = (
  rule: Rule,
  name: string,
  aliases: ReadonlyMap<string, ReadonlySet<string>>
): boolean => {
  if (rule.tool === name) return true
  if (rule.tool.includes("*")) {
    // A glob names the tools whose name, or a rule name standing for them, it matches.
    const glob = toolGlob(rule.tool)
    if (glob.test(name)) return true
    for (const [alias, tools] of aliases) if (tools.has(name) && glob.test(alias)) return true
    return false
  }
  if (isMcp(rule.tool)) return name.startsWith(`${rule.tool}__`)
  return aliases.get(rule.tool)?.has(name) === true
}

// ---------------------------------------------------------------------------
// commands
// ---------------------------------------------------------------------------

/**
 * A command rule's specifier, compiled. The documented forms:
 *
 * ```text
 * git status       exactly this command
 * npm test:*       this command, alone or with any arguments after it (the legacy suffix)
 * ls *             the same, written with a wildcard word: `ls`, `ls -la`, not `lsof`
 * ls*              any command whose text starts with `ls`: `lsof` too
 * git * main       any words (none included) between `git` and `main`
 * * --version      any command ending in `--version`
 * ```
 *
 * A `*` matches any text; written as a word of its own it matches any
 * number of words, none included, so the spaces around it are word
 * boundaries. Quoted text is literal (`'*'` is a star). A rule is matched
 * against one plain command at a time, never against a compound line.
 *
 * @since 0.1.0
 * @category models
 */
export interface CommandPattern {
  /** The specifier in canonical form: `parse(print(rule))` compiles to the same pattern. */
  readonly text: string
  readonly regex: RegExp
  /** The words, when the pattern has no wildcard: it names exactly one command. */
  readonly exact: ReadonlyArray<string> | undefined
  /** The command's name, when the pattern spells it out (`git` for `git * main`). */
  readonly head: string | undefined
  /**
   * Whether every wildcard is one trailing word (`git:*`, `python3 -c *`) or
   * there is none: what the pattern leaves open comes after all it names.
   *
   * @since 0.4.0
   */
  readonly prefix: boolean
}

type PatternWord = ReadonlyArray<string | typeof star>
const star: unique symbol = Symbol("star")

/** Splits a command specifier into words of literal text and wildcards, or says why it is not one command. */
const patternWords = (body: string): Either.Either<ReadonlyArray<PatternWord>, string> => {
  const words: Array<PatternWord> = []
  let word: Array<string | typeof star> = []
  let text = ""
  let inWord = false
  const flush = () => {
    if (text !== "") word.push(text)
    text = ""
    if (inWord) words.push(word)
    word = []
    inWord = false
  }
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (c === " " || c === "\t") {
      flush()
      continue
    }
    if (c === "\n" || c === "\r") return Either.left("a command rule is one line")
    inWord = true
    if (c === "*") {
      if (text !== "") word.push(text)
      text = ""
      word.push(star)
    } else if (c === "'") {
      const close = body.indexOf("'", i + 1)
      if (close < 0) return Either.left("a single quote does not close")
      text += body.slice(i + 1, close)
      i = close
    } else if (c === "\"") {
      let j = i + 1
      for (; j < body.length && body[j] !== "\""; j++) {
        if (body[j] === "\\" && /[$`"\\]/.test(body[j + 1] ?? "")) {
          text += body[++j]
          continue
        }
        if (body[j] === "$" || body[j] === "`") {
          return Either.left("it holds a substitution; a rule names literal words")
        }
        text += body[j]
      }
      if (j >= body.length) return Either.left("a double quote does not close")
      i = j
    } else if (c === "\\") {
      if (i + 1 >= body.length) return Either.left("it ends with a backslash")
      text += body[++i]
    } else if (/[;&|]/.test(c)) {
      return Either.left("it names more than one command; write one rule for each command")
    } else if (/[<>]/.test(c)) {
      return Either.left("it holds a redirection; a rule names a command and its words")
    } else if (/[$`(){}]/.test(c)) {
      return Either.left("it holds shell syntax (a substitution, a group or braces); a rule names literal words")
    } else if (c === "#" && text === "" && word.length === 0) {
      return Either.left("it holds a comment")
    } else text += c
  }
  flush()
  const first = words[0]
  if (first !== undefined && typeof first[0] === "string" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(first[0])) {
    return Either.left("it sets variables before the command; a rule names the command and its words")
  }
  return Either.right(words)
}

const isStarWord = (word: PatternWord) => word.length > 0 && word.every((part) => part === star)
const anyText = "[\\s\\S]*"

const wordSource = (word: PatternWord) => word.map((part) => (part === star ? anyText : escapeRegex(part))).join("")
const printWord = (word: PatternWord) => word.map((part) => (part === star ? "*" : ShellQuote.quote(part))).join("")

/**
 * Reads a command specifier. It must name one plain command: a rule that
 * could cover `a && b` as a whole is exactly what must not exist.
 *
 * @since 0.1.0
 * @category commands
 */
export const commandPattern = (specifier: string): Either.Either<CommandPattern, string> => {
  let body = specifier.trim()
  if (/^[A-Za-z_]+:[^*\s]/.test(body)) {
    return Either.left("a rule matches the command line, not a tool parameter (name:value); write Bash(rm *)")
  }
  let legacy = false
  if (body.endsWith(":*")) {
    legacy = true
    body = body.slice(0, -2).trimEnd()
    if (body === "") return Either.left("a prefix rule needs a command before :*; to cover every command, write Bash")
  }
  return Either.flatMap(patternWords(body), (parsed): Either.Either<CommandPattern, string> => {
    const words: Array<PatternWord> = [...parsed]
    if (legacy) words.push([star])
    if (words.length === 0) return Either.left("it names no command")
    if (words.every(isStarWord)) return Either.left("it matches every command; write the tool name alone (Bash)")
    let source = ""
    let open = true
    // Wildcard words in a row mean what one does ("any words"); compiled one by one, each would
    // want its own space, and `git * * main` would miss `git main`.
    const compiled = words.filter((word, i) => !isStarWord(word) || i === 0 || !isStarWord(words[i - 1]!))
    compiled.forEach((word, i) => {
      const last = i === compiled.length - 1
      if (isStarWord(word)) {
        // A wildcard word stands for any number of words: the spaces around it are boundaries.
        source += last ? (i === 0 ? anyText : `(?: ${anyText})?`) : `${i === 0 ? "" : " "}(?:${anyText} )?`
        open = true
        return
      }
      source += `${open ? "" : " "}${wordSource(word)}`
      open = false
    })
    const text = legacy
      ? `${words.slice(0, -1).map(printWord).join(" ")}:*`
      : words.map(printWord).join(" ")
    const exact = words.every((word) => word.every((part) => part !== star))
      ? words.map((word) => word.join(""))
      : undefined
    const first = words[0]!
    const head = first.every((part) => part !== star) ? first.join("") : undefined
    const last = words.at(-1)!
    const prefix = words.slice(0, -1).every((word) => !word.includes(star)) &&
      (!last.includes(star) || isStarWord(last))
    return Either.right({ text, regex: new RegExp(`^${source}$`), exact, head, prefix })
  })
}

/**
 * Whether a command, given as its words, matches: the words are joined with
 * single spaces and the pattern must cover all of them.
 *
 * @since 0.1.0
 * @category commands
 */
export const matchesCommand = (pattern: CommandPattern, words: ReadonlyArray<string>): boolean =>
  words.length > 0 && startsAsHead(pattern.head, words[0]!) && pattern.regex.test(words.join(" "))

/**
 * Whether the joined words could start as a pattern's literal first word
 * does, told without joining them: the pattern is that text followed by a
 * space or the end, so the joined words' text up to their first space (the
 * first word's, which a word with a space ends early) is the head's up to
 * its first space. A pattern without a head could match anything.
 */
const startsAsHead = (head: string | undefined, first: string): boolean => {
  if (head === undefined) return true
  const space = head.indexOf(" ")
  const key = space < 0 ? head : head.slice(0, space)
  return first.startsWith(key) && (first.length === key.length || first.charCodeAt(key.length) === 32)
}

/**
 * @since 0.1.0
 * @category commands
 */
export const printCommandPattern = (pattern: CommandPattern): string => pattern.text

// ---------------------------------------------------------------------------
// paths
// ---------------------------------------------------------------------------

/**
 * Where relative paths and rules are anchored.
 *
 * @since 0.1.0
 * @category models
 */
export interface Location {
  readonly workspaceRoot: string
  readonly homeDirectory?: string | undefined
  /** Paths compare without case (the default where the file system does: macOS, Windows). */
  readonly caseInsensitive?: boolean | undefined
  /**
   * Where a command line starts, absolute, when its tool runs it elsewhere
   * than the workspace root (the shell tool's `cwd`). Only a command's own
   * words resolve from it: rules and a path tool's paths keep the root.
   */
  readonly startDirectory?: string | undefined
}

/**
 * The directory a command line starts in: the workspace root unless the
 * location says otherwise.
 *
 * @since 0.4.0
 * @category paths
 */
export const startOf = (location: Location): string =>
  PathRule.normalize(location.startDirectory ?? location.workspaceRoot)

const pathLocation = (location: Location): PathRule.Location => ({
  projectRoot: PathRule.normalize(location.workspaceRoot),
  homeDirectory: location.homeDirectory,
  caseInsensitive: location.caseInsensitive
})

/**
 * Lexical normalization: `.` and `..` are resolved on the text. Symbolic
 * links are resolved separately (`PathRule.candidates`), and rules are
 * checked against both.
 *
 * @since 0.1.0
 * @category paths
 */
export const normalize: (path: string) => string = PathRule.normalize

/**
 * The absolute, normalized form of a path a tool reports.
 *
 * @since 0.1.0
 * @category paths
 */
export const resolve = (path: string, location: Location): string => PathRule.resolve(path, pathLocation(location))

/**
 * @since 0.1.0
 * @category paths
 */
export const isInside: (path: string, root: string) => boolean = PathRule.isInside

/**
 * Compiles a path specifier with gitignore semantics (see `PathRule`):
 * `//absolute`, `~/home`, `/project-root`, `./cwd`, and bare patterns that
 * match at any depth.
 *
 * @since 0.1.0
 * @category paths
 */
export const pathPattern = (specifier: string, location: Location): Either.Either<PathRule.PathPattern, string> =>
  PathRule.compile(specifier, pathLocation(location))

/**
 * The specifier that names exactly this absolute path (and what is under
 * it): `/relative` inside the workspace, `//absolute` outside.
 *
 * @since 0.1.0
 * @category paths
 */
export const exactPathSpecifier = (path: string, location: Location): string =>
  PathRule.exactSpecifier(path, pathLocation(location))

// ---------------------------------------------------------------------------
// URLs
// ---------------------------------------------------------------------------

/**
 * The host of a URL, as a fetch would see it (WHATWG parsing, so that the
 * rule and the fetch never disagree on `http://a.com\@b.com`), or
 * `undefined` when it has none.
 *
 * @since 0.1.0
 * @category urls
 */
export const hostOf = (url: string): string | undefined => {
  if (!URL.canParse(url)) return undefined
  const host = new URL(url).hostname.toLowerCase().replace(/\.$/, "")
  return host === "" ? undefined : host
}

/**
 * Reads a domain rule: `domain:example.com` (that host), `domain:*.example.com`
 * (its subdomains at any depth, not the host itself), `domain:example.*`
 * (a `*` inside a label matches within that label, never across a dot) and
 * `domain:*` (every host). Hosts compare without case and without a
 * trailing dot.
 *
 * @since 0.1.0
 * @category urls
 */
export const domainPattern = (specifier: string): Either.Either<(host: string) => boolean, string> => {
  if (!specifier.startsWith("domain:")) {
    return Either.left("a URL rule names a domain, for example WebFetch(domain:example.com)")
  }
  const text = specifier.slice("domain:".length).trim().toLowerCase().replace(/\.$/, "")
  if (text === "*") return Either.right(() => true)
  const subdomains = text.startsWith("*.")
  const rest = subdomains ? text.slice(2) : text
  const labels = rest.split(".")
  if (rest === "" || labels.some((label) => !/^[a-z0-9*_-]+$/.test(label.normalize("NFKC")) && !/^xn--/.test(label))) {
    // Non-ASCII names are compared in the form a fetch sees (punycode).
    const ascii = hostOf(`https://${rest.replace(/\*/g, "x")}/`)
    if (ascii === undefined || /[/@?#:\s]/.test(rest)) return Either.left(`${JSON.stringify(text)} is not a domain`)
  }
  const host = rest.includes("*") ? rest : hostOf(`https://${rest}/`)
  if (host === undefined) return Either.left(`${JSON.stringify(text)} is not a domain`)
  const body = host.split(".").map((label) => label.split("*").map(escapeRegex).join("[^.]*")).join("\\.")
  const regex = new RegExp(subdomains ? `^(?:[^.]+\\.)+${body}$` : `^${body}$`)
  return Either.right((h) => regex.test(h.toLowerCase().replace(/\.$/, "")))
}

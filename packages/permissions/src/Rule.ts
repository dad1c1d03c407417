/**
 * A permission rule, in the form users already know from the leading coding
 * agents: a tool name, optionally with a specifier in parentheses that
 * narrows it to what a call acts on.
 *
 * ```text
 * Bash                         every call of the tool
 * Bash(git status)             exactly this command
 * Bash(npm test:*)             this command and any arguments after it (whole words)
 * Read(src/**)                 paths, as globs resolved against the workspace
 * Edit(/docs/**)               "/" is the workspace root; "//" the file system root; "~/" the home directory
 * WebFetch(domain:example.com) URLs on this host; domain:*.example.com for its subdomains
 * mcp__github                  every tool of an MCP server
 * mcp__github__create_issue    one MCP tool
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
import * as ShellCommand from "./ShellCommand.js"

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

const toolName = /^[A-Za-z0-9_.-]+$/
const mcpName = /^mcp__[A-Za-z0-9.-][A-Za-z0-9_.-]*$/

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
  if (isMcp(name) && name.endsWith("__*")) name = name.slice(0, -3)
  if (!toolName.test(name)) {
    return fail("a tool name has only letters, digits, _, . and -")
  }
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
      ? Either.getLeft(checkPathSpecifier(specifier))
      : urlRuleNames.has(name)
      ? Either.getLeft(domainPattern(specifier))
      : undefined
    if (problem !== undefined && problem._tag === "Some") return fail(problem.value)
  }
  return Either.right({ tool: name, specifier })
}

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
  if (isMcp(rule.tool)) return name.startsWith(`${rule.tool}__`)
  return aliases.get(rule.tool)?.has(name) === true
}

// ---------------------------------------------------------------------------
// commands
// ---------------------------------------------------------------------------

/**
 * `git status` (exactly these words) or `npm test:*` (these words first).
 *
 * @since 0.1.0
 * @category models
 */
export interface CommandPattern {
  readonly words: ReadonlyArray<string>
  readonly prefix: boolean
}

/**
 * Reads a command specifier. It must name one plain command: a rule that
 * could cover `a && b` as a whole is exactly what must not exist.
 *
 * @since 0.1.0
 * @category commands
 */
export const commandPattern = (specifier: string): Either.Either<CommandPattern, string> => {
  let body = specifier.trim()
  let prefix = false
  if (body.endsWith(":*")) {
    prefix = true
    body = body.slice(0, -2).trimEnd()
    if (body === "") return Either.left("a prefix rule needs a command before :*; to cover every command, write Bash")
  }
  if (/(?:^|\s)\*$/.test(body)) {
    return Either.left("a trailing * is written :* (for example Bash(npm test:*))")
  }
  const parsed = ShellCommand.parse(body)
  if (parsed.problems.length > 0) return Either.left(`the command does not parse: ${parsed.problems[0]}`)
  if (parsed.parts.length === 0) return Either.left("it names no command")
  if (parsed.parts.length > 1) return Either.left("it names more than one command; write one rule for each command")
  const part = parsed.parts[0]!
  if (!ShellCommand.isCertainPart(part) || part.substitutes) {
    return Either.left("it must be one plain command, without variable assignments, redirections or substitutions")
  }
  return Either.right({ words: part.words, prefix })
}

/**
 * @since 0.1.0
 * @category commands
 */
export const matchesCommand = (pattern: CommandPattern, words: ReadonlyArray<string>): boolean => {
  if (pattern.prefix ? words.length < pattern.words.length : words.length !== pattern.words.length) return false
  for (let i = 0; i < pattern.words.length; i++) if (pattern.words[i] !== words[i]) return false
  return true
}

/**
 * @since 0.1.0
 * @category commands
 */
export const printCommandPattern = (pattern: CommandPattern): string =>
  pattern.prefix ? `${ShellCommand.print(pattern.words)}:*` : ShellCommand.print(pattern.words)

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
}

/**
 * Lexical normalization: `.` and `..` are resolved on the text, symbolic
 * links are not followed. A link inside the workspace that points out of it
 * is the file tools' business (the node package resolves real paths).
 *
 * @since 0.1.0
 * @category paths
 */
export const normalize = (path: string): string => {
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

/**
 * The absolute, normalized form of a path a tool reports.
 *
 * @since 0.1.0
 * @category paths
 */
export const resolve = (path: string, location: Location): string =>
  normalize(path.startsWith("/") ? path : `${location.workspaceRoot}/${path}`)

/**
 * @since 0.1.0
 * @category paths
 */
export const isInside = (path: string, root: string): boolean => {
  const base = normalize(root)
  return path === base || path.startsWith(base === "/" ? "/" : `${base}/`)
}

const checkPathSpecifier = (specifier: string): Either.Either<string, string> =>
  specifier.includes("\u0000") ? Either.left("a path cannot hold a NUL character") : Either.right(specifier)

/**
 * The absolute glob a path specifier stands for.
 *
 * @since 0.1.0
 * @category paths
 */
export const absoluteGlob = (specifier: string, location: Location): Either.Either<string, string> => {
  let glob = specifier.trim()
  // A trailing slash names a directory: everything in it.
  if (glob.endsWith("/") && glob.length > 1) glob = `${glob}**`
  if (glob.startsWith("//")) return Either.right(normalize(glob.slice(1)))
  if (glob === "~" || glob.startsWith("~/")) {
    if (location.homeDirectory === undefined) {
      return Either.left("it starts with ~ but the home directory is not known")
    }
    return Either.right(normalize(`${location.homeDirectory}${glob.slice(1)}`))
  }
  return Either.right(normalize(`${location.workspaceRoot}/${glob.startsWith("/") ? glob.slice(1) : glob}`))
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")

const segmentRegex = (segment: string): string => {
  let out = ""
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!
    if (c === "\\" && i + 1 < segment.length) {
      out += escapeRegex(segment[++i]!)
    } else if (c === "*") {
      out += "[^/]*"
      while (segment[i + 1] === "*") i++
    } else if (c === "?") out += "[^/]"
    else out += escapeRegex(c)
  }
  return out
}

/**
 * Compiles a path specifier: `*` and `?` stay within one path segment, a
 * `**` segment spans any number of them (none included), `\` escapes.
 *
 * @since 0.1.0
 * @category paths
 */
export const pathPattern = (specifier: string, location: Location): Either.Either<RegExp, string> =>
  Either.map(absoluteGlob(specifier, location), (glob) => {
    const segments = glob.split("/").filter((s) => s !== "")
    if (segments.length === 0) return /^\/$/
    let source = ""
    for (const segment of segments) source += segment === "**" ? "(?:/.*)?" : `/${segmentRegex(segment)}`
    return new RegExp(`^${source}$`)
  })

/**
 * Escapes a path so that, as a specifier, it matches itself only.
 *
 * @since 0.1.0
 * @category paths
 */
export const escapeGlob = (path: string): string => path.replace(/[*?\\]/g, "\\$&")

/**
 * The specifier that names exactly this absolute path: relative to the
 * workspace when inside it, `//`-absolute otherwise.
 *
 * @since 0.1.0
 * @category paths
 */
export const exactPathSpecifier = (path: string, location: Location): string => {
  const root = normalize(location.workspaceRoot)
  if (isInside(path, root)) {
    const relative = path === root ? "" : path.slice(root === "/" ? 1 : root.length + 1)
    if (relative === "") return "/"
    const escaped = escapeGlob(relative)
    return escaped === "~" || escaped.startsWith("~/") ? `./${escaped}` : escaped
  }
  return `/${escapeGlob(path)}`
}

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
 * Reads `domain:example.com` (that host) or `domain:*.example.com` (its
 * subdomains).
 *
 * @since 0.1.0
 * @category urls
 */
export const domainPattern = (specifier: string): Either.Either<(host: string) => boolean, string> => {
  if (!specifier.startsWith("domain:")) {
    return Either.left("a URL rule names a domain, for example WebFetch(domain:example.com)")
  }
  const text = specifier.slice("domain:".length).trim()
  const wildcard = text.startsWith("*.")
  const host = hostOf(`https://${wildcard ? text.slice(2) : text}/`)
  if (host === undefined || /[/@?#:*\s]/.test(wildcard ? text.slice(2) : text)) {
    return Either.left(`${JSON.stringify(text)} is not a domain`)
  }
  return Either.right(wildcard ? (h) => h.endsWith(`.${host}`) : (h) => h === host)
}

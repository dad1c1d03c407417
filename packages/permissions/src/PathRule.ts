/**
 * The path specifier of a `Read(…)` or `Edit(…)` rule, read the way the
 * Claude Code documentation describes it: gitignore patterns in four forms.
 *
 * ```text
 * //etc/passwd        from the file system root
 * ~/.ssh/**           from the home directory
 * /src/**\/*.ts        from the project root (the settings file's project)
 * ./.env              from the current directory
 * .env  *.env  a/b    bare: at any depth below the current directory
 * ```
 *
 * A bare pattern matches at any depth even when it holds a slash: wider than
 * git, on purpose, so that a deny of `secrets/**` also covers
 * `vendor/secrets/key`. A pattern that names a directory covers everything
 * beneath it, as ignoring a directory in git ignores its contents; a denied
 * file cannot be read through a path that calls it a directory either.
 *
 * Rules are compared with paths as text, so a symbolic link could carry a
 * denied file under an allowed name. `candidates` gives the path as written
 * and its real path; the engine tests both and a deny matching either
 * denies. Everything here but `candidates` is pure, so it runs per call
 * without I/O.
 *
 * @since 0.3.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"

// ---------------------------------------------------------------------------
// models
// ---------------------------------------------------------------------------

/**
 * Where the anchored forms of a pattern start.
 *
 * @since 0.3.0
 * @category models
 */
export interface Location {
  /** Absolute and normalized: what `/path` is relative to. */
  readonly projectRoot: string
  /** Absolute: what `path` and `./path` are relative to; the project root when absent. */
  readonly cwd?: string | undefined
  /** What `~/path` is relative to; a `~` pattern is rejected when absent. */
  readonly homeDirectory?: string | undefined
  /** Match letters regardless of case, as the file system does on macOS and Windows. */
  readonly caseInsensitive?: boolean | undefined
}

/**
 * A compiled path specifier.
 *
 * @since 0.3.0
 * @category models
 */
export interface PathPattern {
  readonly specifier: string
  /** True when the absolute, normalized path (or a directory above it) matches. */
  readonly test: (absolutePath: string) => boolean
  /**
   * The absolute directory (or file) under which every match lies: the
   * pattern's literal prefix (the current directory for a bare pattern such
   * as `*.env`, `/etc` for `//etc/**`).
   *
   * @since 0.4.0
   */
  readonly base: string
  /**
   * The base itself matches, and so everything under it: the pattern names
   * one file or one whole directory (`./secret/**`, `//etc/hosts`).
   *
   * @since 0.4.0
   */
  readonly exact: boolean
  /**
   * The pattern as absolute glob segments from the root (the base's
   * segments escaped), `**` standing for any number of segments; what
   * {@link reach} compares.
   *
   * @since 0.4.0
   */
  readonly segments: ReadonlyArray<string>
  /** @since 0.4.0 */
  readonly caseInsensitive: boolean
}

/**
 * Whether paths compare regardless of case on this platform (a
 * `process.platform` value), for callers that fill in
 * `Location.caseInsensitive`. Case-sensitive volumes on macOS exist but are
 * rare; a deny rule that is too wide there errs on the safe side.
 *
 * @since 0.3.0
 * @category models
 */
export const defaultCaseInsensitive = (platform: string): boolean => platform === "darwin" || platform === "win32"

// ---------------------------------------------------------------------------
// paths
// ---------------------------------------------------------------------------

/** A path the loop of {@link normalize} leaves as it is: segments of text, none empty, `.` or `..`. */
const alreadyNormal = /^\/?(?!\.\.?(?:\/|$))[^/]+(?:\/(?!\.\.?(?:\/|$))[^/]+)*$/

/**
 * Lexical normalization: `.` and `..` are resolved on the text, symbolic
 * links are not followed (that is `candidates`' business).
 *
 * @since 0.3.0
 * @category paths
 */
export const normalize = (path: string): string => {
  // Most paths the engine meets are normal already (a workspace and a plain word joined): every
  // segment non-empty, none `.` or `..`, no trailing slash. The loop below returns those unchanged;
  // telling them by one pattern spares the split and join the decision of a line made dozens of.
  if (alreadyNormal.test(path)) return path
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

const cwdOf = (location: Location): string => location.cwd ?? location.projectRoot

/**
 * The absolute, normalized form of a path a tool reports: relative paths
 * are relative to the current directory.
 *
 * @since 0.3.0
 * @category paths
 */
export const resolve = (path: string, location: Location): string =>
  normalize(path.startsWith("/") ? path : `${cwdOf(location)}/${path}`)

/**
 * Whether a path is the root or beneath it, segment-wise: `/home/dev/app-secrets`
 * is not inside `/home/dev/app`.
 *
 * @since 0.3.0
 * @category paths
 */
export const isInside = (path: string, root: string): boolean => {
  const base = normalize(root)
  const target = normalize(path)
  return target === base || target.startsWith(base === "/" ? "/" : `${base}/`)
}

// ---------------------------------------------------------------------------
// compiling
// ---------------------------------------------------------------------------

// Every character that is not a letter or digit goes into the RegExp as a
// code point escape, so no glob text can ever be read as RegExp syntax.
const literal = (char: string): string =>
  /^[\p{L}\p{N}_]$/u.test(char) ? char : `\\u{${char.codePointAt(0)!.toString(16)}}`

const literalText = (text: string): string => Array.from(text, literal).join("")

// Compiles one segment (no `/` in it, not `**`) to RegExp source.
const segmentSource = (segment: string): Either.Either<string, string> => {
  const chars = Array.from(segment)
  let out = ""
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    if (c === "\\") {
      if (i + 1 >= chars.length) return Either.left(`${JSON.stringify(segment)} ends with a lone \\`)
      out += literal(chars[++i]!)
    } else if (c === "*") {
      // `a**b` is `a*b`: only a whole `**` segment crosses directories.
      while (chars[i + 1] === "*") i++
      out += "[^/]*"
    } else if (c === "?") {
      out += "[^/]"
    } else if (c === "[") {
      const parsed = classSource(chars, i, segment)
      if (Either.isLeft(parsed)) return Either.left(parsed.left)
      out += parsed.right.source
      i = parsed.right.end
    } else {
      out += literal(c)
    }
  }
  return Either.right(out)
}

// A `[...]` class starting at `start`: `!` or `^` negates, a `]` first is
// literal, `a-z` is a range, `\` escapes. A class never matches `/`.
const classSource = (
  chars: ReadonlyArray<string>,
  start: number,
  segment: string
): Either.Either<{ readonly source: string; readonly end: number }, string> => {
  let j = start + 1
  const negate = chars[j] === "!" || chars[j] === "^"
  if (negate) j++
  const unclosed = Either.left(`an unclosed [ in ${JSON.stringify(segment)} (write \\[ for the character itself)`)
  const item = (): string | undefined => {
    if (chars[j] === "\\") j++
    return chars[j++]
  }
  let items = ""
  let first = true
  while (j < chars.length) {
    if (chars[j] === "]" && !first) {
      return Either.right({ source: `[${negate ? "^/" : ""}${items}]`, end: j })
    }
    first = false
    const lowChar = item()
    if (lowChar === undefined) return unclosed
    if (chars[j] === "-" && j + 1 < chars.length && chars[j + 1] !== "]") {
      j++
      const highChar = item()
      if (highChar === undefined) return unclosed
      if (highChar.codePointAt(0)! < lowChar.codePointAt(0)!) {
        return Either.left(`the range ${lowChar}-${highChar} in ${JSON.stringify(segment)} runs backwards`)
      }
      items += `${literal(lowChar)}-${literal(highChar)}`
    } else {
      items += literal(lowChar)
    }
  }
  return unclosed
}

const hasWildcard = (segment: string): boolean => /(^|[^\\])(\\\\)*[*?[]/.test(segment)

// `.` and `..` resolved on the pattern's text. A `..` cannot take back a
// wildcard segment: `a/*/../b` would mean "b in a, if a has any entry", which
// no lexical rewrite expresses, and a silently narrower deny is worse than
// none, so it is refused.
const normalizeSegments = (
  segments: ReadonlyArray<string>,
  absolute: boolean
): Either.Either<ReadonlyArray<string>, string> => {
  const out: Array<string> = []
  for (const segment of segments) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      const last = out[out.length - 1]
      if (last !== undefined && last !== "..") {
        if (hasWildcard(last)) return Either.left("a .. cannot follow a wildcard segment")
        out.pop()
      } else if (!absolute) {
        out.push("..")
      }
      continue
    }
    out.push(segment)
  }
  return Either.right(out)
}

// gitignore drops trailing spaces unless escaped with a backslash.
const trimSpecifier = (specifier: string): string => {
  const start = specifier.trimStart()
  let end = start.trimEnd()
  if (end.length < start.length && /(^|[^\\])\\(\\\\)*$/.test(end)) end = start.slice(0, end.length + 1)
  return end
}

const ANY = "(?:/[^/]+)*"

/**
 * Compiles a path specifier once, to a RegExp. `*` and `?` stay within a
 * segment; `[abc]`, `[a-z]`, `[!a]` are classes; `\` escapes; a `**` segment
 * spans zero or more segments. The match covers what lies beneath: `secrets`
 * and `secrets/` both cover `secrets/key`, and `x/**` covers `x` itself. A
 * leading `!` (gitignore's negation) is refused: permission rules have
 * allow and deny for that.
 *
 * @since 0.3.0
 * @category compiling
 */
export const compile = (specifier: string, location: Location): Either.Either<PathPattern, string> => {
  if (specifier.includes("\u0000")) return Either.left("a path cannot hold a NUL character")
  const text = trimSpecifier(specifier)
  if (text === "") return Either.left("the path is empty")
  if (text.startsWith("!")) {
    return Either.left(
      "a leading ! (negation) is not supported in permission rules: write an allow or deny rule instead, or \\! for a name that starts with !"
    )
  }
  const cwd = normalize(cwdOf(location))
  let base: string
  let rest: string
  let anyDepth = false
  if (text.startsWith("//")) {
    base = "/"
    rest = text.slice(2)
  } else if (text === "~" || text.startsWith("~/")) {
    if (location.homeDirectory === undefined) return Either.left("it starts with ~ but the home directory is not known")
    base = normalize(location.homeDirectory)
    rest = text.slice(1)
  } else if (text.startsWith("/")) {
    base = normalize(location.projectRoot)
    rest = text.slice(1)
  } else if (text === "." || text === ".." || text.startsWith("./") || text.startsWith("../")) {
    base = cwd
    rest = text
  } else {
    base = cwd
    rest = text
    anyDepth = true
  }

  let segments: ReadonlyArray<string>
  if (anyDepth) {
    const relative = normalizeSegments(rest.split("/"), false)
    if (Either.isLeft(relative)) return Either.left(relative.left)
    segments = relative.right
    // `a/..` or `../x`: what is left names the current directory or lies
    // above it, so "at any depth" no longer means anything.
    if (segments.length === 0 || segments[0] === "..") anyDepth = false
    const joined = normalizeSegments([...base.split("/"), ...segments], true)
    if (Either.isLeft(joined)) return Either.left(joined.left)
    if (!anyDepth) {
      segments = joined.right
      base = "/"
    }
  } else {
    const joined = normalizeSegments([...base.split("/"), ...rest.split("/")], true)
    if (Either.isLeft(joined)) return Either.left(joined.left)
    segments = joined.right
    base = "/"
  }

  // The literal prefix, for what needs to know where matches can lie.
  const all = [
    ...(base === "/" ? [] : base.split("/").filter((segment) => segment !== "").map(escapeGlob)),
    ...(
      anyDepth ? ["**", ...segments] : segments
    )
  ]
  let literalCount = 0
  while (literalCount < all.length && all[literalCount] !== "**" && !hasWildcard(all[literalCount]!)) literalCount++
  const tail = all.slice(literalCount)
  const prefix = `/${all.slice(0, literalCount).map((segment) => segment.replace(/\\(.)/gsu, "$1")).join("/")}`

  let source = base === "/" ? "" : literalText(base)
  let lastWasAny = false
  if (anyDepth) {
    source += ANY
    lastWasAny = true
  }
  for (const segment of segments) {
    if (segment === "**") {
      // Consecutive `**` mean one; repeating them only adds backtracking.
      if (!lastWasAny) source += ANY
      lastWasAny = true
      continue
    }
    const compiled = segmentSource(segment)
    if (Either.isLeft(compiled)) return Either.left(compiled.left)
    source += `/${compiled.right}`
    lastWasAny = false
  }
  // A trailing `**` is already covered by the contents suffix.
  if (lastWasAny && source.endsWith(ANY)) source = source.slice(0, -ANY.length)
  // `s`: names may hold newlines; `u`: `?` is one code point, and case folding is Unicode's.
  const regExp = new RegExp(`^${source}(?:/.*)?$`, location.caseInsensitive === true ? "isu" : "su")
  return Either.right({
    specifier,
    test: (absolutePath) =>
      regExp.test(needsNormalizing.test(absolutePath) ? resolve(absolutePath, location) : absolutePath),
    base: prefix,
    exact: tail.every((segment) => segment === "**") && !anyDepth,
    segments: all.filter((segment, i) => segment !== "**" || all[i - 1] !== "**"),
    caseInsensitive: location.caseInsensitive === true
  })
}

// A path already absolute and normalized is tested as is, which keeps the
// common case free of string rebuilding.
const needsNormalizing = /^[^/]|\/\/|(^|\/)\.\.?(\/|$)|.\/$/

// ---------------------------------------------------------------------------
// exact specifiers
// ---------------------------------------------------------------------------

const escapeGlob = (path: string): string => {
  const escaped = path.replace(/[*?[\]\\]/g, "\\$&")
  // A trailing space would be trimmed off the specifier.
  return /\s$/.test(escaped) ? `${escaped.slice(0, -1)}\\${escaped.slice(-1)}` : escaped
}

/**
 * The specifier naming exactly this path and what lies beneath it, for an
 * "always allow" answer: `/relative` inside the project root, `//absolute`
 * outside it, metacharacters escaped.
 *
 * @since 0.3.0
 * @category exact specifiers
 */
export const exactSpecifier = (absolutePath: string, location: Location): string => {
  const path = normalize(absolutePath)
  const root = normalize(location.projectRoot)
  if (isInside(path, root)) {
    const relative = path === root ? "" : path.slice(root === "/" ? 1 : root.length + 1)
    return `/${escapeGlob(relative)}`
  }
  return `/${escapeGlob(path)}`
}

// ---------------------------------------------------------------------------
// symbolic links
// ---------------------------------------------------------------------------

/**
 * As the kernel's ELOOP limit: a loop of links resolves to where the
 * following stopped instead of running forever.
 *
 * @since 0.3.0
 * @category symbolic links
 */
export const maxLinks = 40

// Follows links component by component, as the kernel does (a `..` after a
// link goes to the target's parent). A component that is missing or cannot
// be read is kept as written, so a file not created yet still resolves
// through the linked directories above it.
const walk = Effect.fnUntraced(function*(fs: FileSystem.FileSystem, absolutePath: string) {
  let resolved: Array<string> = []
  const pending = absolutePath.split("/").reverse()
  let links = 0
  while (pending.length > 0) {
    const segment = pending.pop()!
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      resolved.pop()
      continue
    }
    const here = `/${[...resolved, segment].join("/")}`
    const target = links < maxLinks ? yield* Effect.option(fs.readLink(here)) : Option.none()
    if (Option.isSome(target)) {
      links++
      if (target.value.startsWith("/")) resolved = []
      pending.push(...target.value.split("/").reverse())
      continue
    }
    resolved.push(segment)
  }
  return `/${resolved.join("/")}`
})

/**
 * The path as written (normalized), and its real path after resolving the
 * symbolic links of every existing component; a path that does not exist
 * yet resolves through its existing ancestors, and a dangling final link
 * resolves to its target. Deduplicated. Never fails: what cannot be read is
 * left as written.
 *
 * @since 0.3.0
 * @category symbolic links
 */
export const candidates = (
  absolutePath: string
): Effect.Effect<ReadonlyArray<string>, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const written = normalize(absolutePath)
    // One call for the common case of a path that exists; the walk only
    // for a missing path, a dangling link or a loop.
    const real = yield* fs.realPath(absolutePath).pipe(
      Effect.map(normalize),
      Effect.orElse(() => walk(fs, absolutePath))
    )
    return real === written ? [written] : [written, real]
  })

// ---------------------------------------------------------------------------
// reach: where a shell glob or a walk could meet a pattern
// ---------------------------------------------------------------------------

type Token =
  | { readonly _tag: "Star" }
  | { readonly _tag: "Char"; readonly literal: string | undefined; readonly test: (char: string) => boolean }

// A segment of a glob (a pattern's or a shell word's) as tokens: `*`, `?`,
// `[…]` classes and literal characters. An unclosed `[` is itself.
const tokens = (segment: string, caseInsensitive: boolean): ReadonlyArray<Token> => {
  const fold = (c: string) => (caseInsensitive ? c.toLowerCase() : c)
  const chars = Array.from(segment)
  const out: Array<Token> = []
  const literalToken = (c: string): Token => ({ _tag: "Char", literal: fold(c), test: (x) => fold(x) === fold(c) })
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    if (c === "\\" && i + 1 < chars.length) out.push(literalToken(chars[++i]!))
    else if (c === "*") {
      if (out.at(-1)?._tag !== "Star") out.push({ _tag: "Star" })
    } else if (c === "?") out.push({ _tag: "Char", literal: undefined, test: () => true })
    else if (c === "[") {
      const parsed = classSource(chars, i, segment)
      if (Either.isLeft(parsed)) out.push(literalToken(c))
      else {
        const regExp = new RegExp(`^${parsed.right.source}$`, caseInsensitive ? "iu" : "u")
        out.push({ _tag: "Char", literal: undefined, test: (x) => regExp.test(x) })
        i = parsed.right.end
      }
    } else out.push(literalToken(c))
  }
  return out
}

// Whether two segment globs share a name: a walk over the pairs of positions.
// Two classes are taken to share a character (wider, never narrower).
const segmentsMeet = (a: ReadonlyArray<Token>, b: ReadonlyArray<Token>): boolean => {
  const seen = new Set<number>()
  const stack: Array<readonly [number, number]> = [[0, 0]]
  while (stack.length > 0) {
    const [i, j] = stack.pop()!
    const key = i * (b.length + 1) + j
    if (seen.has(key)) continue
    seen.add(key)
    if (i === a.length && j === b.length) return true
    const x = a[i]
    const y = b[j]
    if (x?._tag === "Star") stack.push([i + 1, j])
    if (y?._tag === "Star") stack.push([i, j + 1])
    if (x === undefined || y === undefined) continue
    const meet = x._tag === "Star" || y._tag === "Star" ||
      (x.literal !== undefined ? y.test(x.literal) : y.literal !== undefined ? x.test(y.literal) : true)
    if (meet) stack.push([x._tag === "Star" ? i : i + 1, y._tag === "Star" ? j : j + 1])
  }
  return false
}

/**
 * Where the paths an absolute glob path (a shell word such as
 * `/ws/sec*\/x`, or a literal directory a walk starts from) stands for
 * meet a pattern: `"match"` when one of them is matched (it lies at or under
 * a matching path), `"contains"` when one of them could be a directory above
 * a matching path (a walk or a listing from it could reach one), `undefined`
 * when neither. A `**` segment in the glob stands for any number of
 * segments (as with bash's globstar). Hidden names are not treated
 * specially: `*` is taken to match `.env`, as with `dotglob`. Symbolic
 * links inside what the glob walks are not followed: that is the OS
 * sandbox's to mask.
 *
 * @since 0.4.0
 * @category reach
 */
export const reach = (pattern: PathPattern, globPath: string): "match" | "contains" | undefined => {
  const ci = pattern.caseInsensitive
  const split = (path: string) => path.split("/").filter((segment) => segment !== "" && segment !== ".")
  const glob = split(globPath).map((segment) => (segment === "**" ? "**" : tokens(segment, ci)))
  const rule = pattern.segments.map((segment) => (segment === "**" ? "**" : tokens(segment, ci)))
  let found: "match" | "contains" | undefined = undefined
  const seen = new Set<number>()
  const stack: Array<readonly [number, number]> = [[0, 0]]
  while (stack.length > 0) {
    const [p, g] = stack.pop()!
    const key = p * (glob.length + 1) + g
    if (seen.has(key)) continue
    seen.add(key)
    if (rule.slice(p).every((segment) => segment === "**")) return "match"
    if (g === glob.length) {
      found = "contains"
      continue
    }
    const r = rule[p]!
    const w = glob[g]!
    if (r === "**") {
      stack.push([p + 1, g], [p, g + 1])
      continue
    }
    if (w === "**") {
      stack.push([p, g + 1], [p + 1, g])
      continue
    }
    if (segmentsMeet(r, w)) stack.push([p + 1, g + 1])
  }
  return found
}

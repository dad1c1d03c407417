/**
 * The file tools a model works with: `read_file`, `write_file`,
 * `edit_file`, `list_directory`, `glob` and `grep`, all confined to the
 * {@link Workspace.Workspace}.
 *
 * Every path is checked twice. The tool's rule check resolves it, so a bad
 * path comes back as a `rule_violation` the model can fix, and the resolved
 * path becomes the call's resource key (`file:<real path>`): two writes of
 * one file never overlap, whatever their read-only marks say, and a read
 * waits for a write in flight, even when the two calls name the file through
 * different links. The handler resolves again, then walks to the file
 * through open directory descriptors ({@link PathWalk}) and refuses if the
 * walk lands anywhere else: a shell command swapping a directory of the path
 * for a link while the call runs cannot lead it outside the workspace.
 *
 * Every read, write and directory listing goes through the descriptors the
 * walk holds: files are opened with `O_NOFOLLOW` in their held directory,
 * writes are atomic (a temporary file created in the held directory, renamed
 * over the target there), and glob and grep enter subdirectories from their
 * held parent without ever following a link. So node's `fs` is used
 * directly: `FileSystem` can neither open relative to a descriptor nor with
 * `O_NOFOLLOW`.
 *
 * Output names files relative to the workspace root, never by host path.
 *
 * The permission stage judges a call by the path it names; `grep` over `.`
 * names the root, and a deny rule on `secret/**` must still keep
 * `secret/x` out of its result. So every tool asks the `Policy` about each
 * path it opens, enters or shows on its own (`checkPath`), and about its
 * own final path too: a refused file is not opened, a refused directory not
 * entered, a refused name not shown, and the result says how many were left
 * out and by which rule, never what they were.
 *
 * @since 0.1.0
 */
import * as Policy from "@tool-runtime/core/Policy"
import * as Registry from "@tool-runtime/core/Registry"
import * as ResourceLocks from "@tool-runtime/core/ResourceLocks"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { isUtf8 } from "node:buffer"
import type * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as PathWalk from "./PathWalk.js"
import * as Workspace from "./Workspace.js"

// ---------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------

/**
 * A file operation failed in a way the model should hear about ("no such
 * file", "old_string was not found"). The reason names files relative to
 * the workspace and says what to do.
 *
 * @since 0.1.0
 * @category errors
 */
export class FileError extends Schema.TaggedError<FileError>()("FileError", {
  reason: Schema.String,
  retryable: Schema.Boolean
}) {
  override get message() {
    return this.reason
  }
}

class Errno extends Data.TaggedError("Errno")<{ readonly code: string }> {}

const codeOf = (cause: unknown): string => {
  // A PlatformError keeps node's error as its cause.
  const inner = Predicate.hasProperty(cause, "cause") && Predicate.hasProperty(cause.cause, "code")
    ? cause.cause
    : cause
  return Predicate.hasProperty(inner, "code") && typeof inner.code === "string" ? inner.code : "UNKNOWN"
}

/** The one place node's promises become effects; errors keep only their code (node's message holds host paths). */
const syscall = <A>(f: () => Promise<A>): Effect.Effect<A, Errno> =>
  Effect.tryPromise({ try: f, catch: (cause) => new Errno({ code: codeOf(cause) }) })

const fail = (reason: string, retryable = false) => new FileError({ reason, retryable })

/** An errno, told about the file as the model knows it. */
const describe = (shown: string) => (cause: unknown): FileError => {
  const code = cause instanceof Errno ? cause.code : codeOf(cause)
  switch (code) {
    case "ENOENT":
      return fail(`no such file or directory: ${shown}`)
    case "EACCES":
    case "EPERM":
      return fail(`permission denied: ${shown}`)
    case "EISDIR":
      return fail(`${shown} is a directory, not a file; use list_directory to see what it holds`)
    case "ENOTDIR":
      return fail(`${shown}: a part of the path is a file, not a directory`)
    case "ELOOP":
      return fail(`${shown} was replaced by a symbolic link while the call ran; call again`, true)
    case "ENOSPC":
    case "EDQUOT":
      return fail(`no space left to write ${shown}`)
    case "EROFS":
      return fail(`${shown} is on a read-only file system`)
    case "ENAMETOOLONG":
      return fail(`the name ${shown} is too long`)
    case "EMFILE":
    case "ENFILE":
    case "EAGAIN":
    case "EBUSY":
    case "EINTR":
      return fail(`${shown} is temporarily unavailable (${code})`, true)
    default:
      return fail(`cannot access ${shown} (${code})`)
  }
}

// ---------------------------------------------------------------------------
// options
// ---------------------------------------------------------------------------

/**
 * What every file tool lets its owner change.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Overrides the read-only mark. It exists to show that a wrong mark is
   * harmless (the resource locks still serialize writes to one file); there
   * is no good reason to set it.
   */
  readonly readOnly?: boolean | undefined
  readonly timeout?: Duration.DurationInput | undefined
  /**
   * Lets `write_file` and `edit_file` write git's hooks (`.git/hooks/**`)
   * and configuration (`.git/config`), also a submodule's under
   * `.git/modules/`. Off by default, and loud on purpose: a hook runs as
   * code the next time the user runs git, and the configuration decides
   * what the user's own git runs (`core.hooksPath`, `core.fsmonitor`, an
   * alias, a filter), outside any sandbox the model's commands run in.
   */
  readonly allowGitMetadataWrites?: boolean | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ReadFileOptions extends Options {
  /** Lines returned when the call gives no limit. Default 2,000. */
  readonly defaultLimit?: number | undefined
  /** Characters kept of one line. Default 2,000. */
  readonly maxLineChars?: number | undefined
  /** Characters of output; reading stops at the line that would pass it. Default 50,000. */
  readonly maxChars?: number | undefined
  /** Bytes read past the last line shown to count the file's lines. Default 32 MiB. */
  readonly maxCountBytes?: number | undefined
  /**
   * Bytes read to reach the lines asked for (an offset far into the file,
   * a line without end) before giving up. Default 256 MiB.
   */
  readonly maxScanBytes?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface EditFileOptions extends Options {
  /** Largest file edited, in bytes. Default 10 MiB. */
  readonly maxBytes?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ListOptions extends Options {
  /** Entries listed. Default 1,000. */
  readonly maxEntries?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface SearchOptions extends Options {
  /** Directory names not entered unless the pattern names them. Default `node_modules` and `.git`. */
  readonly skip?: ReadonlyArray<string> | undefined
  /** Directory entries looked at before giving up. Default 200,000. */
  readonly maxScanned?: number | undefined
  /** Characters of output. Default 25,000. */
  readonly maxChars?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface GrepOptions extends SearchOptions {
  /** Files larger than this are skipped, in bytes. Default 4 MiB. */
  readonly maxFileBytes?: number | undefined
  /** Bytes read before the search stops. Default 64 MiB. */
  readonly maxScanBytes?: number | undefined
  /** Characters of a line that are searched; the rest of a longer line is not. Default 2,000. */
  readonly maxLineChars?: number | undefined
}

const defaultSkip: ReadonlyArray<string> = ["node_modules", ".git"]

const count = (n: number) => n.toLocaleString("en-US")

const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`

// ---------------------------------------------------------------------------
// paths and locks
// ---------------------------------------------------------------------------

interface PathInput {
  readonly path: string
}

const PathParameter = (description: string) => Schema.String.annotations({ description })

const OptionalPath = (description: string) =>
  Schema.optionalWith(Schema.String.annotations({ description }), { default: () => "." })

/**
 * Checks a tool's path, declares its lock, and resolves it again for use.
 *
 * `resources` is synchronous and cannot reach the workspace, so the rule
 * check remembers what it resolved for the decoded input (the runtime hands
 * the same object to the rule check, the lock and the handler). Were that
 * ever not so, the call locks the whole workspace instead: slower, never
 * unsafe.
 */
const guard = (intent: Workspace.Intent, access: "read" | "write", options?: Options) => {
  const resolved = new WeakMap<object, string>()
  const gitWrites = access === "write" && options?.allowGitMetadataWrites !== true
    ? (workspace: Workspace.Service, real: string) =>
      isGitMetadata(real) ? gitMetadataViolation(workspace.display(real)) : undefined
    : () => undefined
  return {
    validate: (input: PathInput): Effect.Effect<void, ToolError.RuleViolation, Workspace.Workspace> =>
      Effect.flatMap(Workspace.Workspace, (workspace) =>
        workspace.resolve(input.path, { intent }).pipe(
          Effect.mapError((error) => error.toRuleViolation()),
          Effect.flatMap((real) => {
            const violation = gitWrites(workspace, real)
            if (violation !== undefined) return Effect.fail(violation)
            resolved.set(input, real)
            return Effect.void
          })
        )),
    /**
     * For permission rules (`Read(src/**)`, `Edit(.env)`): the path after
     * links, as the check resolved it, so a link cannot dress an outside or
     * a denied file as an allowed one.
     */
    subject: (input: PathInput): Policy.Subject => ({
      _tag: "Path",
      path: resolved.get(input) ?? input.path,
      access
    }),
    resources: (input: PathInput): ReadonlyArray<ResourceLocks.Resource> => {
      const real = resolved.get(input)
      if (real === undefined) return [ResourceLocks.writes(Workspace.resourceKey)]
      const key = Workspace.fileKey(real)
      return [
        ResourceLocks.reads(Workspace.resourceKey),
        access === "write" ? ResourceLocks.writes(key) : ResourceLocks.reads(key)
      ]
    },
    use: (
      workspace: Workspace.Service,
      input: PathInput
    ): Effect.Effect<string, Workspace.PathError | FileError | ToolError.RuleViolation> =>
      Effect.flatMap(workspace.resolve(input.path, { intent }), (real): Effect.Effect<
        string,
        FileError | ToolError.RuleViolation
      > => {
        const locked = resolved.get(input)
        if (locked !== undefined && locked !== real) return Effect.fail(relinked(input))
        const violation = gitWrites(workspace, real)
        return violation === undefined ? Effect.succeed(real) : Effect.fail(violation)
      }),
    /**
     * The policy's word on the path the handler is about to use, which the
     * walk confirmed is `real`. The permission stage judged the call by the
     * path its check resolved; when that is `real`, an ask rule on it was
     * put to a person who let the call run, so only a deny refuses. A path
     * the stage did not see is refused on either.
     */
    admit: (
      policy: Policy.Service,
      toolName: string,
      workspace: Workspace.Service,
      input: PathInput,
      real: string,
      as: "read" | "write" = access
    ): { readonly violation: ToolError.RuleViolation | undefined; readonly approved: string | undefined } => {
      const refusal = policy.checkPath(toolName, real, as)
      if (refusal === undefined) return { violation: undefined, approved: undefined }
      if (refusal.verdict === "ask" && resolved.get(input) === real) {
        return { violation: undefined, approved: refusal.rule }
      }
      return { violation: refusedPath(refusal, as, workspace.display(real)), approved: undefined }
    }
  }
}

// ---------------------------------------------------------------------------
// permission rules on the paths a call reaches
// ---------------------------------------------------------------------------

/** What the permission rules refused a path for, said of the path, as a rule the model can act on. */
const refusedPath = (refusal: Policy.PathRefusal, access: "read" | "write", shown: string) => {
  const doing = access === "read" ? "reading" : "writing"
  return refusal.verdict === "deny"
    ? new ToolError.RuleViolation({
      reason: `the permission rules deny ${doing} ${shown} (${refusal.rule})`,
      fix: `Do not try to reach ${shown} another way; if the task needs it, ask the user.`
    })
    : new ToolError.RuleViolation({
      reason: `a permission rule wants a person to approve ${doing} ${shown} (${refusal.rule}), ` +
        "and nobody was asked about it: the call was checked under another name for it (a link changed meanwhile)",
      fix: `Call again naming ${shown} itself, so that the person is asked.`
    })
}

interface Tally {
  files: number
  directories: number
  others: number
  readonly rules: Set<string>
}

const emptyTally = (): Tally => ({ files: 0, directories: 0, others: 0, rules: new Set() })

/**
 * The policy's path rules over one walk: every entry a search would open,
 * enter or show is put to `checkPath` first, and the refused ones are
 * counted, never named, so the result can say what it left out and why
 * without telling what it was. An ask rule the person already answered for
 * the call's own path (`approved`) covers what the walk meets under it.
 */
const pathRules = (policy: Policy.Service, toolName: string, approved: string | undefined) => {
  const tallies = { deny: emptyTally(), ask: emptyTally() }
  return {
    admits: (real: string, kind: PathWalk.Kind): boolean => {
      const refusal = policy.checkPath(toolName, real, "read")
      if (refusal === undefined || (refusal.verdict === "ask" && refusal.rule === approved)) return true
      const tally = tallies[refusal.verdict]
      tally.rules.add(refusal.rule)
      if (kind === "file") tally.files++
      else if (kind === "directory") tally.directories++
      else tally.others++
      return false
    },
    /**
     * One line per verdict. A walk counts files and directories ("skipped");
     * a listing counts entries ("withheld"): it shows names, and the names
     * are what it keeps back.
     */
    notes: (style: "skipped" | "withheld"): Array<string> => {
      const notes: Array<string> = []
      for (const verdict of ["deny", "ask"] as const) {
        const { directories, files, others, rules } = tallies[verdict]
        const total = files + directories + others
        if (total === 0) continue
        const what = style === "withheld"
          ? `${plural(total, "entry", "entries")} ${total === 1 ? "is" : "are"} withheld`
          : `${
            [
              files > 0 ? plural(files, "file") : "",
              directories > 0 ? plural(directories, "directory", "directories") : "",
              others > 0 ? plural(others, "other entry", "other entries") : ""
            ].filter((part) => part !== "").join(" and ")
          } ${total === 1 ? "was" : "were"} skipped`
        const them = total === 1 ? "it" : "them"
        const listed = Array.from(rules).join(", ")
        notes.push(
          verdict === "deny"
            ? `[${what}: the permission rules deny reading ${them} (${listed}).]`
            : `[${what}: a permission rule wants a person to approve reading ${them} (${listed}); ` +
              "read one by name with read_file, which asks.]"
        )
      }
      return notes
    }
  }
}

/**
 * Whether a real path is one of git's hooks or its configuration: under a
 * `.git` directory, `hooks/…` or `config`, and the same for a submodule's
 * git directory, `.git/modules/<name>/…` (a name may hold slashes, and
 * submodules nest, so anything below `modules/` that goes through `hooks`
 * or ends in `config`). Case-insensitive, for the file systems that are.
 */
const isGitMetadata = (real: string): boolean => {
  const parts = real.toLowerCase().split(NodePath.sep)
  for (let i = parts.indexOf(".git"); i !== -1; i = parts.indexOf(".git", i + 1)) {
    const [first, ...rest] = parts.slice(i + 1)
    if (first === "hooks" || (first === "config" && rest.length === 0)) return true
    if (first === "modules" && (rest.includes("hooks") || rest.at(-1) === "config")) return true
  }
  return false
}

const gitMetadataViolation = (shown: string) =>
  new ToolError.RuleViolation({
    reason: `${shown} is git's own: a hook in .git/hooks runs as code the next time the user runs git, and ` +
      ".git/config changes what the user's own git commands run; the file tools do not write them",
    fix: "Do not write it another way (a command, a link): tell the user what to change there and why, " +
      "and let them make the change."
  })

const relinked = (input: PathInput) =>
  fail(
    `the path ${
      JSON.stringify(Workspace.printable(input.path))
    } led to another file when the call ran than when it was checked (a link changed meanwhile); call again`,
    true
  )

/** A walk's refusal, told about the path as the model sent it. */
const refusal = (workspace: Workspace.Service, input: PathInput, shown: string) =>
(
  error: PathWalk.Failure
): FileError | Workspace.PathError => {
  if (error._tag === "Errno") return describe(shown)(error)
  if (error.problem === "moved") {
    return fail(`${shown} was moved out of the workspace while the call ran; call again`, true)
  }
  return new Workspace.PathError({
    path: Workspace.printable(input.path),
    problem: error.problem,
    root: workspace.root
  })
}

/**
 * Walks to the entry the path check resolved, scoped. The walk holds the
 * parent directory open; a walk that lands elsewhere (a link changed since
 * the check) is refused.
 */
const locate = (
  workspace: Workspace.Service,
  input: PathInput,
  real: string,
  options?: {
    readonly createParents?: boolean
    /** Say "no such file" when a directory on the way is missing, as for the file itself. */
    readonly file?: boolean
  }
) =>
  PathWalk.entry(workspace.root, real, options).pipe(
    Effect.mapError((error) =>
      options?.file === true && error._tag === "Errno" && error.code === "ENOENT"
        ? fail(`no such file: ${workspace.display(real)}`)
        : refusal(workspace, input, workspace.display(real))(error)
    ),
    Effect.filterOrFail((found) => found.real === real, () => relinked(input))
  )

/** Walks to the directory the path check resolved, scoped, like {@link locate}. */
const locateDirectory = (workspace: Workspace.Service, input: PathInput, real: string) => {
  const shown = workspace.display(real)
  return PathWalk.directory(workspace.root, real).pipe(
    Effect.mapError((error) =>
      error._tag === "Errno" && error.code === "ENOTDIR"
        ? fail(`${shown} is a file, not a directory; use read_file to read it`)
        : refusal(workspace, input, shown)(error)
    ),
    Effect.filterOrFail((found) => found.real === real, () => relinked(input))
  )
}

/** Close names in the same directory, for "no such file" ("did you mean …?"). */
const suggestion = (workspace: Workspace.Service, parent: PathWalk.Directory, name: string): Effect.Effect<string> =>
  PathWalk.list(parent).pipe(
    Effect.map((entries) => {
      const close = Registry.suggest(name, entries.map((entry) => entry.name), 3)
      return close.length === 0
        ? ""
        : ` (did you mean ${close.map((other) => workspace.display(NodePath.join(parent.real, other))).join(" or ")}?)`
    }),
    Effect.orElseSucceed(() => "")
  )

/**
 * Opens `name` in a held directory for reading, scoped; only regular files.
 * `refuse` tells a walk's refusal to the model.
 */
const openRegular = (
  workspace: Workspace.Service,
  parent: PathWalk.Directory,
  name: string,
  refuse: (error: PathWalk.Failure) => FileError | Workspace.PathError
) => {
  const shown = workspace.display(NodePath.join(parent.real, name))
  return PathWalk.openFile(parent, name).pipe(
    Effect.catchAll((error) =>
      error._tag === "Errno" && error.code === "ENOENT"
        ? Effect.flatMap(
          suggestion(workspace, parent, name),
          (hint) => Effect.fail(fail(`no such file: ${shown}${hint}`))
        )
        : Effect.fail(refuse(error))
    ),
    Effect.flatMap(({ handle, stats }) =>
      stats.isDirectory()
        ? Effect.fail(describe(shown)(new Errno({ code: "EISDIR" })))
        : stats.isFile()
        ? Effect.succeed({ handle, stats })
        : Effect.fail(fail(`${shown} is not a regular file (a device, socket or pipe); it cannot be read`))
    )
  )
}

// ---------------------------------------------------------------------------
// text
// ---------------------------------------------------------------------------

const signatures: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
  ["a PNG image", [0x89, 0x50, 0x4e, 0x47]],
  ["a JPEG image", [0xff, 0xd8, 0xff]],
  ["a GIF image", [0x47, 0x49, 0x46, 0x38]],
  ["a PDF document", [0x25, 0x50, 0x44, 0x46]],
  ["a ZIP archive", [0x50, 0x4b, 0x03, 0x04]],
  ["a gzip archive", [0x1f, 0x8b]],
  ["an ELF executable", [0x7f, 0x45, 0x4c, 0x46]],
  ["a WebAssembly module", [0x00, 0x61, 0x73, 0x6d]]
]

/** Drops a multi-byte character cut off at the end of a sample. */
const completeUtf8 = (bytes: Uint8Array): Uint8Array => {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!
    if (byte < 0x80) return bytes
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2
      return length > back ? bytes.subarray(0, bytes.length - back) : bytes
    }
  }
  return bytes
}

/**
 * What a file is, from its first bytes, when it is not UTF-8 text:
 * a known format, "binary data" (a NUL byte) or "not UTF-8 text".
 *
 * @since 0.1.0
 * @category text
 */
export const sniff = (head: Uint8Array): string | undefined => {
  for (const [kind, magic] of signatures) {
    if (head.length >= magic.length && magic.every((byte, i) => head[i] === byte)) return kind
  }
  const sample = head.subarray(0, 8192)
  if (sample.includes(0)) return "binary data"
  return isUtf8(completeUtf8(sample)) ? undefined : "not UTF-8 text"
}

/** Cuts at `max` UTF-16 units without leaving half a surrogate pair. */
const cut = (text: string, max: number): string => {
  if (text.length <= max) return text
  const code = text.charCodeAt(max - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)
}

const numbered = (line: number, text: string) => `${String(line).padStart(6, " ")}\t${text}`

const decoder = new TextDecoder("utf-8")

/**
 * Splits a byte stream into lines and keeps the ones asked for, numbered.
 * Memory stays bounded whatever the file: only wanted lines are kept, and
 * of each only its first bytes.
 */
class LineScanner {
  /** Lines completed so far. */
  lines = 0
  readonly shown: Array<string> = []
  chars = 0
  cutLines = 0
  /** The next line that was wanted but not shown (a limit was reached). */
  stoppedAt: number | undefined
  private parts: Array<Uint8Array> = []
  private kept = 0
  private total = 0
  private readonly maxLineBytes: number

  constructor(
    private readonly first: number,
    private readonly limit: number,
    private readonly maxLineChars: number,
    private readonly maxChars: number
  ) {
    // Enough bytes for maxLineChars characters of any width, plus one.
    this.maxLineBytes = maxLineChars * 4 + 4
  }

  push(bytes: Uint8Array): void {
    let start = 0
    for (;;) {
      const newline = bytes.indexOf(10, start)
      if (newline === -1) {
        this.keep(bytes, start, bytes.length)
        return
      }
      this.keep(bytes, start, newline)
      this.endLine()
      start = newline + 1
    }
  }

  finish(): void {
    if (this.total > 0) this.endLine()
  }

  private wanted(): boolean {
    return this.stoppedAt === undefined && this.lines + 1 >= this.first
  }

  private keep(bytes: Uint8Array, from: number, to: number): void {
    this.total += to - from
    if (!this.wanted()) return
    const room = this.maxLineBytes - this.kept
    if (room <= 0 || to <= from) return
    // Copied: the caller reuses its buffer.
    const piece = bytes.slice(from, Math.min(to, from + room))
    this.parts.push(piece)
    this.kept += piece.length
  }

  private endLine(): void {
    const line = this.lines + 1
    if (this.wanted()) {
      let text = decoder.decode(this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts))
      if (text.endsWith("\r")) text = text.slice(0, -1)
      if (text.length > this.maxLineChars || this.total > this.kept) {
        text = `${cut(text, this.maxLineChars)}… [line cut]`
        this.cutLines++
      }
      const formatted = numbered(line, text)
      if (this.shown.length > 0 && this.chars + formatted.length + 1 > this.maxChars) {
        this.stoppedAt = line
      } else {
        this.shown.push(formatted)
        this.chars += formatted.length + 1
        if (this.shown.length >= this.limit) this.stoppedAt = line + 1
      }
    }
    this.lines = line
    this.parts = []
    this.kept = 0
    this.total = 0
  }
}

const chunkSize = 64 * 1024

/** Feeds a file to `onChunk` from the start; `onChunk` says whether to go on. */
const forEachChunk = (
  handle: PathWalk.File["handle"],
  shown: string,
  onChunk: (bytes: Uint8Array) => boolean
): Effect.Effect<void, FileError> => {
  const buffer = new Uint8Array(chunkSize)
  const from = (position: number): Effect.Effect<void, FileError> =>
    Effect.flatMap(
      syscall(() => handle.read(buffer, 0, chunkSize, position)).pipe(Effect.mapError(describe(shown))),
      ({ bytesRead }) =>
        bytesRead === 0 || !onChunk(buffer.subarray(0, bytesRead)) ? Effect.void : from(position + bytesRead)
    )
  return from(0)
}

// ---------------------------------------------------------------------------
// read_file
// ---------------------------------------------------------------------------

/**
 * Reads a text file with line numbers (`cat -n` style), from a line offset,
 * a bounded number of lines. Long lines are cut; a binary file gets a short
 * summary instead of its bytes.
 *
 * @since 0.1.0
 * @category tools
 */
export const readFile = (options?: ReadFileOptions) => {
  const defaultLimit = options?.defaultLimit ?? 2_000
  const maxLineChars = options?.maxLineChars ?? 2_000
  const maxChars = options?.maxChars ?? 50_000
  const maxCountBytes = options?.maxCountBytes ?? 32 * 1024 * 1024
  const maxScanBytes = options?.maxScanBytes ?? 256 * 1024 * 1024
  const paths = guard("read", "read")
  return Tool.make("read_file", {
    description: "Reads a text file in the workspace. Lines come numbered like `cat -n` (number, tab, text); " +
      `at most ${count(defaultLimit)} lines per call unless you pass a limit. Lines longer than ` +
      `${count(maxLineChars)} characters are cut. Binary files get a one-line summary.`,
    parameters: {
      path: PathParameter("The file, relative to the workspace root (or an absolute path inside the workspace)."),
      offset: Schema.optionalWith(
        Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({
          description: "The first line to read, counting from 1. Default 1."
        }),
        { default: () => 1 }
      ),
      limit: Schema.optional(
        Schema.Int.pipe(Schema.between(1, 100_000)).annotations({
          description: `How many lines to read. Default ${count(defaultLimit)}.`
        })
      )
    },
    readOnly: options?.readOnly ?? true,
    timeout: options?.timeout ?? "10 seconds",
    outputLimit: maxChars + 1_000,
    validate: paths.validate,
    resources: paths.resources,
    subject: paths.subject,
    handler: (input) =>
      Effect.gen(function*() {
        const workspace = yield* Workspace.Workspace
        const policy = yield* Policy.Policy
        const real = yield* paths.use(workspace, input)
        const { violation } = paths.admit(policy, "read_file", workspace, input, real)
        if (violation !== undefined) return yield* violation
        const shown = workspace.display(real)
        const limit = input.limit ?? defaultLimit
        return yield* Effect.scoped(Effect.gen(function*() {
          const found = yield* locate(workspace, input, real, { file: true })
          const { handle, stats } = yield* openRegular(
            workspace,
            found.parent,
            found.name,
            refusal(workspace, input, shown)
          )
          const scanner = new LineScanner(input.offset, limit, maxLineChars, maxChars)
          let kind: string | undefined
          let first = true
          // Counting the lines after the last one shown tells the model how
          // far the file goes; it must not make reading the head of a huge
          // log take as long as reading all of it.
          let counted = 0
          let complete = true
          // Every byte read is bounded: text ends at the first NUL byte (a
          // hole in a sparse file reads as gigabytes of them, in a single
          // line), and the lines asked for must be reached within
          // `maxScanBytes`.
          let scanned = 0
          let binaryFrom: number | undefined
          let scanLimited = false
          yield* forEachChunk(handle, shown, (bytes) => {
            if (first) {
              first = false
              kind = sniff(bytes)
              if (kind !== undefined) return false
            }
            const nul = bytes.indexOf(0)
            if (nul !== -1) {
              scanner.push(bytes.subarray(0, nul))
              binaryFrom = scanned + nul
              return false
            }
            scanned += bytes.length
            scanner.push(bytes)
            if (scanner.stoppedAt !== undefined) {
              if ((counted += bytes.length) <= maxCountBytes) return true
              complete = false
              return false
            }
            if (scanned < maxScanBytes) return true
            scanLimited = true
            complete = false
            return false
          })
          if (kind !== undefined) {
            return `[${shown} is ${kind}, ${plural(stats.size, "byte")}; read_file shows text only.]`
          }
          // A line cut off by the scan bound is shown as far as it was read.
          if (complete || scanLimited) scanner.finish()
          if (scanner.lines === 0) {
            return binaryFrom === undefined
              ? `[${shown} is empty.]`
              : `[${shown} is binary data, ${plural(stats.size, "byte")}; read_file shows text only.]`
          }
          if (scanner.shown.length === 0) {
            return yield* fail(
              binaryFrom !== undefined
                ? `offset ${input.offset} is past the text of ${shown}, which has ${
                  plural(scanner.lines, "line")
                }, then binary data from byte ${count(binaryFrom)} (the file is ${plural(stats.size, "byte")})`
                : scanLimited
                ? `offset ${input.offset} was not reached in the first ${plural(scanned, "byte")} of ${shown} (${
                  plural(scanner.lines, "line")
                }; the file is ${plural(stats.size, "byte")}): use grep to find the lines you need`
                : `offset ${input.offset} is past the end of ${shown}, which has ${plural(scanner.lines, "line")}`
            )
          }
          const notes: Array<string> = []
          const last = input.offset + scanner.shown.length - 1
          if (binaryFrom !== undefined) {
            notes.push(
              `[Showing lines ${input.offset}-${last} of ${count(scanner.lines)} lines of text${
                last < scanner.lines ? `; continue with offset ${last + 1}` : ""
              }. The rest of the file, binary data from byte ${count(binaryFrom)} (of ${
                plural(stats.size, "byte")
              }), is not shown: read_file shows text only.]`
            )
          } else if (!complete) {
            notes.push(
              `[Showing lines ${input.offset}-${last} of more than ${count(scanner.lines)} (the file is ${
                plural(stats.size, "byte")
              }); continue with offset ${last + 1}.]`
            )
          } else if (last < scanner.lines) {
            notes.push(
              `[Showing lines ${input.offset}-${last} of ${count(scanner.lines)}; continue with offset ${last + 1}.]`
            )
          }
          if (scanner.cutLines > 0) {
            notes.push(
              `[${plural(scanner.cutLines, "line was", "lines were")} longer than ${
                count(maxLineChars)
              } characters and cut; use grep to find text in them.]`
            )
          }
          return notes.length === 0 ? scanner.shown.join("\n") : `${scanner.shown.join("\n")}\n\n${notes.join("\n")}`
        }))
      })
  })
}

// ---------------------------------------------------------------------------
// write_file
// ---------------------------------------------------------------------------

const encoder = new TextEncoder()

const lineCount = (text: string) => {
  if (text === "") return 0
  let lines = 1
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++
  return text.endsWith("\n") ? lines - 1 : lines
}

/**
 * Writes a whole file, atomically; creates missing parent directories
 * inside the workspace.
 *
 * @since 0.1.0
 * @category tools
 */
export const writeFile = (options?: Options) => {
  const paths = guard("write", "write", options)
  return Tool.make("write_file", {
    description: "Writes a whole text file in the workspace, replacing it if it exists and creating missing " +
      "parent directories. To change part of a file, use edit_file instead.",
    parameters: {
      path: PathParameter("The file to write, relative to the workspace root."),
      content: Schema.String.annotations({ description: "The complete new content of the file (UTF-8 text)." })
    },
    readOnly: options?.readOnly ?? false,
    // Explicit: a wrong read-only mark must not lower the risk policies see.
    risk: "medium",
    timeout: options?.timeout ?? "30 seconds",
    outputLimit: 2_000,
    validate: paths.validate,
    resources: paths.resources,
    subject: paths.subject,
    handler: (input) =>
      Effect.gen(function*() {
        const workspace = yield* Workspace.Workspace
        const policy = yield* Policy.Policy
        const real = yield* paths.use(workspace, input)
        const { violation } = paths.admit(policy, "write_file", workspace, input, real)
        if (violation !== undefined) return yield* violation
        const shown = workspace.display(real)
        const data = encoder.encode(input.content)
        const existed = yield* Effect.scoped(Effect.gen(function*() {
          const found = yield* locate(workspace, input, real, { createParents: true })
          if (found.stats !== undefined && !found.stats.isFile()) {
            return yield* fail(
              `${shown} exists and is not a regular file (a directory, device or pipe); it cannot be overwritten`
            )
          }
          const mode = found.stats === undefined ? undefined : found.stats.mode & 0o7777
          yield* PathWalk.writeAtomic(found.parent, found.name, data, mode).pipe(Effect.mapError(describe(shown)))
          return found.stats !== undefined
        }))
        return `${existed ? "Overwrote" : "Created"} ${shown} (${plural(lineCount(input.content), "line")}, ${
          plural(data.length, "byte")
        }).`
      })
  })
}

// ---------------------------------------------------------------------------
// edit_file
// ---------------------------------------------------------------------------

/**
 * Where `needle` occurs in `text`, without overlaps.
 *
 * @since 0.1.0
 * @category text
 */
export const occurrences = (text: string, needle: string): ReadonlyArray<number> => {
  const found: Array<number> = []
  if (needle === "") return found
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) found.push(i)
  return found
}

/**
 * How many places `needle` starts at in `text`, overlapping ones included:
 * `aa` is in `aaa` twice, and an edit of either would differ, so for
 * uniqueness both count.
 */
const places = (text: string, needle: string): number => {
  let n = 0
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) n++
  return n
}

/** Replaces at the given indices by splicing: `String.replace` would read `$&` in the new text as a pattern. */
const spliceAll = (text: string, at: ReadonlyArray<number>, length: number, replacement: string) => {
  const parts: Array<string> = []
  let from = 0
  for (const index of at) {
    parts.push(text.slice(from, index), replacement)
    from = index + length
  }
  parts.push(text.slice(from))
  return parts.join("")
}

/** A few numbered lines around an edit, so the model sees it landed as meant. */
const excerpt = (text: string, index: number, length: number): string => {
  const lines = text.split("\n")
  const firstLine = text.slice(0, index).split("\n").length
  const lastLine = firstLine + text.slice(index, index + length).split("\n").length - 1
  const from = Math.max(1, firstLine - 2)
  const to = Math.min(lines.length, lastLine + 2, from + 15)
  const shown: Array<string> = []
  for (let line = from; line <= to; line++) {
    const content = lines[line - 1]!.replace(/\r$/, "")
    shown.push(numbered(line, content.length > 200 ? `${cut(content, 200)}…` : content))
  }
  return shown.join("\n")
}

const crlf = (text: string) => text.replace(/\r?\n/g, "\r\n")

/**
 * Replaces an exact string in a file, atomically. The string must occur
 * exactly once unless `replace_all` is set; a missing or ambiguous match
 * fails with what to do.
 *
 * @since 0.1.0
 * @category tools
 */
export const editFile = (options?: EditFileOptions) => {
  const maxBytes = options?.maxBytes ?? 10 * 1024 * 1024
  const paths = guard("write", "write", options)
  return Tool.make("edit_file", {
    description: "Replaces an exact piece of text in a file of the workspace. old_string must match the file " +
      "exactly (whitespace and indentation included) and occur once, unless replace_all is true. " +
      "Read the file first; to create a file, use write_file.",
    parameters: {
      path: PathParameter("The file to edit, relative to the workspace root."),
      old_string: Schema.String.annotations({
        description: "The exact text to replace, copied from the file without the line-number prefix."
      }),
      new_string: Schema.String.annotations({ description: "The text to put in its place." }),
      replace_all: Schema.optionalWith(
        Schema.Boolean.annotations({
          description: "Replace every occurrence instead of requiring exactly one. Default false."
        }),
        { default: () => false }
      )
    },
    readOnly: options?.readOnly ?? false,
    risk: "medium",
    timeout: options?.timeout ?? "30 seconds",
    outputLimit: 6_000,
    validate: (input) => {
      if (input.old_string === "") {
        return Effect.fail(
          new ToolError.RuleViolation({
            reason: "old_string is empty",
            fix: "Copy the text to replace from the file; to create or overwrite a whole file, use write_file."
          })
        )
      }
      if (input.old_string === input.new_string) {
        return Effect.fail(
          new ToolError.RuleViolation({
            reason: "old_string and new_string are the same, so the edit would change nothing",
            fix: "Put the changed text in new_string."
          })
        )
      }
      return paths.validate(input)
    },
    resources: paths.resources,
    subject: paths.subject,
    handler: (input) =>
      Effect.gen(function*() {
        const workspace = yield* Workspace.Workspace
        const policy = yield* Policy.Policy
        const real = yield* paths.use(workspace, input)
        // It reads the file too, and shows lines of it around the edit.
        for (const access of ["write", "read"] as const) {
          const { violation } = paths.admit(policy, "edit_file", workspace, input, real, access)
          if (violation !== undefined) return yield* violation
        }
        const shown = workspace.display(real)
        // One walk for the read and the write: the file is read and replaced in the directory held open.
        return yield* Effect.scoped(Effect.gen(function*() {
          const target = yield* locate(workspace, input, real, { file: true })
          const { handle, stats } = yield* openRegular(
            workspace,
            target.parent,
            target.name,
            refusal(workspace, input, shown)
          )
          if (stats.size > maxBytes) {
            return yield* fail(
              `${shown} is ${plural(stats.size, "byte")}, more than edit_file handles (${count(maxBytes)})`
            )
          }
          const bytes = yield* syscall(() => handle.readFile()).pipe(Effect.mapError(describe(shown)))
          // Decoding invalid UTF-8 would replace bytes, and writing back would corrupt the file.
          if (!isUtf8(bytes)) {
            return yield* fail(`${shown} is not UTF-8 text; edit_file only edits text files`)
          }
          // ignoreBOM keeps a byte-order mark, so writing back preserves it.
          const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes)
          let oldString = input.old_string
          let newString = input.new_string
          let found = occurrences(text, oldString)
          if (found.length === 0 && oldString.includes("\n") && text.includes("\r\n")) {
            // The file has CRLF line endings; the model copied lines without them.
            oldString = crlf(oldString)
            newString = crlf(newString)
            found = occurrences(text, oldString)
          }
          if (found.length === 0) {
            return yield* fail(
              `old_string was not found in ${shown}; read the file again, it may have changed, and copy the text ` +
                "exactly (whitespace and indentation included, without line numbers)"
            )
          }
          // Overlapping matches count: with two, which one is meant is ambiguous.
          const matches = input.replace_all ? 1 : places(text, oldString)
          if (matches > 1) {
            return yield* fail(
              `old_string was found ${matches} times in ${shown}; add surrounding lines to make it unique, ` +
                "or set replace_all to replace every occurrence"
            )
          }
          const edited = spliceAll(text, found, oldString.length, newString)
          yield* PathWalk.writeAtomic(target.parent, target.name, encoder.encode(edited), stats.mode & 0o7777).pipe(
            Effect.mapError(describe(shown))
          )
          return `Edited ${shown}: replaced ${plural(found.length, "occurrence")}.\n\n${
            excerpt(edited, found[0]!, newString.length)
          }`
        }))
      })
  })
}

// ---------------------------------------------------------------------------
// list_directory
// ---------------------------------------------------------------------------

const suffix: Record<PathWalk.Kind, string> = { file: "", directory: "/", symlink: "@", other: "" }

const byName = (a: NodeFs.Dirent, b: NodeFs.Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

const readDirectory = (workspace: Workspace.Service, directory: PathWalk.Directory) =>
  PathWalk.list(directory).pipe(Effect.mapError(describe(workspace.display(directory.real))))

/**
 * Lists one directory: subdirectories first (with a trailing `/`), then
 * files; symbolic links end in `@` and are not followed.
 *
 * @since 0.1.0
 * @category tools
 */
export const listDirectory = (options?: ListOptions) => {
  const maxEntries = options?.maxEntries ?? 1_000
  const paths = guard("read", "read")
  return Tool.make("list_directory", {
    description: "Lists the entries of one directory of the workspace (not recursive). Directories end in " +
      "\"/\", symbolic links in \"@\". Use glob to find files by name across directories.",
    parameters: {
      path: OptionalPath("The directory, relative to the workspace root. Default \".\", the root.")
    },
    readOnly: options?.readOnly ?? true,
    timeout: options?.timeout ?? "10 seconds",
    validate: paths.validate,
    resources: paths.resources,
    subject: paths.subject,
    handler: (input) =>
      Effect.gen(function*() {
        const workspace = yield* Workspace.Workspace
        const policy = yield* Policy.Policy
        const real = yield* paths.use(workspace, input)
        const { approved, violation } = paths.admit(policy, "list_directory", workspace, input, real)
        if (violation !== undefined) return yield* violation
        const shown = workspace.display(real)
        const listing = yield* Effect.scoped(
          Effect.flatMap(locateDirectory(workspace, input, real), (directory) => readDirectory(workspace, directory))
        )
        if (listing.length === 0) return `${shown} is empty.`
        // A name can say what a file holds (a customer's name, `.env.production`): refused entries are left out, named nowhere.
        const rules = pathRules(policy, "list_directory", approved)
        const entries = listing.filter((entry) => rules.admits(NodePath.join(real, entry.name), PathWalk.kindOf(entry)))
        const directories = entries.filter((entry) => entry.isDirectory()).sort(byName)
        const others = entries.filter((entry) => !entry.isDirectory()).sort(byName)
        const listed = [...directories, ...others].slice(0, maxEntries).map((entry) =>
          `${entry.name}${suffix[PathWalk.kindOf(entry)]}`
        )
        const where = shown === "." ? "The workspace root" : shown
        const header = entries.length === 0
          ? `${where} holds no entry that may be shown.`
          : `${where} holds ${plural(entries.length, "entry", "entries")}:\n${listed.join("\n")}`
        const notes = [
          ...(entries.length > maxEntries
            ? [`[${count(entries.length - maxEntries)} more not shown; use glob with a pattern to narrow the list.]`]
            : []),
          ...rules.notes("withheld")
        ]
        return [header, ...notes].join("\n")
      })
  })
}

// ---------------------------------------------------------------------------
// glob
// ---------------------------------------------------------------------------

const regexSpecial = /[.*+?^${}()|[\]\\/]/g

const compileGlobBody = (pattern: string): string => {
  let out = ""
  let i = 0
  while (i < pattern.length) {
    const c = pattern[i]!
    if (c === "*") {
      if (pattern[i + 1] === "*") {
        const atStart = i === 0 || pattern[i - 1] === "/"
        const after = i + 2
        if (atStart && pattern[after] === "/") {
          // `**/` is zero or more whole directories.
          out += "(?:[^/]*/)*"
          i = after + 1
        } else if (atStart && after === pattern.length) {
          out += ".*"
          i = after
        } else {
          out += "[^/]*"
          i = after
        }
      } else {
        out += "[^/]*"
        i++
      }
    } else if (c === "?") {
      out += "[^/]"
      i++
    } else if (c === "{") {
      const close = matchingBrace(pattern, i)
      if (close === -1) {
        out += "\\{"
        i++
      } else {
        const alternatives = splitTopLevel(pattern.slice(i + 1, close))
        out += `(?:${alternatives.map(compileGlobBody).join("|")})`
        i = close + 1
      }
    } else if (c === "[") {
      const close = pattern.indexOf("]", i + 2)
      if (close === -1) {
        out += "\\["
        i++
      } else {
        const negated = pattern[i + 1] === "!" || pattern[i + 1] === "^"
        const body = pattern.slice(negated ? i + 2 : i + 1, close).replace(/[\\\]^]/g, "\\$&")
        out += negated ? `[^/${body}]` : `[${body}]`
        i = close + 1
      }
    } else if (c === "\\" && i + 1 < pattern.length) {
      out += pattern[i + 1]!.replace(regexSpecial, "\\$&")
      i += 2
    } else {
      out += c.replace(regexSpecial, "\\$&")
      i++
    }
  }
  return out
}

const matchingBrace = (pattern: string, open: number): number => {
  let depth = 0
  for (let i = open; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++
    else if (pattern[i] === "{") depth++
    else if (pattern[i] === "}" && --depth === 0) return i
  }
  return -1
}

const splitTopLevel = (body: string): Array<string> => {
  const parts: Array<string> = []
  let depth = 0
  let from = 0
  for (let i = 0; i < body.length; i++) {
    const c = body[i]
    if (c === "\\") i++
    else if (c === "{") depth++
    else if (c === "}") depth--
    else if (c === "," && depth === 0) {
      parts.push(body.slice(from, i))
      from = i + 1
    }
  }
  parts.push(body.slice(from))
  return parts
}

/**
 * A glob as a RegExp over `/`-separated relative paths: `**` any number of
 * directories, `*` and `?` within one name, `{a,b}` alternatives (nested
 * allowed), `[abc]` / `[!abc]` classes, `\` escapes.
 *
 * @since 0.1.0
 * @category glob
 */
export const compileGlob = (pattern: string): RegExp =>
  // `**/**/` is `**/`: collapsed, a run of them cannot make the expression backtrack for a minute.
  new RegExp(`^${compileGlobBody(pattern.replace(/(?:\*\*\/){2,}/g, "**/"))}$`)

/** More `**` than any real pattern has: each is a loop the matcher may try at every directory. */
const maxGlobstars = 8

/** How deep a walk must go for the pattern to match: unbounded with `**`. */
const depthOf = (pattern: string) => pattern.includes("**") ? Infinity : pattern.split("/").length

const globRule = (pattern: string): ToolError.RuleViolation | undefined => {
  if (pattern.trim() === "") {
    return new ToolError.RuleViolation({ reason: "the pattern is empty", fix: "Pass a pattern such as \"**/*.ts\"." })
  }
  if ((pattern.replace(/(?:\*\*\/){2,}/g, "**/").match(/\*\*/g)?.length ?? 0) > maxGlobstars) {
    return new ToolError.RuleViolation({
      reason: `the pattern has more than ${maxGlobstars} "**" parts`,
      fix: "One \"**/\" matches any number of directories: use fewer, such as \"**/*.ts\"."
    })
  }
  if (pattern.startsWith("/") || pattern.split("/").includes("..")) {
    return new ToolError.RuleViolation({
      reason: "the pattern is matched below the search directory, so it cannot start with \"/\" or contain \"..\"",
      fix: "Set path to the directory to search (inside the workspace) and give a relative pattern such as \"**/*.ts\"."
    })
  }
  return undefined
}

/**
 * The tree under a held directory, through {@link PathWalk.tree}; a base
 * that cannot be listed fails the call, a subdirectory that cannot is counted.
 */
const walk = (
  workspace: Workspace.Service,
  base: PathWalk.Directory,
  options: PathWalk.TreeOptions,
  visit: (entry: PathWalk.Visit) => Effect.Effect<boolean, FileError>
): Effect.Effect<PathWalk.TreeSummary, FileError> =>
  PathWalk.tree(base, options, visit).pipe(
    Effect.mapError((error) => error._tag === "Errno" ? describe(workspace.display(base.real))(error) : error)
  )

const skipSet = (skip: ReadonlyArray<string>, pattern: string) =>
  // A pattern that names a skipped directory ("node_modules/x/**") means to go there.
  new Set(
    skip.filter((name) => !new RegExp(`(?:^|[/{,])${name.replace(regexSpecial, "\\$&")}(?:$|[/},])`).test(pattern))
  )

const walkNotes = (summary: PathWalk.TreeSummary) => [
  ...(summary.skipped.length === 0
    ? []
    : [`[Not searched: ${summary.skipped.join(", ")} (name them in the pattern to include them).]`]),
  ...(summary.unreadable === 0
    ? []
    : [`[${plural(summary.unreadable, "directory", "directories")} could not be read.]`])
]

/**
 * Finds files and directories whose path below a directory matches a glob.
 *
 * @since 0.1.0
 * @category tools
 */
export const glob = (options?: SearchOptions) => {
  const skip = options?.skip ?? defaultSkip
  const maxScanned = options?.maxScanned ?? 200_000
  const maxChars = options?.maxChars ?? 25_000
  const paths = guard("read", "read")
  return Tool.make("glob", {
    description: "Finds files in the workspace whose path matches a glob pattern: \"**\" matches any number of " +
      "directories, \"*\" and \"?\" match within one name, \"{ts,tsx}\" matches alternatives. The pattern is " +
      "matched against paths relative to `path`; \"*.ts\" only matches at that level, \"**/*.ts\" at any depth. " +
      `Results are workspace-relative paths, directories ending in "/". ${skip.join(" and ")} are skipped.`,
    parameters: {
      pattern: Schema.String.pipe(Schema.maxLength(1_000)).annotations({
        description: "The glob, for example \"src/**/*.{ts,tsx}\"."
      }),
      path: OptionalPath("The directory to search under, relative to the workspace root. Default \".\", the root.")
    },
    readOnly: options?.readOnly ?? true,
    timeout: options?.timeout ?? "20 seconds",
    validate: (input) => {
      const violation = globRule(input.pattern)
      return violation === undefined ? paths.validate(input) : Effect.fail(violation)
    },
    resources: paths.resources,
    subject: paths.subject,
    handler: (input) =>
      Effect.gen(function*() {
        const workspace = yield* Workspace.Workspace
        const policy = yield* Policy.Policy
        const base = yield* paths.use(workspace, input)
        const { approved, violation } = paths.admit(policy, "glob", workspace, input, base)
        if (violation !== undefined) return yield* violation
        const rules = pathRules(policy, "glob", approved)
        const matcher = compileGlob(input.pattern)
        const found: Array<string> = []
        let chars = 0
        let full = false
        const summary = yield* Effect.scoped(Effect.flatMap(locateDirectory(workspace, input, base), (directory) =>
          walk(workspace, directory, {
            maxDepth: depthOf(input.pattern),
            skip: skipSet(skip, input.pattern),
            maxScanned,
            // Only what would be shown or entered is asked about, so a result counts only what it left out.
            admit: ({ kind, real, relative }, enters) =>
              enters || matcher.test(relative) ? rules.admits(real, kind) : true
          }, ({ kind, real, relative }) => {
            if (!matcher.test(relative)) return Effect.succeed(true)
            // Only directories are marked: a path copied from here must work as is.
            const line = `${workspace.display(real)}${kind === "directory" ? "/" : ""}`
            if (chars + line.length + 1 > maxChars) {
              full = true
              return Effect.succeed(false)
            }
            found.push(line)
            chars += line.length + 1
            return Effect.succeed(true)
          })))
        const notes: Array<string> = [...walkNotes(summary), ...rules.notes("skipped")]
        if (full) {
          notes.unshift(`[Showing the first ${count(found.length)} matches; narrow the pattern or the path.]`)
        } else if (summary.exhausted) {
          notes.unshift(
            `[Stopped after looking at ${count(maxScanned)} entries; narrow the pattern or the path.]`
          )
        }
        const where = workspace.display(base)
        const body = found.length === 0
          ? `No paths under ${where} match ${JSON.stringify(input.pattern)}.`
          : found.join("\n")
        return notes.length === 0 ? body : `${body}\n\n${notes.join("\n")}`
      })
  })
}

// ---------------------------------------------------------------------------
// grep
// ---------------------------------------------------------------------------

const quantifierLength = (pattern: string, at: number): number => {
  const c = pattern[at]
  if (c === "*" || c === "+" || c === "?") return 1
  if (c === "{") {
    const match = /^\{\d+(?:,\d*)?\}/.exec(pattern.slice(at, at + 24))
    return match === null ? 0 : match[0].length
  }
  return 0
}

/** Whether a quantifier can repeat its atom more than once (`*`, `+`, `{2}`, `{1,}`…, not `?` or `{0,1}`). */
const repeats = (quantifier: string): boolean => {
  if (quantifier === "*" || quantifier === "+") return true
  if (quantifier === "?") return false
  const [, low, comma, high] = /^\{(\d+)(,?)(\d*)\}$/.exec(quantifier) ?? []
  if (comma === "") return Number(low) > 1
  return high === "" || Number(high) > 1
}

/**
 * Whether a regular expression repeats a group that itself holds a
 * quantifier (`(a+)+`, `(\w+\s?)*`): the shape of catastrophic
 * backtracking. V8's regex engine cannot be interrupted, so such a pattern
 * would freeze the whole runtime, not just the call. A heuristic: it does
 * not catch overlapping alternatives (`(a|a)*`).
 *
 * @since 0.1.0
 * @category grep
 */
export const hasNestedQuantifier = (pattern: string): boolean => {
  const groups: Array<boolean> = [false]
  let i = 0
  while (i < pattern.length) {
    const c = pattern[i]!
    if (c === "\\") {
      i += 2
    } else if (c === "[") {
      let j = i + 1
      if (pattern[j] === "^") j++
      if (pattern[j] === "]") j++
      while (j < pattern.length && pattern[j] !== "]") j += pattern[j] === "\\" ? 2 : 1
      i = j + 1
    } else if (c === "(") {
      groups.push(false)
      i++
      if (pattern[i] === "?") {
        // Group syntax, not a quantifier: (?:  (?=  (?!  (?<=  (?<!  (?<name>
        if (pattern[i + 1] === "<" && pattern[i + 2] !== "=" && pattern[i + 2] !== "!") {
          const close = pattern.indexOf(">", i)
          i = close === -1 ? pattern.length : close + 1
        } else {
          i += pattern[i + 1] === "<" ? 3 : 2
        }
      }
    } else if (c === ")") {
      const inner = groups.length > 1 ? groups.pop()! : false
      const length = quantifierLength(pattern, i + 1)
      if (length > 0 && inner && repeats(pattern.slice(i + 1, i + 1 + length))) return true
      if (length > 0 || inner) groups[groups.length - 1] = true
      i += 1 + length
      if (length > 0 && pattern[i] === "?") i++
    } else {
      const length = quantifierLength(pattern, i)
      if (length > 0) {
        groups[groups.length - 1] = true
        i += length
        if (pattern[i] === "?") i++
      } else {
        i++
      }
    }
  }
  return false
}

const compileRegex = (pattern: string, ignoreCase: boolean): Either.Either<RegExp, ToolError.RuleViolation> => {
  if (pattern === "") {
    return Either.left(
      new ToolError.RuleViolation({ reason: "the pattern is empty", fix: "Pass a regular expression to look for." })
    )
  }
  if (hasNestedQuantifier(pattern)) {
    return Either.left(
      new ToolError.RuleViolation({
        reason: "the pattern repeats a group that itself repeats (like (a+)+), which can take exponential time",
        fix: "Simplify the pattern: drop the outer repetition, or match a simpler, fixed piece of text."
      })
    )
  }
  return Either.try({
    try: () => new RegExp(pattern, ignoreCase ? "i" : ""),
    catch: (error) =>
      new ToolError.RuleViolation({
        reason: `the pattern is not a valid JavaScript regular expression (${
          error instanceof Error ? error.message : String(error)
        })`,
        fix: "Fix the pattern; escape special characters such as ( ) [ ] { } . * + ? with a backslash."
      })
  })
}

/**
 * Searches file contents for a regular expression, line by line, and
 * returns matching lines as `path:line:text`.
 *
 * Bounded so a model cannot make it run away: lines are searched in their
 * first characters only, large and binary files are skipped, the bytes read
 * and the matches returned are capped, and patterns with nested repetition
 * are refused.
 *
 * @since 0.1.0
 * @category tools
 */
export const grep = (options?: GrepOptions) => {
  const skip = options?.skip ?? defaultSkip
  const maxScanned = options?.maxScanned ?? 200_000
  const maxChars = options?.maxChars ?? 25_000
  const maxFileBytes = options?.maxFileBytes ?? 4 * 1024 * 1024
  const maxScanBytes = options?.maxScanBytes ?? 64 * 1024 * 1024
  const maxLineChars = options?.maxLineChars ?? 2_000
  const paths = guard("read", "read")
  return Tool.make("grep", {
    description: "Searches the text files under a path of the workspace for a JavaScript regular expression and " +
      "returns matching lines as path:line:text (workspace-relative path, 1-based line). Symbolic links are not " +
      `followed; binary files, files over ${count(maxFileBytes)} bytes and ${skip.join(" and ")} are skipped.`,
    parameters: {
      pattern: Schema.String.pipe(Schema.maxLength(1_000)).annotations({
        description: "A JavaScript regular expression, for example \"function\\s+load\". Nested repetition " +
          "such as (a+)+ is refused."
      }),
      path: OptionalPath("A file or directory to search, relative to the workspace root. Default \".\", the root."),
      glob: Schema.optional(
        Schema.String.pipe(Schema.maxLength(1_000)).annotations({
          description: "Only search files matching this glob: against the file name (\"*.ts\") or, when it " +
            "contains \"/\", against the path below `path` (\"src/**/*.ts\")."
        })
      ),
      ignore_case: Schema.optionalWith(
        Schema.Boolean.annotations({ description: "Match letters regardless of case. Default false." }),
        { default: () => false }
      ),
      max_matches: Schema.optionalWith(
        Schema.Int.pipe(Schema.between(1, 1_000)).annotations({
          description: "Stop after this many matching lines. Default 100."
        }),
        { default: () => 100 }
      )
    },
    readOnly: options?.readOnly ?? true,
    timeout: options?.timeout ?? "30 seconds",
    validate: (input) => {
      const regex = compileRegex(input.pattern, input.ignore_case)
      if (Either.isLeft(regex)) return Effect.fail(regex.left)
      if (input.glob !== undefined) {
        const violation = globRule(input.glob)
        if (violation !== undefined) return Effect.fail(violation)
      }
      return paths.validate(input)
    },
    resources: paths.resources,
    subject: paths.subject,
    handler: (input) =>
      Effect.gen(function*() {
        const workspace = yield* Workspace.Workspace
        const policy = yield* Policy.Policy
        const base = yield* paths.use(workspace, input)
        const { approved, violation } = paths.admit(policy, "grep", workspace, input, base)
        if (violation !== undefined) return yield* violation
        const rules = pathRules(policy, "grep", approved)
        const compiled = compileRegex(input.pattern, input.ignore_case)
        if (Either.isLeft(compiled)) return yield* fail(compiled.left.reason)
        const regex = compiled.right
        const filter = input.glob === undefined ? undefined : compileGlob(input.glob)
        const filterPath = input.glob?.includes("/") ?? false
        const wanted = (relative: string) =>
          filter === undefined || filter.test(filterPath ? relative : NodePath.basename(relative))
        const lines: Array<string> = []
        let chars = 0
        let bytesRead = 0
        let tooLarge = 0
        let longLines = 0
        let stop: "matches" | "chars" | "bytes" | undefined

        const searchFile = (
          directory: PathWalk.Directory,
          name: string,
          refuse: (error: PathWalk.Failure) => FileError | Workspace.PathError
        ): Effect.Effect<boolean, FileError | Workspace.PathError> =>
          Effect.scoped(Effect.gen(function*() {
            const real = NodePath.join(directory.real, name)
            const { handle, stats } = yield* openRegular(workspace, directory, name, refuse)
            if (stats.size > maxFileBytes) {
              tooLarge++
              return true
            }
            if (bytesRead + stats.size > maxScanBytes) {
              stop = "bytes"
              return false
            }
            const bytes = yield* syscall(() => handle.readFile()).pipe(
              Effect.mapError(describe(workspace.display(real)))
            )
            bytesRead += bytes.length
            if (bytes.subarray(0, 8192).includes(0)) return true
            const text = decoder.decode(bytes)
            const shown = workspace.display(real)
            let lineNumber = 0
            let from = 0
            while (from < text.length) {
              const end = text.indexOf("\n", from)
              const to = end === -1 ? text.length : end
              lineNumber++
              if (to - from > maxLineChars) longLines++
              let line = text.slice(from, Math.min(to, from + maxLineChars))
              if (line.endsWith("\r")) line = line.slice(0, -1)
              if (regex.test(line)) {
                const entry = `${shown}:${lineNumber}:${line.length > 300 ? `${cut(line, 300)}…` : line}`
                if (chars + entry.length + 1 > maxChars) {
                  stop = "chars"
                  return false
                }
                lines.push(entry)
                chars += entry.length + 1
                if (lines.length >= input.max_matches) {
                  stop = "matches"
                  return false
                }
              }
              from = to + 1
            }
            return true
          }))

        const where = workspace.display(base)
        const notes: Array<string> = []
        const searchTree = (directory: PathWalk.Directory) =>
          Effect.map(
            walk(workspace, directory, {
              maxDepth: Infinity,
              skip: skipSet(skip, input.glob ?? ""),
              maxScanned,
              // A refused file is never opened, a refused directory never entered; the rest is not asked about.
              admit: ({ kind, real, relative }, enters) =>
                (kind === "file" && wanted(relative)) || enters ? rules.admits(real, kind) : true
            }, ({ directory, kind, name, relative }) => {
              if (kind !== "file" || !wanted(relative)) return Effect.succeed(true)
              // A file that vanished, changed kind or cannot be read does not end the search.
              return Effect.catchAll(searchFile(directory, name, describe(name)), () => Effect.succeed(true))
            }),
            (summary) => {
              notes.push(...walkNotes(summary))
              if (summary.exhausted && stop === undefined) {
                notes.unshift(`[Stopped after looking at ${count(maxScanned)} entries; narrow the path or the glob.]`)
              }
            }
          )
        yield* Effect.scoped(
          base === workspace.root
            ? Effect.flatMap(locateDirectory(workspace, input, base), searchTree)
            : Effect.flatMap(locate(workspace, input, base), (found) =>
              found.stats === undefined
                ? Effect.fail(describe(where)(new Errno({ code: "ENOENT" })))
                : found.stats.isDirectory()
                ? Effect.flatMap(
                  PathWalk.openDirectory(found.parent, found.name).pipe(
                    // The walk saw a directory there; not finding one now means it was swapped meanwhile.
                    Effect.mapError((error) =>
                      refusal(workspace, input, where)(
                        error._tag === "Errno" && error.code === "ENOTDIR"
                          ? new PathWalk.Errno({ code: "ELOOP" })
                          : error
                      )
                    )
                  ),
                  searchTree
                )
                : searchFile(found.parent, found.name, refusal(workspace, input, where)))
        )
        if (stop === "matches" || stop === "chars") {
          notes.unshift(`[Stopped at ${plural(lines.length, "match", "matches")}; narrow the pattern, path or glob.]`)
        } else if (stop === "bytes") {
          notes.unshift(`[Stopped after reading ${count(bytesRead)} bytes; narrow the path or the glob.]`)
        }
        notes.push(...rules.notes("skipped"))
        if (tooLarge > 0) {
          notes.push(`[Skipped ${plural(tooLarge, "file")} larger than ${count(maxFileBytes)} bytes.]`)
        }
        if (longLines > 0) {
          notes.push(
            `[${plural(longLines, "line was", "lines were")} searched only in their first ${
              count(maxLineChars)
            } characters.]`
          )
        }
        const body = lines.length === 0 ? `No lines under ${where} match /${input.pattern}/.` : lines.join("\n")
        return notes.length === 0 ? body : `${body}\n\n${notes.join("\n")}`
      })
  })
}

// ---------------------------------------------------------------------------
// all
// ---------------------------------------------------------------------------

/**
 * Every file tool with its defaults.
 *
 * @since 0.1.0
 * @category tools
 */
export const all = () => [readFile(), writeFile(), editFile(), listDirectory(), glob(), grep()] as const

/**
 * The `read_file` tool: a text file, numbered like `cat -n`, from a line
 * offset, a bounded number of lines.
 *
 * Apart because its bounded line scanner is the one part of the file tools
 * that streams a file instead of reading it whole, and it alone needs that.
 *
 * @since 0.4.0
 */
import * as Policy from "@tool-runtime/core/Policy"
import * as Tool from "@tool-runtime/core/Tool"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { describe, fail, syscall } from "./FileError.js"
import type { FileError } from "./FileError.js"
import { guard, locate, openRegular, PathParameter, refusal } from "./FileGuard.js"
import type { Options } from "./FileGuard.js"
import { count, cut, decoder, numbered, plural, sniff } from "./FileText.js"
import type * as PathWalk from "./PathWalk.js"
import * as Workspace from "./Workspace.js"

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

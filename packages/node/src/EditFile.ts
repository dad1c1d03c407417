/**
 * The `edit_file` tool: an exact string replaced in a file, read and written
 * back atomically in one held directory.
 *
 * Apart because its matching (one occurrence or every one, CRLF files, a
 * replacement taken literally) is a concept of its own.
 *
 * @since 0.4.0
 */
import * as Policy from "@tool-runtime/core/Policy"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { isUtf8 } from "node:buffer"
import { describe, fail, syscall } from "./FileError.js"
import { guard, locate, openRegular, PathParameter, refusal } from "./FileGuard.js"
import type { Options } from "./FileGuard.js"
import { count, cut, encoder, numbered, plural } from "./FileText.js"
import * as PathWalk from "./PathWalk.js"
import * as Workspace from "./Workspace.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface EditFileOptions extends Options {
  /** Largest file edited, in bytes. Default 10 MiB. */
  readonly maxBytes?: number | undefined
}

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

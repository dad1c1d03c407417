/**
 * The `write_file` tool: a whole file, written atomically in its held
 * directory.
 *
 * Apart as one tool a module: what it shares with `edit_file`, the atomic
 * write through the held directory, is `PathWalk.writeAtomic`.
 *
 * @since 0.4.0
 */
import * as Policy from "@tool-runtime/core/Policy"
import * as Tool from "@tool-runtime/core/Tool"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { describe, fail } from "./FileError.js"
import { guard, locate, PathParameter } from "./FileGuard.js"
import type { Options } from "./FileGuard.js"
import { encoder, plural } from "./FileText.js"
import * as PathWalk from "./PathWalk.js"
import * as Workspace from "./Workspace.js"

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

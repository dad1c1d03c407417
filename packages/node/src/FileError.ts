/**
 * The one error the file tools give the model, and the translation of a
 * node errno into it.
 *
 * Apart because every tool fails through it: node's own message names host
 * paths, so an errno is kept only as its code and told again about the file
 * as the model named it.
 *
 * @since 0.4.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

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

export class Errno extends Data.TaggedError("Errno")<{ readonly code: string }> {}

const codeOf = (cause: unknown): string => {
  // A PlatformError keeps node's error as its cause.
  const inner = Predicate.hasProperty(cause, "cause") && Predicate.hasProperty(cause.cause, "code")
    ? cause.cause
    : cause
  return Predicate.hasProperty(inner, "code") && typeof inner.code === "string" ? inner.code : "UNKNOWN"
}

/** The one place node's promises become effects; errors keep only their code (node's message holds host paths). */
export const syscall = <A>(f: () => Promise<A>): Effect.Effect<A, Errno> =>
  Effect.tryPromise({ try: f, catch: (cause) => new Errno({ code: codeOf(cause) }) })

export const fail = (reason: string, retryable = false) => new FileError({ reason, retryable })

/** An errno, told about the file as the model knows it. */
export const describe = (shown: string) => (cause: unknown): FileError => {
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

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
 * Each tool is a module of its own (`ReadFile`, `WriteFile`, `EditFile`,
 * `ListDirectory`, `Glob`, `Grep`) around what they share: `FileGuard`
 * (how a tool reaches a path), `FileError` and `FileText`. This module
 * gathers them, so a user imports one name for all six.
 *
 * @since 0.1.0
 */
import { editFile } from "./EditFile.js"
import { glob } from "./Glob.js"
import { grep } from "./Grep.js"
import { listDirectory } from "./ListDirectory.js"
import { readFile } from "./ReadFile.js"
import { writeFile } from "./WriteFile.js"

export { editFile, type EditFileOptions, occurrences } from "./EditFile.js"
export { FileError } from "./FileError.js"
export { type Options } from "./FileGuard.js"
export { sniff } from "./FileText.js"
export { compileGlob, glob, type SearchOptions } from "./Glob.js"
export { grep, type GrepOptions, hasNestedQuantifier } from "./Grep.js"
export { listDirectory, type ListOptions } from "./ListDirectory.js"
export { readFile, type ReadFileOptions } from "./ReadFile.js"
export { writeFile } from "./WriteFile.js"

/**
 * Every file tool with its defaults.
 *
 * @since 0.1.0
 * @category tools
 */
export const all = () => [readFile(), writeFile(), editFile(), listDirectory(), glob(), grep()] as const

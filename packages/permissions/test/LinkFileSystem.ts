/**
 * A `FileSystem` over node's, with what the engine uses to follow symbolic
 * links (`readLink`, `realPath`) and what the link tests use to build a tree
 * in a temporary directory. (`@effect/platform-node` is not a dependency of
 * this package; the node package's tests run the engine over its
 * `NodeContext.layer`.)
 */
import * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs/promises"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

const attempt = <A>(method: string, path: string, run: () => Promise<A>) =>
  Effect.tryPromise({
    try: run,
    catch: (cause) =>
      new PlatformError.SystemError({
        reason: "Unknown",
        module: "FileSystem",
        method,
        pathOrDescriptor: path,
        cause
      })
  })

export const fileSystem: FileSystem.FileSystem = FileSystem.makeNoop({
  readLink: (path) => attempt("readLink", path, () => NodeFs.readlink(path)),
  realPath: (path) => attempt("realPath", path, () => NodeFs.realpath(path)),
  symlink: (target, path) => attempt("symlink", path, () => NodeFs.symlink(target, path)),
  makeDirectory: (path, options) =>
    attempt("makeDirectory", path, () => NodeFs.mkdir(path, { recursive: options?.recursive ?? false })).pipe(
      Effect.asVoid
    ),
  writeFileString: (path, data) => attempt("writeFileString", path, () => NodeFs.writeFile(path, data)),
  makeTempDirectoryScoped: (options) =>
    Effect.acquireRelease(
      attempt(
        "makeTempDirectory",
        NodeOs.tmpdir(),
        () => NodeFs.mkdtemp(NodePath.join(NodeOs.tmpdir(), options?.prefix ?? "permissions-"))
      ),
      (path) => Effect.promise(() => NodeFs.rm(path, { recursive: true, force: true }))
    )
})

export const layer: Layer.Layer<FileSystem.FileSystem> = Layer.succeed(FileSystem.FileSystem, fileSystem)

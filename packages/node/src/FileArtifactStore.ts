/**
 * An `ArtifactStore` that keeps each stored output as one file in a
 * session folder, so the truncation marker's promise ("the rest is stored,
 * read it with read_output") survives memory pressure and can be inspected
 * after the session.
 *
 * Ids are core's `memoryId`s (a tag from `Random` and a counter); an id read back is
 * checked against that shape before it becomes a file name, so an id such
 * as `../../etc/passwd` is refused, not opened. Files are created
 * exclusively and readable by the owner only: redaction runs before storing,
 * but an output can still be private.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Random from "effect/Random"
import * as Ref from "effect/Ref"
import * as NodePath from "node:path"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The session folder; created if missing. */
  readonly directory: string
}

/** An id this store or an earlier one on the folder gave: safe characters, a dash, a sequence number. */
const validId = /^[A-Za-z0-9_-]{1,64}-[0-9]{1,15}$/

const prefix = "artifact:"

const isAlreadyExists = (error: unknown) => Predicate.hasProperty(error, "reason") && error.reason === "AlreadyExists"

const isNotFound = (error: unknown) => Predicate.hasProperty(error, "reason") && error.reason === "NotFound"

/** Ids are model input: keep only what fits in a message line. */
const shown = (id: string) => JSON.stringify(id.length > 100 ? `${id.slice(0, 100)}…` : id)

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<ArtifactStore.Service, ArtifactStore.ArtifactError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const directory = NodePath.resolve(options.directory)
    // Uninterruptible: an interrupted wait would not stop the mkdir itself,
    // which could then recreate the folder (and its parents) after whoever
    // interrupted it removed them.
    yield* fs.makeDirectory(directory, { recursive: true, mode: 0o700 }).pipe(
      Effect.mapError(() => new ArtifactStore.ArtifactError({ reason: "The session folder cannot be created." })),
      Effect.uninterruptible
    )
    const sequence = yield* Ref.make(0)
    // Nothing of the call goes into an id: the model sees it and a call id can hold anything.
    const tag = (yield* Random.nextIntBetween(0, 0x7fffffff)).toString(36).padStart(6, "0")
    const fileOf = (id: string) => NodePath.join(directory, `${id}.txt`)

    /** The id a model passes back: the bare id, `artifact:<id>`, or the location this store gave. */
    const idOf = (reference: string): string | undefined => {
      let id = reference.startsWith(prefix) ? reference.slice(prefix.length) : reference
      if (NodePath.isAbsolute(id) && NodePath.dirname(id) === directory && id.endsWith(".txt")) {
        id = NodePath.basename(id, ".txt")
      }
      return validId.test(id) ? id : undefined
    }

    // A folder reused across sessions already holds low sequence numbers:
    // creating exclusively and moving on keeps every stored output.
    const put = (
      source: { readonly callId: string; readonly toolName: string },
      content: string,
      attempts = 0
    ): Effect.Effect<ArtifactStore.Artifact, ArtifactStore.ArtifactError> =>
      Effect.flatMap(Ref.updateAndGet(sequence, (n) => n + 1), (n) => {
        const id = ArtifactStore.memoryId(tag, n)
        const file = fileOf(id)
        return fs.writeFileString(file, content, { flag: "wx", mode: 0o600 }).pipe(
          Effect.as<ArtifactStore.Artifact>({ id, location: file, length: content.length }),
          Effect.catchAll((error) =>
            isAlreadyExists(error) && attempts < 1_000
              ? put(source, content, attempts + 1)
              : Effect.fail(new ArtifactStore.ArtifactError({ reason: "The output could not be written to a file." }))
          )
        )
      })

    const read = (reference: string, offset: number, length: number) => {
      const id = idOf(reference)
      if (id === undefined) {
        return Effect.fail(
          new ArtifactStore.ArtifactError({
            reason: `${shown(reference)} is not an id of a stored output; use the id from the truncation notice.`
          })
        )
      }
      return fs.readFileString(fileOf(id)).pipe(
        Effect.mapError((error) =>
          new ArtifactStore.ArtifactError({
            reason: isNotFound(error)
              ? `No stored output has the id ${shown(reference)}.`
              : `The stored output ${shown(reference)} cannot be read.`
          })
        ),
        Effect.map((content) => ArtifactStore.slice(content, offset, length))
      )
    }

    return { put: (source, content) => put(source, content), read } satisfies ArtifactStore.Service
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<ArtifactStore.ArtifactStore, ArtifactStore.ArtifactError, FileSystem.FileSystem> =>
  Layer.effect(ArtifactStore.ArtifactStore, make(options))

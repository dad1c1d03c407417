/**
 * Where the whole of a truncated output goes, so that the truncation marker's
 * promise ("the rest is here, read it like this") can be kept. Content is
 * redacted before it is stored.
 *
 * This module has the in-memory store and the paging tool; a file-backed
 * store lives with the Node package.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Tool from "./Tool.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Artifact {
  readonly id: string
  /** What the model is told: an id it can page through with the read tool. */
  readonly location: string
  readonly length: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Slice {
  readonly text: string
  readonly offset: number
  readonly length: number
  readonly totalLength: number
}

/**
 * @since 0.1.0
 * @category errors
 */
export class ArtifactError extends Data.TaggedError("ArtifactError")<{
  readonly reason: string
}> {
  override get message() {
    return this.reason
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly put: (source: { readonly callId: string; readonly toolName: string }, content: string) => Effect.Effect<
    Artifact,
    ArtifactError
  >
  readonly read: (id: string, offset: number, length: number) => Effect.Effect<Slice, ArtifactError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class ArtifactStore extends Context.Tag("@tool-runtime/core/ArtifactStore")<ArtifactStore, Service>() {}

/**
 * An id derived from the call id (unique within a turn) plus a counter
 * (unique across turns), kept to characters safe in any file name. The
 * runtime hands stores the call id redacted, but an id shown to the model is
 * better not made of the model's text at all: the memory store's ids are
 * {@link memoryId}s.
 *
 * @since 0.1.0
 * @category constructors
 */
export const artifactId = (callId: string, sequence: number): string =>
  `${callId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64)}-${sequence}`

/**
 * The memory store's ids: a tag drawn from `Random` once per store, so that
 * ids of different stores differ, and a counter. Nothing of the call goes
 * in: a call id can hold anything, a secret included, and the id is shown to
 * the model and passed back by it.
 *
 * @since 0.2.0
 * @category constructors
 */
export const memoryId = (tag: string, sequence: number): string => `out_${tag}-${sequence}`

/**
 * Slices `[offset, offset + length)` without splitting a surrogate pair.
 *
 * @since 0.1.0
 * @category constructors
 */
export const slice = (content: string, offset: number, length: number): Slice => {
  let start = Math.max(0, Math.min(offset, content.length))
  let end = Math.max(start, Math.min(start + Math.max(0, length), content.length))
  if (start > 0 && isLowSurrogate(content.charCodeAt(start))) start--
  if (end < content.length && isLowSurrogate(content.charCodeAt(end))) end++
  return { text: content.slice(start, end), offset: start, length: end - start, totalLength: content.length }
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

/**
 * An in-memory store, bounded by a total size: the oldest artifacts go first.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options?: { readonly maxTotalChars?: number | undefined }) =>
  Effect.gen(function*() {
    const maxTotal = options?.maxTotalChars ?? 256 * 1024 * 1024
    const tag = (yield* Random.nextIntBetween(0, 0x7fffffff)).toString(36).padStart(6, "0")
    const state = yield* Ref.make({ sequence: 0, total: 0, items: new Map<string, string>() })
    const service: Service = {
      put: (_source, content) =>
        Ref.modify(state, (s) => {
          const sequence = s.sequence + 1
          const id = memoryId(tag, sequence)
          const items = new Map(s.items)
          items.set(id, content)
          let total = s.total + content.length
          for (const [oldId, old] of items) {
            if (total <= maxTotal || oldId === id) break
            items.delete(oldId)
            total -= old.length
          }
          return [
            { id, location: `artifact:${id}`, length: content.length },
            { sequence, total, items }
          ] as const
        }),
      read: (id, offset, length) =>
        Effect.flatMap(Ref.get(state), (s) => {
          const content = s.items.get(id.startsWith("artifact:") ? id.slice("artifact:".length) : id)
          return content === undefined
            ? Effect.fail(new ArtifactError({ reason: `No stored output has the id "${id.slice(0, 100)}".` }))
            : Effect.succeed(slice(content, offset, length))
        })
    }
    return service
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (options?: { readonly maxTotalChars?: number | undefined }): Layer.Layer<ArtifactStore> =>
  Layer.effect(ArtifactStore, makeMemory(options))

/**
 * The name of {@link readTool}; truncation markers point to it when it is
 * registered.
 *
 * @since 0.1.0
 * @category tools
 */
export const readToolName = "read_output"

/**
 * A read-only tool that pages through stored outputs, so a model told
 * "output truncated" can read the rest.
 *
 * @since 0.1.0
 * @category tools
 */
export const readTool = Tool.make(readToolName, {
  description: "Reads part of a tool output that was too long to show in full. " +
    "Use the id and the offsets given in the truncation notice.",
  parameters: {
    id: Schema.String.annotations({ description: "The id from the truncation notice." }),
    offset: Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "First character to read (0-based)." }),
    length: Schema.optionalWith(
      Schema.Int.pipe(Schema.between(1, 20_000)).annotations({
        description: "How many characters to read (at most 20,000; default 10,000)."
      }),
      { default: () => 10_000 }
    )
  },
  readOnly: true,
  timeout: "10 seconds",
  outputLimit: 20_500,
  handler: ({ id, length, offset }) =>
    Effect.flatMap(ArtifactStore, (store) => store.read(id, offset, length)).pipe(
      Effect.map((s) => {
        const end = s.offset + s.length
        const more = end < s.totalLength ? `; continue with offset ${end}` : "; this is the end"
        return `[characters ${s.offset}-${end} of ${s.totalLength}${more}]\n${s.text}`
      }),
      Effect.mapError((e) => e.reason)
    )
})

/**
 * What the runner keeps of a child's stdout and stderr: a bounded head and
 * tail of each stream, read live while the child runs, and the byte-exact
 * spill file when asked for one.
 *
 * Apart because it is pure bookkeeping of bytes, with its own tests and its
 * own cost model (no concatenation, large chunks kept by reference); it
 * knows nothing of processes.
 *
 * @since 0.4.0
 */
import * as Either from "effect/Either"
import * as NodeFs from "node:fs"
import { attempt } from "./KillLedger.js"
import type * as OutputHygiene from "./OutputHygiene.js"

/**
 * A spill file after the run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Spill {
  readonly path: string
  /** Bytes written: the whole stream unless `error` is set. */
  readonly bytes: number
  /** Why writing stopped early (disk full, no such directory). */
  readonly error: string | undefined
}

/**
 * What was kept of one output stream.
 *
 * @since 0.1.0
 * @category models
 */
export interface Output extends OutputHygiene.Captured {
  readonly spill: Spill | undefined
}

/**
 * A contiguous piece of a stream read from a position: bytes that were no
 * longer kept are skipped and counted.
 *
 * @since 0.1.0
 * @category models
 */
export interface Window {
  /** Position of the first byte of `bytes` in the stream. */
  readonly start: number
  readonly bytes: Uint8Array
  /** Bytes between the requested position and `start` that are lost. */
  readonly skippedBytes: number
}

/**
 * The live view of one output stream of a running process.
 *
 * @since 0.1.0
 * @category models
 */
export interface LiveOutput {
  /** Bytes received so far. */
  readonly totalBytes: () => number
  /** Kept bytes from `from` on, at most `maxBytes`; read again from `start + bytes.length` for more. */
  readonly read: (from: number, maxBytes?: number) => Window
  /** Head and tail kept so far. */
  readonly snapshot: () => OutputHygiene.Captured
}

const empty = new Uint8Array(0)

/** Chunks below this size are copied into a shared run; larger ones are kept by reference. */
const smallChunk = 4096
/** Size of a run that collects small chunks. */
const runCapacity = 16 * 1024

/**
 * The bytes kept of one stream: a head that fills once, and a tail of the
 * latest bytes. Nothing is ever concatenated, and a large chunk is not even
 * copied: the tail is a short list of segments, references to the chunks
 * the pipe delivered (Node hands each read its own buffer) with small
 * chunks copied together into runs, so that a flood of tiny chunks does not
 * pin one pipe-sized buffer each. Segments older than the tail bound are
 * dropped; the tail holds at most the bound plus one segment.
 *
 * Exported for its tests; the runner builds one per stream.
 *
 * @since 0.1.0
 * @category capture
 */
export class Capture implements LiveOutput {
  private head: Buffer | undefined
  private headLength = 0
  private readonly segments: Array<Uint8Array> = []
  /** Bytes held by the segments: the last `held` bytes of the stream after the head. */
  private held = 0
  private run: Buffer | undefined
  private runLength = 0
  total = 0

  constructor(readonly headCapacity: number, readonly tailCapacity: number) {}

  /** Takes the next chunk; keeps a reference to it when it is large. */
  push(chunk: Buffer): void {
    const length = chunk.length
    let offset = 0
    if (this.headLength < this.headCapacity) {
      const head = this.head ??= Buffer.allocUnsafe(this.headCapacity)
      offset = Math.min(length, this.headCapacity - this.headLength)
      chunk.copy(head, this.headLength, 0, offset)
      this.headLength += offset
    }
    this.total += length
    const rest = length - offset
    if (rest === 0 || this.tailCapacity === 0) return
    const segments = this.segments
    if (rest >= smallChunk) {
      this.run = undefined
      segments.push(offset === 0 ? chunk : chunk.subarray(offset))
    } else if (this.run !== undefined && this.runLength + rest <= this.run.length) {
      chunk.copy(this.run, this.runLength, offset)
      this.runLength += rest
      // The open run is the last segment; it grows in place.
      segments[segments.length - 1] = this.run.subarray(0, this.runLength)
    } else {
      this.run = Buffer.allocUnsafe(Math.max(runCapacity, rest))
      chunk.copy(this.run, 0, offset)
      this.runLength = rest
      segments.push(this.run.subarray(0, rest))
    }
    this.held += rest
    while (segments.length > 1 && this.held - segments[0]!.length >= this.tailCapacity) {
      this.held -= segments.shift()!.length
    }
  }

  readonly totalBytes = (): number => this.total

  readonly read = (from: number, maxBytes = Infinity): Window => {
    const position = Math.max(0, Math.min(from, this.total))
    const limit = Math.max(0, maxBytes)
    if (position < this.headLength) {
      const end = Math.min(this.headLength, position + limit)
      return { start: position, bytes: this.head!.subarray(position, end), skippedBytes: 0 }
    }
    const start = Math.max(position, this.total - this.held)
    return { start, bytes: this.copyTail(start, Math.min(this.total - start, limit)), skippedBytes: start - position }
  }

  /** `length` bytes of the tail from stream position `start`, copied out in order. */
  private copyTail(start: number, length: number): Uint8Array {
    if (length <= 0) return empty
    const out = Buffer.allocUnsafe(length)
    let position = this.total - this.held
    let copied = 0
    for (const segment of this.segments) {
      const end = position + segment.length
      if (end > start && copied < length) {
        const from = Math.max(0, start - position)
        const n = Math.min(segment.length - from, length - copied)
        out.set(segment.subarray(from, from + n), copied)
        copied += n
      }
      position = end
    }
    return out
  }

  readonly snapshot = (): OutputHygiene.Captured => this.output(undefined)

  /** Copies of the head and of exactly the last `tailCapacity` bytes (or fewer) after it. */
  output(spill: Spill | undefined): Output {
    const head = this.head === undefined ? empty : Buffer.from(this.head.subarray(0, this.headLength))
    const tailLength = this.total - this.headLength
    const kept = Math.min(tailLength, this.held, this.tailCapacity)
    return {
      head,
      tail: this.copyTail(this.total - kept, kept),
      omittedBytes: tailLength - kept,
      totalBytes: this.total,
      spill
    }
  }
}

/**
 * A byte-exact copy of a stream in a file, written synchronously chunk by
 * chunk: measured faster than a `WriteStream` with backpressure, and it
 * buffers nothing, so memory stays flat. A page-cache write of one pipe
 * chunk (at most 64 KiB) blocks the event loop for microseconds.
 */
export class SpillFile {
  private fd: number | undefined
  bytes = 0
  error: string | undefined

  constructor(readonly path: string) {
    const opened = Either.try(() => NodeFs.openSync(path, "w"))
    if (Either.isRight(opened)) this.fd = opened.right
    else this.error = errorCode(opened.left)
  }

  write(chunk: Buffer): void {
    const fd = this.fd
    if (fd === undefined) return
    let offset = 0
    while (offset < chunk.length) {
      const written = Either.try(() => NodeFs.writeSync(fd, chunk, offset, chunk.length - offset))
      if (Either.isLeft(written)) {
        this.error = errorCode(written.left)
        this.close()
        return
      }
      offset += written.right
      this.bytes += written.right
    }
  }

  close(): void {
    if (this.fd !== undefined) attempt(() => NodeFs.closeSync(this.fd!))
    this.fd = undefined
  }

  info(): Spill {
    return { path: this.path, bytes: this.bytes, error: this.error }
  }
}

const errorCode = (error: unknown): string => (error as NodeJS.ErrnoException | undefined)?.code ?? String(error)

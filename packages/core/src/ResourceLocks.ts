/**
 * Concurrency by resource. The scheduler's read-only mark says whether a
 * call may run beside others; resources say what it touches. Two writers of
 * one resource never run at the same time, and a reader waits for a writer
 * in flight, even when a tool was marked read-only by mistake, and across
 * turns that share a runtime.
 *
 * Each resource key gets a readers-writer lock (a semaphore whose readers
 * take one permit and whose writers take them all). Keys are acquired in
 * sorted order, so two calls that want the same keys cannot deadlock.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"

/**
 * What a call touches, and how.
 *
 * @since 0.1.0
 * @category models
 */
export interface Resource {
  readonly key: string
  readonly access: "read" | "write"
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const reads = (key: string): Resource => ({ key, access: "read" })

/**
 * @since 0.1.0
 * @category constructors
 */
export const writes = (key: string): Resource => ({ key, access: "write" })

const ALL = 1 << 30

/**
 * One access per key, the stronger one when a key appears twice; sorted.
 *
 * @since 0.1.0
 * @category models
 */
export const normalize = (resources: ReadonlyArray<Resource>): ReadonlyArray<Resource> => {
  const byKey = new Map<string, Resource["access"]>()
  for (const { access, key } of resources) {
    if (byKey.get(key) !== "write") byKey.set(key, access)
  }
  return Array.from(byKey, ([key, access]) => ({ key, access })).sort((
    a,
    b
  ) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
}

interface Entry {
  readonly semaphore: Effect.Semaphore
  users: number
}

/**
 * @since 0.1.0
 * @category models
 */
export class ResourceLocks {
  private readonly entries = new Map<string, Entry>()

  /** Runs `effect` holding the locks for `resources`; waiting is interruptible. */
  with<A, E, R>(resources: ReadonlyArray<Resource>, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> {
    if (resources.length === 0) return effect
    const wanted = normalize(resources)
    let locked = effect
    for (let i = wanted.length - 1; i >= 0; i--) {
      const { access, key } = wanted[i]!
      const inner = locked
      locked = Effect.suspend(() => {
        const entry = this.enter(key)
        return entry.semaphore.withPermits(access === "write" ? ALL : 1)(inner).pipe(
          Effect.ensuring(Effect.sync(() => this.leave(key, entry)))
        )
      })
    }
    return locked
  }

  /** Keys with a holder or a waiter: the table does not grow with every file ever touched. */
  get size(): number {
    return this.entries.size
  }

  private enter(key: string): Entry {
    let entry = this.entries.get(key)
    if (entry === undefined) {
      entry = { semaphore: Effect.unsafeMakeSemaphore(ALL), users: 0 }
      this.entries.set(key, entry)
    }
    entry.users++
    return entry
  }

  private leave(key: string, entry: Entry): void {
    entry.users--
    if (entry.users === 0 && this.entries.get(key) === entry) this.entries.delete(key)
  }
}

/**
 * Deterministic serialization of structured tool output: the same value
 * always gives the same text (keys sorted), so results are reproducible and
 * cacheable, and nothing a handler returns can make serialization throw.
 *
 * @since 0.1.0
 */

/**
 * How deep a value may nest before the rest is replaced by a marker: deep
 * enough for any real output, shallow enough that serializing never comes
 * near the stack limit.
 *
 * @since 0.2.0
 * @category defaults
 */
export const defaultMaxDepth = 256

/**
 * How many array items and object entries one serialization visits before
 * the rest is replaced by a marker: a sparse array with a length of four
 * billion, or a `Proxy` that claims a trillion items, must not keep the
 * call busy (the output is truncated far below this anyway).
 *
 * @since 0.2.0
 * @category defaults
 */
export const defaultMaxItems = 2_000_000

/**
 * @since 0.2.0
 * @category models
 */
export interface Encoded {
  readonly text: string
  /** Some part nested deeper than the limit and was replaced by a marker. */
  readonly tooDeep: boolean
}

const unreadable = "[unreadable]"

/** What one serialization carries through the walk. */
interface Walk {
  readonly seen: Set<object>
  readonly maxDepth: number
  tooDeep: boolean
  /** Items and entries left to visit. */
  remaining: number
}

const rest = (count: number) => `[${count} more not serialized]`

const get = (u: object, key: string | number): unknown => {
  try {
    return (u as Record<string | number, unknown>)[key]
  } catch {
    return unreadable
  }
}

const visitRecord = (walk: Walk, record: object, keys: ReadonlyArray<string>, depth: number): unknown => {
  // Defined, not assigned: an own "__proto__" key must stay a key.
  const out: Record<string, unknown> = {}
  const sorted = keys.slice().sort()
  for (let i = 0; i < sorted.length; i++) {
    const key = sorted[i]!
    if (walk.remaining-- <= 0) {
      Object.defineProperty(out, "…", { value: rest(sorted.length - i), enumerable: true, writable: true })
      break
    }
    const item = visit(walk, get(record, key), depth)
    if (item !== undefined) Object.defineProperty(out, key, { value: item, enumerable: true, writable: true })
  }
  return out
}

const visitObject = (walk: Walk, u: object, depth: number): unknown => {
  if (u instanceof Date) return Number.isNaN(u.getTime()) ? "Invalid Date" : u.toISOString()
  if (u instanceof Uint8Array) return `[${u.byteLength} bytes]`
  if (u instanceof Map) {
    const entries = Object.fromEntries(u)
    return visitRecord(walk, entries, Object.keys(entries), depth)
  }
  if (u instanceof Set) return Array.from(u, (item) => visit(walk, item, depth) ?? null)
  if (u instanceof Error) {
    const record: Record<string, unknown> = {}
    for (const key of [...Object.keys(u), "name", "message"]) {
      Object.defineProperty(record, key, { value: get(u, key), enumerable: true, configurable: true })
    }
    return visitRecord(walk, record, Object.keys(record), depth)
  }
  if (Array.isArray(u)) {
    const out: Array<unknown> = []
    const length = u.length
    for (let i = 0; i < length; i++) {
      if (walk.remaining-- <= 0) {
        out.push(rest(length - i))
        break
      }
      out.push(visit(walk, get(u, i), depth) ?? null)
    }
    return out
  }
  const toJSON = (u as { toJSON?: unknown }).toJSON
  if (typeof toJSON === "function") {
    let source: unknown
    try {
      source = toJSON.call(u)
    } catch {
      return "[unserializable]"
    }
    // One level deeper: a `toJSON` that returns a fresh object forever still ends.
    if (source !== u) return visit(walk, source, depth)
  }
  return visitRecord(walk, u, Object.keys(u), depth)
}

/** What JSON holds of a value that is not an object. */
const scalar = (u: unknown): unknown => {
  switch (typeof u) {
    case "bigint":
      return u.toString()
    case "function":
    case "symbol":
    case "undefined":
      return undefined
    case "number":
      return Number.isFinite(u) ? u : String(u)
    default:
      return u
  }
}

const visit = (walk: Walk, u: unknown, depth: number): unknown => {
  switch (typeof u) {
    case "object": {
      if (u === null) return null
      if (walk.seen.has(u)) return "[Circular]"
      if (depth >= walk.maxDepth) {
        walk.tooDeep = true
        return `[nested deeper than ${walk.maxDepth} levels]`
      }
      walk.seen.add(u)
      try {
        return visitObject(walk, u, depth + 1)
      } catch {
        return unreadable
      } finally {
        walk.seen.delete(u)
      }
    }
    default:
      return scalar(u)
  }
}

const shallow: Encoded = { text: "null", tooDeep: false }

/**
 * Serializes anything, and says whether some of it was too deep to keep.
 * Every read of the value is guarded: a getter, a `toJSON`, an iterator or
 * a `Proxy` trap that throws turns that part into `"[unreadable]"`, a
 * reference back to an enclosing value into `"[Circular]"`, and a part
 * nested deeper than `maxDepth` into a marker saying so, and what lies
 * past `maxItems` visited items and entries into a marker with its count.
 *
 * @since 0.2.0
 * @category serialization
 */
export const encode = (
  value: unknown,
  options?: { readonly maxDepth?: number | undefined; readonly maxItems?: number | undefined }
): Encoded => {
  // Scalars need no walk (the common result of a small tool).
  if (typeof value !== "object" || value === null) {
    const json = scalar(value)
    return json === undefined || json === null ? shallow : { text: JSON.stringify(json), tooDeep: false }
  }
  const walk: Walk = {
    seen: new Set(),
    maxDepth: options?.maxDepth ?? defaultMaxDepth,
    tooDeep: false,
    remaining: options?.maxItems ?? defaultMaxItems
  }
  const tree = visit(walk, value, 0)
  let text: string
  try {
    text = JSON.stringify(tree) ?? "null"
  } catch {
    // Only a result longer than the engine's longest string gets here.
    text = "\"[too large to serialize]\""
  }
  return { text, tooDeep: walk.tooDeep }
}

/**
 * Total: whatever the value, a JSON text (see {@link encode}).
 *
 * @since 0.1.0
 * @category serialization
 */
export const stringify = (value: unknown): string => encode(value).text

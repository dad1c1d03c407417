/**
 * Deterministic serialization of structured tool output: the same value
 * always gives the same text (keys sorted), so results are reproducible and
 * cacheable, and nothing a handler returns can make serialization throw.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category serialization
 */
export const stringify = (value: unknown): string => {
  const seen = new Set<object>()
  const visit = (u: unknown): unknown => {
    switch (typeof u) {
      case "bigint":
        return u.toString()
      case "function":
      case "symbol":
        return undefined
      case "number":
        return Number.isFinite(u) ? u : String(u)
      case "object": {
        if (u === null) return null
        if (seen.has(u)) return "[Circular]"
        if (u instanceof Date) return Number.isNaN(u.getTime()) ? "Invalid Date" : u.toISOString()
        if (u instanceof Uint8Array) return `[${u.byteLength} bytes]`
        if (u instanceof Map) return visit(Object.fromEntries(u))
        if (u instanceof Set) return visit(Array.from(u))
        seen.add(u)
        try {
          if (Array.isArray(u)) return u.map((item) => visit(item) ?? null)
          const source = typeof (u as { toJSON?: unknown }).toJSON === "function"
            ? safeToJSON(u as { toJSON: () => unknown })
            : u
          if (source !== u) return visit(source)
          const out: Record<string, unknown> = {}
          for (const key of Object.keys(u).sort()) {
            const item = visit((u as Record<string, unknown>)[key])
            if (item !== undefined) out[key] = item
          }
          return out
        } finally {
          seen.delete(u)
        }
      }
      default:
        return u
    }
  }
  return JSON.stringify(visit(value)) ?? "null"
}

const safeToJSON = (u: { toJSON: () => unknown }): unknown => {
  try {
    return u.toJSON()
  } catch {
    return "[unserializable]"
  }
}

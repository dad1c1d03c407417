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
  const visitRecord = (record: Record<string, unknown>): unknown => {
    // Defined, not assigned: an own "__proto__" key must stay a key.
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(record).sort()) {
      const item = visit(record[key])
      if (item !== undefined) Object.defineProperty(out, key, { value: item, enumerable: true, writable: true })
    }
    return out
  }
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
        seen.add(u)
        try {
          if (u instanceof Map) return visitRecord(Object.fromEntries(u))
          if (u instanceof Set) return Array.from(u, (item) => visit(item) ?? null)
          if (u instanceof Error) return visitRecord({ ...u, name: u.name, message: u.message })
          if (Array.isArray(u)) return u.map((item) => visit(item) ?? null)
          const source = typeof (u as { toJSON?: unknown }).toJSON === "function"
            ? safeToJSON(u as { toJSON: () => unknown })
            : u
          if (source !== u) return visit(source)
          return visitRecord(u as Record<string, unknown>)
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

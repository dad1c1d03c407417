/**
 * How values are judged: whether one looks random enough to be a secret,
 * and whether it only stands for one (a reference, a template slot, a mask,
 * a documentation example).
 *
 * @since 0.3.0
 */

/**
 * Bits of entropy per character: separates `hunter2hunter2` from
 * `kX9#pQ2vL8`.
 *
 * @since 0.3.0
 * @category values
 */
export const entropy = (value: string): number => {
  const counts = new Map<string, number>()
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  let bits = 0
  for (const n of counts.values()) {
    const p = n / value.length
    bits -= p * Math.log2(p)
  }
  return bits
}

const placeholderShape =
  /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\([^)]*\)|<[^>]*>|\{\{[^}]*\}\}|%[A-Za-z_]+%|[x*•.#-]{3,}|your[_-].*|changeme|password|secret|redacted|null|undefined|none)$/i

/**
 * A value that stands for a secret without being one: a variable reference,
 * a template slot, a mask, a documentation example.
 *
 * @since 0.3.0
 * @category values
 */
export const isPlaceholder = (value: string): boolean => placeholderShape.test(value) || /example/i.test(value)

/**
 * A value assigned to a secret-looking key counts as a secret when it looks
 * random: long enough, varied enough, and not a plain word or placeholder.
 * Digits are the usual tell; a long mixed-case value or one that mixes
 * cases and symbols counts without them.
 *
 * @since 0.3.0
 * @category values
 */
export const looksRandom = (value: string): boolean => {
  if (value.length < 8 || isPlaceholder(value)) return false
  const bits = entropy(value)
  if (bits < 3) return false
  const digits = /[0-9]/.test(value)
  if (digits) return !/^[0-9]+$/.test(value)
  const lower = /[a-z]/.test(value)
  const upper = /[A-Z]/.test(value)
  if (lower && upper && value.length >= 20 && bits >= 4) return true
  return lower && upper && value.length >= 10 && /[^A-Za-z0-9]/.test(value)
}

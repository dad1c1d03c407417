/**
 * Fake credentials for the redaction tests: a vendor prefix glued to
 * deterministic noise, so no string in the tests is anybody's credential
 * and no scanner flags it.
 */

export const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
export const base32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
export const hex = "0123456789abcdef"

/**
 * `length` characters of `alphabet`, the same for the same seed. The step is
 * exact 32-bit arithmetic: in doubles, `state * 1103515245` loses its low
 * bits, and 109 seeds of the first million fell into a fixed point
 * (`AKIA4444444444444444`, a placeholder the redactor keeps by design), which
 * made a property over random seeds fail about once in twenty runs.
 */
export const noise = (length: number, seed: number, alphabet = alnum): string => {
  let state = seed >>> 0
  let out = ""
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff
    out += alphabet[(state >>> 8) % alphabet.length]
  }
  return out
}

/** How many redaction markers a text holds. */
export const markers = (text: string): number => text.split("[REDACTED:").length - 1

/**
 * The first 8-character window of `secret` found in `haystack`: the oracle of
 * "the secret is gone", since a secret cut short or split still leaks.
 */
export const leakedWindow = (haystack: string, secret: string): string | undefined => {
  for (let i = 0; i + 8 <= secret.length; i++) {
    const window = secret.slice(i, i + 8)
    if (haystack.includes(window)) return window
  }
  return undefined
}

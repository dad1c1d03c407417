/**
 * Deterministic noise that fake secrets are made of: the same characters for
 * the same seed, with no dependency, so the rule samples built from it load
 * outside the tests too (`pnpm bench:redaction` streams them).
 */

export const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
export const base32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
export const hex = "0123456789abcdef"

/** `length` characters of `alphabet`, the same for the same seed. */
export const noise = (length: number, seed: number, alphabet = alnum): string => {
  let state = seed
  let out = ""
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2147483648
    out += alphabet[(state >>> 8) % alphabet.length]
  }
  return out
}

/**
 * Fake credentials for the redaction tests: a vendor prefix glued to
 * deterministic noise (`Noise`), so no string in the tests is anybody's
 * credential and no scanner flags it; and the oracles of "the secret is
 * gone".
 */

import { assert } from "@effect/vitest"

export { alnum, base32, hex, noise } from "./Noise.js"

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

/**
 * Asserts that `secret` is gone from `haystack`: no 8-character window of it
 * survives (a secret shorter than that, not whole). With `input`, a window
 * that also occurs in the input outside the secret's own occurrences is not
 * counted: surviving text that happens to share it is not a leak.
 */
export const assertGone = (haystack: string, secret: string, input?: string): void => {
  const elsewhere = input === undefined ? "" : input.split(secret).join("\u0000")
  let leaked: string | undefined
  if (secret.length < 8) leaked = haystack.includes(secret) ? secret : undefined
  else {
    for (let i = 0; i + 8 <= secret.length && leaked === undefined; i++) {
      const window = secret.slice(i, i + 8)
      if (haystack.includes(window) && !elsewhere.includes(window)) leaked = window
    }
  }
  if (leaked !== undefined) {
    const at = haystack.indexOf(leaked)
    const around = haystack.slice(Math.max(0, at - 60), at + 68)
    assert.fail(
      `${JSON.stringify(leaked)} of the secret ${JSON.stringify(secret.slice(0, 40))}${
        secret.length > 40 ? "…" : ""
      } (${secret.length} characters) survives: …${JSON.stringify(around)}…`
    )
  }
}

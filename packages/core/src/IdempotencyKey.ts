/**
 * The key a call's side effects can carry so that the system they reach
 * applies them once: an API's `Idempotency-Key` header, a row's unique
 * column, a message's deduplication id. A handler reads it as
 * `context.idempotencyKey`.
 *
 * It is derived from the session, the turn and the call's id, and from
 * nothing else: the same call sent again (a re-submitted turn, a retry after
 * a crash, another process running it) gets the same key, and any other call
 * gets another. The ids come from the caller's `TurnOptions` (`sessionId`,
 * `turnId`) and from the model (the call's id), so they are hashed (SHA-256,
 * 128 bits kept): a key is short, has one shape whatever the ids hold, and
 * quotes none of them to the systems it is sent to.
 *
 * No Node import and no Web API: the hash and the UTF-8 are written here.
 *
 * @since 0.5.0
 */

/**
 * What a key is made from. An empty `sessionId` or `turnId` is a scope of
 * its own, the same for every call that gives none.
 *
 * @since 0.5.0
 * @category models
 */
export interface Scope {
  readonly sessionId: string
  readonly turnId: string
}

/**
 * The scope of calls whose turn says nothing of its session or turn: their
 * keys are those of their call ids alone.
 *
 * @since 0.5.0
 * @category constructors
 */
export const unscoped: Scope = { sessionId: "", turnId: "" }

/**
 * The key of a call: `idk_` and 32 lowercase hex digits.
 *
 * @since 0.5.0
 * @category constructors
 */
export const make = (scope: Scope, callId: string): string => {
  // Each part's length goes first, so no two different triples are one text:
  // ("a:b", "c") and ("a", "b:c") must not share a key.
  const text = [scope.sessionId, scope.turnId, callId].map((part) => `${part.length}:${part}`).join("")
  return `idk_${toHex(sha256(utf8(text))).slice(0, 32)}`
}

/** UTF-8, a lone surrogate as U+FFFD (as `TextEncoder` does). */
const utf8 = (text: string): Uint8Array => {
  const bytes: Array<number> = []
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00)
        i++
      } else {
        code = 0xfffd
      }
    }
    if (code < 0x80) bytes.push(code)
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f))
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f))
    else {
      bytes.push(
        0xf0 | (code >> 18),
        0x80 | ((code >> 12) & 0x3f),
        0x80 | ((code >> 6) & 0x3f),
        0x80 | (code & 0x3f)
      )
    }
  }
  return Uint8Array.from(bytes)
}

const toHex = (bytes: Uint8Array): string => {
  let hex = ""
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0")
  return hex
}

// FIPS 180-4: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
const K = new Uint32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2
])

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n))

/**
 * SHA-256 of `bytes`.
 *
 * @internal
 */
export const sha256 = (bytes: Uint8Array): Uint8Array => {
  // The message, a 1 bit, zeros, and its length in bits as 64 bits: a whole number of 64-byte blocks.
  const blocks = Math.ceil((bytes.length + 9) / 64)
  const padded = new Uint8Array(blocks * 64)
  padded.set(bytes)
  padded[bytes.length] = 0x80
  const view = new DataView(padded.buffer)
  const bits = bytes.length * 8
  view.setUint32(padded.length - 8, Math.floor(bits / 0x1_0000_0000))
  view.setUint32(padded.length - 4, bits >>> 0)
  // The first 32 bits of the fractional parts of the square roots of the first 8 primes.
  const h = new Uint32Array([
    0x6a09e667,
    0xbb67ae85,
    0x3c6ef372,
    0xa54ff53a,
    0x510e527f,
    0x9b05688c,
    0x1f83d9ab,
    0x5be0cd19
  ])
  const w = new Uint32Array(64)
  for (let block = 0; block < blocks; block++) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(block * 64 + i * 4)
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15]!
      const y = w[i - 2]!
      const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3)
      const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10)
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0
    }
    let [a, b, c, d, e, f, g, hh] = h as unknown as [number, number, number, number, number, number, number, number]
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) | 0
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0
      hh = g
      g = f
      f = e
      e = (d + t1) | 0
      d = c
      c = b
      b = a
      a = (t1 + t2) | 0
    }
    h[0] = h[0]! + a
    h[1] = h[1]! + b
    h[2] = h[2]! + c
    h[3] = h[3]! + d
    h[4] = h[4]! + e
    h[5] = h[5]! + f
    h[6] = h[6]! + g
    h[7] = h[7]! + hh
  }
  const out = new Uint8Array(32)
  const outView = new DataView(out.buffer)
  for (let i = 0; i < 8; i++) outView.setUint32(i * 4, h[i]!)
  return out
}

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
  /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$[0-9@*#?]|\$\([^)]*\)|<[^>]*>|\[[A-Za-z _-]*\]|\{\{[^}]*\}\}|%[A-Za-z_]+%|[x*•.#-]{3,}|your[_-].*|changeme|password|secret|redacted|null|undefined|none|nil|true|false)$/i

// Words that documentation, tests and tutorials put where a secret goes. A
// value made only of them (and of digits a person types: `123`, `42`,
// `0000`) is an example, not a secret.
const exampleWords = [
  "example",
  "sample",
  "placeholder",
  "dummy",
  "fake",
  "mock",
  "test",
  "testing",
  "demo",
  "default",
  "changeme",
  "change",
  "replace",
  "insert",
  "todo",
  "fixme",
  "redacted",
  "hidden",
  "masked",
  "secret",
  "password",
  "passwd",
  "pass",
  "passphrase",
  "token",
  "key",
  "api",
  "value",
  "here",
  "your",
  "my",
  "me",
  "some",
  "the",
  "foo",
  "bar",
  "baz",
  "qux",
  "hunter",
  "qwerty",
  "letmein",
  "welcome",
  "admin",
  "root",
  "user",
  "guest",
  "string",
  "random",
  "goes",
  "put",
  "access",
  "private",
  "client",
  "auth",
  "app",
  "super",
  "top",
  "abc",
  "xyz",
  "xxx",
  "new",
  "old",
  "local",
  "dev"
]

// Reused by every call: the split runs on each value a rule judges.
const reachable = new Uint8Array(49)

/** Whether lower-case letters split wholly into example words (at most 48 letters: bounded work). */
const splitsIntoWords = (letters: string): boolean => {
  const n = letters.length
  if (n === 0 || n > 48) return false
  reachable.fill(0, 0, n + 1)
  reachable[0] = 1
  for (let i = 0; i < n; i++) {
    if (reachable[i] === 0) continue
    for (const word of exampleWords) if (letters.startsWith(word, i)) reachable[i + word.length] = 1
  }
  return reachable[n] === 1
}

/** Digits a person types in an example: few, one repeated, or a run up or down (`123`, `9876`). */
const isTypedDigits = (digits: string): boolean => {
  if (digits.length <= 2) return true
  let up = true
  let down = true
  let same = true
  for (let i = 1; i < digits.length; i++) {
    const step = digits.charCodeAt(i) - digits.charCodeAt(i - 1)
    up &&= step === 1
    down &&= step === -1
    same &&= step === 0
  }
  return up || down || same
}

const leet: Record<string, string> = { "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s" }

/**
 * A value spelled with example words only: `test1234`, `my-secret-token`,
 * `DummyPassword!`, `P@ssw0rd`, `REPLACE_ME`.
 */
const isExampleWords = (value: string): boolean => {
  if (value.length > 48) return false
  const lower = value.toLowerCase()
  if (splitsIntoWords(lower.replace(nonLetters, ""))) {
    const digits = lower.match(/[0-9]+/g)
    if (digits === null || digits.every(isTypedDigits)) return true
  }
  // `P@ssw0rd`, `S3cr3t`, `Ch4ng3m3`: one word spelled with digits, not a phrase (`S3cr3tPa55`).
  if (value.length > 12 || !/[0-9@$]/.test(value)) return false
  const spelled = lower.replace(/[0-9@$]/g, (ch) => leet[ch] ?? ch).replace(nonLetters, "")
  return spelled.length >= 4 && exampleWords.includes(spelled)
}
const nonLetters = /[^a-z]/g

/**
 * A value that stands for a secret without being one: a variable reference,
 * a template slot, a mask, a documentation example.
 *
 * @since 0.3.0
 * @category values
 */
export const isPlaceholder = (value: string): boolean =>
  placeholderShape.test(value) || /example/i.test(value) || isExampleWords(value)

/**
 * Whether the body of a vendor token (what follows its prefix) is a
 * placeholder rather than a credential: runs of four or more `x`, `X`, `#`,
 * `*` or `•` making up at least half of it, one character repeated, or
 * (number groups aside) no digit and a word of the examples
 * (`RANDOMSTRINGHERE`, `yourtokenhere`, `your-bot-token`). A random body
 * holds no digit and such a word about once in a hundred thousand; a run of
 * `xxxx` inside it (a biased generator makes one often) leaves it a secret.
 *
 * @since 0.3.0
 * @category values
 */
export const isPlaceholderToken = (body: string): boolean => {
  // Masked where most of it stands: a real body that happens to hold `xxxx`
  // keeps the rest of its randomness, and is a secret still.
  const masked = body.match(/([xX#*•])\1{3,}/g)
  if (masked !== null && 2 * masked.join("").length >= body.length) return true
  const core = body.replace(/[-_.]/g, "")
  if (core.length > 0 && /^(.)\1*$/.test(core)) return true
  // Number groups are ids and versions (`xoxe.xoxp-1-…`); the rest holds the randomness.
  const rest = body.split(/[-_.]/).filter((part) => !/^[0-9]*$/.test(part)).join("")
  if (rest.length === 0 || /[0-9]/.test(rest)) return false
  const lower = rest.toLowerCase()
  return placeholderWords.some((word) => lower.includes(word))
}
const placeholderWords = [
  "example",
  "random",
  "string",
  "here",
  "your",
  "replace",
  "placeholder",
  "dummy",
  "fake",
  "sample",
  "token",
  "secret",
  "insert",
  "changeme",
  "redacted",
  "test"
]

// A reference is code that fetches the secret: an environment or config
// lookup, a member access chain, a template slot, a secret store's address.
const templateSlot = /\$\{|\{\{|\{%|%\(|<%|#\{|\$\(|^\{[A-Za-z_][A-Za-z0-9_.]*\}$/
const storeAddress =
  /^(?:arn:aws[a-z-]*:|projects\/[^/]+\/(?:secrets|locations)\/|vault:|op:|sm:|ssm:|secretsmanager:|awssm:|gcpsm:|azkv:|akv:|ref\+|bw:|doppler:|keyvault:)/i
// `process.env.API_KEY`, `Config.get`, `settings.DB_PASSWORD`, `std::env::var`,
// `$this->secret`: parts of letters with at most a few trailing digits; a
// random value with a dot has digits inside its parts.
const memberChain =
  /^[$@]?[A-Za-z_][A-Za-z_]*(?:[0-9]{1,3})?(?:(?:\?\.|\.|::|->)[A-Za-z_$][A-Za-z_]*(?:[0-9]{1,3})?)+(?:\(|\[|$)/
// Identifiers as programs name variables and types: `accessToken`,
// `SecretString`, `Uint8Array`, `db_password`, `OPENAI_API_KEY`.
// Digits only as type widths (`Uint8Array`, `Float64`): a random value
// shaped like a camel-case name has other digits.
const identifierShape =
  /^(?:[a-z]{2,}(?:[A-Z][a-z]{2,}(?:8|16|32|64|128|256)?)+|(?:[A-Z][a-z]{2,}(?:8|16|32|64|128|256)?){2,}|[a-z]{2,}(?:_[a-z]{2,})+|[A-Z]{2,}(?:_[A-Z]{2,})+)$/
const algorithmName =
  /^(?:hmac[-_]?)?(?:sha[-_]?(?:1|224|256|384|512)|sha3[-_]?(?:224|256|384|512)|md5|argon2(?:id|i|d)?|bcrypt|scrypt|pbkdf2(?:[-_]?(?:hmac[-_]?)?sha(?:1|256|512))?|blake2[bs]?|[hrpe]s(?:256|384|512)|aes[-_]?(?:128|192|256)(?:[-_](?:gcm|cbc|ctr|cfb|ofb|ecb))?|chacha20(?:[-_]poly1305)?|ed25519|ed448|x25519|secp256[kr]1|rsa[-_]?(?:2048|3072|4096)?)$/i

/**
 * A value that is code or an address rather than a secret: an environment
 * or config lookup in any language (`process.env.X`, `os.getenv("X")`,
 * `ENV.fetch`, `System.getenv`), a member access chain, a template slot
 * (`${VAR}`, `{{ … }}`, `%(x)s`, `<%= … %>`, `#{…}`), a secret store's
 * address (an ARN, `projects/…/secrets/…`, `vault:…`, `op://…`, Key
 * Vault), a variable or type name, a hash algorithm.
 *
 * @since 0.3.0
 * @category values
 */
export const isReference = (value: string): boolean =>
  templateSlot.test(value) || storeAddress.test(value) || /keyvault/i.test(value) || memberChain.test(value) ||
  identifierShape.test(value) || algorithmName.test(value)

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
  if (value.length < 8) return false
  const bits = entropy(value)
  if (bits < 3) return false
  return variedEnough(value, bits) && !isPlaceholder(value)
}
const variedEnough = (value: string, bits: number): boolean => {
  const digits = /[0-9]/.test(value)
  if (digits) return !/^[0-9]+$/.test(value)
  const lower = /[a-z]/.test(value)
  const upper = /[A-Z]/.test(value)
  if (lower && upper && value.length >= 20 && bits >= 4) return true
  return lower && upper && value.length >= 10 && /[^A-Za-z0-9]/.test(value)
}

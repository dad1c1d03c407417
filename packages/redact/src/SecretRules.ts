/**
 * The catalogue of secret formats the default redactor removes.
 *
 * Two kinds of rule live here. Token rules recognise a credential by its
 * vendor prefix (`ghp_`, `AKIA`, `sk-ant-`, `xoxb-`…) and its length and
 * alphabet; they need no context and have almost no false positives.
 * Contextual rules recognise a secret by what announces it: a key named
 * like a password, an `Authorization:` header, the password part of a URL,
 * `curl -u`, an `.npmrc` auth line. A contextual rule removes only the value
 * and keeps the announcement, so the model still sees what was there.
 *
 * Every pattern is anchored where its trigger matched and has bounded
 * quantifiers over disjoint character classes, so a rule costs time bounded
 * by its window whatever the input. A token whose last character can be a
 * separator (`-`, `.`, `~`) has no trailing look-ahead: what follows it
 * may be another secret, and the token must be judged the same before that
 * secret as before its marker, or redacting twice would differ from
 * redacting once. Documented example credentials (AWS's
 * `AKIAIOSFODNN7EXAMPLE` and `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`)
 * and placeholders (`${TOKEN}`, `<your-key>`, `changeme`) are left alone.
 *
 * This module is a catalogue of data, one rule per format: it is past the
 * house's ~600 lines because its length grows with the formats it lists,
 * not with what it does.
 *
 * @since 0.3.0
 */
import * as CloudTokens from "./CloudTokens.js"
import * as Detector from "./Detector.js"
import * as DeveloperTokens from "./DeveloperTokens.js"
import * as ServiceTokens from "./ServiceTokens.js"
import { token } from "./TokenRule.js"
import { isPlaceholder, isPlaceholderToken, isReference, looksRandom } from "./Values.js"

export {
  /** @since 0.3.0 */
  entropy,
  /** @since 0.3.0 */
  isPlaceholder,
  /** @since 0.3.0 */
  isPlaceholderToken,
  /** @since 0.3.0 */
  isReference,
  /** @since 0.3.0 */
  looksRandom
} from "./Values.js"

const versionShape = /^v?[0-9]+(?:\.[0-9]+){1,3}(?:[-+][0-9A-Za-z.-]+)?$/
const pathShape = /^(?:~?\/|\.\.?\/|[A-Za-z]:\\)/

/** Values a contextual rule never removes, however random they look. */
const isInnocent = (value: string): boolean =>
  isPlaceholder(value) || pathShape.test(value) || versionShape.test(value) || value.includes("://") ||
  value.startsWith("[REDACTED:") || value.startsWith("=")

const awsExampleSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

/**
 * The span a contextual rule reports for the value at `[start, end)`: the
 * whole value, named after the specific secret it starts with if there is
 * one (`token=ghp_…` is a GitHub token, not just an assignment).
 */
/**
 * Whether a value ends where a marker of an earlier redaction starts. Such a
 * value was judged whole the first time (and kept, since a part of it was
 * removed on its own); judging what is left would make redacting twice
 * differ from redacting once.
 */
const cutByMarker = (text: string, end: number): boolean => text.startsWith("[REDACTED:", end)

const named = (context: Detector.Context, start: number, end: number): Detector.Span => {
  const specific = context.classify(start)
  if (specific === undefined) return { start, end }
  // A key that goes on past its window goes on past the value too.
  const continues = specific.end >= end ? specific.continues : undefined
  return { start, end: Math.max(end, specific.end), id: specific.id, continues }
}

// ---------------------------------------------------------------------------
// token rules
// ---------------------------------------------------------------------------

/**
 * PEM private keys of every kind (RSA, EC, DSA, PKCS#8, encrypted, OpenSSH,
 * PGP), up to the END line; a key cut off before its END line is removed to
 * the end of its base64 body. The body may be wrapped, indented, joined by
 * spaces or escaped (`\n`) inside JSON. A verification reads 12,000
 * characters of body; a longer body (an RSA key of 16,384 bits, a PGP
 * block with many subkeys) is read on in further windows of 12,000
 * (`Span.continues`) and removed whole under one marker, however long.
 *
 * @since 0.3.0
 * @category rules
 */
export const privateKey: Detector.Detector = {
  id: "private-key",
  triggers: [Detector.prefix("-----BEGIN")],
  before: 0,
  after: 12_200,
  verify: (context, hit) => {
    // A hit that starts and ends at once is where a body went on past the window before.
    const rest = hit.end === hit.start
    const match = Detector.matchAt(rest ? pemRest : pem, context.text, hit.start)
    if (match === null || match[0].length === 0 || (!rest && !hasKeyBody(match[0]))) return undefined
    const end = hit.start + match[0].length
    return { start: hit.start, end, continues: match[1]?.length === pemWindow ? privateKey : undefined }
  }
}
/**
 * A block counts only with a body of base64: runs of at least 16 base64
 * characters (whole lines, or the parts of a body escaped or joined by
 * spaces), 40 in all. The shortest real key, Ed25519, has 64; a block that
 * only shows where a key goes (`anything`, `...`) has none.
 */
const hasKeyBody = (block: string): boolean => {
  let total = 0
  let run = 0
  for (let i = block.indexOf("-----", 10) + 5; i < block.length && total < minKeyBody; i++) {
    const code = block.charCodeAt(i)
    if (Detector.isWordChar(code) && code !== 95 || code === 43 || code === 47 || code === 61) {
      run++
    } else {
      if (run >= 16) total += run
      run = 0
    }
  }
  return total + (run >= 16 ? run : 0) >= minKeyBody
}
const minKeyBody = 40
// A body holds no run of five dashes before its END line, so the search for
// END stops at the next header instead of scanning the whole window. A body
// cut off (no END line within the window) is the first group: as long as the
// window, it may go on.
const pem =
  /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:(?:[A-Za-z0-9+/=\s\\:,.()]|-(?!----)){0,12000}?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|([A-Za-z0-9+/=\s\\]{0,12000}))/y
/** The rest of a body read on from where the window before ended: to its END line, or another window of body. */
const pemRest =
  /(?:(?:[A-Za-z0-9+/=\s\\:,.()]|-(?!----)){0,12000}?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|([A-Za-z0-9+/=\s\\]{0,12000}))/y
/** How much body one verification reads. */
const pemWindow = 12_000

/**
 * AWS access key ids, long-term (`AKIA`) and temporary (`ASIA`), and the
 * other documented principal prefixes. Keys ending in `EXAMPLE`, AWS's
 * documentation convention, are left alone.
 *
 * @since 0.3.0
 * @category rules
 */
export const awsAccessKeyId = token({
  id: "aws-access-key-id",
  prefixes: ["AKIA", "ASIA", "ABIA", "ACCA"],
  body: /(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Za-z0-9])/y,
  maxLength: 21,
  accept: (key) => !key.endsWith("EXAMPLE") && !isPlaceholderToken(key.slice(4))
})

/**
 * An AWS secret access key: 40 base64 characters assigned to a key named
 * like `aws_secret_access_key`, `SecretAccessKey` or `secret_key` (env
 * files, the credentials file, JSON from STS, `aws configure`).
 *
 * @since 0.3.0
 * @category rules
 */
export const awsSecretAccessKey: Detector.Detector = {
  id: "aws-secret-access-key",
  triggers: [Detector.keyword("secret")],
  before: 0,
  after: 130,
  verify: (context, hit) => {
    const match = Detector.matchAt(awsSecret, context.text, hit.end)
    if (
      match === null || match[1] === awsExampleSecret || match[1]!.includes("EXAMPLE") ||
      isPlaceholderToken(match[1]!)
    ) {
      return undefined
    }
    const end = hit.end + match[0].length
    return { start: end - match[1]!.length, end }
  }
}
// The operator may be only a space: `aws configure set aws_secret_access_key …`.
const awsSecret =
  /[ _-]?(?:access[ _-]?)?key(?:\\?["'])?\]?(?:[ \t]{1,3}\[[^\]\n]{0,20}\])?[ \t]{0,5}(?:(?::=|=>|[:=])[ \t]{0,5}|(?<=[ \t]))(?:\\?["'])?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/iy

/**
 * GitHub tokens: classic personal access (`ghp_`), OAuth (`gho_`), app
 * user-to-server (`ghu_`), app installation (`ghs_`), refresh (`ghr_`) and
 * fine-grained personal access (`github_pat_`).
 *
 * @since 0.3.0
 * @category rules
 */
export const githubToken = token({
  id: "github-token",
  prefixes: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
  body: /(?:gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9])|github_pat_[A-Za-z0-9_]{22,255}(?![A-Za-z0-9_]))/y,
  maxLength: 267,
  accept: (token) => !isPlaceholderToken(token.slice(token.startsWith("github_pat_") ? 11 : 4))
})

/**
 * GitLab tokens: personal, deploy, runner, CI job, pipeline trigger, feed,
 * incoming mail, agent, OAuth application and service account tokens, and
 * legacy runner registration tokens.
 *
 * @since 0.3.0
 * @category rules
 */
export const gitlabToken = token({
  id: "gitlab-token",
  prefixes: [
    "glpat-",
    "gldt-",
    "glrt-",
    "glcbt-",
    "glptt-",
    "glft-",
    "glimt-",
    "glagent-",
    "gloas-",
    "glsoat-",
    "GR1348941"
  ],
  body:
    /(?:gl(?:pat|dt|rt|cbt|ptt|ft|imt|agent|oas|soat)-|GR1348941)[A-Za-z0-9_-]{20,300}(?:\.[A-Za-z0-9_-]{1,100}){0,3}/y,
  maxLength: 620,
  accept: (token) => !isPlaceholderToken(token.startsWith("GR") ? token.slice(9) : token.slice(token.indexOf("-") + 1))
})

/**
 * Anthropic API, admin and OAuth keys (`sk-ant-…`).
 *
 * @since 0.3.0
 * @category rules
 */
export const anthropicKey = token({
  id: "anthropic-key",
  prefixes: ["sk-ant-"],
  body: /sk-ant-[A-Za-z0-9_-]{20,300}/y,
  maxLength: 307,
  accept: (token) => !isPlaceholderToken(token.slice(7))
})

/**
 * OpenAI keys: project (`sk-proj-`), service account (`sk-svcacct-`),
 * admin (`sk-admin-`) and legacy user keys (`sk-` and 32 or more letters
 * and digits, with or without the `T3BlbkFJ` marker).
 *
 * @since 0.3.0
 * @category rules
 */
export const openaiKey = token({
  id: "openai-key",
  prefixes: ["sk-"],
  body:
    /sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,300}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}(?![A-Za-z0-9])|[A-Za-z0-9]{32,200}(?![A-Za-z0-9_]))/y,
  maxLength: 311,
  accept: (token) => !isPlaceholderToken(token.slice(token.indexOf("-", 3) + 1))
})

/**
 * Slack bot, user, app, refresh, configuration and app-level tokens. All
 * but the legacy workspace and refresh tokens start with a number (a team
 * or version id) after the prefix: `xoxo-indieweb-1` in a file name is not
 * one, and neither is `xoxe.xoxp-1-RANDOMSTRINGHERE`.
 *
 * @since 0.3.0
 * @category rules
 */
export const slackToken = token({
  id: "slack-token",
  prefixes: ["xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xoxe.", "xapp-"],
  body: /(?:(?:xox[bpose]|xoxe\.xox[bp]|xapp)-[0-9]|xox[ar]-(?=[A-Za-z-]{0,40}[0-9]))[A-Za-z0-9-]{9,250}/y,
  maxLength: 263,
  accept: (token) => !isPlaceholderToken(token.slice(token.startsWith("xoxe.") ? 10 : 5))
})

/**
 * Slack incoming webhooks and workflow triggers: the whole URL, since its
 * path is the credential.
 *
 * @since 0.3.0
 * @category rules
 */
export const slackWebhook: Detector.Detector = {
  id: "slack-webhook",
  triggers: [Detector.literal("hooks.slack.com/")],
  before: 9,
  after: 240,
  verify: (context, hit) => {
    const text = context.text
    let start = hit.start
    // With its scheme, or without one (`POST hooks.slack.com/services/…`).
    if (start - 3 >= context.floor && text.startsWith("://", start - 3)) {
      start = text.startsWith("https", start - 8) ? start - 8 : start - 7
      if (start < context.floor || !text.startsWith("http", start)) return undefined
    }
    if (!Detector.separatedBefore(context, start) || (start > 0 && Detector.codeAt(context, start - 1) === 46)) {
      return undefined
    }
    const match = Detector.matchAt(slackHook, text, hit.start)
    // Slack's documented example, `T00000000/B00000000/XXXXXXXX…`: the secret is the last segment.
    if (match === null || isPlaceholderToken(match[0].slice(match[0].lastIndexOf("/") + 1))) return undefined
    return { start, end: hit.start + match[0].length }
  }
}
const slackHook = /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{20,200}/y

/**
 * Stripe secret and restricted keys, live and test, and webhook signing
 * secrets.
 *
 * @since 0.3.0
 * @category rules
 */
export const stripeKey = token({
  id: "stripe-key",
  prefixes: ["sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"],
  body: /(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,247}|whsec_[A-Za-z0-9]{24,100})(?![A-Za-z0-9])/y,
  maxLength: 256,
  accept: (token) => !isPlaceholderToken(token.slice(token.lastIndexOf("_") + 1))
})

/**
 * Google API keys (`AIza…`, 39 characters).
 *
 * @since 0.3.0
 * @category rules
 */
export const googleApiKey = token({
  id: "google-api-key",
  prefixes: ["AIza"],
  body: /AIza[0-9A-Za-z_-]{35}/y,
  maxLength: 40,
  accept: (token) => !isPlaceholderToken(token.slice(4))
})

/**
 * Google OAuth client secrets (`GOCSPX-…`).
 *
 * @since 0.3.0
 * @category rules
 */
export const googleOauthSecret = token({
  id: "google-oauth-secret",
  prefixes: ["GOCSPX-"],
  body: /GOCSPX-[A-Za-z0-9_-]{28}/y,
  maxLength: 36,
  accept: (token) => !isPlaceholderToken(token.slice(7))
})

/**
 * The `private_key_id` of a Google service-account JSON file. The
 * `private_key` next to it is a PEM key, removed by {@link privateKey}.
 *
 * @since 0.3.0
 * @category rules
 */
export const gcpServiceAccount: Detector.Detector = {
  id: "gcp-service-account",
  triggers: [Detector.keyword("key")],
  before: 8,
  after: 70,
  verify: (context, hit) => {
    const text = context.text
    if (hit.start - 8 < context.floor || !text.startsWith("private_", hit.start - 8)) return undefined
    const match = Detector.matchAt(serviceAccountKeyId, text, hit.end)
    if (match === null || isPlaceholderToken(match[1]!)) return undefined
    const start = hit.end + match[0].lastIndexOf(match[1]!)
    return { start, end: start + 40 }
  }
}
// Quotes escaped too: a key file inside a JSON string.
const serviceAccountKeyId = /_id(?:\\?["'])?[ \t]{0,5}:[ \t]{0,5}\\?["']([0-9a-f]{40})\\?["']/y

/**
 * npm access tokens (`npm_…`).
 *
 * @since 0.3.0
 * @category rules
 */
export const npmToken = token({
  id: "npm-token",
  prefixes: ["npm_"],
  body: /npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/y,
  maxLength: 41,
  accept: (token) => !isPlaceholderToken(token.slice(4))
})

/**
 * Hugging Face user access tokens (`hf_…`).
 *
 * @since 0.3.0
 * @category rules
 */
export const huggingfaceToken = token({
  id: "huggingface-token",
  prefixes: ["hf_"],
  body: /hf_[A-Za-z0-9]{34,40}(?![A-Za-z0-9])/y,
  maxLength: 44,
  // A token's letters are of both cases; a snake_case name (`hf_servingcell…`) is not one.
  accept: (token) => /[A-Z]/.test(token) && /[a-z]/.test(token) && !isPlaceholderToken(token.slice(3))
})

/**
 * JSON Web Tokens: a base64url JSON header (`eyJ`), a payload and a
 * signature. Unsigned tokens (empty signature) are removed too: their
 * payload is what matters.
 *
 * @since 0.3.0
 * @category rules
 */
export const jwt: Detector.Detector = {
  id: "jwt",
  triggers: [Detector.prefix("eyJ")],
  before: 3,
  after: 14_011,
  verify: (context, hit) => {
    const text = context.text
    if (!Detector.startsToken(context, hit.start)) return undefined
    const match = Detector.matchAt(jwtShape, text, hit.start)
    if (match !== null) return { start: hit.start, end: hit.start + match[0].length }
    // Every `eyJ` inside this header's run of base64url characters shares
    // its end and what follows it, so fails the same way; when the run is
    // longer than a header can be, only those whose header would still be
    // too long do. Reading two headers' length makes each skip worth one.
    let end = hit.start + 3
    const limit = Math.min(text.length, end + 2 * maxHeader + 1)
    while (end < limit && isBase64Url(text.charCodeAt(end))) end++
    const tooLong = end === limit && limit < text.length || end - hit.start - 3 > maxHeader
    context.skip(tooLong ? end - maxHeader - 3 : end)
    return undefined
  }
}
const maxHeader = 4_000
const jwtShape = /eyJ[A-Za-z0-9_-]{8,4000}\.ey[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{0,2000}/y
const isBase64Url = (code: number): boolean => Detector.isWordChar(code) || code === 45

/**
 * Azure AD (Entra ID) client secrets: three characters, a digit, `Q~` and
 * 31 to 34 more. The trigger is the rare `Q~`; the secret starts four
 * characters before it.
 *
 * @since 0.3.0
 * @category rules
 */
export const azureClientSecret: Detector.Detector = {
  id: "azure-client-secret",
  triggers: [Detector.prefix("Q~")],
  before: 6,
  after: 38,
  verify: (context, hit) => {
    const start = hit.start - 4
    if (start < context.floor || !azureSeparated(context, start)) return undefined
    const match = Detector.matchAt(azure, context.text, start)
    if (match === null || isPlaceholderToken(match[0].slice(6))) return undefined
    return { start, end: start + match[0].length }
  }
}
const azure = /[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}/y
const azureSeparated = (context: Detector.Context, start: number): boolean => {
  if (start === 0) return true
  const code = Detector.codeAt(context, start - 1)
  return !(Detector.isWordChar(code) || code === 126 || code === 46 || code === 45) ||
    Detector.isEscapedWhitespace(context, start - 1)
}

/**
 * SendGrid API keys (`SG.<22>.<43>`).
 *
 * @since 0.3.0
 * @category rules
 */
export const sendgridKey = token({
  id: "sendgrid-api-key",
  prefixes: ["SG."],
  body: /SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/y,
  maxLength: 70,
  accept: (token) => !isPlaceholderToken(token.slice(3))
})

/**
 * Twilio API key SIDs (`SK` and 32 hex digits). Twilio auth tokens have no
 * prefix; {@link secretAssignment} removes them from `TWILIO_AUTH_TOKEN=…`.
 *
 * @since 0.3.0
 * @category rules
 */
export const twilioKey = token({
  id: "twilio-api-key",
  prefixes: ["SK"],
  body: /SK[0-9a-fA-F]{32}(?![0-9A-Za-z])/y,
  maxLength: 35
})

/**
 * HashiCorp Vault service, batch and recovery tokens.
 *
 * @since 0.3.0
 * @category rules
 */
export const vaultToken = token({
  id: "vault-token",
  prefixes: ["hvs.", "hvb.", "hvr."],
  body: /hv[sbr]\.[A-Za-z0-9_-]{24,500}/y,
  maxLength: 504,
  accept: (token) => !isPlaceholderToken(token.slice(4))
})

/**
 * DigitalOcean personal access, OAuth and refresh tokens.
 *
 * @since 0.3.0
 * @category rules
 */
export const digitaloceanToken = token({
  id: "digitalocean-token",
  prefixes: ["dop_v1_", "doo_v1_", "dor_v1_"],
  body: /do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])/y,
  maxLength: 72
})

/**
 * Databricks personal access tokens (`dapi` and 32 hex digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const databricksToken = token({
  id: "databricks-token",
  prefixes: ["dapi"],
  body: /dapi[a-f0-9]{32}(?:-[0-9]{1,2})?(?![A-Za-z0-9])/y,
  maxLength: 40
})

// ---------------------------------------------------------------------------
// contextual rules
// ---------------------------------------------------------------------------

/**
 * The password of a URL with credentials (`postgres://app:PASSWORD@db`),
 * whatever the scheme: postgres, mysql, mongodb(+srv), redis, amqp, http…
 * The user and the host stay. A password that contains `@` is removed
 * whole: the host starts after the last `@` of the authority.
 *
 * @since 0.3.0
 * @category rules
 */
export const urlCredentials: Detector.Detector = {
  id: "url-credentials",
  triggers: [Detector.literal("://")],
  before: 22,
  after: 520,
  verify: (context, hit) => {
    const text = context.text
    let scheme = hit.start
    while (scheme > context.floor && hit.start - scheme < 20 && isSchemeChar(text.charCodeAt(scheme - 1))) scheme--
    if (hit.start - scheme < 2 || !isLetter(text.charCodeAt(scheme))) return undefined
    const from = hit.start + 3
    const limit = Math.min(text.length, from + 512)
    let end = from
    let at = -1
    while (end < limit && !endsAuthority(text.charCodeAt(end))) {
      if (text.charCodeAt(end) === 64) at = end
      end++
    }
    if (at < 0 || end === from + 512) return undefined
    let colon = from
    while (colon < at && text.charCodeAt(colon) !== 58) colon++
    if (colon + 1 >= at) return undefined
    const start = colon + 1
    if (start < context.floor || isPlaceholder(text.slice(start, at))) return undefined
    return named(context, start, at)
  }
}
const isLetter = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
const isSchemeChar = (code: number): boolean =>
  isLetter(code) || Detector.isDigit(code) || code === 43 || code === 46 || code === 45
// `/ ? #` end the authority, and so does anything that cannot be inside a URL.
const endsAuthority = (code: number): boolean =>
  code <= 32 || code === 47 || code === 63 || code === 35 || code === 34 || code === 39 || code === 60 ||
  code === 62 || code === 92 || code === 96

/**
 * The credential of an `Authorization:` header and of a `Bearer …`
 * anywhere. The header's scheme word stays, whatever it is (`Bearer`,
 * `Basic`, `token`, `Api-Token`, `SSWS`, `GenieKey`, `Splunk`,
 * `Client-ID`…); a header with a credential alone loses it. A parameter
 * list (`Digest username="…"`, `AWS4-HMAC-SHA256 Credential=…`) is left to
 * the rules of what it holds, and so are words, references and masks
 * (`Bearer ${TOKEN}`, `Bearer XXXXXXXXXXXX`, `Authorization: required`).
 *
 * @since 0.3.0
 * @category rules
 */
export const authorizationHeader: Detector.Detector = {
  id: "authorization-header",
  triggers: [Detector.keyword("auth", "bearer")],
  before: 0,
  after: 8_200,
  verify: (context, hit) => {
    const text = context.text
    let from: number
    let bearer = false
    if (Detector.startsWithCaseless(text, hit.start, "authorization")) {
      const op = Detector.matchAt(authorizationOperator, text, hit.start + 13)
      if (op === null) return undefined
      from = hit.start + 13 + op[0].length
    } else if (Detector.startsWithCaseless(text, hit.start, "bearer")) {
      const gap = Detector.matchAt(credentialGap, text, hit.end)
      if (gap === null) return undefined
      from = hit.end + gap[0].length
      bearer = true
    } else {
      return undefined
    }
    let start = from
    let end = credentialEnd(text, from)
    if (end < 0) return undefined
    if (!bearer) {
      const gap = Detector.matchAt(credentialGap, text, end)
      if (gap !== null) {
        if (end - from <= 40 && schemeShape.test(text.slice(from, end))) {
          const next = end + gap[0].length
          const after = credentialEnd(text, next)
          // A scheme and what follows it: a credential, or else a parameter list, a
          // reference or an earlier marker, which leave nothing to remove here.
          if (after <= next) return undefined
          start = next
          end = after
        }
      }
    }
    if (end - start < (bearer ? 12 : 8) || cutByMarker(text, end)) return undefined
    return isCredential(text.slice(start, end)) ? named(context, start, end) : undefined
  }
}
const authorizationOperator = /\\?["']?[ \t]{0,5}(?:=>|[:=])[ \t]{0,5}\\?["']?/y
const credentialGap = /[ \t]{1,5}/y
const schemeShape = /^[A-Za-z]{1,24}[0-9]{0,3}(?:-[A-Za-z]{1,24}[0-9]{0,3}){0,3}$/
const maxCredential = 8_000
const isCredentialChar = (code: number): boolean =>
  Detector.isWordChar(code) || code === 46 || code === 126 || code === 43 || code === 47 || code === 45
/**
 * Where the credential from `from` ends: its characters and up to three
 * `=` of padding. -1 when a `=` joins it to more (`Credential=AKIA…`):
 * that is a parameter, not a credential.
 */
const credentialEnd = (text: string, from: number): number => {
  const limit = Math.min(text.length, from + maxCredential)
  let end = from
  while (end < limit && isCredentialChar(text.charCodeAt(end))) end++
  if (end === from) return from
  let pad = 0
  while (pad < 3 && end < limit && text.charCodeAt(end) === 61) {
    end++
    pad++
  }
  if (pad === 0 || end >= text.length) return end
  const next = text.charCodeAt(end)
  // `username="…"`: a parameter's name is a word.
  return isCredentialChar(next) || (next === 34 && /^[A-Za-z]+$/.test(text.slice(from, end - pad))) ? -1 : end
}
/** Words (`Required`, `Negotiate`, `REDACTED`), references (`process.env.TOKEN`) and masks are not credentials. */
const isCredential = (value: string): boolean =>
  !plainWord.test(value) && !isPlaceholder(value) && !isPlaceholderToken(value) && !memberAccess.test(value)
// Opaque tokens may look like camel-case names; after a scheme only a member access is surely code.
const memberAccess = /^[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)+$/
const plainWord = /^(?:[A-Z]?[a-z]+|[A-Z]+)(?:-(?:[A-Z]?[a-z]+|[A-Z]+))*$/

/**
 * The password of `curl -u user:password` and `curl --user user:password`,
 * anywhere on the command line, across `\` continuations, the argument
 * quoted or not, the password quoted on its own (`-u kevin:'…'`), the
 * user empty (`-u ":…"`) or an email address (which the email rule
 * removes). Slots and examples stay: `-u <user:password>`, `-u "$1:$2"`,
 * `-u user:pass`, `-u 'test:test'`.
 *
 * @since 0.3.0
 * @category rules
 */
export const curlCredentials: Detector.Detector = {
  id: "curl-credentials",
  triggers: [Detector.keyword("curl")],
  before: 0,
  after: 6_600,
  verify: (context, hit) => {
    const text = context.text
    const match = Detector.matchAt(curlUser, text, hit.end)
    if (match === null) return undefined
    let i = hit.end + match[0].length
    const limit = Math.min(text.length, i + 520)
    let quote = text.charCodeAt(i)
    if (quote === 34 || quote === 39) i++
    else quote = 0
    if (text.charCodeAt(i) === 60) return undefined
    // The user: up to the first `:`; the marker of an earlier redaction (an email) counts as one part.
    if (text.startsWith("[REDACTED:", i)) {
      const close = text.indexOf("]", i)
      if (close < 0 || close - i > 60) return undefined
      i = close + 1
    }
    while (i < limit && !endsArgument(text.charCodeAt(i), quote) && text.charCodeAt(i) !== 58) i++
    if (text.charCodeAt(i) !== 58) return undefined
    i++
    let closing = quote
    if (quote === 0 && (text.charCodeAt(i) === 34 || text.charCodeAt(i) === 39)) closing = text.charCodeAt(i++)
    const start = i
    while (i < limit && !endsArgument(text.charCodeAt(i), closing)) i++
    if (i === start || (closing !== 0 && text.charCodeAt(i) !== closing)) return undefined
    const password = text.slice(start, i)
    if (isInnocent(password) || password.startsWith("$") || isPlaceholderToken(password)) return undefined
    return named(context, start, i)
  }
}
// The command line up to `-u`: across `\` continuations, but not across a
// line end, nor across the marker of an earlier redaction (which a second
// redaction would see instead of the text it replaced), nor past the next
// `curl` (whose own hit scans from there: each character is scanned once).
const curlUser =
  /(?:[^\n\\[cC]|[cC](?![uU][rR][lL])|\[(?!REDACTED:)|\\\r?\n|\\[^\n]){0,2000}?[ \t](?:-u[ \t]*|--user(?:[ \t]+|=))/y
const endsArgument = (code: number, quote: number): boolean =>
  quote === 0 ? code <= 32 || code === 34 || code === 39 : code === quote || code === 10

/**
 * `.npmrc` credentials: `_authToken`, `_auth` and `_password`, global or
 * scoped to a registry (`//registry.npmjs.org/:_authToken=…`), whatever
 * the token looks like.
 *
 * @since 0.3.0
 * @category rules
 */
export const npmrcAuth: Detector.Detector = {
  id: "npmrc-auth",
  triggers: [Detector.keyword("auth", "pass")],
  before: 3,
  after: 2_040,
  verify: (context, hit) => {
    const text = context.text
    if (hit.start < 1 || Detector.codeAt(context, hit.start - 1) !== 95) return undefined
    const before = hit.start - 2
    if (before >= 0) {
      const code = Detector.codeAt(context, before)
      if (code !== 58 && Detector.isWordChar(code) && !Detector.isEscapedWhitespace(context, before)) return undefined
    }
    const from = hit.start + 4
    const rest = Detector.startsWithCaseless(text, hit.start, "auth") ? npmrcAuthValue : npmrcPasswordValue
    const match = Detector.matchAt(rest, text, from)
    if (match === null || isPlaceholder(match[1]!) || isPlaceholderToken(match[1]!)) return undefined
    const end = from + match[0].length
    return named(context, end - match[1]!.length, end)
  }
}
const npmrcAuthValue = /(?:token)?[ \t]{0,5}=[ \t]{0,5}["']?([^\s"']{1,2000})/iy
const npmrcPasswordValue = /word[ \t]{0,5}=[ \t]{0,5}["']?([^\s"']{1,2000})/iy

/**
 * Qualifiers that make a `…key` a secret (`api_key`, `secretKey`,
 * `signing-key`); a bare `key` or a `cache_key` is not one.
 */
const keyQualifiers = [
  "api",
  "access",
  "private",
  "secret",
  "signing",
  "sign",
  "encryption",
  "decryption",
  "crypt",
  "master",
  "client",
  "account",
  "auth",
  "app",
  "service",
  "license",
  "webhook",
  "session",
  "jwt",
  "hmac",
  "shared",
  "consumer",
  "subscription",
  "storage",
  "admin",
  "deploy"
]

/**
 * Words that may be glued before the other keywords in one identifier
 * (`apitoken`, `AUTHTOKEN`, `dbpassword`, `PGPASSWORD`, `clientsecret`,
 * `oauth`); any other word glued before one makes another word
 * (`jsonwebtoken`, `bypass`, `compass`).
 */
const gluedQualifiers = [
  ...keyQualifiers,
  "refresh",
  "bearer",
  "bot",
  "user",
  "db",
  "root",
  "my",
  "new",
  "old",
  "current",
  "confirm",
  "mysql",
  "postgres",
  "pg",
  "redis",
  "smtp",
  "mail",
  "ftp",
  "ldap",
  "login",
  "keystore",
  "truststore",
  "store",
  "key",
  "proxy",
  "sudo",
  "bind",
  "default",
  "initial",
  "sql",
  "wifi",
  "csrf",
  "xsrf",
  "github",
  "gitlab",
  "slack",
  "npm",
  "personal",
  "otp",
  "totp",
  "aws",
  "id"
]

/** What may continue a keyword in the same word: `password`, `passwd`, `passphrase`, `tokens` — not `passenger`, `tokenizer`, `authors`. */
const continuations: Readonly<Record<string, ReadonlyArray<string>>> = {
  pass: ["word", "words", "wd", "phrase", "code"],
  token: ["s"],
  secret: ["s"],
  key: ["s"],
  auth: [],
  pwd: []
}

/** Key suffixes that name metadata about a secret rather than the secret. */
const metadataSuffixes = [
  "id",
  "ids",
  "name",
  "names",
  "path",
  "paths",
  "file",
  "files",
  "dir",
  "url",
  "uri",
  "endpoint",
  "host",
  "type",
  "kind",
  "count",
  "length",
  "len",
  "size",
  "ttl",
  "expiry",
  "expires",
  "expiresat",
  "expiresin",
  "expiration",
  "timeout",
  "version",
  "ref",
  "arn",
  "policy",
  "header",
  "prefix",
  "format",
  "mode",
  "enabled",
  "required",
  "env",
  "hint",
  "field",
  "label",
  "description",
  "location",
  "provider",
  "manager",
  "store",
  "rotation",
  "created",
  "updated",
  "at",
  "limit",
  "used",
  "usage",
  "source",
  "strategy",
  "method",
  "scope",
  "scopes",
  "bucket",
  "status",
  "algorithm",
  "algorithms",
  "algo",
  "alg",
  "cachekey",
  "length",
  "regex",
  "pattern",
  "policy",
  "rules",
  "reset",
  "changed"
]

const metadataWords = new Set(metadataSuffixes)
const metadataLengths = [...new Set(metadataSuffixes.map((word) => word.length))]

const isMetadata = (suffix: string): boolean => {
  if (suffix.length < 2) return false
  const bare = suffix.toLowerCase().replace(/[_.-]/g, "")
  for (const length of metadataLengths) {
    if (length <= bare.length && metadataWords.has(bare.slice(bare.length - length))) return true
  }
  return false
}

const isLower = (code: number): boolean => code >= 97 && code <= 122
const isUpper = (code: number): boolean => code >= 65 && code <= 90

/** The letters just before `end` (at most 20, none before the previous finding), lower-cased. */
const lettersBefore = (context: Detector.Context, end: number): string => {
  let start = end
  while (start > context.floor && end - start < 20 && isLetter(context.text.charCodeAt(start - 1))) start--
  if (start < end && Detector.isEscapedWhitespace(context, start)) start++
  return context.text.slice(start, end).toLowerCase()
}

const qualifiesKey = (context: Detector.Context, keyStart: number): boolean => {
  let end = keyStart
  const separator = Detector.codeAt(context, end - 1)
  if (separator === 95 || separator === 45) end--
  const word = lettersBefore(context, end)
  return word.length > 0 && keyQualifiers.some((q) => word.endsWith(q))
}

/**
 * Whether the keyword at the hit starts a part of an identifier: after a
 * separator, at a camel-case part (`apiToken`, `APIToken`), or after a
 * word that qualifies it (`apikey`, `AUTHTOKEN`). `key` always needs a
 * qualifier: a bare `key` or a `cache_key` names no secret.
 */
const startsPart = (context: Detector.Context, hit: Detector.Hit, keyword: string): boolean => {
  if (keyword === "key") return qualifiesKey(context, hit.start)
  if (hit.start <= context.floor) return true
  const text = context.text
  const before = Detector.codeAt(context, hit.start - 1)
  if (!isLetter(before) || Detector.isEscapedWhitespace(context, hit.start - 1)) return true
  const first = text.charCodeAt(hit.start)
  if (isUpper(first) && (isLower(before) || isLower(text.charCodeAt(hit.start + 1)))) return true
  const word = lettersBefore(context, hit.start)
  return word === "o" || gluedQualifiers.some((q) => word.endsWith(q))
}

/** Whether the keyword ends a part: what follows is no letter, starts a camel-case part, or is one of its {@link continuations}. */
const endsPart = (text: string, hit: Detector.Hit, keyword: string): boolean => {
  const next = text.charCodeAt(hit.end)
  if (!isLetter(next)) return true
  if (isUpper(next) && isLower(text.charCodeAt(hit.end - 1))) return true
  let end = hit.end
  while (end < text.length && end - hit.end < 8 && isLetter(text.charCodeAt(end))) {
    if (end > hit.end && isUpper(text.charCodeAt(end)) && isLower(text.charCodeAt(end - 1))) break
    end++
  }
  if (isLetter(text.charCodeAt(end)) && !(isUpper(text.charCodeAt(end)) && isLower(text.charCodeAt(end - 1)))) {
    return false
  }
  const rest = text.slice(hit.end, end).toLowerCase()
  return (continuations[keyword] ?? []).includes(rest)
}

const isKeyChar = (code: number): boolean => Detector.isWordChar(code) || code === 45 || code === 46

/** How far back the identifier of a key is read. */
const keyReach = 40

/**
 * Where the identifier that holds the keyword starts, or -1 when it is a
 * part of a path or a URL (`/auth/callback`, `https://x/tokens/…`) or of
 * an email address or host (`x@token.io`).
 */
const keyStart = (context: Detector.Context, at: number): number => {
  const text = context.text
  let start = at
  while (
    start > context.floor && at - start < keyReach && isKeyChar(text.charCodeAt(start - 1)) &&
    !Detector.isEscapedWhitespace(context, start - 1)
  ) {
    start--
  }
  if (start <= context.floor) return start
  const outside = text.charCodeAt(start - 1)
  if (outside === 47 || outside === 92) return -1
  if (outside === 64 && start >= 2 && isKeyChar(Detector.codeAt(context, start - 2))) return -1
  return start
}

// Between the key and its value: a type (`var apiToken string =`, `val
// apiKey: String =`), the operator (`=`, `:`, `:=`, `::=`, `?=`, `+=`,
// `.=`, `=>`; `,` after a quoted key as in `setProperty("KEY", "…")`;
// `value=` after a quoted attribute as in `<add key="ApiKey" value="…"/>`)
// and spaces. `==` compares.
const operatorShape =
  /(?:[ \t]{1,3}(?:string|String|str|\[\]byte|var)(?=[ \t]{0,3}=)|[ \t]{0,3}:[ \t]{0,3}[A-Za-z_][A-Za-z0-9_.<>[\]|?]{0,40}(?=[ \t]{1,3}=[ \t]))?[ \t]{0,5}(::=|:=|\?=|\+=|\.=|=>|=(?!=)|:(?!:)|,|value[ \t]{0,3}=|>)[ \t]{0,5}/y

/**
 * Whether {@link operatorShape} can match at `at`, at the cost of a few
 * loads: past at most five spaces or tabs (the most it allows before its
 * type or its sign), every match has a sign or starts a type there. Most
 * keywords in logs and code are followed by neither, and skip the
 * expression.
 */
const mayOperate = (text: string, at: number): boolean => {
  let i = at
  while (i < at + 5 && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++
  const code = text.charCodeAt(i)
  // `:` `=` `,` `>` `?` `+` `.`, and `value=`, `string`, `String`, `str`, `[]byte`, `var`.
  return code === 58 || code === 61 || code === 44 || code === 62 || code === 63 || code === 43 || code === 46 ||
    code === 118 || code === 115 || code === 83 || code === 91
}

/** Longer values are cut there: the rest of a runaway value is not worth a window that long. */
const maxValue = 1_000

// A value ends at a space, a quote, a bracket or a separator of fields
// (`,` `;` `&` `|`), never at `=`: `private-key: sqH0…==9x0v=Le2U…` is
// one value, judged whole.
const isValueChar = (code: number): boolean =>
  code > 32 && code !== 34 && code !== 39 && code !== 96 && code !== 44 && code !== 59 && code !== 38 &&
  code !== 60 && code !== 62 && code !== 40 && code !== 41 && code !== 91 && code !== 93 && code !== 123 &&
  code !== 125 && code !== 92 && code !== 124

/**
 * How far into `value` no other rule can start a finding: up to the first
 * space, non-ASCII character, or character a secret or an address commonly
 * follows (`@ : ; , | [ ( " ' \``).
 */
const plainRun = (value: string): number => {
  let i = 0
  while (i < value.length) {
    const code = value.charCodeAt(i)
    if (code <= 32 || code >= 0x80 || afterWhich.includes(code)) break
    i++
  }
  return i
}
const afterWhich = [...`@:;,|[("'\``].map((ch) => ch.charCodeAt(0))

const assignmentKeywords = ["pass", "pwd", "secret", "token", "key", "auth", "identified by", "mysql"]

/**
 * The keyword of a hit, lower case: one of `keywords` without a copy of
 * the text (most hits are), else the hit's text (a longer keyword of
 * another rule's that starts with one of them).
 */
const keywordOf = (text: string, hit: Detector.Hit, keywords: ReadonlyArray<string>): string => {
  const length = hit.end - hit.start
  for (const keyword of keywords) {
    if (keyword.length === length && Detector.startsWithCaseless(text, hit.start, keyword)) return keyword
  }
  return text.slice(hit.start, hit.end).toLowerCase()
}

/**
 * Generic assignments: a key named like a password, secret, token, API or
 * private key, or auth, assigned a value that looks random
 * ({@link looksRandom}), in the syntaxes of env files, shells and command
 * lines (`--password v`), JSON (escaped too), YAML, TOML, INI, XML
 * (`<apiToken>v</apiToken>`, `<add key="ApiKey" value="v"/>`), HCL,
 * Makefiles (`?=`, `::=`), Go (`var apiToken string = "v"`), Java
 * (`setProperty("API_TOKEN", "v")`), PHP (`$apiToken .= "v"`), Ruby,
 * Python, JS, SQL (`PASSWORD 'v'`, `IDENTIFIED BY 'v'`), HTTP headers and
 * connection strings. The key must name the secret as a word or a part of
 * an identifier, outside paths and URLs. References (`process.env.X`,
 * `os.getenv("X")`, `${VAR}`, ARNs), code (calls, member chains, variable
 * names), paths, versions and placeholders pass.
 *
 * @since 0.3.0
 * @category rules
 */
export const secretAssignment: Detector.Detector = {
  id: "secret-assignment",
  triggers: [Detector.keyword(...assignmentKeywords)],
  before: keyReach + 24,
  after: 1_200,
  verify: (context, hit) => {
    const text = context.text
    const keyword = keywordOf(text, hit, assignmentKeywords)
    let from: number
    let quoted = false
    let xml = false
    if (keyword === "mysql") return mysqlPassword(context, hit)
    if (keyword === "identified by") {
      const gap = Detector.matchAt(sqlGap, text, hit.end)
      if (gap === null) return undefined
      from = hit.end + gap[0].length
    } else {
      if (!startsPart(context, hit, keyword) || !endsPart(text, hit, keyword)) return undefined
      const start = keyStart(context, hit.start)
      if (start < 0) return undefined
      let end = hit.end
      while (end < text.length && end - hit.end < keyReach && isKeyChar(text.charCodeAt(end))) end++
      const keyEnd = end
      const opening = Detector.codeAt(context, start - 1)
      // A closing quote (escaped inside a JSON string) and bracket: `"key":`, `ENV['KEY'] =`.
      if (text.charCodeAt(end) === 92 && isQuote(text.charCodeAt(end + 1))) end++
      if (isQuote(text.charCodeAt(end))) {
        quoted = true
        end++
      }
      if (text.charCodeAt(end) === 93) end++
      const op = mayOperate(text, end) ? Detector.matchAt(operatorShape, text, end) : null
      if (op !== null) {
        const sign = op[1]!
        // `arn:aws:…:secret:prod/db`: a part of a colon-separated address, not a key.
        if (opening === 58 && op[0] === ":") return undefined
        if (sign === ">") {
          // `<apiToken>v</…>`, or `key="password">v</…>`.
          if (!(opening === 60 || (quoted && Detector.codeAt(context, start - 2) === 61))) return undefined
          xml = true
        } else if (sign === "," && !quoted) {
          return undefined
        } else if (sign.startsWith("value") && !(quoted && namesAttribute(context, start - 1, keyword))) {
          return undefined
        }
        from = end + op[0].length
      } else {
        // `--password v`, and SQL's `PASSWORD 'v'`: nothing else, whatever follows.
        const flag = text.charCodeAt(start) === 45
        if (!flag && keyword !== "pass") return undefined
        const gap = Detector.matchAt(flagGap, text, end)
        if (gap === null) return undefined
        from = end + gap[0].length
        if (!(flag && text.charCodeAt(from) !== 45) && !(keyword === "pass" && text.charCodeAt(from) === 39)) {
          return undefined
        }
      }
      // After the operator, which rules out most hits at less cost.
      if (isMetadata(text.slice(hit.end, keyEnd))) return undefined
    }
    let start = from
    let end = from
    const limit = Math.min(text.length, from + maxValue + 1)
    let quote = text.charCodeAt(start)
    const escaped = !xml && quote === 92 && isQuote(text.charCodeAt(start + 1))
    if (escaped) quote = text.charCodeAt(++start)
    if (!xml && isQuote(quote)) {
      end = ++start
      for (;;) {
        if (end >= limit) return undefined
        const code = text.charCodeAt(end)
        if (code === 10) return undefined
        if (code === 92) {
          if (escaped && text.charCodeAt(end + 1) === quote) break
          end += 2
        } else if (code === quote && !escaped) {
          break
        } else {
          end++
        }
      }
    } else if (xml) {
      while (end < limit && text.charCodeAt(end) !== 60 && text.charCodeAt(end) !== 10) end++
      if (text.charCodeAt(end) !== 60) return undefined
      while (start < end && text.charCodeAt(start) <= 32) start++
      while (end > start && text.charCodeAt(end - 1) <= 32) end--
    } else if (escaped) {
      return undefined
    } else {
      while (end < limit && isValueChar(text.charCodeAt(end))) end++
      // A call or an index (`Config.get(…)`, `ENV["X"]`) is code.
      const next = text.charCodeAt(end)
      if (next === 40 || next === 91 || cutByMarker(text, end)) return undefined
    }
    if (end - start < 8) return undefined
    const value = text.slice(start, end)
    // `"FlyV1 fm2_…"`, `"Bearer …"`: the token after the space is for its own rule to name.
    const space = value.indexOf(" ")
    if (space > 0 && space < 24 && context.classify(start + space + 1) !== undefined) return undefined
    if (isInnocent(value) || isReference(value) || isPlaceholderToken(value) || !looksRandom(value)) {
      // The hits inside a value judged whole hold nothing either (`pass=pass=…`), but
      // those in a URL's query do. Only up to the first character another rule may
      // start a finding at (`@` of an email, a non-ASCII or other separator): once that
      // finding is a marker, the value ends there, and the hits after it are judged
      // on their own, so they must be now, or redacting twice would differ.
      if (!value.includes("?") && !value.includes("://")) context.skip(start + plainRun(value))
      return undefined
    }
    return named(context, start, end)
  }
}
/**
 * Whether the quoted key that opens at `quote` is the value of a `key=`
 * attribute (`<add key="ApiKey" value="…"/>`), or of a `name=` attribute
 * naming a password or secret (`<param name="password" value="…"/>`). A
 * form field's `name="authenticity_token"` is not a configuration entry.
 */
const namesAttribute = (context: Detector.Context, quote: number, keyword: string): boolean => {
  if (Detector.codeAt(context, quote - 1) !== 61) return false
  const word = lettersBefore(context, quote - 1)
  return word === "key" || (word === "name" && (keyword === "pass" || keyword === "secret"))
}
/**
 * The password of `mysql -pSECRET` (and `mysqldump`, `mysqladmin`): glued
 * to `-p`, quoted or not, on the command line that follows. `-p` alone
 * prompts for it; `-P` is the port.
 */
const mysqlPassword = (context: Detector.Context, hit: Detector.Hit): Detector.Span | undefined => {
  const text = context.text
  const match = Detector.matchAt(mysqlFlag, text, hit.end)
  if (match === null) return undefined
  let start = hit.end + match[0].length
  let quote = text.charCodeAt(start)
  if (quote === 34 || quote === 39) start++
  else quote = 0
  let end = start
  const limit = Math.min(text.length, start + 256)
  while (end < limit && !endsArgument(text.charCodeAt(end), quote)) end++
  if (end === start || (quote !== 0 && text.charCodeAt(end) !== quote)) return undefined
  const password = text.slice(start, end)
  if (isInnocent(password) || password.startsWith("$") || isPlaceholderToken(password) || isReference(password)) {
    return undefined
  }
  return named(context, start, end)
}
// The rest of the command's name (`dump`, `admin`), then its arguments up to
// ` -p` on the same line, not across an earlier marker nor past another `mysql`.
const mysqlFlag = /[a-z]{0,10}(?=[ \t])(?:[^\n[mM]|[mM](?![yY][sS][qQ][lL])|\[(?!REDACTED:)){0,300}?[ \t]-p(?=[^\s-])/y

const isQuote = (code: number): boolean => code === 34 || code === 39 || code === 96
const sqlGap = /[ \t]{1,3}(?=["'])/y
const flagGap = /[ \t]{1,3}/y

/**
 * The default catalogue, most specific first: when several rules could
 * explain the same text, the first one names it.
 *
 * @since 0.3.0
 * @category rules
 */
export const catalogue: ReadonlyArray<Detector.Detector> = [
  privateKey,
  awsAccessKeyId,
  githubToken,
  gitlabToken,
  anthropicKey,
  openaiKey,
  slackToken,
  stripeKey,
  googleApiKey,
  googleOauthSecret,
  npmToken,
  huggingfaceToken,
  jwt,
  azureClientSecret,
  sendgridKey,
  twilioKey,
  vaultToken,
  digitaloceanToken,
  databricksToken,
  ...DeveloperTokens.rules,
  ...CloudTokens.rules,
  ...ServiceTokens.rules,
  slackWebhook,
  urlCredentials,
  awsSecretAccessKey,
  gcpServiceAccount,
  npmrcAuth,
  authorizationHeader,
  curlCredentials,
  secretAssignment
]

/**
 * Credentials of commerce, payment, messaging, social, marketing and other
 * SaaS services.
 *
 * Formats with a documented prefix (`shpat_`, `xkeysib-`, `sq0csp-`,
 * `FLWSECK-`…) are token rules and need no context. Formats without one (a
 * Twilio auth token is 32 hex digits, a Zendesk token 40 letters and
 * digits) are keyed: they count only when assigned to a key that names the
 * service (`TWILIO_AUTH_TOKEN=…`, `"zendeskToken": "…"`). A few formats
 * are recognised by a rare part in their middle (the `-us` of a Mailchimp
 * key, the `:A` of a Telegram bot token) or by the URL they sit in
 * (Discord and Teams webhooks), and only the credential part of the URL is
 * removed.
 *
 * Prefixes that are ordinary words or very short (`key-`, `live_`, `pk_`,
 * `b_`) are guarded by exact lengths and alphabets and by bodies that must
 * mix letters and digits, so identifiers and file names that share them
 * stay.
 *
 * This module is a catalogue of data, one rule per format: it is past the
 * house's ~600 lines because its length grows with the formats it lists,
 * not with what it does.
 *
 * @since 0.3.0
 */
import * as Detector from "./Detector.js"
import type { TokenOptions } from "./TokenRule.js"
import { keyed, token } from "./TokenRule.js"

// ---------------------------------------------------------------------------
// value checks
// ---------------------------------------------------------------------------

const distinct = (value: string): number => new Set(value).size

/** A random value: not a run of a few characters (`xxxx`, `0000`, `abab`). */
const varied = (value: string): boolean => distinct(value) >= Math.min(8, Math.ceil(value.length / 3))

/** Random and mixing letters with digits: what a generated key looks like, unlike an identifier or a word. */
const generated = (value: string): boolean => varied(value) && /[0-9]/.test(value) && /[A-Za-z]/.test(value)

/**
 * Snake or kebab case made of words (`stream_config_for_the_main_cam_v2`):
 * an identifier, not a token. A random body has a separator about once in
 * thirty characters, and digits in most of its parts.
 */
const wordy = (value: string): boolean => {
  const parts = value.split(/[_-]/)
  return parts.length >= 4 && parts.filter((part) => /^[A-Za-z]*$/.test(part)).length * 2 > parts.length
}

/**
 * A value assigned to a key that names the service and a credential: random
 * enough, with a digit or many distinct letters (a generated value of 16
 * lower-case letters and digits has no digit about once in two hundred).
 */
const random = (value: string): boolean => varied(value) && (/[0-9]/.test(value) || distinct(value) >= 10)

/** The body after a prefix of `length` characters is {@link generated}. */
const generatedAfter = (length: number) => (value: string): boolean => generated(value.slice(length))

/** The body after a prefix of `length` characters is {@link varied}. */
const variedAfter = (length: number) => (value: string): boolean => varied(value.slice(length))

/**
 * A token whose body stands for one: a mask (`xxxx`, `####`, `****`) or a
 * documentation example (`EXAMPLE`, `your_token_here`).
 */
const masked = (value: string): boolean =>
  /([xX#*\u2022])\1{3}/.test(value) || /example|your_?(?:api_?)?(?:token|key|secret)|placeholder/i.test(value)

/** A token rule that leaves masks and documentation examples. */
const vendor = (options: TokenOptions): Detector.Detector =>
  token({ ...options, accept: (value) => !masked(value) && (options.accept === undefined || options.accept(value)) })

interface KeyedSpec {
  readonly id: string
  readonly keywords: ReadonlyArray<string>
  readonly value: RegExp
  readonly maxLength: number
  readonly accept?: ((value: string) => boolean) | undefined
}

const service = (spec: KeyedSpec): Detector.Detector => keyed({ accept: varied, ...spec })

// ---------------------------------------------------------------------------
// commerce
// ---------------------------------------------------------------------------

/**
 * Shopify admin access (`shpat_`), custom app (`shpca_`), private app
 * (`shppa_`) tokens and app shared secrets (`shpss_`): the prefix and 32
 * hex digits.
 *
 * @since 0.3.0
 * @category rules
 */
export const shopifyToken = vendor({
  id: "shopify-token",
  prefixes: ["shpat_", "shpca_", "shppa_", "shpss_"],
  body: /shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![A-Za-z0-9_])/y,
  maxLength: 39,
  accept: variedAfter(6)
})

/**
 * WooCommerce REST API consumer keys (`ck_`) and secrets (`cs_`): the
 * prefix and 40 hex digits.
 *
 * @since 0.3.0
 * @category rules
 */
export const woocommerceKey = vendor({
  id: "woocommerce-key",
  prefixes: ["ck_", "cs_"],
  body: /c[ks]_[a-f0-9]{40}(?![A-Za-z0-9_-])/y,
  maxLength: 44,
  accept: generatedAfter(3)
})

/**
 * Etsy API keys and access tokens: 24 letters and digits assigned to a key
 * that names Etsy.
 *
 * @since 0.3.0
 * @category rules
 */
export const etsyToken = service({
  id: "etsy-access-token",
  keywords: ["etsy"],
  value: /[A-Za-z0-9]{24}(?![\w%+/=.-])/y,
  maxLength: 25,
  accept: random
})

/**
 * Squarespace API keys: a UUID assigned to a key that names Squarespace.
 *
 * @since 0.3.0
 * @category rules
 */
export const squarespaceToken = service({
  id: "squarespace-access-token",
  keywords: ["squarespace"],
  value: /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![\w%+/=.-])/y,
  maxLength: 37
})

// ---------------------------------------------------------------------------
// payments
// ---------------------------------------------------------------------------

/**
 * Square access tokens (`sq0atp-`, and the current `EAAA` tokens of 64
 * characters). A Facebook token can start with `EAAA` too, but it is
 * letters and digits only and at least 90 characters long, so the two
 * never match the same text.
 *
 * @since 0.3.0
 * @category rules
 */
export const squareAccessToken = vendor({
  id: "square-access-token",
  prefixes: ["sq0atp-", "EAAA"],
  body: /(?:sq0atp-|EAAA)[A-Za-z0-9_-]{22,60}(?![A-Za-z0-9_-])/y,
  maxLength: 68,
  accept: (value) => generated(value.slice(value.startsWith("E") ? 4 : 7))
})

/**
 * Square OAuth application secrets (`sq0csp-` and 43 characters).
 *
 * @since 0.3.0
 * @category rules
 */
export const squareSecret = vendor({
  id: "square-secret",
  prefixes: ["sq0csp-"],
  body: /sq0csp-[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/y,
  maxLength: 51,
  accept: variedAfter(7)
})

/**
 * PayPal Braintree access tokens
 * (`access_token$production$<merchant>$<32 hex>`, sandbox too).
 *
 * @since 0.3.0
 * @category rules
 */
export const braintreeToken = vendor({
  id: "braintree-access-token",
  prefixes: ["access_token$"],
  body: /access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}(?![A-Za-z0-9_])/y,
  maxLength: 75,
  accept: (value) => varied(value.slice(-32))
})

/**
 * GoCardless access tokens: `live_` or `sandbox_` and 40 characters that
 * mix letters and digits.
 *
 * @since 0.3.0
 * @category rules
 */
export const gocardlessToken = vendor({
  id: "gocardless-api-token",
  prefixes: ["live_", "sandbox_"],
  body: /(?:live|sandbox)_[A-Za-z0-9_=-]{40}(?![A-Za-z0-9_=-])/y,
  maxLength: 49,
  accept: (value) => {
    const body = value.slice(value.indexOf("_") + 1)
    return generated(body) && !wordy(body)
  }
})

/**
 * Flutterwave secret and public keys (`FLWSECK-`, `FLWPUBK-`, and their
 * `_TEST` forms: 32 characters and `-X`) and encryption keys
 * (`FLWSECK_TEST` and 12 hex digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const flutterwaveKey = vendor({
  id: "flutterwave-key",
  prefixes: ["FLWSECK", "FLWPUBK"],
  body: /FLW(?:(?:SEC|PUB)K(?:_TEST)?-[A-Za-z0-9]{32}-X|SECK(?:_TEST)?-?[a-fA-F0-9]{12})(?![A-Za-z0-9_-])/y,
  maxLength: 49,
  accept: (value) => varied(value.slice(value.indexOf("-") + 1))
})

/**
 * Plaid access tokens (`access-sandbox-`, `access-development-`,
 * `access-production-` and a UUID).
 *
 * @since 0.3.0
 * @category rules
 */
export const plaidAccessToken = vendor({
  id: "plaid-access-token",
  prefixes: ["access-sandbox-", "access-development-", "access-production-"],
  body:
    /access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![A-Za-z0-9_-])/y,
  maxLength: 55,
  accept: (value) => varied(value.slice(-36))
})

/**
 * Plaid client secrets: 30 letters and digits assigned to a key that names
 * Plaid.
 *
 * @since 0.3.0
 * @category rules
 */
export const plaidSecret = service({
  id: "plaid-secret",
  keywords: ["plaid"],
  value: /[A-Za-z0-9]{30}(?![\w%+/=.-])/y,
  maxLength: 31,
  accept: random
})

/**
 * Razorpay key secrets (24 letters and digits) assigned to a key that
 * names Razorpay. The `rzp_live_`/`rzp_test_` key ids are not secret.
 *
 * @since 0.3.0
 * @category rules
 */
export const razorpaySecret = service({
  id: "razorpay-key-secret",
  keywords: ["razorpay"],
  value: /[A-Za-z0-9]{24}(?![\w%+/=.-])/y,
  maxLength: 25,
  accept: random
})

/**
 * Twilio auth tokens: 32 hex digits assigned to a key that names Twilio.
 * API key SIDs (`SK…`) are the `twilio-api-key` rule; account SIDs
 * (`AC…`) are not secret.
 *
 * @since 0.3.0
 * @category rules
 */
export const twilioAuthToken = service({
  id: "twilio-auth-token",
  keywords: ["twilio"],
  value: /[a-fA-F0-9]{32}(?![\w%+/=.-])/y,
  maxLength: 33
})

/**
 * Coinbase API secrets (64 characters) and CDP API private keys (base64
 * Ed25519 keys, 88 characters) assigned to a key that names Coinbase. CDP
 * keys in PEM form are removed by the `private-key` rule; the key name
 * (`organizations/…/apiKeys/…`) is not secret.
 *
 * @since 0.3.0
 * @category rules
 */
export const coinbaseToken = service({
  id: "coinbase-access-token",
  keywords: ["coinbase"],
  value: /(?:[A-Za-z0-9_-]{64}|[A-Za-z0-9+/]{86}={0,2})(?![\w%+/=.-])/y,
  maxLength: 89
})

/**
 * Kraken API private keys (80 to 90 base64 characters) assigned to a key
 * that names Kraken.
 *
 * @since 0.3.0
 * @category rules
 */
export const krakenToken = service({
  id: "kraken-access-token",
  keywords: ["kraken"],
  value: /[A-Za-z0-9/=_+-]{80,90}(?![\w%+/=.-])/y,
  maxLength: 91
})

/**
 * KuCoin API keys (24 hex digits) and secrets (a UUID) assigned to a key
 * that names KuCoin.
 *
 * @since 0.3.0
 * @category rules
 */
export const kucoinToken = service({
  id: "kucoin-api-key",
  keywords: ["kucoin"],
  value: /(?:[a-f0-9]{24}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![\w%+/=.-])/y,
  maxLength: 37
})

/**
 * Bittrex API keys and secrets: 32 letters and digits assigned to a key
 * that names Bittrex.
 *
 * @since 0.3.0
 * @category rules
 */
export const bittrexKey = service({
  id: "bittrex-api-key",
  keywords: ["bittrex"],
  value: /[A-Za-z0-9]{32}(?![\w%+/=.-])/y,
  maxLength: 33,
  accept: random
})

/**
 * Finicity app keys (32 hex digits) and partner secrets (20 letters and
 * digits) assigned to a key that names Finicity.
 *
 * @since 0.3.0
 * @category rules
 */
export const finicityToken = service({
  id: "finicity-api-token",
  keywords: ["finicity"],
  value: /(?:[a-f0-9]{32}|[A-Za-z0-9]{20})(?![\w%+/=.-])/y,
  maxLength: 33,
  accept: random
})

/**
 * Finnhub API keys: 20 letters and digits assigned to a key that names
 * Finnhub.
 *
 * @since 0.3.0
 * @category rules
 */
export const finnhubToken = service({
  id: "finnhub-access-token",
  keywords: ["finnhub"],
  value: /[A-Za-z0-9]{20}(?![\w%+/=.-])/y,
  maxLength: 21,
  accept: random
})

/**
 * FreshBooks access tokens: 64 letters and digits assigned to a key that
 * names FreshBooks.
 *
 * @since 0.3.0
 * @category rules
 */
export const freshbooksToken = service({
  id: "freshbooks-access-token",
  keywords: ["freshbooks"],
  value: /[A-Za-z0-9]{64}(?![\w%+/=.-])/y,
  maxLength: 65,
  accept: random
})

/**
 * Freemius SDK secret keys (`sk_` and 29 characters) in the
 * `'secret_key' => 'sk_…'` entry of the PHP SDK's configuration array.
 *
 * @since 0.3.0
 * @category rules
 */
export const freemiusSecretKey: Detector.Detector = {
  id: "freemius-secret-key",
  triggers: [Detector.prefix("sk_")],
  before: 40,
  after: 34,
  verify: (context, hit) => {
    const text = context.text
    const from = Math.max(context.floor, hit.start - 40)
    if (!freemiusEntry.test(text.slice(from, hit.start))) return undefined
    const match = Detector.matchAt(freemiusKey, text, hit.start)
    if (match === null || !varied(match[0])) return undefined
    return { start: hit.start, end: hit.start + match[0].length - 1 }
  }
}
const freemiusEntry = /["']secret_key["'][ \t]{0,5}=>[ \t]{0,5}["']$/
const freemiusKey = /sk_[\x21-\x26\x28-\x7e]{29}["']/y

// ---------------------------------------------------------------------------
// shipping and travel
// ---------------------------------------------------------------------------

/**
 * Lob secret and publishable API keys: `live_`/`test_` and 35 hex digits,
 * `live_pub_`/`test_pub_` and 31.
 *
 * @since 0.3.0
 * @category rules
 */
export const lobKey = vendor({
  id: "lob-api-key",
  prefixes: ["live_", "test_"],
  body: /(?:live|test)_(?:pub_[a-f0-9]{31}|[a-f0-9]{35})(?![A-Za-z0-9_-])/y,
  maxLength: 41,
  accept: (value) => generated(value.slice(-31))
})

/**
 * EasyPost production (`EZAK`) and test (`EZTK`) API keys: the prefix and
 * 54 letters and digits, not inside a run of base64.
 *
 * @since 0.3.0
 * @category rules
 */
export const easypostKey: Detector.Detector = {
  id: "easypost-api-key",
  triggers: [Detector.prefix("EZAK", "EZTK")],
  before: 3,
  after: 60,
  verify: (context, hit) => {
    const text = context.text
    if (!Detector.startsToken(context, hit.start)) return undefined
    const previous = hit.start > context.floor ? text.charCodeAt(hit.start - 1) : 32
    if (previous === 43 || previous === 47) return undefined
    const match = Detector.matchAt(easypost, text, hit.start)
    if (match === null || !generated(match[0].slice(4))) return undefined
    return { start: hit.start, end: hit.start + match[0].length }
  }
}
const easypost = /EZ[AT]K[A-Za-z0-9]{54}(?![A-Za-z0-9_+/=-])/y

/**
 * Shippo live and test API tokens (`shippo_live_`, `shippo_test_` and 40
 * hex digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const shippoToken = vendor({
  id: "shippo-api-token",
  prefixes: ["shippo_live_", "shippo_test_"],
  body: /shippo_(?:live|test)_[a-fA-F0-9]{40}(?![A-Za-z0-9_])/y,
  maxLength: 53,
  accept: variedAfter(12)
})

/**
 * Duffel live and test access tokens (`duffel_live_`, `duffel_test_` and
 * 43 characters).
 *
 * @since 0.3.0
 * @category rules
 */
export const duffelToken = vendor({
  id: "duffel-api-token",
  prefixes: ["duffel_live_", "duffel_test_"],
  body: /duffel_(?:live|test)_[A-Za-z0-9_=-]{43}(?![A-Za-z0-9_=-])/y,
  maxLength: 56,
  accept: variedAfter(12)
})

// ---------------------------------------------------------------------------
// email and marketing
// ---------------------------------------------------------------------------

/**
 * Mailgun private API keys (`key-` and 32 hex digits) and public
 * validation keys (`pubkey-` and 32). The body must mix letters and
 * digits: `key-` alone is an ordinary word.
 *
 * @since 0.3.0
 * @category rules
 */
export const mailgunKey = vendor({
  id: "mailgun-api-key",
  prefixes: ["key-", "pubkey-"],
  body: /(?:pub)?key-[a-f0-9]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 40,
  accept: (value) => generated(value.slice(-32))
})

/**
 * Mailgun webhook signing keys (32 hex digits, `-`, 8, `-`, 8) assigned to
 * a key that names Mailgun.
 *
 * @since 0.3.0
 * @category rules
 */
export const mailgunSigningKey = service({
  id: "mailgun-signing-key",
  keywords: ["mailgun"],
  value: /[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}(?![\w%+/=.-])/y,
  maxLength: 51,
  accept: (value) => varied(value.slice(0, 32))
})

const mailchimpShape = /[0-9a-f]{32}-us[0-9]{1,2}(?![A-Za-z0-9_-])/y

/**
 * Mailchimp API keys: 32 hex digits, `-us` and the data center number,
 * anywhere. The trigger is the rare `-us`; the key starts 32 characters
 * before it.
 *
 * @since 0.3.0
 * @category rules
 */
export const mailchimpKey: Detector.Detector = {
  id: "mailchimp-api-key",
  triggers: [Detector.literal("-us", "-us[0-9]{1,2}(?![A-Za-z0-9_-])")],
  before: 34,
  after: 7,
  verify: (context, hit) => {
    const start = hit.start - 32
    if (start < context.floor || !Detector.separatedBefore(context, start)) return undefined
    const match = Detector.matchAt(mailchimpShape, context.text, start)
    if (match === null || !varied(match[0].slice(0, 32))) return undefined
    return { start, end: start + match[0].length }
  }
}

/**
 * Mailchimp API keys assigned to a key that names Mailchimp: named so
 * before a generic rule on the same key (`MAILCHIMP_API_KEY`) can claim
 * them, which it would since the `-us` is too far from the key's start.
 *
 * @since 0.3.0
 * @category rules
 */
export const mailchimpKeyed = service({
  id: "mailchimp-api-key",
  keywords: ["mailchimp"],
  value: /[0-9a-f]{32}-us[0-9]{1,2}(?![\w%+/=.-])/y,
  maxLength: 37,
  accept: (value) => varied(value.slice(0, 32))
})

/**
 * Brevo (formerly Sendinblue) API keys (`xkeysib-`) and SMTP keys
 * (`xsmtpsib-`): 64 hex digits, `-` and 16 letters and digits.
 *
 * @since 0.3.0
 * @category rules
 */
export const brevoKey = vendor({
  id: "brevo-api-key",
  prefixes: ["xkeysib-", "xsmtpsib-"],
  body: /x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}(?![A-Za-z0-9_-])/y,
  maxLength: 91,
  accept: (value) => varied(value.slice(-81, -17))
})

/**
 * Klaviyo private API keys (`pk_` and 34 hex digits). Public keys (site
 * ids) are six characters and stay; Stripe's `pk_live_` keys are
 * publishable and stay too.
 *
 * @since 0.3.0
 * @category rules
 */
export const klaviyoKey = vendor({
  id: "klaviyo-private-key",
  prefixes: ["pk_"],
  body: /pk_[a-f0-9]{34}(?![A-Za-z0-9_-])/y,
  maxLength: 38,
  accept: generatedAfter(3)
})

/**
 * Postmark server and account tokens: a UUID assigned to a key that names
 * Postmark.
 *
 * @since 0.3.0
 * @category rules
 */
export const postmarkToken = service({
  id: "postmark-api-token",
  keywords: ["postmark"],
  value: /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![\w%+/=.-])/y,
  maxLength: 37
})

/**
 * Mailjet API keys and secret keys: 32 hex digits assigned to a key that
 * names Mailjet (`MJ_APIKEY_PRIVATE` included).
 *
 * @since 0.3.0
 * @category rules
 */
export const mailjetKey = service({
  id: "mailjet-api-key",
  keywords: ["mailjet", "mjapikey"],
  value: /[a-fA-F0-9]{32}(?![\w%+/=.-])/y,
  maxLength: 33
})

/**
 * Mandrill API keys: 22 characters (sometimes after `md-`) assigned to a
 * key that names Mandrill.
 *
 * @since 0.3.0
 * @category rules
 */
export const mandrillKey = service({
  id: "mandrill-api-key",
  keywords: ["mandrill"],
  value: /(?:md-)?[A-Za-z0-9_-]{22}(?![\w%+/=.-])/y,
  maxLength: 26
})

/**
 * Beamer API keys: `b_` and 44 characters that mix letters and digits.
 *
 * @since 0.3.0
 * @category rules
 */
export const beamerKey = vendor({
  id: "beamer-api-token",
  prefixes: ["b_"],
  body: /b_[A-Za-z0-9_=-]{44}(?![A-Za-z0-9_=-])/y,
  maxLength: 47,
  accept: (value) => generated(value.slice(2)) && distinct(value) >= 12 && !wordy(value.slice(2))
})

/**
 * Typeform personal access tokens (`tfp_` and about 59 characters).
 *
 * @since 0.3.0
 * @category rules
 */
export const typeformToken = vendor({
  id: "typeform-api-token",
  prefixes: ["tfp_"],
  body: /tfp_[A-Za-z0-9_.=-]{44,64}(?<!\.)/y,
  maxLength: 68,
  accept: variedAfter(4)
})

/**
 * Segment write keys and tokens: 32 letters and digits assigned to a key
 * that names Segment.
 *
 * @since 0.3.0
 * @category rules
 */
export const segmentKey = service({
  id: "segment-api-key",
  keywords: ["segment"],
  value: /[A-Za-z0-9]{32}(?![\w%+/=.-])/y,
  maxLength: 33,
  accept: (value) => generated(value) && /[A-Z]/.test(value) && /[a-z]/.test(value)
})

/**
 * Mixpanel project tokens and API or service account secrets: 32 letters
 * and digits assigned to a key that names Mixpanel.
 *
 * @since 0.3.0
 * @category rules
 */
export const mixpanelKey = service({
  id: "mixpanel-secret",
  keywords: ["mixpanel"],
  value: /[A-Za-z0-9]{32}(?![\w%+/=.-])/y,
  maxLength: 33,
  accept: random
})

/**
 * Amplitude API keys and secret keys: 32 hex digits assigned to a key that
 * names Amplitude.
 *
 * @since 0.3.0
 * @category rules
 */
export const amplitudeKey = service({
  id: "amplitude-api-key",
  keywords: ["amplitude"],
  value: /[a-fA-F0-9]{32}(?![\w%+/=.-])/y,
  maxLength: 33,
  accept: random
})

/**
 * HubSpot private app access tokens (`pat-na1-`, `pat-eu1-`… and a UUID).
 *
 * @since 0.3.0
 * @category rules
 */
export const hubspotToken = vendor({
  id: "hubspot-access-token",
  prefixes: ["pat-"],
  body: /pat-(?:na|eu|ap)[0-9]-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![A-Za-z0-9_-])/y,
  maxLength: 45,
  accept: (value) => varied(value.slice(-36))
})

/**
 * HubSpot legacy API keys (hapikeys): a UUID assigned to a key that names
 * HubSpot.
 *
 * @since 0.3.0
 * @category rules
 */
export const hubspotApiKey = service({
  id: "hubspot-api-key",
  keywords: ["hubspot"],
  value: /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![\w%+/=.-])/y,
  maxLength: 37
})

// ---------------------------------------------------------------------------
// messaging
// ---------------------------------------------------------------------------

// The dots the rules that start before a dot need to look at: the first
// dot of a Discord bot token, the dot before the hex of an Airtable token.
// One filter for both, so the two share one search and one filter test.

const discordBotShape = /[MNO][A-Za-z0-9_-]{22,26}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,38}(?![\w%+/=.-])/y

/**
 * Discord bot tokens: the base64 user id (`M`, `N` or `O` and 22 to 26
 * more), `.`, a 6 or 7 character timestamp, `.` and a 27 to 38 character
 * HMAC.
 *
 * @since 0.3.0
 * @category rules
 */
export const discordBotToken = token({
  id: "discord-bot-token",
  // A user id is a decimal number, so its base64 starts with `M`, `N` or
  // `O` and then `D`, `T`, `j` or `z`: rare pairs the trigger scan finds
  // without stopping at every dot of a log.
  prefixes: ["M", "N", "O"].flatMap((first) => ["D", "T", "j", "z"].map((second) => first + second)),
  body: discordBotShape,
  maxLength: 74,
  accept: (value) => distinct(value) >= 16
})

/**
 * Discord bot tokens assigned to a key that names Discord
 * (`DISCORD_TOKEN=…`): named so before a generic rule on the same key can
 * claim them.
 *
 * @since 0.3.0
 * @category rules
 */
export const discordBotTokenKeyed = service({
  id: "discord-bot-token",
  keywords: ["discord"],
  value: discordBotShape,
  maxLength: 74,
  accept: (value) => distinct(value) >= 16
})

/**
 * Discord client secrets (32 characters) and API keys (64 hex digits)
 * assigned to a key that names Discord.
 *
 * @since 0.3.0
 * @category rules
 */
export const discordClientSecret = service({
  id: "discord-client-secret",
  keywords: ["discord"],
  value: /(?:[a-f0-9]{64}|[A-Za-z0-9_=-]{32})(?![\w%+/=.-])/y,
  maxLength: 65
})

/**
 * Discord webhook URLs (`discord.com/api/webhooks/<id>/<token>`, also
 * `discordapp.com`, `ptb.`, `canary.` and versioned API paths): the token
 * is removed, the URL and the webhook id stay.
 *
 * @since 0.3.0
 * @category rules
 */
export const discordWebhook: Detector.Detector = {
  id: "discord-webhook",
  triggers: [Detector.prefix("discord.com/api/", "discordapp.com/api/")],
  before: 0,
  after: 160,
  verify: (context, hit) => {
    const match = Detector.matchAt(discordHook, context.text, hit.start)
    if (match === null || !varied(match[1]!)) return undefined
    const end = hit.start + match[0].length
    return { start: end - match[1]!.length, end }
  }
}
const discordHook =
  /discord(?:app)?\.com\/api\/(?:v[0-9]{1,2}\/)?webhooks\/[0-9]{17,20}\/([A-Za-z0-9_-]{60,100})(?![A-Za-z0-9_-])/y

/**
 * Telegram bot tokens: the bot id (5 to 16 digits), `:A` and 34
 * characters, also inside a Bot API URL (`/bot<token>/sendMessage`).
 *
 * @since 0.3.0
 * @category rules
 */
export const telegramBotToken: Detector.Detector = {
  id: "telegram-bot-token",
  triggers: [Detector.prefix(":A")],
  before: 24,
  after: 38,
  verify: (context, hit) => {
    const text = context.text
    let start = hit.start
    while (start > context.floor && hit.start - start < 17 && Detector.isDigit(text.charCodeAt(start - 1))) start--
    const digits = hit.start - start
    if (digits < 5 || digits > 16) return undefined
    const afterBot = start - 3 >= context.floor && text.startsWith("bot", start - 3) &&
      Detector.separatedBefore(context, start - 3)
    if (!afterBot && !Detector.separatedBefore(context, start)) return undefined
    const match = Detector.matchAt(telegram, text, hit.start)
    if (match === null) return undefined
    const body = match[0].slice(2)
    if (!varied(body) || !(/[0-9_-]/.test(body) || body.startsWith("A"))) return undefined
    return { start, end: hit.start + match[0].length }
  }
}
const telegram = /:A[A-Za-z0-9_-]{34}(?![A-Za-z0-9_-])/y

/**
 * Microsoft Teams incoming webhooks
 * (`….webhook.office.com/webhookb2/<group>@<tenant>/IncomingWebhook/<secret>/<creator>`,
 * and the older `outlook.office.com/webhook/…`): the secret and what
 * follows it are removed.
 *
 * @since 0.3.0
 * @category rules
 */
export const teamsWebhook: Detector.Detector = {
  id: "microsoft-teams-webhook",
  triggers: [Detector.prefix("/IncomingWebhook/")],
  before: 0,
  after: 180,
  verify: (context, hit) => {
    const match = Detector.matchAt(teamsHook, context.text, hit.start)
    if (match === null || !varied(match[1]!)) return undefined
    return { start: hit.start + 17, end: hit.start + match[0].length }
  }
}
const teamsHook =
  /\/IncomingWebhook\/([A-Za-z0-9]{32})\/[A-Za-z0-9]{8}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{12}(?:\/V2[A-Za-z0-9_-]{20,80})?/y

/**
 * Teams workflow webhooks and other Power Automate and Logic Apps HTTP
 * triggers (`….environment.api.powerplatform.com/…/invoke?…&sig=…`,
 * `….logic.azure.com/workflows/…&sig=…`): the signature is the credential
 * and is removed; the rest of the URL stays.
 *
 * @since 0.3.0
 * @category rules
 */
export const teamsWorkflowWebhook: Detector.Detector = {
  id: "microsoft-teams-workflow-webhook",
  triggers: [Detector.prefix("api.powerplatform.com", ".logic.azure.com")],
  before: 0,
  after: 900,
  verify: (context, hit) => {
    const match = Detector.matchAt(workflowHook, context.text, hit.start)
    if (match === null || !varied(match[1]!)) return undefined
    const end = hit.start + match[0].length
    return { start: end - match[1]!.length, end }
  }
}
const workflowHook =
  /(?:api\.powerplatform\.com|\.logic\.azure\.com)(?::[0-9]{1,5})?\/[^\s"'<>?]{1,300}\?[^\s"'<>]{0,400}?(?<=[?&;])sig=([A-Za-z0-9_%-]{20,120})/y

/**
 * Sendbird API tokens: 40 hex digits assigned to a key that names
 * Sendbird.
 *
 * @since 0.3.0
 * @category rules
 */
export const sendbirdToken = service({
  id: "sendbird-access-token",
  keywords: ["sendbird"],
  value: /[a-fA-F0-9]{40}(?![\w%+/=.-])/y,
  maxLength: 41
})

/**
 * MessageBird API keys: 25 letters and digits assigned to a key that
 * names MessageBird.
 *
 * @since 0.3.0
 * @category rules
 */
export const messagebirdKey = service({
  id: "messagebird-api-key",
  keywords: ["messagebird"],
  value: /[A-Za-z0-9]{25}(?![\w%+/=.-])/y,
  maxLength: 26,
  accept: random
})

/**
 * Vonage (Nexmo) API secrets: 16 letters and digits assigned to a key that
 * names Vonage or Nexmo.
 *
 * @since 0.3.0
 * @category rules
 */
export const vonageSecret = service({
  id: "vonage-api-secret",
  keywords: ["vonage", "nexmo"],
  value: /[A-Za-z0-9]{16}(?![\w%+/=.-])/y,
  maxLength: 17,
  accept: random
})

/**
 * Plivo auth tokens: 40 letters and digits assigned to a key that names
 * Plivo.
 *
 * @since 0.3.0
 * @category rules
 */
export const plivoToken = service({
  id: "plivo-auth-token",
  keywords: ["plivo"],
  value: /[A-Za-z0-9]{40}(?![\w%+/=.-])/y,
  maxLength: 41,
  accept: random
})

/**
 * Pusher app secrets and keys: 20 hex digits assigned to a key that names
 * Pusher.
 *
 * @since 0.3.0
 * @category rules
 */
export const pusherSecret = service({
  id: "pusher-secret",
  keywords: ["pusher"],
  value: /[a-f0-9]{20}(?![\w%+/=.-])/y,
  maxLength: 21,
  accept: random
})

/**
 * Intercom access tokens in free text: base64 of `tok:…`, so they start
 * with `dG9rOj`.
 *
 * @since 0.3.0
 * @category rules
 */
export const intercomTokenBare = vendor({
  id: "intercom-access-token",
  prefixes: ["dG9rOj"],
  body: /dG9rOj[A-Za-z0-9+/]{40,100}={0,2}(?![A-Za-z0-9+/=_-])/y,
  maxLength: 109,
  accept: variedAfter(6)
})

/**
 * Intercom access tokens (base64, usually `dG9rOj…`) assigned to a key
 * that names Intercom.
 *
 * @since 0.3.0
 * @category rules
 */
export const intercomToken = service({
  id: "intercom-access-token",
  keywords: ["intercom"],
  value: /[A-Za-z0-9_=+/-]{40,100}(?![\w%+/=.-])/y,
  maxLength: 101
})

/**
 * Zendesk API tokens: 40 letters and digits assigned to a key that names
 * Zendesk.
 *
 * @since 0.3.0
 * @category rules
 */
export const zendeskToken = service({
  id: "zendesk-api-token",
  keywords: ["zendesk"],
  value: /[A-Za-z0-9]{40}(?![\w%+/=.-])/y,
  maxLength: 41,
  accept: random
})

/**
 * Zoom API, SDK and OAuth client secrets (32 to 40 characters that mix
 * cases and digits) assigned to a key that names Zoom.
 *
 * @since 0.3.0
 * @category rules
 */
export const zoomSecret = service({
  id: "zoom-secret",
  keywords: ["zoom"],
  value: /[A-Za-z0-9]{32,40}(?![\w%+/=.-])/y,
  maxLength: 41,
  accept: (value) => generated(value) && /[A-Z]/.test(value) && /[a-z]/.test(value) && distinct(value) >= 12
})

// ---------------------------------------------------------------------------
// social
// ---------------------------------------------------------------------------

/**
 * Twitter (X) app-only bearer tokens: a run of `A`s and 80 or more
 * characters (letters, digits and `%`-escapes).
 *
 * @since 0.3.0
 * @category rules
 */
export const twitterBearerToken = vendor({
  id: "twitter-bearer-token",
  prefixes: ["AAAAAAAAAAAAAAAAAAAA"],
  body: /A{20}[A-Za-z0-9%]{80,140}(?![A-Za-z0-9%_-])/y,
  maxLength: 161,
  accept: (value) => distinct(value) >= 12
})

/**
 * Twitter (X) API keys (25 letters and digits), API secrets (50) and access
 * token secrets (45) assigned to a key that names Twitter.
 *
 * @since 0.3.0
 * @category rules
 */
export const twitterApiKey = service({
  id: "twitter-api-key",
  keywords: ["twitter"],
  value: /[A-Za-z0-9]{25,50}(?![\w%+/=.-])/y,
  maxLength: 51,
  accept: random
})

/**
 * Twitter (X) access tokens (the user id, `-` and 20 to 50 letters and
 * digits) assigned to a key that names Twitter.
 *
 * @since 0.3.0
 * @category rules
 */
export const twitterAccessToken = service({
  id: "twitter-access-token",
  keywords: ["twitter"],
  value: /[0-9]{6,25}-[A-Za-z0-9]{20,50}(?![\w%+/=.-])/y,
  maxLength: 77,
  accept: (value) => varied(value.slice(value.indexOf("-") + 1))
})

/**
 * Facebook (Meta) user, page and app access tokens (`EAA` and at least 90
 * letters and digits, `EAAG…`, `EAAB…`…).
 *
 * @since 0.3.0
 * @category rules
 */
export const facebookAccessToken = vendor({
  id: "facebook-access-token",
  prefixes: ["EAA"],
  body: /EAA[A-Za-z0-9]{90,400}(?![A-Za-z0-9_-])/y,
  maxLength: 404,
  accept: (value) => /[0-9]/.test(value) && /[a-z]/.test(value) && distinct(value) >= 16
})

/**
 * Facebook app access tokens (`<app id>|<app secret or token>`, the bar
 * also URL-encoded).
 *
 * @since 0.3.0
 * @category rules
 */
export const facebookAppToken: Detector.Detector = {
  id: "facebook-app-access-token",
  triggers: [
    Detector.literal("|", "\\|[A-Za-z0-9_-]{27}"),
    Detector.literal("%7C", "%7C[A-Za-z0-9_-]{27}")
  ],
  before: 20,
  after: 44,
  verify: (context, hit) => {
    const text = context.text
    let start = hit.start
    while (start > context.floor && hit.start - start < 17 && Detector.isDigit(text.charCodeAt(start - 1))) start--
    const digits = hit.start - start
    if (digits < 15 || digits > 16 || !Detector.separatedBefore(context, start)) return undefined
    const match = Detector.matchAt(facebookApp, text, hit.start)
    if (match === null || !generated(match[1]!)) return undefined
    return { start, end: hit.start + match[0].length }
  }
}
const facebookApp = /(?:\||%7C)([A-Za-z0-9_-]{27,40})(?![A-Za-z0-9_-])/y

/**
 * Facebook app secrets and client tokens: 32 hex digits assigned to a key
 * that names Facebook.
 *
 * @since 0.3.0
 * @category rules
 */
export const facebookSecret = service({
  id: "facebook-secret",
  keywords: ["facebook"],
  value: /[a-fA-F0-9]{32}(?![\w%+/=.-])/y,
  maxLength: 33
})

/**
 * LinkedIn client secrets (16 letters and digits, or the newer
 * `WPL_AP1.…` form) assigned to a key that names LinkedIn.
 *
 * @since 0.3.0
 * @category rules
 */
export const linkedinSecret = service({
  id: "linkedin-client-secret",
  keywords: ["linkedin"],
  value: /(?:WPL_AP[0-9]\.[A-Za-z0-9]{16}\.[A-Za-z0-9+/]{6,12}={0,2}|[A-Za-z0-9]{16})(?![\w%+/=.-])/y,
  maxLength: 46,
  accept: (value) => value.startsWith("WPL_AP") ? varied(value.slice(8)) : random(value)
})

/**
 * Twitch client secrets and OAuth tokens: 30 letters and digits (an
 * `oauth:` prefix included) assigned to a key that names Twitch.
 *
 * @since 0.3.0
 * @category rules
 */
export const twitchToken = service({
  id: "twitch-api-token",
  keywords: ["twitch"],
  value: /(?:oauth:)?[A-Za-z0-9]{30}(?![\w%+/=.-])/y,
  maxLength: 37,
  accept: (value) => random(value.replace(/^oauth:/, ""))
})

/**
 * Flickr API keys and secrets: 32 letters and digits (hex in practice)
 * assigned to a key that names Flickr.
 *
 * @since 0.3.0
 * @category rules
 */
export const flickrToken = service({
  id: "flickr-access-token",
  keywords: ["flickr"],
  value: /[A-Za-z0-9]{32}(?![\w%+/=.-])/y,
  maxLength: 33,
  accept: random
})

/**
 * New York Times API keys: 32 characters assigned to a key that names the
 * NYTimes.
 *
 * @since 0.3.0
 * @category rules
 */
export const nytimesToken = service({
  id: "nytimes-access-token",
  keywords: ["nytimes", "newyorktimes"],
  value: /[A-Za-z0-9_=-]{32}(?![\w%+/=.-])/y,
  maxLength: 33,
  accept: random
})

// ---------------------------------------------------------------------------
// productivity and developer SaaS
// ---------------------------------------------------------------------------

const airtableShape = /pat[A-Za-z0-9]{14}\.[a-f0-9]{64}(?![A-Za-z0-9_-])/y

/**
 * Airtable personal access tokens (`pat`, 14 letters and digits, `.` and
 * 64 hex digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const airtableToken = token({
  id: "airtable-access-token",
  prefixes: ["pat"],
  body: airtableShape,
  maxLength: 82,
  accept: (value) => !masked(value) && varied(value.slice(-64))
})

/**
 * Airtable personal access tokens assigned to a key that names Airtable:
 * named so before a generic rule on the same key can claim them.
 *
 * @since 0.3.0
 * @category rules
 */
export const airtableTokenKeyed = service({
  id: "airtable-access-token",
  keywords: ["airtable"],
  value: /pat[A-Za-z0-9]{14}\.[a-f0-9]{64}(?![\w%+/=.-])/y,
  maxLength: 82,
  accept: (value) => !masked(value) && varied(value.slice(-64))
})

/**
 * Airtable legacy API keys (`key` and 14 letters and digits, 17 in all)
 * assigned to a key that names Airtable.
 *
 * @since 0.3.0
 * @category rules
 */
export const airtableApiKey = service({
  id: "airtable-api-key",
  keywords: ["airtable"],
  value: /[A-Za-z0-9]{17}(?![\w%+/=.-])/y,
  maxLength: 18,
  accept: random
})

/**
 * Asana personal access tokens (`1/<user>:<32 hex>`, `2/<user>/<app>:<32
 * hex>`) and client secrets (32 letters and digits) assigned to a key that
 * names Asana.
 *
 * @since 0.3.0
 * @category rules
 */
export const asanaToken = service({
  id: "asana-access-token",
  keywords: ["asana"],
  value: /(?:[0-9]\/[0-9]{6,20}(?:\/[0-9]{6,20})?:[A-Za-z0-9]{32}|[A-Za-z0-9]{32})(?![\w%+/=.-])/y,
  maxLength: 78,
  accept: (value) => random(value.slice(value.indexOf(":") + 1))
})

/**
 * Contentful personal access tokens (`CFPAT-` and 43 characters).
 *
 * @since 0.3.0
 * @category rules
 */
export const contentfulToken = vendor({
  id: "contentful-token",
  prefixes: ["CFPAT-"],
  body: /CFPAT-[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/y,
  maxLength: 50,
  accept: variedAfter(6)
})

/**
 * Contentful delivery and preview API tokens: 43 characters assigned to a
 * key that names Contentful.
 *
 * @since 0.3.0
 * @category rules
 */
export const contentfulDeliveryToken = service({
  id: "contentful-delivery-token",
  keywords: ["contentful"],
  value: /[A-Za-z0-9_=-]{43}(?![\w%+/=.-])/y,
  maxLength: 44,
  accept: random
})

/**
 * Trello API tokens (`ATTA`, 64 hex digits and an 8-digit checksum).
 *
 * @since 0.3.0
 * @category rules
 */
export const trelloToken = vendor({
  id: "trello-token",
  prefixes: ["ATTA"],
  body: /ATTA[A-Fa-f0-9]{64,72}(?![A-Za-z0-9_-])/y,
  maxLength: 77,
  accept: variedAfter(4)
})

/**
 * Trello API keys (32 characters) and legacy tokens (64 hex digits)
 * assigned to a key that names Trello.
 *
 * @since 0.3.0
 * @category rules
 */
export const trelloKey = service({
  id: "trello-api-key",
  keywords: ["trello"],
  value: /(?:[a-f0-9]{64}|[A-Za-z0-9-]{32})(?![\w%+/=.-])/y,
  maxLength: 65,
  accept: random
})

/**
 * Adafruit IO keys (`aio_` and 28 letters and digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const adafruitKey = vendor({
  id: "adafruit-io-key",
  prefixes: ["aio_"],
  body: /aio_[A-Za-z0-9]{28}(?![A-Za-z0-9_-])/y,
  maxLength: 33,
  accept: generatedAfter(4)
})

/**
 * Adafruit IO legacy keys (32 characters) assigned to a key that names
 * Adafruit.
 *
 * @since 0.3.0
 * @category rules
 */
export const adafruitKeyed = service({
  id: "adafruit-io-key",
  keywords: ["adafruit"],
  value: /[A-Za-z0-9_-]{32}(?![\w%+/=.-])/y,
  maxLength: 33,
  accept: random
})

/**
 * RapidAPI keys: 50 characters assigned to a key that names RapidAPI
 * (`X-RapidAPI-Key` included).
 *
 * @since 0.3.0
 * @category rules
 */
export const rapidapiKey = service({
  id: "rapidapi-key",
  keywords: ["rapidapi"],
  value: /[A-Za-z0-9_-]{50}(?![\w%+/=.-])/y,
  maxLength: 51,
  accept: random
})

/**
 * @since 0.3.0
 * @category rules
 */
export const rules: ReadonlyArray<Detector.Detector> = [
  shopifyToken,
  woocommerceKey,
  squareAccessToken,
  squareSecret,
  braintreeToken,
  gocardlessToken,
  flutterwaveKey,
  plaidAccessToken,
  freemiusSecretKey,
  lobKey,
  easypostKey,
  shippoToken,
  duffelToken,
  mailgunKey,
  mailchimpKey,
  brevoKey,
  klaviyoKey,
  beamerKey,
  typeformToken,
  hubspotToken,
  discordBotToken,
  discordWebhook,
  telegramBotToken,
  teamsWebhook,
  teamsWorkflowWebhook,
  twitterBearerToken,
  facebookAccessToken,
  facebookAppToken,
  airtableToken,
  contentfulToken,
  trelloToken,
  adafruitKey,
  intercomTokenBare,
  airtableTokenKeyed,
  mailgunSigningKey,
  mailchimpKeyed,
  discordBotTokenKeyed,
  discordClientSecret,
  etsyToken,
  squarespaceToken,
  plaidSecret,
  razorpaySecret,
  twilioAuthToken,
  coinbaseToken,
  krakenToken,
  kucoinToken,
  bittrexKey,
  finicityToken,
  finnhubToken,
  freshbooksToken,
  postmarkToken,
  mailjetKey,
  mandrillKey,
  segmentKey,
  mixpanelKey,
  amplitudeKey,
  hubspotApiKey,
  sendbirdToken,
  messagebirdKey,
  vonageSecret,
  plivoToken,
  pusherSecret,
  intercomToken,
  zendeskToken,
  zoomSecret,
  twitterApiKey,
  twitterAccessToken,
  facebookSecret,
  linkedinSecret,
  twitchToken,
  flickrToken,
  nytimesToken,
  airtableApiKey,
  asanaToken,
  contentfulDeliveryToken,
  trelloKey,
  adafruitKeyed,
  rapidapiKey
]

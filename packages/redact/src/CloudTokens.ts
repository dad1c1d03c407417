/**
 * Credentials of cloud, infrastructure, observability and AI services.
 *
 * Most have a documented prefix (`HRKU-AA`, `sntryu_`, `dt0c01.`, `gsk_`,
 * `pcsk_`) and are recognised by it alone. The others are bare hex, UUIDs
 * or base64 (a Datadog key, a Heroku key, a Cloudflare global key) and are
 * recognised only when assigned to a key that names the service
 * (`DATADOG_API_KEY=…`, `"herokuApiKey": "…"`). Bodies that are a run of
 * one character or have hardly any variety are placeholders and stay.
 *
 * This module is a catalogue of data, one rule per format: it is past the
 * house's ~600 lines because its length grows with the formats it lists,
 * not with what it does.
 *
 * @since 0.3.0
 */
import * as Detector from "./Detector.js"
import { keyed, token } from "./TokenRule.js"

// ---------------------------------------------------------------------------
// shared checks
// ---------------------------------------------------------------------------

/** How many distinct characters a string holds. */
const distinct = (value: string): number => new Set(value).size

/**
 * Whether a body is varied enough to be generated: documentation masks
 * (`xxxx…`, `0000…`, `abcabc…`) have few distinct characters, and AWS-style
 * examples say `EXAMPLE`.
 */
const varied = (minimum: number) => (value: string): boolean =>
  distinct(value) >= minimum && !/example/i.test(value) && !/(.)\1{11}/.test(value)

/** Bits of entropy per character of a body. */
const bits = (value: string): number => {
  const counts = new Map<string, number>()
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  let total = 0
  for (const n of counts.values()) {
    const p = n / value.length
    total -= p * Math.log2(p)
  }
  return total
}

/** A body that is varied and has the entropy of a generated one. */
const random = (minimum: number, minBits: number) => (value: string): boolean =>
  varied(minimum)(value) && bits(value) >= minBits

/** The part of a token after its prefix, for the checks that judge the random part. */
const after = (length: number, check: (body: string) => boolean) => (value: string): boolean =>
  check(value.slice(length))

const uuid = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9A-Za-z_-])/y

// ---------------------------------------------------------------------------
// Cloudflare
// ---------------------------------------------------------------------------

/**
 * Cloudflare API tokens: 40 letters, digits, `_` and `-`, assigned to a key
 * that names Cloudflare (`CLOUDFLARE_API_TOKEN`, `CF_API_TOKEN` is too
 * short a name to key on).
 *
 * @since 0.3.0
 * @category rules
 */
export const cloudflareApiToken = keyed({
  id: "cloudflare-api-token",
  keywords: ["cloudflare"],
  value: /[A-Za-z0-9_-]{40}(?![A-Za-z0-9_-])/y,
  maxLength: 41,
  accept: random(10, 3)
})

/**
 * Cloudflare global API keys: 37 hex digits, assigned to a key that names
 * Cloudflare.
 *
 * @since 0.3.0
 * @category rules
 */
export const cloudflareGlobalApiKey = keyed({
  id: "cloudflare-global-api-key",
  keywords: ["cloudflare"],
  value: /[0-9a-f]{37}(?![A-Za-z0-9_-])/y,
  maxLength: 38,
  accept: random(8, 3)
})

/**
 * Cloudflare Origin CA keys: `v1.0-`, 24 hex digits, `-` and 146 more.
 *
 * @since 0.3.0
 * @category rules
 */
export const cloudflareOriginCaKey = token({
  id: "cloudflare-origin-ca-key",
  prefixes: ["v1.0-"],
  body: /v1\.0-[0-9a-f]{24}-[0-9a-f]{146}(?![A-Za-z0-9])/y,
  maxLength: 176,
  accept: after(5, random(10, 3))
})

// ---------------------------------------------------------------------------
// Datadog
// ---------------------------------------------------------------------------

// `DD` alone is too short a name to look for: `ddapi` and `ddapp` are the
// parts `DD` and `API` (`APP`) of `DD_API_KEY`, `DD-APPLICATION-KEY`.

/**
 * Datadog API keys: 32 hex digits assigned to a key that names Datadog
 * (`DATADOG_API_KEY`, `DD_API_KEY`, the `DD-API-KEY` header).
 *
 * @since 0.3.0
 * @category rules
 */
export const datadogApiKey = keyed({
  id: "datadog-api-key",
  keywords: ["datadog", "ddapi"],
  value: /[0-9a-fA-F]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 33,
  accept: random(8, 3)
})

/**
 * Datadog application keys: 40 hex digits (or lower-case letters and
 * digits) assigned to a key that names Datadog (`DATADOG_APP_KEY`,
 * `DD_APP_KEY`, `DD_APPLICATION_KEY`, the `DD-APPLICATION-KEY` header).
 *
 * @since 0.3.0
 * @category rules
 */
export const datadogAppKey = keyed({
  id: "datadog-app-key",
  keywords: ["datadog", "ddapp", "ddapplication"],
  value: /[0-9a-z]{40}(?![A-Za-z0-9_-])/y,
  maxLength: 41,
  accept: random(10, 3)
})

// ---------------------------------------------------------------------------
// Heroku
// ---------------------------------------------------------------------------

/**
 * Heroku API keys of the old format: a UUID assigned to a key that names
 * Heroku (`HEROKU_API_KEY`, `herokuToken`); an `…_ID` key is an id.
 *
 * @since 0.3.0
 * @category rules
 */
export const herokuApiKey = keyed({
  id: "heroku-api-key",
  keywords: ["heroku"],
  value: uuid,
  maxLength: 37,
  accept: varied(6)
})

/**
 * Heroku API keys of the new format: `HRKU-AA` and 58 letters, digits, `_`
 * and `-`.
 *
 * @since 0.3.0
 * @category rules
 */
export const herokuApiKeyV2 = token({
  id: "heroku-api-key",
  prefixes: ["HRKU-AA"],
  body: /HRKU-AA[0-9A-Za-z_-]{58}(?![0-9A-Za-z_-])/y,
  maxLength: 66,
  accept: after(7, random(10, 3.5))
})

// ---------------------------------------------------------------------------
// Sentry
// ---------------------------------------------------------------------------

/**
 * Sentry organization auth tokens: `sntrys_`, a base64 JSON claim
 * (`eyJ…`), `_` and a 43-character base64 secret.
 *
 * @since 0.3.0
 * @category rules
 */
export const sentryOrgToken = token({
  id: "sentry-org-token",
  prefixes: ["sntrys_eyJ"],
  body: /sntrys_eyJ[A-Za-z0-9+/]{20,600}={0,2}_[A-Za-z0-9+/]{43}(?![A-Za-z0-9+/])/y,
  maxLength: 676
})

/**
 * Sentry user auth tokens: `sntryu_` and 64 hex digits.
 *
 * @since 0.3.0
 * @category rules
 */
export const sentryUserToken = token({
  id: "sentry-user-token",
  prefixes: ["sntryu_"],
  body: /sntryu_[0-9a-f]{64}(?![A-Za-z0-9])/y,
  maxLength: 72,
  accept: after(7, random(8, 3))
})

/**
 * Sentry auth tokens of the old format: 64 hex digits assigned to a key
 * that names Sentry (`SENTRY_AUTH_TOKEN`).
 *
 * @since 0.3.0
 * @category rules
 */
export const sentryAccessToken = keyed({
  id: "sentry-access-token",
  keywords: ["sentry"],
  value: /[0-9a-f]{64}(?![A-Za-z0-9_-])/y,
  maxLength: 65,
  accept: random(8, 3)
})

/**
 * The key of a Sentry DSN (`https://<32 hex>@o<org>.ingest.<region>.sentry.io/<project>`):
 * the key goes, the scheme, the organization and the project stay.
 *
 * @since 0.3.0
 * @category rules
 */
export const sentryDsn: Detector.Detector = {
  id: "sentry-dsn",
  triggers: [Detector.literal(".ingest.", "\\.ingest\\.(?:[a-z]{2}\\.)?sentry\\.io")],
  before: 60,
  after: 24,
  verify: (context, hit) => {
    const text = context.text
    // Back over the organization (`o123`), its `@` and the key.
    let at = hit.start
    while (at > context.floor && hit.start - at < 20 && Detector.isDigit(text.charCodeAt(at - 1))) at--
    if (at === hit.start || text.charCodeAt(at - 1) !== 111 || text.charCodeAt(at - 2) !== 64) return undefined
    const end = at - 2
    const start = end - 32
    if (start - 3 < context.floor || !text.startsWith("://", start - 3)) return undefined
    for (let i = start; i < end; i++) if (!isHex(text.charCodeAt(i))) return undefined
    return { start, end }
  }
}
const isHex = (code: number): boolean => Detector.isDigit(code) || (code >= 97 && code <= 102)

// ---------------------------------------------------------------------------
// New Relic
// ---------------------------------------------------------------------------

/**
 * New Relic user (`NRAK-`), admin (`NRAA-`) and REST (`NRRA-`) API keys.
 *
 * @since 0.3.0
 * @category rules
 */
export const newRelicApiKey = token({
  id: "new-relic-api-key",
  prefixes: ["NRAK-", "NRAA-", "NRRA-"],
  body: /NR(?:AK|AA|RA)-[A-Za-z0-9]{27,42}(?![A-Za-z0-9])/y,
  maxLength: 48,
  accept: after(5, random(8, 3))
})

/**
 * New Relic Insights insert (`NRII-`) and query (`NRIQ-`) keys.
 *
 * @since 0.3.0
 * @category rules
 */
export const newRelicInsightsKey = token({
  id: "new-relic-insert-key",
  prefixes: ["NRII-", "NRIQ-"],
  body: /NRI[IQ]-[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 38,
  accept: after(5, random(8, 3))
})

/**
 * New Relic browser application keys (`NRJS-` and 19 hex digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const newRelicBrowserKey = token({
  id: "new-relic-browser-key",
  prefixes: ["NRJS-"],
  body: /NRJS-[0-9a-f]{19}(?![A-Za-z0-9])/y,
  maxLength: 25,
  accept: after(5, varied(6))
})

/**
 * New Relic ingest license keys: 40 characters, the last four `NRAL`. The
 * trigger is the suffix; the key starts 36 characters before it.
 *
 * @since 0.3.0
 * @category rules
 */
export const newRelicLicenseKey: Detector.Detector = {
  id: "new-relic-license-key",
  triggers: [Detector.prefix("NRAL")],
  before: 38,
  after: 6,
  verify: (context, hit) => {
    const start = hit.start - 36
    if (start < context.floor || !Detector.separatedBefore(context, start)) return undefined
    const match = Detector.matchAt(licenseKey, context.text, start)
    if (match === null || !random(8, 3)(match[0].slice(0, 36))) return undefined
    return { start, end: start + match[0].length }
  }
}
const licenseKey = /[a-z0-9]{36}NRAL(?![A-Za-z0-9])/y

// ---------------------------------------------------------------------------
// identity, observability and infrastructure
// ---------------------------------------------------------------------------

/**
 * Okta API tokens: `00` and 40 base64url characters, assigned to a key that
 * names Okta.
 *
 * @since 0.3.0
 * @category rules
 */
export const oktaApiToken = keyed({
  id: "okta-access-token",
  keywords: ["okta"],
  value: /00[A-Za-z0-9_=-]{40}(?![A-Za-z0-9_=-])/y,
  maxLength: 43,
  accept: after(2, random(10, 3.5))
})

/**
 * Dynatrace API tokens: `dt0c01.`, a 24-character public part, `.` and a
 * 64-character secret.
 *
 * @since 0.3.0
 * @category rules
 */
export const dynatraceToken = token({
  id: "dynatrace-api-token",
  prefixes: ["dt0c01."],
  body: /dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}(?![A-Za-z0-9])/y,
  maxLength: 97,
  accept: after(32, random(10, 3.5))
})

/**
 * Fastly API tokens: 32 base64url characters assigned to a key that names
 * Fastly.
 *
 * @since 0.3.0
 * @category rules
 */
export const fastlyApiToken = keyed({
  id: "fastly-api-token",
  keywords: ["fastly"],
  value: /[A-Za-z0-9_=-]{32}(?![A-Za-z0-9_=-])/y,
  maxLength: 33,
  accept: random(10, 3)
})

/**
 * Sumo Logic access ids: `su` and 12 letters and digits, assigned to a key
 * that names Sumo Logic.
 *
 * @since 0.3.0
 * @category rules
 */
export const sumologicAccessId = keyed({
  id: "sumologic-access-id",
  keywords: ["sumo", "sumologic"],
  value: /su[A-Za-z0-9]{12}(?![A-Za-z0-9_-])/y,
  maxLength: 15,
  accept: after(2, random(7, 2.5))
})

/**
 * Sumo Logic access ids assigned to the documented names of the id
 * (`SUMO_ACCESS_ID`, `SUMOLOGIC_ACCESSID`, `sumologic.accessId`), which
 * hold no credential word for the keyed rules to start from.
 *
 * @since 0.3.0
 * @category rules
 */
export const sumologicAccessIdNamed: Detector.Detector = {
  id: "sumologic-access-id",
  triggers: [
    Detector.prefix(
      "SUMO_ACCESS_ID",
      "SUMOLOGIC_ACCESS_ID",
      "SUMOLOGIC_ACCESSID",
      "sumo_access_id",
      "sumologic_access_id",
      "sumologic.accessId",
      "sumologicAccessId",
      "sumoAccessId"
    )
  ],
  before: 2,
  after: 60,
  verify: (context, hit) => {
    if (!Detector.separatedBefore(context, hit.start)) return undefined
    const match = Detector.matchAt(sumoAccessId, context.text, hit.end)
    if (match === null || !random(7, 2.5)(match[1]!.slice(2))) return undefined
    const end = hit.end + match[0].length
    return { start: end - match[1]!.length, end }
  }
}
const sumoAccessId = /["'\]]{0,2}[ \t]{0,9}(?::=|=>|[:=])[ \t]{0,5}(?:\\?["'`])?(su[A-Za-z0-9]{12})(?![A-Za-z0-9_-])/y

/**
 * Sumo Logic access keys: 64 letters and digits assigned to a key that
 * names Sumo Logic.
 *
 * @since 0.3.0
 * @category rules
 */
export const sumologicAccessKey = keyed({
  id: "sumologic-access-key",
  keywords: ["sumo", "sumologic"],
  value: /[A-Za-z0-9]{64}(?![A-Za-z0-9_-])/y,
  maxLength: 65,
  accept: random(12, 3.5)
})

/**
 * Mapbox secret access tokens: `sk.`, a base64url JSON claim (`eyJ…`), `.`
 * and a 22-character signature. Public tokens (`pk.`) are meant to be
 * published and stay.
 *
 * @since 0.3.0
 * @category rules
 */
export const mapboxSecretToken = token({
  id: "mapbox-secret-token",
  prefixes: ["sk.eyJ"],
  body: /sk\.eyJ[A-Za-z0-9_-]{20,300}\.[A-Za-z0-9_-]{20,40}/y,
  maxLength: 347
})

/**
 * Algolia API keys: 32 hex digits assigned to a key that names Algolia.
 *
 * @since 0.3.0
 * @category rules
 */
export const algoliaApiKey = keyed({
  id: "algolia-api-key",
  keywords: ["algolia"],
  value: /[0-9a-f]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 33,
  accept: random(8, 3)
})

/**
 * Adobe OAuth client ids: 32 hex digits assigned to a key that names Adobe.
 *
 * @since 0.3.0
 * @category rules
 */
export const adobeClientId = keyed({
  id: "adobe-client-id",
  keywords: ["adobe"],
  value: /[0-9a-f]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 33,
  accept: random(8, 3)
})

/**
 * Adobe OAuth client secrets: `p8e-` and 32 letters, digits, `_` and `-`.
 *
 * @since 0.3.0
 * @category rules
 */
export const adobeClientSecret = token({
  id: "adobe-client-secret",
  prefixes: ["p8e-"],
  body: /p8e-[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 37,
  accept: after(4, (body) => random(8, 3)(body) && /[0-9]/.test(body))
})

/**
 * Azure Storage and Cosmos DB account keys: 88 base64 characters (64
 * bytes, so `==` at the end) after `AccountKey=` in a connection string, or
 * assigned to an `…ACCOUNT_KEY`, `…STORAGE_KEY`, `…COSMOS_KEY` key or the
 * `--account-key` flag.
 *
 * @since 0.3.0
 * @category rules
 */
export const azureStorageKey: Detector.Detector = {
  id: "azure-storage-key",
  // Prefixes, not keywords: a keyword ending in `key` would take the hit
  // the generic assignment rule needs.
  triggers: [
    Detector.prefix(
      "AccountKey",
      "accountKey",
      "account_key",
      "ACCOUNT_KEY",
      "account-key",
      "StorageKey",
      "storageKey",
      "storage_key",
      "STORAGE_KEY",
      "CosmosKey",
      "cosmosKey",
      "cosmos_key",
      "COSMOS_KEY",
      "CosmosDbKey",
      "cosmosDbKey",
      "COSMOSDB_KEY",
      "cosmosdb_key"
    )
  ],
  before: 0,
  after: 140,
  verify: (context, hit) => {
    const match = Detector.matchAt(accountKey, context.text, hit.end)
    if (match === null || !random(20, 4)(match[1]!)) return undefined
    const end = hit.end + match[0].length
    return { start: end - match[1]!.length, end }
  }
}
const accountKey =
  /["'\]]{0,2}[ \t]{0,5}(?::=|=>|[:=]|(?<=-key)[ \t])[ \t]{0,5}(?:\\?["'`])?([A-Za-z0-9+/]{86}==)(?![A-Za-z0-9+/=])/y

/**
 * Azure Service Bus, Event Hubs and Relay shared access keys: 44 base64
 * characters (32 bytes) after `SharedAccessKey=` in a connection string.
 *
 * @since 0.3.0
 * @category rules
 */
export const azureSharedAccessKey: Detector.Detector = {
  id: "azure-shared-access-key",
  triggers: [Detector.prefix("SharedAccessKey=")],
  before: 0,
  after: 62,
  verify: (context, hit) => {
    const match = Detector.matchAt(sharedAccessKey, context.text, hit.end)
    if (match === null || !random(16, 3.5)(match[0])) return undefined
    return { start: hit.end, end: hit.end + match[0].length }
  }
}
const sharedAccessKey = /[A-Za-z0-9+/]{43}=(?![A-Za-z0-9+/=])/y

/**
 * Yandex Cloud API keys (`AQVN` and 35 to 38 base64url characters).
 *
 * @since 0.3.0
 * @category rules
 */
export const yandexApiKey = token({
  id: "yandex-api-key",
  prefixes: ["AQVN"],
  body: /AQVN[A-Za-z0-9_-]{35,38}(?![A-Za-z0-9_-])/y,
  maxLength: 43,
  accept: after(4, random(10, 3.5))
})

/**
 * Yandex Cloud IAM tokens: `t1.`, a base64url payload, `.` and an
 * 86-character signature.
 *
 * @since 0.3.0
 * @category rules
 */
export const yandexIamToken = token({
  id: "yandex-iam-token",
  prefixes: ["t1."],
  body: /t1\.[A-Za-z0-9_-]{1,800}={0,2}\.[A-Za-z0-9_-]{86}={0,2}/y,
  maxLength: 900
})

/**
 * Yandex Cloud static access key secrets: `YC` and 38 base64url
 * characters, assigned to a key that names Yandex.
 *
 * @since 0.3.0
 * @category rules
 */
export const yandexAccessKey = keyed({
  id: "yandex-access-key",
  keywords: ["yandex"],
  value: /YC[A-Za-z0-9_-]{38}(?![A-Za-z0-9_-])/y,
  maxLength: 41,
  accept: after(2, random(10, 3.5))
})

/**
 * Cisco Meraki dashboard API keys: 40 hex digits assigned to a key that
 * names Meraki.
 *
 * @since 0.3.0
 * @category rules
 */
export const merakiApiKey = keyed({
  id: "meraki-api-key",
  keywords: ["meraki"],
  value: /[0-9a-f]{40}(?![A-Za-z0-9_-])/y,
  maxLength: 41,
  accept: random(8, 3)
})

/**
 * MaxMind license keys: 6 letters and digits, `_`, 29 more and `_mmk`.
 * The trigger is the suffix; the key starts 36 characters before it.
 *
 * @since 0.3.0
 * @category rules
 */
export const maxmindLicenseKey: Detector.Detector = {
  id: "maxmind-license-key",
  triggers: [Detector.prefix("_mmk")],
  before: 38,
  after: 6,
  verify: (context, hit) => {
    const start = hit.start - 36
    if (start < context.floor || !Detector.separatedBefore(context, start)) return undefined
    const match = Detector.matchAt(maxmindKey, context.text, start)
    if (match === null || !random(10, 3.5)(match[0].slice(0, 36))) return undefined
    return { start, end: start + match[0].length }
  }
}
const maxmindKey = /[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk(?![A-Za-z0-9_])/y

/**
 * MaxMind license keys assigned to a key that names MaxMind
 * (`MAXMIND_LICENSE_KEY`): the generic assignment rule would otherwise
 * name them first, since their tell is at their end.
 *
 * @since 0.3.0
 * @category rules
 */
export const maxmindLicenseKeyAssigned = keyed({
  id: "maxmind-license-key",
  keywords: ["maxmind"],
  value: maxmindKey,
  maxLength: 41,
  accept: (key) => random(10, 3.5)(key.slice(0, 36))
})

/**
 * Scaleway access keys: `SCW` and 17 upper-case letters and digits.
 *
 * @since 0.3.0
 * @category rules
 */
export const scalewayAccessKey = token({
  id: "scaleway-access-key",
  prefixes: ["SCW"],
  body: /SCW[A-Z0-9]{17}(?![A-Za-z0-9])/y,
  maxLength: 21,
  accept: after(3, (body) => random(8, 3)(body) && /[0-9]/.test(body))
})

/**
 * Scaleway secret keys: a UUID assigned to a key that names Scaleway and
 * says it is the secret (`SCW_SECRET_KEY`, `scaleway_secret_key`).
 *
 * @since 0.3.0
 * @category rules
 */
export const scalewaySecretKey = keyed({
  id: "scaleway-secret-key",
  keywords: ["scalewaysecret", "scwsecret"],
  value: uuid,
  maxLength: 37,
  accept: varied(6)
})

/**
 * Linode (Akamai Cloud) personal access tokens: 64 hex digits assigned to
 * a key that names Linode.
 *
 * @since 0.3.0
 * @category rules
 */
export const linodeToken = keyed({
  id: "linode-token",
  keywords: ["linode"],
  value: /[0-9a-f]{64}(?![A-Za-z0-9_-])/y,
  maxLength: 65,
  accept: random(8, 3)
})

/**
 * Akamai EdgeGrid client and access tokens (`akab-`, 16 letters and
 * digits, `-` and 16 more, as in `.edgerc`). The API host has the same
 * shape followed by `.luna.akamaiapis.net` and stays.
 *
 * @since 0.3.0
 * @category rules
 */
export const akamaiEdgegridToken = token({
  id: "akamai-edgegrid-token",
  prefixes: ["akab-"],
  body: /akab-[a-z0-9]{16}-[a-z0-9]{16}(?![A-Za-z0-9.-])/y,
  maxLength: 39,
  accept: after(5, random(10, 3.3))
})

/**
 * Confluent Cloud API secrets: 64 base64 characters assigned to a key that
 * names Confluent (`CONFLUENT_API_SECRET`, `CONFLUENT_CLOUD_API_SECRET`).
 *
 * @since 0.3.0
 * @category rules
 */
export const confluentApiSecret = keyed({
  id: "confluent-api-secret",
  keywords: ["confluent"],
  value: /[A-Za-z0-9+/]{64}(?![A-Za-z0-9+/=_-])/y,
  maxLength: 65,
  accept: random(16, 4)
})

/**
 * Confluent Cloud API keys: 16 upper-case letters and digits assigned to a
 * key that names Confluent (`CONFLUENT_API_KEY`).
 *
 * @since 0.3.0
 * @category rules
 */
export const confluentApiKey = keyed({
  id: "confluent-api-key",
  keywords: ["confluent"],
  value: /[A-Za-z0-9]{16}(?![A-Za-z0-9_-])/y,
  maxLength: 17,
  accept: (key) => random(8, 2.8)(key) && /[0-9]/.test(key)
})

/**
 * Azure OpenAI and Azure AI services keys: 32 hex digits (or the newer
 * 84-character keys) assigned to a key that names Azure OpenAI
 * (`AZURE_OPENAI_API_KEY`, `azureOpenAiKey`).
 *
 * @since 0.3.0
 * @category rules
 */
export const azureOpenaiKey = keyed({
  id: "azure-openai-key",
  keywords: ["azureopenai", "azureai", "cognitiveservices"],
  value: /(?:[0-9a-fA-F]{32}|[A-Za-z0-9]{84})(?![A-Za-z0-9_-])/y,
  maxLength: 85,
  accept: random(8, 3)
})

/**
 * Alibaba Cloud AccessKey ids: `LTAI` and 12 to 20 letters and digits.
 *
 * @since 0.3.0
 * @category rules
 */
export const alibabaAccessKeyId = token({
  id: "alibaba-access-key-id",
  prefixes: ["LTAI"],
  body: /LTAI[A-Za-z0-9]{12,20}(?![A-Za-z0-9])/y,
  maxLength: 25,
  accept: after(4, (body) => random(7, 2.8)(body) && (/[0-9]/.test(body) || (/[a-z]/.test(body) && /[A-Z]/.test(body))))
})

/**
 * Alibaba Cloud AccessKey secrets: 30 letters and digits assigned to a key
 * that names Alibaba Cloud (`ALIBABA_CLOUD_ACCESS_KEY_SECRET`,
 * `ALIYUN_…`, `ALICLOUD_…`).
 *
 * @since 0.3.0
 * @category rules
 */
export const alibabaSecretKey = keyed({
  id: "alibaba-secret-key",
  keywords: ["alibaba", "aliyun", "alicloud"],
  value: /[A-Za-z0-9]{30}(?![A-Za-z0-9_-])/y,
  maxLength: 31,
  accept: random(10, 3.5)
})

/**
 * Amazon Bedrock API keys: long-term (`ABSK` and the base64 of
 * `BedrockAPIKey-…`) and short-term (`bedrock-api-key-` and the base64 of
 * a presigned `bedrock.amazonaws.com` URL).
 *
 * @since 0.3.0
 * @category rules
 */
export const awsBedrockApiKey = token({
  id: "aws-bedrock-api-key",
  prefixes: ["ABSK", "bedrock-api-key-"],
  body:
    /(?:ABSK[A-Za-z0-9+/]{109,269}={0,2}(?![A-Za-z0-9+/=])|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/]{0,6000}={0,2})/y,
  maxLength: 6_062,
  accept: (key) => key.startsWith("bedrock-") || varied(16)(key.slice(4))
})

/**
 * PlanetScale API (`pscale_tkn_`), OAuth (`pscale_oauth_`) and database
 * password (`pscale_pw_`) tokens.
 *
 * @since 0.3.0
 * @category rules
 */
export const planetscaleToken = token({
  id: "planetscale-token",
  prefixes: ["pscale_tkn_", "pscale_pw_", "pscale_oauth_"],
  body: /pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,100}/y,
  maxLength: 113,
  accept: (key) => random(10, 3)(key.slice(key.indexOf("_", 7) + 1))
})

// ---------------------------------------------------------------------------
// deployment platforms and databases
// ---------------------------------------------------------------------------

/**
 * Vercel tokens: personal (`vcp_`), integration (`vci_`), app access
 * (`vca_`), app refresh (`vcr_`) and API keys (`vck_`).
 *
 * @since 0.3.0
 * @category rules
 */
export const vercelToken = token({
  id: "vercel-token",
  prefixes: ["vcp_", "vci_", "vca_", "vcr_", "vck_"],
  body: /vc[piark]_[A-Za-z0-9]{24,200}(?![A-Za-z0-9])/y,
  maxLength: 205,
  accept: after(4, (body) => random(10, 3.5)(body) && /[0-9]/.test(body))
})

/**
 * Supabase personal access tokens (`sbp_` and 40 hex digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const supabaseAccessToken = token({
  id: "supabase-access-token",
  prefixes: ["sbp_"],
  body: /sbp_(?:v0_)?[0-9a-f]{40}(?![A-Za-z0-9])/y,
  maxLength: 48,
  accept: after(4, random(8, 3))
})

/**
 * Supabase secret API keys (`sb_secret_…`). Publishable keys are meant to
 * be public and stay.
 *
 * @since 0.3.0
 * @category rules
 */
export const supabaseSecretKey = token({
  id: "supabase-secret-key",
  prefixes: ["sb_secret_"],
  body: /sb_secret_[A-Za-z0-9_-]{20,100}/y,
  maxLength: 110,
  accept: after(10, random(10, 3.5))
})

/**
 * Render API keys (`rnd_` and 32 letters and digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const renderApiKey = token({
  id: "render-api-key",
  prefixes: ["rnd_"],
  body: /rnd_[A-Za-z0-9]{32}(?![A-Za-z0-9])/y,
  maxLength: 37,
  accept: after(4, (body) => random(10, 3.5)(body) && /[0-9]/.test(body))
})

/**
 * Railway API and project tokens: a UUID assigned to a key that names
 * Railway (`RAILWAY_TOKEN`, `RAILWAY_API_TOKEN`); an `…_ID` key is an id.
 *
 * @since 0.3.0
 * @category rules
 */
export const railwayToken = keyed({
  id: "railway-token",
  keywords: ["railway"],
  value: uuid,
  maxLength: 37,
  accept: varied(6)
})

/**
 * Neon API keys (`napi_` and 64 letters and digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const neonApiKey = token({
  id: "neon-api-key",
  prefixes: ["napi_"],
  body: /napi_[A-Za-z0-9]{64,72}(?![A-Za-z0-9])/y,
  maxLength: 78,
  accept: after(5, random(12, 3.5))
})

/**
 * Upstash Redis REST and QStash tokens: 40 or more base64url characters
 * assigned to a key that names Upstash (`UPSTASH_REDIS_REST_TOKEN`).
 *
 * @since 0.3.0
 * @category rules
 */
export const upstashToken = keyed({
  id: "upstash-token",
  keywords: ["upstash"],
  value: /[A-Za-z0-9_+/-]{40,300}={0,2}(?![A-Za-z0-9_+/=-])/y,
  maxLength: 303,
  accept: random(12, 3.5)
})

// ---------------------------------------------------------------------------
// AI services
// ---------------------------------------------------------------------------

/**
 * Perplexity API keys (`pplx-` and 48 letters and digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const perplexityApiKey = token({
  id: "perplexity-api-key",
  prefixes: ["pplx-"],
  body: /pplx-[A-Za-z0-9]{48}(?![A-Za-z0-9])/y,
  maxLength: 54,
  accept: after(5, random(12, 3.5))
})

/**
 * Cohere API keys: 40 letters and digits assigned to a key that names
 * Cohere (`COHERE_API_KEY`, `CO_API_KEY`).
 *
 * @since 0.3.0
 * @category rules
 */
export const cohereApiKey = keyed({
  id: "cohere-api-key",
  keywords: ["cohere", "coapi"],
  value: /[A-Za-z0-9]{40}(?![A-Za-z0-9_-])/y,
  maxLength: 41,
  accept: random(12, 3.5)
})

/**
 * Groq API keys (`gsk_` and 52 letters and digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const groqApiKey = token({
  id: "groq-api-key",
  prefixes: ["gsk_"],
  body: /gsk_[A-Za-z0-9]{52}(?![A-Za-z0-9])/y,
  maxLength: 57,
  accept: after(4, random(12, 3.5))
})

/**
 * xAI API keys (`xai-` and 80 letters and digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const xaiApiKey = token({
  id: "xai-api-key",
  prefixes: ["xai-"],
  body: /xai-[A-Za-z0-9]{80}(?![A-Za-z0-9])/y,
  maxLength: 85,
  accept: after(4, random(12, 3.5))
})

/**
 * Replicate API tokens (`r8_` and 37 letters and digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const replicateApiToken = token({
  id: "replicate-api-token",
  prefixes: ["r8_"],
  body: /r8_[A-Za-z0-9]{37}(?![A-Za-z0-9_-])/y,
  maxLength: 41,
  accept: after(3, (body) => random(12, 3.5)(body) && /[0-9]/.test(body))
})

/**
 * Mistral API keys: 32 letters and digits assigned to a key that names
 * Mistral.
 *
 * @since 0.3.0
 * @category rules
 */
export const mistralApiKey = keyed({
  id: "mistral-api-key",
  keywords: ["mistral"],
  value: /[A-Za-z0-9]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 33,
  accept: random(12, 3.5)
})

/**
 * DeepSeek API keys: `sk-` and 32 hex digits assigned to a key that names
 * DeepSeek. Alone the shape is OpenAI's legacy one, and `openai-key`
 * names it.
 *
 * @since 0.3.0
 * @category rules
 */
export const deepseekApiKey = keyed({
  id: "deepseek-api-key",
  keywords: ["deepseek"],
  value: /sk-[0-9a-f]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 36,
  accept: after(3, random(8, 3))
})

/**
 * OpenRouter API keys (`sk-or-v1-` and 64 hex digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const openrouterApiKey = token({
  id: "openrouter-api-key",
  prefixes: ["sk-or-v1-"],
  body: /sk-or-v1-[0-9a-f]{64}(?![A-Za-z0-9])/y,
  maxLength: 74,
  accept: after(9, random(8, 3))
})

/**
 * Pinecone API keys (`pcsk_`, a short id, `_` and the secret).
 *
 * @since 0.3.0
 * @category rules
 */
export const pineconeApiKey = token({
  id: "pinecone-api-key",
  prefixes: ["pcsk_"],
  body: /pcsk_[A-Za-z0-9]{4,10}_[A-Za-z0-9]{40,100}(?![A-Za-z0-9_])/y,
  maxLength: 117,
  accept: after(5, random(12, 3.5))
})

/**
 * LangSmith personal access tokens (`lsv2_pt_`) and service keys
 * (`lsv2_sk_`): 32 hex digits, `_` and 10 more.
 *
 * @since 0.3.0
 * @category rules
 */
export const langsmithApiKey = token({
  id: "langsmith-api-key",
  prefixes: ["lsv2_pt_", "lsv2_sk_"],
  body: /lsv2_(?:pt|sk)_[A-Za-z0-9]{32}_[A-Za-z0-9]{10}(?![A-Za-z0-9_])/y,
  maxLength: 52,
  accept: after(8, random(8, 3))
})

/**
 * Tavily API keys (`tvly-`, optionally `dev-` or `prod-`, and 32 letters
 * and digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const tavilyApiKey = token({
  id: "tavily-api-key",
  prefixes: ["tvly-"],
  body: /tvly-(?:dev-|prod-)?[A-Za-z0-9]{24,64}(?![A-Za-z0-9])/y,
  maxLength: 75,
  accept: (key) => random(10, 3.5)(key.slice(key.lastIndexOf("-") + 1))
})

/**
 * Firecrawl API keys (`fc-` and 32 hex digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const firecrawlApiKey = token({
  id: "firecrawl-api-key",
  prefixes: ["fc-"],
  body: /fc-[0-9a-f]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 36,
  accept: after(3, (body) => random(8, 3)(body) && /[0-9]/.test(body) && /[a-f]/.test(body))
})

/**
 * Exa API keys: a UUID assigned to `EXA_API_KEY` or a key that names Exa
 * in full (`exa_api…`, since `exa` alone is too short a word).
 *
 * @since 0.3.0
 * @category rules
 */
export const exaApiKey = keyed({
  id: "exa-api-key",
  keywords: ["exaapi"],
  value: uuid,
  maxLength: 37,
  accept: varied(6)
})

/**
 * ElevenLabs API keys (`sk_` and 48 hex digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const elevenlabsApiKey = token({
  id: "elevenlabs-api-key",
  prefixes: ["sk_"],
  body: /sk_[0-9a-f]{48}(?![A-Za-z0-9_-])/y,
  maxLength: 52,
  accept: after(3, (body) => random(8, 3)(body) && /[0-9]/.test(body) && /[a-f]/.test(body))
})

/**
 * Deepgram API keys: 40 hex digits assigned to a key that names Deepgram.
 *
 * @since 0.3.0
 * @category rules
 */
export const deepgramApiKey = keyed({
  id: "deepgram-api-key",
  keywords: ["deepgram"],
  value: /[0-9a-f]{40}(?![A-Za-z0-9_-])/y,
  maxLength: 41,
  accept: random(8, 3)
})

/**
 * AssemblyAI API keys: 32 hex digits assigned to a key that names
 * AssemblyAI.
 *
 * @since 0.3.0
 * @category rules
 */
export const assemblyaiApiKey = keyed({
  id: "assemblyai-api-key",
  keywords: ["assemblyai"],
  value: /[0-9a-f]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 33,
  accept: random(8, 3)
})

// ---------------------------------------------------------------------------
// base64-wrapped JSON Web Tokens
// ---------------------------------------------------------------------------

/** The value of a base64 or base64url digit, or -1. */
const digitOf = (code: number): number => {
  if (code >= 65 && code <= 90) return code - 65
  if (code >= 97 && code <= 122) return code - 71
  if (code >= 48 && code <= 57) return code + 4
  if (code === 43 || code === 45) return 62
  if (code === 47 || code === 95) return 63
  return -1
}

/** The bytes of the base64 digits in `[start, end)`, as Latin-1 text. */
const decode = (text: string, start: number, end: number): string => {
  let out = ""
  let acc = 0
  let held = 0
  for (let i = start; i < end; i++) {
    acc = (acc << 6) | digitOf(text.charCodeAt(i))
    held += 6
    if (held >= 8) {
      held -= 8
      out += String.fromCharCode((acc >> held) & 255)
      acc &= (1 << held) - 1
    }
  }
  return out
}

const maxWrapped = 16_000
const wrappedShape = /eyJ[A-Za-z0-9_-]{2,4000}\.ey[A-Za-z0-9_-]{2,8000}\./y

/**
 * JSON Web Tokens whose text is itself base64-encoded (`ZXlK…`, the base64
 * of `eyJ`), as Kubernetes secrets and some headers hold them: the run is
 * decoded and must read as a JWT (`eyJ….ey….`); the whole run goes.
 *
 * @since 0.3.0
 * @category rules
 */
export const base64Jwt: Detector.Detector = {
  id: "jwt",
  triggers: [Detector.prefix("ZXlK")],
  before: 3,
  after: maxWrapped + 3,
  verify: (context, hit) => {
    const text = context.text
    if (!Detector.startsToken(context, hit.start)) return undefined
    const limit = Math.min(text.length, hit.start + maxWrapped)
    let end = hit.start + 4
    while (end < limit && digitOf(text.charCodeAt(end)) >= 0) end++
    // Every `ZXlK` inside this run decodes from the same text and ends where it ends.
    context.skip(end)
    if (end === limit && limit < text.length) return undefined
    const decoded = decode(text, hit.start, end)
    if (Detector.matchAt(wrappedShape, decoded, 0) === null) return undefined
    for (let pad = 0; pad < 2 && end < text.length && text.charCodeAt(end) === 61; pad++) end++
    return { start: hit.start, end }
  }
}

/**
 * @since 0.3.0
 * @category rules
 */
export const rules: ReadonlyArray<Detector.Detector> = [
  cloudflareOriginCaKey,
  herokuApiKeyV2,
  sentryOrgToken,
  sentryUserToken,
  sentryDsn,
  newRelicApiKey,
  newRelicInsightsKey,
  newRelicBrowserKey,
  newRelicLicenseKey,
  dynatraceToken,
  mapboxSecretToken,
  adobeClientSecret,
  azureStorageKey,
  azureSharedAccessKey,
  yandexApiKey,
  yandexIamToken,
  maxmindLicenseKey,
  scalewayAccessKey,
  alibabaAccessKeyId,
  akamaiEdgegridToken,
  awsBedrockApiKey,
  planetscaleToken,
  vercelToken,
  supabaseAccessToken,
  supabaseSecretKey,
  renderApiKey,
  neonApiKey,
  perplexityApiKey,
  groqApiKey,
  xaiApiKey,
  replicateApiToken,
  openrouterApiKey,
  pineconeApiKey,
  langsmithApiKey,
  tavilyApiKey,
  firecrawlApiKey,
  elevenlabsApiKey,
  base64Jwt,
  cloudflareGlobalApiKey,
  cloudflareApiToken,
  datadogApiKey,
  datadogAppKey,
  herokuApiKey,
  sentryAccessToken,
  oktaApiToken,
  fastlyApiToken,
  sumologicAccessId,
  sumologicAccessIdNamed,
  sumologicAccessKey,
  algoliaApiKey,
  adobeClientId,
  yandexAccessKey,
  merakiApiKey,
  scalewaySecretKey,
  linodeToken,
  alibabaSecretKey,
  confluentApiSecret,
  confluentApiKey,
  azureOpenaiKey,
  railwayToken,
  upstashToken,
  cohereApiKey,
  mistralApiKey,
  deepseekApiKey,
  exaApiKey,
  deepgramApiKey,
  assemblyaiApiKey,
  maxmindLicenseKeyAssigned
]

import { alnum, hex, noise } from "../Noise.js"
import { assigned, bare } from "../RuleSamples.js"
import type { Positive, RuleSamples } from "../RuleSamples.js"

const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
const lower = "abcdefghijklmnopqrstuvwxyz0123456789"
const base64url = alnum + "_-"
const base64 = alnum + "+/"
const digits = "0123456789"

const b64Digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

/** Standard base64 with padding, of ASCII text; `url` gives the unpadded base64url form. */
const encode = (text: string, url = false): string => {
  let out = ""
  for (let i = 0; i < text.length; i += 3) {
    const a = text.charCodeAt(i)
    const b = i + 1 < text.length ? text.charCodeAt(i + 1) : 0
    const c = i + 2 < text.length ? text.charCodeAt(i + 2) : 0
    const n = (a << 16) | (b << 8) | c
    out += b64Digits[(n >> 18) & 63]! + b64Digits[(n >> 12) & 63]!
    out += i + 1 < text.length ? b64Digits[(n >> 6) & 63]! : "="
    out += i + 2 < text.length ? b64Digits[n & 63]! : "="
  }
  return url ? out.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_") : out
}

/**
 * `noise` drawn from the 62 letters and digits, then folded onto
 * `alphabet`: drawn straight from a 16- or 64-character alphabet, `noise`
 * repeats itself (`fcccccccc7bf32a2a2a2…`) and reads as a placeholder.
 */
const fold = (length: number, seed: number, alphabet: string): string =>
  [...noise(length, seed)].map((ch, i) => alphabet[(alnum.indexOf(ch) + i * 7) % alphabet.length]!).join("")

const uuid = (seed: number): string =>
  [fold(8, seed, hex), fold(4, seed + 1, hex), fold(4, seed + 2, hex), fold(4, seed + 3, hex), fold(12, seed + 4, hex)]
    .join("-")

/** The first `n` assigned syntaxes, for rules that need only a few. */
const some = (key: string, secret: string, n = 3): ReadonlyArray<Positive> => assigned(key, secret).slice(0, n)

const cloudflareToken = fold(40, 101, base64url)
const cloudflareGlobal = fold(37, 102, hex)
const originCa = "v1." + "0-" + fold(24, 103, hex) + "-" + fold(146, 104, hex)
const datadogApi = fold(32, 105, hex)
const datadogApp = fold(40, 106, hex)
const herokuUuid = uuid(107)
const herokuV2 = "HRKU" + "-AA" + fold(58, 112, base64url)
const sentryClaim = encode(
  `{"iat":1718000000.25,"url":"https://sentry.io","region_url":"https://us.sentry.io","org":"acme-${
    noise(6, 113, lower)
  }"}`
)
const sentryOrg = "sntrys" + "_" + sentryClaim + "_" + fold(43, 114, base64)
const sentryUser = "sntryu" + "_" + fold(64, 115, hex)
const sentryLegacy = fold(64, 116, hex)
const sentryKey = fold(32, 117, hex)
const newRelicUser = "NRAK" + "-" + noise(27, 118, upper)
const newRelicInsert = "NRII" + "-" + fold(32, 119, base64url)
const newRelicBrowser = "NRJS" + "-" + fold(19, 120, hex)
const newRelicLicense = "eu01xx" + fold(30, 121, hex) + "NR" + "AL"
const okta = "00" + fold(40, 122, base64url)
const dynatrace = "dt0c01" + "." + noise(24, 123, upper) + "." + noise(64, 124, upper)
const fastly = fold(32, 125, base64url)
const sumoId = "su" + noise(12, 126)
const sumoKey = noise(64, 127)
const mapbox = "sk" + ".eyJ1IjoiYWNtZS" + fold(40, 128, base64url) + "." + fold(22, 129, base64url)
const algolia = fold(32, 130, hex)
const adobeId = fold(32, 131, hex)
const adobeSecret = "p8e" + "-" + noise(32, 132)
const azureStorage = fold(86, 133, base64) + "=="
const azureShared = fold(43, 134, base64) + "="
const yandexApi = "AQVN" + fold(36, 135, base64url)
const yandexIam = "t1" + "." + fold(120, 136, base64url) + "." + fold(86, 137, base64url)
const yandexSecret = "YC" + fold(38, 138, base64url)
const meraki = fold(40, 139, hex)
const maxmind = noise(6, 140) + "_" + noise(29, 141) + "_mm" + "k"
const scalewayAccess = "SCW" + noise(17, 142, upper)
const scalewaySecret = uuid(143)
const linode = fold(64, 148, hex)
const akamaiClient = "ak" + "ab-" + noise(16, 270, lower) + "-" + noise(16, 271, lower)
const akamaiAccess = "ak" + "ab-" + noise(16, 272, lower) + "-" + noise(16, 273, lower)
const confluentSecret = fold(64, 274, base64)
const confluentKey = noise(16, 275, upper)
const azureOpenai = fold(32, 276, hex)
const alibabaId = "LTAI" + noise(20, 149)
const alibabaSecret = noise(30, 150)
const bedrockLong = "AB" + "SK" +
  encode(`BedrockAPIKey-${noise(4, 151, lower)}-at-${noise(12, 152, digits)}:${noise(60, 153)}`)
// The marker (`aws-bedrock-api-key`) spells the fixed part of a short-term
// key, so what must not survive is the rest: the presigned URL.
const bedrockPresigned = encode(
  "bedrock.amazonaws.com/?Action=CallWithBearerToken&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" +
    noise(20, 154, upper) + "%2F20260301%2Fus-east-1%2Fbedrock%2Faws4_request&X-Amz-Signature=" +
    fold(64, 155, hex) + "&Version=1"
)
const bedrockShort = "bedrock" + "-api-key-" + bedrockPresigned
const pscaleToken = "pscale" + "_tkn_" + fold(43, 156, base64url)
const pscalePassword = "pscale" + "_pw_" + fold(43, 157, base64url)
const pscaleOauth = "pscale" + "_oauth_" + fold(43, 158, base64url)
const vercel = "vc" + "p_" + noise(40, 159)
const vercelIntegration = "vc" + "i_" + noise(40, 160)
const supabaseAccess = "sb" + "p_" + fold(40, 161, hex)
const supabaseSecret = "sb_" + "secret_" + fold(31, 162, base64url)
const render = "rn" + "d_" + noise(32, 163)
const railway = uuid(164)
const neon = "na" + "pi_" + noise(64, 169, lower)
const upstash = "AX" + fold(58, 170, base64url) + "="
const perplexity = "pp" + "lx-" + noise(48, 171)
const cohere = noise(40, 172)
const groq = "gs" + "k_" + noise(52, 173)
const xai = "xa" + "i-" + noise(80, 174)
const replicate = "r8" + "_" + noise(37, 175)
const mistral = noise(32, 176)
const deepseek = "sk" + "-" + fold(32, 177, hex)
const openrouter = "sk-" + "or-v1-" + fold(64, 178, hex)
const pinecone = "pc" + "sk_" + noise(6, 179) + "_" + noise(63, 180)
const langsmith = "lsv2" + "_pt_" + fold(32, 181, hex) + "_" + fold(10, 182, hex)
const tavily = "tv" + "ly-" + noise(32, 183)
const tavilyDev = "tv" + "ly-dev-" + noise(32, 184)
const firecrawl = "fc" + "-" + fold(32, 185, hex)
const exa = uuid(186)
const elevenlabs = "sk" + "_" + fold(48, 191, hex)
const deepgram = fold(40, 192, hex)
const assemblyai = fold(32, 193, hex)
const jwtInside = "ey" + "J" + encode(`{"alg":"HS256","typ":"JWT","kid":"${noise(8, 194)}"}`, true).slice(3) + "." +
  encode(`{"sub":"${noise(12, 195)}","iat":1718000000,"role":"admin"}`, true) + "." + fold(43, 196, base64url)
const wrappedJwt = encode(jwtInside)

export const cloud: ReadonlyArray<RuleSamples> = [
  {
    rule: "cloudflare-api-token",
    positives: [
      ...assigned("CLOUDFLARE_API_TOKEN", cloudflareToken),
      { text: `provider "cloudflare" {\n  cloudflare_api_token = "${cloudflareToken}"\n}`, secret: cloudflareToken }
    ],
    negatives: [
      "CLOUDFLARE_API_TOKEN=" + "x".repeat(40),
      "cloudflare_zone_label: " + fold(39, 197, base64url),
      "see https://dash.cloudflare.com/profile/api-tokens for " + noise(40, 198)
    ]
  },
  {
    rule: "cloudflare-global-api-key",
    positives: [...assigned("CLOUDFLARE_GLOBAL_API_KEY", cloudflareGlobal), {
      text: `cloudflare_api_key = "${cloudflareGlobal}"`,
      secret: cloudflareGlobal
    }],
    negatives: ["cloudflare_zone = " + fold(36, 199, hex), "cloudflare_zone = " + "0".repeat(37)]
  },
  {
    rule: "cloudflare-origin-ca-key",
    positives: [...bare(originCa), { text: `CLOUDFLARE_ORIGIN_CA: ${originCa}`, secret: originCa }],
    negatives: [
      "v1." + "0-" + fold(24, 103, hex) + "-" + fold(145, 104, hex) + " is one digit short",
      "GET /api/v1.0-beta/zones HTTP/1.1"
    ]
  },
  {
    rule: "datadog-api-key",
    positives: [
      ...assigned("DD_API_KEY", datadogApi),
      ...some("DATADOG_API_KEY", datadogApi, 2),
      {
        text: `curl -X GET "https://api.datadoghq.com/api/v1/validate" -H "DD-API-KEY: ${datadogApi}"`,
        secret: datadogApi,
        kept: "DD-API-KEY: "
      }
    ],
    negatives: [
      "DD_API_KEY=" + "0".repeat(32),
      "HADD_API=" + fold(32, 200, hex),
      "dd if=/dev/zero of=disk.img bs=1M count=" + noise(4, 201, digits)
    ]
  },
  {
    rule: "datadog-app-key",
    positives: [
      ...assigned("DD_APP_KEY", datadogApp),
      { text: `DD_APPLICATION_KEY=${datadogApp}`, secret: datadogApp, kept: "DD_APPLICATION_KEY=" },
      { text: `-H "DD-APPLICATION-KEY: ${datadogApp}"`, secret: datadogApp, kept: "DD-APPLICATION-KEY: " }
    ],
    negatives: ["DD_APP_KEY=" + "a".repeat(40), "ODD_APPLICATION=" + fold(40, 202, hex)]
  },
  {
    rule: "heroku-api-key",
    positives: [
      ...assigned("HEROKU_API_KEY", herokuUuid),
      { text: `const HEROKU_KEY = "${herokuUuid.toUpperCase()}"`, secret: herokuUuid.toUpperCase() },
      ...bare(herokuV2),
      { text: `HEROKU_API_KEY=${herokuV2}`, secret: herokuV2, kept: "HEROKU_API_KEY=" }
    ],
    negatives: [
      `HEROKU_APP_ID=${uuid(203)}`,
      "HEROKU_API_KEY=00000000-0000-0000-0000-000000000000",
      "HRKU" + "-AA" + fold(57, 208, base64url) + " is short",
      "HRKU" + "-AA" + "x".repeat(58)
    ]
  },
  {
    rule: "sentry-org-token",
    positives: [...bare(sentryOrg), ...some("SENTRY_AUTH_TOKEN", sentryOrg, 2), {
      text: `sentry-cli --auth-token ${sentryOrg} releases list`,
      secret: sentryOrg
    }],
    negatives: [
      "sntrys" + "_" + noise(90, 209) + "_" + noise(43, 210),
      "sntrys" + "_" + sentryClaim + "_" + noise(42, 211) + " too short"
    ]
  },
  {
    rule: "sentry-user-token",
    positives: [...bare(sentryUser), ...some("SENTRY_AUTH_TOKEN", sentryUser, 1)],
    negatives: ["sntryu" + "_" + fold(63, 212, hex) + " short", "sntryu" + "_" + "a".repeat(64)]
  },
  {
    rule: "sentry-access-token",
    positives: assigned("SENTRY_AUTH_TOKEN", sentryLegacy),
    negatives: ["SENTRY_RELEASE=" + fold(40, 213, hex), "SENTRY_AUTH_TOKEN=" + "f".repeat(64)]
  },
  {
    rule: "sentry-dsn",
    positives: [
      {
        text: `SENTRY_DSN=https://${sentryKey}@o4505.ingest.sentry.io/4506`,
        secret: sentryKey,
        kept: "@o4505.ingest.sentry.io/4506"
      },
      {
        text: `Sentry.init({ dsn: "https://${sentryKey}@o12.ingest.us.sentry.io/34", tracesSampleRate: 1 })`,
        secret: sentryKey,
        kept: "https://"
      },
      {
        text: `dsn: http://${sentryKey}@o7.ingest.de.sentry.io/8\n`,
        secret: sentryKey,
        kept: "@o7.ingest.de.sentry.io/8"
      }
    ],
    negatives: [
      "https://public@sentry.example.com/1",
      `https://${fold(31, 214, hex)}@o12.ingest.sentry.io/3`,
      "POST https://o12.ingest.sentry.io/api/3/envelope/"
    ]
  },
  {
    rule: "new-relic-api-key",
    positives: [...bare(newRelicUser), ...some("NEW_RELIC_API_KEY", newRelicUser, 1), {
      text: `newrelic_user_key = "${"NRAA" + "-" + noise(27, 215, upper)}"`,
      secret: "NRAA" + "-" + noise(27, 215, upper)
    }],
    negatives: ["NRAK" + "-" + noise(26, 216, upper) + " short", "NRAK" + "-" + "X".repeat(27)]
  },
  {
    rule: "new-relic-insert-key",
    positives: [...bare(newRelicInsert), ...some("NEW_RELIC_INSERT_KEY", newRelicInsert, 1)],
    negatives: ["NRII" + "-" + "x".repeat(32), "NRII" + "-" + noise(20, 217)]
  },
  {
    rule: "new-relic-browser-key",
    positives: [...bare(newRelicBrowser), {
      text: `<script>NREUM.info={licenseKey:"${newRelicBrowser}"}</script>`,
      secret: newRelicBrowser
    }],
    negatives: ["NRJS" + "-" + fold(18, 218, hex) + " short", "NRJS" + "-" + "0".repeat(19)]
  },
  {
    rule: "new-relic-license-key",
    positives: [...bare(newRelicLicense), ...some("NEW_RELIC_LICENSE_KEY", newRelicLicense, 2), {
      text: `newrelic.yml:\n  license_key: '${newRelicLicense}'`,
      secret: newRelicLicense
    }],
    negatives: ["x".repeat(36) + "NRAL", noise(35, 219, lower) + "NRAL" + " short", "the NRAL suffix"]
  },
  {
    rule: "okta-access-token",
    positives: [...assigned("OKTA_API_TOKEN", okta), { text: `"oktaApiToken": "${okta}",`, secret: okta }, {
      text: `var OktaApiToken = "${okta}";`,
      secret: okta
    }],
    negatives: [
      "oktaKey = 00000000000000000000000000000000000TUVWXYZ",
      "rookTable = " + "00" + fold(40, 220, base64url)
    ]
  },
  {
    rule: "dynatrace-api-token",
    positives: [...bare(dynatrace), ...some("DT_API_TOKEN", dynatrace, 1)],
    negatives: [
      "dt0c01" + "." + noise(23, 221, upper) + "." + noise(64, 222, upper),
      "dt0c01" + "." + "X".repeat(24) + "." + "X".repeat(64)
    ]
  },
  {
    rule: "fastly-api-token",
    positives: assigned("FASTLY_API_TOKEN", fastly),
    negatives: ["FASTLY_API_TOKEN=" + "x".repeat(32), "fastly_service_label: " + noise(20, 223)]
  },
  {
    rule: "sumologic-access-id",
    positives: [
      ...assigned("SUMO_TOKEN", sumoId),
      { text: `sumologic.accessKeyId = "${sumoId}"`, secret: sumoId },
      ...assigned("SUMO_ACCESS_ID", sumoId),
      { text: `sumologic.accessId = "${sumoId}"`, secret: sumoId, kept: "sumologic.accessId = \"" },
      { text: `export SUMOLOGIC_ACCESSID="${sumoId}"`, secret: sumoId }
    ],
    negatives: [
      `sumObj = ${sumoId}`,
      "sumOfExposures = sumOfExposures;",
      "export SUMOLOGIC_ACCESSID=XXXXXXXXXXXXXX",
      "SUMOLOGIC_ACCESSID: ${SUMOLOGIC_ACCESSID}",
      `MY_SUMO_ACCESS_ID_FILE=${sumoId}.txt`
    ]
  },
  {
    rule: "sumologic-access-key",
    positives: [...assigned("SUMO_ACCESS_KEY", sumoKey), { text: `SUMOLOGIC_ACCESSKEY: ${sumoKey}`, secret: sumoKey }],
    negatives: [
      "#   SUMO_ACCESS_KEY=" + "x".repeat(64),
      "SUMO_ACCESS_KEY=${SUMO_ACCESS_KEY:=$2}",
      `sumOfExposures = ${noise(64, 224)};`
    ]
  },
  {
    rule: "mapbox-secret-token",
    positives: [...bare(mapbox), ...some("MAPBOX_SECRET_TOKEN", mapbox, 1)],
    negatives: [
      "pk" + ".eyJ1IjoiYWNtZS" + fold(40, 225, base64url) + "." + fold(22, 226, base64url),
      "sk.eyJ1Ijoi.short"
    ]
  },
  {
    rule: "algolia-api-key",
    positives: assigned("ALGOLIA_API_KEY", algolia),
    negatives: [`ALGOLIA_INDEX_ID=${fold(32, 227, hex)}`, "ALGOLIA_API_KEY=" + "0".repeat(32)]
  },
  {
    rule: "adobe-client-id",
    positives: assigned("ADOBE_API_KEY", adobeId),
    negatives: ["ADOBE_API_KEY=" + "0".repeat(32), "adobe_version: 2024.1"]
  },
  {
    rule: "adobe-client-secret",
    positives: [...bare(adobeSecret), { text: `adobeClient := "${adobeSecret}"`, secret: adobeSecret }],
    negatives: ["p8e" + "-" + "x".repeat(32), "p8e" + "-" + noise(31, 228) + " short"]
  },
  {
    rule: "azure-storage-key",
    positives: [
      {
        text:
          `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${azureStorage};EndpointSuffix=core.windows.net`,
        secret: azureStorage,
        kept: ";EndpointSuffix=core.windows.net"
      },
      {
        text: `AZURE_STORAGE_ACCOUNT_KEY="${azureStorage}"`,
        secret: azureStorage,
        kept: "AZURE_STORAGE_ACCOUNT_KEY=\""
      },
      {
        text: `az storage blob list --account-name acme --account-key ${azureStorage} --container-name logs`,
        secret: azureStorage,
        kept: "--container-name logs"
      },
      {
        text: `AccountEndpoint=https://acme.documents.azure.com:443/;AccountKey=${azureStorage};`,
        secret: azureStorage,
        kept: "AccountEndpoint=https://acme.documents.azure.com:443/;AccountKey="
      },
      { text: `{"cosmosKey": "${azureStorage}"}`, secret: azureStorage }
    ],
    negatives: [
      "AccountKey=" + "x".repeat(86) + "==",
      "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${AZURE_STORAGE_KEY}",
      "storageKeyPrefix = \"logs/\""
    ]
  },
  {
    rule: "azure-shared-access-key",
    positives: [
      {
        text:
          `Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${azureShared}`,
        secret: azureShared,
        kept: "SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey="
      },
      {
        text:
          `Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${azureShared};EntityPath=hub`,
        secret: azureShared,
        kept: ";EntityPath=hub"
      },
      {
        text: `{"connectionString": "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKey=${azureShared}"}`,
        secret: azureShared
      }
    ],
    negatives: [
      "SharedAccessKey=" + "x".repeat(43) + "=",
      "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey"
    ]
  },
  {
    rule: "yandex-api-key",
    positives: [...bare(yandexApi), ...some("YC_API_KEY", yandexApi, 1)],
    negatives: ["AQVN" + "x".repeat(36), "AQVN" + fold(30, 229, base64url) + " short"]
  },
  {
    rule: "yandex-iam-token",
    positives: [...bare(yandexIam), { text: `yc iam create-token\n${yandexIam}\n`, secret: yandexIam }],
    negatives: ["t1.start(); t2.join()", "t1" + "." + fold(40, 230, base64url) + "." + fold(40, 231, base64url)]
  },
  {
    rule: "yandex-access-key",
    positives: assigned("YANDEX_SECRET_KEY", yandexSecret),
    negatives: ["YANDEX_ACCESS_KEY_ID=YCAJ" + fold(21, 232, base64url), "YANDEX_TOKEN=YC" + "x".repeat(38)]
  },
  {
    rule: "meraki-api-key",
    positives: assigned("MERAKI_DASHBOARD_API_KEY", meraki),
    negatives: ["ReactNativeCameraKit: " + fold(40, 233, hex), "meraki: aaaaaaaaaa1111111111bbbbbbbbbb2222222222"]
  },
  {
    rule: "maxmind-license-key",
    positives: [
      ...[0, 1, 3].map((i) => bare(maxmind)[i]!),
      ...some("MAXMIND_LICENSE_KEY", maxmind, 2),
      { text: `# GeoIP.conf\nAccountID 123456\nLicenseKey ${maxmind}\n`, secret: maxmind, kept: "LicenseKey " }
    ],
    negatives: ["xxxxxx_" + "x".repeat(29) + "_mmk", "cache_mmk.json"]
  },
  {
    rule: "scaleway-access-key",
    positives: [...bare(scalewayAccess), ...some("SCW_ACCESS_KEY", scalewayAccess, 1)],
    negatives: ["SCW" + "X".repeat(17), "SCW" + noise(16, 234, upper) + " short"]
  },
  {
    rule: "scaleway-secret-key",
    positives: [...assigned("SCW_SECRET_KEY", scalewaySecret), {
      text: `scaleway_secret_key = "${scalewaySecret}"`,
      secret: scalewaySecret
    }],
    negatives: [`SCW_DEFAULT_PROJECT_ID=${uuid(235)}`, `SCALEWAY_ORGANIZATION=${uuid(240)}`]
  },
  {
    rule: "linode-token",
    positives: assigned("LINODE_TOKEN", linode),
    negatives: ["LINODE_TOKEN=" + "0".repeat(64), "LINODE_REGION=us-east"]
  },
  {
    rule: "akamai-edgegrid-token",
    positives: [
      ...bare(akamaiClient),
      {
        text: `[default]\nclient_secret = ${fold(43, 283, base64)}=\nhost = akab-${noise(16, 277, lower)}-${
          noise(16, 278, lower)
        }.luna.akamaiapis.net\naccess_token = ${akamaiAccess}\nclient_token = ${akamaiClient}\n`,
        secret: akamaiAccess,
        kept: ".luna.akamaiapis.net"
      }
    ],
    negatives: [
      `host = akab-${noise(16, 279, lower)}-${noise(16, 280, lower)}.luna.akamaiapis.net`,
      "ak" + "ab-" + "x".repeat(16) + "-" + "x".repeat(16)
    ]
  },
  {
    rule: "confluent-api-secret",
    positives: assigned("CONFLUENT_API_SECRET", confluentSecret),
    negatives: ["CONFLUENT_API_SECRET=" + "x".repeat(64), "CONFLUENT_ENV=env-" + noise(5, 281, lower)]
  },
  {
    rule: "confluent-api-key",
    positives: assigned("CONFLUENT_API_KEY", confluentKey),
    negatives: ["CONFLUENT_API_KEY=" + "X".repeat(16), "CONFLUENT_CLUSTER=lkc-" + noise(5, 282, lower)]
  },
  {
    rule: "azure-openai-key",
    positives: [...assigned("AZURE_OPENAI_API_KEY", azureOpenai), {
      text: `azureOpenAiKey := "${azureOpenai}"`,
      secret: azureOpenai
    }],
    negatives: [
      "AZURE_OPENAI_API_KEY=" + "0".repeat(32),
      "AZURE_OPENAI_ENDPOINT=https://acme.openai.azure.com/"
    ]
  },
  {
    rule: "alibaba-access-key-id",
    positives: [...bare(alibabaId), { text: `alibabaKey := "${alibabaId}"`, secret: alibabaId }],
    negatives: ["LTAI" + "x".repeat(20), "LTAI" + noise(10, 245) + " short"]
  },
  {
    rule: "alibaba-secret-key",
    positives: [...assigned("ALIBABA_CLOUD_ACCESS_KEY_SECRET", alibabaSecret), {
      text: `ALIYUN_ACCESS_KEY_SECRET: ${alibabaSecret}`,
      secret: alibabaSecret
    }],
    negatives: ["ALIBABA_CLOUD_ACCESS_KEY_SECRET=" + "x".repeat(30), "alibaba_region = cn-hangzhou"]
  },
  {
    rule: "aws-bedrock-api-key",
    positives: [
      ...bare(bedrockLong),
      ...some("AWS_BEARER_TOKEN_BEDROCK", bedrockShort, 2).map((p) => ({ ...p, secret: bedrockPresigned })),
      { text: `curl -H "Authorization: Bearer ${bedrockShort}" https://bedrock-runtime`, secret: bedrockPresigned }
    ],
    negatives: [
      "AB" + "SK" + "QmVkcm9ja0FQSUtleS1" + "EXAMPLE".repeat(16) + "EXM=",
      "AB" + "SK" + fold(40, 246, base64) + " short",
      "bedrock" + "-api-key-YmVkcm9jay5hbWF6b25hd3MuY29x"
    ]
  },
  {
    rule: "planetscale-token",
    positives: [
      ...bare(pscaleToken),
      { text: `mysql://app:${pscalePassword}@aws.connect.psdb.cloud/db?sslaccept=strict`, secret: pscalePassword },
      { text: `PLANETSCALE_OAUTH=${pscaleOauth}`, secret: pscaleOauth, kept: "PLANETSCALE_OAUTH=" }
    ],
    negatives: ["pscale" + "_tkn_" + "x".repeat(40), "pscale" + "_pw_short"]
  },
  {
    rule: "vercel-token",
    positives: [...bare(vercel), ...some("VERCEL_TOKEN", vercelIntegration, 1)],
    negatives: ["vc" + "p_" + "x".repeat(40), "vc" + "p_" + noise(20, 247) + " short"]
  },
  {
    rule: "supabase-access-token",
    positives: [...bare(supabaseAccess), ...some("SUPABASE_ACCESS_TOKEN", supabaseAccess, 1)],
    negatives: ["sb" + "p_" + fold(39, 248, hex) + " short", "sb" + "p_" + "0".repeat(40)]
  },
  {
    rule: "supabase-secret-key",
    positives: [...bare(supabaseSecret), ...some("SUPABASE_SECRET_KEY", supabaseSecret, 1)],
    negatives: ["sb_" + "secret_" + "x".repeat(31), "sb_" + "publishable_" + fold(31, 249, base64url)]
  },
  {
    rule: "render-api-key",
    positives: [...bare(render), ...some("RENDER_API_KEY", render, 1)],
    negatives: ["rn" + "d_" + "x".repeat(32), "rn" + "d_" + noise(31, 250) + " short"]
  },
  {
    rule: "railway-token",
    positives: assigned("RAILWAY_TOKEN", railway),
    negatives: [`RAILWAY_PROJECT_ID=${uuid(251)}`, "RAILWAY_TOKEN=00000000-0000-0000-0000-000000000000"]
  },
  {
    rule: "neon-api-key",
    positives: [...bare(neon), ...some("NEON_API_KEY", neon, 1)],
    negatives: ["na" + "pi_" + "x".repeat(64), "na" + "pi_" + noise(40, 256, lower) + " short"]
  },
  {
    rule: "upstash-token",
    positives: assigned("UPSTASH_REDIS_REST_TOKEN", upstash),
    negatives: ["UPSTASH_REDIS_REST_URL=https://eu1-acme.upstash.io", "UPSTASH_REDIS_REST_TOKEN=" + "x".repeat(60)]
  },
  {
    rule: "perplexity-api-key",
    positives: [...bare(perplexity), ...some("PERPLEXITY_API_KEY", perplexity, 1)],
    negatives: ["PERPLEXITY_API_KEY=pplx-" + "x".repeat(48), "pp" + "lx-" + noise(47, 257) + " short"]
  },
  {
    rule: "cohere-api-key",
    positives: [...assigned("COHERE_API_KEY", cohere), { text: `export CO_API_KEY=${cohere}`, secret: cohere }],
    negatives: ["CO_API_KEY=" + "x".repeat(40), "ECO_API=" + noise(40, 258)]
  },
  {
    rule: "groq-api-key",
    positives: [...bare(groq), ...some("GROQ_API_KEY", groq, 1)],
    negatives: ["gs" + "k_" + "x".repeat(52), "regs" + "k_" + noise(52, 259)]
  },
  {
    rule: "xai-api-key",
    positives: [...bare(xai), ...some("XAI_API_KEY", xai, 1)],
    negatives: ["xa" + "i-" + "x".repeat(80), "xa" + "i-" + noise(60, 260) + " short"]
  },
  {
    rule: "replicate-api-token",
    positives: [...bare(replicate), ...some("REPLICATE_API_TOKEN", replicate, 1)],
    negatives: ["r8" + "_" + "x".repeat(37), "r8" + "_" + noise(36, 261) + " short"]
  },
  {
    rule: "mistral-api-key",
    positives: assigned("MISTRAL_API_KEY", mistral),
    negatives: ["MISTRAL_API_KEY=" + "x".repeat(32), "MISTRAL_MODEL=mistral-large-latest"]
  },
  {
    rule: "deepseek-api-key",
    positives: assigned("DEEPSEEK_API_KEY", deepseek),
    negatives: ["DEEPSEEK_API_KEY=sk-your-deepseek-key", "DEEPSEEK_MODEL=deepseek-chat"]
  },
  {
    rule: "openrouter-api-key",
    positives: [...bare(openrouter), ...some("OPENROUTER_API_KEY", openrouter, 1)],
    negatives: ["sk-" + "or-v1-" + fold(63, 262, hex) + " short", "sk-" + "or-v1-" + "0".repeat(64)]
  },
  {
    rule: "pinecone-api-key",
    positives: [...bare(pinecone), ...some("PINECONE_API_KEY", pinecone, 1)],
    negatives: ["pc" + "sk_" + "xxxxxx_" + "x".repeat(63), "pc" + "sk_" + noise(6, 263) + "_short"]
  },
  {
    rule: "langsmith-api-key",
    positives: [...bare(langsmith), ...some("LANGSMITH_API_KEY", langsmith, 1)],
    negatives: [
      "lsv2" + "_pt_" + "0".repeat(32) + "_" + "0".repeat(10),
      "lsv2" + "_pt_" + fold(31, 264, hex) + "_" + fold(10, 265, hex)
    ]
  },
  {
    rule: "tavily-api-key",
    positives: [...bare(tavily), ...some("TAVILY_API_KEY", tavilyDev, 1)],
    negatives: ["tv" + "ly-" + "x".repeat(32), "tv" + "ly-dev-" + noise(10, 266) + " short"]
  },
  {
    rule: "firecrawl-api-key",
    positives: [...bare(firecrawl), ...some("FIRECRAWL_API_KEY", firecrawl, 1)],
    negatives: [".fc-button-primary { color: red }", "fc" + "-" + fold(31, 267, hex) + " short"]
  },
  {
    rule: "exa-api-key",
    positives: assigned("EXA_API_KEY", exa),
    negatives: ["EXA_API_KEY=00000000-0000-0000-0000-000000000000", "exa_api_base=https://api.exa.ai"]
  },
  {
    rule: "elevenlabs-api-key",
    positives: [...bare(elevenlabs), ...some("ELEVENLABS_API_KEY", elevenlabs, 1)],
    negatives: ["sk" + "_" + fold(47, 268, hex) + " short", "sk" + "_" + "0".repeat(48)]
  },
  {
    rule: "deepgram-api-key",
    positives: assigned("DEEPGRAM_API_KEY", deepgram),
    negatives: ["DEEPGRAM_API_KEY=" + "0".repeat(40), "DEEPGRAM_MODEL=nova-3"]
  },
  {
    rule: "assemblyai-api-key",
    positives: assigned("ASSEMBLYAI_API_KEY", assemblyai),
    negatives: ["ASSEMBLYAI_API_KEY=" + "0".repeat(32), "assemblyai_region: eu"]
  },
  {
    rule: "jwt",
    positives: [
      ...bare(wrappedJwt),
      { text: `SESSION=${wrappedJwt}\n`, secret: wrappedJwt, kept: "SESSION=" },
      { text: `X-Forwarded-Jwt: ${encode(jwtInside, true)}`, secret: encode(jwtInside, true) }
    ],
    negatives: [
      "ZXlK" + "hello",
      encode("eyJ" + "hbGciOiJIUzI1NiJ9 is a header, not a token"),
      "ZXlK" + fold(60, 269, base64)
    ]
  }
]

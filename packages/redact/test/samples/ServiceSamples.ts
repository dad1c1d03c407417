import { alnum, hex, noise } from "../Noise.js"
import type { Positive, RuleSamples } from "../RuleSamples.js"
import { assigned, bare } from "../RuleSamples.js"

const digits = "0123456789"
const lower = "abcdefghijklmnopqrstuvwxyz0123456789"
const b64url = alnum + "_-"
const upperHex = "0123456789ABCDEF"

const uuid = (seed: number): string =>
  `${noise(8, seed, hex)}-${noise(4, seed + 1, hex)}-${noise(4, seed + 2, hex)}-${noise(4, seed + 3, hex)}-${
    noise(12, seed + 4, hex)
  }`

/** An id of `length` digits that starts with `1`: no card issuer or phone shape. */
const id = (length: number, seed: number): string => "1" + noise(length - 1, seed, digits)

/** A secret assigned to a key naming its service, plus the service's own contexts. */
const keyedSamples = (
  rule: string,
  key: string,
  secret: string,
  negatives: ReadonlyArray<string>,
  extra: ReadonlyArray<Positive> = []
): RuleSamples => ({ rule, positives: [...assigned(key, secret), ...extra], negatives })

/** A token with a prefix of its own: in free text, and in the service's own contexts. */
const tokenSamples = (
  rule: string,
  secret: string,
  negatives: ReadonlyArray<string>,
  extra: ReadonlyArray<Positive> = []
): RuleSamples => ({ rule, positives: [...bare(secret), ...extra], negatives })

/** Free text without the `X-Token:` header, whose generic rule names what it finds before a mid-token trigger can. */
const unkeyed = (secret: string): ReadonlyArray<Positive> => bare(secret).filter((p) => !p.text.includes("X-Token"))

// ---------------------------------------------------------------------------
// commerce and payments
// ---------------------------------------------------------------------------

const shopify = "shp" + "at_" + noise(32, 101, hex)
const shopifySecret = "shp" + "ss_" + noise(32, 102, hex)
const woo = "c" + "k_" + noise(40, 103, hex)
const wooSecret = "c" + "s_" + noise(40, 104, hex)
const squareEaaa = "EA" + "AA" + noise(60, 105, b64url)
const squareAtp = "sq0" + "atp-" + noise(22, 106, b64url)
const squareCsp = "sq0" + "csp-" + noise(43, 107, b64url)
const braintree = "access_token$" + "production$" + noise(16, 108, lower) + "$" + noise(32, 109, hex)
const gocardless = "li" + "ve_" + noise(40, 110, b64url)
const flwSecret = "FLW" + "SECK-" + noise(32, 111, hex) + "-X"
const flwPublic = "FLW" + "PUBK_TEST-" + noise(32, 112, hex) + "-X"
const flwEncryption = "FLW" + "SECK_TEST" + noise(12, 113, hex)
const plaidToken = "access-" + "sandbox-" + uuid(114)
const plaidSecret = noise(30, 119, hex)
const razorpay = noise(24, 120, alnum)
const twilio = noise(32, 121, hex)
const coinbase = noise(64, 122, b64url)
const coinbaseCdp = noise(86, 123, alnum + "+/") + "=="
const kraken = noise(86, 124, alnum + "+/") + "=="
const kucoinKey = noise(24, 125, hex)
const kucoinSecret = uuid(126)
const bittrex = noise(32, 131, lower)
const finicity = noise(32, 132, hex)
const finicitySecret = noise(20, 133, alnum)
const finnhub = noise(20, 134, lower)
const freshbooks = noise(64, 135, alnum)
const freemius = "s" + "k_" + noise(29, 136, alnum + "#$&@*")
const etsy = noise(24, 137, lower)
const squarespace = uuid(138)

const commerce: ReadonlyArray<RuleSamples> = [
  tokenSamples("shopify-token", shopify, [
    "shp" + "at_" + "x".repeat(32),
    "shp" + "at_" + noise(31, 101, hex) + " is one digit short",
    "ashp" + "at_" + noise(32, 101, hex),
    "shp" + "at_" + noise(32, 101, "ghijklmnopqrstuvwxyz")
  ], [
    ...assigned("SHOPIFY_API_SECRET", shopifySecret),
    {
      text: `curl -H "X-Shopify-Access-Token: ${shopify}" https://shop.myshopify.com/admin/api/2024-01/shop.json`,
      secret: shopify,
      kept: "X-Shopify-Access-Token: "
    }
  ]),
  tokenSamples("woocommerce-key", woo, [
    "c" + "k_" + "x".repeat(40),
    "c" + "k_" + noise(40, 103, "abcdef"),
    "track_" + noise(40, 103, hex)
  ], [
    ...assigned("WOOCOMMERCE_CONSUMER_SECRET", wooSecret),
    { text: `GET /wp-json/wc/v3/orders?consumer_key=${woo}&per_page=5`, secret: woo, kept: "&per_page=5" }
  ]),
  tokenSamples("square-access-token", squareEaaa, [
    "aws-cli@sha256:eaaa7b11777babe28e6133a8b19ff71cea687e0d7f05158dee95a71f76ce3d00",
    "EA" + "AA" + "A".repeat(60),
    "sq0" + "atp-" + "x".repeat(30),
    "sq0" + "atp-" + "1234" + "####".repeat(6)
  ], [
    ...assigned("SQUARE_ACCESS_TOKEN", squareAtp),
    { text: `ARG token=${squareAtp}`, secret: squareAtp, kept: "ARG token=" }
  ]),
  tokenSamples("square-secret", squareCsp, [
    "sq0" + "csp-" + "x".repeat(43),
    "sq0" + "csp-" + noise(42, 107, b64url) + " is one short"
  ], [...assigned("SQUARE_APPLICATION_SECRET", squareCsp)]),
  tokenSamples("braintree-access-token", braintree, [
    "access_token$" + "sandbox$" + "x".repeat(16) + "$" + "x".repeat(32),
    "access_token$" + "production$" + noise(16, 108, lower) + "$" + noise(31, 109, hex) + " short"
  ], [
    ...assigned("BRAINTREE_ACCESS_TOKEN", braintree),
    { text: `new braintree.BraintreeGateway({ accessToken: "${braintree}" })`, secret: braintree }
  ]),
  tokenSamples("gocardless-api-token", gocardless, [
    "li" + "ve_" + "x".repeat(40),
    "live_stream_configuration_for_the_main_cam",
    "sandbox_environment_config_for_the_2024_q1_demos",
    "deliver_" + noise(40, 110, b64url)
  ], [...assigned("GOCARDLESS_ACCESS_TOKEN", gocardless)]),
  tokenSamples("flutterwave-key", flwSecret, [
    "FLW" + "SECK-" + "x".repeat(32) + "-X",
    "FLW" + "SECK_TEST-" + noise(11, 113, hex) + " short"
  ], [
    ...assigned("FLW_PUBLIC_KEY", flwPublic),
    ...assigned("FLW_ENCRYPTION_KEY", flwEncryption)
  ]),
  tokenSamples("plaid-access-token", plaidToken, [
    "access-" + "sandbox-" + "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "see access-production-deployment-guide for details"
  ], [...assigned("PLAID_ACCESS_TOKEN", plaidToken)]),
  keyedSamples("plaid-secret", "PLAID_SECRET", plaidSecret, [
    "PLAID_SECRET=" + "x".repeat(30),
    "PLAID_ENV_HASH=" + noise(29, 119, hex)
  ], [{ text: `plaidClient.secret = "${plaidSecret}"`, secret: plaidSecret, kept: `plaidClient.secret = "` }]),
  keyedSamples("razorpay-key-secret", "RAZORPAY_KEY_SECRET", razorpay, [
    "RAZORPAY_KEY_ID=" + "rzp" + "_test_" + noise(14, 120, alnum),
    "RAZORPAY_KEY_SECRET=" + "x".repeat(24)
  ]),
  keyedSamples("twilio-auth-token", "TWILIO_AUTH_TOKEN", twilio, [
    "TWILIO_ACCOUNT_SID=" + "A" + "C" + noise(32, 121, hex),
    "TWILIO_AUTH_TOKEN=" + "x".repeat(32)
  ], [{ text: `{"profiles": {"default": {"twilioAuthToken": "${twilio}"}}}`, secret: twilio }]),
  keyedSamples("coinbase-access-token", "COINBASE_API_SECRET", coinbase, [
    "COINBASE_API_SECRET=" + "x".repeat(64),
    "COINBASE_ACCOUNT=" + noise(63, 122, b64url)
  ], [{ text: `{"coinbaseCdpPrivateKey": "${coinbaseCdp}"}`, secret: coinbaseCdp }]),
  keyedSamples("kraken-access-token", "KRAKEN_PRIVATE_KEY", kraken, [
    "KRAKEN_PRIVATE_KEY=" + "x".repeat(86),
    "KRAKEN_PAIR=XBTUSD"
  ]),
  keyedSamples("kucoin-api-key", "KUCOIN_API_KEY", kucoinKey, [
    "KUCOIN_API_KEY=" + "x".repeat(24),
    "KUCOIN_SYMBOL=" + noise(23, 125, hex)
  ], [{ text: `KUCOIN_API_SECRET=${kucoinSecret}`, secret: kucoinSecret, kept: "KUCOIN_API_SECRET=" }]),
  keyedSamples("bittrex-api-key", "BITTREX_API_SECRET", bittrex, [
    "BITTREX_API_SECRET=" + "x".repeat(32),
    "BITTREX_MARKET=" + noise(32, 131, "abcdefghijklmnopqrstuvwxyz")
  ]),
  keyedSamples("finicity-api-token", "FINICITY_APP_KEY", finicity, [
    "FINICITY_APP_KEY=" + "x".repeat(32),
    "FINICITY_CUSTOMER=" + noise(31, 132, hex)
  ], [{ text: `FINICITY_PARTNER_SECRET=${finicitySecret}`, secret: finicitySecret }]),
  keyedSamples("finnhub-access-token", "FINNHUB_API_KEY", finnhub, [
    "FINNHUB_API_KEY=" + "x".repeat(20),
    "FINNHUB_SYMBOL=" + noise(19, 134, lower)
  ]),
  keyedSamples("freshbooks-access-token", "FRESHBOOKS_ACCESS_TOKEN", freshbooks, [
    "FRESHBOOKS_ACCESS_TOKEN=" + "x".repeat(64),
    "FRESHBOOKS_ACCOUNT=" + noise(63, 135, alnum)
  ]),
  {
    rule: "freemius-secret-key",
    positives: [
      { text: `$config = array(\n  "secret_key" => "${freemius}",\n);`, secret: freemius, kept: `"secret_key" => "` },
      { text: `fs_dynamic_init( array( 'id' => '1234', 'secret_key' => '${freemius}' ) );`, secret: freemius },
      { text: `'secret_key'=>'${freemius}'`, secret: freemius, kept: `'secret_key'=>'` }
    ],
    negatives: [
      `$config = array(\n  "other_key" => "sk_abcdefghijklmnopqrstuvwxyz123",\n);`,
      `'secret_key' => 'sk_${"x".repeat(29)}'`
    ]
  },
  keyedSamples("etsy-access-token", "ETSY_API_KEY", etsy, [
    `SetSysctl = "${noise(24, 137, lower)}"`,
    "\tif err := sysctl.SetSysctl(sysctlBridgeCallIPTables); err != nil {",
    "ETSY_SHOP=" + noise(24, 137, "abcdefghijklmnopqrstuvwxyz")
  ]),
  keyedSamples("squarespace-access-token", "SQUARESPACE_API_KEY", squarespace, [
    "SQUARESPACE_API_KEY=xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "SQUARESPACE_SITE=" + noise(8, 138, hex) + "-" + noise(4, 139, hex)
  ])
]

// ---------------------------------------------------------------------------
// shipping and travel
// ---------------------------------------------------------------------------

const lob = "te" + "st_" + noise(35, 201, hex)
const lobPub = "li" + "ve_pub_" + noise(31, 202, hex)
const easypost = "EZ" + "AK" + noise(54, 203, alnum)
const easypostTest = "EZ" + "TK" + noise(54, 204, alnum)
const shippo = "shippo_" + "live_" + noise(40, 205, hex)
const duffel = "duffel_" + "test_" + noise(43, 206, b64url)

const shipping: ReadonlyArray<RuleSamples> = [
  tokenSamples("lob-api-key", lob, [
    "test_user_authentication_flow_handler_v2",
    "te" + "st_" + "0".repeat(35),
    "te" + "st_" + noise(34, 201, hex) + " short"
  ], [...assigned("LOB_PUBLISHABLE_KEY", lobPub)]),
  tokenSamples("easypost-api-key", easypost, [
    "...6wqX6fNUXA/rYqRvfQ+EZ" + "AK" + noise(54, 203, alnum) + "/3VmWq/edti6...",
    "EZ" + "AK" + "x".repeat(54)
  ], [
    ...assigned("EASYPOST_TEST_API_KEY", easypostTest),
    { text: `example.com?t=${easypost}&q=1`, secret: easypost, kept: "&q=1" }
  ]),
  tokenSamples("shippo-api-token", shippo, [
    "shippo_" + "live_" + "x".repeat(40),
    "shippo_" + "live_" + noise(39, 205, hex) + " short"
  ], [...assigned("SHIPPO_API_TOKEN", shippo)]),
  tokenSamples("duffel-api-token", duffel, [
    "duffel_" + "test_" + "x".repeat(43),
    "duffel_" + "test_" + noise(42, 206, b64url) + " short"
  ], [...assigned("DUFFEL_ACCESS_TOKEN", duffel)])
]

// ---------------------------------------------------------------------------
// email and marketing
// ---------------------------------------------------------------------------

const mailgun = "ke" + "y-" + noise(32, 301, hex)
const mailgunPub = "pub" + "key-" + noise(32, 302, hex)
const mailgunSigning = noise(32, 303, hex) + "-" + noise(8, 304, hex) + "-" + noise(8, 305, hex)
const mailchimp = noise(32, 340, hex) + "-us" + "12"
const brevo = "xkey" + "sib-" + noise(64, 307, hex) + "-" + noise(16, 308, alnum)
const brevoSmtp = "xsmtp" + "sib-" + noise(64, 309, hex) + "-" + noise(16, 310, alnum)
const klaviyo = "p" + "k_" + noise(34, 311, hex)
const beamer = "b" + "_" + noise(44, 312, b64url)
const typeform = "tf" + "p_" + noise(44, 313, alnum) + "_" + noise(14, 314, alnum)
const hubspot = "pat-" + "na1-" + uuid(315)
const hubspotLegacy = uuid(320).toUpperCase()
const postmark = uuid(325)
const mailjet = noise(32, 330, hex)
const mandrill = noise(22, 331, b64url)
const segment = noise(32, 332, alnum)
const mixpanel = noise(32, 333, hex)
const amplitude = noise(32, 334, hex)

const marketing: ReadonlyArray<RuleSamples> = [
  tokenSamples("mailgun-api-key", mailgun, [
    "a key-value store keeps the cache",
    "ke" + "y-" + "0".repeat(32),
    "monkey-" + noise(32, 301, hex),
    "ke" + "y-" + noise(32, 301, "abcdef")
  ], [
    ...assigned("MAILGUN_API_KEY", mailgunPub),
    {
      text: `curl -s --user 'api:${mailgun}' https://api.mailgun.net/v3/mg.acme.io/messages`,
      secret: mailgun,
      kept: "--user 'api:"
    }
  ]),
  keyedSamples("mailgun-signing-key", "MAILGUN_WEBHOOK_SIGNING_KEY", mailgunSigning, [
    "MAILGUN_WEBHOOK_SIGNING_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-xxxxxxxx-xxxxxxxx",
    "MAILGUN_CHECKSUM=" + noise(32, 303, hex) + "-" + noise(8, 304, hex) + "-" + noise(7, 305, hex)
  ]),
  {
    rule: "mailchimp-api-key",
    positives: [
      ...unkeyed(mailchimp),
      ...assigned("MAILCHIMP_API_KEY", mailchimp),
      { text: `MAILCHIMP=${mailchimp}`, secret: mailchimp, kept: "MAILCHIMP=" }
    ],
    negatives: [
      noise(32, 306, hex) + "-users are listed",
      "x".repeat(32) + "-us12",
      "ab" + noise(32, 306, hex) + "-us12"
    ]
  },
  tokenSamples("brevo-api-key", brevo, [
    "xkey" + "sib-" + "x".repeat(64) + "-" + "x".repeat(16),
    "xkey" + "sib-" + noise(63, 307, hex) + "-" + noise(16, 308, alnum)
  ], [...assigned("BREVO_SMTP_KEY", brevoSmtp), ...assigned("SENDINBLUE_API_KEY", brevo)]),
  tokenSamples("klaviyo-private-key", klaviyo, [
    "p" + "k_" + "live_" + noise(24, 311, alnum),
    "p" + "k_" + noise(33, 311, hex) + " short",
    "p" + "k_" + "x".repeat(34)
  ], [...assigned("KLAVIYO_PRIVATE_KEY", klaviyo)]),
  tokenSamples("beamer-api-token", beamer, [
    "│   ├── R21A-A-V010SP13RC181024R16900-CN-B_250K-Release-OTA-97B6C6C59241976086FABDC41472150C.bfu",
    "b" + "_" + "x".repeat(44),
    "b_very_long_python_identifier_name_for_tests",
    "b_tree_index_rebuild_for_partition_2024_05_v31"
  ], [...assigned("BEAMER_API_KEY", beamer)]),
  tokenSamples("typeform-api-token", typeform, [
    "tf" + "p_" + "x".repeat(59),
    "tf" + "p_" + "your_token_here_" + noise(43, 313, alnum),
    "tf" + "p_" + "EXAMPLE" + noise(52, 313, alnum),
    "tf" + "p_" + noise(20, 313, alnum) + " short"
  ], [...assigned("TYPEFORM_TOKEN", typeform)]),
  tokenSamples("hubspot-access-token", hubspot, [
    "pat-" + "na1-" + "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "pat-testing-" + uuid(315)
  ], [...assigned("HUBSPOT_ACCESS_TOKEN", hubspot)]),
  keyedSamples("hubspot-api-key", "HUBSPOT_API_KEY", hubspotLegacy, [
    "HUBSPOT_API_KEY=xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "HUBSPOT_PORTAL=" + noise(8, 320, hex)
  ], [{ text: `const hubspotKey = "${hubspotLegacy}"`, secret: hubspotLegacy }]),
  keyedSamples("postmark-api-token", "POSTMARK_SERVER_TOKEN", postmark, [
    "POSTMARK_SERVER_TOKEN=xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "POSTMARK_STREAM=outbound"
  ], [{
    text: `curl -H "X-Postmark-Server-Token: ${postmark}" https://api.postmarkapp.com/email`,
    secret: postmark,
    kept: "X-Postmark-Server-Token: "
  }]),
  keyedSamples("mailjet-api-key", "MJ_APIKEY_PRIVATE", mailjet, [
    "MJ_APIKEY_PRIVATE=" + "x".repeat(32),
    "MAILJET_LIST=" + noise(31, 330, hex)
  ], [...assigned("MAILJET_SECRET_KEY", mailjet)]),
  keyedSamples("mandrill-api-key", "MANDRILL_API_KEY", mandrill, [
    "MANDRILL_API_KEY=" + "x".repeat(22),
    "MANDRILL_TEMPLATE=welcome-email"
  ]),
  keyedSamples("segment-api-key", "SEGMENT_WRITE_KEY", segment, [
    "SEGMENT_WRITE_KEY=" + "x".repeat(32),
    "segment_name = " + noise(32, 332, "abcdefghijklmnopqrstuvwxyz")
  ]),
  keyedSamples("mixpanel-secret", "MIXPANEL_API_SECRET", mixpanel, [
    "MIXPANEL_API_SECRET=" + "x".repeat(32),
    "MIXPANEL_EVENT=signup_completed"
  ]),
  keyedSamples("amplitude-api-key", "AMPLITUDE_API_KEY", amplitude, [
    "AMPLITUDE_API_KEY=" + "x".repeat(32),
    "amplitude = 0.75 * " + noise(32, 334, "abcdef")
  ])
]

// ---------------------------------------------------------------------------
// messaging
// ---------------------------------------------------------------------------

const discordBot = "MT" + noise(24, 401, b64url) + "." + noise(6, 402, b64url) + "." + noise(38, 403, b64url)
const discordSecret = noise(32, 404, b64url)
const discordHookId = id(19, 405)
const discordHookToken = noise(68, 406, b64url)
const telegram = id(10, 407) + ":AA" + noise(33, 408, b64url)
const teamsSecret = noise(32, 409, alnum)
const teamsUrl = (host: string): string =>
  `https://${host}/webhookb2/${uuid(410)}@${uuid(415)}/IncomingWebhook/${teamsSecret}/${uuid(420)}`
const workflowSig = noise(43, 425, b64url)
const powerPlatform = `https://default${noise(30, 426, hex)}.0a.environment.api.power` +
  `platform.com:443/powerautomate/automations/direct/workflows/${
    noise(32, 427, hex)
  }/triggers/manual/paths/invoke?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=${workflowSig}`
const logicApps = `https://prod-27.westeurope.logic.azure.com:443/workflows/${
  noise(32, 428, hex)
}/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=${workflowSig}`
const sendbird = noise(40, 438, hex)
const messagebird = noise(25, 431, alnum)
const vonage = noise(16, 432, alnum)
const plivo = noise(40, 433, alnum)
const pusher = noise(20, 434, hex)
const intercom = "dG9r" + "Oj" + noise(54, 435, alnum) + "="
const zendesk = noise(40, 436, alnum)
const zoom = noise(32, 437, alnum)

const messaging: ReadonlyArray<RuleSamples> = [
  {
    rule: "discord-bot-token",
    positives: [
      ...unkeyed(discordBot),
      ...assigned("DISCORD_BOT_TOKEN", discordBot),
      { text: `client.login("${discordBot}");`, secret: discordBot, kept: `client.login("` }
    ],
    negatives: [
      "MT" + "x".repeat(24) + ".xxxxxx." + "x".repeat(38),
      "MT" + noise(18, 401, b64url) + "." + noise(6, 402, b64url) + "." + noise(38, 403, b64url),
      "Node.prototype.hasOwnProperty.call(object, key)"
    ]
  },
  keyedSamples("discord-client-secret", "DISCORD_CLIENT_SECRET", discordSecret, [
    "discord=00000000000000000000000000000000",
    "DISCORD_GUILD=" + noise(31, 404, b64url)
  ]),
  {
    rule: "discord-webhook",
    positives: [
      {
        text: `posting to https://discord.com/api/webhooks/${discordHookId}/${discordHookToken} failed`,
        secret: discordHookToken,
        kept: `https://discord.com/api/webhooks/${discordHookId}/`
      },
      {
        text: `DISCORD_WEBHOOK_URL=https://discordapp.com/api/webhooks/${discordHookId}/${discordHookToken}\n`,
        secret: discordHookToken,
        kept: "DISCORD_WEBHOOK_URL=https://discordapp.com/api/webhooks/"
      },
      {
        text:
          `curl -X POST -d '{"content":"hi"}' "https://canary.discord.com/api/v10/webhooks/${discordHookId}/${discordHookToken}"`,
        secret: discordHookToken
      }
    ],
    negatives: [
      `https://discord.com/api/webhooks/${discordHookId}/${"x".repeat(68)}`,
      `https://chat.acme.io/api/webhooks/${discordHookId}/${discordHookToken}`
    ]
  },
  {
    rule: "telegram-bot-token",
    positives: [
      ...bare(telegram),
      ...assigned("TELEGRAM_BOT_TOKEN", telegram),
      {
        text: `GET https://api.telegram.org/bot${telegram}/sendMessage?chat_id=42`,
        secret: telegram,
        kept: "https://api.telegram.org/bot"
      },
      { text: `telegram bot: ${telegram}`, secret: telegram }
    ],
    negatives: [
      `<xsd:element name="AgencyIdentificationCode" type="clm${id(5, 407)}:AgencyIdentificationCodeContentType"/>`,
      `bot id ${id(4, 407)}:AA${noise(33, 408, b64url)} is too short`,
      `bot ${id(8, 407)}:A${noise(34, 408, b64url)}hello`,
      `${id(9, 407)}:AA${"x".repeat(33)}`
    ]
  },
  {
    rule: "microsoft-teams-webhook",
    positives: [
      {
        text: `POST ${teamsUrl("contoso.webhook.office.com")} 200`,
        secret: teamsSecret,
        kept: "https://contoso.webhook.office.com/webhookb2/"
      },
      { text: `TEAMS_WEBHOOK_URL="${teamsUrl("acme.webhook.office.com")}"`, secret: teamsSecret },
      {
        text: `curl -H 'Content-Type: application/json' -d '{"text":"deployed"}' ${
          teamsUrl("outlook.office.com").replace("webhookb2", "webhook")
        }`,
        secret: teamsSecret
      },
      { text: `${teamsUrl("acme.webhook.office.com")}/V2${noise(40, 429, b64url)}`, secret: teamsSecret }
    ],
    negatives: [
      "https://outlook.office.com/webhook/<GUID>@<GUID>/IncomingWebhook/<ID>/<GUID>",
      `https://acme.webhook.office.com/webhookb2/${uuid(410)}@${uuid(415)}/IncomingWebhook/${"x".repeat(32)}/${
        uuid(420)
      }`
    ]
  },
  {
    rule: "microsoft-teams-workflow-webhook",
    positives: [
      { text: `POST ${powerPlatform} -> 202`, secret: workflowSig, kept: "&sv=1.0&sig=" },
      { text: `TEAMS_WORKFLOW_URL="${logicApps}"`, secret: workflowSig, kept: "/triggers/manual/paths/invoke?" },
      { text: `{"webhookUrl": "${powerPlatform}"}`, secret: workflowSig }
    ],
    negatives: [
      powerPlatform.slice(0, powerPlatform.indexOf("&sig=")),
      logicApps.replace(workflowSig, "x".repeat(43))
    ]
  },
  keyedSamples("sendbird-access-token", "SENDBIRD_API_TOKEN", sendbird, [
    "SENDBIRD_API_TOKEN=" + "x".repeat(40),
    "SENDBIRD_CHANNEL=" + noise(39, 430, hex)
  ], [{ text: `const sendbirdApiToken = "${sendbird}"`, secret: sendbird }]),
  keyedSamples("messagebird-api-key", "MESSAGEBIRD_API_KEY", messagebird, [
    "MESSAGEBIRD_API_KEY=" + "x".repeat(25),
    "message_bird_originator = AcmeAlertsServiceSender"
  ], [{ text: `message-bird-key: ${messagebird}`, secret: messagebird }]),
  keyedSamples("vonage-api-secret", "VONAGE_API_SECRET", vonage, [
    "VONAGE_API_SECRET=" + "x".repeat(16),
    "NEXMO_BRAND=AcmeNotifications"
  ], [...assigned("NEXMO_API_SECRET", vonage)]),
  keyedSamples("plivo-auth-token", "PLIVO_AUTH_TOKEN", plivo, [
    "PLIVO_AUTH_TOKEN=" + "x".repeat(40),
    "PLIVO_NUMBER_ALIAS=" + noise(39, 433, alnum)
  ]),
  keyedSamples("pusher-secret", "PUSHER_APP_SECRET", pusher, [
    "PUSHER_APP_SECRET=" + "x".repeat(20),
    "PUSHER_CLUSTER=eu"
  ]),
  keyedSamples("intercom-access-token", "INTERCOM_ACCESS_TOKEN", intercom, [
    "INTERCOM_ACCESS_TOKEN=" + "x".repeat(60),
    "INTERCOM_WORKSPACE=acme-support",
    "dG9r" + "Oj" + "A".repeat(54)
  ], [
    { text: `curl -H "Authorization: Bearer ${intercom}" https://api.intercom.io/me`, secret: intercom },
    { text: `intercom token ${intercom} rotated`, secret: intercom, kept: "intercom token " }
  ]),
  keyedSamples("zendesk-api-token", "ZENDESK_API_TOKEN", zendesk, [
    "ZENDESK_API_TOKEN=" + "x".repeat(40),
    "ZENDESK_SUBDOMAIN=" + noise(40, 436, "abcdefghijklmnopqrstuvwxyz")
  ]),
  keyedSamples("zoom-secret", "ZOOM_CLIENT_SECRET", zoom, [
    "ZOOM_CLIENT_SECRET=" + "x".repeat(32),
    "zoomLevel = " + noise(32, 437, "abcdefghijklmnopqrstuvwxyz")
  ])
]

// ---------------------------------------------------------------------------
// social
// ---------------------------------------------------------------------------

const twitterBearer = "A".repeat(21) + noise(40, 501, alnum) + "%2B" + noise(30, 502, alnum) + "%3D" +
  noise(40, 503, alnum)
const twitterKey = noise(25, 504, alnum)
const twitterSecret = noise(50, 505, alnum)
const twitterAccess = id(19, 506) + "-" + noise(40, 507, alnum)
const facebook = "EA" + "AG" + noise(180, 508, alnum)
const facebookApp = id(15, 509) + "|" + noise(27, 510, b64url)
const facebookSecret = noise(32, 511, hex)
const linkedin = noise(16, 512, alnum)
const linkedinNew = "WPL" + "_AP1." + noise(16, 513, alnum) + "." + noise(8, 514, alnum) + "=="
const twitch = noise(30, 515, lower)
const flickr = noise(32, 516, hex)
const nytimes = noise(32, 517, alnum)

const social: ReadonlyArray<RuleSamples> = [
  tokenSamples("twitter-bearer-token", twitterBearer, [
    "A".repeat(120),
    "A".repeat(21) + noise(50, 501, alnum) + " short"
  ], [
    ...assigned("TWITTER_BEARER_TOKEN", twitterBearer),
    { text: `Authorization: Bearer ${twitterBearer}`, secret: twitterBearer, kept: "Authorization: Bearer " }
  ]),
  keyedSamples("twitter-api-key", "TWITTER_CONSUMER_KEY", twitterKey, [
    "TWITTER_HANDLE=someveryverylonghandlenamehere",
    "TWITTER_CONSUMER_KEY=" + "x".repeat(25)
  ], [{ text: `twitter_api_secret: ${twitterSecret}`, secret: twitterSecret, kept: "twitter_api_secret: " }]),
  keyedSamples("twitter-access-token", "TWITTER_ACCESS_TOKEN", twitterAccess, [
    "TWITTER_ACCESS_TOKEN=" + "x".repeat(19) + "-" + "x".repeat(40),
    "TWITTER_THREAD=" + id(19, 506) + "-" + noise(8, 507, alnum)
  ]),
  tokenSamples("facebook-access-token", facebook, [
    "eaaaC0b75a9329fded2ffa9a02b47e0117831b82",
    "EA" + "AG" + "A".repeat(120),
    "EA" + "AG" + noise(60, 508, alnum) + " short"
  ], [
    ...assigned("FACEBOOK_PAGE_TOKEN", facebook),
    { text: `GET https://graph.facebook.com/v19.0/me?access_token=${facebook}`, secret: facebook }
  ]),
  {
    rule: "facebook-app-access-token",
    positives: [
      ...unkeyed(facebookApp),
      { text: `facebook ${facebookApp}`, secret: facebookApp, kept: "facebook " },
      { text: `FB_APP=${facebookApp}`, secret: facebookApp, kept: "FB_APP=" }
    ],
    negatives: [
      "| name | value | description |\n|------|-------|-------------|",
      `${id(14, 509)}|${noise(27, 510, b64url)}`,
      `${id(15, 509)}|${"x".repeat(27)}`
    ]
  },
  keyedSamples("facebook-secret", "FACEBOOK_APP_SECRET", facebookSecret, [
    "FACEBOOK_APP_SECRET=" + "x".repeat(32),
    "FACEBOOK_PIXEL_HASH=" + noise(31, 511, hex)
  ], [{ text: `facebook_client_access_token: ${facebookSecret}`, secret: facebookSecret }]),
  keyedSamples("linkedin-client-secret", "LINKEDIN_CLIENT_SECRET", linkedin, [
    "LINKEDIN_CLIENT_SECRET=" + "x".repeat(16),
    "LINKEDIN_PROFILE=johnsmithprofile"
  ], [...assigned("LINKED_IN_CLIENT_SECRET", linkedinNew)]),
  keyedSamples("twitch-api-token", "TWITCH_CLIENT_SECRET", twitch, [
    "TWITCH_CLIENT_SECRET=" + "x".repeat(30),
    "TWITCH_CHANNEL=" + noise(30, 515, "abcdefghijklmnopqrstuvwxyz")
  ], [{ text: `TWITCH_OAUTH_TOKEN=oauth:${twitch}`, secret: twitch, kept: "TWITCH_OAUTH_TOKEN=" }]),
  keyedSamples("flickr-access-token", "FLICKR_API_KEY", flickr, [
    "FLICKR_API_KEY=" + "x".repeat(32),
    "FLICKR_ALBUM=" + noise(31, 516, hex)
  ]),
  keyedSamples("nytimes-access-token", "NYTIMES_API_KEY", nytimes, [
    "NYTIMES_API_KEY=" + "x".repeat(32),
    "NYTIMES_SECTION=technology"
  ])
]

// ---------------------------------------------------------------------------
// productivity and developer SaaS
// ---------------------------------------------------------------------------

const airtable = "pa" + "t" + noise(14, 601, alnum) + "." + noise(64, 602, hex)
const airtableLegacy = "ke" + "y" + noise(14, 603, alnum)
const asana = "2/" + id(16, 604) + "/" + id(16, 605) + ":" + noise(32, 606, hex)
const asanaSecret = noise(32, 607, alnum)
const contentful = "CFP" + "AT-" + noise(43, 608, b64url)
const contentfulDelivery = noise(43, 609, b64url)
const trello = "AT" + "TA" + noise(64, 610, hex) + noise(8, 611, upperHex)
const trelloKey = noise(32, 612, hex)
const trelloLegacy = noise(64, 613, hex)
const adafruit = "ai" + "o_" + noise(28, 614, alnum)
const adafruitLegacy = noise(32, 615, hex)
const rapidapi = noise(50, 616, b64url)

const productivity: ReadonlyArray<RuleSamples> = [
  {
    rule: "airtable-access-token",
    positives: [...unkeyed(airtable), ...assigned("AIRTABLE_TOKEN", airtable), {
      text: `const base = new Airtable({ apiKey: process.env.X }).base("app1")\n// ${airtable}`,
      secret: airtable
    }],
    negatives: [
      "pa" + "t" + noise(14, 601, alnum) + "." + noise(63, 602, hex) + " short",
      "path" + noise(13, 601, alnum) + "." + noise(64, 602, "ghijklmnopqrstuvwxyz"),
      "pa" + "t" + "x".repeat(14) + "." + "0".repeat(64)
    ]
  },
  keyedSamples("airtable-api-key", "AIRTABLE_API_KEY", airtableLegacy, [
    "AIRTABLE_API_KEY=" + "x".repeat(17),
    "AIRTABLE_BASE=appointmentsbase"
  ]),
  keyedSamples("asana-access-token", "ASANA_ACCESS_TOKEN", asana, [
    "ASANA_ACCESS_TOKEN=" + "x".repeat(32),
    "ASANA_PROJECT=quarterly-planning-board"
  ], [{ text: `ASANA_CLIENT_SECRET=${asanaSecret}`, secret: asanaSecret }]),
  tokenSamples("contentful-token", contentful, [
    "CFP" + "AT-" + "x".repeat(43),
    "CFP" + "AT-" + noise(42, 608, b64url) + " short"
  ], [...assigned("CONTENTFUL_MANAGEMENT_TOKEN", contentful)]),
  keyedSamples("contentful-delivery-token", "CONTENTFUL_DELIVERY_TOKEN", contentfulDelivery, [
    "CONTENTFUL_DELIVERY_TOKEN=" + "x".repeat(43),
    "CONTENTFUL_SPACE=" + noise(12, 609, lower)
  ]),
  tokenSamples("trello-token", trello, [
    "AT" + "TA" + "x".repeat(72),
    "ATTACHMENT_STORAGE_BUCKET_NAME"
  ], [...assigned("TRELLO_TOKEN", trello)]),
  keyedSamples("trello-api-key", "TRELLO_API_KEY", trelloKey, [
    "TRELLO_API_KEY=" + "x".repeat(32),
    "TRELLO_BOARD=" + noise(24, 612, hex)
  ], [{ text: `TRELLO_TOKEN=${trelloLegacy}`, secret: trelloLegacy, kept: "TRELLO_TOKEN=" }]),
  tokenSamples("adafruit-io-key", adafruit, [
    "ai" + "o_" + "x".repeat(28),
    "aio_http_client_session_pool_v2"
  ], [...assigned("ADAFRUIT_IO_KEY", adafruitLegacy), ...assigned("ADAFRUIT_IO_KEY", adafruit)]),
  keyedSamples("rapidapi-key", "RAPIDAPI_KEY", rapidapi, [
    "RAPIDAPI_KEY=" + "x".repeat(50),
    "X-RapidAPI-Host: weather.p.rapidapi.com"
  ], [{
    text: `curl -H "X-RapidAPI-Key: ${rapidapi}" https://weather.p.rapidapi.com/current`,
    secret: rapidapi,
    kept: "X-RapidAPI-Key: "
  }])
]

export const service: ReadonlyArray<RuleSamples> = [
  ...commerce,
  ...shipping,
  ...marketing,
  ...messaging,
  ...social,
  ...productivity
]

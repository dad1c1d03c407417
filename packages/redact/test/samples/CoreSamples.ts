import { alnum, base32, hex, noise } from "../Noise.js"
import type { Positive, RuleSamples } from "../RuleSamples.js"
import { assigned, bare } from "../RuleSamples.js"

/**
 * Samples of the original rules of `SecretRules`: the vendor tokens of the
 * first catalogue and the contextual rules (URL passwords, headers, curl,
 * `.npmrc`, AWS and GCP key files, generic assignments).
 */

const base64 = alnum + "+/"
const base64url = alnum + "_-"
const digits = "0123456789"
const lowerAlnum = "abcdefghijklmnopqrstuvwxyz0123456789"

/**
 * `noise` drawn from the 62 letters and digits, then folded onto
 * `alphabet`: drawn straight from a 16- or 32-character alphabet, `noise`
 * repeats itself (`e6e6e6…`) and reads as a placeholder.
 */
const spread = (length: number, seed: number, alphabet: string): string =>
  [...noise(length, seed)].map((c, i) => alphabet[(alnum.indexOf(c) * 5 + i * 3) % alphabet.length]!).join("")

const uuid = (seed: number): string =>
  [
    spread(8, seed, hex),
    spread(4, seed + 1, hex),
    spread(4, seed + 2, hex),
    spread(4, seed + 3, hex),
    spread(
      12,
      seed + 4,
      hex
    )
  ].join("-")

/** A positive whose secret is a part of the text, with `kept` around it. */
const inText = (text: string, secret: string, kept?: string): Positive => ({ text, secret, kept })

// ---------------------------------------------------------------------------
// private keys
// ---------------------------------------------------------------------------

const pemLines = (seed: number, lines: number): string =>
  Array.from({ length: lines }, (_, i) => spread(64, seed + i, base64)).join("\n")
const pem = (label: string, body: string): string => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`
const rsaBody = pemLines(1001, 6) + "\n" + spread(40, 1008, base64) + "=="
const pkcs8Body = pemLines(1010, 4)
const ecBody = pemLines(1020, 3)
const opensshBody = "b3BlbnNzaC1rZXktdjEAAAAA" + spread(40, 1030, base64) + "\n" + pemLines(1031, 3)
const encryptedBody = `Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,${spread(32, 1040, hex).toUpperCase()}\n\n${
  pemLines(1041, 3)
}`

const privateKey: RuleSamples = {
  rule: "private-key",
  positives: [
    inText(`${pem("RSA PRIVATE KEY", rsaBody)}\n`, rsaBody),
    inText(
      `SSH_PRIVATE_KEY="${
        pem("OPENSSH PRIVATE KEY", opensshBody).replaceAll("\n", "\\n")
      }"\nDEPLOY_HOST=git.internal\n`,
      opensshBody,
      "DEPLOY_HOST=git.internal"
    ),
    inText(
      `{"type": "service_account", "project_id": "demo", "private_key": "${
        pem("PRIVATE KEY", pkcs8Body).replaceAll("\n", "\\n")
      }\\n", "token_uri": "https://oauth2.googleapis.com/token"}`,
      pkcs8Body,
      `"private_key": "`
    ),
    inText(
      `tls:\n  key: |\n    ${pem("EC PRIVATE KEY", ecBody).replaceAll("\n", "\n    ")}\n  cert: server.crt\n`,
      ecBody,
      "  cert: server.crt"
    ),
    inText(
      `2026-03-14T09:26:53Z WARN loaded ${pem("PRIVATE KEY", pkcs8Body).replaceAll("\n", " ")} from disk`,
      pkcs8Body,
      " from disk"
    ),
    inText(`${pem("RSA PRIVATE KEY", encryptedBody)}\n`, pemLines(1041, 3)),
    inText(
      `$ head -4 ~/.ssh/id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n${opensshBody}`,
      opensshBody,
      "$ head -4 ~/.ssh/id_ed25519"
    ),
    inText(`const key = \`${pem("PRIVATE KEY", pkcs8Body)}\`\nsign(payload, key)`, pkcs8Body, "sign(payload, key)")
  ],
  negatives: [
    pem("PUBLIC KEY", pemLines(1050, 3)) + "\n",
    pem("CERTIFICATE", pemLines(1060, 4)) + "\n",
    pem("PRIVATE KEY", "...") + "\n",
    pem("RSA PRIVATE KEY", "MIIE...(your key here)..."),
    `if (text.startsWith("-----BEGIN OPENSSH PRIVATE KEY-----")) return "openssh"`
  ]
}

// ---------------------------------------------------------------------------
// vendor tokens
// ---------------------------------------------------------------------------

const awsId = "AK" + "IA" + spread(16, 1101, base32)
const awsSession = "AS" + "IA" + spread(16, 1102, base32)

const awsAccessKeyId: RuleSamples = {
  rule: "aws-access-key-id",
  positives: [
    inText(`AWS_ACCESS_KEY_ID=${awsId}\nAWS_DEFAULT_REGION=eu-west-1\n`, awsId, "AWS_ACCESS_KEY_ID="),
    inText(`[default]\naws_access_key_id = ${awsId}\nregion = eu-west-1\n`, awsId, "aws_access_key_id = "),
    inText(
      `{"Credentials": {"AccessKeyId": "${awsSession}", "Expiration": "2026-03-14T10:26:53Z"}}`,
      awsSession,
      `"AccessKeyId": "`
    ),
    inText(`aws configure set aws_access_key_id ${awsId} --profile ci`, awsId, "aws configure set aws_access_key_id "),
    inText(`2026-03-14T09:26:53Z ERROR AccessDenied for ${awsSession} on arn:aws:s3:::logs`, awsSession, "ERROR"),
    inText(`provider "aws" {\n  access_key = "${awsId}"\n  region     = "eu-west-1"\n}`, awsId, `access_key = "`),
    inText(`new S3Client({ credentials: { accessKeyId: "${awsSession}" } })`, awsSession, `accessKeyId: "`)
  ],
  negatives: [
    "AWS_ACCESS_KEY_ID=" + "AK" + "IAIOSFODNN7EXAMPLE\nAWS_DEFAULT_REGION=us-west-2\n",
    "aws_access_key_id = " + "AK" + "IA" + "X".repeat(16),
    "2026-03-14 WARN key " + "AK" + "IA" + spread(15, 1103, base32) + " is too short",
    "id " + "AK" + "IA" + spread(8, 1104, base32) + "0189" + spread(4, 1105, base32) + " has digits outside base32",
    "aws_access_key_id = ${AWS_ACCESS_KEY_ID}\naws_access_key_id: {{ secrets.AWS_ACCESS_KEY_ID }}"
  ]
}

const ghClassic = "gh" + "p_" + noise(36, 1201)
const ghFine = "github" + "_pat_" + noise(22, 1202) + "_" + noise(59, 1203)
const ghInstall = "gh" + "s_" + noise(36, 1204)
const ghOauth = "gh" + "o_" + noise(36, 1205)
const ghRefresh = "gh" + "r_" + noise(76, 1206)

const githubToken: RuleSamples = {
  rule: "github-token",
  positives: [
    inText(`GITHUB_TOKEN=${ghClassic}\nGITHUB_REPOSITORY=acme/app\n`, ghClassic, "GITHUB_TOKEN="),
    inText(
      `git remote set-url origin https://x-access-token:${ghInstall}@github.com/acme/app.git`,
      ghInstall,
      "https://x-access-token:"
    ),
    inText(`GET /user HTTP/1.1\nAuthorization: token ${ghOauth}\nAccept: */*`, ghOauth, "Authorization: token "),
    inText(`github.com:\n- user: ci-bot\n  oauth_token: ${ghOauth}\n  protocol: https\n`, ghOauth, "  oauth_token: "),
    inText(`echo ${ghFine} | gh auth login --with-token`, ghFine, " | gh auth login --with-token"),
    inText(`{"token": "${ghInstall}", "expires_at": "2026-03-14T10:26:53Z"}`, ghInstall, `{"token": "`),
    inText(`const octokit = new Octokit({ auth: "${ghFine}" })`, ghFine, `auth: "`),
    ...bare(ghRefresh)
  ],
  negatives: [
    "GITHUB_TOKEN=" + "gh" + "p_" + "x".repeat(36),
    "token " + "gh" + "p_" + noise(35, 1207) + " is one short",
    "gh" + "p_" + noise(20, 1208) + "-" + noise(16, 1209) + " has a dash in it",
    "env:\n  GH_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n  GITHUB_TOKEN: ${{ github.token }}\n",
    "github" + "_pat_" + "X".repeat(22) + "_" + "X".repeat(59)
  ]
}

const antKey = "sk-" + "ant-api03-" + noise(93, 1301, base64url) + "AA"
const antAdmin = "sk-" + "ant-admin01-" + noise(93, 1302, base64url) + "AA"

const anthropicKey: RuleSamples = {
  rule: "anthropic-key",
  positives: [
    ...assigned("ANTHROPIC_API_KEY", antKey),
    inText(
      `curl https://api.anthropic.com/v1/messages -H "x-api-key: ${antKey}" -H "anthropic-version: 2023-06-01"`,
      antKey,
      `-H "x-api-key: `
    ),
    inText(`client = anthropic.Anthropic(api_key="${antAdmin}")`, antAdmin, `api_key="`),
    ...bare(antAdmin)
  ],
  negatives: [
    "ANTHROPIC_API_KEY=${ANTHROPIC_API_KEY}",
    "key " + "sk-" + "ant-" + noise(19, 1303) + " is one short",
    `client = anthropic.Anthropic(api_key=os.environ["ANTHROPIC_API_KEY"])`,
    "cd /srv/de" + "sk-" + "ant-colony-simulation-2026 && make",
    // A placeholder: a run of one character.
    "sk-" + "ant-" + "x".repeat(24),
    "sk-" + "ant-api03-" + "x".repeat(40)
  ]
}

const openaiProject = "sk-" + "proj-" + noise(48, 1401) + "_" + noise(20, 1402)
const openaiLegacy = "sk-" + noise(48, 1403)
const openaiService = "sk-" + "svcacct-" + noise(64, 1404, base64url)

const openaiKey: RuleSamples = {
  rule: "openai-key",
  positives: [
    inText(`OPENAI_API_KEY=${openaiProject}\nOPENAI_ORG=org-acme\n`, openaiProject, "OPENAI_API_KEY="),
    inText(
      `curl https://api.openai.com/v1/models -H "Authorization: Bearer ${openaiLegacy}"`,
      openaiLegacy,
      "Authorization: Bearer "
    ),
    inText(`openai.api_key = "${openaiLegacy}"`, openaiLegacy, `openai.api_key = "`),
    inText(`{"openai": {"apiKey": "${openaiService}"}}`, openaiService, `"apiKey": "`),
    inText(`llm:\n  provider: openai\n  api_key: ${openaiProject}\n`, openaiProject, "  api_key: "),
    ...bare(openaiService)
  ],
  negatives: [
    "key " + "sk-" + noise(20, 1405) + " is short",
    "const apiKey = process.env.OPENAI_API_KEY",
    "ssh kio" + "sk-" + noise(40, 1406, lowerAlnum) + ".lan",
    "sk-" + noise(20, 1407) + "_" + noise(20, 1408) + " has an underscore in it",
    // A placeholder: a run of one character.
    "OPENAI_API_KEY=" + "sk-" + "proj-" + "x".repeat(40)
  ]
}

const slackBot = "xo" + "xb-" + noise(12, 1501, digits) + "-" + noise(13, 1502, digits) + "-" + noise(24, 1503)
const slackUser = "xo" + "xp-" + noise(12, 1504, digits) + "-" + noise(12, 1505, digits) + "-" + spread(32, 1506, hex)
const slackApp = "xa" + "pp-1-" + spread(11, 1507, base32) + "-" + noise(13, 1508, digits) + "-" + spread(64, 1509, hex)

const slackToken: RuleSamples = {
  rule: "slack-token",
  positives: [
    inText(`SLACK_BOT_TOKEN=${slackBot}\nSLACK_CHANNEL=#deploys\n`, slackBot, "SLACK_BOT_TOKEN="),
    inText(
      `POST /api/chat.postMessage HTTP/1.1\nAuthorization: Bearer ${slackUser}\nContent-Type: application/json`,
      slackUser,
      "Authorization: Bearer "
    ),
    inText(`client = WebClient(token="${slackBot}")`, slackBot, `WebClient(token="`),
    inText(`{"ok": true, "access_token": "${slackUser}", "token_type": "user"}`, slackUser, `"access_token": "`),
    inText(`socket_mode:\n  app_token: ${slackApp}\n`, slackApp, "  app_token: "),
    ...bare(slackApp)
  ],
  negatives: [
    "SLACK_TOKEN=" + "xo" + "xe.xoxp-1-RANDOMSTRINGHERE",
    "https://example.org/wp-content/uploads/2018-250-" + "xo" + "xo-indieweb-1.jpg",
    "SLACK_BOT_TOKEN=" + "xo" + "xb-your-bot-token",
    "xo" + "xp-" + "-####-####-####-####"
  ]
}

const stripeLive = "sk" + "_live_" + "51" + noise(97, 1601)
const stripeRestricted = "rk" + "_test_" + noise(24, 1602)
const stripeWebhook = "wh" + "sec_" + noise(32, 1603)

const stripeKey: RuleSamples = {
  rule: "stripe-key",
  positives: [
    inText(`STRIPE_SECRET_KEY=${stripeLive}\nSTRIPE_CURRENCY=eur\n`, stripeLive, "STRIPE_SECRET_KEY="),
    inText(
      `curl https://api.stripe.com/v1/charges -u ${stripeLive}: -d amount=2000`,
      stripeLive,
      "curl https://api.stripe.com/v1/charges -u "
    ),
    inText(`stripe.api_key = "${stripeRestricted}"`, stripeRestricted, `stripe.api_key = "`),
    inText(`{"webhook": {"signingSecret": "${stripeWebhook}"}}`, stripeWebhook, `"signingSecret": "`),
    inText(
      `2026-03-14T09:26:53Z INFO stripe listen: Ready! Your webhook signing secret is ${stripeWebhook} (^C to quit)`,
      stripeWebhook,
      "(^C to quit)"
    ),
    ...bare(stripeRestricted)
  ],
  negatives: [
    "key " + "sk" + "_test_" + noise(15, 1604) + " is one short",
    "risk" + "_test_scenarioGenerator2026",
    "STRIPE_SECRET_KEY=${STRIPE_SECRET_KEY}\nstripe_key: {{ secrets.STRIPE_KEY }}",
    // A placeholder: a run of one character.
    "sk" + "_live_" + "x".repeat(24),
    "STRIPE_SECRET_KEY=" + "sk" + "_test_" + "x".repeat(24)
  ]
}

const googleKey = "AI" + "za" + "Sy" + noise(33, 1701, base64url)

const googleApiKey: RuleSamples = {
  rule: "google-api-key",
  positives: [
    inText(`GOOGLE_MAPS_API_KEY=${googleKey}\n`, googleKey, "GOOGLE_MAPS_API_KEY="),
    inText(
      `GET https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key=${googleKey} 200`,
      googleKey,
      "&key="
    ),
    inText(`const firebaseConfig = {\n  apiKey: "${googleKey}",\n  projectId: "demo"\n}`, googleKey, `apiKey: "`),
    inText(`{"api_key": [{"current_key": "${googleKey}"}]}`, googleKey, `"current_key": "`),
    inText(
      `<script src="https://maps.googleapis.com/maps/api/js?key=${googleKey}&callback=initMap"></script>`,
      googleKey,
      "&callback=initMap"
    ),
    ...bare(googleKey)
  ],
  negatives: [
    "key " + "AI" + "za" + noise(30, 1702) + " is short",
    "const firebaseConfig = { apiKey: process.env.FIREBASE_API_KEY }",
    "https://maps.googleapis.com/maps/api/js?key=${GOOGLE_MAPS_API_KEY}&callback=initMap",
    // A placeholder: a run of one character.
    "AI" + "za" + "X".repeat(35)
  ]
}

const googleSecret = "GOC" + "SPX-" + noise(28, 1801, base64url)

const googleOauthSecret: RuleSamples = {
  rule: "google-oauth-secret",
  positives: [
    inText(`GOOGLE_CLIENT_SECRET=${googleSecret}\n`, googleSecret, "GOOGLE_CLIENT_SECRET="),
    inText(
      `{"installed": {"client_id": "1049-demo.apps.googleusercontent.com", "client_secret": "${googleSecret}"}}`,
      googleSecret,
      `"client_secret": "`
    ),
    inText(`oauth:\n  google:\n    secret: ${googleSecret}\n`, googleSecret, "    secret: "),
    inText(`gcloud auth application-default login --client-secret ${googleSecret}`, googleSecret, "--client-secret "),
    ...bare(googleSecret)
  ],
  negatives: [
    "secret " + "GOC" + "SPX-" + noise(27, 1802) + " is one short",
    "GOOGLE_CLIENT_SECRET=${GOOGLE_CLIENT_SECRET}",
    `{"client_secret": "{{ secrets.GOOGLE_CLIENT_SECRET }}"}`,
    // A placeholder: a run of one character.
    "GOCSPX" + "-" + "x".repeat(28)
  ]
}

const npm = "np" + "m_" + noise(36, 1901)

const npmToken: RuleSamples = {
  rule: "npm-token",
  positives: [
    inText(`//registry.npmjs.org/:_authToken=${npm}\n`, npm, "//registry.npmjs.org/:_authToken="),
    inText(`NPM_TOKEN=${npm}\n`, npm, "NPM_TOKEN="),
    inText(`- run: npm publish\n  env:\n    NODE_AUTH_TOKEN: ${npm}\n`, npm, "    NODE_AUTH_TOKEN: "),
    inText(`npm config set //registry.npmjs.org/:_authToken ${npm}`, npm, "npm config set //registry.npmjs.org/"),
    ...bare(npm)
  ],
  negatives: [
    "token " + "np" + "m_" + noise(35, 1902) + " is one short",
    "np" + "m_config_registry=https://registry.npmjs.org/\n" + "np" + "m_package_version=1.2.3",
    "NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}",
    // A placeholder: a run of one character.
    "np" + "m_" + "x".repeat(36),
    "//registry.npmjs.org/:_authToken=" + "np" + "m_" + "x".repeat(36)
  ]
}

const azureSecret = noise(3, 2001) + "8" + "Q~" + noise(34, 2002, base64url + "~.")

const azureClientSecret: RuleSamples = {
  rule: "azure-client-secret",
  positives: [
    inText(`AZURE_CLIENT_SECRET=${azureSecret}\nAZURE_TENANT_ID=${uuid(2003)}\n`, azureSecret, "AZURE_CLIENT_SECRET="),
    inText(
      `az login --service-principal -u ${uuid(2008)} -p ${azureSecret} --tenant ${uuid(2013)}`,
      azureSecret,
      " --tenant "
    ),
    inText(
      `{\n  "appId": "${uuid(2018)}",\n  "displayName": "ci",\n  "password": "${azureSecret}",\n  "tenant": "${
        uuid(2023)
      }"\n}`,
      azureSecret,
      `"password": "`
    ),
    inText(`azure:\n  clientSecret: ${azureSecret}\n`, azureSecret, "  clientSecret: "),
    ...bare(azureSecret)
  ],
  negatives: [
    "tilde~Q~in prose",
    "value " + noise(3, 2028) + "8" + "Q~" + noise(30, 2029) + " is short",
    "AZURE_CLIENT_SECRET: ${{ secrets.AZURE_CLIENT_SECRET }}",
    // A placeholder: a run of one character.
    "abc1" + "Q~" + "x".repeat(34)
  ]
}

const sendgrid = "SG." + noise(22, 2101, base64url) + "." + noise(43, 2102, base64url)

const sendgridApiKey: RuleSamples = {
  rule: "sendgrid-api-key",
  positives: [
    inText(`SENDGRID_API_KEY=${sendgrid}\n`, sendgrid, "SENDGRID_API_KEY="),
    inText(
      `curl https://api.sendgrid.com/v3/mail/send -H "Authorization: Bearer ${sendgrid}"`,
      sendgrid,
      "Authorization: Bearer "
    ),
    inText(`sg = SendGridAPIClient("${sendgrid}")`, sendgrid, `SendGridAPIClient("`),
    inText(`{"mail": {"provider": "sendgrid", "key": "${sendgrid}"}}`, sendgrid, `"key": "`),
    ...bare(sendgrid)
  ],
  negatives: [
    "SG." + "short.key",
    "key " + "SG." + noise(22, 2103, base64url) + "." + noise(42, 2104, base64url) + " is one short",
    "SENDGRID_API_KEY=${SENDGRID_API_KEY}",
    // A placeholder: a run of one character.
    "S" + "G." + "x".repeat(22) + "." + "x".repeat(43)
  ]
}

const twilio = "SK" + spread(32, 2201, hex)
const twilioSecret = noise(32, 2202)

const twilioApiKey: RuleSamples = {
  rule: "twilio-api-key",
  positives: [
    inText(`TWILIO_API_KEY=${twilio}\nTWILIO_REGION=ie1\n`, twilio, "TWILIO_API_KEY="),
    inText(
      `curl -X GET https://api.twilio.com/2010-04-01/Accounts.json -u ${twilio}:${twilioSecret}`,
      twilio,
      "Accounts.json -u "
    ),
    inText(`const client = twilio("${twilio}", apiSecret, { accountSid })`, twilio, `twilio("`),
    inText(`{"sid": "${twilio}", "friendly_name": "ci"}`, twilio, `{"sid": "`),
    ...bare(twilio)
  ],
  negatives: [
    "sid " + "SK" + spread(31, 2203, hex) + " is one short",
    "sid " + "SK" + spread(28, 2204, hex) + "ghij" + " is not hex",
    "TWILIO_API_KEY=" + "SK" + "x".repeat(32),
    "mount DI" + "SK" + spread(32, 2205, hex) + " read-only"
  ]
}

const vaultService = "hv" + "s." + noise(90, 2301, base64url)
const vaultBatch = "hv" + "b." + noise(120, 2302, base64url)

const vaultToken: RuleSamples = {
  rule: "vault-token",
  positives: [
    inText(`VAULT_ADDR=https://vault.internal:8200\nVAULT_TOKEN=${vaultService}\n`, vaultService, "VAULT_TOKEN="),
    inText(
      `curl -H "X-Vault-Token: ${vaultService}" https://vault.internal:8200/v1/secret/data/app`,
      vaultService,
      `-H "X-Vault-Token: `
    ),
    inText(`vault login ${vaultService}`, vaultService, "vault login "),
    inText(
      `{"auth": {"client_token": "${vaultBatch}", "accessor": "${noise(24, 2303)}", "renewable": false}}`,
      vaultBatch,
      `"client_token": "`
    ),
    ...bare(vaultBatch)
  ],
  negatives: [
    "hv" + "s.short",
    "token " + "hv" + "s." + noise(23, 2304) + " is one short",
    "VAULT_TOKEN=$(vault print token)\nvault_token: {{ vault_token }}",
    // A placeholder: a run of one character.
    "hv" + "s." + "x".repeat(24)
  ]
}

const digitalocean = "do" + "p_v1_" + spread(64, 2401, hex)

const digitaloceanToken: RuleSamples = {
  rule: "digitalocean-token",
  positives: [
    inText(`DIGITALOCEAN_TOKEN=${digitalocean}\n`, digitalocean, "DIGITALOCEAN_TOKEN="),
    inText(`doctl auth init --access-token ${digitalocean}`, digitalocean, "doctl auth init --access-token "),
    inText(
      `curl -X GET -H "Authorization: Bearer ${digitalocean}" https://api.digitalocean.com/v2/droplets`,
      digitalocean,
      "Authorization: Bearer "
    ),
    inText(`provider "digitalocean" {\n  token = "${digitalocean}"\n}`, digitalocean, `token = "`),
    ...bare(digitalocean)
  ],
  negatives: [
    "token " + "do" + "p_v1_" + spread(63, 2402, hex) + " is one short",
    "token " + "do" + "p_v1_" + spread(64, 2403, hex).toUpperCase() + " is upper case",
    "DIGITALOCEAN_TOKEN=${DIGITALOCEAN_TOKEN}",
    "do" + "p_v1_" + "x".repeat(64)
  ]
}

const databricks = "da" + "pi" + spread(32, 2501, hex)
const databricksSuffixed = "da" + "pi" + spread(32, 2502, hex) + "-2"

const databricksToken: RuleSamples = {
  rule: "databricks-token",
  positives: [
    inText(`DATABRICKS_TOKEN=${databricks}\n`, databricks, "DATABRICKS_TOKEN="),
    inText(
      `[DEFAULT]\nhost  = https://adb-1234567890123456.7.azuredatabricks.net\ntoken = ${databricksSuffixed}\n`,
      databricksSuffixed,
      "token = "
    ),
    inText(
      `curl -H "Authorization: Bearer ${databricks}" https://adb-1234567890123456.7.azuredatabricks.net/api/2.0/clusters/list`,
      databricks,
      "Authorization: Bearer "
    ),
    inText(`{"databricks": {"token": "${databricksSuffixed}"}}`, databricksSuffixed, `{"token": "`),
    ...bare(databricks)
  ],
  negatives: [
    "token " + "da" + "pi" + spread(31, 2503, hex) + " is one short",
    "token " + "da" + "pi" + spread(32, 2504, hex).toUpperCase() + " is upper case",
    "DATABRICKS_TOKEN={{ secrets.DATABRICKS_TOKEN }}"
  ]
}

// ---------------------------------------------------------------------------
// contextual rules
// ---------------------------------------------------------------------------

const hookPath = "T" + spread(8, 2601, base32) + "/B" + spread(10, 2602, base32) + "/" + noise(24, 2603)
const hook = "https://hooks.slack.com/services/" + hookPath
const triggerPath = "T" + spread(8, 2604, base32) + "/" + spread(24, 2605, hex) + "/" + spread(32, 2606, hex)

const slackWebhook: RuleSamples = {
  rule: "slack-webhook",
  positives: [
    inText(`SLACK_WEBHOOK_URL=${hook}\n`, hookPath, "SLACK_WEBHOOK_URL="),
    inText(`{"alerts": {"webhook_url": "${hook}"}}`, hookPath, `"webhook_url": "`),
    inText(`notify:\n  slack:\n    url: ${hook}\n`, hookPath, "    url: "),
    inText(
      `curl -X POST -H 'Content-type: application/json' --data '{"text":"deploy done"}' ${hook}`,
      hookPath,
      `--data '{"text":"deploy done"}' `
    ),
    inText(`2026-03-14T09:26:53Z INFO posted alert to ${hook} (200 OK)`, hookPath, "(200 OK)"),
    inText(`POST hooks.slack.com/services/${hookPath}`, hookPath, "POST "),
    inText(
      `await fetch("https://hooks.slack.com/triggers/${triggerPath}", { method: "POST" })`,
      triggerPath,
      "await fetch("
    )
  ],
  negatives: [
    "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/${SLACK_WEBHOOK_PATH}",
    "See https://api.slack.com/messaging/webhooks for incoming webhooks.",
    "https://hooks.slack.com/services/T0/B0/short",
    // A placeholder: a run of one character.
    "https://hooks.slack" + ".com/services/T00000000/B00000000/" + "X".repeat(24)
  ]
}

const dbPassword = "Zq8" + noise(17, 2701)
const atPassword = "p@ss" + noise(16, 2702)

const urlCredentials: RuleSamples = {
  rule: "url-credentials",
  positives: [
    inText(`DATABASE_URL=postgres://app:${dbPassword}@db.internal:5432/app\n`, dbPassword, "postgres://app:"),
    inText(
      `{"dsn": "mongodb+srv://app:${dbPassword}@cluster0.mongo.internal/db?retryWrites=true"}`,
      dbPassword,
      "mongodb+srv://app:"
    ),
    inText(`cache:\n  url: redis://:${dbPassword}@cache:6379/0\n`, dbPassword, "redis://:"),
    inText(
      `2026-03-14 INFO connecting to amqp://app:${dbPassword}@rabbit:5672/ (attempt 2)`,
      dbPassword,
      "amqp://app:"
    ),
    inText(`git clone https://deploy:${dbPassword}@git.internal/org/repo.git`, dbPassword, "https://deploy:"),
    inText(`mysql.createConnection("mysql://root:${atPassword}@localhost:3306/shop")`, atPassword, "mysql://root:"),
    inText(
      `spring.datasource.url=jdbc:postgresql://app:${dbPassword}@db:5432/app`,
      dbPassword,
      "jdbc:postgresql://app:"
    )
  ],
  negatives: [
    "DATABASE_URL=postgres://app:${PGPASSWORD}@db/app",
    "REDIS_URL=redis://:<password>@cache:6379",
    "https://user@example.com:8443/path?page=2&sort=asc",
    "postgres://user:password@localhost:5432/mydb",
    "git clone ssh://git@github.com/org/repo.git"
  ]
}

const awsSecret = spread(40, 2801, base64)
const awsSecret2 = spread(40, 2802, base64)

const awsSecretAccessKey: RuleSamples = {
  rule: "aws-secret-access-key",
  positives: [
    // The AWS CLI's own syntax, key and value separated by a space.
    inText(`aws configure set aws_secret_access_key ${awsSecret} --profile ci`, awsSecret, "aws_secret_access_key "),
    inText(
      `AWS_ACCESS_KEY_ID=${awsId}\nAWS_SECRET_ACCESS_KEY=${awsSecret}\n`,
      awsSecret,
      "AWS_SECRET_ACCESS_KEY="
    ),
    inText(
      `[default]\naws_access_key_id = ${awsId}\naws_secret_access_key = ${awsSecret}\n`,
      awsSecret,
      "aws_secret_access_key = "
    ),
    inText(
      `{"Credentials": {"AccessKeyId": "${awsSession}", "SecretAccessKey": "${awsSecret2}"}}`,
      awsSecret2,
      `"SecretAccessKey": "`
    ),
    inText(`aws:\n  secret_access_key: ${awsSecret2}\n  region: eu-west-1\n`, awsSecret2, "  secret_access_key: "),
    inText(
      `AWS Secret Access Key [None]: ${awsSecret}\nDefault region name [None]: eu-west-1`,
      awsSecret,
      "AWS Secret Access Key [None]: "
    ),
    inText(`new S3Client({ credentials: { secretAccessKey: "${awsSecret2}" } })`, awsSecret2, `secretAccessKey: "`)
  ],
  negatives: [
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfi" + "CYEXAMPLEKEY",
    "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}",
    "SecretAccessKey: !GetAtt AccessKey.SecretAccessKey",
    "aws_secret_access_key: {{ secrets.AWS_SECRET_ACCESS_KEY }}",
    // A placeholder: a run of one character.
    "aws_secret_access_key = " + "x".repeat(40),
    "AWS_SECRET_ACCESS_KEY=" + "X".repeat(40)
  ]
}

const keyId = spread(40, 2901, hex)
const keyId2 = spread(40, 2902, hex)

const gcpServiceAccount: RuleSamples = {
  rule: "gcp-service-account",
  positives: [
    // A key file inside a JSON string, its quotes escaped.
    inText(
      `{"content": "{\\"type\\": \\"service_account\\", \\"private_key_id\\": \\"${keyId2}\\"}"}`,
      keyId2,
      `\\"private_key_id\\": \\"`
    ),
    inText(
      `{\n  "type": "service_account",\n  "project_id": "demo",\n  "private_key_id": "${keyId}",\n  "private_key": "${
        pem("PRIVATE KEY", pemLines(2903, 3)).replaceAll("\n", "\\n")
      }\\n"\n}`,
      keyId,
      `"private_key_id": "`
    ),
    inText(
      `2026-03-14 DEBUG loaded {"type":"service_account","private_key_id":"${keyId2}","project_id":"demo"}`,
      keyId2,
      `"private_key_id":"`
    ),
    inText(`credentials = {'type': 'service_account', 'private_key_id': '${keyId}'}`, keyId, `'private_key_id': '`),
    inText(`const credentials = { private_key_id: "${keyId2}", type: "service_account" }`, keyId2, `private_key_id: "`)
  ],
  negatives: [
    `{"type": "service_account", "private_key_id": "your-private-key-id"}`,
    `{"private_key_id": "\${GCP_KEY_ID}"}`,
    `{"private_key_id": "${spread(39, 2906, hex)}"}`,
    `{"private_key_id": ""}`,
    // A placeholder: a run of one character.
    `{"type": "service_account", "private_key_id": "${"0".repeat(40)}"}`
  ]
}

const npmrcToken = uuid(3001)
const npmrcOpaque = noise(40, 3006)
const npmrcBase64 = spread(42, 3007, base64) + "=="

const npmrcAuth: RuleSamples = {
  rule: "npmrc-auth",
  positives: [
    inText(
      `@acme:registry=https://npm.acme.internal/\n//npm.acme.internal/:_authToken=${npmrcToken}\n`,
      npmrcToken,
      "//npm.acme.internal/:_authToken="
    ),
    inText(`_authToken=${npmrcOpaque}\nalways-auth=true\n`, npmrcOpaque, "_authToken="),
    inText(`registry=https://registry.internal/\n_auth=${npmrcBase64}\n`, npmrcBase64, "_auth="),
    inText(
      `//registry.internal/:username=ci\n//registry.internal/:_password=${npmrcBase64}\n`,
      npmrcBase64,
      "//registry.internal/:_password="
    ),
    inText(
      `npm config set //npm.pkg.github.com/:_authToken=${npmrcOpaque}`,
      npmrcOpaque,
      "//npm.pkg.github.com/:_authToken="
    )
  ],
  negatives: [
    "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
    "//registry.npmjs.org/:_authToken=<token>\nalways-auth=true",
    "_auth=$NPM_AUTH\n_password=changeme"
  ]
}

const bearer = "Tk4" + noise(37, 3101, alnum + "._-")
const basic = spread(30, 3102, base64) + "=="
const rawToken = noise(40, 3103)

const authorizationHeader: RuleSamples = {
  rule: "authorization-header",
  positives: [
    inText(`GET /v1/tickets HTTP/1.1\nAuthorization: Bearer ${bearer}\nAccept: */*`, bearer, "Authorization: Bearer "),
    inText(`{"headers": {"Authorization": "Bearer ${bearer}"}}`, bearer, `"Authorization": "Bearer `),
    inText(`headers:\n  authorization: Bearer ${bearer}\n`, bearer, "  authorization: Bearer "),
    inText(`2026-01-02 DEBUG request sent with Bearer ${bearer} to /v1/me`, bearer, "request sent with Bearer "),
    inText(
      `curl -H "Authorization: Bearer ${bearer}" https://api.internal/v1/me`,
      bearer,
      `curl -H "Authorization: Bearer `
    ),
    inText(
      `fetch(url, { headers: { Authorization: "Bearer ${bearer}" } })`,
      bearer,
      `Authorization: "Bearer `
    ),
    inText(`Authorization: Basic ${basic}\nHost: api.internal`, basic, "Authorization: Basic "),
    inText(`{"authorization": "${rawToken}"}`, rawToken, `{"authorization": "`)
  ],
  negatives: [
    "Authorization: Bearer ${TOKEN}\nAuthorization: Bearer <token>",
    "Authorization: Bearer XXXXXXXXXXXX",
    "Authorization: required\nbearer token authentication is enabled",
    "headers: { Authorization: `Bearer ${token}` }",
    "Authorization: Bearer process.env.API_TOKEN"
  ]
}

const curlPassword = "S3" + noise(14, 3201)

const curlCredentials: RuleSamples = {
  rule: "curl-credentials",
  positives: [
    inText(`curl -sS -u admin:${curlPassword} https://api.internal/v1/export`, curlPassword, "-u admin:"),
    inText(`curl --user admin:${curlPassword} -X POST https://api.internal/v1/reindex`, curlPassword, "--user admin:"),
    inText(`curl --user=admin:${curlPassword} https://api.internal`, curlPassword, "--user=admin:"),
    inText(`curl -u "admin:${curlPassword}" https://api.internal`, curlPassword, `-u "admin:`),
    inText(
      `curl -X POST \\\n  -H 'Accept: application/json' \\\n  -u admin:${curlPassword} \\\n  https://api.internal`,
      curlPassword,
      "-u admin:"
    ),
    inText(
      `2026-03-14 INFO running: curl -fsSL -u admin:${curlPassword} https://repo.internal/pkg.tgz`,
      curlPassword,
      "-u admin:"
    ),
    inText(`curl --user kevin:'${curlPassword}' https://api.internal`, curlPassword, "--user kevin:'")
  ],
  negatives: [
    "curl -u admin:$ADMIN_PASSWORD https://api.internal",
    "curl -u user:pass https://example.com",
    "curl -u <user:password> https://example.com",
    "curl -u 'test:test' https://httpbin.org/basic-auth/test/test",
    "curl -s -u \"$1:$2\" \"$3\"",
    "curl -u admin https://api.internal/v1/export"
  ]
}

const assignedSecret = "Zx9" + noise(17, 3301)
const assignedBase64 = spread(30, 3302, base64) + "="

const secretAssignment: RuleSamples = {
  rule: "secret-assignment",
  positives: [
    ...assigned("DB_PASSWORD", assignedSecret),
    inText(`2026-01-02 DEBUG login user=bob password=${assignedSecret} ok`, assignedSecret, "password="),
    inText(`GET https://api.internal/v1/items?api_key=${assignedBase64}&page=2`, assignedBase64, "?api_key="),
    inText(`client = Client(secret_key='${assignedBase64}')`, assignedBase64, "secret_key='"),
    inText(`signingKey := "${assignedSecret}"`, assignedSecret, `signingKey := "`),
    inText(`[auth]\npasswd = ${assignedSecret}\n`, assignedSecret, "passwd = "),
    inText(`'db_pass' => '${assignedSecret}',`, assignedSecret, `'db_pass' => '`),
    inText(`<datasource><password>${assignedSecret}</password></datasource>`, assignedSecret, "<password>"),
    inText(`CREATE USER app IDENTIFIED BY '${assignedSecret}';`, assignedSecret, "IDENTIFIED BY '"),
    inText(`mysql -h db -u root -p${assignedSecret} shop`, assignedSecret, "-u root -p"),
    inText(`./migrate --password ${assignedBase64} --host db`, assignedBase64, "--password "),
    inText(`docker run --rm -e API_TOKEN=${assignedSecret} ghcr.io/acme/app:1.2`, assignedSecret, "-e API_TOKEN=")
  ],
  negatives: [
    "api_key: process.env.API_KEY",
    "password=${DB_PASSWORD}\napi_key=<your-api-key>\nsecret: changeme",
    "token: {{ secrets.DEPLOY_TOKEN }}",
    "password: required\ntoken_type: Bearer\nsecret_name: prod/db",
    "cache_key=user:123:profile partition_key=tenant-42",
    "password=hunter2hunter2 password=correcthorsebattery",
    "secret_path=/etc/app/secret.key",
    "self.password_hash_algorithm = \"argon2id\"",
    "tokenizer = AutoTokenizer.from_pretrained(\"bert-base-uncased\")"
  ]
}

/** The samples of the first catalogue's rules. */
export const core: ReadonlyArray<RuleSamples> = [
  privateKey,
  awsAccessKeyId,
  githubToken,
  anthropicKey,
  openaiKey,
  slackToken,
  stripeKey,
  googleApiKey,
  googleOauthSecret,
  npmToken,
  azureClientSecret,
  sendgridApiKey,
  twilioApiKey,
  vaultToken,
  digitaloceanToken,
  databricksToken,
  slackWebhook,
  urlCredentials,
  awsSecretAccessKey,
  gcpServiceAccount,
  npmrcAuth,
  authorizationHeader,
  curlCredentials,
  secretAssignment
]

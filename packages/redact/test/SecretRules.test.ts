import { assert, describe, it } from "@effect/vitest"
import * as Redactor from "../src/Redactor.js"
import * as SecretRules from "../src/SecretRules.js"
import { alnum, assertGone, base32, hex, leakedWindow, markers, noise } from "./FakeSecrets.js"
import { samples } from "./samples/index.js"

const redactor = Redactor.make()

/**
 * The same secret in the syntaxes tool output is made of. `key` names the
 * variable it is assigned to; the log line and the URL path carry it with
 * no announcing key at all.
 */
const everywhere = (secret: string, key: string): ReadonlyArray<readonly [string, string]> => [
  ["an env file", `${key.toUpperCase()}=${secret}\nREGION=eu-west-1`],
  ["JSON", `{"${key}": "${secret}", "region": "eu-west-1"}`],
  ["YAML", `service:\n  ${key}: ${secret}\n  retries: 3`],
  ["a log line", `2026-03-14T09:26:53Z WARN [deploy] uploading with ${secret} (attempt 2)`],
  ["a URL path", `https://hooks.internal/v1/${secret}/notify`],
  ["source code", `const client = new Client({ ${key}: "${secret}", timeout: 30 })`]
]

interface Format {
  readonly rule: string
  readonly name: string
  /** What must not survive. */
  readonly secret: string
  /** What must survive just before the marker, if anything. */
  readonly kept?: string
  readonly samples: ReadonlyArray<readonly [syntax: string, text: string]>
}

const pemBody = (seed: number, lines = 5) =>
  Array.from({ length: lines }, (_, i) => noise(64, seed + i, alnum + "+/")).join("\n")
const pem = (label: string, body: string) => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`
const rsaBody = pemBody(100)
const ed25519Body = "MC4CAQAwBQYDK2VwBCIEI" + noise(27, 110, alnum + "+/")
const opensshBody = "b3BlbnNzaC1rZXktdjEAAAAA" + noise(40, 111) + "\n" + noise(70, 112, alnum + "+/")
const encryptedBody = `Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,${noise(32, 113, "0123456789ABCDEF")}\n\n${
  pemBody(114, 3)
}`
const pgpBody = `Version: GnuPG v2\nComment: backup of the signing key\n\n${pemBody(120, 3)}\n=${noise(4, 121)}`

const keys: ReadonlyArray<readonly [label: string, body: string]> = [
  ["RSA PRIVATE KEY", rsaBody],
  ["EC PRIVATE KEY", pemBody(101, 3)],
  ["PRIVATE KEY", ed25519Body],
  ["ENCRYPTED PRIVATE KEY", pemBody(102, 4)],
  ["RSA PRIVATE KEY", encryptedBody],
  ["OPENSSH PRIVATE KEY", opensshBody],
  ["PGP PRIVATE KEY BLOCK", pgpBody]
]

// The secret is the whole body: no window of any line of it may survive,
// in whatever way the samples wrap, indent or escape it.
const privateKeys: ReadonlyArray<Format> = keys.map(([label, body]) => {
  const key = pem(label, body)
  const escaped = key.replaceAll("\n", "\\n")
  return {
    rule: "private-key",
    name: label,
    secret: body,
    samples: [
      ["a PEM file", `${key}\n`],
      ["an env file", `SSH_KEY="${escaped}"\nHOST=git.internal`],
      ["JSON", `{"type": "service_account", "private_key": "${escaped}\\n", "project_id": "demo"}`],
      ["YAML", `tls:\n  key: |\n    ${key.replaceAll("\n", "\n    ")}\n  cert: server.crt`],
      ["a log line", `2026-03-14 WARN loaded key ${key.replaceAll("\n", " ")} from disk`],
      ["source code", `const key = \`${key}\`\nsign(payload, key)`]
    ]
  }
})

const awsId = "AK" + "IA" + noise(16, 1, base32)
const awsSession = "AS" + "IA" + noise(16, 2, base32)
const awsSecret = noise(40, 3, alnum + "/+")
const github: ReadonlyArray<readonly [string, string]> = [
  ["classic", "gh" + "p_" + noise(36, 4)],
  ["fine-grained", "github" + "_pat_" + noise(22, 5) + "_" + noise(59, 6)],
  ["OAuth", "gh" + "o_" + noise(36, 7)],
  ["app user-to-server", "gh" + "u_" + noise(36, 8)],
  ["app installation", "gh" + "s_" + noise(36, 9)],
  ["refresh", "gh" + "r_" + noise(76, 10)]
]
const gitlab: ReadonlyArray<readonly [string, string]> = [
  ["personal", "gl" + "pat-" + noise(20, 11)],
  ["runner", "gl" + "rt-" + noise(20, 12)],
  ["CI job", "gl" + "cbt-" + "64_" + noise(20, 13)],
  ["deploy", "gl" + "dt-" + noise(20, 14)],
  ["runner registration", "GR" + "1348941" + noise(20, 15)]
]
const openai: ReadonlyArray<readonly [string, string]> = [
  ["project", "sk-" + "proj-" + noise(48, 16) + "_" + noise(20, 17)],
  ["service account", "sk-" + "svcacct-" + noise(64, 18)],
  ["admin", "sk-" + "admin-" + noise(64, 19)],
  ["legacy with marker", "sk-" + noise(20, 20) + "T3Blbk" + "FJ" + noise(20, 21)],
  ["legacy", "sk-" + noise(48, 22)]
]
const anthropic: ReadonlyArray<readonly [string, string]> = [
  ["API", "sk-" + "ant-api03-" + noise(93, 23, alnum + "_-") + "AA"],
  ["admin", "sk-" + "ant-admin01-" + noise(93, 24, alnum + "_-") + "AA"]
]
const slack: ReadonlyArray<readonly [string, string]> = [
  ["bot", "xo" + "xb-" + noise(12, 25, "0123456789") + "-" + noise(13, 26, "0123456789") + "-" + noise(24, 27)],
  ["user", "xo" + "xp-" + noise(12, 28, "0123456789") + "-" + noise(12, 29, "0123456789") + "-" + noise(32, 30, hex)],
  ["app-level", "xa" + "pp-1-" + noise(11, 31, base32) + "-" + noise(13, 32, "0123456789") + "-" + noise(64, 33, hex)],
  ["rotating", "xo" + "xe.xoxp-1-" + noise(60, 34)]
]
const stripe: ReadonlyArray<readonly [string, string]> = [
  ["live secret", "sk" + "_live_" + noise(24, 35)],
  ["restricted test", "rk" + "_test_" + noise(24, 36)],
  ["webhook signing", "wh" + "sec_" + noise(32, 37)]
]
const vault: ReadonlyArray<readonly [string, string]> = [
  ["service", "hv" + "s." + noise(90, 38, alnum + "_-")],
  ["batch", "hv" + "b." + noise(120, 39, alnum + "_-")]
]
const single = (rule: string, name: string, secret: string, key: string): Format => ({
  rule,
  name,
  secret,
  samples: everywhere(secret, key)
})

const tokens: ReadonlyArray<Format> = [
  single("aws-access-key-id", "long-term", awsId, "aws_access_key_id"),
  single("aws-access-key-id", "temporary", awsSession, "access_key_id"),
  ...github.map(([name, secret]) => single("github-token", name, secret, "github_token")),
  ...gitlab.map(([name, secret]) => single("gitlab-token", name, secret, "gitlab_token")),
  ...openai.map(([name, secret]) => single("openai-key", name, secret, "openai_api_key")),
  ...anthropic.map(([name, secret]) => single("anthropic-key", name, secret, "anthropic_api_key")),
  ...slack.map(([name, secret]) => single("slack-token", name, secret, "slack_bot_token")),
  ...stripe.map(([name, secret]) => single("stripe-key", name, secret, "stripe_key")),
  single("google-api-key", "API key", "AI" + "za" + noise(35, 40, alnum + "_-"), "maps_api_key"),
  single("google-oauth-secret", "OAuth client secret", "GOC" + "SPX-" + noise(28, 41), "client_secret"),
  single("npm-token", "access token", "np" + "m_" + noise(36, 42), "npm_token"),
  single("huggingface-token", "user token", "h" + "f_" + noise(34, 43), "hf_token"),
  single(
    "jwt",
    "signed",
    "ey" + "JhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9" + ".ey" + "J" + noise(80, 44) + "." + noise(86, 45, alnum + "_-"),
    "id_token"
  ),
  single("jwt", "unsigned", "ey" + "JhbGciOiJub25lIn0" + ".ey" + "J" + noise(40, 46) + ".", "session"),
  single("azure-client-secret", "client secret", "Ab1" + "8Q~" + noise(34, 47, alnum + "_~-"), "azure_client_secret"),
  single(
    "sendgrid-api-key",
    "API key",
    "SG." + noise(22, 48, alnum + "_-") + "." + noise(43, 49, alnum + "_-"),
    "sendgrid"
  ),
  single("twilio-api-key", "API key SID", "SK" + noise(32, 50, hex), "twilio_key_sid"),
  ...vault.map(([name, secret]) => single("vault-token", name, secret, "vault_token")),
  single("digitalocean-token", "personal", "do" + "p_v1_" + noise(64, 51, hex), "do_token"),
  single("databricks-token", "personal", "da" + "pi" + noise(32, 52, hex), "databricks_token")
]

const slackHook = "https://hooks.slack.com/services/" + "T" + noise(8, 53, base32) + "/B" + noise(10, 54, base32) +
  "/" +
  noise(24, 55)
const dbPassword = "Zq8" + noise(17, 56)
const bearer = noise(40, 57, alnum + "._-")
const basic = noise(28, 58) + "=="
const curlPassword = "S3" + noise(14, 59)
const npmrcToken = "AKCp8" + noise(60, 60)
const npmrcBase64 = noise(40, 61) + "=="
const assigned = "Zx9" + noise(14, 62)
const twilioAuth = noise(32, 63, hex)
const keyId = noise(40, 64, hex)

const contextual: ReadonlyArray<Format> = [
  {
    rule: "aws-secret-access-key",
    name: "secret access key",
    secret: awsSecret,
    samples: [
      ["an env file", `AWS_ACCESS_KEY_ID=${awsId}\nAWS_SECRET_ACCESS_KEY=${awsSecret}`],
      ["the credentials file", `[default]\naws_access_key_id = ${awsId}\naws_secret_access_key = ${awsSecret}\n`],
      ["JSON from STS", `{"Credentials": {"AccessKeyId": "${awsSession}", "SecretAccessKey": "${awsSecret}"}}`],
      ["YAML", `aws:\n  secret_access_key: ${awsSecret}\n  region: eu-west-1`],
      ["aws configure", `AWS Secret Access Key [None]: ${awsSecret}\nDefault region name [None]: eu-west-1`],
      ["source code", `new S3Client({ credentials: { secretAccessKey: "${awsSecret}" } })`]
    ]
  },
  {
    rule: "slack-webhook",
    name: "incoming webhook",
    secret: slackHook.slice(33),
    samples: [
      ["an env file", `SLACK_WEBHOOK_URL=${slackHook}`],
      ["JSON", `{"alerts": {"webhook": "${slackHook}"}}`],
      ["YAML", `notify:\n  url: ${slackHook}`],
      ["a log line", `posting alert to ${slackHook} (200 OK)`],
      ["source code", `await fetch("${slackHook}", { method: "POST" })`]
    ]
  },
  {
    rule: "gcp-service-account",
    name: "service-account JSON",
    secret: keyId,
    samples: [
      [
        "a key file",
        `{\n  "type": "service_account",\n  "project_id": "demo",\n  "private_key_id": "${keyId}",\n  "private_key": "${
          pem("PRIVATE KEY", pemBody(130, 3)).replaceAll("\n", "\\n")
        }\\n",\n  "client_id": "1049${noise(17, 131, "0123456789")}"\n}`
      ],
      ["a log line", `loaded credentials {"private_key_id": "${keyId}", "type": "service_account"}`]
    ]
  },
  {
    rule: "url-credentials",
    name: "database and broker URLs",
    secret: dbPassword,
    kept: "://app:",
    samples: [
      ["an env file", `DATABASE_URL=postgres://app:${dbPassword}@db.internal:5432/app`],
      ["JSON", `{"dsn": "mongodb+srv://app:${dbPassword}@cluster0.example.net/db?retryWrites=true"}`],
      ["YAML", `cache:\n  url: redis://app:${dbPassword}@cache:6379/0`],
      ["a log line", `connecting to amqp://app:${dbPassword}@rabbit:5672/ (attempt 2)`],
      ["a URL", `https://app:${dbPassword}@registry.internal/v2/_catalog`],
      ["source code", `mysql.createConnection("mysql://app:${dbPassword}@localhost/shop")`]
    ]
  },
  {
    rule: "url-credentials",
    name: "a password with @ in it, and no user",
    secret: "p@ss" + dbPassword,
    samples: [
      ["a URL", `postgresql://app:p@ss${dbPassword}@db:5432/app`],
      ["redis without user", `REDIS_URL=redis://:p@ss${dbPassword}@cache:6379`]
    ]
  },
  {
    rule: "authorization-header",
    name: "bearer",
    secret: bearer,
    kept: "Bearer ",
    samples: [
      ["an HTTP header", `GET /v1/tickets HTTP/1.1\nAuthorization: Bearer ${bearer}\nAccept: */*`],
      ["JSON", `{"headers": {"Authorization": "Bearer ${bearer}"}}`],
      ["YAML", `headers:\n  authorization: Bearer ${bearer}`],
      ["a log line", `2026-01-02 DEBUG request sent with Bearer ${bearer}`],
      ["curl", `curl -H "Authorization: Bearer ${bearer}" https://api.example.com/v1/me`],
      ["source code", `fetch(url, { headers: { Authorization: "Bearer ${bearer}" } })`]
    ]
  },
  {
    rule: "authorization-header",
    name: "basic, token and raw schemes",
    secret: basic,
    samples: [
      ["basic", `Authorization: Basic ${basic}\nHost: api.example.com`],
      ["token", `curl -H 'Authorization: token ${basic}' https://api.example.com/user`],
      ["raw", `{"authorization": "${basic}"}`]
    ]
  },
  {
    rule: "curl-credentials",
    name: "curl -u",
    secret: curlPassword,
    kept: "admin:",
    samples: [
      ["-u", `curl -sS -u admin:${curlPassword} https://api.example.com/v1/export`],
      ["--user", `curl --user admin:${curlPassword} -X POST https://api.example.com/v1/reindex`],
      ["--user=", `curl --user=admin:${curlPassword} https://api.example.com`],
      ["quoted", `curl -u "admin:${curlPassword}" https://api.example.com`],
      [
        "a continued line",
        `curl -X POST \\\n  -H 'Accept: application/json' \\\n  -u admin:${curlPassword} \\\n  https://x`
      ],
      ["a log line", `2026-03-14 INFO running: curl -fsSL -u admin:${curlPassword} https://repo.internal/pkg.tgz`]
    ]
  },
  {
    rule: "npmrc-auth",
    name: ".npmrc",
    secret: npmrcToken,
    samples: [
      ["a scoped token", `@acme:registry=https://npm.acme.internal/\n//npm.acme.internal/:_authToken=${npmrcToken}`],
      ["a global token", `_authToken=${npmrcToken}\nalways-auth=true`]
    ]
  },
  {
    rule: "npmrc-auth",
    name: ".npmrc basic credentials",
    secret: npmrcBase64,
    samples: [
      ["_auth", `registry=https://registry.internal/\n_auth=${npmrcBase64}`],
      ["_password", `//registry.internal/:username=ci\n//registry.internal/:_password=${npmrcBase64}`]
    ]
  },
  {
    rule: "npm-token",
    name: "an npm token in .npmrc",
    secret: "np" + "m_" + noise(36, 65),
    samples: [["a scoped token", `//registry.npmjs.org/:_authToken=${"np" + "m_" + noise(36, 65)}`]]
  },
  {
    rule: "secret-assignment",
    name: "generic assignments",
    secret: assigned,
    samples: [
      ["an env file", `DB_PASSWORD=${assigned}\nDB_HOST=localhost`],
      ["JSON", `{"client_id": "web", "client_secret": "${assigned}"}`],
      ["YAML", `database:\n  password: ${assigned}\n  user: app`],
      ["a log line", `2026-01-02 DEBUG login user=bob password=${assigned} ok`],
      ["a URL query", `https://api.example.com/v1/items?api_key=${assigned}&page=2`],
      ["JavaScript", `const apiKey = "${assigned}";`],
      ["Python", `client = Client(secret_key='${assigned}')`],
      ["Go", `signingKey := "${assigned}"`],
      ["an ini file", `[auth]\npasswd = ${assigned}`],
      ["a Python dict", `os.environ["API_KEY"] = "${assigned}"`],
      ["PHP", `'db_pass' => '${assigned}',`]
    ]
  },
  {
    rule: "twilio-auth-token",
    name: "a Twilio auth token",
    secret: twilioAuth,
    samples: [["an env file", `TWILIO_ACCOUNT_SID=AC${noise(32, 66, hex)}\nTWILIO_AUTH_TOKEN=${twilioAuth}`]]
  }
]

const formats: ReadonlyArray<Format> = [...privateKeys, ...tokens, ...contextual]

describe("SecretRules", () => {
  describe("removes", () => {
    for (const { kept, name, rule, samples, secret } of formats) {
      describe(`${rule} (${name})`, () => {
        for (const [syntax, text] of samples) {
          it(`in ${syntax}`, () => {
            assert.isDefined(leakedWindow(text, secret), "the sample holds the secret")
            const result = redactor.redact(text)
            assertGone(result.text, secret)
            assert.include(result.text, Redactor.marker(rule))
            if (kept !== undefined) assert.include(result.text, `${kept}${Redactor.marker(rule)}`)
            assert.isAtLeast(result.kinds[rule] ?? 0, 1)
            assert.strictEqual(result.count, markers(result.text))
          })
        }
      })
    }

    it("every rule of the catalogue, each with at least one format above or its samples in RuleSamples", () => {
      const covered = new Set([...formats.map((f) => f.rule), ...samples.map((s) => s.rule)])
      for (const detector of SecretRules.catalogue) assert.isTrue(covered.has(detector.id), detector.id)
    })

    it("a contextual value whole when it starts with a known token shape, named after the token", () => {
      const token = github[0]![1]
      assert.strictEqual(
        redactor.redact(`password=${token}.backup`).text,
        "password=[REDACTED:github-token]"
      )
    })

    it("a TestPyPI upload token, as the PyPI rule: its macaroon names test.pypi.org where PyPI's names pypi.org", () => {
      // `AgENdGVzdC5weXBpLm9yZw` is the base64 of the macaroon's location, `test.pypi.org`.
      const token = "pypi-" + "AgENdGVzdC5weXBpLm9yZw" + noise(40, 131) + "_" + noise(40, 132) + "-" + noise(40, 133)
      for (
        const text of [
          `uploading to https://test.pypi.org/legacy/ with ${token} (attempt 1)`,
          `twine upload --repository testpypi -u __token__ -p ${token} dist/*`
        ]
      ) {
        const result = redactor.redact(text)
        assert.deepStrictEqual(result, {
          text: text.replace(token, "[REDACTED:pypi-upload-token]"),
          count: 1,
          kinds: { "pypi-upload-token": 1 }
        })
      }
    })

    it("a private key of any length whole, under one marker: a body past the 12,000 characters one verification reads is read on", () => {
      // An RSA key of 16,384 bits is about 12,700 characters; a PGP block with subkeys can be longer.
      for (const lines of [190, 400, 1_100]) {
        const body = Array.from({ length: lines }, (_, i) => noise(64, 2_000 + i, alnum + "+/")).join("\n")
        for (const key of [pem("RSA PRIVATE KEY", body), `-----BEGIN OPENSSH PRIVATE KEY-----\n${body}`]) {
          // Each text, and what must stay after the key.
          const texts = [
            [`${key}\n# DEPLOY_HOST=git.internal\n`, "# DEPLOY_HOST=git.internal"],
            [`tls:\n  key: |\n    ${key.replaceAll("\n", "\n    ")}\n  # cert: server.crt\n`, "# cert: server.crt"],
            [
              `{"private_key": "${
                key.replaceAll("\n", "\\n")
              }\\n", "token_uri": "https://oauth2.googleapis.com/token"}`,
              "oauth2.googleapis.com"
            ]
          ] as const
          for (const [text, kept] of texts) {
            const result = redactor.redact(text)
            assertGone(result.text, body)
            assert.deepStrictEqual(result.kinds, { "private-key": 1 }, `${lines} lines: ${result.text.slice(0, 80)}`)
            assert.strictEqual(result.count, markers(result.text))
            assert.include(result.text, kept)
          }
        }
      }
    })

    it("a Kubernetes Secret value of any length whole, under one marker: one past the 8,000 characters a verification reads is read on", () => {
      for (const length of [8_500, 20_000]) {
        const value = noise(length, 3_000, alnum + "+/")
        const block = value.match(/.{1,64}/g)!.map((line) => `    ${line}`).join("\n")
        const entries = [
          [`  keystore.p12: ${value}`, "  keystore.p12: "],
          [`  keystore.p12: "${value}"`, "  keystore.p12: \""],
          [`  tls.crt: |\n${block}`, "  tls.crt: |\n    "]
        ] as const
        for (const [entry, kept] of entries) {
          const manifest = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\ndata:\n${entry}\n  extra: YmFyCg==\n`
          // As a file, and serialized in a tool's JSON output.
          for (const text of [manifest, JSON.stringify({ stdout: manifest })]) {
            const result = redactor.redact(text)
            assertGone(result.text, value.slice(0, 64))
            assertGone(result.text, value.slice(-64))
            assert.strictEqual(result.kinds["kubernetes-secret"], 1, `${length}: ${entry.slice(0, 30)}`)
            const at = text === manifest ? kept : JSON.stringify(kept).slice(1, -1)
            assert.include(result.text, `${at}${Redactor.marker("kubernetes-secret")}`)
          }
        }
      }
    })

    it("a private key cut off before its END line, to the end of its body", () => {
      const result = redactor.redact(`-----BEGIN OPENSSH PRIVATE KEY-----\n${opensshBody}`)
      assert.strictEqual(result.text, "[REDACTED:private-key]")
    })
  })

  describe("removes whole", () => {
    // A password may hold `@`: the host starts after the last `@` of the
    // authority, so every `@` before it is the password's.
    const atPasswords: ReadonlyArray<readonly [name: string, password: string, text: (p: string) => string]> = [
      ["one @", "p@ssW0rd-" + noise(24, 400), (p) => `DATABASE_URL=postgres://app:${p}@db.internal:5432/app`],
      [
        "three @",
        noise(6, 401) + "@" + noise(9, 402) + "@" + noise(7, 403) + "@x" + noise(5, 404),
        (p) => `mysql.createConnection("mysql://root:${p}@localhost:3306/shop")`
      ],
      ["@ first", "@" + noise(20, 405), (p) => `{"dsn": "mongodb+srv://app:${p}@cluster0.example.net/db"}`],
      ["@ last", noise(20, 406) + "@", (p) => `cache:\n  url: redis://app:${p}@cache:6379/0`],
      [
        "@@ twice",
        noise(10, 407) + "@@" + noise(10, 408),
        (p) => `connecting to amqp://app:${p}@rabbit:5672/ (attempt 2)`
      ],
      [
        "@ and punctuation",
        noise(8, 409) + "@!$" + noise(8, 410) + "@%2F" + noise(6, 411),
        (p) => `git clone https://deploy:${p}@git.internal/org/repo.git`
      ],
      ["no user", noise(12, 412) + "@" + noise(12, 413), (p) => `REDIS_URL=redis://:${p}@cache:6379`]
    ]
    for (const [name, password, text] of atPasswords) {
      it(`a URL password with ${name} in it`, () => {
        const input = text(password)
        const out = redactor.redact(input).text
        assertGone(out, password)
        // The user, the host and what follows stay; the password goes to its last character.
        const start = input.indexOf(password)
        assert.strictEqual(
          out,
          input.slice(0, start) + Redactor.marker("url-credentials") + input.slice(start + password.length)
        )
      })
    }

    // Each family at the longest its vendor documents (or its rule reads):
    // a rule capped short of it removes a prefix and leaves the tail.
    const rsa4096 = pemBody(500, 51) + "\n" + noise(43, 551, alnum + "+/") + "="
    const longest: ReadonlyArray<readonly [rule: string, name: string, secret: string]> = [
      ["anthropic-key", "API key", "sk-" + "ant-api03-" + noise(93, 420, alnum + "_-") + "AA"],
      ["anthropic-key", "OAuth token", "sk-" + "ant-oat01-" + noise(93, 421, alnum + "_-") + "AA"],
      [
        "anthropic-key",
        "admin key, the longest the rule reads",
        "sk-" + "ant-admin01-" + noise(288, 422, alnum + "_-")
      ],
      ["github-token", "fine-grained", "github" + "_pat_" + noise(22, 423) + "_" + noise(59, 424)],
      [
        "github-token",
        "fine-grained, the longest the rule reads",
        "github" + "_pat_" + noise(100, 425) + "_" + noise(154, 426)
      ],
      ["github-token", "classic, grown to 255 characters of body", "gh" + "p_" + noise(255, 427)],
      ["github-token", "installation, grown to 255 characters of body", "gh" + "s_" + noise(255, 428)],
      [
        "gitlab-token",
        "personal with routing suffixes",
        "gl" + "pat-" + noise(64, 429, alnum + "_-") + ".01." + noise(9, 430)
      ],
      [
        "gitlab-token",
        "runner with three suffixes",
        "gl" + "rt-t1_" + noise(200, 431, alnum + "_-") + "." + noise(20, 432) + "." + noise(2, 433) + "." +
        noise(40, 434)
      ],
      ["gitlab-token", "CI job, the longest the rule reads", "gl" + "cbt-" + "64_" + noise(297, 435, alnum + "_-")],
      ["openai-key", "project", "sk-" + "proj-" + noise(156, 436, alnum + "_-")],
      ["openai-key", "service account, the longest the rule reads", "sk-" + "svcacct-" + noise(300, 437, alnum + "_-")],
      ["openai-key", "legacy, the longest the rule reads", "sk-" + noise(200, 438)],
      [
        "slack-token",
        "bot, the longest the rule reads",
        "xo" + "xb-" + noise(12, 439, "0123456789") + "-" + noise(237, 440)
      ],
      ["slack-token", "rotating, long", "xo" + "xe.xoxp-1-" + noise(240, 441)],
      ["stripe-key", "live secret, the documented 255", "sk" + "_live_" + noise(247, 442)],
      ["stripe-key", "webhook signing, the longest the rule reads", "wh" + "sec_" + noise(100, 443)],
      ["vault-token", "service, the longest the rule reads", "hv" + "s." + noise(500, 444, alnum + "_-")],
      [
        "jwt",
        "RS512 with a 7,000-character payload",
        "ey" + "JhbGciOiJSUzUxMiIsInR5cCI6IkpXVCJ9" + ".ey" + "J" + noise(7_000, 445, alnum + "_-") + "." +
        noise(683, 446, alnum + "_-")
      ],
      [
        "jwt",
        "a 4,000-character header",
        "ey" + "J" + noise(3_990, 447) + ".ey" + "J" + noise(200, 448) + "." + noise(86, 449)
      ],
      ["private-key", "RSA, 4096 bits", pem("RSA PRIVATE KEY", rsa4096)],
      [
        "private-key",
        "PKCS#8, 4096 bits",
        pem("PRIVATE KEY", "MIIJQwIBADANBgkqhkiG9w0BAQEFAASCCS0wggkpAgEAAoICAQ" + rsa4096)
      ],
      [
        "private-key",
        "OpenSSH, 4096 bits",
        pem("OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAA" + pemBody(560, 52) + "=")
      ],
      [
        "private-key",
        "encrypted RSA, 4096 bits",
        pem(
          "RSA PRIVATE KEY",
          `Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,${noise(32, 561, "0123456789ABCDEF")}\n\n${rsa4096}`
        )
      ]
    ]
    for (const [rule, name, secret] of longest) {
      it(`${rule} (${name}, ${secret.length} characters)`, () => {
        const marker = Redactor.marker(rule)
        assert.strictEqual(
          redactor.redact(`2026-03-14 WARN using ${secret} now`).text,
          `2026-03-14 WARN using ${marker} now`
        )
        assert.strictEqual(redactor.redact(`"${secret}"`).text, `"${marker}"`)
        for (
          const text of [
            `TOKEN=${secret}\nREGION=eu-west-1`,
            `{"token": "${secret.replaceAll("\n", "\\n")}", "region": "eu-west-1"}`,
            `config:\n  token: |\n    ${secret.replaceAll("\n", "\n    ")}\n  retries: 3`
          ]
        ) {
          const out = redactor.redact(text).text
          assertGone(out, secret.replace(/^-----BEGIN [A-Z ]+-----\n/, ""))
          assert.include(out, marker)
        }
      })
    }
  })

  describe("keeps", () => {
    const keep = (label: string, texts: ReadonlyArray<string>) =>
      it(label, () => {
        for (const text of texts) assert.deepStrictEqual({ text: redactor.redact(text).text, label }, { text, label })
      })

    keep("the documented AWS example keys", [
      "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      `{"AccessKeyId": "AKIAIOSFODNN7EXAMPLE", "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}`,
      "aws_secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "see https://docs.aws.amazon.com/IAM/ (AKIAIOSFODNN7EXAMPLE, ASIAIOSFODNN7EXAMPLE)"
    ])
    keep("UUIDs", [
      "request_id=550e8400-e29b-41d4-a716-446655440000",
      `{"secret_id": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "token_id": "f47ac10b-58cc-4372-a567-0e02b2c3d479"}`,
      "trace 6ba7b810-9dad-11d1-80b4-00c04fd430c8 finished; key rotated"
    ])
    keep("git commit hashes", [
      "commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: CI",
      `{"sha": "da39a3ee5e6b4b0d3255bfef95601890afd80709", "message": "rotate api key"}`,
      "HEAD is now at 9fceb02 fix token refresh",
      "image@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    ])
    keep("base64 of ordinary text", [
      `{"data": "${Buffer.from("The quick brown fox jumps over the lazy dog, 42 times.").toString("base64")}"}`,
      `payload=${Buffer.from("hello world, this is a perfectly ordinary sentence").toString("base64")}`,
      Buffer.from("Lorem ipsum dolor sit amet, consectetur adipiscing elit.").toString("base64")
    ])
    keep("long words", [
      "pneumonoultramicroscopicsilicovolcanoconiosis antidisestablishmentarianism",
      "AbstractSingletonProxyFactoryBean skeleton-key-management risk-assessment-tool",
      "task-0123456789abcdefghijklmnopqrstuv and disk-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
      "mask_livestock_test_harness_for_the_whsec_dashboard"
    ])
    keep("version strings", [
      "node v20.11.1, typescript@5.9.3, @octokit/auth-token@5.1.2, secret-manager==2.20.0",
      "secret_version=12 token_count=4096 api_key_version: 3.1.4-beta.2+build.7",
      "go1.22.5 linux/amd64; python==3.12.1; 1.2.3-rc.1"
    ])
    keep("file paths", [
      "/etc/ssl/private/server.key and ~/.ssh/id_ed25519",
      "secret_path=/etc/app/secret.key\nprivate_key_path: /etc/ssl/private/server.pem",
      "C:\\Users\\bob\\.aws\\credentials (token store)",
      "/var/run/secrets/kubernetes.io/serviceaccount/token\n./secrets/api_key.txt"
    ])
    keep("near misses of every token shape", [
      "gh" + "p_" + noise(35, 70),
      "AK" + "IA" + noise(15, 71, base32),
      "AK" + "IA" + noise(16, 72, base32) + "X",
      "sk-" + noise(20, 73),
      "xo" + "xb-short",
      "AI" + "za" + noise(30, 74),
      "np" + "m_" + noise(35, 75),
      "h" + "f_" + noise(20, 76),
      "gl" + "pat-" + noise(12, 77),
      "SG." + noise(22, 78) + ".short",
      "SK" + noise(31, 79, hex),
      "da" + "pi" + noise(31, 80, hex),
      "do" + "p_v1_" + noise(63, 81, hex),
      "hv" + "s.short",
      "ey" + "JhbGciOiJIUzI1NiJ9 is a JWT header on its own",
      "-----BEGIN PUBLIC KEY-----\n" + pemBody(82, 2) + "\n-----END PUBLIC KEY-----",
      "-----BEGIN CERTIFICATE-----\n" + pemBody(83, 2) + "\n-----END CERTIFICATE-----",
      "tilde~Q~in prose"
    ])
    keep("placeholders", [
      "password=${DB_PASSWORD}\napi_key=<your-api-key>\nsecret: changeme",
      "token: {{ .Values.token }}\nclient_secret: %CLIENT_SECRET%",
      "Authorization: Bearer ${TOKEN}\nAuthorization: Bearer <token>",
      "postgres://app:${PGPASSWORD}@db/app and redis://:<password>@cache:6379",
      "curl -u admin:$ADMIN_PASSWORD https://api.example.com",
      "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
      "passwd: ********"
    ])
    keep("ordinary words in assignments", [
      "password: required\ntoken_type: Bearer\nsecret_name: prod/db\nauth: none",
      "Authorization: required\nbearer token authentication is enabled",
      "password=hunter2 password=hunter2hunter2 password=correcthorsebattery",
      "401 Unauthorized: incorrect key provided",
      "cache_key=user:123:profile partition_key=tenant-42 key: ticket:48213",
      "Rotate the API key every 90 days; the password policy requires 12 characters."
    ])
    keep("URLs without a password", [
      "https://user@example.com:8443/path?page=2&sort=asc",
      "git clone https://github.com/org/repo.git && ssh git@github.com",
      "http://[::1]:8080/healthz and s3://bucket/key"
    ])
    keep("markers of an earlier redaction", [
      "[REDACTED:aws-secret-access-key]: [REDACTED:secret-assignment] [REDACTED:private-key]",
      "password=[REDACTED:secret-assignment] postgres://app:[REDACTED:url-credentials]@db",
      "Authorization: Bearer [REDACTED:jwt] curl -u admin:[REDACTED:curl-credentials] x"
    ])
  })

  describe("looksRandom", () => {
    it("accepts varied values and refuses words, numbers, placeholders and low entropy", () => {
      for (
        const value of [
          "kX9#pQ2vL8",
          assigned,
          "Tr0ub4dor&3xyz",
          noise(24, 90, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        ]
      ) {
        assert.isTrue(SecretRules.looksRandom(value), value)
      }
      for (
        const value of [
          "hunter2hunter2",
          "12345678901234",
          "correcthorsebattery",
          "CorrectHorseBatteryStaple",
          "${API_TOKEN}",
          "example123456",
          "x9Y",
          "aaaaaaaa1"
        ]
      ) {
        assert.isFalse(SecretRules.looksRandom(value), value)
      }
    })

    it("entropy counts bits per character", () => {
      assert.strictEqual(SecretRules.entropy("aaaa"), 0)
      assert.strictEqual(SecretRules.entropy("abcd"), 2)
      assert.strictEqual(SecretRules.entropy("abcdefgh"), 3)
    })

    it("placeholders include documentation examples", () => {
      for (const value of ["${DB_PASSWORD}", "<token>", "{{ secret }}", "%TOKEN%", "xxxx", "****", "my-EXAMPLE-key"]) {
        assert.isTrue(SecretRules.isPlaceholder(value), value)
      }
      assert.isFalse(SecretRules.isPlaceholder(assigned))
    })
  })
})

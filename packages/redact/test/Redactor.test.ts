import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as Detector from "../src/Detector.js"
import * as Redactor from "../src/Redactor.js"
import * as SecretRules from "../src/SecretRules.js"
import { alnum, assertGone, base32, leakedWindow, markers, noise } from "./FakeSecrets.js"

const redactor = Redactor.make()

const whole = (text: string, redact = redactor) => redact.redact(text)
const streamed = (text: string, sizes: ReadonlyArray<number>, batch?: number, redact = redactor) => {
  const stream = redact.stream(batch === undefined ? undefined : { batch })
  const parts: Array<string> = []
  const kinds: Record<string, number> = {}
  let count = 0
  const take = (r: Redactor.Redaction) => {
    parts.push(r.text)
    count += r.count
    for (const [k, n] of Object.entries(r.kinds)) kinds[k] = (kinds[k] ?? 0) + n
  }
  let at = 0
  for (let i = 0; at < text.length; i++) {
    const size = sizes[i % sizes.length]!
    take(stream.push(text.slice(at, at + size)))
    at += size
  }
  take(stream.end())
  return { text: parts.join(""), count, kinds }
}

/** The text and the count, the fields these assertions are about (a redaction also counts findings by rule). */
const plain = ({ count, text }: Redactor.Redaction) => ({ text, count })

interface Case {
  readonly rule: string
  /** What must not survive. */
  readonly secret: string
  /** What must survive around it (a kept prefix), if anything. */
  readonly kept?: string
  readonly samples: ReadonlyArray<readonly [syntax: string, text: string]>
}

const github = "gh" + "p_" + noise(36, 1)
const githubFineGrained = "github" + "_pat_" + noise(22, 2) + "_" + noise(59, 3)
const aws = "AK" + "IA" + noise(16, 4, base32)
const awsSession = "AS" + "IA" + noise(16, 5, base32)
const anthropic = "sk-" + "ant-api03-" + noise(80, 6)
const openaiProject = "sk-" + "proj-" + noise(48, 7)
const openaiLegacy = "sk-" + noise(48, 8)
const slack = "xo" + "xb-" + noise(12, 9, "0123456789") + "-" + noise(13, 10, "0123456789") + "-" + noise(24, 11)
const slackPath = "T" + noise(8, 12, base32) + "/B" + noise(10, 13, base32) + "/" + noise(24, 14)
const slackWebhook = "https://hooks.slack.com/services/" + slackPath
const stripe = "sk" + "_live_" + noise(24, 15)
const stripeRestricted = "rk" + "_test_" + noise(24, 16)
const google = "AI" + "za" + noise(35, 17)
const npm = "np" + "m_" + noise(36, 18)
const huggingface = "h" + "f_" + noise(34, 19)
const jwt = "ey" + "J" + noise(30, 20) + ".ey" + "J" + noise(60, 21) + "." + noise(43, 22)
const pemBody = Array.from({ length: 6 }, (_, i) => noise(64, 30 + i, alnum + "+/")).join("\n")
const pem = "-----BEGIN RSA PRIVATE KEY-----\n" + pemBody + "\n-----END RSA PRIVATE KEY-----"
const dbPassword = "Zq8" + noise(17, 23)
const bearer = noise(40, 24, alnum + "._-")
const basic = noise(28, 25) + "=="
const assigned = "Zx9" + noise(14, 26)

const cases: ReadonlyArray<Case> = [
  {
    rule: "private-key",
    secret: pemBody,
    samples: [
      ["a PEM file", `${pem}\n`],
      ["a JSON service account", `{"type": "service_account", "private_key": "${pem.replaceAll("\n", "\\n")}\\n"}`],
      ["a YAML block", `tls:\n  key: |\n    ${pem.replaceAll("\n", "\n    ")}\n  cert: server.crt`],
      ["an env file", `SSH_KEY="${pem.replaceAll("\n", "\\n")}"`],
      ["a log line", `2026-01-02 WARN loaded key ${pem.replaceAll("\n", " ")} from disk`],
      ["a key cut off before its END line", `-----BEGIN OPENSSH PRIVATE KEY-----\n${pemBody}`]
    ]
  },
  {
    rule: "aws-access-key-id",
    secret: aws,
    samples: [
      ["an env file", `AWS_ACCESS_KEY_ID=${aws}\nAWS_REGION=eu-west-1`],
      ["JSON", `{"AccessKeyId": "${aws}", "Expiration": "2026-01-02T03:04:05Z"}`],
      ["YAML", `aws_access_key_id: ${aws}`],
      ["a log line", `2026-01-02 INFO signing request with ${aws} for s3://bucket`],
      ["a presigned URL", `https://bucket.s3.amazonaws.com/o?X-Amz-Credential=${aws}%2F20260102%2Fus-east-1`],
      ["source code", `const s3 = new S3Client({ credentials: { accessKeyId: "${aws}" } })`]
    ]
  },
  {
    rule: "aws-access-key-id",
    secret: awsSession,
    samples: [["a log line", `assumed role, temporary key ${awsSession} expires in 3600 s`]]
  },
  {
    rule: "github-token",
    secret: github,
    samples: [
      ["an env file", `GITHUB_TOKEN=${github}`],
      ["JSON", `{"token": "${github}", "user": "octocat"}`],
      ["YAML", `github:\n  token: ${github}\n`],
      ["a log line", `2026-01-02T03:04:05Z INFO cloning with ${github} into /tmp/repo`],
      ["a URL", `https://api.example.com/v1/repos?access=${github}&page=2`],
      ["source code", `const octokit = new Octokit({ auth: "${github}" })`]
    ]
  },
  {
    rule: "github-token",
    secret: githubFineGrained,
    samples: [["an env file", `GH_TOKEN=${githubFineGrained}`]]
  },
  {
    rule: "anthropic-key",
    secret: anthropic,
    samples: [
      ["an env file", `ANTHROPIC_API_KEY=${anthropic}`],
      ["JSON", `{"x-api-key": "${anthropic}"}`],
      ["YAML", `anthropic:\n  key: ${anthropic}`],
      ["a log line", `POST /v1/messages with ${anthropic} -> 401`],
      ["a URL", `https://proxy.internal/v1/messages?k=${anthropic}`],
      ["source code", `const client = new Anthropic({ apiKey: "${anthropic}" })`]
    ]
  },
  {
    rule: "openai-key",
    secret: openaiProject,
    samples: [
      ["an env file", `OPENAI_API_KEY=${openaiProject}`],
      ["JSON", `{"openai": {"key": "${openaiProject}"}}`],
      ["YAML", `openai_key: ${openaiProject}`],
      ["a log line", `401 Unauthorized: incorrect key ${openaiProject} provided`],
      ["a URL", `https://gateway.internal/v1/chat?k=${openaiProject}`],
      ["source code", `client = OpenAI(api_key="${openaiProject}")`]
    ]
  },
  {
    rule: "openai-key",
    secret: openaiLegacy,
    samples: [["an env file", `OPENAI_KEY=${openaiLegacy}`]]
  },
  {
    rule: "slack-token",
    secret: slack,
    samples: [
      ["an env file", `SLACK_BOT_TOKEN=${slack}`],
      ["JSON", `{"ok": true, "access_token": "${slack}"}`],
      ["YAML", `slack:\n  bot: ${slack}`],
      ["a log line", `[bolt] starting app with ${slack}`],
      ["a URL", `https://slack.com/api/auth.test?t=${slack}`],
      ["source code", `const app = new App({ token: "${slack}" })`]
    ]
  },
  {
    rule: "slack-webhook",
    secret: slackPath,
    samples: [
      ["an env file", `SLACK_WEBHOOK_URL=${slackWebhook}`],
      ["JSON", `{"alerts": {"webhook": "${slackWebhook}"}}`],
      ["YAML", `notify:\n  url: ${slackWebhook}`],
      ["a log line", `posting alert to ${slackWebhook} (200 OK)`],
      ["source code", `await fetch("${slackWebhook}", { method: "POST" })`]
    ]
  },
  {
    rule: "stripe-key",
    secret: stripe,
    samples: [
      ["an env file", `STRIPE_KEY=${stripe}`],
      ["JSON", `{"stripe": "${stripe}"}`],
      ["YAML", `stripe:\n  live: ${stripe}`],
      ["a log line", `charge failed using ${stripe}: card_declined`],
      ["a URL", `https://billing.internal/setup?k=${stripe}`],
      ["source code", `const stripe = new Stripe("${stripe}")`]
    ]
  },
  {
    rule: "stripe-key",
    secret: stripeRestricted,
    samples: [["an env file", `STRIPE_RESTRICTED=${stripeRestricted}`]]
  },
  {
    rule: "google-api-key",
    secret: google,
    samples: [
      ["an env file", `MAPS_KEY=${google}`],
      ["JSON", `{"apiKey": "${google}", "projectId": "demo"}`],
      ["YAML", `maps:\n  key: ${google}`],
      ["a log line", `geocoding failed for ${google}: quota exceeded`],
      ["a URL", `https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key=${google}`],
      ["source code", `initializeApp({ apiKey: "${google}" })`]
    ]
  },
  {
    rule: "npm-token",
    secret: npm,
    samples: [
      ["an .npmrc line", `//registry.npmjs.org/:_authToken=${npm}`],
      ["JSON", `{"npm": "${npm}"}`],
      ["YAML", `env:\n  NODE_AUTH: ${npm}`],
      ["a log line", `npm notice using ${npm} for publish`],
      ["a URL", `https://registry.internal/-/whoami?t=${npm}`],
      ["source code", `process.env.NPM = "${npm}"`]
    ]
  },
  {
    rule: "huggingface-token",
    secret: huggingface,
    samples: [
      ["an env file", `HF_TOKEN=${huggingface}`],
      ["JSON", `{"hf": "${huggingface}"}`],
      ["YAML", `hub:\n  auth: ${huggingface}`],
      ["a log line", `downloading model with ${huggingface}`],
      ["a URL", `https://hub.internal/api/whoami?t=${huggingface}`],
      ["source code", `login(token="${huggingface}")`]
    ]
  },
  {
    rule: "jwt",
    secret: jwt,
    samples: [
      ["an env file", `SESSION=${jwt}`],
      ["JSON", `{"id_token": "${jwt}", "expires_in": 3600}`],
      ["YAML", `session: ${jwt}`],
      ["a bearer header", `Authorization: Bearer ${jwt}`],
      ["a cookie line", `Set-Cookie: session=${jwt}; Path=/; HttpOnly`],
      ["a URL fragment", `https://app.example.com/callback#id_token=${jwt}&state=xyz`],
      ["source code", `const claims = decode("${jwt}")`]
    ]
  },
  {
    rule: "url-credentials",
    secret: dbPassword,
    kept: "://app:",
    samples: [
      ["an env file", `DATABASE_URL=postgres://app:${dbPassword}@db.internal:5432/app`],
      ["JSON", `{"dsn": "mongodb+srv://app:${dbPassword}@cluster0.example.net/db"}`],
      ["YAML", `cache:\n  url: redis://app:${dbPassword}@cache:6379/0`],
      ["a log line", `connecting to amqp://app:${dbPassword}@rabbit:5672/ (attempt 2)`],
      ["source code", `mysql.createConnection("mysql://app:${dbPassword}@localhost/shop")`]
    ]
  },
  {
    rule: "authorization-header",
    secret: bearer,
    kept: "Bearer ",
    samples: [
      ["an HTTP header", `GET /v1/tickets HTTP/1.1\nAuthorization: Bearer ${bearer}\nAccept: */*`],
      ["JSON", `{"headers": {"Authorization": "Bearer ${bearer}"}}`],
      ["YAML", `headers:\n  authorization: Bearer ${bearer}`],
      ["a log line", `2026-01-02 DEBUG request sent with Bearer ${bearer}`],
      ["a curl command", `curl -H "Authorization: Bearer ${bearer}" https://api.example.com/v1/me`],
      ["source code", `fetch(url, { headers: { Authorization: "Bearer ${bearer}" } })`]
    ]
  },
  {
    rule: "authorization-header",
    secret: basic,
    kept: "Basic ",
    samples: [["an HTTP header", `Authorization: Basic ${basic}\nHost: api.example.com`]]
  },
  {
    rule: "secret-assignment",
    secret: assigned,
    samples: [
      ["an env file", `DB_PASSWORD=${assigned}\nDB_HOST=localhost`],
      ["JSON", `{"client_id": "web", "client_secret": "${assigned}"}`],
      ["YAML", `database:\n  password: ${assigned}\n  user: app`],
      ["a log line", `2026-01-02 DEBUG login user=bob password=${assigned} ok`],
      ["a URL", `https://api.example.com/v1/items?api_key=${assigned}`],
      ["source code", `const apiKey = "${assigned}";`],
      ["an ini file", `[auth]\npasswd = ${assigned}`]
    ]
  }
]

describe("Redactor", () => {
  describe("default rules remove", () => {
    for (const { kept, rule, samples, secret } of cases) {
      for (const [syntax, text] of samples) {
        it(`${rule} in ${syntax}`, () => {
          assert.isDefined(leakedWindow(text, secret), "the sample holds the secret")
          const result = redactor.redact(text)
          assertGone(result.text, secret)
          assert.include(result.text, Redactor.marker(rule))
          if (kept !== undefined) assert.include(result.text, `${kept}${Redactor.marker(rule)}`)
          assert.isAtLeast(result.count, 1)
          assert.strictEqual(result.count, markers(result.text))
        })
      }
    }

    it("only the secret, leaving the text around it", () => {
      const result = redactor.redact(`user=octocat token=${github} repo=tool-runtime`)
      assert.strictEqual(result.text, "user=octocat token=[REDACTED:github-token] repo=tool-runtime")
      assert.strictEqual(result.count, 1)
    })

    it("a private key whole, up to its END line, and nothing after it", () => {
      const result = redactor.redact(`key:\n${pem}\nnext_field: 1`)
      assert.strictEqual(result.text, "key:\n[REDACTED:private-key]\nnext_field: 1")
    })

    it("a token used as the user of a clone URL", () => {
      const result = redactor.redact(`git clone https://${github}@github.com/org/repo.git`)
      assertGone(result.text, github)
      assert.include(result.text, "@github.com/org/repo.git")
    })

    it("every occurrence, counting each", () => {
      const result = redactor.redact(`${github} ${npm}\n${github}`)
      assert.strictEqual(result.text, "[REDACTED:github-token] [REDACTED:npm-token]\n[REDACTED:github-token]")
      assert.strictEqual(result.count, 3)
    })
  })

  describe("default rules keep", () => {
    const survivors: ReadonlyArray<readonly [label: string, text: string]> = [
      ["a UUID next to secret-looking words", `secret rotated; version_id=550e8400-e29b-41d4-a716-446655440000`],
      ["UUIDs in JSON", `{"secret_name": "prod/db", "request_id": "7c9e6679-7425-40de-944b-e07fc1f90ae7"}`],
      ["a 40-hex git SHA", "commit 3f786850e387550fdab836ed7e6dc881de23001b\n\n    fix token refresh"],
      ["git SHAs in JSON", `{"sha": "da39a3ee5e6b4b0d3255bfef95601890afd80709", "message": "rotate api key"}`],
      ["a short word as password", "password=hunter"],
      ["a seven-character password", "password=hunter2"],
      ["a repeated word as password", "password=hunter2hunter2"],
      ["a placeholder password", "PASSWORD=${DB_PASSWORD}\nSECRET=<your-secret>\npasswd: ********"],
      ["a placeholder key", "api_key=YOUR_API_KEY\nsecret: changeme\npassword: example-password-123"],
      ["a secret's file path", "secret_path=/etc/app/secret.key\nprivate_key_path: /etc/ssl/private/server.pem"],
      ["paths named after secrets", "/var/run/secrets/kubernetes.io/serviceaccount/token\nssh -i ~/.ssh/id_ed25519"],
      ["a Windows path", "C:\\Users\\bob\\AppData\\Roaming\\gh\\hosts.yml (token store)"],
      ["version strings", "node v20.11.1, typescript@5.9.3, @octokit/auth-token@5.1.2, secret-manager==2.20.0"],
      ["prose about secrets", "Rotate the API key every 90 days; the password policy requires 12 characters."],
      [
        "words that contain a token prefix",
        "task-0123456789abcdefghijklmnopqrstuv and disk-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
      ],
      ["a URL without credentials", "https://user@example.com:8443/path?page=2&sort=asc"]
    ]
    for (const [label, text] of survivors) {
      it(label, () => {
        assert.deepStrictEqual(plain(redactor.redact(text)), { text, count: 0 })
      })
    }
  })

  describe("looksRandom", () => {
    it("accepts varied values with digits and refuses words, numbers and placeholders", () => {
      assert.isTrue(Redactor.looksRandom("kX9#pQ2vL8"))
      assert.isTrue(Redactor.looksRandom(assigned))
      assert.isFalse(Redactor.looksRandom("hunter2hunter2"))
      assert.isFalse(Redactor.looksRandom("12345678901234"))
      assert.isFalse(Redactor.looksRandom("correcthorsebattery"))
      assert.isFalse(Redactor.looksRandom("${API_TOKEN}"))
      assert.isFalse(Redactor.looksRandom("example123456"))
      assert.isFalse(Redactor.looksRandom("x9Y"))
    })
  })

  describe("known secrets", () => {
    const vault = "corp-vault-4f9a7Qe"
    const known = Redactor.make({ secrets: [vault] })

    it("are removed wherever they appear, whatever their shape", () => {
      const text = [
        `plain ${vault} here`,
        `{"config": {"token": "${vault}"}}`,
        `https://example.com/${vault}/download`,
        `inside-a-word-${vault}-suffix`,
        `${vault}${vault}`
      ].join("\n")
      const result = known.redact(text)
      assertGone(result.text, vault)
      assertGone(result.text, "4f9a7Qe")
      assert.strictEqual(result.count, 6)
      assert.strictEqual(markers(result.text), 6)
      assert.include(result.text, "inside-a-word-[REDACTED:known-secret]-suffix")
    })

    it("are matched literally, regular-expression characters included", () => {
      const odd = Redactor.make({ secrets: ["p@ss.w*rd(1)+[x]"] })
      assert.deepStrictEqual(plain(odd.redact("pw is p@ss.w*rd(1)+[x]; pXss.wwrd1 is not")), {
        text: "pw is [REDACTED:known-secret]; pXss.wwrd1 is not",
        count: 1
      })
    })

    it("are removed whole when one contains another", () => {
      const nested = Redactor.make({ secrets: ["abcd1234", "abcd1234efgh"] })
      assert.deepStrictEqual(plain(nested.redact("x abcd1234efgh y abcd1234 z")), {
        text: "x [REDACTED:known-secret] y [REDACTED:known-secret] z",
        count: 2
      })
    })

    it("shorter than four characters are ignored rather than blanking common text", () => {
      const short = Redactor.make({ secrets: ["a1"] })
      assert.deepStrictEqual(plain(short.redact("a1 a1b2")), { text: "a1 a1b2", count: 0 })
    })

    it("are removed whole as an assignment's value, past where the value would end, named as known", () => {
      // The assignment's value stops at the space; the known secret goes on, and
      // its tail would be left behind if the finding ended with the value.
      const spaced = "Zq8xK2vLp9mN4wR7 tail-Qp3"
      const both = Redactor.make({ secrets: ["Zq8xK2vLp9mN4wR7", spaced] })
      for (const text of [`DB_PASSWORD=${spaced} and more`, `password: ${spaced} and more`]) {
        const result = both.redact(text)
        assertGone(result.text, spaced)
        assert.strictEqual(result.text, `${text.slice(0, text.indexOf("Zq8"))}[REDACTED:known-secret] and more`)
        assert.deepStrictEqual(streamed(text, [3], 4, both), result)
      }
      assert.strictEqual(both.redact("password=Zq8xK2vLp9mN4wR7").text, "password=[REDACTED:known-secret]")
    })

    it("are removed together with the default rules", () => {
      const result = known.redact(`${vault} ${github}`)
      assert.strictEqual(result.text, "[REDACTED:known-secret] [REDACTED:github-token]")
      assert.strictEqual(result.count, 2)
    })
  })

  describe("custom rules", () => {
    it("run only when one of their keywords occurs, in any case", () => {
      const ticket = Redactor.make({
        replaceDefaultRules: [{ id: "ticket-secret", keywords: ["tkt-"], pattern: /\bTKT-[0-9]{6}\b/g }]
      })
      assert.deepStrictEqual(plain(ticket.redact("see TKT-123456")), { text: "see [REDACTED:ticket-secret]", count: 1 })
      const gated = Redactor.make({
        replaceDefaultRules: [{ id: "ticket-secret", keywords: ["never-present"], pattern: /\bTKT-[0-9]{6}\b/g }]
      })
      assert.deepStrictEqual(plain(gated.redact("see TKT-123456")), { text: "see TKT-123456", count: 0 })
    })

    it("keep the first capture group when asked, and let accept veto the captured secret", () => {
      const pin = Redactor.make({
        replaceDefaultRules: [{
          id: "pin",
          keywords: ["pin"],
          pattern: /(pin=)([0-9]{4,8})/g,
          keep: true,
          accept: (secret) => secret !== "0000"
        }]
      })
      assert.deepStrictEqual(plain(pin.redact("pin=4821 pin=0000")), { text: "pin=[REDACTED:pin] pin=0000", count: 1 })
    })

    it("keep nothing unless asked, and with only the kept group, accept sees the rest of the match", () => {
      const rule = { id: "pin", keywords: ["pin"], pattern: /(pin: )[0-9]{4}/g }
      const whole = Redactor.make({ replaceDefaultRules: [rule], personalData: false })
      assert.strictEqual(whole.redact("the pin: 4821.").text, "the [REDACTED:pin].")
      const kept = Redactor.make({
        replaceDefaultRules: [{ ...rule, keep: true, accept: (secret) => secret !== "0000" }],
        personalData: false
      })
      assert.strictEqual(kept.redact("the pin: 4821, the pin: 0000.").text, "the pin: [REDACTED:pin], the pin: 0000.")
    })

    it("need any one of their keywords, each matched literally in any case, its regular-expression characters too", () => {
      const ticket = Redactor.make({
        replaceDefaultRules: [{ id: "ticket", keywords: ["ticket", "[ref]^"], pattern: /\bTKT-[0-9]{6}\b/g }],
        personalData: false
      })
      assert.strictEqual(ticket.redact("Ticket TKT-123456").text, "Ticket [REDACTED:ticket]")
      assert.strictEqual(ticket.redact("[REF]^ TKT-123456").text, "[REF]^ [REDACTED:ticket]")
      assert.strictEqual(ticket.redact("[ref]^ TKT-123456").text, "[ref]^ [REDACTED:ticket]")
      for (const text of ["REF TKT-123456", "[REF] TKT-123456", "tick TKT-123456"]) {
        assert.strictEqual(ticket.redact(text).text, text)
      }
    })
  })

  describe("laws", () => {
    const planted = FastCheck.oneof(
      FastCheck.stringMatching(/^[A-Za-z0-9]{36}$/).map((s) => "gh" + "p_" + s),
      FastCheck.stringMatching(/^[A-Z2-7]{16}$/).map((s) => "AK" + "IA" + s),
      FastCheck.stringMatching(/^[A-Za-z0-9]{40}$/).map((s) => "sk-" + "proj-" + s),
      FastCheck.stringMatching(/^[A-Za-z0-9]{60}$/).map((s) => "sk-" + "ant-api03-" + s),
      FastCheck.stringMatching(/^[0-9]{10}-[A-Za-z0-9]{20}$/).map((s) => "xo" + "xb-" + s),
      FastCheck.stringMatching(/^[A-Za-z0-9]{24}$/).map((s) => "sk" + "_live_" + s),
      FastCheck.stringMatching(/^[A-Za-z0-9_-]{35}$/).map((s) => "AI" + "za" + s),
      FastCheck.stringMatching(/^[A-Za-z0-9]{36}$/).map((s) => "np" + "m_" + s),
      FastCheck.stringMatching(/^[A-Za-z0-9]{34}$/).map((s) => "h" + "f_" + s),
      FastCheck.stringMatching(/^[A-Za-z0-9]{12}\.eyJ[A-Za-z0-9]{12}\.[A-Za-z0-9]{12}$/).map((s) => "ey" + "J" + s)
    )
    const assignment = FastCheck.tuple(
      FastCheck.constantFrom(
        "password=",
        "DB_PASSWORD=",
        "\"client_secret\": \"",
        "api_key: ",
        "Authorization: Bearer "
      ),
      FastCheck.stringMatching(/^[A-Za-z0-9]{6,20}[0-9]$/)
    ).map(([key, value]) => key + value)
    const urlWithPassword = FastCheck.stringMatching(/^[A-Za-z0-9]{4,16}$/).map((p) => `postgres://app:${p}@db/x`)

    // Every part is followed by a character that ends a word, as tokens are in
    // real output. A token glued to the end of a fixed-length one (a Google key)
    // is a different matter: its rule may have run before the replacement gave
    // it a word boundary.
    const anyText = FastCheck.array(
      FastCheck.tuple(
        FastCheck.oneof(
          planted,
          assignment,
          urlWithPassword,
          FastCheck.string({ unit: "grapheme", maxLength: 10 }),
          FastCheck.string({ unit: "binary-ascii", maxLength: 10 }),
          FastCheck.constantFrom("", "://", "@", "Bearer", "password", "[REDACTED:", "]")
        ),
        FastCheck.constantFrom(" ", "\n", "=", ":", "\"", ",", "/", "@", ";")
      ),
      { maxLength: 12 }
    ).map((parts) => parts.map(([part, end]) => part + end).join(""))

    it.prop("redaction is idempotent", { text: anyText }, ({ text }) => {
      const once = redactor.redact(text).text
      assert.strictEqual(redactor.redact(once).text, once)
    }, { fastCheck: { numRuns: 500 } })

    const word = FastCheck.constantFrom("build", "ok", "user", "retry", "id=42", "ticket", "error:", "{", "}", "[1,2]")
    const separated = FastCheck.array(
      FastCheck.tuple(FastCheck.oneof(planted, word, assignment), FastCheck.constantFrom(" ", "\n", "\t", "  ")),
      { maxLength: 10 }
    ).map((parts) => ({ tokens: parts.map(([p]) => p), text: parts.map(([p, sep]) => p + sep).join("") }))

    it.prop(
      "removes every planted token, and counts exactly the markers it leaves",
      { sample: separated },
      ({ sample }) => {
        const result = redactor.redact(sample.text)
        for (const token of sample.tokens) {
          if (/^(?:ghp_|AKIA|sk-|xoxb-|sk_live_|AIza|npm_|hf_|eyJ)/.test(token)) {
            assertGone(result.text, token, sample.text)
          }
        }
        assert.strictEqual(result.count, markers(result.text))
      },
      { fastCheck: { numRuns: 1000 } }
    )
  })

  describe("results", () => {
    it("count each finding by rule", () => {
      const result = redactor.redact(`${github} ${npm} ${github} alice@example.com`)
      assert.deepStrictEqual(result.kinds, { "github-token": 2, "npm-token": 1, email: 1 })
      assert.strictEqual(result.count, 4)
    })

    it("are the text itself, uncounted, when nothing is found", () => {
      const text = "2026-03-14 INFO build finished in 42s"
      const result = redactor.redact(text)
      assert.strictEqual(result.text, text)
      assert.deepStrictEqual({ count: result.count, kinds: result.kinds }, { count: 0, kinds: {} })
    })
  })

  describe("rules from the application", () => {
    // Each text, whole and streamed a character at a time, redacts as expected.
    const agrees = (redact: Redactor.Redactor, text: string, expected: string, batch = 5) => {
      assert.strictEqual(redact.redact(text).text, expected, text)
      const stream = redact.stream({ batch })
      const out = [...text].map((ch) => stream.push(ch).text).join("") + stream.end().text
      assert.strictEqual(out, expected, `${text}, streamed`)
    }
    const acme: Detector.Detector = {
      id: "acme-key",
      triggers: [Detector.prefix("acme_")],
      before: 2,
      after: 40,
      verify: (context, hit) => {
        if (!Detector.separatedBefore(context, hit.start)) return undefined
        const match = Detector.matchAt(/acme_[0-9a-f]{32}(?![0-9a-f])/y, context.text, hit.start)
        return match === null ? undefined : { start: hit.start, end: hit.start + match[0].length }
      }
    }
    const acmeKey = "acme_" + noise(32, 200, "0123456789abcdef")
    const ticket: Redactor.Rule = { id: "ticket-secret", keywords: ["tkt-"], pattern: /\bTKT-[0-9]{6}\b/g }

    it("extraRules add regular-expression rules and detectors to the catalogue", () => {
      const extended = Redactor.make({ extraRules: [ticket, acme] })
      assert.strictEqual(
        extended.redact(`see TKT-123456, key ${acmeKey}, token ${github}`).text,
        "see [REDACTED:ticket-secret], key [REDACTED:acme-key], token [REDACTED:github-token]"
      )
    })

    it("rules replace the catalogue; personal data is governed on its own", () => {
      const only = Redactor.make({ replaceDefaultRules: [acme] })
      assert.strictEqual(
        only.redact(`${acmeKey} ${github} bob@example.com`).text,
        `[REDACTED:acme-key] ${github} [REDACTED:email]`
      )
      const none = Redactor.make({ replaceDefaultRules: [acme], personalData: false })
      assert.strictEqual(none.redact(`${github} bob@example.com`).text, `${github} bob@example.com`)
    })

    it("a rule with no keywords is tried on every text, short or long, whole or streamed", () => {
      // No keyword: the rule's pass has no gate and the redactor no prefilter to skip a text with.
      const badge = Redactor.make({
        replaceDefaultRules: [{ id: "badge", keywords: [], pattern: /\bBDG[0-9]{5}\b/g }],
        personalData: false
      })
      for (const pad of [0, 3_000]) {
        const text = `${"-".repeat(pad)} badge BDG12345 and BDG67890.`
        const expected = `${"-".repeat(pad)} badge [REDACTED:badge] and [REDACTED:badge].`
        agrees(badge, text, expected, 7)
      }
    })

    it("an overlapping pattern finds the candidate that starts inside a match its detector rejected", () => {
      // `a-b-tok-…` matches whole and is rejected (it must start with `tok-`):
      // the pass goes on after `a`, then after `b`, and finds `tok-…` inside it.
      const dashed = (overlapping: boolean): Detector.Detector => ({
        id: "dashed",
        triggers: [Detector.pattern(/[a-z0-9]+(?:-[a-z0-9]+)+/g, 60, undefined, overlapping)],
        before: 0,
        after: 60,
        verify: (_, hit) => hit.match?.[0].startsWith("tok-") === true ? { start: hit.start, end: hit.end } : undefined
      })
      const text = "id a-b-tok-ab12cd34ef, then x-tok-99zz88yy."
      agrees(
        Redactor.make({ replaceDefaultRules: [dashed(true)], personalData: false }),
        text,
        "id a-b-[REDACTED:dashed], then x-[REDACTED:dashed]."
      )
      // Not overlapping, a pass resumes after the whole match: what the flag is for.
      agrees(Redactor.make({ replaceDefaultRules: [dashed(false)], personalData: false }), text, text)
    })

    it("each pattern of a detector is gated by its own prefilter, and one pattern shared by two detectors by either's", () => {
      const span = (_: Detector.Context, hit: Detector.Hit) => ({ start: hit.start, end: hit.end })
      const twoShapes = Redactor.make({
        replaceDefaultRules: [{
          id: "two-shapes",
          triggers: [Detector.pattern(/AKX[0-9]{6}/g, 9, "AKX"), Detector.pattern(/BKY[0-9]{6}/g, 9, "BKY")],
          before: 0,
          after: 9,
          verify: span
        }],
        personalData: false
      })
      agrees(twoShapes, "only AKX123456 here", "only [REDACTED:two-shapes] here")
      agrees(twoShapes, "only BKY123456 here", "only [REDACTED:two-shapes] here")
      agrees(twoShapes, "AKX123456 BKY654321", "[REDACTED:two-shapes] [REDACTED:two-shapes]")
      // One RegExp object, two detectors, two prefilters: a text needs to pass only its own.
      const shared = /K[0-9]{8}/g
      const side = (id: string, lead: string): Detector.Detector => ({
        id,
        triggers: [Detector.pattern(shared, 9, `${lead}=K`)],
        before: 2,
        after: 9,
        verify: (context, hit) => context.text.startsWith(`${lead}=`, hit.start - 2) ? span(context, hit) : undefined
      })
      const sides = Redactor.make({ replaceDefaultRules: [side("left", "L"), side("right", "R")], personalData: false })
      agrees(sides, "set L=K12345678", "set L=[REDACTED:left]")
      agrees(sides, "set R=K12345678", "set R=[REDACTED:right]")
      agrees(sides, "set Q=K12345678", "set Q=K12345678")
    })

    it("an assignment whose value starts with an application's token is removed as that token, as far as it goes", () => {
      // `ZZK_` tokens hold a space (`ZZK_abcdefgh ijklmnop`), where an
      // assignment's value stops: the token's own rule, asked from the value's
      // start with the hit it would get from the scan, says where it ends.
      const spaced: Detector.Detector = {
        id: "zzk-token",
        triggers: [Detector.prefix("ZZK_")],
        before: 0,
        after: 30,
        verify: (context, hit) =>
          /^[a-z]{8} [a-z]{8}(?![a-z])/.test(context.text.slice(hit.end, hit.end + 18))
            ? { start: hit.start, end: hit.end + 17 }
            : undefined
      }
      const redactor = Redactor.make({ extraRules: [spaced], personalData: false })
      for (const text of ["DB_PASSWORD=ZZK_qwhtyzmx lkpvrnse then", "password: ZZK_qwhtyzmx lkpvrnse then"]) {
        agrees(redactor, text, `${text.slice(0, text.indexOf("ZZK_"))}[REDACTED:zzk-token] then`)
      }
    })

    it("a match that overlaps a finding is searched again from the finding's end, where another may start inside it", () => {
      // `[a-z0-9]+` matches `bbbbbkeyxyz` from inside the `AAA` finding; only
      // the part after the finding is left, and there `keyxyz` is a key.
      const lead: Detector.Detector = {
        id: "lead",
        triggers: [Detector.prefix("AAA")],
        before: 0,
        after: 8,
        verify: (_, hit) => ({ start: hit.start, end: hit.start + 8 })
      }
      const key: Detector.Detector = {
        id: "key",
        triggers: [Detector.pattern(/[a-z0-9]+/g, 40)],
        before: 0,
        after: 40,
        verify: (_, hit) => hit.match?.[0].startsWith("key") === true ? { start: hit.start, end: hit.end } : undefined
      }
      const custom = Redactor.make({ replaceDefaultRules: [lead, key], personalData: false })
      agrees(custom, "AAAbbbbbkeyxyz and keyabc", "[REDACTED:lead][REDACTED:key] and [REDACTED:key]")
    })

    it("a hit inside an earlier marker's id starts nothing, up to the longest id a marker has", () => {
      // `TOK` needs no separator before it, so it is found inside any word,
      // the id of a marker too: there it must be left alone, or redacting
      // twice would differ from redacting once. Ids hold letters, digits, `_`,
      // `-` and `.`, at most 40 of them before the hit.
      const tok = Redactor.make({
        replaceDefaultRules: [{
          id: "tok",
          triggers: [Detector.prefix("TOK")],
          before: 0,
          after: 10,
          verify: (_, hit) => ({ start: hit.start, end: hit.start + 10 })
        }],
        personalData: false
      })
      assert.strictEqual(tok.redact("x TOK1234567 y").text, "x [REDACTED:tok] y")
      for (
        const marker of [
          "[REDACTED:TOK1234567]",
          "[REDACTED:build.TOK1234567]",
          "[REDACTED:build-TOK1234567]",
          "[REDACTED:a_b.c-TOK1234567]",
          `[REDACTED:${"a".repeat(40)}TOK1234567]`
        ]
      ) {
        for (const text of [marker, `see ${marker} here`]) {
          assert.strictEqual(tok.redact(text).text, text, text)
        }
      }
      // Past the longest id, the word is not a marker's: the hit is judged as any other.
      const long = `[REDACTED:${"a".repeat(41)}TOK1234567]`
      assert.strictEqual(tok.redact(long).text, `[REDACTED:${"a".repeat(41)}[REDACTED:tok]]`)
    })

    it("a finding removes something: an empty span, or one that ends before it starts, leaves no marker", () => {
      const odd = (id: string, end: (start: number) => number): Detector.Detector => ({
        id,
        triggers: [Detector.prefix(`${id.toUpperCase()}:`)],
        before: 0,
        after: 20,
        verify: (_, hit) => ({ start: hit.end, end: end(hit.end) })
      })
      const custom = Redactor.make({
        replaceDefaultRules: [odd("empty", (at) => at), odd("back", (at) => at - 2), odd("real", (at) => at + 4)],
        personalData: false
      })
      agrees(custom, "EMPTY:abcd BACK:abcd REAL:abcd", "EMPTY:abcd BACK:abcd REAL:[REDACTED:real]")
      assert.strictEqual(custom.redact("EMPTY:abcd BACK:abcd").count, 0)
    })

    it("two rules on one character, each with its own prefilter, each find theirs", () => {
      // `#` is a one-character trigger of both; a prefilter of one of them
      // must not stand for the other's.
      const tagged = (id: string, letter: string): Detector.Detector => ({
        id,
        triggers: [Detector.literal("#", `#${letter}[0-9]`)],
        before: 0,
        after: 8,
        verify: (context, hit) =>
          new RegExp(`^#${letter}[0-9]{6}`).test(context.text.slice(hit.start, hit.start + 8))
            ? { start: hit.start, end: hit.start + 8 }
            : undefined
      })
      const both = Redactor.make({
        replaceDefaultRules: [tagged("alpha", "A"), tagged("beta", "B")],
        personalData: false
      })
      agrees(both, "see #A123456 here", "see [REDACTED:alpha] here")
      agrees(both, "see #B123456 here", "see [REDACTED:beta] here")
      agrees(both, "#B123456 #A123456 #C123456", "[REDACTED:beta] [REDACTED:alpha] #C123456")
      // One without a prefilter: the character alone may start its secret.
      const open = Redactor.make({
        replaceDefaultRules: [tagged("alpha", "A"), { ...tagged("any", "[A-Z]"), triggers: [Detector.literal("#")] }],
        personalData: false
      })
      agrees(open, "see #Q123456 here", "see [REDACTED:any] here")
    })

    it("a detector's prefix may be of any characters, one character too, anywhere in a long text or a short one", () => {
      const after = (id: string, prefix: string): Detector.Detector => ({
        id,
        triggers: [Detector.prefix(prefix)],
        before: 0,
        after: prefix.length + 6,
        verify: (_, hit) => ({ start: hit.end, end: hit.end + 6 })
      })
      const custom = Redactor.make({
        replaceDefaultRules: [after("cyrillic", "токен:"), after("hash", "#"), after("ascii", "tk:")],
        personalData: false
      })
      for (const pad of [0, 400]) {
        const tail = "-".repeat(pad)
        agrees(
          custom,
          `#abcdef токен:qwerty tk:zxcvbn ${tail}`,
          `#[REDACTED:hash] токен:[REDACTED:cyrillic] tk:[REDACTED:ascii] ${tail}`
        )
      }
    })

    it("a detector's pattern may carry any flags: global, sticky, both, neither", () => {
      // Both made the pass's own copy `gg`, which the RegExp constructor refuses.
      for (const pattern of [/TKN[0-9]{4}/, /TKN[0-9]{4}/g, /TKN[0-9]{4}/y, /TKN[0-9]{4}/gy, /tkn[0-9]{4}/giy]) {
        const custom = Redactor.make({
          replaceDefaultRules: [{
            id: "tkn",
            triggers: [Detector.pattern(pattern, 7)],
            before: 0,
            after: 7,
            verify: (_, hit) => ({ start: hit.start, end: hit.end })
          }],
          personalData: false
        })
        agrees(custom, "a TKN1234 b TKN5678.", "a [REDACTED:tkn] b [REDACTED:tkn].")
      }
    })

    it("a keyword may stand just before the match", () => {
      const pin = Redactor.make({
        replaceDefaultRules: [{ id: "pin", keywords: ["pin"], pattern: /\b[0-9]{4}\b/g }],
        personalData: false
      })
      const far = "x".repeat(70)
      assert.strictEqual(pin.redact(`PIN: 4821, ${far} room 1234`).text, `PIN: [REDACTED:pin], ${far} room 1234`)
    })
  })

  describe("known secrets, encoded", () => {
    const value = "p@ss w/ \"quotes\" & more"
    const known = Redactor.make({ secrets: [value], personalData: false })

    it("are removed as they appear inside JSON and inside URLs", () => {
      const text = `${JSON.stringify({ password: value })} https://x.internal/?p=${encodeURIComponent(value)} ${value}`
      const result = known.redact(text)
      assert.strictEqual(result.kinds["known-secret"], 3)
      for (const form of [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]) {
        assertGone(result.text, form)
      }
    })

    it("are removed in each form and nothing around them, a value of four characters too", () => {
      const quoted = Redactor.make({ secrets: ["p\"w\\0rd!"], personalData: false })
      const json = JSON.stringify({ pw: "p\"w\\0rd!" })
      assert.strictEqual(quoted.redact(json).text, "{\"pw\":\"[REDACTED:known-secret]\"}")
      assert.strictEqual(quoted.redact("raw p\"w\\0rd! here").text, "raw [REDACTED:known-secret] here")
      assert.strictEqual(
        quoted.redact(`?q=${encodeURIComponent("p\"w\\0rd!")}&x=1`).text,
        "?q=[REDACTED:known-secret]&x=1"
      )
      const four = Redactor.make({ secrets: ["Zq8x"], personalData: false })
      assert.strictEqual(four.redact("code Zq8x and zq8x").text, "code [REDACTED:known-secret] and zq8x")
    })

    it("are removed when there are many of them", () => {
      const values = Array.from({ length: 20 }, (_, i) => `corp-secret-${i}-${noise(8, 300 + i)}`)
      const many = Redactor.make({ secrets: values, personalData: false })
      const result = many.redact(values.join(" | "))
      assert.strictEqual(result.count, 20)
      for (const v of values) assertGone(result.text, v)
    })
  })

  describe("streaming", () => {
    // The text planted, and what of it must be gone (a URL keeps its user and host).
    const secrets: ReadonlyArray<readonly [planted: string, gone: string]> = [
      [github, github],
      [aws, aws],
      [anthropic, anthropic],
      [jwt, jwt],
      [pem, pemBody],
      [slackWebhook, slackWebhook],
      [`postgres://app:${dbPassword}@db/app`, dbPassword],
      ["alice@example.com", "alice@example.com"]
    ]
    for (const [secret, gone] of secrets) {
      it(`removes ${secret.slice(0, 12)}… split at every point`, () => {
        const text = `start ${secret} middle ${secret}\nend`
        const expected = whole(text)
        assertGone(expected.text, gone)
        for (let cut = 1; cut < text.length; cut++) {
          const result = streamed(text, [cut, text.length], 1)
          assert.strictEqual(result.text, expected.text)
          assertGone(result.text, gone)
        }
      })
    }

    it("holds back only a bounded tail, and emits the rest as it goes", () => {
      const stream = redactor.stream()
      const line = "2026-03-14 INFO compiling unit 42 of the project\n"
      let emitted = 0
      for (let i = 0; i < 2_000; i++) emitted += stream.push(line).text.length
      assert.isAbove(emitted, line.length * 2_000 - 40_000)
      assert.strictEqual(emitted + stream.end().text.length, line.length * 2_000)
    })

    // A stream forgets what it has emitted but for a context of about 12,000
    // characters; these run long enough for it to have forgotten some.
    const logLines = (n: number) =>
      Array.from({ length: n }, (_, i) => `2026-03-14T09:26:53Z INFO [build] step ${i} of the release ok`).join("\n")
    const chunked = (text: string, cuts: ReadonlyArray<number>, batch: number | undefined) => {
      const sizes = cuts.map((cut, i) => cut - (cuts[i - 1] ?? 0)).concat([text.length])
      return streamed(text, sizes, batch)
    }

    it("removes a secret split across two chunks after 100,000 characters already went out", () => {
      const head = `${logLines(1_700)}\nexport GITHUB_TOKEN=`
      const text = `${head}${github}\nAWS_ACCESS_KEY_ID=${aws}\n${logLines(400)}\n`
      const expected = whole(text)
      assertGone(expected.text, github)
      assert.isAbove(head.length, 100_000)
      for (const batch of [undefined, 500, 1]) {
        // The token cut after its prefix, in the middle, and just before its last character.
        for (const cut of [4, 20, github.length - 1]) {
          const result = chunked(text, [head.length + cut], batch)
          assert.deepStrictEqual(plain(result), plain(expected), `batch ${batch}, cut ${cut}`)
        }
      }
    })

    it("decides a Kubernetes entry on manifest lines it has already emitted, past a long value before it", () => {
      // The block scalar is one finding of 3,500 characters; once it is out,
      // the stream's point of commitment is its end, and `tls.key` below is
      // decided by reading back over it to `data:` and `kind: Secret`: the
      // context the stream keeps before that point must still hold them.
      const crt = Array.from({ length: 52 }, (_, i) => `    ${noise(64, 300 + i, alnum + "+/")}`).join("\n")
      const key = noise(40, 400, alnum + "+/")
      const manifest =
        `apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\ntype: kubernetes.io/tls\ndata:\n  tls.crt: |\n${crt}\n  tls.key: ${key}\n`
      const text = `${logLines(200)}\n${manifest}${logLines(600)}\n`
      const expected = whole(text)
      assert.strictEqual(expected.kinds["kubernetes-secret"], 2)
      assertGone(expected.text, key)
      const at = text.indexOf("  tls.key: ")
      for (const [batch, sizes] of [[500, [13]], [500, [4_096]], [64, [64]], [undefined, [1_000]]] as const) {
        assert.deepStrictEqual(streamed(text, sizes, batch), expected, `batch ${batch}, chunks ${sizes}`)
      }
      // The key line in a chunk of its own, after everything above it went out.
      assert.deepStrictEqual(chunked(text, [at, at + 11, at + 30], 1), expected)
    })

    it("verifies a hit found before the stream forgot some text where the hit now is, its match too", () => {
      // Found in one scan, `SECRET=…` waits behind `BLOCK`, decided 5,000
      // characters on; meanwhile the stream forgets the text before `TOK…`.
      // Its verifier (like the Kubernetes one) checks that the match starts
      // at the hit: a match left at its old position made it fail, and the
      // value went out.
      const secret: Detector.Detector = {
        id: "secret",
        triggers: [Detector.pattern(/SECRET=\w+/g, 40)],
        before: 0,
        after: 1_000,
        verify: (_, hit) => hit.match?.index === hit.start ? { start: hit.start + 7, end: hit.end } : undefined
      }
      const slow: Detector.Detector = {
        id: "slow",
        triggers: [Detector.pattern(/BLOCK/g, 5)],
        before: 0,
        after: 5_000,
        verify: () => undefined
      }
      const token: Detector.Detector = {
        id: "token",
        triggers: [Detector.prefix("TOK")],
        before: 0,
        after: 20,
        verify: (_, hit) => ({ start: hit.start + 3, end: hit.start + 12 })
      }
      const custom = Redactor.make({ replaceDefaultRules: [secret, slow, token], personalData: false })
      // A second `BLOCK` before the secret: once the first is decided, the
      // stream forgets up to the second while `SECRET=…` is found and waits.
      const text = `${"x".repeat(200)}TOK123456789 BLOCK ${"w".repeat(1_000)} BLOCK SECRET=abc123XYZ ${
        "y".repeat(3_000)
      } BLOCK ${"z".repeat(6_000)}`
      const expected = whole(text, custom)
      assert.include(expected.text, "TOK[REDACTED:token] BLOCK w")
      assert.include(expected.text, "w BLOCK SECRET=[REDACTED:secret] ")
      for (const [batch, size] of [[100, 100], [1, 1], [500, 13]] as const) {
        assert.deepStrictEqual(streamed(text, [size], batch, custom), expected, `batch ${batch}, chunks ${size}`)
      }
    })

    it("never emits the tail of a finding that a pending finding starts inside", () => {
      // `a` is found at 0 and removes [10, 40); `b`, found at 4, would remove
      // [35, 49) and waits, as any finding does, while `ZZ` (decided 1,000
      // characters on) holds back what may still come first. When `a` is
      // committed, `b` can never be; left pending, it held the stream's point
      // of commitment at 35, inside `a`, and the characters from 35 to 40
      // went out as text.
      const a: Detector.Detector = {
        id: "a",
        triggers: [Detector.prefix("AAA")],
        before: 0,
        after: 60,
        verify: (_, hit) => ({ start: hit.start + 10, end: hit.start + 40 })
      }
      const b: Detector.Detector = {
        id: "b",
        triggers: [Detector.prefix("BBB")],
        before: 0,
        after: 60,
        verify: (_, hit) => ({ start: hit.start + 31, end: hit.start + 45 })
      }
      const wait: Detector.Detector = {
        id: "wait",
        triggers: [Detector.pattern(/ZZ/g, 2)],
        before: 0,
        after: 1_000,
        verify: () => undefined
      }
      const custom = Redactor.make({ replaceDefaultRules: [a, b, wait], personalData: false })
      const text = `AAA BBB 0123456789ZZ${"abcdefghijklmnopqrstuvwxyz".repeat(4)}`
      const expected = whole(text, custom)
      assert.strictEqual(expected.text, `AAA BBB 01[REDACTED:a]${text.slice(40)}`)
      for (const [batch, size] of [[1, 1], [4, 2], [1, 13], [64, 5]] as const) {
        assert.deepStrictEqual(streamed(text, [size], batch, custom), expected, `batch ${batch}, chunks ${size}`)
      }
    })

    it("holds back at most 34,500 characters besides a batch, even while a manifest line waits 20,000 characters on", () => {
      // Serialized YAML lines 20,000 characters apart: each is decided only
      // 22,402 characters after it. Waiting for one, the stream used to hold
      // back from the line before it, 54,000 characters in all.
      const serialized = JSON.stringify({ stdout: "service:\n  host: 0.0.0.0" })
      const filler = "2026-03-14 INFO step ok\n".repeat(834).slice(0, 20_000)
      const text = Array.from({ length: 12 }, () => `${filler}${serialized}\n  key: value\n`).join("")
      const stream = redactor.stream({ batch: 1 })
      let pushed = 0
      let emitted = 0
      let held = 0
      const parts: Array<string> = []
      for (let at = 0; at < text.length; at += 97) {
        const chunk = text.slice(at, at + 97)
        const out = stream.push(chunk).text
        parts.push(out)
        pushed += chunk.length
        emitted += out.length
        held = Math.max(held, pushed - emitted)
      }
      parts.push(stream.end().text)
      assert.strictEqual(parts.join(""), whole(text).text)
      assert.isAtMost(held, 34_500)
    })

    it("removes a secret that goes on past its window whole, under one marker, whatever the chunking", () => {
      // `LONG` reads 40 characters; its secret is the run of `#` after
      // `LONGBBB`, as long as it goes, read on 30 at a time (`Span.continues`).
      // `BBB` would remove a part of the run and waits; it must never hold the
      // point of commitment inside the run while the next part waits for text.
      const run: Detector.Detector = {
        id: "run",
        triggers: [Detector.prefix("LONG")],
        before: 0,
        after: 40,
        verify: (context, hit) => {
          const from = hit.start === hit.end ? hit.start : hit.start + 7
          let end = from
          while (end < context.text.length && end < from + 30 && context.text[end] === "#") end++
          return end === from ? undefined : { start: from, end, continues: end === from + 30 ? run : undefined }
        }
      }
      const inside: Detector.Detector = {
        id: "inside",
        triggers: [Detector.prefix("BBB")],
        before: 0,
        after: 40,
        verify: (context, hit) =>
          context.text.slice(hit.start + 40, hit.start + 50) === "#".repeat(10)
            ? { start: hit.start + 40, end: hit.start + 50 }
            : undefined
      }
      // And after the run, a token: once the run is known to end, what waited behind it is decided too.
      const token: Detector.Detector = {
        id: "token",
        triggers: [Detector.prefix("TOKEN:")],
        before: 0,
        after: 12,
        verify: (_, hit) => ({ start: hit.start + 6, end: hit.start + 12 })
      }
      const custom = Redactor.make({ replaceDefaultRules: [run, inside, token], personalData: false })
      for (const length of [10, 30, 31, 60, 200, 1_000]) {
        const text = `LONGBBB${"#".repeat(length)} after TOKEN:abcdef.`
        const expected = whole(text, custom)
        assert.deepStrictEqual(expected, {
          text: "LONGBBB[REDACTED:run] after TOKEN:[REDACTED:token].",
          count: 2,
          kinds: { run: 1, token: 1 }
        })
        for (const [batch, size] of [[1, 1], [1, 7], [5, 3], [64, 64], [undefined, 1_000]] as const) {
          assert.deepStrictEqual(streamed(text, [size], batch, custom), expected, `${length}, batch ${batch}, ${size}`)
        }
      }
    })

    it("a finding that starts as far before its hit as its rule reads is never emitted in part", () => {
      // `!!END` closes a secret of exactly 60 characters before it, as far back
      // as the rule may read: a stream must hold those 60 back until it knows.
      const closing: Detector.Detector = {
        id: "closed",
        triggers: [Detector.prefix("!!END")],
        before: 60,
        after: 5,
        verify: (_, hit) => hit.start >= 60 ? { start: hit.start - 60, end: hit.start } : undefined
      }
      const custom = Redactor.make({ replaceDefaultRules: [closing], personalData: false })
      const body = "Qx7".repeat(20)
      const text = `lead ${body}!!END tail ${body}!!END.`
      const expected = "lead [REDACTED:closed]!!END tail [REDACTED:closed]!!END."
      assert.strictEqual(whole(text, custom).text, expected)
      for (const [batch, size] of [[1, 1], [1, 2], [2, 1], [3, 5], [7, 7], [64, 1]] as const) {
        const out = streamed(text, [size], batch, custom).text
        assert.strictEqual(out, expected, `batch ${batch}, chunks ${size}`)
        assertGone(out, body)
      }
      // The same with a word the scan looks for from its end (`QZ`, the rarest
      // pair in it, ten characters in): until that pair arrives, the word may
      // have started ten characters before it.
      const late = Redactor.make({
        replaceDefaultRules: [{ ...closing, id: "late", triggers: [Detector.prefix("eeeeeeeeeeQZ")] }],
        personalData: false
      })
      const lateText = `lead ${body}eeeeeeeeeeQZ tail ${body}eeeeeeeeeeQZ.`
      const lateExpected = "lead [REDACTED:late]eeeeeeeeeeQZ tail [REDACTED:late]eeeeeeeeeeQZ."
      assert.strictEqual(whole(lateText, late).text, lateExpected)
      for (const [batch, size] of [[1, 1], [1, 2], [2, 1], [3, 5], [7, 7], [64, 1]] as const) {
        const out = streamed(lateText, [size], batch, late).text
        assert.strictEqual(out, lateExpected, `late, batch ${batch}, chunks ${size}`)
        assertGone(out, body)
      }
    })

    it("a hit just after a finding still reads as far back as its rule says, whatever the stream forgot", () => {
      // `!!END` is a secret only 100 characters after a `KEY:`, as far back as
      // its rule reads; it follows a `TOK` finding at once, so a stream commits
      // up to it and forgets what lies far enough behind.
      const keyed: Detector.Detector = {
        id: "keyed",
        triggers: [Detector.prefix("!!END")],
        before: 100,
        after: 5,
        verify: (context, hit) =>
          context.text.slice(hit.start - 100, hit.start - 96) === "KEY:"
            ? { start: hit.start, end: hit.end }
            : undefined
      }
      const tok: Detector.Detector = {
        id: "tok",
        triggers: [Detector.prefix("TOK")],
        before: 0,
        after: 10,
        verify: (_, hit) => ({ start: hit.start, end: hit.start + 10 })
      }
      const custom = Redactor.make({ replaceDefaultRules: [keyed, tok], personalData: false })
      const text = `${"y".repeat(300)}KEY:${"x".repeat(86)}TOKabcdefg!!END rest`
      const expected = `${"y".repeat(300)}KEY:${"x".repeat(86)}[REDACTED:tok][REDACTED:keyed] rest`
      assert.strictEqual(whole(text, custom).text, expected)
      for (const [batch, size] of [[1, 1], [2, 3], [5, 1], [16, 16], [100, 7]] as const) {
        assert.strictEqual(streamed(text, [size], batch, custom).text, expected, `batch ${batch}, chunks ${size}`)
      }
    })

    it("of two findings at one start the same one wins in a stream as in the whole text, while the winner's rule still reads", () => {
      // Both rules find `ZQ1234`; the prefix rule's pass comes first and wins.
      // It reads 50 characters, the pattern rule 10: a stream knows the
      // pattern rule's answer long before the prefix rule's, and must wait.
      const span = (_: Detector.Context, hit: Detector.Hit) => ({ start: hit.start, end: hit.start + 6 })
      const first: Detector.Detector = {
        id: "first",
        triggers: [Detector.prefix("ZQ")],
        before: 0,
        after: 50,
        verify: span
      }
      const second: Detector.Detector = {
        id: "second",
        triggers: [Detector.pattern(/ZQ[0-9]+/g, 10)],
        before: 0,
        after: 10,
        verify: span
      }
      const custom = Redactor.make({ replaceDefaultRules: [first, second], personalData: false })
      const text = `xx ZQ1234 ${"-".repeat(80)}`
      const expected = `xx [REDACTED:first] ${"-".repeat(80)}`
      assert.strictEqual(whole(text, custom).text, expected)
      for (const [batch, size] of [[1, 1], [2, 3], [5, 1], [20, 20]] as const) {
        assert.strictEqual(streamed(text, [size], batch, custom).text, expected, `batch ${batch}, chunks ${size}`)
      }
    })

    it("a secret read on past its window ends at an earlier marker, and its marker goes out with its first window", () => {
      // `RUN:` reads any characters up to a space, 30 at a time. A marker left by
      // an earlier redaction ends it wherever it falls, at a piece's first character too.
      const run: Detector.Detector = {
        id: "run",
        triggers: [Detector.prefix("RUN:")],
        before: 0,
        after: 40,
        verify: (context, hit) => {
          const from = hit.start === hit.end ? hit.start : hit.start + 4
          let end = from
          while (end < context.text.length && end < from + 30 && context.text[end] !== " ") end++
          return end === from ? undefined : { start: from, end, continues: end === from + 30 ? run : undefined }
        }
      }
      const custom = Redactor.make({ replaceDefaultRules: [run], personalData: false })
      for (const before of [30, 31, 45, 60, 75]) {
        const text = `go RUN:${"#".repeat(before)}[REDACTED:x]${"#".repeat(20)} end`
        const expected = `go RUN:[REDACTED:run][REDACTED:x]${"#".repeat(20)} end`
        assert.strictEqual(whole(text, custom).text, expected, `${before}`)
        assert.strictEqual(whole(expected, custom).text, expected, `${before}, twice`)
        for (const [batch, size] of [[1, 1], [5, 3], [64, 64]] as const) {
          assert.strictEqual(streamed(text, [size], batch, custom).text, expected, `${before}, batch ${batch}, ${size}`)
        }
      }
      // A marker cut by the edge of a window (its `[` the window's last
      // character) is taken for text: the run is removed with it, and again
      // redacting changes nothing.
      for (const before of [29, 59]) {
        const once = whole(`go RUN:${"#".repeat(before)}[REDACTED:x]${"#".repeat(20)} end`, custom).text
        assert.strictEqual(once, "go RUN:[REDACTED:run] end")
        assert.strictEqual(whole(once, custom).text, once)
      }
      // A run of 200,000 characters goes out as one marker, and that marker
      // goes out as soon as the run's first window is known, not at its end.
      const stream = custom.stream({ batch: 100 })
      const parts: Array<string> = [stream.push("go RUN:").text]
      for (let i = 0; i < 2_000; i++) {
        parts.push(stream.push("#".repeat(100)).text)
        if (i === 20) assert.strictEqual(parts.join(""), "go RUN:[REDACTED:run]")
      }
      parts.push(stream.push(" end").text, stream.end().text)
      assert.strictEqual(parts.join(""), "go RUN:[REDACTED:run] end")
    })

    it("keeps a rule's ruled-out region through what it forgets, and no further", () => {
      // `M:skip` rules out this rule's hits for 2,000 characters (\`Context.skip\`):
      // the `M:` at 1,000 is left, the one past 2,000 is not, however the text
      // is cut and whatever the stream forgot in between.
      const marked: Detector.Detector = {
        id: "marked",
        triggers: [Detector.prefix("M:")],
        before: 0,
        after: 2_100,
        verify: (context, hit) => {
          if (context.text.startsWith("skip", hit.end)) {
            context.skip(hit.start + 2_000)
            return undefined
          }
          return { start: hit.end, end: hit.end + 6 }
        }
      }
      const custom = Redactor.make({ replaceDefaultRules: [marked], personalData: false })
      const text = `M:skip ${"a".repeat(993)}M:abcdef ${"b".repeat(1_000)}M:ghijkl ${"c".repeat(3_000)}`
      const expected = whole(text, custom)
      assert.strictEqual(expected.text, text.replace("M:ghijkl", "M:[REDACTED:marked]"))
      for (const [batch, size] of [[1, 1], [7, 3], [100, 100], [500, 13]] as const) {
        assert.deepStrictEqual(streamed(text, [size], batch, custom), expected, `batch ${batch}, chunks ${size}`)
      }
    })

    it("starts afresh after end", () => {
      const stream = redactor.stream({ batch: 1 })
      stream.push(`a ${github.slice(0, 10)}`)
      stream.end()
      assert.strictEqual(stream.push("hello ").text + stream.end().text, "hello ")
      // And finds in the next text what it finds in any: every rule is ready again.
      for (const batch of [1, 7, undefined]) {
        const again = redactor.stream(batch === undefined ? undefined : { batch })
        for (let round = 0; round < 3; round++) {
          const text = `round ${round}: ${github} and bob@example.com\n`
          const out = [...text].map((ch) => again.push(ch).text).join("") + again.end().text
          assert.strictEqual(out, `round ${round}: [REDACTED:github-token] and [REDACTED:email]\n`, `${batch} ${round}`)
        }
      }
    })
  })

  describe("stays linear on adversarial input", () => {
    // Not timed. Each input makes every position a hit whose verification
    // reads a long window; a rule that rescanned its window from each hit
    // would take minutes here (24 s a MiB for `pass=` before values ended at
    // `=`), not pass.
    const quarterMiB = (unit: string) => unit.repeat(Math.ceil(262_144 / unit.length))
    it("many triggers and no secret", () => {
      for (
        const unit of [
          "://",
          "http://a",
          "password=",
          "pass=",
          "api_key=",
          "aws_secret_access_key=",
          "password='",
          "@",
          "a@",
          "+1 ",
          "(415) ",
          "ghp_",
          "sk-",
          "eyJ.",
          "eyJ-",
          "1",
          "1 ",
          "1234567 ",
          "Authorization: Bearer ",
          "curl ",
          "curl -X ",
          "-----BEGIN RSA PRIVATE KEY-----",
          "-----BEGIN RSA PRIVATE KEY-----\nQUJD\n"
        ]
      ) {
        const text = quarterMiB(unit)
        const result = redactor.redact(text)
        assert.strictEqual(result.text.length - result.count * 20 <= text.length, true, unit)
      }
    })

    it("a private key without an END line", () => {
      const text = "-----BEGIN RSA PRIVATE KEY-----\n" + "QUJD".repeat(250_000)
      const result = redactor.redact(text)
      assert.isTrue(result.text.startsWith("[REDACTED:private-key]"))
    })

    it("20,000 tokens, each found", () => {
      const tokens = Array.from({ length: 20_000 }, (_, i) => "gh" + "p_" + noise(36, 1_000 + i))
      const result = redactor.redact(tokens.join("\n"))
      assert.strictEqual(result.count, 20_000)
      assert.strictEqual(result.text, Array(20_000).fill("[REDACTED:github-token]").join("\n"))
    })
  })

  describe("laws over richer text", () => {
    // Each secret as planted, and the part of it that must be gone (a key, a
    // scheme, a user and a host stay).
    const secretAndPart = FastCheck.oneof(
      FastCheck.stringMatching(/^[A-Za-z0-9]{36}$/).map((s) => "gh" + "p_" + s).map((s) => [s, s] as const),
      FastCheck.stringMatching(/^[A-Z2-7]{16}$/).map((s) => "AK" + "IA" + s).map((s) => [s, s] as const),
      FastCheck.stringMatching(/^[A-Za-z0-9_-]{35}$/).map((s) => "AI" + "za" + s).map((s) => [s, s] as const),
      FastCheck.stringMatching(/^[a-z]{3,10}\.[a-z]{2,8}$/).map((s) => s.replace(".", "@example.") + ".com").map((
        s
      ) => [s, s] as const),
      FastCheck.stringMatching(/^[0-9]{8}$/).map((s) => "13" + "9" + s).map((s) => [s, s] as const),
      FastCheck.stringMatching(/^[0-9]{4}$/).map((s) => `+44 20 7946 ${s}`).map((s) => [s, s] as const),
      FastCheck.stringMatching(/^[A-Za-z0-9]{10,20}[0-9]$/).map((s) => [`postgres://app:${s}@db:5432/x`, s] as const),
      FastCheck.stringMatching(/^[A-Za-z0-9]{12,30}[0-9]$/).map((s) => [`Authorization: Bearer ${s}`, s] as const),
      // Distinct characters: a value random enough for the entropy threshold.
      FastCheck.shuffledSubarray([..."ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"], {
        minLength: 8,
        maxLength: 20
      })
        .map((chars) => [`DB_PASSWORD=${chars.join("")}7`, `${chars.join("")}7`] as const),
      FastCheck.constant([pem, pemBody] as const),
      FastCheck.constant([jwt, jwt] as const)
    )
    const secret = secretAndPart.map(([planted]) => planted)
    const filler = FastCheck.oneof(
      FastCheck.constantFrom("build", "ok", "user=42", "ticket", "error:", "{", "}", "[1,2]", "2026-03-14", "v1.2.3"),
      FastCheck.constantFrom("://", "@", "+", "(", "password", "key", "Bearer", "[REDACTED:", "]", "\\n", "-----BEGIN"),
      FastCheck.string({ unit: "binary-ascii", maxLength: 12 }),
      FastCheck.string({ unit: "grapheme", maxLength: 6 })
    )
    const separator = FastCheck.constantFrom(" ", "\n", "\t", "=", ":", "\"", ",", "/", ";", "", "  ")
    const text = FastCheck.array(FastCheck.tuple(FastCheck.oneof(secret, filler, filler), separator), { maxLength: 16 })
      .map((parts) => parts.map(([part, sep]) => part + sep).join(""))
    const planted = FastCheck.tuple(
      FastCheck.array(FastCheck.tuple(filler, separator), { maxLength: 8 }),
      secretAndPart,
      FastCheck.array(FastCheck.tuple(filler, separator), { maxLength: 8 })
    )

    // Each once broke idempotence: a decision that depended on text a later
    // finding replaced, or on a finding's own text seen through a marker.
    const counterexamples = [
      "password=01ABab2=xoxb-0000000000-aa00AAAaAAa0Aa0aA0Aa ",
      "+44 20 7946 0000aaa@example.aa.com ",
      "AKIAAA2A22AA222A2A22+44 20 7946 0000 ",
      "AIza0A__Aa_0a0--aaa00_AA0-AAa-0AA_A--A-" + jwt,
      "AIza-__A_-_AaA--aa_a-_0-A__0_-___-__a--AKIAAA22AA2222A2222A ",
      "AIzaa_0_a__A-0-aa0-A0A_a_A0AaAaa_A-0_0-" + pem,
      "AKIAA2AA2A222A222222 13900000000 ",
      "aaa@example.aa.com" + pem,
      "curl aaa@example.aa.com curl -u admin:Aa0aaaaaA00 https://x ",
      "13900000000-AKIAA2AAA2A22AAAA2A2 ",
      "curl -u admin:AAA00AaAaA0 https://x@aaa@example.aa.com@",
      `curl ${pem} ${jwt}-curl -u admin:A0aaa00AaA0 https://x `,
      "[REDACTED:aws-secret-access-key]: " + "A".repeat(20) + "b".repeat(20)
    ]
    it("is idempotent on the counterexamples found so far", () => {
      for (const text of counterexamples) {
        const once = redactor.redact(text).text
        assert.deepStrictEqual({ text, twice: redactor.redact(once).text }, { text, twice: once })
      }
    })

    it.prop("redaction is idempotent", { text }, ({ text }) => {
      const once = redactor.redact(text)
      const twice = redactor.redact(once.text)
      assert.strictEqual(twice.text, once.text)
      assert.strictEqual(twice.count, 0)
    }, { fastCheck: { numRuns: 400 } })

    it.prop(
      "a planted secret is removed wherever it is planted, between any words",
      { planted },
      ({ planted: [before, [secret, part], after] }) => {
        // A separator that ends a word on each side, as around a secret in real output.
        const head = before.map(([f, s]) => f + s).join("")
        const tail = after.map(([f, s]) => f + s).join("")
        const text = `${head} ${secret}\n${tail}`
        const result = redactor.redact(text)
        assertGone(result.text, part, text)
        assert.strictEqual(result.count, markers(result.text) - markers(head + tail))
      },
      { fastCheck: { numRuns: 400 } }
    )

    it.prop(
      "any chunking of a stream gives what redacting the whole gives",
      {
        text,
        sizes: FastCheck.array(FastCheck.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 12 }),
        batch: FastCheck.integer({ min: 1, max: 64 })
      },
      ({ batch, sizes, text }) => {
        const expected = whole(text)
        const result = streamed(text, sizes, batch)
        assert.deepStrictEqual(result, { text: expected.text, count: expected.count, kinds: { ...expected.kinds } })
      },
      { fastCheck: { numRuns: 400 } }
    )

    // The trigger scan reads a long text as UTF-8 bytes and keeps a UTF-16
    // index beside the byte offset; an ASCII text it reads with the two
    // equal. For the token rules (a prefix, then a body of ASCII
    // characters) a non-ASCII character is a separator like any control
    // character: swapping each for one must leave every finding in place,
    // or the scan put a hit at the wrong index. Surrogate pairs (emoji)
    // are two units of one four-byte character.
    const tokenRules = SecretRules.catalogue.filter((d) => d.triggers.every((t) => t._tag === "Prefix"))
    const tokens = Redactor.make({ replaceDefaultRules: tokenRules, personalData: false })
    const foreign = FastCheck.constantFrom(
      "😀",
      "漢字",
      "é",
      "\u0301",
      "🙂🙂",
      "ß",
      "Ω",
      "中文",
      "\u{1F3F3}\uFE0F",
      // Lone surrogates, which the encoder writes as three bytes each.
      "\uD83D",
      "\uDC00"
    )
    const long = FastCheck.array(
      FastCheck.tuple(FastCheck.oneof(secret, filler, foreign, foreign), FastCheck.oneof(separator, foreign)),
      { minLength: 40, maxLength: 120 }
    ).map((parts) => parts.map(([part, sep]) => part + sep).join("").padEnd(256, " "))
    it("judges an assignment glued to a rejected value on its own, as redacting twice will", () => {
      // Found by the ASCII-twin law in CI: the first value (rejected) used to swallow the second
      // assignment, which the second redaction, seeing the email as a marker, then removed.
      const text = "DB_PASSWORD=FqBtayEv7:aaa@example.aa.com😀DB_PASSWORD=vTFJUDHp7"
      const once = redactor.redact(text).text
      assert.strictEqual(once, "DB_PASSWORD=FqBtayEv7:[REDACTED:email]😀DB_PASSWORD=[REDACTED:secret-assignment]")
      assert.strictEqual(redactor.redact(once).text, once)
    })

    it("reads a text again correctly after a long text that is mostly not ASCII reused the byte buffer", () => {
      const token = "gh" + "p_" + noise(36, 4343)
      const ascii = `${"build ok\n".repeat(560_000)}${token}\n`
      assert.strictEqual(redactor.redact(ascii).kinds["github-token"], 1)
      // Long enough to be tried in the kept buffer, too far from ASCII to be read from it.
      redactor.redact("漢字".repeat(2_200_000))
      assert.strictEqual(redactor.redact(ascii).kinds["github-token"], 1)
    })

    it("reads a long text that is mostly not ASCII (read without a byte copy) at the right places", () => {
      const token = "gh" + "p_" + noise(36, 4242)
      const block = "漢字".repeat(700_000)
      const text = `${block} ${token} ${block}😀 ${token}\n${block}`
      assert.isAbove(text.length, 1 << 22)
      const result = redactor.redact(text)
      assert.strictEqual(result.kinds["github-token"], 2)
      assertGone(result.text, token)
      assert.strictEqual(
        result.text.length,
        text.length - 2 * token.length + 2 * Redactor.marker("github-token").length
      )
    })

    it("reads a text of mostly three-byte characters, copied with room for three bytes each, to its end", () => {
      // Under the size read without a copy, and past the room the first copy
      // leaves (an eighth more than its length): encoded again, whole, and
      // larger than any buffer an earlier test of this file left to reuse.
      const token = "gh" + "p_" + noise(36, 4141)
      const block = "漢字".repeat(600_000)
      const text = `${token} ${block} ${token} ${block}\n${token}`
      assert.isBelow(text.length, 1 << 22)
      assert.isAbove(3 * text.length, 7_000_000)
      const result = redactor.redact(text)
      const marker = Redactor.marker("github-token")
      assert.strictEqual(result.text, `${marker} ${block} ${marker} ${block}\n${marker}`)
    })

    const controlFor = (text: string): string => text.replace(/[\u0080-\uffff]/g, "\u0001")
    it.prop(
      "a long text with non-ASCII characters is read at the same places as its ASCII twin",
      { text: long },
      ({ text }) => {
        assert.isAtLeast(text.length, 256)
        assert.isAbove(tokenRules.length, 120)
        const result = tokens.redact(text)
        assert.strictEqual(controlFor(result.text), tokens.redact(controlFor(text)).text)
        assert.strictEqual(redactor.redact(redactor.redact(text).text).text, redactor.redact(text).text)
      },
      { fastCheck: { numRuns: 1000 } }
    )
  })
})

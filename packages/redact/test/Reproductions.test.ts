import { assert, describe, it } from "@effect/vitest"
import * as Redactor from "../src/Redactor.js"
import { alnum, base32, hex, leakedWindow, noise } from "./FakeSecrets.js"

/**
 * Misses and false positives reported against the default redactor, one
 * test each. A miss is fixed when no 8-character window of the secret
 * survives and what announces it stays; a false positive when the text
 * comes out exactly as it went in.
 */
const redactor = Redactor.make()

const removes = (name: string, text: string, secret: string, kept: ReadonlyArray<string> = []) =>
  it(name, () => {
    assert.include(text, secret)
    const out = redactor.redact(text).text
    assert.isUndefined(leakedWindow(out, secret), out)
    for (const part of kept) assert.include(out, part, out)
    assert.strictEqual(redactor.redact(out).text, out, "redacting twice changes nothing")
  })

const keeps = (name: string, text: string) =>
  it(name, () => {
    assert.strictEqual(redactor.redact(text).text, text)
  })

const hex40 = noise(40, 700, hex)
const webhookPath = "T" + noise(8, 701, base32) + "/B" + noise(10, 702, base32) + "/" + noise(24, 703)
const padded = "sqH0" + noise(40, 704, alnum + "+/") + "==9x0v_j0da7RTV=Le2Uh9tZwRqo"
const assigned = "Qv7" + noise(21, 705)

describe("reproductions", () => {
  describe("misses", () => {
    removes("a mainland China mobile written 86-…", "my contact phone is 86-13229577892", "13229577892", [
      "my contact phone is "
    ])
    removes("curl --user with an email as the user", "curl --user bob@corp.io:pQ9wTxu4Fg https://x.io", "pQ9wTxu4Fg", [
      "curl --user ",
      " https://x.io"
    ])
    removes(
      "curl --user with the password quoted on its own",
      "curl --user kevin:'pRf7vG2h1L8nQkW9'",
      "pRf7vG2h1L8nQkW9",
      [
        "curl --user kevin:'"
      ]
    )
    removes("curl -u with an empty user", `curl -u ":d2LkV78zLx!t" https://x.io`, "d2LkV78zLx!t", [`curl -u ":`])
    removes("Authorization: Api-Token and a 40-hex token", `Authorization: Api-Token ${hex40}`, hex40, [
      "Authorization: Api-Token "
    ])
    for (
      const scheme of [
        "ApiKey",
        "Api-Key",
        "Token",
        "Bot",
        "SSWS",
        "GenieKey",
        "DSN",
        "Splunk",
        "OAuth",
        "Key",
        "Client-ID"
      ]
    ) {
      const credential = noise(32, 710 + scheme.length, alnum + "-_")
      removes(
        `Authorization: ${scheme} keeps its scheme word`,
        `Authorization: ${scheme} ${credential}\n`,
        credential,
        [
          `Authorization: ${scheme} `
        ]
      )
    }
    removes(
      "a Slack webhook without a scheme",
      `POST hooks.slack.com/services/${webhookPath}`,
      webhookPath,
      ["POST "]
    )
    removes("a value with = inside it, judged whole", `private-key: ${padded}`, padded, ["private-key: "])
    removes("Go: var apiToken string = …", `var apiToken string = "${assigned}"`, assigned, [`var apiToken string = "`])
    removes("Make: API_TOKEN ?= …", `API_TOKEN ?= "${assigned}"`, assigned, ["API_TOKEN ?= \""])
    removes("Make: API_TOKEN ::= …", `API_TOKEN ::= ${assigned}`, assigned, ["API_TOKEN ::= "])
    removes("Java: System.setProperty(\"API_TOKEN\", …)", `System.setProperty("API_TOKEN", "${assigned}");`, assigned, [
      `System.setProperty("API_TOKEN", "`
    ])
    removes("PHP: $apiToken .= …", `$apiToken .= "${assigned}";`, assigned, [`$apiToken .= "`])
    removes("XML: <apiToken>…</apiToken>", `<apiToken>${assigned}</apiToken>`, assigned, ["<apiToken>", "</apiToken>"])
  })

  describe("false positives: references", () => {
    keeps("api_key: process.env.API_KEY", "api_key: process.env.API_KEY")
    keeps("const apiKey = process.env.OPENAI_API_KEY ?? \"\"", "const apiKey = process.env.OPENAI_API_KEY ?? \"\"")
    keeps("client_secret = Config.get(…)", "client_secret = Config.get(\"oauth.client_secret\")")
    keeps(
      "secret: an AWS Secrets Manager ARN",
      "secret: arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf"
    )
    keeps("password: \"%(DB_PASSWORD)s\"", "password: \"%(DB_PASSWORD)s\"")
    keeps("tokenCacheKey = `tokens:${tenantId}`", "tokenCacheKey = `tokens:${tenantId}`")
    keeps("self.password_hash_algorithm = \"argon2id\"", "self.password_hash_algorithm = \"argon2id\"")
  })

  describe("false positives: placeholder tokens", () => {
    keeps("ghp_ and 36 x", "token: " + "gh" + "p_" + "x".repeat(36))
    keeps("glpat- and 20 X", "GITLAB_TOKEN=" + "gl" + "pat-" + "X".repeat(20))
    keeps("xoxp- and groups of #", "xo" + "xp-" + "-####-####-####-####")
    keeps("xoxp- and long groups of #", "xo" + "xp-" + ["#".repeat(12), "#".repeat(12), "#".repeat(32)].join("-"))
    keeps("xoxe.xoxp-1-RANDOMSTRINGHERE", "SLACK_TOKEN=" + "xo" + "xe.xoxp-1-RANDOMSTRINGHERE")
    keeps("AKIAXXXXXXXXXXXXXXXX", "aws_access_key_id = " + "AK" + "IA" + "X".repeat(16))
    keeps("Bearer XXXXXXXXXXXX", "Authorization: Bearer XXXXXXXXXXXX\nor just Bearer XXXXXXXXXXXX")
    keeps("curl -u 'test:test'", "curl -u 'test:test' https://httpbin.org/basic-auth/test/test")
    keeps("curl -u \"$1:$2\"", "curl -s -u \"$1:$2\" \"$3\"")
    keeps("curl -u user:pass", "curl -u user:pass https://example.com")
    keeps("curl -u <user:password>", "curl -u <user:password> https://example.com")
  })

  describe("false positives: ordinary text", () => {
    keeps("a file name with xoxo- in it", "https://example.org/wp-content/uploads/2018-250-xoxo-indieweb-1.jpg")
    keeps("a query parameter starting with hf_", "GET /config?cell=12&hf_servingcellpriorityparameters=3")
    keeps("an Authentication-Results mail header", "Authentication-Results: 5h.ca.iphmx.com")
    keeps("a Maven coordinate with jsonwebtoken", "io.jsonwebtoken:jjwt-jackson-0.11.2")
    keeps("a PEM block with no key body", "-----BEGIN PRIVATE KEY-----\nanything\n-----END PRIVATE KEY-----")
  })
})

import { assert, describe, it } from "@effect/vitest"
import * as Redactor from "../src/Redactor.js"
import * as TokenRule from "../src/TokenRule.js"
import { hex, leakedWindow, noise } from "./FakeSecrets.js"

const uuid = (seed: number) => {
  const h = noise(32, seed, hex)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`
}
const acme = TokenRule.keyed({
  id: "acme-key",
  keywords: ["acme"],
  value: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9A-Za-z_-])/y,
  maxLength: 36
})
const newRelicLike = TokenRule.keyed({
  id: "zeta-cloud-key",
  keywords: ["zetacloud"],
  value: /[0-9a-f]{40}(?![0-9A-Za-z])/y,
  maxLength: 40
})
const alone = Redactor.make({ replaceDefaultRules: [acme], personalData: false })
const merged = Redactor.make({ replaceDefaultRules: [acme, newRelicLike], personalData: false })

describe("keyed rules", () => {
  const secret = uuid(3)
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ["dotenv", `ACME_API_KEY=${secret}`, "ACME_API_KEY="],
    ["shell", `export ACME_TOKEN="${secret}"`, "export ACME_TOKEN=\""],
    ["JSON", `{"acmeApiKey": "${secret}"}`, "{\"acmeApiKey\": \""],
    ["YAML", `acme:\n  acme_secret: ${secret}\n`, "acme_secret: "],
    ["Go", `var acmeToken string = "${secret}"`, "var acmeToken string = \""],
    ["Make", `ACME_KEY ?= ${secret}`, "ACME_KEY ?= "],
    ["Make :::=", `ACME_KEY :::= ${secret}`, "ACME_KEY :::= "],
    ["PHP .=", `$acmeToken .= "${secret}";`, "$acmeToken .= \""],
    ["XML over two lines", `<acmeToken>\n    ${secret}\n</acmeToken>`, "<acmeToken>\n    "],
    ["Java", `System.setProperty("ACME_KEY", "${secret}")`, "\"ACME_KEY\", \""],
    ["XML", `<acmeKey>${secret}</acmeKey>`, "<acmeKey>"],
    ["flag", `deploy --acme-api-key ${secret} --yes`, "--acme-api-key "],
    ["flag with =", `deploy --acme-token=${secret}`, "--acme-token="],
    ["JSON in a string", `"{\\"ACME_KEY\\": \\"${secret}\\"}"`, "ACME_KEY"]
  ]
  for (const [syntax, text, kept] of cases) {
    it(`reads ${syntax}, alone and merged`, () => {
      for (const redactor of [alone, merged]) {
        const out = redactor.redact(text).text
        assert.isUndefined(leakedWindow(out, secret), out)
        assert.include(out, "[REDACTED:acme-key]", out)
        assert.include(out, kept, out)
      }
    })
  }

  it("needs the name as whole parts of the key", () => {
    for (
      const text of [
        `ACMEX_KEY=${secret}`,
        `XACME_KEY=${secret}`,
        `https://acme.io/key=${secret}`,
        `/etc/acme_key=${secret}`
      ]
    ) {
      assert.strictEqual(merged.redact(text).text, text)
    }
    const zeta = noise(40, 9, hex)
    assert.include(merged.redact(`ZETA_CLOUD_LICENSE_KEY=${zeta}`).text, "[REDACTED:zeta-cloud-key]")
    assert.include(merged.redact(`zetaCloudApiKey: ${zeta}`).text, "[REDACTED:zeta-cloud-key]")
    assert.include(merged.redact(`ZetaCloudAPIKey: ${zeta}`).text, "[REDACTED:zeta-cloud-key]")
  })

  it("keeps placeholders and values of the wrong shape", () => {
    for (
      const text of [`ACME_KEY=\${ACME_KEY}`, `ACME_KEY=xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, `ACME_KEY=${secret}0`]
    ) {
      assert.strictEqual(merged.redact(text).text, text)
    }
  })
})

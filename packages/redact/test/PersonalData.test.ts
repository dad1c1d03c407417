import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as PersonalData from "../src/PersonalData.js"
import * as Redactor from "../src/Redactor.js"
import { assertGone, markers } from "./FakeSecrets.js"

const redactor = Redactor.make()

/** Completes a card number with its Luhn check digit. */
const withLuhn = (partial: string): string => {
  for (let d = 0; d <= 9; d++) if (PersonalData.luhn(partial + d)) return partial + d
  throw new Error("unreachable")
}
/** The same number with a wrong last digit. */
const broken = (number: string): string => number.slice(0, -1) + ((Number(number.slice(-1)) + 1) % 10)
const grouped = (digits: string, separator: string, sizes: ReadonlyArray<number>): string => {
  const out: Array<string> = []
  let at = 0
  for (const size of sizes) {
    out.push(digits.slice(at, at + size))
    at += size
  }
  return out.join(separator)
}

const email = "alice.smith+tickets@example.com"
const cnMobile = "13812345678"
const chineseId = "11010519491231002X"
const visa = withLuhn("411111111111111")
/** A second resident ID, its check character computed. */
const otherId = "440305" + "19900101" + "123"
const otherChineseId = otherId + PersonalData.chineseIdCheck(otherId)

/** A value in the syntaxes tool output is made of. */
const everywhere = (value: string, key: string): ReadonlyArray<readonly [string, string]> => [
  ["an env file", `${key.toUpperCase()}=${value}\nREGION=eu-west-1`],
  ["JSON", `{"${key}": "${value}", "status": "open"}`],
  ["YAML", `customer:\n  ${key}: ${value}\n  tier: gold`],
  ["a log line", `2026-03-14T09:26:53Z INFO [tickets] ticket 48213 updated for ${value} by agent 7`],
  ["a URL", `https://crm.internal/v1/customers?${key}=${value}&page=2`],
  ["source code", `await notify({ ${key}: "${value}", retries: 3 })`],
  ["Chinese text", `客户联系方式：${value}，请尽快回复。`]
]

interface Category {
  readonly rule: string
  readonly name: string
  readonly value: string
  readonly samples: ReadonlyArray<readonly [string, string]>
}

const cases: ReadonlyArray<Category> = [
  { rule: "email", name: "an address", value: email, samples: everywhere(email, "email") },
  {
    rule: "email",
    name: "in mail headers and links",
    value: "jane.doe@corp.example.org",
    samples: [
      ["git log", "commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: Jane Doe <jane.doe@corp.example.org>"],
      ["a mailto link", `<a href="mailto:jane.doe@corp.example.org">write to us</a>`],
      ["a JSON string with escapes", `{"log": "sent\\njane.doe@corp.example.org\\tok"}`]
    ]
  },
  { rule: "phone", name: "a Chinese mobile number", value: cnMobile, samples: everywhere(cnMobile, "phone") },
  ...["+86 138 1234 5678", "+86-138-1234-5678", "+8613812345678", "138-1234-5678", "138 1234 5678", "8613812345678"]
    .map(
      (value): Category => ({
        rule: "phone",
        name: `a Chinese mobile number as ${value}`,
        value,
        samples: everywhere(value, "mobile")
      })
    ),
  ...["+1 (415) 555-0134", "(415) 555-0134", "415-555-0134", "415.555.0134", "+44 20 7946 0958", "+33 1 23 45 67 89"]
    .map(
      (value): Category => ({
        rule: "phone",
        name: `a number written ${value}`,
        value,
        samples: everywhere(value, "phone")
      })
    ),
  { rule: "chinese-id", name: "a resident ID", value: chineseId, samples: everywhere(chineseId, "id_number") },
  {
    rule: "chinese-id",
    name: "other resident IDs",
    value: otherChineseId,
    samples: [
      ["a log line", `实名认证通过：身份证号 ${otherChineseId}`],
      ["grouped", `ID: ${grouped(otherChineseId, " ", [6, 8, 4])}`],
      ["lower-case x", `{"idCard": "${chineseId.toLowerCase()}"} ${otherChineseId}`],
      ["a list", `${cnMobile} ${otherChineseId} ${chineseId}`]
    ]
  },
  { rule: "payment-card", name: "a Visa number", value: visa, samples: everywhere(visa, "card") },
  ...[
    ["Visa grouped", grouped(visa, " ", [4, 4, 4, 4])],
    ["Visa dashed", grouped(visa, "-", [4, 4, 4, 4])],
    ["Mastercard", withLuhn("555555555555444")],
    ["Mastercard 2-series", withLuhn("222300312200322")],
    ["American Express", grouped(withLuhn("37828224631000"), " ", [4, 6, 5])],
    ["Discover", withLuhn("601111111111111")],
    ["JCB", withLuhn("353011133330000")],
    ["Diners Club", grouped(withLuhn("3056930902590"), " ", [4, 6, 4])],
    ["UnionPay, 19 digits", withLuhn("621234567890123456")],
    ["Maestro", withLuhn("675964982643845")],
    ["Visa, 13 digits", withLuhn("422222222222")]
  ].map(([name, value]): Category => ({
    rule: "payment-card",
    name: name!,
    value: value!,
    samples: everywhere(value!, "pan")
  }))
]

describe("PersonalData", () => {
  describe("validators", () => {
    it("luhn accepts the published test numbers and refuses one digit off", () => {
      for (const number of ["4111111111111111", "5555555555554444", "378282246310005", "6011111111111117"]) {
        assert.isTrue(PersonalData.luhn(number), number)
        assert.isFalse(PersonalData.luhn(broken(number)), broken(number))
      }
    })

    it("cardIssuer needs a real prefix and the length that goes with it", () => {
      assert.strictEqual(PersonalData.cardIssuer("4111111111111111"), "visa")
      assert.strictEqual(PersonalData.cardIssuer("5555555555554444"), "mastercard")
      assert.strictEqual(PersonalData.cardIssuer("378282246310005"), "amex")
      assert.strictEqual(PersonalData.cardIssuer("6011111111111117"), "discover")
      assert.strictEqual(PersonalData.cardIssuer("3530111333300000"), "jcb")
      assert.strictEqual(PersonalData.cardIssuer("6212345678901234"), "unionpay")
      assert.isUndefined(PersonalData.cardIssuer("411111111111111"))
      assert.isUndefined(PersonalData.cardIssuer("1234567812345670"))
      assert.isUndefined(PersonalData.cardIssuer("9111111111111111"))
      assert.isFalse(PersonalData.isCardNumber(withLuhn("177348041300")))
    })

    it("chineseIdCheck computes the GB 11643 check character", () => {
      assert.strictEqual(PersonalData.chineseIdCheck("11010519491231002"), "X")
      assert.strictEqual(PersonalData.chineseIdCheck("44052418800101001"), "4")
      assert.isFalse(PersonalData.isChineseId("440524188001010014"), "born before 1900")
      assert.isTrue(PersonalData.isChineseId("11010519491231002X"))
      assert.isTrue(PersonalData.isChineseId("11010519491231002x"))
      assert.isFalse(PersonalData.isChineseId("110105194912310021"), "wrong check")
      assert.isFalse(PersonalData.isChineseId("99010519491231002X"), "no such province")
      const badDate = "110105" + "19490230" + "002"
      assert.isFalse(PersonalData.isChineseId(badDate + PersonalData.chineseIdCheck(badDate)), "30 February")
      const leap = "110105" + "20000229" + "002"
      assert.isTrue(PersonalData.isChineseId(leap + PersonalData.chineseIdCheck(leap)), "29 February 2000")
    })

    it("isChineseMobile knows the allocated ranges", () => {
      assert.isTrue(PersonalData.isChineseMobile("13812345678"))
      assert.isTrue(PersonalData.isChineseMobile("19912345678"))
      assert.isFalse(PersonalData.isChineseMobile("12812345678"))
      assert.isFalse(PersonalData.isChineseMobile("1381234567"))
    })
  })

  describe("removes", () => {
    for (const { name, rule, samples, value } of cases) {
      describe(`${rule} (${name})`, () => {
        for (const [syntax, text] of samples) {
          it(`in ${syntax}`, () => {
            const result = redactor.redact(text)
            assertGone(result.text, value)
            assert.include(result.text, Redactor.marker(rule))
            assert.isAtLeast(result.kinds[rule] ?? 0, 1)
            assert.strictEqual(result.count, markers(result.text))
          })
        }
      })
    }

    it("each value whole, and only it", () => {
      assert.strictEqual(
        redactor.redact(
          `mail ${email}, call +86 138 1234 5678 or (415) 555-0134; card ${grouped(visa, " ", [4, 4, 4, 4])}.`
        )
          .text,
        "mail [REDACTED:email], call [REDACTED:phone] or [REDACTED:phone]; card [REDACTED:payment-card]."
      )
      assert.strictEqual(redactor.redact(`13812345678@qq.com`).text, "[REDACTED:email]")
      assert.strictEqual(
        redactor.redact(`phones: 13812345678,13912345678`).text,
        "phones: [REDACTED:phone],[REDACTED:phone]"
      )
    })
  })

  describe("keeps", () => {
    const keep = (label: string, texts: ReadonlyArray<string>) =>
      it(label, () => {
        for (const text of texts) assert.deepStrictEqual({ text: redactor.redact(text).text, label }, { text, label })
      })

    keep("an ID number with a wrong check character, date or province", [
      "身份证号 110105194912310021",
      `{"id": "${"110105194902300021"}"} and 99010519491231002X`,
      "110105 19491231 0021"
    ])
    keep("card numbers with a wrong checksum, a fake prefix or a wrong length", [
      `card ${broken(visa)} and ${grouped(broken(visa), " ", [4, 4, 4, 4])}`,
      `order ${withLuhn("123456781234567")} total 12.00`,
      `pan ${withLuhn("41111111111111")} (15-digit Visa)`,
      `mixed ${visa.slice(0, 4)} ${visa.slice(4, 8)}-${visa.slice(8, 12)} ${visa.slice(12)}`,
      `dotted ${grouped(visa, ".", [4, 4, 4, 4])}`
    ])
    keep("email-shaped strings that are not addresses", [
      "git@github.com:org/repo.git",
      "https://user@example.com:8443/path and ftp://anonymous@ftp.example.org/",
      "typescript@5.9.3 @types/node@20.11.1 @Injectable() @acme/tickets",
      "user@localhost and root@10.0.0.1 and a@b",
      ".alice@example.com? no: name@.com, name@-bad.com, name@example.123"
    ])
    keep("numbers that are not phone numbers", [
      "ts=1773480413000 took 12345678901 ns",
      "ratio 0.13812345678 and 13812345678.5 and v13.8.12345678",
      "ORD-13812345678 sha=a13812345678b 0x13812345678 13812345678901 13812345678-2",
      "192.168.100.200 10.0.23.14:8080 port 13812 size=1381234567 price 12,345,678.90",
      "2026-03-14 13:45:12 +0000 [14/Mar/2026:09:26:53 +0000]",
      "@@ -12,7 +12,9 @@ +1 -2 1e+10 +100 files",
      "(/srv/app/index.js:213:17) (12) (4155550134)",
      "415 555 0134 and 123-456-7890"
    ])
    keep("UUIDs and hashes full of digits", [
      "550e8400-e29b-41d4-a716-446655440000 123e4567-e89b-12d3-a456-426614174000",
      "commit 1234567890123456789012345678901234567890",
      "sha256:13812345678901234567890123456789abcdef0123456789abcdef01234567"
    ])
  })

  describe("email domains", () => {
    // The definition the detector reads labels by, as regular expressions:
    // the domain ends after its last top-level label with only valid
    // labels before it, at least two labels in all.
    const topLevel = /^(?:[A-Za-z]{2,24}|xn--[A-Za-z0-9-]{2,59})$/
    const label = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/
    const expected = (domain: string): string | undefined => {
      const labels = domain.replace(/[.-]+$/, "").split(".")
      for (let k = labels.length; k >= 2; k--) {
        const kept = labels.slice(0, k)
        if (topLevel.test(kept[k - 1]!) && kept.every((l) => label.test(l))) return kept.join(".")
      }
      return undefined
    }
    const part = FastCheck.oneof(
      FastCheck.stringMatching(/^[a-z0-9-]{0,5}$/),
      FastCheck.constantFrom(
        "com",
        "co",
        "uk",
        "example",
        "xn--p1ai",
        "xn--",
        "XN--ab",
        "-a",
        "a-",
        "x".repeat(63),
        "y".repeat(64),
        "Z".repeat(25)
      )
    )
    const domains = FastCheck.array(part, { minLength: 1, maxLength: 6 }).map((parts) => parts.join("."))
    const emailOnly = Redactor.make({ replaceDefaultRules: [] })

    it.prop("end where the label-by-label definition ends them", { domain: domains }, ({ domain }) => {
      const found = expected(domain)
      const text = `mail ali@${domain} now`
      const out = emailOnly.redact(text).text
      assert.strictEqual(out, found === undefined ? text : `mail [REDACTED:email]${text.slice(9 + found.length)}`)
    })
  })

  describe("categories", () => {
    const text = `${email} ${cnMobile} ${chineseId} ${visa}`

    it("are all on by default", () => {
      assert.deepStrictEqual(redactor.redact(text).kinds, { email: 1, phone: 1, "chinese-id": 1, "payment-card": 1 })
    })

    it("can each be switched off", () => {
      const off = (options: PersonalData.Options) => Redactor.make({ personalData: options }).redact(text)
      assert.include(off({ email: false }).text, email)
      assertGone(off({ email: false }).text, cnMobile)
      assert.include(off({ phone: false }).text, cnMobile)
      assert.include(off({ chineseId: false }).text, chineseId)
      assert.include(off({ paymentCard: false }).text, visa)
      assert.strictEqual(off({ paymentCard: false }).count, 3)
    })

    it("can be switched off together", () => {
      assert.deepStrictEqual(Redactor.make({ personalData: false }).redact(text).text, text)
      assert.deepStrictEqual(PersonalData.detectors(false), [])
      assert.deepStrictEqual(PersonalData.detectors().map((d) => d.id), [
        "email",
        "chinese-id",
        "payment-card",
        "phone"
      ])
    })
  })
})

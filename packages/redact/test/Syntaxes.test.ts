import { assert, describe, it } from "@effect/vitest"
import * as Redactor from "../src/Redactor.js"
import { alnum, hex, leakedWindow, noise } from "./FakeSecrets.js"

/**
 * The generic assignment rule in the syntaxes tool output is made of: each
 * syntax with several secret-looking values, which must go while the key
 * and the operator stay, and with references and placeholders written the
 * way that syntax writes them, which must stay as they are.
 */
const redactor = Redactor.make()

interface Syntax {
  readonly name: string
  /** The text with `value` where the secret goes. */
  readonly write: (value: string) => string
  /** References in this syntax: code that fetches the secret, template slots. */
  readonly references?: ReadonlyArray<string>
}

const secrets: ReadonlyArray<readonly [kind: string, value: string]> = [
  ["letters and digits", "Qv7" + noise(21, 900)],
  ["hex", noise(40, 942, hex)],
  ["base64 with padding", noise(30, 902, alnum + "+/") + "=="],
  ["with separators", "kX9-" + noise(6, 903) + "_vL8." + noise(5, 904)]
]

/** Values that only stand for a secret, in any syntax. */
const placeholders = [
  "${API_TOKEN}",
  "$API_TOKEN",
  "changeme",
  "your-api-token",
  "<your-api-token>",
  "xxxxxxxxxxxxxxxx",
  "****************",
  "REPLACE_ME",
  "test1234",
  "dummy-token-123",
  "my-secret-token",
  "{{ api_token }}",
  "${{ secrets.API_TOKEN }}",
  "%(api_token)s",
  "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/api-AbCdEf",
  "projects/demo/secrets/api-token/versions/latest",
  "op://vault/app/api-token"
]

const syntaxes: ReadonlyArray<Syntax> = [
  { name: "dotenv", write: (v) => `API_TOKEN=${v}\nREGION=eu-west-1` },
  { name: "dotenv, export", write: (v) => `export API_TOKEN=${v}` },
  { name: "dotenv, quoted", write: (v) => `API_TOKEN="${v}"\n` },
  { name: "shell, a variable for one command", write: (v) => `API_TOKEN='${v}' ./deploy.sh --prod` },
  { name: "shell, docker -e", write: (v) => `docker run --rm -e API_TOKEN=${v} ghcr.io/acme/app:1.2` },
  { name: "shell, docker --env", write: (v) => `docker run --env API_TOKEN=${v} app` },
  {
    name: "JSON",
    write: (v) => `{"name": "app", "apiToken": "${v}", "retries": 3}`,
    references: [`{"apiToken": "process.env.API_TOKEN"}`, `{"apiToken": "{{ .Values.apiToken }}"}`]
  },
  { name: "JSON escaped inside a JSON string", write: (v) => `{"body": "{\\"apiToken\\": \\"${v}\\", \\"n\\": 1}"}` },
  { name: "YAML", write: (v) => `service:\n  api_token: ${v}\n  retries: 3` },
  { name: "YAML, quoted", write: (v) => `service:\n  api_token: "${v}"\n` },
  { name: "YAML, a list of assignments", write: (v) => `env:\n  - API_TOKEN=${v}\n  - DEBUG=1` },
  { name: "TOML", write: (v) => `[service]\napi_token = "${v}"\nretries = 3` },
  { name: "TOML, aligned", write: (v) => `[service]\napi_token    =    "${v}"\nretries      = 3` },
  { name: "INI", write: (v) => `[auth]\npassword = ${v}\nuser = app` },
  { name: "INI, colon", write: (v) => `[auth]\npassword: ${v}` },
  { name: "XML element", write: (v) => `<config>\n  <apiToken>${v}</apiToken>\n</config>` },
  { name: "XML password element", write: (v) => `<datasource><password>${v}</password></datasource>` },
  { name: ".NET appSettings", write: (v) => `<appSettings>\n  <add key="ApiKey" value="${v}" />\n</appSettings>` },
  { name: "Java properties XML", write: (v) => `<entry key="password">${v}</entry>` },
  { name: "HCL", write: (v) => `provider "acme" {\n  api_token = "${v}"\n}` },
  { name: "Makefile ?=", write: (v) => `API_TOKEN ?= ${v}` },
  { name: "Makefile :=", write: (v) => `API_TOKEN := ${v}` },
  { name: "Makefile ::=", write: (v) => `API_TOKEN ::= ${v}` },
  { name: "Makefile +=", write: (v) => `API_TOKEN += ${v}` },
  { name: "Go :=", write: (v) => `apiToken := "${v}"`, references: [`apiToken := os.Getenv("API_TOKEN")`] },
  { name: "Go var with a type", write: (v) => `var apiToken string = "${v}"` },
  { name: "Go const", write: (v) => `const apiToken = "${v}"` },
  { name: "Go struct field", write: (v) => `cfg := Config{\n\tAPIToken: "${v}",\n}` },
  {
    name: "Java",
    write: (v) => `private static final String API_TOKEN = "${v}";`,
    references: [`String apiToken = System.getenv("API_TOKEN");`, `String apiToken = config.getString("api.token");`]
  },
  { name: "Java setProperty", write: (v) => `System.setProperty("api.token", "${v}");` },
  {
    name: "Java annotation attribute",
    write: (v) => `@DataSourceDefinition(name = "java:app/db", user = "app", password = "${v}")`
  },
  { name: "Kotlin val", write: (v) => `val apiToken = "${v}"` },
  { name: "Kotlin typed val", write: (v) => `val apiToken: String = "${v}"` },
  {
    name: "C# var",
    write: (v) => `var apiKey = "${v}";`,
    references: [`var apiKey = Environment.GetEnvironmentVariable("API_KEY");`]
  },
  { name: "C# initializer", write: (v) => `var options = new ClientOptions { ApiKey = "${v}", Retries = 3 };` },
  { name: "a connection string", write: (v) => `Server=db.internal;Database=app;User Id=sa;Password=${v};` },
  { name: "an ODBC connection string", write: (v) => `DRIVER={PostgreSQL};SERVER=db;UID=app;PWD=${v};` },
  {
    name: "PHP",
    write: (v) => `$apiToken = '${v}';`,
    references: [`$apiToken = getenv('API_TOKEN');`, `$apiToken = $_ENV['API_TOKEN'];`, `$apiToken = env('API_TOKEN');`]
  },
  { name: "PHP .=", write: (v) => `$apiToken .= '${v}';` },
  { name: "PHP array", write: (v) => `return ['api_token' => '${v}', 'debug' => false];` },
  { name: "PHP define", write: (v) => `define('API_TOKEN', '${v}');` },
  {
    name: "Ruby",
    write: (v) => `api_token = '${v}'`,
    references: [`api_token = ENV["API_TOKEN"]`, `api_token = ENV.fetch("API_TOKEN")`, `api_token = "#{prefix}-token"`]
  },
  { name: "Ruby keyword argument", write: (v) => `Client.new(api_token: '${v}')` },
  { name: "Ruby hash rocket", write: (v) => `{ :api_token => '${v}' }` },
  { name: "Ruby ENV assignment", write: (v) => `ENV['API_TOKEN'] = '${v}'` },
  { name: "Ruby instance variable", write: (v) => `@api_token = '${v}'` },
  {
    name: "Python",
    write: (v) => `api_token = "${v}"`,
    references: [
      `api_token = os.environ["API_TOKEN"]`,
      `api_token = os.getenv("API_TOKEN")`,
      `api_token = settings.API_TOKEN`,
      `api_token: str = os.environ.get("API_TOKEN", "")`
    ]
  },
  { name: "Python keyword argument", write: (v) => `client = Client(api_token="${v}", timeout=30)` },
  { name: "Python dict", write: (v) => `headers = {"api_token": "${v}"}` },
  { name: "Python os.environ", write: (v) => `os.environ["API_TOKEN"] = "${v}"` },
  {
    name: "JavaScript const",
    write: (v) => `const apiToken = "${v}";`,
    references: [
      `const apiToken = process.env.API_TOKEN;`,
      `const apiToken = import.meta.env.VITE_API_TOKEN`,
      `const apiToken = Deno.env.get("API_TOKEN")`,
      "const apiToken = `${prefix}:${tenant}`"
    ]
  },
  { name: "JavaScript object", write: (v) => `new Client({ apiToken: "${v}", retries: 3 })` },
  { name: "JavaScript template literal", write: (v) => `const apiToken = \`${v}\`` },
  { name: "TypeScript typed const", write: (v) => `const apiToken: string = "${v}"` },
  {
    name: "Rust",
    write: (v) => `let api_token = "${v}";`,
    references: [`let api_token = std::env::var("API_TOKEN")?;`]
  },
  { name: "SQL PASSWORD", write: (v) => `CREATE USER app WITH PASSWORD '${v}';` },
  { name: "SQL IDENTIFIED BY", write: (v) => `CREATE USER 'app'@'%' IDENTIFIED BY '${v}';` },
  { name: "SQL UPDATE", write: (v) => `UPDATE users SET password = '${v}' WHERE id = 1;` },
  { name: "HTTP X-Api-Key", write: (v) => `GET /v1/items HTTP/1.1\nX-Api-Key: ${v}\nAccept: */*` },
  { name: "HTTP Api-Key", write: (v) => `curl -H "Api-Key: ${v}" https://api.example.com` },
  { name: "HTTP X-Auth-Token", write: (v) => `X-Auth-Token: ${v}\nX-Request-Id: 42` },
  { name: "flag --password=", write: (v) => `mysqldump --user=app --password=${v} shop` },
  { name: "flag --password and a space", write: (v) => `app login --password ${v} --user bob` },
  { name: "flag --api-key=", write: (v) => `deploy --api-key=${v} --region eu` },
  { name: "flag --token and a space", write: (v) => `gh-release --token ${v} v1.2.3` },
  { name: "PGPASSWORD for one command", write: (v) => `PGPASSWORD=${v} psql -h db -U app` },
  { name: "mysql -p", write: (v) => `mysql -h db -u root -p${v} shop` },
  { name: "mysqldump -p quoted", write: (v) => `mysqldump -u app -p'${v}' shop > shop.sql` }
]

const marker = "\u0000"

describe("the generic assignment in every syntax", () => {
  for (const syntax of syntaxes) {
    describe(syntax.name, () => {
      const [before] = syntax.write(marker).split(marker)
      for (const [kind, secret] of secrets) {
        it(`removes ${kind}`, () => {
          const text = syntax.write(secret)
          const out = redactor.redact(text).text
          assert.isUndefined(leakedWindow(out, secret), out)
          assert.include(out, before!, out)
          assert.strictEqual(redactor.redact(out).text, out, "redacting twice changes nothing")
        })
      }
      it("keeps placeholders", () => {
        for (const value of placeholders) {
          const text = syntax.write(value)
          assert.strictEqual(redactor.redact(text).text, text)
        }
      })
      if (syntax.references !== undefined) {
        it("keeps references", () => {
          for (const text of syntax.references!) assert.strictEqual(redactor.redact(text).text, text)
        })
      }
    })
  }
})

describe("references and examples in assignments", () => {
  it("stay, in every common language and template syntax", () => {
    for (
      const text of [
        "password: \"{% raw %}{{ db_password }}{% endraw %}\"",
        "token = \"<%= ENV['TOKEN'] %>\"",
        "secret = \"#{secret_value}\"",
        "api_key = ENV.fetch(\"API_KEY\")",
        "api_key = getenv('API_KEY')",
        "secret: vault:secret/data/app#token",
        "password: sm://prod-db-password",
        "client_secret: \"@Microsoft.KeyVault(SecretUri=https://kv.vault.azure.net/secrets/app/)\"",
        "export GITHUB_TOKEN=$(gh auth token)",
        "token: ${TOKEN:-default}",
        "password = os.environ.get(\"PW\")",
        "mysql -u root -p$MYSQL_PWD shop",
        "mysql -u root -p shop",
        "curl -u admin:${ADMIN_PASSWORD} https://x.io"
      ]
    ) {
      assert.strictEqual(redactor.redact(text).text, text)
    }
  })
  it("stay when they are the words people use in examples", () => {
    for (
      const word of [
        "changeme",
        "your-api-key",
        "<token>",
        "REPLACE_ME",
        "TODO",
        "dummy",
        "test",
        "sample",
        "placeholder",
        "secret",
        "password",
        "foobar",
        "redacted",
        "hunter2",
        "P@ssw0rd",
        "password123",
        "test-token-1234",
        "my_secret_key"
      ]
    ) {
      for (const text of [`password=${word}`, `"api_key": "${word}"`, `curl -u admin:${word} https://x.io`]) {
        assert.strictEqual(redactor.redact(text).text, text)
      }
    }
  })
})

describe("keywords match as words or identifier parts", () => {
  const value = "Qv7" + noise(21, 905)
  it("inside identifiers", () => {
    for (
      const text of [
        `apiToken=${value}`,
        `API_TOKEN=${value}`,
        `db.password=${value}`,
        `APIToken: ${value}`,
        `AUTHTOKEN=${value}`,
        `apikey: ${value}`,
        `clientsecret=${value}`,
        `Passwd = ${value}`,
        `refreshTokens: ${value}`
      ]
    ) {
      const out = redactor.redact(text).text
      assert.isUndefined(leakedWindow(out, value), out)
    }
  })
  it("not inside paths, URLs or other words", () => {
    for (
      const text of [
        `GET /auth/callback:${value}`,
        `https://x.io/tokens/123:${value}`,
        `passenger: ${value}`,
        `keyboard: ${value}`,
        `tokenizer: ${value}`,
        `monkey: ${value}`,
        `authors: ${value}`,
        `bypass=${value}`,
        `secretary: ${value}`,
        `io.jsonwebtoken:jjwt-api:0.11.5`
      ]
    ) {
      assert.strictEqual(redactor.redact(text).text, text)
    }
  })
  it("values that are code, types or algorithms", () => {
    for (
      const text of [
        "password = getPassword()",
        "token = this.tokenService.current",
        "secret: SecretString",
        "apiKey: Uint8Array",
        "private token: AccessTokenProvider",
        "password_algorithm = \"argon2id\"",
        "signing_key_alg: HS256",
        "const accessToken = refreshAccessTokenForUser(user)",
        "password: !vault |"
      ]
    ) {
      assert.strictEqual(redactor.redact(text).text, text)
    }
  })
})

import { alnum, hex, noise } from "../Noise.js"
import type { Positive, RuleSamples } from "../RuleSamples.js"
import { assigned, bare } from "../RuleSamples.js"

const lowerAlnum = "abcdefghijklmnopqrstuvwxyz0123456789"
const upperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
const base64 = alnum + "+/"
const base64url = alnum + "_-"
const bech32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
const lowerBase32 = "abcdefghijklmnopqrstuvwxyz234567"
/**
 * Noise over a power-of-two alphabet (hex, base32, base64) taken from
 * letters and digits: the generator's low bits repeat quickly, and a hex
 * body from them can look like a placeholder.
 */
const spread = (length: number, seed: number, alphabet: string): string =>
  [...noise(length, seed)].map((c, i) => alphabet[(alnum.indexOf(c) * 5 + i * 3) % alphabet.length]).join("")
const uuid = (seed: number): string =>
  [
    spread(8, seed, hex),
    spread(4, seed + 1, hex),
    spread(4, seed + 2, hex),
    spread(4, seed + 3, hex),
    spread(12, seed + 4, hex)
  ]
    .join("-")

/** A positive whose secret is a part of the text, with `kept` around it. */
const inText = (text: string, secret: string, kept?: string): Positive => ({ text, secret, kept })

// ---------------------------------------------------------------------------
// Kubernetes
// ---------------------------------------------------------------------------

const k8sPassword = spread(24, 901, base64) + "=="
const k8sToken = spread(40, 902, base64)
const k8sCert = spread(76, 903, base64) + "\n    " + spread(76, 904, base64) + "\n    " + spread(20, 905, base64) + "="
const k8sPlain = "s3cr" + noise(18, 906)

const kubernetes: RuleSamples = {
  rule: "kubernetes-secret",
  positives: [
    inText(
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-user-pass\ntype: Opaque\ndata:\n  password: ${k8sPassword}\n  username: YWRtaW4=\n`,
      k8sPassword,
      "  password: "
    ),
    inText(
      `apiVersion: v1\ndata:\n  token: "${k8sToken}"\n  ca.crt: '${k8sPassword}'\nkind: Secret\nmetadata:\n  name: sa-token\n`,
      k8sToken,
      "  ca.crt: '"
    ),
    inText(
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\ndata:\n  tls.crt: |\n    ${k8sCert}\n  tls.key: ${k8sToken}\n`,
      k8sCert.replace(/\n {4}/g, ""),
      "  tls.crt: |\n"
    ),
    inText(
      `{\n    "apiVersion": "v1",\n    "data": {\n        "password": "${k8sPassword}",\n        "username": "YWRtaW4="\n    },\n    "kind": "Secret",\n    "metadata": {\n        "name": "db"\n    }\n}\n`,
      k8sPassword,
      `"password": "`
    ),
    inText(
      `apiVersion: v1\nkind: "Secret"\nmetadata:\n  name: app\nstringData:\n  DATABASE_PASSWORD: ${k8sPlain}\n  mode: production\n`,
      k8sPlain,
      "DATABASE_PASSWORD: "
    ),
    inText(
      JSON.stringify({
        stdout: `apiVersion: v1\ndata:\n  password: ${k8sPassword}\nkind: Secret\nmetadata:\n  name: db\n`
      }),
      k8sPassword,
      "password: "
    ),
    inText(
      JSON.stringify({
        content:
          `apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\ndata:\n  tls.crt: |\n    ${k8sCert}\n  tls.key: "${k8sToken}"`
      }),
      k8sCert.replace(/\n {4}/g, ""),
      "tls.crt: |"
    ),
    inText(
      JSON.stringify({ content: `apiVersion: v1\nkind: Secret\ndata:\n  tls.key: "${k8sToken}"` }),
      k8sToken,
      "tls.key: \\\""
    ),
    inText(
      `apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n    api-key: ${k8sToken}\n  kind: Secret\n  metadata:\n    name: a\nkind: List\n`,
      k8sToken,
      "api-key: "
    )
  ],
  negatives: [
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  config: ${spread(40, 911, base64)}\n`,
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: chart\ndata:\n  password: {{ .Values.password | b64enc }}\n  empty: ""\n`,
    `apiVersion: external-secrets.io/v1beta1\nkind: ExternalSecret\nspec:\n  secretStoreRef:\n    kind: SecretStore\n  data:\n    - secretKey: api-key\n      remoteRef:\n        key: ${
      spread(30, 912, base64)
    }\n`,
    `kind: Secret\nmetadata:\n  name: one\n---\nkind: ConfigMap\ndata:\n  strategy: ${spread(30, 913, base64)}\n`,
    `apiVersion: v1\nkind: Secret\ndata:\n  extra: YmFyCg==\n`,
    JSON.stringify({ stdout: `apiVersion: v1\nkind: ConfigMap\ndata:\n  config: ${spread(40, 914, base64)}\n` }),
    JSON.stringify({ stdout: `kind: Secret\nmetadata:\n  name: x\ndata:\n  password: {{ .Values.password }}\n` })
  ]
}

// ---------------------------------------------------------------------------
// registries
// ---------------------------------------------------------------------------

const pypi = "pypi-" + "AgEIcHlwaS5vcmc" + spread(160, 1, base64url)
// TestPyPI's tokens name `test.pypi.org` where PyPI's name `pypi.org`.
const testPypi = "pypi-" + "AgENdGVzdC5weXBpLm9yZw" + spread(160, 3, base64url)
const rubygems = "rubygems" + "_" + spread(48, 2, hex)
const nuget = "oy" + "2" + noise(43, 3, lowerAlnum)
const clojars = "CLOJARS" + "_" + noise(60, 4, lowerAlnum)
const artifactory = "AK" + "Cp" + noise(69, 5)
const reference = "cmVmd" + "GtuOjAxOj" + noise(50, 6)

// ---------------------------------------------------------------------------
// the samples
// ---------------------------------------------------------------------------

const tokenSamples = (
  rule: string,
  secret: string,
  extra: ReadonlyArray<Positive>,
  negatives: ReadonlyArray<string>
) => ({
  rule,
  positives: [...bare(secret), ...extra],
  negatives
})

const atlassian = "ATATT" + "3xFfGF0" + spread(178, 7, base64url) + "=" + spread(8, 8, hex).toUpperCase()
const atlassianLegacy = noise(20, 9, lowerAlnum) + spread(4, 10, hex)
const bitbucket = "ATBB" + noise(32, 11)
const bitbucketSecret = noise(64, 12, lowerAlnum)
const glffct = "gl" + "ffct-" + noise(20, 13)
const glwt = "gl" + "wt-" + noise(24, 14)
const gitlabSession = noise(32, 15, lowerAlnum)
const hfOrg = "api" + "_org_" + noise(34, 16, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
const circleci = "CCIP" + "AT_" + noise(22, 17) + "_" + spread(40, 18, hex)
const circleLegacy = spread(40, 19, hex)
const buildkite = "bk" + "ua_" + spread(40, 20, hex)
const sourcegraph = "sg" + "p_" + spread(16, 21, hex) + "_" + spread(40, 22, hex)
const sourcegraphLegacy = spread(40, 23, hex)
const azdo = noise(76, 24) + "AZ" + "DO" + noise(4, 25)
const azdoLegacy = spread(52, 26, lowerBase32)
const travis = noise(22, 27)
const drone = noise(32, 28)
const codecov = uuid(29)
const snyk = uuid(35).toUpperCase()
const sonar = "sq" + "p_" + spread(40, 41, hex)
const sonarBare = noise(40, 42)
const postman = "PM" + "AK-" + spread(24, 43, hex) + "-" + spread(34, 44, hex)
const openshift = "sha256" + "~" + spread(43, 45, base64url)
const docker = "dckr" + "_pat_" + spread(27, 46, base64url)
const linear = "lin" + "_api_" + noise(40, 47)
const linearSecret = spread(32, 48, hex)
const notion = "ntn" + "_" + noise(11, 49, "0123456789") + noise(35, 50)
const notionLegacy = "secret" + "_" + noise(43, 51)
const netlify = "nfp" + "_" + noise(36, 52)
const netlifyLegacy = spread(43, 53, base64url)
const mattermost = noise(26, 54, lowerAlnum)
const gitter = noise(40, 55, lowerAlnum + "_-")
const looker = noise(24, 56)
const privateAi = noise(32, 57, lowerAlnum)
const frameio = "fio" + "-u-" + spread(64, 58, base64url)
const intra = "s-s4t2" + "ud-" + spread(64, 59, hex)
const readme = "rd" + "me_" + noise(70, 60, lowerAlnum)
const octopus = "API" + "-" + noise(26, 61, upperAlnum)
const prefect = "pn" + "u_" + noise(36, 62)
const scalingo = "tk-" + "us-" + noise(48, 63, lowerAlnum + "_-")
const infracost = "ico" + "-" + noise(32, 64)
const harness = "pat" + "." + noise(22, 65) + "." + noise(24, 66) + "." + noise(20, 67)
const dnkey = "dn" + "key-" + noise(26, 68, lowerAlnum) + "-" + noise(52, 69, lowerAlnum)
const settlemint = "sm" + "_aat_" + noise(16, 70)
const authress = "sc" + "_" + noise(10, 71, lowerAlnum) + "." + noise(4, 72, lowerAlnum) + ".acc_" +
  noise(10, 73, lowerAlnum) +
  "." + noise(40, 74, lowerAlnum + "_-")
const clickhouse = "4b" + "1d" + noise(38, 75)
const sidekiq = spread(8, 76, hex) + ":" + spread(8, 77, hex)
const terraform = noise(14, 78) + ".atlas" + "v1." + spread(67, 79, base64url)
const grafanaCloud = "gl" + "c_" + spread(80, 80, base64) + "=="
const grafanaSa = "gl" + "sa_" + noise(32, 81) + "_" + spread(8, 82, hex)
const grafanaLegacy = "eyJrIjoi" + noise(90, 83)
const opsToken = "ops" + "_eyJ" + spread(320, 84, base64)
const opsKey = "A3" + "-" + noise(6, 85, upperAlnum) + "-" + noise(11, 86, upperAlnum) + "-" +
  noise(5, 87, upperAlnum) + "-" +
  noise(5, 88, upperAlnum) + "-" + noise(5, 89, upperAlnum)
const pulumi = "pu" + "l-" + spread(40, 90, hex)
const doppler = "dp" + ".pt." + noise(43, 91)
const dopplerService = "dp" + ".st.prd." + noise(40, 92)
const fly = "fo" + "1_" + spread(43, 93, base64url)
const flyMacaroon = "fm" + "2_" + spread(180, 94, base64) + "="
const age = "AGE-SECRET" + "-KEY-1" + spread(58, 95, bech32)

export const developer: ReadonlyArray<RuleSamples> = [
  kubernetes,
  tokenSamples("pypi-upload-token", pypi, [
    inText(`[pypi]\n  username = __token__\n  password = ${pypi}\n`, pypi, "username = __token__"),
    inText(`twine upload -u __token__ -p ${pypi} dist/*`, pypi, "twine upload -u __token__ -p "),
    ...bare(testPypi),
    inText(
      `[testpypi]\n  repository = https://test.pypi.org/legacy/\n  password = ${testPypi}\n`,
      testPypi,
      "password = "
    ),
    inText(`twine upload --repository testpypi -u __token__ -p ${testPypi} dist/*`, testPypi, "-u __token__ -p ")
  ], [
    "pypi-" + "AgENdGVzdC5weXBpLm9yZw" + "x".repeat(80),
    "pypi-" + "AgEIcHlwaS5vcmc" + "x".repeat(80),
    "pypi-" + "AgEIcHlwaS5vcmc" + spread(20, 100, base64url),
    "See https://pypi.org/help/#apitoken for pypi-AgEIcHlwaS5vcmc... tokens"
  ]),
  tokenSamples("rubygem-api-token", rubygems, [
    inText(`GEM_HOST_API_KEY=${rubygems} gem push pkg-1.0.0.gem`, rubygems, "GEM_HOST_API_KEY=")
  ], ["rubygems" + "_" + "0".repeat(48), "rubygems" + "_" + spread(47, 101, hex), "gem install rubygems_update"]),
  tokenSamples("nuget-api-key", nuget, [
    inText(`dotnet nuget push pkg.nupkg --api-key ${nuget} --source https://api.nuget.org/v3/index.json`, nuget)
  ], ["oy" + "2" + "a".repeat(43), "oy" + "2" + noise(42, 102, lowerAlnum), "toy2" + noise(43, 103, lowerAlnum)]),
  tokenSamples("clojars-api-token", clojars, [
    inText(`:deploy-repositories [["clojars" {:username "dev" :password "${clojars}"}]]`, clojars, ":password \"")
  ], ["CLOJARS" + "_" + "X".repeat(60), "CLOJARS" + "_USERNAME=deploy", "CLOJARS" + "_" + noise(50, 104)]),
  {
    rule: "jfrog-token",
    positives: [
      ...bare(artifactory),
      ...bare(reference).slice(0, 2),
      ...assigned("ARTIFACTORY_API_KEY", noise(73, 105)).slice(0, 2),
      inText(`--set imagePullSecretJfrog.password=${noise(64, 106)}`, noise(64, 106), "imagePullSecretJfrog.password=")
    ],
    negatives: [
      "AK" + "Cp" + "X".repeat(69),
      "Ak" + "Cp" + noise(69, 107),
      "partOfAlongUnrelatedBlob gYnkg" + "cmVmd" + noise(59, 108) + "VyZSB2",
      "ARTIFACTORY_URL=https://example.jfrog.io/artifactory/api/npm/npm-remote/"
    ]
  },
  {
    rule: "atlassian-api-token",
    positives: [
      ...bare(atlassian),
      ...assigned("JIRA_API_TOKEN", atlassianLegacy),
      inText(`confluence_token = "${atlassianLegacy}"`, atlassianLegacy, "confluence_token = \"")
    ],
    negatives: [
      "getPagesInConfluenceSpace,searchConfluenceUsingCql",
      "JIRA_API_TOKEN=xxxxxxxxxxxxxxxxxxxxxxxx",
      "JIRA_URL=https://jira.internal/"
    ]
  },
  tokenSamples("bitbucket-token", bitbucket, [
    inText(`git clone https://deploy:${bitbucket}@bitbucket.org/team/repo.git`, bitbucket, "https://deploy:")
  ], ["ATBB" + "X".repeat(32), "ATBB" + noise(31, 109)]),
  {
    rule: "bitbucket-client-credential",
    positives: [...assigned("BITBUCKET_CLIENT_SECRET", bitbucketSecret), ...assigned("bitbucketKey", noise(32, 110))],
    negatives: ["BITBUCKET_CLIENT_SECRET=" + "x".repeat(64), "BITBUCKET_WORKSPACE=my-team-workspace"]
  },
  {
    rule: "gitlab-token",
    positives: [
      ...bare(glffct),
      ...bare(glwt).slice(0, 2),
      inText(`Cookie: _gitlab_session=${gitlabSession}; path=/`, gitlabSession, "_gitlab_session="),
      inText(`gitlab_cookie: "_gitlab_session=${gitlabSession}"`, gitlabSession, "_gitlab_session=")
    ],
    negatives: [
      "gl" + "ffct-" + "x".repeat(20),
      "_gitlab_session=" + "a".repeat(32),
      "my_gitlab_session=" + noise(32, 111)
    ]
  },
  {
    rule: "huggingface-token",
    positives: [
      ...bare(hfOrg),
      inText(`use_auth_token='${hfOrg}')`, hfOrg)
    ],
    negatives: [
      `public static final String API_ORG_EXIST = "APIOrganizationExist";`,
      "const api_org_controller = require('../../controllers/api/index').organizations;",
      "api" + "_org_" + "X".repeat(34),
      "def _api_org_96726c78_4ae3_402f_b08b_7a78c6903d2a(self, method, url, body, headers):"
    ]
  },
  {
    rule: "circleci-token",
    positives: [...bare(circleci), ...assigned("CIRCLECI_TOKEN", circleLegacy).slice(0, 3)],
    negatives: ["CCIP" + "AT_" + "x".repeat(22) + "_" + "0".repeat(40), "CIRCLECI_TOKEN=" + "0".repeat(40)]
  },
  tokenSamples("buildkite-token", buildkite, [
    inText(`BUILDKITE_API_TOKEN=${buildkite} bk build list`, buildkite, "BUILDKITE_API_TOKEN=")
  ], ["bk" + "ua_" + "0".repeat(40), "bk" + "ua_" + spread(39, 112, hex)]),
  {
    rule: "sourcegraph-token",
    positives: [
      ...bare(sourcegraph),
      ...bare("sg" + "p_local_" + sourcegraphLegacy).slice(0, 1),
      inText(`sourcegraph: ${sourcegraphLegacy}`, sourcegraphLegacy, "sourcegraph: ")
    ],
    negatives: [
      "sg" + "p_5555555dAAAAA7777777CcccCFaaaaaaaaaaaaaa",
      "sg" + "p_652d9a2e48FC7E!FcDbEA1BC2E2A6CE23cFe7F7D",
      "sg" + "p_78Ad84a5B6e8A2fE5B_4085FB0ccaDDd29DB66Fd7FE9bA2C1cdCE8400CD"
    ]
  },
  {
    rule: "azure-devops-pat",
    // In `X-Token: …` the generic rule names the token: its trigger is `AZDO`, not its start.
    positives: [
      ...bare(azdo).filter((p) => !p.text.includes("X-Token")),
      ...assigned("AZURE_DEVOPS_EXT_PAT", azdoLegacy).slice(0, 3),
      inText(`AZURE_DEVOPS_TOKEN: ${azdoLegacy}`, azdoLegacy, "AZURE_DEVOPS_TOKEN: ")
    ],
    negatives: ["AZURE_DEVOPS_EXT_PAT=" + "a".repeat(52), "AZDO_ORG_URL=https://dev.azure.com/contoso"]
  },
  {
    rule: "travisci-access-token",
    positives: assigned("TRAVIS_API_TOKEN", travis),
    negatives: ["TRAVIS_API_TOKEN=" + "x".repeat(22), "TRAVIS_BRANCH=feature/login-redirect"]
  },
  {
    rule: "droneci-access-token",
    positives: [...assigned("DRONE_TOKEN", drone), inText(`droneciToken := "${drone}"`, drone, "droneciToken := \"")],
    negatives: ["DRONE_TOKEN=" + "x".repeat(32), "DRONE_SERVER=https://drone.internal"]
  },
  {
    rule: "codecov-access-token",
    positives: assigned("CODECOV_TOKEN", codecov),
    negatives: ["CODECOV_TOKEN=${{ secrets.CODECOV_TOKEN }}", "codecov_flags: unittests"]
  },
  {
    rule: "snyk-api-token",
    positives: [...assigned("SNYK_TOKEN", snyk), inText(`SNYK_API_KEY ?= "${snyk}"`, snyk, "SNYK_API_KEY ?= \"")],
    negatives: ["SNYK_TOKEN=00000000-0000-0000-0000-000000000000", "snyk test --severity-threshold=high"]
  },
  {
    rule: "sonar-token",
    positives: [
      ...bare(sonar),
      ...assigned("SONAR_TOKEN", sonarBare).slice(0, 3),
      inText(`SONAR.LOGIN ?= "${sonarBare}"`, sonarBare)
    ],
    negatives: ["sq" + "p_" + "x".repeat(40), "SONAR_HOST_URL=https://sonarcloud.io", "SONAR_TOKEN=" + "a".repeat(40)]
  },
  tokenSamples("postman-api-token", postman, [], [
    "PM" + "AK-" + "0".repeat(24) + "-" + "0".repeat(34),
    "PM" + "AK-" + spread(24, 113, hex)
  ]),
  tokenSamples("openshift-user-token", openshift, [
    inText(`oc login --token=${openshift} --server=https://api.cluster:6443`, openshift, "oc login --token=")
  ], [
    "oc login --token=sha256" +
    "~_xxxxxx_xxxxxxxxxxxxxxxxxxxxxx-xxxxxxxxxx-X \\\n    --server=https://api.example:6443",
    "sha256" + "~" + spread(20, 114, base64url)
  ]),
  tokenSamples("docker-hub-token", docker, [
    inText(`echo ${docker} | docker login -u deploy --password-stdin`, docker)
  ], ["dckr" + "_pat_" + "x".repeat(27), "dckr" + "_pat_" + noise(10, 115)]),
  tokenSamples("linear-api-key", linear, [], ["lin" + "_api_" + "x".repeat(40), "lin" + "_api_" + noise(30, 116)]),
  {
    rule: "linear-client-secret",
    positives: assigned("LINEAR_CLIENT_SECRET", linearSecret),
    negatives: ["LINEAR_CLIENT_SECRET=" + "0".repeat(32), "linear_layer: 512"]
  },
  {
    rule: "notion-token",
    positives: [...bare(notion), ...assigned("NOTION_TOKEN", notionLegacy).slice(0, 3)],
    negatives: [
      "ntn_12345678901",
      "ntn_123456789012345678901234567890123456789012345678901234567890",
      "client_secret_" + noise(43, 117)
    ]
  },
  {
    rule: "netlify-access-token",
    positives: [...bare(netlify), ...assigned("NETLIFY_AUTH_TOKEN", netlifyLegacy).slice(0, 3)],
    negatives: ["NETLIFY_AUTH_TOKEN=" + "x".repeat(43), "NETLIFY_SITE_NAME=marketing-site-production-eu"]
  },
  {
    rule: "mattermost-access-token",
    positives: assigned("MATTERMOST_TOKEN", mattermost),
    negatives: ["MATTERMOST_TOKEN=" + "x".repeat(26), "MATTERMOST_URL=https://chat.internal"]
  },
  {
    rule: "gitter-access-token",
    positives: assigned("GITTER_TOKEN", gitter),
    negatives: ["GITTER_TOKEN=" + "x".repeat(40), "gitter_room: org/general"]
  },
  {
    rule: "looker-client-secret",
    positives: [
      ...assigned("LOOKERSDK_CLIENT_SECRET", looker).slice(0, 3),
      ...assigned("looker_api_secret", noise(20, 118)).slice(0, 2)
    ],
    negatives: ["LOOKERSDK_CLIENT_SECRET=" + "x".repeat(24), "LOOKERSDK_BASE_URL=https://looker.internal:19999"]
  },
  {
    rule: "privateai-api-token",
    positives: assigned("PRIVATE_AI_API_KEY", privateAi),
    negatives: [`const privateaiToken = "${"a".repeat(32)}";`, "PRIVATE_AI_URL=https://api.private-ai.com"]
  },
  tokenSamples("frameio-api-token", frameio, [], ["fio" + "-u-" + "x".repeat(64), "fio" + "-u-" + noise(30, 119)]),
  tokenSamples("intra42-client-secret", intra, [
    inText(`clientSecret := "${intra}"`, intra, "clientSecret := \"")
  ], ["s-s4t2" + "ud-" + "0".repeat(64), "s-s4t2" + "ud-" + spread(40, 120, hex)]),
  tokenSamples("readme-api-token", readme, [], [
    "const API_KEY = 'rd" + "me_" + "X".repeat(70) + "';",
    "rd" + "me_" + noise(60, 121, lowerAlnum)
  ]),
  tokenSamples("octopus-deploy-api-key", octopus, [
    inText(`octo push --package app.1.0.0.zip --server https://octopus.internal --apiKey ${octopus}`, octopus)
  ], [
    `msgstr "GSSAPI-VIRHEKAPSELOINTIMERKKIJONO."`,
    "https://sonarcloud.io/api/project_badges/measure?project=Garden-Coin_API-CalculadoraDeInvestimentos&metric=alert_status",
    "https://fog-ringer-f42.notion.site/API-BD80F56CDC1441E6BF6011AB6D852875",
    "API-AUTHENTICATIONSERVICEGATEWAY"
  ]),
  tokenSamples("prefect-api-token", prefect, [], [
    `PREFECT_API_KEY = "pn` + `u_${"X".repeat(36)}"`,
    "pn" + "u_" + noise(30, 122)
  ]),
  tokenSamples("scalingo-api-token", scalingo, [], ["tk-" + "us-" + "x".repeat(48), "tk-" + "us-" + noise(30, 123)]),
  tokenSamples("infracost-api-token", infracost, [], [
    "ico" + "-" + "X".repeat(32),
    "http://assets.r7.com/assets/media_box_tv_tres_colunas/video_box.ico-7a388b69018576d24b59331fd60aab0c.png",
    "https://explosivelab.notion.site/Pianificazione-Nerdz-Ng-pubblico-1bc826ecc0994dd8915be97fc3489cde?pvs=74"
  ]),
  tokenSamples("harness-api-key", harness, [], [
    "pat" + "." + "x".repeat(22) + "." + "x".repeat(24) + "." + "x".repeat(20),
    "Thanks, Pat. See you"
  ]),
  tokenSamples("defined-networking-api-token", dnkey, [], [
    "dn" + "key-" + "x".repeat(26) + "-" + "x".repeat(52),
    "dnkey-" + noise(26, 124)
  ]),
  tokenSamples("settlemint-token", settlemint, [], [
    `the token was sm_aat_${noise(10, 126)} before rotation`,
    "sm" + "_pat_" + "X".repeat(16)
  ]),
  tokenSamples("authress-service-client-access-key", authress, [], [
    "sc" + "_" + noise(10, 127, lowerAlnum),
    "ext_modules.acc_total"
  ]),
  tokenSamples("clickhouse-cloud-api-secret-key", clickhouse, [], [
    "key = 4b" + "1d" + "X".repeat(38),
    "key = adf4b" + "1d" + noise(38, 128),
    "checksum 4b" + "1d" + spread(38, 129, hex)
  ]),
  {
    rule: "sidekiq-secret",
    positives: [
      ...assigned("BUNDLE_ENTERPRISE__CONTRIBSYS__COM", sidekiq).slice(0, 3),
      inText(`source "https://${sidekiq}@gems.contribsys.com/" do`, sidekiq, "@gems.contribsys.com/"),
      inText(`export BUNDLE_GEMS__CONTRIBSYS__COM=${sidekiq} && bundle install`, sidekiq)
    ],
    negatives: ["BUNDLE_ENTERPRISE__CONTRIBSYS__COM=${SIDEKIQ_CREDS}", "https://gems.contribsys.com/ is the gem server"]
  },
  tokenSamples("terraform-cloud-token", terraform, [
    inText(`credentials "app.terraform.io" {\n  token = "${terraform}"\n}`, terraform, `credentials "app.terraform.io"`)
  ], [
    `token        = "${"x".repeat(14)}.atlas` + `v1.${"x".repeat(67)}"`,
    "the .atlas" + "v1. marker"
  ]),
  {
    rule: "grafana-token",
    positives: [...bare(grafanaCloud), ...bare(grafanaSa).slice(0, 2), ...bare(grafanaLegacy).slice(0, 2)],
    negatives: [
      "gl" + "c_" + "x".repeat(68),
      `   API_KEY="glc_${"1".repeat(42)}="`,
      "static void GLC_CreateLightmapTextureArray(void);",
      "gl" + "sa_" + "X".repeat(32) + "_AAAAAAAA"
    ]
  },
  tokenSamples("1password-service-account-token", opsToken, [
    inText(`export OP_SERVICE_ACCOUNT_TOKEN=${opsToken}\n`, opsToken, "export OP_SERVICE_ACCOUNT_TOKEN=")
  ], [
    "Service account tokens look like ops" + "_eyJzaWduSW5B..[Redacted]",
    ": paste ops" + "_eyJzaWduSW5BZGRyZXNzIjoiaHR0cHM6... into the field",
    "ops" + "_eyJ" + "x".repeat(300)
  ]),
  tokenSamples("1password-secret-key", opsKey, [], [
    "A3" + "-XXXXXX-XXXXXXXXXXX-XXXXX-XXXXX-XXXXX",
    "A3" + "-xXXXXX-XXXXXX-XXXXX-XXXXX-XXXXX-XXXXX"
  ]),
  tokenSamples("pulumi-api-token", pulumi, [
    inText(`pulumi login --token ${pulumi}`, pulumi, "pulumi login --token ")
  ], [
    `<img src="./assets/vipu` + `l-${spread(64, 129, hex)}.png" alt="">`,
    "pu" + "l-" + "0".repeat(40)
  ]),
  {
    rule: "doppler-token",
    positives: [...bare(doppler), ...bare(dopplerService).slice(0, 2)],
    negatives: ["dp" + ".pt." + "x".repeat(43), "dp" + ".pt." + noise(20, 130)]
  },
  {
    rule: "flyio-access-token",
    positives: [...bare(fly), inText(`fly deploy --access-token "FlyV1 ${flyMacaroon}"`, flyMacaroon, "FlyV1 ")],
    negatives: [
      `resource "doppler_integration_flyio" "prod" {\n  api_key = "fo1_${"x".repeat(43)}"\n}`,
      `<input type="hidden" name="authenticity_token" value="7SWa-Fo1_${spread(80, 131, base64url)}" />`
    ]
  },
  tokenSamples("age-secret-key", age, [
    inText(
      `# created: 2026-03-14T09:26:53Z\n# public key: age1${spread(58, 132, bech32).toLowerCase()}\n${age}\n`,
      age,
      "# public key: age1"
    )
  ], ["AGE-SECRET" + "-KEY-1" + "X".repeat(58), "AGE-SECRET" + "-KEY-1" + spread(40, 133, bech32)])
]

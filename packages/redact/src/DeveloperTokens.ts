/**
 * Credentials of developer platforms, CI services, package registries and
 * infrastructure tools: registry upload tokens (PyPI, RubyGems, NuGet,
 * Clojars), CI and code-hosting tokens (CircleCI, Buildkite, Bitbucket,
 * Sourcegraph, Azure DevOps), infrastructure and secret managers
 * (Terraform Cloud, Doppler, 1Password, Pulumi, Fly.io), and the data of
 * Kubernetes `Secret` manifests.
 *
 * Most are token rules on a documented prefix. Formats with no prefix of
 * their own (a Travis CI token is 22 letters and digits, a Snyk token a
 * UUID) are `keyed` rules: the service's name must be a part of the key
 * they are assigned to.
 *
 * This module is a catalogue of data, one rule per format: it is past the
 * house's ~600 lines because its length grows with the formats it lists,
 * not with what it does.
 *
 * @since 0.3.0
 */
import * as Detector from "./Detector.js"
import { keyed, token } from "./TokenRule.js"
import { isPlaceholder } from "./Values.js"

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

const distinct = (value: string): number => new Set(value).size

/**
 * Rejects placeholders in a token's body (from `skip` on): a run of one
 * character (`pnu_XXXX…`), too few distinct characters, a documentation
 * example.
 */
const varied = (skip: number, min = 6) => (value: string): boolean =>
  distinct(value.slice(skip)) >= min && !/example/i.test(value)

/** Like {@link varied}, for a keyed value: at least `min` distinct characters. */
const variedValue = (min = 6) => (value: string): boolean => distinct(value) >= min

const hasDigit = (value: string): boolean => /[0-9]/.test(value)

/**
 * A credential assigned to one of a few well-known variable or property
 * names that hold no credential word (`BUNDLE_GEMS__CONTRIBSYS__COM`,
 * `sonar.login`, `AZURE_DEVOPS_EXT_PAT`), which keyed rules do not read.
 * The name is the trigger (a case-sensitive prefix, cheap); it may also be
 * a JVM property (`-Dsonar.login=…`). Only the value is removed.
 */
const named = (options: {
  readonly id: string
  readonly names: ReadonlyArray<string>
  readonly value: RegExp
  readonly maxLength: number
  readonly accept?: ((value: string) => boolean) | undefined
}): Detector.Detector => ({
  id: options.id,
  triggers: [Detector.prefix(...options.names)],
  before: 3,
  after: Math.max(...options.names.map((n) => n.length)) + 16 + options.maxLength,
  verify: (context, hit) => {
    const text = context.text
    if (
      !Detector.separatedBefore(context, hit.start) &&
      !(hit.start >= 2 && Detector.codeAt(context, hit.start - 2) === 45 &&
        Detector.codeAt(context, hit.start - 1) === 68)
    ) {
      return undefined
    }
    const name = options.names.find((n) => text.startsWith(n, hit.start))
    if (name === undefined) return undefined
    const op = Detector.matchAt(namedOperator, text, hit.start + name.length)
    if (op === null) return undefined
    const start = hit.start + name.length + op[0].length
    const match = Detector.matchAt(options.value, text, start)
    if (match === null || isPlaceholder(match[0])) return undefined
    if (options.accept !== undefined && !options.accept(match[0])) return undefined
    return { start, end: start + match[0].length }
  }
})
const namedOperator = /\\?["']?[ \t]{0,4}(?::=|::=|:::=|\?=|[:=])[ \t]{0,4}\\?["']?/y
const hasLetter = (value: string): boolean => /[A-Za-z]/.test(value)

/**
 * A token rule whose prefix must not follow `.` or `/` either: a file
 * name (`box.ico-7a38…png`) or a path segment is not a token.
 */
const standalone = (detector: Detector.Detector): Detector.Detector => ({
  ...detector,
  verify: (context, hit) => {
    if (hit.start > 0) {
      const code = Detector.codeAt(context, hit.start - 1)
      if (code === 46 || code === 47) return undefined
    }
    return detector.verify(context, hit)
  }
})

// ---------------------------------------------------------------------------
// package registries
// ---------------------------------------------------------------------------

/**
 * PyPI and TestPyPI API (upload) tokens: macaroons whose base64 starts by
 * naming the index (`pypi-AgEIcHlwaS5vcmc…` is `pypi.org`).
 *
 * @since 0.3.0
 * @category rules
 */
export const pypiToken = token({
  id: "pypi-upload-token",
  prefixes: ["pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"],
  body: /pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,1000}/y,
  maxLength: 1027,
  accept: varied(25, 10)
})

/**
 * RubyGems API keys (`rubygems_` and 48 hex digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const rubygemsToken = token({
  id: "rubygem-api-token",
  prefixes: ["rubygems_"],
  body: /rubygems_[a-f0-9]{48}(?![A-Za-z0-9])/y,
  maxLength: 58,
  accept: varied(9)
})

/**
 * NuGet.org API keys: `oy2` and 43 lower-case letters and digits. The
 * prefix is short, so the body must mix letters and digits.
 *
 * @since 0.3.0
 * @category rules
 */
export const nugetKey = token({
  id: "nuget-api-key",
  prefixes: ["oy2"],
  body: /oy2[a-z0-9]{43}(?![A-Za-z0-9_])/y,
  maxLength: 47,
  accept: (key) =>
    varied(3, 12)(key) && (key.slice(3).match(/[0-9]/g)?.length ?? 0) >= 3 &&
    (key.slice(3).match(/[a-z]/g)?.length ?? 0) >= 10
})

/**
 * Clojars deploy tokens (`CLOJARS_` and 60 letters and digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const clojarsToken = token({
  id: "clojars-api-token",
  prefixes: ["CLOJARS_"],
  body: /CLOJARS_[A-Za-z0-9]{60}(?![A-Za-z0-9])/y,
  maxLength: 69,
  accept: varied(8)
})

/**
 * JFrog Artifactory API keys (`AKCp` and 69 letters and digits) and
 * reference tokens (base64 of `reftkn:01:…`, 64 characters).
 *
 * @since 0.3.0
 * @category rules
 */
export const jfrogToken = token({
  id: "jfrog-token",
  prefixes: ["AKCp", "cmVmd"],
  body: /(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})(?![A-Za-z0-9])/y,
  maxLength: 74,
  accept: varied(5, 10)
})

/**
 * JFrog (Artifactory, Bintray, Xray) API keys (73 letters and digits) and
 * identity tokens (64) assigned to a key naming the product.
 *
 * @since 0.3.0
 * @category rules
 */
export const jfrogKeyed = keyed({
  id: "jfrog-token",
  keywords: ["jfrog", "artifactory", "bintray", "xray"],
  value: /(?:[A-Za-z0-9]{73}|[A-Za-z0-9]{64})(?![A-Za-z0-9_-])/y,
  maxLength: 74,
  accept: (value) => variedValue(10)(value) && hasDigit(value) && hasLetter(value)
})

// ---------------------------------------------------------------------------
// code hosting, CI and developer platforms
// ---------------------------------------------------------------------------

/**
 * Atlassian (Jira, Confluence, Bitbucket) API tokens of the current format
 * (`ATATT3…`, ending in an 8-hex checksum) and Bitbucket access tokens
 * (`ATCTT3…`).
 *
 * @since 0.3.0
 * @category rules
 */
export const atlassianToken = token({
  id: "atlassian-api-token",
  prefixes: ["ATATT3", "ATCTT3"],
  body: /AT[AC]TT3[A-Za-z0-9_=-]{150,300}(?![A-Za-z0-9_=-])/y,
  maxLength: 307,
  accept: varied(6, 12)
})

/**
 * Legacy Atlassian API tokens (24 letters and digits) assigned to a key
 * naming Atlassian, Jira or Confluence.
 *
 * @since 0.3.0
 * @category rules
 */
export const atlassianKeyed = keyed({
  id: "atlassian-api-token",
  keywords: ["atlassian", "confluence", "jira"],
  value: /[A-Za-z0-9]{24}(?![A-Za-z0-9_-])/y,
  maxLength: 25,
  accept: (value) => variedValue(8)(value) && hasDigit(value) && hasLetter(value)
})

/**
 * Bitbucket app passwords (`ATBB` and 32 letters and digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const bitbucketToken = token({
  id: "bitbucket-token",
  prefixes: ["ATBB"],
  body: /ATBB[A-Za-z0-9]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 37,
  accept: (key) => varied(4, 10)(key) && hasDigit(key.slice(4))
})

/**
 * Bitbucket OAuth consumer keys (32 letters and digits) and secrets (64)
 * assigned to a key naming Bitbucket.
 *
 * @since 0.3.0
 * @category rules
 */
export const bitbucketKeyed = keyed({
  id: "bitbucket-client-credential",
  keywords: ["bitbucket"],
  value: /(?:[A-Za-z0-9_=-]{64}|[A-Za-z0-9]{32})(?![A-Za-z0-9_=-])/y,
  maxLength: 65,
  accept: (value) => variedValue(10)(value) && hasDigit(value) && hasLetter(value)
})

/**
 * GitLab tokens of prefixes the core rule does not list: feature-flag
 * client tokens (`glffct-`), and the `gltst-` and `glwt-` tokens; and the
 * `_gitlab_session` cookie, whose value only is removed.
 *
 * @since 0.3.0
 * @category rules
 */
export const gitlabExtraToken = token({
  id: "gitlab-token",
  prefixes: ["glffct-", "gltst-", "glwt-"],
  body: /gl(?:ffct|tst|wt)-[A-Za-z0-9_-]{20,300}/y,
  maxLength: 307,
  accept: varied(7)
})

/**
 * The `_gitlab_session` cookie (32 letters and digits); the name stays.
 *
 * @since 0.3.0
 * @category rules
 */
export const gitlabSession: Detector.Detector = {
  id: "gitlab-token",
  triggers: [Detector.prefix("_gitlab_session")],
  before: 2,
  after: 52,
  verify: (context, hit) => {
    if (!Detector.separatedBefore(context, hit.start)) return undefined
    const match = Detector.matchAt(gitlabSessionValue, context.text, hit.end)
    if (match === null || distinct(match[1]!) < 6) return undefined
    const end = hit.end + match[0].length
    return { start: end - match[1]!.length, end }
  }
}
const gitlabSessionValue = /[ \t]{0,2}=[ \t]{0,2}([A-Za-z0-9]{32})(?![A-Za-z0-9])/y

/**
 * Hugging Face organization API tokens (`api_org_` and 34 letters).
 *
 * @since 0.3.0
 * @category rules
 */
export const huggingfaceOrgToken = token({
  id: "huggingface-token",
  prefixes: ["api_org_"],
  body: /api_org_[A-Za-z]{34}(?![A-Za-z0-9_])/y,
  maxLength: 43,
  accept: varied(8, 10)
})

/**
 * CircleCI personal and project API tokens (`CCIPAT_`, `CCIPRJ_`).
 *
 * @since 0.3.0
 * @category rules
 */
export const circleciToken = token({
  id: "circleci-token",
  prefixes: ["CCIPAT_", "CCIPRJ_"],
  body: /CCIP(?:AT|RJ)_[A-Za-z0-9]{20,30}_[a-f0-9]{40}(?![A-Za-z0-9])/y,
  maxLength: 80,
  accept: varied(7)
})

/**
 * Legacy CircleCI API tokens (40 hex digits) assigned to a key naming
 * CircleCI.
 *
 * @since 0.3.0
 * @category rules
 */
export const circleciKeyed = keyed({
  id: "circleci-token",
  keywords: ["circleci"],
  value: /[a-f0-9]{40}(?![A-Za-z0-9_-])/y,
  maxLength: 41,
  accept: variedValue(8)
})

/**
 * Buildkite API access tokens (`bkua_` and 40 hex digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const buildkiteToken = token({
  id: "buildkite-token",
  prefixes: ["bkua_"],
  body: /bkua_[a-f0-9]{40}(?![A-Za-z0-9])/y,
  maxLength: 46,
  accept: varied(5)
})

/**
 * Sourcegraph access tokens: `sgp_` with 40 hex digits, optionally behind
 * an instance identifier (16 hex digits or `local`), and `sgs_` service
 * tokens.
 *
 * @since 0.3.0
 * @category rules
 */
export const sourcegraphToken = token({
  id: "sourcegraph-token",
  prefixes: ["sgp_", "sgs_"],
  body: /(?:sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}|sgs_[a-fA-F0-9]{40,64})(?![A-Za-z0-9_])/y,
  maxLength: 72,
  accept: (key) => varied(4, 8)(key) && entropyOf(key.slice(key.lastIndexOf("_") + 1)) >= 3
})

/**
 * Legacy Sourcegraph access tokens (40 hex digits) assigned to a key
 * naming Sourcegraph.
 *
 * @since 0.3.0
 * @category rules
 */
export const sourcegraphKeyed = keyed({
  id: "sourcegraph-token",
  keywords: ["sourcegraph"],
  value: /[a-fA-F0-9]{40}(?![A-Za-z0-9_-])/y,
  maxLength: 41,
  accept: (value) => entropyOf(value) >= 3
})

const entropyOf = (value: string): number => {
  const counts = new Map<string, number>()
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  let bits = 0
  for (const n of counts.values()) bits -= (n / value.length) * Math.log2(n / value.length)
  return bits
}

/**
 * Azure DevOps personal access tokens: 52 lower-case base32 characters
 * (legacy), or 84 characters with `AZDO` at 76 (current), assigned to a
 * key naming Azure DevOps (`AZURE_DEVOPS_EXT_PAT`, `AZDO_PAT`, `VSTS_PAT`).
 *
 * @since 0.3.0
 * @category rules
 */
export const azureDevopsKeyed = keyed({
  id: "azure-devops-pat",
  keywords: ["devops", "azdo", "vsts"],
  value: /(?:[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}|[a-z2-7]{52})(?![A-Za-z0-9_-])/y,
  maxLength: 85,
  accept: (value) => variedValue(12)(value) && (value.length > 52 || hasDigit(value))
})

/**
 * Azure DevOps personal access tokens of the current 84-character format
 * anywhere: the trigger is their `AZDO` signature at 76.
 *
 * @since 0.3.0
 * @category rules
 */
export const azureDevopsPat: Detector.Detector = {
  id: "azure-devops-pat",
  triggers: [Detector.prefix("AZDO")],
  before: 78,
  after: 10,
  verify: (context, hit) => {
    const start = hit.start - 76
    if (start < context.floor || !Detector.separatedBefore(context, start)) return undefined
    const match = Detector.matchAt(azdoPat, context.text, start)
    if (match === null || distinct(match[0]) < 16 || !hasDigit(match[0])) return undefined
    return { start, end: start + 84 }
  }
}
const azdoPat = /[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}(?![A-Za-z0-9_-])/y

/**
 * Travis CI API tokens (22 letters and digits) assigned to a key naming
 * Travis.
 *
 * @since 0.3.0
 * @category rules
 */
export const travisToken = keyed({
  id: "travisci-access-token",
  keywords: ["travis"],
  value: /[A-Za-z0-9]{22}(?![A-Za-z0-9_-])/y,
  maxLength: 23,
  accept: (value) => variedValue(8)(value) && hasDigit(value) && hasLetter(value)
})

/**
 * Drone CI tokens (32 letters and digits) assigned to a key naming Drone.
 *
 * @since 0.3.0
 * @category rules
 */
export const droneToken = keyed({
  id: "droneci-access-token",
  keywords: ["droneci", "drone"],
  value: /[A-Za-z0-9]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 33,
  accept: (value) => variedValue(8)(value) && hasDigit(value) && hasLetter(value)
})

/**
 * Codecov upload tokens (a UUID, or 32 letters and digits) assigned to a
 * key naming Codecov.
 *
 * @since 0.3.0
 * @category rules
 */
export const codecovToken = keyed({
  id: "codecov-access-token",
  keywords: ["codecov"],
  value:
    /(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[A-Za-z0-9]{32})(?![A-Za-z0-9_-])/y,
  maxLength: 37,
  accept: (value) => variedValue(8)(value) && hasDigit(value)
})

/**
 * Snyk API and OAuth tokens (a UUID) assigned to a key naming Snyk.
 *
 * @since 0.3.0
 * @category rules
 */
export const snykToken = keyed({
  id: "snyk-api-token",
  keywords: ["snyk"],
  value: /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![A-Za-z0-9_-])/y,
  maxLength: 37,
  accept: variedValue(6)
})

/**
 * SonarQube and SonarCloud tokens: user (`squ_`), project analysis
 * (`sqp_`) and global analysis (`sqa_`) tokens.
 *
 * @since 0.3.0
 * @category rules
 */
export const sonarToken = token({
  id: "sonar-token",
  prefixes: ["squ_", "sqp_", "sqa_"],
  body: /sq[upa]_[A-Za-z0-9]{40}(?![A-Za-z0-9_])/y,
  maxLength: 45,
  accept: (key) => varied(4, 8)(key) && hasDigit(key.slice(4))
})

/**
 * Sonar tokens with or without their prefix (40 characters) assigned to a
 * key naming Sonar (`SONAR_TOKEN`, `sonar.login`).
 *
 * @since 0.3.0
 * @category rules
 */
export const sonarKeyed = keyed({
  id: "sonar-token",
  keywords: ["sonar"],
  value: /(?:sq[upa]_)?[A-Za-z0-9]{40}(?![A-Za-z0-9_=-])/y,
  maxLength: 45,
  accept: (value) => variedValue(8)(value) && hasDigit(value) && hasLetter(value)
})

/**
 * Sonar tokens assigned to the scanner's own login property or variable
 * (`sonar.login`, `SONAR_LOGIN`), which names no credential word.
 *
 * @since 0.3.0
 * @category rules
 */
export const sonarLogin = named({
  id: "sonar-token",
  names: ["sonar.login", "SONAR_LOGIN", "SONAR.LOGIN"],
  value: /(?:sq[upa]_)?[A-Za-z0-9]{40}(?![A-Za-z0-9_=-])/y,
  maxLength: 45,
  accept: (value) => variedValue(8)(value) && hasDigit(value) && hasLetter(value)
})

/**
 * Azure DevOps personal access tokens assigned to the variables the Azure
 * CLI and common pipelines read (`AZURE_DEVOPS_EXT_PAT`, `AZDO_PAT`).
 *
 * @since 0.3.0
 * @category rules
 */
export const azureDevopsVariable = named({
  id: "azure-devops-pat",
  names: ["AZURE_DEVOPS_EXT_PAT", "AZURE_DEVOPS_PAT", "AZDO_PAT", "AZDO_PERSONAL_ACCESS_TOKEN"],
  value: /(?:[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}|[a-z2-7]{52})(?![A-Za-z0-9_-])/y,
  maxLength: 85,
  accept: (value) => variedValue(12)(value) && (value.length > 52 || hasDigit(value))
})

/**
 * Legacy Sourcegraph tokens (40 hex digits) under a bare `sourcegraph`
 * key, as in `src` CLI configuration.
 *
 * @since 0.3.0
 * @category rules
 */
export const sourcegraphBare = named({
  id: "sourcegraph-token",
  names: ["sourcegraph"],
  value: /[a-fA-F0-9]{40}(?![A-Za-z0-9_-])/y,
  maxLength: 41,
  accept: (value) => entropyOf(value) >= 3
})

/**
 * Postman API keys (`PMAK-`, 24 and 34 hex digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const postmanKey = token({
  id: "postman-api-token",
  prefixes: ["PMAK-"],
  body: /PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}(?![A-Za-z0-9])/y,
  maxLength: 65,
  accept: varied(5)
})

/**
 * OpenShift OAuth user tokens (`sha256~` and 43 base64url characters).
 *
 * @since 0.3.0
 * @category rules
 */
export const openshiftToken = token({
  id: "openshift-user-token",
  prefixes: ["sha256~"],
  body: /sha256~[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/y,
  maxLength: 51,
  accept: varied(7, 10)
})

/**
 * Docker Hub personal (`dckr_pat_`) and organization (`dckr_oat_`) access
 * tokens.
 *
 * @since 0.3.0
 * @category rules
 */
export const dockerHubToken = token({
  id: "docker-hub-token",
  prefixes: ["dckr_pat_", "dckr_oat_"],
  body: /dckr_[po]at_[A-Za-z0-9_-]{24,64}(?![A-Za-z0-9_-])/y,
  maxLength: 74,
  accept: varied(9)
})

/**
 * Linear personal API keys (`lin_api_` and 40 letters and digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const linearKey = token({
  id: "linear-api-key",
  prefixes: ["lin_api_"],
  body: /lin_api_[A-Za-z0-9]{40}(?![A-Za-z0-9])/y,
  maxLength: 49,
  accept: varied(8)
})

/**
 * Linear OAuth client secrets (32 hex digits) assigned to a key naming
 * Linear.
 *
 * @since 0.3.0
 * @category rules
 */
export const linearSecret = keyed({
  id: "linear-client-secret",
  keywords: ["linear"],
  value: /[a-f0-9]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 33,
  accept: variedValue(8)
})

/**
 * Notion integration tokens (`ntn_`, 11 digits and 35 letters and
 * digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const notionToken = token({
  id: "notion-token",
  prefixes: ["ntn_"],
  body: /ntn_[0-9]{11}[A-Za-z0-9]{35}(?![A-Za-z0-9])/y,
  maxLength: 51,
  accept: (key) => varied(15, 10)(key) && hasLetter(key.slice(15))
})

/**
 * Legacy Notion integration tokens (`secret_` and 43 letters and digits),
 * which share their prefix with ordinary identifiers: only when assigned
 * to a key naming Notion.
 *
 * @since 0.3.0
 * @category rules
 */
export const notionLegacyToken = keyed({
  id: "notion-token",
  keywords: ["notion"],
  value: /secret_[A-Za-z0-9]{43}(?![A-Za-z0-9_-])/y,
  maxLength: 51,
  accept: (value) => variedValue(12)(value.slice(7)) && hasDigit(value)
})

/**
 * Netlify personal access tokens: `nfp_` tokens, and legacy ones (40 to 46
 * base64url characters) assigned to a key naming Netlify.
 *
 * @since 0.3.0
 * @category rules
 */
export const netlifyToken = token({
  id: "netlify-access-token",
  prefixes: ["nfp_"],
  body: /nfp_[A-Za-z0-9]{36,40}(?![A-Za-z0-9_])/y,
  maxLength: 45,
  accept: (key) => varied(4, 10)(key) && hasDigit(key.slice(4))
})

/**
 * Legacy Netlify access tokens assigned to a key naming Netlify.
 *
 * @since 0.3.0
 * @category rules
 */
export const netlifyKeyed = keyed({
  id: "netlify-access-token",
  keywords: ["netlify"],
  value: /(?:nfp_)?[A-Za-z0-9_=-]{40,46}(?![A-Za-z0-9_=-])/y,
  maxLength: 51,
  accept: (value) => variedValue(10)(value) && hasDigit(value) && hasLetter(value)
})

/**
 * Mattermost personal access tokens (26 letters and digits) assigned to a
 * key naming Mattermost.
 *
 * @since 0.3.0
 * @category rules
 */
export const mattermostToken = keyed({
  id: "mattermost-access-token",
  keywords: ["mattermost"],
  value: /[A-Za-z0-9]{26}(?![A-Za-z0-9_-])/y,
  maxLength: 27,
  accept: (value) => variedValue(8)(value) && hasDigit(value) && hasLetter(value)
})

/**
 * Gitter access tokens (40 characters) assigned to a key naming Gitter.
 *
 * @since 0.3.0
 * @category rules
 */
export const gitterToken = keyed({
  id: "gitter-access-token",
  keywords: ["gitter"],
  value: /[A-Za-z0-9_-]{40}(?![A-Za-z0-9_-])/y,
  maxLength: 41,
  accept: (value) => variedValue(8)(value) && hasDigit(value) && hasLetter(value)
})

/**
 * Looker API3 client ids (20 letters and digits) and secrets (24) assigned
 * to a key naming Looker.
 *
 * @since 0.3.0
 * @category rules
 */
export const lookerCredential = keyed({
  id: "looker-client-secret",
  keywords: ["looker", "lookersdk"],
  value: /(?:[A-Za-z0-9]{24}|[A-Za-z0-9]{20})(?![A-Za-z0-9_-])/y,
  maxLength: 25,
  accept: (value) => variedValue(8)(value) && hasDigit(value) && hasLetter(value)
})

/**
 * Private AI API keys (32 letters and digits) assigned to a key naming
 * Private AI.
 *
 * @since 0.3.0
 * @category rules
 */
export const privateAiKey = keyed({
  id: "privateai-api-token",
  keywords: ["privateai"],
  value: /[A-Za-z0-9]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 33,
  accept: (value) => variedValue(8)(value) && hasDigit(value) && hasLetter(value)
})

/**
 * Frame.io developer tokens (`fio-u-` and 64 characters).
 *
 * @since 0.3.0
 * @category rules
 */
export const frameioToken = token({
  id: "frameio-api-token",
  prefixes: ["fio-u-"],
  body: /fio-u-[A-Za-z0-9_=-]{64}(?![A-Za-z0-9_=-])/y,
  maxLength: 71,
  accept: varied(6)
})

/**
 * 42 intranet (Intra42) OAuth application secrets (`s-s4t2ud-`,
 * `s-s4t2af-` and 64 hex digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const intra42Secret = token({
  id: "intra42-client-secret",
  prefixes: ["s-s4t2ud-", "s-s4t2af-"],
  body: /s-s4t2(?:ud|af)-[a-fA-F0-9]{64}(?![A-Za-z0-9])/y,
  maxLength: 74,
  accept: varied(9)
})

/**
 * ReadMe API keys (`rdme_` and 70 letters and digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const readmeKey = token({
  id: "readme-api-token",
  prefixes: ["rdme_"],
  body: /rdme_[A-Za-z0-9]{70}(?![A-Za-z0-9])/y,
  maxLength: 76,
  accept: varied(5)
})

/**
 * Octopus Deploy API keys (`API-` and 26 upper-case letters and digits);
 * the prefix is a common word, so the body must hold a digit and vary.
 *
 * @since 0.3.0
 * @category rules
 */
export const octopusKey = token({
  id: "octopus-deploy-api-key",
  prefixes: ["API-"],
  body: /API-[A-Z0-9]{26}(?![A-Za-z0-9_-])/y,
  maxLength: 31,
  accept: (key) => varied(4, 10)(key) && hasDigit(key.slice(4)) && /[A-Z]/.test(key.slice(4))
})

/**
 * Prefect API keys (`pnu_` and 36 letters and digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const prefectKey = token({
  id: "prefect-api-token",
  prefixes: ["pnu_"],
  body: /pnu_[A-Za-z0-9]{36}(?![A-Za-z0-9])/y,
  maxLength: 41,
  accept: varied(4)
})

/**
 * Scalingo API tokens (`tk-us-` and 48 characters).
 *
 * @since 0.3.0
 * @category rules
 */
export const scalingoToken = token({
  id: "scalingo-api-token",
  prefixes: ["tk-us-"],
  body: /tk-us-[A-Za-z0-9_-]{48}(?![A-Za-z0-9_-])/y,
  maxLength: 55,
  accept: varied(6)
})

/**
 * Infracost API keys (`ico-` and 32 letters and digits). `ico-` also ends
 * file names (`favicon.ico-3f2a….png`), so the body must mix cases and
 * digits and the prefix must not follow `.` or `/`.
 *
 * @since 0.3.0
 * @category rules
 */
export const infracostKey = standalone(token({
  id: "infracost-api-token",
  prefixes: ["ico-"],
  body: /ico-[A-Za-z0-9]{32}(?![A-Za-z0-9_-])/y,
  maxLength: 37,
  accept: (key) => varied(4, 10)(key) && /[A-Z]/.test(key) && /[a-z]/.test(key.slice(4)) && hasDigit(key)
}))

/**
 * Harness personal (`pat.`) and service account (`sat.`) tokens: the
 * prefix, the 22-character account id and two random parts.
 *
 * @since 0.3.0
 * @category rules
 */
export const harnessToken = token({
  id: "harness-api-key",
  prefixes: ["pat.", "sat."],
  body: /[ps]at\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}(?![A-Za-z0-9])/y,
  maxLength: 73,
  accept: varied(4, 10)
})

/**
 * Defined Networking API keys (`dnkey-`, 26 and 52 characters).
 *
 * @since 0.3.0
 * @category rules
 */
export const definedNetworkingKey = token({
  id: "defined-networking-api-token",
  prefixes: ["dnkey-"],
  body: /dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}(?![A-Za-z0-9=_-])/y,
  maxLength: 86,
  accept: varied(6)
})

/**
 * SettleMint personal, application and service access tokens (`sm_pat_`,
 * `sm_aat_`, `sm_sat_`).
 *
 * @since 0.3.0
 * @category rules
 */
export const settlemintToken = token({
  id: "settlemint-token",
  prefixes: ["sm_pat_", "sm_aat_", "sm_sat_"],
  body: /sm_[pas]at_[A-Za-z0-9]{16}(?![A-Za-z0-9])/y,
  maxLength: 24,
  accept: (key) => varied(7, 8)(key) && hasDigit(key.slice(7))
})

/**
 * Authress service client access keys: client id, key id, account
 * (`acc_…`) and signature, dot-separated.
 *
 * @since 0.3.0
 * @category rules
 */
export const authressKey = token({
  id: "authress-service-client-access-key",
  prefixes: ["sc_", "ext_", "scauth_", "authress_"],
  body:
    /(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}(?![A-Za-z0-9+/_=-])/y,
  maxLength: 210,
  accept: (key) => distinct(key.slice(key.lastIndexOf(".") + 1)) >= 10
})

/**
 * ClickHouse Cloud API secret keys (`4b1d` and 38 mixed-case letters and
 * digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const clickhouseKey = token({
  id: "clickhouse-cloud-api-secret-key",
  prefixes: ["4b1d"],
  body: /4b1d[A-Za-z0-9]{38}(?![A-Za-z0-9])/y,
  maxLength: 43,
  // Mixed case: a hex digest that happens to start with `4b1d` is not one.
  accept: (key) => varied(4, 10)(key) && /[A-Z]/.test(key) && /[a-z]/.test(key.slice(4))
})

/**
 * Sidekiq Pro and Enterprise gem-server credentials (`user:password`, 8
 * hex digits each) assigned to `BUNDLE_ENTERPRISE__CONTRIBSYS__COM` or
 * `BUNDLE_GEMS__CONTRIBSYS__COM`.
 *
 * @since 0.3.0
 * @category rules
 */
export const sidekiqSecret = named({
  id: "sidekiq-secret",
  names: ["BUNDLE_ENTERPRISE__CONTRIBSYS__COM", "BUNDLE_GEMS__CONTRIBSYS__COM"],
  value: /[a-fA-F0-9]{8}:[a-fA-F0-9]{8}(?![A-Za-z0-9_-])/y,
  maxLength: 18
})

/**
 * Sidekiq gem-server credentials assigned to any other key naming the gem
 * server and a credential (`BUNDLE_GEMS__CONTRIBSYS__COM_TOKEN`).
 *
 * @since 0.3.0
 * @category rules
 */
export const sidekiqKeyed = keyed({
  id: "sidekiq-secret",
  keywords: ["contribsys"],
  value: /[a-fA-F0-9]{8}:[a-fA-F0-9]{8}(?![A-Za-z0-9_-])/y,
  maxLength: 18
})

/**
 * Sidekiq gem-server credentials in a URL
 * (`https://user:password@gems.contribsys.com/`): both parts go.
 *
 * @since 0.3.0
 * @category rules
 */
export const sidekiqUrl: Detector.Detector = {
  id: "sidekiq-secret",
  triggers: [Detector.literal("://")],
  before: 0,
  after: 50,
  verify: (context, hit) => {
    // The colon between the two halves first: most `://` start a URL with no credentials, and skip the expression.
    if (context.text.charCodeAt(hit.start + 11) !== 58) return undefined
    const match = Detector.matchAt(sidekiqAuthority, context.text, hit.start)
    if (match === null) return undefined
    const start = hit.start + 3
    return { start, end: start + 17 }
  }
}
const sidekiqAuthority = /:\/\/[a-fA-F0-9]{8}:[a-fA-F0-9]{8}@(?:gems|enterprise)\.contribsys\.com(?![A-Za-z0-9.-])/iy

// ---------------------------------------------------------------------------
// infrastructure and secret managers
// ---------------------------------------------------------------------------

/**
 * Terraform Cloud / HashiCorp Cloud Platform API tokens
 * (`<14>.atlasv1.<60 to 70>`). The trigger is the rare `.atlasv1.`; the
 * token starts 14 characters before it.
 *
 * @since 0.3.0
 * @category rules
 */
export const terraformToken: Detector.Detector = {
  id: "terraform-cloud-token",
  triggers: [Detector.prefix(".atlasv1.")],
  before: 16,
  after: 80,
  verify: (context, hit) => {
    const start = hit.start - 14
    if (start < context.floor || !Detector.separatedBefore(context, start)) return undefined
    const match = Detector.matchAt(atlasToken, context.text, start)
    if (match === null || distinct(match[0].slice(23)) < 10 || distinct(match[0].slice(0, 14)) < 5) return undefined
    return { start, end: start + match[0].length }
  }
}
const atlasToken = /[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}(?![A-Za-z0-9_=-])/y

/**
 * Grafana credentials: Cloud access policy tokens (`glc_`), service
 * account tokens (`glsa_…_<8 hex>`) and legacy API keys (base64 JSON
 * starting `{"k":"`, `eyJrIjoi…`).
 *
 * @since 0.3.0
 * @category rules
 */
export const grafanaToken = token({
  id: "grafana-token",
  prefixes: ["glc_", "glsa_", "eyJrIjoi"],
  body:
    /(?:glc_[A-Za-z0-9+/]{32,400}={0,3}(?![A-Za-z0-9+/=])|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}(?![A-Za-z0-9])|eyJrIjoi[A-Za-z0-9]{70,400}={0,3}(?![A-Za-z0-9+/=]))/y,
  maxLength: 410,
  accept: (key) => distinct(key.slice(key.indexOf("_") + 1, key.startsWith("glsa_") ? 37 : undefined)) >= 10
})

/**
 * 1Password service account tokens (`ops_eyJ…`, a base64 JSON of 250 or
 * more characters).
 *
 * @since 0.3.0
 * @category rules
 */
export const onePasswordServiceToken = token({
  id: "1password-service-account-token",
  prefixes: ["ops_eyJ"],
  body: /ops_eyJ[A-Za-z0-9+/_-]{250,8000}={0,3}/y,
  maxLength: 8010,
  accept: varied(7, 16)
})

/**
 * 1Password account secret keys (`A3-` and six groups of upper-case
 * letters and digits, as printed in an Emergency Kit).
 *
 * @since 0.3.0
 * @category rules
 */
export const onePasswordSecretKey = token({
  id: "1password-secret-key",
  prefixes: ["A3-"],
  body: /A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}(?![A-Za-z0-9])/y,
  maxLength: 41,
  accept: (key) => varied(3, 10)(key) && hasDigit(key.slice(3))
})

/**
 * Pulumi access tokens (`pul-` and 40 hex digits).
 *
 * @since 0.3.0
 * @category rules
 */
export const pulumiToken = token({
  id: "pulumi-api-token",
  prefixes: ["pul-"],
  body: /pul-[a-f0-9]{40}(?![A-Za-z0-9])/y,
  maxLength: 45,
  accept: varied(4)
})

/**
 * Doppler tokens: personal (`dp.pt.`), service (`dp.st.`, optionally
 * naming its config), service account (`dp.sa.`), CLI (`dp.ct.`), SCIM
 * (`dp.scim.`) and audit (`dp.audit.`).
 *
 * @since 0.3.0
 * @category rules
 */
export const dopplerToken = token({
  id: "doppler-token",
  prefixes: ["dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."],
  body: /dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}(?![A-Za-z0-9])/y,
  maxLength: 97,
  accept: (key) => distinct(key.slice(key.lastIndexOf(".") + 1)) >= 10
})

/**
 * Fly.io tokens: legacy access tokens (`fo1_`) and macaroons (`fm1a_`,
 * `fm1r_`, `fm2_`, usually after `FlyV1 `).
 *
 * @since 0.3.0
 * @category rules
 */
export const flyioToken = token({
  id: "flyio-access-token",
  prefixes: ["fo1_", "fm1a_", "fm1r_", "fm2_"],
  body: /(?:fo1_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])|(?:fm1[ar]|fm2)_[A-Za-z0-9+/]{100,8000}={0,3})/y,
  maxLength: 8010,
  accept: (key) => distinct(key.slice(key.indexOf("_") + 1)) >= 10
})

/**
 * age secret keys (`AGE-SECRET-KEY-1` and 58 upper-case bech32
 * characters).
 *
 * @since 0.3.0
 * @category rules
 */
export const ageSecretKey = token({
  id: "age-secret-key",
  prefixes: ["AGE-SECRET-KEY-1"],
  body: /AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}(?![A-Za-z0-9])/y,
  maxLength: 75,
  // `X` runs are placeholders; any other run is a key of zero bytes, as age's own test vectors use.
  accept: (key) => !/^X+$/.test(key.slice(16))
})

// ---------------------------------------------------------------------------
// Kubernetes Secret manifests
// ---------------------------------------------------------------------------

/** How far back an entry's `data:` line is looked for. */
const parentReach = 6_000
/** How far from the `data:` line the manifest's `kind:` is looked for. */
const kindReach = 6_000
/** The longest value removed. */
const maxValueLength = 8_000

// One `key: value` line of a YAML mapping, or of pretty-printed JSON
// (`"key": "value",`): the indent, the key, and the value, quoted or not,
// or the first line of a block scalar (`key: |`); last, the first 8,000
// characters of a quoted value longer than that.
const manifestEntry =
  /\n([ \t]{1,16})("?)([A-Za-z0-9_.-]{1,253})\2[ \t]{0,4}:[ \t]{1,4}(?:([|>][+-]?[0-9]?[ \t]{0,4}\r?\n[ \t]{1,32})?(?:"([^"\n]{0,8000})"|'([^'\n]{0,8000})'|([^\s"'#][^\n]{0,8000})|"([^"\n]{8000})))/g
const manifestEntryLength = 8_400

const isSpace = (code: number): boolean => code === 32 || code === 9

/** Where the line that holds `at` starts, or -1 past `limit`. */
const lineStartOf = (text: string, at: number, limit: number): number => {
  let i = at
  while (i > limit && text.charCodeAt(i - 1) !== 10) i--
  return i > limit || i === 0 || text.charCodeAt(i - 1) === 10 ? i : -1
}

/** A line's indent; a list item's `- ` counts as indent, as its keys start there. */
const indentOf = (text: string, start: number, end: number): number => {
  let i = start
  while (i < end && (isSpace(text.charCodeAt(i)) || (text.charCodeAt(i) === 45 && isSpace(text.charCodeAt(i + 1))))) {
    i++
  }
  return i - start
}

/** Whether the line `[start, end)` is blank or a comment. */
const isBlank = (text: string, start: number, end: number): boolean => {
  let i = start
  while (i < end && (isSpace(text.charCodeAt(i)) || text.charCodeAt(i) === 13)) i++
  return i === end || text.charCodeAt(i) === 35
}

/** Whether the line `[start, end)` is a document separator (`---`). */
const isSeparator = (text: string, start: number, end: number): boolean =>
  end - start >= 3 && text.startsWith("---", start) && (end - start === 3 || !/\S/.test(text.slice(start + 3, end)))

const dataKey = /"?(data|stringData)"?[ \t]{0,4}:[ \t]{0,4}\{?[ \t]{0,4}\r?(?:#[^\n]{0,200})?(?![^\n])/y
const kindSecret = /"?kind"?[ \t]{0,4}:[ \t]{0,4}(["']?)secret\1[ \t]{0,4},?[ \t]{0,4}\r?(?:#[^\n]{0,200})?(?![^\n])/iy

/**
 * Whether the mapping that holds the line at `parent` (indent `indent`)
 * declares `kind: Secret`, and where the block under that line ends.
 */
const mappingIsSecret = (
  text: string,
  parent: number,
  indent: number,
  low: number,
  high: number
): { readonly secret: boolean; readonly blockEnd: number } => {
  const isKind = (start: number, end: number): boolean =>
    indentOf(text, start, end) === indent && Detector.matchAt(kindSecret, text, start + indent) !== null
  // Back: to the document's start, or out of the mapping.
  let end = parent - 1
  while (end > low) {
    const start = lineStartOf(text, end, low)
    if (start < 0 || isSeparator(text, start, end)) break
    if (!isBlank(text, start, end)) {
      const lineIndent = indentOf(text, start, end)
      if (lineIndent < indent) break
      if (lineIndent === indent && isKind(start, end)) return { secret: true, blockEnd: -1 }
      // A list item's first line starts the mapping.
      if (lineIndent === indent && /^[ \t]*- /.test(text.slice(start, start + indent))) break
    }
    end = start - 1
  }
  // Forward: to the document's end, or out of the mapping.
  let start = parent
  while (start < high && text.charCodeAt(start) !== 10) start++
  let blockEnd = -1
  while (start < high) {
    start++
    let lineEnd = start
    while (lineEnd < high && text.charCodeAt(lineEnd) !== 10) lineEnd++
    if (isSeparator(text, start, lineEnd)) return { secret: false, blockEnd: blockEnd < 0 ? start : blockEnd }
    if (!isBlank(text, start, lineEnd)) {
      const lineIndent = indentOf(text, start, lineEnd)
      if (lineIndent <= indent && blockEnd < 0) blockEnd = start
      if (lineIndent < indent) return { secret: false, blockEnd }
      if (lineIndent === indent && /^[ \t]*- /.test(text.slice(start, start + indent))) {
        return { secret: false, blockEnd }
      }
      if (isKind(start, lineEnd)) return { secret: true, blockEnd }
    }
    if (lineEnd >= high) break
    start = lineEnd
  }
  return { secret: false, blockEnd: -1 }
}

const base64Value = /^[A-Za-z0-9+/]{10,}={0,3}$/

/**
 * The values of a Kubernetes `Secret` manifest, YAML or pretty-printed
 * JSON (`kubectl get secret -o yaml|json`, Helm output, a manifest file):
 * each entry under `data:` (base64) and `stringData:` (plain text) of a
 * mapping with `kind: Secret`, whether `kind` comes before or after it.
 * The keys stay; block scalars (`key: |`) are removed to their last line.
 * Other kinds (`ConfigMap`, `ExternalSecret`, `SopsSecret`) and template
 * slots (`{{ .Values.password }}`) are left alone.
 *
 * @since 0.3.0
 * @category rules
 */
// Manifest keys are case-sensitive: `kind` is always lower case, and a
// literal start is searched fast. One gate for the plain and the escaped
// manifest, so the engine tests a text once.
const manifestGate = "kind(?:\\\\?\")?[ \\t]*:[ \\t]*(?:\\\\?[\"'])?[sS][eE][cC][rR][eE][tT]"

export const kubernetesSecret: Detector.Detector = {
  id: "kubernetes-secret",
  triggers: [
    Detector.pattern(
      manifestEntry,
      manifestEntryLength,
      manifestGate
    )
  ],
  before: parentReach + kindReach + 2,
  after: manifestEntryLength + kindReach + maxValueLength + 2,
  verify: (context, hit) => {
    // A hit that starts and ends at once is where a value went on past the window before.
    if (hit.start === hit.end) return verifyRest(context.text, hit.start, false)
    return hit.match === undefined || hit.match.index !== hit.start ? undefined : verifyEntry(context, hit.match, false)
  }
}

/** The span of the entry `match` at `at` (a line start) when it is a value of a Secret's `data` or `stringData`. */
const verifyEntry = (
  context: Detector.Context,
  match: RegExpExecArray,
  escaped: boolean
): Detector.Span | undefined => {
  const text = context.text
  // The line starts after the line break the match starts with.
  const at = match.index + 1
  const indent = match[1]!.length
  // The entry's parent: the nearest line above with a smaller indent.
  const low = Math.max(0, at - parentReach)
  let end = at - 1
  let parent = -1
  while (end > low) {
    const start = lineStartOf(text, end, low)
    if (start < 0 || isSeparator(text, start, end)) return undefined
    if (!isBlank(text, start, end)) {
      if (indentOf(text, start, end) < indent) {
        parent = start
        break
      }
    }
    end = start - 1
  }
  if (parent < 0) return undefined
  const parentIndent = indentOf(text, parent, end)
  const key = Detector.matchAt(dataKey, text, parent + parentIndent)
  if (key === null) return undefined
  const verdict = mappingIsSecret(
    text,
    parent,
    parentIndent,
    Math.max(0, parent - kindReach),
    Math.min(text.length, parent + kindReach)
  )
  if (!verdict.secret) {
    if (verdict.blockEnd > at) context.skip(verdict.blockEnd)
    return undefined
  }
  // The value, and a block scalar's further lines.
  const raw = match[5] ?? match[6] ?? match[7] ?? match[8] ?? ""
  const matchEnd = match.index + match[0].length
  const valueEnd = matchEnd - (match[5] === undefined && match[6] === undefined ? 0 : 1)
  let value = raw
  if (match[7] !== undefined) {
    // In a serialized string, a bare quote ends the string and so the value.
    if (escaped && value.includes("\"")) value = value.slice(0, value.indexOf("\""))
    const comment = value.search(/[ \t]#/)
    if (comment >= 0) value = value.slice(0, comment)
    value = value.replace(/[ \t\r,]+$/, "")
  }
  const start = valueEnd - raw.length
  let stop = start + value.length
  if (value.length === 0 || isPlaceholder(value)) return undefined
  // A value longer than the window goes on past it, to be read on from there.
  let goesOn = match[8] !== undefined ||
    (match[7] !== undefined && raw.length > maxValueLength && value.length === raw.length && !endsLine(text, matchEnd))
  let whole = value
  if (match[4] !== undefined) {
    const limit = Math.min(text.length, start + maxValueLength)
    let line = text.charCodeAt(matchEnd) === 10 ? matchEnd + 1 : -1
    while (line > 0 && line < limit) {
      let lineEnd = line
      while (lineEnd < limit && text.charCodeAt(lineEnd) !== 10) lineEnd++
      if (lineEnd >= limit && limit < text.length) {
        goesOn = true
        break
      }
      if (isBlank(text, line, lineEnd) || indentOf(text, line, lineEnd) <= indent) break
      let content = text.slice(line + indentOf(text, line, lineEnd), lineEnd).replace(/[ \t\r]+$/, "")
      const cut = escaped && content.includes("\"")
      if (cut) content = content.slice(0, content.indexOf("\""))
      whole += content
      stop = line + indentOf(text, line, lineEnd) + content.length
      if (cut) break
      line = lineEnd + 1
    }
    // The window ended with a line: the block may go on in the next.
    if (line >= limit && limit < text.length) goesOn = true
  }
  if (key[1] === "data" ? !base64Value.test(whole) : whole.length < 4) return undefined
  return { start, end: stop, continues: goesOn ? readsOn(escaped) : undefined }
}

/** The detector that reads a value on past its window: the one that found it. */
const readsOn = (escaped: boolean): Detector.Detector => escaped ? kubernetesSecretEscaped : kubernetesSecret

const endsLine = (text: string, at: number): boolean =>
  at >= text.length || text.charCodeAt(at) === 10 || text.charCodeAt(at) === 13

/**
 * The rest of a value that went on past the window it was found in, from
 * `at` where the window before stopped: the rest of its line (to a quote,
 * which ends a quoted or serialized value), or, at a line's end, the
 * further lines of a block scalar, as deep as the line it stopped in. A
 * window again at most; a longer rest goes on once more.
 */
const verifyRest = (text: string, at: number, escaped: boolean): Detector.Span | undefined => {
  const limit = Math.min(text.length, at + maxValueLength)
  if (at >= limit) return undefined
  let blank = at
  while (blank < limit && (isSpace(text.charCodeAt(blank)) || text.charCodeAt(blank) === 13)) blank++
  if (!endsLine(text, blank)) {
    const ends = (i: number) => endsLine(text, i) || text.charCodeAt(i) === 34 || text.charCodeAt(i) === 39
    let end = at
    while (end < limit && !ends(end)) end++
    const goesOn = end === limit && !ends(end)
    // As the value's first part: without a comment, or the blanks and comma before the line's end.
    const comment = text.slice(at, end).search(/[ \t]#/)
    if (comment >= 0) end = at + comment
    else if (!goesOn) { while (end > at && /[ \t\r,]/.test(text[end - 1]!)) end-- }
    if (end === at) return undefined
    return { start: at, end, continues: goesOn && comment < 0 ? readsOn(escaped) : undefined }
  }
  const lineStart = text.lastIndexOf("\n", at - 1) + 1
  const depth = indentOf(text, lineStart, at)
  let line = text.indexOf("\n", at) + 1
  let stop = at
  let goesOn = false
  while (line > 0 && line < limit) {
    let lineEnd = line
    while (lineEnd < limit && text.charCodeAt(lineEnd) !== 10) lineEnd++
    if (lineEnd >= limit && limit < text.length) {
      goesOn = true
      break
    }
    const indent = indentOf(text, line, lineEnd)
    if (isBlank(text, line, lineEnd) || indent < depth || depth === 0) break
    let content = text.slice(line + indent, lineEnd).replace(/[ \t\r]+$/, "")
    const quote = escaped ? content.indexOf("\"") : -1
    if (quote >= 0) content = content.slice(0, quote)
    stop = line + indent + content.length
    if (quote >= 0) break
    line = lineEnd + 1
  }
  if (line >= limit && limit < text.length) goesOn = true
  return stop > at ? { start: at, end: stop, continues: goesOn ? readsOn(escaped) : undefined } : undefined
}

const manifestEntrySticky = new RegExp(manifestEntry.source, "y")

// A YAML or JSON entry inside a serialized string (`"apiVersion: v1\\nkind:
// Secret\\ndata:\\n  password: …"`): an escaped line break, the indent
// (spaces or `\\t`), the key, possibly escaped-quoted, and the colon.
const escapedEntry = /\\n((?: |\\t){1,16})(?:\\")?[A-Za-z0-9_.-]{1,253}(?:\\")?[ ]{0,4}:[ ]{1,4}/g

/** The last text rewritten by {@link unescapeInPlace}, and its rewrite: every entry of a text reads the same one. */
let unescapedSource = ""
let unescapedCopy = ""
const unescapedOf = (text: string): string => {
  if (text !== unescapedSource) {
    unescapedCopy = unescapeInPlace(text)
    unescapedSource = text
  }
  return unescapedCopy
}

/**
 * Rewrites a serialized string's escapes in place, keeping every offset:
 * `\\n` becomes a space and a line break, `\\t` two spaces, and an escaped
 * quote a quote beside a space, on the side away from the value it
 * delimits.
 */
const unescapeInPlace = (text: string): string =>
  text.replace(/\\(["\\nrt/])/g, (_, c: string, offset: number) => {
    switch (c) {
      case "n":
        return " \n"
      case "\"": {
        const next = text.charCodeAt(offset + 2)
        const opens = Detector.isWordChar(next) || next === 43 || next === 47 || next === 46 || next === 45
        return opens ? " \"" : "\" "
      }
      case "\\":
        return " \\"
      case "/":
        return " /"
      default:
        return "  "
    }
  })

/**
 * The values of a Kubernetes `Secret` manifest serialized inside a string
 * (tool output as JSON, a manifest in a log line): the same entries as
 * {@link kubernetesSecret}, lines broken by `\\n` escapes.
 *
 * @since 0.3.0
 * @category rules
 */
export const kubernetesSecretEscaped: Detector.Detector = {
  id: "kubernetes-secret",
  triggers: [
    Detector.pattern(
      escapedEntry,
      300,
      manifestGate
    )
  ],
  before: parentReach + kindReach + 2,
  after: manifestEntryLength + kindReach + maxValueLength + 2,
  verify: (context, hit) => {
    // The rewrite keeps offsets and each of its characters depends only on
    // its neighbours, so reading it reads the window of the text.
    const copy = unescapedOf(context.text)
    if (hit.start === hit.end) return verifyRest(copy, hit.start, true)
    const match = Detector.matchAt(manifestEntrySticky, copy, hit.start + 1)
    if (match === null) return undefined
    const local: Detector.Context = { ...context, text: copy, skip: (until) => context.skip(until) }
    return verifyEntry(local, match, true)
  }
}

/**
 * @since 0.3.0
 * @category rules
 */
export const rules: ReadonlyArray<Detector.Detector> = [
  kubernetesSecret,
  kubernetesSecretEscaped,
  pypiToken,
  rubygemsToken,
  nugetKey,
  clojarsToken,
  jfrogToken,
  atlassianToken,
  bitbucketToken,
  gitlabExtraToken,
  gitlabSession,
  huggingfaceOrgToken,
  circleciToken,
  buildkiteToken,
  sourcegraphToken,
  azureDevopsPat,
  azureDevopsVariable,
  sonarToken,
  sonarLogin,
  sourcegraphBare,
  postmanKey,
  openshiftToken,
  dockerHubToken,
  linearKey,
  notionToken,
  netlifyToken,
  frameioToken,
  intra42Secret,
  readmeKey,
  octopusKey,
  prefectKey,
  scalingoToken,
  infracostKey,
  harnessToken,
  definedNetworkingKey,
  settlemintToken,
  authressKey,
  clickhouseKey,
  sidekiqUrl,
  terraformToken,
  grafanaToken,
  onePasswordServiceToken,
  onePasswordSecretKey,
  pulumiToken,
  dopplerToken,
  flyioToken,
  ageSecretKey,
  jfrogKeyed,
  atlassianKeyed,
  bitbucketKeyed,
  circleciKeyed,
  sourcegraphKeyed,
  azureDevopsKeyed,
  travisToken,
  droneToken,
  codecovToken,
  snykToken,
  sonarKeyed,
  linearSecret,
  notionLegacyToken,
  netlifyKeyed,
  mattermostToken,
  gitterToken,
  lookerCredential,
  privateAiKey,
  sidekiqSecret,
  sidekiqKeyed
]

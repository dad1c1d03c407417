/**
 * "Always allow" stores exactly the rules the prompt displayed, and none
 * when one would hold a secret (README: "none when a part is in doubt or
 * would hold a secret"; Engine: a rule that would hold a secret is not
 * offered, since it would be shown, stored and logged, and redacted it
 * would match nothing). No piece of a secret (no window of 8 of its
 * characters) may reach the offered rules, the prompt, the session's rules
 * or the audit; with nothing stored, the next identical call is asked
 * about again.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Approver from "../src/Approver.js"
import { engineWith, outcomeOf } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

// Shaped like real credentials (the redactor's catalogue knows each format), valid nowhere.
const githubToken = `ghp_${"Xq7Lm2Rt9Vw4Zk8Np3Bs6Hd1Jf5Gc0Ya2Ue"}`
const bearer = "9fK2mQ7xLp4Rt8Vz1Nw6Yb3Hc5Jd0GeTq"
const awsKeyId = "AKIAZ7Q4M2X3L5R6T7WB"
const npmToken = `npm_${"Pd8Wq3Lx7Zr2Nm5Kt9Vb4Hs6Jc1Fg0Ye3Ua"}`

const cases: ReadonlyArray<readonly [secret: string, line: string]> = [
  [githubToken, `curl -H "Authorization: Bearer ${githubToken}" https://api.github.com/user`],
  [bearer, `curl -s -H 'Authorization: Bearer ${bearer}' https://api.example.com/v1/items`],
  [githubToken, `export GITHUB_TOKEN=${githubToken}; npm test`],
  [githubToken, `export GITHUB_TOKEN=${githubToken} && gh repo list`],
  [githubToken, `GITHUB_TOKEN=${githubToken} npm publish`],
  [githubToken, `git clone https://x-access-token:${githubToken}@github.com/acme/app.git`],
  [githubToken, `gh auth login --with-token ${githubToken}`],
  [awsKeyId, `aws configure set aws_access_key_id ${awsKeyId}`],
  [npmToken, `npm config set //registry.npmjs.org/:_authToken=${npmToken}`],
  [npmToken, `npm test && npm whoami --token ${npmToken}`]
]

const windows = (secret: string): ReadonlyArray<string> =>
  Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8))

const leaks = (secret: string, text: string): ReadonlyArray<string> =>
  windows(secret).filter((window) => text.includes(window))

describe("always allow offers no rule holding a secret", () => {
  it.effect("the control: a command without a secret is offered its exact rule, and stored", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith({}, () => Approver.allowAlways)
      const line = "curl -s -H 'Accept: application/json' https://api.github.com/user"
      assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: line })), "ask")
      const prompt = (yield* subject.prompts)[0]!
      assert.deepStrictEqual(prompt.rules, [`bash(${line})`])
      assert.deepStrictEqual(yield* subject.engine.sessionRules, [`bash(${line})`])
      assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: line })), "allow:rule")
    }))

  it.effect("no window of the secret reaches the offer, the prompt, the session or the audit", () =>
    Effect.gen(function*() {
      const wrong: Array<string> = []
      for (const [secret, line] of cases) {
        const subject = yield* engineWith({}, () => Approver.allowAlways)
        const first = yield* outcomeOf(subject, request(bash, { command: line }))
        const prompts = yield* subject.prompts
        if (first !== "ask" && prompts.length === 0) wrong.push(`${line}: not asked (${first})`)
        const prompt = prompts[0]
        if (prompt !== undefined) {
          const offered = leaks(secret, prompt.rules.join("\n"))
          if (offered.length > 0) wrong.push(`${line}: the offered rules hold ${offered[0]}`)
          const shown = leaks(secret, JSON.stringify(prompt))
          if (shown.length > 0) wrong.push(`${line}: the prompt holds ${shown[0]}`)
        }
        const stored = leaks(secret, (yield* subject.engine.sessionRules).join("\n"))
        if (stored.length > 0) wrong.push(`${line}: the session's rules hold ${stored[0]}`)
        const audited = leaks(secret, JSON.stringify(yield* subject.decisions))
        if (audited.length > 0) wrong.push(`${line}: the audit holds ${audited[0]}`)
        // Nothing was stored for it: the same call is asked about again.
        const again = yield* outcomeOf(subject, request(bash, { command: line }))
        if (again !== "ask") wrong.push(`${line}: the second call was ${again}, not asked again`)
      }
      assert.deepStrictEqual(wrong, [])
    }))
})

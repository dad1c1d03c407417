/**
 * Runs the `permissions` command as a user would: piped (no terminal, so
 * nobody can approve) and in a real terminal (tmux), answering the approval
 * prompt with keystrokes and reading the screen back.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Module from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Url from "node:url"

const appDir = Path.resolve(Path.dirname(Url.fileURLToPath(import.meta.url)), "..")
const tsx = Module.createRequire(import.meta.url).resolve("tsx/cli")
// Each piped run starts Node and tsx: seconds on a loaded two-core machine.
const timeout = 180_000

/** One run with stdin piped from nothing: not a terminal. */
const piped = (...args: ReadonlyArray<string>) =>
  ChildProcess.spawnSync(process.execPath, [tsx, "--conditions=@tool-runtime/source", "src/bin.ts", "permissions", ...args], {
    cwd: appDir,
    encoding: "utf8",
    input: "",
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: "1" }
  })

const line = (output: string, prefix: RegExp) => output.split("\n").find((l) => prefix.test(l)) ?? ""

describe("tool-runtime permissions", () => {
  it("without a terminal, what needs approval is denied and the model is told why", () => {
    const run = piped()
    assert.strictEqual(run.status, 0, run.stderr)
    assert.include(run.stdout, "Approvals: no terminal")
    assert.match(run.stdout, /#1 query_ticket\s+allow\s+by mode default: read-only calls run/)
    assert.match(run.stdout, /#3 reply_to_customer\s+deny\s+by no approver available/)
    assert.include(run.stdout, "no one is available to approve it (the session runs headless)")
    // Validation comes first: the close is invalid without a reply, so nobody is asked about it.
    assert.match(run.stdout, /#4 close_ticket\s+error rule_violation/)
  }, timeout)

  it("--mode, --allow and --deny decide; deny wins even in bypassPermissions", () => {
    const rules = piped("--allow", "reply_to_customer", "--deny", "close_ticket")
    assert.strictEqual(rules.status, 0, rules.stderr)
    assert.match(rules.stdout, /#3 reply_to_customer\s+allow\s+by allow rule reply_to_customer/)
    assert.match(rules.stdout, /#4 close_ticket\s+deny\s+by deny rule close_ticket/)
    const bypass = piped("--mode", "bypassPermissions", "--deny", "close_ticket")
    assert.match(bypass.stdout, /#3 reply_to_customer\s+allow\s+by mode bypassPermissions/)
    assert.match(bypass.stdout, /#4 close_ticket\s+deny\s+by deny rule close_ticket/)
    const plan = piped("--mode", "plan")
    assert.include(line(plan.stdout, /#3 reply_to_customer\s+deny/), "plan mode")
  }, timeout)

  it("reads settings files, and a bad rule or file stops with an error naming it", () => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-runtime-permissions-"))
    const good = Path.join(dir, "settings.json")
    const bad = Path.join(dir, "bad.json")
    Fs.writeFileSync(good, JSON.stringify({ permissions: { allow: ["reply_to_customer"], deny: ["close_ticket"] } }))
    Fs.writeFileSync(bad, JSON.stringify({ permissions: { deny: ["close_ticket", "Bash(rm -rf /"] } }))
    const fromFile = piped("--settings", good)
    assert.strictEqual(fromFile.status, 0, fromFile.stderr)
    assert.include(fromFile.stdout, `Settings: ${good}`)
    assert.match(fromFile.stdout, /#4 close_ticket\s+deny\s+by deny rule close_ticket/)
    const broken = piped("--settings", bad)
    assert.strictEqual(broken.status, 1)
    assert.include(broken.stderr, `Invalid settings file ${bad}:`)
    assert.include(broken.stderr, "permissions.deny[1]: expected a permission rule")
    const typo = piped("--allow", "Bash(npm test && rm -rf /)")
    assert.strictEqual(typo.status, 1)
    assert.include(typo.stderr, "it names more than one command")
    Fs.rmSync(dir, { recursive: true, force: true })
  }, timeout)

  const hasTmux = ChildProcess.spawnSync("tmux", ["-V"]).status === 0

  it.live.skipIf(!hasTmux)("in a terminal, asks: always allow stores the displayed rule, deny sends a message", () => {
    // A server of our own, on its own socket: ended by that socket, nothing else.
    const socket = `tool-runtime-test-${process.pid}`
    const tmux = (...args: ReadonlyArray<string>) =>
      Effect.sync(() => ChildProcess.execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" }))
    const screen = tmux("capture-pane", "-p", "-J", "-S", "-300", "-t", "permissions")
    const waitFor = (text: string) =>
      screen.pipe(
        Effect.filterOrFail((s) => s.includes(text)),
        Effect.retry(Schedule.spaced("200 millis")),
        Effect.timeoutFail({
          duration: "60 seconds",
          onTimeout: () => new Error(`the screen never showed ${JSON.stringify(text)}`)
        })
      )
    const keys = (...k: ReadonlyArray<string>) =>
      Effect.zipRight(tmux("send-keys", "-t", "permissions", ...k), Effect.sleep("300 millis"))
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(tsx)} --conditions=@tool-runtime/source src/bin.ts permissions; ` +
      "echo EXIT=$?; sleep 600"
    return Effect.gen(function*() {
      yield* tmux("new-session", "-d", "-s", "permissions", "-x", "200", "-y", "80", "-c", appDir, command)
      const prompt = yield* waitFor("Allow reply_to_customer?")
      assert.include(prompt, "Permission needed: reply_to_customer  risk: medium  writes")
      assert.include(prompt, "arguments: {\"message\":\"Hi Ada")
      assert.include(prompt, "why: it is not read-only and no rule allows it")
      assert.include(prompt, "Always allow reply_to_customer")
      // Second choice: always allow the displayed rule.
      yield* keys("j")
      yield* keys("Enter")
      const close = yield* waitFor("Allow close_ticket?")
      assert.include(close, "risk: high")
      // Third choice: deny, then type the message for the model.
      yield* keys("j")
      yield* keys("j")
      yield* keys("Enter")
      yield* waitFor("Message for the model")
      yield* keys("not before the customer confirms")
      yield* keys("Enter")
      const done = yield* waitFor("EXIT=")
      assert.include(done, "EXIT=0")
      assert.match(done, /#3 reply_to_customer\s+allow\s+by approver \(allow always\)/)
      assert.include(done, "stored for the session: reply_to_customer")
      assert.include(
        done,
        "Permission to run close_ticket was denied: the user denied it: not before the customer confirms"
      )
      assert.include(done, "Session rules added by \"always allow\": reply_to_customer")
    }).pipe(Effect.ensuring(Effect.ignore(tmux("kill-server"))))
  }, timeout)
})

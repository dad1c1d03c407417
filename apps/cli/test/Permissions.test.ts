/**
 * Runs the `permissions` command as a user would: piped (no terminal, so
 * nobody can approve) and in a real terminal (tmux), answering the approval
 * prompt with keystrokes and reading the screen back.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as CliProcess from "./CliProcess.js"

const timeout = CliProcess.timeout

/** One run with stdin piped from nothing: not a terminal. */
const piped = (...args: ReadonlyArray<string>) => CliProcess.piped(["permissions", ...args])

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

  it("reads settings files, and a bad rule or file stops with one line naming it", () => {
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
    assert.match(
      broken.stderr,
      /^tool-runtime: Invalid settings file .*: permissions\.deny\[1\]: expected a permission rule.*\n$/
    )
    assert.include(broken.stderr, `Invalid settings file ${bad}:`)
    const typo = piped("--allow", "Bash(npm test && rm -rf /)")
    assert.strictEqual(typo.status, 1)
    assert.match(typo.stderr, /^tool-runtime: .*it names more than one command.*\n$/)
    Fs.rmSync(dir, { recursive: true, force: true })
  }, timeout)

  it("a settings file named on the command line that does not exist is an error, not a run without its rules", () => {
    const missing = Path.join(Os.tmpdir(), `tool-runtime-no-such-settings-${process.pid}.json`)
    const run = piped("--deny", "close_ticket", "--settings", missing)
    assert.strictEqual(run.status, 1, run.stdout)
    assert.strictEqual(run.stderr, `tool-runtime: --settings ${missing}: no such file\n`)
    // Nothing ran.
    assert.strictEqual(run.stdout, "")
  }, timeout)

  it.live.skipIf(!CliProcess.hasTmux)(
    "in a terminal, asks: always allow stores the displayed rule, deny sends a message",
    () =>
      Effect.gen(function*() {
        const term = yield* CliProcess.terminal(
          "permissions",
          `${CliProcess.shellCommand(["permissions"])}; echo EXIT=$?; sleep 600`
        )
        const prompt = yield* term.waitFor("Allow reply_to_customer?")
        assert.include(prompt, "Permission needed: reply_to_customer  risk: medium  writes")
        assert.include(prompt, "arguments: {\"message\":\"Hi Ada")
        assert.include(prompt, "why: it is not read-only and no rule allows it")
        assert.include(prompt, "Always allow reply_to_customer")
        // Second choice: always allow the displayed rule.
        yield* term.keys("j")
        yield* term.keys("Enter")
        const close = yield* term.waitFor("Allow close_ticket?")
        assert.include(close, "risk: high")
        // Third choice: deny, then type the message for the model.
        yield* term.keys("j")
        yield* term.keys("j")
        yield* term.keys("Enter")
        yield* term.waitFor("Message for the model")
        yield* term.keys("not before the customer confirms")
        yield* term.keys("Enter")
        const done = yield* term.waitFor("EXIT=")
        assert.include(done, "EXIT=0")
        assert.match(done, /#3 reply_to_customer\s+allow\s+by approver \(allow always\)/)
        assert.include(done, "stored for the session: reply_to_customer")
        assert.include(
          done,
          "Permission to run close_ticket was denied: the user denied it: not before the customer confirms"
        )
        assert.include(done, "Session rules added by \"always allow\": reply_to_customer")
      }).pipe(Effect.scoped),
    timeout
  )

  it.live.skipIf(!CliProcess.hasTmux)(
    "Ctrl-C at the prompt ends the program with exit code 130, the terminal restored",
    () =>
      Effect.gen(function*() {
        const term = yield* CliProcess.terminal(
          "interrupt",
          `${CliProcess.shellCommand(["permissions"])}; echo EXIT=$?; sleep 600`
        )
        yield* term.waitFor("Allow reply_to_customer?")
        yield* term.keys("C-c")
        const done = yield* term.waitFor("EXIT=")
        assert.match(done, /^EXIT=130$/m)
        // The turn stopped there: nothing after the prompt ran.
        assert.notInclude(done, "Results, in the order of the calls")
        assert.notInclude(done, "Allow close_ticket?")
        // The prompt hid the cursor; its finalizer shows it again.
        assert.strictEqual(yield* term.format("#{cursor_flag}"), "1")
      }).pipe(Effect.scoped),
    timeout
  )
})

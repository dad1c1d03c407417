/**
 * Runs the `agent` command as a user would, offline: the scripted model
 * works the ticket through the agent loop, and its mistakes come back as
 * results it reads and goes on from.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as CliProcess from "./CliProcess.js"

// No API key: the scripted model plays, and nothing reaches the network.
const runAgent = (...args: ReadonlyArray<string>) =>
  CliProcess.piped(["agent", ...args], { env: { ANTHROPIC_API_KEY: undefined } })

const timeout = CliProcess.timeout

describe("tool-runtime agent", () => {
  it("works the ticket to the end with the scripted model; failures are results, not the end", () => {
    const run = runAgent()
    assert.strictEqual(run.status, 0, run.stderr)
    const out = run.stdout
    assert.include(out, "Model: scripted")
    // The registry: the desk's tools and the one from the @effect/ai toolkit.
    assert.match(out, /Tools \(7\): query_ticket, .*, check_warranty/)
    // Request 1: two reads together, one of them with raw JSON arguments.
    assert.include(out, "plan:  #1 + #2 together")
    assert.include(out, "(raw JSON string)")
    // Request 2: an unknown tool and a failing handler, both answered.
    assert.include(out, "#1 query_orders  error unknown_tool")
    assert.include(out, "Did you mean \"query_order\"?")
    assert.include(out, "#2 check_warranty  error tool_failed")
    assert.include(out, "Damage in transit is not a warranty claim for O-5001")
    // Request 4: the writes run alone, one after the other.
    assert.include(out, "plan:  #1 alone, then #2 alone")
    assert.include(out, "Ticket T-1001 is closed (resolved).")
    // The last reply read the last result.
    assert.include(
      out,
      "Done. Ada Park gets a free replacement under KB-101, and the ticket says: Ticket T-1001 is closed"
    )
    assert.include(out, "Stopped: the model answered without calling a tool (5 requests, 7 calls, 2 error results")
  }, timeout)

  it("stops at the turn limit", () => {
    const run = runAgent("--max-turns", "2")
    assert.strictEqual(run.status, 0, run.stderr)
    assert.include(run.stdout, "Request 2")
    assert.notInclude(run.stdout, "Request 3")
    assert.include(run.stdout, "Stopped: the turn limit (2 requests) was reached")
  }, timeout)

  it("--max-turns takes a positive integer, and says so in one line otherwise", () => {
    for (const value of ["0", "-1"]) {
      const run = runAgent(`--max-turns=${value}`)
      assert.strictEqual(run.status, 1, run.stdout)
      assert.strictEqual(run.stderr, `tool-runtime: --max-turns must be a positive integer, got ${value}\n`)
      assert.strictEqual(run.stdout, "")
    }
    const text = runAgent("--max-turns", "x")
    assert.strictEqual(text.status, 1, text.stdout)
    assert.strictEqual(text.stderr, "tool-runtime: 'x' is not an integer\n")
  }, timeout)

  it("an --mcp-config file that is not JSON is one line naming the file, not a stack trace", () => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-runtime-agent-"))
    const file = Path.join(dir, "mcp.json")
    Fs.writeFileSync(file, "{ \"mcpServers\": { oops } }")
    const run = runAgent("--mcp-config", file)
    Fs.rmSync(dir, { recursive: true, force: true })
    assert.strictEqual(run.status, 1, run.stdout)
    assert.match(run.stderr, /^tool-runtime: Invalid MCP configuration in (\S+): the file is not JSON [^\n]*\n$/)
    assert.include(run.stderr, file)
    assert.notMatch(run.stderr, /\n\s+at /)
  }, timeout)
})

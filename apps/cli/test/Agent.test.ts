/**
 * Runs the `agent` command as a user would, offline: the scripted model
 * works the ticket through the agent loop, and its mistakes come back as
 * results it reads and goes on from.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Module from "node:module"
import * as Path from "node:path"
import * as Url from "node:url"

const appDir = Path.resolve(Path.dirname(Url.fileURLToPath(import.meta.url)), "..")
const tsx = Module.createRequire(import.meta.url).resolve("tsx/cli")

const runAgent = (...args: ReadonlyArray<string>) => {
  // No API key: the scripted model plays, and nothing reaches the network.
  const { ANTHROPIC_API_KEY: _, ...env } = process.env
  return ChildProcess.spawnSync(process.execPath, [tsx, "--conditions=@tool-runtime/source", "src/bin.ts", "agent", ...args], {
    cwd: appDir,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...env, NO_COLOR: "1" }
  })
}

const timeout = 60_000

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
})

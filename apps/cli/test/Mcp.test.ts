/**
 * `tool-runtime mcp`: which servers of a configuration started and why the
 * others did not, and one call run through the runtime, its server's
 * question answered by the person in a real terminal (tmux), or declined
 * without one.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as CliProcess from "./CliProcess.js"

const config = () => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "cli-mcp-"))
  const file = Path.join(dir, "mcp.json")
  const serve = CliProcess.argv(["serve", "--tools", Path.join(CliProcess.appDir, "test/fixtures/asking-tools.ts")])
  Fs.writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        asker: { command: process.execPath, args: serve, cwd: CliProcess.appDir, trusted: true },
        broken: { command: "no-such-mcp-server-binary" }
      }
    })
  )
  return file
}

describe("tool-runtime mcp", { timeout: CliProcess.timeout }, () => {
  it("lists the servers that started with their tools, and the one that did not with why; exit 1", () => {
    const run = CliProcess.piped(["mcp", "--mcp-config", config()])
    assert.strictEqual(run.status, 1, run.stderr)
    assert.match(run.stdout, /asker\s+started\s+2 tools, MCP 2026-07-28, unconfined/)
    assert.match(
      run.stdout,
      /broken\s+failed\s+The MCP server "broken" could not be started: spawn no-such-mcp-server-binary ENOENT/
    )
    assert.include(run.stdout, "asker: mcp__asker__ask_profile, mcp__asker__read_output")
    assert.include(run.stderr, "1 of 2 MCP servers did not start")
  })

  it("without a terminal, a server's question is declined and the call still answers", () => {
    const run = CliProcess.piped(["mcp", "--mcp-config", config(), "--call", "mcp__asker__ask_profile"])
    assert.strictEqual(run.status, 0, run.stderr)
    assert.include(run.stdout, "answer: decline {}")
  })

  it.live.skipIf(!CliProcess.hasTmux)(
    "in a terminal, the person answers the form field by field; the default fills what is left",
    () =>
      Effect.gen(function*() {
        const term = yield* CliProcess.terminal(
          "mcp-elicit",
          `${
            CliProcess.shellCommand(["mcp", "--mcp-config", config(), "--call", "mcp__asker__ask_profile"])
          }; echo EXIT=$?; sleep 600`
        )
        const asked = yield* term.waitFor("Answer it?")
        // The server's words, marked, with its escape sequence taken out.
        assert.match(asked, /The MCP server "asker" asks:\n\s+│ Who are you\? \[2J Fill in your profile\./)
        yield* term.keys("Enter")
        yield* term.waitFor("Your name")
        yield* term.keys("Ada", "Enter")
        yield* term.waitFor("Your age")
        yield* term.keys("old", "Enter")
        yield* term.waitFor("a number, please")
        yield* term.keys("BSpace", "BSpace", "BSpace", "36", "Enter")
        yield* term.waitFor("Your plan")
        yield* term.keys("Down", "Enter")
        yield* term.waitFor("Newsletter")
        yield* term.keys("Down", "Down", "Enter")
        const done = yield* term.waitFor("EXIT=")
        assert.include(done, "answer: accept {\"name\":\"Ada\",\"age\":36,\"plan\":\"pro\",\"newsletter\":true}")
        assert.match(done, /^EXIT=0$/m)
      }).pipe(Effect.scoped),
    CliProcess.timeout
  )
})

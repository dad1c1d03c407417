/**
 * The `agent` command on its Anthropic path, end to end: the real CLI, the
 * real `@effect/ai-anthropic` client, and a stand-in for the Messages API on
 * loopback (`ANTHROPIC_BASE_URL`). What the model reads back is what the
 * stand-in received: every tool_result must hold the runtime's text once,
 * not a JSON string literal of it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as CliProcess from "./CliProcess.js"

const usage = { input_tokens: 10, output_tokens: 5 }
const message = (id: string, stop_reason: string, content: ReadonlyArray<unknown>) => ({
  id,
  type: "message",
  role: "assistant",
  model: "claude-test",
  stop_reason,
  stop_sequence: null,
  usage,
  content
})

const replies = [
  message("msg_1", "tool_use", [
    { type: "tool_use", id: "toolu_1", name: "query_ticket", input: { ticketId: "T-1001" } },
    { type: "tool_use", id: "toolu_2", name: "query_tiket", input: { ticketId: "T-1001" } }
  ]),
  message("msg_2", "end_turn", [{ type: "text", text: "Done." }])
]

interface ToolResultBlock {
  readonly type: "tool_result"
  readonly tool_use_id: string
  readonly content: unknown
  readonly is_error?: boolean
}

describe("tool-runtime agent, with Anthropic", () => {
  it("sends each tool_result to the Messages API once encoded, errors flagged", async () => {
    const bodies: Array<{ messages: Array<{ role: string; content: unknown }> }> = []
    const server = Http.createServer((request, response) => {
      let body = ""
      request.on("data", (chunk) => (body += chunk))
      request.on("end", () => {
        bodies.push(JSON.parse(body))
        const reply = replies[Math.min(bodies.length, replies.length) - 1]
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify(reply))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as Net.AddressInfo).port
    try {
      const child = ChildProcess.spawn(process.execPath, CliProcess.argv(["agent", "--max-turns", "2"]), {
        cwd: CliProcess.appDir,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          NO_COLOR: "1",
          ANTHROPIC_API_KEY: "sk-ant-test-not-a-key",
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`
        }
      })
      let stdout = ""
      let stderr = ""
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
      const status = await CliProcess.within(
        new Promise<number | null>((resolve) => child.on("close", resolve)),
        "the agent ended"
      ).finally(() => child.kill("SIGKILL"))
      assert.strictEqual(status, 0, `${stdout}\n${stderr}`)
      assert.include(stdout, "Model: Anthropic")
      assert.lengthOf(bodies, 2)
      const last = bodies[1]!.messages.at(-1)!
      assert.strictEqual(last.role, "user")
      const results = (last.content as Array<ToolResultBlock>).filter((block) => block.type === "tool_result")
      assert.deepStrictEqual(results.map((r) => [r.tool_use_id, r.is_error ?? false]), [
        ["toolu_1", false],
        ["toolu_2", true]
      ])
      // The ticket is the runtime's JSON text, read once: an object, not a string holding one.
      const ticket = JSON.parse(results[0]!.content as string)
      assert.isObject(ticket)
      assert.strictEqual(ticket.ticketId ?? ticket.id, "T-1001")
      assert.match(results[1]!.content as string, /^There is no tool named "query_tiket"\.\n/)
      assert.include(results[1]!.content as string, "Did you mean \"query_ticket\"?")
    } finally {
      server.close()
    }
  }, CliProcess.timeout)
})

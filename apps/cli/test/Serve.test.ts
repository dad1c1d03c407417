/**
 * `tool-runtime serve`, as another agent uses it: the real executable,
 * driven by the official SDK's client over stdio and over HTTP, and by a
 * pipe that sends its requests and hangs up at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as ChildProcess from "node:child_process"
import * as CliProcess from "./CliProcess.js"

const text = (result: CallToolResult) =>
  result.content.map((block) => block.type === "text" ? block.text : `[${block.type}]`).join("\n")

const stdioClient = async (args: ReadonlyArray<string>) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: CliProcess.argv(["serve", ...args]),
    cwd: CliProcess.appDir,
    stderr: "pipe"
  })
  const client = new Client({ name: "serve-test", version: "1.0.0" })
  await CliProcess.within(client.connect(transport, { timeout: CliProcess.runBound }), "the handshake")
  return { client, transport }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Resolves once the process has exited, with its code and signal. */
const exited = (child: ChildProcess.ChildProcess) =>
  new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve([child.exitCode, child.signalCode])
    else child.once("exit", (code, signal) => resolve([code, signal]))
  })

describe("tool-runtime serve", { timeout: CliProcess.timeout }, () => {
  it("serves the support-desk tools over stdio to the SDK's client, and ends when the client goes", async () => {
    const { client, transport } = await stdioClient([])
    const { tools } = await client.listTools()
    assert.deepStrictEqual(tools.map((tool) => tool.name), [
      "query_ticket",
      "search_knowledge_base",
      "query_order",
      "reply_to_customer",
      "close_ticket",
      "read_output"
    ])
    const result =
      (await client.callTool({ name: "query_ticket", arguments: { ticketId: "T-1001" } })) as CallToolResult
    assert.include(text(result), "Ada Park")
    const unknown = (await client.callTool({ name: "query_tiket", arguments: {} })) as CallToolResult
    assert.isTrue(unknown.isError)
    assert.include(text(unknown), "query_ticket")
    const pid = transport.pid!
    await client.close()
    await CliProcess.within(
      new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (!alive(pid)) {
            clearInterval(check)
            resolve()
          }
        }, 50)
      }),
      "the server exited after its client closed"
    )
  })

  it("answers every request a pipe sent before it hung up", async () => {
    const messages = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "pipe", version: "1" } }
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "query_ticket", arguments: { ticketId: "T-1001" } }
      },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "query_order", arguments: { orderId: "O-5001" } } }
    ]
    const run = CliProcess.piped(["serve"], { input: messages.map((m) => JSON.stringify(m)).join("\n") + "\n" })
    assert.strictEqual(run.status, 0, run.stderr)
    const answers = run.stdout.trim().split("\n").map((line) => JSON.parse(line) as { id: number; result: unknown })
    assert.deepStrictEqual(answers.map((answer) => answer.id).sort(), [1, 2, 3])
    assert.include(JSON.stringify(answers.find((answer) => answer.id === 2)!.result), "Ada Park")
  })

  it("serves a module's tools with --tools, and refuses a module without any", async () => {
    const { client } = await stdioClient(["--tools", "test/fixtures/served-tools.ts"])
    const { tools } = await client.listTools()
    assert.deepStrictEqual(tools.map((tool) => tool.name), ["shout", "read_output"])
    const result = (await client.callTool({ name: "shout", arguments: { text: "hello" } })) as CallToolResult
    assert.strictEqual(text(result), "HELLO")
    await client.close()
    for (
      const [module, message] of [
        ["test/fixtures/no-tools.ts", "must export `tools`"],
        ["test/fixtures/missing.ts", "cannot be loaded"]
      ] as const
    ) {
      const run = CliProcess.piped(["serve", "--tools", module])
      assert.strictEqual(run.status, 1)
      assert.strictEqual(run.stdout, "")
      assert.include(run.stderr, message)
      assert.strictEqual(run.stderr.trim().split("\n").length, 1, run.stderr)
    }
  })

  it("serves over HTTP with the token from --token-env, prints its URL, and stops at Ctrl-C", async () => {
    const token = "serve-test-token-0123456789"
    const child = ChildProcess.spawn(
      process.execPath,
      CliProcess.argv(["serve", "--http", "--token-env", "SERVE_TOKEN"]),
      {
        cwd: CliProcess.appDir,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, NO_COLOR: "1", SERVE_TOKEN: token }
      }
    )
    try {
      const url = await CliProcess.within(
        new Promise<string>((resolve) => {
          let out = ""
          child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
            out += chunk
            const match = /^http:\/\/127\.0\.0\.1:\d+\/mcp$/m.exec(out)
            if (match !== null) resolve(match[0])
          })
        }),
        "the URL was printed"
      )
      const refused = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: "{}"
      })
      assert.strictEqual(refused.status, 401)
      const client = new Client({ name: "serve-test", version: "1.0.0" })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } }
        })
      )
      const result =
        (await client.callTool({ name: "query_order", arguments: { orderId: "O-5001" } })) as CallToolResult
      assert.isFalse(result.isError === true, text(result))
      await client.close()
      CliProcess.interrupt(child)
      const [code] = await CliProcess.within(exited(child), "the server ended after Ctrl-C")
      assert.strictEqual(code, 130)
    } finally {
      child.kill("SIGKILL")
    }
  })

  it("refuses --token-env naming an unset variable, and --token-env without --http, in one line", () => {
    for (
      const [args, message] of [
        [["serve", "--http", "--token-env", "SERVE_TEST_UNSET"], "the variable is not set"],
        [["serve", "--token-env", "PATH"], "--token-env is for --http"]
      ] as const
    ) {
      const run = CliProcess.piped(args, { env: { SERVE_TEST_UNSET: undefined } })
      assert.strictEqual(run.status, 1)
      assert.include(run.stderr, message)
      assert.strictEqual(run.stderr.trim().split("\n").length, 1, run.stderr)
    }
  })
})

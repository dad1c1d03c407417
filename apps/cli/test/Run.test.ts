/**
 * Runs the `run` command as a harness would: a provider message with tool
 * calls in, the provider's reply with their results out, as JSON. Each
 * format gets a message with a valid call, a call to a tool that does not
 * exist and a second valid call; the reply must answer every call, paired
 * by id, in call order.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as CliProcess from "./CliProcess.js"

const timeout = CliProcess.timeout

const anthropicMessage = {
  id: "msg_01",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  stop_reason: "tool_use",
  content: [
    { type: "text", text: "Let me look at the ticket and the help articles." },
    { type: "tool_use", id: "toolu_A1", name: "query_ticket", input: { ticketId: "T-1001" } },
    { type: "tool_use", id: "toolu_A2", name: "query_tiket", input: { ticketId: "T-1002" } },
    { type: "tool_use", id: "toolu_A3", name: "search_knowledge_base", input: { query: "refund", limit: 1 } }
  ]
}

const chatMessage = {
  role: "assistant",
  content: null,
  tool_calls: [
    { id: "call_C1", type: "function", function: { name: "query_ticket", arguments: "{\"ticketId\":\"T-1001\"}" } },
    { id: "call_C2", type: "function", function: { name: "query_tiket", arguments: "{}" } },
    { id: "call_C3", type: "function", function: { name: "query_order", arguments: "{\"orderId\":\"O-5001\"}" } }
  ]
}

const responsesResponse = {
  id: "resp_01",
  object: "response",
  output: [
    { type: "reasoning", id: "rs_01", summary: [] },
    {
      type: "function_call",
      id: "fc_1",
      call_id: "call_R1",
      name: "query_ticket",
      arguments: "{\"ticketId\":\"T-1001\"}"
    },
    { type: "function_call", id: "fc_2", call_id: "call_R2", name: "query_tiket", arguments: "{}" },
    {
      type: "function_call",
      id: "fc_3",
      call_id: "call_R3",
      name: "query_order",
      arguments: "{\"orderId\":\"O-5001\"}"
    }
  ]
}

const withFiles = <A>(files: Record<string, string>, f: (dir: string) => A): A => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-runtime-run-"))
  try {
    for (const [name, text] of Object.entries(files)) Fs.writeFileSync(Path.join(dir, name), text)
    return f(dir)
  } finally {
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** A run that must succeed, its stdout parsed. */
const reply = (run: ReturnType<typeof CliProcess.piped>): any => {
  assert.strictEqual(run.status, 0, run.stderr)
  assert.strictEqual(run.stderr, "")
  return JSON.parse(run.stdout)
}

/** A run that must fail with exactly one line on stderr, and print nothing. */
const failure = (run: ReturnType<typeof CliProcess.piped>): string => {
  assert.strictEqual(run.status, 1, run.stdout)
  assert.strictEqual(run.stdout, "")
  assert.match(run.stderr, /^tool-runtime: [^\n]+\n$/)
  return run.stderr
}

describe("tool-runtime run", () => {
  it(
    "anthropic, from --calls: one tool_result per tool_use, in order, paired by id",
    () =>
      withFiles({ "message.json": JSON.stringify(anthropicMessage) }, (dir) => {
        const message = reply(
          CliProcess.piped(["run", "--format", "anthropic", "--calls", Path.join(dir, "message.json")])
        )
        assert.strictEqual(message.role, "user")
        assert.deepStrictEqual(message.content.map((block: any) => block.type), [
          "tool_result",
          "tool_result",
          "tool_result"
        ])
        assert.deepStrictEqual(message.content.map((block: any) => block.tool_use_id), [
          "toolu_A1",
          "toolu_A2",
          "toolu_A3"
        ])
        assert.deepStrictEqual(message.content.map((block: any) => block.is_error === true), [false, true, false])
        const text = (i: number) => message.content[i].content.map((part: any) => part.text).join("\n")
        assert.include(text(0), "\"id\":\"T-1001\"")
        assert.include(text(1), "There is no tool named \"query_tiket\"")
        assert.include(text(1), "Did you mean \"query_ticket\"?")
        assert.include(text(2), "KB-102")
      }),
    timeout
  )

  it("openai-chat, from stdin: one tool message per tool call, in order, paired by tool_call_id", () => {
    const messages = reply(CliProcess.piped(["run", "--format", "openai-chat"], { input: JSON.stringify(chatMessage) }))
    assert.isArray(messages)
    assert.deepStrictEqual(messages.map((m: any) => m.role), ["tool", "tool", "tool"])
    assert.deepStrictEqual(messages.map((m: any) => m.tool_call_id), ["call_C1", "call_C2", "call_C3"])
    assert.include(messages[0].content, "\"id\":\"T-1001\"")
    assert.include(messages[1].content, "There is no tool named \"query_tiket\"")
    assert.include(messages[2].content, "\"id\":\"O-5001\"")
  }, timeout)

  it(
    "openai-responses, from --calls -: one function_call_output per function_call, in order, paired by call_id",
    () => {
      const items = reply(
        CliProcess.piped(["run", "--format", "openai-responses", "--calls", "-"], {
          input: JSON.stringify(responsesResponse)
        })
      )
      assert.isArray(items)
      assert.deepStrictEqual(items.map((item: any) => item.type), [
        "function_call_output",
        "function_call_output",
        "function_call_output"
      ])
      assert.deepStrictEqual(items.map((item: any) => item.call_id), ["call_R1", "call_R2", "call_R3"])
      assert.include(items[0].output, "\"id\":\"T-1001\"")
      assert.include(items[1].output, "There is no tool named \"query_tiket\"")
      assert.include(items[2].output, "\"id\":\"O-5001\"")
    },
    timeout
  )

  it(
    "a file that is not JSON, a message of another format, or no file at all: one line, exit 1, nothing run",
    () =>
      withFiles(
        { "broken.json": "{\"role\": \"assistant\", \"content\": [", "chat.json": JSON.stringify(chatMessage) },
        (dir) => {
          const broken = Path.join(dir, "broken.json")
          assert.include(
            failure(CliProcess.piped(["run", "--format", "anthropic", "--calls", broken])),
            `${broken} is not valid JSON`
          )
          // A Chat Completions message read as Anthropic's: its content is null, not blocks.
          const chat = Path.join(dir, "chat.json")
          const wrongShape = failure(CliProcess.piped(["run", "--format", "anthropic", "--calls", chat]))
          assert.include(
            wrongShape,
            `${chat}: The Anthropic Messages payload could not be read in full: content: expected an array`
          )
          const missing = Path.join(dir, "missing.json")
          assert.include(
            failure(CliProcess.piped(["run", "--format", "openai-chat", "--calls", missing])),
            `--calls ${missing}: no such file`
          )
        }
      ),
    timeout
  )
})

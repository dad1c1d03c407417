/**
 * Runs the real executable, as a user would, and reads what it prints: the
 * demo is the brief's acceptance example, so its output is the contract.
 */
import { assert, describe, it } from "@effect/vitest"
import type * as ChildProcess from "node:child_process"
import * as CliProcess from "./CliProcess.js"

let cached: ChildProcess.SpawnSyncReturns<string> | undefined

/** One run of the CLI, shared by the assertions below: it takes a few seconds. */
const runDemo = () => cached ??= CliProcess.piped(["demo"])

/** The part of the output between two headings. */
const section = (output: string, from: string, to: string | undefined): string => {
  const start = output.indexOf(from)
  assert.isAtLeast(start, 0, `missing section "${from}"`)
  const end = to === undefined ? output.length : output.indexOf(to, start)
  assert.isAtLeast(end, start, `missing section "${to}"`)
  return output.slice(start, end)
}

const inOrder = (text: string, needles: ReadonlyArray<string | RegExp>) => {
  let at = -1
  for (const needle of needles) {
    const found = typeof needle === "string" ? text.indexOf(needle, at + 1) : text.slice(at + 1).search(needle)
    const index = typeof needle === "string" ? found : found < 0 ? -1 : found + at + 1
    assert.isAbove(index, at, `expected ${String(needle)} after position ${at}`)
    at = index
  }
}

const timeout = 60_000

describe("tool-runtime demo", () => {
  it("runs to the end and exits with 0", () => {
    const run = runDemo()
    assert.isUndefined(run.error)
    assert.strictEqual(run.signal, null, run.stderr)
    assert.strictEqual(run.status, 0, run.stderr)
    assert.include(run.stdout, "Registry (6 tools)")
    assert.match(run.stdout, /^\s+search_knowledge_base\s+yes\s+15 s\s+5 s\s+8,000\s+low$/m)
    assert.match(run.stdout, /^\s+close_ticket\s+no\s+15 s\s+-\s+1,000\s+high$/m)
    // Piped output carries no color codes.
    assert.notInclude(run.stdout, "\u001b[")
  }, timeout)

  it("plans the two reads as one batch and the reply alone, after them", () => {
    const turn = section(runDemo().stdout, "Turn 1", "Turn 2")
    assert.match(turn, /^\s+batch 1\s+together\s+#1 query_ticket, #2 search_knowledge_base$/m)
    assert.match(turn, /^\s+batch 2\s+alone\s+#3 reply_to_customer$/m)
    assert.notMatch(turn, /batch 3/)
    const timeline = section(turn, "Timeline", "Results")
    // Both reads start before either finishes; the reply starts once both did.
    inOrder(timeline, [
      /batch starts\s+#1 query_ticket, #2 search_knowledge_base\s+\(together\)/,
      /finished\s+#1 query_ticket\s+ok/,
      /finished\s+#2 search_knowledge_base\s+ok/,
      /batch starts\s+#3 reply_to_customer\s+\(alone\)/,
      /finished\s+#3 reply_to_customer\s+ok/
    ])
    assert.match(turn, /batch 2 started at \+\d+ ms, after batch 1 had finished/)
    // Wall time of the batch below the sum of its calls: they overlapped.
    const summary = /batch 1: 2 calls finished in (\d+) ms; one after the other they would take (\d+) ms/.exec(turn)
    assert.isNotNull(summary)
    assert.isBelow(Number(summary![1]), Number(summary![2]))
  }, timeout)

  it("prints the results in the order of the calls, paired by id", () => {
    const results = section(runDemo().stdout, "Results, in the order", "Turn 2")
    inOrder(results, [
      /#1 toolu_01A7kQ3mWx9fTz2RbN5cLp8E\s+query_ticket\s+isError: false/,
      /#2 toolu_01B4nV8sKd2hYq6JmT3wXr7G\s+search_knowledge_base\s+isError: false/,
      /#3 toolu_01C9pL5tHf3uZe8QkW2yMs4D\s+reply_to_customer\s+isError: false/
    ])
    assert.include(results, "\"id\":\"KB-101\"")
    assert.include(results, "Reply sent on ticket T-1001")
  }, timeout)

  it("turns each failure into a result the model can act on", () => {
    const results = section(runDemo().stdout, "Turn 2", undefined)
    inOrder(results, [
      /query_tiket\s+code: unknown_tool\s+retryable: yes/,
      "Did you mean \"query_ticket\"?",
      /reply_to_customer\s+code: invalid_arguments\s+retryable: yes/,
      "- message: is required but missing",
      /search_knowledge_base\s+code: truncated_arguments\s+retryable: yes/,
      /close_ticket\s+code: rule_violation\s+retryable: yes/,
      "has no reply to the customer yet",
      /close_ticket\s+ok/
    ])
  }, timeout)
})

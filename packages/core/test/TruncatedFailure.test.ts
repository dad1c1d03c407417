/**
 * A failure too long to show keeps its head and its tail, and lifts the
 * error lines of the middle it drops into the marker. Two promises about
 * that summary: its room comes out of the kept text (the failure as shown
 * stays within its bound, summary included), and it is made from the
 * redacted text like everything else (an error line that quotes a token
 * shows the marker, not the token).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ArtifactStore from "../src/ArtifactStore.js"
import * as Tool from "../src/Tool.js"
import * as ToolResult from "../src/ToolResult.js"
import * as ToolRuntime from "../src/ToolRuntime.js"
import { leakedWindow, noise } from "./FakeSecrets.js"

const token = `ghp_${noise(36, 77)}`
const keep = 5_000

/** 4,000 lines; 20 long error lines in the middle, one of them quoting a token. */
const log = Array.from({ length: 4_000 }, (_, i) =>
  i >= 1_500 && i < 1_520
    ? `Error: request ${i} was refused by the upstream service${i === 1_510 ? ` for token ${token}` : ""}; ${
      "x".repeat(80)
    }`
    : `step ${i} ok`).join("\n") + "\nexit code 1"

const failing = Tool.make("test_suite", {
  description: "runs tests",
  parameters: {},
  outputLimit: keep,
  handler: () => Effect.fail(log)
})

const runOne = Effect.flatMap(
  ToolRuntime.ToolRuntime,
  (runtime) => runtime.runCall({ id: "c1", name: failing.name, input: {} })
).pipe(
  Effect.provide(ToolRuntime.layerDefault([failing, ArtifactStore.readTool])),
  Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the call did not finish within 10 s") })
)

const summaryOf = (text: string) => {
  const start = text.indexOf("\nLines in the omitted part that report errors:\n")
  assert.notStrictEqual(start, -1, "no error lines were lifted")
  return text.slice(start, text.indexOf("\n\n", start + 1))
}

describe("a truncated failure", () => {
  it.effect("lifts the middle's error lines, and their room comes out of the kept text", () =>
    Effect.gen(function*() {
      const result = yield* runOne
      const text = ToolResult.text(result)
      assert.strictEqual(result.meta.truncation?.strategy, "head-tail")
      const summary = summaryOf(text)
      assert.include(summary, "Error: request 1500 was refused")
      assert.include(summary, "Error: request 1519 was refused")
      assert.isAbove(summary.length, 1_000, "the summary is large enough to matter")
      // Head, tail and the lifted lines together stay within what a failure keeps.
      assert.isAtMost(result.meta.truncation!.shownLength + summary.length, keep)
      // The rest is the marker line: the whole text is the bound plus that one line.
      assert.isAtMost(text.length, keep + 300)
      // The tail, where the verdict is, is kept.
      assert.include(text, "step 3999 ok\nexit code 1")
    }))

  it.effect("the lifted lines are redacted: an error line quoting a token shows the marker", () =>
    Effect.gen(function*() {
      const result = yield* runOne
      const text = ToolResult.text(result)
      assert.isUndefined(leakedWindow(text, token), "the token reached the result")
      assert.include(summaryOf(text), "Error: request 1510 was refused by the upstream service for token [REDACTED")
    }))
})

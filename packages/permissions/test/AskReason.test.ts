/**
 * Every refusal names its real cause and what to do instead: a path outside
 * the workspace, a line that is not a plain command, a wrapper whose command
 * could not be read, a write no rule allows, a command no rule covers. Told
 * to the model when no one can answer (a headless approver, `dontAsk`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Approver from "../src/Approver.js"
import type * as Mode from "../src/Mode.js"
import { deniedWith, engineWith } from "./EngineHarness.js"
import { bash, readFile, request, writeFile } from "./SampleTools.js"

const headless = () => Effect.fail(new Approver.Unavailable({ reason: "no one can be asked" }))

const reasonFor = (req: ReturnType<typeof request>, mode: Mode.Mode = "default") =>
  Effect.gen(function*() {
    const subject = yield* engineWith({ mode, homeDirectory: "/home/dev" }, headless)
    return deniedWith(yield* Effect.exit(subject.engine.authorize(req))).reason
  })

describe("AskReason", () => {
  it.effect("a command naming a path outside the workspace says so, and what to do", () =>
    Effect.gen(function*() {
      const cat = yield* reasonFor(request(bash, { command: "cat /etc/hostname" }))
      assert.include(cat, "it names /etc/hostname, outside the workspace")
      assert.include(cat, "Work with paths inside the workspace")
      assert.notInclude(cat, "no rule allows it")
      const ls = yield* reasonFor(request(bash, { command: "ls /etc" }))
      assert.include(ls, "it names /etc, outside the workspace")
      const up = yield* reasonFor(request(bash, { command: "cat ../other/x" }))
      assert.include(up, "it names ../other/x, outside the workspace")
      const input = yield* reasonFor(request(bash, { command: "wc -l < /etc/passwd" }))
      assert.include(input, "it reads /etc/passwd, outside the workspace")
    }))

  it.effect("in dontAsk too", () =>
    Effect.gen(function*() {
      const reason = yield* reasonFor(request(bash, { command: "cat /etc/hostname" }), "dontAsk")
      assert.include(reason, "it names /etc/hostname, outside the workspace")
      assert.include(reason, "dontAsk")
      assert.include(reason, "Work with paths inside the workspace")
    }))

  it.effect("a file tool reading or writing outside the workspace names the path", () =>
    Effect.gen(function*() {
      const read = yield* reasonFor(request(readFile, { path: "/etc/hostname" }))
      assert.include(read, "it reads /etc/hostname, outside the workspace")
      const write = yield* reasonFor(request(writeFile, { path: "/tmp/out.txt", content: "x" }))
      assert.include(write, "it writes /tmp/out.txt, outside the workspace")
    }))

  it.effect("a line that is not a plain command says what bash would expand", () =>
    Effect.gen(function*() {
      const reason = yield* reasonFor(request(bash, { command: "cat $FILE" }))
      assert.include(reason, "it expands a variable")
      assert.include(reason, "plain commands of literal words")
    }))

  it.effect("a wrapper whose command could not be read says so", () =>
    Effect.gen(function*() {
      const reason = yield* reasonFor(request(bash, { command: "sudo --frobnicate ls" }))
      assert.include(reason, "sudo")
      assert.notInclude(reason, "it is not read-only and no rule allows it")
    }))

  it.effect("a redirection no rule lets write, and a command no rule covers, are named", () =>
    Effect.gen(function*() {
      const write = yield* reasonFor(request(bash, { command: "echo x > out.txt" }))
      assert.include(write, "it writes out.txt, and no Edit rule allows writing there")
      const publish = yield* reasonFor(request(bash, { command: "npm publish" }))
      assert.include(publish, "npm publish is not read-only and no rule allows it")
    }))
})

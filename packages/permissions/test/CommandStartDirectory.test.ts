/**
 * A command the shell tool runs elsewhere than the workspace root (its
 * `cwd`): the paths it names resolve from there, so a `Read(./secrets/**)`
 * deny keeps `cat key` run in `secrets/` out as it keeps `cat secrets/key`
 * out, and the workspace's bounds hold from where the command starts.
 * Before, the engine read every command from the root: `cat key` in
 * `secrets/` was a file `key` at the root, and no rule saw the secret.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { engineWith, lastPrompt, type Outcome, outcomeOf } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

type Row = readonly [line: string, cwd: string | undefined, expected: Outcome]

const outcomes = (config: Parameters<typeof engineWith>[0], rows: ReadonlyArray<Row>) =>
  Effect.gen(function*() {
    const subject = yield* engineWith(config)
    const wrong: Array<string> = []
    for (const [line, cwd, expected] of rows) {
      const got = yield* outcomeOf(
        subject,
        request(bash, cwd === undefined ? { command: line } : { command: line, cwd })
      )
      if (got !== expected) wrong.push(`${line} (cwd ${cwd}): ${got}, expected ${expected}`)
    }
    assert.deepStrictEqual(wrong, [])
  })

describe("a command that starts in another directory", () => {
  it.effect("a Read deny holds for the files it names from where it starts, in every mode", () =>
    Effect.gen(function*() {
      for (const mode of ["default", "acceptEdits", "bypassPermissions"] as const) {
        yield* outcomes({ mode, deny: ["Read(./secrets/**)"], allow: ["Bash(cat:*)", "Bash(grep:*)"] }, [
          ["cat key", "secrets", "deny:rule"],
          ["cat ./key", "secrets/", "deny:rule"],
          ["cat key", "/work/project/secrets", "deny:rule"],
          ["cat key", "src/../secrets", "deny:rule"],
          ["cat ../secrets/key", "src", "deny:rule"],
          ["grep -r token .", "secrets", "deny:rule"],
          ["cd .. && cat secrets/key", "src", "deny:rule"],
          ["cat key < other", "secrets/deeper", "deny:rule"],
          // The same words elsewhere name no secret.
          ["cat key", "src", mode === "bypassPermissions" ? "allow:mode" : "allow:rule"],
          ["cat key", undefined, mode === "bypassPermissions" ? "allow:mode" : "allow:rule"]
        ])
      }
    }))

  it.effect("a Read ask and an Edit deny see the paths from where it starts", () =>
    Effect.gen(function*() {
      yield* outcomes({ mode: "default", ask: ["Read(./secrets/**)"], allow: ["Bash(cat:*)"] }, [
        ["cat key", "secrets", "ask"],
        ["cat key", "src", "allow:rule"]
      ])
      yield* outcomes({ mode: "bypassPermissions", deny: ["Edit(./secrets/**)"] }, [
        ["echo x > key", "secrets", "deny:rule"],
        ["cat a.txt >> ./key", "secrets", "deny:rule"],
        ["echo x > key", "src", "allow:mode"]
      ])
    }))

  it.effect("an allow rule's workspace bounds are measured from where it starts", () =>
    outcomes({ mode: "default", allow: ["Bash(cat:*)"] }, [
      // One level up from src is still the workspace; from the root it is not.
      ["cat ../README.md", "src", "allow:rule"],
      ["cat ../README.md", undefined, "ask"],
      ["cat ../../etc/passwd", "src", "ask"],
      ["cat ../../../etc/passwd", "src/a", "ask"]
    ]))

  it.effect("always allow is offered when the paths are inside the workspace from where it starts", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith({ mode: "default" })
      yield* subject.engine.authorize(request(bash, { command: "mytool ../README.md", cwd: "src" }))
      assert.deepStrictEqual((yield* lastPrompt(subject)).rules, ["bash(mytool ../README.md)"])
      yield* subject.engine.authorize(request(bash, { command: "mytool ../README.md" }))
      assert.deepStrictEqual((yield* lastPrompt(subject)).rules, [])
    }))

  it.effect("a person asked about it is told where it runs", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith({ mode: "default" })
      yield* subject.engine.authorize(request(bash, { command: "make build", cwd: "src/app" }))
      const prompt = yield* lastPrompt(subject)
      assert.include(JSON.stringify(prompt), "run in /work/project/src/app")
      yield* subject.engine.authorize(request(bash, { command: "make build", cwd: "." }))
      assert.notInclude(JSON.stringify(yield* lastPrompt(subject)), "run in")
    }))
})

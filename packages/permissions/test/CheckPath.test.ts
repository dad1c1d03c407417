/**
 * `checkPath`: the paths a running call meets by itself (a search over `.`)
 * are judged by the deny and ask rules that name paths.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { engineWith } from "./EngineHarness.js"
import { workspaceRoot } from "./SampleTools.js"

const ws = (path: string) => `${workspaceRoot}/${path}`

describe("Engine.checkPath", () => {
  it.effect("a deny rule denies, an ask rule asks, naming the rule; other paths pass", () =>
    Effect.gen(function*() {
      const { engine } = yield* engineWith({ deny: ["Read(./secret/**)"], ask: ["Read(*.pem)"] })
      assert.deepStrictEqual(engine.checkPath("grep", ws("secret/key"), "read"), {
        verdict: "deny",
        rule: "Read(./secret/**)"
      })
      // The directory itself, as a walk meets it before what is inside.
      assert.deepStrictEqual(engine.checkPath("list_directory", ws("secret"), "read")?.verdict, "deny")
      assert.deepStrictEqual(engine.checkPath("read_file", ws("certs/a.pem"), "read"), {
        verdict: "ask",
        rule: "Read(*.pem)"
      })
      assert.isUndefined(engine.checkPath("grep", ws("src/a.ts"), "read"))
      // Written the long way round, it is the same path.
      assert.strictEqual(engine.checkPath("grep", ws("src/../secret/key"), "read")?.verdict, "deny")
    }))

  it.effect("a Read deny refuses writes too; an Edit deny does not refuse reads", () =>
    Effect.gen(function*() {
      const { engine } = yield* engineWith({ deny: ["Read(./secret/**)", "Edit(./dist/**)"] })
      assert.deepStrictEqual(engine.checkPath("write_file", ws("secret/key"), "write"), {
        verdict: "deny",
        rule: "Read(./secret/**)"
      })
      assert.deepStrictEqual(engine.checkPath("edit_file", ws("dist/a.js"), "write"), {
        verdict: "deny",
        rule: "Edit(./dist/**)"
      })
      assert.isUndefined(engine.checkPath("grep", ws("dist/a.js"), "read"))
    }))

  it.effect("rules without a path are not consulted: they decided the call itself", () =>
    Effect.gen(function*() {
      const { engine } = yield* engineWith({ deny: ["Read", "Bash(cat:*)"], ask: ["grep"] })
      assert.isUndefined(engine.checkPath("grep", ws("src/a.ts"), "read"))
      assert.isUndefined(engine.checkPath("write_file", ws("src/a.ts"), "write"))
    }))

  it.effect("a rule for another tool does not apply; paths compare without case where the workspace does", () =>
    Effect.gen(function*() {
      const { engine } = yield* engineWith({
        deny: ["Read(./Secret/**)"],
        caseInsensitivePaths: true,
        tools: { Read: ["read_file"] }
      })
      assert.isUndefined(engine.checkPath("grep", ws("secret/key"), "read"))
      assert.strictEqual(engine.checkPath("read_file", ws("SECRET/key"), "read")?.verdict, "deny")
    }))
})

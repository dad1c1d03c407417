import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as OutputHygiene from "../src/OutputHygiene.js"
import * as ProcessRunner from "../src/ProcessRunner.js"
import * as Sandbox from "../src/Sandbox.js"

// Real processes, confined by real bubblewrap and not: what of the runner's
// environment reaches a command.

const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "runner-env-")))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))

const secrets = {
  DATABASE_PASSWORD: "DB-PASSWORD-MARKER",
  ANTHROPIC_API_KEY: "sk-ant-MARKER",
  MY_SERVICE_TOKEN: "SERVICE-TOKEN-MARKER"
}

/** The secrets in this process's own environment for the length of one test. */
const withSecretsInProcessEnv = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => Object.assign(process.env, secrets)),
    () => effect,
    () =>
      Effect.sync(() => {
        for (const name of Object.keys(secrets)) delete process.env[name]
      })
  )

const printenv = (layer: Layer.Layer<ProcessRunner.ProcessRunner, unknown>) =>
  Effect.flatMap(
    ProcessRunner.ProcessRunner,
    (runner) => runner.run({ command: "printenv", env: { NO_COLOR: "1", HOME: "/home/from-call" } })
  ).pipe(Effect.provide(layer))

const confined = () => {
  const workspace = NodeFs.mkdtempSync(NodePath.join(scratch, "ws-"))
  return ProcessRunner.layer.pipe(Layer.provide(Sandbox.layer({ workspace, home: scratch })))
}

const namesOf = (result: ProcessRunner.Result) =>
  OutputHygiene.render(result.stdout).text.split("\n").map((line) => line.split("=")[0]!).filter((name) => name !== "")

describe("ProcessRunner environment", () => {
  for (const [name, layer] of [["confined", confined], ["unconfined", () => ProcessRunner.layerUnconfined]] as const) {
    it.live(`${name}: the runner's secrets never reach a command; PATH does, and the call's own variables go on top`, () =>
      withSecretsInProcessEnv(Effect.gen(function*() {
        const result = yield* printenv(layer())
        assert.strictEqual(result.exitCode, 0)
        const out = OutputHygiene.render(result.stdout).text
        for (const value of Object.values(secrets)) assert.notInclude(out, value)
        const names = namesOf(result)
        for (const secret of Object.keys(secrets)) assert.notInclude(names, secret)
        assert.include(names, "PATH")
        assert.include(out, "HOME=/home/from-call\n")
        assert.include(out, "NO_COLOR=1\n")
        assert.isAtLeast(result.confinement.withheldVariables, 3)
        assert.match(result.confinement.summary, / \d+ environment variables withheld$/)
        assert.notInclude(result.confinement.summary, "DATABASE_PASSWORD")
      })))
  }

  it.live("the count is exact for a given environment, and names the unconfined runner too", () =>
    Effect.gen(function*() {
      const result = yield* printenv(
        ProcessRunner.layerUnconfinedWith({
          baseEnvironment: { PATH: process.env.PATH, HOME: "/home/u", ...secrets, KEEP_ME: "kept" }
        })
      )
      // The mark that finds the command's processes wherever they go (it names nothing of the user's).
      assert.deepStrictEqual(namesOf(result).sort(), [
        "HOME",
        "KEEP_ME",
        "NO_COLOR",
        "PATH",
        "TOOL_RUNTIME_PROCESS_MARK"
      ])
      assert.strictEqual(result.confinement.withheldVariables, 3)
      assert.strictEqual(
        result.confinement.summary,
        `${Sandbox.unconfinedRunner.summary}, 3 environment variables withheld`
      )
    }))

  it.live("a sandbox's policy applies to its commands: core, an exclude, and set", () =>
    Effect.gen(function*() {
      const workspace = NodeFs.mkdtempSync(NodePath.join(scratch, "ws-"))
      const result = yield* printenv(
        ProcessRunner.layerWith({
          baseEnvironment: { PATH: process.env.PATH, HOME: "/h", LANG: "C", MY_APP: "x", LC_ALL: "C", TERM: "dumb" }
        }).pipe(
          Layer.provide(Sandbox.layer({
            workspace,
            home: scratch,
            environment: { inherit: "core", exclude: ["TERM"], set: { GIVEN: "yes" } }
          }))
        )
      )
      const out = OutputHygiene.render(result.stdout).text
      assert.include(out, "GIVEN=yes\n")
      assert.include(out, "LC_ALL=C\n")
      assert.notInclude(namesOf(result), "MY_APP")
      assert.notInclude(namesOf(result), "TERM")
      assert.strictEqual(result.confinement.withheldVariables, 2)
      assert.strictEqual(
        result.confinement.summary,
        "sandbox: workspace-write (bubblewrap), network off, 2 environment variables withheld"
      )
    }))
})

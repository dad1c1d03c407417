/**
 * Runs the real `code` command: a scripted coding session in a temporary
 * workspace, with real files and a real `node` process. Its output is what
 * the model would see, so the assertions read it like the model would.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as Module from "node:module"
import * as Path from "node:path"
import * as Url from "node:url"

const appDir = Path.resolve(Path.dirname(Url.fileURLToPath(import.meta.url)), "..")
const tsx = Module.createRequire(import.meta.url).resolve("tsx/cli")

describe("tool-runtime code", () => {
  it(
    "reads and greps together, sees the failing test, edits, sees it pass, and is refused outside the workspace",
    () => {
      const run = ChildProcess.spawnSync(process.execPath, [tsx, "--conditions=@tool-runtime/source", "src/bin.ts", "code"], {
        cwd: appDir,
        encoding: "utf8",
        timeout: 120_000,
        env: { ...process.env, NO_COLOR: "1" }
      })
      assert.strictEqual(run.status, 0, run.stderr)
      const out = run.stdout
      assert.match(out, /together\s+#1 read_file, #2 grep/)
      assert.include(out, "3\texport const subtract = (a, b) => a + b")
      assert.include(out, "src/math.js:3:export const subtract")
      assert.match(
        out,
        /#3 bash .*error: tool_failed[\s\S]*exit code 1[\s\S]*AssertionError \[ERR_ASSERTION\]: subtract\(5, 3\) should be 2/
      )
      assert.include(out, "Edited src/math.js: replaced 1 occurrence.")
      assert.match(out, /#2 bash .*Run the tests again.*ok[\s\S]*3 tests passed/)
      assert.include(out, "read_file refused the call: the path \"../../etc/passwd\" is outside the workspace")
      assert.include(out, "bash refused the call: the working directory \"/etc\" is outside the workspace")
      // The temporary workspace is gone afterwards.
      const root = /workspace: (\S+) \(removed at the end\)/.exec(out)?.[1]
      assert.isDefined(root)
      assert.isFalse(NodeFs.existsSync(root!))
    },
    180_000
  )
})

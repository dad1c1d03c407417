/**
 * Runs the real `code` command: a scripted coding session in a temporary
 * workspace, with real files and a real `node` process. Its output is what
 * the model would see, so the assertions read it like the model would.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as Readline from "node:readline"
import * as CliProcess from "./CliProcess.js"

/** The temporary workspace the session names on its second line. */
const workspaceOf = (output: string) => /workspace: (\S+) \(removed at the end\)/.exec(output)?.[1]

/** The end of a started run. */
const exited = (child: ReturnType<typeof CliProcess.spawn>) =>
  new Promise<{ readonly code: number | null; readonly stderr: string }>((resolve) => {
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr += chunk)
    child.on("close", (code) => resolve({ code, stderr }))
  })

describe("tool-runtime code", () => {
  it(
    "reads and greps together, sees the failing test, edits, sees it pass, and is refused outside the workspace",
    () => {
      const run = CliProcess.piped(["code"])
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
      // Every command ran in the sandbox, and its line says so; the sandbox stopped the escapes.
      assert.include(out, "commands run in: sandbox: workspace-write (bubblewrap), network off")
      const policyLines = out.split("\n").filter((line) =>
        line === "     sandbox: workspace-write (bubblewrap), network off"
      )
      assert.strictEqual(policyLines.length, 4, "one line for each of the four commands that ran")
      assert.include(out, "/usr/local/pwned.txt: Read-only file system")
      assert.isFalse(NodeFs.existsSync("/usr/local/pwned.txt"))
      assert.match(out, /no network: E[A-Z_]+/)
      assert.notMatch(out, /\[stdout\]\n\s*reached the network/)
      // The temporary workspace is gone afterwards.
      const root = workspaceOf(out)
      assert.isDefined(root)
      assert.isFalse(NodeFs.existsSync(root!))
    },
    CliProcess.timeout
  )

  it(
    "a reader that closes stdout early (| head -2) ends the session quietly; the workspace is still removed",
    async () => {
      const child = CliProcess.spawn(["code"])
      try {
        const end = exited(child)
        const lines: Array<string> = []
        const reader = Readline.createInterface({ input: child.stdout })
        await CliProcess.within(
          (async () => {
            for await (const line of reader) {
              lines.push(line)
              if (lines.length === 2) break
            }
          })(),
          "the session printed two lines"
        )
        // What `head -2` does once it has its lines: the pipe's reading end goes away.
        child.stdout.destroy()
        const { code, stderr } = await CliProcess.within(end, "the session ended once its stdout closed")
        assert.strictEqual(stderr, "")
        assert.strictEqual(code, 0)
        const root = workspaceOf(lines.join("\n"))
        assert.isDefined(root, lines.join("\n"))
        assert.isFalse(NodeFs.existsSync(root!))
      } finally {
        child.kill("SIGKILL")
      }
    },
    CliProcess.timeout
  )

  it("SIGINT (Ctrl-C) ends the session with exit code 130, after removing the workspace", async () => {
    const child = CliProcess.spawn(["code"])
    try {
      const end = exited(child)
      let output = ""
      const root = await CliProcess.within(
        new Promise<string>((resolve) =>
          child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
            output += chunk
            const found = workspaceOf(output)
            if (found !== undefined) resolve(found)
          })
        ),
        "the session named its workspace"
      )
      CliProcess.interrupt(child)
      const { code, stderr } = await CliProcess.within(end, "the session ended at SIGINT")
      assert.strictEqual(code, 130, stderr)
      assert.strictEqual(stderr, "")
      assert.isFalse(NodeFs.existsSync(root))
    } finally {
      child.kill("SIGKILL")
    }
  }, CliProcess.timeout)
})

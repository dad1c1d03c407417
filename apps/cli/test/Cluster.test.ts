/**
 * `tool-runtime cluster` with real processes: the demo (three runners, one
 * SIGKILLed mid-turn) runs to its end and leaves no process behind; and
 * `cluster calls` reads a journal a real runner and client wrote.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as CliProcess from "./CliProcess.js"

const timeout = CliProcess.timeout

/** Processes whose command line or environment names `token` (the demo's temporary folder). */
const processesNaming = (token: string): Array<string> =>
  NodeFs.readdirSync("/proc").filter((pid) => /^\d+$/.test(pid) && pid !== String(process.pid)).flatMap((pid) => {
    try {
      const cmdline = NodeFs.readFileSync(`/proc/${pid}/cmdline`, "utf8")
      const environ = (() => {
        try {
          return NodeFs.readFileSync(`/proc/${pid}/environ`, "utf8")
        } catch {
          return ""
        }
      })()
      return cmdline.includes(token) || environ.includes(token) ? [`${pid}: ${cmdline.replace(/\0/g, " ")}`] : []
    } catch {
      return []
    }
  })

const run = (args: ReadonlyArray<string>, env?: Record<string, string>) =>
  new Promise<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
    const child = ChildProcess.spawn(process.execPath, CliProcess.argv(args), {
      cwd: CliProcess.appDir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", ...env }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("close", (status) => resolve({ status, stdout, stderr }))
  })

describe("tool-runtime cluster", () => {
  it(
    "the demo: a runner killed mid-turn, every call accounted for, exit 0, no process left; then `calls`",
    async () => {
      const started = performance.now()
      const result = await CliProcess.within(run(["cluster", "demo", "--keep"]), "cluster demo")
      const seconds = (performance.now() - started) / 1000
      assert.strictEqual(result.status, 0, result.stderr + result.stdout)
      const out = result.stdout
      const dir = /SQLite file in (\/\S+tool-runtime-cluster-\w+) \(kept\)/.exec(out)?.[1]
      assert.isDefined(dir, out)
      try {
        assert.match(out, /SIGKILL runner-\d \(pid \d+\) inside deploy_preview \(effect\), write_file \(idempotent\)/)
        assert.match(out, /deploy_preview\s+effect\s+outcome_unknown \(started on the killed runner\)/)
        assert.match(out, /read_file\s+read\s+replayed from history/)
        assert.match(out, /run_tests\s+read\s+re-run: a read \(attempt 2\)\s+1:runner-\d \(killed\), 2:runner-\d/)
        assert.match(out, /write_file\s+idempotent\s+retried with the same key \(attempt 2\)/)
        assert.match(out, /failover: \d+\.\d s from the SIGKILL/)
        // No runner, nor anything they started, is left: none names the demo's folder on its command line
        // or in its environment (the runners get it in TOOL_RUNTIME_STORAGE and TOOL_RUNTIME_CLUSTER_DEMO).
        assert.deepStrictEqual(processesNaming(NodePath.basename(dir!)), [])
        assert.isBelow(seconds, 60)

        const file = NodePath.join(dir!, "cluster.db")
        const listed = await run(["cluster", "calls", "--session", "agent-7", "--json"], {
          TOOL_RUNTIME_STORAGE: `sqlite:${file}`
        })
        assert.strictEqual(listed.status, 0, listed.stderr)
        const calls = JSON.parse(listed.stdout) as ReadonlyArray<{
          readonly turnId: string
          readonly tool: string
          readonly kind: string
          readonly state: string
          readonly events: ReadonlyArray<{ readonly event: string; readonly runner: string }>
        }>
        assert.deepStrictEqual(calls.map((c) => `${c.turnId} ${c.tool} ${c.kind} ${c.state}`), [
          "turn-1 query_ticket read finished",
          "turn-1 search_knowledge_base read finished",
          "turn-1 reply_to_customer effect finished",
          "turn-2 read_file read finished",
          "turn-2 deploy_preview effect outcome_unknown",
          "turn-2 read_file read finished"
        ])
        const deploy = calls[4]!
        assert.deepStrictEqual(deploy.events.map((e) => e.event), ["started", "outcome_unknown"])
        assert.notStrictEqual(deploy.events[0]!.runner, deploy.events[1]!.runner)
        assert.include(calls[3]!.events.map((e) => e.event), "replayed")

        const human = await run(["cluster", "calls", "--storage", `sqlite:${file}`, "--session", "agent-7"])
        assert.strictEqual(human.status, 0, human.stderr)
        assert.match(human.stdout, /^turn\s+call\s+tool\s+kind\s+state\s+attempt\s+runner/m)
        assert.match(human.stdout, /deploy_preview\s+effect\s+outcome_unknown\s+1\s+runner-\d/)
        const missing = await run(["cluster", "calls", "--storage", `sqlite:${file}.nope`, "--session", "s"])
        assert.strictEqual(missing.status, 1)
        assert.include(missing.stderr, "no such file")
      } finally {
        NodeFs.rmSync(dir!, { recursive: true, force: true })
      }
    },
    timeout
  )
})

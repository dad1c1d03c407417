/**
 * Bash as an oracle for the reading of a line: one bash reads every line
 * with `eval` (the same parser; a syntax error ends only its own line), in a
 * subshell of its own, with shell functions of the caller's that log to
 * `$STUB_LOG`, so nothing forks but what a line itself starts. Bash's answer
 * for the same lines never changes, so it is kept on disk: `pnpm mutate`
 * asks for the same lines once per mutant.
 */
import { assert } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** What `functions` appended to `$STUB_LOG` while bash ran each line, one entry per log line. */
export const loggedRuns = (functions: string, lines: ReadonlyArray<string>): ReadonlyArray<ReadonlyArray<string>> => {
  const script = [
    functions,
    "while IFS= read -r -d '' line; do printf '%s\\n' '--' >> \"$STUB_LOG\"; (eval \"$line\") </dev/null >/dev/null 2>&1; done < \"$LINES\""
  ].join("\n")
  const key = createHash("sha256").update(JSON.stringify([script, lines])).digest("hex")
  const kept = path.join(os.tmpdir(), "tool-runtime-bash-runs", `${key}.json`)
  if (fs.existsSync(kept)) return JSON.parse(fs.readFileSync(kept, "utf8"))
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "bash-eval-"))
  try {
    const log = path.join(scratch, "log")
    const input = path.join(scratch, "lines")
    fs.writeFileSync(log, "")
    fs.writeFileSync(input, lines.map((line) => `${line}\0`).join(""))
    const result = spawnSync("bash", ["--norc", "--noprofile", "-c", script], {
      env: { PATH: "/usr/bin:/bin", STUB_LOG: log, LINES: input, HOME: "/home/someone" },
      cwd: scratch,
      timeout: 30_000,
      stdio: "ignore"
    })
    assert.isNull(result.error ?? null, "bash ran the lines")
    const cases = fs.readFileSync(log, "utf8").split("--\n").slice(1)
    assert.strictEqual(cases.length, lines.length, "bash ran every line")
    const runs = cases.map((runs) => runs.split("\n").filter((run) => run !== ""))
    fs.mkdirSync(path.dirname(kept), { recursive: true })
    fs.writeFileSync(`${kept}.${process.pid}`, JSON.stringify(runs))
    fs.renameSync(`${kept}.${process.pid}`, kept)
    return runs
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

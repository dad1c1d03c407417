#!/usr/bin/env node
// `node scripts/bench-compare.mjs <git ref> [processes]`: the per-call
// pipeline bench (bench/pipeline.ts) of another commit against this tree's,
// in one run: both are bundled, then run as alternating processes (ref,
// here, ref, here…) so that the machine's noise falls on both alike; each
// case's figure is the median over the processes of their medians. Use it
// to show a move or a refactor costs nothing per call.
import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const [ref, count = "8"] = process.argv.slice(2)
if (ref === undefined) {
  console.error("usage: node scripts/bench-compare.mjs <git ref> [processes, default 8]")
  process.exit(2)
}
const processes = Number(count)

const bundle = (tree, out) =>
  execFileSync(join(root, "node_modules/.bin/esbuild"), [
    "--conditions=@tool-runtime/source",
    join(tree, "bench/pipeline.ts"),
    "--bundle",
    "--platform=node",
    "--format=esm",
    "--target=node20",
    `--outfile=${out}`,
    "--log-level=warning"
  ], { cwd: tree, stdio: "inherit" })

const scratch = mkdtempSync(join(tmpdir(), "bench-compare-"))
const other = join(scratch, "tree")
try {
  // The other commit's sources with its own install (links into pnpm's store: seconds), so that
  // its workspace packages resolve to its own sources, not to this tree's.
  execFileSync("git", ["worktree", "add", "--detach", other, ref], { cwd: root, stdio: "ignore" })
  execFileSync("npx", ["--yes", "pnpm@10", "install", "--frozen-lockfile", "--prefer-offline"], {
    cwd: other,
    stdio: "ignore"
  })
  const builds = { [ref]: join(scratch, "before.mjs"), here: join(scratch, "after.mjs") }
  bundle(other, builds[ref])
  bundle(root, builds.here)

  const figures = { [ref]: {}, here: {} }
  for (let i = 0; i < processes; i++) {
    for (const [label, file] of Object.entries(builds)) {
      const run = spawnSync(process.execPath, [file], {
        env: { ...process.env, BENCH_ROUNDS: "150" },
        encoding: "utf8"
      })
      if (run.status !== 0) throw new Error(`${label}: ${run.stderr}`)
      for (const match of run.stdout.matchAll(/^(.+?)\s+([\d.]+) µs/gm)) {
        ;(figures[label][match[1].trim()] ??= []).push(Number(match[2]))
      }
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  console.log(`median µs per call over ${processes} alternating processes of 150 rounds each`)
  console.log(`${"case".padEnd(50)} ${ref.padStart(10)} ${"here".padStart(10)}  ratio`)
  for (const name of Object.keys(figures.here)) {
    const [a, b] = [median(figures[ref][name] ?? [NaN]), median(figures.here[name])]
    console.log(`${name.padEnd(50)} ${a.toFixed(2).padStart(10)} ${b.toFixed(2).padStart(10)}  ${(b / a).toFixed(3)}`)
  }
} finally {
  spawnSync("git", ["worktree", "remove", "--force", other], { cwd: root })
  rmSync(scratch, { recursive: true, force: true })
}

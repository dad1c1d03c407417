#!/usr/bin/env node
// `node scripts/mutation-survivors.mjs <module>`: the mutants a module's last
// `pnpm mutate` run left alive, one line each (where, what became what).
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"

const name = process.argv[2]
const report = join("reports/mutation", name ?? "", "report.json")
if (name === undefined || !existsSync(report)) {
  console.error(`usage: node scripts/mutation-survivors.mjs <module> (after \`pnpm mutate <module>\`)`)
  process.exit(2)
}
const { files } = JSON.parse(readFileSync(report, "utf8"))
for (const [file, { source, mutants }] of Object.entries(files)) {
  const lines = source.split("\n")
  for (const m of mutants) {
    if (m.status !== "Survived" && m.status !== "NoCoverage") continue
    const { start, end } = m.location
    const original = start.line === end.line
      ? lines[start.line - 1].slice(start.column - 1, end.column - 1)
      : `${lines[start.line - 1].slice(start.column - 1)}…`
    const shorten = (s) => s.replace(/\s+/g, " ").slice(0, 90)
    console.log(
      `${file}:${start.line}:${start.column} ${m.status} ${m.mutatorName}: ${shorten(original)} => ${
        shorten(m.replacement ?? "")
      }`
    )
  }
}

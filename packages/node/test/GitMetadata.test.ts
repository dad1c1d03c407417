import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as GitMetadata from "../src/GitMetadata.js"
import * as OutputHygiene from "../src/OutputHygiene.js"
import * as ProcessRunner from "../src/ProcessRunner.js"
import * as Sandbox from "../src/Sandbox.js"

// Real git in a real bubblewrap sandbox: commands may commit, but not change
// what the user's own git runs later.

const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "git-metadata-")))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))

const identity = "git -c user.name=t -c user.email=t@example.com"

const git = (cwd: string, ...args: Array<string>) =>
  NodeChildProcess.execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  })

const repository = () => {
  const workspace = NodeFs.mkdtempSync(NodePath.join(scratch, "ws-"))
  git(workspace, "init", "-q")
  NodeFs.writeFileSync(NodePath.join(workspace, "a.txt"), "a\n")
  git(workspace, "add", "a.txt")
  git(workspace, "commit", "-q", "-m", "first")
  return workspace
}

const run = (config: Sandbox.Config, script: string) =>
  Effect.flatMap(
    ProcessRunner.ProcessRunner,
    (runner) => runner.run({ command: "bash", args: ["-c", script], cwd: config.workspace })
  ).pipe(
    Effect.map((result) => ({
      result,
      out: OutputHygiene.render(result.stdout).text,
      err: OutputHygiene.render(result.stderr).text
    })),
    Effect.provide(ProcessRunner.layer.pipe(Layer.provide(Sandbox.layer({ home: scratch, ...config }))))
  )

const attack = [
  "printf '#!/bin/sh\\necho HOOK-RAN\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo wrote-hook",
  "echo '[core] fsmonitor = evil' >> .git/config && echo wrote-config",
  "mv .git .git-aside && echo moved-git",
  "rm -rf .git/hooks && echo removed-hooks",
  "true"
].join("; ")

describe("GitMetadata", () => {
  it.live("a confined git can init, add and commit", () =>
    Effect.gen(function*() {
      const workspace = NodeFs.mkdtempSync(NodePath.join(scratch, "ws-"))
      NodeFs.writeFileSync(NodePath.join(workspace, "x.txt"), "x\n")
      const { err, result } = yield* run(
        { workspace },
        `git init -q && git add -A && ${identity} commit -q -m x && git log --format=%s`
      )
      assert.strictEqual(result.exitCode, 0, err)
      assert.strictEqual(git(workspace, "log", "--format=%s").trim(), "x")
    }))

  it.live("in an existing repository: commits land, hooks and config cannot be written, .git cannot be moved aside", () =>
    Effect.gen(function*() {
      const workspace = repository()
      const config = NodeFs.readFileSync(NodePath.join(workspace, ".git", "config"), "utf8")
      const { err, out } = yield* run(
        { workspace },
        `echo b > b.txt && git add b.txt && ${identity} commit -q -m second && echo committed; ${attack}`
      )
      assert.include(out, "committed", err)
      for (const word of ["wrote-hook", "wrote-config", "moved-git", "removed-hooks"]) assert.notInclude(out, word)
      assert.strictEqual(git(workspace, "log", "--format=%s").trim(), "second\nfirst")
      assert.isFalse(NodeFs.existsSync(NodePath.join(workspace, ".git", "hooks", "pre-commit")))
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(workspace, ".git", "config"), "utf8"), config)
      assert.isFalse(NodeFs.existsSync(NodePath.join(workspace, ".git-aside")))
      // The user's own commit runs no planted hook.
      NodeFs.writeFileSync(NodePath.join(workspace, "c.txt"), "c\n")
      git(workspace, "add", "c.txt")
      assert.notInclude(git(workspace, "commit", "-m", "third"), "HOOK-RAN")
    }))

  it.live("a repository without a hooks directory gets an empty read-only one", () =>
    Effect.gen(function*() {
      const workspace = repository()
      NodeFs.rmSync(NodePath.join(workspace, ".git", "hooks"), { recursive: true })
      const { out } = yield* run({ workspace }, attack)
      assert.notInclude(out, "wrote-hook")
      assert.deepStrictEqual(NodeFs.readdirSync(NodePath.join(workspace, ".git", "hooks")), [])
    }))

  it.live("submodules and worktrees: their git directories and .git files are protected too", () =>
    Effect.gen(function*() {
      const upstream = repository()
      const workspace = repository()
      git(workspace, "-c", "protocol.file.allow=always", "submodule", "add", "-q", upstream, "sub")
      git(workspace, "commit", "-q", "-m", "sub")
      git(workspace, "worktree", "add", "-q", "tree")
      const { out } = yield* run(
        { workspace },
        [
          "echo x > .git/modules/sub/hooks/pre-commit && echo wrote-module-hook",
          "echo x >> .git/modules/sub/config && echo wrote-module-config",
          "echo 'gitdir: ../elsewhere' > sub/.git && echo wrote-sub-pointer",
          "echo 'gitdir: ../elsewhere' > tree/.git && echo wrote-tree-pointer",
          "mv .git/modules/sub .git/modules/aside && echo moved-module",
          "mv sub sub-aside && echo moved-sub",
          "true"
        ].join("; ")
      )
      for (
        const word of [
          "wrote-module-hook",
          "wrote-module-config",
          "wrote-sub-pointer",
          "wrote-tree-pointer",
          "moved-module",
          "moved-sub"
        ]
      ) {
        assert.notInclude(out, word)
      }
      assert.include(NodeFs.readFileSync(NodePath.join(workspace, "sub", ".git"), "utf8"), "modules/sub")
    }))

  it.live("a repository nested in the workspace is protected like the workspace's own", () =>
    Effect.gen(function*() {
      const workspace = repository()
      const nestedRepo = NodePath.join(workspace, "vendor", "lib")
      NodeFs.mkdirSync(nestedRepo, { recursive: true })
      git(nestedRepo, "init", "-q")
      const config = NodeFs.readFileSync(NodePath.join(nestedRepo, ".git", "config"), "utf8")
      const { out } = yield* run(
        { workspace },
        "cd vendor/lib && printf '#!/bin/sh\\necho HOOK-RAN\\n' > .git/hooks/pre-commit && echo wrote-hook; echo '[core] fsmonitor = evil' >> .git/config && echo wrote-config; mv .git .git-aside && echo moved-git; true"
      )
      for (const word of ["wrote-hook", "wrote-config", "moved-git"]) assert.notInclude(out, word)
      assert.isFalse(NodeFs.existsSync(NodePath.join(nestedRepo, ".git", "hooks", "pre-commit")))
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(nestedRepo, ".git", "config"), "utf8"), config)
    }))

  it.live("writableGitMetadata lets commands write them, as the loud name says", () =>
    Effect.gen(function*() {
      const workspace = repository()
      const { out } = yield* run(
        { workspace, writableGitMetadata: true },
        attack.replace("mv .git .git-aside", "false")
      )
      assert.include(out, "wrote-hook")
      assert.include(out, "wrote-config")
    }))

  it("the plan protects only what lies in the writable trees", () => {
    const workspace = repository()
    const outside = repository()
    const protection = GitMetadata.protection([workspace])
    assert.deepStrictEqual(protection.pinned, [NodePath.join(workspace, ".git")])
    assert.sameMembers([...protection.readOnly], [
      NodePath.join(workspace, ".git", "hooks"),
      NodePath.join(workspace, ".git", "config")
    ])
    assert.isFalse(protection.readOnly.some((path) => path.startsWith(outside)))
  })
})

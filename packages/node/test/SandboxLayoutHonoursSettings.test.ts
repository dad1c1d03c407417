/**
 * The sandbox layout does what the settings say, at each command's start:
 * `~` in a writable path is the configured home; the default denied paths
 * stay masked unless `replaceDefaultDenyRead` is exactly `true`; and the
 * permission engine's Read deny rules are masked under every confined
 * policy (read-only included), while its Edit deny rules add read-only
 * mounts only where something is writable. `writableGitMetadata: true`
 * leaves git's hooks and configuration as writable as the rest of the
 * tree, and each real path is masked once, however many settings and
 * rules name it.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import type * as PathMask from "../src/PathMask.js"
import * as SandboxLayout from "../src/SandboxLayout.js"

const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "sandbox-settings-layout-")))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))
let sequence = 0

/** A workspace with a secret directory and a file to protect; a home with every default denied path and a cache. */
const fixture = () => {
  const root = NodeFs.mkdtempSync(NodePath.join(scratch, `t${++sequence}-`))
  const workspace = NodePath.join(root, "ws")
  const home = NodePath.join(root, "home")
  for (const dir of ["secret", "src"]) NodeFs.mkdirSync(NodePath.join(workspace, dir), { recursive: true })
  NodeFs.writeFileSync(NodePath.join(workspace, "secret", "key"), "k\n")
  NodeFs.writeFileSync(NodePath.join(workspace, "src", "locked.ts"), "x\n")
  for (const dir of [".ssh", ".aws", ".config/gcloud", ".cache"]) {
    NodeFs.mkdirSync(NodePath.join(home, dir), { recursive: true })
  }
  for (const file of [".netrc", ".npmrc"]) NodeFs.writeFileSync(NodePath.join(home, file), "x\n")
  return { workspace, home }
}

/** A repository in the workspace (hooks and config) and one nested in it without hooks. */
const repositories = (workspace: string) => {
  const top = NodePath.join(workspace, ".git")
  const nested = NodePath.join(workspace, "vendor", "lib", ".git")
  NodeFs.mkdirSync(NodePath.join(top, "hooks"), { recursive: true })
  NodeFs.mkdirSync(nested, { recursive: true })
  for (const gitDir of [top, nested]) {
    NodeFs.writeFileSync(NodePath.join(gitDir, "HEAD"), "ref: refs/heads/main\n")
    NodeFs.writeFileSync(NodePath.join(gitDir, "config"), "[core]\n")
  }
  return { top, nested }
}

const exactly = (path: string, rule: string): PathMask.PathMatcher => ({
  base: path,
  exact: true,
  test: (absolute) => absolute === path || absolute.startsWith(`${path}/`),
  rule
})

const deniedPaths = (plan: SandboxLayout.Plan) => plan.denied.map((denied) => denied.path).sort()

const defaults = (home: string) =>
  [".ssh", ".aws", ".config/gcloud", ".netrc", ".npmrc"].map((path) => NodePath.join(home, path)).sort()

const right = <A, E>(either: Either.Either<A, E>): A => {
  if (Either.isLeft(either)) assert.fail(String(either.left))
  return (either as Either.Right<E, A>).right
}

describe("the sandbox layout honours its settings", () => {
  it("~ in a writable path is the configured home; a missing one is left out", () => {
    const { home, workspace } = fixture()
    const plan = SandboxLayout.plan(
      { workspace, home, writablePaths: ["~/.cache", "~/missing"] },
      "workspace-write",
      "/tmp/x"
    )
    assert.deepStrictEqual(plan.writable, [workspace, NodePath.join(home, ".cache")])
    // read-only: nothing is writable, ~ or not.
    assert.deepStrictEqual(
      SandboxLayout.plan({ workspace, home, writablePaths: ["~/.cache"] }, "read-only", "").writable,
      []
    )
  })

  it("~ alone in a writable path is the configured home itself", () => {
    const { home, workspace } = fixture()
    const plan = SandboxLayout.plan({ workspace, home, writablePaths: ["~"] }, "workspace-write", "")
    assert.deepStrictEqual(plan.writable, [workspace, home])
  })

  it("a relative writable path is relative to the workspace, not to the process's directory", () => {
    const { home, workspace } = fixture()
    // A name the process's directory does not hold (the test cannot change
    // directory: a worker thread may not), which the workspace does.
    const name = NodePath.basename(NodeFs.mkdtempSync(NodePath.join(workspace, "out-")))
    assert.isFalse(NodeFs.existsSync(NodePath.resolve(name)))
    const plan = SandboxLayout.plan({ workspace, home, writablePaths: [name] }, "workspace-write", "")
    assert.deepStrictEqual(plan.writable, [workspace, NodePath.join(workspace, name)])
  })

  it("the default denied paths are masked unless replaceDefaultDenyRead is true", () => {
    const { home, workspace } = fixture()
    for (const replaceDefaultDenyRead of [undefined, false]) {
      const plan = SandboxLayout.plan({ workspace, home, replaceDefaultDenyRead }, "workspace-write", "")
      assert.deepStrictEqual(deniedPaths(plan), defaults(home), `replaceDefaultDenyRead: ${replaceDefaultDenyRead}`)
    }
    const replaced = SandboxLayout.plan(
      { workspace, home, replaceDefaultDenyRead: true, denyRead: ["secret"] },
      "workspace-write",
      ""
    )
    assert.deepStrictEqual(deniedPaths(replaced), [NodePath.join(workspace, "secret")])
    // Added to, not replaced: denyRead beside the defaults.
    const added = SandboxLayout.plan({ workspace, home, denyRead: ["secret"] }, "read-only", "")
    assert.deepStrictEqual(deniedPaths(added), [...defaults(home), NodePath.join(workspace, "secret")].sort())
  })

  it("Read deny rules are masked under read-only too, not only under workspace-write", () => {
    const { home, workspace } = fixture()
    const secret = NodePath.join(workspace, "secret")
    const config: SandboxLayout.Input = {
      workspace,
      home,
      replaceDefaultDenyRead: true,
      denyReadMatching: [exactly(secret, "Read(./secret/**)")]
    }
    for (const policy of ["read-only", "workspace-write"] as const) {
      const plan = right(SandboxLayout.withMatches(config, SandboxLayout.plan(config, policy, "")))
      assert.deepStrictEqual(plan.denied, [{ path: secret, directory: true }], policy)
    }
  })

  it("Edit deny rules bind read-only where the tree is writable, and add nothing under read-only", () => {
    const { home, workspace } = fixture()
    const locked = NodePath.join(workspace, "src", "locked.ts")
    const config: SandboxLayout.Input = {
      workspace,
      home,
      replaceDefaultDenyRead: true,
      denyWriteMatching: [exactly(locked, "Edit(./src/locked.ts)")]
    }
    const writable = right(SandboxLayout.withMatches(config, SandboxLayout.plan(config, "workspace-write", "")))
    assert.include(writable.readOnly, locked)
    // Pinned on the way to it, so that src cannot be moved aside.
    assert.include(writable.pinned, NodePath.join(workspace, "src"))
    const readOnly = right(SandboxLayout.withMatches(config, SandboxLayout.plan(config, "read-only", "")))
    assert.deepStrictEqual(readOnly.readOnly, [])
    assert.deepStrictEqual(readOnly.denied, [])
  })

  it("writableGitMetadata: true leaves git's hooks and config writable; unset or false, they are protected", () => {
    const { home, workspace } = fixture()
    const { nested, top } = repositories(workspace)
    const open = SandboxLayout.plan(
      { workspace, home, replaceDefaultDenyRead: true, writableGitMetadata: true },
      "workspace-write",
      ""
    )
    assert.deepStrictEqual(
      { pinned: open.pinned, readOnly: open.readOnly, emptyReadOnly: open.emptyReadOnly },
      // Only the runtime's own settings directory, which is not git's (see ProjectConfig).
      { pinned: [], readOnly: [], emptyReadOnly: [NodePath.join(workspace, ".tool-runtime")] }
    )
    assert.deepStrictEqual(SandboxLayout.bubblewrapArgs(open, undefined).filter((arg) => arg.includes(".git")), [])
    for (const writableGitMetadata of [undefined, false]) {
      const guarded = SandboxLayout.plan(
        { workspace, home, replaceDefaultDenyRead: true, writableGitMetadata },
        "workspace-write",
        ""
      )
      const because = `writableGitMetadata: ${writableGitMetadata}`
      assert.includeMembers([...guarded.readOnly], [NodePath.join(top, "hooks"), NodePath.join(top, "config")], because)
      assert.deepStrictEqual(
        guarded.emptyReadOnly,
        [NodePath.join(nested, "hooks"), NodePath.join(workspace, ".tool-runtime")],
        because
      )
      assert.includeMembers([...guarded.pinned], [top, nested], because)
    }
  })

  it("each real path is masked once, however many settings and rules name it", () => {
    const { home, workspace } = fixture()
    const secret = NodePath.join(workspace, "secret")
    NodeFs.symlinkSync(secret, NodePath.join(workspace, "secret-link"))
    const config: SandboxLayout.Input = {
      workspace,
      home,
      // ~/.ssh is a default too; the others are the same directory named three ways.
      denyRead: ["~/.ssh", "secret", "./secret/", "secret-link", secret],
      denyReadMatching: [exactly(secret, "Read(./secret/**)"), exactly(NodePath.join(home, ".npmrc"), "Read(~/.npmrc)")]
    }
    const expected = [...defaults(home), secret].sort()
    for (const policy of ["read-only", "workspace-write"] as const) {
      const layout = SandboxLayout.plan(config, policy, "")
      assert.deepStrictEqual(deniedPaths(layout), expected, `${policy}: the settings alone`)
      assert.deepStrictEqual(
        deniedPaths(right(SandboxLayout.withMatches(config, layout))),
        expected,
        `${policy}: with the Read deny rules`
      )
    }
  })
})

/**
 * A protected path inside a writable tree cannot be moved aside: every
 * directory between the writable root and it is pinned (bound over
 * itself), and nothing else is. Not the root, which its own bind already
 * holds; and never a directory outside the writable trees, where a pin
 * would be a writable bind over the read-only host.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import type * as PathMask from "../src/PathMask.js"
import * as SandboxLayout from "../src/SandboxLayout.js"

const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "sandbox-pins-")))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))
let sequence = 0

const gitDir = (path: string, hooks: boolean) => {
  NodeFs.mkdirSync(hooks ? NodePath.join(path, "hooks") : path, { recursive: true })
  NodeFs.writeFileSync(NodePath.join(path, "HEAD"), "ref: refs/heads/main\n")
  NodeFs.writeFileSync(NodePath.join(path, "config"), "[core]\n")
}

/** A workspace holding a repository, and one nested two levels down without hooks; a tree beside it. */
const fixture = () => {
  const root = NodeFs.mkdtempSync(NodePath.join(scratch, `t${++sequence}-`))
  const workspace = NodePath.join(root, "ws")
  gitDir(NodePath.join(workspace, ".git"), true)
  gitDir(NodePath.join(workspace, "vendor", "lib", ".git"), false)
  const outside = NodePath.join(root, "elsewhere", "deeper", "notes.txt")
  NodeFs.mkdirSync(NodePath.dirname(outside), { recursive: true })
  NodeFs.writeFileSync(outside, "x\n")
  return { root, workspace, outside }
}

const exactly = (path: string): PathMask.PathMatcher => ({
  base: path,
  exact: true,
  test: (absolute) => absolute === path || absolute.startsWith(`${path}/`),
  rule: `Edit(${path})`
})

const inside = (path: string, roots: ReadonlyArray<string>) => roots.some((root) => path.startsWith(`${root}/`))

describe("the sandbox layout pins what holds a protected path, and only that", () => {
  it("every directory between the workspace and a nested repository's metadata is pinned, the workspace itself not", () => {
    const { workspace } = fixture()
    const plan = SandboxLayout.plan({ workspace, replaceDefaultDenyRead: true }, "workspace-write", "")
    assert.deepStrictEqual(
      [...plan.pinned].sort(),
      [".git", "vendor", "vendor/lib", "vendor/lib/.git"].map((path) => NodePath.join(workspace, path))
    )
    // Whatever is pinned is held by a pin or the root's bind all the way down.
    for (const path of [...plan.readOnly, ...plan.emptyReadOnly]) {
      for (let parent = NodePath.dirname(path); parent !== workspace; parent = NodePath.dirname(parent)) {
        assert.include(plan.pinned, parent, path)
      }
    }
  })

  it("a second writable root is not pinned by the repository inside it", () => {
    const { root, workspace } = fixture()
    const cache = NodePath.join(root, "cache")
    gitDir(NodePath.join(cache, ".git"), true)
    const plan = SandboxLayout.plan(
      { workspace, writablePaths: [cache], replaceDefaultDenyRead: true },
      "workspace-write",
      ""
    )
    assert.deepStrictEqual(plan.writable, [workspace, cache])
    assert.include(plan.pinned, NodePath.join(cache, ".git"))
    for (const path of plan.pinned) {
      assert.notInclude(plan.writable, path)
      assert.isTrue(inside(path, plan.writable), path)
    }
  })

  it("an Edit deny rule outside every writable tree pins nothing: no directory of the host becomes writable", () => {
    const { outside, workspace } = fixture()
    const config: SandboxLayout.Input = {
      workspace,
      replaceDefaultDenyRead: true,
      writableGitMetadata: true,
      denyWriteMatching: [exactly(outside)]
    }
    const layout = Either.getOrThrow(
      SandboxLayout.withMatches(config, SandboxLayout.plan(config, "workspace-write", ""))
    )
    assert.deepStrictEqual(layout.pinned, [])
    assert.deepStrictEqual(layout.readOnly, [outside])
    const args = SandboxLayout.bubblewrapArgs(layout, undefined)
    const writable = args.flatMap((arg, i) => arg === "--bind" ? [args[i + 2]!] : [])
    assert.deepStrictEqual(writable, ["/tmp", workspace])
  })
})

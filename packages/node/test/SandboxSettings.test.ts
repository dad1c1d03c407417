import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as OutputHygiene from "../src/OutputHygiene.js"
import * as ProcessRunner from "../src/ProcessRunner.js"
import * as Sandbox from "../src/Sandbox.js"
import * as SandboxSettings from "../src/SandboxSettings.js"

const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "sandbox-settings-")))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))

const decode = (sandbox: unknown, level: SandboxSettings.Level = "user", file = `${level}.json`) =>
  SandboxSettings.decode(file, JSON.stringify({ permissions: { allow: [] }, sandbox }), level)

const right = <A, E>(either: Either.Either<A, E>): A => {
  if (Either.isLeft(either)) assert.fail(String(either.left))
  return (either as Either.Right<E, A>).right
}

const issuesOf = (either: Either.Either<unknown, SandboxSettings.SettingsError>) =>
  Either.isLeft(either) ? either.left.issues : []

describe("SandboxSettings", () => {
  it("decodes every key; the permission engine's key is left alone; other files' keys are ignored", () => {
    const settings = right(decode({
      policy: "read-only",
      writablePaths: ["~/.cache"],
      denyRead: ["secrets"],
      network: { allowedDomains: ["*.npmjs.org"] },
      fallback: "unconfined",
      allowUnsandboxedCommands: true,
      autoAllowSandboxedCommands: true,
      environment: { inherit: "core", exclude: ["MY_*"], allow: ["GH_TOKEN"], includeOnly: ["*"], set: { A: "b" } },
      writableGitMetadata: true
    }))
    assert.deepStrictEqual(settings, {
      policy: "read-only",
      writablePaths: ["~/.cache"],
      denyRead: ["secrets"],
      network: { _tag: "Allowlist", allowedDomains: ["*.npmjs.org"], deniedDomains: [] },
      fallback: "unconfined",
      allowUnsandboxedCommands: true,
      environment: { inherit: "core", exclude: ["MY_*"], allow: ["GH_TOKEN"], includeOnly: ["*"], set: { A: "b" } },
      writableGitMetadata: true,
      sources: ["user.json"]
    })
    assert.deepStrictEqual(right(SandboxSettings.decode("f.json", "{\"model\": \"x\"}", "user")), {
      ...SandboxSettings.empty,
      sources: ["f.json"]
    })
  })

  it("a typo or a wrong type is an error naming the field", () => {
    assert.deepStrictEqual(issuesOf(decode({ polcy: "read-only" })).map((issue) => issue.field), ["sandbox.polcy"])
    const issues = issuesOf(decode({ policy: "wide-open", network: { allowedDomains: "npmjs.org" } }))
    assert.deepStrictEqual(issues.map((issue) => issue.field).sort(), ["sandbox.network", "sandbox.policy"])
    const environment = issuesOf(decode({ environment: { inherits: "core", exclude: "MY_*" } }))
    assert.deepStrictEqual(environment.map((issue) => issue.field).sort(), [
      "sandbox.environment.exclude",
      "sandbox.environment.inherits"
    ])
    assert.include(environment.find((issue) => issue.field.endsWith("inherits"))?.expected, "inherit, exclude")
    assert.deepStrictEqual(issuesOf(SandboxSettings.decode("f.json", "{ nope", "user")), [
      { field: "(file)", expected: "expected a JSON object" }
    ])
  })

  it("a project's file cannot widen: each widening key is an error naming it", () => {
    const issues = issuesOf(decode({
      policy: "danger-full-access",
      writablePaths: ["/"],
      fallback: "unconfined",
      allowUnsandboxedCommands: true,
      writableGitMetadata: true,
      environment: { set: { LD_PRELOAD: "/ws/evil.so" }, allow: ["*"] }
    }, "project"))
    assert.deepStrictEqual(issues.map((issue) => issue.field), [
      "sandbox.policy",
      "sandbox.writablePaths",
      "sandbox.fallback",
      "sandbox.allowUnsandboxedCommands",
      "sandbox.writableGitMetadata",
      "sandbox.environment.set",
      "sandbox.environment.allow"
    ])
    for (const issue of issues) assert.include(issue.expected, "only be set in the user's settings")
    const network = SandboxSettings.merge(SandboxSettings.empty, right(decode({ network: "on" }, "project")))
    assert.deepStrictEqual(issuesOf(network).map((issue) => issue.field), ["sandbox.network"])
  })

  it("merging: the project narrows an allowlist to the rules both list, and adds denied domains and paths", () => {
    const user = right(decode({ network: { allowedDomains: ["a.com", "b.com"] }, denyRead: ["x"] }))
    const project = right(decode({
      network: { allowedDomains: ["b.com", "c.com"], deniedDomains: ["evil.b.com"] },
      denyRead: ["y"]
    }, "project"))
    const merged = right(SandboxSettings.merge(user, project))
    assert.deepStrictEqual(merged.network, {
      _tag: "Allowlist",
      allowedDomains: ["b.com"],
      deniedDomains: ["evil.b.com"]
    })
    assert.deepStrictEqual(merged.denyRead, ["x", "y"])
    assert.deepStrictEqual(merged.sources, ["user.json", "project.json"])
  })

  it("merging the environment: the project's inherit counts where stricter, excludes add, includeOnly intersects", () => {
    const user = right(decode({ environment: { inherit: "all", set: { K: "v" }, includeOnly: ["PATH", "HOME"] } }))
    const project = right(
      decode({ environment: { inherit: "core", exclude: ["X_*"], includeOnly: ["PATH"] } }, "project")
    )
    assert.deepStrictEqual(right(SandboxSettings.merge(user, project)).environment, {
      inherit: "core",
      exclude: ["X_*"],
      includeOnly: ["PATH"],
      set: { K: "v" }
    })
    const looser = right(decode({ environment: { inherit: "all" } }, "project"))
    const strict = right(decode({ environment: { inherit: "none" } }))
    assert.strictEqual(right(SandboxSettings.merge(strict, looser)).environment?.inherit, "none")
    const git = right(decode({ writableGitMetadata: true }))
    assert.isTrue(right(SandboxSettings.merge(git, SandboxSettings.empty)).writableGitMetadata)
    assert.isFalse(
      right(SandboxSettings.merge(git, right(decode({ writableGitMetadata: false }, "project")))).writableGitMetadata
    )
    assert.strictEqual(
      SandboxSettings.toConfig(right(SandboxSettings.merge(user, project)), { workspace: "/w" }).environment?.inherit,
      "core"
    )
  })

  const policy = FastCheck.constantFrom<Sandbox.Policy | undefined>(
    undefined,
    "read-only",
    "workspace-write",
    "danger-full-access"
  )
  const network = FastCheck.constantFrom<"off" | "on" | { allowedDomains: Array<string> } | undefined>(
    undefined,
    "off",
    "on",
    { allowedDomains: ["a.com"] },
    { allowedDomains: ["a.com", "b.com"] }
  )
  const strictness = (n: Sandbox.Network | undefined) =>
    n === undefined || n._tag === "Off" ? 2 : n._tag === "Allowlist" ? 1 : 0

  it.prop(
    "whatever a project says, the merge is never looser than the user's settings alone",
    [policy, network, policy, network, FastCheck.boolean(), FastCheck.boolean()],
    ([userPolicy, userNetwork, projectPolicy, projectNetwork, userUnsandboxed, projectUnsandboxed]) => {
      const user = right(decode({
        ...(userPolicy === undefined ? {} : { policy: userPolicy }),
        ...(userNetwork === undefined ? {} : { network: userNetwork }),
        allowUnsandboxedCommands: userUnsandboxed
      }))
      const project = decode({
        ...(projectPolicy === undefined ? {} : { policy: projectPolicy }),
        ...(projectNetwork === undefined ? {} : { network: projectNetwork }),
        allowUnsandboxedCommands: projectUnsandboxed
      }, "project")
      const merged = Either.flatMap(project, (p) => SandboxSettings.merge(user, p))
      if (Either.isLeft(merged)) return true
      const m = merged.right
      const rank = (p: Sandbox.Policy | undefined) => p === undefined ? 1 : Sandbox.strictness[p]
      assert.isAtLeast(rank(m.policy), rank(user.policy))
      assert.isAtLeast(strictness(m.network), strictness(user.network))
      if (m.network?._tag === "Allowlist" && user.network?._tag === "Allowlist") {
        for (const rule of m.network.allowedDomains) assert.include(user.network.allowedDomains, rule)
      }
      assert.isTrue(!m.allowUnsandboxedCommands || user.allowUnsandboxedCommands)
      return true
    }
  )

  it.live("end to end: the settings files themselves are hidden from commands", () =>
    Effect.gen(function*() {
      const root = NodeFs.mkdtempSync(NodePath.join(scratch, "e2e-"))
      const workspace = NodePath.join(root, "ws")
      NodeFs.mkdirSync(NodePath.join(workspace, ".tool-runtime"), { recursive: true })
      const userFile = NodePath.join(root, "user-settings.json")
      const projectFile = NodePath.join(workspace, ".tool-runtime", "settings.json")
      NodeFs.writeFileSync(userFile, JSON.stringify({ sandbox: { denyRead: ["private"] }, marker: "USER-MARKER" }))
      NodeFs.writeFileSync(projectFile, JSON.stringify({ sandbox: { policy: "read-only" }, marker: "PROJECT-MARKER" }))
      NodeFs.mkdirSync(NodePath.join(workspace, "private"))
      NodeFs.writeFileSync(NodePath.join(workspace, "private", "key"), "PRIVATE-MARKER")
      const settings = yield* SandboxSettings.load({ user: userFile, project: projectFile })
      assert.strictEqual(settings.policy, "read-only")
      const config = SandboxSettings.toConfig(settings, { workspace, home: NodePath.join(root, "home") })
      const result = yield* Effect.flatMap(ProcessRunner.ProcessRunner, (runner) =>
        runner.run({
          command: "bash",
          args: ["-c", `cat ${userFile} ${projectFile} private/key 2>&1; echo '{}' > ${projectFile} || echo refused`],
          cwd: workspace
        })).pipe(Effect.provide(ProcessRunner.layer.pipe(Layer.provide(Sandbox.layer(config)))))
      const out = OutputHygiene.render(result.stdout).text
      for (const marker of ["USER-MARKER", "PROJECT-MARKER", "PRIVATE-MARKER"]) assert.notInclude(out, marker)
      assert.include(out, "refused")
      assert.include(NodeFs.readFileSync(projectFile, "utf8"), "PROJECT-MARKER")
      assert.strictEqual(result.confinement?.policy, "read-only")
    }))
})

import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as OutputHygiene from "../src/OutputHygiene.js"
import * as PathMask from "../src/PathMask.js"
import * as ProcessRunner from "../src/ProcessRunner.js"
import * as Sandbox from "../src/Sandbox.js"

// Deny rules mirrored into a real bubblewrap sandbox: whatever a command
// does to reach a denied file, it reads nothing of it.

const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "path-mask-")))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))

const write = (path: string, text: string) => {
  NodeFs.mkdirSync(NodePath.dirname(path), { recursive: true })
  NodeFs.writeFileSync(path, text)
}

/** A workspace with a denied directory, `.env` files at several depths, and files to edit. */
const fixture = () => {
  const workspace = NodeFs.mkdtempSync(NodePath.join(scratch, "ws-"))
  write(NodePath.join(workspace, "secret", "x"), "MARKER-SECRET-DIR\n")
  write(NodePath.join(workspace, ".env"), "MARKER-ENV-TOP\n")
  write(NodePath.join(workspace, "app", "deep", "prod.env"), "MARKER-ENV-DEEP\n")
  write(NodePath.join(workspace, "app", "deep", "x"), "visible\n")
  write(NodePath.join(workspace, "src", "locked.ts"), "locked\n")
  write(NodePath.join(workspace, "src", "other.ts"), "other\n")
  return workspace
}

const exactly = (path: string): PathMask.PathMatcher => ({
  base: path,
  exact: true,
  test: (absolute) => absolute === path || absolute.startsWith(`${path}/`),
  rule: `Read(${path})`
})

const envAnywhere = (base: string): PathMask.PathMatcher => ({
  base,
  exact: false,
  test: (absolute) => absolute.endsWith(".env"),
  rule: "Read(**/*.env)"
})

const run = (config: Sandbox.Config, script: string) =>
  Effect.flatMap(
    ProcessRunner.ProcessRunner,
    (runner) => runner.run({ command: "bash", args: ["-c", script], cwd: config.workspace })
  ).pipe(
    Effect.map((result) => OutputHygiene.render(result.stdout).text + OutputHygiene.render(result.stderr).text),
    Effect.provide(ProcessRunner.layer.pipe(Layer.provide(Sandbox.layer({ home: scratch, ...config }))))
  )

describe("PathMask", () => {
  it.live("read matchers: no way of reading reaches a denied file", () =>
    Effect.gen(function*() {
      const workspace = fixture()
      const config: Sandbox.Config = {
        workspace,
        denyReadMatching: [exactly(NodePath.join(workspace, "secret")), envAnywhere(workspace)]
      }
      const out = yield* run(
        config,
        [
          "cat secret/x",
          "cat sec*/x",
          "cat .env app/deep/prod.env",
          "grep -r MARKER .",
          "find . -name x -exec cat {} +",
          "find . -name '*.env' -exec cat {} +",
          "python3 -c \"print(open('secret/x').read())\"",
          "python3 -c \"print(open('app/deep/prod.env').read())\"",
          "echo stolen > .env || echo refused-write",
          "true"
        ].join("; ")
      )
      assert.notInclude(out, "MARKER")
      assert.include(out, "visible")
      assert.include(out, "refused-write")
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(workspace, ".env"), "utf8"), "MARKER-ENV-TOP\n")
    }))

  it.live("write matchers: a denied file cannot be changed while its neighbour can", () =>
    Effect.gen(function*() {
      const workspace = fixture()
      const locked = NodePath.join(workspace, "src", "locked.ts")
      const out = yield* run(
        {
          workspace,
          denyWriteMatching: [{
            base: NodePath.join(workspace, "src"),
            exact: false,
            test: (absolute) => absolute === locked,
            rule: "Edit(src/locked.ts)"
          }]
        },
        [
          "echo x > src/locked.ts || echo refused",
          "rm -f src/locked.ts || echo refused-rm",
          "mv src src-aside && mkdir src && echo x > src/locked.ts && echo replaced",
          "echo y > src/other.ts && echo wrote-other",
          "cat src/locked.ts"
        ].join("; ")
      )
      assert.include(out, "refused")
      assert.include(out, "refused-rm")
      assert.include(out, "wrote-other")
      assert.notInclude(out, "replaced")
      assert.include(out, "locked")
      assert.isFalse(NodeFs.existsSync(NodePath.join(workspace, "src-aside")))
      assert.strictEqual(NodeFs.readFileSync(locked, "utf8"), "locked\n")
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(workspace, "src", "other.ts"), "utf8"), "y\n")
    }))

  it.live("past the walk's bound the command is refused, naming the rule", () =>
    Effect.gen(function*() {
      const workspace = fixture()
      const marker = NodePath.join(workspace, "ran")
      const exit = yield* Effect.exit(
        run(
          { workspace, denyReadMatching: [envAnywhere(workspace)], matchWalkLimit: 5 },
          `touch ${marker}`
        )
      )
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? String(exit.cause) : ""
      assert.include(error, "Read(**/*.env)")
      assert.include(error, "Narrow the rule")
      assert.isFalse(NodeFs.existsSync(marker))
    }))

  it("the walk masks a matching directory whole, does not enter it, and never follows a link", () => {
    const workspace = fixture()
    NodeFs.mkdirSync(NodePath.join(workspace, "keys.env"))
    write(NodePath.join(workspace, "keys.env", "inner.env"), "x")
    NodeFs.symlinkSync(NodePath.join(workspace, "app"), NodePath.join(workspace, "link"))
    const resolved = PathMask.resolve({ read: [envAnywhere(workspace)], write: [] })
    assert.isTrue(Either.isRight(resolved))
    const masks = Either.getOrThrow(resolved)
    assert.sameMembers(masks.read.map((found) => NodePath.relative(workspace, found.path)), [
      ".env",
      "app/deep/prod.env",
      "keys.env"
    ])
    assert.isTrue(masks.read.find((found) => found.path.endsWith("keys.env"))?.directory)
    // A missing base and an exact one that does not exist mask nothing.
    const none = PathMask.resolve({ read: [exactly(NodePath.join(workspace, "absent"))], write: [] })
    assert.deepStrictEqual(Either.getOrThrow(none).read, [])
  })
})

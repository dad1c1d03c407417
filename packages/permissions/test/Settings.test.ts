import * as FileSystem from "@effect/platform/FileSystem"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Rule from "../src/Rule.js"
import * as Settings from "../src/Settings.js"

/** A file system holding just these files. */
const files = (contents: Record<string, string>) =>
  FileSystem.layerNoop({
    exists: (path) => Effect.succeed(path in contents),
    readFileString: (path) => Effect.succeed(contents[path] ?? "")
  })

const issues = (file: string, text: string) =>
  Either.match(Settings.decode(file, text), {
    onLeft: (error) => error.issues,
    onRight: () => assert.fail("the settings decoded")
  })

describe("Settings", () => {
  it.effect("loads the user's and the project's files: the project's mode wins, rule lists combine", () =>
    Effect.gen(function*() {
      const settings = yield* Settings.load({
        user: "/home/ada/.agent/settings.json",
        project: "/work/.agent/settings.json"
      })
      assert.strictEqual(settings.defaultMode, "acceptEdits")
      assert.deepStrictEqual(settings.allow.map(Rule.print), ["Bash(npm test:*)", "Bash(make:*)"])
      assert.deepStrictEqual(settings.ask.map(Rule.print), ["Bash(git push:*)"])
      // Neither level can drop the other's deny rules.
      assert.deepStrictEqual(settings.deny.map(Rule.print), ["Read(~/.ssh/**)", "Read(.env)"])
      assert.deepStrictEqual(settings.sources, ["/home/ada/.agent/settings.json", "/work/.agent/settings.json"])
    }).pipe(Effect.provide(files({
      "/home/ada/.agent/settings.json": JSON.stringify({
        model: "whatever",
        permissions: {
          allow: ["Bash(npm test:*)"],
          ask: ["Bash(git push:*)"],
          deny: ["Read(~/.ssh/**)"],
          defaultMode: "plan"
        }
      }),
      "/work/.agent/settings.json": JSON.stringify({
        permissions: { allow: ["Bash(make:*)", "Bash(npm test:*)"], deny: ["Read(.env)"], defaultMode: "acceptEdits" }
      })
    }))))

  it("a project file cannot make bypassPermissions the default once the user disabled it", () => {
    const settings = (file: string, permissions: unknown) =>
      Either.getOrThrow(Settings.decode(file, JSON.stringify({ permissions })))
    const user = settings("user.json", { defaultMode: "acceptEdits", disableBypassPermissionsMode: "disable" })
    const project = settings("project.json", { defaultMode: "bypassPermissions" })
    const merged = Settings.merge([user, project])
    assert.strictEqual(merged.defaultMode, "acceptEdits")
    assert.isTrue(merged.bypassDisabled)
    // Merged as given, the last mode wins; a project's file passes through fromProject first.
    assert.strictEqual(Settings.merge([settings("user.json", {}), project]).defaultMode, "bypassPermissions")
    assert.isUndefined(Settings.merge([settings("user.json", {}), Settings.fromProject(project)]).defaultMode)
  })

  it("a project file never makes bypassPermissions the default; any other mode it may choose", () => {
    const settings = (file: string, permissions: unknown) =>
      Either.getOrThrow(Settings.decode(file, JSON.stringify({ permissions })))
    const mode = (defaultMode: string) => Settings.fromProject(settings("p.json", { defaultMode })).defaultMode
    assert.isUndefined(mode("bypassPermissions"))
    for (const kept of ["default", "acceptEdits", "plan", "dontAsk"] as const) assert.strictEqual(mode(kept), kept)
    // The user's own file keeps it.
    const user = settings("user.json", { defaultMode: "bypassPermissions" })
    assert.strictEqual(
      Settings.merge([user, Settings.fromProject(settings("p.json", { allow: ["Bash(ls)"] }))]).defaultMode,
      "bypassPermissions"
    )
  })

  it.effect("a missing file is no settings; a file without permissions is empty", () =>
    Effect.gen(function*() {
      const settings = yield* Settings.load({ user: "/nowhere.json", project: "/p.json" })
      assert.deepStrictEqual(settings, { ...Settings.empty, sources: ["/p.json"] })
    }).pipe(Effect.provide(files({ "/p.json": "{\"env\": {}}" }))))

  it("an invalid rule names the file, the field and what is expected", () => {
    const [issue, ...rest] = issues(
      "/p/settings.json",
      JSON.stringify({ permissions: { allow: ["Bash(ok)", "Bash("] } })
    )
    assert.deepStrictEqual(rest, [])
    assert.strictEqual(issue!.field, "permissions.allow[1]")
    assert.include(issue!.expected, "expected a permission rule such as Bash(npm test:*)")
    assert.include(issue!.expected, "got \"Bash(\"")
    assert.include(issue!.expected, "does not close")
  })

  it("a rule only deny and ask lists may hold fails in the allow list, naming the file, the field and why", () => {
    const error = Settings.decode(
      "/p/settings.json",
      JSON.stringify({ permissions: { allow: ["Bash(ok)", "mcp__*"], deny: ["mcp__*", "B*"] } })
    )
    assert.isTrue(Either.isLeft(error))
    const failure = Either.getLeft(error).pipe((o) => o._tag === "Some" ? o.value : assert.fail("decoded"))
    assert.strictEqual(failure.file, "/p/settings.json")
    assert.deepStrictEqual(failure.issues.map((issue) => issue.field), ["permissions.allow[1]"])
    assert.include(failure.message, "mcp__*")
    assert.include(failure.message, "only after an MCP server's name")
    // As deny rules, tool-name globs load, and the documented allow form after a server does too.
    assert.isTrue(
      Either.isRight(Settings.decode("s", JSON.stringify({ permissions: { allow: ["mcp__github__get_*"] } })))
    )
  })

  // Documented rules that mistype a command fail loudly rather than matching nothing.
  it("a command rule for a tool parameter, several commands or a redirection fails saying why", () => {
    for (
      const [rule, why] of [
        ["Bash(command:rm *)", "parameter"],
        ["Bash(ls && rm)", "more than one command"],
        ["Bash(ls > out)", "redirection"],
        ["Read(!secrets/**)", "!"]
      ] as const
    ) {
      const [issue] = issues("/p/settings.json", JSON.stringify({ permissions: { deny: [rule] } }))
      assert.include(issue!.expected, why, rule)
    }
  })

  it("reports every problem at once: a bad mode, a wrong type, an unknown key", () => {
    const found = issues(
      "/p/settings.json",
      JSON.stringify({ permissions: { defaultMode: "yolo", deny: "Bash(rm:*)", alow: [] } })
    )
    const byField = Object.fromEntries(found.map((issue) => [issue.field, issue.expected]))
    assert.strictEqual(
      byField["permissions.defaultMode"],
      "expected one of \"default\", \"acceptEdits\", \"plan\", \"bypassPermissions\", \"dontAsk\"; got \"yolo\""
    )
    assert.strictEqual(
      byField["permissions.deny"],
      "expected a list of rules, for example [\"Bash(npm test:*)\"]; got \"Bash(rm:*)\""
    )
    assert.strictEqual(found.length, 3)
    assert.include(byField["permissions.alow"], "not a known permissions setting")
  })

  it("a file that is not JSON says so", () => {
    const [issue] = issues("/p/settings.json", "{ \"permissions\": { \"allow\": [ }")
    assert.strictEqual(issue!.field, "(file)")
    assert.include(issue!.expected, "JSON")
    const [notObject] = issues("/p/settings.json", "[]")
    assert.strictEqual(notObject!.field, "(file)")
  })

  it.effect("the error message names the file", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Settings.load({ project: "/work/.agent/settings.json" }))
      assert.strictEqual(error._tag, "SettingsError")
      assert.strictEqual(error.file, "/work/.agent/settings.json")
      assert.include(error.message, "Invalid settings file /work/.agent/settings.json:")
      assert.include(error.message, "permissions.ask[0]:")
    }).pipe(Effect.provide(files({ "/work/.agent/settings.json": "{\"permissions\": {\"ask\": [\"\"]}}" }))))

  describe("sandbox", () => {
    const decoded = (content: unknown) => Either.getOrThrow(Settings.decode("settings.json", JSON.stringify(content)))

    it("reads sandbox.autoAllowSandboxedCommands and ignores the sandbox's own keys", () => {
      const settings = decoded({
        sandbox: {
          enabled: true,
          autoAllowSandboxedCommands: true,
          network: { allow: ["registry.npmjs.org"] },
          filesystem: "whatever the node package decides"
        }
      })
      assert.isTrue(settings.autoAllowSandboxedCommands)
      assert.isFalse(decoded({ sandbox: { autoAllowSandboxedCommands: false } }).autoAllowSandboxedCommands)
      assert.isUndefined(decoded({ sandbox: { enabled: true } }).autoAllowSandboxedCommands)
      assert.isUndefined(decoded({}).autoAllowSandboxedCommands)
    })

    it("a wrong type for autoAllowSandboxedCommands names the field", () => {
      const result = Settings.decode(
        "/p/settings.json",
        JSON.stringify({ sandbox: { autoAllowSandboxedCommands: "yes" } })
      )
      assert(Either.isLeft(result))
      assert.strictEqual(result.left._tag, "SettingsError")
      assert.deepStrictEqual(result.left.issues, [{
        field: "sandbox.autoAllowSandboxedCommands",
        expected: "expected true or false; got \"yes\""
      }])
      assert.include(result.left.message, "sandbox.autoAllowSandboxedCommands: expected true or false")
    })

    it("a sandbox that is not an object says so, with the problems in permissions", () => {
      const found = issues("/p/settings.json", JSON.stringify({ sandbox: true, permissions: { alow: [] } }))
      assert.deepStrictEqual(found.map((issue) => issue.field), ["permissions.alow", "sandbox"])
      assert.strictEqual(found[1]!.expected, "expected an object")
      assert.deepStrictEqual(issues("/p/settings.json", JSON.stringify({ sandbox: [] })), [{
        field: "sandbox",
        expected: "expected an object"
      }])
    })

    const loaded = (user: unknown, project: unknown) =>
      Settings.load({ user: "/u.json", project: "/p.json" }).pipe(
        Effect.provide(files({
          ...(user === undefined ? {} : { "/u.json": JSON.stringify(user) }),
          ...(project === undefined ? {} : { "/p.json": JSON.stringify(project) })
        })),
        Effect.map((settings) => settings.autoAllowSandboxedCommands)
      )
    const on = { sandbox: { autoAllowSandboxedCommands: true } }
    const off = { sandbox: { autoAllowSandboxedCommands: false } }

    it.effect("only the user's file turns auto-allow on; either file turns it off", () =>
      Effect.gen(function*() {
        assert.isTrue(yield* loaded(on, undefined))
        assert.isTrue(yield* loaded(on, {}))
        // A repository cannot grant itself commands that run without asking.
        assert.isUndefined(yield* loaded(undefined, on))
        assert.isUndefined(yield* loaded({}, on))
        assert.isFalse(yield* loaded(off, on))
        // But it may ask for more questions in its own tree.
        assert.isFalse(yield* loaded(on, off))
        assert.isFalse(yield* loaded(off, undefined))
      }))

    it("merge: a false wins in either order; fromProject drops a project's true", () => {
      const user = decoded(on)
      const project = decoded(off)
      assert.isFalse(Settings.merge([user, project]).autoAllowSandboxedCommands)
      assert.isFalse(Settings.merge([project, user]).autoAllowSandboxedCommands)
      assert.isTrue(Settings.merge([Settings.empty, user]).autoAllowSandboxedCommands)
      assert.isUndefined(Settings.fromProject(user).autoAllowSandboxedCommands)
      assert.isFalse(Settings.fromProject(project).autoAllowSandboxedCommands)
    })
  })
})

/**
 * "Inside the workspace" is a question about path segments, not string
 * prefixes: with the workspace at `/home/dev/app`, `/home/dev/app-secrets`
 * is outside it (`PathRule.isInside`: "`/home/dev/app-secrets` is not
 * inside `/home/dev/app`"). It decides whether a command's arguments keep
 * it allowable (README: "no argument may name a path outside the
 * workspace"), whether a file tool's read runs in `default` and its edit in
 * `acceptEdits`, and whether a recursive removal is one of the destructive
 * commands asked about in every mode.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { engineWith, type Outcome, outcomeOf } from "./EngineHarness.js"
import { bash, readFile, request, writeFile } from "./SampleTools.js"

type Row = readonly [kind: "run" | "read" | "write", what: string, expected: Outcome]

const outcomes = (config: Parameters<typeof engineWith>[0], rows: ReadonlyArray<Row>) =>
  Effect.gen(function*() {
    const subject = yield* engineWith(config)
    const wrong: Array<string> = []
    for (const [kind, what, expected] of rows) {
      const got = yield* outcomeOf(
        subject,
        kind === "run"
          ? request(bash, { command: what })
          : kind === "read"
          ? request(readFile, { path: what })
          : request(writeFile, { path: what, content: "x" })
      )
      if (got !== expected) wrong.push(`${kind} ${what}: ${got}, expected ${expected}`)
    }
    assert.deepStrictEqual(wrong, [])
  })

const home = "/home/dev"

describe("the workspace's bounds", () => {
  // dontAsk with no rules: a read-only command runs (allow:rule) only while every path it names is inside.
  const commands: ReadonlyArray<Row> = [
    ["run", "cat /home/dev/app/x", "allow:rule"],
    ["run", "cat /home/dev/app", "allow:rule"],
    ["run", "cat /home/dev/app/", "allow:rule"],
    ["run", "cat /home/dev/app//src/", "allow:rule"],
    ["run", "cat /home/dev/app/./src/../x", "allow:rule"],
    ["run", "cat .", "allow:rule"],
    ["run", "cat ./", "allow:rule"],
    ["run", "cat src/../x", "allow:rule"],
    ["run", "cat ../app/x", "allow:rule"],
    ["run", "cat /home/dev/app-x/../app/x", "allow:rule"],
    ["run", "grep -f/home/dev/app/patterns x", "allow:rule"],
    ["run", "grep --file=/home/dev/app/patterns x", "allow:rule"],
    ["run", "cd src && cat x", "allow:rule"],
    // A quoted `~` is a file's name, but read as the home directory the path must be inside too.
    ["run", "cat '~/app/x'", "allow:rule"],
    // Siblings that share the workspace's name as a prefix.
    ["run", "cat /home/dev/app-secrets/key", "deny:mode"],
    ["run", "cat /home/dev/app-secrets", "deny:mode"],
    ["run", "cat /home/dev/app-secrets/", "deny:mode"],
    ["run", "cat /home/dev/app.bak/x", "deny:mode"],
    ["run", "cat /home/dev/appx", "deny:mode"],
    ["run", "cat /home/dev/ap", "deny:mode"],
    ["run", "cat /home/dev/app/../app-x/f", "deny:mode"],
    ["run", "cat /home/dev/app/./../app-x", "deny:mode"],
    ["run", "cat ../app-x/y", "deny:mode"],
    ["run", "cat ../app-secrets/", "deny:mode"],
    ["run", "cat src/../../app-x/y", "deny:mode"],
    // From src, and from the workspace should the cd fail.
    ["run", "cd src && cat ../x", "deny:mode"],
    ["run", "cd src && cat ../../app-x/f", "deny:mode"],
    ["run", "cat -- /home/dev/app-x", "deny:mode"],
    ["run", "grep -f/home/dev/app-x/patterns x", "deny:mode"],
    ["run", "grep --file=/home/dev/app-secrets/patterns x", "deny:mode"],
    ["run", "cat < /home/dev/app-secrets/key", "deny:mode"],
    ["run", "cd /home/dev/app-x", "deny:mode"],
    ["run", "cat '~/app-x/f'", "deny:mode"],
    // What holds the workspace is outside it.
    ["run", "cat ..", "deny:mode"],
    ["run", "cat ../", "deny:mode"],
    ["run", "cat /home/dev", "deny:mode"],
    ["run", "cat /home/dev/", "deny:mode"],
    ["run", "cat /", "deny:mode"]
  ]

  it.effect("a command may name the workspace and what is in it, never a sibling that shares its prefix", () =>
    outcomes({ workspaceRoot: "/home/dev/app", homeDirectory: home, mode: "dontAsk" }, commands))

  it.effect("the same with the workspace written with a trailing slash", () =>
    outcomes({ workspaceRoot: "/home/dev/app/", homeDirectory: home, mode: "dontAsk" }, commands))

  it.effect("the file tools: a sibling's file is a read outside (asked) and an edit outside (asked in acceptEdits)", () =>
    Effect.gen(function*() {
      const files: ReadonlyArray<Row> = [
        ["read", "/home/dev/app/x", "allow:mode"],
        ["read", "/home/dev/app", "allow:mode"],
        ["read", "/home/dev/app/", "allow:mode"],
        ["read", ".", "allow:mode"],
        ["read", "/home/dev/app-x/../app/f", "allow:mode"],
        ["read", "/home/dev/app-secrets/key", "ask"],
        ["read", "/home/dev/app/../app-x", "ask"],
        ["read", "../app-x/f", "ask"],
        ["read", "/home/dev/appx", "ask"]
      ]
      yield* outcomes({ workspaceRoot: "/home/dev/app", homeDirectory: home }, files)
      yield* outcomes({ workspaceRoot: "/home/dev/app/", homeDirectory: home }, files)
      const edits: ReadonlyArray<Row> = [
        ["write", "/home/dev/app/f", "allow:mode"],
        ["write", "src/f", "allow:mode"],
        ["write", "/home/dev/app-x/f", "ask"],
        ["write", "/home/dev/app/../app-x/f", "ask"],
        ["write", "../app.bak/f", "ask"]
      ]
      yield* outcomes({ workspaceRoot: "/home/dev/app", homeDirectory: home, mode: "acceptEdits" }, edits)
      yield* outcomes({ workspaceRoot: "/home/dev/app/", homeDirectory: home, mode: "acceptEdits" }, edits)
    }))

  it.effect("a recursive removal of a sibling is outside the workspace, and asked about even in bypassPermissions", () =>
    outcomes({ workspaceRoot: "/home/dev/app", homeDirectory: home, mode: "bypassPermissions" }, [
      ["run", "rm -rf /home/dev/app/build", "allow:mode"],
      ["run", "rm -rf build", "allow:mode"],
      ["run", "rm -rf /home/dev/app-x", "ask"],
      ["run", "rm -rf /home/dev/app-secrets/", "ask"],
      ["run", "rm -rf ../app-x", "ask"],
      ["run", "rm -rf /home/dev/app/../app-x", "ask"]
    ]))

  it.effect("with the file system root as the workspace, every absolute path is inside", () =>
    outcomes({ workspaceRoot: "/", mode: "dontAsk" }, [
      ["run", "cat /etc/hostname", "allow:rule"],
      ["run", "cat /home/dev/app-x/f", "allow:rule"]
    ]))
})

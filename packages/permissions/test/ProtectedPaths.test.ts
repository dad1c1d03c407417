/**
 * Writes to the places that hold a repository's machinery or settings that
 * run code are asked about in every mode but `bypassPermissions`, and no
 * allow rule pre-approves them (README step 8): through the file tools, a
 * redirection and the file commands `acceptEdits` runs, at any depth in the
 * workspace. Agents' checkouts under `.claude/worktrees` are not settings.
 * One row per protected name of `RuleMatch` (its lists are internal, so the
 * rows are written out: a name added there needs a row here).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { engineWith, type Outcome, outcomeOf } from "./EngineHarness.js"
import { bash, request, writeFile } from "./SampleTools.js"

const directories = [
  ".git",
  ".claude",
  ".vscode",
  ".idea",
  ".husky",
  ".cargo",
  ".devcontainer",
  ".yarn",
  ".mvn",
  ".tool-runtime",
  ".config/git"
]

const files = [
  ".gitconfig",
  ".gitmodules",
  ".gitattributes",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".profile",
  ".envrc",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pnp.cjs",
  "bunfig.toml",
  ".bazelrc",
  ".pre-commit-config.yaml",
  "lefthook.yml",
  ".lefthook.yml",
  "gradle-wrapper.properties",
  "maven-wrapper.properties",
  ".devcontainer.json",
  ".ripgreprc",
  "pyrightconfig.json",
  ".mcp.json",
  ".claude.json"
]

/** Each protected place, at the top and deeper in the workspace. */
const places: ReadonlyArray<string> = [
  ...directories.flatMap((dir) => [`${dir}/config`, `packages/app/${dir}/settings.json`]),
  ...files.flatMap((file) => [file, `packages/app/${file}`])
]

const outcomes = (
  config: Parameters<typeof engineWith>[0],
  rows: ReadonlyArray<readonly [kind: "write" | "run", what: string, expected: Outcome]>
) =>
  Effect.gen(function*() {
    const subject = yield* engineWith(config)
    const wrong: Array<string> = []
    for (const [kind, what, expected] of rows) {
      const got = yield* outcomeOf(
        subject,
        kind === "write" ? request(writeFile, { path: what, content: "x" }) : request(bash, { command: what })
      )
      if (got !== expected) wrong.push(`${kind} ${what}: ${got}, expected ${expected}`)
    }
    assert.deepStrictEqual(wrong, [])
  })

const writes = (path: string) =>
  [
    ["write", path],
    ["run", `echo x > ${path}`],
    ["run", `touch ${path}`],
    ["run", `cp src/a.ts ${path}`]
  ] as const

describe("protected paths", () => {
  it.effect("acceptEdits asks before every write to a protected place: its file commands, an Edit rule's writes", () =>
    outcomes(
      { mode: "acceptEdits", allow: ["Edit", "Bash(echo:*)"] },
      places.flatMap((path) => writes(path).map(([kind, what]) => [kind, what, "ask"] as const))
    ))

  it.effect("default mode asks too, with an allow rule for the file", () =>
    outcomes(
      { allow: ["Edit(**)"] },
      places.map((path) => ["write", path, "ask"] as const)
    ))

  it.effect("bypassPermissions runs them, and acceptEdits runs the same writes elsewhere", () =>
    Effect.gen(function*() {
      yield* outcomes(
        { mode: "bypassPermissions" },
        places.flatMap((path) => writes(path).map(([kind, what]) => [kind, what, "allow:mode"] as const))
      )
      yield* outcomes({ mode: "acceptEdits" }, [
        ["write", "src/config", "allow:mode"],
        ["run", "touch src/settings.json", "allow:mode"],
        ["write", "git/config", "allow:mode"],
        ["write", ".config/app/settings.json", "allow:mode"],
        ["write", "bashrc", "allow:mode"],
        ["write", ".claude/worktrees/feature/src/a.ts", "allow:mode"],
        ["write", ".claude/settings.json", "ask"]
      ])
    }))
})

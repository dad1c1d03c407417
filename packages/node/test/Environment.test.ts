import { assert, describe, it } from "@effect/vitest"
import * as Environment from "../src/Environment.js"

const host = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/u",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  EDITOR: "vi",
  DATABASE_PASSWORD: "hunter2",
  ANTHROPIC_API_KEY: "sk-ant-x",
  MY_SERVICE_TOKEN: "t",
  aws_secret_access_key: "lower-case too",
  DATABASE_URL: "postgres://u:p@h/db",
  SSH_AUTH_SOCK: "/run/agent",
  GIT_AUTHOR_NAME: "Ann",
  MY_APP_MODE: "dev",
  UNSET: undefined
}

const names = (applied: Environment.Applied) => Object.keys(applied.env).sort()

describe("Environment", () => {
  it("the default keeps everything but secrets, counts what it withheld, and keeps GIT_AUTHOR_NAME", () => {
    const applied = Environment.apply(Environment.defaultPolicy, host)
    assert.deepStrictEqual(names(applied), [
      "EDITOR",
      "GIT_AUTHOR_NAME",
      "HOME",
      "LANG",
      "LC_ALL",
      "MY_APP_MODE",
      "PATH"
    ])
    assert.strictEqual(applied.withheld, 6)
  })

  it("core keeps the documented short list; none keeps nothing", () => {
    assert.deepStrictEqual(names(Environment.apply({ inherit: "core" }, host)), [
      "EDITOR",
      "HOME",
      "LANG",
      "LC_ALL",
      "PATH"
    ])
    const none = Environment.apply({ inherit: "none" }, host)
    assert.deepStrictEqual(names(none), [])
    assert.strictEqual(none.withheld, 13)
  })

  it("exclude adds, allow lets a default exclude through but not an explicit one, includeOnly keeps, set comes last", () => {
    const applied = Environment.apply({
      exclude: ["my_app_*", "SSH_*"],
      allow: ["ANTHROPIC_API_KEY", "SSH_AUTH_SOCK"],
      includeOnly: ["PATH", "HOME", "ANTHROPIC_*", "SSH_*", "MY_*"],
      set: { MY_SERVICE_TOKEN: "given", NO_PROXY: "x" }
    }, host)
    assert.deepStrictEqual(applied.env, {
      PATH: "/usr/bin:/bin",
      HOME: "/home/u",
      ANTHROPIC_API_KEY: "sk-ant-x",
      MY_SERVICE_TOKEN: "given",
      NO_PROXY: "x"
    })
    // Everything else of the 13 defined but MY_SERVICE_TOKEN, which `set` gave back.
    assert.strictEqual(applied.withheld, 13 - 3 - 1)
  })

  it("patterns are case-insensitive whole-name globs", () => {
    assert.isTrue(Environment.matches("lc_messages", ["LC_*"]))
    assert.isTrue(Environment.matches("A1", ["A?"]))
    assert.isFalse(Environment.matches("A12", ["A?"]))
    assert.isFalse(Environment.matches("XPATH", ["PATH"]))
    assert.isFalse(Environment.matches("A.B", ["A+B"]))
  })

  it("a project can only tighten: stricter inherit, more excludes, includeOnly intersected; allow and set stay the user's", () => {
    const merged = Environment.tighten(
      { inherit: "all", exclude: ["A_*"], includeOnly: ["PATH", "HOME", "X_*"], allow: ["GH_TOKEN"], set: { K: "v" } },
      { inherit: "core", exclude: ["B_*"], includeOnly: ["PATH", "X_*", "LANG"] }
    )
    assert.deepStrictEqual(merged, {
      inherit: "core",
      exclude: ["A_*", "B_*"],
      allow: ["GH_TOKEN"],
      includeOnly: ["PATH", "X_*"],
      set: { K: "v" }
    })
    assert.strictEqual(Environment.tighten({ inherit: "none" }, { inherit: "all" })?.inherit, "none")
    // A literal one list names and the other's wildcard covers stays; two different wildcards keep nothing.
    assert.deepStrictEqual(
      Environment.tighten({ includeOnly: ["X_*"] }, { includeOnly: ["X_ONE", "Y_*"] })?.includeOnly,
      [
        "X_ONE"
      ]
    )
  })

  it("the sandbox line's clause is a count", () => {
    assert.strictEqual(Environment.describeWithheld(1), "1 environment variable withheld")
    assert.strictEqual(Environment.describeWithheld(3), "3 environment variables withheld")
  })
})

/**
 * A shell line that could read a denied path without naming it (a glob, a
 * recursive read, git printing the repository) is not a read-only command
 * and no allow rule allows it: it is asked about, so a headless run denies
 * it, and the reason names the rule. A git object path naming a denied file
 * is denied.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Approver from "../src/Approver.js"
import * as PathRule from "../src/PathRule.js"
import { allOutcomes, deniedWith, engineWith, outcomesOf } from "./EngineHarness.js"
import { bash, request, workspaceRoot } from "./SampleTools.js"

const outcomes = outcomesOf
const all = allOutcomes

describe("ReadReach", () => {
  const secret = { deny: ["Read(./secret/**)"] }

  it.effect("a glob or a recursive read that could reach a denied path is asked about, not allowed", () =>
    Effect.gen(function*() {
      const lines = [
        "cat sec*/x",
        "cat s?cret/x",
        "head -5 */x",
        "cat ./*/*",
        "cat **/x",
        "ls sec*",
        "grep -r MARKER .",
        "grep -rn MARKER src/..",
        "grep -R x",
        "grep --recursive x .",
        "grep -d recurse x .",
        "ls -R",
        "ls -laR .",
        "find . -name x -print",
        "find -name x",
        "du -a",
        "cd src && grep -r x ..",
        "git log -p",
        "git log -1 -p",
        "git diff",
        "git diff HEAD~1",
        "git show",
        "git diff -- 'sec*'",
        "timeout 5 grep -r x ."
      ]
      assert.deepStrictEqual(yield* outcomes(secret, lines), all(lines, "ask"))
    }))

  it.effect("allow rules do not allow it either, nor does the person's session rule", () =>
    Effect.gen(function*() {
      const lines = ["rg MARKER", "rg MARKER .", "make -C . all", "tar cf /dev/null .", "xargs cat"]
      assert.deepStrictEqual(
        yield* outcomes({ ...secret, allow: ["Bash(rg:*)", "Bash(make:*)", "Bash(tar:*)", "Bash(xargs:*)"] }, lines),
        all(lines, "ask")
      )
    }))

  it.effect("what cannot reach the denied path is still allowed", () =>
    Effect.gen(function*() {
      const lines = [
        "cat src/*.ts",
        "wc -l src/*.ts",
        "grep -r x src",
        "find src -name x",
        "ls",
        "ls -la",
        "ls src",
        "cat README.md",
        "git log",
        "git log --oneline -5",
        "git status",
        "git diff --stat",
        "git diff -- src",
        "git show -s HEAD",
        "du -sh src"
      ]
      assert.deepStrictEqual(yield* outcomes(secret, lines), all(lines, "allow:rule"))
    }))

  it.effect("a rule matching at any depth is reached by any recursive read, a glob only where it could match", () =>
    Effect.gen(function*() {
      const config = { deny: ["Read(.env)"] }
      const asked = ["grep -r x src", "cat *", "ls *", "cat src/*", "ls -R src", "git diff"]
      const allowed = ["cat src/*.ts", "ls src/*.ts", "head -1 *.md", "cat src/a.ts"]
      assert.deepStrictEqual(yield* outcomes(config, [...asked, ...allowed]), {
        ...all(asked, "ask"),
        ...all(allowed, "allow:rule")
      })
    }))

  it.effect("a deny rule outside the workspace is not reached by a walk inside it", () =>
    Effect.gen(function*() {
      const lines = ["grep -r x .", "git diff", "cat */x"]
      assert.deepStrictEqual(
        yield* outcomes({ deny: ["Read(~/.ssh/**)"], homeDirectory: "/home/dev" }, lines),
        all(lines, "allow:rule")
      )
    }))

  it.effect("Read ask rules are guarded the same way", () =>
    Effect.gen(function*() {
      const lines = ["grep -r x .", "cat sec*/x"]
      assert.deepStrictEqual(yield* outcomes({ ask: ["Read(./secret/**)"] }, lines), all(lines, "ask"))
    }))

  it.effect("headless, it is denied with a reason naming the rule and what to do", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith(secret, () => Effect.fail(new Approver.Unavailable({ reason: "no one" })))
      const glob = deniedWith(yield* Effect.exit(subject.engine.authorize(request(bash, { command: "cat sec*/x" }))))
      assert.include(glob.reason, "the deny rule Read(./secret/**)")
      assert.include(glob.reason, "a glob, sec*/x")
      assert.include(glob.reason, "Name the files, or narrow the search")
      const walk = deniedWith(
        yield* Effect.exit(subject.engine.authorize(request(bash, { command: "grep -r MARKER ." })))
      )
      assert.include(walk.reason, "a recursive read over .")
      const dontAsk = yield* engineWith({ ...secret, mode: "dontAsk" })
      const denied = deniedWith(yield* Effect.exit(dontAsk.engine.authorize(request(bash, { command: "ls -R" }))))
      assert.include(denied.reason, "Read(./secret/**)")
    }))

  it.effect("no rule is offered for it: none could allow it next time", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith(secret)
      yield* subject.engine.authorize(request(bash, { command: "grep -r x ." }))
      const prompt = (yield* subject.prompts)[0]!
      assert.deepStrictEqual(prompt.rules, [])
    }))

  it.effect("a git object path naming a denied file is denied, in every mode", () =>
    Effect.gen(function*() {
      const lines = [
        "git show HEAD:secret/x",
        "git show HEAD~2:./secret/x",
        "git cat-file -p :secret/x",
        "git diff HEAD:secret/x HEAD~1:secret/x",
        "git diff -- secret",
        "cat < secret/x",
        "cd src && cat ../secret/x"
      ]
      assert.deepStrictEqual(yield* outcomes(secret, lines), all(lines, "deny:rule"))
      assert.deepStrictEqual(
        yield* outcomes({ ...secret, mode: "bypassPermissions" }, lines),
        all(lines, "deny:rule")
      )
      const subject = yield* engineWith(secret)
      const denial = deniedWith(
        yield* Effect.exit(subject.engine.authorize(request(bash, { command: "git show HEAD:secret/x" })))
      )
      assert.include(denial.reason, "it reads HEAD:secret/x from the repository")
    }))
})

describe("PathRule.reach", () => {
  const pattern = (specifier: string, caseInsensitive = false) => {
    const compiled = PathRule.compile(specifier, {
      projectRoot: workspaceRoot,
      homeDirectory: "/home/dev",
      caseInsensitive
    })
    assert.isTrue(Either.isRight(compiled))
    return (compiled as Either.Right<never, PathRule.PathPattern>).right
  }
  const ws = (path: string) => `${workspaceRoot}/${path}`

  it("a glob that could name a matched path matches; one above it contains it; others miss", () => {
    const secret = pattern("./secret/**")
    assert.strictEqual(PathRule.reach(secret, ws("sec*/x")), "match")
    assert.strictEqual(PathRule.reach(secret, ws("s?cret")), "match")
    assert.strictEqual(PathRule.reach(secret, ws("*")), "match")
    assert.strictEqual(PathRule.reach(secret, workspaceRoot), "contains")
    assert.strictEqual(PathRule.reach(secret, "/"), "contains")
    assert.strictEqual(PathRule.reach(secret, ws("src/*")), undefined)
    assert.strictEqual(PathRule.reach(secret, ws("sa*")), undefined)
    assert.strictEqual(PathRule.reach(secret, ws("[st]ecret/x")), "match")
    assert.strictEqual(PathRule.reach(secret, ws("**")), "match")
    const env = pattern("*.env")
    assert.strictEqual(PathRule.reach(env, ws("src/*.ts")), "contains")
    assert.strictEqual(PathRule.reach(env, ws("src/*.env")), "match")
    const key = pattern("./secret/key")
    assert.strictEqual(PathRule.reach(key, ws("*")), "contains")
    assert.strictEqual(PathRule.reach(key, ws("*/k*")), "match")
    assert.strictEqual(PathRule.reach(key, ws("*/x")), undefined)
    assert.strictEqual(PathRule.reach(pattern("./SECRET/**", true), ws("sec*")), "match")
    assert.strictEqual(PathRule.reach(pattern("./SECRET/**"), ws("sec*")), undefined)
  })
})

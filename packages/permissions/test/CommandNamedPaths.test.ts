/**
 * Where a line's commands run and what paths they name: a Read deny rule is
 * checked against every path a line names, from every directory a `cd`,
 * `pushd`, `popd` or `env -C` could leave a later command in. A directory
 * missed here is a path checked from the wrong place (`cd / && rm -rf usr`
 * read as the workspace's `usr`); a path missed is a denied file read. And
 * the set of readings a line gathers is bounded, with the line left open
 * (so deny and ask rules still apply) once the bound is reached.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Approver from "../src/Approver.js"
import * as CommandLine from "../src/CommandLine.js"
import * as ReadingSet from "../src/ReadingSet.js"
import * as ReadReach from "../src/ReadReach.js"
import * as Rule from "../src/Rule.js"
import { engineWith, outcomeOf } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

const home = "/home/dev"
const location = { workspaceRoot: "/w", homeDirectory: home }

const sorted = (paths: ReadonlyArray<string>) => [...new Set(paths)].sort()

describe("the directories a later command may run in (afterCd)", () => {
  const after = (
    words: ReadonlyArray<string>,
    at: { readonly workspaceRoot: string; readonly homeDirectory?: string | undefined } = location
  ) => sorted(ReadReach.afterCd(["/w"], [words], at))

  it("a cd, pushd or env -C adds where it goes; its options and `--` are not where it goes", () => {
    const table: ReadonlyArray<readonly [ReadonlyArray<string>, ReadonlyArray<string>]> = [
      [["cd", "sub"], ["/w", "/w/sub"]],
      [["cd", "-P", "sub"], ["/w", "/w/sub"]],
      [["cd", "-LP", "sub"], ["/w", "/w/sub"]],
      [["cd", "-L", "-e", "sub"], ["/w", "/w/sub"]],
      [["cd", "--", "sub"], ["/w", "/w/sub"]],
      [["cd", "-P", "--", "sub"], ["/w", "/w/sub"]],
      // A directory whose name holds an option's letters is still a directory.
      [["cd", "build-P"], ["/w", "/w/build-P"]],
      [["cd", "/etc"], ["/etc", "/w"]],
      [["pushd", "/tmp/x"], ["/tmp/x", "/w"]],
      [["env", "-C", "/", "rm", "-rf", "usr"], ["/", "/w"]],
      [["env", "--chdir", "/opt", "rm", "-rf", "x"], ["/opt", "/w"]],
      [["env", "--chdir=/opt", "rm", "-rf", "x"], ["/opt", "/w"]],
      [["env", "-C/opt", "rm", "-rf", "x"], ["/opt", "/w"]],
      // A value that ends like the option is still the value.
      [["env", "-C/opt/x-C", "rm", "-rf", "y"], ["/opt/x-C", "/w"]],
      // An assignment that merely holds `-C` is no option: the real one after it counts.
      [["env", "X=a-C", "-C", "/", "rm", "-rf", "usr"], ["/", "/w"]],
      [["env", "rm", "-rf", "x"], ["/w"]]
    ]
    for (const [words, expected] of table) assert.deepStrictEqual(after(words), expected, words.join(" "))
  })

  it("a bare cd goes home; where the words do not say, the directory is / (unknown)", () => {
    const table: ReadonlyArray<readonly [ReadonlyArray<string>, ReadonlyArray<string>]> = [
      [["cd"], [home, "/w"]],
      [["cd", "-P"], [home, "/w"]],
      [["cd", "~"], [home, "/w"]],
      [["cd", "~/src"], [`${home}/src`, "/w"]],
      [["cd", "$HOME/src"], [`${home}/src`, "/w"]],
      [["cd", "-"], ["/", "/w"]],
      [["cd", "~root"], ["/", "/w"]],
      [["cd", "$DIR"], ["/", "/w"]],
      [["cd", "`pwd`/x"], ["/", "/w"]],
      // Too many operands: bash refuses, but the line does not say where it is.
      [["cd", "a", "b"], ["/", "/w"]],
      // A bare pushd swaps the stack; popd goes back to a directory the line may not show.
      [["pushd"], ["/", "/w"]],
      [["popd"], ["/", "/w"]],
      [["popd", "+1"], ["/", "/w"]],
      [["popd", "sub"], ["/", "/w"]]
    ]
    for (const [words, expected] of table) assert.deepStrictEqual(after(words), expected, words.join(" "))
  })

  it("without a known home, a bare cd or one to ~ goes somewhere unknown", () => {
    const at = { workspaceRoot: "/w" }
    assert.deepStrictEqual(after(["cd"], at), ["/", "/w"])
    assert.deepStrictEqual(after(["cd", "~/src"], at), ["/", "/w"])
  })

  it("each cd moves from every directory the earlier ones could have left", () => {
    assert.deepStrictEqual(
      sorted(ReadReach.afterCd(["/w"], [["cd", "a"], ["cd", "b"]], location)),
      ["/w", "/w/a", "/w/a/b", "/w/b"]
    )
  })
})

describe("a path resolved from a directory (resolveIn)", () => {
  it("is the path resolved with that directory as the workspace, for every path and directory", () => {
    const piece = FastCheck.constantFrom("a", "b.c", ".", "..", "...", "", "~", "-x", " ")
    const path = FastCheck.array(piece, { maxLength: 5 }).chain((pieces) =>
      FastCheck.boolean().map((absolute) => `${absolute ? "/" : ""}${pieces.join("/")}`)
    )
    const directory = FastCheck.oneof(
      FastCheck.constantFrom("/", "/w", "/w/", "//w", "/w/./x", "/w/../..", "/.", "w", "", "."),
      path
    )
    FastCheck.assert(
      FastCheck.property(path, directory, (p, cwd) => {
        assert.strictEqual(ReadReach.resolveIn(p, cwd), Rule.resolve(p, { ...location, workspaceRoot: cwd }))
      }),
      { numRuns: 2_000 }
    )
    assert.strictEqual(ReadReach.resolveIn("etc", "/"), "/etc")
  })
})

describe("the paths a line names (namedPaths)", () => {
  const named = (
    line: string,
    at: { readonly workspaceRoot: string; readonly homeDirectory?: string | undefined } = location
  ) =>
    Effect.map(
      CommandLine.make,
      (service) => sorted(ReadReach.namedPaths(service.analyse(line), at).map((e) => e.path))
    )

  it.effect("~ and ~/x are the home's when the home is known, and kept as written otherwise", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* named("cat ~/x"), [`${home}/x`])
      assert.deepStrictEqual(yield* named("cat ~"), [home])
      assert.deepStrictEqual(yield* named("cat x~/y"), ["/w/x~/y"])
      assert.deepStrictEqual(yield* named("cat ~/x", { workspaceRoot: "/w" }), ["/w/~/x"])
      assert.deepStrictEqual(yield* named("cat ~", { workspaceRoot: "/w" }), ["/w/~"])
    }))

  it.effect("an option's attached value is the path it names; a word that only holds `-x=` is a name of its own", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* named("grep --file=secret/x y"), ["/w/secret/x", "/w/y"])
      assert.deepStrictEqual(yield* named("tool -config=secret/x"), ["/w/secret/x"])
      assert.deepStrictEqual(yield* named("tool --output-file=a/b"), ["/w/a/b"])
      assert.deepStrictEqual(yield* named("tool -o=a"), ["/w/a"])
      assert.deepStrictEqual(yield* named("cat a-b=secret/x"), ["/w/a-b=secret/x"])
      // An option without a value names nothing.
      assert.deepStrictEqual(yield* named("cat -n --number"), [])
    }))

  it.effect("through the engine: a Read deny rule sees a path given as an option's value or from the home", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith(
        { deny: ["Read(./secret/**)", "Read(~/.ssh/**)"], homeDirectory: home },
        () => Approver.deny("no")
      )
      const outcome = (command: string) => outcomeOf(subject, request(bash, { command }))
      assert.strictEqual(yield* outcome("grep --file=secret/x y"), "deny:rule")
      assert.strictEqual(yield* outcome("tool -config=secret/x"), "deny:rule")
      assert.strictEqual(yield* outcome("cat ~/.ssh/id_ed25519"), "deny:rule")
      assert.strictEqual(yield* outcome("cd ~ && cat .ssh/id_ed25519"), "deny:rule")
      assert.strictEqual(yield* outcome("cat a-b=secret/x"), "allow:rule")
    }))
})

describe("the readings gathered for one line (ReadingSet)", () => {
  it("at most maxReadings readings are kept; past the bound the line is open, with why", () => {
    const set = new ReadingSet.Readings()
    for (let i = 0; i < ReadingSet.maxReadings - 1; i++) set.add(["cmd", String(i)])
    assert.isFalse(set.full)
    assert.isUndefined(set.open)
    set.add(["cmd", "last"])
    assert.isTrue(set.full)
    assert.isUndefined(set.open, "reaching the bound drops nothing")
    set.add(["rm", "-rf", "/"])
    assert.strictEqual(set.all.length, ReadingSet.maxReadings)
    assert.strictEqual(set.open, "it runs more commands than the engine follows")
  })

  it("an earlier reason to be open is kept", () => {
    const set = new ReadingSet.Readings()
    set.add(["$cmd", "x"])
    for (let i = 0; i <= ReadingSet.maxReadings; i++) set.add(["cmd", String(i)])
    assert.strictEqual(set.open, "its command name is computed when it runs")
  })

  it("glob command names are kept, at most 64 of them", () => {
    const set = new ReadingSet.Readings()
    assert.deepStrictEqual(set.globs, [])
    set.add(["ls"])
    set.add(["["])
    set.add(["[["])
    assert.deepStrictEqual(set.globs, [])
    for (let i = 0; i < 100; i++) set.add([`/bin/r[m]${i}`])
    assert.strictEqual(set.globs.length, 64)
    assert.strictEqual(set.globs[0], "/bin/r[m]0")
  })

  it.effect("a line whose command names hold no glob has no glob names", () =>
    Effect.gen(function*() {
      const service = yield* CommandLine.make
      assert.deepStrictEqual(service.analyse("ls -la && git status | cat").globNames, [])
      // Nor does it write anywhere.
      assert.deepStrictEqual(service.analyse("ls -la && git status | cat").writes, [])
      assert.include(service.analyse("/bin/r? -rf x").globNames, "/bin/r?")
    }))

  it("a reading first reached by a guess and then for sure is sure", () => {
    const set = new ReadingSet.Readings()
    set.add(["x", "1"], true)
    set.add(["y"], true)
    assert.deepStrictEqual(set.guesses, [["x", "1"], ["y"]])
    set.add(["x", "1"])
    set.add(["y"], true)
    assert.deepStrictEqual(set.guesses, [["y"]])
    assert.deepStrictEqual(set.all, [["x", "1"], ["y"]])
  })
})

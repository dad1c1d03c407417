/**
 * make runs its makefile's recipes as shell commands: a makefile it reads
 * from input (`make -f - <<EOF`, `-f /dev/stdin`) or is given with
 * `--eval` is read as a script, so deny rules and the destruction check see
 * its recipes and `$(shell …)` calls. The grammar drops the lone `-` before
 * a here-document; bash keeps it, and so do the readings.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as CommandLine from "../src/CommandLine.js"
import { engineWith, outcomeOf, unseenRemovals } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

describe("a makefile from the line", () => {
  it.effect("the lone `-`s the grammar drops before a here-document are words", () =>
    Effect.gen(function*() {
      const { analyse } = yield* CommandLine.make
      assert.deepStrictEqual(analyse("cat - <<EOF\nx\nEOF").readings, [["cat", "-"]])
      assert.deepStrictEqual(analyse("cat a - - <<EOF\nx\nEOF").readings, [["cat", "a", "-", "-"]])
      assert.deepStrictEqual(analyse("cat - >out <<EOF\nx\nEOF").readings, [["cat", "-"]])
      assert.deepStrictEqual(analyse("cat <<EOF\nx\nEOF").readings, [["cat"]])
    }))

  it.effect("its recipes are read as commands", () =>
    Effect.gen(function*() {
      const unseen = yield* unseenRemovals([
        "make -f - <<EOF\nall:\n\trm -rf /\nEOF",
        "make -f /dev/stdin <<< $'all:\\n\\trm -rf /'",
        "printf 'all:\\n\\trm -rf /\\n' | make -f -",
        "make --file=- <<'EOF'\nall:\n\trm -rf /\nEOF",
        "make --eval='x := $(shell rm -rf /)'",
        "make -E 'all: ; rm -rf /' all"
      ])
      assert.deepStrictEqual(unseen, [])
    }))

  it.effect("make on a file the words name is the program it is", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith({ mode: "default", allow: ["Bash(make test)", "Bash(make -C src build)"] })
      for (const line of ["make test", "make -C src build"]) {
        assert.strictEqual(yield* outcomeOf(subject, request(bash, { command: line })), "allow:rule", line)
      }
      assert.strictEqual(
        yield* outcomeOf(subject, request(bash, { command: "make -f - <<EOF\nt:\n\ttrue\nEOF" })),
        "ask"
      )
    }))
})

/**
 * The walk over a command line's tree at its edges: where it gives up the
 * tree (a line nested too deep, a here-document bash ends elsewhere than the
 * grammar), it must still read every command bash could run there, or a deny
 * rule and the destructive-command check miss it. Each line here runs
 * `rm -rf /` in bash (checked against bash 5.2 with a stub `rm`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as CommandLine from "../src/CommandLine.js"

const analysis = (line: string) => Effect.map(CommandLine.make, (service) => service.analyse(line))

const readings = (line: string) => Effect.map(analysis(line), (a) => a.readings.map((words) => words.join(" ")))

describe("a line nested deeper than the walk follows", () => {
  // 210 subshells: past the walk's nesting bound of 200.
  const deep = `${"( ".repeat(210)}rm -rf /${" )".repeat(210)}`

  it.effect("still yields the command at the bottom, read lexically, and is open, saying it nests too deeply", () =>
    Effect.gen(function*() {
      const result = yield* analysis(deep)
      assert.include(result.readings.map((words) => words.join(" ")), "rm -rf /")
      assert.match(result.open ?? "", /nests too deeply/)
    }))
})

describe("a here-document bash ends before the grammar does", () => {
  // The grammar ends `<<$'EOF'` only at a line `$'EOF'`; bash, at `EOF`: the
  // lines between are commands to bash, not a body.
  it.effect("the lines after bash's end are read as commands, whatever quotes the body opened before", () =>
    Effect.gen(function*() {
      assert.include(yield* readings("cat <<$'EOF'\necho \"x\nEOF\nrm -rf /\necho \"\n$'EOF'"), "rm -rf /")
    }))

  it.effect("those lines are read as a script too: their words evaluated and their assignments in force", () =>
    Effect.gen(function*() {
      assert.include(yield* readings("cat <<$'EOF'\nbody\nEOF\n$'\\x72m' -rf /\n$'EOF'"), "rm -rf /")
      assert.include(yield* readings("cat <<$'EOF'\nbody\nEOF\nX=rm; $X -rf /\n$'EOF'"), "rm -rf /")
    }))
})

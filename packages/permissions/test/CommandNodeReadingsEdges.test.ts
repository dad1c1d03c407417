/**
 * What one command node and one pipeline stage are read as, at the edges the
 * grammar and bash leave open: the script `echo`, `printf` or `cat <<<`
 * prints into a shell, whatever options, quoting, assignments or redirections
 * stand around the words; what only a guess reaches (a program the engine
 * does not know) kept apart from what bash runs for sure. A script missed here
 * is a denied command a shell runs; a sure reading marked a guess escapes the
 * destruction check, and a guess marked sure holds a harmless line to rules
 * it never meets.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as CommandLine from "../src/CommandLine.js"

const analyse = (line: string) =>
  Effect.map(CommandLine.make, (service) => {
    const analysis = service.analyse(line)
    return {
      readings: analysis.readings.map((words) => words.join(" ")),
      guesses: analysis.guesses.map((words) => words.join(" "))
    }
  })

const readings = (line: string) => Effect.map(analyse(line), (analysis) => analysis.readings)

describe("what a stage prints into a shell", () => {
  it.effect("echo's options are dropped from the script it prints, and only words that are options", () =>
    Effect.gen(function*() {
      for (
        const line of [
          "echo rm -rf / | sh",
          "echo -n 'rm -rf /' | sh",
          "echo -E 'rm -rf /' | sh",
          "echo -ne 'rm -rf /' | sh",
          "echo -n -e 'rm -rf /' | bash"
        ]
      ) {
        const read = yield* analyse(line)
        assert.include(read.readings, "rm -rf /", line)
        // Read as what the shell surely runs, not as a guess behind a program named `-n`.
        assert.notInclude(read.guesses, "rm -rf /", line)
      }
      // A word that only starts or ends like an option is printed, and the shell runs it.
      assert.include(yield* readings("echo 'rm a-n' | sh"), "rm a-n")
      assert.include(yield* readings("echo '-n; rm -rf /' | sh"), "rm -rf /")
      assert.include(yield* readings("echo -x 'rm -rf /' | sh"), "-x rm -rf /")
    }))

  it.effect("the printing stage is found behind assignments, redirections and quoting of its name", () =>
    Effect.gen(function*() {
      for (
        const line of [
          "X=1 echo 'rm -rf /' | sh",
          "2>/dev/null echo 'rm -rf /' | sh",
          "echo 'rm -rf /' 2>/dev/null | sh",
          "'echo' 'rm -rf /' | sh",
          "\"printf\" 'rm -rf /' | sh",
          "(X=1; echo 'rm -rf /') | sh",
          "echo 'rm -rf /' | sh 2>/dev/null",
          "echo 'rm -rf /' | X=1 sh",
          "cat <<< 'rm -rf /' 2>/dev/null | sh",
          "cat <<< 'rm -rf /' > /dev/stdout | bash"
        ]
      ) {
        assert.include(yield* readings(line), "rm -rf /", line)
      }
    }))

  it.effect("a here-string is the script as one line: bash does not split it, whatever the reading of its words", () =>
    Effect.gen(function*() {
      assert.include(yield* readings("X='rm -rf /'; cat <<< $X | sh"), "rm -rf /")
      assert.include(yield* readings("X='rm -rf /'; sh <<< $X"), "rm -rf /")
    }))

  it.effect("a stage that does not print its words or its here-string feeds the shell none of them", () =>
    Effect.gen(function*() {
      // `cat` prints the file named 'rm -rf /', `wc` a count: what the shell runs, the line does not tell.
      assert.notInclude(yield* readings("cat 'rm -rf /' | sh"), "rm -rf /")
      assert.notInclude(yield* readings("wc -l <<< 'rm -rf /' | sh"), "rm -rf /")
      assert.notInclude(yield* readings("grep -c x <<< 'rm -rf /' | bash"), "rm -rf /")
    }))

  it.effect("a shell that surely reads the pipe runs its script for sure; one behind an unknown program only maybe", () =>
    Effect.gen(function*() {
      const sure = yield* analyse("echo 'rm -rf /' | sh")
      assert.include(sure.readings, "rm -rf /")
      assert.notInclude(sure.guesses, "rm -rf /")
      const guessed = yield* analyse("echo 'rm -rf /' | taskset 0x1 sh")
      assert.include(guessed.guesses, "rm -rf /")
    }))
})

describe("what one command runs", () => {
  it.effect("an assignment before a command is no word of it", () =>
    Effect.gen(function*() {
      const read = yield* readings("X=1 rm -rf /")
      assert.include(read, "rm -rf /")
      assert.isFalse(read.some((words) => words.startsWith("X=1")), read.join(" | "))
    }))

  it.effect("a redirection before the command name is no word of it", () =>
    Effect.gen(function*() {
      const read = yield* analyse("2>/dev/null rm -rf /")
      assert.deepStrictEqual(read.readings, ["rm -rf /"])
      assert.deepStrictEqual(read.guesses, [])
    }))

  it.effect("a shell with no here-document or here-string reads no script of the line's", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* readings("sh -x"), ["sh -x"])
      assert.deepStrictEqual(yield* readings("bash"), ["bash"])
    }))

  it.effect("a wrapper the engine knows runs its command for sure; an unknown program's later words only maybe", () =>
    Effect.gen(function*() {
      const sudo = yield* analyse("sudo rm -rf /")
      assert.include(sudo.readings, "rm -rf /")
      assert.deepStrictEqual(sudo.guesses, [])
      const bashC = yield* analyse("bash -c 'rm -rf /'")
      assert.include(bashC.readings, "rm -rf /")
      assert.deepStrictEqual(bashC.guesses, [])
      const taskset = yield* analyse("taskset 0x1 rm -rf /")
      assert.deepStrictEqual(taskset.guesses, ["rm -rf /"])
      const tasksetScript = yield* analyse("taskset 0x1 bash -c 'rm -rf /'")
      assert.include(tasksetScript.guesses, "rm -rf /")
    }))

  it.effect("a here-string or here-document fed to a shell is its script for sure; to one behind an unknown program, maybe", () =>
    Effect.gen(function*() {
      for (const line of ["sh <<< 'rm -rf /'", "bash <<EOF\nrm -rf /\nEOF"]) {
        const sure = yield* analyse(line)
        assert.include(sure.readings, "rm -rf /", line)
        assert.deepStrictEqual(sure.guesses, [], line)
      }
      const guessed = yield* analyse("taskset 0x1 sh <<< 'rm -rf /'")
      assert.include(guessed.guesses, "rm -rf /")
    }))
})

describe("words the grammar hangs on a redirection", () => {
  it.effect("the words after a redirection's destination are the command's, in bash's order", () =>
    Effect.gen(function*() {
      assert.include(yield* readings("rm 2>/dev/null -rf /"), "rm -rf /")
      assert.include(yield* readings("rm -rf 2>/dev/null /"), "rm -rf /")
      const sudo = yield* analyse("sudo >/dev/null rm -rf /")
      assert.include(sudo.readings, "sudo rm -rf /")
      assert.include(sudo.readings, "rm -rf /")
      assert.notInclude(sudo.guesses, "rm -rf /")
      // `>&-` closes a descriptor: every word after it is the command's (the grammar loses them in an error).
      assert.include(yield* readings("rm 2>&- -rf /"), "rm -rf /")
      assert.include(yield* readings("sudo 2>&- rm -rf /"), "rm -rf /")
      assert.include(yield* readings("rm <&- x y"), "rm x y")
      // The grammar hangs `>/dev/null rm -rf /` on the pipeline or list; bash on its last command.
      assert.include(yield* readings("echo ok | sudo >/dev/null rm -rf /"), "rm -rf /")
      assert.include(yield* readings("echo ok && sudo >/dev/null rm -rf /"), "rm -rf /")
      // Not the command before the operator, though.
      assert.notInclude(yield* readings("rm x && sudo >/dev/null y"), "rm x y")
    }))

  it.effect("a simple line's command has them too: an allow rule for the first words does not cover the rest", () =>
    Effect.gen(function*() {
      const service = yield* CommandLine.make
      const sudo = service.analyse("sudo >/dev/null rm -rf /")
      assert.deepStrictEqual(sudo.commands.map((command) => command.words), [["sudo", "rm", "-rf", "/"]])
      assert.deepStrictEqual(sudo.commands[0]?.covers, [["sudo", "rm", "-rf", "/"], ["rm", "-rf", "/"]])
      const ls = service.analyse("ls 2>/dev/null -la src")
      assert.deepStrictEqual(ls.commands.map((command) => command.words), [["ls", "-la", "src"]])
    }))

  it.effect("a redirection's destination is no word of the command", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* readings("ls > out"), ["ls"])
      assert.deepStrictEqual(yield* readings("ls >a\"b\" c"), ["ls c"])
      assert.deepStrictEqual(yield* readings("echo hi 2>&1 | tee log"), ["echo hi", "tee log"])
      assert.deepStrictEqual(yield* readings("npm test 2>&1 | tail -5"), ["npm test", "tail -5"])
    }))
})

describe("a here-document's start line", () => {
  it.effect("the commands after a redirection or a word on it are read, as the grammar's error hides them", () =>
    Effect.gen(function*() {
      for (
        const line of [
          "cat <<EOF > /dev/null; rm -rf /\nx\nEOF",
          "cat <<EOF x; rm -rf /\nx\nEOF",
          "cat <<EOF >&2 | rm -rf /\nx\nEOF",
          "cat <<EOF 2>&1 | sh\nrm -rf /\nEOF",
          "cat <<EOF | cat | sh\nrm -rf /\nEOF"
        ]
      ) {
        const read = yield* analyse(line)
        assert.include(read.readings, "rm -rf /", line)
        assert.notInclude(read.guesses, "rm -rf /", line)
      }
      // The words before the operator are the here-document's command's.
      assert.include(yield* readings("cat <<EOF x; rm -rf /\nx\nEOF"), "cat x")
      assert.include(yield* readings("cat <<EOF > /dev/null rm -rf /\nx\nEOF"), "cat rm -rf /")
    }))

  it.effect("a body goes to the stages its line pipes into, not to a command after another operator", () =>
    Effect.gen(function*() {
      assert.include(yield* readings("cat <<EOF 2>/dev/null | X=1 bash -s\nrm -rf /\nEOF"), "rm -rf /")
      assert.notInclude(yield* readings("cat <<EOF > f; sh\nrm -rf /\nEOF"), "rm -rf /")
      // A file written from a here-document runs nothing in it.
      assert.deepStrictEqual(yield* readings("cat <<EOF > file\ntext\nEOF"), ["cat"])
    }))
})

describe("what an earlier stage prints into a shell", () => {
  it.effect("a here-document, here-string, echo or printf anywhere in a group or subshell is the shell's script", () =>
    Effect.gen(function*() {
      for (
        const line of [
          "{ cat <<EOF\nrm -rf /\nEOF\n} | sh",
          "(cat <<EOF\nrm -rf /\nEOF\n) | sh",
          "{ echo ok; echo 'rm -rf /'; } | sh",
          "(cd /tmp && printf 'rm -rf /') | bash",
          "{ cat <<< 'rm -rf /'; } | sh"
        ]
      ) {
        const read = yield* analyse(line)
        assert.include(read.readings, "rm -rf /", line)
        assert.notInclude(read.guesses, "rm -rf /", line)
      }
    }))

  it.effect("cat with no file and tee pass on what they read; cat with a file does not", () =>
    Effect.gen(function*() {
      for (
        const line of [
          "echo 'rm -rf /' | cat | sh",
          "echo 'rm -rf /' | cat - | sh",
          "echo 'rm -rf /' | tee /dev/null | sh",
          "echo 'rm -rf /' | { cat; } | sh",
          "cat <<EOF | cat | sh\nrm -rf /\nEOF"
        ]
      ) {
        assert.include(yield* readings(line), "rm -rf /", line)
      }
      assert.notInclude(yield* readings("echo 'rm -rf /' | cat notes | sh"), "rm -rf /")
      assert.notInclude(yield* readings("echo 'rm -rf /' | wc -l | sh"), "rm -rf /")
      // Behind an unknown program the shell only maybe reads it.
      assert.include((yield* analyse("echo 'rm -rf /' | cat | taskset 0x1 sh")).guesses, "rm -rf /")
    }))
})

import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as Wrappers from "../src/Wrappers.js"

const split = (line: string): ReadonlyArray<string> => line.split(" ")

/** The Words readings after the command itself, as space-joined lines; guesses left out. */
const inner = (unwrapped: Wrappers.Unwrapped): ReadonlyArray<string> =>
  unwrapped.readings.slice(1).flatMap((reading) =>
    reading._tag === "Words" && reading.guess !== true ? [reading.words.join(" ")] : []
  )

/** The guesses: what a program the engine does not know might run. */
const guesses = (unwrapped: Wrappers.Unwrapped): ReadonlyArray<string> =>
  unwrapped.readings.flatMap((reading) =>
    reading.guess === true && reading._tag === "Words" ? [reading.words.join(" ")] : []
  )

const scripts = (unwrapped: Wrappers.Unwrapped): ReadonlyArray<string> =>
  unwrapped.readings.flatMap((reading) => reading._tag === "Script" ? [reading.script] : [])

/** A wrapper that certainly runs `runs` and nothing else, with no doubt. */
const runsOnly = (words: ReadonlyArray<string>, runs: string, readings: ReadonlyArray<string> = [runs]) => {
  const unwrapped = Wrappers.unwrap(words)
  assert.deepStrictEqual(unwrapped.runs, split(runs))
  assert.deepStrictEqual(inner(unwrapped), readings)
  assert.deepStrictEqual(scripts(unwrapped), [])
  assert.deepStrictEqual(unwrapped.doubts, [])
}

/** A wrapper whose chain ends in a script. */
const runsScript = (words: ReadonlyArray<string>, script: string) => {
  const unwrapped = Wrappers.unwrap(words)
  assert.isUndefined(unwrapped.runs)
  assert.deepStrictEqual(scripts(unwrapped), [script])
  assert.deepStrictEqual(unwrapped.doubts, [])
}

/** A command that runs nothing but itself. */
const runsItself = (words: ReadonlyArray<string>) => {
  const unwrapped = Wrappers.unwrap(words)
  assert.deepStrictEqual(unwrapped.runs, words)
  assert.deepStrictEqual(unwrapped.readings, [{ _tag: "Words", words, via: [] }])
}

describe("Wrappers.unwrap", () => {
  it("a plain command is its own only reading", () => {
    assert.deepStrictEqual(Wrappers.unwrap(["rm", "-rf", "/"]), {
      readings: [{ _tag: "Words", words: ["rm", "-rf", "/"], via: [] }],
      runs: ["rm", "-rf", "/"],
      readsStdinScript: false,
      mayReadStdinScript: false,
      doubts: []
    })
  })

  it("sudo: value options, combined flags, assignments and --", () => {
    runsOnly(split("sudo -u root rm -rf /"), "rm -rf /")
    runsOnly(split("sudo -uroot rm"), "rm")
    runsOnly(split("sudo --user=root rm"), "rm")
    runsOnly(split("sudo --user root rm"), "rm")
    runsOnly(split("sudo --us root rm"), "rm")
    runsOnly(split("sudo -iu root rm"), "rm")
    runsOnly(split("sudo -Eu root rm"), "rm")
    runsOnly(split("sudo FOO=1 rm"), "rm")
    runsOnly(split("sudo -u root FOO=1 BAR=2 rm -rf /"), "rm -rf /")
    runsOnly(split("sudo -u root -- rm"), "rm")
    runsOnly(split("sudo -g wheel -C 3 -D /tmp -h host -p pw -r role -t type -T 5 -U bob rm"), "rm")
    runsOnly(split("sudo --preserve-env=PATH rm"), "rm")
    runsOnly(split("sudo -s rm"), "rm")
    runsItself(split("sudo -l rm"))
    runsItself(split("sudo -e /etc/passwd"))
    runsItself(split("sudo -h"))
    assert.isTrue(Wrappers.unwrap(split("sudo -i")).readsStdinScript)
  })

  it("sudo: an unknown option keeps every later word that could be the command", () => {
    const unwrapped = Wrappers.unwrap(split("sudo -Z x rm"))
    assert.isUndefined(unwrapped.runs)
    assert.deepStrictEqual(inner(unwrapped), ["x rm", "rm"])
    assert.deepStrictEqual(unwrapped.doubts, ["sudo: unknown option -Z, so what it runs is uncertain"])
    const missing = Wrappers.unwrap(split("sudo -u"))
    assert.isUndefined(missing.runs)
    assert.deepStrictEqual(missing.doubts, ["sudo: option is missing its value -u, so what it runs is uncertain"])
  })

  it("doas", () => {
    runsOnly(split("doas -u root rm"), "rm")
    runsOnly(split("doas -n rm"), "rm")
    runsItself(split("doas -C /etc/doas.conf rm"))
  })

  it("env: options, assignments, -- and the obsolete -", () => {
    runsOnly(split("env -i PATH=/x rm"), "rm")
    runsOnly(split("env -- rm"), "rm")
    runsOnly(split("env -u HOME -C /tmp rm"), "rm")
    runsOnly(split("env --unset=HOME --chdir /tmp rm"), "rm")
    runsOnly(split("env - FOO=1 rm"), "rm")
    runsOnly(split("env --ignore-signal rm"), "rm")
    runsItself(split("env FOO=1"))
  })

  it("env -S splits its string with env's own rules", () => {
    runsOnly(["env", "-S", "rm -rf /"], "rm -rf /")
    runsOnly(["env", "--split-string=rm -rf /"], "rm -rf /")
    runsOnly(["env", "--split-string", "rm -rf", "/"], "rm -rf /")
    runsOnly(["env", "-vS", "rm -rf /"], "rm -rf /")
    // Quote removal leaves `-Srm -rf /`; a #! line passes `-S rm -rf /` as one word.
    runsOnly(["env", "-Srm -rf /"], "rm -rf /")
    runsOnly(["env", "-S rm -rf /"], "rm -rf /")
    // The split words are parsed again, options and assignments included.
    runsOnly(["env", "-S", "-i FOO=1 rm -rf"], "rm -rf")
    const quoted = Wrappers.unwrap(["env", "-S", "rm 'a b' \"c\\td\" e\\_f #g", "h"])
    assert.deepStrictEqual(quoted.runs, ["rm", "a b", "c\td", "e", "f", "h"])
    assert.deepStrictEqual(Wrappers.unwrap(["env", "-S", "rm \\c -rf"]).runs, ["rm"])
    // #!-style with literal quotes: one word, quotes kept by the kernel.
    assert.deepStrictEqual(Wrappers.unwrap(["env", "-S'rm -rf /'"]).readings[1], {
      _tag: "Words",
      words: ["rm -rf /"],
      via: ["env"]
    })
    const variable = Wrappers.unwrap(["env", "-S", "${CMD} -rf /"])
    assert.isUndefined(variable.runs)
    assert.deepStrictEqual(inner(variable), ["${CMD} -rf /"])
    assert.deepStrictEqual(variable.doubts, ["env -S expands a variable whose value is unknown"])
    assert.isUndefined(Wrappers.unwrap(["env", "-S", "rm 'a"]).runs)
  })

  it("nice and ionice", () => {
    runsOnly(split("nice -n 5 rm"), "rm")
    runsOnly(split("nice -5 rm"), "rm")
    runsOnly(split("nice --10 rm"), "rm")
    runsOnly(split("nice --adjustment=5 rm"), "rm")
    runsOnly(split("ionice -c 3 rm"), "rm")
    runsOnly(split("ionice -c2 -n7 rm"), "rm")
    runsItself(split("ionice -p 42"))
  })

  it("timeout: options, then the duration, then the command", () => {
    runsOnly(split("timeout 5 rm"), "rm")
    runsOnly(split("timeout -s KILL 5 rm"), "rm")
    runsOnly(split("timeout --kill-after=1 5 rm"), "rm")
    runsOnly(split("timeout -k 1 --preserve-status --foreground -v 5s rm -rf /"), "rm -rf /")
    runsItself(split("timeout 5"))
  })

  it("nohup, time, setsid, stdbuf", () => {
    runsOnly(split("nohup rm"), "rm")
    runsOnly(split("nohup -- rm"), "rm")
    runsOnly(split("time -p rm"), "rm")
    runsOnly(split("time -f %e -o out -a -v rm"), "rm")
    runsOnly(split("setsid -f rm"), "rm")
    runsOnly(split("setsid -cw rm"), "rm")
    runsOnly(split("stdbuf -oL -e 0 rm"), "rm")
    runsOnly(split("stdbuf --output=L rm"), "rm")
  })

  it("flock: FILE then a command, -c with one command string, or a descriptor", () => {
    runsOnly(split("flock f rm"), "rm")
    runsOnly(split("flock -s -n -E 3 f rm -rf /"), "rm -rf /")
    runsScript(["flock", "-w", "3", "f", "-c", "rm -rf /"], "rm -rf /")
    runsItself(split("flock 9"))
    runsItself(split("flock -u 9"))
  })

  it("chroot", () => {
    runsOnly(split("chroot /srv rm"), "rm")
    runsOnly(split("chroot --userspec=a:b /srv rm"), "rm")
    assert.isTrue(Wrappers.unwrap(split("chroot /srv")).readsStdinScript)
  })

  it("xargs: the command with arguments from input is always a doubt", () => {
    const replace = Wrappers.unwrap(split("xargs -I{} rm {}"))
    assert.isUndefined(replace.runs)
    assert.deepStrictEqual(inner(replace), ["rm {}"])
    assert.deepStrictEqual(replace.doubts, ["xargs appends arguments read from input"])
    assert.deepStrictEqual(inner(Wrappers.unwrap(split("xargs -0 -n1 rm"))), ["rm"])
    assert.deepStrictEqual(inner(Wrappers.unwrap(split("xargs -P 4 -d , -a list -E end -L 2 -s 99 -r -t -p -x rm"))), [
      "rm"
    ])
    assert.deepStrictEqual(inner(Wrappers.unwrap(split("xargs -i rm {}"))), ["rm {}"])
    assert.deepStrictEqual(inner(Wrappers.unwrap(["xargs"])), ["echo"])
  })

  it("find: each -exec command is a reading; deleting and writing are doubts", () => {
    const exec = Wrappers.unwrap(split("find . -exec rm {} ; -execdir sh -c x {} + -ok mv {} /tmp ;"))
    assert.isUndefined(exec.runs)
    assert.deepStrictEqual(inner(exec), ["rm {}", "sh -c x {}", "mv {} /tmp"])
    assert.deepStrictEqual(scripts(exec), ["x"])
    assert.deepStrictEqual(exec.doubts, [
      "find -exec runs a command for each file it finds",
      "find -execdir runs a command for each file it finds",
      "find -ok runs a command for each file it finds"
    ])
    const deletes = Wrappers.unwrap(split("find . -name x -delete"))
    assert.deepStrictEqual(deletes.runs, split("find . -name x -delete"))
    assert.deepStrictEqual(deletes.doubts, ["find -delete deletes the files it finds"])
    assert.deepStrictEqual(Wrappers.unwrap(split("find . -fprint out -fls l")).doubts, [
      "find -fprint writes to a file",
      "find -fls writes to a file"
    ])
    runsItself(split("find . -name x"))
  })

  it("watch: sh -c of its words joined, or the words themselves with -x", () => {
    runsScript(["watch", "ls"], "ls")
    runsScript(["watch", "-n", "1", "rm -rf /"], "rm -rf /")
    runsScript(split("watch -d -t -n1 rm -rf /"), "rm -rf /")
    runsOnly(split("watch -x rm -rf /"), "rm -rf /")
  })

  it("script: -c runs a script; without it a shell reads standard input", () => {
    runsScript(["script", "-qc", "rm -rf /", "/dev/null"], "rm -rf /")
    runsScript(["script", "-q", "/dev/null", "--command", "rm -rf /"], "rm -rf /")
    runsScript(["script", "-crm", "log"], "rm")
    const shell = Wrappers.unwrap(split("script -q -a -T t log"))
    assert.isTrue(shell.readsStdinScript)
    assert.deepStrictEqual(shell.runs, split("script -q -a -T t log"))
  })

  it("su and runuser: -c, a user, and a shell reading standard input", () => {
    runsScript(["su", "-c", "rm -rf /"], "rm -rf /")
    runsScript(["su", "root", "-c", "rm"], "rm")
    runsScript(["su", "-", "root", "--command=rm"], "rm")
    runsScript(["su", "-l", "-s", "/bin/sh", "-m", "-g", "g", "-G", "h", "-P", "-w", "A", "root", "-c", "rm"], "rm")
    assert.isTrue(Wrappers.unwrap(split("su - root")).readsStdinScript)
    assert.deepStrictEqual(inner(Wrappers.unwrap(split("su root -- -c rm"))), ["sh -c rm"])
    runsOnly(split("runuser -u root -- rm -rf /"), "rm -rf /")
    runsOnly(split("runuser -u root rm"), "rm")
    runsScript(["runuser", "root", "-c", "rm"], "rm")
  })

  it("pkexec, sg, nsenter, unshare", () => {
    runsOnly(split("pkexec --user root rm"), "rm")
    runsScript(["sg", "wheel", "-c", "rm -rf /"], "rm -rf /")
    runsScript(["sg", "wheel", "rm"], "rm")
    runsOnly(split("nsenter -t 1 -m -u -n rm"), "rm")
    runsOnly(split("nsenter --target=1 --mount rm"), "rm")
    runsOnly(split("unshare -r -n --fork rm"), "rm")
    assert.isTrue(Wrappers.unwrap(split("unshare -r")).readsStdinScript)
  })

  it("bash, sh, zsh, dash, ksh: -c anywhere among the options, -o taking a value", () => {
    runsScript(["bash", "-o", "errexit", "-c", "rm -rf /"], "rm -rf /")
    runsScript(["bash", "-c", "--", "rm -rf /"], "rm -rf /")
    runsScript(["bash", "-ec", "rm"], "rm")
    runsScript(["sh", "-xc", "rm", "name", "arg"], "rm")
    runsScript(["zsh", "-lc", "rm"], "rm")
    runsScript(["dash", "-c", "-e", "rm"], "rm")
    runsScript(["ksh", "+o", "noglob", "-c", "rm"], "rm")
    runsScript(["bash", "--norc", "--noprofile", "--login", "--posix", "-c", "rm"], "rm")
    runsScript(["bash", "--rcfile", "rc", "-c", "rm"], "rm")
    for (const stdin of [["sh", "-s"], ["bash"], ["sh", "-"], ["bash", "-s", "a", "b"], ["bash", "-e"]]) {
      const unwrapped = Wrappers.unwrap(stdin)
      assert.isTrue(unwrapped.readsStdinScript, stdin.join(" "))
      assert.deepStrictEqual(unwrapped.runs, stdin)
    }
    const file = Wrappers.unwrap(split("bash script.sh"))
    assert.isFalse(file.readsStdinScript)
    assert.deepStrictEqual(file.runs, split("bash script.sh"))
    assert.isUndefined(Wrappers.unwrap(split("bash --frobnicate -c rm")).runs)
  })

  it("eval, exec, command, builtin, coproc", () => {
    runsScript(["eval", "--", "rm -rf /"], "rm -rf /")
    runsScript(["eval", "rm", "-rf", "/"], "rm -rf /")
    runsOnly(split("exec -a x rm"), "rm")
    runsOnly(split("exec -cl rm"), "rm")
    runsOnly(split("command -p rm"), "rm")
    runsItself(split("command -v rm"))
    runsItself(split("command -V rm"))
    const builtin = Wrappers.unwrap(split("builtin eval x"))
    assert.deepStrictEqual(inner(builtin), ["eval x"])
    assert.deepStrictEqual(scripts(builtin), ["x"])
    assert.isUndefined(builtin.runs)
    runsOnly(split("coproc rm"), "rm")
    const compound = Wrappers.unwrap(split("coproc NAME { rm ; }"))
    assert.isUndefined(compound.runs)
    assert.deepStrictEqual(compound.doubts, ["coproc runs a compound command, which these words do not show"])
  })

  it("busybox runs its applet", () => {
    runsOnly(split("busybox rm -rf /"), "rm -rf /")
    runsScript(["busybox", "sh", "-c", "rm"], "rm")
    runsItself(split("busybox --list"))
    assert.isUndefined(Wrappers.unwrap(split("busybox -x rm")).runs)
  })

  it("a full path adds its basename, which goes on unwrapping", () => {
    const path = Wrappers.unwrap(split("/usr/bin/rm -rf /"))
    assert.deepStrictEqual(path.runs, split("/usr/bin/rm -rf /"))
    assert.deepStrictEqual(inner(path), ["rm -rf /"])
    assert.deepStrictEqual(inner(Wrappers.unwrap(split("./rm x"))), ["rm x"])
    assert.deepStrictEqual(Wrappers.unwrap(split("/usr/bin/sudo rm")).readings, [
      { _tag: "Words", words: ["/usr/bin/sudo", "rm"], via: [] },
      { _tag: "Words", words: ["sudo", "rm"], via: [] },
      { _tag: "Words", words: ["rm"], via: ["sudo"] }
    ])
    assert.deepStrictEqual(Wrappers.unwrap(split("/usr/bin/sudo rm")).runs, ["rm"])
  })

  it("nested wrappers: every level is a reading, with the wrappers leading to it", () => {
    const unwrapped = Wrappers.unwrap(split("sudo env timeout 5 nice rm"))
    assert.deepStrictEqual(unwrapped.readings, [
      { _tag: "Words", words: split("sudo env timeout 5 nice rm"), via: [] },
      { _tag: "Words", words: split("env timeout 5 nice rm"), via: ["sudo"] },
      { _tag: "Words", words: split("timeout 5 nice rm"), via: ["sudo", "env"] },
      { _tag: "Words", words: split("nice rm"), via: ["sudo", "env", "timeout"] },
      { _tag: "Words", words: ["rm"], via: ["sudo", "env", "timeout", "nice"] }
    ])
    assert.deepStrictEqual(unwrapped.runs, ["rm"])
    const script = Wrappers.unwrap(["sudo", "bash", "-c", "rm"])
    assert.deepStrictEqual(script.readings[script.readings.length - 1], {
      _tag: "Script",
      script: "rm",
      via: ["sudo", "bash"]
    })
  })

  it("builtins that evaluate their arguments as code are doubts", () => {
    const doubts = (line: string) => Wrappers.unwrap(split(line)).doubts
    assert.deepStrictEqual(doubts("printf -v a[x] %s y"), [
      "printf -v assigns to a name bash evaluates (an array subscript runs code)"
    ])
    assert.deepStrictEqual(doubts("printf %s y"), [])
    assert.deepStrictEqual(doubts("test -v a[x]"), [
      "test -v looks up a name bash evaluates (an array subscript runs code)"
    ])
    assert.deepStrictEqual(doubts("[ -v x ]"), ["[ -v looks up a name bash evaluates (an array subscript runs code)"])
    assert.deepStrictEqual(doubts("[[ -v x ]]"), [
      "[[ -v looks up a name bash evaluates (an array subscript runs code)"
    ])
    for (const operator of ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]) {
      assert.deepStrictEqual(doubts(`[ a[x] ${operator} 1 ]`), [
        `[ with an arithmetic comparison evaluates its operands as arithmetic (an array subscript runs code)`
      ])
    }
    assert.deepStrictEqual(doubts("test a = b"), [])
    for (const declarer of ["declare", "typeset", "local", "export", "readonly"]) {
      assert.deepStrictEqual(doubts(`${declarer} a[x]=1`), [
        `${declarer} evaluates a subscript or value it assigns (an array subscript runs code)`
      ])
      assert.deepStrictEqual(doubts(`${declarer} -r a`), [])
    }
    const always = [
      "read x",
      "let x",
      "mapfile x",
      "readarray x",
      "source f",
      ". f",
      "trap x EXIT",
      "alias x=y",
      "enable -f x y",
      "fc -s",
      "shopt -s extglob",
      "set -o posix",
      "getopts ab x",
      "unset a[x]",
      "hash -p /bin/rm ls",
      "complete -C x y",
      "wait -p x"
    ]
    for (const line of always) assert.strictEqual(doubts(line).length, 1, line)
    for (const line of ["unset x", "hash", "complete -F f x", "wait 1", "set"]) {
      assert.deepStrictEqual(doubts(line), [], line)
    }
    // Behind a wrapper too.
    assert.strictEqual(Wrappers.unwrap(split("sudo let x")).doubts.length, 1)
  })

  it("100,000 nested sudo stop at the depth bound", () => {
    const words = Array.from({ length: 100_000 }, () => "sudo")
    const unwrapped = Wrappers.unwrap([...words, "rm"])
    assert.strictEqual(unwrapped.readings.length, 17)
    assert.isUndefined(unwrapped.runs)
    assert.deepStrictEqual(unwrapped.doubts, ["wrappers nested more than 16 deep: the rest were not read"])
  })

  it("a program with no table may start a command at each later word: guesses, never what runs", () => {
    const taskset = Wrappers.unwrap(split("taskset 0x1 nice -n 5 rm -rf /"))
    assert.deepStrictEqual(taskset.runs, split("taskset 0x1 nice -n 5 rm -rf /"))
    assert.deepStrictEqual(taskset.doubts, [])
    assert.deepStrictEqual(guesses(taskset), ["nice -n 5 rm -rf /", "rm -rf /"])
    // Through a wrapper the engine reads, and into a shell's script.
    assert.deepStrictEqual(guesses(Wrappers.unwrap(split("sudo strace -f rm x"))), ["rm x", "x"])
    const ssh = Wrappers.unwrap(["ssh", "host", "bash", "-c", "rm -rf /"])
    assert.deepStrictEqual(
      ssh.readings.filter((r) => r.guess === true && r._tag === "Script").map((r) => r._tag === "Script" && r.script),
      ["rm -rf /"]
    )
    assert.isFalse(ssh.readsStdinScript)
    assert.isTrue(Wrappers.unwrap(split("ssh host bash")).mayReadStdinScript)
    assert.isFalse(Wrappers.unwrap(split("ssh host bash")).readsStdinScript)
    // Known programs and builtins read their words as data.
    for (const line of ["git rm x", "echo rm", "man rm", "type rm", "npm test rm", "grep rm ."]) {
      assert.deepStrictEqual(guesses(Wrappers.unwrap(split(line))), [], line)
    }
    assert.deepStrictEqual(guesses(Wrappers.unwrap(split("git bisect run rm x"))), [
      "bisect run rm x",
      "run rm x",
      "rm x",
      "x"
    ])
    assert.deepStrictEqual(guesses(Wrappers.unwrap(split("npm exec -- rm x"))), ["exec -- rm x", "rm x", "x"])
  })

  // 9 s on a loaded machine: the timeout is above it.
  it("unknown options after 100,000 words stay bounded", () => {
    const words = ["sudo", "-Z", ...Array.from({ length: 100_000 }, (_, i) => `w${i}`)]
    const unwrapped = Wrappers.unwrap(words)
    // The command, 16 candidates after the unknown option, and 16 guesses for the first (an unknown program).
    assert.isAtMost(unwrapped.readings.length, 33)
    assert.isUndefined(unwrapped.runs)
  }, 60_000)

  const vocabulary = [
    "sudo",
    "doas",
    "env",
    "nice",
    "ionice",
    "timeout",
    "nohup",
    "time",
    "setsid",
    "flock",
    "stdbuf",
    "chroot",
    "xargs",
    "find",
    "watch",
    "script",
    "su",
    "runuser",
    "pkexec",
    "sg",
    "nsenter",
    "unshare",
    "bash",
    "sh",
    "eval",
    "exec",
    "command",
    "builtin",
    "coproc",
    "busybox",
    "/usr/bin/sudo",
    "rm",
    "-u",
    "-c",
    "-S",
    "-s",
    "-x",
    "-n",
    "-i",
    "-o",
    "-exec",
    ";",
    "+",
    "{}",
    "--",
    "-",
    "FOO=1",
    "5",
    "-iu",
    "--user=root",
    "--split-string",
    "-Srm -rf /",
    "'a b'",
    "\\c",
    "${X}"
  ]
  const wordLists = FastCheck.oneof(
    FastCheck.array(FastCheck.string()),
    FastCheck.array(FastCheck.constantFrom(...vocabulary), { maxLength: 40 })
  )

  it.prop("never throws, and what it runs is one of its readings", [wordLists], ([words]) => {
    const unwrapped = Wrappers.unwrap(words)
    assert.isAtMost(unwrapped.readings.length, 256)
    if (unwrapped.runs !== undefined) {
      const runs = unwrapped.runs
      assert.isTrue(
        unwrapped.readings.some((reading) =>
          reading._tag === "Words" && reading.words.length === runs.length &&
          reading.words.every((word, i) => word === runs[i])
        )
      )
    }
  }, { fastCheck: { numRuns: 2000 } })
})

/**
 * How a rule list meets a call's target, called directly: the reason each
 * deny or ask match gives the model, every cause and hint an allow gap
 * gives, the rules "always allow" offers and when it offers none, and the
 * protected places. The texts are what the model reads to change course,
 * so they are compared whole.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Tool from "@tool-runtime/core/Tool"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as CommandLine from "../src/CommandLine.js"
import type * as Rule from "../src/Rule.js"
import * as RuleMatch from "../src/RuleMatch.js"
import { bash, readFile } from "./SampleTools.js"

const bashOptions = {
  description: "Runs a shell command.",
  parameters: { command: Schema.String },
  subject: ({ command }: { readonly command: string }) => ({ _tag: "Command", command }) as const,
  handler: ({ command }: { readonly command: string }) => Effect.succeed(`ran ${command}`)
}

const location: Rule.Location = { workspaceRoot: "/work/app", homeDirectory: "/home/dev" }

const compiled = (rules: ReadonlyArray<string>, list: "allow" | "ask" | "deny") =>
  Either.getOrThrow(RuleMatch.compileAll(rules, location, list))

const withLine = <A>(f: (target: (line: string) => RuleMatch.Target) => A) =>
  Effect.map(
    CommandLine.make,
    (service) => f((line) => RuleMatch.analyse({ _tag: "Command", command: line }, location, service))
  )

const pathTarget = (path: string, access: "read" | "write" = "read", paths?: ReadonlyArray<string>) => {
  const target = RuleMatch.analyse({ _tag: "Path", path, access }, location, { analyse: () => assert.fail("no line") })
  return paths === undefined || target._tag !== "Path" ? target : { ...target, paths }
}

const urlTarget = (url: string) =>
  RuleMatch.analyse({ _tag: "Url", url }, location, { analyse: () => assert.fail("no line") })

const gap = (rules: ReadonlyArray<string>, target: RuleMatch.Target, writable?: (path: string) => boolean) =>
  Either.match(RuleMatch.allowOrGap(compiled(rules, "allow"), target, location, writable), {
    onLeft: (g) => g,
    onRight: (used) => ({ allowed: used })
  })

const noRule = "Use tools the permission rules allow, or tell the user what you need"
const plainOnly = "Write it as plain commands of literal words, or tell the user what you need"

describe("RuleMatch at its edges", () => {
  it("a rule without a specifier matches anything; a tool that names nothing is matched by any rule", () => {
    const [whole] = compiled(["Read"], "deny")
    const [narrow] = compiled(["Read(src/**)"], "deny")
    assert.deepStrictEqual(RuleMatch.restrictiveMatch(whole!, { _tag: "None" }), { rule: "Read", detail: undefined })
    assert.deepStrictEqual(RuleMatch.restrictiveMatch(narrow!, { _tag: "None" }), {
      rule: "Read(src/**)",
      detail: "the tool does not say what the call acts on, so the rule applies"
    })
    assert.deepStrictEqual(RuleMatch.restrictiveMatch(whole!, pathTarget("/elsewhere")), {
      rule: "Read",
      detail: undefined
    })
  })

  it("a path deny says where a link led, and nothing when the path as written matched", () => {
    const [rule] = compiled(["Read(secrets/**)"], "deny")
    assert.deepStrictEqual(RuleMatch.restrictiveMatch(rule!, pathTarget("/work/app/secrets/key")), {
      rule: "Read(secrets/**)",
      detail: undefined
    })
    assert.deepStrictEqual(
      RuleMatch.restrictiveMatch(
        rule!,
        pathTarget("/work/app/link", "read", ["/work/app/link", "/work/app/secrets/k"])
      ),
      { rule: "Read(secrets/**)", detail: "the path leads to /work/app/secrets/k" }
    )
    assert.isUndefined(RuleMatch.restrictiveMatch(rule!, pathTarget("/work/app/src/a")))
  })

  it("a URL deny: its host, no host at all, or a domain rule that does not parse all apply", () => {
    const [rule] = compiled(["WebFetch(domain:evil.com)"], "deny")
    assert.deepStrictEqual(RuleMatch.restrictiveMatch(rule!, urlTarget("https://evil.com/x")), {
      rule: "WebFetch(domain:evil.com)",
      detail: undefined
    })
    assert.deepStrictEqual(RuleMatch.restrictiveMatch(rule!, urlTarget("not a url")), {
      rule: "WebFetch(domain:evil.com)",
      detail: "the URL has no host"
    })
    assert.isUndefined(RuleMatch.restrictiveMatch(rule!, urlTarget("https://good.com/x")))
    // A rule of another tool with a specifier that is no domain rule still applies to a URL.
    const [other] = compiled(["fetch_page(x)"], "deny")
    assert.deepStrictEqual(RuleMatch.restrictiveMatch(other!, urlTarget("https://good.com/")), {
      rule: "fetch_page(x)",
      detail: undefined
    })
  })

  it.effect("a command deny: an open line, a glob command name, a reading of many", () =>
    withLine((line) => {
      const [rm] = compiled(["Bash(rm:*)"], "deny")
      const [anyVersion] = compiled(["Bash(* --version)"], "deny")
      const open = RuleMatch.restrictiveMatch(rm!, line("$CMD x"))
      assert.deepStrictEqual(open, {
        rule: "Bash(rm:*)",
        detail: "its command name is computed when it runs, and the rule could match it"
      })
      const glob = "its command name is a glob that could name the command the rule names"
      assert.deepStrictEqual(RuleMatch.restrictiveMatch(rm!, line("/bin/r[m] -rf x")), {
        rule: "Bash(rm:*)",
        detail: glob
      })
      assert.deepStrictEqual(RuleMatch.restrictiveMatch(rm!, line("r? -rf x")), { rule: "Bash(rm:*)", detail: glob })
      assert.deepStrictEqual(RuleMatch.restrictiveMatch(rm!, line("/bin/[r]* x")), { rule: "Bash(rm:*)", detail: glob })
      // Globs that cannot name rm.
      assert.isUndefined(RuleMatch.restrictiveMatch(rm!, line("l? x")))
      assert.isUndefined(RuleMatch.restrictiveMatch(rm!, line("rm? x")))
      assert.isUndefined(RuleMatch.restrictiveMatch(rm!, line("/usr/lib/l* x")))
      assert.isUndefined(RuleMatch.restrictiveMatch(rm!, line("r.[ x")))
      // A class of several characters is one character of the name.
      assert.deepStrictEqual(RuleMatch.restrictiveMatch(rm!, line("/bin/[rx]m x")), {
        rule: "Bash(rm:*)",
        detail: glob
      })
      assert.isUndefined(RuleMatch.restrictiveMatch(rm!, line("/bin/[ab]m x")))
      // A negated class, an unclosed [ (a literal to bash), a dot that is only a dot.
      assert.deepStrictEqual(RuleMatch.restrictiveMatch(rm!, line("/bin/[!x]m x")), {
        rule: "Bash(rm:*)",
        detail: glob
      })
      assert.isUndefined(RuleMatch.restrictiveMatch(rm!, line("/bin/[!r]m x")))
      assert.isUndefined(RuleMatch.restrictiveMatch(rm!, line("/bin/r[m x")))
      assert.isUndefined(RuleMatch.restrictiveMatch(rm!, line("/bin/r.* x")))
      // A glob the engine cannot read as a pattern could name anything.
      assert.deepStrictEqual(RuleMatch.restrictiveMatch(rm!, line("/bin/[z-a]m x")), {
        rule: "Bash(rm:*)",
        detail: glob
      })
      // A rule whose command name is itself a wildcard meets any glob name.
      assert.deepStrictEqual(RuleMatch.restrictiveMatch(anyVersion!, line("l? --help")), {
        rule: "Bash(* --version)",
        detail: glob
      })
      assert.isUndefined(RuleMatch.restrictiveMatch(anyVersion!, line("ls --help")))
      // One reading: no detail; several: the one that matched.
      assert.deepStrictEqual(RuleMatch.restrictiveMatch(rm!, line("rm -rf x")), {
        rule: "Bash(rm:*)",
        detail: undefined
      })
      assert.deepStrictEqual(RuleMatch.restrictiveMatch(rm!, line("sudo rm -rf x")), {
        rule: "Bash(rm:*)",
        detail: "it matches the command rm -rf x"
      })
      assert.isUndefined(RuleMatch.restrictiveMatch(rm!, line("ls x")))
    }))

  it("a directory rule: secrets/ at any depth in every list, secrets/** at any depth only to deny or ask", () => {
    const deepKey = pathTarget("/work/app/a/b/secrets/key")
    for (const spec of ["secrets/", "secrets/**"]) {
      const [deny] = compiled([`Read(${spec})`], "deny")
      assert.isDefined(RuleMatch.restrictiveMatch(deny!, deepKey), spec)
      assert.deepStrictEqual(gap([`Read(${spec})`], pathTarget("/work/app/secrets/key")), {
        allowed: [`Read(${spec})`]
      })
    }
    assert.deepStrictEqual(gap(["Read(secrets/)"], deepKey), { allowed: ["Read(secrets/)"] })
    assert.deepStrictEqual(gap(["Read(secrets/**)"], deepKey), { cause: "no rule allows it", hint: noRule })
    // Deeper relative shapes are anchored here for every list.
    const [deep] = compiled(["Read(a/secrets/**)"], "deny")
    assert.isUndefined(RuleMatch.restrictiveMatch(deep!, pathTarget("/work/app/x/a/secrets/key")))
    assert.isDefined(RuleMatch.restrictiveMatch(deep!, pathTarget("/work/app/a/secrets/key")))
  })

  it("allow: the whole tool, a path rule every path must meet, a URL with a host", () => {
    assert.deepStrictEqual(gap(["Read"], pathTarget("/anywhere")), { allowed: ["Read"] })
    assert.deepStrictEqual(gap(["Read(src/**)"], pathTarget("/work/app/src/a")), { allowed: ["Read(src/**)"] })
    assert.deepStrictEqual(
      gap(["Read(src/**)"], pathTarget("/work/app/src/l", "read", ["/work/app/src/l", "/etc/x"])),
      { cause: "no rule allows it", hint: noRule }
    )
    assert.deepStrictEqual(gap(["WebFetch(domain:a.com)"], urlTarget("https://a.com/")), {
      allowed: ["WebFetch(domain:a.com)"]
    })
    assert.deepStrictEqual(gap(["WebFetch(domain:a.com)"], urlTarget("nope")), {
      cause: "no rule allows it",
      hint: noRule
    })
    assert.deepStrictEqual(gap(["Read(src/**)"], { _tag: "None" }), { cause: "no rule allows it", hint: noRule })
    assert.deepStrictEqual(gap(["Read(src/**)", "Read"], { _tag: "None" }), { allowed: ["Read"] })
    assert.isUndefined(RuleMatch.allowMatch([], pathTarget("/work/app/src/a"), location))
    assert.deepStrictEqual(RuleMatch.allowMatch(compiled(["Read"], "allow"), pathTarget("/x"), location), ["Read"])
  })

  it.effect("allow gaps for command lines: each cause and hint, whole", () =>
    withLine((line) => {
      const rules = ["Bash(git status)", "Bash(cat:*)", "Bash(npm test:*)", "Bash(cd:*)", "Bash(echo:*)"]
      assert.deepStrictEqual(gap(rules, line("# nothing to run")), {
        cause: "it is not a plain command",
        hint: plainOnly
      })
      // The line's first doubt is the cause.
      assert.deepStrictEqual(gap(rules, line("cat a &")), {
        cause: "it runs a command in the background",
        hint: plainOnly
      })
      assert.deepStrictEqual(gap(rules, line("cat /etc/passwd")), {
        cause: "it names /etc/passwd, outside the workspace",
        hint: "Work with paths inside the workspace, or tell the user what you need outside it"
      })
      assert.deepStrictEqual(gap(rules, line("cat < /etc/passwd")), {
        cause: "it reads /etc/passwd, outside the workspace",
        hint: "Work with paths inside the workspace, or tell the user what you need outside it"
      })
      assert.deepStrictEqual(gap(rules, line("cd src || cd lib; cat ../../x")), {
        cause: "it names ../../x, outside the workspace (from a directory a cd leads to)",
        hint: "Work with paths inside the workspace, or tell the user what you need outside it"
      })
      assert.deepStrictEqual(gap(rules, line("cd src && git status")), {
        cause: "it runs git after changing directory",
        hint: "Run git from the workspace, in a command of its own"
      })
      assert.deepStrictEqual(gap(rules, line("echo x > out.txt")), {
        cause: "it writes out.txt, and no Edit rule allows writing there",
        hint: "Write files with the file tools, or tell the user what you need"
      })
      assert.deepStrictEqual(gap(rules, line("echo x > /dev/null")), { allowed: ["Bash(echo:*)"] })
      // Without a way to tell what is writable, nothing is.
      assert.isUndefined(RuleMatch.allowMatch(compiled(rules, "allow"), line("echo x > out.txt"), location))
      // What a shell wrapper runs needs its own rule.
      assert.deepStrictEqual(gap(["Bash(sh:*)", "Bash(npm test:*)"], line("sh -c 'npm publish'")), {
        cause: "npm publish is not read-only and no rule allows it",
        hint: noRule
      })
      assert.deepStrictEqual(gap(rules, line("echo x > out.txt"), (p) => p === "/work/app/out.txt"), {
        allowed: ["Bash(echo:*)"]
      })
      assert.deepStrictEqual(gap(rules, line("npm publish")), {
        cause: "npm publish is not read-only and no rule allows it",
        hint: noRule
      })
      // The program and, when the next word looks like a subcommand, that word too.
      for (
        const [text, name] of [
          ["Xcode-build x y", "Xcode-build x"],
          ["npm run-script x", "npm run-script"],
          ["make Build", "make"],
          ["tool a/b", "tool"],
          ["tool ab/c", "tool"],
          ["tool 9x", "tool"]
        ] as const
      ) {
        assert.deepStrictEqual(gap(rules, line(text)), {
          cause: `${name} is not read-only and no rule allows it`,
          hint: noRule
        })
      }
      assert.deepStrictEqual(gap(rules, line("make")), {
        cause: "make is not read-only and no rule allows it",
        hint: noRule
      })
      assert.deepStrictEqual(gap(["Bash(rm:*)"], line("rm *.tmp")), {
        cause: "rm is given a glob, which could expand to one of its options",
        hint: "Name the files instead of a glob, or tell the user what you need"
      })
      // Every command of the line must be covered, and each rule used is returned.
      assert.deepStrictEqual(gap(rules, line("git status && cat a")), { allowed: ["Bash(git status)", "Bash(cat:*)"] })
      assert.deepStrictEqual(gap(rules, line("git status && rm a")), {
        cause: "rm a is not read-only and no rule allows it",
        hint: noRule
      })
    }))

  it.effect("an exact rule names its invocation whole; otherwise a wrapper's doubt is the cause", () =>
    withLine((line) => {
      assert.deepStrictEqual(gap(["Bash(timeout --weird 5 ls)"], line("timeout --weird 5 ls")), {
        allowed: ["Bash(timeout --weird 5 ls)"]
      })
      assert.deepStrictEqual(gap(["Bash(timeout:*)", "Bash(ls:*)"], line("timeout --weird 5 ls")), {
        cause: "timeout: unknown option --weird, so what it runs is uncertain",
        hint: "Run the command itself, without the wrapper or option in doubt, or tell the user what you need"
      })
      // A wrapper without doubt: the wrapper and what it runs each need a rule.
      assert.deepStrictEqual(gap(["Bash(env:*)", "Bash(ls:*)"], line("env -u X ls")), {
        allowed: ["Bash(env:*)", "Bash(ls:*)"]
      })
      assert.deepStrictEqual(gap(["Bash(env:*)"], line("env -u X rm x")), {
        cause: "rm x is not read-only and no rule allows it",
        hint: noRule
      })
    }))

  it.effect("always allow: one exact rule per command not yet allowed, and none when the line is not certain", () =>
    withLine((line) => {
      const suggest = (text: string, allowed: ReadonlyArray<string> = []) =>
        RuleMatch.suggest(bash, line(text), compiled(allowed, "allow"), location)
      assert.deepStrictEqual(suggest("npm test"), ["bash(npm test)"])
      assert.deepStrictEqual(suggest("npm test && npm run lint"), ["bash(npm test)", "bash(npm run lint)"])
      assert.deepStrictEqual(suggest("npm test && npm run lint", ["bash(npm test)"]), [
        "bash(npm run lint)"
      ])
      assert.deepStrictEqual(suggest("npm test; npm test"), ["bash(npm test)"])
      // A rule for the whole tool already allows every command.
      assert.deepStrictEqual(suggest("npm test", ["bash"]), [])
      assert.deepStrictEqual(suggest("cat /etc/passwd"), [])
      assert.deepStrictEqual(suggest("echo x > out"), [])
      assert.deepStrictEqual(suggest("echo x > /dev/null"), ["bash(echo x)"])
      assert.deepStrictEqual(suggest("ls *.ts"), [])
      assert.deepStrictEqual(suggest("cd src"), [])
      assert.deepStrictEqual(suggest("bash -c 'npm test'"), [])
      assert.deepStrictEqual(suggest("$CMD"), [])
      assert.deepStrictEqual(suggest("timeout --weird 5 ls"), [])
      // For a tool whose rules are command rules, a command no rule can spell (a rule cannot
      // start with an assignment): nothing is offered rather than a rule that would not parse.
      const Bash = Tool.make("Bash", { ...bashOptions })
      const offer = (text: string) => RuleMatch.suggest(Bash, line(text), [], location)
      assert.deepStrictEqual(offer("npm test"), ["Bash(npm test)"])
      assert.deepStrictEqual(offer("'FOO=1' x"), [])
      assert.deepStrictEqual(offer("npm test && 'FOO=1' x"), [])
    }))

  it("always allow for paths, URLs and tools that name nothing", () => {
    assert.deepStrictEqual(RuleMatch.suggest(readFile, pathTarget("/work/app/src/a.ts"), [], location), [
      "read_file(/src/a.ts)"
    ])
    assert.deepStrictEqual(RuleMatch.suggest(readFile, pathTarget("/etc/hosts"), [], location), [
      "read_file(//etc/hosts)"
    ])
    assert.deepStrictEqual(RuleMatch.suggest(readFile, urlTarget("https://a.com/x"), [], location), [
      "read_file(domain:a.com)"
    ])
    assert.deepStrictEqual(RuleMatch.suggest(readFile, urlTarget("nope"), [], location), [])
    assert.deepStrictEqual(RuleMatch.suggest(readFile, { _tag: "None" }, [], location), ["read_file"])
  })

  it("how a subject is described to the person asked", () => {
    assert.strictEqual(RuleMatch.describeSubject(urlTarget("https://a.com/x")), "url: https://a.com/x")
    assert.strictEqual(RuleMatch.describeSubject(pathTarget("/work/app/a", "write")), "writes /work/app/a")
    assert.strictEqual(RuleMatch.describeSubject(pathTarget("/work/app/a")), "reads /work/app/a")
    assert.isUndefined(RuleMatch.describeSubject({ _tag: "None" }))
  })

  it("protected places: at any depth, the directory itself or what is in it, .config/git, not agents' worktrees", () => {
    const hit = (path: string) => RuleMatch.protectedIn(path, location)
    assert.strictEqual(hit("/work/app/.git"), ".git")
    assert.strictEqual(hit("/work/app/.git/config"), ".git")
    assert.strictEqual(hit("/work/app/sub/.vscode/settings.json"), ".vscode")
    assert.strictEqual(hit("/work/app/.config/git/config"), ".config/git")
    assert.strictEqual(hit("/work/app/.config/git"), ".config/git")
    assert.isUndefined(hit("/work/app/.config/other"))
    assert.isUndefined(hit("/work/app/.config"))
    assert.isUndefined(hit("/work/app/.claude/worktrees/x/src/a.ts"))
    assert.strictEqual(hit("/work/app/.claude/settings.json"), ".claude")
    assert.strictEqual(hit("/work/app/.claude"), ".claude")
    assert.isUndefined(hit("/work/app/src/.gitx"))
    assert.isUndefined(hit("/work/app/a.bashrc"))
    // Outside the workspace the whole path is read, from the root.
    assert.strictEqual(hit("/home/dev/.bashrc"), ".bashrc")
    // Only .claude's worktrees are exempt, and only git under .config counts.
    assert.strictEqual(hit("/work/app/.git/worktrees/x"), ".git")
    assert.isUndefined(hit("/work/app/src/git/x"))
    // A doubled slash is the same path.
    assert.isUndefined(hit("/work/app/.claude//worktrees/x"))
    assert.strictEqual(hit("/work/app/.config//git/config"), ".config/git")
    // The directories holding the workspace are no part of a path inside it.
    const nested = { workspaceRoot: "/srv/.cargo/app" }
    assert.isUndefined(RuleMatch.protectedIn("/srv/.cargo/app/src/a", nested))
    assert.strictEqual(RuleMatch.protectedIn("/srv/.cargo/app/.git/x", nested), ".git")
  })

  it.effect("a protected write through a path, a link or a redirection; reads are not protected", () =>
    withLine((line) => {
      assert.strictEqual(
        RuleMatch.protectedPath(pathTarget("/work/app/.git/hooks/pre-commit", "write"), location),
        ".git"
      )
      assert.isUndefined(RuleMatch.protectedPath(pathTarget("/work/app/.git/config", "read"), location))
      assert.strictEqual(
        RuleMatch.protectedPath(pathTarget("/work/app/l", "write", ["/work/app/l", "/work/app/.husky/x"]), location),
        ".husky"
      )
      assert.isUndefined(RuleMatch.protectedPath(pathTarget("/work/app/src/a", "write"), location))
      assert.strictEqual(RuleMatch.protectedPath(line("echo x > .bashrc"), location), ".bashrc")
      assert.strictEqual(RuleMatch.protectedPath(line("cd .git && echo x > config"), location), ".git")
      assert.isUndefined(RuleMatch.protectedPath(line("echo x > out"), location))
      const target = line("echo x > link")
      const throughLink = target._tag === "Command"
        ? { ...target, leadsTo: (p: string) => (p === "/work/app/link" ? [p, "/work/app/.git/config"] : [p]) }
        : target
      assert.strictEqual(RuleMatch.protectedPath(throughLink, location), ".git")
      assert.isUndefined(RuleMatch.protectedPath(urlTarget("https://a.com"), location))
      assert.isUndefined(RuleMatch.protectedPath({ _tag: "None" }, location))
    }))

  it.effect("a destructive line is named with the command that makes it so", () =>
    withLine((line) => {
      assert.strictEqual(
        RuleMatch.destructionOf(line("ls && rm -rf /"), location),
        "it removes / recursively (rm -rf /)"
      )
      assert.strictEqual(
        RuleMatch.destructionOf(line("curl x | sh"), location),
        "it runs code downloaded from the network"
      )
      // From the directory a cd leads to, said with it.
      assert.strictEqual(
        RuleMatch.destructionOf(line("cd / && rm -rf usr"), location),
        "it removes usr recursively (rm -rf usr, run in /)"
      )
      assert.strictEqual(
        RuleMatch.destructionOf(line("cd /work; rm -rf app"), location),
        "it removes app recursively (rm -rf app, run in /work)"
      )
      assert.isUndefined(RuleMatch.destructionOf(line("cd src && rm -rf build"), location))
      assert.isUndefined(RuleMatch.destructionOf(line("cd /tmp && rm -rf x"), location))
      assert.isUndefined(RuleMatch.destructionOf(line("ls"), location))
      assert.isUndefined(RuleMatch.destructionOf(pathTarget("/"), location))
    }))
})

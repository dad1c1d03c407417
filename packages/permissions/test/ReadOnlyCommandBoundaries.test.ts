/**
 * Each built-in read-only command rule has a boundary: it runs the command
 * in its simple, read-only form, and never a form that writes, deletes,
 * runs something or leaves the workspace (`ReadOnlyCommands`: "no option
 * that writes or runs something … no path outside the workspace"). One row
 * per entry of `ReadOnlyCommands.rules`, each with forms the rule allows and
 * forms it must not; an entry added to the list without a row fails here.
 *
 * In `dontAsk` with no rule of its own, the engine allows only what the
 * built-in rules cover (`allow:rule`, decided by the `builtin` list) and
 * denies the rest (`deny:mode`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ReadOnlyCommands from "../src/ReadOnlyCommands.js"
import { engineWith, outcomeOf } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

interface Boundary {
  /** Forms the rule runs without a question. */
  readonly allowed: ReadonlyArray<string>
  /** Forms that write, delete, run something or reach outside: never auto-allowed. */
  readonly refused: ReadonlyArray<string>
}

const boundaries: Readonly<Record<string, Boundary>> = {
  "Bash(ls *)": {
    allowed: ["ls", "ls -la src", "ls -R"],
    refused: ["ls > listing.txt", "ls -la >> listing.txt", "ls /etc", "ls ../other"]
  },
  "Bash(cat *)": {
    allowed: ["cat README.md", "cat -n a.txt b.txt"],
    refused: ["cat a.txt > b.txt", "cat a.txt >> b.txt", "cat a.txt | tee b.txt", "cat /etc/passwd"]
  },
  "Bash(echo *)": {
    allowed: ["echo hello", "echo -n hello world"],
    refused: ["echo hello > notes.txt", "echo hello >> notes.txt", "echo $(touch pwned)"]
  },
  "Bash(pwd)": {
    allowed: ["pwd"],
    refused: ["pwd > here.txt", "pwd; touch pwned"]
  },
  "Bash(head *)": {
    allowed: ["head -5 README.md", "head -c 10 a.txt"],
    refused: ["head -5 a.txt > b.txt", "head /etc/shadow"]
  },
  "Bash(tail *)": {
    allowed: ["tail -n 5 log.txt", "tail -c 100 log.txt"],
    refused: [
      "tail -f log.txt",
      "tail -F log.txt",
      "tail -qf log.txt",
      "tail --follow=name log.txt",
      "tail log.txt > b"
    ]
  },
  "Bash(grep *)": {
    allowed: ["grep -rn TODO src", "grep -c x a.txt"],
    refused: ["grep x a.txt > hits.txt", "grep root /etc/passwd", "grep -f/etc/patterns a.txt"]
  },
  "Bash(find *)": {
    allowed: ["find . -name '*.ts'", "find src -type f -print", "find src -newer a.txt -print0"],
    refused: [
      "find . -delete",
      "find src -delete",
      "find src -name '*.tmp' -delete",
      "find . -exec rm {} ;",
      "find src -exec rm {} ;",
      "find . -execdir rm {} +",
      "find . -ok rm {} ;",
      "find . -okdir rm {} ;",
      "find src -fprint found.txt",
      "find . -fprint0 found.txt",
      "find . -fprintf found.txt %p",
      "find . -fls found.txt",
      "find /etc -name passwd"
    ]
  },
  "Bash(wc *)": {
    allowed: ["wc -l a.txt", "wc a.txt b.txt"],
    refused: ["wc -l a.txt > counts.txt", "wc --files0-from=/etc/list"]
  },
  "Bash(which *)": {
    allowed: ["which node", "which -a git"],
    refused: ["which node > where.txt"]
  },
  "Bash(diff *)": {
    allowed: ["diff a.txt b.txt", "diff -u a.txt b.txt"],
    refused: ["diff -u a.txt b.txt > change.patch", "diff --output=change.patch a.txt b.txt", "diff a.txt /etc/hosts"]
  },
  "Bash(stat *)": {
    allowed: ["stat a.txt", "stat -c %s a.txt"],
    refused: ["stat a.txt > stat.txt", "stat /etc/shadow"]
  },
  "Bash(du *)": {
    allowed: ["du -sh src", "du"],
    refused: ["du -sh src > sizes.txt", "du -sh /home"]
  },
  "Bash(cd *)": {
    allowed: ["cd src", "cd src && ls"],
    refused: ["cd /tmp", "cd ..", "cd ../other", "cd src && touch pwned"]
  },
  "Bash(git status *)": {
    allowed: ["git status", "git status --porcelain", "git status -s src"],
    refused: ["git status > status.txt", "git status && git commit -m x"]
  },
  "Bash(git log *)": {
    allowed: ["git log", "git log --oneline -5", "git log -p -- src"],
    refused: ["git log --output=log.txt", "git log -p --ext-diff", "git log -p --textconv", "git log > log.txt"]
  },
  "Bash(git diff *)": {
    allowed: ["git diff", "git diff --stat main", "git diff --cached -- src"],
    refused: [
      "git diff --output=change.patch",
      "git diff --output change.patch",
      "git diff --ext-diff",
      "git diff --textconv",
      "git diff > change.patch"
    ]
  },
  "Bash(git show *)": {
    allowed: ["git show", "git show HEAD --stat"],
    refused: ["git show --output=commit.txt HEAD", "git show --ext-diff HEAD", "git show HEAD > commit.txt"]
  },
  "Bash(git blame *)": {
    allowed: ["git blame README.md", "git blame -L 1,5 a.txt"],
    refused: ["git blame a.txt > blame.txt"]
  },
  "Bash(git ls-files *)": {
    allowed: ["git ls-files", "git ls-files -m"],
    refused: ["git ls-files > files.txt"]
  },
  "Bash(git rev-parse *)": {
    allowed: ["git rev-parse HEAD", "git rev-parse --show-toplevel"],
    refused: ["git rev-parse HEAD > rev.txt"]
  },
  "Bash(git branch)": {
    allowed: ["git branch"],
    refused: [
      "git branch -D main",
      "git branch -d main",
      "git branch --delete main",
      "git branch -m old new",
      "git branch -M old new",
      "git branch --move old new",
      "git branch -c old new",
      "git branch --copy old new",
      "git branch -f main v1",
      "git branch --force main v1",
      "git branch new-feature",
      "git branch -u origin/main",
      "git branch --set-upstream-to=origin/main",
      "git branch --unset-upstream",
      "git branch --edit-description",
      "git branch > branches.txt"
    ]
  },
  "Bash(git branch --list *)": {
    allowed: ["git branch --list", "git branch --list 'feat/*'", "git branch --list -a -v", "git branch --list -r"],
    refused: [
      // git's parser takes a later --no-list back: the line deletes or creates a branch.
      "git branch --list --no-list -D main",
      "git branch --list --no-list new-feature",
      "git branch --list --no-lis -d main",
      "git branch --list --no-l -m old new",
      "git branch --list -a --no-list -D main",
      "git branch --list > branches.txt"
    ]
  }
}

describe("the built-in read-only commands", () => {
  it("every built-in rule has a boundary row, with allowed and refused forms, and no row is stale", () => {
    const missing = ReadOnlyCommands.rules.filter((rule) => boundaries[rule] === undefined)
    assert.deepStrictEqual(missing, [], "built-in rules without a boundary row")
    const stale = Object.keys(boundaries).filter((rule) => !ReadOnlyCommands.texts.has(rule))
    assert.deepStrictEqual(stale, [], "rows for rules that are not built in")
    for (const [rule, row] of Object.entries(boundaries)) {
      assert.isAbove(row.allowed.length, 0, `${rule} has no allowed form`)
      assert.isAbove(row.refused.length, 0, `${rule} has no refused form`)
    }
  })

  it.effect("each rule runs its allowed forms, as a built-in rule", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith({ mode: "dontAsk" })
      const wrong: Array<string> = []
      for (const [rule, row] of Object.entries(boundaries)) {
        for (const line of row.allowed) {
          const got = yield* outcomeOf(subject, request(bash, { command: line }))
          const decidedBy = (yield* subject.decisions).at(-1)?.decidedBy
          const builtin = decidedBy?._tag === "Rule" && decidedBy.list === "builtin" && decidedBy.rules.includes(rule)
          if (got !== "allow:rule" || !builtin) {
            wrong.push(`${rule}: ${line} was ${got} (${JSON.stringify(decidedBy)})`)
          }
        }
      }
      assert.deepStrictEqual(wrong, [])
    }))

  it.effect("no rule runs a form that writes, deletes, runs something or reaches outside", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith({ mode: "dontAsk" })
      const wrong: Array<string> = []
      for (const [rule, row] of Object.entries(boundaries)) {
        for (const line of row.refused) {
          const got = yield* outcomeOf(subject, request(bash, { command: line }))
          if (got !== "deny:mode") wrong.push(`${rule}: ${line} was ${got}`)
        }
      }
      assert.deepStrictEqual(wrong, [])
    }))

  it.effect("programs and subcommands that are not on the list are not read-only, whatever their form", () =>
    Effect.gen(function*() {
      const subject = yield* engineWith({ mode: "dontAsk" })
      const wrong: Array<string> = []
      for (
        const line of [
          "git tag",
          "git tag -d v1",
          "git remote add evil https://evil.example/x.git",
          "git remote -v",
          "git config user.name x",
          "git config --global core.pager sh",
          "git stash drop",
          "git stash list",
          "git checkout -- .",
          "git reset --hard",
          "sed -i s/a/b/ a.txt",
          "sed -n 1p a.txt",
          "sort -o a.txt a.txt",
          "sort a.txt",
          "tee a.txt",
          "touch a.txt"
        ]
      ) {
        const got = yield* outcomeOf(subject, request(bash, { command: line }))
        if (got !== "deny:mode") wrong.push(`${line} was ${got}`)
      }
      assert.deepStrictEqual(wrong, [])
    }))
})

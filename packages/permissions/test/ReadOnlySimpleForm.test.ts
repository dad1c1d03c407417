/**
 * `simpleForm` at the edges of its two exceptions: `git branch` lists only
 * with listing options before a `--`, and `tail` is refused only for a
 * follow option, not for a word that merely holds `-f`.
 */
import { assert, describe, it } from "@effect/vitest"
import { simpleForm } from "../src/ReadOnlyCommands.js"

const form = (line: string) => simpleForm(line.split(" "))

describe("ReadOnlyCommands.simpleForm", () => {
  it("checks branch options only for git branch, not for a word 'branch' elsewhere", () => {
    assert.isTrue(form("echo branch -n"))
    assert.isTrue(form("cat branch -n"))
  })

  it("reads words after -- as patterns, not options", () => {
    assert.isTrue(form("git branch --list -- -D"))
    assert.isTrue(form("git branch -- -d"))
    assert.isFalse(form("git branch -D -- main"))
  })

  it("checks the last option of git branch too", () => {
    assert.isFalse(form("git branch -d"))
    assert.isFalse(form("git branch --list -D"))
    assert.isFalse(form("git branch main --no-list"))
    assert.isTrue(form("git branch --list"))
  })

  it("refuses tail's follow options and nothing that only contains -f", () => {
    assert.isFalse(form("tail -f log.txt"))
    assert.isFalse(form("tail -nF 5 log.txt"))
    assert.isFalse(form("tail --follow=name log.txt"))
    assert.isTrue(form("tail -n 5 build-fix.log"))
    assert.isTrue(form("tail notes--follow.txt"))
  })

  it("applies the follow exception to tail alone", () => {
    assert.isTrue(form("ls -F"))
    assert.isTrue(form("grep -f patterns.txt src"))
  })
})

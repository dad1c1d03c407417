/**
 * A law over the promise that a command destroying the machine, the home
 * directory or the workspace reaches a person in every mode: whatever
 * directory the line moves to first (`cd`, `pushd`, `env -C`, through the
 * home or a variable), and however the target is then spelled relative to
 * it, a recursive removal, mode change, `find -delete`, `mv` or
 * `rsync --delete` of a vital directory is asked about under
 * `bypassPermissions` with an allow-everything rule. Its counterpart keeps
 * the check honest: the same forms aimed at a directory inside the
 * workspace or under /tmp run unasked.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Approver from "../src/Approver.js"
import { engineWith, outcomeOf } from "./EngineHarness.js"
import { bash } from "./SampleTools.js"

const RUNS = Number(process.env.PROPERTY_RUNS ?? 100)
const home = "/home/dev"
const workspace = "/home/dev/project"

const vital = ["/", "/usr", "/etc", "/home", home, workspace, "/home/dev/other", "/var/lib"]
const ordinary = [`${workspace}/build`, `${workspace}/src/gen`, "/tmp/out", "/var/tmp/x"]
const cwds = ["/", "/usr", "/home", home, workspace, `${workspace}/src`, "/tmp"]

/** The path from `from` to `to`, relative: `..` up to their common part, then down. */
const relative = (from: string, to: string): string => {
  const a = from.split("/").filter(Boolean)
  const b = to.split("/").filter(Boolean)
  let common = 0
  while (common < a.length && common < b.length && a[common] === b[common]) common++
  const parts = [...a.slice(common).map(() => ".."), ...b.slice(common)]
  return parts.length === 0 ? "." : parts.join("/")
}

/** Ways to reach a directory before the command: each gives a prefix and whether it joins with `&&`-style lists. */
const reach = (dir: string): ReadonlyArray<string> => {
  const fromHome = dir === home ? "~" : dir.startsWith(`${home}/`) ? `~/${dir.slice(home.length + 1)}` : undefined
  return [
    `cd ${dir} && `,
    `cd ${dir}; `,
    `pushd ${dir} >/dev/null && `,
    ...(fromHome === undefined ? [] : [`cd ${fromHome} && `, `cd "$HOME"${fromHome.slice(1)} && `]),
    ...(dir === home ? ["cd && "] : [])
  ]
}

/** How a target is spelled from the directory the command runs in. */
const spell = (cwd: string, target: string): ReadonlyArray<string> => {
  const rel = relative(cwd, target)
  return [
    rel,
    `${rel}/`,
    target,
    `./${rel}`,
    `"$PWD"/${rel}`,
    ...(target === home ? ["~", "\"$HOME\""] : []),
    ...(target.startsWith(`${home}/`) ? [`~/${target.slice(home.length + 1)}`] : [])
  ]
}

const forms: ReadonlyArray<(target: string) => string> = [
  (t) => `rm -rf ${t}`,
  (t) => `rm -r -f ${t}`,
  (t) => `rm --recursive ${t}`,
  (t) => `chmod -R 777 ${t}`,
  (t) => `chown -R nobody ${t}`,
  (t) => `find ${t} -delete`,
  (t) => `rsync -a --delete /tmp/empty/ ${t}`
]

/**
 * `absolute`: the target spelled absolutely unless the line stays in the
 * workspace. The engine reads a command after a `cd` from the workspace too
 * (with `;` it runs there when the `cd` fails), so a relative spelling from
 * elsewhere can name a place outside it: asked about, on purpose.
 */
const line = (targets: ReadonlyArray<string>, absolute = false) =>
  FastCheck.record({
    cwd: FastCheck.constantFrom(...cwds),
    target: FastCheck.constantFrom(...targets),
    how: FastCheck.nat(),
    spelling: FastCheck.nat(),
    form: FastCheck.constantFrom(...forms),
    viaEnv: FastCheck.boolean()
  }).map(({ cwd, form, how, spelling, target, viaEnv }) => {
    const spellings = absolute && cwd !== workspace ? [target, `${target}/`] : spell(cwd, target)
    const word = spellings[spelling % spellings.length]!
    if (viaEnv) return `env -C ${cwd} ${form(word)}`
    const ways = reach(cwd)
    return `${ways[how % ways.length]!}${form(word)}`
  })

const outcome = (command: string) =>
  Effect.gen(function*() {
    const subject = yield* engineWith(
      { mode: "bypassPermissions", allow: ["Bash"], homeDirectory: home, workspaceRoot: workspace },
      () => Approver.deny("no")
    )
    return yield* outcomeOf(subject, {
      callId: "c",
      tool: bash,
      input: { command },
      subject: { _tag: "Command", command } as const
    })
  })

describe("destructive from anywhere", () => {
  it("the relative spelling reaches its target", () => {
    assert.strictEqual(relative("/home/dev/project/src", "/usr"), "../../../../usr")
    assert.strictEqual(relative("/", "/etc"), "etc")
    assert.strictEqual(relative("/usr", "/usr"), ".")
    assert.strictEqual(relative("/home/dev/project", "/home/dev"), "..")
  })

  it.effect.prop(
    "a vital directory, reached from wherever the line moved to, is asked about",
    [line(vital)],
    ([command]) => Effect.map(outcome(command), (got) => assert.strictEqual(got, "ask", command)),
    { timeout: 120_000, fastCheck: { numRuns: RUNS } }
  )

  it.effect.prop(
    "the same forms on a directory inside the workspace or a temporary one run unasked",
    [line(ordinary, true)],
    ([command]) => Effect.map(outcome(command), (got) => assert.strictEqual(got, "allow:mode", command)),
    { timeout: 120_000, fastCheck: { numRuns: RUNS } }
  )
})

/**
 * Words the grammar hangs on a redirection, and commands on a here-document's
 * start line after one: tree-sitter-bash puts every word after a redirection's
 * destination inside the redirection node (`sudo >/dev/null rm -rf /` is
 * `sudo` with a redirection of four words), and on a here-document's start
 * line it takes everything after a redirection, `;` and `|` included (in an
 * ERROR node), as more of the redirection. Bash reads those words as the
 * command's own (`sudo rm -rf /`) and the operators as operators. A shell at
 * the end of a pipe runs what any earlier stage prints: a here-document in a
 * group or subshell, a script passed on by `cat` or `tee`.
 *
 * Each line's reading by bash was checked with bash 5.2, `echo RAN` standing in
 * for `rm -rf /`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Engine from "../src/Engine.js"
import { engineWith, type Outcome, outcomeOf } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

type Config = Omit<Engine.Config, "workspaceRoot">

const configs = {
  /** A deny rule for rm, allow rules for the programs in front of it. */
  rules: { mode: "default", allow: ["Bash(sudo:*)", "Bash(cat:*)"], deny: ["Bash(rm:*)"] },
  /** Only allow rules: none may allow a line that runs more than they name. */
  allowOnly: { mode: "default", allow: ["Bash(sudo:*)", "Bash(cat:*)", "Bash(echo:*)"] },
  /** Nothing denied, everything runs: only the destruction check stands between the line and bash. */
  bypass: { mode: "bypassPermissions", allow: ["Bash(sudo:*)", "Bash(cat:*)"] }
} satisfies Record<string, Config>

const decide = (command: string, config: keyof typeof configs) =>
  Effect.flatMap(engineWith(configs[config]), (subject) => outcomeOf(subject, request(bash, { command })))

/** Each line runs `rm -rf /` in bash: [line, outcome under `rules`, under `allowOnly`, under `bypass`]. */
const hidden: ReadonlyArray<readonly [string, Outcome, Outcome, Outcome]> = [
  // The words after a redirection's destination are the command's.
  ["sudo >/dev/null rm -rf /", "deny:rule", "ask", "ask"],
  ["rm 2>/dev/null -rf /", "deny:rule", "ask", "ask"],
  ["rm -rf 2>/dev/null /", "deny:rule", "ask", "ask"],
  ["sudo 2>&1 rm -rf /", "deny:rule", "ask", "ask"],
  ["sudo &>/dev/null rm -rf /", "deny:rule", "ask", "ask"],
  ["sudo </dev/null rm -rf /", "deny:rule", "ask", "ask"],
  ["sudo 2>&- rm -rf /", "deny:rule", "ask", "ask"],
  // The grammar hangs `>/dev/null rm -rf /` on the pipeline or list; bash on its last command.
  ["echo ok | sudo >/dev/null rm -rf /", "deny:rule", "ask", "ask"],
  ["echo ok && sudo >/dev/null rm -rf /", "deny:rule", "ask", "ask"],
  // A command after a redirection or a word on a here-document's start line.
  ["cat <<EOF > /dev/null; rm -rf /\nx\nEOF", "deny:rule", "ask", "ask"],
  ["cat <<EOF 2>/dev/null > /dev/null; rm -rf /\nx\nEOF", "deny:rule", "ask", "ask"],
  ["cat <<EOF x; rm -rf /\nx\nEOF", "deny:rule", "ask", "ask"],
  ["cat <<EOF >&2 | rm -rf /\nx\nEOF", "deny:rule", "ask", "ask"],
  // A shell after a redirection on that line reads the body.
  ["cat <<EOF 2>&1 | sh\nrm -rf /\nEOF", "deny:rule", "ask", "ask"],
  ["cat <<EOF 2>/dev/null | bash -s\nrm -rf /\nEOF", "deny:rule", "ask", "ask"],
  // The grammar nests one pipeline per operator in the here-document's redirection.
  ["cat <<EOF | cat | sh\nrm -rf /\nEOF", "deny:rule", "ask", "ask"],
  // What any earlier stage prints: a here-document in a group or subshell, a script passed on by cat or tee.
  ["{ cat <<EOF\nrm -rf /\nEOF\n} | sh", "deny:rule", "ask", "ask"],
  ["(cat <<EOF\nrm -rf /\nEOF\n) | sh", "deny:rule", "ask", "ask"],
  ["{ echo ok; echo 'rm -rf /'; } | sh", "deny:rule", "ask", "ask"],
  ["(cd /tmp && printf 'rm -rf /') | bash", "deny:rule", "ask", "ask"],
  ["{ cat <<< 'rm -rf /'; } | sh", "deny:rule", "ask", "ask"],
  ["echo 'rm -rf /' | cat | sh", "deny:rule", "ask", "ask"],
  ["echo 'rm -rf /' | cat - | sh", "deny:rule", "ask", "ask"],
  ["echo 'rm -rf /' | tee /dev/null | sh", "deny:rule", "ask", "ask"],
  ["echo 'rm -rf /' | { cat; } | sh", "deny:rule", "ask", "ask"],
  ["cat <<< 'rm -rf /' | tee log | bash", "deny:rule", "ask", "ask"]
]

describe("words and commands the grammar hangs on a redirection", () => {
  for (const [line, rules, allowOnly, bypass] of hidden) {
    it.effect(`${JSON.stringify(line)}: a deny rule denies, no allow rule allows, bypassPermissions asks`, () =>
      Effect.gen(function*() {
        const outcomes = [yield* decide(line, "rules"), yield* decide(line, "allowOnly"), yield* decide(line, "bypass")]
        assert.deepStrictEqual(outcomes, [rules, allowOnly, bypass], outcomes.join(" "))
      }))
  }

  it.effect("everyday redirections and here-documents decide as before", () =>
    Effect.gen(function*() {
      const everyday = {
        mode: "default",
        allow: ["Bash(npm test:*)", "Bash(tail:*)", "Bash(tee:*)", "Bash(cat:*)", "Edit(**)"]
      } as const
      const subject = yield* engineWith(everyday)
      const run = (command: string) => outcomeOf(subject, request(bash, { command }))
      const outcomes = [
        yield* run("ls > out"),
        yield* run("echo hi 2>&1 | tee log"),
        yield* run("cat <<EOF > file\ntext\nEOF"),
        yield* run("npm test 2>&1 | tail -5")
      ]
      // The here-document asks as it did: more follows its delimiter on its line, so the line is not simple.
      assert.deepStrictEqual(outcomes, ["allow:rule", "allow:rule", "ask", "allow:rule"], outcomes.join(" "))
    }))
})

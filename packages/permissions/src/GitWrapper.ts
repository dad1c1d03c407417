/**
 * GitWrapper: git's own options, before its subcommand. `git -C . push`,
 * `git --no-pager push` and `git -c x=y push` all run `git push`, so a
 * deny rule for `git push` must see that reading; and `-c` can name a
 * command git runs (`-c alias.x='!rm -rf /' x`, `-c core.pager=…`), which
 * deny rules and the destruction check must read too.
 *
 * @since 0.4.0
 */
import * as WrapperStep from "./WrapperStep.js"

// git.c's handle_options: the options that take a value (the next word, or after `=`).
const withValue = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--attr-source"])
// Settings that never name a program to run: they need no second look. Any other may
// (`core.pager`, `core.sshCommand`, `diff.<driver>.textconv`, `filter.<driver>.smudge`…).
const inert =
  /^(?:(?:user|author|committer|color|advice|i18n|column)\..+|init\.defaultbranch|core\.(?:quotepath|autocrlf|safecrlf|filemode|ignorecase|abbrev)|(?:commit|tag)\.gpgsign|pull\.(?:rebase|ff)|push\.default|fetch\.prune|merge\.conflictstyle|rebase\.autosquash|protocol\.version|safe\.directory|gc\.auto|maintenance\.auto|diff\.(?:noprefix|renames))$/
// They print something and run no subcommand.
const printing = /^(?:-v|--version|-h|--help|--exec-path|--html-path|--man-path|--info-path|--list-cmds=.*)$/

/**
 * git with options before its subcommand runs `git <subcommand> …`; an
 * alias given with `-c` runs its value; any `-c` value may be a command git
 * runs (a pager, an editor, an ssh command), read as a script for deny
 * rules. `undefined` when no option comes first: git runs as itself.
 *
 * @since 0.4.0
 * @category wrappers
 */
export const git = (words: ReadonlyArray<string>): WrapperStep.Step | undefined => {
  const settings: Array<string> = []
  const doubts: Array<string> = []
  let i = 1
  for (; i < words.length; i++) {
    const word = words[i]!
    if (!word.startsWith("-")) break
    if (printing.test(word)) return WrapperStep.nothing
    const eq = word.indexOf("=")
    const name = eq < 0 ? word : word.slice(0, eq)
    if (withValue.has(name)) {
      const value = eq < 0 ? words[++i] : word.slice(eq + 1)
      if (value === undefined) return WrapperStep.nothing
      if (name === "-c") settings.push(value)
      // The value is read from an environment variable: it could be any command.
      if (name === "--config-env") doubts.push(`git: ${name} sets configuration from the environment`)
      continue
    }
    if (name === "--exec-path") {
      doubts.push("git: --exec-path chooses which programs run its subcommands")
      continue
    }
    // Any other option is a flag (`--no-pager`, `--bare`): git refuses one it does not know,
    // and one a later git knows leaves the subcommand after it to be seen.
  }
  if (i === 1) return undefined
  const rest = words.slice(i)
  const inner: Array<WrapperStep.Inner> = []
  const subcommand = rest[0]
  for (const setting of settings) {
    const eq = setting.indexOf("=")
    const key = (eq < 0 ? setting : setting.slice(0, eq)).toLowerCase()
    const value = eq < 0 ? "" : setting.slice(eq + 1)
    if (subcommand !== undefined && key === `alias.${subcommand.toLowerCase()}`) {
      // An alias starting with `!` is a shell command, given the remaining words.
      inner.push(
        value.startsWith("!")
          ? { _tag: "Script", script: [value.slice(1), ...rest.slice(1)].join(" ") }
          : { _tag: "Script", script: ["git", value, ...rest.slice(1)].join(" ") }
      )
      doubts.push(`git: -c ${key} gives the subcommand another meaning`)
    } else if (!inert.test(key)) {
      if (value.trim() !== "") inner.push({ _tag: "Script", script: value.replace(/^!/, "") })
      doubts.push(`git: -c ${key.length > 40 ? `${key.slice(0, 40)}…` : key} can name a command git runs`)
    }
  }
  if (rest.length > 0) inner.unshift({ _tag: "Words", words: ["git", ...rest] })
  return WrapperStep.step(inner, doubts.length === 0, doubts)
}

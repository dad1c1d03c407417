/**
 * PrivilegeWrappers: the wrappers that run a command as another user or
 * group (sudo, doas, su, runuser, pkexec, sg). They are apart because their
 * grammars are the largest and the most attacked: each reads its options
 * exactly, so a deny rule sees the command behind `sudo -u root`.
 *
 * @since 0.4.0
 */
import * as OptionGrammar from "./OptionGrammar.js"
import * as WrapperStep from "./WrapperStep.js"

const sudoGrammar = OptionGrammar.make("Aa:BbC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv", {
  askpass: "A",
  "auth-type": "a:",
  background: "b",
  bell: "B",
  "close-from": "C:",
  "login-class": "c:",
  chdir: "D:",
  "preserve-env": "E::",
  edit: "e",
  group: "g:",
  "set-home": "H",
  help: "",
  host: "h:",
  login: "i",
  "remove-timestamp": "K",
  "reset-timestamp": "k",
  list: "l",
  "non-interactive": "n",
  "preserve-groups": "P",
  prompt: "p:",
  chroot: "R:",
  role: "r:",
  stdin: "S",
  shell: "s",
  type: "t:",
  "command-timeout": "T:",
  "other-user": "U:",
  user: "u:",
  version: "V",
  validate: "v"
}, { host: "h" })

export const sudo: WrapperStep.Handler = (words) => {
  const parsed = OptionGrammar.parse(sudoGrammar, words, 1)
  if (parsed.bad !== undefined) return WrapperStep.unsure("sudo", parsed.bad, words)
  // -e edits files, -l/-v/-K only check or reset credentials, bare -h is help.
  const helps = parsed.given.some((option) => option.name === "h" && option.value === undefined)
  if (helps || OptionGrammar.has(parsed, "help", "V", "e", "l", "v", "K")) return WrapperStep.nothing
  const command = WrapperStep.skipAssignments(parsed.operands)
  if (command.length > 0) return WrapperStep.runsWords(command)
  return OptionGrammar.has(parsed, "i", "s") ? WrapperStep.stdinShell : WrapperStep.nothing
}

const doasGrammar = OptionGrammar.make("a:C:Lnsu:")
export const doas: WrapperStep.Handler = (words) => {
  const parsed = OptionGrammar.parse(doasGrammar, words, 1)
  if (parsed.bad !== undefined) return WrapperStep.unsure("doas", parsed.bad, words)
  // -C only checks a configuration file against the command; -L clears persisted logins.
  if (OptionGrammar.has(parsed, "C", "L")) return WrapperStep.nothing
  if (parsed.operands.length > 0) return WrapperStep.runsWords(parsed.operands)
  return OptionGrammar.has(parsed, "s") ? WrapperStep.stdinShell : WrapperStep.nothing
}

const suLong = {
  command: "c:",
  "session-command": "c:",
  fast: "f",
  group: "g:",
  "supp-group": "G:",
  login: "l",
  "preserve-environment": "m",
  pty: "P",
  shell: "s:",
  help: "h",
  version: "V",
  "whitelist-environment": "w:"
}
const suGrammar = OptionGrammar.make("c:fg:G:lmpPs:hVw:", suLong, { permute: true })

/** su's reading once parsed: `[-] [USER [ARGS…]]`, the args going to the user's shell. */
const suStep = (parsed: OptionGrammar.Parsed): WrapperStep.Step => {
  if (OptionGrammar.has(parsed, "h", "V")) return WrapperStep.nothing
  const command = OptionGrammar.lastValue(parsed, "c")
  if (command !== undefined) return WrapperStep.runsScript(command)
  const operands = parsed.operands[0] === "-" ? parsed.operands.slice(1) : parsed.operands
  const args = operands.slice(1)
  return args.length === 0
    ? WrapperStep.stdinShell
    : WrapperStep.runsWords([OptionGrammar.lastValue(parsed, "s") ?? "sh", ...args])
}

export const su: WrapperStep.Handler = (words) => {
  const parsed = OptionGrammar.parse(suGrammar, words, 1)
  return parsed.bad !== undefined ? WrapperStep.unsure("su", parsed.bad, words) : suStep(parsed)
}

const runuserShort = "c:fg:G:lmpPs:u:hVw:"
const runuserLong = { ...suLong, user: "u:" }

export const runuser: WrapperStep.Handler = (words) => {
  const parsed = OptionGrammar.parse(OptionGrammar.make(runuserShort, runuserLong, { permute: true }), words, 1)
  if (parsed.bad === undefined && !OptionGrammar.has(parsed, "u")) return suStep(parsed)
  // `runuser -u USER [--] COMMAND…` runs the command itself: its own options must not be taken for runuser's.
  const direct = OptionGrammar.parse(OptionGrammar.make(runuserShort, runuserLong), words, 1)
  if (direct.bad !== undefined) return WrapperStep.unsure("runuser", direct.bad, words)
  if (OptionGrammar.has(direct, "h", "V")) return WrapperStep.nothing
  const command = OptionGrammar.lastValue(direct, "c")
  if (command !== undefined) return WrapperStep.runsScript(command)
  return direct.operands.length === 0 ? WrapperStep.stdinShell : WrapperStep.runsWords(direct.operands)
}

export const pkexec = WrapperStep.simple(
  OptionGrammar.make("", { ...WrapperStep.gnu, user: ":", "keep-cwd": "", "disable-internal-agent": "" }),
  {
    withoutCommand: WrapperStep.stdinShell
  }
)

// `sg GROUP [-c] COMMAND`: sg hands its one command word to `sh -c` and ignores the rest.
export const sg: WrapperStep.Handler = (words) => {
  const start = words[1] === "-" ? 2 : 1
  if (words[start] === undefined) return WrapperStep.nothing
  const command = words[start + 1] === "-c" ? words[start + 2] : words[start + 1]
  return command === undefined ? WrapperStep.stdinShell : WrapperStep.runsScript(command)
}

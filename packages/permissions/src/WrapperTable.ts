/**
 * WrapperTable: which program names are wrappers, and the reading of each.
 * Apart from the unwrapping walk so the list of wrappers can be read (and
 * grown) in one place, with the families of wrappers behind it.
 *
 * @since 0.4.0
 */
import * as GitWrapper from "./GitWrapper.js"
import * as PrivilegeWrappers from "./PrivilegeWrappers.js"
import * as ProcessWrappers from "./ProcessWrappers.js"
import * as RepeatingWrappers from "./RepeatingWrappers.js"
import * as ShellWrappers from "./ShellWrappers.js"
import type * as WrapperStep from "./WrapperStep.js"

export const handlers: ReadonlyMap<string, WrapperStep.Handler> = new Map([
  ["sudo", PrivilegeWrappers.sudo],
  ["doas", PrivilegeWrappers.doas],
  ["env", ProcessWrappers.env],
  ["nice", ProcessWrappers.nice],
  ["ionice", ProcessWrappers.ionice],
  ["timeout", ProcessWrappers.timeout],
  ["nohup", ProcessWrappers.nohup],
  ["time", ProcessWrappers.time],
  ["setsid", ProcessWrappers.setsid],
  ["flock", ProcessWrappers.flock],
  ["stdbuf", ProcessWrappers.stdbuf],
  ["chroot", ProcessWrappers.chroot],
  ["xargs", RepeatingWrappers.xargs],
  ["find", RepeatingWrappers.find],
  ["watch", RepeatingWrappers.watch],
  ["script", RepeatingWrappers.script],
  ["su", PrivilegeWrappers.su],
  ["runuser", PrivilegeWrappers.runuser],
  ["pkexec", PrivilegeWrappers.pkexec],
  ["sg", PrivilegeWrappers.sg],
  ["nsenter", ProcessWrappers.nsenter],
  ["unshare", ProcessWrappers.unshare],
  ["bash", ShellWrappers.shell],
  ["sh", ShellWrappers.shell],
  ["zsh", ShellWrappers.shell],
  ["dash", ShellWrappers.shell],
  ["ksh", ShellWrappers.shell],
  ["source", ShellWrappers.source],
  [".", ShellWrappers.source],
  ["eval", ShellWrappers.evalHandler],
  ["exec", ShellWrappers.execHandler],
  ["command", ShellWrappers.command],
  ["builtin", ShellWrappers.builtin],
  ["coproc", ShellWrappers.coproc],
  ["busybox", ShellWrappers.busybox],
  ["git", GitWrapper.git],
  ["make", ShellWrappers.make],
  ["sed", ShellWrappers.sed],
  ["awk", ShellWrappers.awk],
  ["gawk", ShellWrappers.awk],
  ["mawk", ShellWrappers.awk],
  ["nawk", ShellWrappers.awk]
])

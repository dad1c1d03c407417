/**
 * EngineConfig: what an engine is made from (rules, mode, hooks, a
 * listener) and the rule names users know. Apart from the engine because a
 * settings loader and a command line build it without needing the engine's
 * evaluation.
 *
 * @since 0.4.0
 */
import type * as Mode from "./Mode.js"
import type * as PermissionAudit from "./PermissionAudit.js"
import type * as PermissionHooks from "./PermissionHooks.js"
import type * as Rule from "./Rule.js"
import type * as Settings from "./Settings.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Config {
  /** Relative paths and path rules resolve against it. */
  readonly workspaceRoot: string
  /** Where `~/` in path rules points. Rules that use `~` fail to load without it. */
  readonly homeDirectory?: string | undefined
  /**
   * Compare paths without case, as the file system does. Default: on macOS
   * and Windows, whose default file systems do.
   *
   * @since 0.3.0
   */
  readonly caseInsensitivePaths?: boolean | undefined
  /** Default: `default`. */
  readonly mode?: Mode.Mode | undefined
  readonly allow?: ReadonlyArray<string | Rule.Rule> | undefined
  readonly ask?: ReadonlyArray<string | Rule.Rule> | undefined
  readonly deny?: ReadonlyArray<string | Rule.Rule> | undefined
  /**
   * Registry names each rule name stands for, merged over {@link defaultTools}
   * (a key given here replaces that key). A rule may always use a registry
   * name directly.
   */
  readonly tools?: Readonly<Record<string, ReadonlyArray<string>>> | undefined
  readonly hooks?: ReadonlyArray<PermissionHooks.Before> | undefined
  readonly onDecision?: PermissionAudit.Listener | undefined
  /**
   * Allow without asking a command its tool confines to the OS sandbox
   * (`sandbox: "confined"` on the subject) when no deny rule, ask rule,
   * hook, mode or allow rule decided it, in `default` and `acceptEdits`.
   * Default: off. It never allows a command that asks to leave the sandbox.
   *
   * @since 0.3.0
   */
  readonly autoAllowSandboxedCommands?: boolean | undefined
}

/**
 * The rule names users know, mapped to the registry names of the node
 * package's tools and the usual names of shell and fetch tools.
 *
 * @since 0.1.0
 * @category defaults
 */
export const defaultTools: Readonly<Record<string, ReadonlyArray<string>>> = {
  Bash: ["bash", "shell", "run_command"],
  Read: ["read_file", "list_directory", "glob", "grep"],
  Edit: ["write_file", "edit_file"],
  Write: ["write_file"],
  WebFetch: ["web_fetch", "fetch_url"]
}

/**
 * An engine configuration from loaded settings; `options` adds what a
 * settings file does not say (the workspace, hooks, a listener) and may
 * override the mode and `autoAllowSandboxedCommands` (command-line flags).
 *
 * @since 0.1.0
 * @category constructors
 */
export const configFromSettings = (
  settings: Settings.Settings,
  options: Omit<Config, "allow" | "ask" | "deny">
): Config => ({
  ...options,
  mode: options.mode ?? settings.defaultMode,
  autoAllowSandboxedCommands: options.autoAllowSandboxedCommands ?? settings.autoAllowSandboxedCommands,
  allow: settings.allow,
  ask: settings.ask,
  deny: settings.deny
})

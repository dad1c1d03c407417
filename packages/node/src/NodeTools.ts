/**
 * A coding agent's runtime in one line: `NodeTools.layer({ root })` gives a
 * `ToolRuntime` with the file tools, the shell tool and its background
 * jobs, `read_output`, the workspace, the OS sandbox and the permission
 * engine, wired so that the plain call is the safe one:
 *
 * - every command runs in the sandbox (`workspace-write`, network off,
 *   `.git/hooks` and `.git/config` read-only, credentials kept out of its
 *   environment), and where there is no sandbox backend it is refused with
 *   what to install (`fallback: "refuse"`);
 * - the permission rules of the settings files (the user's and the
 *   project's, which can only tighten) decide every call, and their Read and
 *   Edit deny rules also reach what a search walks over and what a command
 *   touches, since the sandbox masks the same paths;
 * - without settings the engine runs in `acceptEdits` with confined
 *   commands allowed: edits and commands inside the workspace run, while
 *   writes to protected paths (`.git`, `.bashrc`…), destructive commands and
 *   commands that leave the sandbox need a person. With no person to ask
 *   (the default approver is headless), such a call is refused with the
 *   reason, and the turn goes on.
 *
 * Each of those is one option to change, and whatever loosens it has a loud
 * name: `sandbox: { policy: "danger-full-access" }`, `fallback:
 * "unconfined"` (in the user's settings or here), `ProcessRunner.layerUnconfined`
 * for a runtime composed by hand.
 *
 * The layer needs a `FileSystem` (the permission engine follows symbolic
 * links with it, and the settings files are read with it): provide
 * `NodeFileSystem.layer` (or `NodeContext.layer`) from
 * `@effect/platform-node` at the edge of the program, as every Effect
 * program on Node does.
 *
 * @since 0.4.0
 */
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import type * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import type * as Tool from "@tool-runtime/core/Tool"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Approver from "@tool-runtime/permissions/Approver"
import * as Engine from "@tool-runtime/permissions/Engine"
import type * as Rule from "@tool-runtime/permissions/Rule"
import * as SandboxRules from "@tool-runtime/permissions/SandboxRules"
import * as Settings from "@tool-runtime/permissions/Settings"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as BackgroundJobs from "./BackgroundJobs.js"
import * as FileArtifactStore from "./FileArtifactStore.js"
import * as FileTools from "./FileTools.js"
import * as ProcessRunner from "./ProcessRunner.js"
import * as Sandbox from "./Sandbox.js"
import * as SandboxSettings from "./SandboxSettings.js"
import * as ShellTool from "./ShellTool.js"
import * as Workspace from "./Workspace.js"

/**
 * @since 0.4.0
 * @category models
 */
export interface Options {
  /** The workspace: the file tools stay inside it, commands start in it and may write only there (and `/tmp`). */
  readonly root: string
  /**
   * The settings files: their `permissions` object feeds the permission
   * engine, their `sandbox` object the sandbox. A missing file counts as
   * empty; a file that does not decode fails the layer, naming the file
   * and the field. The project's file can only tighten the user's.
   */
  readonly settings?: {
    readonly user?: string | undefined
    readonly project?: string | undefined
  } | undefined
  /**
   * The permission engine's options beyond the settings files (rules given
   * here are added to theirs). `mode` defaults to the settings' `defaultMode`,
   * else `acceptEdits`; `autoAllowSandboxedCommands` to the settings', else
   * on.
   */
  readonly permissions?: Omit<Engine.Config, "workspaceRoot"> | undefined
  /** Who answers the engine's questions. Default: nobody (`Approver.layerHeadless`): asking denies, with the reason. */
  readonly approver?: Layer.Layer<Approver.Approver> | undefined
  /**
   * Sandbox settings over those of the files (`policy`, `network`,
   * `writablePaths`, `denyRead`, `fallback`…). Default: `workspace-write`,
   * network off, refuse where there is no backend.
   */
  readonly sandbox?: Omit<Sandbox.Config, "workspace"> | undefined
  /** Shell tool options (name, timeouts, output limits, `allowUnsandboxed`…). */
  readonly shell?: Omit<ShellTool.JobOptions, "root" | "sandbox"> | undefined
  /** Background job limits. */
  readonly jobs?: BackgroundJobs.Options | undefined
  /**
   * Where truncated outputs are kept in full for `read_output`: a session
   * folder. Default: in memory.
   */
  readonly outputDirectory?: string | undefined
  /**
   * Your own tools, registered beside the built-in ones. Their handlers may
   * use the services the layer builds ({@link Provided}); provide anything
   * else they need to the tools themselves.
   */
  readonly tools?: ReadonlyArray<Tool.Tool<string, any, any, any, Provided>> | undefined
  /** The runtime's own options (default deadlines, truncation, cleanup bound). */
  readonly runtime?: ToolRuntime.Options | undefined
}

/**
 * The services the layer builds, which your own tools' handlers may use.
 *
 * @since 0.4.0
 * @category models
 */
export type Provided =
  | ArtifactStore.ArtifactStore
  | BackgroundJobs.BackgroundJobs
  | Engine.Engine
  | Policy.Policy
  | ProcessRunner.ProcessRunner
  | Redactor.Redactor
  | Sandbox.Sandbox
  | Workspace.Workspace

const loadSettings = (options: Options) =>
  Effect.all({
    permissions: Settings.load(options.settings ?? {}),
    sandbox: SandboxSettings.load(options.settings ?? {})
  })

/**
 * Where the settings files are by convention: the user's
 * `~/.tool-runtime/settings.json` and the project's
 * `<root>/.tool-runtime/settings.json` (a protected path: the model cannot
 * write it without a person's approval, and commands cannot read it).
 *
 * @since 0.4.0
 * @category settings
 */
export const settingsFiles = (
  root: string,
  home: string = NodeOs.homedir()
): { readonly user: string; readonly project: string } => ({
  user: NodePath.join(home, ".tool-runtime", "settings.json"),
  project: NodePath.join(root, ".tool-runtime", "settings.json")
})

const jobRules = BackgroundJobs.tools.map((tool) => tool.name)

const realOrSame = (path: string): string => Either.getOrElse(Either.try(() => NodeFs.realpathSync(path)), () => path)

/** The engine's configuration: the files' rules and the caller's together, the caller's options first. */
const engineConfig = (options: Options, settings: Settings.Settings): Engine.Config => {
  const extra = options.permissions ?? {}
  const fromFiles = Engine.configFromSettings(settings, {
    ...extra,
    // Real paths: the file tools and the sandbox see those, and a rule must meet them.
    workspaceRoot: realOrSame(options.root),
    homeDirectory: realOrSame(extra.homeDirectory ?? options.sandbox?.home ?? NodeOs.homedir()),
    mode: extra.mode ?? settings.defaultMode ?? "acceptEdits",
    autoAllowSandboxedCommands: extra.autoAllowSandboxedCommands ?? settings.autoAllowSandboxedCommands ?? true
  })
  return {
    ...fromFiles,
    // Stopping or reading a job the runtime started touches nothing new: a model must never be
    // left unable to stop its own server.
    allow: [...jobRules, ...(fromFiles.allow ?? []), ...(extra.allow ?? [])],
    ask: [...(fromFiles.ask ?? []), ...(extra.ask ?? [])],
    deny: [...(fromFiles.deny ?? []), ...(extra.deny ?? [])]
  }
}

/**
 * The sandbox's configuration: the files', then what the caller set here (a
 * flag wins over a file), with the engine's path deny rules mirrored, so
 * that a command, even one a person approved, cannot read what a Read deny
 * keeps from the file tools, nor write what an Edit deny protects.
 */
const sandboxConfig = (
  options: Options,
  settings: SandboxSettings.Settings,
  engine: Engine.Config
): Either.Either<Sandbox.Config, Rule.InvalidRule> =>
  Either.map(
    SandboxRules.mirrorSettings({ deny: engine.deny ?? [] }, {
      workspaceRoot: engine.workspaceRoot,
      homeDirectory: engine.homeDirectory,
      caseInsensitive: engine.caseInsensitivePaths
    }),
    (mirrored) => {
      const given = options.sandbox ?? {}
      const fromFiles = SandboxSettings.toConfig(settings, { ...given, workspace: engine.workspaceRoot })
      return {
        ...fromFiles,
        ...Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)),
        workspace: engine.workspaceRoot,
        denyRead: fromFiles.denyRead,
        denyReadMatching: [...mirrored.read, ...(given.denyReadMatching ?? [])],
        denyWriteMatching: [...mirrored.write, ...(given.denyWriteMatching ?? [])]
      }
    }
  )

/**
 * The runtime over a workspace, confined and governed by the settings
 * files (see the module's description). Besides `ToolRuntime` it provides
 * the services it is built from: the permission `Engine` (to switch modes),
 * the `Sandbox` (its status), the `ArtifactStore`, the `Workspace`.
 *
 * @since 0.4.0
 * @category layers
 */
export const layer = (options: Options) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const loaded = yield* loadSettings(options)
    const permissions = engineConfig(options, loaded.permissions)
    const sandbox = yield* sandboxConfig(options, loaded.sandbox, permissions)
    const root = permissions.workspaceRoot
    const registry = Layer.unwrapEffect(Effect.map(Sandbox.Sandbox, (sandbox) =>
      Registry.layer<ReadonlyArray<Tool.Tool<string, any, any, any, Provided>>>(ToolRuntime.withReadTool([
        ...FileTools.all(),
        ...ShellTool.toolkit({ ...options.shell, root, sandbox }),
        ...(options.tools ?? [])
      ]))))
    const store = options.outputDirectory === undefined
      ? ArtifactStore.layerMemory()
      : FileArtifactStore.layer({ directory: options.outputDirectory })
    // One runner (layers are shared by reference within a build): the shell and its jobs kill through it.
    const runner = ProcessRunner.layer
    const services = Layer.mergeAll(
      store,
      Engine.layer(permissions).pipe(
        Layer.provide([options.approver ?? Approver.layerHeadless, Redactor.layerDefault])
      ),
      Redactor.layerDefault,
      Workspace.layer(root),
      runner,
      BackgroundJobs.layer(options.jobs).pipe(Layer.provide(runner))
    )
    return ToolRuntime.layer(options.runtime).pipe(
      Layer.provide(registry),
      Layer.provideMerge(services),
      Layer.provideMerge(Sandbox.layer(sandbox))
    )
  }))

/**
 * Why the layer could not be built: a settings file, a rule, the workspace
 * root, the sandbox's set-up, the grammar, a duplicate tool name, the
 * output folder.
 *
 * @since 0.4.0
 * @category errors
 */
export type SetupError = Layer.Layer.Error<ReturnType<typeof layer>>

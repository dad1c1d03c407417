/**
 * The OS sandbox around every command the runtime runs: what a command can
 * read, write and reach, bounded by the kernel rather than by a check of
 * where the command starts.
 *
 * Policies use the vocabulary of the agent CLIs:
 *
 * - `read-only`: the whole system readable (denied paths excepted), nothing
 *   writable but a private temporary directory at `/tmp`.
 * - `workspace-write` (the default): the same, plus the workspace and the
 *   configured extra paths writable.
 * - `danger-full-access`: no sandbox at all. Never a default: it must be
 *   asked for, and every use is logged as a warning.
 *
 * Paths denied for reading (by default `~/.ssh`, `~/.aws`,
 * `~/.config/gcloud`, `~/.netrc`, `~/.npmrc` and the settings files
 * themselves) are masked: a denied directory appears empty and read-only,
 * a denied file appears empty and cannot be written, renamed or removed
 * (it is a mount point). A denied path that does not exist when the
 * command starts cannot be masked; where it lies inside a writable tree a
 * command could create it.
 *
 * The permission engine's deny rules are mirrored too
 * (`denyReadMatching`, `denyWriteMatching`, see {@link PathMask}): at each
 * command's start the paths they cover are masked, or bound read-only, and
 * a rule that covers a tree too large to walk refuses the command instead
 * of running it half masked. The hooks and configuration of the git
 * repositories in the writable trees are read-only (see
 * `GitMetadata`), so a confined command can commit but cannot plant what
 * the user's own git would run later. The directories between a writable
 * root and anything protected inside it are mount points, so that none of
 * it can be moved aside and replaced.
 *
 * The runner gives each command only the environment variables
 * `environment` allows (see {@link Environment}; by default all but the
 * secrets), and each result counts what was withheld.
 *
 * The network is `off` (a network namespace of its own: only its own
 * loopback), `on`, or limited to an allowlist of domains: the namespace is
 * still private, and a proxy the runtime runs (see {@link NetworkProxy})
 * is the one way out, for programs that honour `HTTP_PROXY`/`HTTPS_PROXY`.
 *
 * Backends. The Linux backend is bubblewrap (`bwrap`, Debian/Ubuntu
 * package `bubblewrap`, Fedora `bubblewrap`): a new PID namespace, so that
 * killing the sandbox's first process kills every process inside it,
 * `setsid` or not; `--die-with-parent`, so that the sandbox dies with the
 * runtime even when the runtime is killed by SIGKILL; `--new-session`, so
 * that a command cannot push input into a terminal (TIOCSTI); a fresh
 * `/proc` and a minimal `/dev`; and a seccomp filter against UNIX-domain
 * sockets (see `allowUnixSockets`), since a read-only mount does not stop
 * a `connect()` to the host's `/run/docker.sock`. A backend is a function from a launch and
 * a policy to another launch plus how to stop it ({@link Prepared}): a
 * macOS backend would wrap the command in `sandbox-exec` with a Seatbelt
 * profile built from the same {@link Plan}, and callers would not change.
 * It is not written yet: on macOS the sandbox reports itself unavailable.
 *
 * Without a backend (bwrap missing, unprivileged user namespaces switched
 * off, another platform), `fallback` decides: `refuse` (the default) fails
 * every command with a {@link SandboxError} that says what is missing and
 * how to install it; `unconfined` runs commands without a sandbox and says
 * so in every result.
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import type * as Environment from "./Environment.js"
import * as NetworkProxy from "./NetworkProxy.js"
import * as SandboxLayout from "./SandboxLayout.js"
import * as SeccompFilter from "./SeccompFilter.js"

// ---------------------------------------------------------------------------
// models
// ---------------------------------------------------------------------------

/**
 * @since 0.3.0
 * @category models
 */
export const Policy = SandboxLayout.Policy

/**
 * @since 0.3.0
 * @category models
 */
export type Policy = SandboxLayout.Policy

/**
 * How strict each policy is, for merging: the stricter one wins.
 *
 * @since 0.3.0
 * @category models
 */
export const strictness = SandboxLayout.strictness

/**
 * @since 0.3.0
 * @category models
 */
export type Network = SandboxLayout.Network

/**
 * @since 0.3.0
 * @category models
 */
export type Fallback = "refuse" | "unconfined"

/**
 * @since 0.3.0
 * @category models
 */
export interface Config extends SandboxLayout.Input {
  /** What happens when there is no sandbox backend. Default `refuse`. */
  readonly fallback?: Fallback | undefined
  /** The bubblewrap program. Default `bwrap` from `PATH`. */
  readonly bwrap?: string | undefined
  /**
   * Lets commands create UNIX-domain sockets. Default `false`: a read-only
   * mount does not stop `connect()` to a socket file, and the host's
   * sockets (`/run/docker.sock`, a D-Bus bus, an SSH agent) would be a way
   * out of any policy, so a seccomp filter makes `socket(AF_UNIX, …)` fail
   * with EPERM (socket pairs, which reach nothing outside, still work). An
   * allowlist network needs UNIX sockets for its bridge and is not
   * filtered: mask the sockets that matter with `denyRead` there.
   */
  readonly allowUnixSockets?: boolean | undefined
  /**
   * Starts the network proxy for an allowlist. Default: the built-in one,
   * `NetworkProxy.starter()` (a UNIX socket in the private `/tmp`, a bridge
   * on `127.0.0.1:3128` inside).
   */
  readonly proxy?: ProxyStarter | undefined
  /**
   * Which of the runner's environment variables reach commands (see
   * {@link Environment}). Default {@link Environment.defaultPolicy}: all
   * but the secrets.
   */
  readonly environment?: Environment.Policy | undefined
}

/**
 * Where `~` paths go: denied for reading unless `replaceDefaultDenyRead`.
 *
 * @since 0.3.0
 * @category defaults
 */
export const defaultDenyRead = SandboxLayout.defaultDenyRead

/**
 * How one command was (or was not) confined: in every result.
 *
 * @since 0.3.0
 * @category models
 */
export interface Confinement {
  /** `none`: the command ran without a sandbox. */
  readonly backend: "bubblewrap" | "none"
  readonly policy: Policy
  readonly network: "off" | "on" | "allowlist"
  /**
   * Why there is no sandbox, when there is none: the command asked for full
   * access, no backend is available (the `unconfined` fallback), or the
   * process runner was built without a sandbox (`ProcessRunner.layerUnconfined`).
   */
  readonly unconfinedBecause: "full-access" | "unavailable" | "unconfined-runner" | undefined
  /**
   * Variables of the runner's environment the command did not get (set by
   * the process runner; 0 before it).
   */
  readonly withheldVariables: number
  /**
   * One line for people and models, e.g. `sandbox: workspace-write
   * (bubblewrap), network off, 3 environment variables withheld`: a count,
   * never names or values.
   */
  readonly summary: string
}

/**
 * A program to start, before and after confinement.
 *
 * @since 0.3.0
 * @category models
 */
export interface Launch {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string | undefined
  readonly env: Readonly<Record<string, string | undefined>> | undefined
}

/**
 * A confined launch, with what the process runner must know to stop it.
 *
 * @since 0.3.0
 * @category models
 */
export interface Prepared extends Launch {
  /** Files the runner opens read-only and passes as descriptors 3, 4, … (the seccomp program). */
  readonly inheritFiles?: ReadonlyArray<string> | undefined
  readonly confinement: Confinement
  /**
   * The command runs in a PID namespace whose first process is a child of
   * the started program: signal the namespace's members for a graceful
   * stop, and kill its first process to kill them all.
   */
  readonly pidNamespace: boolean
}

/**
 * What the sandbox can do on this machine.
 *
 * @since 0.3.0
 * @category models
 */
export interface Status {
  readonly backend: "bubblewrap" | "none"
  readonly available: boolean
  /** Why it is not available, and how to fix it. */
  readonly problem: string | undefined
}
/**
 * A filesystem and network layout, independent of the backend.
 *
 * @since 0.3.0
 * @category models
 */
export type Plan = SandboxLayout.Plan

/**
 * Starts a proxy for an allowlist inside the layer's scope; the launch
 * it wraps runs a bridge to it inside the sandbox.
 *
 * @since 0.3.0
 * @category models
 */
export type ProxyStarter = (options: {
  /** A host directory the sandbox sees as `/tmp`: put the socket there. */
  readonly directory: string
  readonly network: Extract<Network, { _tag: "Allowlist" }>
}) => Effect.Effect<ProxyHandle, unknown, Scope.Scope>

/**
 * @since 0.3.0
 * @category models
 */
export interface ProxyHandle {
  /** Wraps the command (inside the sandbox) so that it reaches the proxy. */
  readonly wrap: (launch: Launch) => Launch
}

// ---------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------

/**
 * A command was not run because it could not be confined.
 *
 * @since 0.3.0
 * @category errors
 */
export class SandboxError extends Schema.TaggedError<SandboxError>()("SandboxError", {
  reason: Schema.Literal("unavailable", "setup_failed", "rule_too_broad"),
  /** What is missing and how to get it. */
  detail: Schema.String
}) {
  get retryable(): boolean {
    return false
  }
  override get message(): string {
    return this.reason === "unavailable"
      ? `The command was not run: it must run in a sandbox, and none is available here. ${this.detail}`
      : this.reason === "setup_failed"
      ? `The command was not run: the sandbox could not be set up. ${this.detail}`
      : `The command was not run. ${this.detail}`
  }
}

// ---------------------------------------------------------------------------
// service
// ---------------------------------------------------------------------------

/**
 * @since 0.3.0
 * @category models
 */
export interface Service {
  readonly status: Status
  /** The policy commands get unless they ask for another. */
  readonly policy: Policy
  readonly network: Network
  /** The environment policy of the configuration (see {@link Config.environment}). */
  readonly environment: Environment.Policy | undefined
  /** The summary line a command would get under `policy` (default: the configured one). */
  readonly describe: (policy?: Policy | undefined) => string
  /**
   * Wraps a launch so that it runs confined. `policy` overrides the
   * configured one for this command (`danger-full-access` to run a command
   * outside the sandbox: the caller must have asked the user).
   */
  readonly prepare: (launch: Launch, policy?: Policy | undefined) => Effect.Effect<Prepared, SandboxError>
}

/**
 * @since 0.3.0
 * @category tags
 */
export class Sandbox extends Context.Tag("@tool-runtime/node/Sandbox")<Sandbox, Service>() {}

// ---------------------------------------------------------------------------
// layout
// ---------------------------------------------------------------------------
const attemptRemove = (path: string): void => {
  Either.try(() => NodeFs.rmSync(path, { recursive: true, force: true }))
}

/**
 * The layout of a policy (see {@link SandboxLayout.plan}).
 *
 * @since 0.3.0
 * @category layout
 */
export const plan = SandboxLayout.plan

/**
 * The bubblewrap arguments of a plan (see {@link SandboxLayout.bubblewrapArgs}).
 *
 * @since 0.3.0
 * @category layout
 */
export const bubblewrapArgs = SandboxLayout.bubblewrapArgs

/**
 * How a command started by a runner without a sandbox ran: with the full
 * access of the program that started it, said in every result.
 *
 * @since 0.4.0
 * @category models
 */
export const unconfinedRunner: Confinement = {
  backend: "none",
  policy: "danger-full-access",
  network: "on",
  unconfinedBecause: "unconfined-runner",
  withheldVariables: 0,
  summary:
    "sandbox: none (unconfined: the process runner has no sandbox, so commands run with the user's full access to files, network and processes)"
}

const networkWord = (network: Network): Confinement["network"] =>
  network._tag === "Off" ? "off" : network._tag === "On" ? "on" : "allowlist"

const summaryOf = (
  confinement: Omit<Confinement, "summary" | "withheldVariables">,
  problem: string | undefined
): string => {
  if (confinement.unconfinedBecause === "full-access") return "sandbox: none (danger-full-access)"
  if (confinement.unconfinedBecause === "unconfined-runner") return unconfinedRunner.summary
  if (confinement.unconfinedBecause === "unavailable") {
    return `sandbox: none (unconfined fallback: ${problem ?? "no sandbox backend"})`
  }
  const network = confinement.network === "allowlist"
    ? "network: allowed domains only"
    : `network ${confinement.network}`
  return `sandbox: ${confinement.policy} (${confinement.backend}), ${network}`
}
/**
 * See {@link SeccompFilter.unixSocketFilter}.
 *
 * @since 0.3.0
 * @category seccomp
 */
export const unixSocketFilter = SeccompFilter.unixSocketFilter

// ---------------------------------------------------------------------------
// probing
// ---------------------------------------------------------------------------

const installHint =
  "Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`; Arch: `pacman -S bubblewrap`), or set the sandbox fallback to \"unconfined\" to run commands without one."

/** Whether bwrap runs here with the namespaces the policies need. */
const probe = (bwrap: string): Status => {
  if (process.platform !== "linux") {
    return {
      backend: "none",
      available: false,
      problem:
        `There is no sandbox backend for ${process.platform} yet (Linux uses bubblewrap; a macOS Seatbelt backend is planned). Set the sandbox fallback to "unconfined" to run commands without one.`
    }
  }
  const result = NodeChildProcess.spawnSync(bwrap, [
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-net",
    "--ro-bind",
    "/",
    "/",
    "--proc",
    "/proc",
    "--",
    "true"
  ], { stdio: ["ignore", "ignore", "pipe"], timeout: 10_000, encoding: "utf8" })
  if (result.error !== undefined) {
    const code = (result.error as NodeJS.ErrnoException).code
    return {
      backend: "bubblewrap",
      available: false,
      problem: code === "ENOENT"
        ? `bubblewrap (\`${bwrap}\`) is not installed. ${installHint}`
        : `bubblewrap (\`${bwrap}\`) could not be started (${code ?? "error"}). ${installHint}`
    }
  }
  if (result.status !== 0) {
    const said = (result.stderr ?? "").split("\n")[0]!.slice(0, 200)
    return {
      backend: "bubblewrap",
      available: false,
      problem:
        `bubblewrap could not create its namespaces (${said}). Unprivileged user namespaces may be switched off: on Debian/Ubuntu, \`sysctl kernel.unprivileged_userns_clone=1\`; on Ubuntu 24.04+, an AppArmor profile for bwrap (\`kernel.apparmor_restrict_unprivileged_userns\`).`
    }
  }
  return { backend: "bubblewrap", available: true, problem: undefined }
}

// ---------------------------------------------------------------------------
// constructors
// ---------------------------------------------------------------------------

/**
 * Probes the backend and sets up the private `/tmp` (removed when the
 * scope closes) and, for an allowlist, the proxy.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (config: Config): Effect.Effect<Service, SandboxError, Scope.Scope> =>
  Effect.gen(function*() {
    const bwrap = config.bwrap ?? "bwrap"
    const configured = config.policy ?? "workspace-write"
    const fallback = config.fallback ?? "refuse"
    const network = config.network ?? { _tag: "Off" as const }
    const status = probe(bwrap)
    const privateTmp = yield* Effect.acquireRelease(
      Effect.try({
        try: () => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "tool-runtime-sandbox-")),
        catch: (error) =>
          new SandboxError({
            reason: "setup_failed",
            detail: `Could not create the sandbox's private temporary directory (${
              (error as NodeJS.ErrnoException).code ?? "error"
            }).`
          })
      }),
      (directory) => Effect.sync(() => NodeFs.rmSync(directory, { recursive: true, force: true }))
    )
    // A program that exits without closing its scopes (a test worker, an
    // uncaught exit) still leaves no private directories behind.
    const leftovers = [privateTmp]
    const removeLeftovers = () => {
      for (const path of leftovers) attemptRemove(path)
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => process.once("exit", removeLeftovers)),
      () => Effect.sync(() => process.removeListener("exit", removeLeftovers))
    )
    // The filter's program, written once; the runner opens it for each command.
    const filter = network._tag === "Allowlist" || config.allowUnixSockets === true ? undefined : unixSocketFilter()
    const filterFile = filter === undefined || !status.available
      ? undefined
      : yield* Effect.acquireRelease(
        Effect.try({
          try: () => {
            const directory = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "tool-runtime-seccomp-"))
            const file = NodePath.join(directory, "unix-sockets.bpf")
            NodeFs.writeFileSync(file, filter, { mode: 0o444 })
            return file
          },
          catch: (error) =>
            new SandboxError({
              reason: "setup_failed",
              detail: `Could not write the sandbox's seccomp filter (${
                (error as NodeJS.ErrnoException).code ?? "error"
              }).`
            })
        }),
        (file) => Effect.sync(() => NodeFs.rmSync(NodePath.dirname(file), { recursive: true, force: true }))
      )
    if (filterFile !== undefined) leftovers.push(NodePath.dirname(filterFile))
    const proxy = network._tag === "Allowlist" && status.available
      ? yield* Effect.mapError(
        (config.proxy ?? NetworkProxy.starter())({ directory: privateTmp, network }),
        () =>
          new SandboxError({
            reason: "setup_failed",
            detail: "The network proxy for the allowed domains could not start."
          })
      )
      : undefined
    const confinementOf = (policy: Policy): Confinement => {
      const base = {
        backend: policy === "danger-full-access" || !status.available ? "none" as const : "bubblewrap" as const,
        policy,
        network: policy === "danger-full-access" || !status.available ? "on" as const : networkWord(network),
        unconfinedBecause: policy === "danger-full-access"
          ? "full-access" as const
          : status.available
          ? undefined
          : "unavailable" as const
      }
      return { ...base, withheldVariables: 0, summary: summaryOf(base, status.problem?.split(".")[0]) }
    }

    const prepare = (launch: Launch, requested?: Policy | undefined): Effect.Effect<Prepared, SandboxError> =>
      Effect.suspend((): Effect.Effect<Prepared, SandboxError> => {
        const policy = requested ?? configured
        const confinement = confinementOf(policy)
        if (policy === "danger-full-access") {
          return Effect.as(
            Effect.logWarning("A command runs without a sandbox (danger-full-access)."),
            { ...launch, confinement, pidNamespace: false }
          )
        }
        if (!status.available) {
          if (fallback === "refuse") {
            return Effect.fail(new SandboxError({ reason: "unavailable", detail: status.problem ?? installHint }))
          }
          return Effect.succeed({ ...launch, confinement, pidNamespace: false })
        }
        const layout = SandboxLayout.withMatches(config, plan(config, policy, privateTmp))
        if (Either.isLeft(layout)) {
          const { base, limit, rule } = layout.left
          return Effect.fail(
            new SandboxError({
              reason: "rule_too_broad",
              detail:
                `The deny rule ${rule} covers a tree too large to mask: more than ${limit} entries under ${base}. Narrow the rule (a fixed path, or a pattern under a smaller directory), or raise the sandbox's matchWalkLimit.`
            })
          )
        }
        const inner = proxy === undefined ? launch : proxy.wrap(launch)
        const args = [
          ...bubblewrapArgs(layout.right, inner.cwd, filterFile === undefined ? undefined : 3),
          "--",
          inner.command,
          ...inner.args
        ]
        return Effect.succeed({
          command: bwrap,
          args,
          inheritFiles: filterFile === undefined ? undefined : [filterFile],
          cwd: inner.cwd,
          env: inner.env,
          confinement,
          pidNamespace: true
        })
      })

    return {
      status,
      policy: configured,
      network,
      environment: config.environment,
      describe: (policy) => confinementOf(policy ?? configured).summary,
      prepare
    } satisfies Service
  })

/**
 * @since 0.3.0
 * @category layers
 */
export const layer = (config: Config): Layer.Layer<Sandbox, SandboxError> => Layer.scoped(Sandbox, make(config))

/**
 * The real executable, run as a user runs it: piped (a child process whose
 * output is read back) or in a real terminal (a tmux server of the test's
 * own, on its own socket, whose screen is read back).
 */
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Module from "node:module"
import * as Path from "node:path"
import * as Url from "node:url"

/** The app's folder, where `src/bin.ts` is. */
export const appDir = Path.resolve(Path.dirname(Url.fileURLToPath(import.meta.url)), "..")

// What `node_modules/.bin/tsx` runs, resolved the way Node resolves it: pnpm
// may hoist tsx to the workspace root, where no `.bin` next to the app exists.
const tsx = Module.createRequire(import.meta.url).resolve("tsx/cli")

/** Node's arguments for one run; workspace packages resolve to their sources. */
export const argv = (args: ReadonlyArray<string>): Array<string> => [
  tsx,
  "--conditions=@tool-runtime/source",
  "src/bin.ts",
  ...args
]

/** Each run starts Node and tsx: seconds on a loaded two-core machine. */
export const timeout = 180_000

/** What a test waits for a run to do (print, end): far above a loaded machine's tens of seconds, below `timeout`. */
export const runBound = 90_000

/**
 * `promise`, or a rejection saying what was not done after `millis`: a run
 * that hangs (its stdout never closing, an exit that never comes) fails its
 * test with a message, well before the test's own timeout.
 */
export const within = <A>(promise: Promise<A>, what: string, millis = runBound): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: not done within ${millis / 1000} s`)), millis)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      }
    )
  })

/**
 * One run with stdin piped (from `input`, empty by default): not a terminal.
 * Colors are off, so the output reads as plain text.
 */
export const piped = (
  args: ReadonlyArray<string>,
  options?: { readonly input?: string | undefined; readonly env?: Record<string, string | undefined> | undefined }
) =>
  ChildProcess.spawnSync(process.execPath, argv(args), {
    cwd: appDir,
    encoding: "utf8",
    input: options?.input ?? "",
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: "1", ...options?.env }
  })

/** The run started, for tests that act while it runs (close its stdout, signal it). */
export const spawn = (args: ReadonlyArray<string>) =>
  ChildProcess.spawn(process.execPath, argv(args), {
    cwd: appDir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" }
  })

/**
 * SIGINT, as Ctrl-C sends it, to the program's own process. tsx runs the
 * program in a child process of its own and relays signals to it, but a
 * child slow to acknowledge the relayed signal (a loaded machine) is killed
 * with SIGKILL: signalling tsx would test tsx's timing, not the program.
 */
export const interrupt = (child: ChildProcess.ChildProcess) => {
  const program = ChildProcess.execFileSync("pgrep", ["-P", String(child.pid)], { encoding: "utf8" }).trim()
  process.kill(Number(program.split("\n")[0]), "SIGINT")
}

/** The command line a shell runs for `args`. */
export const shellCommand = (args: ReadonlyArray<string>) =>
  [process.execPath, ...argv(args)].map((arg) => JSON.stringify(arg)).join(" ")

/** Terminal tests are skipped where tmux is not installed. */
export const hasTmux = ChildProcess.spawnSync("tmux", ["-V"]).status === 0

/**
 * A terminal running `shell` (a shell command line), for the scope. Its
 * server is ended by its socket when the scope closes, nothing else.
 */
export const terminal = (
  name: string,
  shell: string,
  size: { readonly width: number; readonly height: number } = { width: 200, height: 80 }
): Effect.Effect<
  {
    /** The screen and its scrollback; with `escapes`, the styles as ANSI escapes. */
    readonly screen: (options?: { readonly escapes?: boolean }) => Effect.Effect<string>
    /** The screen once it shows `text`. */
    readonly waitFor: (text: string, options?: { readonly escapes?: boolean }) => Effect.Effect<string, Error>
    readonly keys: (...keys: ReadonlyArray<string>) => Effect.Effect<void>
    /** A tmux format of the pane, such as `#{cursor_flag}`. */
    readonly format: (format: string) => Effect.Effect<string>
  },
  never,
  Scope.Scope
> => {
  const socket = `tool-runtime-test-${process.pid}-${name}`
  const tmux = (...args: ReadonlyArray<string>) =>
    Effect.sync(() => ChildProcess.execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" }))
  const screen = (options?: { readonly escapes?: boolean }) =>
    tmux("capture-pane", "-p", "-J", ...(options?.escapes === true ? ["-e"] : []), "-S", "-300", "-t", name)
  return Effect.acquireRelease(
    tmux(
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      String(size.width),
      "-y",
      String(size.height),
      "-c",
      appDir,
      shell
    ),
    () => Effect.ignore(tmux("kill-server"))
  ).pipe(Effect.as({
    screen,
    waitFor: (text: string, options?: { readonly escapes?: boolean }) =>
      screen(options).pipe(
        Effect.filterOrFail((s) => s.includes(text)),
        Effect.retry(Schedule.spaced("200 millis")),
        Effect.timeoutFail({
          duration: "60 seconds",
          onTimeout: () => new Error(`the screen never showed ${JSON.stringify(text)}`)
        })
      ),
    keys: (...keys: ReadonlyArray<string>) =>
      Effect.zipRight(tmux("send-keys", "-t", name, ...keys), Effect.sleep("300 millis")),
    format: (format: string) => Effect.map(tmux("display-message", "-p", "-t", name, format), (s) => s.trim())
  }))
}

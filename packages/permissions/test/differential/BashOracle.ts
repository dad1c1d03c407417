/**
 * What a real bash starts for a command line: the oracle the differential
 * test judges the permission engine against.
 *
 * Lines run, as the shell tool runs them (`bash -c "$line" </dev/null`), in a
 * bubblewrap sandbox: read-only root, no network, private `/tmp`, and every
 * directory on the default PATH replaced by logging stubs, so that `rm`,
 * `/bin/rm` and `/usr/bin/rm` only append their argv to a log. The real bash
 * and dash live at `/opt/oracle/bash` and `/opt/oracle/dash`, off PATH. Each
 * line gets one CPU second, a wall-clock bound kept by a watchdog coprocess
 * that kills the line's process group, and a bound on processes.
 *
 * The stubs are leaves: `find . -exec rm {} \;` logs `find`, not `rm`. A
 * wrapper an allow rule covers is therefore judged by its own argv only.
 *
 * This is test infrastructure over Node's child processes, so it is written
 * as plain promises and wrapped once, by {@link run}, with `Effect.tryPromise`.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

/** Where the sandbox keeps the oracle's own files; never on PATH. */
const oracleDir = "/opt/oracle"
/** The first PATH entry: a command found there was named without a slash. */
const lookupDir = `${oracleDir}/path`
const logFile = `${oracleDir}/log/log`

/** The default PATH of the shell tool, every entry of which is stubbed. */
export const pathDirs: ReadonlyArray<string> = [
  "/usr/local/sbin",
  "/usr/local/bin",
  "/usr/sbin",
  "/usr/bin",
  "/sbin",
  "/bin"
]

/** Names stubbed even when the host lacks them: wrappers that run other commands. */
export const extraStubs: ReadonlyArray<string> = [
  "sudo",
  "doas",
  "busybox",
  "script",
  "su",
  "watch",
  "flock",
  "setsid",
  "timeout",
  "nohup",
  "nice",
  "env",
  "xargs",
  "find",
  "make",
  "npm",
  "npx",
  "node",
  "git",
  "curl",
  "wget",
  "python3",
  "python",
  "perl",
  "sh",
  "bash",
  "dash",
  "zsh",
  "time",
  "strace",
  "chroot",
  "unshare",
  "nsenter",
  "pkexec",
  "ionice",
  "chrt",
  "taskset",
  "stdbuf",
  "parallel",
  "entr",
  "runuser",
  "tee",
  "rm",
  "id",
  "ls",
  "cat",
  "grep",
  "echo",
  "printf",
  "test",
  "["
]

/**
 * One command bash started: `argv[0]` is the name it was given when bash
 * found it on PATH (`ls`), else the path it was given (`/bin/rm`).
 */
export interface Exec {
  readonly argv: ReadonlyArray<string>
  /** The path bash executed (`/opt/oracle/path/ls` for a PATH lookup). */
  readonly path: string
  /**
   * A wrapper (`nice`, `nohup`, `timeout`, `env`, `setsid`, `stdbuf`,
   * `ionice`) that only ran the rest of its arguments as a command, which is
   * logged on its own.
   */
  readonly transparent: boolean
}

export interface LineResult {
  readonly line: string
  readonly execs: ReadonlyArray<Exec>
  /** The exit status bash reported; 137 when the watchdog killed the line; undefined when it never ran. */
  readonly status: number | undefined
}

export interface Options {
  /** Lines per sandbox. Default 2,000. */
  readonly batchSize?: number | undefined
  /** Sandboxes at once. Default: the number of CPUs, at most 4. */
  readonly parallel?: number | undefined
  /** Wall-clock seconds a line may take. Default 2. */
  readonly lineSeconds?: number | undefined
  /**
   * `exact` runs `bash -c "$line"`, as the shell tool does; `eval` runs
   * `( eval "$line" )` in the driver's bash, which saves an exec per line but
   * differs in `$0`, in the variables in scope and in how a parse error ends.
   * Default `exact`.
   */
  readonly mode?: "exact" | "eval" | undefined
}

export class OracleError extends Data.TaggedError("OracleError")<{
  readonly reason: string
  readonly cause?: unknown
}> {}

// ---------------------------------------------------------------------------
// the sandbox's files
// ---------------------------------------------------------------------------

// The stub. Wrappers whose whole job is to run the rest of their arguments
// as a command (nice, nohup, timeout, env, setsid, stdbuf, ionice, GNU time without -o, and a bare
// xargs, which on the empty input the driver gives runs it once) log a
// transparent record (W) and exec that command, which then logs itself; an
// option the stub does not know makes the wrapper a leaf (R) like any other.
const stubScript = `#!${oracleDir}/dash
log() { kind=$1; shift; printf '%s\\0' "$kind" "\${__ORACLE_LINE-?}" "$#" "$0" "$@" >> ${logFile}; }
# How many arguments the wrapper's own options take, or "leaf".
skip() {
  n=0 total=$#
  case \${0##*/} in
    nice) while [ $# -gt 0 ]; do case $1 in -n|--adjustment) n=$((n+2)); shift 2 ;; -n*|-[0-9]*|--adjustment=*) n=$((n+1)); shift ;; --) n=$((n+1)); break ;; -*) echo leaf; return ;; *) break ;; esac; done ;;
    nohup) [ "$1" = -- ] && n=1 ;;
    timeout) while [ $# -gt 0 ]; do case $1 in -s|-k|--signal|--kill-after) n=$((n+2)); shift 2 ;; --foreground|--preserve-status|-v|--verbose|-s*|-k*|--signal=*|--kill-after=*) n=$((n+1)); shift ;; --) n=$((n+1)); shift; break ;; -*) echo leaf; return ;; *) break ;; esac; done; n=$((n+1)) ;;
    env) while [ $# -gt 0 ]; do case $1 in -i|-|--ignore-environment) n=$((n+1)); shift ;; -u|--unset) n=$((n+2)); shift 2 ;; --) n=$((n+1)); break ;; -*) echo leaf; return ;; *=*) n=$((n+1)); shift ;; *) break ;; esac; done ;;
    setsid) while [ $# -gt 0 ]; do case $1 in -f|-w|-c|--fork|--wait|--ctty) n=$((n+1)); shift ;; --) n=$((n+1)); break ;; -*) echo leaf; return ;; *) break ;; esac; done ;;
    stdbuf) while [ $# -gt 0 ]; do case $1 in -i|-o|-e) n=$((n+2)); shift 2 ;; -i?*|-o?*|-e?*|--input=*|--output=*|--error=*) n=$((n+1)); shift ;; --) n=$((n+1)); break ;; -*) echo leaf; return ;; *) break ;; esac; done ;;
    xargs) case $1 in -*|'') echo leaf; return ;; esac ;;
    time) while [ $# -gt 0 ]; do case $1 in -p|--portability|-v|--verbose|-q|--quiet) n=$((n+1)); shift ;; -f|--format) n=$((n+2)); shift 2 ;; -f?*|--format=*) n=$((n+1)); shift ;; --) n=$((n+1)); break ;; -*) echo leaf; return ;; *) break ;; esac; done ;;
    ionice) while [ $# -gt 0 ]; do case $1 in -c|-n|--class|--classdata) n=$((n+2)); shift 2 ;; -t|--ignore|-c?*|-n?*) n=$((n+1)); shift ;; --) n=$((n+1)); break ;; -*) echo leaf; return ;; *) break ;; esac; done ;;
  esac
  [ $n -le $total ] && echo $n || echo leaf
}
case \${0##*/} in
  nice|nohup|timeout|env|setsid|stdbuf|ionice|xargs|time) n=$(skip "$@") ;;
  *) n=leaf ;;
esac
if [ "$n" = leaf ]; then log R "$@"; exit 0; fi
log W "$@"
shift $n
[ $# -gt 0 ] && exec "$@"
exit 0
`

// The driver: reads NUL-separated lines, runs each in its own process group
// under a CPU limit, and tells the watchdog coprocess which group to kill if
// the line outlives the bound. Markers in the log attribute the records of a
// command that cleared its environment (`exec -c`) to the line then running.
const driverScript = `#!${oracleDir}/bash
lines=$1 status=$2 mode=$3 bound=$4
set -m
ulimit -u 256 2>/dev/null
coproc WD {
  while read -r pid; do
    if ! read -r -t "$bound" _; then
      kill -KILL -- "-$pid" 2>/dev/null
      read -r _
    fi
  done
}
exec {wd}>&"\${WD[1]}"
# A pipe nobody writes to: reading it with a timeout is a sleep without a process.
exec {pause}<> <(:)
i=0
while IFS= read -r -d '' line; do
  printf '%s\\0' M "$i" >> ${logFile}
  if [[ $mode == exact ]]; then
    { ulimit -t 1; __ORACLE_LINE=$i exec -a bash ${oracleDir}/bash -c "$line"; } </dev/null >/dev/null 2>&1 &
  else
    { ulimit -t 1; export __ORACLE_LINE=$i; eval "$line"; } </dev/null >/dev/null 2>&1 &
  fi
  pid=$!
  echo "$pid" >&$wd
  wait "$pid"
  code=$?
  # What the line left running in its group may still start commands: give it
  # until the watchdog's bound, then the watchdog kills the group.
  while kill -0 -- "-$pid" 2>/dev/null; do read -r -t 0.005 -u $pause _; done
  echo done >&$wd
  printf '%s\\0' "$i" "$code" >> "$status"
  i=$((i + 1))
done < "$lines"
# Let commands a line moved out of its group log before the sandbox ends.
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  others=0
  for p in /proc/[0-9]*; do others=$((others + 1)); done
  (( others <= 4 )) && break
  read -r -t 0.1 -u $pause _
done
exit 0
`

/** Every name to stub: the host's PATH directories plus {@link extraStubs}. */
const stubNames = (): ReadonlyArray<string> => {
  const names = new Set<string>(extraStubs)
  for (const dir of pathDirs) {
    let entries: Array<string> = []
    try {
      entries = Fs.readdirSync(dir)
    } catch {
      continue
    }
    for (const name of entries) names.add(name)
  }
  return [...names].filter((name) => name !== "" && !name.includes("/") && name !== "." && name !== "..")
}

/** The sandbox's files on the host: stubs, the stub script, the driver. */
interface Layout {
  readonly root: string
  readonly stubs: string
  readonly stub: string
  readonly driver: string
}

const layout = (): Layout => {
  const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "bash-oracle-"))
  Fs.chmodSync(root, 0o755)
  const stubs = Path.join(root, "stubs")
  Fs.mkdirSync(stubs, { mode: 0o755 })
  const stub = Path.join(root, "stub")
  Fs.writeFileSync(stub, stubScript, { mode: 0o755 })
  const driver = Path.join(root, "driver.sh")
  Fs.writeFileSync(driver, driverScript, { mode: 0o755 })
  for (const name of stubNames()) Fs.symlinkSync(`${oracleDir}/stub`, Path.join(stubs, name))
  return { root, stubs, stub, driver }
}

const which = (name: string): string | undefined => {
  for (const dir of pathDirs) {
    const file = Path.join(dir, name)
    try {
      Fs.accessSync(file, Fs.constants.X_OK)
      return Fs.realpathSync(file)
    } catch {
      // not here
    }
  }
  return undefined
}

/**
 * bwrap's arguments for one batch. As root on the host, the sandbox runs as
 * `nobody`: the kernel never applies a process limit to root.
 */
const sandboxCommand = (
  files: Layout,
  batchDir: string,
  mode: "exact" | "eval",
  lineSeconds: number
): { readonly file: string; readonly args: ReadonlyArray<string> } => {
  const bash = which("bash")
  const dash = which("dash")
  const bwrap = which("bwrap")
  if (bash === undefined || dash === undefined || bwrap === undefined) {
    throw new Error("bash, dash and bwrap must be installed")
  }
  const stubDirs = pathDirs.flatMap((dir) => {
    // /bin and /sbin are symlinks into /usr on merged-/usr systems: replacing
    // /usr/bin covers them, and bwrap cannot mount over a symlink.
    const stat = Fs.lstatSync(dir, { throwIfNoEntry: false })
    return stat !== undefined && stat.isDirectory() ? ["--ro-bind", files.stubs, dir] : []
  })
  const bwrapArgs = [
    "--ro-bind",
    "/",
    "/",
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    "--dir",
    "/tmp/scratch",
    "--tmpfs",
    "/opt",
    "--ro-bind",
    bash,
    `${oracleDir}/bash`,
    "--ro-bind",
    dash,
    `${oracleDir}/dash`,
    "--ro-bind",
    files.stub,
    `${oracleDir}/stub`,
    "--ro-bind",
    files.driver,
    `${oracleDir}/driver.sh`,
    "--ro-bind",
    files.stubs,
    lookupDir,
    "--bind",
    batchDir,
    `${oracleDir}/log`,
    "--remount-ro",
    "/opt",
    ...stubDirs,
    "--chdir",
    "/tmp/scratch",
    "--clearenv",
    "--setenv",
    "PATH",
    [lookupDir, ...pathDirs].join(":"),
    "--setenv",
    "HOME",
    "/tmp/scratch",
    "--setenv",
    "LANG",
    "C.UTF-8",
    `${oracleDir}/bash`,
    `${oracleDir}/driver.sh`,
    `${oracleDir}/log/lines`,
    `${oracleDir}/log/status`,
    mode,
    String(lineSeconds)
  ]
  if (process.getuid?.() === 0) {
    return {
      file: "setpriv",
      args: ["--reuid", "65534", "--regid", "65534", "--clear-groups", "--", bwrap, ...bwrapArgs]
    }
  }
  return { file: bwrap, args: bwrapArgs }
}

// ---------------------------------------------------------------------------
// reading the log
// ---------------------------------------------------------------------------

const fields = (buffer: Buffer): Array<string> => {
  const out: Array<string> = []
  let start = 0
  for (let i = 0; i < buffer.length; i++) {
    if (buffer[i] === 0) {
      out.push(buffer.toString("utf8", start, i))
      start = i + 1
    }
  }
  return out
}

const argvOf = (path: string, args: ReadonlyArray<string>) => {
  const name = path.startsWith(`${lookupDir}/`) ? path.slice(lookupDir.length + 1) : path
  return { path, argv: [name, ...args] }
}

/** Records `R line argc $0 args…` and markers `M line`, attributed to lines. */
const parseLog = (buffer: Buffer, count: number): Array<Array<Exec>> => {
  const execs: Array<Array<Exec>> = Array.from({ length: count }, () => [])
  const f = fields(buffer)
  let current = -1
  let i = 0
  while (i < f.length) {
    const kind = f[i]
    if (kind === "M") {
      current = Number(f[i + 1])
      i += 2
    } else if (kind === "R" || kind === "W") {
      const tag = f[i + 1]!
      const argc = Number(f[i + 2])
      const path = f[i + 3]
      if (!Number.isInteger(argc) || argc < 0 || path === undefined || i + 4 + argc > f.length) {
        throw new Error(`the stub log is corrupt at field ${i}`)
      }
      const line = /^\d+$/.test(tag) ? Number(tag) : current
      if (line >= 0 && line < count) {
        execs[line]!.push({ ...argvOf(path, f.slice(i + 4, i + 4 + argc)), transparent: kind === "W" })
      }
      i += 4 + argc
    } else {
      throw new Error(`the stub log is corrupt at field ${i}`)
    }
  }
  return execs
}

const parseStatus = (buffer: Buffer, count: number): Array<number | undefined> => {
  const status: Array<number | undefined> = Array.from({ length: count }, () => undefined)
  const f = fields(buffer)
  for (let i = 0; i + 1 < f.length; i += 2) status[Number(f[i])] = Number(f[i + 1])
  return status
}

// ---------------------------------------------------------------------------
// running
// ---------------------------------------------------------------------------

const spawn = (file: string, args: ReadonlyArray<string>, boundMs: number) =>
  new Promise<{ readonly code: number | null; readonly stderr: string }>((resolve, reject) => {
    const child = ChildProcess.spawn(file, args, { stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8")
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), boundMs)
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stderr })
    })
  })

const runBatch = async (
  files: Layout,
  index: number,
  lines: ReadonlyArray<string>,
  mode: "exact" | "eval",
  lineSeconds: number
): Promise<Array<LineResult>> => {
  const batchDir = Path.join(files.root, `batch-${index}`)
  Fs.mkdirSync(batchDir, { mode: 0o777 })
  Fs.chmodSync(batchDir, 0o777)
  const input = Buffer.concat(lines.map((line) => Buffer.from(`${line}\0`, "utf8")))
  Fs.writeFileSync(Path.join(batchDir, "lines"), input, { mode: 0o644 })
  for (const name of ["log", "status"]) {
    Fs.writeFileSync(Path.join(batchDir, name), "", { mode: 0o666 })
    Fs.chmodSync(Path.join(batchDir, name), 0o666)
  }
  const command = sandboxCommand(files, batchDir, mode, lineSeconds)
  // A bound for the whole batch, should the driver itself ever hang: the
  // lines it did not reach come back with no status. Each line is cut at
  // `lineSeconds`; 30 s more is the sandbox's start on a loaded machine, many
  // times over. Tests give the oracle a timeout above this bound, so that a
  // hang ends as a failed assertion.
  const result = await spawn(command.file, command.args, 30_000 + lines.length * lineSeconds * 1000)
  const status = parseStatus(Fs.readFileSync(Path.join(batchDir, "status")), lines.length)
  if (result.code !== 0 && status.every((s) => s === undefined)) {
    throw new Error(`the sandbox failed (exit ${result.code}): ${result.stderr.trim()}`)
  }
  const execs = parseLog(Fs.readFileSync(Path.join(batchDir, "log")), lines.length)
  Fs.rmSync(batchDir, { recursive: true, force: true })
  return lines.map((line, i) => ({ line, execs: execs[i]!, status: status[i] }))
}

/** Runs the lines, in batches, a few sandboxes at once; results in the order of the lines. */
export const runPromise = async (
  lines: ReadonlyArray<string>,
  options: Options = {}
): Promise<ReadonlyArray<LineResult>> => {
  for (const line of lines) {
    if (line.includes("\0")) throw new Error("a command line cannot hold a NUL byte")
  }
  const batchSize = options.batchSize ?? 2000
  const parallel = options.parallel ?? Math.min(4, Math.max(1, Os.cpus().length))
  const mode = options.mode ?? "exact"
  const lineSeconds = options.lineSeconds ?? 2
  const files = layout()
  try {
    const batches: Array<ReadonlyArray<string>> = []
    for (let i = 0; i < lines.length; i += batchSize) batches.push(lines.slice(i, i + batchSize))
    const results: Array<Array<LineResult>> = new Array(batches.length)
    let next = 0
    const worker = async () => {
      while (next < batches.length) {
        const index = next++
        results[index] = await runBatch(files, index, batches[index]!, mode, lineSeconds)
      }
    }
    await Promise.all(Array.from({ length: Math.min(parallel, batches.length) }, worker))
    return results.flat()
  } finally {
    Fs.rmSync(files.root, { recursive: true, force: true })
  }
}

/**
 * @since 0.3.0
 * @category running
 */
export const run = (lines: ReadonlyArray<string>, options?: Options) =>
  Effect.tryPromise({
    try: () => runPromise(lines, options),
    catch: (cause) => new OracleError({ reason: cause instanceof Error ? cause.message : String(cause), cause })
  })

/**
 * Whether the sandbox can be built here: bwrap installed and allowed to
 * create namespaces. `undefined` when it can; otherwise why not.
 */
export const unavailable = async (): Promise<string | undefined> => {
  if (which("bwrap") === undefined) return "bwrap (bubblewrap) is not installed"
  if (which("bash") === undefined || which("dash") === undefined) return "bash and dash must be installed"
  try {
    const [result] = await runPromise(["ls probe"], { parallel: 1 })
    if (result?.status !== 0 || result.execs.length !== 1) {
      return `the sandbox ran but the probe line did not log (status ${result?.status})`
    }
    return undefined
  } catch (error) {
    return `bwrap cannot create its sandbox here: ${error instanceof Error ? error.message : String(error)}`
  }
}

import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeHttp from "node:http"
import * as NodeNet from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as NetworkProxy from "../src/NetworkProxy.js"
import * as OutputHygiene from "../src/OutputHygiene.js"
import * as ProcessRunner from "../src/ProcessRunner.js"
import * as Sandbox from "../src/Sandbox.js"
import { processesWithEnv, waitUntil, within, withMarker } from "./Processes.js"

// Real bubblewrap, real processes, a real filesystem. CI installs bwrap;
// without it these tests fail rather than skip, since the guarantees they
// check are the reason the sandbox exists.

const packageDir = NodePath.resolve(NodePath.dirname(NodeUrl.fileURLToPath(import.meta.url)), "..")
const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "sandbox-")))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))
let sequence = 0
const tmp = () => NodeFs.mkdtempSync(NodePath.join(scratch, `t${++sequence}-`))

/** A workspace, a directory outside it, and a home with secrets in the default denied places. */
const fixture = () => {
  const root = tmp()
  const workspace = NodePath.join(root, "ws")
  const outside = NodePath.join(root, "outside")
  const home = NodePath.join(root, "home")
  for (const dir of [workspace, outside, NodePath.join(home, ".ssh"), NodePath.join(home, ".aws")]) {
    NodeFs.mkdirSync(dir, { recursive: true })
  }
  NodeFs.writeFileSync(NodePath.join(home, ".ssh", "id_ed25519"), "PRIVATE-KEY-MARKER\n")
  NodeFs.writeFileSync(NodePath.join(home, ".netrc"), "machine example.com password NETRC-MARKER\n")
  NodeFs.writeFileSync(NodePath.join(outside, "kept.txt"), "outside\n")
  return { workspace, outside, home }
}

const runnerWith = (config: Sandbox.Config) => ProcessRunner.layer.pipe(Layer.provideMerge(Sandbox.layer(config)))

const bash = (script: string, options?: Omit<ProcessRunner.RunOptions, "command" | "args">) => ({
  command: "bash",
  args: ["-c", script],
  ...options
})

const text = (output: ProcessRunner.Output) => OutputHygiene.render(output).text

/** A sandbox line without its count of withheld variables, which depends on this process's environment. */
const withoutWithheld = (summary: string) => summary.replace(/, \d+ environment variables? withheld$/, "")

/**
 * One command in a sandbox of its own. Bounded: a sandboxed command takes a
 * second or two on a loaded machine, and one that hangs must fail the test
 * in seconds, not at its timeout.
 */
const run = (config: Sandbox.Config, options: ProcessRunner.RunOptions) =>
  Effect.gen(function*() {
    const runner = yield* ProcessRunner.ProcessRunner
    return yield* runner.run(options)
  }).pipe(Effect.provide(runnerWith(config)), within(20_000, `the sandboxed command ${options.command} ended`))

/** A TCP server on the host's loopback that answers every connection with a word. */
const loopbackServer = Effect.acquireRelease(
  Effect.async<{ readonly port: number; readonly server: NodeNet.Server }>((resume) => {
    const server = NodeNet.createServer((socket) => {
      socket.end("HELLO-FROM-HOST\n")
    })
    server.listen(
      0,
      "127.0.0.1",
      () => resume(Effect.succeed({ port: (server.address() as NodeNet.AddressInfo).port, server }))
    )
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

/** A node one-liner that connects to the host's loopback and prints what it got, or the error code. */
const connectScript = (port: number) =>
  `${JSON.stringify(process.execPath)} -e ${
    JSON.stringify(
      `const s=require("net").connect(${port},"127.0.0.1");s.on("data",d=>process.stdout.write(d));s.on("error",e=>{console.log("ERR "+e.code);process.exit(3)})`
    )
  }`

describe("Sandbox", () => {
  it.live("bubblewrap is available on this machine", () =>
    Effect.gen(function*() {
      const sandbox = yield* Sandbox.Sandbox
      assert.deepStrictEqual(sandbox.status, { backend: "bubblewrap", available: true, problem: undefined })
    }).pipe(Effect.provide(Sandbox.layer({ workspace: scratch }))))

  it.live("the plain runner layer is the confined one; the unconfined runner never confines and says so", () =>
    Effect.gen(function*() {
      const { home, outside, workspace } = fixture()
      const result = yield* Effect.flatMap(
        ProcessRunner.ProcessRunner,
        (runner) => runner.run(bash(`echo x > ${outside}/plain.txt || echo refused`))
      ).pipe(
        Effect.provide(ProcessRunner.layer.pipe(Layer.provide(Sandbox.layer({ workspace, home }))))
      )
      assert.strictEqual(result.confinement.backend, "bubblewrap")
      assert.include(text(result.stdout), "refused")
      assert.isFalse(NodeFs.existsSync(NodePath.join(outside, "plain.txt")))
      const bare = yield* Effect.flatMap(ProcessRunner.ProcessRunner, (runner) => runner.run(bash("true"))).pipe(
        Effect.provide(ProcessRunner.layerUnconfined)
      )
      assert.strictEqual(bare.confinement.unconfinedBecause, "unconfined-runner")
      assert.include(bare.confinement.summary, "unconfined")
    }))

  describe("filesystem", () => {
    it.live("writes inside the workspace land; writes outside it fail", () =>
      Effect.gen(function*() {
        const { home, outside, workspace } = fixture()
        const result = yield* run(
          { workspace, home },
          bash(
            `echo in > inside.txt && echo ok-inside; echo x > ${outside}/new.txt || echo refused-new; echo x >> ${outside}/kept.txt || echo refused-append; echo x > /etc/tool-runtime-test || echo refused-etc`,
            { cwd: workspace }
          )
        )
        assert.strictEqual(result.exitCode, 0)
        const out = text(result.stdout)
        assert.include(out, "ok-inside")
        assert.include(out, "refused-new")
        assert.include(out, "refused-append")
        assert.include(out, "refused-etc")
        assert.include(text(result.stderr), "Read-only file system")
        assert.strictEqual(NodeFs.readFileSync(NodePath.join(workspace, "inside.txt"), "utf8"), "in\n")
        assert.isFalse(NodeFs.existsSync(NodePath.join(outside, "new.txt")))
        assert.strictEqual(NodeFs.readFileSync(NodePath.join(outside, "kept.txt"), "utf8"), "outside\n")
        assert.isFalse(NodeFs.existsSync("/etc/tool-runtime-test"))
        assert.deepStrictEqual(
          { backend: result.confinement?.backend, policy: result.confinement?.policy },
          { backend: "bubblewrap", policy: "workspace-write" }
        )
      }))

    it.live("denied paths read as empty and cannot be written, renamed or removed", () =>
      Effect.gen(function*() {
        const { home, workspace } = fixture()
        const result = yield* run(
          { workspace, home },
          bash(
            [
              `cat ${home}/.ssh/id_ed25519 2>&1`,
              `ls -A ${home}/.ssh`,
              `cat ${home}/.netrc`,
              `echo stolen > ${home}/.netrc || echo refused-write`,
              `mv ${home}/.netrc ${home}/netrc.moved || echo refused-move`,
              `rm -f ${home}/.netrc || echo refused-rm`,
              `touch ${home}/.ssh/new || echo refused-create`,
              "echo done"
            ].join("; "),
            { cwd: workspace }
          )
        )
        const out = text(result.stdout)
        assert.notInclude(out, "PRIVATE-KEY-MARKER")
        assert.notInclude(out, "NETRC-MARKER")
        for (const word of ["refused-write", "refused-move", "refused-rm", "refused-create", "done"]) {
          assert.include(out, word)
        }
        // The host's files are untouched.
        assert.include(NodeFs.readFileSync(NodePath.join(home, ".netrc"), "utf8"), "NETRC-MARKER")
        assert.isFalse(NodeFs.existsSync(NodePath.join(home, "netrc.moved")))
      }))

    it.live("extra denied paths, given relative to the workspace, are masked too", () =>
      Effect.gen(function*() {
        const { home, workspace } = fixture()
        NodeFs.mkdirSync(NodePath.join(workspace, ".tool-runtime"))
        NodeFs.writeFileSync(NodePath.join(workspace, ".tool-runtime", "settings.json"), "{\"SETTINGS-MARKER\":1}")
        const result = yield* run(
          { workspace, home, denyRead: [".tool-runtime/settings.json"] },
          bash("cat .tool-runtime/settings.json; echo '{}' > .tool-runtime/settings.json || echo refused", {
            cwd: workspace
          })
        )
        assert.notInclude(text(result.stdout), "SETTINGS-MARKER")
        assert.include(text(result.stdout), "refused")
        assert.include(
          NodeFs.readFileSync(NodePath.join(workspace, ".tool-runtime", "settings.json"), "utf8"),
          "MARKER"
        )
      }))

    it.live("read-only: the workspace cannot be written either; the private /tmp can", () =>
      Effect.gen(function*() {
        const { home, workspace } = fixture()
        const result = yield* run(
          { workspace, home, policy: "read-only" },
          bash("echo x > inside.txt || echo refused; echo t > /tmp/scratch && cat /tmp/scratch", { cwd: workspace })
        )
        assert.include(text(result.stdout), "refused")
        assert.include(text(result.stdout), "t")
        assert.isFalse(NodeFs.existsSync(NodePath.join(workspace, "inside.txt")))
        assert.strictEqual(withoutWithheld(result.confinement.summary), "sandbox: read-only (bubblewrap), network off")
      }))

    it.live("/tmp inside is private: host files in /tmp are not visible, and it persists across commands", () =>
      Effect.gen(function*() {
        const { home, workspace } = fixture()
        const hostFile = NodePath.join(NodeOs.tmpdir(), `sandbox-host-${process.pid}.txt`)
        NodeFs.writeFileSync(hostFile, "HOST-TMP-MARKER")
        const config = { workspace, home }
        const [first, second] = yield* Effect.gen(function*() {
          const runner = yield* ProcessRunner.ProcessRunner
          const first = yield* runner.run(bash(`cat ${hostFile} 2>&1; echo kept > /tmp/note`))
          const second = yield* runner.run(bash("cat /tmp/note"))
          return [first, second] as const
        }).pipe(Effect.provide(runnerWith(config)), Effect.ensuring(Effect.sync(() => NodeFs.rmSync(hostFile))))
        assert.notInclude(text(first.stdout), "HOST-TMP-MARKER")
        assert.strictEqual(text(second.stdout), "kept\n")
      }))

    it.live("danger-full-access runs the command without a sandbox, and says so", () =>
      Effect.gen(function*() {
        const { home, outside, workspace } = fixture()
        const result = yield* run(
          { workspace, home },
          bash(`echo x > ${outside}/full.txt && echo wrote`, { cwd: workspace, policy: "danger-full-access" })
        )
        assert.include(text(result.stdout), "wrote")
        assert.isTrue(NodeFs.existsSync(NodePath.join(outside, "full.txt")))
        assert.strictEqual(result.confinement?.backend, "none")
        assert.strictEqual(withoutWithheld(result.confinement.summary), "sandbox: none (danger-full-access)")
      }))
  })

  describe("network", () => {
    it.live("off: a server on the host's loopback cannot be reached; on: it can", () =>
      Effect.scoped(Effect.gen(function*() {
        const { home, workspace } = fixture()
        const { port } = yield* loopbackServer
        const off = yield* run({ workspace, home }, bash(connectScript(port)))
        assert.strictEqual(off.exitCode, 3)
        assert.include(text(off.stdout), "ERR ECONNREFUSED")
        const on = yield* run({ workspace, home, network: { _tag: "On" } }, bash(connectScript(port)))
        assert.strictEqual(text(on.stdout), "HELLO-FROM-HOST\n")
        assert.strictEqual(on.confinement?.network, "on")
      })))
  })

  describe("UNIX sockets", () => {
    /**
     * A UNIX socket server on the host, like /run/docker.sock: in /var/tmp,
     * which every user may write and the sandbox does not replace (as it
     * does /tmp, where a checkout may well live).
     */
    const hostSocket = Effect.acquireRelease(
      Effect.async<{ readonly path: string; readonly server: NodeNet.Server }>((resume) => {
        const directory = NodeFs.mkdtempSync(NodePath.join("/var/tmp", "tool-runtime-socket-"))
        const path = NodePath.join(directory, "host.sock")
        const server = NodeNet.createServer((socket) => {
          socket.end("HOST-SOCKET-MARKER\n")
        })
        server.listen(path, () => resume(Effect.succeed({ path, server })))
      }),
      ({ path, server }) =>
        Effect.async<void>((resume) => {
          server.close(() => {
            NodeFs.rmSync(NodePath.dirname(path), { recursive: true, force: true })
            resume(Effect.void)
          })
        })
    )
    const connectUnix = (path: string) =>
      `${JSON.stringify(process.execPath)} -e ${
        JSON.stringify(
          `require("net").connect(${
            JSON.stringify(path)
          }).on("data",d=>process.stdout.write(d)).on("error",e=>{console.log("ERR "+e.code);process.exit(3)})`
        )
      }`

    it.live("a host UNIX socket cannot be reached, read-only mount or not; socket pairs still work", () =>
      Effect.scoped(Effect.gen(function*() {
        const { home, workspace } = fixture()
        const { path } = yield* hostSocket
        const result = yield* run(
          { workspace, home, network: { _tag: "On" } },
          bash(
            `${
              connectUnix(path)
            }; python3 -c 'import socket; a, b = socket.socketpair(); a.send(b"pair-ok"); print(b.recv(7).decode())'`
          )
        )
        assert.notInclude(text(result.stdout), "HOST-SOCKET-MARKER")
        assert.include(text(result.stdout), "ERR EPERM")
        assert.include(text(result.stdout), "pair-ok")
        const allowed = yield* run({ workspace, home, allowUnixSockets: true }, bash(connectUnix(path)))
        assert.strictEqual(text(allowed.stdout), "HOST-SOCKET-MARKER\n")
      })))

    it.live("io_uring is refused: its ring would open and connect sockets the filter never sees", () =>
      Effect.gen(function*() {
        const { home, workspace } = fixture()
        const probe = [
          "import ctypes, errno",
          "libc = ctypes.CDLL(None, use_errno=True)",
          "params = (ctypes.c_char * 120)()",
          "fd = libc.syscall(425, 1, params)",
          "print('ring', fd, errno.errorcode.get(ctypes.get_errno(), '-'))"
        ].join("; ")
        const result = yield* run({ workspace, home }, bash(`python3 -c ${JSON.stringify(probe)}`))
        assert.strictEqual(text(result.stdout), "ring -1 EPERM\n")
      }))

    it("the filter program is well formed: every jump lands inside it, and it ends in returns", () => {
      for (const arch of ["x64", "arm64"]) {
        const bytes = Sandbox.unixSocketFilter(arch)!
        const view = new DataView(bytes.buffer)
        const count = bytes.length / 8
        for (let i = 0; i < count; i++) {
          const code = view.getUint16(i * 8, true)
          if ((code & 0x07) === 0x05) {
            assert.isBelow(i + 1 + view.getUint8(i * 8 + 2), count)
            assert.isBelow(i + 1 + view.getUint8(i * 8 + 3), count)
          }
        }
        assert.strictEqual(view.getUint16((count - 1) * 8, true), 0x06)
      }
      assert.isUndefined(Sandbox.unixSocketFilter("ia32"))
    })
  })

  it.live("commands hold no capability, so a mask cannot be unmounted nor / remounted, even when root started them", () =>
    Effect.gen(function*() {
      const { home, workspace } = fixture()
      NodeFs.mkdirSync(NodePath.join(workspace, "secret"))
      NodeFs.writeFileSync(NodePath.join(workspace, "secret", "x"), "CAP-MARKER\n")
      const result = yield* run(
        { workspace, home, denyRead: [NodePath.join(workspace, "secret")] },
        bash(
          "grep CapEff /proc/self/status; umount secret 2>/dev/null; cat secret/x 2>/dev/null; mount -o remount,rw / 2>/dev/null && echo REMOUNTED; true"
        )
      )
      assert.strictEqual(text(result.stdout), "CapEff:\t0000000000000000\n")
    }))

  describe("network allowlist", () => {
    /** An HTTP origin on the host's loopback that names the path it was asked for. */
    const origin = Effect.acquireRelease(
      Effect.async<{ readonly port: number; readonly server: NodeHttp.Server }>((resume) => {
        const server = NodeHttp.createServer((request, response) => {
          response.end(`ORIGIN ${request.url}\n`)
        })
        server.listen(
          0,
          "127.0.0.1",
          () => resume(Effect.succeed({ port: (server.address() as NodeNet.AddressInfo).port, server }))
        )
      }),
      ({ server }) =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )

    it.live("only allowed domains are reached, through the proxy; nothing else gets out", () =>
      Effect.scoped(Effect.gen(function*() {
        const { home, workspace } = fixture()
        const { port } = yield* origin
        const lookup = (name: string) =>
          name.endsWith(".test")
            ? Effect.succeed("127.0.0.1")
            : Effect.fail(new NetworkProxy.LookupError({ hostname: name, code: "ENOTFOUND" }))
        const result = yield* run(
          {
            workspace,
            home,
            network: { _tag: "Allowlist", allowedDomains: ["*.allowed.test"], deniedDomains: [] },
            proxy: NetworkProxy.starter({ lookup })
          },
          bash([
            `curl -sS -m 5 http://api.allowed.test:${port}/ok`,
            `curl -sS -m 5 -o /dev/null -w 'denied %{http_code}\n' http://other.test:${port}/no`,
            `curl -sS -m 5 --noproxy '*' http://127.0.0.1:${port}/direct 2>/dev/null || echo direct-refused`,
            "echo done"
          ].join("; "))
        )
        assert.strictEqual(text(result.stdout), "ORIGIN /ok\ndenied 403\ndirect-refused\ndone\n")
        assert.strictEqual(result.confinement?.network, "allowlist")
        assert.strictEqual(
          withoutWithheld(result.confinement.summary),
          "sandbox: workspace-write (bubblewrap), network: allowed domains only"
        )
      })))
  })

  describe("processes", () => {
    it.live("ps inside sees only the command's own processes", () =>
      Effect.gen(function*() {
        const { home, workspace } = fixture()
        // ps once the background sleep is a sleep (its fork may not have run exec yet).
        const result = yield* run(
          { workspace, home },
          bash("sleep 5 & until [ \"$(cat /proc/$!/comm)\" = sleep ]; do sleep 0.01; done; ps -e -o pid=,comm=")
        )
        const seen = text(result.stdout).trim().split("\n").map((line) => line.trim().split(/\s+/)[1])
        // bubblewrap's init, the sleep, and ps (bash execs its last command): nothing of the host.
        assert.deepStrictEqual([...seen].sort(), ["bwrap", "ps", "sleep"])
        assert.notInclude(text(result.stdout), String(process.pid))
      }))

    it.live("a normal exit leaves nothing alive: setsid, double forks, nohup, SIGTERM ignored", () =>
      Effect.gen(function*() {
        const { home, workspace } = fixture()
        const marker = withMarker()
        const result = yield* run(
          { workspace, home },
          bash(
            "setsid -f sleep 300; ( ( sleep 300 & ) & ); nohup sleep 300 >/dev/null 2>&1 & setsid bash -c \"trap '' TERM; sleep 300\" & disown; echo started",
            { env: marker.env }
          )
        )
        assert.strictEqual(text(result.stdout), "started\n")
        assert.deepStrictEqual(yield* marker.survivors(), [])
      }))

    it.live("a timeout kills every process inside within the grace, and the result comes at once", () =>
      Effect.gen(function*() {
        const { home, workspace } = fixture()
        const marker = withMarker()
        // A drain bound of 30 s: a result that waited for the pipes would miss the bound of `run`.
        const result = yield* run(
          { workspace, home },
          bash(
            "setsid -f bash -c \"trap '' TERM; sleep 300\"; setsid -f sleep 300; trap '' TERM; while :; do sleep 1; done",
            { env: marker.env, timeout: 300, killGrace: 200, drainTimeout: 30_000 }
          )
        )
        assert.strictEqual(result.stopped, "timeout")
        assert.deepStrictEqual(yield* marker.survivors(), [])
        assert.isFalse(result.pipesForcedClosed)
      }))

    it.live("a graceful stop reaches the command inside: SIGTERM first", () =>
      Effect.gen(function*() {
        const { home, workspace } = fixture()
        // Stopped once its trap is set (a limit could pass before, on a loaded machine).
        const result = yield* Effect.scoped(Effect.gen(function*() {
          const runner = yield* ProcessRunner.ProcessRunner
          const running = yield* runner.start(
            bash("trap 'echo got-term; exit 0' TERM; echo ready; sleep 30 & wait", { killGrace: 2000 })
          )
          yield* waitUntil(() => running.stdout.totalBytes() > 0, "the command set its trap")
          return yield* running.stop().pipe(within(15_000, "stop() returned"))
        })).pipe(Effect.provide(runnerWith({ workspace, home })))
        assert.strictEqual(result.stopped, "stopped")
        assert.strictEqual(result.signal, null, "the trap ended the command, not a SIGKILL")
        assert.include(text(result.stdout), "got-term")
      }))

    it.live("interrupting the call kills everything inside", () =>
      Effect.gen(function*() {
        const { home, workspace } = fixture()
        const marker = withMarker()
        yield* Effect.gen(function*() {
          const runner = yield* ProcessRunner.ProcessRunner
          const up = NodePath.join(workspace, "up")
          const fiber = yield* Effect.forkDaemon(runner.run(bash(
            `setsid -f bash -c "trap '' TERM; sleep 300"; echo up > ${up}; sleep 300`,
            { env: marker.env, killGrace: 200 }
          )))
          // The escapee is forked: the interruption has something to kill.
          yield* waitUntil(() => NodeFs.existsSync(up), "the tree started")
          const exit = yield* Fiber.interrupt(fiber).pipe(within(15_000, "the interruption completed"))
          assert.isTrue(Exit.isInterrupted(exit))
        }).pipe(Effect.provide(runnerWith({ workspace, home })))
        assert.deepStrictEqual(yield* marker.survivors(), [])
      }))
  })

  it.live(
    "a runtime killed by SIGKILL takes its sandboxes with it (--die-with-parent)",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { home, workspace } = fixture()
        const marker = withMarker()
        const dir = NodeFs.mkdtempSync(NodePath.join(packageDir, "node_modules", ".sandbox-sigkill-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true })))
        const script = NodePath.join(dir, "program.ts")
        NodeFs.writeFileSync(
          script,
          [
            `import * as Effect from "effect/Effect"`,
            `import * as Layer from "effect/Layer"`,
            `import * as ProcessRunner from ${JSON.stringify(NodePath.join(packageDir, "src", "ProcessRunner.ts"))}`,
            `import * as Sandbox from ${JSON.stringify(NodePath.join(packageDir, "src", "Sandbox.ts"))}`,
            `const layer = ProcessRunner.layer.pipe(Layer.provide(Sandbox.layer(${
              JSON.stringify({ workspace, home })
            })))`,
            `Effect.runFork(Effect.scoped(Effect.gen(function*() {`,
            `  const runner = yield* ProcessRunner.ProcessRunner`,
            `  const running = yield* runner.start({ command: "bash", args: ["-c", "setsid -f sleep 300; nohup sleep 300 & echo up; sleep 300"], env: ${
              JSON.stringify(marker.env)
            } })`,
            `  while (running.stdout.totalBytes() === 0) yield* Effect.sleep("5 millis")`,
            `  console.log(running.pid)`,
            `  yield* Effect.never`,
            `}).pipe(Effect.provide(layer))))`
          ].join("\n")
        )
        const child = NodeChildProcess.spawn(process.execPath, [
          "--conditions=@tool-runtime/source",
          "--import",
          "tsx",
          script
        ], {
          cwd: packageDir,
          stdio: ["ignore", "pipe", "inherit"]
        })
        yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
        // Node and tsx take tens of seconds to start on a loaded machine.
        yield* Effect.async<void>((resume) => {
          child.stdout.once("data", () => resume(Effect.void))
        }).pipe(within(60_000, "the program started its sandbox"))
        assert.isAtLeast(processesWithEnv(`TOOL_RUNTIME_TEST_MARKER=${marker.env.TOOL_RUNTIME_TEST_MARKER}`).length, 3)
        child.kill("SIGKILL")
        // No hook of the runtime can run: the kernel and bubblewrap do it all.
        assert.deepStrictEqual(yield* marker.survivors(), [])
      })),
    90_000
  )

  describe("without a backend", () => {
    it.live("fallback refuse: the command does not run, and the error says what to install", () =>
      Effect.gen(function*() {
        const { home, outside, workspace } = fixture()
        const exit = yield* Effect.exit(
          run({ workspace, home, bwrap: "/nonexistent/bwrap" }, bash(`touch ${outside}/ran`))
        )
        assert.isTrue(Exit.isFailure(exit))
        const error = Exit.isFailure(exit) ? exit.cause : undefined
        const failure = error?._tag === "Fail" ? error.error : undefined
        assert.instanceOf(failure, ProcessRunner.SpawnError)
        assert.strictEqual(failure?.reason, "sandbox")
        assert.include(failure?.message, "apt-get install bubblewrap")
        assert.include(failure?.message, "unconfined")
        assert.isFalse(NodeFs.existsSync(NodePath.join(outside, "ran")))
      }))

    it.live("fallback unconfined: the command runs, and its result says it was not confined", () =>
      Effect.gen(function*() {
        const { home, workspace } = fixture()
        const result = yield* run(
          { workspace, home, bwrap: "/nonexistent/bwrap", fallback: "unconfined" },
          bash("echo ran")
        )
        assert.strictEqual(text(result.stdout), "ran\n")
        assert.strictEqual(result.confinement?.backend, "none")
        assert.strictEqual(result.confinement?.unconfinedBecause, "unavailable")
        assert.match(result.confinement?.summary ?? "", /^sandbox: none \(unconfined fallback: bubblewrap/)
      }))
  })
})

/**
 * The file tools against a process that swaps the workspace under them.
 *
 * A racer (python3, `renameat2(RENAME_EXCHANGE)`) flips, tens of thousands
 * of times a second, a directory, a grandparent directory and a file of the
 * workspace with symbolic links to directories outside, while every file
 * tool is called 400 times (`FILE_RACE_CALLS`; more, up to ten times as
 * many, until the race was hit both ways) on paths through them. The
 * outside holds a marker in every file and in one file's name: no result may
 * show it, no outside file may change, and no file may appear outside. The
 * counts of calls that succeeded and were refused show the race was hit both
 * ways; the racer's flip rate is printed (it depends on the machine's load,
 * so it is no verdict). Last, the walk alone (no path check in front of it)
 * is run as often: it must meet the links itself, and every descriptor it
 * hands out must be inside, by the kernel's own name for it.
 *
 * 400 calls a tool take about 20 s on a loaded two-core machine;
 * `FILE_RACE_CALLS=1000` (or more) runs a longer race.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ChildProcess from "node:child_process"
import * as NFS from "node:fs/promises"
import * as OS from "node:os"
import * as NodePath from "node:path"
import * as Readline from "node:readline"
import * as FileTools from "../src/FileTools.js"
import * as PathWalk from "../src/PathWalk.js"
import * as Workspace from "../src/Workspace.js"
import { within } from "./Processes.js"

const MARKER = "OUTSIDE-9d41c7-marker"
const CALLS = Number(process.env.FILE_RACE_CALLS ?? 400)

interface Dirs {
  readonly base: string
  readonly ws: string
  readonly outside: string
  /** Pairs the racer exchanges: the real thing, and a link to outside. */
  readonly pairs: ReadonlyArray<readonly [string, string]>
}

/**
 * base/
 *   ws/
 *     d/            f.txt w.txt e.txt      <-> d.swap -> outside/d
 *     p/q/          f.txt w.txt            <-> p.swap -> outside/p   (a grandparent)
 *     file.txt                             <-> file.swap -> outside/file.txt
 *   outside/        the same names, every file holding the marker, plus a file named after it
 */
const sandbox = Effect.acquireRelease(
  Effect.promise(async (): Promise<Dirs> => {
    const base = await NFS.realpath(await NFS.mkdtemp(NodePath.join(OS.tmpdir(), "tr-race-")))
    const ws = NodePath.join(base, "ws")
    const outside = NodePath.join(base, "outside")
    const put = async (path: string, content: string) => {
      await NFS.mkdir(NodePath.dirname(path), { recursive: true })
      await NFS.writeFile(path, content)
    }
    for (const dir of [NodePath.join(ws, "d"), NodePath.join(ws, "p", "q")]) {
      await put(NodePath.join(dir, "f.txt"), "inside\n")
      await put(NodePath.join(dir, "w.txt"), "inside\n")
      await put(NodePath.join(dir, "e.txt"), "ping\n")
    }
    await put(NodePath.join(ws, "file.txt"), "inside\n")
    for (const dir of [NodePath.join(outside, "d"), NodePath.join(outside, "p", "q")]) {
      // The same names, so a followed link finds what the call asked for.
      await put(NodePath.join(dir, "f.txt"), `${MARKER}\n`)
      await put(NodePath.join(dir, "w.txt"), `${MARKER}\n`)
      await put(NodePath.join(dir, "e.txt"), `${MARKER}\nping\npong\n`)
      await put(NodePath.join(dir, `${MARKER}.txt`), `${MARKER}\n`)
    }
    await put(NodePath.join(outside, "file.txt"), `${MARKER}\n`)
    await NFS.symlink(NodePath.join(outside, "d"), NodePath.join(ws, "d.swap"))
    await NFS.symlink(NodePath.join(outside, "p"), NodePath.join(ws, "p.swap"))
    await NFS.symlink(NodePath.join(outside, "file.txt"), NodePath.join(ws, "file.swap"))
    const pairs = (["d", "p", "file.txt"] as const).map((name) =>
      [NodePath.join(ws, name), NodePath.join(ws, name === "file.txt" ? "file.swap" : `${name}.swap`)] as const
    )
    return { base, ws, outside, pairs }
  }),
  ({ base }) => Effect.promise(() => NFS.rm(base, { recursive: true, force: true }))
)

/** Every file below `dir` with its content and change time: what "unchanged" means. */
const inventory = async (dir: string): Promise<Record<string, string>> => {
  const out: Record<string, string> = {}
  for (const entry of await NFS.readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = NodePath.join(entry.parentPath, entry.name)
    const stats = await NFS.lstat(path)
    const content = entry.isFile() ? await NFS.readFile(path, "utf8") : entry.isDirectory() ? "<dir>" : "<other>"
    out[NodePath.relative(dir, path)] = `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${content}`
  }
  return out
}

interface Racer {
  /** Stops the racer and returns its flips per second. */
  readonly stop: Effect.Effect<{ readonly flips: number; readonly seconds: number }, Error>
}

const racer = (pairs: ReadonlyArray<readonly [string, string]>) =>
  Effect.acquireRelease(
    Effect.async<{ readonly child: ChildProcess.ChildProcess; readonly lines: AsyncIterator<string> }, Error>(
      (resume) => {
        const script = NodePath.join(import.meta.dirname, "fixtures", "race", "racer.py")
        const child = ChildProcess.spawn("python3", [script, ...pairs.flat()], { stdio: ["ignore", "pipe", "inherit"] })
        const lines = Readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
        child.once("error", (error) => resume(Effect.fail(error)))
        void lines.next().then((first) =>
          first.value === "ready"
            ? resume(Effect.succeed({ child, lines }))
            : resume(Effect.fail(new Error(`racer did not start: ${String(first.value)}`)))
        )
      }
    ).pipe(within(30_000, "the racer started")),
    ({ child }) => Effect.sync(() => child.kill("SIGKILL"))
  ).pipe(Effect.map(({ child, lines }): Racer => ({
    stop: Effect.promise(async () => {
      child.kill("SIGTERM")
      const last = await lines.next()
      const [flips, seconds] = String(last.value).split(" ").map(Number)
      return { flips: flips!, seconds: seconds! }
    }).pipe(within(10_000, "the racer reported its flips at SIGTERM"))
  })))

type Outcome = "ok" | "refused before" | "refused in the handler"

const outcomeOf = (result: ToolResult.ToolResult): Outcome =>
  !result.isError ? "ok" : result.error?.code === "rule_violation" ? "refused before" : "refused in the handler"

/**
 * What each tool is asked, call `i`: paths through the swapped directory, grandparent and file. Creating
 * comes last, so the searches do not walk a thousand new files.
 */
const plans: ReadonlyArray<
  { readonly tool: string; readonly input: (i: number, state: Map<string, string>) => object }
> = [
  { tool: "read_file", input: (i) => ({ path: ["d/f.txt", "p/q/f.txt", "file.txt"][i % 3]! }) },
  { tool: "list_directory", input: (i) => ({ path: ["d", "p/q", "p", "."][i % 4]! }) },
  { tool: "glob", input: (i) => ({ pattern: "**", path: ["d", "p", "."][i % 3]! }) },
  { tool: "grep", input: (i) => ({ pattern: "inside|OUTSIDE|ping|pong", path: ["d", "p", ".", "d/f.txt"][i % 4]! }) },
  { tool: "write_file (overwrite)", input: (i) => ({ path: `${["d", "p/q"][i % 2]}/w.txt`, content: `w ${i}\n` }) },
  {
    tool: "edit_file",
    input: (i, state) => {
      const path = `${["d", "p/q"][i % 2]}/e.txt`
      const now = state.get(path) ?? "ping"
      return { path, old_string: now, new_string: now === "ping" ? "pong" : "ping" }
    }
  },
  { tool: "write_file (create)", input: (i) => ({ path: `${["d", "p/q"][i % 2]}/new-${i}.txt`, content: "new\n" }) }
]

const toolName = (plan: string) => plan.split(" ")[0]!

/**
 * Why a call was refused after its path check passed: the handler's second
 * check or its walk met the swapped state ("link at open" is the walk's
 * `O_NOFOLLOW` open, nothing else).
 */
const reasonOf = (text: string): string =>
  /through a symbolic link/.test(text)
    ? "link outside"
    : /led to another file/.test(text)
    ? "link changed"
    : /replaced by a symbolic link/.test(text)
    ? "link at open"
    : /too many symbolic links/.test(text)
    ? "flipping"
    : /moved out of the workspace/.test(text)
    ? "moved out"
    : /no such file/.test(text)
    ? "missing"
    : text.slice(0, 80)

/** The descriptors this process holds open. */
const openDescriptors = Effect.promise(() => NFS.readdir("/proc/self/fd")).pipe(Effect.map((fds) => fds.length))

describe("file tools under a swapping racer", () => {
  it.live.skipIf(process.platform !== "linux")(
    "no call reads, writes or creates anything outside the workspace",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const dirs = yield* sandbox
        const before = yield* Effect.promise(() => inventory(dirs.outside))
        const runtime = yield* ToolRuntime.ToolRuntime.pipe(
          Effect.provide(
            ToolRuntime.layer().pipe(
              Layer.provide(Registry.layer(FileTools.all())),
              Layer.provide([
                ArtifactStore.layerMemory(),
                Redactor.layerDefault,
                Policy.layerAllowAll,
                Workspace.layer(dirs.ws),
                NodeFileSystem.layer
              ])
            )
          )
        )
        const race = yield* racer(dirs.pairs)
        const descriptors = yield* openDescriptors
        const tally: Array<string> = []
        const leaks: Array<string> = []
        const started = performance.now()
        for (const plan of plans) {
          const counts: Record<Outcome, number> = { "ok": 0, "refused before": 0, "refused in the handler": 0 }
          const state = new Map<string, string>()
          const reasons = new Map<string, number>()
          const from = performance.now()
          // At least CALLS calls, and on (up to ten times as many) until the race was
          // hit both ways: on a loaded machine the racer can win every one of the first
          // CALLS, which says nothing about the tool and must not fail the test.
          const refused = () => counts["refused before"] + counts["refused in the handler"]
          for (let i = 0; i < CALLS || (i < 10 * CALLS && (counts.ok === 0 || refused() === 0)); i++) {
            const input = plan.input(i, state)
            const result = yield* runtime.runCall({ id: `${i}`, name: toolName(plan.tool), input })
            const text = ToolResult.text(result)
            const outcome = outcomeOf(result)
            counts[outcome]++
            if (outcome === "refused in the handler") {
              const reason = reasonOf(text)
              reasons.set(reason, (reasons.get(reason) ?? 0) + 1)
            }
            if (text.includes(MARKER)) leaks.push(`${plan.tool} ${JSON.stringify(input)}: ${text.slice(0, 300)}`)
            if (plan.tool === "edit_file" && outcome === "ok" && "path" in input && "new_string" in input) {
              state.set(String(input.path), String(input.new_string))
            }
          }
          tally.push(
            `${plan.tool.padEnd(23)}${String(counts.ok).padStart(5)} ok${
              String(counts["refused before"]).padStart(5)
            } refused by the path check${String(counts["refused in the handler"]).padStart(5)} in the handler (${
              Array.from(reasons, ([reason, n]) => `${reason} ${n}`).join(", ")
            }) in ${((performance.now() - from) / 1000).toFixed(1)} s`
          )
          // The race was hit both ways: some calls got through, some met a link.
          assert.isAbove(counts.ok, 0, `${plan.tool}: no call succeeded`)
          assert.isAbove(refused(), 0, `${plan.tool}: no call was refused`)
        }
        // The walk itself, without the path checks in front of it: it meets the links, refuses them,
        // and whatever it opens is inside.
        const walks = { inside: 0, refused: 0 }
        for (let i = 0; i < CALLS || (i < 10 * CALLS && (walks.refused === 0 || walks.inside === 0)); i++) {
          const path = ["d/f.txt", "p/q/f.txt", "file.txt"][i % 3]!
          const opened = yield* Effect.either(Effect.scoped(
            Effect.flatMap(PathWalk.entry(dirs.ws, path), (found) =>
              Effect.flatMap(PathWalk.openFile(found.parent, found.name), ({ handle }) =>
                Effect.promise(async () => ({
                  real: found.real,
                  kernel: await NFS.readlink(`/proc/self/fd/${handle.fd}`),
                  content: await NFS.readFile(`/proc/self/fd/${handle.fd}`, "utf8")
                }))))
          ))
          if (opened._tag === "Left") {
            walks.refused++
            continue
          }
          walks.inside++
          assert.isTrue(Workspace.isInside(dirs.ws, opened.right.kernel), opened.right.kernel)
          assert.notInclude(opened.right.content, MARKER)
          assert.strictEqual(opened.right.real, NodePath.join(dirs.ws, path))
        }
        tally.push(
          `${"PathWalk.entry + open".padEnd(23)}${String(walks.inside).padStart(5)} inside ${walks.refused} refused`
        )
        assert.isAbove(walks.refused, 0, "the walk never met a swapped link")
        assert.isAbove(walks.inside, 0, "the walk never got through")
        const elapsed = (performance.now() - started) / 1000
        // Every descriptor a walk opened was closed again, refused calls' included.
        assert.strictEqual(yield* openDescriptors, descriptors, "descriptors leaked")
        // What the race meant is the counts above (calls got through, calls met a link): the rate is a figure.
        const { flips, seconds } = yield* race.stop
        const rate = Math.round(flips / seconds)
        console.log(
          `racer: ${flips.toLocaleString("en-US")} flips in ${seconds.toFixed(1)} s (${
            rate.toLocaleString("en-US")
          }/s); ${plans.length} tools x ${CALLS} calls, then ${CALLS} bare walks, in ${elapsed.toFixed(1)} s\n${
            tally.join("\n")
          }`
        )
        assert.deepStrictEqual(leaks, [], "a result showed outside content or names")
        assert.deepStrictEqual(
          yield* Effect.promise(() =>
            inventory(dirs.outside)
          ),
          before,
          "outside changed"
        )
        // A failed write removes its temporary file, and never leaves one elsewhere.
        const leftovers = (yield* Effect.promise(() => NFS.readdir(dirs.base, { recursive: true }))).filter((path) =>
          path.endsWith(".tmp")
        )
        assert.deepStrictEqual(leftovers, [])
      })),
    180_000
  )
})

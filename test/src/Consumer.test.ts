/**
 * The packages as a user gets them: built with `tsc -b`, packed, installed
 * with plain npm into a fresh app outside the workspace, and used there
 * without tsx or a bundler. This is what the workspace's own tests cannot
 * see: they resolve every `@tool-runtime/*` import to its TypeScript source.
 *
 * - the README's install lines, run as written in empty folders with npm's
 *   current tags, give apps that run the quick start and the coding agent;
 * - the quick-start program (`test/consumer/agent.mjs`) runs under plain
 *   `node` 20, 22 and 24 (the last two are registry packages, cached in
 *   `node_modules/.cache/node-versions`), with no warning on stderr;
 * - the same file type-checks under a strict NodeNext config with
 *   `skipLibCheck: false`, together with an import of every public module;
 * - installed next to an app pinned to the lowest `effect` the packages
 *   claim, exactly one copy of `effect` is installed, and the program runs;
 * - each tarball holds only what a user needs.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { cleanEnv, MINUTE, nodeBinary, npm, root, run, runOk } from "./Processes.js"

const packages = ["redact", "core", "node", "permissions", "providers", "mcp", "ai"] as const
const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-runtime-consumer-"))
const tarballs = Path.join(work, "tarballs")

interface Manifest {
  readonly name: string
  readonly version: string
  readonly peerDependencies?: Record<string, string>
}

const manifest = (name: (typeof packages)[number]): Manifest =>
  JSON.parse(Fs.readFileSync(Path.join(root, "packages", name, "package.json"), "utf8"))

/** Orders x.y.z versions. */
const compare = (a: string, b: string): number => {
  const [x, y] = [a.split(".").map(Number), b.split(".").map(Number)]
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!
  return 0
}

/** The lowest version a range such as `^3.22.2` admits. */
const floor = (range: string): string => {
  const match = /^\^(\d+\.\d+\.\d+)$/.exec(range)
  assert.isNotNull(match, `peer range ${range} is not of the form ^x.y.z`)
  return match![1]!
}

let built: Promise<Record<string, string>> | undefined
/**
 * Packs every package once per test file, from an unbuilt tree: each
 * package's `prepack` (scripts/prepack.mjs) must build it from scratch, as
 * `pnpm pack` or `pnpm publish` in a fresh clone would. The tarball of each
 * package by name.
 */
const packed = () =>
  built ??= Promise.resolve().then(async () => {
    for (const name of packages) {
      for (const output of ["dist", "build"]) {
        Fs.rmSync(Path.join(root, "packages", name, output), { recursive: true, force: true })
      }
    }
    Fs.mkdirSync(tarballs, { recursive: true })
    const byName: Record<string, string> = {}
    for (const name of packages) {
      const dir = Path.join(root, "packages", name)
      const before = new Set(Fs.readdirSync(tarballs))
      await runOk("npx", ["--yes", "pnpm@10", "pack", "--pack-destination", tarballs], dir)
      const created = Fs.readdirSync(tarballs).filter((file) => !before.has(file))
      assert.lengthOf(created, 1)
      byName[manifest(name).name] = Path.join(tarballs, created[0]!)
    }
    return byName
  })

/** A fresh app outside the workspace with the given packages installed by plain npm. */
const app = async (
  name: string,
  options: {
    /** `undefined`: no `effect` at all (a package that needs none). */
    readonly effect: string | undefined
    readonly packages: ReadonlyArray<string>
    readonly extra?: Record<string, string>
    readonly dev?: Record<string, string>
  }
) => {
  const files = await packed()
  const dir = Path.join(work, name)
  Fs.mkdirSync(dir, { recursive: true })
  const dependencies: Record<string, string> = {
    ...(options.effect === undefined ? {} : { effect: options.effect }),
    ...options.extra
  }
  for (const pkg of options.packages) dependencies[pkg] = `file:${files[pkg]}`
  Fs.writeFileSync(
    Path.join(dir, "package.json"),
    JSON.stringify({ name, private: true, type: "module", dependencies, devDependencies: options.dev ?? {} }, null, 2)
  )
  Fs.copyFileSync(Path.join(root, "test/consumer/agent.mjs"), Path.join(dir, "agent.mjs"))
  await npm(["install"], dir)
  return dir
}

/** Every installed copy of `effect` under an app, by version. */
const effectCopies = (dir: string): Array<string> => {
  const found: Array<string> = []
  const walk = (modules: string) => {
    if (!Fs.existsSync(modules)) return
    for (const entry of Fs.readdirSync(modules)) {
      const path = Path.join(modules, entry)
      if (entry.startsWith("@")) {
        for (const scoped of Fs.readdirSync(path)) walk(Path.join(path, scoped, "node_modules"))
        continue
      }
      if (entry === "effect") found.push(JSON.parse(Fs.readFileSync(Path.join(path, "package.json"), "utf8")).version)
      walk(Path.join(path, "node_modules"))
    }
  }
  walk(Path.join(dir, "node_modules"))
  return found
}

/** Runs the quick start with a Node binary and checks every result the way the README describes it. */
const runAgent = async (node: string, dir: string) => {
  const result = await run(node, ["agent.mjs"], dir, MINUTE)
  assert.strictEqual(result.status, 0, result.stderr)
  // A second copy of effect would print "Executing an Effect versioned …" here.
  assert.strictEqual(result.stderr, "")
  const results = result.stdout.trim().split("\n").map((line) => JSON.parse(line))
  assert.deepStrictEqual(
    results.map((r) => [r.id, r.isError, r.code ?? null]),
    [
      ["call_1", false, null],
      ["call_2", true, "rule_violation"],
      ["call_3", true, "invalid_arguments"],
      ["call_4", true, "unknown_tool"]
    ]
  )
  assert.strictEqual(results[0].text, "{\"orderId\":\"A-1001\",\"status\":\"shipped\"}")
  assert.include(results[1].text, "a refund is between 0 and 100")
  assert.include(results[2].text, "orderId: Expected string, actual 7")
  assert.include(results[3].text, "There is no tool named \"cancel_order\"")
}

/** Runs the coding example: the write lands, the command is confined, the agent's key stays out. */
const runCoding = async (node: string, dir: string) => {
  const key = "sk-ant-api03-" + "consumer".repeat(8)
  const result = await run(node, ["coding.mjs"], dir, MINUTE, { ...cleanEnv(), ANTHROPIC_API_KEY: key })
  assert.strictEqual(result.status, 0, result.stderr)
  assert.strictEqual(result.stderr, "")
  const results = result.stdout.trim().split("\n").map((line) => JSON.parse(line))
  assert.deepStrictEqual(results.map((r) => [r.id, r.isError]), [["call_1", false], ["call_2", true], [
    "call_3",
    false
  ]])
  assert.include(results[1].text, "hello")
  assert.include(results[1].text, "Read-only file system")
  assert.include(results[1].text, "sandbox: workspace-write (bubblewrap)")
  assert.notInclude(result.stdout, key.slice(20, 28))
  assert.include(results[2].text, "withheld")
}

/**
 * The README's install lines (the `npm i` commands of its Install section),
 * as lists of what they name.
 */
const readmeInstallLines = (): ReadonlyArray<ReadonlyArray<string>> => {
  const readme = Fs.readFileSync(Path.join(root, "README.md"), "utf8")
  const section = readme.slice(readme.indexOf("## Install"), readme.indexOf("### Quick start"))
  return [...section.matchAll(/^npm i (.+)$/gm)].map((match) => match[1]!.trim().split(/\s+/))
}

/** A package's own packages, with those they depend on or peer with (none of them is on the registry yet). */
const withOwnPackages = (names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const byName = new Map(packages.map((name) => [manifest(name).name, name] as const))
  const seen = new Set<string>()
  const visit = (name: string) => {
    if (seen.has(name)) return
    seen.add(name)
    const dir = byName.get(name)
    if (dir === undefined) return
    const json = JSON.parse(Fs.readFileSync(Path.join(root, "packages", dir, "package.json"), "utf8"))
    for (const dep of Object.keys({ ...json.dependencies, ...json.peerDependencies })) {
      if (dep.startsWith("@tool-runtime/")) visit(dep)
    }
  }
  for (const name of names) visit(name)
  return [...seen]
}

/** An empty folder where `npm i` runs the README's line, our packages taken from their tarballs. */
const installedAsReadmeSays = async (name: string, line: ReadonlyArray<string>) => {
  const files = await packed()
  const dir = Path.join(work, name)
  Fs.mkdirSync(dir, { recursive: true })
  await npm(["init", "-y"], dir)
  const ours = withOwnPackages(line.filter((spec) => spec.startsWith("@tool-runtime/")))
  await npm(
    ["install", ...line.filter((spec) => !spec.startsWith("@tool-runtime/")), ...ours.map((p) => files[p]!)],
    dir
  )
  return dir
}

const allPackages = packages.map((name) => manifest(name).name)
let fullApp: Promise<string> | undefined
const full = () =>
  fullApp ??= app("full", {
    effect: "^3.22.4",
    packages: allPackages,
    // The optional peer of `@tool-runtime/ai/AnthropicToolResults`, which the type check imports, and
    // the file system the coding example provides.
    extra: { "@effect/ai-anthropic": "^0.27.0", "@effect/platform-node": "^0.108.2" },
    dev: { "@types/node": "^20" }
  })

describe("the packed packages in a fresh app", { timeout: 15 * MINUTE }, () => {
  // Removing the installed apps takes more than the default 30 s on a loaded machine.
  afterAll(() => Fs.rmSync(work, { recursive: true, force: true }), 5 * MINUTE)

  it("hold only what a user needs, and one version for all", async () => {
    const files = await packed()
    const versions = new Set(packages.map((name) => manifest(name).version))
    assert.strictEqual(versions.size, 1)
    for (const [name, tarball] of Object.entries(files)) {
      const listing = (await runOk("tar", ["-tzf", tarball], work)).stdout.trim().split("\n")
        .map((entry) => entry.replace(/^package\//, ""))
      const unexpected = listing.filter((file) =>
        !/^(dist\/[\w.]+\.(js|d\.ts)(\.map)?|src\/\w+\.ts|README\.md|LICENSE|package\.json)$/.test(file) &&
        !(name === "@tool-runtime/permissions" && /^grammar\/(tree-sitter-bash\.wasm|LICENSE|README\.md)$/.test(file))
      )
      assert.deepStrictEqual(unexpected, [], name)
      for (const file of listing.filter((file) => file.startsWith("src/"))) {
        const module = file.slice("src/".length, -".ts".length)
        for (const built of [`dist/${module}.js`, `dist/${module}.d.ts`]) assert.include(listing, built, name)
      }
      // What a user's resolver reads: no workspace protocol, no path into src by default.
      const packedManifest = JSON.parse((await runOk("tar", ["-xzOf", tarball, "package/package.json"], work)).stdout)
      assert.notInclude(JSON.stringify(packedManifest), "workspace:", name)
      assert.strictEqual(packedManifest.exports["."].default, "./dist/index.js", name)
    }
  })

  it("document nothing as newer than the package it is in (@since)", () => {
    for (const name of packages) {
      const { version } = manifest(name)
      const src = Path.join(root, "packages", name, "src")
      for (const file of Fs.readdirSync(src)) {
        for (const [, since] of Fs.readFileSync(Path.join(src, file), "utf8").matchAll(/@since (\d+\.\d+\.\d+)/g)) {
          assert.isAtMost(compare(since!, version), 0, `${name}/src/${file}: @since ${since} is ahead of ${version}`)
        }
      }
    }
  })

  it("run the quick start under plain node 20", async () => {
    await runAgent(process.execPath, await full())
  })

  it("load the bash grammar of the permission engine from the installed packages", async () => {
    const dir = await full()
    // The WebAssembly grammar ships in npm packages: it must resolve and load outside the workspace.
    Fs.writeFileSync(
      Path.join(dir, "grammar.mjs"),
      [
        `import { CommandLine } from "@tool-runtime/permissions"`,
        `import { Effect } from "effect"`,
        `const { analyse } = await Effect.runPromise(CommandLine.make)`,
        `const a = analyse("npm test && $'\\x72m' -rf /")`,
        `console.log(JSON.stringify({ simple: a.simple, readings: a.readings }))`
      ].join("\n")
    )
    // Only the grammar's WebAssembly ships (vendored in the package), not tree-sitter-bash's
    // sources, native prebuilds and install script.
    assert.isFalse(Fs.existsSync(Path.join(dir, "node_modules/tree-sitter-bash")), "tree-sitter-bash is installed")
    assert.isTrue(
      Fs.existsSync(Path.join(dir, "node_modules/@tool-runtime/permissions/grammar/tree-sitter-bash.wasm")),
      "the vendored grammar is not installed"
    )
    const result = await run(process.execPath, ["--liftoff-only", "grammar.mjs"], dir, MINUTE)
    assert.strictEqual(result.status, 0, result.stderr)
    assert.deepStrictEqual(JSON.parse(result.stdout), {
      simple: false,
      readings: [["npm", "test"], ["rm", "-rf", "/"]]
    })
  })

  it("work as the README's install lines leave them, with npm's current tags: the quick start and the coding agent", async () => {
    const lines = readmeInstallLines()
    assert.lengthOf(lines, 2)
    const [core, coding] = lines
    assert.include(core!, "effect@3")
    const quick = await installedAsReadmeSays("readme-core", core!)
    Fs.copyFileSync(Path.join(root, "test/consumer/agent.mjs"), Path.join(quick, "agent.mjs"))
    await runAgent(process.execPath, quick)
    const dir = await installedAsReadmeSays("readme-coding", coding!)
    assert.deepStrictEqual(effectCopies(dir).map((version) => version.split(".")[0]), ["3"])
    Fs.copyFileSync(Path.join(root, "test/consumer/coding.mjs"), Path.join(dir, "coding.mjs"))
    await runCoding(process.execPath, dir)
  })

  it("run the README's coding agent (NodeTools.layer) under plain node 20", async () => {
    const dir = await full()
    Fs.copyFileSync(Path.join(root, "test/consumer/coding.mjs"), Path.join(dir, "coding.mjs"))
    await runCoding(process.execPath, dir)
  })

  for (const major of [22, 24]) {
    it(`run the quick start under plain node ${major}`, async () => {
      await runAgent(await nodeBinary(major), await full())
    })
  }

  it("type-check under a strict NodeNext config without skipLibCheck", async () => {
    const dir = await full()
    const modules: Array<string> = []
    for (const name of allPackages) {
      const dist = Path.join(dir, "node_modules", name, "dist")
      for (const file of Fs.readdirSync(dist).filter((f) => f.endsWith(".d.ts")).sort()) {
        const module = file.slice(0, -".d.ts".length)
        modules.push(`${name}${module === "index" ? "" : `/${module}`}`)
      }
    }
    assert.isAbove(modules.length, 50)
    Fs.writeFileSync(
      Path.join(dir, "everything.mts"),
      modules.map((module, i) => `import type * as M${i} from ${JSON.stringify(module)}\n`).join("") +
        `export type All = [${modules.map((_, i) => `typeof M${i}`).join(", ")}]\n`
    )
    Fs.copyFileSync(Path.join(dir, "agent.mjs"), Path.join(dir, "agent.mts"))
    Fs.copyFileSync(Path.join(root, "test/consumer/coding.mjs"), Path.join(dir, "coding.mts"))
    Fs.writeFileSync(
      Path.join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          exactOptionalPropertyTypes: true,
          noPropertyAccessFromIndexSignature: true,
          noUncheckedIndexedAccess: true,
          noImplicitOverride: true,
          verbatimModuleSyntax: true,
          erasableSyntaxOnly: true,
          isolatedModules: true,
          skipLibCheck: false,
          noEmit: true,
          types: ["node"]
        },
        files: ["agent.mts", "coding.mts", "everything.mts"]
      })
    )
    const result = await run(process.execPath, [Path.join(root, "node_modules/typescript/bin/tsc"), "-p", "."], dir)
    assert.strictEqual(result.stdout + result.stderr, "")
    assert.strictEqual(result.status, 0)
  })

  it("let @tool-runtime/redact clean text on its own, in an app with no effect at all", async () => {
    const dir = await app("redact-alone", { effect: undefined, packages: ["@tool-runtime/redact"] })
    assert.deepStrictEqual(effectCopies(dir), [])
    Fs.writeFileSync(
      Path.join(dir, "clean.mjs"),
      [
        `import { Redactor } from "@tool-runtime/redact"`,
        `const redactor = Redactor.make()`,
        `const token = "gh" + "p_" + "${"a1B2c3D4e5".repeat(3)}Zq9Xw7"`,
        `const stream = redactor.stream()`,
        `const streamed = stream.push("tok" + "en=" + token.slice(0, 9)).text + stream.push(token.slice(9)).text + stream.end().text`,
        `console.log(JSON.stringify([redactor.redact("DB_PASSWORD=kX9pQ2vL8mN3wR7t mail bob@corp.io").text, streamed]))`
      ].join("\n")
    )
    const result = await run(process.execPath, ["clean.mjs"], dir, MINUTE)
    assert.strictEqual(result.status, 0, result.stderr)
    assert.deepStrictEqual(JSON.parse(result.stdout), [
      "DB_PASSWORD=[REDACTED:secret-assignment] mail [REDACTED:email]",
      "token=[REDACTED:github-token]"
    ])
  })

  // One app per distinct lowest `effect`: the packages that claim it (or less), pinned to exactly it,
  // with the packages they depend on (core depends on redact, which needs no effect).
  const peers = packages.filter((name) => manifest(name).peerDependencies?.["effect"] !== undefined)
  const floors = [...new Set(peers.map((name) => floor(manifest(name).peerDependencies!["effect"]!)))].sort(compare)
  for (const lowest of floors) {
    const claiming = peers.filter((name) => compare(floor(manifest(name).peerDependencies!["effect"]!), lowest) <= 0)
    it(`install one copy of effect ${lowest} next to an app pinned to it (${claiming.join(", ")})`, async () => {
      const dir = await app(`effect-${lowest}`, {
        effect: lowest,
        packages: (["redact", ...claiming] as const).map((name) => manifest(name).name)
      })
      assert.deepStrictEqual(effectCopies(dir), [lowest])
      await runAgent(process.execPath, dir)
    })
  }
})

/**
 * The differential law against a real bash: whenever the engine allows a
 * command line without asking, every command bash actually starts for it is
 * one the allow rules cover.
 *
 * Lines come from a fast-check grammar of shell constructs (ShellGrammar);
 * bash runs them in a sandbox where every command on PATH only logs its argv
 * (BashOracle). `DIFFERENTIAL_LINES` sets how many the engine judges
 * (default 20,000 under CI, else 5,000); bash runs every line the engine
 * allows in either mode and `DIFFERENTIAL_OTHERS` (default 10,000) of the
 * rest, for the count of denied commands bash ran that the engine did not
 * deny, and of the lines bash shows harmless (every command it started is
 * covered) that the engine still asked about (reported, not asserted).
 * `DIFFERENTIAL_SEED` pins the second, random, seed.
 */
import * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import { assert, describe, it } from "@effect/vitest"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as NodeFs from "node:fs/promises"
import * as Path from "node:path"
import type * as Approver from "../src/Approver.js"
import * as ApproverTag from "../src/Approver.js"
import * as Engine from "../src/Engine.js"
import type * as Mode from "../src/Mode.js"
import type * as PermissionAudit from "../src/PermissionAudit.js"
import * as ReadOnlyCommands from "../src/ReadOnlyCommands.js"
import * as Rule from "../src/Rule.js"
import * as BashOracle from "./differential/BashOracle.js"
import * as ShellGrammar from "./differential/ShellGrammar.js"
import { bash, workspaceRoot } from "./SampleTools.js"

const allow = [
  "Bash(ls:*)",
  "Bash(git status)",
  "Bash(npm test:*)",
  "Bash(printf:*)",
  "Bash(test:*)",
  "Bash(echo:*)",
  "Bash(cat:*)",
  "Bash(find:*)",
  "Bash(grep:*)",
  "Bash(watch:*)",
  "Bash(tee:*)",
  "Bash(make)"
]
const deny = ["Bash(rm:*)", "Bash(curl:*)"]

const patternsOf = (rules: ReadonlyArray<string>): ReadonlyArray<Rule.CommandPattern> =>
  rules.map((text) => {
    const rule = Either.getOrThrow(Rule.parse(text))
    return Either.getOrThrow(Rule.commandPattern(rule.specifier!))
  })
// The read-only commands the engine allows without a rule are allow rules too.
const allowPatterns = patternsOf([...allow, ...ReadOnlyCommands.rules])
const denyPatterns = patternsOf(deny)

const covered = (patterns: ReadonlyArray<Rule.CommandPattern>, argv: ReadonlyArray<string>) =>
  patterns.some((pattern) => Rule.matchesCommand(pattern, argv))

/** A deny rule names the command whether bash found it on PATH or was given its path. */
const denied = (argv: ReadonlyArray<string>) =>
  covered(denyPatterns, argv) || covered(denyPatterns, [argv[0]!.replace(/^.*\//, ""), ...argv.slice(1)])

// 20,000 under CI: since the engine follows links for every path a line
// names (69fa20d), this test's engine side costs about 12 ms a line here
// (through the real file system), and 100,000 lines came near the timeout.
// DIFFERENTIAL_LINES=100000 runs the full count.
const lineCount = Number(process.env.DIFFERENTIAL_LINES ?? (process.env.CI ? 20_000 : 5_000))
const fixedSeed = 20_250_601
const randomSeed = process.env.DIFFERENTIAL_SEED !== undefined
  ? Number(process.env.DIFFERENTIAL_SEED)
  : Crypto.randomInt(2 ** 31 - 1)
// Bash, not the engine, is the slow side: about 5 ms a line a core here. The
// bound says whether the run ended, not how fast: with a second suite running
// beside it, the 20,000 lines took 594 s in one run and passed 600 s in the
// other (bash alone 473 s), which failed a suite whose every verdict held.
// Three times the loaded figure.
const timeout = Math.max(1_800_000, lineCount * 90)

const lines: ReadonlyArray<string> = [
  ...ShellGrammar.sample(Math.ceil(lineCount / 2), fixedSeed),
  ...ShellGrammar.sample(Math.floor(lineCount / 2), randomSeed).slice(ShellGrammar.knownEvasions.length),
  ...ShellGrammar.knownEvasions
].slice(0, lineCount)

const unavailable = await BashOracle.unavailable()
if (unavailable !== undefined) console.warn(`differential test skipped: ${unavailable}`)

/**
 * Bash is the slow side (about 4 ms a line on two cores), and the law is
 * about allowed lines only: bash runs every line either mode allows, and a
 * fixed sample of the others, for the count of deny rules the engine missed.
 */
const sampledOthers = Number(process.env.DIFFERENTIAL_OTHERS ?? 10_000)
/** `DIFFERENTIAL_DUMP`: a directory to write every missed deny and needless question to, one a line. */
const dumpDir = process.env.DIFFERENTIAL_DUMP

let oracle:
  | Promise<{ readonly results: ReadonlyMap<number, BashOracle.LineResult>; readonly seconds: number }>
  | undefined
const oracleResults = (allowedSomewhere: ReadonlySet<number>) => {
  if (oracle === undefined) {
    const start = performance.now()
    const others = lines.length - allowedSomewhere.size
    const every = Math.max(1, Math.ceil(others / sampledOthers))
    const picked: Array<number> = []
    let other = 0
    for (let i = 0; i < lines.length; i++) {
      if (allowedSomewhere.has(i) || other++ % every === 0) picked.push(i)
    }
    oracle = BashOracle.runPromise(picked.map((i) => lines[i]!), { parallel: 2 }).then((results) => ({
      results: new Map(results.map((result, j) => [picked[j]!, result])),
      seconds: (performance.now() - start) / 1000
    }))
  }
  return oracle
}

/** What the engine reads of the file system: where symbolic links lead. */
const links = (method: string, path: string, run: () => Promise<string>) =>
  Effect.tryPromise({
    try: run,
    catch: (cause) =>
      new PlatformError.SystemError({ reason: "Unknown", module: "FileSystem", method, pathOrDescriptor: path, cause })
  })
const fileSystem = FileSystem.makeNoop({
  readLink: (path) => links("readLink", path, () => NodeFs.readlink(path)),
  realPath: (path) => links("realPath", path, () => NodeFs.realpath(path))
})

const verdictsByMode = new Map<Mode.Mode, ReadonlyArray<"allow" | "deny" | "ask">>()

/** Whether the engine allows each line without asking anyone. */
const engineAllows = (mode: Mode.Mode) =>
  Effect.gen(function*() {
    let asked = 0
    const seen: { last: PermissionAudit.Decision | undefined } = { last: undefined }
    const approver: Approver.Service = {
      ask: () => {
        asked++
        return Effect.succeed(ApproverTag.deny("the differential test never approves"))
      }
    }
    const engine = yield* Engine.make({
      workspaceRoot,
      mode,
      allow,
      deny,
      onDecision: (decision) =>
        Effect.sync(() => {
          seen.last = decision
        })
    }).pipe(
      Effect.provideService(ApproverTag.Approver, approver),
      Effect.provideService(Redactor.Redactor, Redactor.make()),
      Effect.provideService(FileSystem.FileSystem, fileSystem)
    )
    const verdicts: Array<"allow" | "deny" | "ask"> = []
    for (let i = 0; i < lines.length; i++) {
      const command = lines[i]!
      const before = asked
      seen.last = undefined
      const exit = yield* Effect.exit(engine.authorize({
        callId: `differential_${i}`,
        tool: bash,
        input: { command },
        subject: { _tag: "Command", command }
      }))
      verdicts.push(
        asked > before
          ? "ask"
          : Exit.isSuccess(exit) && (seen.last as PermissionAudit.Decision | undefined)?.outcome !== "deny"
          ? "allow"
          : "deny"
      )
    }
    return verdicts
  })

const show = (line: string, execs: ReadonlyArray<BashOracle.Exec>) =>
  `${JSON.stringify(line)} started ${JSON.stringify(execs.filter((e) => !e.transparent).map((e) => e.argv))}`

describe("Differential against bash", () => {
  for (const mode of ["default", "dontAsk"] as const) {
    it.effect.skipIf(unavailable !== undefined)(
      `in ${mode} mode, every command bash starts for an allowed line is covered by an allow rule`,
      () =>
        Effect.gen(function*() {
          const start = performance.now()
          // Both modes' verdicts first: bash then runs what either allows.
          for (const m of ["default", "dontAsk"] as const) {
            if (!verdictsByMode.has(m)) verdictsByMode.set(m, yield* engineAllows(m))
          }
          const verdicts = verdictsByMode.get(mode)!
          const engineSeconds = (performance.now() - start) / 1000
          const allowedSomewhere = new Set<number>()
          for (const all of verdictsByMode.values()) all.forEach((v, i) => v === "allow" && allowedSomewhere.add(i))
          const { results, seconds: oracleSeconds } = yield* Effect.promise(() => oracleResults(allowedSomewhere))
          const wrong: Array<string> = []
          const missed: Array<string> = []
          const needless: Array<string> = []
          const falseDenies: Array<string> = []
          let allowed = 0
          let unjudged = 0
          for (let i = 0; i < lines.length; i++) {
            const result = results.get(i)
            if (verdicts[i] === "allow") {
              allowed++
              if (result?.status === undefined) unjudged++
              if (
                result !== undefined &&
                result.execs.some((exec) => !exec.transparent && !covered(allowPatterns, exec.argv))
              ) {
                wrong.push(show(result.line, result.execs))
              }
            }
            if (
              result !== undefined && verdicts[i] !== "deny" &&
              result.execs.some((exec) => !exec.transparent && denied(exec.argv))
            ) {
              missed.push(show(result.line, result.execs))
            }
            // Bash ran the line to its end and started only what the allow
            // rules cover, yet the engine asked: a question the person did
            // not need (some still needed: bash saw one environment only).
            if (
              verdicts[i] === "ask" && result !== undefined && result.status !== undefined && result.status !== 137 &&
              result.execs.every((exec) => exec.transparent || covered(allowPatterns, exec.argv))
            ) {
              needless.push(show(result.line, result.execs))
            }
            // Denied although bash started no denied command. The stubs are leaves (`find -exec rm`
            // logs find only), so some of these are real denies bash could not show.
            if (
              verdicts[i] === "deny" && result !== undefined && result.status !== undefined &&
              result.status !== 137 && !result.execs.some((exec) => !exec.transparent && denied(exec.argv))
            ) {
              falseDenies.push(show(result.line, result.execs))
            }
          }
          const seconds = (performance.now() - start) / 1000
          console.log(
            `differential: mode=${mode} lines=${lines.length} allowed=${allowed} (${
              (100 * allowed / lines.length).toFixed(1)
            }%) ranInBash=${results.size} wrongAllows=${wrong.length} missedDenies=${missed.length} needlessQuestions=${needless.length} deniedWithoutDeniedCommand=${falseDenies.length} unjudged=${unjudged} seconds=${
              seconds.toFixed(1)
            } (engine ${engineSeconds.toFixed(1)}, bash ${oracleSeconds.toFixed(1)}) seeds=${fixedSeed},${randomSeed}`
          )
          if (missed.length > 0) console.log(`missed denies (first 20):\n${missed.slice(0, 20).join("\n")}`)
          if (dumpDir !== undefined) {
            Fs.writeFileSync(Path.join(dumpDir, `${mode}-missed.txt`), missed.join("\n"))
            Fs.writeFileSync(Path.join(dumpDir, `${mode}-needless.txt`), needless.join("\n"))
            Fs.writeFileSync(Path.join(dumpDir, `${mode}-false-denies.txt`), falseDenies.join("\n"))
            Fs.writeFileSync(Path.join(dumpDir, `${mode}-verdicts.json`), JSON.stringify(verdicts))
          }
          assert.isAbove(allowed, lines.length / 10, "too few allowed lines: the law would prove nothing")
          assert.strictEqual(unjudged, 0, "some allowed lines never ran in bash")
          assert.deepStrictEqual(
            wrong.slice(0, 20),
            [],
            `${wrong.length} wrong allows (seeds ${fixedSeed} and ${randomSeed}; DIFFERENTIAL_SEED=${randomSeed} repeats the run); the first 20:\n${
              wrong.slice(0, 20).join("\n")
            }`
          )
        }),
      timeout
    )
  }
})

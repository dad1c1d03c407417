// Mutation testing (StrykerJS). Run it through `pnpm mutate [module…]`
// (scripts/mutate.mjs), which sets `mutate` and `testFiles` per module from
// scripts/mutation-modules.mjs: a whole-suite dry run takes a quarter of an
// hour here, a module's own tests a few seconds.
import { createRequire } from "node:module"

// pnpm keeps each package to its own dependencies, so StrykerJS cannot find
// its plugins by name from where it is installed: they are given by path.
const require = createRequire(import.meta.url)
const plugin = (name) => require.resolve(name)

const module = JSON.parse(process.env.TOOL_RUNTIME_MUTATION ?? "{}")

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  packageManager: "pnpm",
  plugins: [plugin("@stryker-mutator/vitest-runner"), plugin("@stryker-mutator/typescript-checker")],
  testRunner: "vitest",
  vitest: { configFile: "vitest.config.ts", related: false },
  checkers: ["typescript"],
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  // perTest: each mutant runs only the tests that reached it.
  coverageAnalysis: "perTest",
  // Two cores: one test runner and one checker keep both busy.
  concurrency: 2,
  timeoutMS: 10_000,
  timeoutFactor: 2,
  incremental: true,
  ignoreStatic: true,
  reporters: ["clear-text", "progress", "html", "json"],
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  ...module
}

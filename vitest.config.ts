import { defineConfig } from "vitest/config"

// Inside the workspace every `@tool-runtime/*` import resolves to its TypeScript source (the
// `@tool-runtime/source` export condition), so tests need no build; published packages resolve to `dist`.
const conditions = ["@tool-runtime/source"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "test/src/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    sequence: { concurrent: false },
    setupFiles: process.env.TOOL_RUNTIME_MUTATION === undefined ? [] : ["scripts/mutation-setup.ts"],
    // Vitest's worker waits 60 s at most for the runner's answer to each progress report, and reads
    // it only when its event loop gets to it: a test that holds the loop past a minute on a loaded
    // 2-core machine turned a run with every test passing red ("Timeout calling onTaskUpdate").
    // patches/vitest@3.2.7.patch makes it 10 minutes; no option reaches that constant.
    // Files that load the bash grammar would each wait ~1.3 s at exit for V8's
    // background tier-up of its WebAssembly (see apps/cli/src/bin.ts).
    poolOptions: { forks: { execArgv: ["--liftoff-only"] } }
  }
})

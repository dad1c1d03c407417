/**
 * An interpreter given no program in its words reads it from its input:
 * `python3 - <<EOF`, `node <<< '…'`, `echo '…' | perl`, `cat <<EOF | node`.
 * That program's strings may reach a shell, as those of `python3 -c` do:
 * deny rules and the destruction check read them the same way.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { engineWith, outcomeOf, unseenRemovals } from "./EngineHarness.js"
import { bash, request } from "./SampleTools.js"

describe("an interpreter's program read from its input", () => {
  it.effect("its strings are read as shell commands", () =>
    Effect.gen(function*() {
      const unseen = yield* unseenRemovals([
        "python3 - <<EOF\nimport os\nos.system('rm -rf /')\nEOF",
        "python3 <<< 'import os; os.system(\"rm -rf /\")'",
        "python3 -u - <<< 'import subprocess; subprocess.run([\"rm\", \"-rf\", \"/\"])'",
        "python3 -Wignore - <<< 'import os; os.system(\"rm -rf /\")'",
        "node <<< 'require(\"child_process\").execSync(\"rm -rf /\")'",
        "echo 'system(\"rm -rf /\")' | perl",
        "cat <<'EOF' | node\nrequire('child_process').execSync('rm -rf /')\nEOF",
        "printf '%s' 'import os; os.system(\"rm -rf /\")' | sudo python3"
      ])
      assert.deepStrictEqual(unseen, [])
    }))

  it.effect("a script file in its words, or a harmless program, is not read from the input", () =>
    Effect.gen(function*() {
      const denying = yield* engineWith({ mode: "bypassPermissions", deny: ["Bash(rm:*)"] })
      for (
        const line of [
          "python3 tool.py <<< 'import os; os.system(\"rm -rf /\")'",
          "echo 'print(1)' | python3",
          "node -e 'x' <<< 'require(\"child_process\").execSync(\"rm -rf /\")'",
          // `-m`: the program is a module; the input is its data.
          "python3 -m json.tool <<< '[\"rm -rf /\"]'",
          "python3 -mjson.tool <<< '[\"rm -rf /\"]'",
          // Flags ending in the option that takes the program: it is in the words.
          "python3 -uc 'print(1)' <<< 'import os; os.system(\"rm -rf /\")'",
          "perl -lne 'print' <<< 'system(\"rm -rf /\")'",
          "perl -p -e 's/a/b/' <<< 'system(\"rm -rf /\")'"
        ]
      ) {
        assert.strictEqual(yield* outcomeOf(denying, request(bash, { command: line })), "allow:mode", line)
      }
    }))
})

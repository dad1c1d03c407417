/**
 * The tools every runner of `tool-runtime cluster` has: the support desk's
 * (the `demo` command's) and a small coding set whose slow calls take a few
 * seconds, so that a runner killed mid-turn is caught inside one of them.
 * Every runner of a cluster must have the same tools: these are fixed, with
 * no option that could make two runners differ.
 *
 * The coding set works on an in-memory project per process (the workspace
 * tools of `code` build a whole runtime of their own, with a permission
 * engine and a sandbox, not a registry a runner can take): one tool of each
 * kind the journal tells apart, a read (`read_file`, `run_tests`), an
 * idempotent write (`write_file`: the same key writes the file once) and a
 * write with effects (`deploy_preview`).
 *
 * @since 0.5.0
 */
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as SupportDesk from "./SupportDesk.js"

/**
 * How long the slow coding calls take.
 *
 * @since 0.5.0
 * @category tools
 */
export const slowMillis = 3_000

/**
 * @since 0.5.0
 * @category tags
 */
export class Project extends Context.Tag("@tool-runtime/cli/ClusterTools/Project")<
  Project,
  Ref.Ref<ReadonlyMap<string, string>>
>() {}

const seed: ReadonlyMap<string, string> = new Map([
  ["src/math.js", "export const add = (a, b) => a + b\nexport const subtract = (a, b) => a + b\n"],
  ["test/math.test.js", "assert.equal(subtract(5, 3), 2)\n"]
])

const Path = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)).annotations({
  description: "A path inside the project, for example src/math.js."
})

const readFile = Tool.make("read_file", {
  description: "Reads a file of the project.",
  parameters: { path: Path },
  readOnly: true,
  timeout: "10 seconds",
  handler: ({ path }) =>
    Effect.gen(function*() {
      yield* Effect.sleep("150 millis")
      const text = (yield* Ref.get(yield* Project)).get(path)
      if (text === undefined) {
        return yield* new ToolError.RuleViolation({
          reason: `${path} does not exist`,
          fix: "Read a file that exists."
        })
      }
      return text
    })
})

const runTests = Tool.make("run_tests", {
  description: "Runs the project's test suite (a few seconds) and reports what failed.",
  parameters: {},
  readOnly: true,
  timeout: "30 seconds",
  handler: (_, context) =>
    Effect.gen(function*() {
      yield* Effect.sleep(slowMillis)
      const math = (yield* Ref.get(yield* Project)).get("src/math.js") ?? ""
      return math.includes("a - b")
        ? `1 test passed (attempt ${context.attempt})`
        : `1 test failed: subtract(5, 3) is 8, expected 2 (attempt ${context.attempt})`
    })
})

const writeFile = Tool.make("write_file", {
  description: "Writes a whole file (a few seconds: it goes through review storage); the same key writes it once.",
  parameters: { path: Path, content: Schema.String.pipe(Schema.maxLength(100_000)) },
  idempotent: true,
  timeout: "30 seconds",
  handler: ({ content, path }, context) =>
    Effect.gen(function*() {
      yield* Effect.sleep(slowMillis)
      yield* Ref.update(yield* Project, (files) => new Map(files).set(path, content))
      return `wrote ${path} (${content.length} characters, key ${context.idempotencyKey}, attempt ${context.attempt})`
    })
})

const deployPreview = Tool.make("deploy_preview", {
  description: "Deploys the project to a preview environment (a few seconds). Not safe to repeat.",
  parameters: { branch: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)) },
  timeout: "30 seconds",
  handler: ({ branch }, context) =>
    Effect.gen(function*() {
      yield* Effect.sleep(slowMillis)
      return `deployed ${branch} to https://preview.example/${branch} (attempt ${context.attempt})`
    })
})

/**
 * The coding set.
 *
 * @since 0.5.0
 * @category tools
 */
export const codingTools = [readFile, runTests, writeFile, deployPreview] as const

/**
 * Every tool a runner has, in the order a model is shown them.
 *
 * @since 0.5.0
 * @category tools
 */
export const tools = [...SupportDesk.tools, ...codingTools] as const

/**
 * The services a runner (and a client, to plan and redact locally) needs
 * besides the cluster: the registry over a fresh desk and project, an
 * in-memory artifact store, the default redactor, a policy that allows all.
 *
 * @since 0.5.0
 * @category layers
 */
export const layer = Registry.layer(tools).pipe(
  Layer.provide(SupportDesk.layer),
  Layer.provide(Layer.effect(Project, Ref.make(seed))),
  // The tool list is fixed and valid: a failure here is a bug, not an input error.
  Layer.orDie,
  // One store: the paging tool reads what the runtime stored.
  Layer.provideMerge(ArtifactStore.layerMemory()),
  Layer.merge(Layer.merge(Redactor.layerDefault, Policy.layerAllowAll))
)

/**
 * Laws of the shaping stage, over generated outputs with a secret planted
 * anywhere (head, tail, across the cut, in an error message): no shaped
 * result and no stored artifact contains the secret; truncated output stays
 * within its limit plus the marker; the length the marker states is the real
 * length of the whole, which is what the store holds.
 */
import { assert, describe, it } from "@effect/vitest"
import { ArtifactStore, Policy, Redactor, Registry, Tool, ToolResult, ToolRuntime } from "@tool-runtime/core"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

const secrets = [
  "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
  "sk-ant-" + "api03-" + "x7Yw9Zq2Lm4Np6Rs8Tu0Vb3Cd5Ef7Gh9Jk1",
  "AKIA" + "Z7Q4X2M6N3P5R7TQ",
  "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
  "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----"
]

const LIMITS = [120, 1_000, 5_000] as const
const MARKER_ROOM = 400

const Emit = Schema.Struct({
  lines: Schema.Int,
  at: Schema.Number,
  secret: Schema.Int,
  fail: Schema.Boolean
})

const body = ({ at, lines, secret }: typeof Emit.Type) => {
  const out = Array.from({ length: lines }, (_, i) => `line ${i}: compiling unit ${i * 7} of the project`)
  const position = Math.min(out.length, Math.floor(at * out.length))
  out.splice(position, 0, `token=${secrets[secret]!} used here`)
  return out.join("\n")
}

const tools = LIMITS.map((limit) =>
  Tool.make(`emit_${limit}`, {
    description: "emits output with a planted secret",
    parameters: Emit,
    readOnly: true,
    outputLimit: limit,
    handler: (input) => input.fail ? Effect.fail(body(input)) : Effect.succeed(body(input))
  })
)

// The runtime and a handle on the store it writes to: one instance, shared.
const store = ArtifactStore.layerMemory()
const layer = Layer.merge(
  ToolRuntime.layer().pipe(
    Layer.provide([
      Registry.layer([...tools, ArtifactStore.readTool]),
      store,
      Redactor.layerDefault,
      Policy.layerAllowAll
    ]),
    Layer.provide(store)
  ),
  store
)

describe("shaping laws", () => {
  it.effect.prop(
    "no planted secret survives; cuts stay within the limit; the stated length is the real length",
    [
      FastCheck.record({
        lines: FastCheck.integer({ min: 0, max: 3_000 }),
        at: FastCheck.double({ min: 0, max: 1, noNaN: true }),
        secret: FastCheck.integer({ min: 0, max: secrets.length - 1 }),
        fail: FastCheck.boolean(),
        limit: FastCheck.constantFrom(...LIMITS)
      })
    ],
    ([{ limit, ...input }]) =>
      Effect.gen(function*() {
        const runtime = yield* ToolRuntime.ToolRuntime
        const store = yield* ArtifactStore.ArtifactStore
        const result = yield* runtime.runCall({ id: "c", name: `emit_${limit}`, input })
        const text = ToolResult.text(result)
        const secret = secrets[input.secret]!
        assert.notInclude(text, secret)
        assert.isAtLeast(result.meta.redactions, 1)
        assert.strictEqual(result.isError, input.fail)
        const truncation = result.meta.truncation
        if (truncation === undefined) {
          assert.isAtMost(text.length, limit + (input.fail ? MARKER_ROOM : 0))
          return
        }
        assert.isAtMost(truncation.shownLength, limit)
        assert.isAtMost(text.length, limit + MARKER_ROOM)
        const stated = /of ([\d,]+) characters/.exec(text)
        assert.isNotNull(stated)
        assert.strictEqual(Number(stated![1]!.replace(/,/g, "")), truncation.originalLength)
        const id = /"id": "([^"]+)"/.exec(text)![1]!
        const whole = yield* store.read(id, 0, Number.MAX_SAFE_INTEGER)
        assert.strictEqual(whole.totalLength, truncation.originalLength)
        assert.notInclude(whole.text, secret)
      }).pipe(Effect.provide(layer)),
    // Up to 3,000 lines redacted a run: 200 runs took 28 s on a loaded machine, against the 30 s default.
    // CI samples 60 (a fresh seed each run); PROPERTY_RUNS=200 or more runs the full count.
    { timeout: 120_000, fastCheck: { numRuns: Number(process.env.PROPERTY_RUNS ?? 60) } }
  )
})

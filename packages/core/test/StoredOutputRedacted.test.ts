/**
 * What the runtime hands its artifact store never holds a secret: an
 * output too long to show, a failure too long to keep, and bytes too
 * binary to show are stored whole, redacted first. `read_output` redacts
 * again on the way out, so a result alone cannot tell; these tests look at
 * what the store was given and what it holds, directly. Binary output is
 * stored as base64, so it is looked at decoded too: a secret in a binary
 * is as readable to a model that decodes base64 as in plain text.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as ArtifactStore from "../src/ArtifactStore.js"
import * as Policy from "../src/Policy.js"
import * as Redactor from "../src/Redactor.js"
import * as Registry from "../src/Registry.js"
import * as Tool from "../src/Tool.js"
import * as ToolResult from "../src/ToolResult.js"
import * as ToolRuntime from "../src/ToolRuntime.js"
import { base32, leakedWindow, noise } from "./FakeSecrets.js"

/** Shapes the default rules know, and one only the application knows (a value it was given). */
const awsKey = `AKIA${noise(16, 11, base32)}`
const githubToken = `ghp_${noise(36, 12)}`
const knownValue = `kv-${noise(29, 13)}`
const secrets = [awsKey, githubToken, knownValue]

const planted = `aws_access_key_id=${awsKey} token=${githubToken} password: ${knownValue}`

/** Lines of noise with the secrets in the middle, where every cut the runtime makes falls elsewhere. */
const longLog = (lines: number) =>
  Array.from({ length: lines }, (_, i) => (i === Math.floor(lines / 2) ? `line ${i}: ${planted}` : `line ${i}: ok`))
    .join("\n")

const bytesWith = (text: string) =>
  new Uint8Array([0, 1, 2, 3, 0xff, 0xfe, ...new TextEncoder().encode(` ${text} `), 0, 0, 0x80, 0x9f])

const tool = (
  name: string,
  handler: () => Effect.Effect<unknown, unknown>,
  truncation?: Tool.TruncationOptions
) =>
  Tool.make(name, {
    description: name,
    parameters: {},
    readOnly: true,
    outputLimit: 300,
    ...(truncation === undefined ? {} : { truncation }),
    handler
  })

const tools = [
  tool("long_head", () => Effect.succeed(longLog(200))),
  tool("long_tail", () => Effect.succeed(longLog(200)), { success: "tail" }),
  tool("long_head_tail", () => Effect.succeed(longLog(200)), { success: "head-tail" }),
  tool("long_failure", () => Effect.fail(longLog(200))),
  tool("long_json", () => Effect.succeed({ rows: Array.from({ length: 80 }, (_, i) => (i === 40 ? planted : i)) })),
  tool("binary", () => Effect.succeed(bytesWith(planted))),
  tool(
    "binary_large",
    () => Effect.succeed(bytesWith(`${"\u0000".repeat(50_000)}${planted}${"\u0007".repeat(50_000)}`))
  ),
  tool("long_content", () => Effect.succeed(ToolResult.content([ToolResult.textBlock(longLog(200))])))
] as const

/** A store that keeps a copy of everything it is given, over a real memory store. */
const recording = Effect.gen(function*() {
  const inner = yield* ArtifactStore.makeMemory()
  const given: Array<string> = []
  const store: ArtifactStore.Service = {
    put: (source, content) => Effect.flatMap(Effect.sync(() => given.push(content)), () => inner.put(source, content)),
    read: inner.read
  }
  return { store, given }
})

/** Every form a stored text can be read in: as it is, and decoded when it is base64 (how bytes are stored). */
const readings = (stored: string): ReadonlyArray<string> => {
  const decoded = Encoding.decodeBase64(stored.trim())
  if (Either.isLeft(decoded)) return [stored]
  return [stored, String.fromCharCode(...decoded.right.subarray(0, 200_000))]
}

const assertNothingStoredHolds = (stored: ReadonlyArray<string>, where: string) => {
  for (const text of stored) {
    for (const reading of readings(text)) {
      for (const secret of secrets) {
        const window = leakedWindow(reading, secret)
        assert.isUndefined(window, `${where} holds ${JSON.stringify(window)} of a planted secret`)
      }
    }
  }
}

const runAll = Effect.gen(function*() {
  const { given, store } = yield* recording
  const runtime = yield* ToolRuntime.make().pipe(
    Effect.provide(Layer.mergeAll(
      Registry.layer([...tools, ArtifactStore.readTool]),
      Redactor.layer({ secrets: [Redacted.make(knownValue)] }),
      Policy.layerAllowAll
    )),
    // The registry's read_output needs the store, and so does the runtime.
    Effect.provideService(ArtifactStore.ArtifactStore, store)
  )
  const results = yield* runtime.runTurn(tools.map((t, i) => ({ id: `c${i}`, name: t.name, input: {} }))).pipe(
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the turn did not finish within 10 s") })
  )
  return { given, store, results, runtime }
})

describe("the stored copy of an output never holds a secret", () => {
  it.effect("every output that had to be stored was stored, and the result points to it", () =>
    Effect.gen(function*() {
      const { given, results } = yield* runAll
      for (const result of results) {
        assert.isDefined(result.meta.artifact, `${result.toolName} was not stored: ${ToolResult.text(result)}`)
      }
      assert.strictEqual(given.length, tools.length)
    }))

  it.effect("what the runtime hands the store holds no window of a secret (text, failure, JSON, bytes)", () =>
    Effect.gen(function*() {
      const { given, results } = yield* runAll
      given.forEach((content, i) => assertNothingStoredHolds([content], `the copy stored for ${results[i]?.toolName}`))
    }))

  it.effect("what the store holds, read back directly and not through read_output, holds none either", () =>
    Effect.gen(function*() {
      const { results, store } = yield* runAll
      for (const result of results) {
        const stored = yield* store.read(result.meta.artifact!, 0, Number.MAX_SAFE_INTEGER)
        assertNothingStoredHolds([stored.text], `the stored ${result.toolName} output`)
      }
    }))

  it.effect("the stored copy is redacted, not dropped: the rest of the output is still there", () =>
    Effect.gen(function*() {
      const { results, store } = yield* runAll
      const byTool = new Map(results.map((result) => [result.toolName, result]))
      const text = (name: string) =>
        Effect.map(store.read(byTool.get(name)!.meta.artifact!, 0, Number.MAX_SAFE_INTEGER), (s) => s.text)
      const log = yield* text("long_head")
      assert.include(log, "line 0: ok")
      assert.include(log, "line 199: ok")
      assert.include(log, "aws_access_key_id=[REDACTED")
      const bytes = readings(yield* text("binary"))
      assert.strictEqual(bytes.length, 2, "binary output is stored as base64")
      assert.include(bytes[1]!, "aws_access_key_id=[REDACTED")
      assert.isTrue(bytes[1]!.startsWith("\u0000\u0001\u0002\u0003\u00ff\u00fe "), "the bytes around it are kept")
      assert.isAbove(byTool.get("binary")!.meta.redactions, 0, "the redactions are counted")
    }))
})

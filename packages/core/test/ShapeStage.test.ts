/**
 * The shape stage on its own, with exact outputs: what the model reads is
 * the promise here (a marker that says how much was cut and where the rest
 * is, a size in words, an image block or a summary), so these tests compare
 * whole texts and whole metadata rather than fragments.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Encoding from "effect/Encoding"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import * as ArtifactStore from "../src/ArtifactStore.js"
import * as PipelineShape from "../src/PipelineShape.js"
import * as Redactor from "../src/Redactor.js"
import * as Tool from "../src/Tool.js"
import * as ToolError from "../src/ToolError.js"
import * as ToolResult from "../src/ToolResult.js"

const redactor = Redactor.make()

/** A store that remembers what it was given, and one that always refuses. */
const recordingStore = Effect.gen(function*() {
  const inner = yield* ArtifactStore.makeMemory()
  const given: Array<{ readonly callId: string; readonly content: string }> = []
  const store: ArtifactStore.Service = {
    put: (source, content) =>
      Effect.flatMap(
        Effect.sync(() => given.push({ callId: source.callId, content })),
        () => inner.put(source, content)
      ),
    read: inner.read
  }
  return { store, given }
})

const refusingStore: ArtifactStore.Service = {
  put: () => Effect.fail(new ArtifactStore.ArtifactError({ reason: "disk full" })),
  read: () => Effect.fail(new ArtifactStore.ArtifactError({ reason: "nothing" }))
}

/** Bytes that are no text and no run of one letter once in base64 (a 7 MB run of `A` takes the rules seconds). */
const patterned = (size: number) => Uint8Array.from({ length: size }, (_, i) => (i * 7919 + (i >> 8)) & 0xff)

const env = (store: ArtifactStore.Service, overrides?: Partial<PipelineShape.ShapeEnv>): PipelineShape.ShapeEnv => ({
  redactor,
  store,
  previewChars: 40,
  failureKeepChars: 60,
  defaultLimit: 100,
  readToolName: "read_output",
  ...overrides
})

const success = (value: unknown, note?: string): PipelineShape.Outcome => ({ _tag: "Success", value, note })
const failure = (error: ToolError.ToolError): PipelineShape.Outcome => ({ _tag: "Failure", error })

const tool = (options: Partial<Parameters<typeof Tool.make>[1]> = {}) =>
  Tool.make(
    "t",
    {
      description: "t",
      parameters: {},
      readOnly: true,
      handler: () => Effect.succeed("unused"),
      ...options
    } as Parameters<typeof Tool.make>[1]
  )

const shape = (
  shapeEnv: PipelineShape.ShapeEnv,
  t: Tool.Any | undefined,
  outcome: PipelineShape.Outcome,
  callId = "call-1"
) => PipelineShape.shape(shapeEnv, t, callId, t?.name ?? "unknown", outcome, 7)

const failed = (detail: string) => new ToolError.ToolFailed({ toolName: "t", detail, retryable: false })

describe("the shape stage", () => {
  it.effect("a short success is its text, with the duration and no redactions, and nothing is stored", () =>
    Effect.gen(function*() {
      const { given, store } = yield* recordingStore
      const result = yield* shape(env(store), tool(), success("hello"))
      assert.deepStrictEqual(result, {
        callId: "call-1",
        toolName: "t",
        content: [{ _tag: "text", text: "hello" }],
        isError: false,
        meta: { durationMillis: 7, redactions: 0 }
      })
      assert.strictEqual(given.length, 0)
    }))

  it.effect("a note comes before the value, a blank line between", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const result = yield* shape(env(store), tool(), success("body", "note: read from cache"))
      assert.strictEqual(ToolResult.text(result), "note: read from cache\n\nbody")
    }))

  it.effect("a lone surrogate becomes U+FFFD, in a success and a failure; a valid pair stays", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const ok = yield* shape(env(store), tool(), success("a\ud800b \udfffc 😀 \ud83d"))
      assert.strictEqual(ToolResult.text(ok), "a\ufffdb \ufffdc 😀 \ufffd")
      const bad = yield* shape(env(store), tool(), failure(failed("x\udc00y")))
      assert.include(ToolResult.text(bad), "x\ufffdy")
      assert.notMatch(ToolResult.text(bad), /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/)
    }))

  it.effect("a value that is not text is stable JSON; nothing at all says so in words", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      assert.strictEqual(
        ToolResult.text(yield* shape(env(store), tool(), success({ b: 1, a: [true] }))),
        `{"a":[true],"b":1}`
      )
      assert.strictEqual(ToolResult.text(yield* shape(env(store), tool(), success(undefined))), PipelineShape.noOutput)
      assert.strictEqual(PipelineShape.noOutput, "(no output)")
      // With no tool (a call the registry does not know) the value is shown as it is.
      assert.strictEqual(ToolResult.text(yield* shape(env(store), undefined, success([1, 2]))), "[1,2]")
    }))

  it.effect("a function, a symbol, an unreadable value and a too-deep value are the call's defect", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const write = tool({ readOnly: false })
      // Every trap the stage itself touches throws (StableJson reads the rest as "[unreadable]").
      const boom = () => {
        throw new Error("boom")
      }
      const hostile = new Proxy({}, { has: boom, getPrototypeOf: boom, get: boom, ownKeys: boom })
      let deep: unknown = 1
      for (let i = 0; i < 200_000; i++) deep = [deep]
      for (
        const [value, detail] of [
          [() => 1, "which cannot be shown to the model"],
          [Symbol("s"), "which cannot be shown to the model"],
          [hostile, "it returned a value that cannot be read (reading it threw)"],
          [deep, "nested deeper than"]
        ] as const
      ) {
        const result = yield* shape(env(store), write, success(value))
        assert.isTrue(result.isError)
        assert.strictEqual(result.error?.code, "tool_defect")
        // A write tool's defect leaves its outcome unknown; a read-only one's does not.
        assert.isTrue(result.error?.outcomeUnknown)
        assert.include(ToolResult.text(result), detail)
        assert.isTrue(ToolResult.text(result).startsWith("t crashed with an internal error: it "))
        const readOnly = yield* shape(env(store), tool(), success(value))
        assert.isFalse(readOnly.error?.outcomeUnknown)
      }
      const unknownTool = yield* shape(env(store, { defaultLimit: 1_000 }), undefined, success(() => 1))
      assert.isTrue(ToolResult.text(unknownTool).startsWith("the tool crashed with an internal error: it returned "))
      assert.isFalse(unknownTool.error?.outcomeUnknown)
    }))

  it.effect("output that breaks the declared output schema is a defect", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const typed = tool({ success: Schema.Struct({ n: Schema.Number }) } as never)
      const bad = yield* shape(env(store), typed, success({ n: "x" }))
      assert.isTrue(bad.isError)
      assert.include(ToolResult.text(bad), "does not match its declared output schema")
      const good = yield* shape(env(store), typed, success({ n: 1 }))
      assert.strictEqual(ToolResult.text(good), `{"n":1}`)
    }))

  it.effect("a failure is its message and hint, with the error's code and flags", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const error = failed("it broke")
      const result = yield* shape(env(store), tool(), failure(error))
      assert.strictEqual(ToolResult.text(result), `${error.message}\n${error.hint}`)
      assert.deepStrictEqual(result.error, {
        code: error.code,
        retryable: error.retryable,
        hint: error.hint,
        outcomeUnknown: error.outcomeUnknown
      })
      assert.isTrue(result.isError)
      assert.strictEqual(result.meta.redactions, 0)
    }))

  it.effect(
    "an image at the size limit is shown; one byte more is stored and summarized in MiB",
    () =>
      Effect.gen(function*() {
        const { given, store } = yield* recordingStore
        const png = (size: number) => {
          const bytes = patterned(size)
          bytes.set([0x89, 0x50, 0x4e, 0x47])
          return bytes
        }
        const limit = 5 * 1024 * 1024
        const shown = yield* shape(env(store), tool(), success(png(limit)))
        assert.deepStrictEqual(shown.content.map((b) => b._tag), ["image"])
        assert.strictEqual(given.length, 0)
        const big = yield* shape(env(store), tool(), success(png(limit + 1)))
        assert.strictEqual(
          ToolResult.text(big),
          `[image/png output of 5.0 MiB, not shown]\n[The full output is stored; read more with read_output {"id": "${
            big.meta.artifact!.slice("artifact:".length)
          }", "offset": 0}.]`
        )
        assert.deepStrictEqual(big.content.map((b) => b._tag), ["text"])
        assert.strictEqual(given.length, 1)
        // Megabytes compared as one boolean: a failing diff of them would flood the report.
        assert.isTrue(given[0]!.content === Encoding.encodeBase64(png(limit + 1)), "stored whole")
        // Two 5 MiB images shaped and one stored: 16 s with a second suite beside it, past 30 s with
        // two; the bound is a ceiling for a loaded machine, not a speed being tested.
      }),
    120_000
  )

  it.effect("each image type is known by its magic bytes, and other bytes are binary, sized in bytes or KiB", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      for (
        const [magic, type] of [
          [[0x89, 0x50, 0x4e, 0x47], "image/png"],
          [[0xff, 0xd8, 0xff], "image/jpeg"],
          [[0x47, 0x49, 0x46, 0x38], "image/gif"],
          [[0x52, 0x49, 0x46, 0x46], "image/webp"]
        ] as const
      ) {
        const result = yield* shape(env(store), tool(), success(new Uint8Array([...magic, 0, 0])))
        assert.deepStrictEqual(result.content, [ToolResult.image(new Uint8Array([...magic, 0, 0]), type)])
        // One byte of the magic wrong: not that image.
        const off = new Uint8Array([...magic, 0, 0])
        off[magic.length - 1] = (off[magic.length - 1]! + 1) & 0xff
        assert.isTrue(ToolResult.text(yield* shape(env(store), tool(), success(off))).startsWith("[binary output of"))
      }
      const sized = (n: number) =>
        shape(env(store), tool(), success(new Uint8Array(n))).pipe(Effect.map(ToolResult.text))
      assert.isTrue((yield* sized(1023)).startsWith("[binary output of 1023 bytes, not shown]\n[The full output"))
      assert.isTrue((yield* sized(1024)).startsWith("[binary output of 1.0 KiB, not shown]"))
      assert.isTrue((yield* sized(1536)).startsWith("[binary output of 1.5 KiB, not shown]"))
      assert.isTrue((yield* sized(1024 * 1024 - 1)).startsWith("[binary output of 1024.0 KiB, not shown]"))
      assert.isTrue((yield* sized(1024 * 1024)).startsWith("[binary output of 1.0 MiB, not shown]"))
    }))

  it.effect("content blocks: texts joined by newlines, images kept, an image over the limit summarized and stored", () =>
    Effect.gen(function*() {
      const { given, store } = yield* recordingStore
      const small = ToolResult.image(new Uint8Array([1, 2, 3]), "image/png")
      const value = ToolResult.content([ToolResult.textBlock("one"), small, ToolResult.textBlock("two")])
      const result = yield* shape(env(store), tool(), success(value))
      assert.deepStrictEqual(result.content, [{ _tag: "text", text: "one\ntwo" }, small])
      assert.strictEqual(given.length, 0)
      // Only images: no empty text block before them.
      const only = yield* shape(env(store), tool(), success(ToolResult.content([small])))
      assert.deepStrictEqual(only.content, [small])
      // The size is estimated from the base64 length: up to the limit it is shown, one character more is not.
      const limit = 5 * 1024 * 1024
      const base64 = Encoding.encodeBase64(patterned(limit + 3))
      const longest = Math.floor(limit / 0.75)
      const atLimit = { _tag: "image" as const, data: base64.slice(0, longest), mediaType: "image/png" }
      const shown = yield* shape(env(store), tool(), success(ToolResult.content([atLimit])))
      assert.deepStrictEqual(shown.content.map((b) => b._tag), ["image"])
      assert.isTrue(shown.content[0]!._tag === "image" && shown.content[0]!.data === atLimit.data, "shown whole")
      const over = { ...atLimit, data: base64.slice(0, longest + 1) }
      const summarized = yield* shape(env(store), tool(), success(ToolResult.content([over])))
      assert.isTrue(
        ToolResult.text(summarized).startsWith(
          "[image/png image of about 5.0 MiB, too large to show]\n[The full output"
        )
      )
      assert.isTrue(given.at(-1)!.content === over.data, "stored whole")
    }))

  it.effect("a success over the limit: a head preview and a marker that says how much and where the rest is", () =>
    Effect.gen(function*() {
      const { given, store } = yield* recordingStore
      const text = "x".repeat(150)
      const result = yield* shape(env(store), tool({ outputLimit: 100 }), success(text))
      const id = result.meta.artifact!.slice("artifact:".length)
      assert.strictEqual(
        ToolResult.text(result),
        `${"x".repeat(40)}\n\n[Output truncated: showing the first 40 of 150 characters. ` +
          `The full output is stored; read more with read_output {"id": "${id}", "offset": 40}.]`
      )
      assert.deepStrictEqual(result.meta.truncation, { strategy: "head", originalLength: 150, shownLength: 40 })
      assert.strictEqual(given[0]!.content, text)
      assert.strictEqual(given[0]!.callId, "call-1")
      // Exactly at the limit: whole, nothing stored.
      const at = yield* shape(env(store), tool({ outputLimit: 150 }), success(text))
      assert.strictEqual(ToolResult.text(at), text)
      assert.strictEqual(given.length, 1)
    }))

  it.effect("the preview is the smaller of the tool's preview and the limit; numbers have thousands separators", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const text = "y".repeat(12_345)
      const small = yield* shape(env(store, { previewChars: 5_000 }), tool({ outputLimit: 1_500 }), success(text))
      assert.deepStrictEqual(small.meta.truncation, { strategy: "head", originalLength: 12_345, shownLength: 1_500 })
      assert.include(ToolResult.text(small), "showing the first 1,500 of 12,345 characters.")
      const own = yield* shape(
        env(store, { previewChars: 5_000 }),
        tool({ outputLimit: 3_000, truncation: { previewChars: 1_200 } }),
        success(text)
      )
      assert.strictEqual(own.meta.truncation?.shownLength, 1_200)
    }))

  it.effect("tail and head-tail successes say exactly what they show", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const text = Array.from({ length: 30 }, (_, i) => `line ${String(i).padStart(2, "0")}`).join("\n")
      const tail = yield* shape(env(store), tool({ outputLimit: 100, truncation: { success: "tail" } }), success(text))
      const id = tail.meta.artifact!.slice("artifact:".length)
      const shownTail = text.slice(text.length - 39)
      assert.strictEqual(
        ToolResult.text(tail),
        `[Output truncated: showing the last 39 of ${text.length} characters. ` +
          `The full output is stored; read more with read_output {"id": "${id}", "offset": 0}.]\n\n${shownTail}`
      )
      assert.deepStrictEqual(tail.meta.truncation, { strategy: "tail", originalLength: text.length, shownLength: 39 })
      const both = yield* shape(
        env(store),
        tool({ outputLimit: 100, truncation: { success: "head-tail", headShare: 0.5 } }),
        success(text)
      )
      const bothId = both.meta.artifact!.slice("artifact:".length)
      const head = "line 00\nline 01\n"
      const end = "line 27\nline 28\nline 29"
      assert.strictEqual(
        ToolResult.text(both),
        `${head}\n\n[… ${text.length - head.length - end.length} of ${text.length} characters omitted here. ` +
          `The full output is stored; read more with read_output {"id": "${bothId}", "offset": ${head.length}}.]\n\n${end}`
      )
      assert.deepStrictEqual(both.meta.truncation, {
        strategy: "head-tail",
        originalLength: text.length,
        shownLength: head.length + end.length
      })
    }))

  it.effect("a failure over the limit keeps head and tail, lifts the dropped error lines, and says where the rest is", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const lines = Array.from({ length: 40 }, (_, i) => i === 20 ? "FATAL disk" : `ok ${String(i).padStart(2, "0")}`)
      const text = lines.join("\n")
      const error = failed(text)
      const result = yield* shape(env(store, { failureKeepChars: 300 }), tool({ outputLimit: 100 }), failure(error))
      const shown = ToolResult.text(result)
      assert.include(shown, "\nLines in the omitted part that report errors:\n  FATAL disk\n\n\n")
      assert.strictEqual(result.meta.truncation?.strategy, "head-tail")
      // The limit bounds the kept text, the tool's limit being smaller than the keep.
      assert.isAtMost(result.meta.truncation!.shownLength, 100)
      assert.strictEqual(result.meta.truncation?.originalLength, error.message.length + 1 + error.hint.length)
      assert.match(
        shown,
        /\[… [\d,]+ of [\d,]+ characters omitted here\. The full output is stored; read more with read_output \{"id": "[^"]+", "offset": \d+\}\.\]/
      )
      // Nothing to lift: the marker ends the head, a blank line before the tail.
      // (The tail keeps the whole hint, whose words would count as an error line.)
      const quiet = yield* shape(
        env(store, { failureKeepChars: 100 }),
        tool({ outputLimit: 200 }),
        failure(failed(Array.from({ length: 80 }, (_, i) => `ok ${i}`).join("\n")))
      )
      assert.notInclude(ToolResult.text(quiet), "Lines in the omitted part")
      assert.match(ToolResult.text(quiet), /\.\]\n\nRead the error above/)
      assert.isAtMost(quiet.meta.truncation!.shownLength, 100)
    }))

  it.effect("without a paging tool the marker names the location; a store that fails is said so, nothing lost", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const text = "z".repeat(150)
      const named = yield* shape(env(store, { readToolName: undefined }), tool({ outputLimit: 100 }), success(text))
      assert.include(ToolResult.text(named), `The full output is stored as "${named.meta.artifact}".]`)
      const refused = yield* shape(env(refusingStore), tool({ outputLimit: 100 }), success(text))
      assert.include(ToolResult.text(refused), "The full output could not be stored (disk full).]")
      assert.isUndefined(refused.meta.artifact)
      assert.strictEqual(refused.meta.truncation?.originalLength, 150)
      // Bytes that fit but cannot be shown, with a store that fails: the summary and why.
      const bytes = yield* shape(env(refusingStore), tool(), success(new Uint8Array(10)))
      assert.strictEqual(
        ToolResult.text(bytes),
        "[binary output of 10 bytes, not shown]\n[The full output could not be stored (disk full).]"
      )
    }))

  it.effect("a limit in tokens counts tokens; a call with no tool uses the default limit", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const text = "abcd".repeat(30)
      // 120 characters, 30 tokens.
      const fits = yield* shape(env(store), tool({ outputLimit: { tokens: 30 } }), success(text))
      assert.strictEqual(ToolResult.text(fits), text)
      const over = yield* shape(env(store), tool({ outputLimit: { tokens: 29 } }), success(text))
      assert.strictEqual(over.meta.truncation?.originalLength, 120)
      const noTool = yield* shape(env(store, { defaultLimit: 119 }), undefined, success(text))
      assert.strictEqual(noTool.meta.truncation?.originalLength, 120)
      const noToolFits = yield* shape(env(store, { defaultLimit: 120 }), undefined, success(text))
      assert.isUndefined(noToolFits.meta.truncation)
    }))

  it.effect("the stored copy of a long output holds the redacted text; the store gets the call id redacted", () =>
    Effect.gen(function*() {
      const { given, store } = yield* recordingStore
      const token = `ghp_${"A1b2C3d4E5".repeat(3)}Zq9Xw8`
      const result = yield* shape(
        env(store),
        tool({ outputLimit: 100 }),
        success(`${"line\n".repeat(30)}token=${token}`),
        `id-${token}`
      )
      assert.isAbove(result.meta.redactions, 0)
      assert.notInclude(given[0]!.content, token)
      assert.include(given[0]!.content, "token=[REDACTED:")
      assert.notInclude(given[0]!.callId, token)
      // The result itself still carries the call id it was given, for pairing.
      assert.strictEqual(result.callId, `id-${token}`)
    }))

  it.effect("an image too large, with text over the limit: both stored, text first, each redacted as it reads", () =>
    Effect.gen(function*() {
      const { given, store } = yield* recordingStore
      const token = `ghp_${"Q7w8E9r0T1".repeat(3)}Yu2Io3`
      const bytes = patterned(5 * 1024 * 1024 + 3)
      bytes.set(new TextEncoder().encode(` key=${token} `), 1_000)
      const value = ToolResult.content([
        ToolResult.textBlock(`${"row\n".repeat(40)}${token}`),
        ToolResult.image(bytes, "image/png")
      ])
      const result = yield* shape(env(store), tool({ outputLimit: 100 }), success(value))
      assert.strictEqual(result.meta.truncation?.strategy, "head")
      const stored = given[0]!.content
      const split = stored.lastIndexOf("\n\n")
      const [text, stash] = [stored.slice(0, split), stored.slice(split + 2)]
      assert.isTrue(text.startsWith("row\nrow\n"))
      assert.isTrue(text.endsWith("too large to show]"))
      assert.notInclude(text, token)
      const decoded = new TextDecoder("latin1").decode(
        Encoding.decodeBase64(stash).pipe((e) => e._tag === "Right" ? e.right : new Uint8Array())
      )
      // The bytes around the secret are kept as they were; the secret became a marker.
      assert.strictEqual(decoded.slice(0, 1_000), new TextDecoder("latin1").decode(bytes.subarray(0, 1_000)))
      assert.isTrue(decoded.slice(1_000).startsWith(" key=[REDACTED:"))
      assert.notInclude(decoded, token)
      const marker = /\[REDACTED:[^\]]+\]/.exec(decoded)![0]
      assert.strictEqual(decoded.length, bytes.length - token.length + marker.length)
      assert.isTrue(decoded.slice(-100_000) === new TextDecoder("latin1").decode(bytes.subarray(-100_000)), "tail kept")
      // One in the text, one in the bytes.
      assert.strictEqual(result.meta.redactions, 2)
    }))

  it.effect("stored bytes without a secret are kept exactly as given, even in a base64 spelling of their own", () =>
    Effect.gen(function*() {
      const { given, store } = yield* recordingStore
      // One byte in the last group, its unused low bits set: it decodes like the canonical spelling.
      const canonical = Encoding.encodeBase64(patterned(5 * 1024 * 1024 + 2))
      const last = canonical.at(-3)!
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
      const data = `${canonical.slice(0, -3)}${alphabet[alphabet.indexOf(last) | 0b1111]}==`
      yield* shape(env(store), tool(), success(ToolResult.content([{ _tag: "image", data, mediaType: "image/png" }])))
      assert.isTrue(given[0]!.content === data, "stored exactly as given")
    }))

  it.effect("a secret spelled out by the base64 itself is redacted and counted too", () =>
    Effect.gen(function*() {
      const { given, store } = yield* recordingStore
      const data = `AKIAQ3EGTV5XKZ7PLMRW+abc${Encoding.encodeBase64(patterned(5 * 1024 * 1024 + 3))}`
      const result = yield* shape(
        env(store),
        tool(),
        success(ToolResult.content([{ _tag: "image", data, mediaType: "image/png" }]))
      )
      assert.notInclude(given[0]!.content, "AKIAQ3EGTV5XKZ7PLMRW")
      assert.isTrue(given[0]!.content.startsWith("[REDACTED:aws-access-key-id]+abc"))
      assert.strictEqual(result.meta.redactions, 1)
    }))

  it.effect("a marker past one byte (a rule id in another script) is stored in bytes as ?", () =>
    Effect.gen(function*() {
      const { given, store } = yield* recordingStore
      const own = Redactor.make({ extraRules: [{ id: "秘密", keywords: [], pattern: /SECRET-[0-9]{6}/g }] })
      const bytes = new Uint8Array([0, 1, 2, ...new TextEncoder().encode(" SECRET-123456 "), 0])
      const result = yield* shape(env(store, { redactor: own }), tool(), success(bytes))
      const decoded = Encoding.decodeBase64(given[0]!.content)
      assert.strictEqual(decoded._tag, "Right")
      assert.strictEqual(
        new TextDecoder("latin1").decode(decoded._tag === "Right" ? decoded.right : new Uint8Array()),
        "\u0000\u0001\u0002 [REDACTED:??] \u0000"
      )
      assert.strictEqual(result.meta.redactions, 1)
    }))

  it.effect("a truncated failure: the tool's head share, two lifted lines in order, each bounded", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const lines = Array.from({ length: 300 }, (_, i) => `ok ${String(i).padStart(3, "0")}`)
      lines[140] = "FATAL one"
      lines[150] = `ERROR ${"e".repeat(100)}`
      lines[160] = "FATAL one"
      const error = failed(lines.join("\n"))
      const result = yield* shape(
        env(store, { failureKeepChars: 600 }),
        tool({ outputLimit: 1_000, truncation: { headShare: 0.8 } }),
        failure(error)
      )
      const shown = ToolResult.text(result)
      // The keep is 600 characters, so a lifted line is bounded to 40 (the floor of the bound).
      assert.include(
        shown,
        `\nLines in the omitted part that report errors:\n  FATAL one\n  ERROR ${"e".repeat(34)}…\n\n\n`
      )
      const head = shown.slice(0, shown.indexOf("\n\n[…"))
      const tail = shown.slice(shown.lastIndexOf("\n\n") + 2)
      assert.isAbove(head.length, tail.length)
      assert.strictEqual(result.meta.truncation?.shownLength, head.length + tail.length)
    }))

  it.effect("an empty text is one empty text block, never a result without content", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const result = yield* shape(env(store), tool(), success(""))
      assert.deepStrictEqual(result.content, [{ _tag: "text", text: "" }])
    }))

  it.effect("the wrapper's nonce is twelve characters even when the random draws are small", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const result = yield* shape(env(store), tool({ untrusted: true }), success("page")).pipe(
        Effect.withRandom(Random.fixed([0, 0]))
      )
      assert.include(ToolResult.text(result), `boundary="000000000000"`)
    }))

  it.effect("untrusted output: a success and a tool's own failure are wrapped; a runtime error is not", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const web = tool({ untrusted: true })
      const ok = yield* shape(env(store), web, success("page\u200b text"))
      assert.isTrue(ok.meta.untrusted)
      assert.include(ToolResult.text(ok), "<untrusted-content")
      assert.include(ToolResult.text(ok), "1 invisible or direction-changing characters were removed")
      assert.notInclude(ToolResult.text(ok), "\u200b")
      const own = yield* shape(env(store), web, failure(failed("bad\u200b page")))
      assert.isTrue(own.meta.untrusted)
      assert.include(ToolResult.text(own), "<untrusted-content")
      const timeout = yield* shape(
        env(store),
        web,
        failure(new ToolError.Interrupted({ toolName: "t", reason: "the turn ended", outcomeUnknown: false }))
      )
      assert.isUndefined(timeout.meta.untrusted)
      assert.notInclude(ToolResult.text(timeout), "<untrusted-content")
      // A defect of the output is the runtime's words, not the tool's.
      const defect = yield* shape(env(store), web, success(() => 1))
      assert.isUndefined(defect.meta.untrusted)
      // Images pass the wrapper untouched; the wrapper is never cut.
      const long = yield* shape(env(store), web, success("w".repeat(500)))
      const shown = ToolResult.text(long)
      assert.isTrue(shown.trimEnd().endsWith(">"))
      assert.strictEqual(shown.split("</untrusted-content").length - 1, 1)
      const trusted = yield* shape(env(store), tool(), success("page\u200b text"))
      assert.strictEqual(ToolResult.text(trusted), "page\u200b text")
      assert.isUndefined(trusted.meta.untrusted)
    }))

  it.effect("the sandbox a call ran in is in its metadata, for a success and a failure", () =>
    Effect.gen(function*() {
      const { store } = yield* recordingStore
      const ok = yield* shape(env(store), tool(), { _tag: "Success", value: "a", note: undefined, sandbox: "bwrap" })
      assert.strictEqual(ok.meta.sandbox, "bwrap")
      const bad = yield* shape(env(store), tool(), { _tag: "Failure", error: failed("x"), sandbox: "none" })
      assert.strictEqual(bad.meta.sandbox, "none")
    }))
})

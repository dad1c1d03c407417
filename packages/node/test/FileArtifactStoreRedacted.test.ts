/**
 * With the file-backed store, "stored" means a file on disk that outlives
 * the session: what the runtime writes there never holds a secret. A shell
 * command's output too long to show, a tool's oversized text and a tool's
 * binary bytes each hold secrets; the files in the session folder are then
 * read straight from disk (not through `read_output`, which redacts again),
 * as they are and, for bytes stored as base64, decoded.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Layer from "effect/Layer"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as FileArtifactStore from "../src/FileArtifactStore.js"
import * as ProcessRunner from "../src/ProcessRunner.js"
import * as ShellTool from "../src/ShellTool.js"

/** Fake credentials in shapes the default rules know; fixed characters, nobody's key. */
const awsKey = "AKIA" + "Q7ZR2M4XW6PN3KJD"
const githubToken = "ghp_" + "x9Kd2LmQ7vR4tY8wB3nC6pF1sH5jZ0aE2uG4"
const secrets = [awsKey, githubToken]
const planted = `aws_access_key_id=${awsKey} token=${githubToken}`

const leakedWindow = (haystack: string, secret: string): string | undefined => {
  for (let i = 0; i + 8 <= secret.length; i++) {
    if (haystack.includes(secret.slice(i, i + 8))) return secret.slice(i, i + 8)
  }
  return undefined
}

const longLog = Array.from({ length: 300 }, (_, i) => (i === 150 ? `line ${i}: ${planted}` : `line ${i}: ok`)).join(
  "\n"
)

const tools = (root: string) => [
  ShellTool.make({ root, sandbox: "unconfined", outputLimit: 500, defaultTimeout: "5 seconds" }),
  Tool.make("long_text", {
    description: "long text",
    parameters: {},
    readOnly: true,
    outputLimit: 500,
    handler: () => Effect.succeed(longLog)
  }),
  Tool.make("bytes", {
    description: "binary bytes",
    parameters: {},
    readOnly: true,
    handler: () =>
      Effect.succeed(new Uint8Array([0x7f, 0, 1, 2, ...new TextEncoder().encode(` ${planted} `), 0, 0xff, 0x90]))
  }),
  ArtifactStore.readTool
]

const session = Effect.acquireRelease(
  Effect.sync(() => {
    const base = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "tr-stored-redacted-")))
    const root = NodePath.join(base, "ws")
    NodeFs.mkdirSync(root)
    NodeFs.writeFileSync(NodePath.join(root, "log.txt"), `${longLog}\n`)
    return { base, root, directory: NodePath.join(base, "artifacts") }
  }),
  ({ base }) => Effect.sync(() => NodeFs.rmSync(base, { recursive: true, force: true }))
)

/** Every reading of a stored file: its text, and its bytes when the text is base64. */
const readings = (text: string): ReadonlyArray<string> => {
  const decoded = Encoding.decodeBase64(text.trim())
  return Either.isLeft(decoded) ? [text] : [text, String.fromCharCode(...decoded.right)]
}

describe("FileArtifactStore holds no secret on disk", () => {
  it.scopedLive("oversized shell output, oversized text and binary bytes: the files hold no window of a secret", () =>
    Effect.gen(function*() {
      const { directory, root } = yield* session
      const runtime = yield* Effect.map(
        Layer.build(
          ToolRuntime.layer().pipe(
            Layer.provide(Registry.layer(tools(root))),
            Layer.provide([
              FileArtifactStore.layer({ directory }).pipe(Layer.provide(NodeFileSystem.layer)),
              Redactor.layerDefault,
              Policy.layerAllowAll,
              ProcessRunner.layerUnconfined
            ])
          )
        ),
        Context.get(ToolRuntime.ToolRuntime)
      )
      const results = yield* runtime.runTurn([
        { id: "sh", name: "bash", input: { command: "cat log.txt" } },
        { id: "txt", name: "long_text", input: {} },
        { id: "bin", name: "bytes", input: {} }
      ]).pipe(
        Effect.timeoutFail({
          duration: "15 seconds",
          onTimeout: () => new Error("the turn did not finish within 15 s")
        })
      )
      for (const result of results) {
        assert.isDefined(result.meta.artifact, `${result.toolName} was not stored: ${ToolResult.text(result)}`)
      }
      const files = NodeFs.readdirSync(directory)
      assert.strictEqual(files.length, 3, `one file per stored output: ${files.join(", ")}`)
      for (const file of files) {
        const stored = NodeFs.readFileSync(NodePath.join(directory, file), "latin1")
        for (const reading of readings(stored)) {
          for (const secret of secrets) {
            const window = leakedWindow(reading, secret)
            assert.isUndefined(window, `${file} holds ${JSON.stringify(window)} of a planted secret`)
          }
        }
        // Redacted, not emptied.
        assert.include(readings(stored).at(-1)!, "aws_access_key_id=[REDACTED", file)
      }
    }))
})

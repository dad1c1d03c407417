/**
 * What an exporting tracer sees of the node tools: a refused path and a
 * failing command are the model's text, and may hold a secret. None of it
 * may reach a span's name, attributes, events or exit, which an exporter
 * turns into the span's status and exception event.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { assert, describe, it } from "@effect/vitest"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NFS from "node:fs/promises"
import * as OS from "node:os"
import * as NodePath from "node:path"
// The core's test tracer, shared: it exports what @effect/opentelemetry would.
import * as ExportingTracer from "../../core/test/ExportingTracer.js"
import { leakedWindow } from "../../core/test/FakeSecrets.js"
import * as FileTools from "../src/FileTools.js"
import * as ProcessRunner from "../src/ProcessRunner.js"
import * as ShellTool from "../src/ShellTool.js"
import * as Workspace from "../src/Workspace.js"

// Shaped like a GitHub token, so the default redactor knows it.
const TOKEN = "ghp_R8vT2mQx7LpZ4kWn9YbC3dFh6JsA1eGu5XoI"

describe("node tools under an exporting tracer", () => {
  it.scopedLive("no span carries a refused path or a failing command's text", () =>
    Effect.gen(function*() {
      const root = yield* Effect.acquireRelease(
        Effect.promise(() => NFS.mkdtemp(NodePath.join(OS.tmpdir(), "tr-tracing-"))),
        (dir) => Effect.promise(() => NFS.rm(dir, { recursive: true, force: true }))
      )
      const { spans, text, tracer } = ExportingTracer.make()
      const runtime = yield* ToolRuntime.ToolRuntime.pipe(
        Effect.provide(
          ToolRuntime.layer().pipe(
            Layer.provide(Registry.layer([...FileTools.all(), ShellTool.make({ root, sandbox: "unconfined" })])),
            Layer.provide([
              ArtifactStore.layerMemory(),
              Redactor.layerDefault,
              Policy.layerAllowAll,
              Workspace.layer(root),
              NodeFileSystem.layer,
              ProcessRunner.layerUnconfined
            ])
          )
        )
      )
      const results = yield* runtime.runTurn([
        { id: "c1", name: "read_file", input: { path: `../${TOKEN}/a.txt` } },
        { id: "c2", name: "bash", input: { command: `no-such-command-${TOKEN}` } },
        { id: "c3", name: "bash", input: { command: `echo ${TOKEN} >&2; exit 3` } }
      ]).pipe(Effect.withTracer(tracer))
      assert.deepStrictEqual(results.map((r) => r.isError), [true, true, true])
      assert.isAbove(spans.length, 0)
      const everything = text() + JSON.stringify(results.map(({ callId: _, ...rest }) => rest))
      assert.isUndefined(leakedWindow(everything, TOKEN), everything)
    }))
})

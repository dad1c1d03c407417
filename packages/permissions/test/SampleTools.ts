/**
 * The tools the permission tests run against: one of each kind of subject
 * (a path read, a path write, a command, a URL, none) and an MCP tool.
 * Handlers record what they ran with, so a test can tell a denied call from
 * one that ran.
 */
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import type * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Approver from "../src/Approver.js"
import * as Engine from "../src/Engine.js"
import * as PermissionHooks from "../src/PermissionHooks.js"
import * as LinkFileSystem from "./LinkFileSystem.js"

export const workspaceRoot = "/work/project"

export const readFile = Tool.make("read_file", {
  description: "Reads a file.",
  parameters: { path: Schema.String },
  readOnly: true,
  subject: ({ path }) => ({ _tag: "Path", path, access: "read" }),
  handler: ({ path }) => Effect.succeed(`contents of ${path}`)
})

export const writeFile = Tool.make("write_file", {
  description: "Writes a file.",
  parameters: { path: Schema.String, content: Schema.String },
  subject: ({ path }) => ({ _tag: "Path", path, access: "write" }),
  handler: ({ path }) => Effect.succeed(`wrote ${path}`)
})

export const bash = Tool.make("bash", {
  description: "Runs a shell command.",
  // `cwd` as the shell tool takes it: where the command starts.
  parameters: { command: Schema.String, cwd: Schema.optional(Schema.String) },
  subject: ({ command, cwd }) => ({ _tag: "Command", command, ...(cwd === undefined ? {} : { cwd }) }),
  handler: ({ command }) => Effect.succeed(`ran ${command}`)
})

/**
 * A shell tool that runs its commands in an OS sandbox and says so: a call
 * is `confined` unless it asks to leave the sandbox (`unconfined`); leaving
 * `sandbox` out is a tool that runs no sandbox.
 */
export const sandboxedBash = Tool.make("bash", {
  description: "Runs a shell command, in the sandbox unless asked otherwise.",
  parameters: { command: Schema.String, sandbox: Schema.optional(Schema.Literal("confined", "unconfined")) },
  subject: ({ command, sandbox }) => ({ _tag: "Command", command, ...(sandbox === undefined ? {} : { sandbox }) }),
  handler: ({ command }) => Effect.succeed(`ran ${command}`)
})

export const webFetch = Tool.make("web_fetch", {
  description: "Fetches a URL.",
  parameters: { url: Schema.String },
  readOnly: true,
  subject: ({ url }) => ({ _tag: "Url", url }),
  handler: ({ url }) => Effect.succeed(`fetched ${url}`)
})

export const closeTicket = Tool.make("close_ticket", {
  description: "Closes a ticket.",
  parameters: { ticketId: Schema.String },
  risk: "high",
  handler: ({ ticketId }) => Effect.succeed(`closed ${ticketId}`)
})

export const mcpCreateIssue = Tool.make("mcp__github__create_issue", {
  description: "Creates a GitHub issue.",
  parameters: { title: Schema.String },
  handler: ({ title }) => Effect.succeed(`created ${title}`)
})

export const tools = [readFile, writeFile, bash, webFetch, closeTicket, mcpCreateIssue] as const

let next = 0

/** What the runtime hands the policy for a valid call. */
export const request = <I>(tool: Tool.Tool<string, I, any, any, any>, input: I, callId?: string): Policy.Request => ({
  callId: callId ?? `call_${++next}`,
  tool,
  input,
  subject: tool.subject(input)
})

/**
 * The real runtime with the engine as its policy: validation, authorization,
 * execution and shaping as in production.
 */
export const runtimeWith = (options: {
  readonly tools: ReadonlyArray<Tool.Any>
  readonly engine: Omit<Engine.Config, "workspaceRoot">
  readonly approver: Layer.Layer<Approver.Approver>
  readonly after?: ReadonlyArray<PermissionHooks.After> | undefined
}) => {
  const store = ArtifactStore.layerMemory()
  const policy = Engine.layer({ workspaceRoot, ...options.engine }).pipe(
    Layer.provide([options.approver, Redactor.layerDefault, LinkFileSystem.layer])
  )
  const hooks = PermissionHooks.layerAfter(options.after ?? [])
  return ToolRuntime.ToolRuntime.pipe(
    Effect.provide(
      ToolRuntime.layer().pipe(
        Layer.provide([Registry.layer(options.tools), store, Redactor.layerDefault, policy, hooks]),
        Layer.provide(store)
      )
    )
  )
}

export const call = (id: string, name: string, input: unknown) => ({ id, name, input })

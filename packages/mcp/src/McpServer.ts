/**
 * Any registry, served as an MCP server: every MCP client (an IDE, a
 * desktop assistant, another agent) that calls our tools gets the runtime's
 * guarantees with them, because each `tools/call` is one `runCall`: schema
 * and business-rule validation, the permission policy, the total and idle
 * limits, redaction, truncation and untrusted marking. A failure of any
 * stage is an `isError` result, never a JSON-RPC error, so the client's
 * model reads what went wrong and how to fix it.
 *
 * The client's `notifications/cancelled` interrupts the call (its handler
 * stops, its finalizers run); progress the handler reports is forwarded as
 * `notifications/progress` when the client asked for it. Tools and results
 * are encoded by `@tool-runtime/providers/Mcp`, the MCP codec the other
 * provider formats sit next to: annotations derived from what the registry
 * knows (`readOnlyHint` from the read-only mark, `destructiveHint` for writes
 * not of low risk, `openWorldHint` for untrusted output). Each result also
 * carries the runtime's error code and shaping details in `_meta`.
 *
 * Each request is a turn of its own, and clients send requests at once, so
 * the read-only marks are kept across requests too: reads run together, a
 * call that is not read-only waits for the calls running and runs alone.
 *
 * What a call logs (`Effect.log…` in its handler, and the runtime's own
 * lines) goes to the client as `notifications/message` on the call's own
 * stream, redacted with the runtime's rules and cut at 4,000 characters,
 * from `info` up until the client sets another level (`logging/setLevel`);
 * a failed call adds a `warning` with its code. The levels below Effect's
 * minimum log level are never produced, so `debug` also needs
 * `Logger.withMinimumLogLevel` in the serving program.
 *
 * On stdio, stdout belongs to the protocol: the process serving must log to
 * stderr ({@link layerLoggerStderr}).
 *
 * @since 0.1.0
 */
import type {
  CallToolResult,
  ClientCapabilities,
  ListToolsResult,
  LoggingLevel,
  ResourceLink,
  ServerContext,
  Transport
} from "@modelcontextprotocol/server"
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, Server } from "@modelcontextprotocol/server"
import { serveStdio as serveStdioEntry } from "@modelcontextprotocol/server/stdio"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import type * as ClientRequests from "@tool-runtime/core/ClientRequests"
import type * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Mcp from "@tool-runtime/providers/Mcp"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Readable, Writable } from "node:stream"
import type * as McpResource from "./McpResource.js"
import * as McpResources from "./McpResources.js"
import * as McpRounds from "./McpRounds.js"
import * as McpServerStdio from "./McpServerStdio.js"

/**
 * The server could not be connected to its transport.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpServerError extends Schema.TaggedError<McpServerError>()("McpServerError", {
  reason: Schema.String
}) {
  override get message() {
    return `The MCP server could not start: ${this.reason}`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** What the server calls itself in the handshake. Default `tool-runtime`. */
  readonly name?: string | undefined
  readonly version?: string | undefined
  /** Shown to the client's model, if the client passes it on. */
  readonly instructions?: string | undefined
  /**
   * Resources of your own, served next to the tools' stored outputs.
   *
   * @since 0.4.0
   */
  readonly resources?: ReadonlyArray<McpResource.Definition> | undefined
  /**
   * Under 2026-07-28, how long a call waiting for its client's answers is
   * kept (default 10 minutes) and how many may wait at once (256).
   *
   * @since 0.4.0
   */
  readonly questions?: McpRounds.Options | undefined
}

const cancelled = (signal: AbortSignal): Effect.Effect<string> =>
  Effect.async<string>((resume) => {
    const reason = () => resume(Effect.succeed("the MCP client cancelled the request"))
    if (signal.aborted) {
      reason()
      return
    }
    signal.addEventListener("abort", reason, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", reason))
  })

const levels: ReadonlyArray<LoggingLevel> = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
]

const levelOf: Record<LogLevel.Literal, LoggingLevel | undefined> = {
  All: "debug",
  Trace: "debug",
  Debug: "debug",
  Info: "info",
  Warning: "warning",
  Error: "error",
  Fatal: "critical",
  None: undefined
}

/** Stored outputs a session keeps links to (and may read). */
const maxLinks = 1_000

/** Longest log message sent, in characters, after redaction. */
const maxLogChars = 4_000

/**
 * One part of a log message as text. Whatever a handler logs (a value with
 * a getter that throws, a cycle) must not break the call that logged it.
 */
const partText = (part: unknown): string => {
  if (typeof part === "string") return part
  try {
    return JSON.stringify(part) ?? String(part)
  } catch {
    try {
      return String(part)
    } catch {
      return "[a value that cannot be shown]"
    }
  }
}

const messageText = (message: unknown, cause: Cause.Cause<unknown>): string => {
  const text = Array.isArray(message) ? message.map(partText).join(" ") : partText(message)
  if (Cause.isEmpty(cause)) return text
  try {
    return `${text}\n${Cause.pretty(cause)}`
  } catch {
    return text
  }
}

/** Calls each server is answering now: a client that ends its input still gets the answers it asked for. */
const running = new WeakMap<Server, number>()

/**
 * Whether the server is answering a call now: a session with one must not
 * be closed to make room for another.
 *
 * @internal
 */
export const isBusy = (server: Server): boolean => (running.get(server) ?? 0) > 0

/**
 * A result as the SDK's server sends it, with the runtime's error code,
 * hint and shaping details in `_meta` for clients that branch on them.
 *
 * @since 0.1.0
 * @category encoding
 */
export const toCallToolResult = (result: ToolResult.ToolResult, tool?: Tool.Any): CallToolResult =>
  encodeLinked(result, McpResources.linkOf(result), tool)

/**
 * The encoding, given the result's resource link (computed once by the caller) and the tool, whose output
 * schema a success must keep to (`Mcp.encodeResult`).
 */
const encodeLinked = (
  result: ToolResult.ToolResult,
  link: ResourceLink | undefined,
  tool: Tool.Any | undefined
): CallToolResult => {
  const encoded = Mcp.encodeResult(result, { tool }) as unknown as CallToolResult
  // A stored output is offered as a resource too (see McpResources).
  return {
    ...encoded,
    ...(link === undefined ? {} : { content: [...encoded.content, link] }),
    _meta: {
      "tool-runtime/meta": result.meta,
      ...(result.error === undefined ? {} : { "tool-runtime/error": result.error })
    }
  }
}

/**
 * Builds an SDK `Server` whose tools are the runtime's registry. It is not
 * connected yet: see {@link serve}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<Server, never, ToolRuntime.ToolRuntime> =>
  Effect.flatMap(makeGate, (gate) => makeWithGate(gate, options))

/**
 * Readers take one permit, writers all of them. One gate per registry
 * served: an HTTP server gives every session a `Server` of its own, and a
 * write in one session must still wait for the reads of the others.
 *
 * @internal
 */
export interface Gate {
  readonly permits: number
  readonly semaphore: Effect.Semaphore
}

/** @internal */
export const makeGate: Effect.Effect<Gate> = Effect.map(
  Effect.makeSemaphore(1_024),
  (semaphore) => ({ permits: 1_024, semaphore })
)

/**
 * What the instances of one served endpoint share besides the gate: the
 * revision an instance serves, and for 2026-07-28 (no sessions) the calls
 * parked between rounds and the stored outputs handed out.
 *
 * @internal
 */
export interface Serving {
  readonly era: "legacy" | "modern"
  readonly rounds?: McpRounds.Rounds | undefined
  /** Under 2026-07-28, the links of every result this endpoint gave (see McpResources). */
  readonly linked?: Map<string, ResourceLink> | undefined
}

const legacyServing: Serving = { era: "legacy" }

/** The client's capabilities: on the request's own envelope under 2026-07-28, from `initialize` before. */
const capabilitiesOf = (server: Server, ctx: ServerContext): ClientCapabilities | undefined =>
  ((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    | ClientCapabilities
    | undefined) ?? server.getClientCapabilities()

/** @internal */
export const makeWithGate = (
  { permits, semaphore: gate }: Gate,
  options?: Options,
  serving: Serving = legacyServing
): Effect.Effect<Server, never, ToolRuntime.ToolRuntime> =>
  Effect.gen(function*() {
    const runtime = yield* ToolRuntime.ToolRuntime
    const effectRuntime = yield* Effect.runtime<never>()
    const run = Runtime.runPromise(effectRuntime)
    const modern = serving.era === "modern"
    const server = new Server(
      { name: options?.name ?? "tool-runtime", version: options?.version ?? "0.1.0" },
      {
        capabilities: { tools: {}, logging: {}, resources: { subscribe: true } },
        ...(options?.instructions === undefined ? {} : { instructions: options.instructions }),
        // Questions are asked by this module, never by re-running a handler.
        inputRequired: { legacyShim: false }
      }
    )
    // The SDK's types come from its zod schemas, the codec's from its copy
    // of the specification: the same shapes, which TypeScript cannot see.
    const tools = Mcp.toolDefinitions(runtime.registry) as unknown as ListToolsResult["tools"]
    server.setRequestHandler("tools/list", () => ({ tools }))
    // The outputs this session's results linked to, the only ones it may read.
    const linked = serving.linked ?? new Map<string, ResourceLink>()
    const resources = McpResources.install(server, runtime, linked, effectRuntime, options?.resources)
    // Until the client chooses, what an operator would want to see: info and above.
    let minimum: LoggingLevel = "info"
    server.setRequestHandler("logging/setLevel", (request) => {
      minimum = request.params.level
      return {}
    })
    server.setRequestHandler("tools/call", (request, ctx) => {
      const tool = runtime.registry.get(request.params.name)?.tool
      const readOnly = tool?.readOnly ?? true
      const token = request.params._meta?.progressToken
      // Under 2026-07-28 a request says which logs it wants, and none when it does not say.
      const wanted = modern
        ? (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY] as LoggingLevel | undefined
        : minimum
      // The protocol wants `progress` to grow with every notification: a
      // handler's own count is used while it does, a report without one
      // counts one more, and one that would go back is not sent.
      let progress: number | undefined
      // Sent on the request's own stream, so that a client over HTTP gets
      // them with the call's answer. Redacted with the runtime's rules, then cut.
      const log = (level: LoggingLevel, text: string) => {
        if (wanted === undefined || levels.indexOf(level) < levels.indexOf(wanted)) return
        const redacted = runtime.redact(text)
        ctx.mcpReq.notify({
          method: "notifications/message",
          params: {
            level,
            logger: request.params.name,
            data: redacted.length > maxLogChars ? `${redacted.slice(0, maxLogChars)}…` : redacted
          }
        }).catch(() => {})
      }
      const logger = Logger.make(({ cause, logLevel, message }) => {
        const level = levelOf[logLevel._tag]
        if (level !== undefined) log(level, messageText(message, cause))
      })
      const onEvent = (event: ToolRuntime.Event) => {
        if (event._tag === "CallFinished") {
          const { error } = event.result
          return Effect.sync(() =>
            error === undefined ?
              log("debug", "the call succeeded") :
              log("warning", `the call failed (${error.code}): ${ToolResult.text(event.result).split("\n", 1)[0]}`)
          )
        }
        if (event._tag !== "Progress") return Effect.void
        if (event.message !== undefined) log("debug", event.message)
        if (token === undefined) return Effect.void
        const next = event.progress ?? (progress ?? 0) + 1
        // The first report may be 0 ("started"); after it, only growth.
        if (progress !== undefined && next <= progress) return Effect.void
        progress = next
        return Effect.tryPromise(() =>
          ctx.mcpReq.notify({
            method: "notifications/progress",
            params: {
              progressToken: token,
              progress: next,
              ...(event.total === undefined ? {} : { total: event.total }),
              ...(event.message === undefined ? {} : { message: event.message })
            }
          })
        ).pipe(Effect.ignore)
      }
      // Stored outputs belong to the session whose results named them, as
      // through resources/read: the store's ids are not secrets, and an HTTP
      // server's sessions are different clients.
      if (request.params.name === ArtifactStore.readToolName && tool !== undefined) {
        const id = request.params.arguments?.id
        // The marker names an output `out_…`, the result's meta `artifact:out_…`: either is this session's own.
        const own = (location: string) =>
          linked.has(McpResources.uriOf(location)) || linked.has(McpResources.uriOf(`artifact:${location}`))
        if (typeof id === "string" && !own(id)) {
          return {
            isError: true,
            content: [{
              type: "text" as const,
              text: `No stored output "${
                runtime.redact(id).slice(0, 100)
              }" in this session: an output can be read only by the session whose results named it.`
            }],
            _meta: { "tool-runtime/error": { code: "not_found" } }
          } satisfies CallToolResult
        }
      }
      const held = readOnly ? 1 : permits
      // A call waiting for its client's answer gives its place in the gate back, and takes it again before it
      // goes on: a write still runs alone, but a person who never answers does not hold every other call.
      const whileWaiting = <A, E>(effect: Effect.Effect<A, E>) =>
        Effect.acquireUseRelease(gate.release(held), () => effect, () => gate.take(held))
      const call = (client: ClientRequests.Channel, interruptWhen: Effect.Effect<string>) => {
        running.set(server, (running.get(server) ?? 0) + 1)
        const waiting: ClientRequests.Channel = {
          elicit: client.elicit === undefined ? undefined : (question) => whileWaiting(client.elicit!(question)),
          sample: client.sample === undefined ? undefined : (question) => whileWaiting(client.sample!(question))
        }
        const callId = `mcp-${String(ctx.mcpReq.id)}`
        const calling = runtime.runCall(
          { id: callId, name: request.params.name, input: request.params.arguments ?? {} },
          // On the request's own stream, as the logs are: a client over HTTP gets the question with the call.
          { interruptWhen, onEvent, client: waiting }
        )
        // Cancelled while it waited for its place: it never starts, and says so.
        type Outcome = { readonly _tag: "Ran"; readonly result: ToolResult.ToolResult } | {
          readonly _tag: "Stopped"
          readonly reason: string
        }
        return Effect.raceFirst(
          gate.take(held).pipe(Effect.as<string | undefined>(undefined)),
          interruptWhen
        ).pipe(
          Effect.flatMap((stopped): Effect.Effect<Outcome> =>
            stopped === undefined
              ? Effect.ensuring(
                Effect.map(calling, (result): Outcome => ({ _tag: "Ran", result })),
                gate.release(held)
              )
              : Effect.succeed<Outcome>({ _tag: "Stopped", reason: stopped })
          ),
          Effect.map((outcome): CallToolResult => {
            if (outcome._tag === "Stopped") {
              // The runtime's own answer for a call that never started, encoded as every result is.
              const never = new ToolError.NotExecuted({
                toolName: runtime.redact(request.params.name),
                reason: `${outcome.reason} before it could start`
              })
              return encodeLinked(
                ToolResult.make({
                  callId,
                  toolName: never.toolName,
                  content: [{ _tag: "text", text: runtime.redact(`${never.message}\n${never.hint}`) }],
                  isError: true,
                  error: {
                    code: never.code,
                    retryable: never.retryable,
                    hint: never.hint,
                    outcomeUnknown: never.outcomeUnknown
                  },
                  meta: { durationMillis: 0, redactions: 0 }
                }),
                undefined,
                tool
              )
            }
            const result = outcome.result
            const link = McpResources.linkOf(result)
            const encoded = encodeLinked(result, link, tool)
            if (link !== undefined) {
              linked.delete(link.uri)
              linked.set(link.uri, link)
              // The oldest links go first: a long session does not grow without end.
              if (linked.size > maxLinks) linked.delete(linked.keys().next().value!)
            }
            return encoded
          }),
          Effect.provide(Logger.add(logger)),
          Effect.ensuring(Effect.sync(() => running.set(server, running.get(server)! - 1)))
        )
      }
      if (!modern || serving.rounds === undefined) {
        return run(call(
          McpRounds.pushChannel(
            capabilitiesOf(server, ctx),
            (question, options) => ctx.mcpReq.send(question as never, options)
          ),
          cancelled(ctx.mcpReq.signal)
        ))
      }
      const rounds = serving.rounds
      const state = ctx.mcpReq.requestState<unknown>()
      const round = typeof state === "string"
        ? rounds.resume<CallToolResult>(
          state,
          request.params.name,
          request.params.arguments,
          ctx.mcpReq.inputResponses,
          ctx.mcpReq.signal
        )
        : rounds.start(
          request.params.name,
          request.params.arguments,
          capabilitiesOf(server, ctx),
          call,
          ctx.mcpReq.signal,
          ctx.mcpReq.inputResponses
        )
      // A refused state is the protocol's error, thrown as the SDK's own so it keeps its code.
      return run(Effect.either(round)).then((answer) => {
        if (Either.isLeft(answer)) throw answer.left
        return answer.right.result as CallToolResult
      })
    })
    // A subscription lives as long as its session.
    server.onclose = resources.close
    return server
  })

/**
 * Connects the registry's server to a transport (stdio, streamable HTTP, in
 * memory) until the scope closes.
 *
 * @since 0.1.0
 * @category serving
 */
export const serve = (
  transport: Transport,
  options?: Options
): Effect.Effect<Server, McpServerError, ToolRuntime.ToolRuntime | Scope.Scope> =>
  Effect.flatMap(make(options), (server) =>
    Effect.acquireRelease(
      Effect.tryPromise({
        try: () => server.connect(transport),
        catch: (error) => new McpServerError({ reason: error instanceof Error ? error.message : String(error) })
      }).pipe(Effect.as(server)),
      () => Effect.ignore(Effect.tryPromise(() => server.close()))
    ))

/**
 * Serves the registry on stdin and stdout until the client hangs up (stdin
 * ends; the calls already sent are still answered) or the server is closed.
 *
 * @since 0.1.0
 * @category serving
 */
export const serveStdio = (
  options?:
    & Options
    & McpServerStdio.Options
    & { readonly stdin?: Readable | undefined; readonly stdout?: Writable | undefined }
): Effect.Effect<void, McpServerError, ToolRuntime.ToolRuntime> =>
  Effect.scoped(Effect.gen(function*() {
    const stdin = options?.stdin ?? process.stdin
    const done = yield* Deferred.make<void>()
    const finish = () => Deferred.unsafeDone(done, Effect.void)
    // The transport does not notice that stdin ended; without this the
    // process would outlive its client.
    stdin.once("end", finish)
    stdin.once("close", finish)
    const gate = yield* makeGate
    const runtime = yield* Effect.runtime<ToolRuntime.ToolRuntime>()
    // The client's first message chooses the revision (server/discover or
    // initialize) and one instance serves the connection in it.
    const modern: Serving = { era: "modern", rounds: McpRounds.make(options?.questions), linked: new Map() }
    const servers: Array<Server> = []
    const changing = (options?.resources ?? []).flatMap((resource) =>
      resource._tag === "Resource" && resource.changes !== undefined ? [resource] : []
    )
    const handle = serveStdioEntry(async (context) => {
      const server = await Runtime.runPromise(runtime)(
        makeWithGate(gate, options, context.era === "modern" ? modern : legacyServing)
      )
      servers.push(server)
      // Under 2026-07-28 every change goes out; the SDK's entry sends it only to listening subscriptions.
      if (context.era === "modern") {
        for (const resource of changing) {
          Runtime.runFork(runtime)(
            Stream.runForEach(resource.changes!, () =>
              Effect.promise(() => server.sendResourceUpdated({ uri: resource.uri }).catch(() => undefined))).pipe(
                Effect.interruptible,
                Effect.raceFirst(Deferred.await(done))
              )
          )
        }
      }
      return server
    }, {
      transport: new McpServerStdio.ServerTransport(stdin, options?.stdout ?? process.stdout, options),
      onerror: () => {}
    })
    yield* Effect.addFinalizer(() =>
      Effect.promise(() => handle.close().catch(() => undefined))
    )
    yield* Deferred.await(done)
    // Input ended, but the calls it sent are answered before the server
    // closes; each of them ends within its tool's own time limit.
    yield* Effect.sleep("20 millis").pipe(
      Effect.repeat({ until: () => servers.every((server) => (running.get(server) ?? 0) === 0) })
    )
  }))

/**
 * The default logger, writing to stderr: for processes whose stdout is the
 * protocol. What a handler logs arrives redacted (core's `HandlerLogs`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerLoggerStderr: Layer.Layer<never> = Logger.replace(
  Logger.defaultLogger,
  Logger.withConsoleError(Logger.stringLogger)
)

/**
 * Connections to the MCP servers of a configuration, kept alive for the
 * runtime: one connection per server, started when the service is built,
 * closed when its scope ends.
 *
 * A server is a process (or an HTTP endpoint) the runtime does not control,
 * so everything that can go wrong with it is turned into a typed error of
 * the call that saw it, never a hung turn:
 *
 * - a server that exits or crashes fails the calls in flight at once (the
 *   SDK rejects them when the pipe closes) and is started again on the next
 *   call;
 * - a call that is interrupted (its time limit, an interrupted turn) aborts
 *   its request, and the SDK sends the protocol's `notifications/cancelled`;
 *   the server is then pinged before its next call, and restarted if it no
 *   longer answers;
 * - a server that never finishes its handshake fails to start within its
 *   startup limit, and its process is stopped;
 * - a stdio server leads a process group of its own (`McpStdio`): stopping
 *   it, or its crash, leaves nothing it started alive;
 * - given a sandbox (`confine`, e.g. `Sandbox.prepare` of
 *   `@tool-runtime/node`), every stdio server runs inside it, under the
 *   policy its entry names or the sandbox's own; an entry that asks for a
 *   sandbox on a client without one is not started at all.
 *
 * What a stdio server writes to stderr goes to the Effect log (annotated with
 * the server's name), never into a result.
 *
 * @since 0.1.0
 */
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/client"
import { Client, ProtocolError, SdkError, SdkErrorCode, UnauthorizedError } from "@modelcontextprotocol/client"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as JsonLines from "./JsonLines.js"
import * as McpCallWatch from "./McpCallWatch.js"
import * as McpConfig from "./McpConfig.js"
import * as McpConnection from "./McpConnection.js"
import { McpClientError } from "./McpConnection.js"
import * as McpElicitation from "./McpElicitation.js"
import * as McpOAuth from "./McpOAuth.js"
import * as McpStdio from "./McpStdio.js"

export {
  /**
   * What can go wrong talking to a server (defined in `McpConnection`).
   *
   * @since 0.1.0
   * @category errors
   */
  McpClientError
} from "./McpConnection.js"

/**
 * A progress notification of a running call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Progress {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  /** Called from outside any fiber, once per progress notification. */
  readonly onProgress?: ((progress: Progress) => void) | undefined
  /**
   * The SDK's own deadline for the request: a backstop for callers that do
   * not bound the call themselves. The runtime's limits run shorter.
   */
  readonly timeoutMillis?: number | undefined
  /**
   * The call may be sent again when its answer is lost on the way back (an
   * HTTP response stream that breaks before the result): true only for a
   * read-only tool. Otherwise such a call fails with `outcome_unknown`,
   * never sent twice. Default false.
   *
   * @since 0.4.0
   */
  readonly resendable?: boolean | undefined
}

/**
 * How a server's process is doing, for health displays and tests.
 *
 * @since 0.1.0
 * @category models
 */
export interface Status {
  /** How many times the server was started (1 until it crashes). */
  readonly starts: number
  readonly connected: boolean
  /** The process id of a stdio server's current process. */
  readonly pid: number | undefined
  /** How a stdio server is confined (the sandbox's summary line), or `unconfined`. */
  readonly confinement: string | undefined
  /**
   * The MCP revision spoken with the server: `2026-07-28` when it offered it
   * to `server/discover`, else the one its `initialize` settled on.
   *
   * @since 0.4.0
   */
  readonly protocol: string | undefined
}

/**
 * One configured server, started.
 *
 * @since 0.1.0
 * @category models
 */
export interface Server {
  readonly name: string
  readonly config: McpConfig.Server
  /** The tools the server listed last: when it started, and again after each `tools/list_changed`. */
  readonly tools: ReadonlyArray<McpTool>
  /**
   * Calls `listener` each time the server's tools were listed again after
   * it said they changed (`notifications/tools/list_changed`); returns the
   * way to stop.
   *
   * @since 0.4.0
   */
  readonly onToolsChanged: (listener: () => void) => () => void
  readonly call: (
    tool: string,
    args: Record<string, unknown>,
    options?: CallOptions
  ) => Effect.Effect<CallToolResult, McpClientError>
  readonly status: Effect.Effect<Status>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Default startup limit (handshake and tool list). Default 30 s. */
  readonly startupTimeout?: Duration.DurationInput | undefined
  /** How long a server suspected of hanging gets to answer a ping. Default 5 s. */
  readonly pingTimeout?: Duration.DurationInput | undefined
  /** The level at which servers' stderr lines are logged. Default `Debug`. */
  readonly stderrLevel?: LogLevel.LogLevel | undefined
  /** What the client calls itself in the handshake. */
  readonly clientInfo?: { readonly name: string; readonly version: string } | undefined
  /**
   * Fail when any server cannot start, as if every server were `required`.
   * Default false: a server that fails is left out, its failure kept in
   * {@link Service.failures}, and each call to one of its tools answered
   * with `tool_unavailable` and the cause.
   */
  readonly requireAll?: boolean | undefined
  /**
   * Who answers a server's questions (`elicitation/create`). Default
   * {@link McpElicitation.headless}: declined, with the reason.
   */
  readonly elicit?: McpElicitation.Handler | undefined
  /**
   * How an HTTP server that answers 401 is authorized (OAuth 2.1): who
   * shows the person the approval page, where tokens are kept, how long to
   * wait. Default: the URL in the log, tokens in `McpOAuthStore.fileStore`,
   * 2 minutes. A server's entry can say `"oauth": false`.
   *
   * @since 0.4.0
   */
  readonly oauth?: McpOAuth.Options | undefined
  /**
   * The sandbox stdio servers run in: `Sandbox.prepare` of
   * `@tool-runtime/node` (`(yield* Sandbox.Sandbox).prepare`). Without
   * one, a server whose entry names a `sandbox` policy other than
   * `danger-full-access` does not start.
   *
   * @since 0.4.0
   */
  readonly confine?: McpStdio.Confine | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The servers that started, in configuration order. */
  readonly servers: ReadonlyArray<Server>
  /**
   * The servers that did not start, with why: their tools are not
   * available, and a call to one gets `tool_unavailable` with this cause.
   */
  readonly failures: ReadonlyArray<McpClientError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class McpClient extends Context.Tag("@tool-runtime/mcp/McpClient")<McpClient, Service>() {}

let sharedRedactor: Redactor.Service | undefined
/** The default rules, compiled once, when the application provides no `Redactor`. */
const defaultRedactor = (): Redactor.Service => sharedRedactor ??= Redactor.make()

const describe = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === "string" ? error : "unknown error"

/**
 * Splits a byte stream into lines for the log, bounded in memory.
 *
 * @since 0.1.0
 * @category logging
 */
export const lineSplitter = JsonLines.logLines

/**
 * Starts one server, lists its tools, and keeps it running (restarting it
 * after a crash) until the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = (
  name: string,
  config: McpConfig.Server,
  options?: Options
): Effect.Effect<Server, McpClientError, Scope.Scope> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const log = Runtime.runFork(runtime)
    const level = options?.stderrLevel ?? LogLevel.Debug
    const startupMillis = config.startupTimeout ??
      Duration.toMillis(options?.startupTimeout ?? Duration.seconds(30))
    const pingMillis = Duration.toMillis(options?.pingTimeout ?? Duration.seconds(5))
    const clientInfo = options?.clientInfo ?? { name: "tool-runtime", version: "0.1.0" }

    // One provider for the life of the server: its tokens outlive a restart.
    const oauth = McpConfig.isStdio(config) ? undefined : McpOAuth.provider(name, config, options?.oauth, runtime)
    // A server's words (its stderr, its error messages) may hold secrets ("starting with token …"):
    // redacted before they reach a log, an error or `failures`, whoever reads those.
    const redactor = Option.getOrElse(yield* Effect.serviceOption(Redactor.Redactor), defaultRedactor)
    const clean = (text: string) => redactor.redact(oauth === undefined ? text : oauth.scrub(text)).text
    const scrubbed = (error: unknown) => clean(describe(error))
    // A person may have to approve before the handshake can finish.
    const handshakeMillis = startupMillis +
      (oauth === undefined ? 0 : Duration.toMillis(options?.oauth?.timeout ?? McpOAuth.defaultTimeout))

    // Its last words, redacted: a server that dies before its handshake says why there, and nowhere else.
    const lastLines: Array<string> = []
    const onStderr = (line: string) => {
      const safe = clean(line)
      lastLines.push(safe.length > 300 ? `${safe.slice(0, 300)}…` : safe)
      if (lastLines.length > 3) lastLines.shift()
      log(Effect.logWithLevel(level, safe).pipe(Effect.annotateLogs({ mcpServer: name, stream: "stderr" })))
    }
    const withLastWords = (error: McpClientError): Effect.Effect<never, McpClientError> =>
      // Lines still in the pipe when the process closed arrive a moment later.
      Effect.sleep("50 millis").pipe(Effect.zipRight(Effect.suspend(() =>
        Effect.fail(
          lastLines.length === 0 ? error : new McpClientError({
            server: error.server,
            reason: error.reason,
            detail: `${error.detail}; its stderr ended with: ${lastLines.join(" | ")}`
          })
        )
      )))

    let current: McpConnection.Connection | undefined
    let starts = 0
    let tools: ReadonlyArray<McpTool> = []
    const listeners = new Set<() => void>()
    // One listing at a time, the last notice wins: a burst of notices lists the tools once or twice, not once each.
    let relisting = false
    let again = false
    const relist = (client: Client): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (relisting) {
          again = true
          return Effect.void
        }
        relisting = true
        again = false
        return McpConnection.listTools(name, client, startupMillis, scrubbed).pipe(
          Effect.matchEffect({
            onFailure: (error) =>
              Effect.logWarning(`its tools changed, but listing them again failed: ${error.message}`),
            onSuccess: (listed) =>
              Effect.sync(() => {
                tools = listed
                for (const listener of listeners) listener()
              })
          }),
          Effect.annotateLogs({ mcpServer: name }),
          Effect.ensuring(Effect.sync(() => {
            relisting = false
          })),
          Effect.zipRight(Effect.suspend(() => again ? relist(client) : Effect.void))
        )
      })
    // Set when a call was abandoned: the server may be stuck, so it must
    // prove it is alive before it gets another call.
    let suspect = false
    const lock = yield* Effect.makeSemaphore(1)

    let confinement: string | undefined
    // Set when a stdio server closed on being asked which revision it speaks: it gets 2025-11-25 from then on.
    let legacyOnly = false
    let probeClosed = false
    const start: Effect.Effect<McpConnection.Connection, McpClientError> = Effect.flatMap(
      McpConfig.isStdio(config)
        ? Effect.tap(
          Effect.mapError(
            McpStdio.launchOf(config, options?.confine).pipe(Effect.annotateLogs({ mcpServer: name })),
            (detail) => new McpClientError({ server: name, reason: "start_failed", detail })
          ),
          (launch) =>
            Effect.sync(() => {
              confinement = launch.confinement.summary
            })
        )
        : Effect.succeed(undefined),
      (launch) =>
        startWith(launch).pipe(
          Effect.catchIf(() => probeClosed && !legacyOnly, () => {
            legacyOnly = true
            return Effect.logInfo("the server closed when asked for its revision; starting it again with 2025-11-25")
              .pipe(Effect.annotateLogs({ mcpServer: name }), Effect.zipRight(startWith(launch)))
          })
        )
    )
    const startWith = (
      launch: McpStdio.Confined | undefined
    ): Effect.Effect<McpConnection.Connection, McpClientError> => {
      // The last words of this process, not of one before it.
      lastLines.length = 0
      const { pid, transport } = McpConnection.makeTransport(config, launch, onStderr, oauth)
      const client = new Client(clientInfo, {
        capabilities: McpElicitation.capabilities,
        versionNegotiation: { mode: McpConnection.negotiation(config, legacyOnly) },
        // A 2026-07-28 server announces changes on a subscription the SDK opens; a 2025 one by notification.
        listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => log(relist(client)) } }
      })
      McpElicitation.install(client, name, options?.elicit ?? McpElicitation.headless, runtime)
      client.setNotificationHandler("notifications/tools/list_changed", () => {
        log(relist(client))
      })
      const connection: McpConnection.Connection = { client, transport, pid, closed: false }
      client.onclose = () => {
        connection.closed = true
      }
      client.onerror = (error) => {
        log(Effect.logDebug(`transport error: ${scrubbed(error)}`).pipe(Effect.annotateLogs({ mcpServer: name })))
      }
      return Effect.tryPromise({
        try: (signal) => client.connect(transport, { signal, timeout: handshakeMillis }),
        catch: (error) => {
          // A server that exits on any request before `initialize` (some SDKs' servers do) is a 2025 server.
          probeClosed = error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed &&
            McpConfig.isStdio(config) && (config.protocol ?? "auto") === "auto" && /closed/.test(error.message)
          return new McpClientError({
            server: name,
            reason: error instanceof UnauthorizedError ? "unauthorized" : "start_failed",
            detail: error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout
              ? `no answer to the handshake within ${handshakeMillis} ms`
              : scrubbed(error)
          })
        }
      }).pipe(
        Effect.catchAll((error) =>
          McpConfig.isStdio(config) && error.reason === "start_failed" ? withLastWords(error) : Effect.fail(error)
        ),
        // The SDK's own timeout covers the handshake; this one covers a
        // process that never even spawns.
        Effect.timeoutFail({
          duration: handshakeMillis + 1_000,
          onTimeout: () =>
            new McpClientError({
              server: name,
              reason: "start_failed",
              detail: `no answer to the handshake within ${handshakeMillis} ms`
            })
        }),
        Effect.onExit((exit) => Exit.isFailure(exit) ? McpConnection.close(connection, { force: true }) : Effect.void),
        Effect.map(() => {
          starts++
          suspect = false
          current = connection
          return connection
        })
      )
    }

    const ensure: Effect.Effect<McpConnection.Connection, McpClientError> = lock.withPermits(1)(Effect.suspend(() => {
      const connection = current
      if (connection === undefined || connection.closed) {
        return Effect.zipRight(
          Effect.logInfo(starts === 0 ? "starting MCP server" : "restarting MCP server").pipe(
            Effect.annotateLogs({ mcpServer: name })
          ),
          start
        )
      }
      if (!suspect) return Effect.succeed(connection)
      // 2026-07-28 has no ping: asking what the server is proves it alive as well.
      const alive = (signal: AbortSignal) =>
        connection.client.getProtocolEra() === "modern"
          ? connection.client.discover({ signal, timeout: pingMillis })
          : connection.client.ping({ signal, timeout: pingMillis })
      return Effect.tryPromise(alive).pipe(
        Effect.map(() => {
          suspect = false
          return connection
        }),
        Effect.catchAll(() =>
          Effect.logWarning("MCP server did not answer a ping after a call was abandoned; restarting it").pipe(
            Effect.annotateLogs({ mcpServer: name }),
            Effect.zipRight(McpConnection.close(connection, { force: true })),
            Effect.zipRight(start)
          )
        )
      )
    }))

    const classify = (connection: McpConnection.Connection, error: unknown): McpClientError => {
      if (error instanceof UnauthorizedError) {
        return new McpClientError({ server: name, reason: "unauthorized", detail: scrubbed(error) })
      }
      if (error instanceof SdkError) {
        if (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected) {
          connection.closed = true
          return new McpClientError({ server: name, reason: "closed", detail: "the connection was closed" })
        }
        if (error.code === SdkErrorCode.RequestTimeout) {
          suspect = true
          return new McpClientError({ server: name, reason: "timeout", detail: scrubbed(error) })
        }
        return new McpClientError({ server: name, reason: "rejected", detail: scrubbed(error) })
      }
      if (error instanceof ProtocolError) {
        return new McpClientError({ server: name, reason: "rejected", detail: scrubbed(error) })
      }
      // "Not connected", a write to a closed pipe: the process is gone.
      // Anything else (a result the SDK could not parse) leaves it running.
      const gone = error instanceof Error &&
        (/not connected/i.test(error.message) || Predicate.hasProperty(error, "code") && error.code === "EPIPE")
      if (!gone) return new McpClientError({ server: name, reason: "rejected", detail: scrubbed(error) })
      connection.closed = true
      return new McpClientError({ server: name, reason: "closed", detail: scrubbed(error) })
    }

    let calls = 0
    const attempt = (
      tool: string,
      args: Record<string, unknown>,
      callOptions: CallOptions | undefined
    ): Effect.Effect<CallToolResult, McpClientError | McpCallWatch.StreamLost> =>
      Effect.flatMap(ensure, (connection) =>
        Effect.tryPromise({
          // Aborting the signal (this fiber was interrupted) makes the SDK
          // send notifications/cancelled for the request (2025-11-25) or drop its stream (2026-07-28).
          try: (signal) => {
            const watched = connection.transport instanceof McpCallWatch.WatchedHttpTransport
              ? connection.transport
              : undefined
            const key = `${++calls}`
            // Over HTTP, a lost answer aborts the call as well as an interruption does.
            const lost = watched === undefined ? undefined : new AbortController()
            const unwatch = watched?.watch(key, (how) => lost?.abort(new McpCallWatch.StreamLost(how)))
            return connection.client.callTool({
              name: tool,
              arguments: args,
              ...(watched === undefined ? {} : { _meta: { [McpCallWatch.metaKey]: key } })
            }, {
              signal: lost === undefined ? signal : AbortSignal.any([signal, lost.signal]),
              timeout: callOptions?.timeoutMillis ?? 600_000,
              ...(callOptions?.onProgress === undefined ? {} : { onprogress: callOptions.onProgress })
            }).finally(() => unwatch?.())
          },
          catch: (error) => error instanceof McpCallWatch.StreamLost ? error : classify(connection, error)
        }).pipe(
          Effect.map((result) => oauth === undefined ? result : oauth.scrubResult(result)),
          Effect.onInterrupt(() =>
            Effect.sync(() => {
              suspect = true
            })
          )
        ))
    // A read-only call whose answer was lost is sent again once, under a new id, as 2026-07-28 asks.
    const call = (tool: string, args: Record<string, unknown>, callOptions?: CallOptions) => {
      const resendable = callOptions?.resendable === true
      const lostError = (lost: McpCallWatch.StreamLost, twice: boolean) =>
        new McpClientError({
          server: name,
          reason: resendable ? "closed" : "outcome_unknown",
          detail: twice ? `${lost.how}, twice` : lost.how
        })
      return attempt(tool, args, callOptions).pipe(
        Effect.catchIf(McpCallWatch.isLost, (lost) =>
          resendable
            ? attempt(tool, args, callOptions).pipe(
              Effect.catchIf(McpCallWatch.isLost, (again) => Effect.fail(lostError(again, true)))
            )
            : Effect.fail(lostError(lost, false)))
      )
    }

    const first = yield* start
    tools = yield* McpConnection.listTools(name, first.client, startupMillis, scrubbed).pipe(
      Effect.onError(() => McpConnection.close(first))
    )
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => current === undefined ? Effect.void : McpConnection.close(current))
    )

    return {
      name,
      config,
      get tools() {
        return tools
      },
      onToolsChanged: (listener) => {
        listeners.add(listener)
        return () => listeners.delete(listener)
      },
      call,
      status: Effect.sync(() => ({
        starts,
        connected: current !== undefined && !current.closed,
        pid: current === undefined || current.closed ? undefined : current.pid(),
        confinement,
        protocol: current?.client.getNegotiatedProtocolVersion()
      }))
    } satisfies Server
  })

/**
 * Starts every server of a configuration at once. A server that fails to
 * start is logged at warning level and left out (its error is in
 * `failures`): one broken server does not take the others' tools away.
 * A `required` server that fails (any server, with `requireAll`) fails the
 * whole client instead, after stopping those that started.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  config: McpConfig.Config,
  options?: Options
): Effect.Effect<Service, McpClientError, Scope.Scope> =>
  Effect.gen(function*() {
    const entries = Object.entries(config.mcpServers)
    const started = yield* Effect.forEach(
      entries,
      ([name, server]) => Effect.either(connect(name, server, options)),
      { concurrency: "unbounded" }
    )
    const servers: Array<Server> = []
    const failures: Array<McpClientError> = []
    for (const result of started) {
      if (result._tag === "Right") servers.push(result.right)
      else {
        failures.push(result.left)
        yield* Effect.logWarning(result.left.message).pipe(Effect.annotateLogs({ mcpServer: result.left.server }))
      }
    }
    const fatal = failures.find((failure) =>
      options?.requireAll === true || config.mcpServers[failure.server]?.required === true
    )
    if (fatal !== undefined) return yield* fatal
    return { servers, failures } satisfies Service
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (config: McpConfig.Config, options?: Options): Layer.Layer<McpClient, McpClientError> =>
  Layer.scoped(McpClient, make(config, options))

/**
 * The servers of a configuration file.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFile = (
  path: string,
  options?: Options
): Layer.Layer<McpClient, McpConfig.McpConfigError | McpClientError> =>
  Layer.scoped(McpClient, Effect.flatMap(McpConfig.load(path), (config) => make(config, options)))

/**
 * A registry served over MCP's Streamable HTTP transport, on Node's own
 * HTTP server, in both revisions on one endpoint: each request is routed by
 * the SDK's own classifier (`isLegacyRequest`), 2025-11-25 to the sessions
 * kept here, 2026-07-28 to the SDK's stateless handler (`createMcpHandler`)
 * with an instance per request.
 *
 * What a local HTTP server must not allow, it refuses before the SDK sees
 * the request, whatever the SDK's own options say:
 *
 * - **DNS rebinding**: a web page whose name resolves to 127.0.0.1 can make
 *   the browser send requests to a loopback port. Every request's `Host`
 *   must name this server (`localhost`, `127.0.0.1` or `[::1]` with its
 *   port, or one of `allowedHosts`), and an `Origin`, when the browser sends
 *   one, must be one of those as an `http://` origin or one of
 *   `allowedOrigins`: anything else is a 403.
 * - **Strangers**: with a `token`, every request must carry
 *   `Authorization: Bearer <token>` (compared in constant time; a 401 never
 *   quotes what was sent). Listening on anything but the loopback interface
 *   without a token is refused at start, unless the option that says how
 *   dangerous it is, `dangerNoTokenOffLoopback`, is set.
 * - **Floods**: a body past `maxBodyBytes` is a 413 before it is parsed; at
 *   most `maxSessions` sessions are kept: the one unused the longest among
 *   those with no call running is closed to make room for a new one, and
 *   when every session has a call running the new one is refused (503, to
 *   try again later) rather than a call cut off without its result.
 *
 * Every session (and every 2026-07-28 request) has a `Server` of its own,
 * and all of them share one read/write gate: a write called in one session
 * still waits for the reads running in the others.
 *
 * @since 0.4.0
 */
import type { Server, ServerEvent, ServerEventBus } from "@modelcontextprotocol/server"
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport
} from "@modelcontextprotocol/server"
import type * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as NodeCrypto from "node:crypto"
import * as NodeHttp from "node:http"
import type * as NodeNet from "node:net"
import * as McpRounds from "./McpRounds.js"
import * as McpServer from "./McpServer.js"

/**
 * @since 0.4.0
 * @category models
 */
export interface Options extends McpServer.Options {
  /** Default `127.0.0.1`, the loopback interface only. */
  readonly host?: string | undefined
  /** Default 0: a free port, read back from {@link Listening}. */
  readonly port?: number | undefined
  /** Where the endpoint is. Default `/mcp`. */
  readonly path?: string | undefined
  /** When set, every request must carry it as `Authorization: Bearer …`. */
  readonly token?: Redacted.Redacted<string> | undefined
  /**
   * More `Host` values that name this server (`name` or `name:port`), for a
   * server reached through a proxy or a name of its own.
   */
  readonly allowedHosts?: ReadonlyArray<string> | undefined
  /** More origins a browser page may call from (`https://app.example`). */
  readonly allowedOrigins?: ReadonlyArray<string> | undefined
  /** Largest request body. Default 4 MiB. */
  readonly maxBodyBytes?: number | undefined
  /** Sessions kept at once. Default 64. */
  readonly maxSessions?: number | undefined
  /**
   * Listen off the loopback interface with no token: anyone who can reach
   * the port can call every tool. Off by default, and loud on purpose.
   */
  readonly dangerNoTokenOffLoopback?: boolean | undefined
}

/**
 * @since 0.4.0
 * @category models
 */
export interface Listening {
  /** The endpoint, e.g. `http://127.0.0.1:39123/mcp`. */
  readonly url: string
  readonly port: number
  /** Sessions open now. */
  readonly sessions: () => number
}

const loopbackNames = new Set(["localhost", "127.0.0.1", "[::1]", "::1"])

const isLoopback = (host: string) =>
  loopbackNames.has(host.toLowerCase()) || /^127(?:\.\d{1,3}){3}$/.test(host) || host === "::ffff:127.0.0.1"

/** A JSON-RPC error response: the body clients of the transport expect. */
const refuse = (
  response: NodeHttp.ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {}
) => {
  if (response.headersSent) {
    response.end()
    return
  }
  response.writeHead(status, { "content-type": "application/json", ...headers })
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: status === 404 ? -32001 : -32000, message }, id: null }))
}

const digest = (text: string) => NodeCrypto.createHash("sha256").update(text, "utf8").digest()

/** Reads a body up to `limit` bytes; `undefined` once it is known to be longer. */
const readBody = (request: NodeHttp.IncomingMessage, limit: number): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const declared = Number(request.headers["content-length"])
    if (Number.isFinite(declared) && declared > limit) {
      resolve(undefined)
      return
    }
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        resolve(undefined)
        request.pause()
        return
      }
      chunks.push(chunk)
    })
    request.on("end", () => resolve(Buffer.concat(chunks)))
    request.on("error", reject)
  })

interface Session {
  readonly server: Server
  readonly transport: WebStandardStreamableHTTPServerTransport
  used: number
}

/** The SDK's in-process bus, which watches what can change only while someone listens. */
class WatchingBus<W> implements ServerEventBus {
  private readonly listeners = new Set<(event: ServerEvent) => void>()
  private watches: ReadonlyArray<W> = []
  constructor(private readonly watch: () => ReadonlyArray<W>, private readonly unwatch: (watch: W) => void) {}
  publish(event: ServerEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event)
      } catch {
        // One listener's failure is not the others'.
      }
    }
  }
  notify(uri: string): void {
    this.publish({ kind: "resource_updated", uri })
  }
  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.listeners.add(listener)
    if (this.listeners.size === 1) this.watches = this.watch()
    return () => {
      if (!this.listeners.delete(listener) || this.listeners.size > 0) return
      this.stop()
    }
  }
  stop(): void {
    for (const watch of this.watches) this.unwatch(watch)
    this.watches = []
  }
}

/** The request as the SDK's web-standard transports take it; `signal` aborts when the client goes away. */
const toWeb = (request: NodeHttp.IncomingMessage, body: Buffer | undefined, signal: AbortSignal): Request => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) { for (const each of value) headers.append(name, each) }
    else if (value !== undefined) headers.set(name, value)
  }
  // An absolute-form target (`POST http://host/mcp`) is a URL of its own: only its path and query are kept.
  const target = new URL(request.url ?? "/", "http://server.invalid")
  return new Request(`http://${request.headers.host ?? "localhost"}${target.pathname}${target.search}`, {
    method: request.method ?? "GET",
    headers,
    signal,
    ...(body === undefined || request.method === "GET" || request.method === "HEAD" ? {} : { body })
  })
}

/** Writes a web `Response` to Node's, streaming an event stream as it comes. */
const fromWeb = async (web: Response, response: NodeHttp.ServerResponse): Promise<void> => {
  const headers: Record<string, string> = {}
  web.headers.forEach((value, name) => (headers[name] = value))
  response.writeHead(web.status, headers)
  if (web.body === null) {
    response.end()
    return
  }
  const reader = web.body.getReader()
  response.once("close", () => void reader.cancel().catch(() => undefined))
  try {
    for (;;) {
      const chunk = await reader.read()
      if (chunk.done) break
      response.write(chunk.value)
    }
  } catch {
    // The client went away, or the stream was cancelled: nothing more to write.
  }
  response.end()
}

/**
 * Serves the runtime's registry at `http://host:port/path` until the scope
 * closes; closing ends every session and the listening socket.
 *
 * @since 0.4.0
 * @category serving
 */
export const serve = (
  options?: Options
): Effect.Effect<Listening, McpServer.McpServerError, ToolRuntime.ToolRuntime | Scope.Scope> =>
  Effect.gen(function*() {
    const host = options?.host ?? "127.0.0.1"
    const path = options?.path ?? "/mcp"
    const maxBodyBytes = options?.maxBodyBytes ?? 4 * 1024 * 1024
    const maxSessions = Math.max(1, options?.maxSessions ?? 64)
    const token = options?.token === undefined ? undefined : digest(Redacted.value(options.token))
    if (token === undefined && !isLoopback(host) && options?.dangerNoTokenOffLoopback !== true) {
      return yield* new McpServer.McpServerError({
        reason: `listening on ${host} without a token would let anyone who reaches the port call every tool; ` +
          "give a token, listen on 127.0.0.1, or set dangerNoTokenOffLoopback"
      })
    }
    if (options?.token !== undefined && Redacted.value(options.token).length < 16) {
      return yield* new McpServer.McpServerError({ reason: "the token is shorter than 16 characters" })
    }
    const gate = yield* McpServer.makeGate
    const runtime = yield* Effect.runtime<ToolRuntime.ToolRuntime>()
    const newServer = (serving?: McpServer.Serving) =>
      Runtime.runPromise(runtime)(McpServer.makeWithGate(gate, options, serving))
    // 2026-07-28: every request is served by an instance of its own; what
    // they share is here (calls parked between rounds, outputs handed out).
    const modernServing: McpServer.Serving = {
      era: "modern",
      rounds: McpRounds.make(options?.questions),
      linked: new Map()
    }
    // Subscriptions of 2026-07-28 are `subscriptions/listen` streams; a resource's changes are watched
    // while at least one is open, as a 2025 session's subscription watches them.
    const changing = (options?.resources ?? []).flatMap((resource) =>
      resource._tag === "Resource" && resource.changes !== undefined ? [resource] : []
    )
    const bus: WatchingBus<Fiber.RuntimeFiber<void>> = new WatchingBus(() =>
      changing.map((resource) =>
        Runtime.runFork(runtime)(
          Stream.runForEach(resource.changes!, () => Effect.sync(() => bus.notify(resource.uri)))
        )
      ), (fiber: Fiber.RuntimeFiber<void>) =>
      void Runtime.runFork(runtime)(Fiber.interrupt(fiber)))
    const modern = createMcpHandler(() =>
      newServer(modernServing), {
      legacy: "reject",
      maxRequestBodySize: maxBodyBytes,
      bus
    })
    yield* Effect.addFinalizer(() =>
      Effect.promise(() => modern.close().catch(() => undefined)).pipe(Effect.andThen(Effect.sync(() => bus.stop())))
    )
    const sessions = new Map<string, Session>()
    // A count, not a time: which session was used last is all eviction needs.
    let uses = 0
    let port = 0
    const hostsAllowed = () =>
      new Set([
        ...[...loopbackNames].filter((name) => name !== "::1").map((name) => `${name}:${port}`),
        ...(options?.allowedHosts ?? []).map((name) => name.toLowerCase())
      ])
    const closeSession = (id: string) => {
      const session = sessions.get(id)
      if (session === undefined) return Promise.resolve()
      sessions.delete(id)
      return Promise.allSettled([session.transport.close(), session.server.close()])
    }

    const handle = async (request: NodeHttp.IncomingMessage, response: NodeHttp.ServerResponse) => {
      const url = new URL(request.url ?? "/", "http://server.invalid")
      if (url.pathname !== path) return refuse(response, 404, `nothing here; the MCP endpoint is ${path}`)
      const hosts = hostsAllowed()
      const hostHeader = (request.headers.host ?? "").toLowerCase()
      if (!hosts.has(hostHeader) && !hosts.has(hostHeader.replace(/:\d+$/, ""))) {
        return refuse(response, 403, "the Host header does not name this server")
      }
      const origin = request.headers.origin
      if (
        origin !== undefined && !(options?.allowedOrigins ?? []).includes(origin) &&
        !hosts.has(origin.toLowerCase().replace(/^http:\/\//, ""))
      ) {
        return refuse(response, 403, "requests from this origin are not allowed")
      }
      if (token !== undefined) {
        const match = /^Bearer (.+)$/i.exec(request.headers.authorization ?? "")
        if (match === null || !NodeCrypto.timingSafeEqual(digest(match[1]!), token)) {
          return refuse(response, 401, "a valid bearer token is required", {
            "www-authenticate": "Bearer realm=\"tool-runtime\""
          })
        }
      }
      let raw: Buffer | undefined
      let body: unknown = undefined
      if (request.method === "POST") {
        raw = await readBody(request, maxBodyBytes)
        if (raw === undefined) {
          response.setHeader("connection", "close")
          return refuse(response, 413, `the request body is larger than ${maxBodyBytes} bytes`)
        }
        const parsed = Either.try(() => JSON.parse(raw!.toString("utf8")) as unknown)
        if (Either.isLeft(parsed)) {
          response.writeHead(400, { "content-type": "application/json" })
          return response.end(
            JSON.stringify({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null })
          )
        }
        body = parsed.right
      }
      const abort = new AbortController()
      response.once("close", () => {
        if (!response.writableFinished) abort.abort()
      })
      const web = toWeb(request, raw, abort.signal)
      // The revision is the request's: one that carries the 2026-07-28 envelope is served statelessly.
      if (!(await isLegacyRequest(web, body, { maxRequestBodySize: maxBodyBytes }))) {
        return fromWeb(await modern.fetch(web, { parsedBody: body }), response)
      }
      const id = request.headers["mcp-session-id"]
      if (typeof id === "string") {
        const session = sessions.get(id)
        if (session === undefined) return refuse(response, 404, "Session not found")
        session.used = ++uses
        return fromWeb(await session.transport.handleRequest(web, { parsedBody: body }), response)
      }
      const initializing = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body)
      if (request.method !== "POST" || !initializing) {
        return refuse(response, 400, "Bad Request: no session; start one with initialize")
      }
      if (sessions.size >= maxSessions) {
        // A session answering a call keeps it: closing it would end the call's stream without its result.
        const [oldest] = [...sessions].filter(([, session]) => !McpServer.isBusy(session.server))
          .sort(([, a], [, b]) => a.used - b.used)
        if (oldest === undefined) {
          return refuse(
            response,
            503,
            `all ${maxSessions} sessions have calls running; try again when one ends`,
            { "retry-after": "1" }
          )
        }
        await closeSession(oldest[0])
      }
      const server = await newServer()
      const used = ++uses
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => NodeCrypto.randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, { server, transport, used })
        },
        onsessionclosed: (sessionId) => {
          void closeSession(sessionId)
        }
      })
      await server.connect(transport)
      const answer = await transport.handleRequest(web, { parsedBody: body })
      // An initialize the transport refused leaves no session behind.
      if (transport.sessionId === undefined) await Promise.allSettled([transport.close(), server.close()])
      return fromWeb(answer, response)
    }

    const http = NodeHttp.createServer((request, response) => {
      handle(request, response).catch((error: unknown) => {
        refuse(response, 500, `the server failed: ${error instanceof Error ? error.message : String(error)}`)
      })
    })
    yield* Effect.acquireRelease(
      Effect.async<void, McpServer.McpServerError>((resume) => {
        const failed = (error: Error) =>
          resume(Effect.fail(new McpServer.McpServerError({ reason: `cannot listen on ${host}: ${error.message}` })))
        http.once("error", failed)
        http.listen(options?.port ?? 0, host, () => {
          http.off("error", failed)
          port = (http.address() as NodeNet.AddressInfo).port
          resume(Effect.void)
        })
      }),
      () =>
        Effect.promise(async () => {
          await Promise.allSettled([...sessions.keys()].map(closeSession))
          await new Promise<void>((resolve) => {
            http.close(() => resolve())
            // Streams held open by clients (a GET for notifications) would keep `close` waiting.
            http.closeAllConnections()
          })
        }).pipe(
          // A finalizer is uninterruptible: without this the bound would wait for the promise anyway.
          Effect.interruptible,
          Effect.timeout("5 seconds"),
          Effect.ignore
        )
    )
    const shownHost = host.includes(":") ? `[${host}]` : host
    return { url: `http://${shownHost}:${port}${path}`, port, sessions: () => sessions.size }
  })

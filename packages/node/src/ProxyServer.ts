/**
 * The proxy server itself: one request per connection read with bounds,
 * checked against the allowlist, then tunnelled (`CONNECT`) or forwarded
 * (absolute-form HTTP), on a UNIX socket and optionally a loopback port.
 *
 * Apart from the allowlist (`DomainAllowlist`), which says where a command
 * may go, and from the bridge (`NetworkBridge`), which runs inside the
 * sandbox: this module is the host side that serves the sockets.
 *
 * @since 0.4.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as NodeDns from "node:dns"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import { canonicalHost, decide, parseRule } from "./DomainAllowlist.js"
import type { DomainPolicy, Host } from "./DomainAllowlist.js"

// ---------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------

/**
 * The proxy could not start: a rule is not a rule, or the socket could not
 * be listened on.
 *
 * @since 0.3.0
 * @category errors
 */
export class NetworkProxyError extends Schema.TaggedError<NetworkProxyError>()("NetworkProxyError", {
  reason: Schema.Literal("invalid_rule", "listen_failed"),
  /** The rule, or where and why listening failed. */
  detail: Schema.String
}) {
  readonly retryable = false
  override get message(): string {
    return this.reason === "invalid_rule"
      ? `${this.detail} is not a domain rule: write a host name ("example.com"), "*." and a domain for its ` +
        `subdomains ("*.example.com"), or an IP address.`
      : `The network proxy could not listen: ${this.detail}.`
  }
}

/**
 * A name did not resolve.
 *
 * @since 0.3.0
 * @category errors
 */
export class LookupError extends Data.TaggedError("LookupError")<{
  readonly hostname: string
  /** The resolver's code (`ENOTFOUND`…). */
  readonly code: string
}> {}

const printable = (text: string) => JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text)

/**
 * Builds a policy, or says which rule is not one.
 *
 * @since 0.3.0
 * @category domains
 */
export const policy = (options: {
  readonly allowedDomains: ReadonlyArray<string>
  readonly deniedDomains?: ReadonlyArray<string> | undefined
}): Either.Either<DomainPolicy, NetworkProxyError> => {
  const parse = (rules: ReadonlyArray<string>) =>
    Either.all(rules.map((rule) =>
      Either.fromOption(
        parseRule(rule),
        () => new NetworkProxyError({ reason: "invalid_rule", detail: printable(rule) })
      )
    ))
  return Either.all({ allowed: parse(options.allowedDomains), denied: parse(options.deniedDomains ?? []) })
}

// ---------------------------------------------------------------------------
// models
// ---------------------------------------------------------------------------

/**
 * Resolves a name the allowlist admitted to the one address connected to.
 *
 * @since 0.3.0
 * @category models
 */
export type Lookup = (hostname: string) => Effect.Effect<string, LookupError>

/**
 * One allowlist decision, for logs and audits. Only the canonical host
 * and the port: nothing else the client sent.
 *
 * @since 0.3.0
 * @category models
 */
export interface Decision {
  readonly host: string
  readonly port: number
  readonly allowed: boolean
}

/**
 * @since 0.3.0
 * @category models
 */
export interface Options {
  /** Where the UNIX socket is created; it must not exist yet. */
  readonly socketPath: string
  /** Also listen on an ephemeral port of `127.0.0.1`. Default false. */
  readonly listenTcp?: boolean | undefined
  readonly allowedDomains: ReadonlyArray<string>
  /** Win over {@link Options.allowedDomains}. */
  readonly deniedDomains?: ReadonlyArray<string> | undefined
  /** Default: the system resolver (`dns.lookup`). */
  readonly lookup?: Lookup | undefined
  /** To reach the origin. Default 10 s. */
  readonly connectTimeout?: Duration.DurationInput | undefined
  /** For the whole request header to arrive. Default 10 s. */
  readonly headerTimeout?: Duration.DurationInput | undefined
  /** Largest request header. Default 64 KiB. */
  readonly maxHeaderBytes?: number | undefined
  /** Called for each request with a well-formed target, before anything is resolved. */
  readonly onDecision?: ((decision: Decision) => Effect.Effect<void>) | undefined
}

/**
 * A running proxy.
 *
 * @since 0.3.0
 * @category models
 */
export interface Service {
  readonly socketPath: string
  /** The loopback TCP port, when {@link Options.listenTcp} asked for one. */
  readonly tcpPort: Option.Option<number>
}

/**
 * @since 0.3.0
 * @category tags
 */
export class NetworkProxy extends Context.Tag("@tool-runtime/node/NetworkProxy")<NetworkProxy, Service>() {}

/**
 * @since 0.3.0
 * @category defaults
 */
export const defaults = {
  connectTimeout: Duration.seconds(10),
  headerTimeout: Duration.seconds(10),
  maxHeaderBytes: 64 * 1024,
  /** How long a refused client may take to read its answer and hang up. */
  lingerTimeout: Duration.seconds(2),
  /** The settings key a refusal names. */
  settingsKey: "sandbox.network.allowedDomains",
  deniedSettingsKey: "sandbox.network.deniedDomains"
} as const

// ---------------------------------------------------------------------------
// requests
// ---------------------------------------------------------------------------

/** A refusal, answered to the client. */
class Refusal extends Data.TaggedError("Refusal")<{
  readonly status: 400 | 403 | 408 | 431 | 502
  readonly body: string
}> {}

/** The client went away before there was anything to answer. */
class ClientGone extends Data.TaggedError("ClientGone") {}

type Request =
  | { readonly _tag: "Connect"; readonly host: Host; readonly port: number }
  | { readonly _tag: "Forward"; readonly host: Host; readonly port: number; readonly head: Buffer }

const statusText = {
  200: "OK",
  400: "Bad Request",
  403: "Forbidden",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
  502: "Bad Gateway"
} as const

const answer = (status: keyof typeof statusText, body: string) => {
  const bytes = Buffer.from(body, "utf8")
  return Buffer.concat([
    Buffer.from(
      `HTTP/1.1 ${status} ${statusText[status]}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
        `Content-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`,
      "latin1"
    ),
    bytes
  ])
}

const badRequest = (why: string) => new Refusal({ status: 400, body: `Bad request: ${why}.\n` })

const tokenPattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const targetPattern = /^[\x21-\x7e]+$/
const fieldValuePattern = /^[\t\x20-\x7e\x80-\xff]*$/
// Dropped from a forwarded request: the proxy's own, and the ones that would
// keep the origin connection open past the one request it serves.
const hopByHop = new Set([
  "proxy-authorization",
  "proxy-connection",
  "proxy-authenticate",
  "connection",
  "keep-alive",
  "host"
])

/** `host:port`, `[v6]:port`; without a port, `defaultPort` (none for CONNECT). */
const parseAuthority = (
  authority: string,
  defaultPort: number | undefined
): Either.Either<{ readonly host: Host; readonly port: number }, Refusal> => {
  const v6 = authority.startsWith("[")
  const colon = v6 ? authority.indexOf("]:") + 1 : authority.lastIndexOf(":")
  const hostPart = colon > 0 ? authority.slice(0, colon) : authority
  const portPart = colon > 0 ? authority.slice(colon + 1) : undefined
  const port = portPart === undefined ? defaultPort : /^[0-9]{1,5}$/.test(portPart) ? Number(portPart) : undefined
  if (port === undefined || port < 1 || port > 65535) return Either.left(badRequest("the port is missing or not valid"))
  return Option.match(canonicalHost(hostPart), {
    onNone: () => Either.left(badRequest("the host is not a valid host name or IP address")),
    onSome: (host) => Either.right({ host, port })
  })
}

/** Parses a request head (without its final blank line). */
const parseRequest = (head: Buffer): Either.Either<Request, Refusal> => {
  const lines = head.toString("latin1").split("\r\n")
  const requestLine = lines[0]!.split(" ")
  if (requestLine.length !== 3) return Either.left(badRequest("the request line is not METHOD TARGET HTTP/1.x"))
  const [method, target, version] = requestLine as [string, string, string]
  if (!tokenPattern.test(method) || !targetPattern.test(target) || !/^HTTP\/1\.[01]$/.test(version)) {
    return Either.left(badRequest("the request line is not METHOD TARGET HTTP/1.x"))
  }
  const fields: Array<readonly [string, string]> = []
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":")
    const name = line.slice(0, colon)
    const value = line.slice(colon + 1).trim()
    // Also refuses obsolete line folding (a line starting with white space)
    // and bare CR or LF, which parsers downstream may read differently.
    if (colon <= 0 || !tokenPattern.test(name) || !fieldValuePattern.test(value)) {
      return Either.left(badRequest("a header line is malformed"))
    }
    fields.push([name, value])
  }
  if (method === "CONNECT") {
    return Either.map(parseAuthority(target, undefined), ({ host, port }): Request => ({ _tag: "Connect", host, port }))
  }
  if (!/^http:\/\//i.test(target)) {
    return Either.left(
      badRequest(
        /^https:\/\//i.test(target)
          ? "https:// URLs go through CONNECT"
          : "only CONNECT and absolute http:// requests are proxied"
      )
    )
  }
  const rest = target.slice("http://".length)
  const end = rest.search(/[/?#]/)
  const authority = end === -1 ? rest : rest.slice(0, end)
  // User information is refused rather than stripped: `http://allowed@evil/`
  // reads as two hosts, and no client should send it to a proxy.
  if (authority.includes("@")) return Either.left(badRequest("the URL carries user information"))
  const pathAndQuery = (end === -1 ? "" : rest.slice(end)).split("#")[0]!
  const path = pathAndQuery.startsWith("/") ? pathAndQuery : `/${pathAndQuery}`
  return Either.map(parseAuthority(authority, 80), ({ host, port }): Request => {
    const hostField = (host.kind === "ip" && host.name.includes(":") ? `[${host.name}]` : host.name) +
      (port === 80 ? "" : `:${port}`)
    const kept = fields.filter(([name]) => !hopByHop.has(name.toLowerCase()))
    const text = [
      `${method} ${path} ${version}`,
      `Host: ${hostField}`,
      ...kept.map(([name, value]) => `${name}: ${value}`),
      "Connection: close",
      "",
      ""
    ].join("\r\n")
    return { _tag: "Forward", host, port, head: Buffer.from(text, "latin1") }
  })
}

// ---------------------------------------------------------------------------
// sockets
// ---------------------------------------------------------------------------

const noop = () => {}

/** The request head and whatever the client sent after it. */
const readHead = (socket: NodeNet.Socket, maxBytes: number) =>
  Effect.async<{ readonly head: Buffer; readonly rest: Buffer }, Refusal | ClientGone>((resume) => {
    let buffered: Buffer = Buffer.alloc(0)
    const stop = () => {
      socket.off("data", onData)
      socket.off("end", onEnd)
      socket.off("close", onClose)
      socket.pause()
    }
    const onData = (chunk: Buffer) => {
      // Search from a little before the new chunk: the terminator may straddle.
      const from = Math.max(0, buffered.length - 3)
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk])
      const end = buffered.indexOf("\r\n\r\n", from, "latin1")
      if (end !== -1 && end + 4 <= maxBytes) {
        stop()
        resume(Effect.succeed({ head: buffered.subarray(0, end), rest: buffered.subarray(end + 4) }))
      } else if (end !== -1 || buffered.length > maxBytes) {
        stop()
        resume(
          Effect.fail(new Refusal({ status: 431, body: `The request header is larger than ${maxBytes} bytes.\n` }))
        )
      }
    }
    // Half-closed before the header was complete: still answerable.
    const onEnd = () => {
      stop()
      resume(Effect.fail(buffered.length === 0 ? new ClientGone() : badRequest("the request header is incomplete")))
    }
    const onClose = () => {
      stop()
      resume(Effect.fail(new ClientGone()))
    }
    socket.on("data", onData)
    socket.on("end", onEnd)
    socket.on("close", onClose)
    return Effect.sync(stop)
  })

const connect = (address: string, port: number) =>
  Effect.async<NodeNet.Socket, string>((resume) => {
    const socket = NodeNet.connect({ host: address, port, allowHalfOpen: true })
    const onError = (error: NodeJS.ErrnoException) => resume(Effect.fail(error.code ?? "error"))
    socket.once("error", onError)
    socket.once("connect", () => {
      socket.off("error", onError)
      socket.on("error", noop)
      resume(Effect.succeed(socket))
    })
    return Effect.sync(() => socket.destroy())
  })

const closed = (socket: NodeNet.Socket) =>
  Effect.async<void>((resume) => {
    if (socket.destroyed) return resume(Effect.void)
    socket.once("close", () => resume(Effect.void))
  })

/** Pipes both ways, half-closes included, until both sockets are closed. */
const splice = (a: NodeNet.Socket, b: NodeNet.Socket) =>
  Effect.async<void>((resume) => {
    let open = 2
    const onClose = (hadError: boolean) => {
      // A reset on one side ends the other. A normal close needs nothing:
      // it means both directions have ended, so the other side is ending
      // too, once it has flushed what it still holds.
      if (hadError) {
        a.destroy()
        b.destroy()
      }
      if (--open === 0) resume(Effect.void)
    }
    a.once("close", onClose)
    b.once("close", onClose)
    a.pipe(b)
    b.pipe(a)
    return Effect.sync(() => {
      a.destroy()
      b.destroy()
    })
  })

const defaultLookup: Lookup = (hostname) =>
  Effect.async<string, LookupError>((resume) => {
    NodeDns.lookup(hostname, { verbatim: true }, (error, address) =>
      resume(
        error === null
          ? Effect.succeed(address)
          : Effect.fail(new LookupError({ hostname, code: error.code ?? "error" }))
      ))
  })

const listen = (server: NodeNet.Server, where: string | { readonly port: 0; readonly host: "127.0.0.1" }) =>
  Effect.async<void, NetworkProxyError>((resume) => {
    const onError = (error: NodeJS.ErrnoException) =>
      resume(Effect.fail(
        new NetworkProxyError({
          reason: "listen_failed",
          detail: `${typeof where === "string" ? where : "127.0.0.1"} (${error.code ?? "error"})`
        })
      ))
    server.once("error", onError)
    server.listen(where, () => {
      server.off("error", onError)
      resume(Effect.void)
    })
  })

const closeServer = (server: NodeNet.Server) =>
  Effect.async<void>((resume) => {
    if (!server.listening) return resume(Effect.void)
    server.close(() => resume(Effect.void))
  })

// ---------------------------------------------------------------------------
// constructors
// ---------------------------------------------------------------------------

/**
 * Starts the proxy. It stops when the scope closes: the listeners close,
 * every open connection and tunnel is ended, and the socket file is removed.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make: (options: Options) => Effect.Effect<Service, NetworkProxyError, Scope.Scope> = Effect.fn(
  "NetworkProxy.make"
)(function*(options: Options) {
  const domains = yield* policy(options)
  // sockaddr_un holds 108 bytes with the final NUL; Node's own error is vague.
  if (Buffer.byteLength(options.socketPath) > 107) {
    return yield* new NetworkProxyError({
      reason: "listen_failed",
      detail: `the socket path is longer than 107 bytes (${options.socketPath})`
    })
  }
  const lookup = options.lookup ?? defaultLookup
  const connectTimeout = Duration.decode(options.connectTimeout ?? defaults.connectTimeout)
  const headerTimeout = Duration.decode(options.headerTimeout ?? defaults.headerTimeout)
  const maxHeaderBytes = options.maxHeaderBytes ?? defaults.maxHeaderBytes
  const onDecision = options.onDecision ?? (() => Effect.void)

  const refuse = (client: NodeNet.Socket, refusal: Refusal) =>
    Effect.gen(function*() {
      client.end(answer(refusal.status, refusal.body))
      // Keep reading (and dropping) what the client still sends: closing on
      // unread data resets the connection, and the client may never see
      // the answer.
      client.resume()
      yield* Effect.timeout(closed(client), defaults.lingerTimeout).pipe(Effect.ignore)
    })

  const serve = (client: NodeNet.Socket) =>
    Effect.gen(function*() {
      const { head, rest } = yield* readHead(client, maxHeaderBytes).pipe(
        Effect.timeoutFail({
          duration: headerTimeout,
          onTimeout: () => new Refusal({ status: 408, body: "The request header did not arrive in time.\n" })
        })
      )
      const request = yield* parseRequest(head)
      const { host, port } = request
      const verdict = decide(domains, host)
      yield* onDecision({ host: host.name, port, allowed: verdict === "allowed" })
      if (verdict !== "allowed") {
        return yield* new Refusal({
          status: 403,
          body: verdict === "denied"
            ? `Blocked by the sandbox network policy: ${host.name} is listed in ${defaults.deniedSettingsKey}, ` +
              `which takes precedence over ${defaults.settingsKey}.\n`
            : `Blocked by the sandbox network policy: ${host.name} is not in the sandbox's allowlist of domains. ` +
              `To allow it, add "${host.name}" to ${defaults.settingsKey} in the settings.\n`
        })
      }
      // Resolved once, and the connection goes to that address: a second
      // resolution by `net.connect` could answer differently.
      const address = host.kind === "ip" ? host.name : yield* lookup(host.name).pipe(
        Effect.filterOrFail((address) => NodeNet.isIP(address) !== 0, () =>
          new LookupError({ hostname: host.name, code: "not an address" })),
        Effect.mapError((error) =>
          new Refusal({ status: 502, body: `Could not resolve ${host.name} (${error.code}).\n` })
        )
      )
      const upstream = yield* connect(address, port).pipe(
        Effect.timeoutFail({
          duration: connectTimeout,
          onTimeout: () =>
            "timed out"
        }),
        Effect.mapError((why) =>
          new Refusal({ status: 502, body: `Could not connect to ${host.name}:${port} (${why}).\n` })
        )
      )
      yield* Effect.gen(function*() {
        if (request._tag === "Connect") {
          client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
        } else {
          upstream.write(request.head)
        }
        if (rest.length > 0) upstream.write(rest)
        yield* splice(client, upstream)
      }).pipe(Effect.ensuring(Effect.sync(() => upstream.destroy())))
    }).pipe(
      Effect.catchTags({
        Refusal: (refusal) => refuse(client, refusal),
        ClientGone: () => Effect.void
      }),
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.void
          : Effect.logWarning("NetworkProxy: a connection failed unexpectedly", cause)
      ),
      Effect.ensuring(Effect.sync(() => client.destroy()))
    )

  const fibers = yield* FiberSet.make()
  const run = yield* FiberSet.runtime(fibers)<never>()
  const sockets = new Set<NodeNet.Socket>()
  const onConnection = (client: NodeNet.Socket) => {
    // Without a listener an `error` event (a reset) would throw: errors are
    // seen through `close`.
    client.on("error", noop)
    client.setNoDelay(true)
    sockets.add(client)
    client.once("close", () => sockets.delete(client))
    run(serve(client))
  }
  const unix = NodeNet.createServer({ allowHalfOpen: true }, onConnection)
  const tcp = options.listenTcp === true ? NodeNet.createServer({ allowHalfOpen: true }, onConnection) : undefined
  const servers = tcp === undefined ? [unix] : [unix, tcp]
  for (const server of servers) server.on("error", noop)

  // Registered before listening, so that a TCP listener that fails to
  // start does not leave the UNIX one running.
  let ownsSocketFile = false
  yield* Effect.addFinalizer(() =>
    Effect.gen(function*() {
      // Stop accepting first, then end every connection, then wait for the
      // listeners to report closed (they wait for their connections).
      const waiting = yield* Effect.fork(
        Effect.forEach(servers, closeServer, { concurrency: "unbounded", discard: true })
      )
      yield* FiberSet.clear(fibers)
      for (const socket of sockets) socket.destroy()
      yield* waiting.await
      // Node removes the file when the server closes; this covers a close
      // that did not get that far. A file that was there before (a listen
      // that failed with EADDRINUSE) is someone else's and stays.
      if (ownsSocketFile) NodeFs.rmSync(options.socketPath, { force: true })
    })
  )
  yield* listen(unix, options.socketPath)
  ownsSocketFile = true
  if (tcp !== undefined) yield* listen(tcp, { port: 0, host: "127.0.0.1" })
  const address = tcp?.address()
  return {
    socketPath: options.socketPath,
    tcpPort: typeof address === "object" && address !== null ? Option.some(address.port) : Option.none()
  }
})

/**
 * The proxy as a service, for the life of the layer.
 *
 * @since 0.3.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<NetworkProxy, NetworkProxyError> =>
  Layer.scoped(NetworkProxy, make(options))

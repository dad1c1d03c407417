/**
 * A forward HTTP/HTTPS proxy that lets a sandboxed command reach an
 * allowlist of domains and nothing else: the third network mode of the
 * sandbox, between "off" and "on".
 *
 * A command confined with `--unshare-net` has a network namespace of its
 * own, with nothing but its own loopback: it cannot reach a proxy on the
 * host's `127.0.0.1`. A UNIX socket is a file, though, and files can be
 * bound into the sandbox. So the proxy listens on a UNIX socket in a host
 * directory the sandbox sees (its private `/tmp`), and {@link bridge} wraps
 * the command in a tiny Node program that, inside the namespace, listens on
 * `127.0.0.1:<port>`, forwards every TCP connection to that socket, and
 * points `HTTP_PROXY`/`HTTPS_PROXY` at itself. The proxy can also listen on
 * a loopback TCP port, for hosts that are not namespaced.
 *
 * Two request forms are served, one request per connection:
 *
 * - `CONNECT host:port` (HTTPS and anything else tunnelled): answered
 *   `200 Connection Established`, then bytes flow both ways, half-closes
 *   included. TLS is not inspected.
 * - Absolute-form plain HTTP (`GET http://host/path HTTP/1.1`): the request
 *   line is rewritten to origin-form, `Host` is set from the URL (so it
 *   cannot name another site than the one checked), `Proxy-*` headers are
 *   dropped, `Connection: close` is forced, and the response streams back.
 *
 * Allowlist ({@link parseRule}, {@link decide}): `example.com` matches that
 * name only; `*.example.com` matches every subdomain at any depth but not
 * `example.com` itself. Matching ignores case and one trailing dot; Unicode
 * names are compared in their ASCII (punycode) form. An IP literal (IPv4 in
 * any spelling the URL standard accepts, such as `127.1`, or IPv6) matches
 * only a rule that is the same address, never a wildcard. A denied rule
 * wins over every allowed one. The host is checked as the client named it,
 * before any resolution; the proxy then resolves it once and connects to
 * that address, so the check and the connection cannot disagree about
 * which name was meant.
 *
 * Refusals are HTTP answers, never crashes: 400 for a malformed request,
 * 403 for a host outside the allowlist (the body says which settings key
 * allows it), 408 when the request header does not arrive in time
 * (slowloris), 431 when it is too large, 502 when the name does not resolve
 * or the origin cannot be reached. Nothing the client sent beyond the host
 * name is ever repeated: not in answers, not in {@link Decision}s, so a
 * `Proxy-Authorization` header cannot leak.
 *
 * Limits.
 *
 * - Only programs that honour the proxy variables get out. Raw TCP, UDP,
 *   ICMP and programs that ignore `HTTP_PROXY` cannot reach anything.
 * - DNS does not work inside the namespace; the proxy resolves names on the
 *   host. A program that resolves before connecting fails even for an
 *   allowed name.
 * - The allowlist is about names, not addresses. An allowed name whose DNS
 *   answer points at a private or loopback address (a DNS-rebinding setup,
 *   or just a stale record) is connected to: the proxy checks the name, and
 *   then trusts the resolver. Do not allow domains whose DNS someone else
 *   controls if host-local services matter.
 * - Through a CONNECT tunnel the TLS SNI or the inner `Host` may name
 *   another site served by the same address (domain fronting); that cannot
 *   be seen without breaking TLS.
 * - Every port of an allowed host is reachable. An open tunnel has no idle
 *   limit; it ends when both sides close, or when the proxy's scope closes.
 *   The number of connections is not limited either.
 * - A bridge killed by SIGKILL cannot pass that on: its command lives on
 *   unless the sandbox's PID namespace ends with it (bubblewrap's
 *   `--unshare-pid` does, `--die-with-parent` ends bubblewrap).
 * - Whoever can open the socket file can use the proxy: keep it in a
 *   directory only the sandbox sees.
 *
 * @since 0.3.0
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
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"

// ---------------------------------------------------------------------------
// domains
// ---------------------------------------------------------------------------

/**
 * A host name in the one form every comparison uses: lower case, ASCII
 * (punycode), no trailing dot; an IP address in canonical form, IPv6
 * without brackets.
 *
 * @since 0.3.0
 * @category domains
 */
export interface Host {
  readonly kind: "domain" | "ip"
  readonly name: string
}

/**
 * One allowlist or denylist entry: `exact` for `example.com` (or an IP
 * address), `subdomains` for `*.example.com`.
 *
 * @since 0.3.0
 * @category domains
 */
export interface Rule {
  readonly kind: "exact" | "subdomains"
  /** The canonical name, without the `*.`. */
  readonly name: string
}

/**
 * @since 0.3.0
 * @category domains
 */
export interface DomainPolicy {
  readonly allowed: ReadonlyArray<Rule>
  readonly denied: ReadonlyArray<Rule>
}

/**
 * `denied` when a denied rule matches (whatever the allowed rules say),
 * `allowed` when an allowed rule does, `not_allowed` otherwise.
 *
 * @since 0.3.0
 * @category domains
 */
export type Verdict = "allowed" | "denied" | "not_allowed"

const labelPattern = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/

/**
 * The canonical form of a host as a client or a rule writes it, or none
 * when it is not a valid host name or IP address.
 *
 * @since 0.3.0
 * @category domains
 */
export const canonicalHost = (input: string): Option.Option<Host> => {
  const unbracketed = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input
  if (unbracketed.includes(":")) {
    // The URL parser prints IPv6 canonically (`0:0::1` is `[::1]`), so two
    // spellings of one address compare equal.
    return /^[0-9a-fA-F:.]+$/.test(unbracketed) && NodeNet.isIPv6(unbracketed)
      ? Option.some({ kind: "ip", name: new URL(`http://[${unbracketed}]/`).hostname.slice(1, -1) })
      : Option.none()
  }
  // `domainToASCII` reads its input as a URL host and stops at `/`, `?`,
  // `#` and the like (`example.com/x` gives `example.com`): only name
  // characters may reach it. Non-ASCII ones that map to such characters
  // are refused by it.
  if (unbracketed !== input || !/^[A-Za-z0-9._\u0080-\u{10ffff}-]+$/u.test(input)) return Option.none()
  const name = input.endsWith(".") ? input.slice(0, -1) : input
  // `domainToASCII` lowercases, applies punycode, and turns every IPv4
  // spelling the URL standard knows (`127.1`, `0x7f.0.0.1`, `2130706433`)
  // into a dotted quad: the spellings a resolver would also accept.
  const ascii = name === "" ? "" : NodeUrl.domainToASCII(name)
  if (ascii === "") return Option.none()
  if (NodeNet.isIPv4(ascii)) return Option.some({ kind: "ip", name: ascii })
  const labels = ascii.split(".")
  if (ascii.length > 253 || !labels.every((label) => label.length <= 63 && labelPattern.test(label))) {
    return Option.none()
  }
  // A last label that is a number is an address in a spelling `domainToASCII`
  // refused; a resolver might still take it, so it is no name.
  if (/^(?:0x[0-9a-f]*|[0-9]+)$/.test(labels[labels.length - 1]!)) return Option.none()
  return Option.some({ kind: "domain", name: ascii })
}

/**
 * Parses one rule: `example.com`, `*.example.com`, or an IP address. A
 * bare `*`, a wildcard anywhere but in front, a scheme, a path or a port
 * are not rules.
 *
 * @since 0.3.0
 * @category domains
 */
export const parseRule = (input: string): Option.Option<Rule> => {
  const wildcard = input.startsWith("*.")
  return Option.flatMap(
    canonicalHost(wildcard ? input.slice(2) : input),
    (host): Option.Option<Rule> =>
      wildcard && host.kind === "ip"
        ? Option.none()
        : Option.some({ kind: wildcard ? "subdomains" : "exact", name: host.name })
  )
}

/**
 * Whether a rule matches a canonical host.
 *
 * @since 0.3.0
 * @category domains
 */
export const matches = (rule: Rule, host: Host): boolean =>
  rule.kind === "exact"
    ? rule.name === host.name
    : host.kind === "domain" && host.name.endsWith(`.${rule.name}`)

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

/**
 * @since 0.3.0
 * @category domains
 */
export const decide = (policy: DomainPolicy, host: Host): Verdict =>
  policy.denied.some((rule) => matches(rule, host))
    ? "denied"
    : policy.allowed.some((rule) => matches(rule, host))
    ? "allowed"
    : "not_allowed"

/**
 * {@link decide} for a host as a client writes it; a string that is no host
 * is never allowed.
 *
 * @since 0.3.0
 * @category domains
 */
export const isAllowed = (policy: DomainPolicy, host: string): boolean =>
  Option.match(canonicalHost(host), { onNone: () => false, onSome: (host) => decide(policy, host) === "allowed" })

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

// ---------------------------------------------------------------------------
// bridge
// ---------------------------------------------------------------------------

/**
 * The bridge, run by `node -e` inside the sandbox with the arguments
 * `socketPath port command ...args`. Self-contained, CommonJS, no file to
 * resolve; it loads only `net` and `child_process`, which Node has compiled
 * in, so it adds little more than Node's own start.
 *
 * Exit codes are the wrapped command's; the bridge's own failures use the
 * shell's conventions: 125 cannot listen, 126 cannot run the command, 127
 * no such command. A command killed by a signal makes the bridge die of the
 * same signal; for the signals Node keeps for itself (SIGPIPE, SIGUSR1) it
 * exits with 128 + the signal number. The signal handlers are installed
 * first, so a SIGTERM that comes before the command exists ends the bridge
 * (as it would have ended the command) rather than orphaning it.
 */
const bridgeSource = `"use strict";
const net = require("net"), cp = require("child_process"), os = require("os");
const [socketPath, port, command, ...args] = process.argv.slice(1);
const signals = ["SIGTERM", "SIGINT", "SIGHUP"];
let child;
const fail = (code, text) => { process.stderr.write("network bridge: " + text + "\\n"); process.exit(code); };
const die = (signal) => {
  for (const s of signals) process.removeAllListeners(s);
  process.kill(process.pid, signal);
  setTimeout(() => process.exit(128 + (os.constants.signals[signal] || 0)), 100);
};
for (const signal of signals) process.on(signal, () => (child === undefined ? die(signal) : child.kill(signal)));
const server = net.createServer({ allowHalfOpen: true }, (client) => {
  const upstream = net.connect({ path: socketPath, allowHalfOpen: true });
  const end = () => { client.destroy(); upstream.destroy(); };
  client.on("error", end); upstream.on("error", end);
  client.on("close", end); upstream.on("close", end);
  client.pipe(upstream); upstream.pipe(client);
});
server.on("error", (error) => fail(125, "cannot listen on 127.0.0.1:" + port + " (" + error.code + ")"));
server.listen(Number(port), "127.0.0.1", () => {
  child = cp.spawn(command, args, { stdio: "inherit" });
  child.on("error", (error) =>
    fail(error.code === "ENOENT" ? 127 : 126, "cannot run " + JSON.stringify(command) + " (" + error.code + ")"));
  child.on("exit", (code, signal) => (signal === null ? process.exit(code) : die(signal)));
});
`

/**
 * What the bridge needs: the proxy's socket as the sandbox sees it, the
 * port to listen on inside the sandbox's namespace, and the command to run.
 *
 * @since 0.3.0
 * @category models
 */
export interface BridgeOptions {
  readonly socketPath: string
  readonly port: number
  readonly command: string
  readonly args: ReadonlyArray<string>
}

/**
 * @since 0.3.0
 * @category models
 */
export interface BridgeLaunch {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Record<string, string>
}

/**
 * A launch that, run inside the sandbox, listens on `127.0.0.1:port`
 * forwarding to the proxy's socket, and only then runs the command (stdio
 * inherited, SIGTERM/SIGINT/SIGHUP passed on, its exit code or signal
 * passed back). The environment points every proxy variable at the bridge
 * and empties `NO_PROXY`, so that no host is tried directly. Node's own
 * `fetch` and `http` ignore these variables unless `NODE_USE_ENV_PROXY=1`
 * is set (Node 24; Node 22 warns about it on stderr), which is left to the
 * caller.
 *
 * @since 0.3.0
 * @category bridge
 */
export const bridge = (options: BridgeOptions): BridgeLaunch => {
  const url = `http://127.0.0.1:${options.port}`
  return {
    command: process.execPath,
    args: ["-e", bridgeSource, "--", options.socketPath, String(options.port), options.command, ...options.args],
    env: {
      HTTP_PROXY: url,
      HTTPS_PROXY: url,
      http_proxy: url,
      https_proxy: url,
      ALL_PROXY: url,
      all_proxy: url,
      NO_PROXY: "",
      // Not NODE_USE_ENV_PROXY: Node 22 answers it with an experimental
      // warning on the stderr of every Node program, the bridge included.
      no_proxy: ""
    }
  }
}

/**
 * @since 0.3.0
 * @category models
 */
export interface StarterOptions extends Omit<Options, "socketPath" | "allowedDomains" | "deniedDomains"> {
  /** The socket's file name in the directory. Default `network-proxy.sock`. */
  readonly socketName?: string | undefined
  /** Where the sandbox sees the directory. Default `/tmp`. */
  readonly mountPoint?: string | undefined
  /** The bridge's port inside the sandbox. Default 3128. */
  readonly port?: number | undefined
}

/**
 * Starts a proxy with its socket in a host directory the sandbox sees
 * (at `/tmp` by default), and gives back how to wrap a command so it runs
 * behind the bridge. Fits the sandbox's proxy starter.
 *
 * @since 0.3.0
 * @category constructors
 */
export const starter = (options?: StarterOptions) =>
(input: {
  readonly directory: string
  readonly network: {
    readonly allowedDomains: ReadonlyArray<string>
    readonly deniedDomains?: ReadonlyArray<string> | undefined
  }
}): Effect.Effect<
  {
    readonly proxy: Service
    readonly wrap: <
      L extends {
        readonly command: string
        readonly args: ReadonlyArray<string>
        readonly env: Readonly<Record<string, string | undefined>> | undefined
      }
    >(launch: L) => L
  },
  NetworkProxyError,
  Scope.Scope
> =>
  Effect.map(
    make({
      ...options,
      socketPath: NodePath.join(input.directory, options?.socketName ?? "network-proxy.sock"),
      allowedDomains: input.network.allowedDomains,
      deniedDomains: input.network.deniedDomains
    }),
    (proxy) => ({
      proxy,
      wrap: (launch) => {
        const launched = bridge({
          socketPath: NodePath.posix.join(options?.mountPoint ?? "/tmp", options?.socketName ?? "network-proxy.sock"),
          port: options?.port ?? 3128,
          command: launch.command,
          args: launch.args
        })
        return { ...launch, command: launched.command, args: launched.args, env: { ...launch.env, ...launched.env } }
      }
    })
  )

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
 * Three modules behind this one: `DomainAllowlist` (the rules and their
 * verdict), `ProxyServer` (the host side, serving the socket) and
 * `NetworkBridge` (the program that runs inside the namespace); this module
 * keeps `starter`, which joins a proxy and its bridge for the sandbox.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as NodePath from "node:path"
import { bridge } from "./NetworkBridge.js"
import { make } from "./ProxyServer.js"
import type { NetworkProxyError, Options, Service } from "./ProxyServer.js"

export {
  canonicalHost,
  decide,
  type DomainPolicy,
  type Host,
  isAllowed,
  matches,
  parseRule,
  type Rule,
  type Verdict
} from "./DomainAllowlist.js"
export { bridge, type BridgeLaunch, type BridgeOptions } from "./NetworkBridge.js"
export {
  type Decision,
  defaults,
  layer,
  type Lookup,
  LookupError,
  make,
  NetworkProxy,
  NetworkProxyError,
  type Options,
  policy,
  type Service
} from "./ProxyServer.js"

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

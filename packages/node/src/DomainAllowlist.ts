/**
 * The proxy's allowlist: host names and IP addresses in one canonical form,
 * the rules `example.com` and `*.example.com`, and the verdict of an
 * allowed and a denied list on a host.
 *
 * Apart because it is pure name matching, with no socket in sight: it is
 * what decides where a sandboxed command may go, and it can be read and
 * tested on its own. `policy`, which reads settings into these rules, stays
 * with the proxy, whose error it fails with.
 *
 * @since 0.4.0
 */
import * as Option from "effect/Option"
import * as NodeNet from "node:net"
import * as NodeUrl from "node:url"

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

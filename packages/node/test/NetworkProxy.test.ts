import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeHttp from "node:http"
import * as NodeNet from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as NetworkProxy from "../src/NetworkProxy.js"

// Real sockets and real processes: origin servers on 127.0.0.1, the proxy on
// a UNIX socket, and for the bridge real bubblewrap (CI installs it; without
// it those tests fail rather than skip). Names resolve through an injected
// lookup, so `allowed.test` and friends never touch DNS.

const scratch = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "network-proxy-")))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))
let sequence = 0
const socketPath = () => NodePath.join(scratch, `p${++sequence}.sock`)

const SECRET = "c2VjcmV0LXByb3h5LXBhc3N3b3Jk"

// ---------------------------------------------------------------------------
// fixtures
// ---------------------------------------------------------------------------

const listening = (server: NodeNet.Server) =>
  Effect.acquireRelease(
    Effect.async<number>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as NodeNet.AddressInfo).port)))
    }),
    () =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
        if ("closeAllConnections" in server) (server as NodeHttp.Server).closeAllConnections()
      })
  )

/** An HTTP origin that says what it received. */
const httpOrigin = listening(NodeHttp.createServer((request, response) => {
  response.setHeader("Content-Type", "text/plain")
  response.end(
    `origin saw ${request.method} ${request.url} host=${request.headers.host} ` +
      `proxy-authorization=${request.headers["proxy-authorization"] ?? "none"}`
  )
}))

/** A TCP echo server, enough to stand for anything tunnelled with CONNECT. */
const echoOrigin = listening(NodeNet.createServer({ allowHalfOpen: true }, (socket) => {
  socket.on("error", () => {})
  socket.pipe(socket)
}))

/** A port nothing listens on. */
const closedPort = Effect.gen(function*() {
  const server = NodeNet.createServer()
  const port = yield* Effect.async<number>((resume) => {
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as NodeNet.AddressInfo).port)))
  })
  yield* Effect.async<void>((resume) => {
    server.close(() => resume(Effect.void))
  })
  return port
})

const testNames = new Set(["allowed.test", "api.allowed.test", "deep.api.allowed.test", "denied.test"])

/** Maps the test names to 127.0.0.1 and records what it was asked. */
const recordingLookup = () => {
  const asked: Array<string> = []
  const lookup: NetworkProxy.Lookup = (hostname) =>
    Effect.suspend(() => {
      asked.push(hostname)
      return testNames.has(hostname)
        ? Effect.succeed("127.0.0.1")
        : Effect.fail(new NetworkProxy.LookupError({ hostname, code: "ENOTFOUND" }))
    })
  return { asked, lookup }
}

const startProxy = (options?: Partial<NetworkProxy.Options>) =>
  Effect.gen(function*() {
    const { asked, lookup } = recordingLookup()
    const decisions: Array<NetworkProxy.Decision> = []
    const proxy = yield* NetworkProxy.make({
      socketPath: socketPath(),
      allowedDomains: ["allowed.test", "*.allowed.test"],
      lookup,
      onDecision: (decision) => Effect.sync(() => void decisions.push(decision)),
      ...options
    })
    return { proxy, asked, decisions }
  })

interface Exchange {
  /** Everything the proxy sent until it closed the connection. */
  readonly received: string
  readonly status: number | undefined
}

const statusOf = (text: string) => {
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(text)
  return match === null ? undefined : Number(match[1])
}

/**
 * Sends bytes to the proxy (then half-closes, when asked) and collects what
 * comes back until the proxy closes. Fails when that takes too long.
 */
const exchange = (
  path: string | number,
  bytes: string | Buffer,
  options?: { readonly end?: boolean; readonly within?: number }
) =>
  Effect.async<Exchange, string>((resume) => {
    const socket = typeof path === "string"
      ? NodeNet.connect({ path, allowHalfOpen: true })
      : NodeNet.connect({ port: path, host: "127.0.0.1", allowHalfOpen: true })
    const chunks: Array<Buffer> = []
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", () => {})
    // The proxy's end of the stream is the answer's end; the client would
    // otherwise stay half-open (and so would the proxy's side, until it
    // gives up on it).
    const done = () => {
      socket.destroy()
      const received = Buffer.concat(chunks).toString("utf8")
      resume(Effect.succeed({ received, status: statusOf(received) }))
    }
    socket.on("end", done)
    socket.on("close", done)
    socket.on("connect", () => {
      socket.write(bytes)
      if (options?.end === true) socket.end()
    })
    return Effect.sync(() => socket.destroy())
  }).pipe(
    Effect.timeoutFail({
      duration: options?.within ?? 5_000,
      onTimeout: () => "the proxy did not close the connection"
    })
  )

/** A connection kept open: write, read until a marker, close. */
const openConnection = (path: string | number) =>
  Effect.acquireRelease(
    Effect.async<{
      readonly socket: NodeNet.Socket
      readonly received: () => string
      readonly closed: Promise<void>
    }>((resume) => {
      const socket = typeof path === "string"
        ? NodeNet.connect({ path, allowHalfOpen: true })
        : NodeNet.connect({ port: path, host: "127.0.0.1", allowHalfOpen: true })
      const chunks: Array<Buffer> = []
      socket.on("data", (chunk: Buffer) => chunks.push(chunk))
      socket.on("error", () => {})
      const closed = new Promise<void>((done) => {
        socket.on("end", () => done())
        socket.on("close", () => done())
      })
      socket.on("connect", () =>
        resume(Effect.succeed({ socket, received: () => Buffer.concat(chunks).toString("utf8"), closed })))
      return Effect.sync(() =>
        socket.destroy()
      )
    }).pipe(Effect.timeoutFail({ duration: 5_000, onTimeout: () => "the proxy did not accept the connection" })),
    ({ socket }) => Effect.sync(() => socket.destroy())
  )

const until = (condition: () => boolean, what: string, within = 3_000) =>
  Effect.gen(function*() {
    const deadline = performance.now() + within
    while (!condition()) {
      if (performance.now() > deadline) return yield* Effect.fail(`timed out waiting for ${what}`)
      yield* Effect.sleep("10 millis")
    }
  })

const connectRequest = (authority: string, extra = "") =>
  `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${extra}\r\n`

// ---------------------------------------------------------------------------
// domain rules
// ---------------------------------------------------------------------------

const policyOf = (allowedDomains: ReadonlyArray<string>, deniedDomains: ReadonlyArray<string> = []) =>
  Either.getOrThrow(NetworkProxy.policy({ allowedDomains, deniedDomains }))

describe("NetworkProxy domain rules", () => {
  it("exact names, subdomains, case, trailing dots and IP literals", () => {
    const policy = policyOf(["example.com", "*.example.org", "10.0.0.1", "::1"])
    const cases: ReadonlyArray<readonly [string, boolean]> = [
      ["example.com", true],
      ["EXAMPLE.com.", true],
      ["www.example.com", false],
      ["example.org", false],
      ["api.example.org", true],
      ["a.b.API.Example.Org.", true],
      ["badexample.org", false],
      ["10.0.0.1", true],
      // Resolvers read `10.0.1` as 10.0.0.1 (the last part fills the rest), and so does the rule check.
      ["10.0.1", true],
      ["10.0.0.10", false],
      ["10.0.0.2", false],
      ["[::1]", true],
      ["0:0::1", true],
      ["::2", false],
      ["", false],
      ["exa mple.com", false],
      ["allowed@example.com", false]
    ]
    for (const [host, allowed] of cases) assert.strictEqual(NetworkProxy.isAllowed(policy, host), allowed, host)
  })

  it("an IP literal matches only a rule that is that address", () => {
    // `*.0.0.1` is no rule: a wildcard over numbers would reach addresses.
    assert.isTrue(Option.isNone(NetworkProxy.parseRule("*.0.0.1")))
    assert.isTrue(Option.isNone(NetworkProxy.parseRule("*.127.0.0.1")))
    const policy = policyOf(["127.0.0.1"])
    // Every spelling a resolver accepts for that address is that address.
    for (const host of ["127.0.0.1", "127.1", "0x7f.0.0.1", "2130706433"]) {
      assert.isTrue(NetworkProxy.isAllowed(policy, host), host)
    }
    assert.isFalse(NetworkProxy.isAllowed(policyOf(["*.example.com"]), "127.0.0.1"))
  })

  it("a denied rule wins over every allowed one", () => {
    const policy = policyOf(["*.example.com", "example.com"], ["secret.example.com", "*.internal.example.com"])
    assert.isTrue(NetworkProxy.isAllowed(policy, "api.example.com"))
    assert.isFalse(NetworkProxy.isAllowed(policy, "secret.example.com"))
    assert.isFalse(NetworkProxy.isAllowed(policy, "a.internal.example.com"))
    assert.isTrue(NetworkProxy.isAllowed(policy, "internal.example.com"))
  })

  it("refuses what is not a rule", () => {
    for (const rule of ["*", "*.", "", "foo.*.com", "http://example.com", "example.com:443", "example.com/x", "a..b"]) {
      const result = NetworkProxy.policy({ allowedDomains: [rule] })
      assert.isTrue(Either.isLeft(result), rule)
      if (Either.isLeft(result)) assert.strictEqual(result.left.reason, "invalid_rule")
    }
  })

  // Small alphabets, so rules and hosts collide often.
  const label = FastCheck.constantFrom("a", "b", "api", "test", "xn--bcher-kva", "w-1")
  const domain = FastCheck.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join("."))
  const rule = FastCheck.record({ wildcard: FastCheck.boolean(), domain })
  const rules = FastCheck.array(rule, { maxLength: 4 })
  const written = (r: { readonly wildcard: boolean; readonly domain: string }) => `${r.wildcard ? "*." : ""}${r.domain}`

  /** The definition, label by label. */
  const reference = (r: { readonly wildcard: boolean; readonly domain: string }, host: string) => {
    const ruleLabels = r.domain.split(".")
    const hostLabels = host.split(".")
    if (!r.wildcard) return r.domain === host
    return hostLabels.length > ruleLabels.length &&
      hostLabels.slice(hostLabels.length - ruleLabels.length).join(".") === r.domain
  }

  const scramble = (text: string, mask: ReadonlyArray<boolean>, dot: boolean) =>
    [...text].map((char, i) => (mask[i % Math.max(1, mask.length)] ? char.toUpperCase() : char)).join("") +
    (dot ? "." : "")

  it.prop(
    "a host is allowed iff some allowed rule matches and no denied rule does",
    { allowed: rules, denied: rules, host: domain },
    ({ allowed, denied, host }) => {
      const policy = policyOf(allowed.map(written), denied.map(written))
      const expected = allowed.some((r) => reference(r, host)) && !denied.some((r) => reference(r, host))
      return NetworkProxy.isAllowed(policy, host) === expected
    }
  )

  it.prop("*.d never matches d, and matches every x.d", { d: domain, x: label }, ({ d, x }) => {
    const policy = policyOf([`*.${d}`])
    return !NetworkProxy.isAllowed(policy, d) && NetworkProxy.isAllowed(policy, `${x}.${d}`)
  })

  it.prop(
    "case and a trailing dot change nothing, in hosts or in rules",
    {
      allowed: rules,
      denied: rules,
      host: domain,
      mask: FastCheck.array(FastCheck.boolean(), { minLength: 1, maxLength: 7 }),
      dots: FastCheck.array(FastCheck.boolean(), { minLength: 1, maxLength: 9 })
    },
    ({ allowed, denied, dots, host, mask }) => {
      const plain = policyOf(allowed.map(written), denied.map(written))
      const scrambled = policyOf(
        allowed.map((r, i) => scramble(written(r), mask, dots[i % dots.length]!)),
        denied.map((r, i) => scramble(written(r), mask, dots[(i + 1) % dots.length]!))
      )
      const expected = NetworkProxy.isAllowed(plain, host)
      return NetworkProxy.isAllowed(scrambled, host) === expected &&
        NetworkProxy.isAllowed(plain, scramble(host, mask, dots[0]!)) === expected
    }
  )

  it.prop(
    "no wildcard rule ever matches an IPv4 address",
    {
      ip: FastCheck.tuple(FastCheck.nat(255), FastCheck.nat(255), FastCheck.nat(255), FastCheck.nat(255)),
      suffix: domain
    },
    ({ ip, suffix }) => {
      const address = ip.join(".")
      const policy = policyOf([`*.${suffix}`])
      return !NetworkProxy.isAllowed(policy, address) &&
        [1, 2, 3].every((n) => Option.isNone(NetworkProxy.parseRule(`*.${ip.slice(4 - n).join(".")}`)))
    }
  )
})

// ---------------------------------------------------------------------------
// the proxy
// ---------------------------------------------------------------------------

describe("NetworkProxy", () => {
  it.scopedLive("CONNECT to an allowed name tunnels bytes both ways, half-close included", () =>
    Effect.gen(function*() {
      const echo = yield* echoOrigin
      const { asked, decisions, proxy } = yield* startProxy()
      // The client sends its first bytes with the request (as TLS clients
      // may) and half-closes; the echo comes back, then the end.
      const result = yield* exchange(proxy.socketPath, connectRequest(`allowed.test:${echo}`) + "ping", { end: true })
      assert.strictEqual(result.received, "HTTP/1.1 200 Connection Established\r\n\r\nping")
      assert.deepStrictEqual(decisions, [{ host: "allowed.test", port: echo, allowed: true }])
      assert.deepStrictEqual(asked, ["allowed.test"])
    }))

  it.scopedLive("a long tunnel carries bytes in both directions, in order", () =>
    Effect.gen(function*() {
      const echo = yield* echoOrigin
      const { proxy } = yield* startProxy()
      const connection = yield* openConnection(proxy.socketPath)
      connection.socket.write(connectRequest(`api.allowed.test:${echo}`))
      yield* until(() => connection.received().includes("\r\n\r\n"), "the 200")
      const payload = "x".repeat(300_000) + "END"
      connection.socket.write(payload)
      yield* until(() => connection.received().endsWith("END"), "the echo", 5_000)
      assert.strictEqual(connection.received(), `HTTP/1.1 200 Connection Established\r\n\r\n${payload}`)
    }))

  it.scopedLive("CONNECT to a name outside the allowlist gets 403, without resolving it", () =>
    Effect.gen(function*() {
      const echo = yield* echoOrigin
      const { asked, decisions, proxy } = yield* startProxy()
      const result = yield* exchange(
        proxy.socketPath,
        connectRequest(`denied.test:${echo}`, `Proxy-Authorization: Basic ${SECRET}\r\n`)
      )
      assert.strictEqual(result.status, 403)
      assert.include(result.received, "denied.test is not in the sandbox's allowlist")
      assert.include(result.received, "sandbox.network.allowedDomains")
      assert.notInclude(result.received, SECRET)
      assert.deepStrictEqual(decisions, [{ host: "denied.test", port: echo, allowed: false }])
      // Checked before resolving: a refused name is never looked up.
      assert.deepStrictEqual(asked, [])
    }))

  it.scopedLive("*.allowed.test admits subdomains at any depth, not allowed.test itself", () =>
    Effect.gen(function*() {
      const echo = yield* echoOrigin
      const { proxy } = yield* startProxy({ allowedDomains: ["*.allowed.test"] })
      for (
        const [host, status] of [["api.allowed.test", 200], ["deep.api.allowed.test", 200], [
          "allowed.test",
          403
        ]] as const
      ) {
        const result = yield* exchange(proxy.socketPath, connectRequest(`${host}:${echo}`) + "hi", { end: true })
        assert.strictEqual(result.status, status, host)
        if (status === 200) assert.isTrue(result.received.endsWith("\r\n\r\nhi"), host)
      }
    }))

  it.scopedLive("case and a trailing dot in the request do not get around the allowlist, or block an allowed name", () =>
    Effect.gen(function*() {
      const echo = yield* echoOrigin
      const { decisions, proxy } = yield* startProxy({ allowedDomains: ["api.allowed.test"] })
      assert.strictEqual(
        (yield* exchange(proxy.socketPath, connectRequest(`API.Allowed.TEST.:${echo}`), { end: true })).status,
        200
      )
      assert.strictEqual((yield* exchange(proxy.socketPath, connectRequest(`Allowed.TEST.:${echo}`))).status, 403)
      assert.deepStrictEqual(decisions.map((d) => d.host), ["api.allowed.test", "allowed.test"])
    }))

  it.scopedLive("a denied rule wins, and the answer names the deny setting", () =>
    Effect.gen(function*() {
      const echo = yield* echoOrigin
      const { proxy } = yield* startProxy({ deniedDomains: ["api.allowed.test"] })
      const result = yield* exchange(proxy.socketPath, connectRequest(`api.allowed.test:${echo}`))
      assert.strictEqual(result.status, 403)
      assert.include(result.received, "sandbox.network.deniedDomains")
    }))

  it.scopedLive("a plain GET is forwarded in origin form, with Host from the URL and no proxy credentials", () =>
    Effect.gen(function*() {
      const origin = yield* httpOrigin
      const { proxy } = yield* startProxy()
      const result = yield* exchange(
        proxy.socketPath,
        `GET http://allowed.test:${origin}/path?q=1#frag HTTP/1.1\r\nHost: elsewhere.example\r\n` +
          `Proxy-Authorization: Basic ${SECRET}\r\nProxy-Connection: keep-alive\r\nAccept: */*\r\n\r\n`
      )
      assert.strictEqual(result.status, 200)
      assert.isTrue(
        result.received.endsWith(`origin saw GET /path?q=1 host=allowed.test:${origin} proxy-authorization=none`),
        result.received
      )
    }))

  it.scopedLive("a plain POST carries its body", () =>
    Effect.gen(function*() {
      const origin = yield* listening(NodeHttp.createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => response.end(`got ${Buffer.concat(chunks).length} bytes`))
      }))
      const { proxy } = yield* startProxy()
      const body = "b".repeat(200_000)
      const result = yield* exchange(
        proxy.socketPath,
        `POST http://allowed.test:${origin}/upload HTTP/1.1\r\nContent-Length: ${body.length}\r\n\r\n${body}`
      )
      assert.strictEqual(result.status, 200)
      assert.isTrue(result.received.endsWith("got 200000 bytes"))
    }))

  it.scopedLive("a plain GET to a name outside the allowlist gets 403", () =>
    Effect.gen(function*() {
      const origin = yield* httpOrigin
      const { asked, proxy } = yield* startProxy()
      const result = yield* exchange(proxy.socketPath, `GET http://denied.test:${origin}/ HTTP/1.1\r\n\r\n`)
      assert.strictEqual(result.status, 403)
      assert.deepStrictEqual(asked, [])
    }))

  it.scopedLive("malformed requests get 400", () =>
    Effect.gen(function*() {
      const { decisions, proxy } = yield* startProxy()
      const requests = [
        "GARBAGE\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
        "GET https://allowed.test/ HTTP/1.1\r\n\r\n",
        "GET http://user@allowed.test/ HTTP/1.1\r\n\r\n",
        "CONNECT allowed.test HTTP/1.1\r\n\r\n",
        "CONNECT allowed.test:99999 HTTP/1.1\r\n\r\n",
        "CONNECT allowed.test:0 HTTP/1.1\r\n\r\n",
        "CONNECT a..b:443 HTTP/1.1\r\n\r\n",
        "CONNECT allowed.test:443 HTTP/2.0\r\n\r\n",
        `CONNECT allowed.test:443 HTTP/1.1\r\nno colon here ${SECRET}\r\n\r\n`,
        "CONNECT allowed.test:443 HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n",
        "\r\n\r\n"
      ]
      for (const request of requests) {
        const result = yield* exchange(proxy.socketPath, request)
        assert.strictEqual(result.status, 400, JSON.stringify(request))
        assert.notInclude(result.received, SECRET)
      }
      assert.deepStrictEqual(decisions, [])
    }))

  it.scopedLive("a 100 KB header is refused with 431, and the proxy goes on serving", () =>
    Effect.gen(function*() {
      const echo = yield* echoOrigin
      const { proxy } = yield* startProxy()
      const flood = `CONNECT allowed.test:${echo} HTTP/1.1\r\nX-Flood: ${"a".repeat(100_000)}\r\n\r\n`
      const result = yield* exchange(proxy.socketPath, flood)
      assert.strictEqual(result.status, 431)
      // A flood that never ends its header is cut off too.
      const endless = yield* exchange(
        proxy.socketPath,
        `GET http://allowed.test/ HTTP/1.1\r\nX: ${"a".repeat(100_000)}`
      )
      assert.strictEqual(endless.status, 431)
      const after = yield* exchange(proxy.socketPath, connectRequest(`allowed.test:${echo}`) + "still", { end: true })
      assert.isTrue(after.received.endsWith("\r\n\r\nstill"))
    }))

  it.scopedLive("a header that does not arrive in time gets 408 (slowloris)", () =>
    Effect.gen(function*() {
      const { proxy } = yield* startProxy({ headerTimeout: "300 millis" })
      const start = performance.now()
      const result = yield* exchange(proxy.socketPath, "CONNECT allowed.test:443 HTTP/1.1\r\nX-Slow: ", {
        within: 3_000
      })
      assert.strictEqual(result.status, 408)
      assert.isAtLeast(performance.now() - start, 250)
    }))

  it.scopedLive("a client that half-closes before its header is complete gets 400", () =>
    Effect.gen(function*() {
      const { proxy } = yield* startProxy()
      const result = yield* exchange(proxy.socketPath, "CONNECT allowed.test:443 HTT", { end: true })
      assert.strictEqual(result.status, 400)
      assert.include(result.received, "incomplete")
    }))

  it.scopedLive("clients that vanish midway do not disturb the proxy", () =>
    Effect.gen(function*() {
      const echo = yield* echoOrigin
      const origin = yield* httpOrigin
      const { proxy } = yield* startProxy({ listenTcp: true })
      const port = Option.getOrThrow(proxy.tcpPort)
      const pieces = [
        "",
        "CONNECT allow",
        connectRequest(`allowed.test:${echo}`),
        connectRequest(`allowed.test:${echo}`) + "data in flight",
        `GET http://allowed.test:${origin}/ HTTP/1.1\r\n`,
        `GET http://allowed.test:${origin}/ HTTP/1.1\r\n\r\n`,
        `POST http://allowed.test:${origin}/ HTTP/1.1\r\nContent-Length: 1000\r\n\r\nonly part`
      ]
      for (const piece of pieces) {
        for (const reset of [false, true]) {
          const connection = yield* Effect.scoped(Effect.gen(function*() {
            // A reset needs TCP: UNIX sockets have none.
            const connection = yield* openConnection(reset ? port : proxy.socketPath)
            if (piece !== "") connection.socket.write(piece)
            yield* Effect.sleep("20 millis")
            if (reset) connection.socket.resetAndDestroy()
            else connection.socket.destroy()
            return connection
          }))
          assert.isTrue(connection.socket.destroyed)
        }
      }
      const after = yield* exchange(proxy.socketPath, connectRequest(`allowed.test:${echo}`) + "alive", { end: true })
      assert.isTrue(after.received.endsWith("\r\n\r\nalive"))
    }))

  const fragment = FastCheck.oneof(
    FastCheck.constantFrom(
      "CONNECT ",
      "GET ",
      "http://",
      "https://",
      "allowed.test",
      "api.allowed.test",
      "denied.test",
      "127.0.0.1",
      "127.1",
      ":",
      ":PORT",
      "[",
      "]",
      "::1",
      " HTTP/1.1",
      "\r\n",
      "\r\n\r\n",
      "\n",
      "Host: x",
      `Proxy-Authorization: Basic ${SECRET}`,
      "@",
      "/",
      "?",
      "#",
      "*",
      ".",
      "%",
      "\u0000",
      "\u00e9",
      "\uff0f",
      " "
    ),
    FastCheck.string({ maxLength: 8 })
  )
  const fragments = FastCheck.array(fragment, { maxLength: 12 }).map((pieces) => pieces.join(""))
  const authorityPart = FastCheck.constantFrom(
    "allowed.test",
    "api.allowed.test",
    "denied.test",
    "127.0.0.1",
    "127.1",
    "ALLOWED.test.",
    ":",
    ":PORT",
    ":0",
    ":99999",
    "[",
    "]",
    "::1",
    "@",
    "/",
    "?",
    "#",
    "*",
    ".",
    "%",
    "\u00e9",
    "\uff0f"
  )
  const target = FastCheck.array(authorityPart, { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join(""))
  const header = FastCheck.oneof(
    {
      arbitrary: FastCheck.constantFrom("Host: x\r\n", `Proxy-Authorization: Basic ${SECRET}\r\n`, "X-A:\r\n"),
      weight: 4
    },
    { arbitrary: fragments, weight: 1 }
  )
  /** Mostly request-shaped, so that the parser's depths are reached; sometimes anything. */
  const hostileRequest = FastCheck.oneof(
    FastCheck.record({
      method: FastCheck.constantFrom("CONNECT", "GET", "POST", "connect", ""),
      scheme: FastCheck.constantFrom("", "http://", "HTTP://", "https://"),
      target: FastCheck.oneof({ arbitrary: target, weight: 4 }, { arbitrary: fragments, weight: 1 }),
      version: FastCheck.constantFrom(" HTTP/1.1", " HTTP/1.0", " HTTP/2", ""),
      headers: FastCheck.array(header, { maxLength: 3 }).map((lines) => lines.join("")),
      terminator: FastCheck.constantFrom("\r\n\r\n", "\r\n", ""),
      body: FastCheck.string({ maxLength: 16 })
    }).map((r) => `${r.method} ${r.scheme}${r.target}${r.version}\r\n${r.headers}${r.terminator}${r.body}`),
    fragments
  )

  it.scopedLive.prop(
    "whatever a client sends, it gets a well-formed refusal, a tunnel or an end, and the proxy goes on",
    { raw: hostileRequest },
    ({ raw }) =>
      Effect.gen(function*() {
        const echo = yield* echoOrigin
        const { proxy } = yield* startProxy()
        const request = raw.replaceAll("PORT", String(echo))
        const result = yield* exchange(proxy.socketPath, request, { end: true })
        assert.include([undefined, 200, 400, 403, 431, 502], result.status, JSON.stringify(request))
        // Silence is for a client that sent nothing; otherwise an answer, or
        // what the echo origin sent back for a forwarded request.
        assert.isTrue(request === "" || result.received !== "", JSON.stringify(request))
        if (result.status !== 200 && result.status !== undefined) assert.notInclude(result.received, SECRET)
        const after = yield* exchange(proxy.socketPath, connectRequest(`allowed.test:${echo}`) + "ok", { end: true })
        assert.isTrue(after.received.endsWith("\r\n\r\nok"))
      }),
    // 150 runs, each with a proxy of its own: seconds, tens of them on a loaded machine.
    { timeout: 120_000, fastCheck: { numRuns: 150 } }
  )

  it.scopedLive("an origin that cannot be reached, or a name that does not resolve, gets 502", () =>
    Effect.gen(function*() {
      const closed = yield* closedPort
      const { proxy } = yield* startProxy({ allowedDomains: ["allowed.test", "unknown.test"] })
      const refused = yield* exchange(proxy.socketPath, connectRequest(`allowed.test:${closed}`))
      assert.strictEqual(refused.status, 502)
      assert.include(refused.received, "ECONNREFUSED")
      const unresolved = yield* exchange(proxy.socketPath, `GET http://unknown.test/ HTTP/1.1\r\n\r\n`)
      assert.strictEqual(unresolved.status, 502)
      assert.include(unresolved.received, "Could not resolve unknown.test (ENOTFOUND)")
    }))

  it.scopedLive("listens on a loopback TCP port too, when asked", () =>
    Effect.gen(function*() {
      const echo = yield* echoOrigin
      const { proxy } = yield* startProxy({ listenTcp: true })
      const port = Option.getOrThrow(proxy.tcpPort)
      const result = yield* exchange(port, connectRequest(`allowed.test:${echo}`) + "tcp", { end: true })
      assert.isTrue(result.received.endsWith("\r\n\r\ntcp"))
      assert.isTrue(Option.isNone((yield* startProxy()).proxy.tcpPort))
    }))

  it.live("closing the scope closes the listeners and every open tunnel, and removes the socket file", () =>
    Effect.gen(function*() {
      const outer = yield* Scope.make()
      const echo = yield* Scope.extend(echoOrigin, outer)
      const scope = yield* Scope.make()
      const { proxy } = yield* Scope.extend(startProxy({ listenTcp: true }), scope)
      const port = Option.getOrThrow(proxy.tcpPort)
      assert.isTrue(NodeFs.statSync(proxy.socketPath).isSocket())
      const tunnel = yield* Scope.extend(openConnection(proxy.socketPath), outer)
      tunnel.socket.write(connectRequest(`allowed.test:${echo}`) + "open")
      yield* until(() => tunnel.received().endsWith("open"), "the tunnel")
      const waiting = yield* Scope.extend(openConnection(proxy.socketPath), outer)
      waiting.socket.write("CONNECT allowed.test:1 HTTP/1.1\r\n")

      yield* Scope.close(scope, Exit.void).pipe(Effect.timeout("3 seconds"))
      assert.isFalse(NodeFs.existsSync(proxy.socketPath))
      yield* Effect.promise(() => Promise.all([tunnel.closed, waiting.closed])).pipe(Effect.timeout("2 seconds"))
      const unix = yield* exchange(proxy.socketPath, "x").pipe(Effect.either)
      const tcp = yield* Effect.async<string>((resume) => {
        const socket = NodeNet.connect({ port, host: "127.0.0.1" })
        socket.on("error", (error: NodeJS.ErrnoException) => resume(Effect.succeed(error.code ?? "error")))
        socket.on("connect", () => {
          socket.destroy()
          resume(Effect.succeed("connected"))
        })
      })
      assert.strictEqual(tcp, "ECONNREFUSED")
      // No server at the path: the connection fails at once, with nothing received.
      assert.isTrue(Either.isRight(unix) && unix.right.received === "")
      yield* Scope.close(outer, Exit.void)
    }))

  it.scopedLive("fails to start with a typed error on a bad rule or a socket path in use", () =>
    Effect.gen(function*() {
      const badRule = yield* Effect.flip(startProxy({ allowedDomains: ["https://example.com"] }))
      assert.strictEqual(badRule.reason, "invalid_rule")
      assert.include(badRule.message, "\"https://example.com\" is not a domain rule")
      const { proxy } = yield* startProxy()
      const inUse = yield* Effect.flip(startProxy({ socketPath: proxy.socketPath }))
      assert.strictEqual(inUse.reason, "listen_failed")
      assert.include(inUse.detail, "EADDRINUSE")
      // The socket in use is not touched: the first proxy still serves on it.
      assert.strictEqual((yield* exchange(proxy.socketPath, "GARBAGE\r\n\r\n")).status, 400)
      const tooLong = yield* Effect.flip(startProxy({ socketPath: NodePath.join(scratch, "s".repeat(120)) }))
      assert.strictEqual(tooLong.reason, "listen_failed")
    }))
})

// ---------------------------------------------------------------------------
// the bridge
// ---------------------------------------------------------------------------

interface Ran {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a program to its end (bounded), with the bridge's environment added. */
const runProgram = (
  command: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  options?: { readonly onSpawn?: (child: NodeChildProcess.ChildProcess) => void }
) =>
  Effect.async<Ran, string>((resume) => {
    const child = NodeChildProcess.spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    child.on("error", (error: NodeJS.ErrnoException) =>
      resume(Effect.fail(
        error.code === "ENOENT" && command === "bwrap"
          ? "bwrap is not installed: these tests need bubblewrap (CI installs it)"
          : `could not run ${command}: ${error.code}`
      )))
    child.on("close", (code, signal) => resume(Effect.succeed({ code, signal, stdout, stderr })))
    options?.onSpawn?.(child)
    return Effect.sync(() => child.kill("SIGKILL"))
  }).pipe(Effect.timeoutFail({ duration: 20_000, onTimeout: () => `${command} did not finish` }))

const BRIDGE_PORT = 3128

/** A bubblewrap sandbox without network, the proxy's directory at /tmp/px. */
const inSandbox = (directory: string, launch: NetworkProxy.BridgeLaunch) =>
  runProgram(
    "bwrap",
    [
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--tmpfs",
      "/tmp",
      "--bind",
      directory,
      "/tmp/px",
      "--unshare-net",
      "--unshare-pid",
      "--die-with-parent",
      "--new-session",
      "--",
      launch.command,
      ...launch.args
    ],
    launch.env
  )

const sandboxedProxy = Effect.gen(function*() {
  const directory = NodeFs.mkdtempSync(NodePath.join(scratch, "px-"))
  const started = yield* startProxy({ socketPath: NodePath.join(directory, "proxy.sock") })
  return { ...started, directory }
})

const curlIn = (directory: string, args: ReadonlyArray<string>) =>
  inSandbox(
    directory,
    NetworkProxy.bridge({
      socketPath: "/tmp/px/proxy.sock",
      port: BRIDGE_PORT,
      command: "curl",
      args: ["-sS", "-m", "5", ...args]
    })
  )

describe("NetworkProxy.bridge", () => {
  it("sets every proxy variable to the bridge and empties NO_PROXY", () => {
    const launch = NetworkProxy.bridge({ socketPath: "/tmp/p.sock", port: 4000, command: "curl", args: ["-v"] })
    assert.strictEqual(launch.command, process.execPath)
    assert.deepStrictEqual(launch.args.slice(-4), ["/tmp/p.sock", "4000", "curl", "-v"])
    for (const key of ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"]) {
      assert.strictEqual(launch.env[key], "http://127.0.0.1:4000", key)
    }
    assert.strictEqual(launch.env.NO_PROXY, "")
    assert.strictEqual(launch.env.no_proxy, "")
    assert.strictEqual(Object.keys(launch.env).length, 8)
  })

  it.scopedLive("inside bubblewrap without network: curl reaches an allowed name, plain and tunnelled", () =>
    Effect.gen(function*() {
      const origin = yield* httpOrigin
      const { decisions, directory } = yield* sandboxedProxy
      const plain = yield* curlIn(directory, [`http://allowed.test:${origin}/hello`])
      assert.strictEqual(plain.code, 0, plain.stderr)
      assert.strictEqual(plain.stdout, `origin saw GET /hello host=allowed.test:${origin} proxy-authorization=none`)
      // `-p` tunnels plain HTTP through CONNECT, as HTTPS would be.
      const tunnelled = yield* curlIn(directory, ["-p", `http://api.allowed.test:${origin}/tls-like`])
      assert.strictEqual(tunnelled.code, 0, tunnelled.stderr)
      assert.strictEqual(
        tunnelled.stdout,
        `origin saw GET /tls-like host=api.allowed.test:${origin} proxy-authorization=none`
      )
      assert.deepStrictEqual(decisions.map((d) => d.host), ["allowed.test", "api.allowed.test"])
    }))

  it.scopedLive("inside bubblewrap: a denied name gets 403, and the host's loopback is out of reach", () =>
    Effect.gen(function*() {
      const origin = yield* httpOrigin
      const { directory } = yield* sandboxedProxy
      const denied = yield* curlIn(directory, [
        "-o",
        "/dev/null",
        "-w",
        "%{http_code}",
        `http://denied.test:${origin}/`
      ])
      assert.strictEqual(denied.stdout, "403")
      const deniedTls = yield* curlIn(directory, ["-p", `http://denied.test:${origin}/`])
      assert.notStrictEqual(deniedTls.code, 0)
      assert.include(deniedTls.stderr, "403")
      // Past the proxy, straight to the host's 127.0.0.1: another namespace.
      const direct = yield* curlIn(directory, ["--noproxy", "*", `http://127.0.0.1:${origin}/`])
      assert.strictEqual(direct.code, 7, direct.stderr)
      assert.strictEqual(direct.stdout, "")
      // Without the bridge the proxy's port is nothing inside the namespace.
      const noBridge = yield* inSandbox(directory, {
        command: "curl",
        args: ["-sS", "-m", "5", `http://allowed.test:${origin}/`],
        env: NetworkProxy.bridge({ socketPath: "/tmp/px/proxy.sock", port: BRIDGE_PORT, command: "", args: [] }).env
      })
      assert.strictEqual(noBridge.code, 7, noBridge.stderr)
    }))

  it.scopedLive("starter: the socket goes in the sandbox's /tmp, and wrap puts a launch behind the bridge", () =>
    Effect.gen(function*() {
      const origin = yield* httpOrigin
      const directory = NodeFs.mkdtempSync(NodePath.join(scratch, "tmp-"))
      const { lookup } = recordingLookup()
      const { proxy, wrap } = yield* NetworkProxy.starter({ lookup, port: 3129 })({
        directory,
        network: { allowedDomains: ["allowed.test"], deniedDomains: [] }
      })
      assert.strictEqual(proxy.socketPath, NodePath.join(directory, "network-proxy.sock"))
      const launch = wrap({
        command: "sh",
        args: ["-c", `curl -sS -m 5 http://allowed.test:${origin}/via-starter; echo " $HTTPS_PROXY"`],
        cwd: "/",
        env: { KEPT: "yes", HTTPS_PROXY: "http://overridden.example" }
      })
      assert.strictEqual(launch.cwd, "/")
      assert.strictEqual(launch.env.KEPT, "yes")
      const ran = yield* runProgram(
        "bwrap",
        [
          ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", directory, "/tmp"],
          ...["--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session", "--"],
          launch.command,
          ...launch.args
        ],
        launch.env
      )
      assert.strictEqual(ran.code, 0, ran.stderr)
      assert.strictEqual(
        ran.stdout,
        `origin saw GET /via-starter host=allowed.test:${origin} proxy-authorization=none http://127.0.0.1:3129\n`
      )
    }))

  it.scopedLive("passes the command's exit code back, and the bridge's own failures have codes", () =>
    Effect.gen(function*() {
      const { proxy } = yield* sandboxedProxy
      // These run on the host: port 0 takes a free port, where a fixed one clashed with a parallel suite.
      const launch = (command: string, args: ReadonlyArray<string>, port = 0) =>
        NetworkProxy.bridge({ socketPath: proxy.socketPath, port, command, args })
      const run = (l: NetworkProxy.BridgeLaunch) => runProgram(l.command, l.args, l.env)
      const seven = yield* run(launch("sh", ["-c", "echo out; echo err >&2; exit 7"]))
      assert.deepStrictEqual([seven.code, seven.stdout, seven.stderr], [7, "out\n", "err\n"])
      const missing = yield* run(launch("/nonexistent/program", []))
      assert.strictEqual(missing.code, 127)
      assert.include(missing.stderr, "network bridge: cannot run")
      // Run on the host (no namespace), where a listener already holds the port.
      const busy = yield* listening(NodeNet.createServer())
      const clash = yield* run(launch("true", [], busy))
      assert.strictEqual(clash.code, 125)
      assert.include(clash.stderr, "EADDRINUSE")
    }))

  it.scopedLive("forwards SIGTERM to the command and dies of the same signal", () =>
    Effect.gen(function*() {
      const { proxy } = yield* sandboxedProxy
      const launch = NetworkProxy.bridge({
        socketPath: proxy.socketPath,
        port: 0,
        command: "sh",
        args: ["-c", "trap 'echo got-term; exit 0' TERM; echo ready; while :; do sleep 0.05; done"]
      })
      // The trap exits 0: the bridge exits 0 too, after passing the signal on.
      const trapped = yield* runProgram(launch.command, launch.args, launch.env, {
        onSpawn: (child) =>
          child.stdout?.on("data", (chunk: Buffer) => String(chunk).includes("ready") && child.kill("SIGTERM"))
      })
      assert.deepStrictEqual([trapped.code, trapped.signal, trapped.stdout], [0, null, "ready\ngot-term\n"])
      const plain = NetworkProxy.bridge({
        socketPath: proxy.socketPath,
        port: 0,
        command: "sh",
        args: ["-c", "echo ready; exec sleep 30"]
      })
      const killed = yield* runProgram(plain.command, plain.args, plain.env, {
        onSpawn: (child) =>
          child.stdout?.on("data", (chunk: Buffer) => String(chunk).includes("ready") && child.kill("SIGTERM"))
      })
      assert.deepStrictEqual([killed.code, killed.signal], [null, "SIGTERM"])
    }))
})

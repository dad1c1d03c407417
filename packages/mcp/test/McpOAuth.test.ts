/**
 * OAuth against a real authorization flow on loopback (`fixtures/OAuthServer`):
 * the client discovers, registers, sends the "browser" through the real
 * authorization page to its own loopback listener, exchanges the code with
 * PKCE, and calls; then refresh, revocation, step-up, a server that never
 * accepts, a person who never approves or says no, a forged callback, the
 * file store between runs, and client credentials. Every secret the server
 * handed out or received is then looked for, 8 characters at a time, in
 * what the client returned and logged.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Redacted from "effect/Redacted"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as McpClient from "../src/McpClient.js"
import type * as McpConfig from "../src/McpConfig.js"
import * as McpHttpServer from "../src/McpHttpServer.js"
import * as McpOAuth from "../src/McpOAuth.js"
import * as McpOAuthStore from "../src/McpOAuthStore.js"
import * as OAuthServer from "./fixtures/OAuthServer.js"
import * as Servers from "./fixtures/Servers.js"

/** Each 8-character window of a secret found in a text. */
const leaks = (text: string, secrets: Iterable<string>) => {
  const found: Array<string> = []
  for (const secret of secrets) {
    for (let start = 0; start + 8 <= secret.length; start++) {
      if (text.includes(secret.slice(start, start + 8))) {
        found.push(secret.slice(start, start + 8))
        break
      }
    }
  }
  return found
}

const withServer = <A, E>(use: (server: OAuthServer.OAuthServer) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(Effect.promise(() => OAuthServer.start()), use, (server) => Effect.promise(server.close))

/** The log lines written while `effect` runs, as logfmt. */
const logged = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const { layer, lines } = Servers.logLines()
    return effect.pipe(
      Effect.exit,
      Effect.map((exit) => ({ exit, lines })),
      Effect.provide(layer),
      Effect.withLogSpan("oauth")
    )
  })

const connect = (
  server: OAuthServer.OAuthServer,
  options?: {
    readonly settings?: McpConfig.OAuth | false
    readonly oauth?: McpOAuth.Options
  }
) =>
  McpClient.connect("remote", {
    url: server.url,
    ...(options?.settings === undefined ? {} : { oauth: options.settings })
  }, {
    startupTimeout: "10 seconds",
    oauth: {
      authorize: McpOAuth.followRedirects,
      store: McpOAuthStore.memoryStore(),
      timeout: "5 seconds",
      ...options?.oauth
    }
  })

const text = (result: { readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }> }) =>
  result.content.map((block) => block.text ?? "").join("")

describe("McpOAuth", () => {
  it.live("a 401 leads to discovery, registration, an approval with PKCE and state, and a working call", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const remote = yield* connect(server)
        assert.deepStrictEqual(remote.tools.map((tool) => tool.name).sort(), ["admin", "echo_token", "whoami"])
        const result = yield* remote.call("whoami", {})
        assert.match(text(result), /^client client-1 with scope read$/)
        assert.deepStrictEqual(
          { ...server.seen, scopes: [...server.seen.scopes], resources: [...server.seen.resources] },
          {
            registrations: 1,
            authorizations: 1,
            codeExchanges: 1,
            refreshes: 0,
            clientCredentials: 0,
            scopes: ["read"],
            resources: [server.url]
          }
        )
      }).pipe(Effect.scoped)
    ))

  it.live("a token the server echoes or quotes never reaches a result, an error or the log", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const { exit, lines } = yield* logged(
          Effect.gen(function*() {
            const remote = yield* connect(server)
            const echoed = yield* remote.call("echo_token", {})
            const exploded = yield* Effect.flip(remote.call("explode", {}))
            server.refuseAll = true
            const refused = yield* Effect.flip(remote.call("whoami", {}))
            return { echoed, exploded, refused }
          }).pipe(Effect.scoped)
        )
        assert.isTrue(Exit.isSuccess(exit))
        if (!Exit.isSuccess(exit)) return
        const { echoed, exploded, refused } = exit.value
        assert.match(exploded.message, /internal error handling Bearer \[redacted\]/)
        // The server did echo something: the check below is about a real echo.
        assert.match(text(echoed), /you sent Bearer \[redacted\]/)
        assert.isAbove(server.secrets.size, 3)
        const seen = [JSON.stringify(echoed), exploded.message, refused.message, ...lines].join("\n")
        assert.deepStrictEqual(leaks(seen, server.secrets), [])
        assert.strictEqual(refused.reason, "unauthorized")
      })
    ))

  it.live("an expired access token is refreshed, without asking the person again", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const remote = yield* connect(server)
        server.expireAccess()
        assert.match(text(yield* remote.call("whoami", {})), /scope read/)
        assert.strictEqual(server.seen.refreshes, 1)
        assert.strictEqual(server.seen.authorizations, 1)
      }).pipe(Effect.scoped)
    ))

  it.live("revoked tokens: the refresh is refused, the person is asked again, and the call goes through", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const remote = yield* connect(server)
        server.revokeAll()
        assert.match(text(yield* remote.call("whoami", {})), /scope read/)
        assert.strictEqual(server.seen.authorizations, 2)
        assert.strictEqual(server.seen.codeExchanges, 2)
        assert.strictEqual(server.seen.registrations, 1, "the registration is kept")
      }).pipe(Effect.scoped)
    ))

  it.live("a step-up (403 insufficient_scope) asks for the scopes held and the scope challenged", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const remote = yield* connect(server)
        assert.strictEqual(text(yield* remote.call("admin", {})), "admin done")
        assert.deepStrictEqual(server.seen.scopes, ["read", "read admin"])
        assert.match(text(yield* remote.call("whoami", {})), /scope read admin$/)
      }).pipe(Effect.scoped)
    ))

  it.live("a server that refuses every token fails the start once, with no loop", () =>
    withServer((server) =>
      Effect.gen(function*() {
        server.refuseAll = true
        const error = yield* Effect.flip(connect(server).pipe(Effect.scoped))
        assert.strictEqual(error.reason, "unauthorized")
        assert.match(error.message, /refused the new authorization too \(HTTP 401\)/)
        assert.strictEqual(server.seen.authorizations, 1)
      })
    ))

  it.live("nobody approves: the start fails when the wait runs out, not later", () =>
    withServer((server) =>
      Effect.gen(function*() {
        server.mode = "hold"
        const started = yield* Clock.currentTimeMillis
        const error = yield* Effect.flip(connect(server, { oauth: { timeout: "1 second" } }).pipe(Effect.scoped))
        const elapsed = (yield* Clock.currentTimeMillis) - started
        assert.strictEqual(error.reason, "unauthorized")
        assert.match(error.message, /nobody approved within 1 s/)
        assert.isBelow(elapsed, 5_000)
      })
    ))

  it.live("a page that cannot be opened fails the start at once, and the abandoned wait settles quietly", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(
          connect(server, { oauth: { timeout: "300 millis", authorize: () => Effect.fail("no browser here") } })
            .pipe(Effect.scoped)
        )
        assert.match(error.message, /the authorization page could not be opened/)
        // Past the wait's own deadline: a rejection nobody handles would fail this run (and end a real process).
        yield* Effect.sleep("600 millis")
      })
    ))

  it("a program that stops waiting for an approval exits at once, not at the approval's deadline", () => {
    const started = performance.now()
    const run = ChildProcess.spawnSync(
      process.execPath,
      [
        Servers.tsx,
        "--conditions=@tool-runtime/source",
        NodePath.join(import.meta.dirname, "fixtures/oauth-abandon.ts")
      ],
      { encoding: "utf8", timeout: 50_000 }
    )
    assert.strictEqual(run.stdout, "gave up\n", run.stderr)
    assert.strictEqual(run.status, 0)
    // tsx compiles for seconds on a loaded machine; the approval's deadline is 60 s.
    assert.isBelow(performance.now() - started, 40_000)
  }, 60_000)

  it.live("the person says no: the authorization server's answer ends the wait at once", () =>
    withServer((server) =>
      Effect.gen(function*() {
        server.mode = "deny"
        const started = yield* Clock.currentTimeMillis
        const error = yield* Effect.flip(connect(server, { oauth: { timeout: "30 seconds" } }).pipe(Effect.scoped))
        assert.match(error.message, /refused: access_denied: the user said no/)
        assert.isBelow((yield* Clock.currentTimeMillis) - started, 5_000)
      })
    ))

  it.live("a token endpoint that never answers fails the start within the bound, and the next start works", () =>
    withServer((server) =>
      Effect.gen(function*() {
        server.hangTokens = true
        const started = yield* Clock.currentTimeMillis
        const error = yield* Effect.flip(connect(server, { oauth: { timeout: "1 second" } }).pipe(Effect.scoped))
        assert.match(error.message, /did not answer within 1 s/)
        assert.isBelow((yield* Clock.currentTimeMillis) - started, 8_000)
        server.hangTokens = false
        const remote = yield* connect(server, { oauth: { timeout: "1 second" } })
        assert.match(text(yield* remote.call("whoami", {})), /scope read/)
      }).pipe(Effect.scoped)
    ))

  it.live("a callback with another state is refused and the real one still counts (no CSRF)", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const forged: Array<number> = []
        const authorize: McpOAuth.Authorize = (request) =>
          Effect.promise(async () => {
            const callback = new URL(request.url.searchParams.get("redirect_uri")!)
            callback.searchParams.set("state", "forged")
            callback.searchParams.set("code", "attacker-code")
            forged.push((await fetch(callback)).status)
            await fetch(request.url)
          })
        const remote = yield* connect(server, { oauth: { authorize } })
        assert.deepStrictEqual(forged, [400])
        assert.match(text(yield* remote.call("whoami", {})), /scope read/)
      }).pipe(Effect.scoped)
    ))

  it.live("the file store: 0600 in a 0700 folder, and a second run needs no approval", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const directory = NodePath.join(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "oauth-store-")), "tokens")
        const store = McpOAuthStore.fileStore(directory)
        yield* connect(server, { oauth: { store } }).pipe(Effect.scoped)
        const files = NodeFs.readdirSync(directory)
        assert.deepStrictEqual(files.length, 1)
        assert.strictEqual(NodeFs.statSync(directory).mode & 0o777, 0o700)
        assert.strictEqual(NodeFs.statSync(NodePath.join(directory, files[0]!)).mode & 0o777, 0o600)
        const remote = yield* connect(server, { oauth: { store: McpOAuthStore.fileStore(directory) } })
        assert.match(text(yield* remote.call("whoami", {})), /scope read/)
        assert.strictEqual(server.seen.authorizations, 1)
        assert.strictEqual(server.seen.registrations, 1)
        NodeFs.rmSync(NodePath.dirname(directory), { recursive: true, force: true })
      }).pipe(Effect.scoped)
    ))

  it.live("client credentials: no person, the secret sent as HTTP Basic, never shown", () =>
    withServer((server) =>
      Effect.gen(function*() {
        server.preRegister("machine", "s3cret-client-secret-value")
        const directory = NodePath.join(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "oauth-store-")), "tokens")
        const { exit, lines } = yield* logged(
          connect(server, {
            settings: { grant: "client_credentials", clientId: "machine" },
            oauth: {
              store: McpOAuthStore.fileStore(directory),
              authorize: () => Effect.dieMessage("no person is asked"),
              credentials: { remote: { clientSecret: Redacted.make("s3cret-client-secret-value") } }
            }
          }).pipe(Effect.flatMap((remote) => remote.call("echo_token", {})), Effect.scoped)
        )
        assert.isTrue(Exit.isSuccess(exit))
        assert.strictEqual(server.seen.clientCredentials, 1)
        assert.deepStrictEqual(leaks([JSON.stringify(exit), ...lines].join("\n"), server.secrets), [])
        // The token is kept; the pre-registered secret, which came from outside, is not copied to disk.
        const kept = NodeFs.readdirSync(directory).map((file) =>
          NodeFs.readFileSync(NodePath.join(directory, file), "utf8")
        )
        assert.strictEqual(kept.length, 1)
        assert.include(kept[0], "access_token")
        assert.deepStrictEqual(leaks(kept.join(""), ["s3cret-client-secret-value"]), [])
        NodeFs.rmSync(NodePath.dirname(directory), { recursive: true, force: true })
      })
    ))

  it.live("an authorization server that quotes the code and verifier back: neither reaches the error", () =>
    withServer((server) =>
      Effect.gen(function*() {
        server.quoteSecrets = true
        const error = yield* Effect.flip(connect(server).pipe(Effect.scoped))
        assert.match(error.message, /no good: code \[redacted\]/)
        assert.deepStrictEqual(leaks(error.message, server.secrets), [])
        // The fetch on its own (a transport of the caller's) scrubs what it throws as well.
        const runtime = yield* Effect.runtime<never>()
        const provider = McpOAuth.provider("remote", { url: server.url }, {
          authorize: McpOAuth.followRedirects,
          store: McpOAuthStore.memoryStore(),
          timeout: "5 seconds"
        }, runtime)!
        const thrown = yield* Effect.flip(
          Effect.tryPromise(() => McpOAuth.authorizedFetch(provider)(server.url, { method: "POST", body: "{}" }))
        )
        assert.match(String(thrown.cause), /no good/)
        assert.deepStrictEqual(leaks(String(thrown.cause), server.secrets), [])
      })
    ))

  it.live("an authorization server that quotes the Basic header back: the secret, base64 encoded, is not in the error", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const secret = "cs_S3cr3t-value-of-agent-7"
        server.preRegister("agent-7", secret)
        server.quoteSecrets = true
        const { exit, lines } = yield* logged(
          connect(server, {
            settings: { grant: "client_credentials", clientId: "agent-7" },
            oauth: { credentials: { remote: { clientSecret: Redacted.make(secret) } } }
          }).pipe(Effect.scoped)
        )
        assert.isTrue(Exit.isFailure(exit))
        const seen = [JSON.stringify(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""), ...lines].join("\n")
        assert.match(seen, /you sent Basic /)
        const basic = Buffer.from(`agent-7:${secret}`).toString("base64")
        // The part of the header that carries the secret (the first characters carry the client id).
        assert.deepStrictEqual(leaks(seen, [secret, basic.slice(12)]), [])
      })
    ))

  it.live("a wrong client secret fails the start as unauthorized, the secret not quoted", () =>
    withServer((server) =>
      Effect.gen(function*() {
        server.preRegister("machine", "the-right-secret")
        const error = yield* Effect.flip(
          connect(server, {
            settings: { grant: "client_credentials", clientId: "machine" },
            oauth: { credentials: { remote: { clientSecret: Redacted.make("a-wrong-secret-value") } } }
          }).pipe(Effect.scoped)
        )
        assert.strictEqual(error.reason, "unauthorized")
        assert.deepStrictEqual(leaks(error.message, ["a-wrong-secret-value"]), [])
      })
    ))

  it.live("oauth: false leaves a 401 as a failed start", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(connect(server, { settings: false }).pipe(Effect.scoped))
        assert.strictEqual(error.reason, "start_failed")
        assert.strictEqual(server.seen.authorizations, 0)
      })
    ))
})

describe("McpOAuth and servers without authorization", () => {
  it.live("a server that never asks is called without touching the store, even one that cannot be used", () =>
    Effect.gen(function*() {
      const { url } = yield* McpHttpServer.serve().pipe(Effect.provide(ToolRuntime.layerDefault([])))
      const parent = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "oauth-store-"))
      const missing = NodePath.join(parent, "never-created")
      const open = NodePath.join(parent, "open")
      NodeFs.mkdirSync(open, { mode: 0o755 })
      NodeFs.chmodSync(open, 0o755)
      for (const directory of [missing, open]) {
        const remote = yield* McpClient.connect("plain", { url }, {
          oauth: { store: McpOAuthStore.fileStore(directory) }
        })
        // Answered by the server (an error result of its own), not refused on the way.
        const result = yield* remote.call("read_output", { location: "nothing" })
        assert.isNotEmpty(result.content)
      }
      assert.isFalse(NodeFs.existsSync(missing))
      NodeFs.rmSync(parent, { recursive: true, force: true })
    }).pipe(Effect.scoped))
})

describe("McpOAuthStore.fileStore", () => {
  const fresh = () => NodePath.join(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "oauth-store-")), "tokens")
  const saved: McpOAuthStore.Saved = { tokens: Redacted.make({ access_token: "a-token-value", token_type: "Bearer" }) }

  it.effect("refuses a file group or others may read", () =>
    Effect.gen(function*() {
      const directory = fresh()
      const store = McpOAuthStore.fileStore(directory)
      yield* store.save("k", saved)
      NodeFs.chmodSync(NodePath.join(directory, "k.json"), 0o644)
      const error = yield* Effect.flip(store.load("k"))
      assert.match(error.message, /mode is 644/)
    }))

  it.effect("refuses a symbolic link in place of the file", () =>
    Effect.gen(function*() {
      const directory = fresh()
      const store = McpOAuthStore.fileStore(directory)
      yield* store.save("elsewhere", saved)
      NodeFs.symlinkSync(NodePath.join(directory, "elsewhere.json"), NodePath.join(directory, "k.json"))
      const error = yield* Effect.flip(store.load("k"))
      assert.match(error.message, /symbolic link/)
    }))

  it.effect("refuses a folder others may enter", () =>
    Effect.gen(function*() {
      const directory = fresh()
      NodeFs.mkdirSync(directory, { mode: 0o755 })
      NodeFs.chmodSync(directory, 0o755)
      const error = yield* Effect.flip(McpOAuthStore.fileStore(directory).save("k", saved))
      assert.match(error.message, /mode is 755/)
      assert.deepStrictEqual(NodeFs.readdirSync(directory), [])
    }))

  it.effect("a saved value reads back the same, secrets as Redacted", () =>
    Effect.gen(function*() {
      const store = McpOAuthStore.fileStore(fresh())
      yield* store.save("k", saved)
      const loaded = yield* store.load("k")
      assert.isTrue(loaded._tag === "Some")
      if (loaded._tag !== "Some") return
      assert.isTrue(Redacted.isRedacted(loaded.value.tokens))
      assert.strictEqual(Redacted.value(loaded.value.tokens!).access_token, "a-token-value")
      assert.notInclude(String(loaded.value.tokens), "a-token")
    }))
})

describe("McpOAuth.scrub", () => {
  const secret = FastCheck.stringMatching(/^[A-Za-z0-9_-]{8,64}$/)
  // Text around the secrets never holds their characters, so nothing else may change.
  const noise = FastCheck.stringMatching(/^[ .:;,!?\u00e9\u4e2d\n]{0,40}$/)

  it.prop("no 8 characters of a secret survive, wherever they sit and however they are cut", [
    FastCheck.array(secret, { minLength: 1, maxLength: 4 }),
    FastCheck.array(FastCheck.tuple(FastCheck.nat(), FastCheck.nat(), FastCheck.nat(), noise), { maxLength: 8 }),
    noise
  ], ([secrets, pieces, tail]) => {
    const text = pieces.map(([which, from, length, around]) => {
      const chosen = secrets[which % secrets.length]!
      const start = from % chosen.length
      return `${around}${chosen.slice(start, start + 8 + (length % 64))}`
    }).join("") + tail
    const scrubbed = McpOAuth.scrub(text, secrets)
    assert.deepStrictEqual(leaks(scrubbed, secrets), [])
    const clean = pieces.map(([, , , around]) => around).join("") + tail
    assert.strictEqual(McpOAuth.scrub(clean, secrets), clean)
  })

  it("walks a result nested 100,000 deep", () => {
    let nested: unknown = { text: "Bearer abcdefgh12345678" }
    for (let depth = 0; depth < 100_000; depth++) nested = [nested]
    McpOAuth.scrubDeep(nested, (text) => McpOAuth.scrub(text, ["abcdefgh12345678"]))
    let inner = nested
    while (Array.isArray(inner)) inner = inner[0]
    assert.deepStrictEqual(inner, { text: "Bearer [redacted]" })
  })
})

/**
 * OAuth 2.1 for the remote servers our client talks to, as MCP's
 * authorization spec asks: when a server answers 401 (or 403 with
 * `insufficient_scope`), the client discovers its authorization server
 * (RFC 9728, RFC 8414, OpenID discovery), registers (dynamically, with a
 * metadata document URL, or not at all for a pre-registered client), sends a
 * person to approve with PKCE and a `state` checked on the way back, takes
 * the code on a loopback listener of its own, and retries the request. A
 * token that expires is refreshed; a revoked one starts a new approval; a
 * step-up asks for the union of the scopes held and the scopes challenged.
 * Client credentials (a secret or a signed JWT) need no person at all.
 *
 * The protocol steps are the official SDK's (`auth()`); what is ours is the
 * provider around them:
 *
 * - tokens, client secrets, codes and verifiers are held as `Redacted`, and
 *   every message that leaves this module (errors, logs) has each of them
 *   removed, down to any 8 characters of one;
 * - one flow at a time per server: requests that fail together wait for the
 *   same approval;
 * - the wait for a person is bounded (`timeout`, default 2 minutes), and so
 *   is every retry: a server that challenges again after a fresh approval
 *   fails the request instead of looping;
 * - what is kept between runs goes to a {@link Store}: by default
 *   {@link fileStore}, one file per server, mode 0600 in a 0700 folder of
 *   the user's state directory, outside any workspace.
 *
 * @since 0.4.0
 */
import {
  auth,
  createPrivateKeyJwtAuth,
  extractWWWAuthenticateParams,
  IssuerMismatchError,
  UnauthorizedError
} from "@modelcontextprotocol/client"
import type {
  FetchLike,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens
} from "@modelcontextprotocol/client"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import * as NodeCrypto from "node:crypto"
import type * as McpConfig from "./McpConfig.js"
import { type Callback, listen, loopbackPort } from "./McpOAuthCallback.js"
import * as McpOAuthStore from "./McpOAuthStore.js"

/**
 * What a person is asked to open, to approve our client.
 *
 * @since 0.4.0
 * @category models
 */
export interface AuthorizationRequest {
  readonly server: string
  /** The authorization server's page; it sends the browser back to our loopback listener. */
  readonly url: URL
}

/**
 * Gets a person (or a user agent) to the authorization page. Returning does
 * not mean approved: the client then waits for the browser to come back,
 * up to the timeout.
 *
 * @since 0.4.0
 * @category models
 */
export type Authorize = (request: AuthorizationRequest) => Effect.Effect<void, unknown>

/**
 * The default: the URL in the log at warning level, for the person running
 * the agent to open.
 *
 * @since 0.4.0
 * @category authorizers
 */
export const showUrl: Authorize = (request) =>
  Effect.logWarning(`the MCP server "${request.server}" needs authorization: open ${request.url.href}`).pipe(
    Effect.annotateLogs({ mcpServer: request.server })
  )

/**
 * No person: the authorization page is fetched and its redirects followed
 * back to our listener, as a browser would. Only an authorization server
 * that approves without asking anyone (one run for tests or machines)
 * lets that through; any other leaves the client waiting until its timeout.
 *
 * @since 0.4.0
 * @category authorizers
 */
export const followRedirects: Authorize = (request) =>
  Effect.tryPromise(async (signal) => {
    const response = await fetch(request.url, { redirect: "follow", signal })
    await response.body?.cancel()
  })

/**
 * @since 0.4.0
 * @category models
 */
export interface Credentials {
  readonly clientSecret?: Redacted.Redacted<string> | undefined
  /** A PEM private key, for `private_key_jwt`. */
  readonly privateKey?: Redacted.Redacted<string> | undefined
  /** The person's ID token from their identity provider, for the `identity_assertion` grant. */
  readonly idToken?: Redacted.Redacted<string> | undefined
}

/**
 * @since 0.4.0
 * @category models
 */
export interface Options {
  /** Default {@link showUrl}. */
  readonly authorize?: Authorize | undefined
  /** Where tokens and registrations are kept between runs. Default {@link McpOAuthStore.fileStore}. */
  readonly store?: McpOAuthStore.Store | undefined
  /** How long a person has to approve. Default 2 minutes. */
  readonly timeout?: Duration.DurationInput | undefined
  /**
   * Secrets per server name, for callers that hold them already; otherwise
   * the configuration's `clientSecretEnv` / `privateKeyEnv` are read.
   */
  readonly credentials?: Readonly<Record<string, Credentials>> | undefined
}

/** The default time a person has to approve. */
export const defaultTimeout = Duration.minutes(2)

const jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

const randomToken = () => NodeCrypto.randomBytes(32).toString("base64url")

/**
 * Every 8-character window of each secret, removed from a text: a message
 * that quotes part of a token loses that part too.
 *
 * @since 0.4.0
 * @category redaction
 */
export const scrub = (text: string, secrets: Iterable<string>): string => {
  let out = text
  for (const secret of secrets) {
    if (secret.length === 0) continue
    if (out.includes(secret)) out = out.split(secret).join("[redacted]")
    for (let start = 0; start + 8 <= secret.length; start++) {
      const window = secret.slice(start, start + 8)
      if (out.includes(window)) out = out.split(window).join("[redacted]")
    }
    if (secret.length < 8 && out.includes(secret)) out = out.split(secret).join("[redacted]")
  }
  return out
}

/**
 * Every string in a parsed JSON value (a tool's result), scrubbed in place:
 * a server that echoes the token it was sent does not put it in front of
 * the model. Iterative, so a result nested 100,000 deep is walked too.
 *
 * @since 0.4.0
 * @category redaction
 */
export const scrubDeep = <A>(value: A, clean: (text: string) => string): A => {
  if (typeof value === "string") return clean(value) as A
  const stack: Array<unknown> = [value]
  while (stack.length > 0) {
    const container = stack.pop()
    if (typeof container !== "object" || container === null) continue
    const record = container as Record<string, unknown>
    for (const key of Object.keys(record)) {
      const item = record[key]
      if (typeof item === "string") {
        const cleaned = clean(item)
        if (cleaned !== item) record[key] = cleaned
      } else if (typeof item === "object" && item !== null) stack.push(item)
    }
  }
  return value
}

const unionScopes = (held: string | undefined, challenged: string | undefined): string | undefined => {
  const all = new Set([...(held ?? "").split(" "), ...(challenged ?? "").split(" ")].filter((scope) => scope !== ""))
  return all.size === 0 ? undefined : [...all].join(" ")
}

const environment = (name: string | undefined): Redacted.Redacted<string> | undefined => {
  const value = name === undefined ? undefined : process.env[name]
  return value === undefined || value === "" ? undefined : Redacted.make(value)
}

/**
 * The SDK's `OAuthClientProvider` for one server, and the flow around it.
 *
 * @since 0.4.0
 * @category models
 */
export class Provider implements OAuthClientProvider {
  readonly #server: string
  readonly #serverUrl: URL
  readonly #settings: McpConfig.OAuth
  readonly #store: McpOAuthStore.Store
  readonly #authorize: Authorize
  readonly #timeoutMillis: number
  readonly #runtime: Runtime.Runtime<never>
  readonly #secret: Redacted.Redacted<string> | undefined
  readonly #privateKey: Redacted.Redacted<string> | undefined
  readonly #idToken: Redacted.Redacted<string> | undefined
  readonly #key: string
  #saved: McpOAuthStore.Saved = {}
  #loaded: Promise<void> | undefined
  #preRegistered: Redacted.Redacted<OAuthClientInformationMixed> | undefined
  #verifier: Redacted.Redacted<string> | undefined
  #code: Redacted.Redacted<string> | undefined
  #iss: string | undefined
  #state: string | undefined
  #callback: Callback | undefined
  #flow: Promise<void> | undefined
  /** During a step-up the refresh token is kept out of the SDK's sight: a refresh cannot widen a scope. */
  #steppingUp = false
  /** Every secret this provider has seen, for {@link scrub}. */
  readonly #secrets = new Set<string>()

  constructor(
    server: string,
    serverUrl: URL,
    settings: McpConfig.OAuth,
    options: Options | undefined,
    runtime: Runtime.Runtime<never>
  ) {
    this.#server = server
    this.#serverUrl = serverUrl
    this.#settings = settings
    this.#store = options?.store ?? McpOAuthStore.fileStore()
    this.#authorize = options?.authorize ?? showUrl
    this.#timeoutMillis = Duration.toMillis(options?.timeout ?? defaultTimeout)
    this.#runtime = runtime
    const given = options?.credentials?.[server]
    this.#secret = given?.clientSecret ?? environment(settings.clientSecretEnv)
    this.#privateKey = given?.privateKey ?? environment(settings.privateKeyEnv)
    this.#idToken = given?.idToken ?? environment(settings.idTokenEnv)
    this.#key = McpOAuthStore.keyOf(server, serverUrl.href)
    for (const secret of [this.#secret, this.#privateKey, this.#idToken]) {
      if (secret !== undefined) this.#remember(Redacted.value(secret))
    }
    if (settings.clientId !== undefined) {
      this.#rememberClientSecret(
        settings.clientId,
        this.#secret === undefined ? undefined : Redacted.value(this.#secret)
      )
      this.#preRegistered = Redacted.make({
        client_id: settings.clientId,
        ...(this.#secret === undefined ? {} : { client_secret: Redacted.value(this.#secret) })
      })
    }
    if (settings.clientMetadataUrl !== undefined) this.clientMetadataUrl = settings.clientMetadataUrl
    if (this.#privateKey !== undefined && settings.clientId !== undefined) {
      this.addClientAuthentication = createPrivateKeyJwtAuth({
        issuer: settings.clientId,
        subject: settings.clientId,
        privateKey: Redacted.value(this.#privateKey),
        alg: settings.signingAlgorithm ?? "ES256"
      })
    }
  }

  // Own properties only when they apply: the SDK treats their presence as a choice.
  declare addClientAuthentication?: NonNullable<OAuthClientProvider["addClientAuthentication"]>
  declare clientMetadataUrl?: string

  get #interactive(): boolean {
    return this.#settings.grant === undefined || this.#settings.grant === "authorization_code"
  }

  #remember(secret: string | undefined) {
    if (secret !== undefined && secret !== "") this.#secrets.add(secret)
  }

  /**
   * A client secret as it travels too: in an HTTP Basic header (base64 of
   * `id:secret`, as the SDK writes it) and form-encoded in a POST body, both
   * of which an authorization server's error may quote back.
   */
  #rememberClientSecret(clientId: string, secret: string | undefined) {
    if (secret === undefined || secret === "") return
    this.#remember(secret)
    this.#remember(encodeURIComponent(secret))
    this.#remember(Buffer.from(`${clientId}:${secret}`, "utf8").toString("base64"))
    this.#remember(
      Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`, "utf8").toString("base64")
    )
  }

  #rememberTokens(tokens: OAuthTokens | undefined) {
    this.#remember(tokens?.access_token)
    this.#remember(tokens?.refresh_token)
    this.#remember(tokens?.id_token)
  }

  /** A text with every secret this provider holds taken out. */
  scrub(text: string): string {
    return this.#secrets.size === 0 ? text : scrub(text, this.#secrets)
  }

  /** A tool's result, every string scrubbed; not walked at all while no secret is held (a server without OAuth). */
  scrubResult<A>(result: A): A {
    return this.#secrets.size === 0 ? result : scrubDeep(result, (text) => scrub(text, this.#secrets))
  }

  #run<A, E>(effect: Effect.Effect<A, E>): Promise<A> {
    return Runtime.runPromise(this.#runtime)(effect)
  }

  #load(): Promise<void> {
    // A failed read is tried again next time: the folder may have been fixed.
    this.#loaded ??= this.#run(this.#store.load(this.#key)).catch((error: unknown) => {
      this.#loaded = undefined
      throw error
    }).then((saved) => {
      this.#saved = Option.getOrElse(saved, () => ({}))
      const tokens = this.#saved.tokens === undefined ? undefined : Redacted.value(this.#saved.tokens)
      this.#rememberTokens(tokens)
      const client = this.#saved.client === undefined ? undefined : Redacted.value(this.#saved.client)
      if (client !== undefined) this.#rememberClientSecret(client.client_id, client.client_secret)
    })
    return this.#loaded
  }

  async #save(change: Partial<McpOAuthStore.Saved>): Promise<void> {
    await this.#load()
    this.#saved = { ...this.#saved, ...change }
    await this.#run(this.#store.save(this.#key, { ...this.#saved, server: this.#server, url: this.#serverUrl.href }))
  }

  get redirectUrl(): string | undefined {
    if (!this.#interactive) return undefined
    return this.#callback?.url ?? `http://127.0.0.1:${this.#settings.callbackPort ?? 0}/callback`
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.#secret !== undefined
    return {
      client_name: "tool-runtime",
      redirect_uris: this.#interactive ? [this.redirectUrl!] : [],
      grant_types: this.#interactive
        ? ["authorization_code", "refresh_token"]
        : [this.#settings.grant === "identity_assertion" ? jwtBearer : "client_credentials"],
      response_types: this.#interactive ? ["code"] : [],
      token_endpoint_auth_method: this.addClientAuthentication !== undefined
        ? "private_key_jwt"
        : secret
        ? "client_secret_basic"
        : "none",
      ...(this.#settings.scope === undefined ? {} : { scope: this.#settings.scope }),
      // SEP-837: a command-line client is a native application.
      ...{ application_type: "native" }
    }
  }

  state(): string {
    this.#state = randomToken()
    return this.#state
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.#preRegistered !== undefined) return Redacted.value(this.#preRegistered)
    await this.#load()
    return this.#saved.client === undefined ? undefined : Redacted.value(this.#saved.client)
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    this.#rememberClientSecret(information.client_id, information.client_secret)
    // A pre-registered secret came from the environment: it is not copied to disk.
    if (this.#preRegistered !== undefined) {
      this.#preRegistered = Redacted.make(information)
      return
    }
    await this.#save({
      client: Redacted.make(information),
      clientIssuer: this.#saved.discovery?.authorizationServerUrl
    })
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    await this.#load()
    if (this.#saved.tokens === undefined) return undefined
    const tokens = Redacted.value(this.#saved.tokens)
    if (!this.#steppingUp || tokens.refresh_token === undefined) return tokens
    const { refresh_token: _, ...rest } = tokens
    return rest
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.#rememberTokens(tokens)
    await this.#save({ tokens: Redacted.make(tokens) })
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    await this.#load()
    return this.#saved.discovery as OAuthDiscoveryState | undefined
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    // The resource moved to another authorization server (SEP-2352): the client registered with the old one,
    // and its tokens, are not taken there; the new one registers a client of its own.
    const moved = this.#saved.client !== undefined && this.#saved.clientIssuer !== undefined &&
      this.#saved.clientIssuer !== state.authorizationServerUrl
    await this.#save({
      discovery: state,
      ...(moved ? { client: undefined, clientIssuer: undefined, tokens: undefined } : {})
    })
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    const callback = this.#callback
    const state = this.#state
    if (callback === undefined || state === undefined) {
      throw new Error("no loopback listener is waiting for the authorization")
    }
    const code = callback.code(state, this.#timeoutMillis)
    // The page's own failure (a browser that cannot start) ends the wait too.
    const opened = this.#run(Effect.either(this.#authorize({ server: this.#server, url }))).then((result) => {
      if (result._tag === "Left") {
        throw new Error(`the authorization page could not be opened: ${describe(result.left)}`)
      }
      return new Promise<never>(() => {})
    })
    // The loser settles later (the wait times out, the page fails after the code came); the race
    // subscribed to both, so that is no unhandled rejection.
    const received = await Promise.race([code, opened])
    this.#remember(received.code)
    this.#code = Redacted.make(received.code)
    // Checked by the SDK against the issuer it recorded (RFC 9207): a mixed-up authorization server is refused.
    this.#iss = received.iss
  }

  saveCodeVerifier(verifier: string): void {
    this.#remember(verifier)
    this.#verifier = Redacted.make(verifier)
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error("no PKCE code verifier was saved")
    return Redacted.value(this.#verifier)
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "verifier") {
      this.#verifier = undefined
      return
    }
    await this.#save({
      ...(scope === "all" || scope === "tokens" ? { tokens: undefined } : {}),
      ...(scope === "all" || scope === "client" ? { client: undefined } : {}),
      ...(scope === "all" || scope === "discovery" ? { discovery: undefined } : {})
    })
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    if (this.#interactive) return undefined
    const wanted = scope ?? this.#settings.scope
    const params = this.#settings.grant === "identity_assertion"
      ? new URLSearchParams({ grant_type: jwtBearer, assertion: await this.#identityGrant(wanted) })
      : new URLSearchParams({ grant_type: "client_credentials" })
    if (wanted !== undefined) params.set("scope", wanted)
    return params
  }

  /**
   * SEP-990: the person's ID token exchanged at their identity provider
   * (RFC 8693) for an identity assertion grant (ID-JAG) addressed to this
   * server's authorization server, which then takes it as a JWT bearer grant
   * (RFC 7523).
   */
  async #identityGrant(scope: string | undefined): Promise<string> {
    const endpoint = this.#settings.idpTokenEndpoint
    if (this.#idToken === undefined || endpoint === undefined) {
      throw new Error("the identity_assertion grant needs an ID token (idTokenEnv) and idpTokenEndpoint")
    }
    const discovery = (await this.discoveryState()) as OAuthDiscoveryState | undefined
    const audience = discovery?.authorizationServerMetadata?.issuer ?? discovery?.authorizationServerUrl
    if (audience === undefined) throw new Error("the authorization server was not discovered")
    const body = new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      audience,
      resource: discovery?.resourceMetadata?.resource ?? this.#serverUrl.href,
      subject_token: Redacted.value(this.#idToken),
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token"
    })
    if (this.#settings.idpClientId !== undefined) body.set("client_id", this.#settings.idpClientId)
    if (scope !== undefined) body.set("scope", scope)
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body
    })
    const answer = (await response.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown }
    if (!response.ok || typeof answer.access_token !== "string") {
      throw new Error(
        `the identity provider refused the token exchange (HTTP ${response.status}${
          typeof answer.error === "string" ? `, ${answer.error.slice(0, 100)}` : ""
        })`
      )
    }
    this.#remember(answer.access_token)
    return answer.access_token
  }

  /**
   * Runs one authorization for a challenge (a 401 or 403 response), unless
   * one already ran since `sentWith` was the token in use: requests that fail
   * together share a single approval.
   */
  async authorizeFor(response: Response, sentWith: string | undefined, fetchFn: FetchLike): Promise<void> {
    while (this.#flow !== undefined) await this.#flow.catch(() => undefined)
    const current = (await this.tokens())?.access_token
    if (current !== undefined && current !== sentWith) return
    this.#flow = this.#authorizeOnce(response, this.#bounded(fetchFn))
    try {
      await this.#flow
    } finally {
      this.#flow = undefined
    }
  }

  /**
   * Each request of a flow (discovery, registration, token) bounded: an
   * authorization server that never answers must not hold this server's
   * calls, all of which wait for the flow, forever.
   */
  #bounded(fetchFn: FetchLike): FetchLike {
    const millis = Math.min(30_000, this.#timeoutMillis)
    return async (input, init) => {
      const signal = init?.signal === undefined || init.signal === null
        ? AbortSignal.timeout(millis)
        : AbortSignal.any([init.signal, AbortSignal.timeout(millis)])
      try {
        return await fetchFn(input, { ...init, signal })
      } catch (error) {
        if (error instanceof Error && error.name === "TimeoutError") {
          throw new Error(`the authorization server did not answer within ${Math.round(millis / 1000)} s`)
        }
        throw error
      }
    }
  }

  async #authorizeOnce(response: Response, fetchFn: FetchLike): Promise<void> {
    const { error, resourceMetadataUrl, scope: challenged } = extractWWWAuthenticateParams(response)
    const scope = unionScopes((await this.tokens())?.scope, challenged)
    this.#steppingUp = error === "insufficient_scope"
    // Refused (not merely short of a scope): the resource's metadata is read again, as it may now name
    // another authorization server (SEP-2352); the cached discovery would send us to the old one.
    if (!this.#steppingUp && this.#saved.discovery !== undefined) await this.#save({ discovery: undefined })
    if (this.#interactive) {
      const client = await this.clientInformation()
      const registered = client !== undefined && "redirect_uris" in client
        ? loopbackPort(client.redirect_uris as ReadonlyArray<string>)
        : undefined
      this.#callback = await listen(this.#settings.callbackPort ?? registered ?? 0)
    }
    try {
      const options = {
        serverUrl: this.#serverUrl,
        fetchFn,
        ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
        ...(scope === undefined ? {} : { scope })
      }
      this.#code = undefined
      let lenient = false
      const authorize = async (extra?: { readonly authorizationCode: string; readonly iss?: string }) => {
        try {
          return await auth(this, { ...options, ...extra, ...(lenient ? { skipIssuerMetadataValidation: true } : {}) })
        } catch (error) {
          if (lenient || !legacyIssuer(error, this.#serverUrl, resourceMetadataUrl)) throw error
          lenient = true
          return auth(this, { ...options, ...extra, skipIssuerMetadataValidation: true })
        }
      }
      let result = await authorize()
      if (result === "REDIRECT") {
        const code = this.#code
        if (code === undefined) throw new UnauthorizedError("the authorization ended without a code")
        this.#code = undefined
        const iss = this.#iss
        this.#iss = undefined
        result = await authorize({ authorizationCode: Redacted.value(code), ...(iss === undefined ? {} : { iss }) })
      }
      if (result !== "AUTHORIZED") throw new UnauthorizedError(`the authorization ended with ${result}`)
    } finally {
      this.#steppingUp = false
      this.#callback?.close()
      this.#callback = undefined
      this.#state = undefined
      this.#verifier = undefined
    }
  }
}

/**
 * A 2025-03-26 server (no protected resource metadata: its own origin is
 * the authorization server) may publish an `issuer` with a path its
 * discovery URL lacks, which RFC 8414 §3.3 and the SDK refuse. Accepted
 * only there, and only for an issuer of the server's own origin: a mix-up
 * needs a second authorization server, and this path has one, the server.
 */
const legacyIssuer = (error: unknown, serverUrl: URL, resourceMetadataUrl: URL | undefined): boolean => {
  if (!(error instanceof IssuerMismatchError) || error.kind !== "metadata" || resourceMetadataUrl !== undefined) {
    return false
  }
  const origin = (url: string | undefined) => url !== undefined && URL.canParse(url) ? new URL(url).origin : undefined
  return origin(error.expected) === serverUrl.origin && origin(error.received) === serverUrl.origin
}

const describe = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === "string" ? error : "unknown error"

const challenged = (response: Response): boolean =>
  response.status === 401 ||
  response.status === 403 && extractWWWAuthenticateParams(response).error === "insufficient_scope"

/**
 * A `fetch` that sends the provider's token, and on a challenge authorizes
 * once and sends the request again. A second challenge fails the request:
 * the server refuses what it was just given, and asking again would loop.
 *
 * @since 0.4.0
 * @category transport
 */
export const authorizedFetch = (provider: Provider, next: FetchLike = fetch): FetchLike => {
  const send = async (input: string | URL, init: RequestInit | undefined) => {
    // A store that cannot be read (another user's folder) matters only to a
    // server that asks for authorization: the flow then fails and says why.
    const token = await provider.tokens().then((tokens) => tokens?.access_token, () => undefined)
    const headers = new Headers(init?.headers)
    if (token !== undefined) headers.set("authorization", `Bearer ${token}`)
    return { token, response: await next(input, { ...init, headers }) }
  }
  return async (input, init) => {
    const first = await send(input, init)
    if (!challenged(first.response)) return first.response
    await first.response.body?.cancel()
    try {
      await provider.authorizeFor(first.response, first.token, next)
    } catch (error) {
      throw new UnauthorizedError(provider.scrub(describe(error)))
    }
    const second = await send(input, init)
    if (!challenged(second.response)) return second.response
    await second.response.body?.cancel()
    throw new UnauthorizedError(
      `the server refused the new authorization too (HTTP ${second.response.status}${
        second.response.status === 403 ? ", insufficient scope" : ""
      })`
    )
  }
}

/**
 * The provider for an HTTP server of the configuration, or none when its
 * entry says `oauth: false`.
 *
 * @since 0.4.0
 * @category constructors
 */
export const provider = (
  server: string,
  config: McpConfig.HttpServer,
  options: Options | undefined,
  runtime: Runtime.Runtime<never>
): Provider | undefined =>
  config.oauth === false ? undefined : new Provider(server, new URL(config.url), config.oauth ?? {}, options, runtime)

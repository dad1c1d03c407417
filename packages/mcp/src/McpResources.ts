/**
 * Stored outputs served as MCP resources. When a served call's output was
 * too long, its result carries a `resource_link` to the whole of it (as
 * stored: redacted), and the client reads it with `resources/read`, a page
 * at a time:
 *
 * - `tool-runtime://artifact/<location>` is the first page,
 * - `…?offset=N&length=M` any other (at most {@link maxPage} characters),
 * - each page's `_meta` says where it starts, the total, and the URI of the
 *   next page, until the last.
 *
 * A session reads only the outputs linked in its own results: another
 * client's, or a guessed id, is "not found", whatever the store holds.
 * `resources/list` gives the server's own resources (`McpResource`), then
 * this session's links, newest last.
 *
 * A client may subscribe to any resource it can read; only one of the
 * server's own with `changes` ever changes (stored outputs never do), and
 * each change is sent to the sessions subscribed to it until they
 * unsubscribe or close.
 *
 * @since 0.4.0
 */
import type { ResourceLink, Server } from "@modelcontextprotocol/server"
import { ProtocolErrorCode } from "@modelcontextprotocol/server"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import type * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import * as McpResource from "./McpResource.js"

/**
 * The largest page `resources/read` returns, in characters.
 *
 * @since 0.4.0
 * @category constants
 */
export const maxPage = 100_000

const prefix = "tool-runtime://artifact/"

/**
 * The resource URI of a stored output's location.
 *
 * @since 0.4.0
 * @category encoding
 */
export const uriOf = (location: string): string => `${prefix}${encodeURIComponent(location)}`

/**
 * The link a truncated result carries, if its output was stored.
 *
 * @since 0.4.0
 * @category encoding
 */
export const linkOf = (result: ToolResult.ToolResult): ResourceLink | undefined => {
  const location = result.meta.artifact
  if (location === undefined) return undefined
  const size = result.meta.truncation?.originalLength
  return {
    type: "resource_link",
    uri: uriOf(location),
    name: `output of ${result.toolName}`,
    mimeType: "text/plain",
    description: `The whole output${size === undefined ? "" : ` (${size} characters)`}, redacted; ` +
      `read it with resources/read, ${maxPage} characters a page.`,
    ...(size === undefined ? {} : { size })
  }
}

interface Page {
  readonly location: string
  readonly offset: number
  readonly length: number
}

const parse = (uri: string): Either.Either<Page, string> => {
  if (!uri.startsWith(prefix)) return Either.left("not a stored output of this server")
  const [path = "", query = ""] = uri.slice(prefix.length).split("?", 2)
  const location = Either.try(() => decodeURIComponent(path))
  if (Either.isLeft(location) || location.right === "") return Either.left("the URI names no stored output")
  const params = new URLSearchParams(query)
  const number = (name: string, fallback: number) => {
    const text = params.get(name)
    return text === null ? fallback : /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN
  }
  const offset = number("offset", 0)
  const length = number("length", maxPage)
  if (Number.isNaN(offset) || Number.isNaN(length) || length < 1) {
    return Either.left("offset and length must be whole numbers, length at least 1")
  }
  return Either.right({ location: location.right, offset, length: Math.min(length, maxPage) })
}

/**
 * A JSON-RPC error as the SDK's server sends it: its code, and its message
 * as given. (An `McpError` would carry its "MCP error -32002:" prefix into
 * the message, and the client's SDK adds its own: the prefix twice.)
 */
const protocolError = (code: number, message: string, data?: unknown): Error =>
  Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) })

/** -32602, which 2026-07-28 prescribes for every revision (SEP-2164), for a read and a subscription alike. */
const notFound = (uri: string, detail?: string) =>
  protocolError(
    ProtocolErrorCode.InvalidParams,
    detail === undefined ? "Resource not found" : `Resource not found: ${detail}`,
    { uri }
  )

const described = (definition: McpResource.Definition, runtime: ToolRuntime.Service) => ({
  name: runtime.redact(definition.name),
  mimeType: definition.mimeType,
  ...(definition.title === undefined ? {} : { title: runtime.redact(definition.title) }),
  ...(definition.description === undefined ? {} : { description: runtime.redact(definition.description) })
})

/**
 * The protocol's contents of one read: text redacted, bytes in base64.
 * Bytes of a textual type (JSON, `text/*`…) are text a model reads, and a
 * secret in them is still a secret: they go out as redacted text, as a
 * result's binary block of such a type does.
 */
const contentsOf = (
  uri: string,
  mimeType: string,
  contents: McpResource.Contents,
  runtime: ToolRuntime.Service
) =>
  "text" in contents
    ? { uri, mimeType, text: runtime.redact(contents.text) }
    : ToolResult.isTextMediaType(mimeType)
    ? { uri, mimeType, text: runtime.redact(new TextDecoder().decode(contents.bytes)) }
    : { uri, mimeType, blob: Buffer.from(contents.bytes).toString("base64") }

/**
 * Serves the server's own resources and the outputs linked in this
 * session's results; `linked` is filled by the `tools/call` handler as it
 * answers. Returns what stops this session's subscriptions.
 *
 * @since 0.4.0
 * @category serving
 */
export const install = (
  server: Server,
  runtime: ToolRuntime.Service,
  linked: Map<string, ResourceLink>,
  run: Runtime.Runtime<never>,
  own: ReadonlyArray<McpResource.Definition> = []
): { readonly close: () => void } => {
  const fixed = new Map<string, McpResource.Resource>()
  const templates: Array<McpResource.Template> = []
  for (const definition of own) {
    if (definition._tag === "Resource") fixed.set(definition.uri, definition)
    else templates.push(definition)
  }
  /** The server's own resource at `uri`, fixed or from the first template that matches it. */
  const ownAt = (
    uri: string
  ): { readonly mimeType: string; readonly read: () => McpResource.Resource["read"] } | undefined => {
    const resource = fixed.get(uri)
    if (resource !== undefined) return { mimeType: resource.mimeType, read: () => resource.read }
    for (const template of templates) {
      const params = McpResource.match(template.uriTemplate, uri)
      if (params !== undefined) return { mimeType: template.mimeType, read: () => template.read(params, uri) }
    }
    return undefined
  }
  const readOwn = async (uri: string) => {
    const found = ownAt(uri)
    if (found === undefined) return undefined
    const { mimeType } = found
    const result = await Runtime.runPromise(run)(Effect.either(found.read()))
    if (Either.isLeft(result)) {
      if (result.left.reason === "not_found") throw notFound(uri, runtime.redact(result.left.detail))
      throw protocolError(
        ProtocolErrorCode.InternalError,
        `Resource ${uri} could not be read: ${runtime.redact(result.left.detail)}`
      )
    }
    return { contents: [contentsOf(uri, mimeType, result.right, runtime)] }
  }

  server.setRequestHandler("resources/list", () => ({
    resources: [
      ...[...fixed.values()].map((resource) => ({ uri: resource.uri, ...described(resource, runtime) })),
      ...linked.values()
    ]
  }))
  server.setRequestHandler("resources/templates/list", () => ({
    resourceTemplates: [
      ...templates.map((template) => ({ uriTemplate: template.uriTemplate, ...described(template, runtime) })),
      {
        uriTemplate: `${prefix}{location}{?offset,length}`,
        name: "stored output",
        mimeType: "text/plain",
        description: "A page of a tool output too long for its result; the link in that result names it."
      }
    ]
  }))

  // One fiber per subscribed resource that can change, for this session.
  const subscriptions = new Map<string, Fiber.RuntimeFiber<void> | undefined>()
  const readable = (uri: string) => {
    if (ownAt(uri) !== undefined) return true
    const page = parse(uri)
    return Either.isRight(page) && linked.has(uriOf(page.right.location))
  }
  server.setRequestHandler("resources/subscribe", (request) => {
    const uri = request.params.uri
    if (!readable(uri)) throw notFound(uri)
    if (subscriptions.has(uri)) return {}
    const changes = fixed.get(uri)?.changes
    subscriptions.set(
      uri,
      changes === undefined ? undefined : Runtime.runFork(run)(
        Stream.runForEach(
          changes,
          () => Effect.promise(() => server.sendResourceUpdated({ uri }).catch(() => undefined))
        )
      )
    )
    return {}
  })
  server.setRequestHandler("resources/unsubscribe", (request) => {
    const fiber = subscriptions.get(request.params.uri)
    subscriptions.delete(request.params.uri)
    if (fiber !== undefined) Runtime.runFork(run)(Fiber.interrupt(fiber))
    return {}
  })

  server.setRequestHandler("resources/read", async (request) => {
    const mine = await readOwn(request.params.uri)
    if (mine !== undefined) return mine
    // A URI of nobody's: not found, as the protocol says; a malformed one of ours: bad parameters.
    if (!request.params.uri.startsWith(prefix)) throw notFound(request.params.uri)
    const page = parse(request.params.uri)
    if (Either.isLeft(page)) {
      throw protocolError(ProtocolErrorCode.InvalidParams, `Resource ${request.params.uri}: ${page.left}`)
    }
    const { length, location, offset } = page.right
    // The MCP error for a resource that does not exist.
    if (!linked.has(uriOf(location))) throw notFound(request.params.uri)
    const slice = await Runtime.runPromise(run)(Effect.either(runtime.readArtifact(location, offset, length)))
    if (Either.isLeft(slice)) throw notFound(request.params.uri)
    const { offset: start, text, totalLength } = slice.right
    const end = start + slice.right.length
    return {
      contents: [{
        uri: request.params.uri,
        mimeType: "text/plain",
        text,
        _meta: {
          "tool-runtime/offset": start,
          "tool-runtime/total": totalLength,
          ...(end < totalLength ? { "tool-runtime/next": `${uriOf(location)}?offset=${end}&length=${length}` } : {})
        }
      }]
    }
  })
  return {
    close: () => {
      for (const fiber of subscriptions.values()) if (fiber !== undefined) Runtime.runFork(run)(Fiber.interrupt(fiber))
      subscriptions.clear()
    }
  }
}

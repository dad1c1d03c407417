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
 * `resources/list` gives this session's links, newest last.
 *
 * @since 0.4.0
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import type { ResourceLink } from "@modelcontextprotocol/sdk/types.js"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import type * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Runtime from "effect/Runtime"

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
 * Serves the outputs linked in this server's results; `linked` is filled
 * by the `tools/call` handler as it answers.
 *
 * @since 0.4.0
 * @category serving
 */
export const install = (
  server: Server,
  runtime: ToolRuntime.Service,
  linked: Map<string, ResourceLink>,
  run: Runtime.Runtime<never>
): void => {
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [...linked.values()] }))
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{
      uriTemplate: `${prefix}{location}{?offset,length}`,
      name: "stored output",
      mimeType: "text/plain",
      description: "A page of a tool output too long for its result; the link in that result names it."
    }]
  }))
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const page = parse(request.params.uri)
    if (Either.isLeft(page)) throw new McpError(ErrorCode.InvalidParams, `Resource ${request.params.uri}: ${page.left}`)
    const { length, location, offset } = page.right
    if (!linked.has(uriOf(location))) {
      // The MCP error for a resource that does not exist.
      throw new McpError(-32002, "Resource not found", { uri: request.params.uri })
    }
    const slice = await Runtime.runPromise(run)(Effect.either(runtime.readArtifact(location, offset, length)))
    if (Either.isLeft(slice)) throw new McpError(-32002, "Resource not found", { uri: request.params.uri })
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
}

/**
 * Resources of your own, served next to the tools (`McpServer`'s
 * `resources` option, or a `resources` export of `tool-runtime serve
 * --tools`): documents a client reads with `resources/read`, families of
 * them behind a URI template, and documents that change, which a client can
 * subscribe to.
 *
 * Text goes out through the runtime's redactor, as every result does: a
 * resource is content for a model, and a secret pasted into a document is
 * still a secret. Binary contents go out as they are.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"

/**
 * What a resource reads as: text, or bytes.
 *
 * @since 0.4.0
 * @category models
 */
export type Contents = { readonly text: string } | { readonly bytes: Uint8Array }

/**
 * A read that found nothing (a template's parameters name no document), or
 * failed.
 *
 * @since 0.4.0
 * @category errors
 */
export class McpResourceError extends Schema.TaggedError<McpResourceError>()("McpResourceError", {
  reason: Schema.Literal("not_found", "failed"),
  detail: Schema.String
}) {
  override get message() {
    return this.detail
  }
}

interface Described {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly mimeType: string
}

/**
 * One document at a fixed URI. With `changes`, clients may subscribe: each
 * element tells the subscribers it changed (`notifications/resources/updated`).
 *
 * @since 0.4.0
 * @category models
 */
export interface Resource extends Described {
  readonly _tag: "Resource"
  readonly uri: string
  readonly read: Effect.Effect<Contents, McpResourceError>
  readonly changes?: Stream.Stream<void> | undefined
}

/**
 * A family of documents behind a URI template with simple `{name}`
 * expressions (RFC 6570 level 1): each expression matches one path segment.
 *
 * @since 0.4.0
 * @category models
 */
export interface Template extends Described {
  readonly _tag: "Template"
  readonly uriTemplate: string
  readonly read: (
    params: Readonly<Record<string, string>>,
    uri: string
  ) => Effect.Effect<Contents, McpResourceError>
}

/**
 * @since 0.4.0
 * @category models
 */
export type Definition = Resource | Template

/**
 * @since 0.4.0
 * @category constructors
 */
export const make = (
  uri: string,
  options: Omit<Resource, "_tag" | "uri" | "read" | "mimeType"> & {
    readonly mimeType?: string | undefined
    readonly read: Effect.Effect<Contents, McpResourceError> | Contents
  }
): Resource => {
  const given = Effect.isEffect(options.read) ? undefined : options.read
  return {
    ...options,
    _tag: "Resource",
    uri,
    mimeType: options.mimeType ?? (given !== undefined && "bytes" in given ? "application/octet-stream" : "text/plain"),
    read: given === undefined ? options.read as Effect.Effect<Contents, McpResourceError> : Effect.succeed(given)
  }
}

/**
 * @since 0.4.0
 * @category constructors
 */
export const template = (
  uriTemplate: string,
  options: Omit<Template, "_tag" | "uriTemplate" | "mimeType"> & { readonly mimeType?: string | undefined }
): Template => ({ ...options, _tag: "Template", uriTemplate, mimeType: options.mimeType ?? "text/plain" })

/**
 * The parameters of a URI under a template, or undefined when it does not
 * match. Values are percent-decoded; one that does not decode does not
 * match.
 *
 * @since 0.4.0
 * @category templates
 */
export const match = (uriTemplate: string, uri: string): Record<string, string> | undefined => {
  const names: Array<string> = []
  const pattern = uriTemplate.split(/(\{[A-Za-z0-9_]+\})/).map((part) => {
    const name = /^\{([A-Za-z0-9_]+)\}$/.exec(part)?.[1]
    if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    names.push(name)
    return "([^/?#]+)"
  }).join("")
  const found = new RegExp(`^${pattern}$`).exec(uri)
  if (found === null) return undefined
  const params: Record<string, string> = {}
  for (const [index, name] of names.entries()) {
    try {
      params[name] = decodeURIComponent(found[index + 1]!)
    } catch {
      return undefined
    }
  }
  return params
}

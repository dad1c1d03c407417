/**
 * Deferred loading: with many tools, sending every definition on every
 * request costs context and attention. The leading agent SDKs keep rarely
 * used tools out of the request and give the model a search tool instead;
 * the definitions it finds are sent from the next request on.
 *
 * This module does that with the core as it is. It builds the registry with
 * one extra tool, the search tool, and hands out a view of it: every tool
 * stays callable by name (validation still guards it), but `definitions`,
 * what the codecs send to the model, holds only the tools always shown and
 * those found so far. Found tools are appended in the order they were found,
 * so the start of the tool list, and the provider's prompt cache over it,
 * stays stable from one request to the next.
 *
 * The search is local and provider-neutral, so it works the same with every
 * codec here. (Anthropic and OpenAI also offer server-side tool search with
 * `defer_loading`; this is the portable form of the same idea.)
 *
 * @since 0.1.0
 */
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The tools kept out of the definitions until found: names, or a test on each tool. */
  readonly deferred: ReadonlyArray<string> | ((tool: Tool.Any) => boolean)
  /** The search tool's name. Default `search_tools`. */
  readonly name?: string | undefined
  /** The most definitions one search returns. Default 5. */
  readonly maxResults?: number | undefined
  /** Sources whose tools could not be registered (see `Registry.Unavailable`). */
  readonly unavailable?: ReadonlyArray<Registry.Unavailable> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * The registry to run with: every tool callable, `definitions` holding the
   * tools always shown (the search tool among them) and those found so far.
   */
  readonly registry: Registry.Service
  /** The tools kept back, in registration order. */
  readonly deferred: ReadonlyArray<Registry.Definition>
  /** The deferred tools found so far, in the order found. */
  readonly loaded: () => ReadonlyArray<string>
  /** Finds deferred tools by name or keyword, best match first, without loading them. */
  readonly search: (query: string, max?: number) => ReadonlyArray<Registry.Definition>
  /** Loads deferred tools by name; other names are ignored. */
  readonly load: (names: ReadonlyArray<string>) => Effect.Effect<void>
  /** Forgets what was found: a new conversation starts with the deferred tools hidden again. */
  readonly reset: Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class ToolSearch extends Context.Tag("@tool-runtime/providers/ToolSearch")<ToolSearch, Service>() {}

/** Words of a name or text: `get_orderStatus` has `get`, `order`, `status`. */
const words = (text: string): ReadonlyArray<string> =>
  text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0)
    .map(stem)

/** Plural and singular meet: `orders` finds `order`. */
const stem = (word: string) => word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word

interface Indexed {
  readonly definition: Registry.Definition
  readonly name: string
  readonly nameWords: ReadonlySet<string>
  readonly descriptionWords: ReadonlySet<string>
  readonly description: string
}

const index = (definition: Registry.Definition): Indexed => ({
  definition,
  name: definition.name.toLowerCase(),
  nameWords: new Set(words(definition.name)),
  descriptionWords: new Set(words(definition.description)),
  description: definition.description.toLowerCase()
})

const score = (tool: Indexed, query: string, terms: ReadonlyArray<string>): number => {
  let total = tool.name === query ? 100 : 0
  for (const term of terms) {
    if (tool.nameWords.has(term)) total += 10
    else if (tool.name.includes(term)) total += 5
    if (tool.descriptionWords.has(term)) total += 3
    else if (tool.description.includes(term)) total += 1
  }
  return total
}

/**
 * Finds tools among `catalog` by name or keyword, best first. A query
 * `select:a,b` picks tools by exact name. With no keyword match, names
 * within a few typos of the query are returned.
 *
 * @since 0.1.0
 * @category search
 */
export const find = (
  catalog: ReadonlyArray<Registry.Definition>,
  query: string,
  max: number
): ReadonlyArray<Registry.Definition> => {
  const trimmed = query.trim()
  if (trimmed.startsWith("select:")) {
    const names = new Set(trimmed.slice("select:".length).split(",").map((name) => name.trim()))
    return catalog.filter((definition) => names.has(definition.name)).slice(0, max)
  }
  const indexed = catalog.map(index)
  const terms = Array.from(new Set(words(trimmed)))
  const ranked = indexed
    .map((tool, order) => ({ tool, order, score: score(tool, trimmed.toLowerCase(), terms) }))
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, max)
    .map((hit) => hit.tool.definition)
  if (ranked.length > 0) return ranked
  const near = new Set(Registry.suggest(trimmed, catalog.map((definition) => definition.name), max))
  return catalog.filter((definition) => near.has(definition.name))
}

/**
 * What the search tool returns to the model.
 *
 * @since 0.1.0
 * @category models
 */
export const Found = Schema.Struct({
  tools: Schema.Array(Schema.Struct({
    name: Schema.String,
    description: Schema.String,
    parameters: Schema.Unknown
  })),
  note: Schema.String
})

/**
 * Builds the registry with the search tool, and the view over it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <const Tools extends ReadonlyArray<Tool.Any>>(
  tools: Tools,
  options: Options
): Effect.Effect<Service, Registry.InvalidRegistry, Tool.Requirements<Tools[number]>> =>
  Effect.gen(function*() {
    const deferred = options.deferred
    const isDeferred = typeof deferred === "function"
      ? deferred
      : (tool: Tool.Any) => deferred.includes(tool.name)
    const maxResults = options.maxResults ?? 5
    const hidden = tools.filter(isDeferred)
    const deferredNames = new Set(hidden.map((tool) => tool.name))
    const catalog: ReadonlyArray<Registry.Definition> = hidden.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema
    }))
    // Found tools, in the order found: mutated only by `load` and `reset`.
    const found: Array<string> = []
    const loadNow = (names: ReadonlyArray<string>) => {
      for (const name of names) if (deferredNames.has(name) && !found.includes(name)) found.push(name)
    }
    const search = (query: string, max?: number) => find(catalog, query, max ?? maxResults)

    const searchTool = Tool.make(options.name ?? "search_tools", {
      description: `Finds tools that exist but are not shown to you yet (${catalog.length} of them), by name or ` +
        "keyword, and makes them available: the tools found can be called from your next turn. Search with " +
        "words that describe the task (\"refund order\"), or \"select:name_one,name_two\" for exact names.",
      parameters: {
        query: Schema.String.annotations({ description: "Keywords or a tool name; or select:name1,name2." }),
        max_results: Schema.optional(
          Schema.Int.pipe(Schema.between(1, 20)).annotations({
            description: `How many tools to return at most. Default ${maxResults}.`
          })
        )
      },
      readOnly: true,
      success: Found,
      handler: ({ max_results, query }) =>
        Effect.sync(() => {
          const results = search(query, max_results)
          loadNow(results.map((definition) => definition.name))
          return {
            tools: results.map((definition) => ({
              name: definition.name,
              description: definition.description,
              parameters: definition.inputSchema
            })),
            note: results.length > 0
              ? `Found ${results.length} tool${results.length === 1 ? "" : "s"}; call them by name from your next turn.`
              : "No tool matched. Try other keywords: a verb and an object of the task work best."
          }
        })
    })

    const base = yield* Registry.make([...tools, searchTool], { unavailable: options.unavailable })
    const shown = base.definitions.filter((definition) => !deferredNames.has(definition.name))
    let cached: { readonly count: number; readonly definitions: ReadonlyArray<Registry.Definition> } | undefined
    const registry: Registry.Service = {
      entries: base.entries,
      get definitions() {
        if (cached === undefined || cached.count !== found.length) {
          const byName = new Map(catalog.map((definition) => [definition.name, definition]))
          cached = { count: found.length, definitions: [...shown, ...found.map((name) => byName.get(name)!)] }
        }
        return cached.definitions
      },
      get: base.get,
      lookup: base.lookup,
      unavailable: base.unavailable
    }
    return {
      registry,
      deferred: catalog,
      loaded: () => found.slice(),
      search,
      load: (names) => Effect.sync(() => loadNow(names)),
      reset: Effect.sync(() => {
        found.length = 0
      })
    }
  })

/**
 * The view as the runtime's `Registry`, and the `ToolSearch` service to
 * read what is loaded.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <const Tools extends ReadonlyArray<Tool.Any>>(
  tools: Tools,
  options: Options
): Layer.Layer<ToolSearch | Registry.Registry, Registry.InvalidRegistry, Tool.Requirements<Tools[number]>> =>
  Layer.effectContext(
    Effect.map(
      make(tools, options),
      (service) => Context.make(ToolSearch, service).pipe(Context.add(Registry.Registry, service.registry))
    )
  )

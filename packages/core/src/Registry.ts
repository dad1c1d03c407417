/**
 * The registry: which tools exist, what the runtime knows about each, and
 * what the model is shown.
 *
 * Building the registry captures the services the tools' handlers need, so
 * running a call needs nothing but the registry itself. Lookup is by exact
 * name in a `Map`: a model that asks for `__proto__` or `toString` gets
 * "unknown tool", never an inherited property.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as JSONSchema from "effect/JSONSchema"
import * as Layer from "effect/Layer"
import type * as Tool from "./Tool.js"
import * as ToolError from "./ToolError.js"

/**
 * A registered tool with the services its handler runs with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly tool: Tool.Any
  readonly context: Context.Context<any>
}

/**
 * What the model is shown of a tool.
 *
 * @since 0.1.0
 * @category models
 */
export interface Definition {
  readonly name: string
  readonly description: string
  readonly inputSchema: JSONSchema.JsonSchema7
}

/**
 * The registry could not be built: a tool name providers reject, or two
 * tools with one name.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidRegistry extends Data.TaggedError("InvalidRegistry")<{
  readonly reason: string
}> {
  override get message() {
    return this.reason
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Every registered tool, in registration order. */
  readonly entries: ReadonlyArray<Entry>
  /** The definitions the model is shown this turn. */
  readonly definitions: ReadonlyArray<Definition>
  /** Synchronous lookup, for the scheduler's planning. */
  readonly get: (name: string) => Entry | undefined
  /**
   * The lookup stage: an unknown name fails with close matches as
   * suggestions; a name under the prefix of an unavailable source fails
   * with that source's failure.
   */
  readonly lookup: (name: string) => Effect.Effect<Entry, ToolError.UnknownTool | ToolError.ToolUnavailable>
  /** The sources whose tools could not be registered, and why. */
  readonly unavailable: ReadonlyArray<Unavailable>
  /**
   * For a registry whose tools change ({@link changing}): its tools as they
   * are now. The runtime takes them once at the start of each turn, so the
   * tools of a turn never change in its middle.
   *
   * @since 0.4.0
   */
  readonly current?: (() => Service) | undefined
}

/**
 * A source of tools the registry could not take its tools from (an MCP
 * server that did not start): a call to a name under its prefix gets
 * `tool_unavailable` with the reason, not `unknown_tool`.
 *
 * @since 0.4.0
 * @category models
 */
export interface Unavailable {
  /** Every name of the source starts with it, as `mcp__github__` does. */
  readonly prefix: string
  /** What the source is called in messages: `MCP server "github"`. */
  readonly source: string
  /** Why it failed, in a sentence. */
  readonly reason: string
}

/**
 * @since 0.4.0
 * @category models
 */
export interface Options {
  readonly unavailable?: ReadonlyArray<Unavailable> | undefined
}

/**
 * @since 0.1.0
 * @category tags
 */
export class Registry extends Context.Tag("@tool-runtime/core/Registry")<Registry, Service>() {}

/** The name rule shared by the Anthropic and OpenAI APIs. */
const validName = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * Builds a registry from tools, capturing the services they need.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <const Tools extends ReadonlyArray<Tool.Any>>(
  tools: Tools,
  options?: Options
): Effect.Effect<Service, InvalidRegistry, Tool.Requirements<Tools[number]>> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<Tool.Requirements<Tools[number]>>()
    const byName = new Map<string, Entry>()
    const groups = new Map<string, Tool.Any>()
    for (const tool of tools) {
      if (!validName.test(tool.name)) {
        return yield* new InvalidRegistry({
          reason: `Tool name "${
            ToolError.printableName(tool.name)
          }" is invalid: use 1 to 64 letters, digits, "_" or "-".`
        })
      }
      if (byName.has(tool.name)) {
        return yield* new InvalidRegistry({ reason: `Two tools are named "${tool.name}".` })
      }
      if (!(tool.timeoutMillis > 0 && Number.isFinite(tool.timeoutMillis))) {
        return yield* new InvalidRegistry({ reason: `Tool "${tool.name}" needs a finite, positive timeout.` })
      }
      if (
        tool.idleTimeoutMillis !== undefined && !(tool.idleTimeoutMillis > 0 && Number.isFinite(tool.idleTimeoutMillis))
      ) {
        return yield* new InvalidRegistry({ reason: `Tool "${tool.name}" needs a finite, positive idle timeout.` })
      }
      if (!(tool.outputLimit > 0 && Number.isFinite(tool.outputLimit))) {
        return yield* new InvalidRegistry({ reason: `Tool "${tool.name}" needs a positive output limit.` })
      }
      const slots = tool.maxConcurrent
      if (slots !== undefined && !(Number.isSafeInteger(slots) && slots > 0)) {
        return yield* new InvalidRegistry({
          reason: `Tool "${tool.name}" needs a maxConcurrent that is a positive whole number.`
        })
      }
      const rate = tool.rate
      if (
        rate !== undefined &&
        !(Number.isSafeInteger(rate.calls) && rate.calls > 0 && rate.perMillis > 0 && Number.isFinite(rate.perMillis))
      ) {
        return yield* new InvalidRegistry({
          reason:
            `Tool "${tool.name}" needs a rate of a positive whole number of calls per a finite, positive interval.`
        })
      }
      const peer = groups.get(tool.limitGroup)
      if (peer !== undefined && !sameLimits(peer, tool)) {
        return yield* new InvalidRegistry({
          reason: `Tools "${peer.name}" and "${tool.name}" share the limit group "${
            ToolError.printableName(tool.limitGroup)
          }" but declare different limits: give them the same maxConcurrent and rate.`
        })
      }
      groups.set(tool.limitGroup, tool)
      byName.set(tool.name, { tool, context })
    }
    const unavailable = options?.unavailable ?? []
    // A registered tool is found first; an empty prefix would answer every misspelt name with a failure.
    const empty = unavailable.find(({ prefix }) => prefix === "")
    if (empty !== undefined) {
      return yield* new InvalidRegistry({ reason: `The unavailable ${empty.source} needs a non-empty name prefix.` })
    }
    return fromEntries(byName, unavailable)
  })

const sameLimits = (a: Tool.Any, b: Tool.Any): boolean =>
  a.maxConcurrent === b.maxConcurrent &&
  a.rate?.calls === b.rate?.calls &&
  a.rate?.perMillis === b.rate?.perMillis &&
  a.rate?.whenLimited === b.rate?.whenLimited

const fromEntries = (byName: Map<string, Entry>, unavailable: ReadonlyArray<Unavailable>): Service => {
  const entries = Array.from(byName.values())
  const names = Array.from(byName.keys())
  let definitions: ReadonlyArray<Definition> | undefined
  const get = (name: string) => byName.get(name)
  return {
    entries,
    get definitions() {
      return definitions ??= entries.map(({ tool }) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema
      }))
    },
    get,
    unavailable,
    lookup: (name) => {
      const entry = byName.get(name)
      if (entry !== undefined) return Effect.succeed(entry)
      const source = unavailable.find(({ prefix }) => name.startsWith(prefix))
      return Effect.fail(
        source === undefined
          ? new ToolError.UnknownTool({ toolName: name, suggestions: suggest(name, names) })
          : new ToolError.ToolUnavailable({ toolName: name, source: source.source, reason: source.reason })
      )
    }
  }
}

/**
 * A registry whose tools can be replaced while the runtime runs (an MCP
 * server's `tools/list_changed`): `registry` always answers with the tools
 * last given to `replace`, and a runtime built on it takes them afresh at
 * the start of each turn, never in its middle.
 *
 * @since 0.4.0
 * @category constructors
 */
export const changing = (initial: Service): {
  readonly registry: Service
  readonly replace: (next: Service) => void
} => {
  const snapshot = (service: Service) => service.current?.() ?? service
  let latest = snapshot(initial)
  const registry: Service = {
    get entries() {
      return latest.entries
    },
    get definitions() {
      return latest.definitions
    },
    get unavailable() {
      return latest.unavailable
    },
    get: (name) => latest.get(name),
    lookup: (name) => Effect.suspend(() => latest.lookup(name)),
    current: () => latest
  }
  return {
    registry,
    replace: (next) => {
      latest = snapshot(next)
    }
  }
}

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = <const Tools extends ReadonlyArray<Tool.Any>>(
  tools: Tools
): Layer.Layer<Registry, InvalidRegistry, Tool.Requirements<Tools[number]>> => Layer.effect(Registry, make(tools))

/**
 * Names close to `name`, nearest first: edit distance on the lower-cased
 * names, so `Read_File` and `read_fiel` both find `read_file`.
 *
 * @since 0.1.0
 * @category lookup
 */
export const suggest = (name: string, names: ReadonlyArray<string>, max = 3): ReadonlyArray<string> => {
  // Names longer than any tool name cannot be close; bound the work on hostile input.
  if (name.length > 128) return []
  const target = name.toLowerCase()
  const scored: Array<readonly [string, number]> = []
  for (const candidate of names) {
    const c = candidate.toLowerCase()
    const limit = Math.max(2, Math.floor(Math.max(target.length, c.length) / 3))
    const contains = target.length >= 3 && (c.includes(target) || target.includes(c))
    const d = contains ? Math.min(1, Math.abs(c.length - target.length)) : distance(target, c, limit)
    if (d <= limit) scored.push([candidate, d])
  }
  scored.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
  return scored.slice(0, max).map(([n]) => n)
}

/**
 * Levenshtein distance with an early exit once every cell exceeds `limit`.
 *
 * @since 0.1.0
 * @category lookup
 */
export const distance = (a: string, b: string, limit = Infinity): number => {
  if (Math.abs(a.length - b.length) > limit) return limit + 1
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  let current = new Array<number>(b.length + 1)
  for (let i = 1; i <= a.length; i++) {
    current[0] = i
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      current[j] = value
      if (value < rowMin) rowMin = value
    }
    if (rowMin > limit) return limit + 1
    ;[previous, current] = [current, previous]
  }
  return previous[b.length]!
}

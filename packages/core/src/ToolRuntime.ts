/**
 * The runtime: takes the calls of one model turn and returns exactly one
 * `ToolResult` per call, in call order, whatever happens.
 *
 * This module is its face: the service, its options, its layers and every
 * public name of the turn. `make` reads the services and settings and
 * composes two modules of their own: the turn scheduler (`TurnScheduler`:
 * batches of read-only calls, order, pairing by id, results for calls that
 * never ran) and the one-call runner (`CallRunner`: one call through the
 * stages of the pipeline), which meet through the scheduler's small
 * `Runner` interface rather than through shared closures.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ArtifactStore from "./ArtifactStore.js"
import * as CallRunner from "./CallRunner.js"
import * as Durability from "./Durability.js"
import * as Hooks from "./Hooks.js"
import type * as Pipeline from "./Pipeline.js"
import * as Policy from "./Policy.js"
import * as Redactor from "./Redactor.js"
import * as Registry from "./Registry.js"
import type * as Tool from "./Tool.js"
import type * as ToolCall from "./ToolCall.js"
import type * as ToolResult from "./ToolResult.js"
import * as TurnScheduler from "./TurnScheduler.js"

export { type Batch, duplicateIds, type Event, planTurn, type TurnOptions } from "./TurnScheduler.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Largest arguments accepted, in characters. Default 1,000,000. */
  readonly maxInputChars?: number | undefined
  /** How long an interrupted handler may take to clean up before it is abandoned. Default 5 s. */
  readonly cleanupTimeout?: Duration.DurationInput | undefined
  /** Preview of a truncated success, in characters. Default 2,000. */
  readonly previewChars?: number | undefined
  /** Head plus tail kept of a truncated failure, in characters. Default 10,000. */
  readonly failureKeepChars?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly runTurn: (
    calls: ReadonlyArray<ToolCall.Input>,
    options?: TurnScheduler.TurnOptions
  ) => Effect.Effect<ReadonlyArray<ToolResult.ToolResult>>
  readonly runCall: (call: ToolCall.Input, options?: TurnScheduler.TurnOptions) => Effect.Effect<ToolResult.ToolResult>
  /** How a turn would be scheduled, without running it. */
  readonly plan: (
    calls: ReadonlyArray<ToolCall.Input>,
    options?: TurnScheduler.TurnOptions
  ) => ReadonlyArray<TurnScheduler.Batch>
  readonly registry: Registry.Service
  /**
   * The runtime's own redaction, for what an integration sends beyond
   * results (log lines, notifications): the same rules its results get.
   *
   * @since 0.4.0
   */
  readonly redact: (text: string) => string
  /**
   * A part of a stored output (the `meta.artifact` of a truncated result),
   * from the runtime's own store: what an integration offers a client
   * besides the `read_output` tool (MCP resources). Stored content is
   * redacted already.
   *
   * @since 0.4.0
   */
  readonly readArtifact: (
    location: string,
    offset: number,
    length: number
  ) => Effect.Effect<ArtifactStore.Slice, ArtifactStore.ArtifactError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class ToolRuntime extends Context.Tag("@tool-runtime/core/ToolRuntime")<ToolRuntime, Service>() {}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<
  Service,
  never,
  Registry.Registry | Policy.Policy | Redactor.Redactor | ArtifactStore.ArtifactStore
> =>
  Effect.gen(function*() {
    const registry = yield* Registry.Registry
    const policy = yield* Policy.Policy
    const redactor = yield* Redactor.Redactor
    const store = yield* ArtifactStore.ArtifactStore
    // Optional: a runtime without hooks runs none.
    const hooks = Option.getOrUndefined(yield* Effect.serviceOption(Hooks.Hooks))
    // Optional: a runtime without a journal records nothing (see Durability).
    const journal = Option.getOrUndefined(yield* Effect.serviceOption(Durability.Journal))
    const maxInputChars = options?.maxInputChars ?? 1_000_000
    const cleanupMillis = Duration.toMillis(options?.cleanupTimeout ?? Duration.seconds(5))
    const schedulerOf = (tools: Registry.Service) => {
      const shapeEnv: Pipeline.ShapeEnv = {
        redactor,
        store,
        previewChars: options?.previewChars ?? 2_000,
        failureKeepChars: options?.failureKeepChars ?? 10_000,
        defaultLimit: 30_000,
        readToolName: tools.get(ArtifactStore.readToolName) === undefined ? undefined : ArtifactStore.readToolName
      }
      const runner = CallRunner.make({ registry: tools, policy, redactor, hooks, journal, shapeEnv, maxInputChars })
      return TurnScheduler.make({ runner, registry: tools, redactor, cleanupMillis })
    }
    // A registry whose tools change is read once per turn (its `current`), so that no turn sees
    // its tools change in its middle; each set of tools gets its scheduler once.
    const fixed = registry.current === undefined ? schedulerOf(registry) : undefined
    const schedulers = new WeakMap<Registry.Service, TurnScheduler.Scheduler>()
    const scheduler = (): TurnScheduler.Scheduler => {
      if (fixed !== undefined) return fixed
      const tools = registry.current!()
      let found = schedulers.get(tools)
      if (found === undefined) {
        found = schedulerOf(tools)
        schedulers.set(tools, found)
      }
      return found
    }
    const runTurn: Service["runTurn"] = fixed !== undefined
      ? fixed.runTurn
      : (calls, turnOptions) => Effect.suspend(() => scheduler().runTurn(calls, turnOptions))

    return {
      registry,
      runTurn,
      runCall: (call, turnOptions) => Effect.map(runTurn([call], turnOptions), (results) => results[0]!),
      plan: (calls, turnOptions) => scheduler().plan(calls, turnOptions),
      redact: (text) => redactor.redact(text).text,
      readArtifact: store.read
    } satisfies Service
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<
  ToolRuntime,
  never,
  Registry.Registry | Policy.Policy | Redactor.Redactor | ArtifactStore.ArtifactStore
> => Layer.effect(ToolRuntime, make(options))

/**
 * The runtime over the given tools, with the in-memory artifact store, the
 * default redactor and an allow-all policy. To use other services, compose
 * {@link layer} with your own layers instead.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDefault = <const Tools extends ReadonlyArray<Tool.Any>>(
  tools: Tools,
  options?: Options
): Layer.Layer<
  ToolRuntime,
  Registry.InvalidRegistry,
  Exclude<Tool.Requirements<Tools[number]>, ArtifactStore.ArtifactStore | Policy.Policy>
> => {
  // One store and one policy, shared by the runtime and by the tools that
  // page through the store or ask the policy about the paths they meet.
  const store = ArtifactStore.layerMemory()
  return layer(options).pipe(
    Layer.provide([Registry.layer(withReadTool(tools)), store, Redactor.layerDefault, Policy.layerAllowAll]),
    Layer.provide([store, Policy.layerAllowAll])
  )
}

/**
 * The tools with `read_output` added when it is not among them: a
 * truncation marker points to it, and a marker pointing to a tool the model
 * cannot call is a dead end.
 *
 * @since 0.4.0
 * @category tools
 */
export const withReadTool = <const Tools extends ReadonlyArray<Tool.Any>>(
  tools: Tools
): ReadonlyArray<Tools[number] | typeof ArtifactStore.readTool> =>
  tools.some((tool) => tool.name === ArtifactStore.readToolName) ? tools : [...tools, ArtifactStore.readTool]

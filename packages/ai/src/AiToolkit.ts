/**
 * An `@effect/ai` Toolkit and its handler layer, as registry tools. The
 * toolkit's tools keep their names, descriptions, parameter schemas (the
 * model is shown exactly the JSON Schema `@effect/ai` would send) and
 * handlers; the runtime adds what `@effect/ai` lacks: concurrency by the
 * read-only mark, time limits, output limits, redaction, untrusted marking
 * and permissions.
 *
 * `@effect/ai`'s annotations map to the registry's attributes: `Readonly`
 * makes a read-only tool of low risk; otherwise `Destructive` (true unless
 * annotated false, as in MCP) makes a write of high risk, and a
 * non-destructive write is of medium risk. An `OpenWorld` annotation set to
 * true marks the output untrusted. The rest (time limits, output limits, an
 * explicit risk) comes from this module's own annotations, or from options
 * per tool, which win.
 *
 * A handler that fails, in either of `@effect/ai`'s failure modes, fails
 * the call with its encoded failure: the model gets an error result it can
 * read, and the generation goes on.
 *
 * @since 0.1.0
 */
import * as AiTool from "@effect/ai/Tool"
import type * as Toolkit from "@effect/ai/Toolkit"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Policy from "@tool-runtime/core/Policy"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import type * as Untrusted from "@tool-runtime/core/Untrusted"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

// ---------------------------------------------------------------------------
// annotations of our own
// ---------------------------------------------------------------------------

/**
 * Total time limit of a call: `AiTool.make(...).annotate(AiToolkit.Timeout, "10 seconds")`.
 *
 * @since 0.1.0
 * @category annotations
 */
export class Timeout extends Context.Tag("@tool-runtime/ai/AiToolkit/Timeout")<Timeout, Duration.DurationInput>() {}

/**
 * Longest silence of a call before it counts as stuck.
 *
 * @since 0.1.0
 * @category annotations
 */
export class IdleTimeout
  extends Context.Tag("@tool-runtime/ai/AiToolkit/IdleTimeout")<IdleTimeout, Duration.DurationInput>()
{}

/**
 * Output the model sees: characters, or `{ tokens }`.
 *
 * @since 0.1.0
 * @category annotations
 */
export class OutputLimit extends Context.Tag("@tool-runtime/ai/AiToolkit/OutputLimit")<
  OutputLimit,
  number | { readonly tokens: number }
>() {}

/**
 * An explicit risk, over the one derived from `Readonly` and `Destructive`.
 *
 * @since 0.1.0
 * @category annotations
 */
export class Risk extends Context.Tag("@tool-runtime/ai/AiToolkit/Risk")<Risk, Tool.Risk>() {}

/**
 * How the output is marked as untrusted, over the one derived from `OpenWorld`.
 *
 * @since 0.1.0
 * @category annotations
 */
export class UntrustedOutput extends Context.Tag("@tool-runtime/ai/AiToolkit/UntrustedOutput")<
  UntrustedOutput,
  boolean | Untrusted.Mode
>() {}

/**
 * What options can set for one tool (they win over annotations).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolOptions {
  readonly readOnly?: boolean | undefined
  readonly risk?: Tool.Risk | undefined
  readonly timeout?: Duration.DurationInput | undefined
  readonly idleTimeout?: Duration.DurationInput | undefined
  readonly outputLimit?: number | { readonly tokens: number } | undefined
  readonly truncation?: Tool.TruncationOptions | undefined
  readonly untrusted?: boolean | Untrusted.Mode | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options<Names extends string = string> {
  /** Applied to every tool of the toolkit, under its annotations. */
  readonly defaults?: ToolOptions | undefined
  /** Per tool, over its annotations. */
  readonly tools?: { readonly [Name in Names]?: ToolOptions } | undefined
}

// ---------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------

/**
 * The toolkit's handler failed. `failure` is the failure as the tool's
 * failure schema encodes it, so the model reads the same JSON `@effect/ai`
 * would have sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolkitFailure extends Schema.TaggedError<ToolkitFailure>()("ToolkitFailure", {
  tool: Schema.String,
  failure: Schema.Unknown
}) {
  readonly retryable = false
  override get message() {
    const failure = this.failure
    if (typeof failure === "string") return failure
    if (Predicate.hasProperty(failure, "message") && typeof failure.message === "string") return failure.message
    return JSON.stringify(failure) ?? "the handler failed"
  }
}

// ---------------------------------------------------------------------------
// conversion
// ---------------------------------------------------------------------------

/**
 * What the registry believes about a tool, from its annotations and the
 * options; see the module documentation for the order.
 *
 * @since 0.1.0
 * @category conversion
 */
export const attributes = (tool: AiTool.Any, options?: ToolOptions): {
  readonly readOnly: boolean
  readonly risk: Tool.Risk
  readonly untrusted: boolean | Untrusted.Mode
} => {
  const annotations = tool.annotations as Context.Context<unknown>
  const readOnly = options?.readOnly ?? Context.get(annotations, AiTool.Readonly)
  const derivedRisk: Tool.Risk = readOnly ? "low" : Context.get(annotations, AiTool.Destructive) ? "high" : "medium"
  // `OpenWorld` defaults to true, which would mark every tool: only an
  // explicit annotation counts (`getOption` would return the default).
  const openWorld = annotations.unsafeMap.has(AiTool.OpenWorld.key) && Context.get(annotations, AiTool.OpenWorld)
  return {
    readOnly,
    risk: options?.risk ?? Option.getOrElse(Context.getOption(annotations, Risk), () => derivedRisk),
    untrusted: options?.untrusted ??
      Option.getOrElse(Context.getOption(annotations, UntrustedOutput), () => openWorld)
  }
}

const annotation = <I, S>(tool: AiTool.Any, tag: Context.Tag<I, S>): S | undefined =>
  Option.getOrUndefined(Context.getOption(tool.annotations as Context.Context<unknown>, tag))

/**
 * One tool of a toolkit whose handlers are available, as a registry tool.
 *
 * @since 0.1.0
 * @category conversion
 */
export const fromTool = <Tools extends Record<string, AiTool.Any>>(
  withHandler: Toolkit.WithHandler<Tools>,
  tool: AiTool.Any,
  options?: ToolOptions
): Tool.Tool<string, unknown, unknown, ToolkitFailure, AiTool.Requirements<Tools[keyof Tools]>> => {
  const { readOnly, risk, untrusted } = attributes(tool, options)
  const parameters = tool.parametersSchema as unknown as Schema.Schema<unknown, unknown>
  // `handle` decodes the parameters itself: it gets them encoded again, so
  // schemas that transform (a date from a string) see what they expect.
  const encodeParameters = Schema.encode(parameters)
  const encodeFailure = Schema.encodeUnknown(tool.failureSchema as Schema.Schema<unknown, unknown>)
  const isFailure = Schema.is(tool.failureSchema as Schema.Schema<unknown, unknown>)
  const timeout = options?.timeout ?? annotation(tool, Timeout)
  const idleTimeout = options?.idleTimeout ?? annotation(tool, IdleTimeout)
  const outputLimit = options?.outputLimit ?? annotation(tool, OutputLimit)
  const fail = (failure: unknown) =>
    Effect.flatMap(
      Effect.orElseSucceed(encodeFailure(failure), () => String(failure)),
      (encoded) => Effect.fail(new ToolkitFailure({ tool: tool.name, failure: encoded }))
    )
  return Tool.make(tool.name, {
    description: AiTool.getDescription(tool as never) ?? tool.name,
    parameters,
    inputSchema: AiTool.getJsonSchema(tool as never),
    readOnly,
    risk,
    untrusted,
    ...(timeout === undefined ? {} : { timeout }),
    ...(idleTimeout === undefined ? {} : { idleTimeout }),
    ...(outputLimit === undefined ? {} : { outputLimit }),
    ...(options?.truncation === undefined ? {} : { truncation: options.truncation }),
    handler: (params: unknown) =>
      encodeParameters(params).pipe(
        Effect.orDie,
        Effect.flatMap((encoded) =>
          withHandler.handle(tool.name as keyof Tools, encoded as never) as Effect.Effect<
            AiTool.HandlerResult<AiTool.Any>,
            unknown,
            AiTool.Requirements<Tools[keyof Tools]>
          >
        ),
        Effect.matchEffect({
          // A failure of the tool's own schema is the tool's answer; any other
          // error (its result did not match its schema) is a bug in the tool.
          onFailure: (error) => tool.failureMode === "error" && isFailure(error) ? fail(error) : Effect.die(error),
          onSuccess: (result) =>
            result.isFailure ?
              Effect.fail(new ToolkitFailure({ tool: tool.name, failure: result.encodedResult })) :
              Effect.succeed(result.encodedResult)
        })
      )
  })
}

/**
 * Every user-defined tool of a toolkit as registry tools; needs the
 * toolkit's handler layer. Provider-defined tools (a provider's web search)
 * run at the provider and are left out.
 *
 * @since 0.1.0
 * @category conversion
 */
export const tools = <Tools extends Record<string, AiTool.Any>>(
  toolkit: Toolkit.Toolkit<Tools>,
  options?: Options<Extract<keyof Tools, string>>
): Effect.Effect<
  ReadonlyArray<Tool.Tool<string, unknown, unknown, ToolkitFailure, AiTool.Requirements<Tools[keyof Tools]>>>,
  never,
  AiTool.HandlersFor<Tools>
> =>
  Effect.map(
    toolkit,
    (withHandler) =>
      Object.entries(toolkit.tools).filter(([, tool]) => AiTool.isUserDefined(tool)).map(([name, tool]) =>
        fromTool(withHandler, tool, {
          ...options?.defaults,
          ...(options?.tools as Record<string, ToolOptions> | undefined)?.[name]
        })
      )
  )

/**
 * A registry of the given tools followed by the toolkit's.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRegistry = <Tools extends Record<string, AiTool.Any>, const Own extends ReadonlyArray<Tool.Any> = []>(
  toolkit: Toolkit.Toolkit<Tools>,
  options?: Options<Extract<keyof Tools, string>> & { readonly own?: Own | undefined }
): Layer.Layer<
  Registry.Registry,
  Registry.InvalidRegistry,
  AiTool.HandlersFor<Tools> | AiTool.Requirements<Tools[keyof Tools]> | Tool.Requirements<Own[number]>
> =>
  Layer.effect(
    Registry.Registry,
    Effect.flatMap(tools(toolkit, options), (converted) => Registry.make([...(options?.own ?? []), ...converted]))
  )

/**
 * The runtime over a toolkit (and the given tools of our own), with the
 * in-memory artifact store, the default redactor and an allow-all policy.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRuntime = <Tools extends Record<string, AiTool.Any>, const Own extends ReadonlyArray<Tool.Any> = []>(
  toolkit: Toolkit.Toolkit<Tools>,
  options?:
    & Options<Extract<keyof Tools, string>>
    & { readonly own?: Own | undefined; readonly runtime?: ToolRuntime.Options | undefined }
): Layer.Layer<
  ToolRuntime.ToolRuntime,
  Registry.InvalidRegistry,
  | AiTool.HandlersFor<Tools>
  | AiTool.Requirements<Tools[keyof Tools]>
  | Exclude<Tool.Requirements<Own[number]>, ArtifactStore.ArtifactStore | Policy.Policy>
> => {
  const store = ArtifactStore.layerMemory()
  // read_output beside the tools: a truncation marker points to it.
  const own = ToolRuntime.withReadTool(options?.own ?? [])
  return ToolRuntime.layer(options?.runtime).pipe(
    Layer.provide([layerRegistry(toolkit, { ...options, own }), store, Redactor.layerDefault, Policy.layerAllowAll]),
    Layer.provide([store, Policy.layerAllowAll])
  )
}

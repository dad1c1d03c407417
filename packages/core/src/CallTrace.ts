/**
 * The spans of one call: an `execute_tool {tool}` span after OpenTelemetry's
 * GenAI conventions (`gen_ai.operation.name`, `gen_ai.tool.name`,
 * `gen_ai.tool.call.id`, `gen_ai.tool.type`, `gen_ai.tool.description`,
 * `error.type` on failure) and a `tool_runtime.{stage}` child span per stage,
 * with the status, duration, truncation and redaction count as attributes.
 * Arguments and results (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`),
 * error messages and the name of a tool that is not registered go in only
 * when the application turns {@link TraceValues} on, and then redacted and capped.
 *
 * A span also carries its exit, and an exporting tracer serializes it (the
 * OpenTelemetry one sets the status message and records an exception event
 * from `Cause.pretty`). The errors of the stages quote the model and the tool
 * (an unknown name, an argument that failed its schema, a handler's failure
 * message), so a span never ends with the error itself: it ends with a
 * {@link SpanError} that carries the error's tag, code and redacted message.
 *
 * Spans are made through the current `Tracer` directly, with times taken at
 * the stage boundaries, instead of wrapping each stage in `Effect.withSpan`:
 * the pipeline's stages are mostly synchronous, and seven `withSpan` wrappers
 * cost several times more than the whole call.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import * as StableJson from "./StableJson.js"
import * as ToolResult from "./ToolResult.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Stage = "parse" | "lookup" | "validate" | "authorize" | "execute" | "shape"

/**
 * Effect's built-in tracer keeps spans in memory and exports nothing: with
 * it, a span that is never a parent cannot be observed by anyone.
 *
 * @since 0.1.0
 * @category tracing
 */
export const isExporting = (tracer: Tracer.Tracer): boolean => tracer !== nativeTracer

const nativeTracer = Context.get(DefaultServices.liveServices, Tracer.Tracer)

/**
 * What a span ends with in place of a stage's error: the error's tag as its
 * name, its `code` when it has one, and its message redacted. A plain
 * `Error` with no `cause` and no other fields, so that nothing an exporter
 * copies from it holds more than that.
 *
 * @since 0.2.0
 * @category tracing
 */
export class SpanError extends Error {
  readonly code: string | undefined
  constructor(name: string, message: string, code: string | undefined) {
    super(message)
    this.name = name
    this.code = code
  }
}

const describeError = (u: unknown): { readonly name: string; readonly message: string; readonly code: unknown } => {
  if (typeof u === "string") return { name: "Error", message: u, code: undefined }
  if (u instanceof Error) {
    return {
      name: "_tag" in u && typeof u._tag === "string" ? u._tag : u.name,
      message: u.message,
      code: "code" in u ? u.code : undefined
    }
  }
  return { name: "Error", message: Cause.pretty(Cause.die(u)), code: undefined }
}

/**
 * Whether spans may carry values the model or a tool sent: the call's
 * arguments and result (`gen_ai.tool.call.arguments`,
 * `gen_ai.tool.call.result`, at most {@link maxValueChars} each), the
 * messages of errors in span statuses (they quote arguments: "query:
 * expected a string, got 42"), the name of a tool that is not registered,
 * and the permission stage's `permission.input`, `permission.subject` and
 * `permission.reason`. Off by default, as
 * OpenTelemetry's GenAI conventions ask of arguments and results: they
 * carry user data no redactor recognizes. When on, they are still redacted.
 * Provide `true` with `Effect.provideService(TraceValues, true)` (or
 * `Layer.succeed`) around the code that runs turns.
 *
 * @since 0.4.0
 * @category tracing
 */
export class TraceValues extends Context.Reference<TraceValues>()("@tool-runtime/core/TraceValues", {
  defaultValue: () => false
}) {}

/**
 * The most characters of arguments or of a result a span records, when
 * {@link TraceValues} lets it: a trace backend is no place for a 50 MB log.
 *
 * @since 0.4.0
 * @category tracing
 */
export const maxValueChars = 4_096

const capped = (text: string): string => {
  if (text.length <= maxValueChars) return text
  const note = `… (${text.length} characters in all)`
  return `${text.slice(0, maxValueChars - note.length)}${note}`
}

/**
 * The name a call's span shows for a tool that is not registered: the
 * model chose that name, and it can hold anything (a query, a path, a
 * person's name), so it is a value like the arguments.
 *
 * @since 0.4.0
 * @category tracing
 */
export const unknownToolName = "(unknown)"

/**
 * The exit a span may end with: a success or an interruption as it is; any
 * failure or defect as one {@link SpanError} (the first of the cause). Its
 * message is the error's code (or tag) alone, unless `values` (see
 * {@link TraceValues}) lets it carry the error's message, passed through
 * `redact`.
 *
 * @since 0.2.0
 * @category tracing
 */
export const redactExit = (
  exit: Exit.Exit<unknown, unknown>,
  redact: (text: string) => string,
  options?: { readonly values?: boolean | undefined }
): Exit.Exit<unknown, unknown> => {
  if (Exit.isSuccess(exit) || Cause.isInterruptedOnly(exit.cause)) return exit
  // A defect can be any value, one whose every read throws included.
  const described = Either.try(() => describeError(Cause.squash(exit.cause)))
  const { code, message, name } = Either.isRight(described)
    ? described.right
    : { name: "Error", message: "the error could not be read", code: undefined }
  const shownCode = typeof code === "string" ? redact(code) : undefined
  return Exit.fail(
    new SpanError(
      redact(name),
      options?.values === true
        ? redact(message)
        : `${shownCode ?? redact(name)} (message withheld: TraceValues is off)`,
      shownCode
    )
  )
}

/**
 * @since 0.1.0
 * @category models
 */
export class CallTrace {
  readonly span: Tracer.Span
  private last: bigint
  private readonly parent: Option.Option<Tracer.AnySpan>

  /**
   * `callId` and `toolName` must already be redacted: the model can put
   * anything in them. `redact` is applied to every exit a stage span ends with.
   */
  constructor(
    private readonly tracer: Tracer.Tracer,
    private readonly clock: Clock.Clock,
    parent: Option.Option<Tracer.AnySpan>,
    callId: string,
    toolName: string,
    /** Stage spans that nothing nests in are only worth making when a tracer exports them. */
    private readonly stageSpans: boolean,
    private readonly redact: (text: string) => string,
    /** {@link TraceValues}: whether a stage span's status may quote its error's message. */
    private readonly values = false
  ) {
    this.last = clock.unsafeCurrentTimeNanos()
    // OpenTelemetry's GenAI conventions name the span and its attributes, so any GenAI-aware
    // backend reads it; the `tool.*` attributes of earlier versions stay for those who query them.
    this.span = tracer.span(`execute_tool ${toolName}`, parent, Context.empty(), [], this.last, "internal")
    this.span.attribute("gen_ai.operation.name", "execute_tool")
    this.span.attribute("gen_ai.tool.name", toolName)
    this.span.attribute("gen_ai.tool.call.id", callId)
    this.span.attribute("gen_ai.tool.type", "function")
    this.span.attribute("tool.name", toolName)
    this.span.attribute("tool.call_id", callId)
    this.parent = Option.some(this.span)
  }

  /**
   * The call's arguments, as `gen_ai.tool.call.arguments`: only with
   * {@link TraceValues} on, redacted and capped.
   */
  arguments(input: unknown): void {
    if (!this.values) return
    const encoded = StableJson.encode(input)
    this.span.attribute("gen_ai.tool.call.arguments", capped(this.redact(encoded.text)))
  }

  /** The tool was found: its description, already redacted (the developer's text, redacted all the same). */
  describe(description: string): void {
    this.span.attribute("gen_ai.tool.description", description)
  }

  /** Records a stage that ran from the previous boundary until now. */
  stage(stage: Stage, exit: Exit.Exit<unknown, unknown> = Exit.void): void {
    if (!this.stageSpans) return
    const now = this.clock.unsafeCurrentTimeNanos()
    const span = this.tracer.span(`tool_runtime.${stage}`, this.parent, Context.empty(), [], this.last, "internal")
    span.end(now, redactExit(exit, this.redact, { values: this.values }))
    this.last = now
  }

  /**
   * Opens a stage that others nest in (the handler's own spans go under
   * `execute`). Without an exporting tracer the call's span stands in for it:
   * handlers still see their call as their parent, at no extra span.
   */
  open(stage: Stage): Tracer.Span | undefined {
    return this.stageSpans
      ? this.tracer.span(`tool_runtime.${stage}`, this.parent, Context.empty(), [], this.last, "internal")
      : undefined
  }

  close(span: Tracer.Span, exit: Exit.Exit<unknown, unknown>): void {
    const now = this.clock.unsafeCurrentTimeNanos()
    span.end(now, redactExit(exit, this.redact, { values: this.values }))
    this.last = now
  }

  /** The turn was interrupted before this call had a result. */
  interrupted(): void {
    this.span.attribute("tool.status", "not_executed")
    this.span.attribute("error.type", "not_executed")
    this.span.end(this.clock.unsafeCurrentTimeNanos(), Exit.interrupt(FiberId.none))
  }

  end(result: ToolResult.ToolResult): void {
    this.span.attribute("tool.status", result.error?.code ?? "ok")
    this.span.attribute("tool.duration_ms", result.meta.durationMillis)
    this.span.attribute("tool.truncated", result.meta.truncation !== undefined)
    this.span.attribute("tool.redactions", result.meta.redactions)
    // The result as the model reads it (shaped: redacted, cut), only when values may be recorded.
    if (this.values && !result.isError) {
      this.span.attribute("gen_ai.tool.call.result", capped(ToolResult.text(result)))
    }
    if (!result.isError) {
      this.span.end(this.clock.unsafeCurrentTimeNanos(), Exit.void)
      return
    }
    // The error's stable code: a low-cardinality class, as the conventions ask, never its message.
    const code = result.error?.code ?? "error"
    this.span.attribute("error.type", code)
    this.span.end(
      this.clock.unsafeCurrentTimeNanos(),
      Exit.fail(
        new SpanError(
          code,
          this.values ? capped(ToolResult.text(result)) : `${code} (message withheld: TraceValues is off)`,
          code
        )
      )
    )
  }
}

/**
 * The spans of one call: a `tool_runtime.call` span and a child span per
 * stage, with the tool name, call id, status, duration, truncation and
 * redaction count as attributes. Raw arguments and outputs never go in.
 *
 * Spans are made through the current `Tracer` directly, with times taken at
 * the stage boundaries, instead of wrapping each stage in `Effect.withSpan`:
 * the pipeline's stages are mostly synchronous, and seven `withSpan` wrappers
 * cost several times more than the whole call.
 *
 * @since 0.1.0
 */
import type * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import type * as ToolResult from "./ToolResult.js"

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
 * @since 0.1.0
 * @category models
 */
export class CallTrace {
  readonly span: Tracer.Span
  private last: bigint
  private readonly parent: Option.Option<Tracer.AnySpan>

  /** `callId` and `toolName` must already be redacted: the model can put anything in them. */
  constructor(
    private readonly tracer: Tracer.Tracer,
    private readonly clock: Clock.Clock,
    parent: Option.Option<Tracer.AnySpan>,
    callId: string,
    toolName: string,
    /** Stage spans that nothing nests in are only worth making when a tracer exports them. */
    private readonly stageSpans: boolean
  ) {
    this.last = clock.unsafeCurrentTimeNanos()
    this.span = tracer.span("tool_runtime.call", parent, Context.empty(), [], this.last, "internal")
    this.span.attribute("tool.name", toolName)
    this.span.attribute("tool.call_id", callId)
    this.parent = Option.some(this.span)
  }

  /** Records a stage that ran from the previous boundary until now. */
  stage(stage: Stage, exit: Exit.Exit<unknown, unknown> = Exit.void): void {
    if (!this.stageSpans) return
    const now = this.clock.unsafeCurrentTimeNanos()
    const span = this.tracer.span(`tool_runtime.${stage}`, this.parent, Context.empty(), [], this.last, "internal")
    span.end(now, exit)
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
    span.end(now, exit)
    this.last = now
  }

  /** The turn was interrupted before this call had a result. */
  interrupted(): void {
    this.span.attribute("tool.status", "not_executed")
    this.span.end(this.clock.unsafeCurrentTimeNanos(), Exit.interrupt(FiberId.none))
  }

  end(result: ToolResult.ToolResult): void {
    this.span.attribute("tool.status", result.error?.code ?? "ok")
    this.span.attribute("tool.duration_ms", result.meta.durationMillis)
    this.span.attribute("tool.truncated", result.meta.truncation !== undefined)
    this.span.attribute("tool.redactions", result.meta.redactions)
    this.span.end(this.clock.unsafeCurrentTimeNanos(), result.isError ? Exit.fail(result.error?.code) : Exit.void)
  }
}

/**
 * A tracer that exports, for tests: every span it makes is kept as an
 * exporter would serialize it. Effect's own tracer exports nothing, so a
 * secret in a span's exit is only seen by a tracer like this one (or
 * `@effect/opentelemetry`, whose span status message and exception event
 * come from the exit's cause).
 */
import * as Cause from "effect/Cause"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"

export interface Exported {
  readonly name: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly kind: Tracer.SpanKind
  readonly attributes: Record<string, unknown>
  readonly events: Array<{ readonly name: string; readonly attributes: Record<string, unknown> }>
  readonly links: Array<{ readonly spanId: string; readonly attributes: Record<string, unknown> }>
  status: { readonly code: "unset" | "ok" | "error"; readonly message?: string | undefined }
  /** The whole cause, as `Cause.pretty` renders it (what a log line of the failure would show). */
  cause: string | undefined
  /** The first error as JSON, as an exporter that serializes the error object would send it. */
  error: string | undefined
  ended: boolean
}

export const make = () => {
  const spans: Array<Exported> = []
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const spanId = `span-${spans.length + 1}`
      const exported: Exported = {
        name,
        spanId,
        parentSpanId: Option.match(parent, { onNone: () => undefined, onSome: (p) => p.spanId }),
        kind,
        attributes: {},
        events: [],
        links: Array.from(links, (link) => ({ spanId: link.span.spanId, attributes: { ...link.attributes } })),
        status: { code: "unset" },
        cause: undefined,
        error: undefined,
        ended: false
      }
      spans.push(exported)
      const attributes = new Map<string, unknown>()
      let status: Tracer.SpanStatus = { _tag: "Started", startTime }
      const span: Tracer.Span = {
        _tag: "Span",
        name,
        spanId,
        traceId: "trace-1",
        parent,
        context,
        get status() {
          return status
        },
        attributes,
        links: Array.from(links),
        sampled: true,
        kind,
        end: (endTime, exit) => {
          exported.ended = true
          status = { _tag: "Ended", startTime, endTime, exit }
          if (exit._tag === "Success") {
            exported.status = { code: "ok" }
          } else if (Cause.isInterruptedOnly(exit.cause)) {
            exported.status = { code: "ok" }
            exported.attributes["status.interrupted"] = true
          } else {
            // What @effect/opentelemetry does: the first pretty error becomes
            // the status message and an exception event.
            const first = Cause.prettyErrors(exit.cause)[0]
            exported.status = { code: "error", message: first?.message }
            exported.events.push({
              name: "exception",
              attributes: {
                "exception.type": first?.name,
                "exception.message": first?.message,
                "exception.stacktrace": first?.stack
              }
            })
            exported.cause = Cause.pretty(exit.cause, { renderErrorCause: true })
            exported.error = JSON.stringify(Cause.squash(exit.cause))
          }
        },
        attribute: (key, value) => {
          attributes.set(key, value)
          exported.attributes[key] = value
        },
        event: (eventName, _startTime, attributes) => {
          exported.events.push({ name: eventName, attributes: { ...attributes } })
        },
        addLinks: (more) => {
          for (const link of more) exported.links.push({ spanId: link.span.spanId, attributes: { ...link.attributes } })
        }
      }
      return span
    },
    context: (f) => f()
  })
  return {
    spans,
    tracer,
    /** Everything exported, as one text. */
    text: () => JSON.stringify(spans, (_key, value) => typeof value === "bigint" ? String(value) : value)
  }
}

/**
 * What a handler logs (`Effect.log`, `Effect.annotateLogs`, a failure's
 * cause) reaches the application's loggers redacted with the runtime's
 * rules: a handler that logs the request it sent, the token in it included,
 * must not put the token in a terminal, a log file or a log backend any
 * more than in its result.
 *
 * Each of the turn's loggers is wrapped once (the wrapped set is kept for
 * as long as the loggers are), and a line pays only for the redaction of
 * what it holds. A string is redacted in place; any other value is read as
 * JSON text and as `String()` (a logger may print either), and is kept as
 * it is unless one of them holds a secret, when its redacted text takes its
 * place; a value that throws when read is replaced by a note. A non-empty
 * cause is printed, redacted, and kept as it was when nothing in it was a
 * secret.
 *
 * @since 0.5.0
 */
import * as Cause from "effect/Cause"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as List from "effect/List"
import * as Logger from "effect/Logger"
import * as LogSpan from "effect/LogSpan"

type AnyLogger = Logger.Logger<unknown, unknown>

const unreadable = "[a value that cannot be shown]"

/** A value's texts, as loggers may print it; `undefined` when reading it throws. */
const textsOf = (value: object): ReadonlyArray<string> | undefined => {
  try {
    const texts = [String(value)]
    const json = JSON.stringify(value)
    if (json !== undefined) texts.push(json)
    if (value instanceof Error && typeof value.stack === "string") texts.push(value.stack)
    return texts
  } catch {
    return undefined
  }
}

const redactValue = (value: unknown, redact: (text: string) => string): unknown => {
  if (typeof value === "string") return redact(value)
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return value
  const texts = textsOf(value)
  if (texts === undefined) return unreadable
  for (const text of texts) {
    const redacted = redact(text)
    // The longest of the texts stands for the value: it says the most.
    if (redacted !== text) return redact(texts.reduce((a, b) => (b.length > a.length ? b : a)))
  }
  return value
}

/** An error whose every text is already redacted: what a cause that held a secret becomes. */
class RedactedCause extends Error {
  constructor(text: string) {
    super(text)
    this.name = "RedactedCause"
    this.stack = text
  }
}

const redactCause = (cause: Cause.Cause<unknown>, redact: (text: string) => string): Cause.Cause<unknown> => {
  if (Cause.isEmpty(cause)) return cause
  let text: string
  try {
    text = Cause.pretty(cause, { renderErrorCause: true })
  } catch {
    return Cause.die(new RedactedCause(unreadable))
  }
  const redacted = redact(text)
  return redacted === text ? cause : Cause.die(new RedactedCause(redacted))
}

/**
 * A logger that passes every line on to `logger`, redacted.
 *
 * @since 0.5.0
 * @category constructors
 */
export const redacting = (logger: AnyLogger, redact: (text: string) => string): AnyLogger =>
  Logger.make((options) =>
    logger.log({
      ...options,
      message: Array.isArray(options.message)
        ? options.message.map((part) => redactValue(part, redact))
        : redactValue(options.message, redact),
      cause: redactCause(options.cause, redact),
      annotations: HashMap.isEmpty(options.annotations)
        ? options.annotations
        : HashMap.map(options.annotations, (value) => redactValue(value, redact)),
      spans: List.isNil(options.spans)
        ? options.spans
        : List.map(options.spans, (span) => LogSpan.make(redact(span.label), span.startTime))
    })
  )

const cache = new WeakMap<(text: string) => string, WeakMap<HashSet.HashSet<AnyLogger>, HashSet.HashSet<AnyLogger>>>()

/**
 * The loggers a handler logs to: each of `loggers`, redacting. The same set
 * for the same loggers and redaction, so a turn does not wrap them again.
 *
 * @since 0.5.0
 * @category constructors
 */
export const redactingAll = (
  loggers: HashSet.HashSet<AnyLogger>,
  redact: (text: string) => string
): HashSet.HashSet<AnyLogger> => {
  let byLoggers = cache.get(redact)
  if (byLoggers === undefined) {
    byLoggers = new WeakMap()
    cache.set(redact, byLoggers)
  }
  let wrapped = byLoggers.get(loggers)
  if (wrapped === undefined) {
    wrapped = HashSet.map(loggers, (logger) => redacting(logger, redact))
    byLoggers.set(loggers, wrapped)
  }
  return wrapped
}

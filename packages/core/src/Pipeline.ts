/**
 * The stages one call goes through: parse, look up, validate, authorize,
 * execute, shape. Each stage is an Effect whose error channel holds only its
 * own members of {@link ToolError.ToolError}; {@link shape} turns whatever
 * came out (a value or any of those errors) into the call's one
 * `ToolResult`.
 *
 * The scheduler in `ToolRuntime` composes these per call; they are exported
 * so that each can be tested, traced and reused on its own.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Random from "effect/Random"
import * as Runtime from "effect/Runtime"
import * as AST from "effect/SchemaAST"
import * as Tracer from "effect/Tracer"
import type * as ArtifactStore from "./ArtifactStore.js"
import * as ForeignText from "./ForeignText.js"
import type * as Policy from "./Policy.js"
import type * as Redactor from "./Redactor.js"
import type * as Registry from "./Registry.js"
import * as StableJson from "./StableJson.js"
import type * as Tool from "./Tool.js"
import * as ToolError from "./ToolError.js"
import * as ToolResult from "./ToolResult.js"
import * as Truncation from "./Truncation.js"
import * as Untrusted from "./Untrusted.js"
import * as Watchdog from "./Watchdog.js"

// ---------------------------------------------------------------------------
// parse
// ---------------------------------------------------------------------------

/**
 * A call whose envelope and arguments are usable.
 *
 * @since 0.1.0
 * @category models
 */
export interface Parsed {
  readonly callId: string
  readonly toolName: string
  readonly input: Record<string, unknown>
}

/**
 * @since 0.1.0
 * @category models
 */
export type ParseError =
  | ToolError.MalformedCall
  | ToolError.MalformedArguments
  | ToolError.InvalidInput
  | ToolError.InputTooLarge

/**
 * The id of a call, whatever it holds, so that even a malformed call can be
 * answered.
 *
 * @since 0.1.0
 * @category parse
 */
export const callIdOf = (call: unknown): string => {
  const id = ForeignText.read(call, "id")
  return typeof id === "string" ? id : ""
}

/**
 * @since 0.1.0
 * @category parse
 */
export const toolNameOf = (call: unknown): string => {
  const name = ForeignText.read(call, "name")
  return typeof name === "string" ? name : ""
}

const kindOf = (u: unknown): string =>
  u === null ? "null" : Array.isArray(u) ? "an array" : typeof u === "string" ? "a string" : `a ${typeof u}`

/**
 * Describes a JSON syntax error without quoting the input (it may hold
 * secrets): where it is, and the common cause.
 *
 * @since 0.1.0
 * @category parse
 */
export const describeJsonError = (text: string, error: unknown): string => {
  const message = error instanceof Error ? error.message : ""
  if (/unexpected end/i.test(message) || /unterminated string/i.test(message)) {
    return "the JSON ends before it is complete (a closing brace, bracket or quote is missing)"
  }
  // V8 quotes the input in some messages: only a position it states at the end is its own.
  const position = /at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(message)
  // A position at the very end means the text stopped where more was expected.
  if (position !== null && Number(position[1]) >= text.trimEnd().length) {
    return "the JSON ends before it is complete (a closing brace, bracket or quote is missing)"
  }
  if (position !== null) {
    const offset = Number(position[1])
    const before = text.slice(0, offset)
    const line = before.split("\n").length
    const column = offset - before.lastIndexOf("\n")
    return `syntax error at line ${line}, column ${column} (check quotes, commas and escapes there)`
  }
  // Invisible characters are what a model cannot see in its own output: name them.
  if (text.charCodeAt(0) === 0xfeff) {
    return "it starts with an invisible U+FEFF byte-order mark (send the JSON text without it)"
  }
  // One character of the input is safe to name, and tells the model what to look for.
  const token = /^Unexpected token '(.)'/u.exec(message)?.[1]
  if (token !== undefined && !ForeignText.isClean(token)) {
    const offset = text.indexOf(token)
    const before = text.slice(0, offset)
    const code = token.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")
    return `it has an invisible or control character U+${code} at line ${before.split("\n").length}, column ${
      offset - before.lastIndexOf("\n")
    } (remove it)`
  }
  const pythonism = /\b(?:True|False|None|undefined|NaN|Infinity)\b/.test(text)
    ? "; JSON has no True, False, None, undefined or NaN: use true, false or null"
    : ""
  if (token !== undefined && /[\w{}[\]:,"'`]/.test(token)) {
    return `it has an unexpected character ${JSON.stringify(token)}${
      pythonism || " (check quotes, commas and escapes)"
    }`
  }
  return `it could not be parsed (check quotes, commas and escapes)${pythonism}`
}

/**
 * The deepest arguments accepted. Schema decoding recurses into a value, so
 * deeper arguments are refused before they are decoded; real arguments come
 * nowhere near it.
 *
 * @since 0.2.0
 * @category parse
 */
export const maxInputDepth = 64

type Refusal = "too-large" | "too-deep" | "proto" | "unreadable"

/**
 * Walks parsed arguments with an explicit stack (never the call stack):
 * counts characters, stopping as soon as the limit is passed, so that
 * checking a small input costs almost nothing; refuses nesting deeper than
 * {@link maxInputDepth}, and an own `__proto__` key, which decoding into a
 * record would turn into the record's prototype.
 */
const inspect = (value: unknown, limit: number): Refusal | undefined => {
  let budget = limit
  const stack: Array<unknown> = [value]
  const depths: Array<number> = [0]
  try {
    while (stack.length > 0) {
      const u = stack.pop()
      const depth = depths.pop()!
      if (typeof u === "string") budget -= u.length + 2
      else if (typeof u === "object" && u !== null) {
        if (depth >= maxInputDepth) return "too-deep"
        if (Array.isArray(u)) {
          budget -= u.length + 2
          for (const item of u) {
            stack.push(item)
            depths.push(depth + 1)
          }
        } else {
          for (const key in u) {
            if (key === "__proto__") return "proto"
            budget -= key.length + 4
            stack.push((u as Record<string, unknown>)[key])
            depths.push(depth + 1)
          }
        }
      } else budget -= 8
      if (budget < 0) return "too-large"
    }
  } catch {
    // A getter or a Proxy trap threw: arguments that cannot be read cannot be decoded.
    return "unreadable"
  }
  return undefined
}

const refused = (toolName: string, refusal: Refusal, limit: number): ParseError => {
  switch (refusal) {
    case "too-large":
      return new ToolError.InputTooLarge({ toolName, limit })
    case "too-deep":
      return new ToolError.InvalidInput({
        toolName,
        received: "an object",
        reason: `they are nested deeper than ${maxInputDepth} levels`
      })
    case "proto":
      return new ToolError.InvalidInput({
        toolName,
        received: "an object",
        reason: "they have a key named \"__proto__\", which is not accepted (rename it)"
      })
    case "unreadable":
      return new ToolError.InvalidInput({
        toolName,
        received: "an object",
        reason: "reading them failed (they are not plain JSON data)"
      })
  }
}

/**
 * Stage 1: checks the envelope and turns the arguments into an object.
 * Arguments arrive as an object (Anthropic) or a JSON string (OpenAI); an
 * empty string or a missing input means "no arguments".
 *
 * @since 0.1.0
 * @category stages
 */
export const parse = (call: unknown, maxInputChars: number): Either.Either<Parsed, ParseError> => {
  try {
    return parseCall(call, maxInputChars)
  } catch {
    // The call object itself threw when read (a getter, a Proxy): it has no usable envelope.
    return Either.left(new ToolError.MalformedCall({ reason: "reading it failed (it is not plain JSON data)" }))
  }
}

const parseCall = (call: unknown, maxInputChars: number): Either.Either<Parsed, ParseError> => {
  if (!Predicate.isRecord(call)) {
    return Either.left(new ToolError.MalformedCall({ reason: `expected an object, got ${kindOf(call)}` }))
  }
  const callId = call.id
  const toolName = call.name
  if (typeof callId !== "string" || callId.length === 0) {
    return Either.left(new ToolError.MalformedCall({ reason: "the call has no id" }))
  }
  if (typeof toolName !== "string" || toolName.length === 0) {
    return Either.left(new ToolError.MalformedCall({ reason: "the call names no tool" }))
  }
  let input: unknown = call.input
  if (typeof input === "string") {
    if (input.length > maxInputChars) {
      return Either.left(new ToolError.InputTooLarge({ toolName, limit: maxInputChars }))
    }
    if (input.trim() === "") input = undefined
    else {
      try {
        input = JSON.parse(input)
      } catch (error) {
        return Either.left(
          new ToolError.MalformedArguments({ toolName, reason: describeJsonError(input as string, error) })
        )
      }
      // JSON.parse itself copes with any depth; the walk runs only when the
      // text could hold a problem: long enough to nest too deep (a container
      // at depth 64 takes 65 openers and 65 closers), or spelling `__proto__`
      // (perhaps with escapes). The length is already checked.
      const text = call.input as string
      const refusal = text.length >= 2 * (maxInputDepth + 1) || text.includes("__proto__") || text.includes("\\u")
        ? inspect(input, Infinity)
        : undefined
      if (refusal !== undefined) return Either.left(refused(toolName, refusal, maxInputChars))
    }
  } else {
    const refusal = inspect(input, maxInputChars)
    if (refusal !== undefined) return Either.left(refused(toolName, refusal, maxInputChars))
  }
  if (input === undefined || input === null) return Either.right({ callId, toolName, input: {} })
  if (!Predicate.isRecord(input)) {
    return Either.left(new ToolError.InvalidInput({ toolName, received: kindOf(input) }))
  }
  return Either.right({ callId, toolName, input })
}

// ---------------------------------------------------------------------------
// lookup
// ---------------------------------------------------------------------------

/**
 * Stage 2.
 *
 * @since 0.1.0
 * @category stages
 */
export const lookup = (registry: Registry.Service, toolName: string): Effect.Effect<
  Registry.Entry,
  ToolError.UnknownTool
> => registry.lookup(toolName)

// ---------------------------------------------------------------------------
// validate
// ---------------------------------------------------------------------------

// Keys come from the model's arguments: each is made printable and bounded.
const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((key, i) =>
    typeof key === "number"
      ? `[${key}]`
      : i === 0
      ? ForeignText.printable(String(key), 60)
      : `.${ForeignText.printable(String(key), 60)}`
  ).join("")

const formatActual = (actual: unknown): string => {
  if (actual === undefined) return "nothing"
  // Only the start is shown: a long string is cut before it is quoted.
  const json = typeof actual === "string" ? JSON.stringify(actual.slice(0, 61)) : StableJson.stringify(actual)
  return ForeignText.printable(json, 61)
}

/**
 * An issue that says the value is not of a member's kind at all (a string
 * where an array was expected), as opposed to one of the member's kind that
 * is wrong inside (an array with a wrong item).
 */
const isMismatch = (issue: ParseResult.ParseIssue): boolean =>
  issue._tag === "Type" ||
  (issue._tag === "Refinement" && issue.kind === "From" && isMismatch(issue.issue)) ||
  (issue._tag === "Transformation" && issue.kind === "Encoded" && isMismatch(issue.issue))

/** What JSON Schema constraints say, in words ("an integer at least 0", "a string at most 80 characters long"). */
const describeConstraints = (schema: Record<string, unknown>): string | undefined => {
  const bounds: Array<string> = []
  const bound = (key: string, words: string, suffix = "") => {
    if (typeof schema[key] === "number") bounds.push(`${words} ${schema[key]}${suffix}`)
  }
  bound("minimum", "at least")
  bound("exclusiveMinimum", "greater than")
  bound("maximum", "at most")
  bound("exclusiveMaximum", "less than")
  bound("minLength", "at least", " characters long")
  bound("maxLength", "at most", " characters long")
  bound("minItems", "with at least", " items")
  bound("maxItems", "with at most", " items")
  if (typeof schema.pattern === "string") bounds.push(`matching /${schema.pattern}/`)
  const noun = schema.type === "integer"
    ? "an integer"
    : "minLength" in schema || "maxLength" in schema || "pattern" in schema
    ? "a string"
    : "minItems" in schema || "maxItems" in schema
    ? "an array"
    : bounds.length > 0
    ? "a number"
    : undefined
  return noun === undefined ? undefined : [noun, ...bounds].join(" ")
}

/**
 * The type a schema expects, in the terms of the JSON Schema the model was
 * shown. Descriptions are left out on purpose: they are written for the model
 * as documentation ("The ticket id."), not as type names.
 */
const expected = (ast: AST.AST): string => {
  const named = Option.getOrUndefined(
    Option.orElse(AST.getTitleAnnotation(ast), () => AST.getIdentifierAnnotation(ast))
  )
  switch (ast._tag) {
    case "Literal":
      return ast.literal === null ? "null" : JSON.stringify(ast.literal)
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "BigIntKeyword":
    case "UndefinedKeyword":
    case "SymbolKeyword":
    case "ObjectKeyword":
      return named ?? ast._tag.replace("Keyword", "").toLowerCase()
    case "Enums":
      return ast.enums.map(([, value]) => JSON.stringify(value)).join(" | ")
    case "TupleType":
      return named ?? "an array"
    case "TypeLiteral":
      return named ?? "an object"
    case "Union":
      return ast.types.filter((member) => member._tag !== "UndefinedKeyword").map(expected).join(" | ")
    case "Refinement": {
      const constraints = Option.getOrUndefined(AST.getJSONSchemaAnnotation(ast))
      const words = constraints === undefined ? undefined : describeConstraints(constraints as Record<string, unknown>)
      return words ?? named ?? expected(ast.from)
    }
    case "Transformation":
      return named ?? expected(ast.from)
    case "Suspend":
      return named ?? "a value of the declared type"
    default:
      return named ?? String(ast)
  }
}

/**
 * Schema issues as path + message pairs a model can act on: one line per
 * problem, a union (an enum, an optional field) stated once with all its
 * choices, and the field's expected type rather than its description.
 *
 * @since 0.1.0
 * @category validate
 */
export const formatIssues = (error: ParseResult.ParseError): ReadonlyArray<ToolError.Issue> => {
  const out: Array<ToolError.Issue> = []
  const seen = new Set<string>()
  const push = (path: ReadonlyArray<PropertyKey>, raw: string) => {
    const at = formatPath(path)
    // A schema's own message may quote the value it rejected.
    const message = ForeignText.printable(raw, 300)
    const key = `${at}\u0000${message}`
    if (seen.has(key) || out.length >= 20) return
    seen.add(key)
    out.push({ path: at, message })
  }
  const visit = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>): void => {
    switch (issue._tag) {
      case "Pointer":
        return visit(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])])
      case "Missing":
        return push(path, "is required but missing")
      case "Unexpected":
        return push(path, "is not a parameter of this tool; remove it")
      case "Composite":
        if (issue.ast._tag === "Union") {
          // One member of the right kind that is wrong inside (an optional
          // array with a wrong item): its own issues say what to fix.
          const inside = (Array.isArray(issue.issues) ? issue.issues : [issue.issues]).filter((inner) =>
            !isMismatch(inner)
          )
          if (inside.length === 1) return visit(inside[0]!, path)
          return push(path, `Expected ${expected(issue.ast)}, actual ${formatActual(issue.actual)}`)
        }
        for (const inner of Array.isArray(issue.issues) ? issue.issues : [issue.issues]) visit(inner, path)
        return
      case "Refinement":
        if (issue.kind === "From") return visit(issue.issue, path)
        // A filter's own message ("a and b must be equal") says it best.
        return push(
          path,
          issue.issue._tag === "Type" && issue.issue.message !== undefined
            ? issue.issue.message
            : `Expected ${expected(issue.ast)}, actual ${formatActual(issue.actual)}`
        )
      case "Transformation":
        return visit(issue.issue, path)
      case "Type":
        // `never` only appears as the value of keys a tool does not take.
        if (issue.ast._tag === "NeverKeyword") return push(path, "is not a parameter of this tool; remove it")
        return push(path, issue.message ?? `Expected ${expected(issue.ast)}, actual ${formatActual(issue.actual)}`)
      case "Forbidden":
        return push(path, "cannot be checked here")
    }
  }
  visit(error.issue, [])
  return out
}

/**
 * @since 0.1.0
 * @category models
 */
export type ValidateError = ToolError.InvalidArguments | ToolError.RuleViolation

/**
 * Stage 3: the parameter schema, then the tool's business rules.
 *
 * @since 0.1.0
 * @category stages
 */
export const validate = (entry: Registry.Entry, input: unknown): Effect.Effect<unknown, ValidateError> => {
  const tool = entry.tool
  const decoded = tool.decode(input)
  if (Either.isLeft(decoded)) {
    return Effect.fail(new ToolError.InvalidArguments({ toolName: tool.name, issues: formatIssues(decoded.left) }))
  }
  if (tool.validate === undefined) return Effect.succeed(decoded.right)
  return tool.validate(decoded.right).pipe(
    Effect.mapError((violation) =>
      violation.toolName === undefined
        ? new ToolError.RuleViolation({ ...violation, toolName: tool.name })
        : violation
    ),
    Effect.as(decoded.right),
    // The rule check may use services: the ones captured with the registry.
    Effect.provide(entry.context)
  )
}

// ---------------------------------------------------------------------------
// authorize
// ---------------------------------------------------------------------------

/**
 * Stage 4.
 *
 * @since 0.1.0
 * @category stages
 */
export const authorize = (
  policy: Policy.Service,
  request: Policy.Request
): Effect.Effect<Policy.Verdict, ToolError.PermissionDenied | ToolError.HookFailed> => policy.authorize(request)

// ---------------------------------------------------------------------------
// execute
// ---------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category models
 */
export type ExecuteError =
  | ToolError.Timeout
  | ToolError.IdleTimeout
  | ToolError.ToolFailed
  | ToolError.ToolDefect
  | ToolError.RuleViolation

/**
 * What execution needs from the turn around it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExecuteEnv {
  readonly watchdog: Watchdog.Watchdog
  readonly redactor: Redactor.Service
  /** The turn's runtime: handlers run with its fiber refs (clock, logger, tracer). */
  readonly runtime: Runtime.Runtime<never>
  readonly onProgress:
    | ((callId: string, toolName: string, message: string | undefined) => Effect.Effect<void>)
    | undefined
  readonly interruptReason: () => string
}

// Failure and defect details are not redacted here: the error only ever
// leaves the runtime through `shape`, which redacts (and counts) everything.
// Whatever a handler or a library hands over may throw on every read (a
// getter, a Proxy trap): these descriptions read it only through guards.
// They are cleaned but not cut: a cut before redaction could split a secret
// so that no rule sees it. Shaping redacts first, then truncates the whole
// error text.

const isInstance = (u: unknown, constructor: abstract new(...args: never) => unknown): boolean => {
  try {
    return u instanceof constructor
  } catch {
    return false
  }
}

/** A thrown or rejected value, in words: `name: message` for errors, JSON for other values. */
const describeThrown = (u: unknown): string => {
  if (u === undefined || u === null) return `${u} (no error value)`
  if (typeof u === "string") return u === "" ? "an empty string" : u
  if (typeof u !== "object") return ForeignText.describe(u)
  const message = ForeignText.read(u, "message")
  if (typeof message === "string" && message !== "") {
    const name = ForeignText.read(u, "name")
    return typeof name === "string" && name !== "" && name !== "Error" ? `${name}: ${message}` : message
  }
  const json = StableJson.stringify(u)
  return json === "\"[unreadable]\"" ? "a value that cannot be read" : json
}

/** Effect's own wrapper of a thrown or rejected value says nothing of it: the value does. */
const describeUnknownException = (u: unknown): string | undefined => {
  if (ForeignText.read(u, "_tag") !== "UnknownException") return undefined
  const message = ForeignText.read(u, "message")
  const cause = describeThrown(ForeignText.read(u, "error"))
  return message === "An unknown error occurred in Effect.tryPromise"
    ? `a promise it awaited was rejected: ${cause}`
    : message === "An unknown error occurred in Effect.try"
    ? `a function it called threw: ${cause}`
    : `${typeof message === "string" ? message : "it failed"}: ${cause}`
}

const describeDefect = (defect: unknown): string => {
  if (defect === undefined || defect === null) return `it died with ${defect} (no error value)`
  const unknown = describeUnknownException(defect)
  return ForeignText.clean(unknown ?? describeThrown(defect))
}

const describeFailure = (
  failure: unknown
): { readonly detail: string; readonly retryable: boolean; readonly outcomeUnknown: boolean } => {
  if (typeof failure === "string") {
    return { detail: ForeignText.clean(failure), retryable: false, outcomeUnknown: false }
  }
  if (failure === undefined || failure === null) {
    return { detail: `it failed with ${failure} (no error value)`, retryable: false, outcomeUnknown: false }
  }
  // A failure may say it is retryable, or that the tool stopped part-way.
  const retryable = ForeignText.read(failure, "retryable") === true
  const outcomeUnknown = ForeignText.read(failure, "outcomeUnknown") === true
  const unknown = describeUnknownException(failure)
  if (unknown !== undefined) return { detail: ForeignText.clean(unknown), retryable, outcomeUnknown }
  const message = ForeignText.read(failure, "message")
  if (typeof message === "string" && message !== "") {
    return { detail: ForeignText.clean(message), retryable, outcomeUnknown }
  }
  const json = StableJson.stringify(failure)
  return {
    detail: json === "\"[unreadable]\"" ? "it failed with a value that cannot be read" : ForeignText.clean(json),
    retryable,
    outcomeUnknown
  }
}

/**
 * Stage 5: runs the handler in its own fiber under the tool's total and
 * idle limits. Both limits stop the handler by interrupting its fiber, so
 * its finalizers run; the turn being interrupted does the same, and
 * `onInterrupted` then records the result. A handler that is not read-only
 * and did not finish reports its outcome as unknown.
 *
 * The handler starts on the current thread, so one that completes
 * synchronously costs no scheduling and no deadline bookkeeping.
 *
 * @since 0.1.0
 * @category stages
 */
export const execute = (
  entry: Registry.Entry,
  callId: string,
  input: unknown,
  env: ExecuteEnv,
  span: Tracer.AnySpan | undefined,
  onInterrupted: (error: ToolError.Interrupted | ToolError.Timeout) => Effect.Effect<void>
): Effect.Effect<unknown, ExecuteError> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      const tool = entry.tool
      const watchdog = env.watchdog
      const timeoutMillis = tool.timeoutFor(input)
      const watch = watchdog.watch(timeoutMillis, tool.idleTimeoutMillis)
      const touch = Effect.sync(() => watchdog.touch(watch))
      const onProgress = env.onProgress
      const context: Tool.Context = {
        callId,
        toolName: tool.name,
        progress: onProgress === undefined
          ? () => touch
          : (message) =>
            Effect.zipRight(
              touch,
              // A progress line goes to a UI, often a terminal: redacted, then cleaned and bounded.
              onProgress(
                callId,
                tool.name,
                typeof message === "string"
                  ? ForeignText.printable(env.redactor.redact(message).text, ForeignText.defaultMax)
                  : undefined
              )
            ),
        output: () => touch
      }
      const outcomeUnknown = !tool.readOnly
      const fromOutcome = (outcome: Watchdog.Outcome): Effect.Effect<unknown, ExecuteError> => {
        if (Watchdog.isExit(outcome) && Exit.isSuccess(outcome)) return Effect.succeed(outcome.value)
        if (watch.stopped === "timeout" || watch.stopped === "idle" || !Watchdog.isExit(outcome)) {
          const cleanupAbandoned = !Watchdog.isExit(outcome)
          return Effect.fail(
            watch.stopped === "idle"
              ? new ToolError.IdleTimeout({
                toolName: tool.name,
                idleMillis: tool.idleTimeoutMillis ?? 0,
                outcomeUnknown,
                cleanupAbandoned
              })
              : new ToolError.Timeout({
                toolName: tool.name,
                timeoutMillis,
                outcomeUnknown,
                cleanupAbandoned
              })
          )
        }
        const failure = Cause.failureOption(outcome.cause)
        // A rule that can only be checked while the tool runs (under its lock,
        // against the file as it is now) is still a rule the model can act on.
        if (failure._tag === "Some" && isInstance(failure.value, ToolError.RuleViolation)) {
          const violation = failure.value as ToolError.RuleViolation
          return Effect.fail(
            violation.toolName === undefined
              ? new ToolError.RuleViolation({ ...violation, toolName: tool.name })
              : violation
          )
        }
        // A tool that enforces its own time limit (a command stopped by its
        // runner) reports a timeout, not a failure of its own.
        if (failure._tag === "Some" && isInstance(failure.value, ToolError.Timeout)) {
          const timedOut = failure.value as ToolError.Timeout
          return Effect.fail(
            new ToolError.Timeout({
              toolName: tool.name,
              timeoutMillis: timedOut.timeoutMillis,
              outcomeUnknown: timedOut.outcomeUnknown || outcomeUnknown,
              cleanupAbandoned: timedOut.cleanupAbandoned,
              detail: timedOut.detail
            })
          )
        }
        if (failure._tag === "Some") {
          const { detail, outcomeUnknown, retryable } = describeFailure(failure.value)
          return Effect.fail(
            new ToolError.ToolFailed({ toolName: tool.name, detail, retryable, outcomeUnknown })
          )
        }
        const defect = Cause.dieOption(outcome.cause)
        return Effect.fail(
          new ToolError.ToolDefect({
            toolName: tool.name,
            detail: defect._tag === "Some"
              ? describeDefect(defect.value)
              : "the handler interrupted itself",
            outcomeUnknown: outcomeUnknown && defect._tag === "None"
          })
        )
      }
      // The handler gets the services captured with the registry, and the
      // execute span as its parent so its own spans nest under the call.
      const services = span === undefined ? entry.context : Context.add(entry.context, Tracer.ParentSpan, span)
      const fiber = Runtime.runFork(
        Runtime.make({ context: services, fiberRefs: env.runtime.fiberRefs, runtimeFlags: env.runtime.runtimeFlags })
      )(Effect.suspend(() => tool.handler(input, context)))
      const done = fiber.unsafePoll()
      if (done !== null) return fromOutcome(done)
      return restore(watchdog.run(watch, fiber)).pipe(
        Effect.onInterrupt(() =>
          Effect.flatMap(watchdog.stop(watch, fiber), (outcome) =>
            onInterrupted(
              watch.stopped === "interrupt" || watch.stopped === undefined
                ? new ToolError.Interrupted({
                  toolName: tool.name,
                  reason: Watchdog.isExit(outcome)
                    ? env.interruptReason()
                    : `${env.interruptReason()}; its cleanup did not finish in time and was abandoned`,
                  outcomeUnknown
                })
                : new ToolError.Timeout({
                  toolName: tool.name,
                  timeoutMillis,
                  outcomeUnknown,
                  cleanupAbandoned: !Watchdog.isExit(outcome)
                })
            ))
        ),
        Effect.flatMap(fromOutcome)
      )
    })
  )

// ---------------------------------------------------------------------------
// shape
// ---------------------------------------------------------------------------

/**
 * What shaping needs.
 *
 * @since 0.1.0
 * @category models
 */
export interface ShapeEnv {
  readonly redactor: Redactor.Service
  readonly store: ArtifactStore.Service
  /** Characters of a truncated success shown as a preview. */
  readonly previewChars: number
  /** Characters of a truncated failure kept (head and tail together). */
  readonly failureKeepChars: number
  /** Limit for results of calls that have no tool (unknown tool, malformed call). */
  readonly defaultLimit: number
  /** The name of the paging tool, when it is registered. */
  readonly readToolName: string | undefined
}

/**
 * What a call came to before shaping.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome =
  | {
    readonly _tag: "Success"
    readonly value: unknown
    readonly note: string | undefined
    /** How the call ran confined (the tool's `sandbox`), for the result's metadata. */
    readonly sandbox?: string | undefined
  }
  | { readonly _tag: "Failure"; readonly error: ToolError.ToolError; readonly sandbox?: string | undefined }

const errorText = (error: ToolError.ToolError) => `${error.message}\n${error.hint}`

/** Images above this size go to the artifact store: providers reject larger ones. */
const maxImageBytes = 5 * 1024 * 1024

const imageTypes: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
  ["image/png", [0x89, 0x50, 0x4e, 0x47]],
  ["image/jpeg", [0xff, 0xd8, 0xff]],
  ["image/gif", [0x47, 0x49, 0x46, 0x38]],
  ["image/webp", [0x52, 0x49, 0x46, 0x46]]
]

const sniffImage = (bytes: Uint8Array): string | undefined =>
  imageTypes.find(([, magic]) => magic.every((b, i) => bytes[i] === b))?.[0]

/** What a handler's value comes to before redaction: text, and images kept aside. */
interface Serialized {
  readonly text: string
  readonly images: ReadonlyArray<ToolResult.ContentBlock>
  /** Bytes too large or too binary to show: stored whole, summarized in `text`. */
  readonly stash: string | undefined
}

const plain = (text: string): Serialized => ({ text, images: [], stash: undefined })

const formatBytes = (n: number) =>
  n < 1024 ? `${n} bytes` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`

/**
 * What a handler that returns nothing (`Effect.void`, `undefined`) shows the
 * model: a success, like a command that prints nothing, said in words
 * because providers reject empty text blocks.
 *
 * @since 0.2.0
 * @category shape
 */
export const noOutput = "(no output)"

const outputDefect = (tool: Tool.Any | undefined, detail: string) =>
  new ToolError.ToolDefect({ toolName: tool?.name ?? "the tool", detail, outcomeUnknown: tool?.readOnly === false })

// Values a handler hands back may throw on every read: anything that does
// becomes a defect of that call, never of the turn.
const serialize = (tool: Tool.Any | undefined, value: unknown): Either.Either<Serialized, ToolError.ToolDefect> => {
  if (typeof value === "string") return Either.right(plain(value))
  try {
    return serializeValue(tool, value)
  } catch {
    return Either.left(outputDefect(tool, "it returned a value that cannot be read (reading it threw)"))
  }
}

const serializeValue = (
  tool: Tool.Any | undefined,
  value: unknown
): Either.Either<Serialized, ToolError.ToolDefect> => {
  if (typeof value === "function" || typeof value === "symbol") {
    return Either.left(
      outputDefect(tool, `it returned ${ForeignText.describe(value)}, which cannot be shown to the model`)
    )
  }
  if (value instanceof Uint8Array) {
    const mediaType = sniffImage(value)
    if (mediaType !== undefined && value.byteLength <= maxImageBytes) {
      return Either.right({ text: "", images: [ToolResult.image(value, mediaType)], stash: undefined })
    }
    return Either.right({
      text: `[${mediaType ?? "binary"} output of ${formatBytes(value.byteLength)}, not shown]`,
      images: [],
      stash: Encoding.encodeBase64(value)
    })
  }
  if (ToolResult.isContent(value)) {
    const texts: Array<string> = []
    const images: Array<ToolResult.ContentBlock> = []
    let stash: string | undefined
    for (const block of value.blocks) {
      if (block._tag === "text") texts.push(block.text)
      else if (block.data.length * 0.75 <= maxImageBytes) images.push(block)
      else {
        texts.push(
          `[${block.mediaType} image of about ${formatBytes(Math.floor(block.data.length * 0.75))}, too large to show]`
        )
        stash = block.data
      }
    }
    return Either.right({ text: texts.join("\n"), images, stash })
  }
  const encoded = tool === undefined ? Either.right(value) : tool.encodeOutput(value)
  if (Either.isLeft(encoded)) {
    return Either.left(outputDefect(tool, "it returned output that does not match its declared output schema"))
  }
  if (encoded.right === undefined) return Either.right(plain(noOutput))
  const json = StableJson.encode(encoded.right)
  return json.tooDeep
    ? Either.left(
      outputDefect(
        tool,
        `it returned a value nested deeper than ${StableJson.defaultMaxDepth} levels, which cannot be shown to the model`
      )
    )
    : Either.right(plain(json.text))
}

const number = (n: number) => n.toLocaleString("en-US")

/** One character per byte, and back: redaction markers are ASCII, so a redacted text still fits. */
const bytesAsText = (bytes: Uint8Array): string => {
  const parts: Array<string> = []
  for (let i = 0; i < bytes.length; i += 0x8000) parts.push(String.fromCharCode(...bytes.subarray(i, i + 0x8000)))
  return parts.join("")
}

/** The inverse of {@link bytesAsText}. Markers are ASCII; a character past one byte (an odd rule id) becomes `?`. */
const textAsBytes = (text: string): Uint8Array =>
  Uint8Array.from(text, (character) => (character.charCodeAt(0) <= 0xff ? character.charCodeAt(0) : 0x3f))

/**
 * Redacts stored bytes (base64) as what they hold: a secret in a binary (a
 * token in a core dump, a database, an image's text chunk) is invisible to
 * the rules once encoded, yet as readable as plain text to a model that
 * decodes what `read_output` shows it. Bytes without a secret are stored
 * exactly as they were.
 */
const redactStash = (redactor: Redactor.Service, base64: string): { readonly text: string; readonly count: number } => {
  const decoded = Encoding.decodeBase64(base64)
  const inner = Either.isRight(decoded) ? redactor.redact(bytesAsText(decoded.right)) : undefined
  const encoded = inner === undefined || inner.count === 0 ? base64 : Encoding.encodeBase64(textAsBytes(inner.text))
  const outer = redactor.redact(encoded)
  return { text: outer.text, count: (inner?.count ?? 0) + outer.count }
}

const nonce = Effect.map(
  Effect.all([Random.nextIntBetween(0, 0x7fffffff), Random.nextIntBetween(0, 0x7fffffff)]),
  ([a, b]) => `${a.toString(36)}${b.toString(36)}`.padStart(12, "0")
)

/**
 * Stage 6: serialize, redact, truncate, mark. A success over the tool's
 * limit is stored whole and the model gets a head preview; a failure keeps
 * its head and its tail, where the error usually is, and lifts the error
 * lines of the part it drops into the marker. Either way the marker says how
 * long the whole was and how to read the rest. Redaction runs first, so
 * nothing stored or shown holds a secret, even one the cut would have split.
 * Untrusted output is cleaned of hidden characters and wrapped last, so the
 * wrapper is never cut.
 *
 * @since 0.1.0
 * @category stages
 */
export const shape = (
  env: ShapeEnv,
  tool: Tool.Any | undefined,
  callId: string,
  toolName: string,
  outcome: Outcome,
  durationMillis: number
): Effect.Effect<ToolResult.ToolResult> => {
  let failure: ToolError.ToolError | undefined
  let serialized: Serialized
  if (outcome._tag === "Failure") {
    failure = outcome.error
    serialized = plain(errorText(failure))
  } else {
    const result = serialize(tool, outcome.value)
    if (Either.isLeft(result)) {
      failure = result.left
      serialized = plain(errorText(failure))
    } else {
      serialized = outcome.note === undefined
        ? result.right
        : { ...result.right, text: `${outcome.note}\n\n${result.right.text}` }
    }
  }
  const redaction = env.redactor.redact(serialized.text)
  let count = redaction.count
  let text = redaction.text
  // A failure's detail comes from the tool as much as its output does.
  const untrusted = tool?.untrusted === true && (failure === undefined || failure._tag === "ToolFailed")
  let removed = 0
  if (untrusted) {
    const clean = Untrusted.sanitize(text)
    text = clean.text
    removed = clean.removed
  }
  const limit = tool?.outputLimit ?? env.defaultLimit
  const unit = tool?.outputUnit ?? "chars"
  const error: ToolResult.ErrorInfo | undefined = failure === undefined ? undefined : {
    code: failure.code,
    retryable: failure.retryable,
    hint: failure.hint,
    outcomeUnknown: failure.outcomeUnknown
  }
  const build = (content: string, truncation?: ToolResult.Truncation, artifact?: string) => {
    const blocks: Array<ToolResult.ContentBlock> = content === "" && serialized.images.length > 0
      ? []
      : [{ _tag: "text", text: content }]
    for (const image of serialized.images) blocks.push(image)
    return ToolResult.make({
      callId,
      toolName,
      content: blocks,
      isError: failure !== undefined,
      ...(error === undefined ? {} : { error }),
      meta: {
        durationMillis,
        redactions: count,
        ...(truncation === undefined ? {} : { truncation }),
        ...(artifact === undefined ? {} : { artifact }),
        ...(untrusted ? { untrusted: true } : {}),
        ...(outcome.sandbox === undefined ? {} : { sandbox: outcome.sandbox })
      }
    })
  }
  const mark = (result: ToolResult.ToolResult): Effect.Effect<ToolResult.ToolResult> =>
    !untrusted ? Effect.succeed(result) : Effect.map(nonce, (boundary) => ({
      ...result,
      content: result.content.map((block) =>
        block._tag === "text"
          ? {
            _tag: "text" as const,
            text: Untrusted.wrap(block.text, { source: toolName, nonce: boundary, mode: tool!.untrustedMode, removed })
          }
          : block
      )
    }))

  const over = Truncation.measure(text, unit) > limit
  if (!over && serialized.stash === undefined) return mark(build(text))

  // What is stored is redacted too: the store is read back into the context.
  let stored = text
  if (serialized.stash !== undefined) {
    const stash = redactStash(env.redactor, serialized.stash)
    count += stash.count
    stored = over ? `${text}\n\n${stash.text}` : stash.text
  }
  // A store may build its ids from the call id (the file store does): it gets the id redacted.
  return env.store.put({ callId: env.redactor.redact(callId).text, toolName }, stored).pipe(
    Effect.either,
    Effect.flatMap((put) => {
      const where = (offset: number) =>
        Either.isRight(put)
          ? env.readToolName === undefined
            ? `The full output is stored as "${put.right.location}".`
            : `The full output is stored; read more with ${env.readToolName} {"id": "${put.right.id}", "offset": ${offset}}.`
          : `The full output could not be stored (${put.left.reason}).`
      const artifact = Either.isRight(put) ? put.right.location : undefined
      if (!over) {
        return mark(build(`${text}\n[${where(0)}]`, undefined, artifact))
      }
      const limitChars = Truncation.charsWithin(text, limit, unit)
      if (failure === undefined) {
        const previewChars = Math.min(tool?.truncation.previewChars ?? env.previewChars, limitChars)
        const strategy = tool?.truncation.success ?? "head"
        if (strategy === "tail") {
          const end = Truncation.tail(text, previewChars)
          const marker = `[Output truncated: showing the last ${number(end.length)} of ${
            number(text.length)
          } characters. ${where(0)}]\n\n`
          return mark(build(
            marker + end,
            { strategy: "tail", originalLength: text.length, shownLength: end.length },
            artifact
          ))
        }
        if (strategy === "head-tail") {
          const cut = Truncation.headTail(text, previewChars, tool?.truncation.headShare ?? 0.3)
          const marker = `\n\n[… ${number(cut.omitted)} of ${number(text.length)} characters omitted here. ${
            where(cut.head.length)
          }]\n\n`
          return mark(build(
            cut.head + marker + cut.tail,
            { strategy: "head-tail", originalLength: text.length, shownLength: cut.head.length + cut.tail.length },
            artifact
          ))
        }
        const preview = Truncation.head(text, previewChars)
        const marker = `\n\n[Output truncated: showing the first ${number(preview.length)} of ${
          number(text.length)
        } characters. ${where(preview.length)}]`
        return mark(build(
          preview + marker,
          { strategy: "head", originalLength: text.length, shownLength: preview.length },
          artifact
        ))
      }
      const keep = Math.min(tool?.truncation.failureKeepChars ?? env.failureKeepChars, limitChars)
      const headShare = tool?.truncation.headShare ?? 0.3
      // The error lines of the dropped middle are lifted into the marker, so
      // the cut can never hide what failed; their room comes out of the kept text.
      const first = Truncation.headTail(text, keep, headShare)
      const lifted = Truncation.errorLines(
        text.slice(first.head.length, text.length - first.tail.length),
        20,
        Math.max(40, Math.floor(keep / 50))
      )
      const summary = lifted.length === 0
        ? ""
        : `\nLines in the omitted part that report errors:\n${lifted.map((l) => `  ${l}`).join("\n")}\n`
      const cut = summary === "" ? first : Truncation.headTail(text, Math.max(0, keep - summary.length), headShare)
      const marker = `\n\n[… ${number(cut.omitted)} of ${number(text.length)} characters omitted here. ${
        where(cut.head.length)
      }]${summary}\n\n`
      return mark(build(
        cut.head + marker + cut.tail,
        { strategy: "head-tail", originalLength: text.length, shownLength: cut.head.length + cut.tail.length },
        artifact
      ))
    })
  )
}

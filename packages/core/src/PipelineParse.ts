/**
 * The parse stage: from whatever a provider handed over to a call whose
 * envelope and arguments are usable. It is apart because it is the one stage
 * that meets raw, untyped input: every guard against a hostile value (a
 * getter that throws, nesting past the decoder's reach, a `__proto__` key)
 * lives here, before any Schema or service sees the call.
 *
 * @since 0.4.0
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as ForeignText from "./ForeignText.js"
import * as ToolError from "./ToolError.js"

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
  | ToolError.TruncatedArguments
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

// What the model is told of arguments whose JSON stops early: most often the output limit cut them.
const endsEarly = "the JSON ends before it is complete (a closing brace, bracket or quote is missing)"

/**
 * Describes a JSON syntax error without quoting the input (it may hold
 * secrets): where it is, and the common cause.
 *
 * @since 0.1.0
 * @category parse
 */
export const describeJsonError = (text: string, error: unknown): string => {
  const message = error instanceof Error ? error.message : ""
  if (/unexpected end/i.test(message) || /unterminated string/i.test(message)) return endsEarly
  // V8 quotes the input in some messages: only a position it states at the end is its own.
  const position = /at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(message)
  // A position at the very end means the text stopped where more was expected.
  if (position !== null && Number(position[1]) >= text.trimEnd().length) return endsEarly
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
  // The provider said the response stopped inside this call: whatever its arguments hold, they are not all of it.
  const truncated = call.truncated
  if (typeof truncated === "string" && truncated !== "") {
    return Either.left(
      new ToolError.TruncatedArguments({
        toolName,
        reason: `the response stopped at the model's output limit (${ForeignText.printable(truncated)})`
      })
    )
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
        const reason = describeJsonError(input as string, error)
        return Either.left(
          reason === endsEarly
            ? new ToolError.TruncatedArguments({ toolName, reason: "its JSON ends mid-value" })
            : new ToolError.MalformedArguments({ toolName, reason })
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

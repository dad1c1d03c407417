/**
 * The typed failures of the pipeline. Every stage fails only with members of
 * {@link ToolError}; the runtime turns each of them into a `ToolResult` with
 * `isError: true`, so nothing a model does can end the agent loop.
 *
 * Every error carries a stable machine `code`, a `retryable` flag and a `hint`
 * the model can act on. Messages never echo raw arguments: they may hold
 * secrets. Where a message must mention user data (a schema issue), it goes
 * through redaction when the result is shaped.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as ForeignText from "./ForeignText.js"

/**
 * The stable codes a harness can branch on.
 *
 * @since 0.1.0
 * @category models
 */
export type Code =
  | "malformed_call"
  | "malformed_arguments"
  | "truncated_arguments"
  | "invalid_input"
  | "input_too_large"
  | "unknown_tool"
  | "tool_unavailable"
  | "invalid_arguments"
  | "rule_violation"
  | "permission_denied"
  | "hook_failed"
  | "timeout"
  | "idle_timeout"
  | "interrupted"
  | "tool_failed"
  | "tool_defect"
  | "not_executed"
  | "rate_limited"
  | "duplicate_call_id"

/**
 * What every model-facing error offers besides its message.
 *
 * @since 0.1.0
 * @category models
 */
export interface Describe {
  readonly code: Code
  readonly retryable: boolean
  readonly hint: string
  /** True when a write may or may not have happened. */
  readonly outcomeUnknown: boolean
  /**
   * For a call that was stopped (a time limit, an interruption): `proven`
   * when its handler was seen to end (its fiber exited, and a tool that runs
   * processes ends only once their group is gone), `abandoned` when it did
   * not end within the cleanup bound and may still be running.
   *
   * @since 0.4.0
   */
  readonly stopped?: Stopped | undefined
}

/**
 * Whether a stopped call's handler was seen to end.
 *
 * @since 0.4.0
 * @category models
 */
export type Stopped = "proven" | "abandoned"

/** How a stopped call ended, in words the model reads. */
const ending = (abandoned: boolean): string =>
  abandoned
    ? "it did not stop within the cleanup bound and was abandoned: it may still be running"
    : "it has stopped: nothing of it still runs"

/**
 * The call object itself is unusable: no id, no tool name.
 *
 * @since 0.1.0
 * @category errors
 */
export class MalformedCall extends Schema.TaggedError<MalformedCall>()("MalformedCall", {
  reason: Schema.String
}) implements Describe {
  readonly code = "malformed_call" as const
  readonly retryable = true
  readonly outcomeUnknown = false
  get hint() {
    return "Each tool call needs a non-empty id and the name of a tool."
  }
  override get message() {
    return `The tool call is malformed: ${this.reason}.`
  }
}

/**
 * The arguments string is not JSON.
 *
 * @since 0.1.0
 * @category errors
 */
export class MalformedArguments extends Schema.TaggedError<MalformedArguments>()("MalformedArguments", {
  toolName: Schema.String,
  reason: Schema.String
}) implements Describe {
  readonly code = "malformed_arguments" as const
  readonly retryable = true
  readonly outcomeUnknown = false
  get hint() {
    return `Send the arguments of ${
      printableName(this.toolName)
    } as one complete JSON object, for example {"key": "value"}.`
  }
  override get message() {
    return `The arguments for ${printableName(this.toolName)} are not valid JSON: ${this.reason}.`
  }
}

/**
 * The call was cut off before its end: the provider stopped the response at
 * the model's output limit in the middle of it (`max_tokens`, `length`), or
 * its arguments' JSON ends mid-value. Such a call is never run, not even
 * "repaired": what a cut-off write would do is not what the model meant.
 *
 * @since 0.4.0
 * @category errors
 */
export class TruncatedArguments extends Schema.TaggedError<TruncatedArguments>()("TruncatedArguments", {
  toolName: Schema.String,
  reason: Schema.String
}) implements Describe {
  readonly code = "truncated_arguments" as const
  readonly retryable = true
  readonly outcomeUnknown = false
  get hint() {
    return "Send this call again, complete and smaller: split a large value across several calls (for a file, write the first part, then append the rest)."
  }
  override get message() {
    return `The call to ${printableName(this.toolName)} was cut off before its end (${this.reason}), so it was not run.`
  }
}

/**
 * The arguments parsed, but are not a JSON object, or are one the runtime
 * will not decode (nested too deep, a `__proto__` key, unreadable): then
 * `reason` says why.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  toolName: Schema.String,
  received: Schema.String,
  reason: Schema.optional(Schema.String)
}) implements Describe {
  readonly code = "invalid_input" as const
  readonly retryable = true
  readonly outcomeUnknown = false
  get hint() {
    return this.reason === undefined
      ? `Wrap the arguments of ${printableName(this.toolName)} in a JSON object whose keys are the parameter names.`
      : `Send the arguments of ${
        printableName(this.toolName)
      } as a plain JSON object that matches the parameter schema you were given.`
  }
  override get message() {
    return this.reason === undefined
      ? `The arguments for ${printableName(this.toolName)} must be a JSON object, but got ${this.received}.`
      : `The arguments for ${printableName(this.toolName)} cannot be used: ${this.reason}.`
  }
}

/**
 * The arguments are larger than the runtime accepts.
 *
 * @since 0.1.0
 * @category errors
 */
export class InputTooLarge extends Schema.TaggedError<InputTooLarge>()("InputTooLarge", {
  toolName: Schema.String,
  limit: Schema.Number
}) implements Describe {
  readonly code = "input_too_large" as const
  readonly retryable = true
  readonly outcomeUnknown = false
  get hint() {
    return "Send smaller arguments: split the work into several calls (for example write a large file in parts)."
  }
  override get message() {
    return `The arguments for ${printableName(this.toolName)} exceed the limit of ${this.limit} characters.`
  }
}

/**
 * No tool of that name is registered.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownTool extends Schema.TaggedError<UnknownTool>()("UnknownTool", {
  toolName: Schema.String,
  suggestions: Schema.Array(Schema.String)
}) implements Describe {
  readonly code = "unknown_tool" as const
  readonly retryable = true
  readonly outcomeUnknown = false
  get hint() {
    return this.suggestions.length > 0
      ? `Did you mean ${this.suggestions.map((s) => `"${s}"`).join(" or ")}? Call one of the tools you were given.`
      : "Call one of the tools you were given, spelled exactly as listed."
  }
  override get message() {
    return `There is no tool named "${printableName(this.toolName)}".`
  }
}

/**
 * The tool belongs to a source the runtime could not reach: an MCP server
 * that did not start. Not `unknown_tool`: the name may be right, and the
 * model (or the person reading the transcript) learns which source failed
 * and why, instead of being told to check its spelling.
 *
 * @since 0.4.0
 * @category errors
 */
export class ToolUnavailable extends Schema.TaggedError<ToolUnavailable>()("ToolUnavailable", {
  toolName: Schema.String,
  source: Schema.String,
  reason: Schema.String
}) implements Describe {
  readonly code = "tool_unavailable" as const
  readonly retryable = false
  readonly outcomeUnknown = false
  get hint() {
    return `The tools of ${
      printableName(this.source)
    } cannot be used in this session: carry on without them, or tell the user what failed.`
  }
  override get message() {
    return `${printableName(this.toolName)} is unavailable: ${this.reason}`
  }
}

/**
 * One problem found by the parameter schema, at a path into the arguments.
 *
 * @since 0.1.0
 * @category models
 */
export const Issue = Schema.Struct({
  path: Schema.String,
  message: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type Issue = typeof Issue.Type

/**
 * The arguments do not match the tool's parameter schema.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidArguments extends Schema.TaggedError<InvalidArguments>()("InvalidArguments", {
  toolName: Schema.String,
  issues: Schema.Array(Issue)
}) implements Describe {
  readonly code = "invalid_arguments" as const
  readonly retryable = true
  readonly outcomeUnknown = false
  get hint() {
    return `Fix the arguments listed above and call ${this.toolName} again; the parameter schema you were given is authoritative.`
  }
  override get message() {
    const lines = this.issues.map((issue) => `- ${issue.path === "" ? "arguments" : issue.path}: ${issue.message}`)
    return `Invalid arguments for ${this.toolName}:\n${lines.join("\n")}`
  }
}

/**
 * A business rule of the tool rejected arguments that matched the schema
 * ("the path must be inside the workspace"). Tools fail their `validate`
 * check with this error; `toolName` is filled in by the runtime.
 *
 * @since 0.1.0
 * @category errors
 */
export class RuleViolation extends Schema.TaggedError<RuleViolation>()("RuleViolation", {
  reason: Schema.String,
  fix: Schema.optional(Schema.String),
  toolName: Schema.optional(Schema.String)
}) implements Describe {
  readonly code = "rule_violation" as const
  readonly retryable = true
  readonly outcomeUnknown = false
  get hint() {
    return this.fix ?? "Change the arguments so that they satisfy the rule, then call the tool again."
  }
  override get message() {
    return this.toolName === undefined ? this.reason : `${this.toolName} refused the call: ${this.reason}`
  }
}

/**
 * The permission stage refused the call.
 *
 * @since 0.1.0
 * @category errors
 */
export class PermissionDenied extends Schema.TaggedError<PermissionDenied>()("PermissionDenied", {
  toolName: Schema.String,
  reason: Schema.String,
  decidedBy: Schema.String,
  /** The person who denied also stopped the turn: the calls after this one do not run. */
  stopTurn: Schema.optional(Schema.Boolean)
}) implements Describe {
  readonly code = "permission_denied" as const
  readonly retryable = false
  readonly outcomeUnknown = false
  get hint() {
    return "Do not retry this call as it is; use another approach or ask the user for permission."
  }
  override get message() {
    return `Permission to run ${this.toolName} was denied: ${this.reason}`
  }
}

/**
 * A hook around the call failed or ran past its time limit.
 *
 * @since 0.1.0
 * @category errors
 */
export class HookFailed extends Schema.TaggedError<HookFailed>()("HookFailed", {
  toolName: Schema.String,
  hook: Schema.String,
  reason: Schema.String,
  /** An after-call hook failed once the tool had run: its effects stand. */
  outcomeUnknown: Schema.Boolean
}) implements Describe {
  readonly code = "hook_failed" as const
  readonly retryable = false
  get hint() {
    return this.outcomeUnknown
      ? `${this.toolName} ran, but its result could not be checked: verify what it did before calling it again.`
      : "The call was not run. This is a problem of the environment, not of your call: tell the user."
  }
  override get message() {
    return `The ${this.hook} hook of ${this.toolName} failed: ${this.reason}.`
  }
}

const unknownOutcome = (toolName: string) =>
  `${toolName} is not read-only and may have taken effect before it stopped: check whether it did before calling it again.`

/**
 * The call ran past its total time limit and was interrupted.
 *
 * @since 0.1.0
 * @category errors
 */
export class Timeout extends Schema.TaggedError<Timeout>()("Timeout", {
  toolName: Schema.String,
  timeoutMillis: Schema.Number,
  outcomeUnknown: Schema.Boolean,
  cleanupAbandoned: Schema.Boolean,
  /** From a tool that enforces its own limit (a command stopped by its runner): what it did until then. */
  detail: Schema.optional(Schema.String)
}) implements Describe {
  readonly code = "timeout" as const
  get retryable() {
    return !this.outcomeUnknown
  }
  get hint() {
    return this.outcomeUnknown
      ? unknownOutcome(this.toolName)
      : "Retry with a narrower request, or do the work in smaller steps."
  }
  get stopped(): Stopped {
    return this.cleanupAbandoned ? "abandoned" : "proven"
  }
  override get message() {
    return `${this.toolName} timed out after ${formatMillis(this.timeoutMillis)}; ${ending(this.cleanupAbandoned)}.${
      this.detail === undefined ? "" : `\n${this.detail}`
    }`
  }
}

/**
 * The call produced no output or progress for longer than its idle limit.
 *
 * @since 0.1.0
 * @category errors
 */
export class IdleTimeout extends Schema.TaggedError<IdleTimeout>()("IdleTimeout", {
  toolName: Schema.String,
  idleMillis: Schema.Number,
  outcomeUnknown: Schema.Boolean,
  cleanupAbandoned: Schema.Boolean
}) implements Describe {
  readonly code = "idle_timeout" as const
  get retryable() {
    return !this.outcomeUnknown
  }
  get hint() {
    return this.outcomeUnknown
      ? unknownOutcome(this.toolName)
      : "The tool looked stuck; retry once, and if it stalls again try another approach."
  }
  get stopped(): Stopped {
    return this.cleanupAbandoned ? "abandoned" : "proven"
  }
  override get message() {
    return `${this.toolName} reported no output or progress for ${
      formatMillis(this.idleMillis)
    } and was stopped as stuck; ${ending(this.cleanupAbandoned)}.`
  }
}

/**
 * The call was running when the turn was interrupted.
 *
 * @since 0.1.0
 * @category errors
 */
export class Interrupted extends Schema.TaggedError<Interrupted>()("Interrupted", {
  toolName: Schema.String,
  reason: Schema.String,
  outcomeUnknown: Schema.Boolean,
  cleanupAbandoned: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) implements Describe {
  readonly code = "interrupted" as const
  readonly retryable = false
  get hint() {
    return this.outcomeUnknown
      ? unknownOutcome(this.toolName)
      : "The call was stopped before it finished; run it again only if it is still needed."
  }
  get stopped(): Stopped {
    return this.cleanupAbandoned ? "abandoned" : "proven"
  }
  override get message() {
    return `${this.toolName} was interrupted while running (${this.reason}); ${ending(this.cleanupAbandoned)}.`
  }
}

/**
 * The handler failed with a typed error of its own.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolFailed extends Schema.TaggedError<ToolFailed>()("ToolFailed", {
  toolName: Schema.String,
  detail: Schema.String,
  retryable: Schema.Boolean,
  /** The tool failed part-way (a server crashed mid-write): what it did is not known. */
  outcomeUnknown: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) implements Describe {
  readonly code = "tool_failed" as const
  get hint() {
    if (this.outcomeUnknown) return unknownOutcome(this.toolName)
    return this.retryable
      ? "The failure may be temporary: retrying can help."
      : "Read the error above and change the request before trying again."
  }
  override get message() {
    return `${this.toolName} failed: ${this.detail}`
  }
}

/**
 * The handler crashed (threw, or died). The detail is redacted before it is
 * shown.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolDefect extends Schema.TaggedError<ToolDefect>()("ToolDefect", {
  toolName: Schema.String,
  detail: Schema.String,
  outcomeUnknown: Schema.Boolean
}) implements Describe {
  readonly code = "tool_defect" as const
  readonly retryable = false
  get hint() {
    return this.outcomeUnknown
      ? unknownOutcome(this.toolName)
      : "This is a bug in the tool, not in your call: do not retry the same call; report it or use another approach."
  }
  override get message() {
    return `${this.toolName} crashed with an internal error: ${this.detail}`
  }
}

/**
 * The call never ran (an earlier failure, an interrupted turn).
 *
 * @since 0.1.0
 * @category errors
 */
export class NotExecuted extends Schema.TaggedError<NotExecuted>()("NotExecuted", {
  toolName: Schema.String,
  reason: Schema.String
}) implements Describe {
  readonly code = "not_executed" as const
  readonly retryable = true
  readonly outcomeUnknown = false
  get hint() {
    return "Nothing was done for this call; call it again if it is still needed."
  }
  override get message() {
    return `${printableName(this.toolName)} was not executed: ${this.reason}.`
  }
}

/**
 * The tool's rate (or its limit group's) had no room for the call within
 * what it may wait: it never ran. `retryAfterMillis` is when the next call
 * may start, counted from the answer.
 *
 * @since 0.4.0
 * @category errors
 */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  toolName: Schema.String,
  calls: Schema.Number,
  perMillis: Schema.Number,
  retryAfterMillis: Schema.Number
}) implements Describe {
  readonly code = "rate_limited" as const
  readonly retryable = true
  readonly outcomeUnknown = false
  get hint() {
    return `Nothing was done for this call; wait ${formatMillis(this.retryAfterMillis)} before calling it again.`
  }
  override get message() {
    return `${printableName(this.toolName)} was not executed: it starts at most ${this.calls} call${
      this.calls === 1 ? "" : "s"
    } per ${formatMillis(this.perMillis)}, and the next one may start in ${formatMillis(this.retryAfterMillis)}.`
  }
}

/**
 * Another call of the same turn already used this id.
 *
 * @since 0.1.0
 * @category errors
 */
export class DuplicateCallId extends Schema.TaggedError<DuplicateCallId>()("DuplicateCallId", {
  toolName: Schema.String,
  callId: Schema.String
}) implements Describe {
  readonly code = "duplicate_call_id" as const
  readonly retryable = true
  readonly outcomeUnknown = false
  get hint() {
    return "Give every tool call in a turn its own id."
  }
  override get message() {
    return `${printableName(this.toolName)} was not executed: an earlier call in this turn has the same id "${
      printableName(this.callId)
    }".`
  }
}

/**
 * Every failure the pipeline can turn into a result.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolError =
  | MalformedCall
  | MalformedArguments
  | TruncatedArguments
  | InvalidInput
  | InputTooLarge
  | UnknownTool
  | ToolUnavailable
  | InvalidArguments
  | RuleViolation
  | PermissionDenied
  | HookFailed
  | Timeout
  | IdleTimeout
  | Interrupted
  | ToolFailed
  | ToolDefect
  | NotExecuted
  | RateLimited
  | DuplicateCallId

const tags: ReadonlySet<string> = new Set<ToolError["_tag"]>([
  "MalformedCall",
  "MalformedArguments",
  "TruncatedArguments",
  "InvalidInput",
  "InputTooLarge",
  "UnknownTool",
  "ToolUnavailable",
  "InvalidArguments",
  "RuleViolation",
  "PermissionDenied",
  "HookFailed",
  "Timeout",
  "IdleTimeout",
  "Interrupted",
  "ToolFailed",
  "ToolDefect",
  "NotExecuted",
  "RateLimited",
  "DuplicateCallId"
])

/**
 * @since 0.1.0
 * @category guards
 */
export const isToolError = (u: unknown): u is ToolError =>
  Predicate.hasProperty(u, "_tag") && typeof u._tag === "string" && tags.has(u._tag)

/**
 * Tool names and call ids come from the model: keep only what fits in a
 * message line, without controls or invisible characters (see
 * `ForeignText.printable`).
 *
 * @since 0.1.0
 * @category formatting
 */
export const printableName = (name: string): string => ForeignText.printable(name, 80)

/**
 * @since 0.1.0
 * @category formatting
 */
export const formatMillis = (millis: number): string =>
  millis < 1000
    ? `${millis} ms`
    : millis < 60_000
    ? `${Number((millis / 1000).toFixed(1))} s`
    : `${Number((millis / 60_000).toFixed(1))} min`

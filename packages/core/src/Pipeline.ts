/**
 * The stages one call goes through: parse, look up, validate, authorize,
 * execute, shape. Each stage is an Effect whose error channel holds only its
 * own members of {@link ToolError.ToolError}; {@link shape} turns whatever
 * came out (a value or any of those errors) into the call's one
 * `ToolResult`.
 *
 * The runner in `CallRunner` composes these per call, and the return stage
 * (batches, order, pairing by id) lives in the scheduler, `TurnScheduler`;
 * the stages are exported so that each can be tested, traced and reused on
 * its own.
 *
 * Each stage of any size has a module of its own (`PipelineParse`,
 * `PipelineValidate`, `PipelineExecute`, `PipelineShape`), and this module
 * is their one face: callers import the pipeline, never a stage's module.
 * Look up and authorize stay here: each is one call to its service (the
 * registry, the policy), too small for a module.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Policy from "./Policy.js"
import type * as Registry from "./Registry.js"
import type * as ToolError from "./ToolError.js"

// ---------------------------------------------------------------------------
// parse
// ---------------------------------------------------------------------------

export { callIdOf, describeJsonError, maxInputDepth, parse, toolNameOf } from "./PipelineParse.js"
export type { Parsed, ParseError } from "./PipelineParse.js"

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
  ToolError.UnknownTool | ToolError.ToolUnavailable
> => registry.lookup(toolName)

// ---------------------------------------------------------------------------
// validate
// ---------------------------------------------------------------------------

export { formatIssues, validate } from "./PipelineValidate.js"
export type { ValidateError } from "./PipelineValidate.js"

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

export { execute, executeNow, handlerRuntime } from "./PipelineExecute.js"
export type { ExecuteEnv, ExecuteError } from "./PipelineExecute.js"

// ---------------------------------------------------------------------------
// shape
// ---------------------------------------------------------------------------

export { noOutput, shape } from "./PipelineShape.js"
export type { Fitting, Outcome, ShapeEnv } from "./PipelineShape.js"

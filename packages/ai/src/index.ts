/**
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as AgentLoop from "./AgentLoop.js"
/** @since 0.1.0 */
export * as AiToolkit from "./AiToolkit.js"
/** @since 0.1.0 */
export * as ScriptedModel from "./ScriptedModel.js"

// `AnthropicToolResults` is left out: it needs `@effect/ai-anthropic`, which
// only Anthropic users have; import `@tool-runtime/ai/AnthropicToolResults`.

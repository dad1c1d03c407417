/**
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Anthropic from "./Anthropic.js"
/** @since 0.2.0 */
export * as AnthropicWire from "./AnthropicWire.js"
/** @since 0.1.0 */
export * as Gemini from "./Gemini.js"
/** @since 0.2.0 */
export * as GeminiWire from "./GeminiWire.js"
/** @since 0.1.0 */
export * as Mcp from "./Mcp.js"
/** @since 0.2.0 */
export * as McpWire from "./McpWire.js"
/** @since 0.1.0 */
export * as Media from "./Media.js"
/** @since 0.1.0 */
export * as OpenAIChat from "./OpenAIChat.js"
/** @since 0.2.0 */
export * as OpenAIChatWire from "./OpenAIChatWire.js"
/** @since 0.1.0 */
export * as OpenAIResponses from "./OpenAIResponses.js"
/** @since 0.2.0 */
export * as OpenAIResponsesWire from "./OpenAIResponsesWire.js"
/** @since 0.1.0 */
export * as ProviderError from "./ProviderError.js"
/** @since 0.1.0 */
export * as StrictSchema from "./StrictSchema.js"
/** @since 0.1.0 */
export * as ToolSearch from "./ToolSearch.js"
/** @since 0.1.0 */
export * as Wire from "./Wire.js"

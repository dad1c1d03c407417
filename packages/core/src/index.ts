/**
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as ArtifactStore from "./ArtifactStore.js"
/** @since 0.4.0 */
export * as CallLimits from "./CallLimits.js"
/** @since 0.1.0 */
export * as CallTrace from "./CallTrace.js"
/** @since 0.4.0 */
export * as ClientRequests from "./ClientRequests.js"
/** @since 0.5.0 */
export * as Durability from "./Durability.js"
/** @since 0.2.0 */
export * as ForeignText from "./ForeignText.js"
/** @since 0.1.0 */
export * as Hooks from "./Hooks.js"
/** @since 0.5.0 */
export * as IdempotencyKey from "./IdempotencyKey.js"
/** @since 0.4.0 */
export * as OutputBudget from "./OutputBudget.js"
/** @since 0.1.0 */
export * as Pipeline from "./Pipeline.js"
/** @since 0.1.0 */
export * as Policy from "./Policy.js"
/** @since 0.1.0 */
export * as Redactor from "./Redactor.js"
/** @since 0.1.0 */
export * as Registry from "./Registry.js"
/** @since 0.1.0 */
export * as ResourceLocks from "./ResourceLocks.js"
/** @since 0.1.0 */
export * as StableJson from "./StableJson.js"
/** @since 0.4.0 */
export * as Subject from "./Subject.js"
/** @since 0.1.0 */
export * as Tool from "./Tool.js"
/** @since 0.1.0 */
export * as ToolCall from "./ToolCall.js"
/** @since 0.1.0 */
export * as ToolError from "./ToolError.js"
/** @since 0.1.0 */
export * as ToolResult from "./ToolResult.js"
/** @since 0.1.0 */
export * as ToolRuntime from "./ToolRuntime.js"
/** @since 0.1.0 */
export * as Truncation from "./Truncation.js"
/** @since 0.1.0 */
export * as Untrusted from "./Untrusted.js"
/** @since 0.1.0 */
export * as Watchdog from "./Watchdog.js"

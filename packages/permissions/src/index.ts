/**
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Approver from "./Approver.js"
/** @since 0.1.0 */
export * as Engine from "./Engine.js"
/** @since 0.1.0 */
export * as Mode from "./Mode.js"
/** @since 0.1.0 */
export * as PermissionAudit from "./PermissionAudit.js"
/** @since 0.1.0 */
export * as PermissionHooks from "./PermissionHooks.js"
/** @since 0.1.0 */
export * as Rule from "./Rule.js"
/** @since 0.3.0 */
export * as SandboxRules from "./SandboxRules.js"
/** @since 0.1.0 */
export * as Settings from "./Settings.js"
/** @since 0.3.0 */
export * as CommandLine from "./CommandLine.js"
/** @since 0.3.0 */
export * as CommandRisk from "./CommandRisk.js"
/** @since 0.3.0 */
export * as PathRule from "./PathRule.js"
/** @since 0.3.0 */
export * as ReadOnlyCommands from "./ReadOnlyCommands.js"
/** @since 0.3.0 */
export * as Wrappers from "./Wrappers.js"

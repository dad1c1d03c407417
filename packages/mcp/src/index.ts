/**
 * @since 0.1.0
 */

/** @since 0.4.0 */
export * as McpCallWatch from "./McpCallWatch.js"
/** @since 0.1.0 */
export * as McpClient from "./McpClient.js"
/** @since 0.1.0 */
export * as McpConfig from "./McpConfig.js"
/** @since 0.4.0 */
export * as McpConnection from "./McpConnection.js"
/** @since 0.4.0 */
export * as McpElicitation from "./McpElicitation.js"
/** @since 0.4.0 */
export * as McpHttpServer from "./McpHttpServer.js"
/** @since 0.1.0 */
export * as McpMapping from "./McpMapping.js"
/** @since 0.4.0 */
export * as McpOAuth from "./McpOAuth.js"
/** @since 0.4.0 */
export * as McpOAuthStore from "./McpOAuthStore.js"
/** @since 0.4.0 */
export * as McpResource from "./McpResource.js"
/** @since 0.4.0 */
export * as McpResources from "./McpResources.js"
/** @since 0.4.0 */
export * as McpRounds from "./McpRounds.js"
/** @since 0.1.0 */
export * as McpServer from "./McpServer.js"
/** @since 0.4.0 */
export * as McpServerStdio from "./McpServerStdio.js"
/** @since 0.4.0 */
export * as McpStdio from "./McpStdio.js"
/** @since 0.1.0 */
export * as McpTools from "./McpTools.js"

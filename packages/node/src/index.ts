/**
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as FileArtifactStore from "./FileArtifactStore.js"
/** @since 0.1.0 */
export * as FileTools from "./FileTools.js"
/** @since 0.1.0 */
export * as Workspace from "./Workspace.js"

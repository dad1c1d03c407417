/**
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as BackgroundJobs from "./BackgroundJobs.js"
/** @since 0.4.0 */
export * as Environment from "./Environment.js"
/** @since 0.1.0 */
export * as FileArtifactStore from "./FileArtifactStore.js"
/** @since 0.1.0 */
export * as FileTools from "./FileTools.js"
/** @since 0.4.0 */
export * as GitMetadata from "./GitMetadata.js"
/** @since 0.3.0 */
export * as NetworkProxy from "./NetworkProxy.js"
/** @since 0.4.0 */
export * as NodeTools from "./NodeTools.js"
/** @since 0.1.0 */
export * as OutputHygiene from "./OutputHygiene.js"
/** @since 0.4.0 */
export * as ProjectConfig from "./ProjectConfig.js"
/** @since 0.4.0 */
export * as PathMask from "./PathMask.js"
/** @since 0.3.0 */
export * as PathWalk from "./PathWalk.js"
/** @since 0.1.0 */
export * as ProcessRunner from "./ProcessRunner.js"
/** @since 0.3.0 */
export * as Sandbox from "./Sandbox.js"
/** @since 0.4.0 */
export * as SandboxLayout from "./SandboxLayout.js"
/** @since 0.3.0 */
export * as SandboxSettings from "./SandboxSettings.js"
/** @since 0.4.0 */
export * as SeccompFilter from "./SeccompFilter.js"
/** @since 0.1.0 */
export * as ShellTool from "./ShellTool.js"
/** @since 0.4.0 */
export * as WorkerTool from "./WorkerTool.js"
/** @since 0.1.0 */
export * as Workspace from "./Workspace.js"

/**
 * @since 0.5.0
 */

/** @since 0.5.0 */
export * as CallJournal from "./CallJournal.js"
/** @since 0.5.0 */
export * as Durable from "./Durable.js"
/** @since 0.5.0 */
export * as DurableRuntime from "./DurableRuntime.js"
/** @since 0.5.0 */
export * as JournalRows from "./JournalRows.js"
/** @since 0.5.0 */
export * as Storage from "./Storage.js"
/** @since 0.5.0 */
export * as ClusterRuntime from "./ClusterRuntime.js"
/** @since 0.5.0 */
export * as SessionClient from "./SessionClient.js"
/** @since 0.5.0 */
export * as SessionEntity from "./SessionEntity.js"

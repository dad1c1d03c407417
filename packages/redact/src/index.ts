/**
 * @since 0.3.0
 */

/** @since 0.3.0 */
export * as Detector from "./Detector.js"
/** @since 0.3.0 */
export * as PersonalData from "./PersonalData.js"
/** @since 0.3.0 */
export * as Redactor from "./Redactor.js"
/** @since 0.3.0 */
export * as SecretRules from "./SecretRules.js"

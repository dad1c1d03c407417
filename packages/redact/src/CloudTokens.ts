/**
 * @since 0.3.0
 */
import type * as Detector from "./Detector.js"

/**
 * @since 0.3.0
 * @category rules
 */
export const rules: ReadonlyArray<Detector.Detector> = []

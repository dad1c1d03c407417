import type { RuleSamples } from "../RuleSamples.js"

export const service: ReadonlyArray<RuleSamples> = []

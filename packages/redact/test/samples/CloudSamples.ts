import type { RuleSamples } from "../RuleSamples.js"

export const cloud: ReadonlyArray<RuleSamples> = []

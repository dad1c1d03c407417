import type { RuleSamples } from "../RuleSamples.js"

export const developer: ReadonlyArray<RuleSamples> = []

import type { RuleSamples } from "../RuleSamples.js"
import { cloud } from "./CloudSamples.js"
import { developer } from "./DeveloperSamples.js"
import { service } from "./ServiceSamples.js"

/** Every rule family's samples. */
export const samples: ReadonlyArray<RuleSamples> = [...developer, ...cloud, ...service]

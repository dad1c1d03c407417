import type { RuleSamples } from "../RuleSamples.js"
import { cloud } from "./CloudSamples.js"
import { core } from "./CoreSamples.js"
import { developer } from "./DeveloperSamples.js"
import { service } from "./ServiceSamples.js"

/** Every rule's samples: the first catalogue's and each family's. */
export const samples: ReadonlyArray<RuleSamples> = [...core, ...developer, ...cloud, ...service]

// Under `pnpm mutate` only: property tests that leave their run count to
// fast-check take 25 runs instead of 100. A mutant that survives 25 random
// cases of a law is reported as surviving, and the law's full count still
// runs in CI; what this buys is a mutant in a second rather than four.
import * as fc from "effect/FastCheck"

fc.configureGlobal({ ...fc.readConfigureGlobal(), numRuns: 25 })

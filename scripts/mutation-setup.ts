// Under `pnpm mutate` only: property tests that leave their run count to
// fast-check take 25 runs instead of 100. A mutant that survives 25 random
// cases of a law is reported as surviving, and the law's full count still
// runs in CI; what this buys is a mutant in a second rather than four.
// The seed is fixed so that every mutant meets the same cases, and a test
// that keeps an outside oracle's answers (bash's, in `SubstitutionEnds`)
// asks it once per run rather than once per mutant.
import * as fc from "effect/FastCheck"

fc.configureGlobal({ ...fc.readConfigureGlobal(), numRuns: 25, seed: 20261206 })

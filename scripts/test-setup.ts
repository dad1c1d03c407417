// Every test file: one turn of the event loop after each test. Vitest's worker
// reports progress to the main process over IPC and gives up with "Timeout
// calling onTaskUpdate" when no answer is read within 60 s. The answer is only
// read when the worker's event loop reaches its poll phase, and a file whose
// tests chain through microtasks alone never gets there; on a loaded 2-core
// machine such a stretch passed 60 s and turned a green run red. `setImmediate`
// runs after the poll phase, so awaiting it lets pending answers in.
import { afterEach } from "vitest"

afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)))

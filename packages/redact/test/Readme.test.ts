/**
 * The README's example, run as written: the input, and the output its
 * comment promises.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Redactor from "../src/Redactor.js"

describe("README example", () => {
  it("redacts its input to the output its comment shows", () => {
    const readme = Fs.readFileSync(Path.join(import.meta.dirname, "..", "README.md"), "utf8")
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? ""
    const input = /redactor\.redact\("([^"]*)"\)/.exec(example)?.[1]
    const output = /console\.log\(text\) \/\/ (.*)/.exec(example)?.[1]
    assert.isDefined(input)
    assert.isDefined(output)
    assert.strictEqual(Redactor.make().redact(input!).text, output)
  })
})

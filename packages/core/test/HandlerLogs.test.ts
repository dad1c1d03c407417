import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import * as HandlerLogs from "../src/HandlerLogs.js"
import * as Redactor from "../src/Redactor.js"
import * as Tool from "../src/Tool.js"
import * as ToolResult from "../src/ToolResult.js"
import * as ToolRuntime from "../src/ToolRuntime.js"
import { leakedWindow, noise } from "./FakeSecrets.js"

const secret = `ghp_${noise(36, 7)}`
const redactor = Redactor.make()
const redact = (text: string) => redactor.redact(text).text

/** What the wrapped logger hands on, line by line. */
const capture = () => {
  const lines: Array<Logger.Logger.Options<unknown>> = []
  const inner = Logger.make<unknown, void>((options) => {
    lines.push(options)
  })
  return { lines, logger: HandlerLogs.redacting(inner, redact) }
}

const logWith = (logger: Logger.Logger<unknown, unknown>, effect: Effect.Effect<void>) =>
  Effect.runSync(effect.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger))))

describe("HandlerLogs", () => {
  it("hands a value with nothing secret in it on as it is: a structured logger keeps its structure", () => {
    const { lines, logger } = capture()
    const request = { url: "https://example.com/a", attempt: 2 }
    logWith(logger, Effect.log("sending", request, 42))
    assert.deepStrictEqual(lines[0]!.message, ["sending", request, 42])
    assert.strictEqual((lines[0]!.message as Array<unknown>)[1], request)
  })

  it("an error whose stack alone quotes the secret is replaced by its redacted text, stack included", () => {
    const { lines, logger } = capture()
    const error = new Error("upstream failed")
    error.stack = `Error: upstream failed\n    at fetch (https://api.example.com/?token=${secret})`
    logWith(logger, Effect.logError(error))
    const part = (lines[0]!.message as Array<unknown>)[0]
    assert.strictEqual(typeof part, "string")
    assert.include(part as string, "at fetch (")
    assert.isUndefined(leakedWindow(part as string, secret))
  })

  it("a value that throws when read becomes a note, and the line is still logged", () => {
    const { lines, logger } = capture()
    const hostile = new Proxy({}, {
      get: () => {
        throw new Error("no")
      },
      ownKeys: () => {
        throw new Error("no")
      }
    })
    logWith(logger, Effect.log("got", hostile))
    assert.deepStrictEqual(lines[0]!.message, ["got", "[a value that cannot be shown]"])
  })

  it("a cause that quotes a secret is replaced; one that does not is handed on as it is", () => {
    const { lines, logger } = capture()
    const clean = Cause.fail("timeout")
    logWith(logger, Effect.logError("first", clean))
    logWith(logger, Effect.logError("second", Cause.die(new TypeError(`bad header ${secret}`))))
    assert.strictEqual(lines[0]!.cause, clean)
    const shown = Cause.pretty(lines[1]!.cause)
    assert.include(shown, "bad header")
    assert.isUndefined(leakedWindow(shown, secret))
  })

  it("a handler's lines reach the application's logger redacted, and the call's result is unchanged", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const app = Logger.make(({ message }) => {
        seen.push(JSON.stringify(message))
      })
      const chatty = Tool.make("chatty", {
        description: "Logs the token it uses.",
        parameters: { token: Schema.String },
        readOnly: true,
        handler: ({ token }) => Effect.as(Effect.log(`using ${token}`), "done")
      })
      const results = yield* Effect.flatMap(
        ToolRuntime.ToolRuntime,
        (runtime) => runtime.runTurn([{ id: "1", name: "chatty", input: { token: secret } }])
      ).pipe(
        Effect.provide(ToolRuntime.layerDefault([chatty])),
        Effect.provide(Logger.replace(Logger.defaultLogger, app))
      )
      assert.strictEqual(ToolResult.text(results[0]!), "done")
      assert.strictEqual(seen.length, 1)
      assert.include(seen[0]!, "using [REDACTED")
      assert.isUndefined(leakedWindow(seen[0]!, secret))
    }).pipe(Effect.runPromise))
})

/**
 * The tools every codec test runs against, and generated turns: calls with
 * valid, invalid and malformed arguments, unknown and missing tool names,
 * repeated ids, and items no result can be paired with.
 */
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"

/** A 1×1 transparent PNG. */
export const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

export const getWeather = Tool.make("get_weather", {
  description: "Get the current weather in a given location.",
  parameters: {
    location: Schema.String.annotations({ description: "The city and state, e.g. San Francisco, CA" }),
    unit: Schema.optional(Schema.Literal("celsius", "fahrenheit"))
  },
  readOnly: true,
  handler: ({ location, unit }) => Effect.succeed(`${location}: 15 degrees ${unit ?? "celsius"}, partly cloudy`)
})

export const getTime = Tool.make("get_time", {
  description: "Get the current time in a given time zone.",
  parameters: { timezone: Schema.String.annotations({ description: "The IANA time zone name" }) },
  readOnly: true,
  handler: ({ timezone }) => Effect.succeed(`It is 14:05 in ${timezone}.`)
})

export const sendEmail = Tool.make("send_email", {
  description: "Send an email to a given recipient with a subject and message.",
  parameters: { to: Schema.String, body: Schema.String },
  risk: "high",
  handler: ({ to }) => Effect.succeed(`Sent to ${to}.`)
})

export const writeNote = Tool.make("write_note", {
  description: "Writes a note.",
  parameters: { text: Schema.String },
  risk: "low",
  handler: ({ text }) => Effect.succeed({ saved: true, length: text.length })
})

export const picture = Tool.make("picture", {
  description: "Returns a picture with a caption.",
  parameters: {},
  readOnly: true,
  handler: () =>
    Effect.succeed(ToolResult.content([ToolResult.textBlock("a 1x1 pixel"), ToolResult.image(png, "image/png")]))
})

export const failing = Tool.make("fail_tool", {
  description: "Always fails.",
  parameters: {},
  handler: () => Effect.fail("the ticket is locked")
})

// Gemini's documented parallel-calling example.
export const powerDiscoBall = Tool.make("power_disco_ball", {
  description: "Powers the spinning disco ball.",
  parameters: { power: Schema.Boolean.annotations({ description: "Whether to turn the disco ball on or off." }) },
  handler: ({ power }) => Effect.succeed(power ? "Disco ball is spinning!" : "Disco ball is off.")
})

export const startMusic = Tool.make("start_music", {
  description: "Play some music matching the specified parameters.",
  parameters: { energetic: Schema.Boolean, loud: Schema.Boolean },
  handler: ({ energetic, loud }) =>
    Effect.succeed(`Playing ${energetic ? "energetic" : "chill"} music${loud ? " loudly" : ""}.`)
})

export const dimLights = Tool.make("dim_lights", {
  description: "Dim the lights.",
  parameters: {
    brightness: Schema.Number.annotations({ description: "The brightness of the lights, 0.0 is off, 1.0 is full." })
  },
  handler: ({ brightness }) => Effect.succeed(`Lights are now set to ${Math.round(brightness * 100)}%.`)
})

export const tools = [
  getWeather,
  getTime,
  sendEmail,
  writeNote,
  picture,
  failing,
  powerDiscoBall,
  startMusic,
  dimLights
] as const

export const runtimeLayer = ToolRuntime.layerDefault(tools)

export const run = (calls: Parameters<ToolRuntime.Service["runTurn"]>[0], options?: ToolRuntime.TurnOptions) =>
  Effect.flatMap(ToolRuntime.ToolRuntime, (runtime) => runtime.runTurn(calls, options))

// ---------------------------------------------------------------------------
// generated turns
// ---------------------------------------------------------------------------

export type Args = "valid" | "invalid" | "malformed"

export interface GenCall {
  readonly id: string
  readonly name: string
  readonly args: Args
  /** Arguments as an object, or, for `malformed`, a string that is not JSON. */
  readonly input: unknown
}

/** An item no result can be paired with, at a position in the payload. */
export interface Anomaly {
  readonly kind: "missing-id" | "unknown-type"
  readonly at: number
}

export interface GenTurn {
  readonly calls: ReadonlyArray<GenCall>
  readonly anomalies: ReadonlyArray<Anomaly>
}

const names = ["get_weather", "get_time", "write_note", "picture", "fail_tool", "no_such_tool", ""] as const

const validInput = (name: string): Record<string, unknown> => {
  switch (name) {
    case "get_weather":
      return { location: "Paris, France", unit: "celsius" }
    case "get_time":
      return { timezone: "Europe/Paris" }
    case "write_note":
      return { text: "remember the milk" }
    default:
      return {}
  }
}

const inputFor = (name: string, args: Args, objectsOnly: boolean): unknown =>
  args === "valid"
    ? validInput(name)
    : args === "invalid" || objectsOnly
    ? { bogus: 1 }
    : "{'location': 'Paris'}"

/**
 * Turns of up to 8 calls. `objectsOnly` for formats whose arguments are
 * objects (Anthropic, Gemini, MCP): there "malformed" is "invalid".
 */
export const turn = (options: { readonly objectsOnly: boolean; readonly anomalies: boolean }) =>
  FastCheck.record({
    prefix: FastCheck.constantFrom("toolu_", "call_", "fc_", "", "ü-", "id with spaces "),
    entries: FastCheck.array(
      FastCheck.record({
        name: FastCheck.constantFrom(...names),
        args: FastCheck.constantFrom<Args>("valid", "valid", "invalid", "malformed"),
        reuse: FastCheck.option(FastCheck.nat(), { freq: 8 })
      }),
      { maxLength: 8 }
    ),
    anomalies: options.anomalies
      ? FastCheck.array(
        FastCheck.record({
          kind: FastCheck.constantFrom<Anomaly["kind"]>("missing-id", "unknown-type"),
          at: FastCheck.nat(8)
        }),
        { maxLength: 2 }
      )
      : FastCheck.constant([])
  }).map(({ anomalies, entries, prefix }): GenTurn => {
    const calls: Array<GenCall> = []
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!
      const id = entry.reuse !== null && i > 0 ? calls[entry.reuse % i]!.id : `${prefix}${i}`
      const args = options.objectsOnly && entry.args === "malformed" ? "invalid" : entry.args
      calls.push({ id, name: entry.name, args, input: inputFor(entry.name, args, options.objectsOnly) })
    }
    return { calls, anomalies }
  })

/**
 * Interleaves calls and anomalies: the payload's items in order, each
 * either a call or an anomaly.
 */
export const interleave = (turn: GenTurn): ReadonlyArray<
  { readonly _tag: "call"; readonly call: GenCall } | { readonly _tag: "anomaly"; readonly anomaly: Anomaly }
> => {
  const items: Array<
    { readonly _tag: "call"; readonly call: GenCall } | { readonly _tag: "anomaly"; readonly anomaly: Anomaly }
  > = turn.calls.map((call) => ({ _tag: "call", call }))
  for (const anomaly of turn.anomalies) {
    items.splice(Math.min(anomaly.at, items.length), 0, { _tag: "anomaly", anomaly })
  }
  return items
}

/** The error code the runtime gives each call, `undefined` for success. */
export const expectedCodes = (calls: ReadonlyArray<GenCall>): ReadonlyArray<string | undefined> => {
  const seen = new Set<string>()
  return calls.map((call) => {
    const duplicate = seen.has(call.id)
    seen.add(call.id)
    if (duplicate) return "duplicate_call_id"
    if (call.name === "") return "malformed_call"
    if (call.args === "malformed") return "malformed_arguments"
    if (call.name === "no_such_tool") return "unknown_tool"
    // Every tool refuses keys it does not take, parameterless ones included.
    if (call.args === "invalid") return "invalid_arguments"
    if (call.name === "fail_tool") return "tool_failed"
    return undefined
  })
}

/** Content as a provider round trip keeps it: empty text blocks carry nothing. */
export const visible = (content: ReadonlyArray<ToolResult.ContentBlock>) =>
  content.filter((block) => block._tag !== "text" || block.text !== "")

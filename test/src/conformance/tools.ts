/**
 * The tools the MCP conformance suite (`@modelcontextprotocol/conformance`)
 * calls on a server, written as any user of the runtime would write them,
 * and served by `tool-runtime serve --http --tools` in `Conformance.test`:
 * what the suite checks is our server and runtime, not a wrapper.
 *
 * Audio and other binary content are the runtime's binary block
 * (`ToolResult.binary`): the MCP codec sends audio as `audio` and anything
 * it has no block for (here an octet stream) as an embedded resource.
 *
 * The resources the suite reads are exported as `resources`, as a user's
 * module would export its own: a text, a PNG, a template, and a document
 * that changes (every 5 seconds here), which clients may subscribe to.
 */
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as McpResource from "@tool-runtime/mcp/McpResource"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

/** A 1×1 red PNG. */
const redPixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

/** A WAV file of 8 silent 8-bit samples at 8 kHz: a header and its data. */
const silentWav = (): Uint8Array => {
  const samples = 8
  const bytes = new Uint8Array(44 + samples)
  const view = new DataView(bytes.buffer)
  const ascii = (at: number, text: string) => [...text].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)))
  ascii(0, "RIFF")
  view.setUint32(4, 36 + samples, true)
  ascii(8, "WAVEfmt ")
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true) // PCM
  view.setUint16(22, 1, true) // mono
  view.setUint32(24, 8000, true)
  view.setUint32(28, 8000, true)
  view.setUint16(32, 1, true)
  view.setUint16(34, 8, true)
  ascii(36, "data")
  view.setUint32(40, samples, true)
  bytes.fill(128, 44)
  return bytes
}

const describeAnswer = <A>(answer: { readonly action: string; readonly content?: A }) =>
  `action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`

export const tools = [
  Tool.make("test_simple_text", {
    description: "Returns a line of text.",
    parameters: {},
    readOnly: true,
    handler: () => Effect.succeed("This is a simple text response for testing.")
  }),
  Tool.make("test_image_content", {
    description: "Returns a 1x1 PNG.",
    parameters: {},
    readOnly: true,
    handler: () => Effect.succeed(ToolResult.content([ToolResult.image(redPixel, "image/png")]))
  }),
  Tool.make("test_audio_content", {
    description: "Returns a short silent WAV.",
    parameters: {},
    readOnly: true,
    handler: () => Effect.succeed(ToolResult.content([ToolResult.binary(silentWav(), "audio/wav")]))
  }),
  Tool.make("test_embedded_resource", {
    description: "Returns bytes no provider shows, embedded as a resource.",
    parameters: {},
    readOnly: true,
    handler: () =>
      Effect.succeed(ToolResult.content([ToolResult.binary(new Uint8Array([0, 1, 2, 3]), "application/octet-stream")]))
  }),
  Tool.make("test_multiple_content_types", {
    description: "Returns text, an image and embedded bytes.",
    parameters: {},
    readOnly: true,
    handler: () =>
      Effect.succeed(ToolResult.content([
        ToolResult.textBlock("Multiple content types test:"),
        ToolResult.image(redPixel, "image/png"),
        ToolResult.binary(new Uint8Array([0, 1, 2, 3]), "application/octet-stream")
      ]))
  }),
  Tool.make("test_error_handling", {
    description: "Always fails.",
    parameters: {},
    readOnly: true,
    handler: () => Effect.fail(new Error("This tool intentionally returns an error for testing"))
  }),
  Tool.make("test_tool_with_logging", {
    description: "Logs three lines while it runs.",
    parameters: {},
    readOnly: true,
    handler: () =>
      Effect.gen(function*() {
        yield* Effect.logInfo("Tool execution started")
        yield* Effect.sleep("50 millis")
        yield* Effect.logInfo("Tool processing data")
        yield* Effect.sleep("50 millis")
        yield* Effect.logInfo("Tool execution completed")
        return "Logging test completed"
      })
  }),
  Tool.make("test_tool_with_progress", {
    description: "Reports progress 0, 50 and 100 of 100.",
    parameters: {},
    readOnly: true,
    handler: (_, context) =>
      Effect.gen(function*() {
        yield* context.progress({ progress: 0, total: 100 })
        yield* Effect.sleep("50 millis")
        yield* context.progress({ progress: 50, total: 100 })
        yield* Effect.sleep("50 millis")
        yield* context.progress({ progress: 100, total: 100 })
        return "Progress test completed"
      })
  }),
  Tool.make("test_sampling", {
    description: "Asks the client's model.",
    parameters: { prompt: Schema.String },
    readOnly: true,
    handler: ({ prompt }, context) =>
      Effect.map(
        context.sample({ messages: [{ role: "user", text: prompt }], maxTokens: 100 }),
        (sample) => `LLM response: ${sample.text}`
      )
  }),
  Tool.make("test_elicitation", {
    description: "Asks the user for a name and an address.",
    parameters: { message: Schema.String },
    readOnly: true,
    handler: ({ message }, context) =>
      Effect.map(
        context.elicit({
          message,
          schema: Schema.Struct({
            username: Schema.String.annotations({ description: "User's response" }),
            email: Schema.String.annotations({ description: "User's email address" })
          })
        }),
        (answer) => `User response: ${describeAnswer(answer)}`
      )
  }),
  Tool.make("test_elicitation_sep1034_defaults", {
    description: "Asks with a default for every primitive type.",
    parameters: {},
    readOnly: true,
    handler: (_, context) =>
      Effect.map(
        context.elicit({
          message: "Please review and update the form fields with defaults",
          schema: Schema.Struct({
            name: Schema.optional(Schema.String.annotations({ description: "User name", default: "John Doe" })),
            age: Schema.optional(Schema.Int.annotations({ description: "User age", default: 30 })),
            score: Schema.optional(Schema.Number.annotations({ description: "User score", default: 95.5 })),
            status: Schema.optional(
              Schema.Literal("active", "inactive", "pending").annotations({
                description: "User status",
                default: "active"
              })
            ),
            verified: Schema.optional(Schema.Boolean.annotations({ description: "Verified", default: true }))
          })
        }),
        (answer) => `Elicitation completed: ${describeAnswer(answer)}`
      )
  }),
  Tool.make("test_elicitation_sep1330_enums", {
    description: "Asks with every enum form of SEP-1330.",
    parameters: {},
    readOnly: true,
    handler: (_, context) =>
      Effect.map(
        context.elicit({
          message: "Please pick from the options",
          schema: Schema.Struct({
            untitledSingle: Schema.optional(Schema.Literal("option1", "option2", "option3")),
            titledSingle: Schema.optional(Schema.Literal("value1", "value2", "value3")),
            legacyEnum: Schema.optional(Schema.Literal("opt1", "opt2", "opt3")),
            untitledMulti: Schema.optional(Schema.Array(Schema.Literal("option1", "option2", "option3"))),
            titledMulti: Schema.optional(Schema.Array(Schema.Literal("value1", "value2", "value3")))
          }),
          // Titled options have no Schema form the derivation turns into `oneOf`/`enumNames`: given as sent.
          requestedSchema: {
            type: "object",
            properties: {
              untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
              titledSingle: {
                type: "string",
                oneOf: [
                  { const: "value1", title: "First Option" },
                  { const: "value2", title: "Second Option" },
                  { const: "value3", title: "Third Option" }
                ]
              },
              legacyEnum: {
                type: "string",
                enum: ["opt1", "opt2", "opt3"],
                enumNames: ["Option One", "Option Two", "Option Three"]
              },
              untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
              titledMulti: {
                type: "array",
                items: {
                  anyOf: [
                    { const: "value1", title: "First Choice" },
                    { const: "value2", title: "Second Choice" },
                    { const: "value3", title: "Third Choice" }
                  ]
                }
              }
            }
          }
        }),
        (answer) => `Elicitation completed: ${describeAnswer(answer)}`
      )
  }),
  // 2026-07-28: the questions go out as `input_required` results under these keys, and the call, parked
  // meanwhile, takes up where it stopped when the client sends it again with the answers.
  Tool.make("test_input_required_result_elicitation", {
    description: "Asks the user's name.",
    parameters: {},
    readOnly: true,
    handler: (_, context) =>
      Effect.map(
        context.elicit({
          key: "user_name",
          message: "What is your name?",
          schema: Schema.Struct({ name: Schema.String })
        }),
        (answer) => `Hello: ${describeAnswer(answer)}`
      )
  }),
  Tool.make("test_input_required_result_sampling", {
    description: "Asks the client's model a question.",
    parameters: {},
    readOnly: true,
    handler: (_, context) =>
      Effect.map(
        context.sample({
          key: "capital_question",
          messages: [{ role: "user", text: "What is the capital of France?" }],
          maxTokens: 100
        }),
        (sample) => `The model says: ${sample.text}`
      )
  }),
  ...["test_input_required_result_request_state", "test_input_required_result_tampered_state"].map((name) =>
    Tool.make(name, {
      description: "Asks for a confirmation.",
      parameters: {},
      readOnly: true,
      handler: (_, context) =>
        Effect.map(
          context.elicit({ key: "confirm", message: "Please confirm", schema: Schema.Struct({ ok: Schema.Boolean }) }),
          // The parked call itself was resumed: the state was ours, and it was checked.
          (answer) => `state-ok: ${describeAnswer(answer)}`
        )
    })
  ),
  Tool.make("test_input_required_result_multiple_inputs", {
    description: "Asks the user and the client's model at once.",
    parameters: {},
    readOnly: true,
    handler: (_, context) =>
      Effect.map(
        Effect.all([
          context.elicit({
            key: "user_name",
            message: "What is your name?",
            schema: Schema.Struct({ name: Schema.String })
          }),
          Effect.either(context.sample({
            key: "greeting",
            messages: [{ role: "user", text: "Generate a greeting" }],
            maxTokens: 50
          }))
        ], { concurrency: "unbounded" }),
        ([answer, greeting]) =>
          `name: ${describeAnswer(answer)}; greeting: ${greeting._tag === "Right" ? greeting.right.text : "none"}`
      )
  }),
  Tool.make("test_input_required_result_multi_round", {
    description: "Asks two questions, one after the other.",
    parameters: {},
    readOnly: true,
    handler: (_, context) =>
      Effect.gen(function*() {
        const name = yield* context.elicit({
          key: "step1",
          message: "Step 1: What is your name?",
          schema: Schema.Struct({ name: Schema.String })
        })
        const color = yield* context.elicit({
          key: "step2",
          message: "Step 2: What is your favorite color?",
          schema: Schema.Struct({ color: Schema.String })
        })
        return `step1: ${describeAnswer(name)}; step2: ${describeAnswer(color)}`
      })
  }),
  Tool.make("test_input_required_result_capabilities", {
    description: "Asks the user and the model; only what the client declared goes out.",
    parameters: {},
    readOnly: true,
    handler: (_, context) =>
      Effect.map(
        Effect.all([
          context.elicit({ key: "user_name", message: "Your name?", schema: Schema.Struct({ name: Schema.String }) }),
          Effect.either(context.sample({
            key: "summary",
            messages: [{ role: "user", text: "Say hello" }],
            maxTokens: 20
          }))
        ], { concurrency: "unbounded" }),
        ([answer, sample]) =>
          `elicitation: ${describeAnswer(answer)}; sampling: ${sample._tag === "Right" ? sample.right.text : "none"}`
      )
  })
]

export const resources = [
  McpResource.make("test://static-text", {
    name: "static text",
    read: { text: "This is the content of the static text resource." }
  }),
  McpResource.make("test://static-binary", {
    name: "static binary",
    mimeType: "image/png",
    read: { bytes: Buffer.from(redPixel, "base64") }
  }),
  McpResource.template("test://template/{id}/data", {
    name: "data by id",
    mimeType: "application/json",
    read: ({ id }) => Effect.succeed({ text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) })
  }),
  McpResource.make("test://watched-resource", {
    name: "watched",
    read: Effect.succeed({ text: "a document that changes" }),
    changes: Stream.tick("5 seconds").pipe(Stream.drop(1))
  })
]

/**
 * The person at the terminal answers an MCP server's question
 * (`elicitation/create`): the server's message is shown as the server's
 * words (marked, control characters removed), then the person chooses to
 * answer, decline or dismiss it, and answering asks each field of the
 * form in turn, with the prompt its type calls for: a choice for an
 * enumeration, a yes/no for a boolean, a number checked against its
 * bounds, text otherwise. An optional field left empty is left out, so the
 * server's default applies (SEP-1034, filled in by the client).
 *
 * Without a terminal the CLI uses `McpElicitation.headless`: declined, with
 * the reason.
 *
 * @since 0.4.0
 */
import * as Prompt from "@effect/cli/Prompt"
import * as Terminal from "@effect/platform/Terminal"
import type * as McpElicitation from "@tool-runtime/mcp/McpElicitation"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Quit from "./Quit.js"
import * as CliTerminal from "./Terminal.js"

type Value = string | number | boolean | ReadonlyArray<string>

/** A server's words on one line each, with nothing that drives the terminal. */
const shown = (text: string) => text.replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu, (c) => c === "\n" ? "\n" : " ")

interface Field {
  readonly name: string
  readonly required: boolean
  readonly schema: Readonly<Record<string, unknown>>
}

const fieldsOf = (schema: Readonly<Record<string, unknown>>): ReadonlyArray<Field> => {
  const properties = Predicate.isRecord(schema.properties) ? schema.properties : {}
  const required = Array.isArray(schema.required) ? schema.required : []
  return Object.entries(properties).filter((entry): entry is [string, Record<string, unknown>] =>
    Predicate.isRecord(entry[1])
  ).map(([name, field]) => ({ name, required: required.includes(name), schema: field }))
}

/** The choices of an enumeration: `enum` (with `enumNames`), or `oneOf`/`anyOf` of `const` and `title`. */
const choicesOf = (schema: Readonly<Record<string, unknown>>): ReadonlyArray<{ value: string; title: string }> => {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : []
    return schema.enum.map((value, index) => ({ value: String(value), title: String(names[index] ?? value) }))
  }
  const options = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : []
  return options.filter(Predicate.isRecord).filter((option) => option.const !== undefined).map((option) => ({
    value: String(option.const),
    title: String(option.title ?? option.const)
  }))
}

const skip = "\u0000skip"

/** One field's prompt; `undefined` when an optional field is left empty. */
const ask = (field: Field): Prompt.Prompt<Value | undefined> => {
  const { schema } = field
  const label = `${typeof schema.title === "string" ? shown(schema.title) : field.name}${
    typeof schema.description === "string" ? ` (${shown(schema.description)})` : ""
  }${field.required ? "" : ", optional"}`
  const leaveOut = field.required ? [] : [{ title: "(leave empty)", value: skip }]
  if (schema.type === "array") {
    const items = Predicate.isRecord(schema.items) ? schema.items : {}
    return Prompt.map(
      Prompt.multiSelect({
        message: label,
        choices: choicesOf(items).map((choice) => ({ title: shown(choice.title), value: choice.value }))
      }),
      (values): Value | undefined => values.length === 0 && !field.required ? undefined : values
    )
  }
  const choices = choicesOf(schema)
  if (choices.length > 0) {
    return Prompt.map(
      Prompt.select({
        message: label,
        choices: [...choices.map((choice) => ({ title: shown(choice.title), value: choice.value })), ...leaveOut]
      }),
      (value): Value | undefined => value === skip ? undefined : value
    )
  }
  if (schema.type === "boolean") {
    return field.required
      ? Prompt.confirm({ message: label })
      : Prompt.map(
        Prompt.select({
          message: label,
          choices: [{ title: "yes", value: "yes" }, { title: "no", value: "no" }, ...leaveOut]
        }),
        (value): Value | undefined => value === skip ? undefined : value === "yes"
      )
  }
  if (schema.type === "number" || schema.type === "integer") {
    const bounds = {
      ...(typeof schema.minimum === "number" ? { min: schema.minimum } : {}),
      ...(typeof schema.maximum === "number" ? { max: schema.maximum } : {})
    }
    const number = (text: string) => schema.type === "integer" ? Number.parseInt(text, 10) : Number(text)
    return Prompt.map(
      Prompt.text({
        message: `${label}${field.required ? "" : " (empty to leave out)"}`,
        validate: (text) => {
          if (text === "" && !field.required) return Effect.succeed(text)
          const value = number(text)
          if (!/^-?\d+(\.\d+)?$/.test(text.trim()) || Number.isNaN(value)) return Effect.fail("a number, please")
          if (schema.type === "integer" && !Number.isInteger(Number(text))) return Effect.fail("a whole number, please")
          if (bounds.min !== undefined && value < bounds.min) return Effect.fail(`at least ${bounds.min}`)
          if (bounds.max !== undefined && value > bounds.max) return Effect.fail(`at most ${bounds.max}`)
          return Effect.succeed(text)
        }
      }),
      (text): Value | undefined => text === "" ? undefined : number(text)
    )
  }
  return Prompt.map(
    Prompt.text({
      message: `${label}${field.required ? "" : " (empty to leave out)"}`,
      validate: (text) => text === "" && field.required ? Effect.fail("an answer, please") : Effect.succeed(text)
    }),
    (text): Value | undefined => text === "" ? undefined : text
  )
}

/**
 * @since 0.4.0
 * @category constructors
 */
export const make: Effect.Effect<McpElicitation.Handler, never, Terminal.Terminal | Quit.Quit> = Effect.gen(
  function*() {
    const terminal = yield* Terminal.Terminal
    const quit = yield* Quit.Quit
    const style = yield* CliTerminal.detect
    return (request) =>
      Effect.gen(function*() {
        yield* Console.log(
          [
            "",
            style.bold(`The MCP server "${request.server}" asks:`),
            ...shown(request.message).split("\n").map((line) => `  ${style.cyan("│")} ${line}`)
          ].join("\n")
        )
        const choice = yield* Prompt.select({
          message: "Answer it?",
          choices: [
            { title: "Answer", value: "accept" as const },
            { title: "Decline", value: "decline" as const, description: "the server is told you said no" },
            { title: "Dismiss", value: "cancel" as const, description: "no answer at all" }
          ]
        })
        if (choice !== "accept") return { action: choice }
        const content: Record<string, Value> = {}
        for (const field of fieldsOf(request.requestedSchema)) {
          const value = yield* ask(field)
          if (value !== undefined) content[field.name] = value
        }
        return { action: "accept" as const, content }
      }).pipe(
        Effect.catchTag("QuitException", () =>
          Effect.zipRight(Console.log(""), quit.request("interrupted")).pipe(Effect.as({ action: "cancel" as const }))),
        Effect.provideService(Terminal.Terminal, terminal)
      )
  }
)

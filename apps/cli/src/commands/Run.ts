/**
 * The `run` command: the runtime as a filter between a provider and its
 * tools. It reads one provider message holding tool calls, in that
 * provider's wire shape (an Anthropic assistant message, an OpenAI
 * Responses response or its output items, an OpenAI Chat assistant message
 * or completion), runs the calls on the support-desk tools, and prints the
 * reply that goes back to the provider: the results, one per call, paired
 * by id, in call order.
 *
 * stdout carries the reply and nothing else, so it can be piped on; a
 * message that cannot be read fails with one line on stderr.
 *
 * @since 0.2.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as FileSystem from "@effect/platform/FileSystem"
import type * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Anthropic from "@tool-runtime/providers/Anthropic"
import * as OpenAIChat from "@tool-runtime/providers/OpenAIChat"
import * as OpenAIResponses from "@tool-runtime/providers/OpenAIResponses"
import type * as Wire from "@tool-runtime/providers/Wire"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as SupportDesk from "../SupportDesk.js"

/**
 * @since 0.2.0
 * @category models
 */
export const formats = ["anthropic", "openai-responses", "openai-chat"] as const

/**
 * @since 0.2.0
 * @category models
 */
export type Format = typeof formats[number]

/** The calls of a message, and how to answer them in the same format. */
interface Decoded extends Wire.Decoded {
  readonly reply: (results: ReadonlyArray<ToolResult.ToolResult>) => unknown
}

const codecs: Record<Format, (payload: unknown) => Decoded> = {
  anthropic: (payload) => {
    const decoded = Anthropic.decodeCalls(payload)
    return { ...decoded, reply: (results) => Anthropic.encodeResults(results, { decoded }) }
  },
  "openai-responses": (payload) => {
    const decoded = OpenAIResponses.decodeCalls(payload)
    return { ...decoded, reply: (results) => OpenAIResponses.encodeResults(results, { decoded }) }
  },
  "openai-chat": (payload) => {
    const decoded = OpenAIChat.decodeCalls(payload)
    return { ...decoded, reply: (results) => OpenAIChat.encodeResults(results) }
  }
}

/** Where the message comes from, as the error messages name it. */
const describeSource = (file: Option.Option<string>) =>
  Option.match(file, { onNone: () => "stdin", onSome: (path) => path })

const readInput = (file: Option.Option<string>) =>
  Option.match(file, {
    onNone: () =>
      Effect.zipRight(
        // Someone at a terminal, not a pipe: tell them the program waits for them.
        process.stdin.isTTY === true
          ? Console.error("Reading the message from stdin; end it with Ctrl-D.")
          : Effect.void,
        NodeStream.toString(() => process.stdin, {
          onFailure: (error) => new CliError.CliError({ message: `Cannot read stdin: ${String(error)}` })
        })
      ),
    onSome: (path) =>
      Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(path)).pipe(
        Effect.mapError((error) =>
          new CliError.CliError({
            message: error._tag === "SystemError" && error.reason === "NotFound"
              ? `--calls ${path}: no such file`
              : `--calls ${path}: cannot be read (${error.message})`
          })
        )
      )
  })

/** Only where the text broke, never the text itself: a message may hold secrets. */
const parseJson = (text: string, source: string) =>
  Either.try(() => JSON.parse(text) as unknown).pipe(
    Either.mapLeft((error) => {
      const at = /position (\d+)/.exec(String(error))?.[1]
      return new CliError.CliError({
        message: text.trim() === ""
          ? `${source} is empty: expected a provider message as JSON`
          : `${source} is not valid JSON${at === undefined ? "" : ` (at character ${at})`}`
      })
    })
  )

/**
 * @since 0.2.0
 * @category models
 */
export interface Flags {
  readonly format: Format
  readonly calls: Option.Option<string>
}

/**
 * Reads the message, runs its calls and prints the reply.
 *
 * @since 0.2.0
 * @category commands
 */
export const run = (flags: Flags) =>
  Effect.gen(function*() {
    // `-` is stdin, as for most filters.
    const file = Option.filter(flags.calls, (path) => path !== "-")
    const source = describeSource(file)
    const payload = yield* parseJson(yield* readInput(file), source)
    const decoded = codecs[flags.format](payload)
    // A message read in part would leave calls without results, which the
    // provider rejects on the next request: nothing runs.
    if (decoded.error !== undefined) {
      return yield* new CliError.CliError({ message: `${source}: ${decoded.error.message}` })
    }
    if (decoded.calls.length === 0) {
      return yield* new CliError.CliError({
        message: `${source}: the ${flags.format} message holds no tool calls, so there is nothing to run`
      })
    }
    const runtime = yield* ToolRuntime.ToolRuntime
    const results = yield* runtime.runTurn(decoded.calls)
    yield* Console.log(JSON.stringify(decoded.reply(results), null, 2))
  })

/**
 * @since 0.2.0
 * @category commands
 */
export const command = Command.make("run", {
  format: Options.choice("format", formats).pipe(
    Options.withDescription("The provider's wire format, of the message read and of the reply printed.")
  ),
  calls: Options.text("calls").pipe(
    Options.withPseudoName("file"),
    Options.optional,
    Options.withDescription("The file holding the message with the tool calls; without it, or with -, stdin.")
  )
}, run).pipe(
  Command.withDescription(
    "Reads a provider message with tool calls (JSON, from --calls or stdin), runs them on the support-desk " +
      "tools and prints the provider's tool-results reply as JSON."
  ),
  // Each run gets a fresh desk.
  Command.provide(SupportDesk.layerRuntime)
)

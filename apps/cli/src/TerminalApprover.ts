/**
 * The person at the terminal as the permission engine's `Approver`: a
 * prompt that shows the tool, its redacted arguments, its risk and why it
 * needs approval, then offers to allow it once, to always allow the rule it
 * displays (exactly that rule is stored), or to deny it with a message for
 * the model, optionally stopping the turn.
 *
 * Ctrl-C at the prompt ends the program, as Ctrl-C does anywhere else
 * (exit code 130, after every finalizer): the terminal is in raw mode
 * there, so the key arrives as input instead of as SIGINT, and is turned
 * into the same interruption by `Quit`.
 *
 * @since 0.1.0
 */
import * as Prompt from "@effect/cli/Prompt"
import * as Terminal from "@effect/platform/Terminal"
import * as Approver from "@tool-runtime/permissions/Approver"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Quit from "./Quit.js"
import * as CliTerminal from "./Terminal.js"

type Choice = "once" | "always" | "deny" | "stop"

/** Long arguments would push the choices off the screen. */
const maxShownChars = 600

const clip = (text: string) =>
  text.length > maxShownChars ? `${text.slice(0, maxShownChars)}… (${CliTerminal.count(text.length)} characters)` : text

/**
 * The lines shown above the choices.
 *
 * @since 0.1.0
 * @category formatting
 */
export const describe = (prompt: Approver.Prompt, style: CliTerminal.Style): ReadonlyArray<string> => [
  style.bold(`Permission needed: ${prompt.toolName}`) +
  `  risk: ${prompt.risk === "high" ? style.red(prompt.risk) : style.yellow(prompt.risk)}` +
  `  ${prompt.readOnly ? "read-only" : "writes"}`,
  `  ${style.dim(prompt.description)}`,
  ...(prompt.subject === undefined ? [] : [`  ${prompt.subject}`]),
  `  arguments: ${clip(prompt.input)}`,
  `  why: ${prompt.reason}`
]

/**
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Approver.Service, never, Terminal.Terminal | Quit.Quit> = Effect.gen(function*() {
  const terminal = yield* Terminal.Terminal
  const quit = yield* Quit.Quit
  const style = yield* CliTerminal.detect
  const ask = (prompt: Approver.Prompt) =>
    Effect.gen(function*() {
      yield* Console.log(["", ...describe(prompt, style)].join("\n"))
      const choices: Array<Prompt.Prompt.SelectChoice<Choice>> = [
        { title: "Allow once", value: "once" },
        ...(prompt.rules.length === 0 ? [] : [{
          title: `Always allow ${prompt.rules.join(", ")}`,
          value: "always" as const,
          description: "stores exactly this rule for the rest of the session"
        }]),
        { title: "Deny, with a message for the model", value: "deny" },
        { title: "Deny and stop the turn", value: "stop" }
      ]
      const choice = yield* Prompt.select({ message: `Allow ${prompt.toolName}?`, choices })
      switch (choice) {
        case "once":
          return Approver.allowOnce
        case "always":
          return Approver.allowAlways
        case "deny":
        case "stop": {
          const message = yield* Prompt.text({ message: "Message for the model (optional)" })
          return Approver.deny(message, { stopTurn: choice === "stop" })
        }
      }
    }).pipe(
      // A new line first: the prompt leaves the cursor after its last choice.
      Effect.catchTag("QuitException", () => Effect.zipRight(Console.log(""), quit.request("interrupted"))),
      Effect.provideService(Terminal.Terminal, terminal)
    )
  return { ask }
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Approver.Approver, never, Terminal.Terminal | Quit.Quit> = Layer.effect(
  Approver.Approver,
  make
)

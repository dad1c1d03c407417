/**
 * The `permissions` command: the support-desk turn run through the
 * permission engine. The model asks to read the ticket, search the help
 * articles, reply to the customer and close the ticket; the mode and the
 * rules given on the command line (and in settings files) decide, and what
 * they leave open is asked in the terminal. Every decision is printed as it
 * is made, with who made it and why.
 *
 * When stdin is not a terminal there is no one to ask: calls that need
 * approval are denied, and the model is told so.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Redactor from "@tool-runtime/core/Redactor"
import * as Registry from "@tool-runtime/core/Registry"
import type * as ToolCall from "@tool-runtime/core/ToolCall"
import * as ToolResult from "@tool-runtime/core/ToolResult"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Approver from "@tool-runtime/permissions/Approver"
import * as Engine from "@tool-runtime/permissions/Engine"
import * as Mode from "@tool-runtime/permissions/Mode"
import * as PermissionAudit from "@tool-runtime/permissions/PermissionAudit"
import * as Rule from "@tool-runtime/permissions/Rule"
import * as Settings from "@tool-runtime/permissions/Settings"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as Flag from "../Flag.js"
import * as SupportDesk from "../SupportDesk.js"
import * as Terminal from "../Terminal.js"
import * as TerminalApprover from "../TerminalApprover.js"

/**
 * The turn: two reads, then the two writes that need a decision.
 *
 * @since 0.1.0
 * @category calls
 */
export const calls: ReadonlyArray<ToolCall.Input> = [
  { id: "toolu_01P1aQ7mWx9fTz2RbN5cLp8E", name: "query_ticket", input: { ticketId: "T-1001" } },
  {
    id: "toolu_01P2nV8sKd2hYq6JmT3wXr7G",
    name: "search_knowledge_base",
    input: { query: "blender arrived cracked, replacement", limit: 1 }
  },
  {
    id: "toolu_01P3pL5tHf3uZe8QkW2yMs4D",
    name: "reply_to_customer",
    input: { ticketId: "T-1001", message: "Hi Ada, a replacement jar ships within 2 business days." }
  },
  { id: "toolu_01P4wE6rTy8uIo4PaS9dFg3H", name: "close_ticket", input: { ticketId: "T-1001", resolution: "resolved" } }
]

const modeOption = Options.choice("mode", Mode.all).pipe(
  Options.withDescription(`Permission mode: ${Mode.all.map((m) => `${m} (${Mode.describe(m)})`).join("; ")}.`),
  Options.optional
)

const rules = (name: string, description: string) =>
  Options.text(name).pipe(Options.repeated, Options.withDescription(description))

const options = {
  mode: modeOption,
  allow: rules(
    "allow",
    "A rule whose calls run without asking, e.g. reply_to_customer or Bash(npm test:*). Repeatable."
  ),
  ask: rules("ask", "A rule whose calls always ask. Repeatable."),
  deny: rules("deny", "A rule whose calls never run, in any mode. Repeatable."),
  // Named on the command line, a file must exist: a typo must not drop its deny rules.
  settings: Flag.existingFiles("settings").pipe(
    Options.withDescription("A settings file ({\"permissions\": {...}}); later files take precedence. Repeatable.")
  )
}

const indexOf = (callId: string) => calls.findIndex((call) => call.id === callId)

const printDecision = (style: Terminal.Style) => (decision: PermissionAudit.Decision) =>
  Console.log(
    `  #${indexOf(decision.callId) + 1} ${style.cyan(decision.toolName)}  ${
      decision.outcome === "allow" ? style.green("allow") : style.red("deny")
    }  by ${PermissionAudit.describe(decision.decidedBy)}: ${decision.reason}` +
      (decision.stored.length === 0 ? "" : `\n     stored for the session: ${decision.stored.join(", ")}`)
  )

const printResults = (results: ReadonlyArray<ToolResult.ToolResult>, style: Terminal.Style) =>
  Effect.forEach(results, (result, i) =>
    Console.log(
      `  #${i + 1} ${style.cyan(result.toolName)}  ${
        result.isError ? style.red(`error ${result.error?.code ?? ""}`) : style.green("ok")
      }\n${Terminal.indent(ToolResult.text(result), "       ")}`
    ), { discard: true })

/**
 * @since 0.1.0
 * @category commands
 */
export const permissions = (flags: {
  readonly mode: Option.Option<Mode.Mode>
  readonly allow: ReadonlyArray<string>
  readonly ask: ReadonlyArray<string>
  readonly deny: ReadonlyArray<string>
  readonly settings: ReadonlyArray<string>
}) =>
  Effect.gen(function*() {
    const style = yield* Terminal.detect
    const settings = Settings.merge(yield* Effect.forEach(flags.settings, Settings.loadFile))
    const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true
    const config = Engine.configFromSettings(settings, {
      workspaceRoot: process.cwd(),
      mode: Option.getOrUndefined(flags.mode),
      onDecision: printDecision(style)
    })
    // Rules from flags are checked before anything runs: a typo stops here.
    const parsed = (list: ReadonlyArray<string>) => Effect.forEach(list, (rule) => Rule.parse(rule))
    const allow = [...(config.allow ?? []), ...(yield* parsed(flags.allow))]
    const ask = [...(config.ask ?? []), ...(yield* parsed(flags.ask))]
    const deny = [...(config.deny ?? []), ...(yield* parsed(flags.deny))]
    const mode = config.mode ?? "default"
    const text = (list: ReadonlyArray<string | Rule.Rule>) =>
      list.length === 0 ? "none" : list.map((r) => typeof r === "string" ? r : Rule.print(r)).join(", ")

    const policy = Engine.layer({ ...config, allow, ask, deny }).pipe(
      Layer.provide([interactive ? TerminalApprover.layer : Approver.layerHeadless, Redactor.layerDefault])
    )
    const store = ArtifactStore.layerMemory()
    // One engine, both the runtime's policy and the handle that reads the session rules.
    const runtime = ToolRuntime.layer().pipe(
      Layer.provide([Registry.layer(SupportDesk.tools), store, Redactor.layerDefault]),
      Layer.provideMerge(policy),
      Layer.provide([store, SupportDesk.layer])
    )

    yield* Console.log(
      style.bold("tool-runtime permissions: the support-desk turn through the permission engine") + "\n"
    )
    yield* Console.log(`Mode: ${mode} (${Mode.describe(mode)})`)
    yield* Console.log(`Rules: allow ${text(allow)}; ask ${text(ask)}; deny ${text(deny)}`)
    if (settings.sources.length > 0) yield* Console.log(`Settings: ${settings.sources.join(", ")}`)
    yield* Console.log(
      `Approvals: ${interactive ? "asked in this terminal" : "no terminal, so calls that need approval are denied"}\n`
    )
    yield* Console.log(style.bold("The model asks for"))
    yield* Console.log(
      calls.map((call, i) => `  #${i + 1} ${style.cyan(call.name)}  ${JSON.stringify(call.input)}`).join("\n")
    )
    yield* Console.log(`\n${style.bold("Decisions")}, as they are made`)
    const { results, sessionRules } = yield* Effect.gen(function*() {
      const tools = yield* ToolRuntime.ToolRuntime
      const engine = yield* Engine.Engine
      const results = yield* tools.runTurn(calls)
      return { results, sessionRules: yield* engine.sessionRules }
    }).pipe(Effect.provide(runtime))
    yield* Console.log(`\n${style.bold("Results")}, in the order of the calls`)
    yield* printResults(results, style)
    yield* Console.log(`\nSession rules added by "always allow": ${text(sessionRules)}`)
  }).pipe(
    // A bad rule or settings file: say what is wrong, exit 1.
    Effect.catchTags({
      InvalidRule: (error) => Effect.fail(new CliError.CliError({ message: error.message })),
      SettingsError: (error) => Effect.fail(new CliError.CliError({ message: error.message }))
    })
  )

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("permissions", options, permissions).pipe(
  Command.withDescription(
    "Runs a support-desk turn through the permission engine: --mode, --allow, --ask and --deny decide, " +
      "and a prompt in the terminal asks about the rest."
  )
)

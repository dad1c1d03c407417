/**
 * An engine over a scripted approver, and what its tests read of a decision:
 * who decided, and whether a person was asked.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { assert } from "@effect/vitest"
import * as Redactor from "@tool-runtime/core/Redactor"
import type * as ToolError from "@tool-runtime/core/ToolError"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Approver from "../src/Approver.js"
import * as Engine from "../src/Engine.js"
import type * as PermissionAudit from "../src/PermissionAudit.js"
import * as LinkFileSystem from "./LinkFileSystem.js"
import { bash, request, workspaceRoot } from "./SampleTools.js"

export type Answerer = (
  prompt: Approver.Prompt,
  index: number
) => Approver.Answer | Effect.Effect<Approver.Answer, Approver.Unavailable>

/** An engine over a scripted approver, with its prompts and audit trail. */
export const engineWith = (
  config: Omit<Engine.Config, "workspaceRoot"> & { readonly workspaceRoot?: string },
  answer: Answerer = () => Approver.allowOnce,
  approver?: Approver.Service
) =>
  Effect.gen(function*() {
    const scripted = yield* Approver.makeScripted(answer)
    const decisions = yield* Ref.make<ReadonlyArray<PermissionAudit.Decision>>([])
    const engine = yield* Engine.make({
      workspaceRoot,
      ...config,
      onDecision: (decision) => Ref.update(decisions, (all) => [...all, decision])
    }).pipe(
      Effect.provideService(Approver.Approver, approver ?? scripted.service),
      Effect.provideService(Redactor.Redactor, Redactor.make()),
      Effect.provideService(FileSystem.FileSystem, LinkFileSystem.fileSystem)
    )
    return { engine, prompts: scripted.prompts, decisions: Ref.get(decisions) }
  })

export type Outcome = "allow:mode" | "allow:rule" | "allow:sandbox" | "ask" | "deny:rule" | "deny:mode" | "other"

/** What happened to one call: who decided, and whether a person was asked. */
/** The last decision the engine recorded. */
export const lastDecision = (subject: Effect.Effect.Success<ReturnType<typeof engineWith>>) =>
  Effect.map(subject.decisions, (all) => all.at(-1)!)

/** The last question put to the person. */
export const lastPrompt = (subject: Effect.Effect.Success<ReturnType<typeof engineWith>>) =>
  Effect.map(subject.prompts, (all) => all.at(-1)!)

export const outcomeOf = (
  subject: Effect.Effect.Success<ReturnType<typeof engineWith>>,
  req: Parameters<Engine.Service["authorize"]>[0]
) =>
  Effect.gen(function*() {
    const asked = (yield* subject.prompts).length
    const exit = yield* Effect.exit(subject.engine.authorize(req))
    if ((yield* subject.prompts).length > asked) return "ask" as Outcome
    const decision = (yield* subject.decisions).at(-1)!
    const by = decision.decidedBy._tag === "Mode"
      ? "mode"
      : decision.decidedBy._tag === "Rule"
      ? "rule"
      : decision.decidedBy._tag === "Sandbox"
      ? "sandbox"
      : "other"
    if (by === "other") return "other" as Outcome
    return `${Exit.isSuccess(exit) ? "allow" : "deny"}:${by}` as Outcome
  })

export const deniedWith = <A>(exit: Exit.Exit<A, ToolError.PermissionDenied | ToolError.HookFailed>) => {
  assert.isTrue(Exit.isFailure(exit), "expected a denial")
  const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
  assert.isTrue(Option.isSome(failure) && failure.value._tag === "PermissionDenied", "expected PermissionDenied")
  return (failure as Option.Some<ToolError.PermissionDenied>).value
}

/** Each line's outcome as the bash tool's command, under one engine; a person asked answers no. */
export const outcomesOf = (config: Parameters<typeof engineWith>[0], lines: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const subject = yield* engineWith(config, () => Approver.deny("no"))
    const out: Record<string, Outcome> = {}
    for (const line of lines) out[line] = yield* outcomeOf(subject, request(bash, { command: line }))
    return out
  })

/** The record `outcomesOf` gives when every line has one outcome. */
export const allOutcomes = (lines: ReadonlyArray<string>, outcome: Outcome): Record<string, Outcome> =>
  Object.fromEntries(lines.map((line) => [line, outcome]))

/** The rows whose outcome under `config` is not the one expected, as `line: got, expected …`. */
export const wrongOutcomes = (
  config: Parameters<typeof engineWith>[0],
  rows: ReadonlyArray<readonly [line: string, expected: Outcome]>
) =>
  Effect.gen(function*() {
    const subject = yield* engineWith(config)
    const wrong: Array<string> = []
    for (const [line, expected] of rows) {
      const got = yield* outcomeOf(subject, request(bash, { command: line }))
      if (got !== expected) wrong.push(`${line}: ${got}, expected ${expected}`)
    }
    return wrong
  })

/**
 * The lines, each of which runs `rm -rf /`, that an engine lets run unseen:
 * in bypassPermissions the destruction check must ask, and a `Bash(rm:*)`
 * deny rule must deny. Each that fails either, as `line: outcome, outcome`.
 */
export const unseenRemovals = (lines: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const bypass = yield* engineWith({ mode: "bypassPermissions" })
    const denying = yield* engineWith({ mode: "bypassPermissions", deny: ["Bash(rm:*)"] })
    const wrong: Array<string> = []
    for (const line of lines) {
      const destruction = yield* outcomeOf(bypass, request(bash, { command: line }))
      const denied = yield* outcomeOf(denying, request(bash, { command: line }))
      if (destruction !== "ask" || denied !== "deny:rule") wrong.push(`${line}: ${destruction}, ${denied}`)
    }
    return wrong
  })

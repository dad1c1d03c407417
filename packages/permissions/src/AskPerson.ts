/**
 * AskPerson: asking the person about a call, and what each answer decides
 * (once, always with the rules shown, with a changed input checked against
 * the deny rules again, or a deny). Apart from the evaluation order because
 * every step that cannot decide ends here, and the mode and the sandbox
 * decide first whether anyone is asked.
 *
 * @since 0.4.0
 */
import type * as Policy from "@tool-runtime/core/Policy"
import type * as Redactor from "@tool-runtime/core/Redactor"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Approver from "./Approver.js"
import type * as CommandLine from "./CommandLine.js"
import type * as DecisionRecord from "./DecisionRecord.js"
import type * as DenyCheck from "./DenyCheck.js"
import * as Mode from "./Mode.js"
import type * as PermissionAudit from "./PermissionAudit.js"
import type * as PermissionHooks from "./PermissionHooks.js"
import type * as Rule from "./Rule.js"
import * as RuleMatch from "./RuleMatch.js"
import * as SandboxRules from "./SandboxRules.js"

/**
 * What asking about one call needs: the engine's rules and services, and
 * the call as the evaluation read it.
 *
 * @since 0.4.0
 * @category models
 */
export interface Call {
  readonly request: Policy.Request
  readonly mode: Mode.Mode
  readonly facts: Mode.Facts
  readonly target: RuleMatch.Target
  readonly placement: Extract<RuleMatch.Target, { readonly _tag: "Command" }>["sandbox"]
  readonly unconfined: boolean
  readonly before: PermissionHooks.BeforeOutcome
  readonly writable: (path: string) => boolean
  readonly recorder: DecisionRecord.Recorder
  readonly allowed: (
    decidedBy: PermissionAudit.DecidedBy,
    reason: string,
    target: RuleMatch.Target,
    extra?: { readonly asked?: boolean; readonly stored?: ReadonlyArray<string> }
  ) => Effect.Effect<Policy.Verdict>
  readonly verdict: (notes: ReadonlyArray<string>, input: unknown, rewritten: boolean) => Policy.Verdict
  readonly asking: Effect.Semaphore
  readonly session: Session
  readonly forTool: (rules: ReadonlyArray<RuleMatch.Compiled>, name: string) => ReadonlyArray<RuleMatch.Compiled>
  readonly allowRules: ReadonlyArray<RuleMatch.Compiled>
  readonly location: Rule.Location
  readonly redactor: Redactor.Service
  readonly redact: (text: string) => string
  readonly approver: Approver.Service
  readonly withLinks: (target: RuleMatch.Target) => Effect.Effect<RuleMatch.Target>
  readonly commandLine: CommandLine.Service
  readonly denyCheck: DenyCheck.Service
}

/**
 * The rules "always allow" stored in the session: a new list replaces the
 * old one (never changed in place, so a list is a version of the rules).
 *
 * @since 0.4.0
 * @category models
 */
export interface Session {
  readonly get: () => ReadonlyArray<RuleMatch.Compiled>
  readonly set: (rules: ReadonlyArray<RuleMatch.Compiled>) => void
}

/**
 * Asks the person about the call, unless the mode or the sandbox answers first.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make = (call: Call) => {
  const {
    allowRules,
    allowed,
    approver,
    asking,
    before,
    commandLine,
    denyCheck,
    facts,
    forTool,
    location,
    mode,
    placement,
    redact,
    redactor,
    request,
    session,
    target,
    unconfined,
    verdict,
    withLinks,
    writable
  } = call
  const { denied, inputText, record, setSandboxRule, trail } = call.recorder
  const tool = request.tool
  /**
   * `required`: the mode may deny the question but never answer it with an
   * allow. `hint`: what the model can do instead, told when no one answers.
   */
  const askPerson = (why: string, offer: boolean, required = false, hint?: string) =>
    Effect.gen(function*() {
      if (unconfined) setSandboxRule("unsandboxed-always-asks")
      const answer = required && !unconfined
        ? Mode.onRequiredAsk(mode, facts, why)
        : SandboxRules.onAsk(
          mode,
          facts,
          placement,
          hint === undefined ? undefined : { cause: why, hint }
        )
      if (answer._tag === "Allow") return yield* allowed({ _tag: "Mode", mode }, answer.reason, target)
      if (answer._tag === "Deny") {
        return yield* denied({ _tag: "Mode", mode }, answer.reason, { input: before.input, target })
      }
      return yield* asking.withPermits(1)(Effect.gen(function*() {
        if (offer) {
          // Another call's "always allow" may have covered this one while it waited.
          const rules = RuleMatch.allowMatch(
            forTool(session.get(), tool.name),
            target,
            location,
            writable
          )
          if (rules !== undefined) {
            return yield* allowed(
              { _tag: "Rule", list: "session", rules },
              "allowed for the session by the person",
              target
            )
          }
        }
        const suggested = offer
          ? RuleMatch.suggest(
            tool,
            target,
            [...forTool(allowRules, tool.name), ...forTool(session.get(), tool.name)],
            location
          )
          : []
        // A rule that would hold a secret is not offered: it would be shown,
        // stored and logged, and redacting it would make it match nothing.
        const rules = suggested.some((rule) => redactor.redact(rule).count > 0) ? [] : suggested
        const subject = RuleMatch.describeSubject(target)
        const prompt: Approver.Prompt = {
          callId: redact(request.callId),
          toolName: tool.name,
          description: tool.description,
          risk: tool.risk,
          readOnly: tool.readOnly,
          input: inputText(before.input),
          subject: subject === undefined ? undefined : redact(subject),
          reason: redact(why),
          rules
        }
        trail.push(`asked: ${why}`)
        const reply = yield* approver.ask(prompt).pipe(
          // A prompt that crashes is no one to ask: the call is denied, the turn goes on.
          Effect.catchAllDefect(() => Effect.fail(new Approver.Unavailable({ reason: "the approval prompt failed" }))),
          Effect.either
        )
        if (Either.isLeft(reply)) {
          return yield* denied(
            { _tag: "NoApprover" },
            `it needs approval (${why}) and ${reply.left.reason}. ${
              hint ?? "Use tools the permission rules allow, or tell the user what you need"
            }`,
            { input: before.input, target }
          )
        }
        const answer = reply.right
        switch (answer._tag) {
          case "AllowOnce":
            return yield* allowed(
              { _tag: "Approver", answer: "allow_once" },
              "the person allowed it once",
              target,
              { asked: true }
            )
          case "AllowAlways": {
            // Exactly the displayed rules: nothing the person did not see.
            const stored = yield* RuleMatch.compileAll(rules, location, "allow").pipe(Effect.orDie)
            const current = session.get()
            const known = new Set(current.map((rule) => rule.text))
            session.set([...current, ...stored.filter((rule) => !known.has(rule.text))])
            return yield* allowed(
              { _tag: "Approver", answer: rules.length === 0 ? "allow_once" : "allow_always" },
              rules.length === 0
                ? "the person allowed it (no rule could be stored for it)"
                : `the person allowed it always: ${rules.join(", ")}`,
              target,
              { asked: true, stored: rules }
            )
          }
          case "AllowWithInput": {
            const note = answer.note === undefined || answer.note === ""
              ? "the person approving the call changed it"
              : `the person approving the call changed it: ${answer.note}`
            const decoded = tool.decode(answer.input)
            // A changed input is checked against the deny rules again:
            // deny wins over the person too. One that does not decode is
            // rejected by the runtime's validation before it runs.
            const changed = Either.isRight(decoded)
              ? yield* withLinks(RuleMatch.analyse(tool.subject(decoded.right), location, commandLine))
              : undefined
            const match = changed === undefined ? undefined : denyCheck.match(tool.name, changed)
            if (match !== undefined) {
              return yield* denied(
                { _tag: "Rule", list: "deny", rules: [match.rule] },
                `the deny rule ${match.rule} forbids the changed input${
                  match.detail === undefined ? "" : ` (${match.detail})`
                }`,
                { input: answer.input, target: changed, asked: true }
              )
            }
            yield* record("allow", { _tag: "Approver", answer: "allow_with_input" }, note, {
              input: answer.input,
              target: changed,
              rewritten: true,
              asked: true
            })
            return verdict([...before.notes, note], answer.input, true)
          }
          case "Deny":
            return yield* denied(
              { _tag: "Approver", answer: "deny" },
              answer.message.trim() === "" ? "the user denied it" : `the user denied it: ${answer.message}`,
              { input: before.input, target, asked: true },
              answer.stopTurn
            )
        }
      }))
    })

  return askPerson
}

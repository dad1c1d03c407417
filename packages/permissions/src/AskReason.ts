/**
 * Why a call that nothing allowed needs a person, in words the model can act
 * on: the real cause (a path outside the workspace, a line that is not a
 * plain command, a wrapper whose command could not be read, a glob or a
 * recursive read that could reach denied files, a command no rule covers)
 * and what to do instead. The person sees the cause in the prompt; the
 * model, when no one can answer (`dontAsk`, a headless approver), sees both.
 * The engine redacts them, as every reason.
 *
 * Internal to the package, like `RuleMatch`: the index does not export it.
 *
 * @since 0.4.0
 */
import type * as ReadReach from "./ReadReach.js"
import type * as RuleMatch from "./RuleMatch.js"

/**
 * @since 0.4.0
 * @category models
 */
export type Reason = RuleMatch.Gap

const generic = "Use tools the permission rules allow, or tell the user what you need"

/**
 * The reason for a call the mode did not decide (`stepReason`, such as "it
 * is not read-only") and the allow rules did not cover (`gap`, what
 * `RuleMatch.allowOrGap` found, for a command).
 *
 * @since 0.4.0
 * @category constructors
 */
export const of = (target: RuleMatch.Target, stepReason: string, gap: RuleMatch.Gap | undefined): Reason => {
  switch (target._tag) {
    case "Command":
      return gap ?? { cause: `${stepReason} and no rule allows it`, hint: generic }
    case "Path": {
      const outside = target.paths.find((path) => path !== target.path) ?? target.path
      const leads = outside === target.path ? "" : `, which leads to ${outside}`
      if (!target.inside) {
        return target.access === "read"
          ? {
            cause: `it reads ${target.path}${leads}, outside the workspace`,
            hint: "Read files inside the workspace, or tell the user what you need from outside it"
          }
          : {
            cause: `it writes ${target.path}${leads}, outside the workspace`,
            hint: "Write files inside the workspace, or tell the user what you need outside it"
          }
      }
      return { cause: `${stepReason} and no rule allows it`, hint: generic }
    }
    case "None":
    case "Url":
      return { cause: `${stepReason} and no rule allows it`, hint: generic }
  }
}

/**
 * The reason for a command line that could read files a Read rule guards
 * without naming them.
 *
 * @since 0.4.0
 * @category constructors
 */
export const ofReach = (reach: ReadReach.Reach): Reason => ({
  cause: `it could read files that the ${reach.guard.list} rule ${reach.guard.rule} protects (${reach.how})`,
  hint: "Name the files, or narrow the search"
})

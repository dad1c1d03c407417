/**
 * The authorization stage's service: decides whether a valid call may run.
 * It runs after validation, so nobody is ever asked to approve an invalid
 * call. This module ships the two simplest policies; the rule engine with
 * modes and approvals builds on the same interface.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Subject_ from "./Subject.js"
import type * as Tool from "./Tool.js"
import * as ToolError from "./ToolError.js"

/**
 * What the policy sees of a call: the decoded input, never the raw string.
 *
 * @since 0.1.0
 * @category models
 */
export interface Request {
  readonly callId: string
  readonly tool: Tool.Any
  readonly input: unknown
  /** What the call acts on, as the tool describes it (a command, a path, a URL), for rules to match. */
  readonly subject: Subject
}

/**
 * What a call acts on, in the terms permission rules are written in (its
 * own module, so that `Tool` can name it without importing this one).
 *
 * @since 0.1.0
 * @category models
 */
export type Subject = Subject_.Subject

/**
 * @since 0.1.0
 * @category constructors
 */
export const noSubject: Subject = Subject_.none

/**
 * A policy's answer when it does not deny. `Rewrite` replaces the input; the
 * runtime validates the new input again and tells the model it changed.
 *
 * @since 0.1.0
 * @category models
 */
export type Verdict =
  | { readonly _tag: "Allow" }
  | { readonly _tag: "Rewrite"; readonly input: unknown; readonly note: string }

/**
 * Why a path that a running call reached by itself may not be used: a deny
 * rule keeps it from the call (`deny`), or an ask rule wants a person to
 * decide on it, and nobody can be asked in the middle of a call (`ask`).
 * `rule` is the rule as written; never the path, which the caller knows.
 *
 * @since 0.4.0
 * @category models
 */
export interface PathRefusal {
  readonly verdict: "deny" | "ask"
  readonly rule: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * Fails with `HookFailed` when a hook the policy runs before the call
   * fails or hangs: the call does not run, and the model is told the
   * environment, not its call, is at fault.
   */
  readonly authorize: (request: Request) => Effect.Effect<Verdict, ToolError.PermissionDenied | ToolError.HookFailed>
  /**
   * Whether a running call of `toolName` may read (or write) `path`, an
   * absolute real path it reached by itself rather than named: a file a
   * search opens, an entry a listing or a walk shows. `authorize` only sees
   * what the call names (`grep` over `.`); a path deny rule must reach every
   * read, so the tools that walk ask here for each path they meet and skip
   * what is refused. Synchronous: it runs once per file of a walk.
   *
   * @since 0.4.0
   */
  readonly checkPath: (toolName: string, path: string, access: "read" | "write") => PathRefusal | undefined
}

/**
 * @since 0.1.0
 * @category tags
 */
export class Policy extends Context.Tag("@tool-runtime/core/Policy")<Policy, Service>() {}

/**
 * @since 0.1.0
 * @category constructors
 */
export const allow: Verdict = { _tag: "Allow" }

const allowed = Effect.succeed(allow)

/**
 * Every valid call runs. For trusted, scripted settings and tests.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerAllowAll: Layer.Layer<Policy> = Layer.succeed(Policy, {
  authorize: () => allowed,
  checkPath: () => undefined
})

/**
 * A deny rule: a tool name, or a pattern with `*` wildcards (`mcp__*`), and
 * optionally a predicate on the decoded input.
 *
 * @since 0.1.0
 * @category models
 */
export interface DenyRule {
  readonly tool: string
  readonly when?: ((input: unknown) => boolean) | undefined
  readonly reason: string
}

/**
 * Compiles a name pattern; `*` matches any run of characters, nothing else
 * is special.
 *
 * @since 0.1.0
 * @category rules
 */
export const matchName = (pattern: string): (name: string) => boolean => {
  if (!pattern.includes("*")) return (name) => name === pattern
  const source = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")
  const regex = new RegExp(`^${source}$`)
  return (name) => regex.test(name)
}

/**
 * Denies calls that match any rule; allows the rest.
 *
 * @since 0.1.0
 * @category constructors
 */
export const denyByRule = (rules: ReadonlyArray<DenyRule>): Service => {
  const compiled = rules.map((rule) => ({ rule, matches: matchName(rule.tool) }))
  return {
    authorize: (request) => {
      for (const { matches, rule } of compiled) {
        if (matches(request.tool.name) && (rule.when === undefined || rule.when(request.input))) {
          return Effect.fail(
            new ToolError.PermissionDenied({
              toolName: request.tool.name,
              reason: rule.reason,
              decidedBy: `deny rule ${rule.tool}`
            })
          )
        }
      }
      return allowed
    },
    // The rules see decoded inputs, not paths: they have nothing to say about a path a call meets.
    checkPath: () => undefined
  }
}

/**
 * @since 0.1.0
 * @category layers
 */
export const layerDenyByRule = (rules: ReadonlyArray<DenyRule>): Layer.Layer<Policy> =>
  Layer.succeed(Policy, denyByRule(rules))

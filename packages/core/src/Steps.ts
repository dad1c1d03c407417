/**
 * Composition for the per-call path, where most stages are done the moment
 * they are made (`Effect.succeed` and `Effect.fail` are `Exit`s): applying
 * the next stage at once to a value already there saves the run loop two
 * steps a stage, and a call has a dozen. The result is the same effect
 * `Effect.flatMap` and friends would make; only when it is built differs,
 * so these are used where the effect is built as it runs (inside a
 * `suspend`, or a stage's own continuation).
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"

const done = <A, E, R>(self: Effect.Effect<A, E, R>): Exit.Exit<A, E> | undefined =>
  Exit.isExit(self) ? (self as Exit.Exit<A, E>) : undefined

/** `Effect.flatMap`, with `f` applied at once to a success already there. */
export const flatMap = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  f: (a: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> => {
  const exit = done(self)
  // A failure carries no value: it is the same failure whatever `f` would have made.
  if (exit !== undefined) return Exit.isSuccess(exit) ? f(exit.value) : (exit as Exit.Exit<never, E>)
  return Effect.flatMap(self, f)
}

/** `Effect.match`, on an outcome already there without a step. */
export const match = <A, E, R, B>(
  self: Effect.Effect<A, E, R>,
  options: { readonly onFailure: (e: E) => B; readonly onSuccess: (a: A) => B }
): Effect.Effect<B, never, R> => {
  const exit = done(self)
  if (exit !== undefined) {
    if (Exit.isSuccess(exit)) return Effect.succeed(options.onSuccess(exit.value))
    const failure = Cause.failureOrCause(exit.cause)
    if (failure._tag === "Left") return Effect.succeed(options.onFailure(failure.left))
  }
  return Effect.match(self, options)
}

/** `Effect.catchAllCause`, with `f` applied at once to a failure already there. */
export const catchAllCause = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  f: (cause: Cause.Cause<E>) => Effect.Effect<B, E2, R2>
): Effect.Effect<A | B, E2, R | R2> => {
  const exit = done(self)
  // A success carries no error: it is the same success whatever `f` would catch.
  if (exit !== undefined) return Exit.isSuccess(exit) ? (exit as Exit.Exit<A, never>) : f(exit.cause)
  return Effect.catchAllCause(self, f)
}

/**
 * `Effect.catchAllDefect`, with `f` applied at once to a defect already
 * there. A failure without a defect (an error, an interruption) is left
 * as it is, as `Effect.catchAllDefect` leaves it.
 */
export const catchAllDefect = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  f: (defect: unknown) => Effect.Effect<B, E2, R2>
): Effect.Effect<A | B, E | E2, R | R2> => {
  const exit = done(self)
  if (exit === undefined) return Effect.catchAllDefect(self, f)
  if (Exit.isSuccess(exit)) return exit
  const defect = Cause.dieOption(exit.cause)
  return defect._tag === "Some" ? f(defect.value) : exit
}

/**
 * One output budget for everything a turn returns. A tool's `outputLimit`
 * bounds each result; four parallel results each at their limit can still
 * fill a model's context. The budget bounds their sum: the text of all the
 * turn's results together (images are not counted: each provider prices
 * them its own way).
 *
 * Results that fit are never cut to make room in advance: small results
 * are kept whole, and the large ones share the rest equally (see
 * {@link Budget}). A result cut for the budget says so in its text and in
 * `meta.truncation.reason`, and its full output is stored like any
 * truncated output.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import type * as ToolResult from "./ToolResult.js"
import * as Truncation from "./Truncation.js"

/**
 * The option: characters, or approximate tokens.
 *
 * @since 0.4.0
 * @category models
 */
export type Option = number | { readonly tokens: number }

/**
 * What one call may use.
 *
 * @since 0.4.0
 * @category models
 */
export interface Share {
  readonly amount: number
  readonly unit: Truncation.Unit
}

/**
 * The least a call is given, whatever the budget: room for the short note
 * that says where its output went. A budget below this many per call is
 * raised to it.
 *
 * @since 0.4.0
 * @category defaults
 */
export const floor: { readonly [U in Truncation.Unit]: number } = { chars: 240, tokens: 64 }

/**
 * Whether an option sets no budget at all: none given, or `Infinity`.
 *
 * @since 0.4.0
 * @category models
 */
export const isUnbounded = (option: Option | undefined): option is undefined =>
  option === undefined || (typeof option === "number" ? option : option.tokens) === Infinity

/**
 * The size of a result as the budget counts it: its text blocks.
 *
 * @since 0.4.0
 * @category measuring
 */
export const sizeOf = (result: ToolResult.ToolResult, unit: Truncation.Unit): number => {
  let size = 0
  for (const block of result.content) if (block._tag === "text") size += Truncation.measure(block.text, unit)
  return size
}

/**
 * A turn's budget as it is being spent. It is a water-filling: results
 * small enough are kept whole, and the rest share what they leave equally,
 * each cut to the same level. A result is kept at once, its event sent,
 * when it is no larger than the room left divided by the calls not yet
 * kept: whatever the others turn out to be, the final level is at least
 * that. Larger ones wait for the turn's end, when every size is known.
 *
 * @since 0.4.0
 * @category models
 */
export class Budget {
  private remaining: number
  private unsettled: number
  private readonly held: Array<Held> = []
  readonly unit: Truncation.Unit
  /** The budget in force: the one asked for, or the floor for this many calls when that is more. */
  readonly total: number
  constructor(option: Option, calls: number) {
    this.unit = typeof option === "number" ? "chars" : "tokens"
    const asked = Math.floor(typeof option === "number" ? option : option.tokens)
    // NaN and negative budgets are raised to the floor too: the floor is what
    // the promise can keep.
    this.total = Math.max(Number.isFinite(asked) ? asked : 0, floor[this.unit] * calls)
    this.remaining = this.total
    this.unsettled = calls
  }
  /**
   * Offers a call's result: `true` when it is kept as it is, now; `false`
   * when it waits for {@link settle}, which may cut it with `fit`.
   */
  offer(index: number, result: ToolResult.ToolResult, fit: Fit): boolean {
    const size = sizeOf(result, this.unit)
    if (size <= Math.floor(this.remaining / Math.max(1, this.unsettled))) {
      this.remaining -= size
      this.unsettled--
      return true
    }
    this.held.push({ index, size, fit })
    return false
  }
  /** The results that waited, each whole or cut to the level, with their call's index. */
  settle(): Effect.Effect<ReadonlyArray<readonly [number, ToolResult.ToolResult]>> {
    return Effect.suspend(() => this.settleHeld())
  }
  private settleHeld(): Effect.Effect<ReadonlyArray<readonly [number, ToolResult.ToolResult]>> {
    const held = this.held.splice(0).sort((a, b) => a.size - b.size)
    let left = this.remaining
    let k = held.length
    return Effect.forEach(held, ({ fit, index }) => {
      const share: Share = { amount: Math.floor(left / Math.max(1, k)), unit: this.unit }
      k--
      return Effect.map(fit(share), (result) => {
        left -= Math.min(share.amount, sizeOf(result, this.unit))
        return [index, result] as const
      })
    }).pipe(
      Effect.tap(() => {
        this.remaining = left
        this.unsettled -= held.length
      })
    )
  }
}

/**
 * Cuts a result to a share (and leaves one that fits as it is).
 *
 * @since 0.4.0
 * @category models
 */
export type Fit = (share: Share) => Effect.Effect<ToolResult.ToolResult>

interface Held {
  readonly index: number
  readonly size: number
  readonly fit: Fit
}

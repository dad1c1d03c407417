/**
 * How the CLI draws on a terminal: aligned text tables and a few colors.
 * Colors are plain ANSI escapes and only used when stdout is a terminal
 * (and `NO_COLOR` is unset), so piped output, logs and tests read clean
 * text.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"

/**
 * @since 0.1.0
 * @category models
 */
export interface Style {
  readonly bold: (text: string) => string
  readonly dim: (text: string) => string
  readonly green: (text: string) => string
  readonly red: (text: string) => string
  readonly yellow: (text: string) => string
  readonly cyan: (text: string) => string
}

const same = (text: string) => text

/**
 * @since 0.1.0
 * @category constructors
 */
export const plain: Style = { bold: same, dim: same, green: same, red: same, yellow: same, cyan: same }

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`

/**
 * @since 0.1.0
 * @category constructors
 */
export const ansi: Style = {
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  green: sgr(32, 39),
  red: sgr(31, 39),
  yellow: sgr(33, 39),
  cyan: sgr(36, 39)
}

/**
 * The style for this process's stdout (see https://no-color.org).
 *
 * @since 0.1.0
 * @category constructors
 */
export const detect: Effect.Effect<Style> = Effect.sync(() =>
  process.stdout.isTTY === true && (process.env.NO_COLOR ?? "") === "" ? ansi : plain
)

/**
 * Left-aligned columns. Cells are measured before they are styled, so
 * escape codes never skew the alignment.
 *
 * @since 0.1.0
 * @category formatting
 */
export const table = (
  header: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  style: Style
): ReadonlyArray<string> => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) => i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)).join("  ")
  return [style.bold(line(header)), ...rows.map(line)]
}

/**
 * Indents every line of a possibly multi-line text.
 *
 * @since 0.1.0
 * @category formatting
 */
export const indent = (text: string, by: string): string =>
  text
    .split("\n")
    .map((l) => by + l)
    .join("\n")

/**
 * `1,234` rather than `1234`: limits read better grouped.
 *
 * @since 0.1.0
 * @category formatting
 */
export const count = (n: number): string => n.toLocaleString("en-US")

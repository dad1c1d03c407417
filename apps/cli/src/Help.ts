/**
 * The help pages, rendered here from the `HelpDoc` that `@effect/cli`
 * builds: its own renderer pads every subcommand's description past the
 * longest usage line and never wraps, so descriptions run off the screen or
 * break mid-word, and it always prints ANSI escapes, piped or not.
 *
 * Text is wrapped at word boundaries to the terminal's width (80 columns
 * when stdout is not a terminal), and styled only when `Terminal.detect`
 * says so (a terminal, `NO_COLOR` unset).
 *
 * @since 0.2.0
 */
import type * as CliConfig from "@effect/cli/CliConfig"
import * as HelpDoc from "@effect/cli/HelpDoc"
import type * as Span from "@effect/cli/HelpDoc/Span"
import * as Usage from "@effect/cli/Usage"
import * as Effect from "effect/Effect"
import * as Terminal from "./Terminal.js"

/**
 * Where the help is printed: how wide, and with which style.
 *
 * @since 0.2.0
 * @category models
 */
export interface Layout {
  readonly width: number
  readonly style: Terminal.Style
}

/** Narrower than this, wrapping leaves a word or two a line: not worth it. */
const minWidth = 40

/**
 * The layout of this process's stdout.
 *
 * @since 0.2.0
 * @category constructors
 */
export const detect: Effect.Effect<Layout> = Effect.map(Terminal.detect, (style) => ({
  width: process.stdout.isTTY === true && (process.stdout.columns ?? 0) > 0 ? process.stdout.columns : 80,
  style
}))

/**
 * The plain text of a span, without its styles.
 *
 * @since 0.2.0
 * @category formatting
 */
export const text = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Highlight":
    case "Strong":
    case "Weak":
      return text(span.value)
    case "Sequence":
      return text(span.left) + text(span.right)
  }
}

/**
 * The plain text of a document on one line, for an error message.
 *
 * @since 0.2.0
 * @category formatting
 */
export const oneLine = (doc: HelpDoc.HelpDoc): string =>
  lines(doc, Infinity, Terminal.plain)
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ")

/**
 * Breaks a text into lines of at most `width` characters at spaces; a word
 * longer than the line keeps a line of its own rather than being cut.
 *
 * @since 0.2.0
 * @category formatting
 */
export const wrap = (value: string, width: number): ReadonlyArray<string> =>
  value.split("\n").flatMap((paragraph) => {
    const out: Array<string> = []
    let line = ""
    for (const word of paragraph.split(" ").filter((w) => w !== "")) {
      if (line === "") line = word
      else if (line.length + 1 + word.length <= width) line = `${line} ${word}`
      else {
        out.push(line)
        line = word
      }
    }
    out.push(line)
    return out
  })

const blocks = (doc: HelpDoc.HelpDoc): ReadonlyArray<HelpDoc.HelpDoc> =>
  HelpDoc.isSequence(doc) ? [...blocks(doc.left), ...blocks(doc.right)] : HelpDoc.isEmpty(doc) ? [] : [doc]

const indent = (by: string) => (line: string) => line === "" ? line : by + line

/**
 * `@effect/cli` writes a subcommand's entry as one paragraph: the usage,
 * spaces up to the longest usage of all, then the description. Split at
 * that padding, the two are laid out one under the other.
 */
const columns = (doc: HelpDoc.HelpDoc): readonly [Span.Span, Span.Span] | undefined => {
  if (!HelpDoc.isParagraph(doc) || doc.value._tag !== "Sequence") return undefined
  const { left, right } = doc.value
  return left._tag === "Sequence" && left.right._tag === "Text" && /^ {2,}$/.test(left.right.value)
    ? [left.left, right]
    : undefined
}

const lines = (doc: HelpDoc.HelpDoc, width: number, style: Terminal.Style): ReadonlyArray<string> => {
  switch (doc._tag) {
    case "Empty":
      return []
    case "Header":
      return wrap(text(doc.value), width).map(style.bold)
    case "Paragraph": {
      // A command line (`$ tool-runtime agent [...]`) keeps its continuation lines indented.
      const value = text(doc.value)
      if (!value.startsWith("$ ")) return wrap(value, width)
      const [first = "", ...rest] = wrap(value, width)
      return [first, ...wrap(rest.join(" "), width - 4).map(indent("    "))].filter((line) => line !== "")
    }
    case "Sequence":
      return blocks(doc).flatMap((block) => lines(block, width, style))
    case "DescriptionList":
      // The definition's paragraphs line under line, indented: one option
      // reads as one block, and a blank line separates the next.
      return doc.definitions.flatMap(([term, definition], i) => [
        ...(i === 0 ? [] : [""]),
        ...wrap(text(term), width).map(style.bold),
        ...lines(definition, width - 2, style).map(indent("  "))
      ])
    case "Enumeration":
      return doc.elements.flatMap((element, i) => {
        const pair = columns(element)
        const gap = i === 0 ? [] : [""]
        if (pair !== undefined) {
          const [usage, description] = pair
          const [first = "", ...rest] = wrap(text(usage), width - 4)
          return [
            ...gap,
            `  ${style.bold(first)}`,
            ...rest.map((line) => `    ${style.bold(line)}`),
            ...wrap(text(description), width - 6).map(indent("      "))
          ]
        }
        const [first = "", ...rest] = lines(element, width - 4, style)
        return [...gap, `  - ${first}`, ...rest.map(indent("    "))]
      })
  }
}

/**
 * Renders a document: its blocks separated by blank lines.
 *
 * @since 0.2.0
 * @category rendering
 */
export const render = (doc: HelpDoc.HelpDoc, layout: Layout): string => {
  const width = Math.max(minWidth, layout.width)
  return blocks(doc).map((block) => lines(block, width, layout.style).join("\n")).join("\n\n")
}

/**
 * The whole help page of a command, as `@effect/cli` lays it out: name and
 * version, the usage, then the command's own help. Usage lines are prefixed
 * with the executable's name, which `@effect/cli` leaves off for
 * subcommands.
 *
 * @since 0.2.0
 * @category constructors
 */
export const page = (
  app: { readonly name: string; readonly version: string },
  usage: Usage.Usage,
  help: HelpDoc.HelpDoc,
  config: CliConfig.CliConfig
): HelpDoc.HelpDoc =>
  HelpDoc.blocks([
    HelpDoc.h1(app.name),
    HelpDoc.p(`${app.name} ${app.version}`),
    HelpDoc.h1("USAGE"),
    ...Usage.enumerate(usage, config).map((span) => {
      const line = text(span)
      return HelpDoc.p(`$ ${line === app.name || line.startsWith(`${app.name} `) ? line : `${app.name} ${line}`}`)
    }),
    help
  ])

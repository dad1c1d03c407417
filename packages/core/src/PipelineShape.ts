/**
 * The shape stage: serialize, redact, truncate, mark. Whatever a call came
 * to (a value or any error of the stages before) becomes its one
 * `ToolResult` here. It is apart because it is the boundary every byte
 * crosses on its way to the model or the artifact store: redaction before
 * any cut, stored bytes redacted as what they hold, untrusted output wrapped
 * last. That promise is the one mutation testing holds it to, so it stands
 * in a module of its own.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Random from "effect/Random"
import type * as ArtifactStore from "./ArtifactStore.js"
import * as ForeignText from "./ForeignText.js"
import * as OutputBudget from "./OutputBudget.js"
import type * as Redactor from "./Redactor.js"
import * as StableJson from "./StableJson.js"
import type * as Tool from "./Tool.js"
import * as ToolError from "./ToolError.js"
import * as ToolResult from "./ToolResult.js"
import * as Truncation from "./Truncation.js"
import * as Untrusted from "./Untrusted.js"

/**
 * What shaping needs.
 *
 * @since 0.1.0
 * @category models
 */
export interface ShapeEnv {
  readonly redactor: Redactor.Service
  readonly store: ArtifactStore.Service
  /** Characters of a truncated success shown as a preview. */
  readonly previewChars: number
  /** Characters of a truncated failure kept (head and tail together). */
  readonly failureKeepChars: number
  /** Limit for results of calls that have no tool (unknown tool, malformed call). */
  readonly defaultLimit: number
  /** The name of the paging tool, when it is registered. */
  readonly readToolName: string | undefined
}

/**
 * What a call came to before shaping.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome =
  | {
    readonly _tag: "Success"
    readonly value: unknown
    readonly note: string | undefined
    /** How the call ran confined (the tool's `sandbox`), for the result's metadata. */
    readonly sandbox?: string | undefined
  }
  | { readonly _tag: "Failure"; readonly error: ToolError.ToolError; readonly sandbox?: string | undefined }

const errorText = (error: ToolError.ToolError) => `${error.message}\n${error.hint}`

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/**
 * The text with each lone surrogate (half of a pair, from a JSON `"\ud800"`
 * or a string cut in the wrong place) replaced by U+FFFD, as a UTF-8
 * encoder would: a provider's API may refuse a request that holds one, and
 * the turn after this result would fail.
 */
const wellFormed = (text: string): string =>
  // Node 20 has the native check (ES2024), far cheaper than the pattern on the per-call path.
  (text as unknown as { isWellFormed: () => boolean }).isWellFormed() ? text : text.replace(loneSurrogate, "\uFFFD")

/** Images above this size go to the artifact store: providers reject larger ones. */
const maxImageBytes = 5 * 1024 * 1024

const imageTypes: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
  ["image/png", [0x89, 0x50, 0x4e, 0x47]],
  ["image/jpeg", [0xff, 0xd8, 0xff]],
  ["image/gif", [0x47, 0x49, 0x46, 0x38]],
  ["image/webp", [0x52, 0x49, 0x46, 0x46]]
]

const sniffImage = (bytes: Uint8Array): string | undefined =>
  imageTypes.find(([, magic]) => magic.every((b, i) => bytes[i] === b))?.[0]

/** What a handler's value comes to before redaction: text, and images kept aside. */
interface Serialized {
  readonly text: string
  readonly images: ReadonlyArray<ToolResult.ContentBlock>
  /** Bytes too large or too binary to show: stored whole, summarized in `text`. */
  readonly stash: string | undefined
}

const textOf = (base64: string, mediaType: string): string => {
  const decoded = Encoding.decodeBase64String(base64)
  return Either.isRight(decoded) ? decoded.right : `[${mediaType} content that is not valid base64, not shown]`
}

const plain = (text: string): Serialized => ({ text, images: [], stash: undefined })

const formatBytes = (n: number) =>
  n < 1024 ? `${n} bytes` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`

/**
 * What a handler that returns nothing (`Effect.void`, `undefined`) shows the
 * model: a success, like a command that prints nothing, said in words
 * because providers reject empty text blocks.
 *
 * @since 0.2.0
 * @category shape
 */
export const noOutput = "(no output)"

const outputDefect = (tool: Tool.Any | undefined, detail: string) =>
  new ToolError.ToolDefect({ toolName: tool?.name ?? "the tool", detail, outcomeUnknown: tool?.readOnly === false })

// Values a handler hands back may throw on every read: anything that does
// becomes a defect of that call, never of the turn.
const serialize = (tool: Tool.Any | undefined, value: unknown): Either.Either<Serialized, ToolError.ToolDefect> => {
  if (typeof value === "string") return Either.right(plain(value))
  try {
    return serializeValue(tool, value)
  } catch {
    return Either.left(outputDefect(tool, "it returned a value that cannot be read (reading it threw)"))
  }
}

const serializeValue = (
  tool: Tool.Any | undefined,
  value: unknown
): Either.Either<Serialized, ToolError.ToolDefect> => {
  if (typeof value === "function" || typeof value === "symbol") {
    return Either.left(
      outputDefect(tool, `it returned ${ForeignText.describe(value)}, which cannot be shown to the model`)
    )
  }
  if (value instanceof Uint8Array) {
    const mediaType = sniffImage(value)
    if (mediaType !== undefined && value.byteLength <= maxImageBytes) {
      return Either.right({ text: "", images: [ToolResult.image(value, mediaType)], stash: undefined })
    }
    return Either.right({
      text: `[${mediaType ?? "binary"} output of ${formatBytes(value.byteLength)}, not shown]`,
      images: [],
      stash: Encoding.encodeBase64(value)
    })
  }
  if (ToolResult.isContent(value)) {
    const texts: Array<string> = []
    const images: Array<ToolResult.ContentBlock> = []
    let stash: string | undefined
    for (const block of value.blocks) {
      if (block._tag === "text") texts.push(block.text)
      // Textual "binary" content is read by the model (providers decode a text document): it is
      // text here, so that it is redacted, truncated and marked like the rest.
      else if (ToolResult.isTextMediaType(block.mediaType)) texts.push(textOf(block.data, block.mediaType))
      else if (block.data.length * 0.75 <= maxImageBytes) images.push(block)
      else {
        texts.push(
          `[${block.mediaType} image of about ${formatBytes(Math.floor(block.data.length * 0.75))}, too large to show]`
        )
        stash = block.data
      }
    }
    return Either.right({ text: texts.join("\n"), images, stash })
  }
  const encoded = tool === undefined ? Either.right(value) : tool.encodeOutput(value)
  if (Either.isLeft(encoded)) {
    return Either.left(outputDefect(tool, "it returned output that does not match its declared output schema"))
  }
  if (encoded.right === undefined) return Either.right(plain(noOutput))
  const json = StableJson.encode(encoded.right)
  return json.tooDeep
    ? Either.left(
      outputDefect(
        tool,
        `it returned a value nested deeper than ${StableJson.defaultMaxDepth} levels, which cannot be shown to the model`
      )
    )
    : Either.right(plain(json.text))
}

const number = (n: number) => n.toLocaleString("en-US")

/** One character per byte, and back: redaction markers are ASCII, so a redacted text still fits. */
const bytesAsText = (bytes: Uint8Array): string => {
  const parts: Array<string> = []
  for (let i = 0; i < bytes.length; i += 0x8000) parts.push(String.fromCharCode(...bytes.subarray(i, i + 0x8000)))
  return parts.join("")
}

/** The inverse of {@link bytesAsText}. Markers are ASCII; a character past one byte (an odd rule id) becomes `?`. */
const textAsBytes = (text: string): Uint8Array =>
  Uint8Array.from(text, (character) => (character.charCodeAt(0) <= 0xff ? character.charCodeAt(0) : 0x3f))

/**
 * Redacts stored bytes (base64) as what they hold: a secret in a binary (a
 * token in a core dump, a database, an image's text chunk) is invisible to
 * the rules once encoded, yet as readable as plain text to a model that
 * decodes what `read_output` shows it. Bytes without a secret are stored
 * exactly as they were.
 */
const redactStash = (redactor: Redactor.Service, base64: string): { readonly text: string; readonly count: number } => {
  const decoded = Encoding.decodeBase64(base64)
  const inner = Either.isRight(decoded) ? redactor.redact(bytesAsText(decoded.right)) : undefined
  const encoded = inner === undefined || inner.count === 0 ? base64 : Encoding.encodeBase64(textAsBytes(inner.text))
  const outer = redactor.redact(encoded)
  return { text: outer.text, count: (inner?.count ?? 0) + outer.count }
}

const nonce = Effect.map(
  Effect.all([Random.nextIntBetween(0, 0x7fffffff), Random.nextIntBetween(0, 0x7fffffff)]),
  ([a, b]) => `${a.toString(36)}${b.toString(36)}`.padStart(12, "0")
)

/**
 * Where {@link shape} leaves, for a turn with an output budget, the way to
 * cut the result it made to a share of the budget: the cut reuses what
 * shaping did (the redacted text, the stored artifact), so a result cut
 * later costs no second pass and no second artifact.
 *
 * @since 0.4.0
 * @category models
 */
export interface Fitting {
  fit: ((share: OutputBudget.Share) => Effect.Effect<ToolResult.ToolResult>) | undefined
}

/**
 * Stage 6: serialize, redact, truncate, mark. A success over the tool's
 * limit is stored whole and the model gets a head preview; a failure keeps
 * its head and its tail, where the error usually is, and lifts the error
 * lines of the part it drops into the marker. Either way the marker says how
 * long the whole was and how to read the rest. Redaction runs first, so
 * nothing stored or shown holds a secret, even one the cut would have split.
 * Untrusted output is cleaned of hidden characters and wrapped last, so the
 * wrapper is never cut.
 *
 * @since 0.1.0
 * @category stages
 */
export const shape = (
  env: ShapeEnv,
  tool: Tool.Any | undefined,
  callId: string,
  toolName: string,
  outcome: Outcome,
  durationMillis: number,
  fitting?: Fitting
): Effect.Effect<ToolResult.ToolResult> => {
  let failure: ToolError.ToolError | undefined
  let serialized: Serialized
  if (outcome._tag === "Failure") {
    failure = outcome.error
    serialized = plain(errorText(failure))
  } else {
    const result = serialize(tool, outcome.value)
    if (Either.isLeft(result)) {
      failure = result.left
      serialized = plain(errorText(failure))
    } else {
      serialized = outcome.note === undefined
        ? result.right
        : { ...result.right, text: `${outcome.note}\n\n${result.right.text}` }
    }
  }
  const redaction = env.redactor.redact(wellFormed(serialized.text))
  let count = redaction.count
  let text = redaction.text
  // A failure's detail comes from the tool as much as its output does.
  const untrusted = tool?.untrusted === true && (failure === undefined || failure._tag === "ToolFailed")
  let removed = 0
  if (untrusted) {
    const clean = Untrusted.sanitize(text)
    text = clean.text
    removed = clean.removed
  }
  const limit = tool?.outputLimit ?? env.defaultLimit
  const unit = tool?.outputUnit ?? "chars"
  const error: ToolResult.ErrorInfo | undefined = failure === undefined ? undefined : {
    code: failure.code,
    retryable: failure.retryable,
    // A tool's own fix (`RuleViolation`), a denial's reason, may quote the arguments: redacted as the text is.
    hint: env.redactor.redact(wellFormed(failure.hint)).text,
    outcomeUnknown: failure.outcomeUnknown,
    ...("stopped" in failure ? { stopped: failure.stopped } : {}),
    ...(failure._tag === "RateLimited" ? { retryAfterMillis: failure.retryAfterMillis } : {})
  }
  const build = (content: string, truncation?: ToolResult.Truncation, artifact?: string) => {
    const blocks: Array<ToolResult.ContentBlock> = content === "" && serialized.images.length > 0
      ? []
      : [{ _tag: "text", text: content }]
    for (const image of serialized.images) blocks.push(image)
    return ToolResult.make({
      callId,
      toolName,
      content: blocks,
      isError: failure !== undefined,
      ...(error === undefined ? {} : { error }),
      meta: {
        durationMillis,
        redactions: count,
        ...(truncation === undefined ? {} : { truncation }),
        ...(artifact === undefined ? {} : { artifact }),
        ...(untrusted ? { untrusted: true } : {}),
        ...(outcome.sandbox === undefined ? {} : { sandbox: outcome.sandbox })
      }
    })
  }
  const mark = (result: ToolResult.ToolResult): Effect.Effect<ToolResult.ToolResult> =>
    !untrusted ? Effect.succeed(result) : Effect.map(nonce, (boundary) => ({
      ...result,
      content: result.content.map((block) =>
        block._tag === "text"
          ? {
            _tag: "text" as const,
            text: Untrusted.wrap(block.text, { source: toolName, nonce: boundary, mode: tool!.untrustedMode, removed })
          }
          : block
      )
    }))

  const over = Truncation.measure(text, unit) > limit
  // The common case, before anything for storing or cutting is built: this
  // runs once per call.
  if (!over && serialized.stash === undefined && fitting === undefined) return mark(build(text))

  // What is stored is redacted too: the store is read back into the context.
  let stored = text
  if (serialized.stash !== undefined) {
    const stash = redactStash(env.redactor, serialized.stash)
    count += stash.count
    stored = over ? `${text}\n\n${stash.text}` : stash.text
  }
  // Stored once, whether the limit or the budget asks first. A store may
  // build its ids from the call id (the file store does): it gets the id redacted.
  let put: Either.Either<ArtifactStore.Artifact, ArtifactStore.ArtifactError> | undefined
  const storeOnce = Effect.suspend(() =>
    put !== undefined ?
      Effect.succeed(put) :
      env.store.put({ callId: env.redactor.redact(callId).text, toolName }, stored).pipe(
        Effect.either,
        Effect.tap((done) => {
          put = done
        })
      )
  )
  const whereIn = (put: Either.Either<ArtifactStore.Artifact, ArtifactStore.ArtifactError>) => (offset: number) =>
    Either.isRight(put)
      ? env.readToolName === undefined
        ? `The full output is stored as "${put.right.location}".`
        : `The full output is stored; read more with ${env.readToolName} {"id": "${put.right.id}", "offset": ${offset}}.`
      : `The full output could not be stored (${put.left.reason}).`

  /**
   * The result cut to the call's share of the turn's budget. The marker and
   * the untrusted wrapper count too, so the cut is tried again, smaller, until
   * it fits; when even the marker does not, the result is the short note
   * alone (our words, not the tool's: it needs no wrapper), which the
   * budget's floor always has room for.
   */
  const budgeted = (share: OutputBudget.Share): Effect.Effect<ToolResult.ToolResult> =>
    Effect.flatMap(storeOnce, (put) => {
      const where = whereIn(put)
      const artifact = Either.isRight(put) ? put.right.location : undefined
      const total = text.length
      const strategy = failure !== undefined ? "head-tail" : tool?.truncation.success ?? "head"
      const cut = (room: number): { readonly content: string; readonly truncation: ToolResult.Truncation } => {
        const said = (shown: number) =>
          `[Cut to fit the turn's output budget: showing ${number(shown)} of ${number(total)} characters. ${where(0)}]`
        if (strategy === "tail") {
          const end = Truncation.tail(text, room)
          return {
            content: `${said(end.length)}\n\n${end}`,
            truncation: { strategy, originalLength: total, shownLength: end.length, reason: "budget" }
          }
        }
        if (strategy === "head-tail") {
          const kept = Truncation.headTail(text, room, tool?.truncation.headShare ?? 0.3)
          const shown = kept.head.length + kept.tail.length
          return {
            content: `${kept.head}\n\n${said(shown)}\n\n${kept.tail}`,
            truncation: { strategy, originalLength: total, shownLength: shown, reason: "budget" }
          }
        }
        const start = Truncation.head(text, room)
        return {
          content: `${start}\n\n${said(start.length)}`,
          truncation: { strategy: "head", originalLength: total, shownLength: start.length, reason: "budget" }
        }
      }
      const note = (): ToolResult.ToolResult =>
        build(
          `[Not shown: the turn's output budget had no room for this result's ${number(total)} characters. ${
            artifact === undefined ? "It could not be stored." : "It is stored: see this result's meta.artifact."
          }]`,
          { strategy: "head", originalLength: total, shownLength: 0, reason: "budget" },
          artifact
        )
      const attempt = (room: number, tries: number): Effect.Effect<ToolResult.ToolResult> => {
        const { content, truncation } = cut(room)
        return Effect.flatMap(mark(build(content, truncation, artifact)), (result) => {
          const excess = OutputBudget.sizeOf(result, share.unit) - share.amount
          if (excess <= 0) return Effect.succeed(result)
          if (room === 0 || tries === 4) return Effect.succeed(note())
          // A token is at most four characters of narrow text: taking four per
          // token of excess overshoots rather than loops.
          return attempt(Math.max(0, room - (share.unit === "tokens" ? excess * 4 : excess)), tries + 1)
        })
      }
      return attempt(Truncation.charsWithin(text, share.amount, share.unit), 0)
    })
  const fittable = (result: ToolResult.ToolResult): void => {
    fitting!.fit = (share) =>
      OutputBudget.sizeOf(result, share.unit) <= share.amount ? Effect.succeed(result) : budgeted(share)
  }

  if (!over && serialized.stash === undefined) return Effect.tap(mark(build(text)), fittable)
  const limited = Effect.flatMap(storeOnce, (put) => {
    const where = whereIn(put)
    const artifact = Either.isRight(put) ? put.right.location : undefined
    if (!over) {
      return mark(build(`${text}\n[${where(0)}]`, undefined, artifact))
    }
    const limitChars = Truncation.charsWithin(text, limit, unit)
    if (failure === undefined) {
      const previewChars = Math.min(tool?.truncation.previewChars ?? env.previewChars, limitChars)
      const strategy = tool?.truncation.success ?? "head"
      if (strategy === "tail") {
        const end = Truncation.tail(text, previewChars)
        const marker = `[Output truncated: showing the last ${number(end.length)} of ${
          number(text.length)
        } characters. ${where(0)}]\n\n`
        return mark(build(
          marker + end,
          { strategy: "tail", originalLength: text.length, shownLength: end.length },
          artifact
        ))
      }
      if (strategy === "head-tail") {
        const cut = Truncation.headTail(text, previewChars, tool?.truncation.headShare ?? 0.3)
        const marker = `\n\n[… ${number(cut.omitted)} of ${number(text.length)} characters omitted here. ${
          where(cut.head.length)
        }]\n\n`
        return mark(build(
          cut.head + marker + cut.tail,
          { strategy: "head-tail", originalLength: text.length, shownLength: cut.head.length + cut.tail.length },
          artifact
        ))
      }
      const preview = Truncation.head(text, previewChars)
      const marker = `\n\n[Output truncated: showing the first ${number(preview.length)} of ${
        number(text.length)
      } characters. ${where(preview.length)}]`
      return mark(build(
        preview + marker,
        { strategy: "head", originalLength: text.length, shownLength: preview.length },
        artifact
      ))
    }
    const keep = Math.min(tool?.truncation.failureKeepChars ?? env.failureKeepChars, limitChars)
    const headShare = tool?.truncation.headShare ?? 0.3
    // The error lines of the dropped middle are lifted into the marker, so
    // the cut can never hide what failed; their room comes out of the kept text.
    const first = Truncation.headTail(text, keep, headShare)
    const lifted = Truncation.errorLines(
      text.slice(first.head.length, text.length - first.tail.length),
      20,
      Math.max(40, Math.floor(keep / 50))
    )
    const summary = lifted.length === 0
      ? ""
      : `\nLines in the omitted part that report errors:\n${lifted.map((l) => `  ${l}`).join("\n")}\n`
    const cut = summary === "" ? first : Truncation.headTail(text, Math.max(0, keep - summary.length), headShare)
    const marker = `\n\n[… ${number(cut.omitted)} of ${number(text.length)} characters omitted here. ${
      where(cut.head.length)
    }]${summary}\n\n`
    return mark(build(
      cut.head + marker + cut.tail,
      { strategy: "head-tail", originalLength: text.length, shownLength: cut.head.length + cut.tail.length },
      artifact
    ))
  })
  return fitting === undefined ? limited : Effect.tap(limited, fittable)
}

/**
 * A detection rule as the redaction engine runs it: a cheap trigger that
 * says where a secret may be, and a verifier that decides, looking only at a
 * bounded window around that place, whether one is there and where it ends.
 *
 * The split is what keeps redaction linear. Triggers of every rule are
 * searched together in a few passes over the text (one scan for every
 * prefix, context word, literal and the number shapes of personal data, one
 * pass per other pattern), so the text is read a fixed number of times
 * whatever the number of rules.
 * A verifier reads at most `before` characters before its hit and `after`
 * characters from it, so its cost does not depend on the size of the text,
 * and a streaming redactor knows how much text it must hold back to decide
 * exactly as it would on the whole. A secret that may be longer than that
 * (a PEM body, a Kubernetes value) is read on: the span says which detector
 * continues from its end (`Span.continues`), and the engine verifies there
 * again, window after window, removing the whole under one marker.
 *
 * The built-in catalogues are `SecretRules` and `PersonalData`;
 * applications add their own either as a `Redactor.Rule` (a keyword-gated
 * regular expression) or as a `Detector`.
 *
 * @since 0.3.0
 */

/**
 * Where a trigger matched.
 *
 * @since 0.3.0
 * @category models
 */
export interface Hit {
  /** Where the trigger starts: for a prefix, its first character; for a keyword, the keyword's. */
  readonly start: number
  /** Where the trigger ends. */
  readonly end: number
  /** The match of a `Pattern` trigger, with its capture groups. */
  readonly match: RegExpExecArray | undefined
}

/**
 * The part of the text a verifier wants removed.
 *
 * @since 0.3.0
 * @category models
 */
export interface Span {
  readonly start: number
  readonly end: number
  /** The rule id to report, when it is not the detector's own (a contextual rule that found a known token shape). */
  readonly id?: string | undefined
  /**
   * The detector that reads on from `end`, when the secret may go on past
   * all a verifier can read (a PEM body longer than its window): once the
   * span is committed, the engine verifies again with it at `end`, with a
   * hit that starts and ends there, and removes what that verification
   * returns too, under the same marker, for as long as it goes on. So a
   * structure of any length is removed whole, while each verification
   * still reads a bounded window (and a stream holds back no more).
   */
  readonly continues?: Detector | undefined
}

/**
 * What a verifier may consult besides its hit.
 *
 * @since 0.3.0
 * @category models
 */
export interface Context {
  readonly text: string
  /** No span may start before this: it is the end of the previous finding. */
  readonly floor: number
  /**
   * The span of a specific secret (a token with a known prefix, or a known
   * secret value) that starts exactly at `at`, if there is one. Contextual
   * rules (`password=…`, `Bearer …`) use it to name what they found.
   */
  readonly classify: (at: number) => Span | undefined
  /**
   * Declares that no hit of the calling detector that starts before
   * `until` holds a secret: this verification already ruled out the region
   * (every hit inside a run of base64url characters that no `.` follows
   * fails the same way). Keeps a detector from rescanning its window from
   * every hit of a long run. `until` must lie in the window the verifier
   * may read.
   */
  readonly skip: (until: number) => void
}

/**
 * How a detector's candidates are found.
 *
 * - `Prefix`: case-sensitive literals a token starts with (`ghp_`, `AKIA`).
 *   All prefixes are found by one scan, with the keywords.
 * - `Keyword`: case-insensitive words that announce a secret nearby
 *   (`password`, `bearer`). All keywords are found by one scan.
 * - `Literal`: an exact string (`@`, `://`): one ASCII character is found
 *   by the text scan in its one pass (up to six such characters; any other
 *   with the runtime's fast substring search), a longer one by the scan that
 *   finds the prefixes. `prefilter` is a regular-expression
 *   source, tighter than the literal, that must match where the literal
 *   occurs for the detector to have any chance (`\+[1-9]` for `+`); other
 *   occurrences are skipped before anything is allocated.
 * - `Pattern`: a global regular expression; detectors that share the same
 *   `RegExp` object share its pass. No match may be longer than `maxLength`.
 *   `prefilter` is a regular-expression source that every text with a match
 *   also matches (the keywords of an application's rule, a looser shape); a
 *   short text that matches no prefilter is returned at once, and a whole
 *   text without a match skips the pass. Without one, every text is
 *   scanned.
 *
 * Prefilters are case-sensitive: spell case-insensitive words as
 * `[kK][eE][yY]`.
 *
 * @since 0.3.0
 * @category models
 */
export type Trigger =
  | { readonly _tag: "Prefix"; readonly prefixes: ReadonlyArray<string> }
  | { readonly _tag: "Keyword"; readonly keywords: ReadonlyArray<string> }
  | { readonly _tag: "Literal"; readonly literal: string; readonly prefilter?: string | undefined }
  | {
    readonly _tag: "Pattern"
    readonly pattern: RegExp
    readonly maxLength: number
    readonly prefilter?: string | undefined
    /**
     * Whether a candidate can start inside a match its detectors rejected:
     * the pass then resumes after the match's first run of letters and
     * digits rather than after the whole match.
     */
    readonly overlapping?: boolean | undefined
  }

/**
 * A detection rule.
 *
 * @since 0.3.0
 * @category models
 */
export interface Detector {
  /** What the marker says was removed: `[REDACTED:<id>]`. */
  readonly id: string
  readonly triggers: ReadonlyArray<Trigger>
  /** The most characters before `hit.start` that `verify` reads. */
  readonly before: number
  /** The most characters from `hit.start` on that `verify` reads. */
  readonly after: number
  /**
   * Decides whether a secret is at the hit. Must read nothing outside
   * `[hit.start - before, hit.start + after)`, and must run in time bounded
   * by that window.
   */
  readonly verify: (context: Context, hit: Hit) => Span | undefined
}

/**
 * @since 0.3.0
 * @category constructors
 */
export const prefix = (...prefixes: ReadonlyArray<string>): Trigger => ({ _tag: "Prefix", prefixes })

/**
 * @since 0.3.0
 * @category constructors
 */
export const keyword = (...keywords: ReadonlyArray<string>): Trigger => ({
  _tag: "Keyword",
  keywords: keywords.map((k) => k.toLowerCase())
})

/**
 * @since 0.3.0
 * @category constructors
 */
export const literal = (literal: string, prefilter?: string): Trigger => ({ _tag: "Literal", literal, prefilter })

/**
 * @since 0.3.0
 * @category constructors
 */
export const pattern = (
  pattern: RegExp,
  maxLength: number,
  prefilter?: string,
  overlapping?: boolean
): Trigger => ({ _tag: "Pattern", pattern, maxLength, prefilter, overlapping })

// ---------------------------------------------------------------------------
// character classes shared by the catalogues
// ---------------------------------------------------------------------------

/**
 * `[A-Za-z0-9_]`.
 *
 * @since 0.3.0
 * @category characters
 */
export const isWordChar = (code: number): boolean =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95

/**
 * `[0-9]`.
 *
 * @since 0.3.0
 * @category characters
 */
export const isDigit = (code: number): boolean => code >= 48 && code <= 57

/**
 * The character at `i` as the output will show it. A verifier reads text
 * left of its hit as if the previous finding were already replaced by its
 * marker, which ends in `]` (and a verifier never reads further left than
 * that): so a secret decides the same whether what precedes it is the
 * original text or the marker of an earlier redaction, and redacting twice
 * gives what redacting once gives.
 *
 * @since 0.3.0
 * @category characters
 */
export const codeAt = (context: Context, i: number): number => i < context.floor ? 93 : context.text.charCodeAt(i)

/**
 * Whether the character before `i` separates words. An escape such as `\n`
 * inside a JSON string counts as a separator although it ends in a letter:
 * tool output is often serialized, and a token at the start of a line must
 * not hide behind the `n`.
 *
 * @since 0.3.0
 * @category characters
 */
export const separatedBefore = (context: Context, i: number): boolean => {
  if (i === 0) return true
  return !isWordChar(codeAt(context, i - 1)) || isEscapedWhitespace(context, i - 1)
}

const isHexDigit = (code: number): boolean =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102)

/**
 * Whether a prefixed token may start at `i`: where {@link separatedBefore}
 * says so, and also after an underscore (`tool_ghp_…`, `KEY_AKIA…`: a
 * documented prefix with its length and alphabet is distinctive enough
 * inside an identifier) and after a percent-encoded byte (`%3DAKIA…` in a
 * presigned URL's query, `%2Fghp_…`), which a word boundary alone misses.
 * Reads three characters back: a detector that calls it declares
 * `before: 3` at least.
 *
 * @since 0.4.0
 * @category characters
 */
export const startsToken = (context: Context, i: number): boolean => {
  if (separatedBefore(context, i) || codeAt(context, i - 1) === 95) return true
  return i >= 3 && codeAt(context, i - 3) === 37 && isHexDigit(codeAt(context, i - 2)) &&
    isHexDigit(codeAt(context, i - 1))
}

/**
 * Whether the character at `i` is the letter of a `\n`, `\r` or `\t`
 * escape.
 *
 * @since 0.3.0
 * @category characters
 */
export const isEscapedWhitespace = (context: Context, i: number): boolean => {
  if (i < 1 || codeAt(context, i - 1) !== 92) return false
  const code = codeAt(context, i)
  return code === 110 || code === 114 || code === 116
}

/**
 * Whether `word` (lower case) is at `at`, in any case of its ASCII letters;
 * allocates nothing, which matters for rules that run on every keyword hit.
 *
 * @since 0.3.0
 * @category matching
 */
export const startsWithCaseless = (text: string, at: number, word: string): boolean => {
  if (at < 0 || at + word.length > text.length) return false
  for (let i = 0; i < word.length; i++) {
    const code = text.charCodeAt(at + i)
    if ((code >= 65 && code <= 90 ? code + 32 : code) !== word.charCodeAt(i)) return false
  }
  return true
}

/**
 * Runs a sticky regular expression exactly at `at`.
 *
 * @since 0.3.0
 * @category matching
 */
export const matchAt = (sticky: RegExp, text: string, at: number): RegExpExecArray | null => {
  sticky.lastIndex = at
  return sticky.exec(text)
}

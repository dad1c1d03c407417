/**
 * Binary content blocks and what each provider can show of them.
 *
 * The core has one binary block, `image`, holding base64 data and a media
 * type. Handlers put PDFs and other documents in it too, so the codecs sort
 * blocks by media type: images the provider renders, PDFs and plain text
 * where the provider takes documents, and a short note for anything else
 * (never silently nothing: the model must know something was returned).
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"

/**
 * The image types every provider here renders.
 *
 * @since 0.1.0
 * @category models
 */
export type ImageType = "image/jpeg" | "image/png" | "image/gif" | "image/webp"

const imageTypes: ReadonlySet<string> = new Set<ImageType>(["image/jpeg", "image/png", "image/gif", "image/webp"])

/**
 * @since 0.1.0
 * @category guards
 */
export const isImageType = (mediaType: string): mediaType is ImageType => imageTypes.has(mediaType.toLowerCase())

/**
 * How a binary block can be shown.
 *
 * @since 0.1.0
 * @category models
 */
export type Kind = "image" | "pdf" | "text" | "audio" | "other"

/**
 * @since 0.1.0
 * @category getters
 */
export const kind = (mediaType: string): Kind => {
  const type = mediaType.toLowerCase()
  if (imageTypes.has(type)) return "image"
  if (type === "application/pdf") return "pdf"
  if (type === "text/plain") return "text"
  if (type.startsWith("audio/")) return "audio"
  return "other"
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const dataUrl = (mediaType: string, base64: string): string => `data:${mediaType};base64,${base64}`

const dataUrlPattern = /^data:([^;,]+);base64,(.*)$/s

/**
 * @since 0.1.0
 * @category parsing
 */
export const parseDataUrl = (url: string): { readonly mediaType: string; readonly data: string } | undefined => {
  const match = dataUrlPattern.exec(url)
  return match === null ? undefined : { mediaType: match[1]!, data: match[2]! }
}

/**
 * Base64 data as UTF-8 text, for providers that take plain-text documents
 * as text.
 *
 * @since 0.1.0
 * @category parsing
 */
export const decodeText = (base64: string): string | undefined => {
  const decoded = Encoding.decodeBase64String(base64)
  return Either.isRight(decoded) ? decoded.right : undefined
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const encodeText = (text: string): string => Encoding.encodeBase64(text)

/**
 * The note shown in place of content a provider cannot take.
 *
 * @since 0.1.0
 * @category formatting
 */
export const omitted = (mediaType: string, where: string): string =>
  `[${mediaType} content returned by the tool is not shown: ${where} cannot carry it]`

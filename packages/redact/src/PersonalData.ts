/**
 * Personal data the default redactor removes: email addresses, phone
 * numbers (international `+…` numbers, North American numbers, mainland
 * Chinese mobile numbers with or without `+86`), Chinese resident identity
 * numbers and payment card numbers.
 *
 * Numbers are everywhere in tool output, so a number counts only when it
 * proves what it is: a resident ID needs a real province, a real birth date
 * and the GB 11643-1999 check character; a card number needs the Luhn
 * checksum and an issuer prefix whose length it has; a phone number needs
 * a `+` and a plausible digit count, or the exact shape of a Chinese mobile
 * or North American number. A number glued to letters, other digits or a
 * decimal point (a hash, a timestamp, a version, a fraction) is not one.
 *
 * Each category can be switched off through {@link Options}.
 *
 * @since 0.3.0
 */
import * as Detector from "./Detector.js"
import * as TriggerScan from "./TriggerScan.js"

/**
 * Which categories to remove; all are on unless switched off.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options {
  readonly email?: boolean | undefined
  readonly phone?: boolean | undefined
  readonly chineseId?: boolean | undefined
  readonly paymentCard?: boolean | undefined
}

// ---------------------------------------------------------------------------
// validators
// ---------------------------------------------------------------------------

/**
 * The Luhn checksum of a string of digits.
 *
 * @since 0.3.0
 * @category validators
 */
export const luhn = (digits: string): boolean => {
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return sum % 10 === 0
}

/**
 * The card network whose issuer prefix and length a card number has, if
 * any.
 *
 * @since 0.3.0
 * @category validators
 */
export const cardIssuer = (digits: string): string | undefined => {
  const n = digits.length
  const p2 = Number(digits.slice(0, 2))
  const p3 = Number(digits.slice(0, 3))
  const p4 = Number(digits.slice(0, 4))
  const p6 = Number(digits.slice(0, 6))
  const long = n >= 16 && n <= 19
  if (digits[0] === "4" && (n === 13 || n === 16 || n === 19)) return "visa"
  if (((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) && n === 16) return "mastercard"
  if ((p2 === 34 || p2 === 37) && n === 15) return "amex"
  if ((p4 === 6011 || (p3 >= 644 && p3 <= 649) || p2 === 65 || (p6 >= 622126 && p6 <= 622925)) && long) {
    return "discover"
  }
  if (p4 >= 3528 && p4 <= 3589 && long) return "jcb"
  if (((p3 >= 300 && p3 <= 305) || p4 === 3095 || p2 === 36 || p2 === 38 || p2 === 39) && n >= 14 && n <= 19) {
    return "diners"
  }
  if (p2 === 62 && long) return "unionpay"
  if (maestro.has(p4) && n >= 13 && n <= 19) return "maestro"
  if (p4 >= 2200 && p4 <= 2204 && long) return "mir"
  return undefined
}
const maestro = new Set([5018, 5020, 5038, 5893, 6304, 6759, 6761, 6762, 6763])

/**
 * A payment card number: 13 to 19 digits, the Luhn checksum, and a real
 * issuer prefix for that length.
 *
 * @since 0.3.0
 * @category validators
 */
export const isCardNumber = (digits: string): boolean =>
  digits.length >= 13 && digits.length <= 19 && luhn(digits) && cardIssuer(digits) !== undefined

const provinces = new Set([
  11,
  12,
  13,
  14,
  15,
  21,
  22,
  23,
  31,
  32,
  33,
  34,
  35,
  36,
  37,
  41,
  42,
  43,
  44,
  45,
  46,
  50,
  51,
  52,
  53,
  54,
  61,
  62,
  63,
  64,
  65,
  71,
  81,
  82,
  83
])
const idWeights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]

/**
 * The GB 11643-1999 check character (`0`–`9` or `X`) of the first 17
 * digits of a resident identity number.
 *
 * @since 0.3.0
 * @category validators
 */
export const chineseIdCheck = (first17: string): string => {
  let sum = 0
  for (let i = 0; i < 17; i++) sum += (first17.charCodeAt(i) - 48) * idWeights[i]!
  return "10X98765432"[sum % 11]!
}

/**
 * An 18-character Chinese resident identity number: a province code, a
 * real birth date, and the right check character.
 *
 * @since 0.3.0
 * @category validators
 */
export const isChineseId = (id: string): boolean => {
  if (!/^[0-9]{17}[0-9Xx]$/.test(id)) return false
  if (!provinces.has(Number(id.slice(0, 2)))) return false
  const year = Number(id.slice(6, 10))
  const month = Number(id.slice(10, 12))
  const day = Number(id.slice(12, 14))
  if (year < 1900 || year > 2099 || month < 1 || month > 12 || day < 1) return false
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31
  if (day > days) return false
  return chineseIdCheck(id) === id[17]!.toUpperCase()
}

/**
 * A mainland Chinese mobile number (11 digits, by the allocated `1x`
 * ranges).
 *
 * @since 0.3.0
 * @category validators
 */
export const isChineseMobile = (digits: string): boolean => chineseMobile.test(digits)
const chineseMobile = /^1(?:3[0-9]|4[5-9]|5[0-35-9]|6[2567]|7[0-8]|8[0-9]|9[0-35-9])[0-9]{8}$/

// ---------------------------------------------------------------------------
// numbers in text
// ---------------------------------------------------------------------------

// The trigger of every digit-based category (the shapes are the text scan's own, so they cost no pass).
const digitShapes = TriggerScan.numberShapes

/** How far back from a hit a number can start. */
const numberLead = 6

/** The start of the digit run a hit is in (never before the previous finding). */
const numberStart = (context: Detector.Context, at: number): number => {
  let start = at
  while (start > context.floor && at - start < numberLead && Detector.isDigit(context.text.charCodeAt(start - 1))) {
    start--
  }
  return start
}

/** Every digit shape holds seven digits with at most one separator after the third. */
const digitFilter = "\\d{3}[ .-]?\\d{4}"

interface Digits {
  /** The digit groups: where each ends, and all their digits up to it. */
  readonly ends: ReadonlyArray<number>
  readonly digits: ReadonlyArray<string>
  readonly sizes: ReadonlyArray<number>
  /** The separator between groups (a char code), or 0. */
  readonly separator: number
}

/** The most characters a number reads from its start: 19 digits, separators, a check `X` and the boundary. */
const numberWindow = 44

/**
 * A number starts here when nothing glues it to what comes before: not a
 * letter or digit, not a `+` (the international rule owns that), and not
 * the `.` or `-` of a decimal, a longer number or an identifier
 * (`ORD-13812345678`).
 */
const startsNumber = (context: Detector.Context, at: number): boolean => {
  if (at === 0) return true
  const code = Detector.codeAt(context, at - 1)
  if (Detector.isWordChar(code)) return Detector.isEscapedWhitespace(context, at - 1)
  if (code === 43) return false
  return !((code === 46 || code === 45) && at >= 2 && Detector.isWordChar(Detector.codeAt(context, at - 2)))
}

/**
 * …and ends here when nothing glues it to what follows: not a letter or
 * digit, not the `@` of an email, not the `.` or `-` of a decimal or a
 * longer number. (A `-` before a letter does not glue: the letter may start
 * another secret, which once redacted leaves a `[` there.)
 */
const endsNumber = (text: string, end: number): boolean => {
  if (end >= text.length) return true
  const code = text.charCodeAt(end)
  if (Detector.isWordChar(code) || code === 64) return false
  return !((code === 46 || code === 45) && Detector.isDigit(text.charCodeAt(end + 1)))
}

/**
 * Reads digit groups joined by one kind of separator (space, `-` or `.`),
 * up to 19 digits. Each category then looks for its shapes among the first
 * groups: a list of numbers separated by spaces is several numbers.
 */
const readDigits = (text: string, at: number): Digits => {
  const limit = Math.min(text.length, at + numberWindow - 2)
  const ends: Array<number> = []
  const digits: Array<string> = []
  const sizes: Array<number> = []
  let all = ""
  let separator = 0
  let i = at
  for (;;) {
    const start = i
    while (i < limit && Detector.isDigit(text.charCodeAt(i)) && all.length + i - start <= 19) i++
    if (i === start || (i < limit && Detector.isDigit(text.charCodeAt(i)))) break
    all += text.slice(start, i)
    ends.push(i)
    digits.push(all)
    sizes.push(i - start)
    const code = text.charCodeAt(i)
    if (
      i + 1 >= limit || !(code === 32 || code === 45 || code === 46) || (separator !== 0 && separator !== code) ||
      !Detector.isDigit(text.charCodeAt(i + 1))
    ) break
    separator = code
    i++
  }
  return { ends, digits, sizes, separator }
}

/** Whether the first groups have exactly these sizes. */
const shaped = (read: Digits, ...sizes: ReadonlyArray<number>): boolean =>
  read.sizes.length >= sizes.length && sizes.every((size, i) => read.sizes[i] === size)

// ---------------------------------------------------------------------------
// detectors
// ---------------------------------------------------------------------------

const isLocalChar = (code: number): boolean =>
  Detector.isWordChar(code) || code === 46 || code === 37 || code === 43 || code === 45
const isAlphanumeric = (code: number): boolean =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
const isDomainChar = (code: number): boolean => isAlphanumeric(code) || code === 45 || code === 46

/**
 * A DNS label, given that it holds only letters, digits and `-`: 1 to 63
 * characters, starting and ending with a letter or digit.
 */
const isLabel = (text: string, start: number, end: number): boolean =>
  end - start >= 1 && end - start <= 63 && isAlphanumeric(text.charCodeAt(start)) &&
  isAlphanumeric(text.charCodeAt(end - 1))

/** A top-level label: 2 to 24 letters, or an `xn--` punycode label. */
const isTopLevel = (text: string, start: number, end: number): boolean => {
  if (end - start >= 4 && text.startsWith("xn--", start)) return end - start >= 6
  if (end - start < 2 || end - start > 24) return false
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i) | 32
    if (code < 97 || code > 122) return false
  }
  return true
}

/**
 * Where the domain in `[from, end)` (domain characters only) ends: after
 * its last label that is a top-level domain with only valid labels before
 * it, at least two labels in all; -1 when there is none. What follows a
 * shorter valid domain may be glued text (`….com-----BEGIN …`). Reads the
 * labels in place, since every `@` of a log is a hit.
 */
const domainEnd = (text: string, from: number, end: number): number => {
  let found = -1
  let labels = 0
  let start = from
  for (let i = from; i <= end; i++) {
    if (i < end && text.charCodeAt(i) !== 46) continue
    if (!isLabel(text, start, i)) break
    if (++labels >= 2 && isTopLevel(text, start, i)) found = i
    start = i + 1
  }
  return found
}

/**
 * Email addresses. The user part of a URL (`https://user@host`) is not an
 * email address, and neither is an SSH remote (`git@github.com:org/repo`).
 *
 * @since 0.3.0
 * @category detectors
 */
export const email: Detector.Detector = {
  id: "email",
  triggers: [Detector.literal("@", "(?<=[A-Za-z0-9._%+-])@[A-Za-z0-9]")],
  before: 67,
  after: 258,
  verify: (context, hit) => {
    const text = context.text
    const at = hit.start
    const min = Math.max(context.floor, at - 65)
    let start = at
    while (start > min && isLocalChar(text.charCodeAt(start - 1))) start--
    if (start === at - 65) return undefined
    if (Detector.isEscapedWhitespace(context, start)) start++
    if (
      start === at ||
      (start >= 2 && Detector.codeAt(context, start - 1) === 47 && Detector.codeAt(context, start - 2) === 47)
    ) {
      return undefined
    }
    const local = text.slice(start, at)
    if (local.startsWith(".") || local.endsWith(".") || local.includes("..") || local === "git") return undefined
    const limit = Math.min(text.length, at + 256)
    let end = at + 1
    while (end < limit && isDomainChar(text.charCodeAt(end))) end++
    while (end > at + 1 && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end--
    const domain = domainEnd(text, at + 1, end)
    return domain < 0 ? undefined : { start, end: domain }
  }
}

/**
 * Chinese resident identity numbers (18 characters, valid checksum), bare
 * or grouped 6-8-4.
 *
 * @since 0.3.0
 * @category detectors
 */
export const chineseId: Detector.Detector = {
  id: "chinese-id",
  triggers: [Detector.pattern(digitShapes, 14, digitFilter, true)],
  before: numberLead + 2,
  after: numberWindow,
  verify: (context, hit) => {
    const text = context.text
    const start = numberStart(context, hit.start)
    if (!startsNumber(context, start)) return undefined
    const read = readDigits(text, start)
    const spaced = read.separator === 32
    for (const [groups, id] of [[1, 17], [1, 18], [3, 17], [3, 18]] as const) {
      if (groups === 3 && !(spaced && shaped(read, 6, 8, id - 14))) continue
      if (groups === 1 && read.sizes[0] !== id) continue
      let end = read.ends[groups - 1]!
      let number = read.digits[groups - 1]!
      if (id === 17) {
        const x = text.charCodeAt(end)
        if (x !== 88 && x !== 120) continue
        number += "X"
        end++
      }
      if (isChineseId(number) && endsNumber(text, end)) return { start, end }
    }
    return undefined
  }
}

/**
 * Payment card numbers: bare, or grouped by fours (or 4-6-5 / 4-6-4) with
 * spaces or dashes; Luhn-valid and with a real issuer prefix.
 *
 * @since 0.3.0
 * @category detectors
 */
export const paymentCard: Detector.Detector = {
  id: "payment-card",
  triggers: [Detector.pattern(digitShapes, 14, digitFilter, true)],
  before: numberLead + 2,
  after: numberWindow,
  verify: (context, hit) => {
    const text = context.text
    const start = numberStart(context, hit.start)
    if (!startsNumber(context, start)) return undefined
    const read = readDigits(text, start)
    if (read.separator === 46) return undefined
    // The longest reading first: 4-4-4-4 before 4-4-4.
    for (let groups = read.sizes.length; groups >= 1; groups--) {
      const sizes = read.sizes.slice(0, groups)
      const fours = groups >= 3 && sizes.slice(0, -1).every((g) => g === 4) && sizes[groups - 1]! <= 4
      const amex = groups === 3 && sizes[0] === 4 && sizes[1] === 6 && (sizes[2] === 5 || sizes[2] === 4)
      if (groups > 1 && !fours && !amex) continue
      const end = read.ends[groups - 1]!
      if (isCardNumber(read.digits[groups - 1]!) && endsNumber(text, end)) return { start, end }
    }
    return undefined
  }
}

const nanp = /\([2-9][0-9]{2}\) ?[2-9][0-9]{2}[-. ][0-9]{4}/y

/**
 * Where a mainland mobile number written after its country code without a
 * `+` (`86-13229577892`, `86.138…`) starts: at the `86`, when nothing
 * glues that to what precedes it; -1 otherwise.
 */
const countryLead = (context: Detector.Context, start: number): number => {
  const lead = start - 3
  if (lead < context.floor) return -1
  const separator = context.text.charCodeAt(start - 1)
  if (separator !== 45 && separator !== 46) return -1
  return context.text.startsWith("86", lead) && startsNumber(context, lead) ? lead : -1
}

/**
 * An international number: `+`, a country code, 8 to 15 digits in at most
 * six groups. When the whole reading does not end cleanly, the longest
 * reading that does (up to a space between groups) counts: in
 * `+44 20 7946 0000abc@example.com` the last group belongs to the email.
 */
const international = (context: Detector.Context, at: number): number | undefined => {
  const text = context.text
  if (!Detector.separatedBefore(context, at)) return undefined
  const first = text.charCodeAt(at + 1)
  if (first < 49 || first > 57) return undefined
  const limit = Math.min(text.length, at + 32)
  const ends: Array<number> = []
  const counts: Array<number> = []
  let i = at + 1
  let digits = 0
  while (i < limit) {
    const code = text.charCodeAt(i)
    const next = text.charCodeAt(i + 1)
    if (Detector.isDigit(code)) {
      digits++
      i++
      if (!Detector.isDigit(text.charCodeAt(i)) || i === limit) {
        ends.push(i)
        counts.push(digits)
      }
    } else if (code === 41 && Detector.isDigit(text.charCodeAt(i - 1))) {
      i++
    } else if (
      (code === 32 || code === 45 || code === 46 || code === 40) &&
      (Detector.isDigit(next) || (next === 40 && code !== 40))
    ) {
      i += code !== 40 && next === 40 ? 2 : 1
    } else {
      break
    }
  }
  for (let k = Math.min(ends.length, 6) - 1; k >= 0; k--) {
    if (counts[k]! >= 8 && counts[k]! <= 15 && endsNumber(text, ends[k]!)) return ends[k]!
  }
  return undefined
}

/**
 * Phone numbers: international numbers written with `+` (`+44 20 7946
 * 0958`, `+86 138 1234 5678`), mainland Chinese mobile numbers with or
 * without `86` (`13812345678`, `138-1234-5678`, `86-13812345678`), and North American
 * numbers (`(415) 555-0134`, `415-555-0134`, `415.555.0134`).
 *
 * @since 0.3.0
 * @category detectors
 */
export const phone: Detector.Detector = {
  id: "phone",
  triggers: [
    Detector.literal("+", "\\+[1-9]"),
    Detector.literal("(", "\\([2-9]\\d\\d\\)"),
    Detector.pattern(digitShapes, 14, digitFilter, true)
  ],
  before: numberLead + 6,
  after: numberWindow,
  verify: (context, hit) => {
    const text = context.text
    const at = hit.start
    const first = text.charCodeAt(at)
    if (first === 43) {
      const end = international(context, at)
      return end === undefined ? undefined : { start: at, end }
    }
    if (first === 40) {
      if (!Detector.separatedBefore(context, at)) return undefined
      const match = Detector.matchAt(nanp, text, at)
      return match !== null && endsNumber(text, at + match[0].length)
        ? { start: at, end: at + match[0].length }
        : undefined
    }
    const start = numberStart(context, at)
    const read = readDigits(text, start)
    const lead = startsNumber(context, start) ? start : countryLead(context, start)
    if (lead < 0) return undefined
    const found = (groups: number): Detector.Span | undefined =>
      endsNumber(text, read.ends[groups - 1]!) ? { start: lead, end: read.ends[groups - 1]! } : undefined
    if (lead !== start) {
      if (read.sizes[0] === 11 && isChineseMobile(read.digits[0]!)) return found(1)
      return shaped(read, 3, 4, 4) && isChineseMobile(read.digits[2]!) ? found(3) : undefined
    }
    const bare = read.digits[0]
    if (bare !== undefined && read.sizes[0] === 11 && isChineseMobile(bare)) return found(1)
    if (bare !== undefined && read.sizes[0] === 13 && bare.startsWith("86") && isChineseMobile(bare.slice(2))) {
      return found(1)
    }
    if (shaped(read, 3, 4, 4) && isChineseMobile(read.digits[2]!)) return found(3)
    const ten = read.digits[2]
    if (shaped(read, 3, 3, 4) && read.separator !== 32 && ten![0]! >= "2" && ten![3]! >= "2") return found(3)
    return undefined
  }
}

/**
 * The detectors for the categories switched on (all by default; `false`
 * switches all off).
 *
 * @since 0.3.0
 * @category detectors
 */
export const detectors = (options?: Options | false | undefined): ReadonlyArray<Detector.Detector> => {
  if (options === false) return []
  return [
    ...(options?.email === false ? [] : [email]),
    ...(options?.chineseId === false ? [] : [chineseId]),
    ...(options?.paymentCard === false ? [] : [paymentCard]),
    ...(options?.phone === false ? [] : [phone])
  ]
}

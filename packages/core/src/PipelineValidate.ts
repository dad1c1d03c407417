/**
 * The validate stage: the tool's parameter schema, then its business rules,
 * and the words a model reads when its arguments fail them. It is apart
 * because most of it is the translation of Schema's parse issues into
 * messages a model can act on, which has nothing to do with the stages
 * around it.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as AST from "effect/SchemaAST"
import * as ForeignText from "./ForeignText.js"
import type * as Registry from "./Registry.js"
import * as StableJson from "./StableJson.js"
import * as ToolError from "./ToolError.js"

// Keys come from the model's arguments: each is made printable and bounded.
const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((key, i) =>
    typeof key === "number"
      ? `[${key}]`
      : i === 0
      ? ForeignText.printable(String(key), 60)
      : `.${ForeignText.printable(String(key), 60)}`
  ).join("")

const formatActual = (actual: unknown): string => {
  if (actual === undefined) return "nothing"
  // Only the start is shown: a long string is cut before it is quoted.
  const json = typeof actual === "string" ? JSON.stringify(actual.slice(0, 61)) : StableJson.stringify(actual)
  return ForeignText.printable(json, 61)
}

/**
 * An issue that says the value is not of a member's kind at all (a string
 * where an array was expected), as opposed to one of the member's kind that
 * is wrong inside (an array with a wrong item).
 */
const isMismatch = (issue: ParseResult.ParseIssue): boolean =>
  issue._tag === "Type" ||
  (issue._tag === "Refinement" && issue.kind === "From" && isMismatch(issue.issue)) ||
  (issue._tag === "Transformation" && issue.kind === "Encoded" && isMismatch(issue.issue))

/** What JSON Schema constraints say, in words ("an integer at least 0", "a string at most 80 characters long"). */
const describeConstraints = (schema: Record<string, unknown>): string | undefined => {
  const bounds: Array<string> = []
  const bound = (key: string, words: string, suffix = "") => {
    if (typeof schema[key] === "number") bounds.push(`${words} ${schema[key]}${suffix}`)
  }
  bound("minimum", "at least")
  bound("exclusiveMinimum", "greater than")
  bound("maximum", "at most")
  bound("exclusiveMaximum", "less than")
  bound("minLength", "at least", " characters long")
  bound("maxLength", "at most", " characters long")
  bound("minItems", "with at least", " items")
  bound("maxItems", "with at most", " items")
  if (typeof schema.pattern === "string") bounds.push(`matching /${schema.pattern}/`)
  const noun = schema.type === "integer"
    ? "an integer"
    : "minLength" in schema || "maxLength" in schema || "pattern" in schema
    ? "a string"
    : "minItems" in schema || "maxItems" in schema
    ? "an array"
    : bounds.length > 0
    ? "a number"
    : undefined
  return noun === undefined ? undefined : [noun, ...bounds].join(" ")
}

/**
 * The type a schema expects, in the terms of the JSON Schema the model was
 * shown. Descriptions are left out on purpose: they are written for the model
 * as documentation ("The ticket id."), not as type names.
 */
const expected = (ast: AST.AST): string => {
  const named = Option.getOrUndefined(
    Option.orElse(AST.getTitleAnnotation(ast), () => AST.getIdentifierAnnotation(ast))
  )
  switch (ast._tag) {
    case "Literal":
      return ast.literal === null ? "null" : JSON.stringify(ast.literal)
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "BigIntKeyword":
    case "UndefinedKeyword":
    case "SymbolKeyword":
    case "ObjectKeyword":
      return named ?? ast._tag.replace("Keyword", "").toLowerCase()
    case "Enums":
      return ast.enums.map(([, value]) => JSON.stringify(value)).join(" | ")
    case "TupleType":
      return named ?? "an array"
    case "TypeLiteral":
      return named ?? "an object"
    case "Union":
      return ast.types.filter((member) => member._tag !== "UndefinedKeyword").map(expected).join(" | ")
    case "Refinement": {
      const constraints = Option.getOrUndefined(AST.getJSONSchemaAnnotation(ast))
      const words = constraints === undefined ? undefined : describeConstraints(constraints as Record<string, unknown>)
      return words ?? named ?? expected(ast.from)
    }
    case "Transformation":
      return named ?? expected(ast.from)
    case "Suspend":
      return named ?? "a value of the declared type"
    default:
      return named ?? String(ast)
  }
}

/**
 * Schema issues as path + message pairs a model can act on: one line per
 * problem, a union (an enum, an optional field) stated once with all its
 * choices, and the field's expected type rather than its description.
 *
 * @since 0.1.0
 * @category validate
 */
export const formatIssues = (error: ParseResult.ParseError): ReadonlyArray<ToolError.Issue> => {
  const out: Array<ToolError.Issue> = []
  const seen = new Set<string>()
  const push = (path: ReadonlyArray<PropertyKey>, raw: string) => {
    const at = formatPath(path)
    // A schema's own message may quote the value it rejected.
    const message = ForeignText.printable(raw, 300)
    const key = `${at}\u0000${message}`
    if (seen.has(key) || out.length >= 20) return
    seen.add(key)
    out.push({ path: at, message })
  }
  const visit = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>): void => {
    switch (issue._tag) {
      case "Pointer":
        return visit(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])])
      case "Missing":
        return push(path, "is required but missing")
      case "Unexpected":
        return push(path, "is not a parameter of this tool; remove it")
      case "Composite":
        if (issue.ast._tag === "Union") {
          // One member of the right kind that is wrong inside (an optional
          // array with a wrong item): its own issues say what to fix.
          const inside = (Array.isArray(issue.issues) ? issue.issues : [issue.issues]).filter((inner) =>
            !isMismatch(inner)
          )
          if (inside.length === 1) return visit(inside[0]!, path)
          return push(path, `Expected ${expected(issue.ast)}, actual ${formatActual(issue.actual)}`)
        }
        for (const inner of Array.isArray(issue.issues) ? issue.issues : [issue.issues]) visit(inner, path)
        return
      case "Refinement":
        if (issue.kind === "From") return visit(issue.issue, path)
        // A filter's own message ("a and b must be equal") says it best.
        return push(
          path,
          issue.issue._tag === "Type" && issue.issue.message !== undefined
            ? issue.issue.message
            : `Expected ${expected(issue.ast)}, actual ${formatActual(issue.actual)}`
        )
      case "Transformation":
        return visit(issue.issue, path)
      case "Type":
        // `never` only appears as the value of keys a tool does not take.
        if (issue.ast._tag === "NeverKeyword") return push(path, "is not a parameter of this tool; remove it")
        return push(path, issue.message ?? `Expected ${expected(issue.ast)}, actual ${formatActual(issue.actual)}`)
      case "Forbidden":
        return push(path, "cannot be checked here")
    }
  }
  visit(error.issue, [])
  return out
}

/**
 * @since 0.1.0
 * @category models
 */
export type ValidateError = ToolError.InvalidArguments | ToolError.RuleViolation

/**
 * Stage 3: the parameter schema, then the tool's business rules.
 *
 * @since 0.1.0
 * @category stages
 */
export const validate = (entry: Registry.Entry, input: unknown): Effect.Effect<unknown, ValidateError> => {
  const tool = entry.tool
  const decoded = tool.decode(input)
  if (Either.isLeft(decoded)) {
    return Effect.fail(new ToolError.InvalidArguments({ toolName: tool.name, issues: formatIssues(decoded.left) }))
  }
  if (tool.validate === undefined) return Effect.succeed(decoded.right)
  return tool.validate(decoded.right).pipe(
    Effect.mapError((violation) =>
      violation.toolName === undefined
        ? new ToolError.RuleViolation({ ...violation, toolName: tool.name })
        : violation
    ),
    Effect.as(decoded.right),
    // The rule check may use services: the ones captured with the registry.
    Effect.provide(entry.context)
  )
}

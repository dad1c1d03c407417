/**
 * OpenAI's strict mode (`strict: true` on a function tool) makes the model's
 * arguments always match the schema, but takes only a subset of JSON Schema:
 * every property required, `additionalProperties: false` on every object, no
 * intersections, no open maps, no tuples, a type for every value, and a list
 * of keywords it refuses. This module rewrites a tool's schema into that
 * subset where it can, and says what it changed and what it could not take.
 *
 * The rule it follows: a rewrite may loosen the schema, never tighten it or
 * change its meaning. Loosening is safe because the runtime still validates
 * every call with the tool's own Schema; what the model is no longer forced
 * to respect is written into the description instead, so it still knows.
 * Anything that would make valid calls impossible (closing an open map,
 * dropping a tuple's positions) is rejected, and the tool goes out without
 * `strict`.
 *
 * Optional fields become required and nullable: the model then sends `null`
 * for "not given". {@link Result.restore} removes those nulls before the
 * runtime validates, so a tool declared with `Schema.optional` still gets an
 * absent field rather than a `null` it would refuse.
 *
 * Which keywords strict mode refuses: the `current` profile follows the
 * `openai` package's own strict-schema transform (`openai/src/lib/transform.ts`
 * in openai 6.49.0, `JSON_SCHEMA_UNSUPPORTED_SCHEMA_KEYWORDS`): it refuses
 * `allOf` it cannot merge, `not`, `if`/`then`/`else`, `patternProperties`,
 * `propertyNames`, `uniqueItems`, `minProperties`/`maxProperties`,
 * `contains`, `prefixItems`, the dependency keywords, dynamic references and
 * the content keywords, and accepts `pattern`, `format`, `minLength`,
 * `maxLength`, numeric bounds and `minItems`/`maxItems`. The `launch` profile
 * is the subset strict mode first shipped with (August 2024), which refused
 * the string, number and array constraints too, for models and deployments
 * that still run it. The size limits (object nesting, total properties, enum
 * values) are those of OpenAI's Structured Outputs guide; the SDK does not
 * check them.
 *
 * It is past the house's ~600 lines and still one concept: the rewrite and
 * its inverse ({@link Result.restore}) walk the same schema with the same
 * `$ref`, `allOf` and nullability readings, and `compile` only applies the
 * pair to a registry's tools; apart, each would import the other's
 * internals. The length is the keyword tables and a walk that takes each
 * keyword in turn.
 *
 * @since 0.1.0
 */
import type * as Registry from "@tool-runtime/core/Registry"
import * as ProviderError from "./ProviderError.js"
import * as Wire from "./Wire.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Profile = "current" | "launch"

/**
 * A JSON Schema node, as plain data.
 *
 * @since 0.1.0
 * @category models
 */
export type JsonSchema = Record<string, unknown>

/**
 * One change the rewrite made.
 *
 * @since 0.1.0
 * @category models
 */
export interface Change {
  /** A JSON pointer into the schema (`#/properties/unit`). */
  readonly path: string
  readonly keyword: string
  readonly action: "nullable" | "required" | "closed" | "removed" | "inlined" | "renamed" | "merged"
  readonly reason: string
}

/**
 * One part of the schema strict mode cannot take.
 *
 * @since 0.1.0
 * @category models
 */
export interface Rejection {
  readonly path: string
  readonly keyword: string
  readonly reason: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Result {
  /** The rewritten schema; send it with `strict: true` only when `strict` is true. */
  readonly schema: JsonSchema
  readonly strict: boolean
  readonly changes: ReadonlyArray<Change>
  readonly rejections: ReadonlyArray<Rejection>
  /**
   * Turns arguments the model produced under the rewritten schema back into
   * what the original schema expects: removes the nulls sent for optional
   * fields. Returns its input unchanged when there is nothing to remove.
   */
  readonly restore: (input: unknown) => unknown
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly profile?: Profile | undefined
}

interface Limits {
  readonly depth: number
  readonly properties: number
  readonly enumValues: number
}

const limits: Record<Profile, Limits> = {
  current: { depth: 10, properties: 5000, enumValues: 1000 },
  launch: { depth: 5, properties: 100, enumValues: 500 }
}

const annotations: ReadonlySet<string> = new Set([
  "title",
  "description",
  "examples",
  "default",
  "$comment",
  "readOnly",
  "writeOnly",
  "deprecated"
])

type Describe = (value: unknown) => string

const show = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 120 ? `${text.slice(0, 120)}…` : text
}

// Keywords strict mode refuses whose removal only loosens the schema: the
// runtime still enforces them, and the description tells the model.
const looseCurrent: Record<string, Describe> = {
  uniqueItems: (v) => v === true ? "items must be unique" : "",
  minProperties: (v) => `at least ${show(v)} properties`,
  maxProperties: (v) => `at most ${show(v)} properties`,
  contains: () => "must contain an item matching a further condition",
  minContains: (v) => `at least ${show(v)} matching items`,
  maxContains: (v) => `at most ${show(v)} matching items`,
  propertyNames: (v) => `property names must match ${show(v)}`,
  dependentRequired: (v) => `dependent fields: ${show(v)}`,
  dependentSchemas: () => "further conditions depend on which fields are present",
  dependencies: (v) => `dependent fields: ${show(v)}`,
  not: () => "must not match a further condition",
  if: () => "conditional constraints apply",
  then: () => "",
  else: () => "",
  contentEncoding: (v) => `encoded as ${show(v)}`,
  contentMediaType: (v) => `of media type ${show(v)}`,
  contentSchema: () => "",
  unevaluatedItems: () => ""
}

const looseLaunch: Record<string, Describe> = {
  ...looseCurrent,
  minLength: (v) => `at least ${show(v)} characters`,
  maxLength: (v) => `at most ${show(v)} characters`,
  pattern: (v) => `matching the pattern ${show(v)}`,
  format: (v) => `in ${typeof v === "string" ? v : show(v)} format`,
  minimum: (v) => `>= ${show(v)}`,
  maximum: (v) => `<= ${show(v)}`,
  exclusiveMinimum: (v) => `> ${show(v)}`,
  exclusiveMaximum: (v) => `< ${show(v)}`,
  multipleOf: (v) => `a multiple of ${show(v)}`,
  minItems: (v) => `at least ${show(v)} items`,
  maxItems: (v) => `at most ${show(v)} items`
}

const loose: Record<Profile, Record<string, Describe>> = { current: looseCurrent, launch: looseLaunch }

// Keywords whose removal would forbid calls the tool accepts, or lose what
// the model needs to know to make them.
const refused: Record<string, string> = {
  patternProperties: "keys matching a pattern form an open map; strict mode needs every key listed in properties",
  prefixItems: "a tuple (items by position) cannot be expressed; strict mode takes one schema for every item",
  additionalItems: "a tuple (items by position) cannot be expressed; strict mode takes one schema for every item",
  $dynamicRef: "dynamic references are not supported",
  $dynamicAnchor: "dynamic references are not supported",
  $recursiveRef: "dynamic references are not supported",
  $recursiveAnchor: "dynamic references are not supported",
  $anchor: "anchors are not supported; use $defs and #/$defs/... references"
}

interface Context {
  readonly root: JsonSchema
  readonly profile: Profile
  readonly changes: Array<Change>
  readonly rejections: Array<Rejection>
  readonly inlining: Set<string>
  properties: number
  enumValues: number
  deepest: number
}

const pointer = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1")

const unpointer = (key: string) => key.replace(/~1/g, "/").replace(/~0/g, "~")

/** Resolves a local reference (`#/$defs/Name`, `#/definitions/Name`). */
const resolve = (root: JsonSchema, ref: string): JsonSchema | undefined => {
  if (!ref.startsWith("#/")) return undefined
  let node: unknown = root
  for (const part of ref.slice(2).split("/")) {
    if (!Wire.isRecord(node)) return undefined
    node = Wire.lookup(node, decodeURIComponent(unpointer(part)))
  }
  return Wire.isRecord(node) ? node as JsonSchema : undefined
}

const typesOf = (node: JsonSchema): ReadonlyArray<unknown> =>
  Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type]

/**
 * Whether the schema accepts `null`.
 *
 * @since 0.1.0
 * @category guards
 */
export const allowsNull = (node: unknown, root: JsonSchema, depth = 0): boolean => {
  if (!Wire.isRecord(node) || depth > 32) return false
  if (typeof node.$ref === "string") {
    const target = resolve(root, node.$ref)
    return target !== undefined && allowsNull(target, root, depth + 1)
  }
  if (typesOf(node).includes("null")) return true
  if (Object.hasOwn(node, "const") && node.const === null) return true
  if (Array.isArray(node.enum) && node.type === undefined) return node.enum.includes(null)
  const branches = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined
  return branches !== undefined && branches.some((branch) => allowsNull(branch, root, depth + 1))
}

const onlyAnnotations = (node: JsonSchema, except: string) =>
  Object.keys(node).every((key) => key === except || annotations.has(key))

const pickAnnotations = (node: JsonSchema): JsonSchema =>
  Object.fromEntries(Object.entries(node).filter(([key]) => annotations.has(key)))

/** The schema, also accepting `null`. */
const nullable = (node: JsonSchema): JsonSchema => {
  if (node.$ref !== undefined || Object.hasOwn(node, "const")) {
    const { $ref, const: constant, ...rest } = node
    const inner = $ref !== undefined ? { $ref } : { ...rest, const: constant }
    return { ...pickAnnotations(rest), anyOf: [inner, { type: "null" }] }
  }
  if (Array.isArray(node.anyOf)) return { ...node, anyOf: [...node.anyOf, { type: "null" }] }
  const withEnum = Array.isArray(node.enum) && !node.enum.includes(null) ? { enum: [...node.enum, null] } : {}
  if (typeof node.type === "string") return { ...node, ...withEnum, type: [node.type, "null"] }
  if (Array.isArray(node.type)) return { ...node, ...withEnum, type: [...node.type, "null"] }
  if (Array.isArray(node.enum)) return { ...node, ...withEnum }
  return { ...pickAnnotations(node), anyOf: [node, { type: "null" }] }
}

const isObjectShape = (node: JsonSchema) => typesOf(node).includes("object") || Wire.isRecord(node.properties)

/**
 * Merges an `allOf` of plain object schemas into one object; `undefined`
 * when the parts are not all plain objects or disagree on a property.
 */
const mergeAllOf = (node: JsonSchema, root: JsonSchema): JsonSchema | undefined => {
  const parts = node.allOf
  if (!Array.isArray(parts) || parts.length === 0) return undefined
  const { allOf: _, ...rest } = node
  if (parts.length === 1 && Wire.isRecord(parts[0]) && onlyAnnotations(node, "allOf")) {
    return { ...(parts[0] as JsonSchema), ...rest }
  }
  const properties: Record<string, unknown> = {}
  const required = new Set<string>()
  for (const raw of parts) {
    const part = Wire.isRecord(raw) && typeof raw.$ref === "string" ? resolve(root, raw.$ref) : raw
    if (!Wire.isRecord(part) || !isObjectShape(part as JsonSchema)) return undefined
    for (const key of Object.keys(part)) {
      if (!["type", "properties", "required", "additionalProperties"].includes(key) && !annotations.has(key)) {
        return undefined
      }
    }
    if (part.additionalProperties !== undefined && part.additionalProperties !== false) return undefined
    for (const [key, value] of Object.entries(Wire.isRecord(part.properties) ? part.properties : {})) {
      if (Object.hasOwn(properties, key) && JSON.stringify(properties[key]) !== JSON.stringify(value)) {
        return undefined
      }
      properties[key] = value
    }
    if (Array.isArray(part.required)) {
      for (const key of part.required) if (typeof key === "string") required.add(key)
    }
  }
  return { ...rest, type: "object", properties, required: Array.from(required), additionalProperties: false }
}

const visit = (value: unknown, path: string, ctx: Context, depth: number): JsonSchema => {
  const reject = (keyword: string, reason: string) => ctx.rejections.push({ path, keyword, reason })
  const change = (keyword: string, action: Change["action"], reason: string, at = path) =>
    ctx.changes.push({ path: at, keyword, action, reason })
  if (!Wire.isRecord(value)) {
    reject("schema", `expected a schema object, got ${Wire.kindOf(value)}`)
    return {}
  }
  let node: JsonSchema = { ...value }

  if (node.$ref !== undefined) {
    const ref = node.$ref
    const target = typeof ref === "string" ? resolve(ctx.root, ref) : undefined
    if (typeof ref !== "string" || target === undefined) {
      reject("$ref", "the reference does not point to a definition inside this schema")
      return node
    }
    // A plain reference stays: its definition is rewritten once, in $defs.
    if (onlyAnnotations(node, "$ref")) return node
    // Strict mode refuses constraints beside a reference, so the definition
    // is copied here with the constraints laid over it.
    if (ctx.inlining.has(ref)) {
      reject("$ref", "a recursive reference carries constraints of its own, which strict mode refuses")
      return node
    }
    const { $ref: _, ...siblings } = node
    change("$ref", "inlined", "constraints beside a reference are refused, so the definition was copied in")
    ctx.inlining.add(ref)
    const inlined = visit({ ...target, ...siblings }, path, ctx, depth)
    ctx.inlining.delete(ref)
    return inlined
  }

  if (path !== "#") {
    for (const keyword of ["$id", "$schema"]) {
      if (Object.hasOwn(node, keyword)) {
        delete node[keyword]
        change(keyword, "removed", "only the root may carry it")
      }
    }
  }

  if (node.oneOf !== undefined) {
    if (node.anyOf !== undefined || !Array.isArray(node.oneOf)) {
      reject("oneOf", "strict mode supports anyOf only, and this oneOf cannot become one")
    } else {
      const { oneOf, ...rest } = node
      node = { ...rest, anyOf: oneOf }
      change("oneOf", "renamed", "strict mode supports anyOf only; the runtime still checks that exactly one matches")
    }
  }

  if (node.allOf !== undefined) {
    const merged = mergeAllOf(node, ctx.root)
    if (merged === undefined) {
      reject("allOf", "an intersection strict mode cannot express: only plain objects without conflicts can be merged")
      delete node.allOf
    } else {
      node = merged
      change("allOf", "merged", "strict mode has no intersections; the parts were merged into one object")
    }
  }

  const tuple = Array.isArray(node.items)
  if (tuple) reject("items", refused.prefixItems!)
  for (const keyword of Object.keys(node)) {
    const reason = Wire.lookup(refused, keyword)
    // A tuple is reported once, at its items.
    if (reason !== undefined && !(tuple && keyword === "additionalItems")) reject(keyword, reason)
  }

  const notes: Array<string> = []
  const describers = loose[ctx.profile]
  for (const keyword of Object.keys(node)) {
    const describe = Wire.lookup(describers, keyword)
    if (describe === undefined) continue
    const note = describe(node[keyword])
    if (note !== "") notes.push(note)
    delete node[keyword]
    change(
      keyword,
      "removed",
      "strict mode refuses this keyword; the runtime still enforces it and the description states it"
    )
  }
  if (notes.length > 0) {
    node.description = typeof node.description === "string" && node.description !== ""
      ? `${node.description} (${notes.join("; ")})`
      : `Constraints: ${notes.join("; ")}.`
  }

  const typed = node.type !== undefined || Array.isArray(node.anyOf) || Array.isArray(node.enum) ||
    Object.hasOwn(node, "const") || Wire.isRecord(node.properties)
  if (!typed) reject("type", "this value may be anything; strict mode needs a type for every value")

  if (isObjectShape(node)) {
    const level = depth + 1
    if (level > limits[ctx.profile].depth) {
      reject("properties", `objects nest deeper than the ${limits[ctx.profile].depth} levels strict mode allows`)
    }
    ctx.deepest = Math.max(ctx.deepest, level)
    const additional = node.additionalProperties
    if (additional === undefined) {
      node.additionalProperties = false
      change("additionalProperties", "closed", "strict mode needs additionalProperties: false on every object")
    } else if (additional !== false) {
      reject(
        "additionalProperties",
        "an open map (keys not known in advance) cannot be expressed; strict mode needs every key listed in properties"
      )
    }
    if (Object.hasOwn(node, "unevaluatedProperties")) {
      if (node.unevaluatedProperties !== false) {
        reject("unevaluatedProperties", "an open map cannot be expressed; strict mode needs every key listed")
      }
      delete node.unevaluatedProperties
    }
    const properties = node.properties === undefined ? {} : node.properties
    if (!Wire.isRecord(properties)) {
      reject("properties", `expected an object of schemas, got ${Wire.kindOf(properties)}`)
    } else {
      const required = Array.isArray(node.required)
        ? node.required.filter((key): key is string => typeof key === "string")
        : []
      for (const key of required) {
        if (!Object.hasOwn(properties, key)) reject("required", "a required field is not declared in properties")
      }
      const rewritten: Record<string, unknown> = {}
      for (const [key, sub] of Object.entries(properties)) {
        ctx.properties++
        const at = `${path}/properties/${pointer(key)}`
        let out = visit(sub, at, ctx, level)
        if (!required.includes(key)) {
          if (allowsNull(out, ctx.root)) {
            change(
              "required",
              "required",
              "optional but already nullable: the model must now send it, and null stands for both null and not given",
              at
            )
          } else {
            out = nullable(out)
            change(
              "required",
              "nullable",
              "optional: now required and nullable; the model sends null for \"not given\" and the runtime removes it",
              at
            )
          }
        }
        rewritten[key] = out
      }
      node.properties = rewritten
      node.required = Object.keys(properties)
    }
  }

  if (typesOf(node).includes("array") || Wire.isRecord(node.items)) {
    if (Wire.isRecord(node.items)) node.items = visit(node.items, `${path}/items`, ctx, depth)
    else if (node.items === undefined) reject("items", "an array of anything; strict mode needs the item schema")
  }

  if (Array.isArray(node.anyOf)) {
    node.anyOf = node.anyOf.map((branch, i) => visit(branch, `${path}/anyOf/${i}`, ctx, depth))
  }
  if (Array.isArray(node.enum)) ctx.enumValues += node.enum.length
  return node
}

/**
 * Rewrites a tool's input schema for strict mode and reports what changed
 * and what strict mode cannot take.
 *
 * @since 0.1.0
 * @category rewriting
 */
export const rewrite = (schema: unknown, options?: Options): Result => {
  const profile = options?.profile ?? "current"
  const root: JsonSchema = Wire.isRecord(schema) ? { ...schema } : {}
  const ctx: Context = {
    root,
    profile,
    changes: [],
    rejections: [],
    inlining: new Set(),
    properties: 0,
    enumValues: 0,
    deepest: 0
  }
  if (!Wire.isRecord(schema)) {
    ctx.rejections.push({
      path: "#",
      keyword: "schema",
      reason: `expected a schema object, got ${Wire.kindOf(schema)}`
    })
  }
  const { $schema: _, ...body } = root
  const out = visit(body, "#", ctx, 0)
  if (out.type !== "object") {
    ctx.rejections.push({ path: "#", keyword: "type", reason: "the root of a tool's parameters must be an object" })
  }
  if (out.anyOf !== undefined) {
    ctx.rejections.push({ path: "#", keyword: "anyOf", reason: "the root of a tool's parameters cannot be a union" })
  }
  for (const keyword of ["$defs", "definitions"]) {
    const defs = root[keyword]
    if (!Wire.isRecord(defs)) continue
    const rewritten: Record<string, unknown> = {}
    for (const [name, def] of Object.entries(defs)) {
      rewritten[name] = visit(def, `#/${keyword}/${pointer(name)}`, ctx, 0)
    }
    out[keyword] = rewritten
  }
  const limit = limits[profile]
  if (ctx.properties > limit.properties) {
    ctx.rejections.push({
      path: "#",
      keyword: "properties",
      reason: `${ctx.properties} properties in all; strict mode allows ${limit.properties}`
    })
  }
  if (ctx.enumValues > limit.enumValues) {
    ctx.rejections.push({
      path: "#",
      keyword: "enum",
      reason: `${ctx.enumValues} enum values in all; strict mode allows ${limit.enumValues}`
    })
  }
  const nulled = ctx.changes.some((c) => c.action === "nullable")
  return {
    schema: out,
    strict: ctx.rejections.length === 0,
    changes: ctx.changes,
    rejections: ctx.rejections,
    restore: nulled ? (input) => restoreValue(input, root, root, 0) : (input) => input
  }
}

/** Picks the branch of a union whose properties cover the value's keys. */
const branchFor = (value: Readonly<Record<string, unknown>>, branches: ReadonlyArray<unknown>, root: JsonSchema) => {
  const keys = Object.keys(value)
  for (const raw of branches) {
    const branch = Wire.isRecord(raw) && typeof raw.$ref === "string" ? resolve(root, raw.$ref) : raw
    if (!Wire.isRecord(branch) || !Wire.isRecord(branch.properties)) continue
    const properties = branch.properties
    if (keys.every((key) => Object.hasOwn(properties, key))) return branch as JsonSchema
  }
  return undefined
}

const restoreValue = (value: unknown, node: unknown, root: JsonSchema, depth: number): unknown => {
  if (!Wire.isRecord(node) || depth > 64) return value
  if (typeof node.$ref === "string") return restoreValue(value, resolve(root, node.$ref), root, depth + 1)
  if (Array.isArray(node.allOf)) {
    const merged = mergeAllOf(node, root)
    if (merged !== undefined) return restoreValue(value, merged, root, depth + 1)
  }
  if (Array.isArray(value)) {
    const items = node.items
    return Wire.isRecord(items) ? value.map((item) => restoreValue(item, items, root, depth + 1)) : value
  }
  if (!Wire.isRecord(value)) return value
  const branches = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined
  if (branches !== undefined) {
    const branch = branchFor(value, branches, root)
    return branch === undefined ? value : restoreValue(value, branch, root, depth + 1)
  }
  const properties = node.properties
  if (!Wire.isRecord(properties)) return value
  const required = Array.isArray(node.required) ? node.required : []
  const out: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value)) {
    const sub = Wire.lookup(properties, key)
    if (sub === undefined) {
      out[key] = field
    } else if (field === null && !required.includes(key) && !allowsNull(sub, root)) {
      // Strict mode's stand-in for "not given".
      continue
    } else {
      out[key] = restoreValue(field, sub, root, depth + 1)
    }
  }
  return out
}

/**
 * What strict mode made of one tool.
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  readonly name: string
  readonly strict: boolean
  readonly changes: ReadonlyArray<Change>
  readonly rejections: ReadonlyArray<Rejection>
}

/**
 * One tool, ready to be described to an OpenAI API.
 *
 * @since 0.1.0
 * @category models
 */
export interface Compiled {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema
  readonly strict: boolean
}

/**
 * What the OpenAI decoders need to undo the rewrite: the restorer of a
 * tool, when its arguments need one.
 *
 * @since 0.1.0
 * @category models
 */
export interface Restorer {
  readonly restorer: (toolName: string) => ((input: unknown) => unknown) | undefined
}

/**
 * The registry's definitions, compiled for strict mode.
 *
 * @since 0.1.0
 * @category models
 */
export interface Compilation extends Restorer {
  readonly tools: ReadonlyArray<Compiled>
  readonly report: ReadonlyArray<Report>
  /** Set when a tool could not be made strict; such tools are sent without `strict`. */
  readonly error: ProviderError.StrictSchemaRejected | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface CompileOptions extends Options {
  /** `false` sends every schema as it is, without `strict`. Default `true`. */
  readonly strict?: boolean | undefined
}

/**
 * Compiles definitions for strict mode. A tool strict mode cannot take is
 * sent as it is, without `strict`, and listed in `error`.
 *
 * @since 0.1.0
 * @category rewriting
 */
export const compile = (
  definitions: ReadonlyArray<Registry.Definition>,
  provider: ProviderError.Provider,
  options?: CompileOptions
): Compilation => {
  const tools: Array<Compiled> = []
  const report: Array<Report> = []
  const rejections: Array<ProviderError.Rejection> = []
  const restorers = new Map<string, (input: unknown) => unknown>()
  for (const definition of definitions) {
    const original = Wire.objectSchema(definition.inputSchema)
    if (options?.strict === false) {
      tools.push({ name: definition.name, description: definition.description, parameters: original, strict: false })
      continue
    }
    const result = rewrite(original, options)
    report.push({
      name: definition.name,
      strict: result.strict,
      changes: result.changes,
      rejections: result.rejections
    })
    for (const r of result.rejections) rejections.push({ tool: definition.name, ...r })
    if (result.strict && result.changes.some((c) => c.action === "nullable")) {
      restorers.set(definition.name, result.restore)
    }
    tools.push({
      name: definition.name,
      description: definition.description,
      parameters: result.strict ? result.schema : original,
      strict: result.strict
    })
  }
  const [first, ...rest] = rejections
  return {
    tools,
    report,
    error: first === undefined ? undefined : new ProviderError.StrictSchemaRejected({
      provider,
      rejections: [first, ...rest]
    }),
    restorer: (name) => restorers.get(name)
  }
}

/**
 * Arguments as the runtime should see them: the raw string when a tool
 * needs no restoring or the string is not a JSON object (the core then
 * answers `malformed_arguments` or `invalid_input`), the restored object
 * otherwise.
 *
 * @since 0.1.0
 * @category rewriting
 */
export const restoreArguments = (
  tools: Restorer | undefined,
  toolName: unknown,
  args: unknown
): unknown => {
  if (tools === undefined || typeof toolName !== "string") return args
  const restore = tools.restorer(toolName)
  if (restore === undefined) return args
  if (typeof args !== "string") return Wire.isRecord(args) ? restore(args) : args
  const parsed = Wire.parseJson(args)
  return parsed._tag === "Right" && Wire.isRecord(parsed.right) ? restore(parsed.right) : args
}

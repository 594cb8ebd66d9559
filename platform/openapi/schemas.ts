import { ErrorSchema } from '../schemas/common.js'
/** What the document's pass does to the route schemas: walking them, naming shared shapes, OpenAPI 3.0's limits. */

/** A JSON Schema or document node as the finishing passes walk it (untyped: any keyword may appear). */
export type Json = Record<string, any>

const SCHEMA_VALUE_KEYS = new Set(['example', 'examples', 'default', 'enum', 'const'])

/** Calls `visit` on every schema object under `node`, without mistaking a property named like a keyword. */
export function walkSchema(node: unknown, visit: (schema: Json) => void) {
  if (!node || typeof node !== 'object') return
  if (Array.isArray(node)) return node.forEach((item) => walkSchema(item, visit))
  const schema = node as Json
  visit(schema)
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_VALUE_KEYS.has(key)) continue
    if (key === 'properties' && value && typeof value === 'object') {
      for (const property of Object.values(value)) walkSchema(property, visit)
    } else walkSchema(value, visit)
  }
}

/**
 * OpenAPI 3.0 has no `propertyNames`: a validator rejects the document. The validation keeps it (a bad
 * key is a 400); the document says the rule in words instead.
 */
export function stripPropertyNames(schema: Json) {
  if (!('propertyNames' in schema)) return
  const pattern = schema.propertyNames?.pattern
  delete schema.propertyNames
  if (pattern) {
    const rule = `Keys match \`${pattern}\`.`
    schema.description = schema.description ? `${schema.description}. ${rule}` : rule
  }
}

/**
 * OpenAPI 3.0.3: `nullable` does not widen an `enum`, so a nullable enum must list `null` itself, or
 * `null` (a real answer, e.g. a run's `verdict` before review) is invalid against the document.
 */
export function nullableEnum(schema: Json) {
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum.push(null)
}

/** Ajv fills a missing field that has a default, so a caller may leave it out: it is not required. */
export function unrequireDefaults(schema: Json) {
  if (!Array.isArray(schema.required) || !schema.properties) return
  const required = schema.required.filter((name: string) => schema.properties[name]?.default === undefined)
  if (required.length) schema.required = required
  else delete schema.required
}

/** Narrows a node the passes walk into: arrays and objects are descended into, scalars are not. */
export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null

/** The text of a value with its keys sorted (symbol keys, TypeBox's, are not part of it). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** Keywords whose value is one subschema, a list of them, or a map of names to them. */
const ONE_SUBSCHEMA = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains']
const SUBSCHEMA_LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems']
const SUBSCHEMA_MAP = ['properties', 'patternProperties']

/** A reference to a named shape, so a shape used by many operations is written once. */
export const componentRef = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/**
 * A copy of `schema` in which every subschema equal to a named shape is a `$ref` to it (the root too,
 * unless `keepRoot`: a named shape is not a reference to itself). The input is never changed.
 */
export function referenceNamed(schema: unknown, named: ReadonlyMap<string, string>, keepRoot = false): unknown {
  if (!isObject(schema) || Array.isArray(schema)) return schema
  if (!keepRoot) {
    const name = named.get(canonicalJson(schema))
    if (name) return componentRef(name)
  }
  const copy: Json = { ...schema }
  for (const key of ONE_SUBSCHEMA) if (isObject(copy[key])) copy[key] = referenceNamed(copy[key], named)
  for (const key of SUBSCHEMA_LIST) {
    if (Array.isArray(copy[key])) copy[key] = copy[key].map((item: unknown) => referenceNamed(item, named))
  }
  for (const key of SUBSCHEMA_MAP) {
    if (isObject(copy[key])) {
      copy[key] = Object.fromEntries(Object.entries(copy[key]).map(([k, v]) => [k, referenceNamed(v, named)]))
    }
  }
  return copy
}

/** A route schema for the document: bodies and responses refer to the named shapes they contain. */
export function referenceRouteSchema(schema: Json, named: ReadonlyMap<string, string>): Json {
  const copy: Json = { ...schema }
  if (copy.body) copy.body = referenceNamed(copy.body, named)
  if (isObject(copy.response)) {
    copy.response = Object.fromEntries(
      Object.entries(copy.response as Json).map(([status, body]) => {
        if (body === ErrorSchema) return [status, { $ref: `${ErrorSchema.$id}#` }]
        // The `{ description, content: { <media type>: { schema } } }` form of a response.
        if (isObject(body) && isObject(body.content) && !('type' in body)) {
          const content = Object.fromEntries(
            Object.entries(body.content as Json).map(([media, entry]) => [
              media,
              isObject(entry) ? { ...entry, schema: referenceNamed(entry.schema, named) } : entry,
            ]),
          )
          return [status, { ...body, content }]
        }
        return [status, referenceNamed(body, named)]
      }),
    )
  }
  return copy
}

/** The first 2xx status an operation declares (its success answer). */

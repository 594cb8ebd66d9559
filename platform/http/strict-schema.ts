/**
 * Admin bodies and query strings are strict: an unknown property is a 400 naming it, so an
 * operator's typo (`sort_order` for `sortOrder`) does not pass silently. The route schemas are shared
 * with the app API, which stays tolerant (the SDKs send extra fields), so strictness is not written
 * into them: the admin validators compile a strict copy instead.
 */

type Schema = Record<string, unknown>

/** Keywords whose value is one subschema. */
const SCHEMA_KEYWORDS = [
  'additionalProperties',
  'items',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
] as const
/** Keywords whose value is a list of subschemas. */
const LIST_KEYWORDS = ['anyOf', 'oneOf', 'prefixItems'] as const
/** Keywords whose value maps names to subschemas. */
const MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A copy of `schema` in which every object schema that lists its `properties` and says nothing of
 * the others (no `additionalProperties`, `patternProperties` or `unevaluatedProperties`) refuses
 * them. Maps (`{ key: value }`, e.g. translations or configs) declare what their keys hold and stay
 * maps. The branches of an `allOf` are left open: each would refuse the properties of the others.
 * Values that are data, not schemas (`enum`, `const`, `default`, `examples`), are copied as they are.
 * The input is never changed: TypeBox schemas are shared objects, also used by the app API and the
 * OpenAPI document.
 */
export function strictSchema<T>(schema: T): T {
  return strictCopy(schema, true) as T
}

function strictCopy(schema: unknown, closeObject: boolean): unknown {
  if (!isSchema(schema)) return schema
  const copy: Schema = { ...schema }
  for (const keyword of SCHEMA_KEYWORDS) {
    if (keyword in copy) copy[keyword] = strictCopy(copy[keyword], true)
  }
  for (const keyword of LIST_KEYWORDS) {
    if (Array.isArray(copy[keyword])) copy[keyword] = copy[keyword].map((item) => strictCopy(item, true))
  }
  if (Array.isArray(copy.allOf)) copy.allOf = copy.allOf.map((item) => strictCopy(item, false))
  for (const keyword of MAP_KEYWORDS) {
    const map = copy[keyword]
    if (isSchema(map)) {
      copy[keyword] = Object.fromEntries(Object.entries(map).map(([name, item]) => [name, strictCopy(item, true)]))
    }
  }
  const open = 'additionalProperties' in copy || 'patternProperties' in copy || 'unevaluatedProperties' in copy
  if (closeObject && isSchema(copy.properties) && !open) copy.additionalProperties = false
  return copy
}

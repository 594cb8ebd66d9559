import secureJson from 'secure-json-parse'
import { AppError, badRequest } from '../core/errors.js'

/**
 * What an accepted JSON body may hold, whatever its size. JSON.parse and then Ajv (which deletes
 * every unknown property one by one) cost time per nesting level and per value: 900,000 levels
 * took ~170 ms to parse and 175,000 keys ~300 ms to parse and validate, all of it blocking the event
 * loop. These bounds are checked by one linear scan of the text before JSON.parse sees it.
 *
 * The biggest legitimate shapes are far below: admin imports of remote config or localization
 * (at most 5,000 keys, about 5,000 values), a crash report (100 breadcrumbs of 3 fields and 64
 * custom keys, about 500), a cloud save (one long string). Nesting in any SDK body is under 8.
 */
export const JSON_MAX_DEPTH = 64
/** Object members plus array elements plus containers, counted over the whole body. */
export const JSON_MAX_VALUES = 10_000

const QUOTE = 0x22 // "
const BACKSLASH = 0x5c
const OPEN_OBJECT = 0x7b // {
const OPEN_ARRAY = 0x5b // [
const CLOSE_OBJECT = 0x7d
const CLOSE_ARRAY = 0x5d
const COMMA = 0x2c
const LOWER_U = 0x75
/** No backslash left anywhere after this point. */
const NONE = -2
/** Characters looked at one by one after an escape before searching again. */
const NEAR = 16

/** The value of 4 hex digits at `at`, or -1 (then the text is broken and JSON.parse says so). */
function hex4(text: string, at: number): number {
  let value = 0
  for (let i = at; i < at + 4; i++) {
    const c = text.charCodeAt(i)
    const digit =
      c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1
    if (digit < 0) return -1
    value = value * 16 + digit
  }
  return value
}

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

/** What one pass over the raw body found, so the parser need not look twice. */
export interface ScanResult {
  /** Some `\uXXXX` escape spells a surrogate without its partner. */
  loneSurrogate: boolean
  /** Some `\u0000` escape spells a NUL (JSON has no other way to carry one). */
  nul: boolean
}

/** A run of text between structural characters (whitespace, a number, true/false/null, or junk). */
const FILLER = /[^"{}[\],]+/y

/**
 * One pass over the text: nesting depth, number of values, unpaired surrogate escapes and NUL escapes
 * (the body arrives as UTF-8 and JSON refuses raw control characters, so both can only get in as escapes). Long runs are skipped natively
 * (indexOf inside strings, a sticky regex between tokens), so a save of one 1.8 MB string costs
 * about as much as finding its closing quote. The next quote and backslash are remembered, which
 * keeps a string of many escapes linear; escapes that follow each other are read in place.
 * Throws 400 VALIDATION_ERROR on a bound; broken JSON is left for JSON.parse to refuse.
 */
export function scanJson(text: string, maxDepth = JSON_MAX_DEPTH, maxValues = JSON_MAX_VALUES): ScanResult {
  const length = text.length
  let depth = 0
  let values = 0
  let loneSurrogate = false
  let nul = false
  let nextQuote = -1
  let nextBackslash = -1
  let i = 0
  while (i < length) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      i++
      // Inside a string: jump to the next escape or the closing quote, whichever comes first.
      for (;;) {
        if (nextQuote < i) nextQuote = text.indexOf('"', i)
        if (nextQuote < 0) return { loneSurrogate, nul } // unterminated: JSON.parse refuses it
        if (nextBackslash < i && nextBackslash !== NONE) {
          nextBackslash = text.indexOf('\\', i)
          if (nextBackslash < 0) nextBackslash = NONE
        }
        if (nextBackslash === NONE || nextBackslash > nextQuote) {
          i = nextQuote + 1
          break
        }
        i = nextBackslash
        // Escapes close to each other are read in place: a search per escape costs more than
        // looking at the few characters in between.
        let near = i + NEAR
        while (i < near) {
          const d = text.charCodeAt(i)
          if (d === QUOTE || Number.isNaN(d)) break
          if (d !== BACKSLASH) {
            i++
            continue
          }
          near = i + NEAR
          if (text.charCodeAt(i + 1) !== LOWER_U) {
            i += 2
            continue
          }
          const unit = hex4(text, i + 2)
          i += 6
          if (isHigh(unit)) {
            const paired =
              text.charCodeAt(i) === BACKSLASH && text.charCodeAt(i + 1) === LOWER_U && isLow(hex4(text, i + 2))
            if (paired) i += 6
            else loneSurrogate = true
          } else if (isLow(unit)) {
            loneSurrogate = true
          } else if (unit === 0) {
            nul = true
          }
        }
      }
      continue
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > maxDepth) throw invalidBody('/', `nests deeper than ${maxDepth} levels`)
      if (++values > maxValues) throw tooMany(maxValues)
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--
    } else if (c === COMMA) {
      if (++values > maxValues) throw tooMany(maxValues)
    } else {
      FILLER.lastIndex = i
      FILLER.test(text)
      i = FILLER.lastIndex
      continue
    }
    i++
  }
  return { loneSurrogate, nul }
}

/** Shaped like the validator's errors: `body/path message`, with the same in `details`. */
const invalidBody = (path: string, message: string) =>
  badRequest(`body${path === '/' ? '' : path} ${message}`, path, message)

const tooMany = (maxValues: number) =>
  invalidBody('/', `holds more than ${maxValues} values (object members, array elements and containers together)`)

/** Text no body may carry: an unpaired surrogate (not Unicode) or a NUL (cut short by C and by logs). */
const BAD_TEXT = /[\p{Cs}\u0000]/u
const SURROGATE = /\p{Cs}/u
const NUL = /\u0000/g
const pointer = (path: string, key: string | number) =>
  `${path}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`

const valueProblem = (text: string) =>
  SURROGATE.test(text)
    ? 'must be valid Unicode (it holds an unpaired surrogate)'
    : 'must not hold a NUL character (U+0000)'
const keyProblem = (key: string) =>
  SURROGATE.test(key)
    ? 'has a property name that is not valid Unicode (an unpaired surrogate)'
    : 'has a property name holding a NUL character (U+0000)'

/**
 * The JSON pointer of the first string (or of the object holding the first key) that breaks the text
 * rule of contract §1, with what is wrong. Also the rule of imported rows (`npm run import:php`).
 */
export function findBadText(root: unknown): { path: string; message: string } | undefined {
  // Bounded: the scan let at most JSON_MAX_VALUES values through.
  const stack: Array<[unknown, string]> = [[root, '']]
  while (stack.length > 0) {
    const [value, path] = stack.pop()!
    if (typeof value === 'string') {
      if (BAD_TEXT.test(value)) return { path: path || '/', message: valueProblem(value) }
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) stack.push([value[index], pointer(path, index)])
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value)
      const bad = keys.find((key) => BAD_TEXT.test(key))
      if (bad !== undefined) return { path: path || '/', message: keyProblem(bad) }
      for (let index = keys.length - 1; index >= 0; index--) {
        stack.push([(value as Record<string, unknown>)[keys[index]], pointer(path, keys[index])])
      }
    }
  }
  return undefined
}

/**
 * The value with every NUL taken out of its strings and property names: for the bodies that must
 * never be lost for their text (crash reports, contract §6.3). A name that becomes another's is merged
 * into it, the later value winning, as JSON.parse does with a repeated name.
 */
export function withoutNul(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('\u0000') ? value.replace(NUL, '') : value
  if (Array.isArray(value)) return value.map(withoutNul)
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    const name = key.replace(NUL, '')
    // As the parser drops __proto__ members: a name that only becomes one here is dropped too.
    if (name !== '__proto__') out[name] = withoutNul(inner)
  }
  return out
}

/** How a route wants control characters treated: most refuse them, crash reports keep the report. */
export interface TextRules {
  /** Take NUL characters out instead of refusing them (crash reports: never lose a report). */
  stripNul?: boolean
}

/**
 * Parses a JSON body within the bounds above. Throws 400 VALIDATION_ERROR for a bound, for text that
 * is not valid Unicode and for a NUL (never stored; taken out instead with `stripNul`), 400
 * INVALID_JSON for broken JSON.
 */
export function parseBoundedJson(text: string, rules: TextRules = {}): unknown {
  const { loneSurrogate, nul } = scanJson(text)
  let value: unknown
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' })
  } catch {
    throw new AppError(400, 'INVALID_JSON', 'Request body is not valid JSON')
  }
  if (nul && rules.stripNul) value = withoutNul(value)
  if (loneSurrogate || (nul && !rules.stripNul)) {
    const found = findBadText(value)
    // Only a removed __proto__ member can hide the escape the scan saw; then nothing of it remains.
    if (found) throw invalidBody(found.path, found.message)
  }
  return value
}

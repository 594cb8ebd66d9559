/**
 * App versions, made comparable as plain strings so the database can decide a regression in the
 * same statement that counts the report (`resolved_version_key < reportKey`), with no read in JS.
 *
 * Order: the leading numeric core compares segment by segment as numbers (1.10 > 1.9, 1.2 = 1.2.0,
 * an optional leading "v" is ignored). Whatever follows the core is a pre-release suffix ("-beta.2",
 * "rc1", " (45)"): it sorts before the bare core (1.2.0-beta < 1.2.0 < 1.2.1), and suffixes of one core
 * compare as lower-cased text with digit runs compared as numbers (beta.2 < beta.10 < rc.1). Build
 * metadata after "+" is ignored. A version with no leading number ("dev", "") sorts before every
 * numbered version.
 */

const MAX_DIGITS = 20
const MAX_KEY = 255

/** A digit run as a string that sorts numerically: its length as one letter, then the digits. */
function encodeNumber(digits: string): string {
  const trimmed = digits.replace(/^0+(?=\d)/, '').slice(0, MAX_DIGITS)
  return String.fromCharCode(0x41 + trimmed.length) + trimmed
}

const encodeText = (text: string) =>
  text
    .toLowerCase()
    .replace(/\d+/g, encodeNumber)
    .replace(/[^\x21-\x7e]/g, '_')

// Separators sort below every encoded character: ' ' (suffix follows) < '!' (end) < '.' (next segment).
/** A key that sorts versions as people read them (1.10 after 1.9), so the database can order by it. */
export function versionKey(version: string): string {
  const withoutBuild = version.trim().split('+', 1)[0]!
  const match = /^[vV]?(\d+(?:\.\d+)*)(.*)$/.exec(withoutBuild)
  if (!match) return withoutBuild === '' ? '' : ` ${encodeText(withoutBuild)}`.slice(0, MAX_KEY)
  const segments = match[1]!.split('.')
  while (segments.length > 1 && /^0+$/.test(segments[segments.length - 1]!)) segments.pop()
  const core = segments.map(encodeNumber).join('.')
  const suffix = match[2]!.replace(/^[-._\s]+/, '')
  return (suffix === '' ? `${core}!` : `${core} ${encodeText(suffix)}`).slice(0, MAX_KEY)
}

/** Orders versions by versionKey, the text itself breaking ties so the order is total. */
export function compareVersions(a: string, b: string): number {
  const ka = versionKey(a)
  const kb = versionKey(b)
  return ka < kb ? -1 : ka > kb ? 1 : a < b ? -1 : a > b ? 1 : 0
}

import { ConfigSchema, type Config } from '../../config.js'
import type { Setting } from './schemas.js'

/**
 * A setting is secret by its name: a key, a password, a token or a private key. The rule goes by name
 * rather than a list, so a setting added later with a secret-sounding name is masked without anyone
 * remembering to list it; a false positive only hides a harmless value.
 */
const SECRET_NAME = /KEY|SECRET|PASS|TOKEN|PRIVATE|CREDENTIAL/i

/** What a configured secret shows instead of its value. */
export const SECRET_SET = '[set]'
const REDACTED = '[redacted]'
/** Query parameters carry credentials under more names than settings do (`?auth=`, `?sig=`). */
const SECRET_PARAM = /KEY|SECRET|PASS|TOKEN|PRIVATE|CREDENTIAL|AUTH|SIG/i
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i

/**
 * A URL keeps what helps an operator check it (scheme, host, port, path) and loses what would let a
 * reader sign in: its user info (SMTP_URL and REDIS_URL carry passwords there, some providers put the
 * key in the user name), any query value with a secret-sounding name, and the fragment. A URL that does
 * not parse is masked whole: there is no telling where its password is.
 */
function maskUrl(value: string): { value: string; masked: boolean } {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return { value: SECRET_SET, masked: true }
  }
  const hadUserInfo = url.username !== '' || url.password !== ''
  url.username = ''
  url.password = ''
  let maskedParts = url.hash !== ''
  url.hash = ''
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) {
      url.searchParams.set(name, REDACTED)
      maskedParts = true
    }
  }
  if (!hadUserInfo && !maskedParts) return { value, masked: false }
  // Written by hand: URL would percent-encode the brackets of a marker set as the user name.
  const text = url.toString()
  const masked = hadUserInfo ? text.replace('//', `//${REDACTED}@`) : text
  return { value: masked, masked: true }
}

type Plain = string | number | boolean | null

function describe(name: string, raw: unknown): Pick<Setting, 'value' | 'secret' | 'set'> {
  const value: Plain = raw === undefined ? null : (raw as Plain)
  const set = value !== null && value !== ''
  if (SECRET_NAME.test(name)) return { value: set ? SECRET_SET : null, secret: true, set }
  if (typeof value === 'string' && URL_LIKE.test(value)) {
    const url = maskUrl(value)
    return { value: url.value, secret: url.masked, set }
  }
  return { value, secret: false, set }
}

/**
 * Every setting of the configuration schema, in its order, with the value in effect: secrets masked
 * (whether one is set, never what it is). Read from the schema rather than the config object, so a
 * setting left unset (an optional one) is listed too.
 */
export function maskedSettings(config: Config): Setting[] {
  return Object.entries(ConfigSchema.properties).map(([name, schema]) => {
    const raw = (config as Record<string, unknown>)[name]
    const fallback = (schema as { default?: unknown }).default
    return {
      name,
      ...describe(name, raw),
      isDefault: raw === undefined || raw === fallback,
      description: (schema as { description?: string }).description ?? null,
    }
  })
}

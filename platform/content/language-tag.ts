/**
 * BCP 47 language tags (localization, news). Tags are validated and stored in their canonical form
 * (`pt-BR`, `zh-Hant-TW`) and compared lower-cased: one SDK lower-cases every tag it sends.
 */
export const LANGUAGE_TAG_MAX = 35

/** The canonical form, or undefined when the text is not a well-formed tag. */
export function canonicalLanguageTag(raw: string): string | undefined {
  if (raw.length === 0 || raw.length > LANGUAGE_TAG_MAX || !/^[A-Za-z0-9-]+$/.test(raw)) return undefined
  try {
    // ICU checks the structure (RFC 5646) and fixes the case of each subtag; it also maps
    // deprecated codes to their replacements (`iw` → `he`), the same way on both sides of a lookup.
    return Intl.getCanonicalLocales(raw)[0]
  } catch {
    return undefined
  }
}

/** Lookup order (RFC 4647): `zh-Hant-TW`, `zh-Hant`, `zh`, then the default language. */
export function fallbackChain(tag: string, defaultTag: string): string[] {
  const chain: string[] = []
  const parts = tag.split('-')
  for (let n = parts.length; n > 0; n--) {
    // A lone one-letter subtag (`-u`, `-x`) only introduces an extension: never a lookup step.
    if (parts[n - 1]!.length === 1) continue
    chain.push(parts.slice(0, n).join('-'))
  }
  if (!chain.includes(defaultTag)) chain.push(defaultTag)
  return chain
}

/** Tags compare case-insensitively (BCP 47): the one key a tag is stored and looked up by. */
export const languageKey = (tag: string) => tag.toLowerCase()

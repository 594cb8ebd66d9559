import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import { AdminTranslationSchema, TranslationGridSchema } from './schemas.js'
import { APP_PREFIX, ADMIN_PREFIX } from '../../platform/core/paths.js'

const APP = `${APP_PREFIX}/localization`
const ADMIN = `${ADMIN_PREFIX}/localization`
const LANG =
  '`lang` is a BCP 47 tag matched case-insensitively (`pt-br` = `pt-BR`); absent or `""` means the default language ' +
  '(`DEFAULT_LANGUAGE`, default `en`); a malformed tag is 400.'
const ETAG = 'Sends an `ETag`; a matching `If-None-Match` gets 304 with no body.'

export const components: NamedSchemas = {
  Translation: AdminTranslationSchema,
  TranslationGrid: TranslationGridSchema,
}

export const docs: OperationDocs = {
  [`GET ${APP}/languages`]: {
    description: `The languages with at least one value (\`[]\` on an empty database) and the default language. ${ETAG}`,
    response: { languages: ['de', 'en', 'pt-BR'], total: 3, defaultLanguage: 'en' },
  },
  [`GET ${APP}/all`]: {
    description: `Every value for a language as \`{ key: value }\`; default-language values fill the gaps. ${LANG} ${ETAG}`,
    parameters: { lang: 'de' },
    response: { language: 'de', translations: { 'menu.play': 'Spielen', 'menu.quit': 'Beenden' }, total: 2 },
  },
  [`GET ${APP}/{key}`]: {
    description:
      'One value, looked up in `lang` (`pt-BR`), then its base language (`pt`), then the default language; `resolvedLang` ' +
      'names the one used. Nothing found is not an error: `found: false`, `value: null`, `resolvedLang: null`. ' +
      '`localizationKey` and `language` (the requested language) are the compat names; `key` repeats `localizationKey`. ' +
      `Keys as in remote config (\`all\`, \`filter\` and \`languages\` are reserved). ${LANG} ${ETAG}`,
    parameters: { key: 'menu.play', lang: 'de-AT' },
    response: {
      localizationKey: 'menu.play',
      key: 'menu.play',
      language: 'de-AT',
      value: 'Spielen',
      found: true,
      resolvedLang: 'de',
    },
  },
  [`GET ${ADMIN}`]: {
    description:
      'The translations as a grid: a page of keys (code-point order; `limit` 1–100, default 50; `cursor` from the ' +
      "previous page) with each key's value in every language that has one, and `languages`, every language with " +
      'at least one value. `query` keeps the keys containing that text (case-sensitive). A cursor this server did ' +
      'not issue is 400.',
    parameters: { limit: 50, query: 'menu.' },
    response: {
      items: [
        { key: 'menu.play', values: { de: 'Spielen', en: 'Play' } },
        { key: 'menu.quit', values: { en: 'Quit' } },
      ],
      languages: ['de', 'en'],
      nextCursor: null,
    },
  },
  [`PUT ${ADMIN}/{lang}`]: {
    description:
      "Creates or replaces many of a language's values in one transaction, all or nothing: `translations` maps keys " +
      '(letters, digits, `.`, `_`, `-`; 1–128) to values (≤ 16,384 characters), at most 5000 keys; keys not named are ' +
      'kept. A bad key or value is 400 and nothing changes; 413 for a body over the route limit.',
    parameters: { lang: 'de' },
    request: { translations: { 'menu.play': 'Spielen', 'menu.quit': 'Beenden' } },
    response: { language: 'de', upserted: 2, translations: { 'menu.play': 'Spielen', 'menu.quit': 'Beenden' } },
  },
  [`DELETE ${ADMIN}/{lang}`]: {
    description:
      'Deletes every value of a language; `deleted` counts them. 404 `NOT_FOUND` when the language has none.',
    parameters: { lang: 'de' },
    response: { language: 'de', deleted: 2 },
  },
  [`PUT ${ADMIN}/{lang}/{key}`]: {
    description:
      'Creates or replaces one value (≤ 16,384 characters). 409 `CONFLICT` when the value was deleted while it was being written: retry.',
    parameters: { lang: 'de', key: 'menu.play' },
    request: { value: 'Spielen' },
    response: { language: 'de', key: 'menu.play', value: 'Spielen', updatedAt: EX.now },
  },
  [`DELETE ${ADMIN}/{lang}/{key}`]: {
    description: 'Deletes one value. 404 `NOT_FOUND`.',
    parameters: { lang: 'de', key: 'menu.play' },
    response: { language: 'de', key: 'menu.play', deleted: true },
  },
}

import type { NamedSchemas } from '../../platform/openapi/index.js'
import { AdminTranslationSchema, TranslationGridSchema } from './schemas.js'

export const LANG =
  '`lang` is a BCP 47 tag matched case-insensitively (`pt-br` = `pt-BR`); absent or `""` means the default language ' +
  '(`DEFAULT_LANGUAGE`, default `en`); a malformed tag is 400.'
export const ETAG = 'Sends an `ETag`; a matching `If-None-Match` gets 304 with no body.'

export const components: NamedSchemas = {
  Translation: AdminTranslationSchema,
  TranslationGrid: TranslationGridSchema,
}

import { Ajv, type Options as AjvOptions } from 'ajv'
import addFormats from 'ajv-formats'
import { lowercaseUuidKeyword } from './common.js'

/**
 * The one Ajv set-up of the house: the app's validators and the checks of imported rows (`npm run
 * import:php`) compile the same schemas with the same formats and keywords, so both accept the same input.
 */
export function createAjv(options: AjvOptions = {}): Ajv {
  const instance = new Ajv({ useDefaults: true, removeAdditional: true, allErrors: false, strict: false, ...options })
  addFormats.default(instance, ['uuid', 'date-time', 'date', 'email', 'uri'])
  instance.addKeyword(lowercaseUuidKeyword)
  return instance
}

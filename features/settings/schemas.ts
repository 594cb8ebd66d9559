import { Type, type Static } from '@sinclair/typebox'

export const SettingSchema = Type.Object({
  name: Type.String({ description: 'The environment variable, as in the settings table of docs/configuration.md' }),
  value: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], {
    description:
      'The value in effect; for a secret "[set]" or null (never the value); a URL keeps its host but not its credentials',
  }),
  secret: Type.Boolean({ description: 'The value is masked (a key, password, token, or a URL with credentials)' }),
  set: Type.Boolean({ description: 'A value is in effect (for a secret: whether one is configured)' }),
  isDefault: Type.Boolean({ description: 'The value is the default (or unset, for a setting without one)' }),
  description: Type.Union([Type.String(), Type.Null()]),
})
export type Setting = Static<typeof SettingSchema>

export const SettingListSchema = Type.Object({ items: Type.Array(SettingSchema) })
export const SettingsQuerySchema = Type.Object({})

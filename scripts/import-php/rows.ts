// The checks a PHP server's row passes before it is written into Outpost: the same as the API's input.
// Every text column is held to the text rule of every JSON body (valid Unicode, no NUL: crash data has
// its NUL taken out, as the crash routes do), and each row is checked as the API body it stands for,
// with the API's own schema, compiled by the app's own Ajv set-up. A row that fails is refused with the
// API's words; a row of a user that was not imported is refused whatever it holds.
import type { TSchema } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import { findBadText, withoutNul } from '../../platform/http/json-body.js'
import { createAjv } from '../../platform/schemas/validator.js'
import { SignupBodySchema } from '../../features/authentication/schemas.js'
import { SubmitBodySchema } from '../../features/leaderboard/schemas.js'
import { SaveBodySchema } from '../../features/cloud-save/schemas.js'
import { ConfigKeyParamsSchema, PutConfigBodySchema } from '../../features/remote-config/schemas.js'
import { CreateNewsBodySchema } from '../../features/news/schemas.js'
import { CreateGiftCodeBodySchema } from '../../features/gift-codes/schemas.js'
import { FeedbackBodySchema } from '../../features/user-feedback/schemas.js'
import { UserLogBodySchema } from '../../features/user-logs/schemas.js'
import {
  CrashReportBodySchema,
  CrashSessionBodySchema,
  type CrashReportBody,
} from '../../features/crash-reporting/schemas.js'
import { NotUtf8, type Row } from './source.js'

/**
 * A time the PHP server stored: `2026-11-22T10:30:00` (its own writes, UTC) or `2026-11-22 10:30:00`
 * (SQL defaults, UTC), read as UTC. Undefined when it is not a time at all.
 */
export function phpTime(value: unknown): number | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined
  const text = value.trim().replace(' ', 'T')
  const ms = Date.parse(/(Z|[+-]\d\d:?\d\d)$/i.test(text) ? text : `${text}Z`)
  return Number.isFinite(ms) ? ms : undefined
}

/** A PHP value as nullable text: PHP columns hold numbers and strings alike. */
export const str = (value: unknown): string | null => (value === null || value === undefined ? null : String(value))
const iso = (value: unknown) => {
  const ms = phpTime(value)
  return ms === undefined ? undefined : new Date(ms).toISOString()
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A column the PHP server stores JSON-encoded (breadcrumbs, custom keys): its value, or undefined. */
function parsedJson(value: unknown): unknown {
  if (typeof value !== 'string' || value === '') return undefined
  try {
    return JSON.parse(value) as unknown
  } catch {
    return undefined
  }
}

/** A PHP crash report as the body of `POST /crash-reports/create`. */
export function crashReportBody(r: Row): CrashReportBody {
  const breadcrumbs = parsedJson(r.breadcrumbs)
  const customKeys = parsedJson(r.custom_keys)
  return {
    type: String(r.type) as 'CRASH',
    message: String(r.message),
    stackTrace: str(r.stack_trace) ?? undefined,
    fingerprint: String(r.fingerprint),
    appVersion: String(r.app_version),
    sdkVersion: String(r.sdk_version),
    platform: String(r.platform),
    os: String(r.os),
    deviceModel: String(r.device_model),
    deviceMemoryMb: r.device_memory_mb === null ? null : Number(r.device_memory_mb),
    sessionId: String(r.session_id),
    userId: str(r.user_id) ?? undefined,
    breadcrumbs: Array.isArray(breadcrumbs) ? (breadcrumbs as []) : null,
    customKeys:
      customKeys && typeof customKeys === 'object' && !Array.isArray(customKeys)
        ? (customKeys as Record<string, unknown>)
        : null,
  }
}

interface TableRules {
  /** Crash data: a NUL is taken out rather than refused (a report is never lost for its text). */
  stripNul?: boolean
  /** The user the row belongs to, when it names one (the PHP server's user_id column). */
  owner?: (row: Row) => string | undefined
  /** The API input the row stands for: each with the schema the API checks it with. */
  bodies?: (row: Row) => Array<[TSchema, unknown]>
}

const userId = (r: Row) => (r.user_id === null || r.user_id === undefined ? undefined : String(r.user_id))
/** Crash data takes any userId; only one shaped as a UUID names (and would be linked to) a user. */
const crashOwner = (r: Row) => {
  const id = userId(r)
  return id !== undefined && UUID.test(id) ? id : undefined
}

const RULES: Record<string, TableRules> = {
  users: { bodies: (r) => [[SignupBodySchema, { type: 'ANONYMOUS', username: str(r.display_name) ?? '' }]] },
  leaderboard: {
    owner: userId,
    bodies: (r) => [[SubmitBodySchema, { userId: String(r.user_id), score: Number(r.score) }]],
  },
  cloud_saves: {
    owner: userId,
    bodies: (r) => [[SaveBodySchema, { userId: String(r.user_id), saveData: str(r.data) }]],
  },
  remote_configs: {
    bodies: (r) => [
      [ConfigKeyParamsSchema, { configKey: String(r.config_key) }],
      // A null value is refused by the config's own import, in its own words.
      ...(r.config_value === null
        ? []
        : [[PutConfigBodySchema, { value: String(r.config_value) }] as [TSchema, unknown]]),
    ],
  },
  news: {
    bodies: (r) => [
      [
        CreateNewsBodySchema,
        {
          title: str(r.title),
          message: str(r.message),
          languageCode: str(r.language_code),
          releaseDate: iso(r.published_at),
        },
      ],
    ],
  },
  gift_codes: {
    bodies: (r) => [
      [
        CreateGiftCodeBodySchema,
        {
          // The code is checked by the gift codes' own import (the same rule), which names it.
          giftData: str(r.reward_data) ?? '',
          maxRedemptions: Number(r.max_redemptions),
          expiresAt: r.expires_at === null ? null : iso(r.expires_at),
        },
      ],
    ],
  },
  gift_code_redemptions: { owner: userId },
  user_feedback: {
    owner: userId,
    bodies: (r) => [
      [
        FeedbackBodySchema,
        {
          userId: str(r.user_id),
          title: str(r.title),
          message: str(r.message),
          category: str(r.category),
          email: str(r.email),
          deviceInfo: str(r.device_info),
        },
      ],
    ],
  },
  user_logs: {
    owner: userId,
    bodies: (r) => [
      [
        UserLogBodySchema,
        { userId: str(r.user_id), message: str(r.message), type: str(r.type), errorCode: str(r.error_code) },
      ],
    ],
  },
  crash_sessions: {
    stripNul: true,
    owner: crashOwner,
    bodies: (r) => [
      [
        CrashSessionBodySchema,
        {
          sessionId: str(r.session_id),
          appVersion: str(r.app_version),
          platform: str(r.platform),
          userId: str(r.user_id),
        },
      ],
    ],
  },
  crash_reports: { stripNul: true, owner: crashOwner, bodies: (r) => [[CrashReportBodySchema, crashReportBody(r)]] },
  crash_groups: { stripNul: true },
}

/** A PHP row made ready to insert, or why it cannot be. */
export type Checked = { row: Row } | { reason: string }

/**
 * One import run's checks. It learns which PHP users were imported (or found imported by an earlier
 * run) as the users table is read, which comes first: a row of any other user is refused, so a refused
 * user's save, score or report never lands on an Outpost player who happens to have the same id.
 */
export class RowChecker {
  private readonly ajv = createAjv({ coerceTypes: false })
  private readonly compiled = new Map<TSchema, ValidateFunction>()
  private readonly imported = new Set<string>()
  private readonly refusedUsers = new Set<string>()

  /** The users step's outcome for one PHP user. */
  userOutcome(id: string, imported: boolean): void {
    ;(imported ? this.imported : this.refusedUsers).add(id.toLowerCase())
  }

  /** The row to write (crash data without its NULs), or why it is refused. */
  check(table: string, original: Row): Checked {
    const rules = RULES[table] ?? {}
    for (const [column, value] of Object.entries(original)) {
      if (value instanceof NotUtf8) return { reason: `${column} is not valid UTF-8 text` }
    }
    const row = rules.stripNul ? (withoutNul(original) as Row) : original
    const bad = findBadText(row)
    if (bad) return { reason: `${bad.path.slice(1)} ${bad.message}` }
    const owner = rules.owner?.(row)?.toLowerCase()
    if (owner !== undefined && !this.imported.has(owner)) {
      return {
        reason: this.refusedUsers.has(owner)
          ? `its user ${owner} was not imported (refused above), so none of that user's rows are`
          : `user ${owner} does not exist`,
      }
    }
    for (const [schema, body] of rules.bodies?.(row) ?? []) {
      const input = rules.stripNul ? withoutNul(body) : body
      const badInput = findBadText(input)
      if (badInput) return { reason: `body${badInput.path === '/' ? '' : badInput.path} ${badInput.message}` }
      let validate = this.compiled.get(schema)
      if (!validate) this.compiled.set(schema, (validate = this.ajv.compile(schema)))
      if (!validate(structuredClone(input))) {
        const error = validate.errors![0]!
        return { reason: `body${error.instancePath} ${error.message ?? 'is not valid'}` }
      }
    }
    return { row }
  }
}

import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { Db } from '../../db/types.js'
import type { EmailRow, EmailStatus, NewEmail } from './tables.js'
import { inTransaction } from '../../db/transaction.js'
import { affected } from '../../db/dialect.js'
import { AppError, badRequest, notFound } from '../../platform/core/errors.js'
import { parseIsoTime, toIso, toIsoOrNull } from '../../platform/core/clock.js'
import { keysetPage } from '../../platform/http/pagination.js'
import { findUser, lockUser } from '../users/service.js'
import type { AdminEmail, EmailStatusResponse } from './schemas.js'
import {
  findTemplate,
  missingVariablesError,
  render,
  resolveVariables,
  SYSTEM_TEMPLATES,
  type Rendered,
} from './templates.js'

export { replaceEmailTemplates, snapshotEmailTemplates, type TemplateCopy } from './templates.js'

/**
 * The e-mail queue. A send renders the template and stores one `pending` row; the
 * worker (worker.ts) delivers it. The recipient is always the user's account address.
 */
export interface SendDeps {
  db: Db
  now: () => number
  enabled: boolean
  maxPerUserPerHour: number
}

const HOUR_MS = 3600_000
/** A year and a day: a later date is a client's mistake more likely than a plan. */
export const MAX_SCHEDULE_AHEAD_MS = 366 * 24 * HOUR_MS

/** `scheduledAt` as epoch ms: past means now; more than a year ahead is a 400. */
export function parseScheduledAt(value: string | undefined, now: number): number {
  if (value === undefined) return now
  const at = parseIsoTime(value, 'body/scheduledAt')
  if (at > now + MAX_SCHEDULE_AHEAD_MS)
    throw badRequest('body/scheduledAt must be at most 1 year ahead', '/scheduledAt')
  return Math.max(at, now)
}

function newEmail(
  fields: { userId: string; slug: string; recipient: string; account: boolean; scheduledAt: number; now: number },
  rendered: Rendered,
): NewEmail {
  return {
    id: randomUUID(),
    user_id: fields.userId,
    template_slug: fields.slug,
    language: rendered.language,
    recipient: fields.recipient,
    subject: rendered.subject,
    html: rendered.html,
    text_body: rendered.text,
    is_account: fields.account ? 1 : 0,
    status: 'pending',
    scheduled_at: fields.scheduledAt,
    next_attempt_at: fields.scheduledAt,
    attempts: 0,
    claim_token: null,
    claimed_at: null,
    processed_at: null,
    error_reason: null,
    created_at: fields.now,
    updated_at: fields.now,
  }
}

/**
 * A send from the app API, checked in the documented order (disabled, template, address, variables, quota; the route has already checked the
 * user exists and is not banned). The quota is counted under a lock on the user's row, so
 * concurrent sends (any number of instances) never exceed it.
 */
export async function sendEmail(
  deps: SendDeps,
  request: {
    userId: string
    templateSlug: string
    language: string
    variables?: Record<string, string>
    scheduledAt: number
  },
) {
  if (!deps.enabled) throw new AppError(503, 'EMAIL_DISABLED', 'E-mail is not configured on this server')
  const template = await findTemplate(deps.db, request.templateSlug)
  if (!template || !template.clientCallable) {
    throw notFound('TEMPLATE_NOT_FOUND', `No e-mail template '${request.templateSlug}' can be sent from the app`)
  }
  const user = await findUser(deps.db, request.userId)
  if (!user?.email) throw new AppError(422, 'USER_HAS_NO_EMAIL', 'This user has no e-mail address')
  const { values, missing } = resolveVariables(template, request.variables)
  if (missing.length > 0) throw missingVariablesError(missing)
  const rendered = render(template, request.language, values)
  const now = deps.now()
  const email = newEmail(
    {
      userId: user.id,
      slug: template.slug,
      recipient: user.email,
      account: false,
      scheduledAt: request.scheduledAt,
      now,
    },
    rendered,
  )
  await inTransaction(deps.db, async (trx) => {
    await lockUser(trx, user.id)
    const lastHour = trx
      .selectFrom('emails')
      .where('user_id', '=', user.id)
      .where('is_account', '=', 0)
      .where('created_at', '>', now - HOUR_MS)
    const sent = await lastHour.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    if (Number(sent.n) >= deps.maxPerUserPerHour) {
      // A send is allowed again once enough of the hour's e-mails have aged out of it.
      const freeing = await lastHour
        .select('created_at')
        .orderBy('created_at')
        .offset(Number(sent.n) - deps.maxPerUserPerHour)
        .limit(1)
        .executeTakeFirstOrThrow()
      const retryAfterSeconds = Math.max(1, Math.ceil((Number(freeing.created_at) + HOUR_MS - now) / 1000))
      throw new AppError(429, 'EMAIL_QUOTA_EXCEEDED', `At most ${deps.maxPerUserPerHour} e-mails per user per hour`, {
        retryAfterSeconds,
      })
    }
    await trx.insertInto('emails').values(email).execute()
  })
  return { id: email.id, status: 'pending' as const, scheduledAt: toIso(email.scheduled_at) }
}

/**
 * An account e-mail (verification, reset), queued in the caller's transaction. It
 * does not count against the quota, and variables the operator added without a default render empty.
 */
export async function queueAccountEmail(
  db: Db,
  mail: {
    userId: string
    recipient: string
    kind: keyof typeof SYSTEM_TEMPLATES
    variables: Record<string, string>
    now: number
  },
): Promise<string> {
  const slug = SYSTEM_TEMPLATES[mail.kind]
  const template = await findTemplate(db, slug)
  if (!template) throw new Error(`system e-mail template '${slug}' is missing`)
  const { values } = resolveVariables(template, mail.variables)
  const email = newEmail(
    { userId: mail.userId, slug, recipient: mail.recipient, account: true, scheduledAt: mail.now, now: mail.now },
    render(template, undefined, values),
  )
  await db.insertInto('emails').values(email).execute()
  return email.id
}

function toStatus(row: EmailRow): EmailStatusResponse {
  return {
    id: row.id,
    status: row.status,
    templateSlug: row.template_slug,
    userId: row.user_id,
    language: row.language,
    scheduledAt: toIso(row.scheduled_at),
    processedAt: toIsoOrNull(row.processed_at),
    attempts: row.attempts,
    errorReason: row.error_reason,
    createdAt: toIso(row.created_at),
  }
}

const emailNotFound = () => notFound('EMAIL_NOT_FOUND', 'No such e-mail')

/** The owner check: in strict mode (or when a session was sent) only the owner may look. */
function assertOwner(row: { user_id: string }, ownerId: string | undefined) {
  if (ownerId !== undefined && row.user_id !== ownerId) {
    throw new AppError(403, 'SESSION_FORBIDDEN', 'The session belongs to another user')
  }
}

/** A queued e-mail's status, for the player who queued it only (ownerId) or for the API key. */
export async function getEmailStatus(db: Db, emailId: string, ownerId?: string): Promise<EmailStatusResponse> {
  const row = await db.selectFrom('emails').selectAll().where('id', '=', emailId).executeTakeFirst()
  if (!row) throw emailNotFound()
  assertOwner(row, ownerId)
  return toStatus(row)
}

/**
 * For the UPDATE that ends an e-mail (sent, failed for good, cancelled): an account e-mail's body
 * carries its single-use token, so it is dropped in the same statement that changes the status,
 * never left readable once the mail will not be sent (again). Other e-mails keep theirs.
 */
export const scrubAccountBody = {
  html: sql<string | null>`case when is_account = 1 then null else html end`,
  text_body: sql<string | null>`case when is_account = 1 then null else text_body end`,
}

/** Only a pending e-mail can be cancelled; the conditional UPDATE settles a race with the worker. */
export async function cancelEmail(db: Db, emailId: string, now: number, ownerId?: string) {
  const row = await db.selectFrom('emails').select(['user_id', 'status']).where('id', '=', emailId).executeTakeFirst()
  if (!row) throw emailNotFound()
  assertOwner(row, ownerId)
  const result = await db
    .updateTable('emails')
    .set({ status: 'cancelled', processed_at: now, updated_at: now, ...scrubAccountBody })
    .where('id', '=', emailId)
    .where('status', '=', 'pending')
    .executeTakeFirst()
  if (affected(result) === 0) {
    const current = await db.selectFrom('emails').select('status').where('id', '=', emailId).executeTakeFirst()
    throw new AppError(
      409,
      'CONFLICT',
      `The e-mail is ${current?.status ?? 'gone'}, only a pending e-mail can be cancelled`,
    )
  }
  return { id: emailId, status: 'cancelled' as const, message: 'Email cancelled' }
}

// ---- operator --------------------------------------------------------------------------------

function toAdminEmail(row: EmailRow): AdminEmail {
  return {
    ...toStatus(row),
    recipient: row.recipient,
    subject: row.subject,
    account: row.is_account === 1,
    nextAttemptAt: toIso(row.next_attempt_at),
    updatedAt: toIso(row.updated_at),
  }
}

/** Newest first, optionally one status or one user. */
export async function listEmails(
  db: Db,
  options: { status?: EmailRow['status']; userId?: string; limit: number; cursor?: string },
) {
  let select = db.selectFrom('emails').selectAll()
  if (options.status) select = select.where('status', '=', options.status)
  if (options.userId) select = select.where('user_id', '=', options.userId)
  const { items, nextCursor } = await keysetPage(select, {
    cursor: options.cursor,
    limit: options.limit,
    keys: ['created_at', 'id'],
  })
  return { items: items.map(toAdminEmail), nextCursor }
}

/** The console's view of one e-mail: its status plus recipient, subject and next attempt, which players never see. */
export async function getAdminEmail(db: Db, emailId: string): Promise<AdminEmail> {
  const row = await db.selectFrom('emails').selectAll().where('id', '=', emailId).executeTakeFirst()
  if (!row) throw emailNotFound()
  return toAdminEmail(row)
}

/** The queue by status, every status present (0 when none): what the metrics report on each scrape. */
const EMAIL_STATUSES: EmailStatus[] = ['pending', 'processing', 'sent', 'failed', 'cancelled']

/** The queue's state at a glance: every status present, zero when none. */
export async function countEmailsByStatus(db: Db): Promise<Record<EmailStatus, number>> {
  const rows = await db
    .selectFrom('emails')
    .select(['status', (eb) => eb.fn.countAll<number | string>().as('count')])
    .groupBy('status')
    .execute()
  const counts = Object.fromEntries(EMAIL_STATUSES.map((status) => [status, 0])) as Record<EmailStatus, number>
  for (const row of rows) counts[row.status] = Number(row.count)
  return counts
}

// ---- data export ------------------------------------------------------------------------------

/**
 * The e-mails sent (or queued) to the player, for their data export: who, what and when, never a body
 * (the admin API shows no e-mail body anywhere; an account e-mail's body holds a single-use token).
 */
export async function exportForUser(db: Db, userId: string) {
  const rows = await db
    .selectFrom('emails')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  return rows.map((row) => {
    return {
      id: row.id,
      template: row.template_slug,
      language: row.language,
      recipient: row.recipient,
      subject: row.subject,
      account: row.is_account === 1,
      status: row.status,
      scheduledAt: toIso(Number(row.scheduled_at)),
      processedAt: toIsoOrNull(row.processed_at === null ? null : Number(row.processed_at)),
      createdAt: toIso(Number(row.created_at)),
    }
  })
}
export * from './stats.js'

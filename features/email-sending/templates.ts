import type { Db } from '../../db/types.js'
import type { EmailTemplateRow } from './tables.js'
import { upsert } from '../../db/dialect.js'
import { withTransaction } from '../../db/transaction.js'
import { AppError, badRequest, notFound } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import { keysetPage } from '../../platform/http/pagination.js'
import { present } from '../../platform/schemas/common.js'
import { VARIABLE_NAME, type EmailTemplate, type PutTemplateBody } from './schemas.js'

/**
 * E-mail templates: per-language subject/html/text with `{{name}}` placeholders, declared variables
 * with optional defaults, a default language to fall back to. The email-sending feature owns the
 * table; the system templates used by e-mail accounts are seeded by a migration.
 */
export const SYSTEM_TEMPLATES = { verification: 'email-verification', reset: 'password-reset' } as const
const SYSTEM_SLUGS = new Set<string>(Object.values(SYSTEM_TEMPLATES))
/**
 * The system templates' variables that carry the single-use token. An account e-mail's body is
 * dropped once it is sent, but its subject is kept for the operator, so they may not appear there.
 */
const SECRET_VARIABLES = ['token', 'verifyUrl', 'resetUrl']

interface Translation {
  subject: string
  html: string
  text: string | null
}

/** A template as the services use it, times as numbers; toApiTemplate makes the API shape. */
export interface Template {
  slug: string
  defaultLanguage: string
  clientCallable: boolean
  system: boolean
  variables: Record<string, string | null>
  translations: Record<string, Translation>
  createdAt: number
  updatedAt: number
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]{0,63})\s*\}\}/g

function fromRow(row: EmailTemplateRow): Template {
  return {
    slug: row.slug,
    defaultLanguage: row.default_language,
    clientCallable: row.client_callable === 1,
    system: row.is_system === 1,
    variables: JSON.parse(row.variables) as Template['variables'],
    translations: JSON.parse(row.translations) as Template['translations'],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** The API shape of a template: times as ISO text. */
export function toApiTemplate(template: Template): EmailTemplate {
  return { ...template, createdAt: toIso(template.createdAt), updatedAt: toIso(template.updatedAt) }
}

const templateNotFound = (slug: string) => notFound('TEMPLATE_NOT_FOUND', `No e-mail template '${slug}'`)

/** undefined for an unknown slug, for callers that fall back (a system template's default). */
export async function findTemplate(db: Db, slug: string): Promise<Template | undefined> {
  const row = await db.selectFrom('email_templates').selectAll().where('slug', '=', slug).executeTakeFirst()
  return row && fromRow(row)
}

/** A 404 for an unknown slug, for the routes that name one. */
export async function getTemplate(db: Db, slug: string): Promise<Template> {
  const template = await findTemplate(db, slug)
  if (!template) throw templateNotFound(slug)
  return template
}

/** Language tags match case-insensitively: exact tag, then its primary subtag ("de-AT" → "de"). */
export function pickLanguage(template: Pick<Template, 'defaultLanguage' | 'translations'>, requested?: string): string {
  const keys = Object.keys(template.translations)
  if (requested) {
    const wanted = requested.toLowerCase()
    const exact = keys.find((k) => k.toLowerCase() === wanted)
    if (exact) return exact
    const primary = wanted.split('-')[0]
    const partial = keys.find((k) => k.toLowerCase() === primary)
    if (partial) return partial
  }
  return keys.find((k) => k.toLowerCase() === template.defaultLanguage.toLowerCase()) ?? keys[0]!
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!)

function fill(source: string, values: Record<string, string>, transform: (v: string) => string): string {
  return source.replace(PLACEHOLDER, (_match, name: string) => transform(values[name] ?? ''))
}

/** A template filled in for one language, as sent and as the preview shows it. */
export interface Rendered {
  language: string
  subject: string
  html: string
  text: string | null
}

/**
 * The declared variables' values: given, else the declared default. `missing` lists those with
 * neither (the Unity SDK always sends `{}`, so defaults matter).
 */
export function resolveVariables(template: Pick<Template, 'variables'>, given: Record<string, string> = {}) {
  const values: Record<string, string> = {}
  const missing: string[] = []
  for (const [name, fallback] of Object.entries(template.variables)) {
    const value = Object.hasOwn(given, name) ? given[name] : fallback
    if (value === null || value === undefined) missing.push(name)
    else values[name] = value
  }
  return { values, missing }
}

/** A 422 naming every missing variable at once, so a caller fixes them in one go. */
export function missingVariablesError(missing: string[]) {
  return new AppError(422, 'MISSING_VARIABLES', `Missing template variables: ${missing.join(', ')}`, {
    missingVariables: missing,
  })
}

/** Values are HTML-escaped in html; the subject is one header line, so line breaks become spaces. */
export function render(template: Template, language: string | undefined, values: Record<string, string>): Rendered {
  const chosen = pickLanguage(template, language)
  const translation = template.translations[chosen]!
  return {
    language: chosen,
    subject: fill(translation.subject, values, (v) => v.replace(/[\r\n]+/g, ' ')),
    html: fill(translation.html, values, escapeHtml),
    text: translation.text === null ? null : fill(translation.text, values, (v) => v),
  }
}

// ---- operator --------------------------------------------------------------------------------

function placeholders(source: string): string[] {
  return [...source.matchAll(PLACEHOLDER)].map((m) => m[1]!)
}

/** Creates or replaces a template. System templates stay non-callable and cannot lose their slug. */
export async function putTemplate(db: Db, slug: string, body: PutTemplateBody, now: number): Promise<Template> {
  const names = Object.keys(body.variables)
  const badName = names.find((name) => !VARIABLE_NAME.test(name))
  if (badName !== undefined) {
    throw badRequest(
      `body/variables: '${badName}' is not a variable name (letters, digits, _ . -; not starting with a digit)`,
      '/variables',
    )
  }
  const languages = Object.keys(body.translations)
  const seen = new Set<string>()
  for (const language of languages) {
    if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(language) || language.length > 35) {
      throw badRequest(`body/translations: '${language}' is not a language tag`, '/translations')
    }
    if (seen.has(language.toLowerCase())) {
      throw badRequest(
        `body/translations: '${language}' is given twice (tags match case-insensitively)`,
        '/translations',
      )
    }
    seen.add(language.toLowerCase())
  }
  if (!seen.has(body.defaultLanguage.toLowerCase())) {
    throw badRequest('body/translations must include the defaultLanguage', '/translations')
  }
  const translations: Record<string, Translation> = {}
  const undeclared = new Set<string>()
  for (const [language, t] of Object.entries(body.translations)) {
    const text = present(t.text) ?? null
    if (SYSTEM_SLUGS.has(slug) && placeholders(t.subject).some((name) => SECRET_VARIABLES.includes(name))) {
      throw badRequest(
        `body/translations/${language}/subject must not use ${SECRET_VARIABLES.map((n) => `{{${n}}}`).join(', ')}: the subject is kept after the e-mail is sent`,
        `/translations/${language}/subject`,
      )
    }
    translations[language] = { subject: t.subject, html: t.html, text }
    for (const name of [...placeholders(t.subject), ...placeholders(t.html), ...placeholders(text ?? '')]) {
      if (!Object.hasOwn(body.variables, name)) undeclared.add(name)
    }
  }
  if (undeclared.size > 0) {
    throw badRequest(`body/translations use undeclared variables: ${[...undeclared].join(', ')}`, '/variables')
  }
  const existing = await findTemplate(db, slug)
  if (existing?.system && body.clientCallable) {
    throw badRequest('System templates cannot be client-callable', '/clientCallable')
  }
  const values = {
    default_language: body.defaultLanguage,
    client_callable: body.clientCallable ? 1 : 0,
    variables: JSON.stringify(body.variables),
    translations: JSON.stringify(translations),
    updated_at: now,
  } as const
  // One statement settles concurrent creations: the first inserts, the others replace its values (a
  // PUT replaces), and a system template keeps is_system. Catching the refused insert of a race and
  // updating after it would not do: the admin request runs in a transaction, which PostgreSQL ends at
  // the first failed statement.
  await upsert(db, 'email_templates', [{ slug, ...values, is_system: 0, created_at: now }], {
    key: ['slug'],
    update: Object.keys(values),
  })
  return getTemplate(db, slug)
}

/** System templates stay: e-mail accounts send them and would fail without them. */
export async function deleteTemplate(db: Db, slug: string): Promise<void> {
  const template = await getTemplate(db, slug)
  if (template.system)
    throw new AppError(409, 'CONFLICT', 'System templates cannot be deleted (e-mail accounts send them)')
  await db.deleteFrom('email_templates').where('slug', '=', slug).where('is_system', '=', 0).execute()
}

/** The console's template list, oldest first so the system templates lead. */
export async function listTemplates(db: Db, options: { limit: number; cursor?: string }) {
  const { items, nextCursor } = await keysetPage(db.selectFrom('email_templates').selectAll(), {
    ...options,
    keys: ['created_at', 'slug'],
    direction: 'asc',
  })
  return { items: items.map((row) => toApiTemplate(fromRow(row))), nextCursor }
}

/** Renders without sending, so an operator sees a template before players do. */
export async function previewTemplate(
  db: Db,
  slug: string,
  options: { language?: string; variables?: Record<string, string> },
): Promise<Rendered> {
  const template = await getTemplate(db, slug)
  const { values, missing } = resolveVariables(template, options.variables)
  if (missing.length > 0) throw missingVariablesError(missing)
  return render(template, options.language, values)
}

/** A template as copying compares it (its slug is the key). */
export interface TemplateCopy {
  defaultLanguage: string
  clientCallable: boolean
  variables: Record<string, string | null>
  translations: Record<string, { subject: string; html: string; text: string | null }>
}

/** Every template by slug: what copying the e-mail templates to another game compares. */
export async function snapshotEmailTemplates(db: Db): Promise<Record<string, TemplateCopy>> {
  const rows = await db.selectFrom('email_templates').selectAll().execute()
  return Object.fromEntries(
    rows.map((r) => [
      r.slug,
      {
        defaultLanguage: r.default_language,
        clientCallable: r.client_callable === 1,
        variables: JSON.parse(r.variables) as TemplateCopy['variables'],
        translations: JSON.parse(r.translations) as TemplateCopy['translations'],
      },
    ]),
  )
}

/** Writes the templates of `put` (checked as the operator's PUT) and deletes those of `remove`, in one transaction. */
export async function replaceEmailTemplates(
  db: Db,
  change: { put: Record<string, TemplateCopy>; remove: readonly string[] },
  now: number,
): Promise<void> {
  await withTransaction(db, async (trx) => {
    for (const [slug, template] of Object.entries(change.put)) {
      await putTemplate(trx, slug, { ...template, translations: withText(template.translations) }, now)
    }
    for (const slug of change.remove) await deleteTemplate(trx, slug)
  })
}

const withText = (translations: TemplateCopy['translations']) =>
  Object.fromEntries(
    Object.entries(translations).map(([language, t]) => [language, { ...t, text: t.text ?? undefined }]),
  )

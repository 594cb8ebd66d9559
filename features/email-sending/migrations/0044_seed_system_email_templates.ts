import type { Kysely } from 'kysely'

/**
 * The two templates e-mail accounts send . They exist from the start, the operator
 * may edit them, and they are never client-callable. Frozen here as first shipped.
 */
const verification = {
  slug: 'email-verification',
  variables: { username: 'there', verifyUrl: null, token: null },
  translations: {
    en: {
      subject: 'Confirm your e-mail address',
      html:
        '<p>Hello {{username}},</p><p>please confirm your e-mail address: <a href="{{verifyUrl}}">{{verifyUrl}}</a></p>' +
        '<p>Or enter this code in the game: <strong>{{token}}</strong></p><p>The link is valid for 24 hours.</p>',
      text:
        'Hello {{username}},\n\nplease confirm your e-mail address: {{verifyUrl}}\n\n' +
        'Or enter this code in the game: {{token}}\n\nThe link is valid for 24 hours.\n',
    },
  },
}

const reset = {
  slug: 'password-reset',
  variables: { username: 'there', resetUrl: null, token: null },
  translations: {
    en: {
      subject: 'Reset your password',
      html:
        '<p>Hello {{username}},</p><p>someone asked to reset the password of your account. To choose a new one: ' +
        '<a href="{{resetUrl}}">{{resetUrl}}</a></p><p>Or enter this code in the game: <strong>{{token}}</strong></p>' +
        '<p>The link is valid for one hour. If you did not ask for it, ignore this e-mail.</p>',
      text:
        'Hello {{username}},\n\nsomeone asked to reset the password of your account. To choose a new one: {{resetUrl}}\n\n' +
        'Or enter this code in the game: {{token}}\n\nThe link is valid for one hour. If you did not ask for it, ignore this e-mail.\n',
    },
  },
}

export async function up(db: Kysely<any>): Promise<void> {
  const now = Date.now()
  for (const template of [verification, reset]) {
    await db
      .insertInto('email_templates')
      .values({
        slug: template.slug,
        default_language: 'en',
        client_callable: 0,
        is_system: 1,
        variables: JSON.stringify(template.variables),
        translations: JSON.stringify(template.translations),
        created_at: now,
        updated_at: now,
      })
      .execute()
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('email_templates').where('slug', 'in', [verification.slug, reset.slug]).execute()
}

import { exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { exportForUser } from './service.js'
import { EmailExportSchema, EmailFailedEventSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

/** E-mail sending's tables, counters, queue gauge and failure event, for the platform and its route files. */
export const manifest: FeatureManifest = {
  name: 'email-sending',
  tag: 'Email Sending',
  adminRights: GAME_RIGHTS,
  tables: ['email_templates', 'emails'],
  migrations,
  counters: {
    sent: {
      name: 'outpost_emails_sent_total',
      help: 'E-mails the SMTP server accepted',
    },
    failures: {
      name: 'outpost_email_delivery_failures_total',
      help: 'Failed delivery attempts, by whether the e-mail will be retried (retry) or has failed for good (final)',
      label: { name: 'result', values: ['retry', 'final'] },
    },
  },
  gauges: {
    queue: {
      name: 'outpost_email_queue',
      help: 'E-mails in the queue by status, read from the database when scraped (every instance reports the same queue)',
      label: 'status',
    },
  },
  events: [{ type: 'email.failed', title: 'E-mail failed', payload: EmailFailedEventSchema, after: 'player.banned' }],
  playerExport: exportPart({
    schema: EmailExportSchema,
    read: async (db, userId) => ({ emails: await exportForUser(db, userId) }),
  }),
}

import { randomUUID } from 'node:crypto'
import t from 'tap'
import type { Db } from '../../../db/types.js'
import { updateGame } from '../../../platform/games/store.js'
import { eachDialect } from '../../helpers/app.js'
import { addGame } from '../../helpers/second-game.js'
import { startSmtp } from '../../helpers/smtp.js'
import { emailApp } from '../../fixtures/email.js'

/**
 * Each game's e-mails are sent from its own database by its own worker, from its own sender
 * address (read at each send, so a change applies without a restart); a game with a long queue
 * does not hold another game's mail behind it on the shared SMTP connection.
 */

/** Queues `count` e-mails for one player in the game whose database is `db`, as the service writes them. */
async function queue(db: Db, now: number, recipients: string[]) {
  const userId = randomUUID()
  const unset = { anonymous_token_hash: null, banned_at: null, ban_reason: null, password_hash: null, email_key: null }
  await db
    .insertInto('users')
    .values({
      id: userId,
      username: `p-${userId.slice(0, 8)}`,
      email: null,
      is_anonymous: 1,
      is_verified: 0,
      ...unset,
      created_at: now,
      updated_at: now,
    })
    .execute()
  const body = { html: null, text_body: 'x', is_account: 0 as const, status: 'pending' as const, attempts: 0 }
  const unclaimed = { claim_token: null, claimed_at: null, processed_at: null, error_reason: null }
  const times = { scheduled_at: now, next_attempt_at: now, created_at: now, updated_at: now }
  await db
    .insertInto('emails')
    .values(
      recipients.map((recipient) => ({
        id: randomUUID(),
        user_id: userId,
        template_slug: 'reward',
        language: 'en',
        recipient,
        subject: `to ${recipient}`,
        ...body,
        ...times,
        ...unclaimed,
      })),
    )
    .execute()
}

eachDialect(t, async (t, dialect) => {
  const smtp = await startSmtp(t)
  const ctx = await emailApp(t, dialect, smtp.url)
  await ctx.app.ready()
  const { game: second } = await addGame(ctx, 'second', { settings: { emailFrom: 'Second <second@example.org>' } })
  const now = () => ctx.clock.now()

  t.test("a second game's mail is sent from its database by its own worker, from its sender", async (t) => {
    await queue(second.db, now(), ['one@example.org'])
    const worker = ctx.app.emailWorkers.of(second)
    t.not(worker, ctx.app.emailWorker, 'a worker of its own')
    t.ok(worker.running, 'started with the app (made when the game was added)')
    t.equal((await ctx.app.emailWorker.runOnce()).claimed, 0, "the default game's worker sees none of it")
    t.match(await worker.runOnce(), { claimed: 1, sent: 1 })
    t.equal(smtp.mails.length, 1)
    t.match(smtp.mails[0], { from: 'second@example.org', to: ['one@example.org'] }, "from the game's own sender")
    t.match(await second.db.selectFrom('emails').select('status').executeTakeFirstOrThrow(), { status: 'sent' })

    // The sender changed while the server runs: the next mail goes out from the new one.
    await updateGame(ctx.app.db, 'second', { settings: { emailFrom: 'Renamed <renamed@example.org>' } }, now())
    await ctx.app.games.reload()
    await queue(second.db, now(), ['two@example.org'])
    await worker.runOnce()
    t.equal(smtp.mails.at(-1)!.from, 'renamed@example.org')

    // The default game's mail still goes from the environment's sender, by the default game's worker.
    await queue(ctx.app.db, now(), ['three@example.org'])
    t.equal((await worker.runOnce()).claimed, 0, "the second game's worker sees none of the default game's")
    t.match(await ctx.app.emailWorker.runOnce(), { sent: 1 })
    t.equal(smtp.mails.at(-1)!.from, ctx.app.config.EMAIL_FROM.replace(/^.*<|>$/g, ''))
  })

  t.test("a game's long queue does not hold another game's mail behind it", async (t) => {
    const before = smtp.mails.length
    await queue(
      ctx.app.db,
      now(),
      Array.from({ length: 15 }, (_, i) => `busy${i}@example.org`),
    )
    await queue(second.db, now(), ['other@example.org'])
    smtp.delayMs = 50
    t.teardown(() => {
      smtp.delayMs = 0
    })
    // Both games' workers send at once through the one SMTP connection.
    const [a, b] = await Promise.all([ctx.app.emailWorker.runOnce(), ctx.app.emailWorkers.of(second).runOnce()])
    t.match(a, { sent: 15 })
    t.match(b, { sent: 1 })
    const order = smtp.mails.slice(before).map((m) => m.to[0])
    t.equal(order.length, 16)
    const at = order.indexOf('other@example.org')
    t.ok(at >= 0 && at <= 1, `the other game's mail went out first or second, not behind the 15 (at ${at})`)
  })
})

// Promoting content between games (contract §14): POST /api/v1/admin/games/{gameId}/copy-from answers
// each part's difference, and unless a dry run makes the target's parts equal to the source's in one
// transaction, leaving the target's leaderboard entries alone.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { CONTENT_CHECK_INTERVAL_MS } from '../../../platform/content/content-cache.js'
import type { Db } from '../../../db/types.js'
import { assertError, buildTestApp, eachDialect, type TestApp } from '../../helpers/app.js'
import { addGame } from '../../helpers/second-game.js'
import { replaceRemoteConfig, snapshotRemoteConfig } from '../../../features/remote-config/service.js'
import { replaceLocalization, snapshotLocalization } from '../../../features/localization/service.js'
import { replaceNews, snapshotNews } from '../../../features/news/service.js'
import { replaceCosmetics, snapshotCosmetics } from '../../../features/player-profile/service.js'
import { importScore, replaceBoards, snapshotBoards, type BoardCopy } from '../../../features/leaderboard/service.js'
import { replaceValidation, snapshotValidation } from '../../../features/validated-actions/service.js'
import { replaceEmailTemplates, snapshotEmailTemplates } from '../../../features/email-sending/service.js'
import { importAnonymousUser } from '../../../features/users/service.js'

const ALL = ['remoteConfig', 'localization', 'news', 'cosmetics', 'leaderboards', 'validatedActions', 'emailTemplates']

/** Every part of a game, read through the owners' services. */
async function parts(db: Db) {
  return {
    remoteConfig: await snapshotRemoteConfig(db),
    localization: await snapshotLocalization(db),
    news: await snapshotNews(db),
    cosmetics: await snapshotCosmetics(db),
    leaderboards: await snapshotBoards(db),
    validatedActions: await snapshotValidation(db),
    emailTemplates: await snapshotEmailTemplates(db),
  }
}

const board = (name: string, sortOrder: 'asc' | 'desc' = 'desc'): BoardCopy => ({
  name,
  sortOrder,
  updateStrategy: 'best',
  minScore: 0,
  maxScore: 1_000_000,
  resetSchedule: 'none',
  validatedOnly: false,
  isActive: true,
})

const template = (subject: string) => ({
  defaultLanguage: 'en',
  clientCallable: false,
  variables: { name: null },
  translations: { en: { subject, html: '<p>Hi {{name}}</p>', text: null } },
})

/** Staging's content: what a team prepares before promoting it. */
async function fillStaging(ctx: TestApp, db: Db) {
  const now = ctx.clock.now()
  await replaceRemoteConfig(db, { put: { motd: 'Season 2', 'shop.discount': '0.2' }, remove: [] }, now)
  await replaceLocalization(db, { put: { 'en/hello': 'Hello', 'fr/hello': 'Bonjour' }, remove: [] }, now)
  const release = new Date(now).toISOString()
  await replaceNews(
    db,
    { put: { [randomUUID()]: { title: 'S2', message: 'New', languageCode: 'en', releaseDate: release } }, remove: [] },
    now,
  )
  await replaceCosmetics(
    db,
    ctx.app.events,
    { put: { 'hat-red': { type: 'avatar', name: 'Red hat', locked: false } }, remove: [] },
    now,
  )
  await replaceBoards(db, ctx.app.events, { arena: board('Arena S2', 'asc') }, now)
  await replaceValidation(
    db,
    { put: { 'rules/arena': { minScore: 1, maxScore: 5000 }, 'values/gold': { dailyCap: 100 } }, remove: [] },
    now,
  )
  await replaceEmailTemplates(db, { put: { welcome: template('Welcome to S2') }, remove: [] }, now)
}

/** Production's content before the promotion, with players' scores. */
async function fillProduction(ctx: TestApp, db: Db) {
  const now = ctx.clock.now()
  await replaceRemoteConfig(db, { put: { motd: 'Welcome', 'beta.banner': 'on' }, remove: [] }, now)
  await replaceLocalization(db, { put: { 'en/hello': 'Hi', 'en/bye': 'Bye' }, remove: [] }, now)
  await replaceBoards(db, ctx.app.events, { arena: board('Arena'), old: board('Old') }, now)
  await replaceEmailTemplates(db, { put: { welcome: template('Welcome'), promo: template('Promo') }, remove: [] }, now)
  const user = { id: randomUUID(), name: 'ann', anonymousToken: randomUUID(), createdAt: now }
  await importAnonymousUser(db, user)
  for (const boardKey of ['arena', 'old']) {
    t.ok(await importScore(db, ctx.app.events, { boardKey, userId: user.id, score: 700, reachedAt: now }))
  }
}

const entries = async (db: Db) =>
  (await db.selectFrom('leaderboard_entries').select(['board_id', 'user_id', 'score']).execute())
    .map((e) => `${e.user_id}:${Number(e.score)}`)
    .sort()

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  await ctx.app.ready()
  const staging = await addGame(ctx, 'staging')
  const production = await addGame(ctx, 'production')
  await fillStaging(ctx, staging.db)
  await fillProduction(ctx, production.db)
  const copy = (target: string, body: object) =>
    ctx.admin({ method: 'POST', url: `/games/${target}/copy-from`, payload: body })

  t.test('a dry run answers every difference and changes nothing', async (t) => {
    const before = await parts(production.db)
    const res = await copy('production', { source: 'staging', parts: ALL, dryRun: true })
    t.equal(res.statusCode, 200, res.body)
    const body = res.json()
    t.match(body, { source: 'staging', target: 'production', dryRun: true })
    t.same(body.parts.remoteConfig, {
      added: [{ key: 'shop.discount', value: '0.2' }],
      changed: [{ key: 'motd', from: 'Welcome', to: 'Season 2' }],
      removed: [{ key: 'beta.banner', value: 'on' }],
    })
    t.same(body.parts.localization, {
      added: [{ key: 'fr/hello', value: 'Bonjour' }],
      changed: [{ key: 'en/hello', from: 'Hi', to: 'Hello' }],
      removed: [{ key: 'en/bye', value: 'Bye' }],
    })
    t.equal(body.parts.news.added.length, 1)
    t.same(body.parts.cosmetics.added, [{ key: 'hat-red', value: { type: 'avatar', name: 'Red hat', locked: false } }])
    t.same(body.parts.leaderboards.changed, [{ key: 'arena', from: board('Arena'), to: board('Arena S2', 'asc') }])
    t.same(body.parts.leaderboards.removed, [{ key: 'old', value: board('Old') }])
    t.same(
      body.parts.validatedActions.added.map((a: { key: string }) => a.key),
      ['rules/arena', 'values/gold'],
    )
    t.match(body.parts.emailTemplates, {
      changed: [{ key: 'welcome', from: { translations: { en: { subject: 'Welcome' } } } }],
      removed: [{ key: 'promo' }],
    })
    t.same(await parts(production.db), before, 'the target is as it was')
  })

  t.test('unknown games, a part that does not exist, a game copied onto itself', async (t) => {
    assertError(t, await copy('nope', { source: 'staging', parts: ['news'] }), 404, 'GAME_NOT_FOUND')
    assertError(t, await copy('production', { source: 'nope', parts: ['news'] }), 404, 'GAME_NOT_FOUND')
    assertError(t, await copy('production', { source: 'production', parts: ['news'] }), 400, 'VALIDATION_ERROR')
    assertError(t, await copy('production', { source: 'staging', parts: ['players'] }), 400, 'VALIDATION_ERROR')
  })

  t.test('a failure half-way leaves the target as it was', async (t) => {
    // The rule set names the board `arena`, which the third game lacks: refused after the remote
    // config was written, in the same transaction.
    const third = await addGame(ctx, 'third')
    const before = await parts(third.db)
    const res = await copy('third', { source: 'staging', parts: ['remoteConfig', 'validatedActions'] })
    assertError(t, res, 404, 'LEADERBOARD_NOT_FOUND')
    t.same(await parts(third.db), before, 'nothing of the copy stayed')
  })

  t.test('applied: the target equals the source, its entries untouched, audited', async (t) => {
    const scores = await entries(production.db)
    t.equal(scores.length, 2)
    const res = await copy('production', { source: 'staging', parts: ALL })
    t.equal(res.statusCode, 200, res.body)
    t.equal(res.json().dryRun, false)
    const [source, target] = [await parts(staging.db), await parts(production.db)]
    for (const part of ALL.filter((p) => p !== 'leaderboards') as Array<keyof typeof source>) {
      t.same(target[part], source[part], `${part}: the target equals the source`)
    }
    t.same(target.leaderboards, { ...source.leaderboards, old: board('Old') }, 'boards as the source, `old` kept')
    t.same(await entries(production.db), scores, "the target's scores are all there")
    const again = await copy('production', { source: 'staging', parts: ALL, dryRun: true })
    for (const part of ALL.filter((p) => p !== 'leaderboards')) {
      t.same(again.json().parts[part], { added: [], changed: [], removed: [] }, `${part}: nothing left to copy`)
    }
    const audit = await ctx.admin({ method: 'GET', url: '/audit?limit=1' })
    t.match(audit.json().items[0], { action: /copy-from/ }, 'the copy is in the audit log')
  })

  t.test("the target's players see the new remote config right after (the content cache)", async (t) => {
    const read = () => ctx.call({ method: 'GET', url: '/remote-config/motd' })
    const before = await read()
    t.not(before.json().configValue, 'Season 2', `the default game's own motd first (${before.body}), cached`)
    const res = await copy('default', { source: 'staging', parts: ['remoteConfig'] })
    t.equal(res.statusCode, 200, res.body)
    ctx.clock.advance(CONTENT_CHECK_INTERVAL_MS)
    const after = await read()
    t.equal(after.json().configValue, 'Season 2', 'the copied value, within the cache bound')
  })
})

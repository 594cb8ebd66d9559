import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { report } from '../../fixtures/crash-reporting.js'
import { createUser, UNKNOWN_USER } from '../../fixtures/users.js'

/**
 * The players a crash group has hit (GET /crash-reports/groups/{groupId}/users): one row per distinct
 * userId sent, the latest first, linked users named; paged by cursor; 404 for an unknown group.
 */
eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { admin, clock } = ctx
  const users = (groupId: string, query = '') =>
    admin({ method: 'GET', url: `/crash-reports/groups/${groupId}/users${query}` })

  t.test('each player once, the latest first, with the linked name; ids unknown here stay as sent', async (t) => {
    const ann = await createUser(ctx)
    const bob = await createUser(ctx)
    const start = clock.now()
    const hit = async (userId: string) => {
      const res = await report(ctx, { fingerprint: 'players-fp', userId, appVersion: '1.0' })
      t.equal(res.statusCode, 201)
      clock.advance(1000)
      return res.json().groupId as string
    }
    const groupId = await hit(ann.userId)
    await hit('player-7781')
    await hit(bob.userId)
    await hit(ann.userId) // ann again: still one row, now the latest
    await hit('anonymous')
    await hit('')
    const res = await users(groupId)
    t.equal(res.statusCode, 200)
    const body = res.json()
    t.equal(body.nextCursor, null)
    t.same(
      body.items.map((u: { userKey: string }) => u.userKey),
      [ann.userId, bob.userId, 'player-7781'],
      'latest first; "anonymous" and "" are nobody',
    )
    t.same(body.items[0], {
      userKey: ann.userId,
      userId: ann.userId,
      username: ann.username,
      firstSeen: new Date(start).toISOString(),
      lastSeen: new Date(start + 3000).toISOString(),
    })
    t.match(body.items[1], { userId: bob.userId, username: bob.username })
    t.match(body.items[2], { userKey: 'player-7781', userId: null, username: null })
    const group = (await admin({ method: 'GET', url: `/crash-reports/groups/${groupId}` })).json()
    t.equal(group.affectedUsers, body.items.length, "the list holds as many players as the group's count")
  })

  t.test('pages by cursor add up to the whole list', async (t) => {
    let groupId = ''
    for (let i = 0; i < 7; i++) {
      groupId = (await report(ctx, { fingerprint: 'paged-fp', userId: `paged-${i}` })).json().groupId
      if (i % 2) clock.advance(1000) // pairs share a last-seen time: the user key breaks the tie
    }
    const seen: string[] = []
    let cursor: string | null = null
    for (let guard = 0; guard < 10; guard++) {
      const page: { items: Array<{ userKey: string }>; nextCursor: string | null } = (
        await users(groupId, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`)
      ).json()
      t.ok(page.items.length <= 3)
      seen.push(...page.items.map((u: { userKey: string }) => u.userKey))
      cursor = page.nextCursor
      if (!cursor) break
    }
    t.equal(seen.length, 7, 'every player once')
    t.same(new Set(seen), new Set(Array.from({ length: 7 }, (_, i) => `paged-${i}`)))
    t.same(seen.slice(0, 1), ['paged-6'], 'the latest first')
  })

  t.test('an unknown group is a 404; a bad id, limit or cursor a 400', async (t) => {
    assertError(t, await users(UNKNOWN_USER), 404, 'NOT_FOUND')
    const groupId = (await report(ctx, { fingerprint: 'errors-fp', userId: 'u-1' })).json().groupId
    assertError(t, await users('not-a-uuid'), 400, 'VALIDATION_ERROR')
    assertError(t, await users(groupId, '?limit=0'), 400, 'VALIDATION_ERROR')
    assertError(t, await users(groupId, '?cursor=abc'), 400, 'VALIDATION_ERROR')
    assertError(t, await users(groupId, '?extra=1'), 400, 'VALIDATION_ERROR')
  })
})

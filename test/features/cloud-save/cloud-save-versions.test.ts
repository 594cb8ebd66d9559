// Conditional saves: expectedVersion in the body, If-Match or ?expectedVersion as the Unity SDK sends it,
// and concurrent saves where exactly one of those expecting a version wins.
import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { OCTET, SAVE, godot, saveJson, storedSave, unity } from '../../fixtures/cloud-save.js'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call } = ctx
  const stored = (userId: string) => storedSave(ctx, userId)

  t.test('expectedVersion: 0 means no save yet; a stale one is 409 with currentVersion', async (t) => {
    const user = await createUser(ctx)
    const save = (data: string, expectedVersion?: unknown) =>
      saveJson(ctx, { userId: user.userId, data, expectedVersion })
    const stale = await save('a', 3)
    assertError(t, stale, 409, 'CONFLICT')
    t.equal(stale.json().currentVersion, 0)
    t.equal(await stored(user.userId), undefined, 'nothing stored')
    t.equal((await save('a', 0)).json().version, 1)
    const again = await save('b', 0)
    assertError(t, again, 409, 'CONFLICT')
    t.equal(again.json().currentVersion, 1)
    t.equal(again.headers['x-cloud-save-revision'], '1')
    t.equal((await save('b', 1)).json().version, 2)
    t.equal((await save('c', null)).json().version, 3, 'null: unconditional')
    const old = await save('d', 2)
    assertError(t, old, 409, 'CONFLICT')
    t.equal(old.json().currentVersion, 3)
    t.match(old.json().message, /version 3/)
    const row = await stored(user.userId)
    t.equal(row!.data.toString('utf8'), 'c', 'the stored save is untouched by a conflict')
    t.equal(row!.version, 3)
  })

  t.test('If-Match and ?expectedVersion (the Unity SDK conditional save; binary mode)', async (t) => {
    const user = await createUser(ctx)
    t.same((await unity.save(ctx, user, 'one', { 'if-match': '0' })).json().revision, 1)
    const conflict = await unity.save(ctx, user, 'two', { 'if-match': '0' })
    assertError(t, conflict, 409, 'CONFLICT')
    t.equal(conflict.json().currentVersion, 1)
    t.equal(
      (await unity.saveBytes(ctx, user, Buffer.from([1, 2]), { 'if-match': '"1"' })).json().version,
      2,
      'quoted ETag form',
    )
    assertError(t, await unity.saveBytes(ctx, user, Buffer.from([3]), { 'if-match': '1' }), 409, 'CONFLICT')
    const viaQuery = await call({
      method: 'POST',
      url: `${SAVE}?userId=${user.userId}&expectedVersion=2`,
      headers: { 'content-type': OCTET },
      payload: Buffer.from([4]),
    })
    t.equal(viaQuery.json().version, 3)
    assertError(t, await unity.save(ctx, user, 'x', { 'if-match': '*' }), 400, 'VALIDATION_ERROR')
    assertError(t, await unity.save(ctx, user, 'x', { 'if-match': 'abc' }), 400, 'VALIDATION_ERROR')
    const disagree = await saveJson(ctx, { userId: user.userId, data: 'x', expectedVersion: 3 }, { 'if-match': '2' })
    assertError(t, disagree, 400, 'VALIDATION_ERROR')
    t.equal(
      (await saveJson(ctx, { userId: user.userId, data: 'x', expectedVersion: 3 }, { 'if-match': '3' })).json().version,
      4,
      'agreeing',
    )
    const snapshot = await unity.loadBytes(ctx, user)
    t.equal(snapshot.headers['x-cloud-save-revision'], '4')
  })

  t.test(
    'concurrent saves: exactly one of those expecting one version wins; unconditional ones all count',
    async (t) => {
      const user = await createUser(ctx)
      const fresh = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          saveJson(ctx, { userId: user.userId, data: `first-${i}`, expectedVersion: 0 }),
        ),
      )
      t.same(fresh.map((r) => r.statusCode).sort(), [200, ...Array(9).fill(409)], 'one insert wins')
      for (const r of fresh.filter((r) => r.statusCode === 409)) t.equal(r.json().currentVersion, 1)
      const winner = fresh.findIndex((r) => r.statusCode === 200)
      t.equal((await stored(user.userId))!.data.toString(), `first-${winner}`)

      const racing = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          saveJson(ctx, { userId: user.userId, data: `second-${i}`, expectedVersion: 1 }),
        ),
      )
      t.same(racing.map((r) => r.statusCode).sort(), [200, ...Array(9).fill(409)], 'one update wins')
      const won = racing.findIndex((r) => r.statusCode === 200)
      t.equal(racing[won]!.json().version, 2)
      const row = await stored(user.userId)
      t.equal(row!.data.toString(), `second-${won}`)
      t.equal(row!.version, 2)

      const blind = await Promise.all(Array.from({ length: 20 }, (_, i) => godot.save(ctx, user, `blind-${i}`)))
      t.ok(blind.every((r) => r.statusCode === 200))
      t.same(
        blind.map((r) => r.json().version).sort((a, b) => a - b),
        Array.from({ length: 20 }, (_, i) => i + 3),
        'each save its own version',
      )
      t.equal((await stored(user.userId))!.version, 22)

      const newcomer = await createUser(ctx)
      const firstSaves = await Promise.all(Array.from({ length: 10 }, (_, i) => godot.save(ctx, newcomer, `n-${i}`)))
      t.same(
        firstSaves.map((r) => r.json().version).sort((a, b) => a - b),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        'racing first saves',
      )
    },
  )
})

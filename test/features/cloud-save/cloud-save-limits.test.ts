// The size limit: CLOUD_SAVE_MAX_BYTES counts UTF-8 bytes, sets both body limits, and a body over it is
// refused before it is read whole, from its Content-Length or, chunked over a real socket, as it streams.
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { API_KEY, APP, assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { OCTET, SAVE, godot, storedSave, unity } from '../../fixtures/cloud-save.js'

const MAX = 300_000

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call } = ctx
  const stored = (userId: string) => storedSave(ctx, userId)

  t.test('size: CLOUD_SAVE_MAX_BYTES counts UTF-8 bytes; 300,001 bytes is 413 and the old save stays', async (t) => {
    const user = await createUser(ctx)
    const atLimit = 'a'.repeat(MAX)
    const ok = await godot.save(ctx, user, atLimit)
    t.equal(ok.statusCode, 200)
    t.equal(ok.json().dataSizeBytes, MAX)

    const over = await godot.save(ctx, user, 'b'.repeat(MAX + 1))
    assertError(t, over, 413, 'PAYLOAD_TOO_LARGE')
    t.equal(over.json().maxBytes, MAX)
    const euro = await godot.save(ctx, user, '€'.repeat(100_001))
    assertError(t, euro, 413, 'PAYLOAD_TOO_LARGE')
    t.match(euro.json().message, /300003 bytes/, 'counted in UTF-8 bytes, not characters')
    const bytesOver = await unity.saveBytes(ctx, user, Buffer.alloc(MAX + 1, 7))
    assertError(t, bytesOver, 413, 'PAYLOAD_TOO_LARGE')
    const heavilyEscaped = await godot.save(ctx, user, '\u0001'.repeat(MAX))
    t.equal(heavilyEscaped.statusCode, 200, 'a save at the limit passes the body limit whatever its JSON escaping')
    t.equal(heavilyEscaped.json().version, 2)

    const row = await stored(user.userId)
    t.equal(row!.version, 2)
    t.equal(row!.size_bytes, MAX)
    t.ok(row!.data.equals(Buffer.alloc(MAX, 1)), 'the stored save is the last accepted one')
    const loaded = await godot.load(ctx, user)
    t.equal(loaded.json().data.length, MAX)
    t.equal(loaded.json().version, 2)
    t.equal((await godot.saveBytes(ctx, user, Buffer.alloc(MAX, 9))).statusCode, 200, 'binary at the limit')
  })

  t.test('body limits refuse oversize bodies before they are read whole, in the shared error shape', async (t) => {
    const user = await createUser(ctx)
    await godot.save(ctx, user, 'keep me')
    const hugeJson = JSON.stringify({ userId: user.userId, data: 'x'.repeat(6 * MAX + 64 * 1024) })
    assertError(
      t,
      await call({ method: 'POST', url: SAVE, headers: { 'content-type': 'application/json' }, payload: hugeJson }),
      413,
      'PAYLOAD_TOO_LARGE',
    )
    // The limit is read from Content-Length before any byte of the body.
    const declared = await call({
      method: 'POST',
      url: `${SAVE}?userId=${user.userId}`,
      headers: { 'content-type': OCTET, 'content-length': String(MAX + 1) },
      payload: Buffer.alloc(10),
    })
    assertError(t, declared, 413, 'PAYLOAD_TOO_LARGE')
    t.equal((await godot.load(ctx, user)).json().data, 'keep me')
    t.equal((await stored(user.userId))!.version, 1)
  })
})

eachDialect(t, async (t, dialect) => {
  t.test('a smaller CLOUD_SAVE_MAX_BYTES sets both body limits', async (t) => {
    const ctx = await buildTestApp(t, dialect, { env: { CLOUD_SAVE_MAX_BYTES: '100' } })
    const user = await createUser(ctx)
    t.equal((await unity.saveBytes(ctx, user, Buffer.alloc(100))).statusCode, 200)
    assertError(t, await unity.saveBytes(ctx, user, Buffer.alloc(101)), 413, 'PAYLOAD_TOO_LARGE')
    assertError(t, await unity.save(ctx, user, 'x'.repeat(101)), 413, 'PAYLOAD_TOO_LARGE')
    const overJsonLimit = JSON.stringify({ userId: user.userId, data: 'x'.repeat(700 + 64 * 1024) })
    const res = await ctx.call({
      method: 'POST',
      url: SAVE,
      headers: { 'content-type': 'application/json' },
      payload: overJsonLimit,
    })
    assertError(t, res, 413, 'PAYLOAD_TOO_LARGE')
    t.equal((await godot.load(ctx, user)).json().version, 1)
  })

  t.test('over a real socket: a chunked octet-stream body is cut off once it passes the limit', async (t) => {
    const ctx = await buildTestApp(t, dialect, { env: { CLOUD_SAVE_MAX_BYTES: '100' } })
    const user = await createUser(ctx)
    await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = ctx.app.server.address() as AddressInfo
    const send = (chunks: Buffer[]) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: `${APP}${SAVE}?userId=${user.userId}`,
            headers: { 'x-api-key': API_KEY, 'content-type': OCTET },
          },
          (res) => {
            let body = ''
            res.setEncoding('utf8')
            res.on('data', (c: string) => (body += c))
            res.on('end', () => resolve({ status: res.statusCode!, body }))
          },
        )
        req.on('error', reject)
        // No Content-Length: the body arrives chunked, so only counting while it streams can stop it.
        for (const chunk of chunks) req.write(chunk)
        req.end()
      })
    const ok = await send([Buffer.alloc(60, 1), Buffer.alloc(40, 2)])
    t.equal(ok.status, 200)
    t.equal(JSON.parse(ok.body).dataSizeBytes, 100)
    const over = await send([Buffer.alloc(60, 3), Buffer.alloc(41, 4)])
    t.equal(over.status, 413)
    t.equal(JSON.parse(over.body).code, 'PAYLOAD_TOO_LARGE')
    const row = await ctx.app.db
      .selectFrom('cloud_saves')
      .select(['data', 'version'])
      .where('user_id', '=', user.userId)
      .executeTakeFirst()
    t.equal(row!.version, 1)
    t.ok(row!.data.equals(Buffer.concat([Buffer.alloc(60, 1), Buffer.alloc(40, 2)])))
  })
})

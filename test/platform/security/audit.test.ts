import t from 'tap'
import * as OTPAuth from 'otpauth'
import { ADMIN_KEY, assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import {
  addOperator,
  auditCount,
  auditRows,
  PASSWORD,
  sessionCookie,
  signIn,
  signInRequest,
} from '../../fixtures/operators.js'
import { KEY_WRITES, SESSION_WRITES } from '../../fixtures/admin-writes.js'
import { createUser } from '../../fixtures/users.js'
import { MAX_CHANGES_CHARS } from '../../../platform/security/audit.js'
import { reserveAttempt, scopedLockoutKey } from '../../../platform/security/login-lockout.js'
import { AUDITED_FAILURES_PER_ADDRESS } from '../../../features/operators/sign-in.js'

// The audit log: one entry for every admin write, in the write's transaction, with no
// secret in it; sign-ins and failed sign-ins; none for a write that failed; the owner's list.

const NEW_PASSWORD = 'the-new-password-nobody-may-read'

eachDialect(t, async (t, dialect) => {
  // The webhook samples point at a local port.
  const ctx = await buildTestApp(t, dialect, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  await addOperator(ctx, 'boss', 'owner')
  await addOperator(ctx, 'watcher', 'viewer')
  const secrets = [ADMIN_KEY, PASSWORD, NEW_PASSWORD]

  t.test('one write on every admin write route: exactly one entry each, naming who, where and what', async (t) => {
    const auditedRoutes = ctx.app.adminAuth.routes
      .filter((r) => r.access.audit)
      .map((r) => `${r.method} ${r.url.replace('/api/v1/admin', '')}`)
    const covered = [...Object.keys(KEY_WRITES), ...SESSION_WRITES]
    t.same(
      [...new Set(auditedRoutes)].sort(),
      [...covered].sort(),
      'a sample request for every audited write route, and no other',
    )
    t.ok(auditedRoutes.length >= 40, `${auditedRoutes.length} audited write routes`)

    for (const [action, sample] of Object.entries(KEY_WRITES)) {
      const request = await sample(ctx)
      const before = await auditCount(ctx)
      const response = await ctx.admin(request)
      if (response.statusCode >= 300) {
        t.fail(`${action}: ${response.statusCode} ${response.body}`)
        continue
      }
      const rows = await auditRows(ctx)
      t.equal(rows.length, before + 1, `${action}: one new entry`)
      t.match(rows.at(-1), {
        actor: 'admin-key',
        role: 'owner',
        action,
        status: response.statusCode,
        address: '127.0.0.1',
        // The id the response carried back (X-Request-Id): one request, followed from answer to record.
        request_id: response.headers['x-request-id'],
      })
      // What the write acted on: the path's ids, or for a create the id of what it made (how many, for
      // a write that makes many at once).
      const target = JSON.parse(rows.at(-1)!.target ?? 'null') as Record<string, unknown> | null
      t.ok(target && Object.keys(target).length > 0, `${action}: names its target (${JSON.stringify(target)})`)
      if (!action.includes('/:') && target) {
        const made = response.json()
        const [[name, value]] = Object.entries(target) as [[string, unknown]]
        t.equal(
          value,
          name === 'count' ? (made.count ?? made.imported) : made[name],
          `${action}: ${name} of what it made`,
        )
      }
    }

    // The session's own writes, made by an operator with the cookie.
    const boss = await signIn(ctx, 'boss')
    const steps: Array<[string, () => ReturnType<typeof boss.request>]> = [
      [
        'PUT /session/password',
        () =>
          boss.request({
            method: 'PUT',
            url: '/session/password',
            payload: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
          }),
      ],
      [
        'POST /session/totp',
        () => boss.request({ method: 'POST', url: '/session/totp', payload: { currentPassword: NEW_PASSWORD } }),
      ],
    ]
    let totpSecret = ''
    for (const [action, send] of steps) {
      const before = await auditCount(ctx)
      const response = await send()
      t.equal(response.statusCode, 200, action)
      if (action === 'POST /session/totp') totpSecret = response.json().secret
      t.equal(await auditCount(ctx), before + 1, `${action}: one new entry`)
      t.match((await auditRows(ctx)).at(-1), { actor: 'boss', role: 'owner', action })
    }
    secrets.push(totpSecret)
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(totpSecret) }).generate({
      timestamp: ctx.clock.now(),
    })
    let before = await auditCount(ctx)
    t.equal((await boss.request({ method: 'POST', url: '/session/totp/confirm', payload: { code } })).statusCode, 200)
    t.match((await auditRows(ctx)).at(-1), { action: 'POST /session/totp/confirm', changes: '{"code":"[redacted]"}' })
    t.equal(await auditCount(ctx), before + 1)
    secrets.push(code)
    before = await auditCount(ctx)
    t.equal((await boss.request({ method: 'DELETE', url: '/session' })).statusCode, 200)
    t.equal(await auditCount(ctx), before + 1, 'DELETE /session: one new entry')
    t.equal((await auditRows(ctx)).at(-1)!.action, 'DELETE /session')
    secrets.push(boss.cookie.split('=')[1])
  })

  t.test('sign-ins and failed sign-ins are recorded', async (t) => {
    const before = await auditCount(ctx)
    const failed = await signInRequest(ctx, { username: 'Watcher', password: 'not-it-at-all' })
    t.equal(failed.statusCode, 401)
    const ok = await signInRequest(ctx, { username: 'watcher', password: PASSWORD })
    t.equal(ok.statusCode, 200)
    secrets.push(sessionCookie(ok).split('=')[1])
    const rows = (await auditRows(ctx)).slice(before)
    t.match(rows, [
      {
        actor: 'watcher',
        action: 'sign-in-failed',
        status: 401,
        request_id: failed.headers['x-request-id'],
        role: null,
      },
      { actor: 'watcher', action: 'sign-in', status: 200, request_id: ok.headers['x-request-id'], role: 'viewer' },
    ])
  })

  t.test('a write that fails leaves no entry', async (t) => {
    const before = await auditCount(ctx)
    const user = await createUser(ctx)
    const watcher = await signIn(ctx, 'watcher')
    const signInEntry = 1
    assertError(
      t,
      await ctx.admin({ method: 'PUT', url: '/leaderboards/x', payload: { sortOrder: 'sideways' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await ctx.admin({ method: 'POST', url: `/users/${crypto.randomUUID()}/ban`, payload: {} }),
      404,
      'USER_NOT_FOUND',
    )
    assertError(t, await ctx.admin({ method: 'DELETE', url: '/leaderboards/default' }), 409, 'CONFLICT')
    assertError(
      t,
      await ctx.admin({ method: 'PATCH', url: '/operators/boss', payload: { role: 'viewer' } }),
      409,
      'LAST_OWNER',
    )
    assertError(
      t,
      await watcher.request({ method: 'POST', url: `/users/${user.userId}/ban`, payload: {} }),
      403,
      'FORBIDDEN',
    )
    assertError(
      t,
      await ctx.app.inject({ method: 'POST', url: `/api/v1/admin/users/${user.userId}/ban`, payload: {} }),
      401,
      'UNAUTHORIZED',
    )
    t.equal(await auditCount(ctx), before + signInEntry, 'only the sign-in was recorded')
    const banned = await ctx.admin({ method: 'GET', url: `/users/${user.userId}` })
    t.equal(banned.json().bannedAt ?? null, null, 'and the refused ban changed nothing')
    t.equal(
      (await ctx.admin({ method: 'GET', url: '/operators' })).json().items.find((o: any) => o.username === 'boss').role,
      'owner',
    )
  })

  t.test('no secret in any entry; big bodies are cut', async (t) => {
    const big = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`k${i}`, 'v'.repeat(20)]))
    t.equal(
      (await ctx.admin({ method: 'POST', url: '/remote-config/import', payload: { configs: big } })).statusCode,
      200,
    )
    const last = (await auditRows(ctx)).at(-1)!
    t.ok(last.changes!.length <= MAX_CHANGES_CHARS + 200, `changes capped (${last.changes!.length} chars)`)
    t.match(JSON.parse(last.changes!), { truncated: true })
    const dump = JSON.stringify(await auditRows(ctx))
    for (const secret of secrets) t.notOk(dump.includes(secret), `no secret of ${secret.length} characters in the log`)
    t.notOk(/SECRETGIFT/.test(dump), 'a gift code sent in a body is not kept')
    t.match(dump, /\[redacted\]/)
  })

  t.test('GET /audit: owners only, filters and cursor paging', async (t) => {
    const watcher = await signIn(ctx, 'watcher')
    assertError(t, await watcher.request({ method: 'GET', url: '/audit' }), 403, 'FORBIDDEN')
    const all = await ctx.admin({ method: 'GET', url: '/audit?limit=100' })
    t.equal(all.statusCode, 200)
    const items = all.json().items
    t.ok(items.length > 40)
    t.ok(
      items.every((e: any, i: number) => i === 0 || e.at <= items[i - 1].at),
      'newest first',
    )
    const signIns = (await ctx.admin({ method: 'GET', url: '/audit?actor=WATCHER&action=sign-in' })).json().items
    t.ok(signIns.length >= 2 && signIns.every((e: any) => e.actor === 'watcher' && e.action === 'sign-in'))
    const ban = (
      await ctx.admin({ method: 'GET', url: `/audit?action=${encodeURIComponent('POST /users/:userId/ban')}` })
    ).json().items
    t.equal(ban.length, 2, 'the sample ban, and the one made to have something to unban')
    t.match(ban[1], { actor: 'admin-key', target: { userId: /^[0-9a-f-]{36}$/ }, changes: { reason: 'cheating' } })
    const now = new Date(ctx.clock.now())
    t.equal(
      (await ctx.admin({ method: 'GET', url: `/audit?to=${now.toISOString()}` })).json().items.length,
      0,
      '`to` is exclusive',
    )
    t.ok(
      (await ctx.admin({ method: 'GET', url: `/audit?from=${now.toISOString()}&limit=1` })).json().items.length === 1,
    )

    const seen: string[] = []
    let cursor: string | null = null
    for (let page = 0; page < 100; page++) {
      const res: any = (
        await ctx.admin({ method: 'GET', url: `/audit?limit=7${cursor ? `&cursor=${cursor}` : ''}` })
      ).json()
      seen.push(...res.items.map((e: any) => e.id))
      cursor = res.nextCursor
      if (!cursor) break
    }
    t.same(
      seen,
      items.map((e: any) => e.id),
      'pages of 7 walk the same list',
    )
    assertError(t, await ctx.admin({ method: 'GET', url: '/audit?bogus=1' }), 400, 'VALIDATION_ERROR')
    assertError(t, await ctx.admin({ method: 'GET', url: '/audit?from=yesterday' }), 400, 'VALIDATION_ERROR')
  })
  t.test('failed sign-ins: marked unverified, at most 20 per address per 15 minutes', async (t) => {
    const from = (address: string, username: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/v1/admin/session',
        remoteAddress: address,
        // Anyone may send a request id: it is kept, but the entry says nobody proved who sent it.
        headers: { 'x-request-id': `forged-${username}` },
        payload: { username, password: 'not the password at all' },
      })
    const failedFrom = async (address: string) =>
      (await ctx.admin({ method: 'GET', url: '/audit?action=sign-in-failed&limit=100' }))
        .json()
        .items.filter((e: any) => e.address === address)
    // 17 failures from this address already took their slots (each failure costs a slow hash: 17
    // more over HTTP would take a minute on a busy machine), through the very call a failure makes.
    const slots = scopedLockoutKey('OPERATOR-AUDIT', '198.51.100.7')
    for (let i = 0; i < 17; i++)
      await reserveAttempt(ctx.app.db, slots, ctx.clock.now(), AUDITED_FAILURES_PER_ADDRESS, { inFlight: false })
    const statuses: number[] = []
    for (const name of ['boss', 'watcher', 'nobody-at-all', 'boss', 'watcher']) {
      statuses.push((await from('198.51.100.7', name)).statusCode)
    }
    t.same(statuses, Array(5).fill(401), 'five more wrong passwords, each answered 401')
    const recorded = await failedFrom('198.51.100.7')
    t.same(
      recorded.map((e: any) => e.actor),
      ['nobody-at-all', 'watcher', 'boss'],
      'the 18th to 20th were written down, the 21st and 22nd not',
    )
    t.ok(
      recorded.every((e: any) => e.actorVerified === false && e.role === null),
      'each marked unverified',
    )
    t.match(recorded.at(-1), { actor: 'boss', requestId: 'forged-boss', status: 401 })
    await from('198.51.100.8', 'someone-else')
    t.equal((await failedFrom('198.51.100.8')).length, 1, 'another address is recorded')
    const signedIn = (await ctx.admin({ method: 'GET', url: '/audit?action=sign-in&limit=1' })).json().items
    t.match(signedIn, [{ action: 'sign-in', actorVerified: true }], 'a sign-in is verified')

    ctx.clock.advance(15 * 60_000)
    await from('198.51.100.7', 'after-the-window')
    t.equal((await failedFrom('198.51.100.7')).length, 4, 'recorded again once the window has passed')
  })
})

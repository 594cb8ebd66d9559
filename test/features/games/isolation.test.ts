import t from 'tap'
import type { Kysely } from 'kysely'
import { API_KEY, eachDialect } from '../../helpers/app.js'
import { fillEveryTable } from '../../fixtures/every-table.js'
import { gameTables, leaked, markersOf, probesOf, send, snapshot, type Targets } from '../../helpers/isolation.js'

/**
 * Contract §14: nothing of one game is readable or writable through another game's key or admin
 * scope, on any route. The default game holds a row in every table (the every-table fixture, made
 * through the APIs); a second game, `rival`, is made empty. Every app and admin operation of the
 * OpenAPI document is then sent at the default game's data (its players, tokens, boards, codes, ids)
 * through rival's key and rival's admin path: no answer may show a value of the default game's rows
 * that its own request did not carry, and afterwards every table of the default game is exactly as
 * it was. The same probes sent through the default game's own scope do show its data: the test sees
 * a leak when there is one.
 */
eachDialect(t, async (t, dialect) => {
  const filled = await fillEveryTable(t, dialect)
  const { ctx } = filled
  const home = ctx.app.db as unknown as Kysely<any>
  await ctx.app.ready()

  const made = await ctx.admin({ method: 'POST', url: '/games', payload: { id: 'rival', name: 'Rival' } })
  t.equal(made.statusCode, 201, 'a second game made through the admin API')
  const key = made.json().key as { key: string }
  const rival = ctx.app.games.get('rival')!.db as unknown as Kysely<any>

  const first = async (table: string, column: string) =>
    String((await home.selectFrom(table).select(column).limit(1).executeTakeFirstOrThrow())[column])
  const targets: Targets = {
    userId: filled.anonymous.userId,
    accessToken: filled.anonymous.accessToken,
    anonymousToken: filled.anonymous.anonymousToken,
    email: filled.email.email,
    password: filled.email.password,
    boardKey: 'weekly',
    params: {
      code: 'SUMMER24',
      slug: 'reward',
      cosmeticId: 'cat',
      crashSessionId: 'run-1',
      newsId: await first('news', 'id'),
      webhookId: await first('webhook_endpoints', 'id'),
      deliveryId: await first('webhook_deliveries', 'id'),
      runId: await first('validated_runs', 'id'),
      key: await first('validated_values', 'value_key'),
      configKey: await first('remote_configs', 'config_key'),
      lang: await first('localizations', 'language'),
      emailId: await first('emails', 'id'),
      groupId: await first('crash_groups', 'id'),
    },
  }
  t.ok(targets.accessToken && targets.anonymousToken, "the default game's player has a session and an anonymous token")

  const tables = gameTables(ctx)
  const before = await snapshot(home, tables)
  const doc = (await ctx.app.inject({ url: '/docs/json' })).json()
  const docText = JSON.stringify(doc)
  const rivalRows = await snapshot(rival, tables)
  const rivalText = Object.values(rivalRows).flat().join('\n')
  const rivalValues = markersOf(rivalRows)
  // What the default game alone holds: not in the document's own text, not in the empty rival.
  const markers = new Set(
    [...markersOf(before)].filter(
      (m) => !docText.includes(m) && !rivalValues.has(m) && !rivalText.includes(JSON.stringify(m).slice(1, -1)),
    ),
  )
  t.ok(markers.size > 40, `${markers.size} values of the default game's rows to look for`)

  const { probes, skipped } = probesOf(doc, targets)
  t.ok(probes.length > 110, `${probes.length} operations probed`)
  t.same(
    skipped.filter((operation) => !/health|\/admin\/(operators|session|games)/i.test(operation)),
    [],
    'only the health routes and the server-wide routes (operators, sessions, the games themselves) are left out',
  )

  // The control: the reads through the default game's own scope show its data.
  const own = { key: API_KEY, adminPrefix: '', accessToken: targets.accessToken }
  let showing = 0
  for (const probe of probes.filter((p) => p.method === 'GET')) {
    if (leaked(await send(ctx, probe, own), probe, markers).length) showing++
  }
  t.ok(showing >= 15, `${showing} reads show the default game's data through its own scope`)

  const scope = { key: key.key, adminPrefix: '/games/rival', accessToken: targets.accessToken }
  const leaks: string[] = []
  for (const probe of probes) {
    const res = await send(ctx, probe, scope)
    const shown = leaked(res, probe, markers)
    if (shown.length) leaks.push(`${probe.operation} (${res.statusCode}): ${shown.slice(0, 3).join(' | ')}`)
    t.not(res.statusCode, 500, `${probe.operation} answers without a server error (${res.body.slice(0, 200)})`)
  }
  t.same(leaks, [], "no answer through rival's key or admin path shows the default game's data")

  const after = await snapshot(home, tables)
  const changed = tables.filter((table) => JSON.stringify(before[table]) !== JSON.stringify(after[table]))
  t.same(changed, [], "no table of the default game changed through rival's key or admin path")
})

import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { strictSchema } from '../../../platform/http/strict-schema.js'
import { CosmeticBodySchema } from '../../../features/player-profile/schemas.js'
import { ImportConfigsBodySchema } from '../../../features/remote-config/schemas.js'

/**
 * The admin API catches mistakes: an unknown body property or query parameter is a 400
 * naming it, and an enum error lists the allowed values. The app API keeps tolerating unknown fields
 * (the SDKs send extras), and maps (`{ key: value }`) keep taking any key.
 */

const USER_ID = '0b6f1c1e-8d0e-4a8e-9a53-4a2f3b1c5d7e'

eachDialect(t, async (t, dialect) => {
  const { admin, call } = await buildTestApp(t, dialect)

  t.test('an unknown body property is a 400 naming it, and nothing is written', async (t) => {
    const res = await admin({
      method: 'PUT',
      url: '/leaderboards/speedrun',
      payload: { sort_order: 'asc', reset: 'daily' },
    })
    const body = assertError(t, res, 400, 'VALIDATION_ERROR')
    t.equal(body.message, 'body/sort_order is not a known property')
    t.same(body.details, [{ path: '/sort_order', message: 'is not a known property' }])
    const boards = (await admin({ method: 'GET', url: '/leaderboards' })).json()
    t.notOk(
      (boards.items as Array<{ boardKey: string }>).some((b) => b.boardKey === 'speedrun'),
      'no board was created',
    )

    // The same body spelled right is accepted: the 400 was the unknown field, not the route.
    const ok = await admin({ method: 'PUT', url: '/leaderboards/speedrun', payload: { sortOrder: 'asc' } })
    t.equal(ok.statusCode, 200, ok.body)
    t.equal(ok.json().sortOrder, 'asc')
  })

  t.test('unknown body properties on other admin routes', async (t) => {
    const cases: Array<[string, string, Record<string, unknown>, string]> = [
      ['PUT', '/cosmetics/x', { type: 'avatar', name: 'X', locked: false, rarity: 'epic' }, 'rarity'],
      ['POST', '/news', { title: 'T', message: 'M', languageCode: 'en', publish_at: 'now' }, 'publish_at'],
      ['PUT', '/remote-config/k', { value: 'v', ttl: 5 }, 'ttl'],
      ['PUT', '/localization/en/greeting', { value: 'Hi', lang: 'en' }, 'lang'],
      ['POST', `/users/${USER_ID}/ban`, { reason: 'spam', days: 3 }, 'days'],
    ]
    for (const [method, url, payload, name] of cases) {
      const body = assertError(t, await admin({ method: method as 'PUT', url, payload }), 400, 'VALIDATION_ERROR')
      t.equal(body.message, `body/${name} is not a known property`, `${method} ${url}`)
    }
    t.equal((await admin({ method: 'GET', url: '/cosmetics' })).json().items.length, 0, 'no cosmetic was created')
    t.equal((await admin({ method: 'GET', url: '/news' })).json().items.length, 0, 'no news was created')
    t.equal((await admin({ method: 'GET', url: '/remote-config' })).json().items.length, 0, 'no config was created')
  })

  t.test('an unknown property inside a nested admin object is named by its path', async (t) => {
    const res = await admin({
      method: 'PUT',
      url: '/email-templates/welcome',
      payload: {
        defaultLanguage: 'en',
        clientCallable: false,
        variables: {},
        translations: { en: { subject: 'Hi', html: '<p>Hi</p>', body: 'Hi' } },
      },
    })
    const body = assertError(t, res, 400, 'VALIDATION_ERROR')
    t.equal(body.message, 'body/translations/en/body is not a known property')
  })

  t.test('an unknown query parameter is a 400 naming it', async (t) => {
    const users = assertError(t, await admin({ method: 'GET', url: '/users?q=Ada' }), 400, 'VALIDATION_ERROR')
    t.equal(users.message, 'querystring/q is not a known property')
    t.same(users.details, [{ path: '/q', message: 'is not a known property' }])
    const news = assertError(t, await admin({ method: 'GET', url: '/news?foo=1' }), 400, 'VALIDATION_ERROR')
    t.equal(news.message, 'querystring/foo is not a known property')
    // The known parameters still pass, with their query coercion (limit "2" is an integer).
    t.equal((await admin({ method: 'GET', url: '/users?query=Ada&limit=2' })).statusCode, 200)
    t.equal((await admin({ method: 'GET', url: '/news?limit=5' })).statusCode, 200)
  })

  t.test('an enum error lists the allowed values', async (t) => {
    const cosmetic = assertError(
      t,
      await admin({ method: 'PUT', url: '/cosmetics/x', payload: { type: 'hat', name: 'X' } }),
      400,
      'VALIDATION_ERROR',
    )
    t.equal(cosmetic.message, 'body/type must be one of: avatar, frame, badge')
    t.same(cosmetic.details, [{ path: '/type', message: 'must be one of: avatar, frame, badge' }])

    const board = assertError(
      t,
      await admin({ method: 'PUT', url: '/leaderboards/speedrun', payload: { resetSchedule: 'hourly' } }),
      400,
      'VALIDATION_ERROR',
    )
    t.equal(board.message, 'body/resetSchedule must be one of: none, daily, weekly, monthly')

    const order = assertError(
      t,
      await admin({ method: 'PUT', url: '/leaderboards/speedrun', payload: { sortOrder: 'up' } }),
      400,
      'VALIDATION_ERROR',
    )
    t.equal(order.message, 'body/sortOrder must be one of: desc, asc')

    const emails = assertError(t, await admin({ method: 'GET', url: '/emails?status=lost' }), 400, 'VALIDATION_ERROR')
    t.equal(emails.message, 'querystring/status must be one of: pending, processing, sent, failed, cancelled')
  })

  t.test('maps still take any key', async (t) => {
    const imported = await admin({
      method: 'POST',
      url: '/remote-config/import',
      payload: { configs: { 'ui.color': 'red', any_key: 'x' } },
    })
    t.equal(imported.statusCode, 200, imported.body)
    t.equal(imported.json().imported, 2)
    const translations = await admin({
      method: 'PUT',
      url: '/localization/en',
      payload: { translations: { greeting: 'Hi', 'menu.start': 'Start' } },
    })
    t.equal(translations.statusCode, 200, translations.body)
    // The map's own object is still strict: an unknown property next to it is named.
    const extra = assertError(
      t,
      await admin({ method: 'POST', url: '/remote-config/import', payload: { configs: {}, replace: true } }),
      400,
      'VALIDATION_ERROR',
    )
    t.equal(extra.message, 'body/replace is not a known property')
  })

  t.test('the app API still accepts unknown body properties and query parameters', async (t) => {
    const signup = await call({
      method: 'POST',
      url: '/user-management/signup',
      payload: { username: 'Ada', sort_order: 'asc', platform: 'ios' },
    })
    t.equal(signup.statusCode, 201, signup.body)
    const { userId } = signup.json()
    const submit = await call({
      method: 'POST',
      url: '/leaderboard/submit',
      payload: { userId, score: 10, sdkVersion: '1.2.3' },
    })
    t.equal(submit.statusCode, 200, submit.body)
    t.equal((await call({ method: 'GET', url: '/news?foo=1' })).statusCode, 200)
    t.equal((await call({ method: 'GET', url: '/leaderboards/default/top?q=Ada' })).statusCode, 200)
    // App enum errors list the allowed values too.
    const bad = assertError(
      t,
      await call({ method: 'POST', url: '/user-management/signup', payload: { type: 'FACEBOOK' } }),
      400,
      'VALIDATION_ERROR',
    )
    t.equal(bad.message, 'body/type must be one of: ANONYMOUS, EMAIL, GOOGLE, APPLE')
  })
})

t.test('the strict copy leaves the shared schema alone', async (t) => {
  const before = JSON.stringify(CosmeticBodySchema)
  const copy = strictSchema(CosmeticBodySchema) as unknown as Record<string, unknown>
  t.equal(copy.additionalProperties, false)
  t.equal(JSON.stringify(CosmeticBodySchema), before, 'the TypeBox schema is unchanged')
  t.notOk('additionalProperties' in CosmeticBodySchema)
  const imports = strictSchema(ImportConfigsBodySchema) as unknown as {
    additionalProperties: boolean
    properties: { configs: Record<string, unknown> }
  }
  t.equal(imports.additionalProperties, false)
  t.notOk('additionalProperties' in imports.properties.configs, 'a map stays a map')
})

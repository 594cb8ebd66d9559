import type { BrowserContext, Route } from 'playwright-core'

/**
 * The games' admin routes as the console reads them (contract §14), answered in the browser by
 * Playwright for the console tests: `GET|POST /games`, a game's `GET|PATCH|DELETE`, its `keys` and
 * `settings`. Any other route under `/games/{id}/…` is sent on to the real server without the prefix
 * (so a page of another game still loads), and every admin path the console asked for is recorded.
 */

export interface MockGame {
  id: string
  name: string
  createdAt: string
  players: number
  activeToday: number
  crashFreeRate: number | null
}

export interface MockKey {
  id: string
  label: string
  prefix: string
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
}

export interface GamesMock {
  games: MockGame[]
  keys: Record<string, MockKey[]>
  settings: Record<string, Record<string, unknown> & { overridden: string[] }>
  /** Every admin request the console made: method and path after `/api/v1/admin`, query included. */
  requests: Array<{ method: string; path: string; body: unknown }>
  /** The roles the session answers for a non-owner (the session's answers gain `roles`). */
  roles: Record<string, Record<string, string>>
}

const NOW = '2026-05-01T10:00:00.000Z'

/** Installs the mock on `context`: the returned state is live (a test may read and change it). */
export async function mockGames(context: BrowserContext): Promise<GamesMock> {
  const state: GamesMock = {
    games: [
      { id: 'default', name: 'Default game', createdAt: NOW, players: 1234, activeToday: 56, crashFreeRate: 0.995 },
      { id: 'moon', name: 'Moon', createdAt: NOW, players: 7, activeToday: 0, crashFreeRate: null },
    ],
    keys: {
      moon: [
        { id: 'k1', label: 'iOS production', prefix: 'op_moon1', createdAt: NOW, lastUsedAt: NOW, revokedAt: null },
      ],
    },
    settings: {
      moon: {
        authMode: 'compat',
        rateLimitPerSecond: 50,
        appleAudiences: [],
        googleAudiences: ['web.apps.example'],
        emailFrom: 'noreply@example.com',
        corsOrigins: ['*'],
        overridden: ['rateLimitPerSecond'],
      },
    },
    requests: [],
    roles: {},
  }
  let made = 0
  const json = (route: Route, status: number, body?: unknown) =>
    route.fulfill({
      status,
      contentType: 'application/json',
      body: body === undefined ? '' : JSON.stringify(body),
    })
  const item = (g: MockGame, stats: boolean) => {
    const { players, activeToday, crashFreeRate, ...rest } = g
    return { ...rest, role: 'owner', ...(stats && { players, activeToday, crashFreeRate }) }
  }
  await context.route(/\/api\/v1\/admin\//, async (route) => {
    const request = route.request()
    const url = new URL(request.url())
    const path = url.pathname.replace(/^.*\/api\/v1\/admin/, '')
    const method = request.method()
    const body = request.postData() ? JSON.parse(request.postData()!) : undefined
    state.requests.push({ method, path: `${path}${url.search}`, body })
    if (path === '/session' && method !== 'DELETE') {
      const response = await route.fetch()
      const session = await response.json()
      return json(route, response.status(), {
        ...session,
        ...(state.roles[session.username] && { roles: state.roles[session.username] }),
      })
    }
    if (path === '/games') {
      if (method === 'GET')
        return json(route, 200, {
          items: state.games.map((g) => item(g, url.searchParams.get('stats') === 'true')),
          nextCursor: null,
        })
      const game: MockGame = {
        id: body.id,
        name: body.name,
        createdAt: NOW,
        players: 0,
        activeToday: 0,
        crashFreeRate: null,
      }
      state.games.push(game)
      const key = {
        id: `k${++made}`,
        label: 'first',
        prefix: `op_${body.id}`,
        createdAt: NOW,
        lastUsedAt: null,
        revokedAt: null,
      }
      state.keys[game.id] = [key]
      return json(route, 201, {
        id: game.id,
        name: game.name,
        createdAt: NOW,
        key: { ...key, key: `op_${body.id}_secret-once-${made}` },
      })
    }
    const match = /^\/games\/([^/]+)(\/.*)?$/.exec(path)
    if (!match) return route.continue()
    const [, id, rest = ''] = match
    const game = state.games.find((g) => g.id === id)
    if (!game) return json(route, 404, { statusCode: 404, code: 'GAME_NOT_FOUND', message: `No game ${id}` })
    if (rest === '') {
      if (method === 'PATCH') game.name = body.name
      if (method === 'DELETE') {
        if (body?.confirm !== id)
          return json(route, 400, { statusCode: 400, code: 'CONFIRM_MISMATCH', message: 'Type the id' })
        state.games = state.games.filter((g) => g !== game)
        return json(route, 204)
      }
      return json(route, 200, item(game, false))
    }
    if (rest === '/keys') {
      const keys = (state.keys[id] ??= [])
      if (method === 'GET') return json(route, 200, { items: keys, nextCursor: null })
      const key = {
        id: `k${++made}`,
        label: body.label,
        prefix: `op_new${made}`,
        createdAt: NOW,
        lastUsedAt: null,
        revokedAt: null,
      }
      keys.push(key)
      return json(route, 201, { ...key, key: `op_new${made}_secret-once` })
    }
    const revoke = /^\/keys\/([^/]+)\/revoke$/.exec(rest)
    if (revoke) {
      const key = state.keys[id]?.find((k) => k.id === revoke[1])
      if (!key) return json(route, 404, { statusCode: 404, code: 'KEY_NOT_FOUND', message: 'No such key' })
      key.revokedAt = NOW
      return json(route, 200, key)
    }
    if (rest === '/settings') {
      const settings = state.settings[id]!
      if (method === 'PATCH') {
        for (const [name, value] of Object.entries(body)) {
          settings.overridden = settings.overridden.filter((n) => n !== name)
          if (value === null) settings[name] = name === 'rateLimitPerSecond' ? 20 : settings[name]
          else {
            settings[name] = value
            settings.overridden.push(name)
          }
        }
      }
      return json(route, 200, settings)
    }
    // Any other route of a game: the real server's route without the prefix (default's data).
    const response = await route.fetch({ url: `${url.origin}${url.pathname.replace(`/games/${id}`, '')}${url.search}` })
    return route.fulfill({ response })
  })
  return state
}

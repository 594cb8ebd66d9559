import type { Kysely } from 'kysely'
import type { LightMyRequestResponse } from 'fastify'
import { PLATFORM_TABLES } from '../../db/types.js'
import type { TestApp } from './app.js'

/**
 * The machinery of the isolation test (test/features/games/isolation.test.ts): every operation of
 * the OpenAPI document, sent at one game's data through another game's key or admin path, and what
 * it may not show or change.
 */

/** One request built from an operation of the document. */
export interface Probe {
  operation: string
  method: string
  /** Below /api/v1/app or /api/v1/admin (the prefix of the scope is put before it). */
  path: string
  surface: 'app' | 'admin'
  payload?: unknown
}

/** The server-wide admin routes, which belong to no game (docs/several-games.md), and the games' own. */
const SERVER_WIDE = /^\/(operators|session|games)(\/|$)/

/** Every data table of a game's database, the server's own (`games`, `game_keys`) aside. */
export function gameTables(ctx: TestApp): string[] {
  return [
    ...PLATFORM_TABLES.filter((table) => table !== 'games' && table !== 'game_keys'),
    ...ctx.app.features.flatMap((feature) => feature.tables),
  ]
}

/** Every row of every table, in a stable order: what must be the same after the probes. */
export async function snapshot(db: Kysely<any>, tables: readonly string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {}
  for (const table of tables) {
    const rows = await db.selectFrom(table).selectAll().execute()
    out[table] = rows
      .map((row) => JSON.stringify(row, (_key, value) => (Buffer.isBuffer(value) ? value.toString('base64') : value)))
      .sort()
  }
  return out
}

/** The distinctive text values of a snapshot (and of the JSON inside them): what a leak would show. */
export function markersOf(rows: Record<string, string[]>): Set<string> {
  const found = new Set<string>()
  const visit = (value: unknown) => {
    if (typeof value === 'string') {
      // JSON stored as text counts by its values: its text is re-serialized on the way out.
      if (/^[[{]/.test(value)) {
        try {
          return visit(JSON.parse(value))
        } catch {
          // Not JSON: the text itself counts.
        }
      }
      if (value.length >= 8 && !/^[\d.:TZ-]+$/.test(value)) found.add(value)
    } else if (value && typeof value === 'object') for (const item of Object.values(value)) visit(item)
  }
  for (const list of Object.values(rows)) for (const row of list) visit(JSON.parse(row))
  return found
}

/** What one game's data is known by: the values the probes put in paths and bodies. */
export interface Targets {
  userId: string
  accessToken: string
  anonymousToken: string
  email: string
  password: string
  boardKey: string
  params: Record<string, string>
}

const idFor = (path: string, name: string, targets: Targets) => {
  if (name === 'id') {
    if (path.startsWith('/news/')) return targets.params.newsId!
    if (path.startsWith('/webhooks/')) return targets.params.webhookId!
    return targets.params.cosmeticId!
  }
  if (name === 'boardKey') return targets.boardKey
  if (name === 'userId') return targets.userId
  return targets.params[name] ?? `unknown-${name}`
}

/** The body of an example with the other game's identities put in its fields. */
function aimed(example: unknown, targets: Targets): unknown {
  if (Array.isArray(example)) return example.map((item) => aimed(item, targets))
  if (!example || typeof example !== 'object') return example
  const fields: Record<string, string> = {
    userId: targets.userId,
    sessionToken: targets.accessToken,
    anonymousToken: targets.anonymousToken,
    email: targets.email,
    password: targets.password,
    leaderboardKey: targets.boardKey,
    boardKey: targets.boardKey,
    code: targets.params.code!,
    templateSlug: targets.params.slug!,
    sessionId: targets.params.crashSessionId!,
  }
  return Object.fromEntries(
    Object.entries(example).map(([key, value]) => [
      key,
      key in fields && typeof value === 'string' ? fields[key] : aimed(value, targets),
    ]),
  )
}

/** Every app and admin operation of the document (health, docs and the server-wide ones aside), aimed at `targets`. */
export function probesOf(doc: any, targets: Targets): { probes: Probe[]; skipped: string[] } {
  const probes: Probe[] = []
  const skipped: string[] = []
  for (const [pattern, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const surface = pattern.startsWith('/api/v1/app/') ? 'app' : pattern.startsWith('/api/v1/admin/') ? 'admin' : null
      const below = pattern.replace(/^\/api\/v1\/(app|admin)/, '')
      const operation = `${method.toUpperCase()} ${pattern}`
      if (!surface || (surface === 'admin' && SERVER_WIDE.test(below)) || op.tags?.includes('Health')) {
        skipped.push(operation)
        continue
      }
      const path = below.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(idFor(below, name, targets)))
      const query = new URLSearchParams()
      for (const parameter of op.parameters ?? []) {
        if (parameter.in !== 'query') continue
        const value = ['userId'].includes(parameter.name)
          ? targets.userId
          : parameter.name === 'leaderboardKey'
            ? targets.boardKey
            : (parameter.example ?? parameter.schema?.example)
        if (value !== undefined && value !== '') query.set(parameter.name, String(value))
      }
      const json = op.requestBody?.content?.['application/json']
      const example = json?.example ?? Object.values<any>(json?.examples ?? {})[0]?.value
      probes.push({
        operation,
        method: method.toUpperCase(),
        path: query.size ? `${path}?${query}` : path,
        surface,
        payload: example === undefined ? undefined : aimed(example, targets),
      })
    }
  }
  // Reads first, on a game that holds nothing yet; then the writes.
  probes.sort((a, b) => Number(a.method !== 'GET') - Number(b.method !== 'GET'))
  return { probes, skipped }
}

/** Sends a probe in a scope: through `key` on the app API, below `adminPrefix` on the admin API. */
export function send(
  ctx: TestApp,
  probe: Probe,
  scope: { key: string; adminPrefix: string; accessToken: string },
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {}
  if (probe.surface === 'app') {
    headers['x-api-key'] = scope.key
    headers.authorization = `Bearer ${scope.accessToken}`
    return ctx.app.inject({
      method: probe.method as never,
      url: `/api/v1/app${probe.path}`,
      headers,
      ...(probe.payload !== undefined && { payload: probe.payload as never }),
    })
  }
  return ctx.admin({
    method: probe.method as never,
    url: `${scope.adminPrefix}${probe.path}`,
    ...(probe.payload !== undefined && { payload: probe.payload as never }),
  })
}

/** The markers an answer shows that its own request did not carry. */
export function leaked(res: LightMyRequestResponse, probe: Probe, markers: ReadonlySet<string>): string[] {
  const sent = `${decodeURIComponent(probe.path)} ${JSON.stringify(probe.payload ?? null)}`
  const body = res.body
  return [...markers].filter((marker) => {
    if (sent.includes(marker) || sent.includes(JSON.stringify(marker).slice(1, -1))) return false
    return body.includes(marker) || body.includes(JSON.stringify(marker).slice(1, -1))
  })
}

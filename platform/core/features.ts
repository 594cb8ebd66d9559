import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import type { Static, TObject, TProperties, TSchema } from '@sinclair/typebox'
import type { Migration } from 'kysely'
import { platformMigrations } from '../../db/migrations/index.js'
import type { Database, Db, OperatorRole } from '../../db/types.js'
import type { RaisedEvents } from './events.js'

/** The least role that may read (GET) and write (every other method) through a feature's admin routes. */
export interface AdminRights {
  read: OperatorRole
  write: OperatorRole
}

/** A counter a feature counts on, exposed on /metrics as `name` (the whole metric name), and its label values. */
export interface CounterManifest {
  name: string
  help: string
  /** The label and every value it takes, each exposed at 0 from the start; none for a plain count. */
  label?: { name: string; values: readonly string[] }
}

/** A gauge a feature reads when Prometheus scrapes (`app.metrics.readGaugeFrom`), by one label. */
export interface GaugeManifest {
  name: string
  help: string
  label: string
}

/**
 * An event a feature raises for operators (sent by the webhooks): its type, the title a chat message
 * and the docs show, and its payload's schema (what `data` holds; its type is the feature's entry in
 * RaisedEvents, platform/core/events.ts).
 */
export interface EventManifest {
  readonly type: keyof RaisedEvents & string
  readonly title: string
  readonly payload: TSchema
  /** The event this one follows in the webhooks' list (whose order predates the manifests); see `inListOrder`. */
  readonly after?: string
}

/**
 * A feature's part of a player's data export (right of access and portability): the fields it owns,
 * their schemas, and how they are read through its own service, so its secrets stay decided where its
 * tables are. The users feature puts the parts together (features/users/export.ts).
 */
export interface ExportPart {
  readonly schema: TProperties
  readonly read: (db: Db, userId: string) => Promise<Record<string, unknown>>
  /** The feature whose part this one follows in the document (whose order predates the manifests); see `inListOrder`. */
  readonly after?: string
}

/** An export part whose reader is checked against its schema. */
export function exportPart<P extends TProperties>(part: {
  schema: P
  read: (db: Db, userId: string) => Promise<Static<TObject<P>>>
  after?: string
}): ExportPart {
  return part as ExportPart
}

/**
 * Items the features declare, as one list: in the order of the features, except that an item with
 * `after` stands right after the item of that key (when there is one; otherwise at the end). For the
 * lists that had an order before each feature declared its own part (the webhooks' event types, the
 * player export's fields), which clients and the OpenAPI document keep seeing.
 */
export function inListOrder<T extends { after?: string }>(items: readonly T[], key: (item: T) => string): T[] {
  const list = items.filter((item) => item.after === undefined)
  let waiting = items.filter((item) => item.after !== undefined)
  while (waiting.length) {
    const keys = new Set(items.map(key))
    const next = waiting.filter((item) => {
      const anchor = list.findIndex((placed) => key(placed) === item.after)
      if (anchor >= 0) list.splice(anchor + 1, 0, item)
      else if (!keys.has(item.after!)) list.push(item)
      else return true
      return false
    })
    // Anchors that wait on each other (a cycle) go at the end, in the order of the features.
    if (next.length === waiting.length) return [...list, ...next]
    waiting = next
  }
  return list
}

/**
 * What a feature says of itself, in its own `manifest.ts`: the one list of features (app.ts) hands these
 * to the platform, so the OpenAPI tags, the admin permission map, the metrics and the
 * architecture test never name a feature themselves.
 */
export interface FeatureManifest {
  /** The plugin's name and its folder under features/. */
  readonly name: string
  /** The OpenAPI tag of its operations; its admin operations are listed under `Admin · <tag>`. */
  readonly tag: string
  /**
   * The tables it owns: only its code writes them (test/house/table-ownership.test.ts); another
   * feature changes them through its service.
   */
  readonly tables: readonly (keyof Database)[]
  /**
   * The migrations of its tables (its `migrations/index.ts`), by the names the database records: the
   * app runs them with the platform's and every other feature's, in name order.
   */
  readonly migrations?: Readonly<Record<string, Migration>>
  /** Who may call its admin routes (a route listed in security/admin-access.ts ROUTE_RIGHTS is decided there). */
  readonly adminRights: AdminRights
  /** Its counters, exposed on /metrics from the start. */
  readonly counters?: Readonly<Record<string, CounterManifest>>
  /** Its gauges, read from elsewhere (the database) on each scrape. */
  readonly gauges?: Readonly<Record<string, GaugeManifest>>
  /** Its in-memory caches, counted in `outpost_cache_lookups_total` by this name. */
  readonly caches?: readonly string[]
  /** The events it raises for operators, in the order the webhooks list them. */
  readonly events?: readonly EventManifest[]
  /** Its part of a player's data export. */
  readonly playerExport?: ExportPart
}

/**
 * Every migration the app runs: the platform's and each feature's, one record. A name given twice is
 * refused, since the database records a migration by its name alone and would run only one of them.
 */
export function migrationsOf(manifests: readonly FeatureManifest[]): Record<string, Migration> {
  const all: Record<string, Migration> = { ...platformMigrations }
  const owners = new Map(Object.keys(platformMigrations).map((name) => [name, 'the platform (db/migrations/)']))
  for (const manifest of manifests) {
    for (const [name, migration] of Object.entries(manifest.migrations ?? {})) {
      const owner = owners.get(name)
      if (owner) throw new Error(`Migration ${name} of ${manifest.name} has the name of one of ${owner}: rename it`)
      owners.set(name, manifest.name)
      all[name] = migration
    }
  }
  // In name order, the order they run in (Kysely's migrator sorts by name too).
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/** A feature: its manifest and its plugin. */
export interface Feature {
  readonly manifest: FeatureManifest
  readonly plugin: FastifyPluginAsync
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every feature's manifest, in registration order (set by app.ts before any plugin registers). */
    features: readonly FeatureManifest[]
  }
}

/**
 * A feature's plugin, named after its manifest and shared with the app (fastify-plugin), so what it
 * decorates (the e-mail worker, say) is the app's.
 */
export function defineFeature(
  manifest: FeatureManifest,
  register: (app: FastifyInstance) => Promise<void>,
  dependencies: string[],
): Feature {
  return { manifest, plugin: fp(register, { name: manifest.name, dependencies }) }
}

const FEATURE = Symbol('outpost.feature')
type Scoped = FastifyInstance & { [FEATURE]?: FeatureManifest }

/** The feature whose admin routes the context `instance` registers, or null outside `adminRoutes`. */
export function featureOf(instance: FastifyInstance): FeatureManifest | null {
  return (instance as Scoped)[FEATURE] ?? null
}

/**
 * A feature's admin routes, registered in a context that knows the feature: admin-auth reads the
 * rights of every admin route from the manifest of the context it is registered in. (A property of
 * the encapsulated context rather than a decorator: the child contexts of one app each name another
 * feature, and Fastify lets a decorator be declared once per app.)
 */
export function adminRoutes<Routes extends (instance: any, options: any) => Promise<void>>(
  manifest: FeatureManifest,
  routes: Routes,
): Routes {
  const scoped = async (scope: FastifyInstance, options: { prefix?: string }) => {
    ;(scope as Scoped)[FEATURE] = manifest
    // The prefix applies to this context already; the routes' own options are the rest.
    const { prefix: _prefix, ...rest } = options
    await scope.register(routes as FastifyPluginAsync, rest)
  }
  return scoped as unknown as Routes
}

/** Decorates `app.features`, the manifests of the one list in app.ts. */
export default fp<{ features: readonly FeatureManifest[] }>(
  async (app, opts) => {
    app.decorate('features', opts.features)
  },
  { name: 'features' },
)

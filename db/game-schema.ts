import {
  sql,
  WithSchemaPlugin,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RawBuilder,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely'

/*
 * How a game's handle names its tables on the database servers (db/games.ts): Kysely's schema
 * plugin, marked so that the schema can be read back from a handle or a transaction on it. Apart
 * from games.ts so that the prepared queries (prepared.ts) can key their compiled text by it, and
 * light enough (Kysely's types, two constants) for schemas the console's type check reads.
 */

/** The game every database holds from its first start, and the one un-prefixed admin routes address. */
export const DEFAULT_GAME = 'default'

/** A game's id (contract §14): lower-case letters, digits and dashes, at most 32 characters. */
export const GAME_ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,31}$'

/** The schema plugin of a game's handle on a database server: its schema and game can be read back. */
export class GameSchema extends WithSchemaPlugin {
  constructor(
    readonly schema: string,
    readonly gameId: string,
  ) {
    super(schema)
  }
}

/** The mark of a SQLite game's handle (a file of its own, nothing to rewrite): its game can be read back. */
export class GameMark implements KyselyPlugin {
  constructor(readonly gameId: string) {}
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result
  }
}

/** The game of a handle or of a transaction on it: `default` when it carries no game's mark. */
export function gameIdOf(db: Kysely<any>): string {
  for (const plugin of db.getExecutor().plugins) {
    if (plugin instanceof GameSchema || plugin instanceof GameMark) return plugin.gameId
  }
  return DEFAULT_GAME
}

/** The schema a game's handle (or a transaction on it) writes before its tables; undefined for `default` and SQLite. */
export function schemaOf(db: Kysely<any>): string | undefined {
  for (const plugin of db.getExecutor().plugins) if (plugin instanceof GameSchema) return plugin.schema
  return undefined
}

/** A table named in hand-written SQL, in the game of `db`: the schema plugin does not reach into raw SQL. */
export function table(db: Kysely<any>, name: string): RawBuilder<unknown> {
  const schema = schemaOf(db)
  return sql.table(schema ? `${schema}.${name}` : name)
}

/** A stored routine's name as the game of `db` calls it: a game's routines live in its own database or schema. */
export function routineName(db: Kysely<any>, name: string): string {
  const schema = schemaOf(db)
  return schema ? `${schema}.${name}` : name
}

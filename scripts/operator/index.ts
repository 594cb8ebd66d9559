// `npm run operator -- <command>`: manage the operators who sign in to the admin API and console,
// against the database the server is configured for (same .env and environment), migrating it first.
//   add NAME --role owner|moderator|viewer [--game ID]...   reset-password NAME   reset-totp NAME   remove NAME   list
// Passwords come from OPERATOR_PASSWORD or, on a terminal, from a prompt that does not echo.
import { pathToFileURL } from 'node:url'
import { createInterface } from 'node:readline'
import { Writable } from 'node:stream'
import { describeConfigError, loadConfig } from '../../config.js'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../../db/index.js'
import { migrateToLatest } from '../../db/migrate.js'
import { MIGRATIONS } from '../../app.js'
import type { Db, OperatorRole } from '../../db/types.js'
import { hashPassword } from '../../platform/security/passwords.js'
import { ROLES } from '../../platform/security/roles.js'
import { AppError } from '../../platform/core/errors.js'
import {
  createOperator,
  listOperators,
  PASSWORD_MAX,
  PASSWORD_MIN,
  recordCliAction,
  removeOperator,
  resetTotp,
  revokeSessions,
  setPassword,
  USERNAME_PATTERN,
  type GameRoles,
} from '../../features/operators/service.js'
import { DEFAULT_GAME, GAME_ID_PATTERN } from '../../db/games.js'
import { findGame } from '../../platform/games/store.js'

const USAGE = `Usage: npm run operator -- <command>
  add NAME --role owner|moderator|viewer [--game ID]...
                                           create an operator (password from OPERATOR_PASSWORD or a prompt);
                                           a moderator or viewer holds the role in each --game (default: default)
  list                                     list operators
  remove NAME                              remove an operator and end their sessions
  reset-password NAME                      set a new password and end their sessions
  reset-totp NAME                          turn their second factor off`

/** Wrong arguments: the command prints its usage rather than a stack. */
export class UsageError extends Error {}

/** What the command reads and writes, handed in so tests run it without a terminal. */
export interface CliIo {
  env: Record<string, string | undefined>
  out(line: string): void
  /** Asks for a password without echo; null when there is no terminal to ask on. */
  askPassword(prompt: string): Promise<string | null>
}

async function newPassword(io: CliIo): Promise<string> {
  let password = io.env.OPERATOR_PASSWORD
  if (password === undefined || password === '') {
    const first = await io.askPassword('Password: ')
    if (first === null) throw new UsageError('No terminal to ask for a password on: set OPERATOR_PASSWORD')
    const again = await io.askPassword('Password again: ')
    if (first !== again) throw new UsageError('The two passwords differ')
    password = first
  }
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX)
    throw new UsageError(`The password must have ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`)
  return password
}

function nameArg(args: string[]): string {
  const name = args[1]
  if (!name || !new RegExp(USERNAME_PATTERN).test(name))
    throw new UsageError('NAME: 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit')
  return name
}

/** The games `--game ID` names (each checked to exist), with `role` in each; none named: undefined (`default`). */
async function gameRoles(db: Db, args: string[], role: OperatorRole): Promise<GameRoles | undefined> {
  const ids = args.flatMap((arg, at) => (arg === '--game' ? [args[at + 1] ?? ''] : []))
  if (ids.length === 0) return undefined
  if (role === 'owner') throw new UsageError('An owner holds every game: leave out --game')
  for (const id of ids) {
    if (!new RegExp(GAME_ID_PATTERN).test(id)) throw new UsageError(`--game ${id}: not a game id`)
    if (id !== DEFAULT_GAME) await findGame(db, id)
  }
  return Object.fromEntries(ids.map((id) => [id, role as 'moderator' | 'viewer']))
}

/** Runs one command on `db`; `now` is the time the changes are stamped with. */
export async function runCommand(db: Db, args: string[], io: CliIo, now = Date.now()): Promise<void> {
  const command = args[0]
  switch (command) {
    case 'add': {
      const name = nameArg(args)
      const roleAt = args.indexOf('--role')
      const role = args[roleAt + 1] as OperatorRole
      if (roleAt < 0 || !ROLES.includes(role)) throw new UsageError('--role must be owner, moderator or viewer')
      const roles = await gameRoles(db, args, role)
      const passwordHash = await hashPassword(await newPassword(io))
      const created = await createOperator(db, { username: name, role, roles, passwordHash }, now)
      await recordCliAction(db, 'cli add', { username: created.username, role, ...(roles && { roles }) }, now)
      io.out(`Added ${created.username} (${created.role}). Sign in with POST /api/v1/admin/session or the console.`)
      return
    }
    case 'list': {
      const operators = await listOperators(db)
      if (operators.length === 0) io.out('No operators yet: npm run operator -- add NAME --role owner')
      for (const op of operators)
        io.out(`${op.username}\t${op.role}\t${op.totpEnabled ? 'totp' : 'no-totp'}\t${op.createdAt}`)
      return
    }
    case 'remove': {
      const name = nameArg(args)
      await removeOperator(db, name)
      await recordCliAction(db, 'cli remove', { username: name.toLowerCase() }, now)
      io.out(`Removed ${name.toLowerCase()}; their sessions are ended.`)
      return
    }
    case 'reset-password': {
      const name = nameArg(args)
      const passwordHash = await hashPassword(await newPassword(io))
      await setPassword(db, name, passwordHash, now)
      await recordCliAction(db, 'cli reset-password', { username: name.toLowerCase() }, now)
      io.out(`New password set for ${name.toLowerCase()}; their sessions are ended.`)
      return
    }
    case 'reset-totp': {
      const name = nameArg(args)
      await resetTotp(db, name, now)
      await revokeSessions(db, name)
      await recordCliAction(db, 'cli reset-totp', { username: name.toLowerCase() }, now)
      io.out(
        `Second factor turned off for ${name.toLowerCase()}: they sign in with their password and may enroll again.`,
      )
      return
    }
    default:
      throw new UsageError(USAGE)
  }
}

function terminalPrompt(prompt: string): Promise<string | null> {
  if (!process.stdin.isTTY) return Promise.resolve(null)
  process.stdout.write(prompt)
  // Nothing typed is echoed: the readline writes to a sink.
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() })
  const rl = createInterface({ input: process.stdin, output: muted, terminal: true })
  return new Promise((resolve) =>
    rl.question('', (answer) => {
      rl.close()
      process.stdout.write('\n')
      resolve(answer)
    }),
  )
}

async function main(): Promise<number> {
  let config
  try {
    config = loadConfig(process.env, { envFile: '.env' })
  } catch (error) {
    process.stderr.write(`${describeConfigError(error as Error)}\n`)
    return 1
  }
  const db = createDb({ ...config, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS })
  try {
    await migrateToLatest(db, MIGRATIONS)
    await runCommand(db, process.argv.slice(2), {
      env: process.env,
      out: (line) => process.stdout.write(`${line}\n`),
      askPassword: terminalPrompt,
    })
    return 0
  } catch (error) {
    if (error instanceof UsageError || error instanceof AppError) {
      process.stderr.write(`${error.message}\n`)
      return 2
    }
    throw error
  } finally {
    await db.destroy()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`${(error as Error).message}\n`)
      process.exit(1)
    },
  )
}

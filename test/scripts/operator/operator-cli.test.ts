import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { API_KEY, buildTestApp, eachDialect, freshDatabase } from '../../helpers/app.js'
import { signIn, signInRequest } from '../../fixtures/operators.js'
import { runCommand, type CliIo } from '../../../scripts/operator/index.js'
import { listOperators } from '../../../features/operators/service.js'

// `npm run operator -- …`: the first operator comes from the command line, with no
// default password; the same tool lists, removes and resets them.

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../../scripts/operator/index.js', import.meta.url))

function io(env: Record<string, string> = {}, answers: Array<string | null> = []): CliIo & { lines: string[] } {
  const lines: string[] = []
  return { env, lines, out: (line) => void lines.push(line), askPassword: async () => answers.shift() ?? null }
}

eachDialect(t, async (t, dialect) => {
  t.test('the real command, against the configured database, migrating it first', async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const env = { PATH: process.env.PATH ?? '', API_KEY, ...dbEnv }
    const added = await run(process.execPath, [CLI, 'add', 'Founder', '--role', 'owner'], {
      env: { ...env, OPERATOR_PASSWORD: 'founder password 1' },
      timeout: 60_000,
    })
    t.match(added.stdout, /Added founder \(owner\)/)
    const refused = await run(process.execPath, [CLI, 'add', 'second', '--role', 'viewer'], {
      env,
      timeout: 60_000,
    }).catch((error: { code: number; stderr: string }) => error)
    t.match(refused, { code: 2, stderr: /set OPERATOR_PASSWORD/ }, 'no terminal and no OPERATOR_PASSWORD: refused')

    // The server on that database, with no admin key: open, because an operator exists.
    const ctx = await buildTestApp(t, dialect, { dbEnv, env: { ADMIN_API_KEY: undefined } })
    const founder = await signIn(ctx, 'founder', 'founder password 1')
    t.equal((await founder.request({ method: 'GET', url: '/operators' })).statusCode, 200)
  })

  t.test('every command, and its refusals', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const db = ctx.app.db
    const now = ctx.clock.now()
    await runCommand(db, ['add', 'ann', '--role', 'owner'], io({}, ['prompted password', 'prompted password']), now)
    await signIn(ctx, 'ann', 'prompted password')
    await t.rejects(
      runCommand(db, ['add', 'bea', '--role', 'viewer'], io({}, ['one password!!', 'another one!!']), now),
      { message: 'The two passwords differ' },
    )
    await t.rejects(runCommand(db, ['add', 'bea', '--role', 'king'], io({ OPERATOR_PASSWORD: 'x'.repeat(12) }), now), {
      message: /--role must be/,
    })
    await t.rejects(runCommand(db, ['add', 'bea', '--role', 'viewer'], io({ OPERATOR_PASSWORD: 'short' }), now), {
      message: /12 to 1024 characters/,
    })
    await t.rejects(
      runCommand(db, ['add', '-bad', '--role', 'viewer'], io({ OPERATOR_PASSWORD: 'x'.repeat(12) }), now),
      { message: /NAME: 1 to 64/ },
    )
    await t.rejects(
      runCommand(db, ['add', 'ANN', '--role', 'viewer'], io({ OPERATOR_PASSWORD: 'x'.repeat(12) }), now),
      { code: 'CONFLICT' },
    )
    await t.rejects(runCommand(db, ['frobnicate'], io(), now), /Usage: npm run operator/)

    await runCommand(db, ['add', 'bea', '--role', 'viewer'], io({ OPERATOR_PASSWORD: 'bea password 1' }), now)
    const bea = await signIn(ctx, 'bea', 'bea password 1')
    const out = io({ OPERATOR_PASSWORD: 'bea password 2' })
    await runCommand(db, ['reset-password', 'bea'], out, now)
    t.match(out.lines, [/New password set for bea/])
    t.equal((await bea.request({ method: 'GET', url: '/session' })).statusCode, 401, 'her sessions ended')
    t.equal((await signInRequest(ctx, { username: 'bea', password: 'bea password 1' })).statusCode, 401)
    await signIn(ctx, 'bea', 'bea password 2')

    await ctx.app.db
      .updateTable('operators')
      .set({ totp_secret: 'JBSWY3DPEHPK3PXP' })
      .where('username', '=', 'bea')
      .execute()
    t.equal(
      (await signInRequest(ctx, { username: 'bea', password: 'bea password 2' })).statusCode,
      401,
      'a code is needed',
    )
    await runCommand(db, ['reset-totp', 'bea'], io(), now)
    t.equal((await signInRequest(ctx, { username: 'bea', password: 'bea password 2' })).statusCode, 200, 'not any more')

    await t.rejects(runCommand(db, ['remove', 'ann'], io(), now), { code: 'LAST_OWNER' })
    await runCommand(db, ['remove', 'bea'], io(), now)
    const listed = io()
    await runCommand(db, ['list'], listed, now)
    t.equal(listed.lines.length, 1)
    t.match(listed.lines[0], /^ann\towner\t/)
    const actions = (
      await db.selectFrom('audit_log').select(['actor', 'action']).where('actor', '=', 'cli').execute()
    ).map((row) => row.action)
    t.same(actions.sort(), ['cli add', 'cli add', 'cli remove', 'cli reset-password', 'cli reset-totp'])
  })

  t.test('add --game: a moderator or viewer of the games named, each checked to exist', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const db = ctx.app.db
    const now = ctx.clock.now()
    // A moderator or viewer of the games named, each checked to exist; an owner holds every game.
    const pass = io({ OPERATOR_PASSWORD: 'x'.repeat(12) })
    await ctx.admin({ method: 'POST', url: '/games', payload: { id: 'cli-game', name: 'Cli' } })
    await runCommand(db, ['add', 'gus', '--role', 'moderator', '--game', 'cli-game', '--game', 'default'], pass, now)
    t.same((await listOperators(db)).find((o) => o.username === 'gus')?.roles, {
      'cli-game': 'moderator',
      default: 'moderator',
    })
    await t.rejects(runCommand(db, ['add', 'hal', '--role', 'viewer', '--game', 'nope'], pass, now), {
      message: /No game 'nope'/,
    })
    await t.rejects(runCommand(db, ['add', 'hal', '--role', 'owner', '--game', 'cli-game'], pass, now), {
      message: /An owner holds every game/,
    })
  })
})

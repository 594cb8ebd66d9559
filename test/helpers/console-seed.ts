import { adminApi, appApi, signUp } from './console-server.js'

/**
 * A small game for the console's page tests, made through the app and admin APIs as clients would:
 * three players, a board with a score of a million, a crash group hit by two players and one unknown
 * id (a multi-line stack trace with a very long line), feedback from a player, and admin writes with
 * long targets for the audit log.
 */

export const CRASH_MESSAGE = 'NullReferenceException: Object reference not set to an instance of an object'
export const LONG_FRAME = `at Game.Inventory.${'VeryLongGeneratedMethodName'.repeat(12)} () in Inventory.cs:88`
export const STACK_TRACE = [
  'at PlayerController.Update () [0x0001a] in PlayerController.cs:42',
  LONG_FRAME,
  'at UnityEngine.PlayerLoop.Run ()',
].join('\n')

export interface Seeded {
  ann: { id: string; accessToken: string }
  bob: { id: string; accessToken: string }
  cleo: { id: string; accessToken: string }
  groupId: string
}

async function ok(res: Promise<{ status: number; body: any }>, what: string) {
  const done = await res
  if (done.status >= 300) throw new Error(`${what}: ${done.status} ${JSON.stringify(done.body)}`)
  return done.body
}

export async function seedConsole(base: string): Promise<Seeded> {
  const ann = await signUp(base, 'ann')
  const bob = await signUp(base, 'bob')
  const cleo = await signUp(base, 'cleo')
  await ok(adminApi(base, 'PUT', '/leaderboards/cup', { name: 'Cup', sortOrder: 'desc' }), 'board')
  for (const [player, score] of [
    [ann, 1_000_000],
    [bob, 250_000],
    [cleo, 4200],
  ] as const)
    await ok(appApi(base, 'POST', '/leaderboards/cup/submit', { userId: player.id, score }), 'submit')

  const report = (userId: string, sessionId: string, deviceModel: string) =>
    ok(
      appApi(base, 'POST', '/crash-reports/create', {
        type: 'CRASH',
        message: CRASH_MESSAGE,
        stackTrace: STACK_TRACE,
        fingerprint: 'nre-inventory',
        appVersion: '1.4.2',
        sdkVersion: '2.1.0',
        platform: 'android',
        os: 'Android 15',
        deviceModel,
        sessionId,
        userId,
        breadcrumbs: [{ timestamp: '2026-01-05T10:00:00Z', type: 'navigation', message: 'Inventory opened' }],
        customKeys: { level: '3' },
      }),
      'crash report',
    )
  await ok(
    appApi(base, 'POST', '/crash-reports/session', {
      sessionId: 's-ann-1',
      appVersion: '1.4.2',
      platform: 'android',
      userId: ann.id,
    }),
    'session',
  )
  const first = await report(ann.id, 's-ann-1', 'Pixel 8')
  await report(bob.id, 's-bob-1', 'Galaxy S24')
  await report('player-7781', 's-unknown-1', 'Moto G')

  await ok(
    appApi(
      base,
      'POST',
      '/user-feedback/submit',
      { userId: ann.id, title: 'Stuck on level 3', message: 'The door does not open.', category: 'BUG' },
      ann.accessToken,
    ),
    'feedback',
  )
  // Admin writes whose targets and changes are long, as real ones are.
  await ok(
    adminApi(base, 'PUT', '/remote-config/feature.flags.inventory-rework-rollout', {
      value: JSON.stringify({ enabled: true, percent: 25, regions: ['eu-west', 'us-east', 'ap-south'] }),
    }),
    'config',
  )
  await ok(adminApi(base, 'POST', `/users/${bob.id}/ban`, { reason: 'score tampering on the cup board' }), 'ban')
  await ok(adminApi(base, 'POST', `/users/${bob.id}/unban`), 'unban')
  return { ann, bob, cleo, groupId: first.groupId as string }
}

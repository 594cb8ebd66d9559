import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { buildTestApp, eachDialect, freshDatabase } from '../helpers/app.js'
import { asBeforeGames } from '../helpers/before-games.js'
import { PHP_SERVER_TESTS, sourceMissing } from '../helpers/php-server.js'
import { startServer } from '../helpers/server-process.js'

/**
 * The PHP server's own integration tests (its tests/test.sh, 60 curl checks of every app endpoint),
 * run against Outpost on a database from the build before games, which the start upgrades into the
 * game `default` (contract §14). The script is read from the PHP server's source and only its set-up
 * is changed: it starts no PHP server (and kills nothing on the port), it calls this server, and it
 * keeps its .env in a folder of its own. Its checks are its own, unchanged.
 *
 * One check fails, as it does on every build: the PHP server answers an unknown route with
 * `"error": true`, where the error body of contract §1.1 has the reason phrase, `"Not Found"`.
 */
const KNOWN_DIFFERENCE = `404 response contains error (expected to contain '"error":true')`

/** The API key the script sends (its `API_KEY="…"` line): the server under test is given it. */
function keyOf(script: string): string {
  const key = /^API_KEY="([^"]+)"$/m.exec(script)?.[1]
  if (!key) throw new Error(`${PHP_SERVER_TESTS}: no API_KEY="…" line to read the key from`)
  return key
}

/** The script, set up to test the server at `port` from `dir`: every edit must find its line. */
function setUp(script: string, port: number, dir: string): string {
  const edits: Array<[RegExp, string]> = [
    [/^TEST_PORT=\d+$/m, `TEST_PORT=${port}`],
    [/^PROJECT_DIR=.*$/m, `PROJECT_DIR=${JSON.stringify(dir)}`],
    [/^if lsof /m, 'if false && lsof '],
    [/^php -S .*&\nPHP_PID=\$!$/m, 'PHP_PID=""'],
    [/localhost:\$\{TEST_PORT\}/g, '127.0.0.1:${TEST_PORT}'],
  ]
  for (const [pattern, replacement] of edits) {
    if (!pattern.test(script)) throw new Error(`${PHP_SERVER_TESTS} changed: ${pattern} not found`)
    script = script.replace(pattern, replacement)
  }
  return script
}

/** Runs the script with bash (bounded), answering its output without colours. */
function run(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [file], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('error', reject)
    child.on('close', () => resolve(output.replace(/\u001b\[[0-9;]*m/g, '')))
  })
}

t.test("the PHP server's own tests", { skip: sourceMissing }, async (t) => {
  eachDialect(t, async (t, dialect) => {
    const dbEnv = await freshDatabase(t, dialect)
    const migrated = await buildTestApp(t, dialect, { dbEnv })
    await migrated.app.ready()
    await migrated.app.close()
    await asBeforeGames(dbEnv)

    const dir = mkdtempSync(join(tmpdir(), 'outpost-php-tests-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const original = readFileSync(PHP_SERVER_TESTS, 'utf8')
    const server = await startServer(t, dbEnv, { API_KEY: keyOf(original) })
    const file = join(dir, 'test.sh')
    writeFileSync(file, setUp(original, Number(new URL(server.base).port), dir))

    const output = await run(file)
    const results = /Results: (\d+) passed, (\d+) failed \((\d+) total\)/.exec(output)
    t.ok(results, 'the script ran to its results line')
    const failed = [...output.matchAll(/^\s*FAIL (.*)$/gm)].map((m) => m[1]!.trim())
    t.same(failed, [KNOWN_DIFFERENCE], `only the known difference fails on ${dialect}`)
    t.equal(Number(results?.[1]), 59, '59 of 60 pass')
    t.equal(Number(results?.[3]), 60, 'all 60 ran')
  })
})

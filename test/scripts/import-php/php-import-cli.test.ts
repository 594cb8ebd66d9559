// `import:php` on the command line: what it cannot do (no --from, a missing file, a database that is not
// the PHP server's, an unknown argument) it refuses with a clear message and its own exit status.
import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import SQLite from 'better-sqlite3'
import { runImport } from '../../helpers/php-import.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..')
const IMPORT_CLI = join(ROOT, 'dist/scripts/import-php/index.js')

t.test('the command line refuses what it cannot do, clearly', async (t) => {
  const dbEnv = { DB_DRIVER: 'sqlite', DB_PATH: join(mkdtempSync(join(tmpdir(), 'outpost-cli-')), 'o.db') }
  // The built command itself, once: its exit status and its message.
  const noFrom = spawnSync(process.execPath, [IMPORT_CLI], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH },
  })
  t.equal(noFrom.status, 2)
  t.match(noFrom.stderr, /--from is required/)
  const noFile = await runImport(['--from', '/nonexistent/horizon.db'], dbEnv)
  t.equal(noFile.status, 2)
  t.match(noFile.stderr, /No such file/)
  const notPhp = join(mkdtempSync(join(tmpdir(), 'outpost-notphp-')), 'other.db')
  const other = new SQLite(notPhp)
  other.exec('create table something (id integer)')
  other.close()
  const wrong = await runImport(['--from', notPhp], dbEnv)
  t.equal(wrong.status, 1)
  t.match(wrong.stderr, /not a horizOn Simple Server database/)
  const unknown = await runImport(['--from', notPhp, '--force'], dbEnv)
  t.equal(unknown.status, 2)
  t.match(unknown.stderr, /Unknown argument "--force"/)
})

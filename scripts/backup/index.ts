// `npm run backup FILE`: a consistent copy of the server's SQLite database, checked; for a database
// server, the command of its own tool to run instead (the engine's backup advice).
import { pathToFileURL } from 'node:url'
import { describeConfigError, loadConfig } from '../../config.js'
import { backupSqlite, type BackupResult } from '../../db/backup.js'
import { engineNamed } from '../../db/engines/index.js'

const USAGE = 'Usage: npm run backup -- FILE   (a new file; the SQLite database of .env is copied there)\n'

/** Where the command writes: the process's streams, or a test's buffers. */
export interface Output {
  out: { write(text: string): unknown }
  err: { write(text: string): unknown }
}

/** The backup command's entry point, taking argv and env so tests run it in process. */
export async function main(
  argv: string[],
  env: Record<string, string | undefined>,
  io: Output = { out: process.stdout, err: process.stderr },
  envFile = '.env',
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out.write(USAGE)
    return 0
  }
  const file = argv.find((arg) => !arg.startsWith('-'))
  if (!file) {
    io.err.write(USAGE)
    return 2
  }
  let config
  try {
    config = loadConfig(env, { envFile })
  } catch (error) {
    io.err.write(`${describeConfigError(error as Error)}\n`)
    return 1
  }
  // A database server is backed up with its own tool: the command to run is printed instead.
  const advice = engineNamed(config.DB_DRIVER).backupAdvice(config, file)
  if (advice !== null) {
    io.err.write(`${advice}\n`)
    return 2
  }
  let result: BackupResult
  try {
    result = await backupSqlite(config.DB_PATH, file)
  } catch (error) {
    io.err.write(`Backup failed: ${(error as Error).message}\n`)
    return 1
  }
  io.out.write(
    `Backed up ${config.DB_PATH} to ${result.path}: ${result.pages} pages, ${result.bytes} bytes, integrity ok\n`,
  )
  return 0
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2), process.env).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`Backup failed: ${(error as Error).message}\n`)
      process.exit(1)
    },
  )
}

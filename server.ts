import cluster from 'node:cluster'
import { createServer, type AddressInfo } from 'node:net'
import type { FastifyBaseLogger } from 'fastify'
import { describeConfigError, ensureEnvFile, loadConfig, usageText, workerCount, type Config } from './config.js'
import type { Channel } from './platform/cluster/cluster.js'

// Only the configuration is imported up front: the app and the database drivers are loaded once the
// arguments are read (import() below), so --help answers at once instead of after 2-7 s of loading.

const ENV_FILE = '.env'

async function main() {
  // Before anything is written or opened: a help asked for must not start a server or make a .env.
  const args = process.argv.slice(2)
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(usageText())
    return
  }
  if (args.length > 0) {
    process.stderr.write(`Unknown argument "${args[0]}": npm start takes none but --help.\n\n${usageText()}`)
    process.exit(2)
  }
  const generated = ensureEnvFile(ENV_FILE, process.env)
  if (generated) {
    process.stdout.write(
      `No configuration found: wrote ${ENV_FILE} with new keys (shown once, keep them safe):\n` +
        Object.entries(generated)
          .map(([name, value]) => `  ${name}=${value}\n`)
          .join(''),
    )
  }
  let config
  try {
    config = loadConfig(process.env, { envFile: ENV_FILE })
  } catch (error) {
    process.stderr.write(`${describeConfigError(error as Error)}\n`)
    process.exit(1)
  }

  const workers = workerCount(config.WORKERS)
  const logStream = await terminalLogStream(workers > 1)
  if (cluster.isWorker) {
    const { connectToPrimary } = await import('./platform/cluster/cluster.js')
    await startServer(config, logStream, connectToPrimary())
  } else if (workers > 1) await startPrimary(config, logStream, workers)
  else await startServer(config, logStream)
}

/**
 * A person at a terminal reads one coloured line per event; anything else (a file, a container's
 * log driver, a log shipper) gets one JSON object per line.
 * Loaded only then: a server writing JSON does not pay for pino-pretty's start-up.
 */
async function terminalLogStream(showPid: boolean) {
  return process.stdout.isTTY
    ? (await import('pino-pretty')).default({
        colorize: true,
        singleLine: true,
        translateTime: 'SYS:HH:MM:ss.l',
        // The request line's message already says method, path, status and time; the process id
        // tells workers apart.
        ignore: `${showPid ? '' : 'pid,'}hostname,method,url,statusCode,responseTimeMs`,
      })
    : undefined
}

type LogStream = Awaited<ReturnType<typeof terminalLogStream>>

/**
 * One server: the whole of it when WORKERS=1, or one worker of a cluster (then `channel` leads to
 * the primary, which has already run the migrations, and the port is shared with the other workers).
 */
async function startServer(config: Config, logStream: LogStream, channel?: Channel) {
  // The primary asks its workers to stop (its own SIGTERM); a worker whose primary has gone stops too.
  // Either may come while the app is still being built: it is remembered and done once it can be.
  let stopAsked = false
  let stop = () => {
    stopAsked = true
  }
  if (channel) {
    channel.handle('shutdown', () => stop())
    process.on('disconnect', () => stop())
  }
  const [{ buildApp }, { processMetrics }, { default: closeWithGrace }] = await Promise.all([
    import('./app.js'),
    import('./platform/observability/metrics/index.js'),
    import('close-with-grace'),
  ])
  const app = await buildApp({
    config: channel ? { ...config, MIGRATE_ON_START: false } : config,
    logStream,
    cluster: channel,
    processMetrics: processMetrics(),
  })
  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish, close the pool; force after 10 s.
  let closing = false
  const grace = closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    closing = true
    if (err) app.log.error({ err }, 'shutting down after an error')
    else app.log.info({ signal }, 'shutting down')
    await app.close()
  })
  stop = () => {
    if (!closing) void grace.close()
  }
  if (stopAsked) return stop()
  try {
    await app.listen({ host: config.HOST, port: config.PORT })
  } catch (error) {
    await app.close()
    throw new Error(listenProblem(error, config) ?? (error as Error).message, { cause: error })
  }
  // A worker's start is announced by the primary, once for all of them.
  if (channel) return
  // PORT=0 binds a free port: name the one the socket got.
  const address = app.server.address()
  await announce(app.log, config, typeof address === 'object' && address ? address.port : config.PORT)
}

/**
 * The cluster primary (WORKERS > 1): it runs the migrations once, then forks the workers, which
 * share the port. It serves no request itself (cluster-primary.ts).
 */
async function startPrimary(config: Config, logStream: LogStream, workers: number) {
  const [
    { pino },
    { createDb, MIGRATION_QUERY_TIMEOUT_MS },
    { migrateToLatest },
    { checkDatabase, explainDbError },
    { MIGRATIONS },
    { hostLog },
  ] = await Promise.all([
    import('pino'),
    import('./db/index.js'),
    import('./db/migrate.js'),
    import('./db/startup-check.js'),
    import('./app.js'),
    import('./platform/core/db.js'),
  ])
  const log = pino({ level: config.LOG_LEVEL }, logStream ?? process.stdout)
  if (config.MIGRATE_ON_START) {
    for (const problem of await checkDatabase(config)) log.warn(problem)
    const db = createDb(
      { ...config, DB_POOL_SIZE: 1, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS },
      { queryFailed: () => {}, ...hostLog(log) },
    )
    try {
      const applied = await migrateToLatest(db, MIGRATIONS).catch((error) => {
        throw explainDbError(error, config)
      })
      if (applied.length) log.info({ applied }, 'migrations applied')
    } finally {
      await db.destroy()
    }
  }
  // PORT=0: the primary picks the free port once, and every worker, a replacement too, listens on it.
  // (node:cluster would share one random port among the first workers, but hand a new one to
  // replacements started after every worker had died.)
  const env = config.PORT === 0 ? { PORT: String(await freePort(config.HOST)) } : undefined
  const { runPrimary } = await import('./cluster-primary.js')
  const { port } = await runPrimary({ workers, log, env })
  await announce(log, config, port, workers)
}

/** Why the port could not be opened, in the operator's terms, with what to do; null for anything else. */
function listenProblem(error: unknown, config: Config): string | null {
  const where = `${config.HOST}:${config.PORT}`
  switch ((error as { code?: string }).code) {
    case 'EADDRINUSE':
      return `port ${config.PORT} is already in use (${where}): stop the program that holds it (another Outpost?), or set PORT in .env to a free port`
    case 'EACCES':
      return `cannot listen on ${where} (permission denied; ports below 1024 need privileges): set PORT to 1024 or above, and put a reverse proxy in front for 80/443`
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `cannot listen on ${where} (HOST is not an address of this machine): set HOST to 0.0.0.0 (every interface), 127.0.0.1, or one of this machine's addresses`
    default:
      return null
  }
}

/** A port free on `host` now, as the system picks one for a listen on port 0. */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen({ host, port: 0 }, () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

async function announce(log: FastifyBaseLogger, config: Config, port: number, workers = 1) {
  const { version } = await import('./platform/observability/health.js')
  const { describeDatabase } = await import('./db/index.js')
  const base = publicBaseUrl(config.HOST, port)
  const database = describeDatabase(config)
  const consoleUrl = config.CONSOLE_ENABLED ? `${base}/console/` : undefined
  log.info(
    { version, database, workers, url: base, docs: `${base}/docs`, ...(consoleUrl && { console: consoleUrl }) },
    `Outpost listening on ${base}, API docs at ${base}/docs${consoleUrl ? `, console at ${consoleUrl}` : ''} ` +
      `(version ${version}, database ${database}${workers > 1 ? `, ${workers} workers` : ''})`,
  )
}

/**
 * The address an operator can open: a wildcard bind (0.0.0.0, ::) is not a place a browser can go,
 * so it is shown as localhost; IPv6 literals need brackets in a URL.
 */
function publicBaseUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`
}

main().catch((error) => {
  process.stderr.write(`Outpost failed to start: ${(error as Error).message}\n`)
  process.exit(1)
})
